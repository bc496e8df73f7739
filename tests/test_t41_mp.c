/* test_t41_mp.c -- theory/t41_mp.c: the T4.1 scalar ODE and K(n, beta)
 * at MPFR precision, the references of the MPFR tail claims T4.1b and
 * T4.1c (proofs-numeric/claims_t41.c).
 *
 * Expected values come from the double code of theory/t41.c (GSL rk8pd,
 * GSL's Ei), from a run of the MPFR solver at higher precision and a
 * tighter tolerance, and from the bound on the T4.1c tail derived in
 * claims_t41.c.
 */
#include <config.h>

#include "aftest.h"
#include "t41_mp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RND MPFR_RNDN

static void params(af_t41_params *p, int scheme, size_t n, double beta)
{
  af_t41_params_init(p, n, beta, (af_scheme_id) scheme);
  p->r0 = 1.5;
  p->tau = 0.8;                 /* Mix-LN switches inside (0, 20)  */
  p->alpha = 0.7;
  p->alpha_decay = scheme == AF_NGPT ? 0.5 : 0.0;
}

START_TEST(test_mp_matches_double)
{
  /* Every scheme, t = 0.5 .. 20: u = ln(1 - gamma) and r of the MPFR
   * solver against af_t41_solve (rk8pd, rtol 1e-14, atol 1e-16 on u and
   * r; |u| <= 25 here, so the local errors are <= 2.5e-13 and the
   * ~10^2-10^3 steps leave the double reference within ~1e-10). */
  const int s = _i;
  af_t41_params p;
  params(&p, s, 6, 2.0);
  enum { NT = 40 };
  double times[NT], gap[NT], r[NT];
  for (int k = 0; k < NT; k++)
    times[k] = 0.5 * (k + 1);
  AFT_OK(af_t41_solve(NULL, gap, r, times, NT, &p));
  mpfr_t *u = malloc(NT * sizeof *u), *rm = malloc(NT * sizeof *rm);
  for (int k = 0; k < NT; k++) {
    mpfr_init2(u[k], 256);
    mpfr_init2(rm[k], 256);
  }
  unsigned long steps = 0;
  AFT_OK(af_t41_solve_mp(u, rm, &steps, times, NT, &p, 1e-40));
  ck_assert_uint_gt(steps, 0);
  double worst = 0;
  for (int k = 0; k < NT; k++) {
    double eu = fabs(mpfr_get_d(u[k], RND) - log(gap[k]));
    double er = fabs(mpfr_get_d(rm[k], RND) - r[k]) / r[k];
    worst = fmax(worst, fmax(eu, er));
  }
  fprintf(stderr, "scheme %d: max |u_mp - ln gap|, |r_mp - r|/r = %.3g (%lu steps)\n",
          s, worst, steps);
  ck_assert_msg(worst <= 1e-10, "scheme %d: MPFR vs double %g", s, worst);
  /* the flow moved: gap(20) well below 1 */
  ck_assert(mpfr_cmp_d(u[NT - 1], -1.0) < 0);
  for (int k = 0; k < NT; k++) {
    mpfr_clear(u[k]);
    mpfr_clear(rm[k]);
  }
  free(u);
  free(rm);
}
END_TEST

START_TEST(test_mp_precision)
{
  /* 256 bits at tol 1e-45 per output interval against 384 bits at
   * 1e-70: the difference is the 256-bit run's error, about k 1e-45
   * after k intervals (k <= 41 here), so <= 1e-42 on u and r/max(1, r).
   * Post-LN to gap 1e-60 and Pre-LN to t = 2^40. */
  const int sch[2] = {AF_POST_LN, AF_PRE_LN};
  for (int q = 0; q < 2; q++) {
    af_t41_params p;
    params(&p, sch[q], 4, 2.0);
    enum { NT = 41 };
    double times[NT];
    for (int k = 0; k < NT; k++)
      times[k] = q ? ldexp(1.0, k) : 2.0 * (k + 1);
    mpfr_t a[NT], b[NT], ra[NT], rb[NT];
    for (int k = 0; k < NT; k++) {
      mpfr_inits2(256, a[k], ra[k], (mpfr_ptr) 0);
      mpfr_inits2(384, b[k], rb[k], (mpfr_ptr) 0);
    }
    AFT_OK(af_t41_solve_mp(a, ra, NULL, times, NT, &p, 1e-45));
    AFT_OK(af_t41_solve_mp(b, rb, NULL, times, NT, &p, 1e-70));
    mpfr_t e;
    mpfr_init2(e, 384);
    double worst = 0;
    for (int k = 0; k < NT; k++) {
      mpfr_sub(e, a[k], b[k], RND);
      worst = fmax(worst, fabs(mpfr_get_d(e, RND)));
      mpfr_sub(e, ra[k], rb[k], RND);
      worst = fmax(worst, fabs(mpfr_get_d(e, RND)) /
                              fmax(1.0, mpfr_get_d(rb[k], RND)));
    }
    fprintf(stderr, "%s: 256 vs 384 bits: %.3g; u(end) = %.6g\n",
            q ? "pre-ln" : "post-ln", worst, mpfr_get_d(b[NT - 1], RND));
    ck_assert_msg(worst <= 1e-42, "precision check %g", worst);
    /* the tails were reached: gap <= 1e-30 (Post-LN, t = 82: ~1e-70),
     * Pre-LN gap ~ t^-2 */
    ck_assert(mpfr_cmp_d(b[NT - 1], q ? -50.0 : -150.0) < 0);
    mpfr_clear(e);
    for (int k = 0; k < NT; k++)
      mpfr_clears(a[k], ra[k], b[k], rb[k], (mpfr_ptr) 0);
  }
}
END_TEST

START_TEST(test_lnK_mp)
{
  /* Against the double closed form (GSL Ei) and the double ODE value:
   * both are good to ~1e-14 relative in K (t41.c), i.e. ~1e-14 absolute
   * in ln K times max(1, ln K). */
  const size_t ns[] = {2, 3, 6, 8, 32};
  const double betas[] = {0.0, 0.5, 2.0, 5.0};
  mpfr_t lk;
  mpfr_init2(lk, 256);
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    for (size_t j = 0; j < sizeof betas / sizeof *betas; j++) {
      double Kc, Ko;
      AFT_OK(af_t41_lnK_mp(lk, ns[i], betas[j]));
      AFT_OK(af_t41_K_closed(&Kc, ns[i], betas[j]));
      AFT_OK(af_t41_K(&Ko, ns[i], betas[j]));
      double l = mpfr_get_d(lk, RND);
      double tol = 1e-13 * fmax(1.0, fabs(l));
      AFT_CLOSE("ln K closed", l, log(Kc), 0, tol);
      AFT_CLOSE("ln K ode", l, log(Ko), 0, tol);
    }
  AFT_STATUS(af_t41_lnK_mp(lk, 1, 2.0), AF_EINVAL);
  AFT_STATUS(af_t41_lnK_mp(lk, 4, -1.0), AF_EINVAL);
  AFT_STATUS(af_t41_lnK_mp(lk, 4, NAN), AF_ENONFINITE);
  mpfr_clear(lk);
}
END_TEST

START_TEST(test_K_tail_bound)
{
  /* The T4.1c tolerance: along Pre-LN and Peri-LN,
   * v = ln((1 - gamma)(r/r0)^2) satisfies 0 <= ln K - v <= 1.01 b w / n
   * once (1 + b) w <= 1e-3 (claims_t41.c); here at t = 2^10..2^40,
   * with the MPFR solver (error ~1e-40) and ln K from mpfr_eint.  The
   * bound is also nearly attained (ln K - v >= 0.9 b w/n): the tail is
   * really of that size, so the T4.1c tolerance is not loose. */
  const int sch[2] = {AF_PRE_LN, AF_PERI_LN};
  const double beta = 2.0;
  const size_t n = 3;
  mpfr_t lk, v;
  mpfr_inits2(256, lk, v, (mpfr_ptr) 0);
  AFT_OK(af_t41_lnK_mp(lk, n, beta));
  for (int q = 0; q < 2; q++) {
    af_t41_params p;
    params(&p, sch[q], n, beta);
    enum { NT = 41 };
    double times[NT];
    mpfr_t u[NT], r[NT];
    for (int k = 0; k < NT; k++) {
      times[k] = ldexp(1.0, k);
      mpfr_inits2(256, u[k], r[k], (mpfr_ptr) 0);
    }
    AFT_OK(af_t41_solve_mp(u, r, NULL, times, NT, &p, 1e-45));
    for (int k = 10; k < NT; k++) {
      mpfr_div_d(v, r[k], p.r0, RND);
      mpfr_log(v, v, RND);
      mpfr_mul_2ui(v, v, 1, RND);
      mpfr_add(v, v, u[k], RND);
      mpfr_sub(v, lk, v, RND); /* ln K - v */
      double tail = mpfr_get_d(v, RND), w = exp(mpfr_get_d(u[k], RND));
      double bound = 1.01 * beta * w / (double) n;
      ck_assert_msg((1 + beta) * w <= 1e-3, "t = 2^%d: w = %g", k, w);
      ck_assert_msg(tail >= 0 && tail <= bound && tail >= 0.9 * bound / 1.01,
                    "scheme %d t = 2^%d: ln K - v = %g, b w/n = %g", sch[q],
                    k, tail, bound / 1.01);
    }
    for (int k = 0; k < NT; k++)
      mpfr_clears(u[k], r[k], (mpfr_ptr) 0);
  }
  mpfr_clears(lk, v, (mpfr_ptr) 0);
}
END_TEST

START_TEST(test_contract)
{
  af_t41_params p;
  params(&p, AF_POST_LN, 4, 2.0);
  mpfr_t u[2];
  mpfr_inits2(128, u[0], u[1], (mpfr_ptr) 0);
  double good[2] = {1.0, 2.0}, back[2] = {2.0, 1.0}, bad[2] = {1.0, NAN};
  AFT_OK(af_t41_solve_mp(u, NULL, NULL, good, 2, &p, 1e-30));
  AFT_STATUS(af_t41_solve_mp(u, NULL, NULL, back, 2, &p, 1e-30), AF_EINVAL);
  AFT_STATUS(af_t41_solve_mp(u, NULL, NULL, bad, 2, &p, 1e-30), AF_ENONFINITE);
  AFT_STATUS(af_t41_solve_mp(u, NULL, NULL, good, 2, &p, 0.0), AF_EINVAL);
  AFT_STATUS(af_t41_solve_mp(NULL, NULL, NULL, good, 2, &p, 1e-30), AF_EINVAL);
  p.n = 1;
  AFT_STATUS(af_t41_solve_mp(u, NULL, NULL, good, 2, &p, 1e-30), AF_EINVAL);
  mpfr_clears(u[0], u[1], (mpfr_ptr) 0);
}
END_TEST

static Suite *t41_mp_suite(void)
{
  Suite *s = suite_create("t41_mp");
  TCase *tc = tcase_create("mp");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_mp_matches_double, 0, AF_SCHEME_COUNT);
  tcase_add_test(tc, test_mp_precision);
  tcase_add_test(tc, test_lnK_mp);
  tcase_add_test(tc, test_K_tail_bound);
  tcase_add_test(tc, test_contract);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return aft_run(t41_mp_suite());
}
