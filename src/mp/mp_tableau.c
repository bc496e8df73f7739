/* mp_tableau.c -- the coefficients of the two MPFR integrators of
 * mp_integrate.c: the s-stage Gauss-Legendre tableau (nodes by Newton on
 * the Legendre polynomial from Tricomi's estimate, weights and a_ij = the
 * integral of the Lagrange basis, all with guard bits over the working
 * precision; HNW I §II.7) and the Aitken-Neville ratios of the
 * Gragg-Bulirsch-Stoer table for n_k = 2k (HNW I §II.9).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "internal.h"
#include "attnflow_mp.h"

#define RND MPFR_RNDN

/* ---------------------------------------------------------- tableaux */

/* P_s(x) into p, P_{s-1}(x) into q (Bonnet's recurrence). */
static void legendre(mpfr_t p, mpfr_t q, mpfr_t x, unsigned s, mpfr_t t)
{
  mpfr_set_ui(q, 1, RND);   /* P_0 */
  mpfr_set(p, x, RND);      /* P_1 */
  if (s == 0) {
    mpfr_set_ui(p, 1, RND);
    mpfr_set_zero(q, 1);
    return;
  }
  for (unsigned k = 1; k < s; k++) {
    /* P_{k+1} = ((2k+1) x P_k - k P_{k-1}) / (k+1) */
    mpfr_mul(t, x, p, RND);
    mpfr_mul_ui(t, t, 2 * k + 1, RND);
    mpfr_mul_ui(q, q, k, RND);
    mpfr_sub(t, t, q, RND);
    mpfr_div_ui(t, t, k + 1, RND);
    mpfr_set(q, p, RND);
    mpfr_set(p, t, RND);
  }
}

/* P_s(x) into p, P_{s-1}(x) into q (legendre), and the derivative
 * P_s'(x) = s (x P_s - P_{s-1}) / (x^2 - 1) into dp; t is scratch. */
static void legendre_d(mpfr_t p, mpfr_t q, mpfr_t dp, mpfr_t x, unsigned s,
                       mpfr_t t)
{
  legendre(p, q, x, s, t);
  mpfr_mul(dp, x, p, RND);
  mpfr_sub(dp, dp, q, RND);
  mpfr_mul_ui(dp, dp, s, RND);
  mpfr_sqr(t, x, RND);
  mpfr_sub_ui(t, t, 1, RND);
  mpfr_div(dp, dp, t, RND);
}

int af_mp_gauss_tableau(mpfr_t *A, mpfr_t *b, mpfr_t *c, unsigned s)
{
  if (s < 1 || s > AF_MP_GAUSS_MAX || !A || !b || !c)
    return AF_EINVAL;
  /* Guard bits: 32, plus 2 per stage for the cancellation in the monomial
   * form of the Lagrange basis (coefficients grow like 4^s on [0, 1]). */
  mpfr_prec_t wp = mpfr_get_prec(c[0]) + 32 + 2 * (mpfr_prec_t) s;
  mpfr_t x, p, q, dp, t, dx, pi;
  mpfr_inits2(wp, x, p, q, dp, t, dx, pi, (mpfr_ptr) 0);
  mpfr_t *cc = af_mp_vec_alloc(s, wp);
  mpfr_t *poly = af_mp_vec_alloc(s + 1, wp);
  if (cc == NULL || poly == NULL) {
    af_mp_vec_free(cc, s);
    af_mp_vec_free(poly, s + 1);
    mpfr_clears(x, p, q, dp, t, dx, pi, (mpfr_ptr) 0);
    return AF_ENOMEM;
  }
  mpfr_const_pi(pi, RND);
  for (unsigned i = 1; i <= s; i++) {
    /* Tricomi's estimate of the i-th largest root, then Newton. */
    mpfr_mul_ui(x, pi, 4 * i - 1, RND);
    mpfr_div_ui(x, x, 4 * s + 2, RND);
    mpfr_cos(x, x, RND);
    int small = 0;
    for (int it = 0; it < 200 && small < 2; it++) {
      legendre_d(p, q, dp, x, s, t);
      mpfr_div(dx, p, dp, RND);
      mpfr_sub(x, x, dx, RND);
      /* Quadratic convergence: once the step is below 2^(-wp/2) |x|-ish,
       * one more step reaches the working precision; take two. */
      if (mpfr_zero_p(dx) || mpfr_get_exp(dx) < -(mpfr_exp_t) wp / 2)
        small++;
    }
    legendre_d(p, q, dp, x, s, t);
    /* b = w/2 = 1 / ((1 - x^2) P'^2) */
    mpfr_ui_sub(t, 1, x, RND);
    mpfr_div_2ui(cc[i - 1], t, 1, RND); /* c = (1 - x)/2, ascending */
    mpfr_sqr(t, x, RND);
    mpfr_ui_sub(t, 1, t, RND);
    mpfr_sqr(dp, dp, RND);
    mpfr_mul(t, t, dp, RND);
    mpfr_ui_div(t, 1, t, RND);
    mpfr_set(b[i - 1], t, RND);
    mpfr_set(c[i - 1], cc[i - 1], RND);
  }
  /* a_ij = int_0^{c_i} l_j(u) du, l_j = prod_{k != j} (u - c_k)/(c_j - c_k). */
  for (unsigned j = 0; j < s; j++) {
    for (unsigned m = 0; m <= s; m++)
      mpfr_set_ui(poly[m], m == 0, RND);
    unsigned deg = 0;
    mpfr_set_ui(dp, 1, RND); /* prod (c_j - c_k) */
    for (unsigned k = 0; k < s; k++) {
      if (k == j)
        continue;
      /* poly *= (u - c_k) */
      deg++;
      for (unsigned m = deg; m >= 1; m--) {
        mpfr_mul(t, poly[m], cc[k], RND);
        mpfr_sub(poly[m], poly[m - 1], t, RND);
      }
      mpfr_mul(poly[0], poly[0], cc[k], RND);
      mpfr_neg(poly[0], poly[0], RND);
      mpfr_sub(t, cc[j], cc[k], RND);
      mpfr_mul(dp, dp, t, RND);
    }
    for (unsigned i = 0; i < s; i++) {
      /* Horner on sum_m poly[m] u^(m+1)/(m+1) at u = c_i. */
      mpfr_set_zero(x, 1);
      for (unsigned m = deg + 1; m-- > 0;) {
        mpfr_div_ui(t, poly[m], m + 1, RND);
        mpfr_add(x, x, t, RND);
        mpfr_mul(x, x, cc[i], RND);
      }
      mpfr_div(x, x, dp, RND);
      mpfr_set(A[i * s + j], x, RND);
    }
  }
  af_mp_vec_free(cc, s);
  af_mp_vec_free(poly, s + 1);
  mpfr_clears(x, p, q, dp, t, dx, pi, (mpfr_ptr) 0);
  return AF_OK;
}

unsigned long af_mp_gbs_seq(unsigned k) { return 2UL * k; }

void af_mp_gbs_ratio(unsigned long *num, unsigned long *den, unsigned k,
                     unsigned j)
{
  if (num == NULL || den == NULL)
    return;
  if (j < 1 || j >= k) { /* no ratio: 0/0 (k - j would wrap) */
    *num = *den = 0;
    return;
  }
  unsigned long nk = af_mp_gbs_seq(k), nl = af_mp_gbs_seq(k - j);
  *num = nl * nl;
  *den = nk * nk - nl * nl;
}
