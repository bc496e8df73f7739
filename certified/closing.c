/* closing.c -- the terminal arguments of a certificate (theorems.md
 * C-close): tests, in balls, of the hypotheses of the lemmas that finish a
 * proof of convergence to one cluster once the validated integrator has
 * carried the start to time T*.
 *
 *  - P3h, the hemisphere lemma: every <theta_i(T*), w> > 0 for one fixed w
 *    (schemes with a positive speed factor common to all tokens up to a
 *    time change, or nGPT's |A_j|/alpha(t); Q^T K = I);
 *  - the cap of Theorem 4.3 with the corrected hypothesis delta < 1/(100
 *    n^2 max(1, beta^2)) (V = I, |Q^T K| <= 1; every scheme, used for
 *    those whose radii move).
 * Both are evaluated on balls that contain the exact directions, which
 * are unit vectors, so 1 - <theta_i, theta_j> = |theta_i - theta_j|^2 / 2
 * holds for them and its ball is the sharper enclosure.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>

#include "flow.h"

#ifdef AF_HAVE_ARB

void af_close_hemisphere(int *ok, double *margin, arb_srcptr theta,
                         size_t n, size_t d, long prec)
{
  arb_ptr w = _arb_vec_init((slong) d);
  arb_t s, nw;
  arb_init(s);
  arb_init(nw);
  /* w: the exact midpoint of sum_i theta_i (any fixed vector will do) */
  for (size_t c = 0; c < d; c++) {
    arb_zero(w + c);
    for (size_t i = 0; i < n; i++)
      arb_add(w + c, w + c, theta + i * d + c, prec);
    mag_zero(arb_radref(w + c));
  }
  arb_dot(nw, NULL, 0, w, 1, w, 1, (slong) d, prec);
  arb_sqrt(nw, nw, prec);
  *ok = arb_is_positive(nw);
  double mg = INFINITY;
  for (size_t i = 0; i < n && *ok; i++) {
    arb_dot(s, NULL, 0, theta + i * d, 1, w, 1, (slong) d, prec);
    if (!arb_is_positive(s))
      *ok = 0;
    arb_div(s, s, nw, prec);
    arf_t lo;
    arf_init(lo);
    arb_get_lbound_arf(lo, s, prec);
    double v = arf_get_d(lo, ARF_RND_DOWN);
    arf_clear(lo);
    if (v < mg)
      mg = v;
  }
  if (margin)
    *margin = *ok ? mg : NAN;
  arb_clear(s);
  arb_clear(nw);
  _arb_vec_clear(w, (slong) d);
}

/* g = 1 - <theta_i, theta_j> as |theta_i - theta_j|^2 / 2 (unit rows; the
 * squared difference keeps the ball tight near 0); x is scratch. */
static void pair_gap(arb_t g, arb_t x, arb_srcptr theta, size_t i, size_t j,
                     size_t d, long prec)
{
  arb_zero(g);
  for (size_t c = 0; c < d; c++) {
    arb_sub(x, theta + i * d + c, theta + j * d + c, prec);
    arb_addmul(g, x, x, prec);
  }
  arb_mul_2exp_si(g, g, -1);
}

void af_close_cap(int *ok, double *gap, double *delta_max, arb_srcptr theta,
                  size_t n, size_t d, double beta, long prec)
{
  arb_t dm, g, x;
  arb_init(dm);
  arb_init(g);
  arb_init(x);
  /* delta_max = 1 / (100 n^2 max(1, beta^2)) */
  arb_set_d(dm, beta);
  arb_sqr(dm, dm, prec);
  if (!(beta > 1))
    arb_one(dm);
  arb_mul_ui(dm, dm, 100 * (ulong) n * (ulong) n, prec);
  arb_inv(dm, dm, prec);
  *ok = 1;
  double gmax = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      pair_gap(g, x, theta, i, j, d, prec);
      if (!arb_lt(g, dm))
        *ok = 0;
      arf_t hi;
      arf_init(hi);
      arb_get_ubound_arf(hi, g, prec);
      double v = arf_get_d(hi, ARF_RND_UP);
      arf_clear(hi);
      if (v > gmax)
        gmax = v;
    }
  if (gap)
    *gap = gmax;
  if (delta_max)
    *delta_max = arf_get_d(arb_midref(dm), ARF_RND_DOWN);
  arb_clear(dm);
  arb_clear(g);
  arb_clear(x);
}

void af_close_gap_lower(double *lower, arb_srcptr theta, size_t n, size_t d,
                        long prec)
{
  arb_t g, x;
  arb_init(g);
  arb_init(x);
  arf_t lo;
  arf_init(lo);
  double best = -INFINITY;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      pair_gap(g, x, theta, i, j, d, prec);
      /* max of lower bounds <= the max over the exact points */
      arb_get_lbound_arf(lo, g, prec);
      double v = arf_get_d(lo, ARF_RND_DOWN);
      if (v > best) /* a NaN bound (an infinite ball) adds nothing */
        best = v;
    }
  *lower = best;
  arf_clear(lo);
  arb_clear(g);
  arb_clear(x);
}

void af_close_pair_gap(arb_t g, arb_srcptr theta, size_t i, size_t j,
                       size_t d, long prec)
{
  arb_t x;
  arb_init(x);
  pair_gap(g, x, theta, i, j, d, prec);
  arb_clear(x);
}

void af_close_norm_bound(arb_t out, arb_srcptr M, size_t d, long prec)
{
  arb_t f, a, r1, ri, t;
  arb_init(f);
  arb_init(a);
  arb_init(r1);
  arb_init(ri);
  arb_init(t);
  arb_zero(r1);
  arb_zero(ri);
  for (size_t i = 0; i < d * d; i++)
    arb_addmul(f, M + i, M + i, prec);
  arb_sqrt(f, f, prec);
  for (size_t i = 0; i < d; i++) { /* largest column and row sums */
    arb_zero(a);
    arb_zero(t);
    for (size_t j = 0; j < d; j++) {
      arb_t v;
      arb_init(v);
      arb_abs(v, M + j * d + i);
      arb_add(a, a, v, prec);
      arb_abs(v, M + i * d + j);
      arb_add(t, t, v, prec);
      arb_clear(v);
    }
    arb_max(r1, r1, a, prec);
    arb_max(ri, ri, t, prec);
  }
  arb_mul(r1, r1, ri, prec);
  arb_sqrt(r1, r1, prec);
  arb_min(out, f, r1, prec);
  arb_clear(f);
  arb_clear(a);
  arb_clear(r1);
  arb_clear(ri);
  arb_clear(t);
}

#endif /* AF_HAVE_ARB */
