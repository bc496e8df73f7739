/* test_claims_ident.c -- theory/ident.c and the measurements behind the
 * I1, I3 and S7 claims (proofs-numeric/claims_ident.c).
 *
 * No injected fault can break I1, I3 or the S7 order claims (src/ applies
 * every fault to the flow and the layer maps alike, and the identities
 * hold for any positive speed factor, radial law and beta), so their
 * power is shown here with wrong inputs (house style: a test that cannot
 * fail is a defect):
 *  - I1: with V = -I the flow is gradient descent of E; the energy
 *    measurement must report decreases far outside its slack;
 *  - I3: a wrong prediction (n/(n+1) instead of (n-1)/n) must fall
 *    outside the rounding bound;
 *  - S7: the LN-Scaling map against the Post-LN flow must not converge
 *    (fitted order near 0, not 1);
 *  - S7 geodesic: a map with another beta must fall outside the bound.
 */
#include <config.h>

#include "aftest.h"
#include "claims_ident.h"
#include "ident.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

static void unit_dirs(double *th, const double *y, size_t n, size_t d)
{
  for (size_t j = 0; j < n; j++) {
    double s = 0;
    for (size_t i = 0; i < d; i++)
      s += y[j * d + i] * y[j * d + i];
    s = sqrt(s);
    for (size_t i = 0; i < d; i++)
      th[j * d + i] = y[j * d + i] / s;
  }
}

/* theory's M2 attention equals src/'s within the rounding of two softmax
 * sums of n unit vectors ((2n + beta (3d + 6) + d + 6) eps each, see
 * af_ci_geodesic), for identity and general weights. */
START_TEST(test_attention_matches_src)
{
  const size_t n = 7, d = 4;
  double y[7 * 4 + 7], th[7 * 4], A[7 * 4], As[7 * 4];
  aft_random_state(y, n, d, aft_seed(11));
  unit_dirs(th, y, n, d);
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_weights_kaiming(w, 5));
  double M[16];
  for (size_t a = 0; a < d; a++)
    for (size_t b = 0; b < d; b++) {
      double s = 0;
      for (size_t i = 0; i < d; i++)
        s += w->Q[0][i * d + a] * w->K[0][i * d + b];
      M[a * d + b] = s;
    }
  for (int weighted = 0; weighted < 2; weighted++) {
    const double beta = 2.5;
    af_model m;
    af_model_init(&m, n, d, beta, AF_POST_LN);
    m.w = weighted ? w : NULL;
    af_work *wk = af_work_alloc(n, d);
    AFT_OK(af_attention(As, NULL, NULL, NULL, 0.0, y, &m, wk));
    AFT_OK(af_id_attention(A, th, n, d, beta, weighted ? M : NULL,
                           weighted ? w->V[0] : NULL));
    /* |M|, |V|: Frobenius norms (bounds of the operator norms) */
    double vn = 1, mn = 1;
    if (weighted) {
      vn = mn = 0;
      for (size_t i = 0; i < d * d; i++) {
        vn += w->V[0][i] * w->V[0][i];
        mn += M[i] * M[i];
      }
      vn = sqrt(vn);
      mn = sqrt(mn);
    }
    double tol = 2 * vn * (2.0 * n + beta * mn * (3.0 * d + 6) + d + 6) * EPS;
    for (size_t i = 0; i < n * d; i++)
      AFT_CLOSE("A", A[i], As[i], 0, tol);
    af_work_free(wk);
  }
  af_weights_free(w);
}
END_TEST

/* log E against src/'s energy observable (sum / n^2). */
START_TEST(test_energy_matches_observable)
{
  const size_t n = 9, d = 3;
  const double beta = 1.7;
  double y[9 * 3 + 9], th[9 * 3], obs[AF_OBS_COUNT], logE;
  aft_random_state(y, n, d, aft_seed(12));
  unit_dirs(th, y, n, d);
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  af_work *wk = af_work_alloc(n, d);
  AFT_OK(af_observe(obs, 0.0, y, 0.9999, &m, wk));
  AFT_OK(af_id_log_energy(&logE, th, n, d, beta, NULL));
  double bound = 2 * af_id_energy_rounding(n, d, beta, 1.0);
  AFT_CLOSE("E", exp(logE - 2 * log((double) n)), obs[AF_OBS_energy], bound,
            0);
  /* consensus: E = n^2 e^beta exactly up to rounding */
  for (size_t j = 0; j < n; j++)
    memcpy(th + j * d, th, d * sizeof(double));
  AFT_OK(af_id_log_energy(&logE, th, n, d, beta, NULL));
  AFT_CLOSE("log E consensus", logE, beta + 2 * log((double) n), 0,
            bound + 4 * EPS * logE);
  af_work_free(wk);
}
END_TEST

/* The geodesic angle: small h gives the flow's h|w|; a step with
 * 1 + h<theta, v> < 0 (angle past pi/2) matches the angle to N(theta + h v). */
START_TEST(test_step_angle)
{
  const double th[3] = {1, 0, 0}, v[3] = {0.3, 0.4, 0};
  double h = 1e-6;
  AFT_CLOSE("small h", af_id_postln_step_angle(th, v, 3, h), h * 0.4, 1e-6, 0);
  const double v2[3] = {-5, 1, 0};
  h = 0.3; /* 1 + h <th, v> = -0.5 */
  double x = 1 + h * v2[0], yy = h * v2[1];
  double direct = acos(x / sqrt(x * x + yy * yy));
  AFT_CLOSE("obtuse", af_id_postln_step_angle(th, v2, 3, h), direct, 8 * EPS, 0);
  ck_assert(af_id_postln_step_angle(th, v2, 3, h) > M_PI / 2);
}
END_TEST

/* I3 forms agree to their bound on random, clustered and antipodal
 * configurations; a wrong prediction does not. */
START_TEST(test_variance_forms)
{
  const size_t n = 12, d = 5;
  double y[12 * 5 + 12], th[12 * 5], f[3];
  double bound = af_id_var_rounding(n, d);
  for (int kind = 0; kind < 3; kind++) {
    aft_random_state(y, n, d, aft_seed(13) + (unsigned long) kind);
    if (kind == 1) /* near-coincident tokens */
      for (size_t j = 1; j < n; j++)
        for (size_t i = 0; i < d; i++)
          y[j * d + i] = y[i] + 1e-7 * y[j * d + i];
    if (kind == 2) /* antipodal pairs: mean 0, Var = 1 */
      for (size_t j = 1; j < n; j += 2)
        for (size_t i = 0; i < d; i++)
          y[j * d + i] = -y[(j - 1) * d + i];
    unit_dirs(th, y, n, d);
    AFT_OK(af_id_var_forms(f, th, n, d));
    AFT_CLOSE("form 1", f[1], f[0], 0, 2 * bound);
    AFT_CLOSE("form 2", f[2], f[0], 0, 2 * bound);
    if (kind == 2)
      AFT_CLOSE("antipodal", f[0], 1.0, 0, bound);
    /* the same states through the claim's measurement (src/ observables) */
    af_model m;
    af_model_init(&m, n, d, 1.0, AF_POST_LN);
    af_work *wk = af_work_alloc(n, d);
    double disc, b2;
    AFT_OK(af_ci_var_discrepancy(&disc, &b2, y, &m, wk));
    ck_assert_msg(disc <= 2 * b2, "I3 discrepancy %g > %g", disc, 2 * b2);
    af_work_free(wk);
    /* power: a wrong factor n/(n+1) instead of (n-1)/n */
    if (kind != 1) {
      double gbar = 1.0 - f[2] * (double) n / (double) (n - 1);
      double wrong = (double) n * (1 - gbar) / (double) (n + 1);
      ck_assert_msg(fabs(wrong - f[0]) > 2 * bound,
                    "a wrong variance formula passes: %g vs %g", wrong, f[0]);
    }
  }
}
END_TEST

/* I1: the energy measurement passes on the real flow and reports a
 * decrease far outside the slack when V = -I (gradient descent on E). */
START_TEST(test_energy_power)
{
  const size_t n = 8, d = 3;
  double y[8 * 3 + 8];
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  af_integ_opts o;
  af_integ_opts_init(&o);
  af_ci_energy e;
  AFT_OK(af_init_state(y, NULL, "uniform", n, d, NAN, aft_seed(14)));
  AFT_OK(af_ci_energy_run(&e, y, &m, 1.0, 0.05, &o));
  ck_assert_msg(e.inc >= -e.slack, "I1 on the true flow: %g < -%g", e.inc,
                e.slack);
  ck_assert_uint_eq(e.intervals, 20);
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  w->V[0] = calloc(d * d, sizeof(double));
  for (size_t i = 0; i < d; i++)
    w->V[0][i * d + i] = -1.0;
  m.w = w;
  AFT_OK(af_init_state(y, NULL, "uniform", n, d, NAN, aft_seed(14)));
  AFT_OK(af_ci_energy_run(&e, y, &m, 1.0, 0.05, &o));
  ck_assert_msg(e.inc < -1e3 * e.slack,
                "V = -I: energy decrease %g not detected (slack %g)", e.inc,
                e.slack);
  ck_assert(e.inc_min <= e.inc);
  af_weights_free(w);
  /* contracts */
  m.w = NULL;
  AFT_STATUS(af_ci_energy_run(&e, y, &m, 1.0, 0.3, &o), AF_EINVAL);
  AFT_STATUS(af_ci_energy_run(&e, y, &m, 1.0, 0.0, &o), AF_EINVAL);
}
END_TEST

/* S7: the LN-Scaling map measured against the Post-LN flow does not
 * converge: the pairwise order stays near 0, far from 1. */
START_TEST(test_order_power)
{
  const size_t n = 6, d = 3, size = 6 * 3 + 6;
  double y0[6 * 3 + 6], y[6 * 3 + 6], yref[6 * 3 + 6], err[3];
  af_model mp, ml;
  af_model_init(&mp, n, d, 1.0, AF_POST_LN);
  af_model_init(&ml, n, d, 1.0, AF_LN_SCALING);
  af_work *wk = af_work_alloc(n, d);
  AFT_OK(af_init_state(y0, NULL, "uniform", n, d, NAN, aft_seed(15)));
  double times[2] = {0, 1};
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  memcpy(yref, y0, sizeof y0);
  AFT_OK(af_integrate(yref, times, 2, &mp, &o, wk, NULL, NULL, NULL));
  for (int i = 0; i < 3; i++) {
    af_integ_opts ol;
    af_integ_opts_init(&ol);
    ol.method = AF_METHOD_LAYERS;
    ol.h = ldexp(0.05, -i);
    memcpy(y, y0, sizeof y0);
    AFT_OK(af_integrate(y, times, 2, &ml, &ol, wk, NULL, NULL, NULL));
    err[i] = af_ci_state_distance(y, yref, n, d);
  }
  double p = log2(err[1] / err[2]);
  ck_assert_msg(fabs(p - 1) > 0.2, "wrong map converges at order %g", p);
  (void) size;
  af_work_free(wk);
}
END_TEST

/* S7 geodesic: passes for the map of the same model, fails when the map
 * uses another beta (as under --inject-fault attention). */
START_TEST(test_geodesic_power)
{
  const size_t n = 8, d = 3;
  double y[8 * 3 + 8], disc, bound;
  AFT_OK(af_init_state(y, NULL, "uniform", n, d, NAN, aft_seed(16)));
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  af_work *wk = af_work_alloc(n, d);
  AFT_OK(af_ci_geodesic(&disc, &bound, y, 3, 0.3, &m, wk));
  ck_assert_msg(disc <= bound, "geodesic %g > %g", disc, bound);
  m.fault = AF_FAULT_ATTENTION;
  AFT_OK(af_ci_geodesic(&disc, &bound, y, 3, 0.3, &m, wk));
  ck_assert_msg(disc > 1e3 * bound, "beta x 1.05 not detected: %g", disc);
  m.fault = 0;
  m.attn = AF_ATTN_USA;
  AFT_STATUS(af_ci_geodesic(&disc, &bound, y, 3, 0.3, &m, wk), AF_EINVAL);
  af_work_free(wk);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("claims_ident");
  TCase *tc = tcase_create("theory");
  tcase_add_test(tc, test_attention_matches_src);
  tcase_add_test(tc, test_energy_matches_observable);
  tcase_add_test(tc, test_step_angle);
  tcase_add_test(tc, test_variance_forms);
  suite_add_tcase(s, tc);
  tc = tcase_create("power");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_energy_power);
  tcase_add_test(tc, test_order_power);
  tcase_add_test(tc, test_geodesic_power);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(suite()); }
