/* test_certify.c -- af_certify (certified/certify.c, 'attnflow certify'):
 *
 *  - soundness: every recorded ball contains the MPFR path of the same
 *    start (Post-LN and Peri-LN, 128 bits), and the check has power (a
 *    ball shifted by four times its radius and the MPFR allowance is
 *    caught; an integrator without its
 *    remainder, on a remainder-dominated run, is caught);
 *  - negative controls: an antipodal pair (Post-LN, Pre-LN), the
 *    equilateral triangle and the regular tetrahedron (saddles) are never
 *    certified;
 *  - replay: the closing hypotheses re-proven from the stored exact balls
 *    (the strings of the JSON proof log), and a widened ball fails them;
 *  - errors: a start off the sphere, n and d beyond the build, |Q^T K| > 1,
 *    a horizon out of reach, a Mix-LN horizon before tau;
 *  - built without Arb: af_certify says it needs Arb.
 */
#include <config.h>

#include "aftest.h"
#include "certify.h"
#include "cert.h"
#include "claims_flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef AF_HAVE_ARB
#include "flow.h"
#endif

static void angles(double *y, size_t n, const double *a)
{
  for (size_t j = 0; j < n; j++) {
    y[2 * j] = cos(a[j]);
    y[2 * j + 1] = sin(a[j]);
    y[2 * n + j] = 1;
  }
}

#ifndef AF_HAVE_ARB

START_TEST(test_without_arb)
{
  double y[6];
  const double a[] = {0, 1};
  angles(y, 2, a);
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, 2, 2, 1.0);
  af_certify_result r;
  ck_assert_int_eq(af_certify(&r, y, &o), AF_EINVAL);
  ck_assert_ptr_nonnull(strstr(r.reason, "Arb"));
  af_certify_result_free(&r);
}
END_TEST

static Suite *certify_suite(void)
{
  Suite *s = suite_create("certify");
  TCase *tc = tcase_create("noarb");
  tcase_add_test(tc, test_without_arb);
  suite_add_tcase(s, tc);
  return s;
}

#else

static const double far3[] = {0, 2.0, 4.2};
static const double cap3[] = {0, 0.3, 0.6};

START_TEST(test_mpfr_inside)
{
  /* Post-LN (no radii) and Peri-LN (radii) at 128 bits: every ball at
   * t = 1, 2 and T* contains the MPFR path; a ball shifted by four radii
   * does not. */
  const af_scheme_id sc[2] = {AF_POST_LN, AF_PERI_LN};
  for (int i = 0; i < 2; i++) {
    double y[9];
    angles(y, 3, i == 0 ? far3 : cap3);
    static const double times[] = {1, 2};
    af_certify_opts o;
    af_certify_opts_init(&o, sc[i], 3, 2, 1.0);
    o.prec = 128;
    o.t_max = 100;
    o.times = times;
    o.ntimes = 2;
    af_certify_result r;
    AFT_OK(af_certify(&r, y, &o));
    ck_assert_int_eq(r.status, AF_CERTIFY_CERTIFIED);
    ck_assert_uint_eq(r.nballs, 3);
    ck_assert(r.final_rad <= 1e-20); /* point start, 128 bits */
    int ok;
    double ex, eps, gap, hemi;
    AFT_OK(af_flow_mpfr_check(&ok, &ex, &eps, &gap, &hemi, &r, y, &o));
    fprintf(stderr, "%s: T* = %g, final radius %.3g, MPFR excess %.3g (eps %.3g)\n",
            i ? "peri-ln" : "post-ln", r.t_star, r.final_rad, ex, eps);
    ck_assert_msg(ok, "MPFR path outside a certified ball");
    /* power: shift one component of the last ball by four times its
     * radius plus the MPFR allowance (the check's resolution) */
    size_t k = (r.nballs - 1) * r.dim + 1;
    arb_t b;
    arb_init(b);
    ck_assert_int_eq(arb_load_str(b, r.dump[k]), 0);
    arb_t sh;
    arb_init(sh);
    arf_t rr;
    arf_init(rr);
    arf_set_mag(rr, arb_radref(b));
    arb_set_d(sh, eps);
    arb_add_arf(sh, sh, rr, 256);
    arb_mul_ui(sh, sh, 4, 256);
    arf_add(arb_midref(b), arb_midref(b), arb_midref(sh), ARF_PREC_EXACT,
            ARF_RND_DOWN);
    arf_clear(rr);
    free(r.dump[k]);
    char *str = arb_dump_str(b);
    r.dump[k] = strdup(str);
    flint_free(str);
    arb_clear(b);
    arb_clear(sh);
    AFT_OK(af_flow_mpfr_check(&ok, &ex, &eps, &gap, &hemi, &r, y, &o));
    fprintf(stderr, "shifted: excess %.3g\n", ex);
    ck_assert_msg(!ok, "shifted ball not caught");
    af_certify_result_free(&r);
  }
}
END_TEST

START_TEST(test_remainder_removed_is_caught)
{
  /* order 8, fixed steps 1/16, 128 bits: the balls are as wide as the
   * truncation; without the remainder they miss the MPFR path. */
  double y[9];
  angles(y, 3, far3);
  static const double times[] = {0.5, 1};
  for (int drop = 0; drop < 2; drop++) {
    af_certify_opts o;
    af_certify_opts_init(&o, AF_POST_LN, 3, 2, 1.0);
    o.prec = 128;
    o.order = 8;
    o.h_fixed = 1.0 / 16;
    o.t_max = 2;
    o.times = times;
    o.ntimes = 2;
    o.drop_remainder = drop;
    af_certify_result r;
    AFT_OK(af_certify(&r, y, &o));
    int ok;
    double ex, eps, gap, hemi;
    AFT_OK(af_flow_mpfr_check(&ok, &ex, &eps, &gap, &hemi, &r, y, &o));
    fprintf(stderr, "remainder %s: radius %.3g, MPFR excess %.3g\n",
            drop ? "dropped" : "kept", r.final_rad, ex);
    ck_assert_msg(ok == !drop, drop ? "dropped remainder not caught"
                                    : "MPFR path outside");
    af_certify_result_free(&r);
  }
}
END_TEST

static void expect_nocert(const char *what, af_scheme_id sc, size_t n,
                          size_t d, const double *y, double tmax)
{
  af_certify_opts o;
  af_certify_opts_init(&o, sc, n, d, 1.0);
  o.t_max = tmax;
  af_certify_result r;
  AFT_OK(af_certify(&r, y, &o));
  fprintf(stderr, "%s: %s (%s)\n", what, af_certify_status_name(r.status),
          r.reason);
  ck_assert_int_eq(r.status, AF_CERTIFY_NOCERT);
  ck_assert(r.reason[0] != '\0');
  af_certify_result_free(&r);
}

START_TEST(test_negative_controls)
{
  double ap[6] = {1, 0, -1, 0, 1, 1};
  expect_nocert("antipodal pair, post-ln", AF_POST_LN, 2, 2, ap, 20);
  expect_nocert("antipodal pair, pre-ln", AF_PRE_LN, 2, 2, ap, 20);
  double tri[9];
  const double a[] = {0, 2 * M_PI / 3, 4 * M_PI / 3};
  angles(tri, 3, a);
  expect_nocert("equilateral triangle, post-ln", AF_POST_LN, 3, 2, tri, 40);
  /* the regular tetrahedron (the simplex in d = 3) */
  double s3 = 1 / sqrt(3.0);
  double tet[16] = {s3, s3, s3, s3, -s3, -s3, -s3, s3, -s3, -s3, -s3, s3,
                    1, 1, 1, 1};
  expect_nocert("regular tetrahedron, post-ln", AF_POST_LN, 4, 3, tet, 20);
}
END_TEST

START_TEST(test_replay_from_stored_balls)
{
  /* the exact balls of the proof log (arb_dump_str) re-prove the closing
   * hypotheses; a widened ball does not */
  for (int i = 0; i < 2; i++) {
    double y[9];
    angles(y, 3, i == 0 ? far3 : cap3);
    af_certify_opts o;
    af_certify_opts_init(&o, i == 0 ? AF_POST_LN : AF_PRE_LN, 3, 2, 1.0);
    o.t_max = 100;
    af_certify_result r;
    AFT_OK(af_certify(&r, y, &o));
    ck_assert_int_eq(r.status, AF_CERTIFY_CERTIFIED);
    arb_ptr th = _arb_vec_init((slong) r.dim);
    for (size_t k = 0; k < r.dim; k++)
      ck_assert_int_eq(arb_load_str(th + k, r.dump[(r.nballs - 1) * r.dim + k]), 0);
    int ok;
    double v, b;
    if (i == 0)
      af_close_hemisphere(&ok, &v, th, 3, 2, 64);
    else
      af_close_cap(&ok, &v, &b, th, 3, 2, 1.0, 64);
    ck_assert_msg(ok, "stored balls do not replay");
    mag_set_d(arb_radref(th + 2), 2.0); /* widen one ball */
    if (i == 0)
      af_close_hemisphere(&ok, &v, th, 3, 2, 64);
    else
      af_close_cap(&ok, &v, &b, th, 3, 2, 1.0, 64);
    ck_assert_msg(!ok, "a widened ball still closes");
    _arb_vec_clear(th, (slong) r.dim);
    af_certify_result_free(&r);
  }
}
END_TEST

static void expect_error(const char *what, int want, const char *needle,
                         const af_certify_opts *o, const double *y)
{
  af_certify_result r;
  int rc = af_certify(&r, y, o);
  fprintf(stderr, "%s: %s\n", what, r.reason);
  ck_assert_int_eq(rc, want);
  ck_assert_msg(strstr(r.reason, needle) != NULL, "%s: reason lacks '%s'", what,
                needle);
  af_certify_result_free(&r);
}

START_TEST(test_errors)
{
  double y[9];
  angles(y, 3, far3);
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, 3, 2, 1.0);
  y[0] *= 1.001;
  expect_error("off the sphere", AF_EINVAL, "unit sphere", &o, y);
  y[0] /= 1.001;
  double Q[4] = {2, 0, 0, 1};
  o.q = Q;
  expect_error("|Q^T K| > 1", AF_EINVAL, "Q^T K", &o, y);
  o.q = NULL;
  o.t_max = 1e9;
  expect_error("horizon", AF_EINVAL, "cannot be reached", &o, y);
  af_certify_opts_init(&o, AF_MIX_LN, 3, 2, 1.0);
  o.tau = 8;
  o.t_max = 4;
  expect_error("mix-ln before tau", AF_EINVAL, "tau", &o, y);
  size_t n = 60, d = 3;
  double *big = calloc(af_state_size(n, d), sizeof *big);
  for (size_t j = 0; j < n; j++) {
    big[j * d] = 1;
    big[n * d + j] = 1;
  }
  af_certify_opts_init(&o, AF_POST_LN, n, d, 1.0);
  expect_error("n beyond the build", AF_EDIM, "exceeds", &o, big);
  free(big);
}
END_TEST

static Suite *certify_suite(void)
{
  Suite *s = suite_create("certify");
  TCase *tc = tcase_create("certify");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_mpfr_inside);
  tcase_add_test(tc, test_remainder_removed_is_caught);
  tcase_add_test(tc, test_negative_controls);
  tcase_add_test(tc, test_replay_from_stored_balls);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}

#endif

int main(void) { return aft_run(certify_suite()); }
