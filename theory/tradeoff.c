/* tradeoff.c -- the speed/diversity trade-off as a Pareto front
 * (theorems.md, "The trade-off over the parameters": X.front,
 * X.dominates).
 *
 * Method.  On the orthonormal start (d = n, Q = K = V = I, radii r0) every
 * scheme keeps one common cosine gamma(t) (T4.1), so the metrics of a
 * grid point are two values of one scalar solution: gamma(L0) (or the
 * angle moved, a decreasing function of it) and 1 - gamma(L).  They come
 * from af_t41_solve (rk8pd on the log-gap, rtol 1e-14) or from the S7
 * layer maps on the symmetric start (af_s7_sym_step, closed form), with
 * nothing from src/'s scheme table.
 *
 * The angle moved.  By the symmetry, th_j(t) = a e_j + b sum_k e_k with
 * |th_j|^2 = a^2 + 2ab + n b^2 = 1 and <th_i, th_j> = 2ab + n b^2 = gamma,
 * so a^2 = 1 - gamma, n b^2 + 2ab - gamma = 0, b = (sqrt(1 + (n-1) gamma)
 * - sqrt(1 - gamma)) / n, and <th_j(t), th_j(0)> = a + b
 *   = (1 - 1/n) sqrt(1 - gamma) + sqrt(1 + (n-1) gamma) / n.
 * Its gamma-derivative is (n-1)/(2n) [(1+(n-1)gamma)^-1/2 - (1-gamma)^-1/2]
 * < 0 on (0, 1): the angle grows with gamma.
 *
 * Dominance with ties: x and y are equal if |x - y| <= tie max(|x|, |y|);
 * a dominates b if neither of a's metrics is below b's (up to equality)
 * and one is above.  Mix-LN equals Post-LN up to tau, so at L0 <= tau
 * their early metrics are equal and Mix-LN (Pre-LN after tau) dominates.
 */
#include <config.h>

#include "tradeoff.h"
#include "theory.h"
#include "s7.h"

#include <math.h>
#include <string.h>

static const char *const early_names[AF_TRADEOFF_EARLY_COUNT] = {"gamma",
                                                                 "angle"};

int af_tradeoff_early_lookup(af_tradeoff_early *m, const char *name)
{
  if (!m || !name)
    return AF_EINVAL;
  for (int i = 0; i < AF_TRADEOFF_EARLY_COUNT; i++)
    if (strcmp(name, early_names[i]) == 0) {
      *m = (af_tradeoff_early) i;
      return AF_OK;
    }
  return AF_EINVAL;
}

const char *af_tradeoff_early_name(af_tradeoff_early m)
{
  return (unsigned) m < AF_TRADEOFF_EARLY_COUNT ? early_names[m] : "?";
}

int af_tradeoff_point_check(const af_tradeoff_point *pt, const char **why)
{
  const char *w = NULL;
  if (!pt)
    w = "no grid point";
  else if (pt->n < 2)
    w = "n must be at least 2";
  else if (!isfinite(pt->beta) || pt->beta < 0)
    w = "beta must be finite and >= 0";
  else if (!isfinite(pt->r0) || !(pt->r0 > 0))
    w = "r0 must be finite and > 0";
  else if (!isfinite(pt->alpha) || !(pt->alpha > 0))
    w = "alpha must be finite and > 0";
  else if (!isfinite(pt->tau) || pt->tau < 0)
    w = "tau must be finite and >= 0";
  else if (!isfinite(pt->L0) || !(pt->L0 > 0))
    w = "the early depth L0 must be finite and > 0";
  else if (!isfinite(pt->L) || !(pt->L > pt->L0))
    w = "the late depth L must be finite and beyond the early depth L0";
  if (why)
    *why = w ? w : "";
  return w ? AF_EINVAL : AF_OK;
}

double af_tradeoff_cos_moved(double gamma, size_t n)
{
  if (n < 2 || !(gamma >= 0) || !(gamma <= 1))
    return NAN;
  double nn = (double) n;
  return (1.0 - 1.0 / nn) * sqrt(1.0 - gamma) +
         sqrt(1.0 + (nn - 1.0) * gamma) / nn;
}

/* gamma and gap at L0 and L from the symmetric layer maps of step h. */
static int map_run(double g[2], double gap[2], af_scheme_id s,
                   const af_tradeoff_point *pt, double h)
{
  if (!(h > 0) || !isfinite(h))
    return AF_EINVAL;
  double k0 = pt->L0 / h, k1 = pt->L / h;
  if (k0 != floor(k0) || k1 != floor(k1) || k1 > 1e7)
    return AF_EINVAL; /* the depths must be whole numbers of layers */
  af_s7_params p = {s, pt->beta, pt->alpha, 0.0, pt->tau};
  double w = 1.0, r = pt->r0;
  size_t L1 = (size_t) k1, L0 = (size_t) k0;
  for (size_t l = 0; l < L1; l++) {
    double w2, r2;
    int st = af_s7_sym_step(&w2, &r2, w, r, pt->n, l, h, &p);
    if (st != AF_OK)
      return st;
    w = w2;
    r = r2;
    if (l + 1 == L0) {
      g[0] = 1.0 - w;
      gap[0] = w;
    }
  }
  g[1] = 1.0 - w;
  gap[1] = w;
  return AF_OK;
}

int af_tradeoff_metrics(double *early, double *late, af_scheme_id s,
                        const af_tradeoff_point *pt, af_tradeoff_early m,
                        af_tradeoff_source src, double h)
{
  if (!early || !late || (unsigned) s >= AF_SCHEME_COUNT ||
      (unsigned) m >= AF_TRADEOFF_EARLY_COUNT ||
      (unsigned) src >= AF_TRADEOFF_SOURCE_COUNT)
    return AF_EINVAL;
  int st = af_tradeoff_point_check(pt, NULL);
  if (st != AF_OK)
    return st;
  double g[2], gap[2];
  if (src == AF_TRADEOFF_SCALAR) {
    af_t41_params p;
    af_t41_params_init(&p, pt->n, pt->beta, s);
    p.r0 = pt->r0;
    p.alpha = pt->alpha;
    p.tau = pt->tau;
    double times[2] = {pt->L0, pt->L};
    st = af_t41_solve(g, gap, NULL, times, 2, &p);
  } else {
    st = map_run(g, gap, s, pt, h);
  }
  if (st != AF_OK)
    return st;
  *early = m == AF_TRADEOFF_EARLY_GAMMA
               ? g[0]
               : acos(fmin(1.0, af_tradeoff_cos_moved(g[0], pt->n)));
  *late = gap[1];
  return isfinite(*early) && isfinite(*late) ? AF_OK : AF_ENONFINITE;
}

/* -1, 0, +1: x below, equal to, above y up to the tie tolerance. */
static int cmp_tie(double x, double y, double tie, size_t *near)
{
  double d = fabs(x - y), sc = fmax(fabs(x), fabs(y));
  if (near && sc > 0 && d >= 0.01 * tie * sc && d <= 100.0 * tie * sc)
    (*near)++;
  if (d <= tie * sc)
    return 0;
  return x > y ? 1 : -1;
}

int af_tradeoff_front(int *onfront, int *dom, size_t *nearties,
                      const double *early, const double *late, size_t k,
                      double tie)
{
  if (!onfront || !early || !late || k > AF_SCHEME_COUNT || !(tie >= 0) ||
      !isfinite(tie))
    return AF_EINVAL;
  for (size_t i = 0; i < k; i++)
    if (!isfinite(early[i]) || !isfinite(late[i]))
      return AF_EINVAL;
  size_t near = 0;
  for (size_t i = 0; i < k; i++)
    onfront[i] = 1;
  for (size_t i = 0; i < k; i++)
    for (size_t j = 0; j < k; j++) {
      int d = 0;
      if (i != j) {
        int ce = cmp_tie(early[i], early[j], tie, j > i ? &near : NULL);
        int cl = cmp_tie(late[i], late[j], tie, j > i ? &near : NULL);
        d = ce >= 0 && cl >= 0 && (ce > 0 || cl > 0);
      }
      if (dom)
        dom[i * k + j] = d;
      if (d)
        onfront[j] = 0;
    }
  if (nearties)
    *nearties = near;
  return AF_OK;
}
