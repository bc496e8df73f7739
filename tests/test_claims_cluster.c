/* test_claims_cluster.c -- theory/cluster.c and the measurements behind
 * the clustering claims (proofs-numeric/claims_cluster.c).
 *
 * Theory: closed forms and limiting cases of the T3.1r bound and
 * infimum, the USA ODE (beta = 0 has a closed form), Wendel's
 * probability, the T4.2 shape, the T4.3 helpers.
 *
 * Power: no injected fault can break T3.1 (Post-LN, nGPT, LN-Scaling, the
 * d = 1 case), the T3.1r bound, T4.2, P2 (SA), P3 or P6, so each is shown
 * here to fail on a wrong input (house style: a test that cannot fail is a
 * defect):
 *  - T3.1: a horizon far too short leaves starts unsynchronized;
 *  - T3.1 d = 1: the same measurement at d = 2 finds one cluster;
 *  - T3.1r: outside its hypothesis (n = 20 > e^1) the bound is violated;
 *  - T4.2: at beta = 20 the ratio exceeds C_ref for Post-LN and Peri-LN;
 *  - P2: a random configuration is far from an equilibrium;
 *  - P3: with V = -I the hemisphere minimum decreases;
 *  - P3 Wendel: a wrong probability (d + 1) gives |z| >> 5;
 *  - P6: without the causal mask token 1 moves.
 * (T4.3b for Post-LN and nGPT fails on the antipodal pair: that is the
 * claim "T4.3" of the table, expected FAIL.)
 */
#include <config.h>

#include "aftest.h"
#include "claims_cluster.h"
#include "cluster.h"
#include "verify.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

static double tol(const char *key)
{
  af_tol_table t;
  size_t line;
  ck_assert_int_eq(af_tol_parse(&t, af_tolerances_tsv, &line), AF_OK);
  const af_tol_row *r = af_tol_find(&t, key);
  ck_assert_msg(r != NULL, "no tolerance row %s", key);
  double v = r->value;
  af_tol_free(&t);
  return v;
}

static const af_vctx ctx0 = {AF_LEVEL_QUICK, 0, NULL, 0};

/* ------------------------------------------------------------ theory */

START_TEST(test_t31r_theory)
{
  AFT_CLOSE("bound(7,2)", af_cl_t31r_bound(7, 2.0),
            (exp(2.0) - 6.0) / (7.0 * exp(2.0)), 4 * EPS, 0);
  ck_assert_int_eq(af_cl_t31r_applies(7, 2.0), 1);
  ck_assert_int_eq(af_cl_t31r_applies(8, 2.0), 0);
  ck_assert_int_eq(af_cl_t31r_applies(1, 0.0), 0);
  ck_assert(isnan(af_cl_t31r_bound(3, -1.0)));
  const size_t ns[4] = {2, 7, 20, 100};
  const double bs[4] = {0.3, 1.0, 2.0, 5.0};
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++) {
      double cs, xs;
      AFT_OK(af_cl_t31r_inf(&cs, &xs, ns[a], bs[b]));
      /* attained at x* and a lower bound of the coincident family */
      AFT_CLOSE("rate at x*", af_cl_t31r_rate_at(xs, ns[a], bs[b]), cs, 0,
                8 * EPS);
      double gmin = INFINITY;
      for (int k = 0; k <= 4000; k++) {
        double x = -1.0 + k / 2000.0;
        double v = af_cl_t31r_rate_at(x, ns[a], bs[b]);
        ck_assert_msg(v >= cs - 8 * EPS, "rate %.17g below inf %.17g", v, cs);
        gmin = fmin(gmin, v);
      }
      /* grid spacing 5e-4: the grid minimum is within c'' h^2 of c* */
      AFT_CLOSE("grid min", gmin, cs, 0, 1e-5);
      if (af_cl_t31r_applies(ns[a], bs[b]))
        ck_assert(cs >= af_cl_t31r_bound(ns[a], bs[b]));
    }
  /* beta = 0: weights uniform, worst case all others antipodal */
  double cs, xs;
  AFT_OK(af_cl_t31r_inf(&cs, &xs, 6, 0.0));
  AFT_CLOSE("inf beta=0", cs, (2.0 - 6.0) / 6.0, 0, 4 * EPS);
  AFT_CLOSE("x* beta=0", xs, -1.0, 0, 0);
  AFT_STATUS(af_cl_t31r_inf(&cs, &xs, 1, 1.0), AF_EINVAL);
}
END_TEST

/* beta = 0: dw/dt = -(2/n) w (n - (n-1) w), w(0) = 1, a Bernoulli
 * equation with solution w = n / (n - 1 + e^{2t}). */
START_TEST(test_usa_theory)
{
  const size_t n = 5;
  double times[4] = {0, 0.5, 2, 10}, g[4], w[4];
  AFT_OK(af_cl_usa_solve(g, w, times, 4, n, 0.0, 0, 0));
  for (int k = 0; k < 4; k++) {
    double want = (double) n / ((double) n - 1 + exp(2 * times[k]));
    AFT_CLOSE("usa gap", w[k], want, 1e-12, 0);
    AFT_CLOSE("usa gamma", g[k], 1 - want, 0, 1e-12);
  }
  AFT_CLOSE("usa F(0)", af_cl_usa_F(0, n, 1.0), 2.0 / n, 2 * EPS, 0);
  AFT_CLOSE("usa F(1)", af_cl_usa_F(1, n, 1.0), 0, 0, 0);
  /* local rate near consensus: d log w/dt -> -2 e^beta */
  double t2[2] = {20, 21}, w2[2];
  AFT_OK(af_cl_usa_solve(NULL, w2, t2, 2, n, 1.0, 0, 0));
  AFT_CLOSE("usa rate", log(w2[1] / w2[0]), -2 * exp(1.0), 1e-9, 0);
  double bad[2] = {1, 0.5};
  AFT_STATUS(af_cl_usa_solve(g, w, bad, 2, n, 1.0, 0, 0), AF_EINVAL);
  AFT_STATUS(af_cl_usa_solve(g, w, times, 4, 1, 1.0, 0, 0), AF_EINVAL);
  AFT_STATUS(af_cl_usa_solve(g, w, times, 4, n, 800.0, 0, 0), AF_EOVERFLOW);
}
END_TEST

START_TEST(test_misc_theory)
{
  AFT_CLOSE("wendel(4,2)", af_cl_wendel(4, 2), 0.5, 4 * EPS, 0);
  AFT_CLOSE("wendel(6,3)", af_cl_wendel(6, 3), 0.5, 4 * EPS, 0);
  AFT_CLOSE("wendel(8,3)", af_cl_wendel(8, 3), 29.0 / 128.0, 4 * EPS, 0);
  AFT_CLOSE("wendel(5,5)", af_cl_wendel(5, 5), 1.0, 0, 0);
  AFT_CLOSE("wendel(2,1)", af_cl_wendel(2, 1), 0.5, 4 * EPS, 0);
  AFT_CLOSE("shape", af_cl_t42_shape(64, 16),
            sqrt(log(64.0) / 64) + log(64.0) / 16, 4 * EPS, 0);
  ck_assert_int_eq(af_cl_t42_applies(64, 64), 1);  /* e^8 >= 266 >= 64 */
  ck_assert_int_eq(af_cl_t42_applies(64, 16), 0);  /* e^4 < 266 */
  AFT_CLOSE("delta", af_cl_t43_delta_max(6, 1.0), 1.0 / 3600, 4 * EPS, 0);
  AFT_CLOSE("delta b=2", af_cl_t43_delta_max(6, 2.0), 1.0 / 14400, 4 * EPS,
            0);
  AFT_CLOSE("delta b=.1", af_cl_t43_delta_max(6, 0.1), 1.0 / 3600, 4 * EPS,
            0);
  AFT_CLOSE("printed b=.1", af_cl_t43_delta_max_printed(6, 0.1), 1.0 / 36,
            4 * EPS, 0);
  double lo, hi;
  af_cl_t43a_bounds(&lo, &hi, 2.0, 0.01, 3.0);
  AFT_CLOSE("lo", lo, 2.0 + 0.96 * 3.0, 4 * EPS, 0);
  AFT_CLOSE("hi", hi, 5.0, 0, 0);
  AFT_CLOSE("scale post", af_cl_t43b_scale(AF_POST_LN, 4, 1), 1, 0, 0);
  AFT_CLOSE("scale pre", af_cl_t43b_scale(AF_PRE_LN, 4, 1), 4, 0, 0);
  AFT_CLOSE("scale ln", af_cl_t43b_scale(AF_LN_SCALING, 4, 1), 2, 0, 0);
  AFT_CLOSE("scale ngpt", af_cl_t43b_scale(AF_NGPT, 4, 0.5), 2, 0, 0);
  AFT_CLOSE("s peri", af_cl_speed(AF_PERI_LN, 1, 2, 0.5, 1, 1), 1, 0, 0);
  AFT_CLOSE("s mix<", af_cl_speed(AF_MIX_LN, 1, 3, 0.5, 1, 1), 1, 0, 0);
  AFT_CLOSE("s mix>", af_cl_speed(AF_MIX_LN, 1.5, 3, 0.5, 1, 1), 3, 0, 0);
  AFT_CLOSE("s ngpt", af_cl_speed(AF_NGPT, 1, 3, 0.5, 0.25, 1), 2, 0, 0);
  ck_assert(isnan(af_cl_speed(AF_SCHEME_COUNT, 1, 1, 1, 1, 1)));
  double r;
  AFT_OK(af_cl_antipodal_radius(&r, AF_PRE_LN, 1, 1, 2, 1));
  AFT_CLOSE("antipodal pre", r, 1 + 2 * tanh(1.0), 2 * EPS, 0);
  AFT_OK(af_cl_antipodal_radius(&r, AF_MIX_LN, 1, 1, 2, 1));
  AFT_CLOSE("antipodal mix", r, 1 + tanh(1.0), 2 * EPS, 0);
  AFT_STATUS(af_cl_antipodal_radius(&r, AF_PERI_LN, 1, 0, 2, 1), AF_EINVAL);
}
END_TEST

/* ------------------------------------------------------------ power */

START_TEST(test_t31_power)
{
  double thr = tol("T3.1.threshold");
  af_model m;
  size_t sy, st, runs;
  double gw, rm, cm, mv;
  /* T3.1: the real horizon synchronizes, t = 0.5 does not */
  af_model_init(&m, 6, 3, 1.0, AF_POST_LN);
  AFT_OK(af_cc_sync(&sy, &st, &gw, &rm, &m, "uniform", 100, 4, 3103, thr));
  ck_assert_uint_eq(sy, 4);
  AFT_OK(af_cc_sync(&sy, &st, &gw, &rm, &m, "uniform", 0.5, 4, 3103, thr));
  ck_assert_msg(sy < 4, "%zu of 4 synchronized by t = 0.5", sy);
  /* d = 1 negative case: at d = 2 the same starts do merge */
  af_model_init(&m, 6, 1, 1.0, AF_POST_LN);
  AFT_OK(af_cc_min_clusters(&cm, &mv, &runs, &m, "uniform", 50, 4, 3200));
  ck_assert(runs > 0 && cm >= 2 && mv == 0);
  af_model_init(&m, 6, 2, 1.0, AF_POST_LN);
  AFT_OK(af_cc_min_clusters(&cm, &mv, &runs, &m, "uniform", 50, 4, 3200));
  ck_assert_msg(runs > 0 && cm < 2, "d = 2: min clusters %g", cm);
}
END_TEST

START_TEST(test_t31r_power)
{
  /* n = 20 > e^1: the inequality of T3.1r fails (all others antipodal
   * gives (e - 19/e)/(e + 19/e) = -0.44 < bound -0.30) */
  const af_scheme_id sc[2] = {AF_PRE_LN, AF_PERI_LN};
  for (int k = 0; k < 2; k++) {
    af_model m;
    af_model_init(&m, 20, 3, 1.0, sc[k]);
    double cs, xs, rmin, at;
    AFT_OK(af_cl_t31r_inf(&cs, &xs, 20, 1.0));
    AFT_OK(af_cc_t31r_scan(&rmin, &at, &m, 200, xs));
    double bound = af_cl_t31r_bound(20, 1.0);
    ck_assert_msg(rmin < bound - 1e3 * tol("T3.1r.bound"),
                  "min %.17g not below bound %.17g", rmin, bound);
  }
}
END_TEST

START_TEST(test_t42_power)
{
  const size_t ns[2] = {64, 128}, ds[2] = {32, 32};
  double cref = tol("T4.2.C");
  const af_scheme_id sc[2] = {AF_POST_LN, AF_PERI_LN};
  for (int k = 0; k < 2; k++) {
    af_cc_t42 o;
    AFT_OK(af_cc_t42_scan(&o, &ctx0, sc[k], 1.0, ns, ds, 2));
    ck_assert(o.ratio_all <= cref && o.speed_ratio <= cref);
    /* beta = 20: the self-weight dominates, |A_j| ~ 1 */
    AFT_OK(af_cc_t42_scan(&o, &ctx0, sc[k], 20.0, ns, ds, 2));
    ck_assert_msg(o.ratio_all > cref, "ratio %g", o.ratio_all);
    if (sc[k] == AF_PERI_LN)
      ck_assert_msg(o.speed_ratio > cref, "1/gain %g", o.speed_ratio);
  }
}
END_TEST

START_TEST(test_p2_power)
{
  double y[5 * 6 + 5], v;
  aft_random_state(y, 5, 6, aft_seed(21));
  af_model m;
  af_model_init(&m, 5, 6, 1.0, AF_POST_LN);
  AFT_OK(af_cc_max_tangent(&v, y, &m));
  ck_assert_msg(v > 1e6 * tol("P2"), "random config |P A| = %g", v);
}
END_TEST

START_TEST(test_p3_power)
{
  const size_t n = 8, d = 3;
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  ck_assert_ptr_nonnull(w);
  w->V[0] = calloc(d * d, sizeof(double));
  ck_assert_ptr_nonnull(w->V[0]);
  for (size_t i = 0; i < d; i++)
    w->V[0][i * d + i] = -1.0;
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  double drop, gap;
  AFT_OK(af_cc_hemisphere(&drop, &gap, &m, 5.0, 51, 2, 4700));
  ck_assert(drop >= -tol("P3"));
  m.w = w; /* V = -I: tokens repel, the minimum must fall */
  AFT_OK(af_cc_hemisphere(&drop, &gap, &m, 5.0, 51, 2, 4700));
  ck_assert_msg(drop < -1e3 * tol("P3"), "V = -I: drop %g", drop);
  af_weights_free(w);
}
END_TEST

START_TEST(test_wendel_power)
{
  double z, f, zt = tol("P3.wendel");
  AFT_OK(af_cc_wendel(&z, &f, 6, 3, 2000, 4900, af_cl_wendel(6, 3)));
  ck_assert(fabs(z) <= zt);
  AFT_OK(af_cc_wendel(&z, &f, 6, 3, 2000, 4900, af_cl_wendel(6, 4)));
  ck_assert_msg(fabs(z) > 4 * zt, "wrong p: z = %g", z);
  AFT_STATUS(af_cc_wendel(&z, &f, 6, 4, 10, 1, 0.5), AF_EINVAL);
}
END_TEST

START_TEST(test_p6_power)
{
  af_model m;
  af_model_init(&m, 6, 3, 1.0, AF_POST_LN);
  double gap, moved;
  m.attn = AF_ATTN_CAUSAL;
  AFT_OK(af_cc_causal(&gap, &moved, &m, 60, 2, 4900));
  ck_assert(gap <= tol("P6") && moved <= tol("P6.token1"));
  m.attn = AF_ATTN_SOFTMAX;
  AFT_OK(af_cc_causal(&gap, &moved, &m, 60, 2, 4900));
  ck_assert_msg(moved > 1e6 * tol("P6.token1"), "softmax: moved %g", moved);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("claims_cluster");
  TCase *tc = tcase_create("theory");
  tcase_add_test(tc, test_t31r_theory);
  tcase_add_test(tc, test_usa_theory);
  tcase_add_test(tc, test_misc_theory);
  suite_add_tcase(s, tc);
  tc = tcase_create("power");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_t31_power);
  tcase_add_test(tc, test_t31r_power);
  tcase_add_test(tc, test_t42_power);
  tcase_add_test(tc, test_p2_power);
  tcase_add_test(tc, test_p3_power);
  tcase_add_test(tc, test_wendel_power);
  tcase_add_test(tc, test_p6_power);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(suite()); }
