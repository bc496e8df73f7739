/* test_observe.c -- unit tests of the observables (af_observe, af_obs_*)
 * on configurations whose values are known by hand (theorems.md I3, N1,
 * cluster statistics of the public cases).
 *
 * Tolerances: the observables are sums of at most n^2 terms of O(1), each
 * a handful of roundings; (n^2 + d) eps bounds their absolute error
 * (Higham 2002, §4.2) and a factor 4 covers the constant.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"

#define EPS DBL_EPSILON

static const char *const obs_names[AF_OBS_COUNT] = {
  "t", "cos_mean", "cos_min", "cos_max", "r_mean", "r_min", "r_max", "var",
  "energy", "clusters", "speed_mean", "drift", "gap_mean", "gap_max"};

static int observe(double *obs, double t, const double *y, double thr, size_t n,
                   size_t d, double beta, af_scheme_id sc, af_kernel k)
{
  af_model m;
  af_model_init(&m, n, d, beta, sc);
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_work_set_kernel(w, k));
  for (int i = 0; i < AF_OBS_COUNT; i++)
    obs[i] = NAN;
  int rc = af_observe(obs, t, y, thr, &m, w);
  af_work_free(w);
  return rc;
}

START_TEST(test_names)
{
  for (int k = 0; k < AF_OBS_COUNT; k++) {
    ck_assert_str_eq(af_obs_name((af_obs_id) k), obs_names[k]);
    af_obs_id id = AF_OBS_COUNT;
    AFT_OK(af_obs_lookup(&id, obs_names[k]));
    ck_assert_int_eq(id, k);
  }
  af_obs_id id = AF_OBS_var;
  AFT_STATUS(af_obs_lookup(&id, "speed"), AF_EINVAL);
  AFT_STATUS(af_obs_lookup(&id, ""), AF_EINVAL);
  AFT_STATUS(af_obs_lookup(&id, "Energy"), AF_EINVAL);
  AFT_STATUS(af_obs_lookup(&id, NULL), AF_EINVAL);
  ck_assert_int_eq(id, AF_OBS_var);
  ck_assert_ptr_null(af_obs_name(AF_OBS_COUNT));
  ck_assert_ptr_null(af_obs_name((af_obs_id) -1));
  ck_assert_int_eq(AF_OBS_DEFAULT_COUNT, 12);
}
END_TEST

/* Orthonormal tokens e_1..e_n (d >= n): all cosines 0, var = (n-1)/n (I3
 * with gamma = 0), energy = (n e^beta + n(n-1)) / n^2 = (e^beta + n-1)/n,
 * n clusters, gaps 1.  Post-LN speed: P A_j = sum_{k != j} e_k / Z,
 * |P A_j| = sqrt(n-1) / (e^beta + n - 1). */
START_TEST(test_orthonormal)
{
  const size_t n = 4, d = 6;
  const double beta = 1.5;
  double y[28] = {0};
  for (size_t j = 0; j < n; j++) {
    y[j * d + j] = 1.0;
    y[n * d + j] = 1.0 + (double) j; /* r = 1, 2, 3, 4 */
  }
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    double o[AF_OBS_COUNT];
    AFT_OK(observe(o, 2.5, y, 0.9999, n, d, beta, AF_POST_LN, (af_kernel) kk));
    double tol = 4 * (double) (n * n + d) * EPS;
    ck_assert(o[AF_OBS_t] == 2.5);
    AFT_CLOSE("orthonormal cos_mean", o[AF_OBS_cos_mean], 0.0, 0, tol);
    AFT_CLOSE("orthonormal cos_min", o[AF_OBS_cos_min], 0.0, 0, tol);
    AFT_CLOSE("orthonormal cos_max", o[AF_OBS_cos_max], 0.0, 0, tol);
    AFT_CLOSE("orthonormal var", o[AF_OBS_var], (n - 1.0) / n, 0, tol);
    AFT_CLOSE("orthonormal energy", o[AF_OBS_energy], (exp(beta) + n - 1.0) / n, tol, 0);
    ck_assert(o[AF_OBS_clusters] == (double) n);
    AFT_CLOSE("orthonormal gap_mean", o[AF_OBS_gap_mean], 1.0, 0, tol);
    AFT_CLOSE("orthonormal gap_max", o[AF_OBS_gap_max], 1.0, 0, tol);
    AFT_CLOSE("orthonormal drift", o[AF_OBS_drift], 0.0, 0, 0);
    AFT_CLOSE("orthonormal r_mean", o[AF_OBS_r_mean], 2.5, 0, 0);
    AFT_CLOSE("orthonormal r_min", o[AF_OBS_r_min], 1.0, 0, 0);
    AFT_CLOSE("orthonormal r_max", o[AF_OBS_r_max], 4.0, 0, 0);
    AFT_CLOSE("orthonormal speed_mean", o[AF_OBS_speed_mean],
              sqrt(n - 1.0) / (exp(beta) + n - 1.0), tol, 0);
    /* Pre-LN divides each speed by its radius: mean of 1/r_j = 25/48. */
    AFT_OK(observe(o, 2.5, y, 0.9999, n, d, beta, AF_PRE_LN, (af_kernel) kk));
    AFT_CLOSE("orthonormal Pre-LN speed_mean", o[AF_OBS_speed_mean],
              sqrt(n - 1.0) / (exp(beta) + n - 1.0) * (25.0 / 48.0), tol, 0);
  }
}
END_TEST

/* All tokens equal: one cluster, variance 0, gaps 0, cosines 1, energy
 * e^beta, no motion. */
START_TEST(test_all_equal)
{
  const size_t n = 5, d = 3;
  double y[20];
  aft_random_state(y, 1, d, aft_seed(5));
  for (size_t j = 1; j < n; j++)
    memcpy(y + j * d, y, d * sizeof(double));
  for (size_t j = 0; j < n; j++)
    y[n * d + j] = 1.0;
  double o[AF_OBS_COUNT];
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    AFT_OK(observe(o, 0, y, 0.9999, n, d, 2.0, AF_POST_LN, (af_kernel) kk));
    ck_assert(o[AF_OBS_clusters] == 1.0);
    ck_assert(o[AF_OBS_gap_mean] == 0.0);
    ck_assert(o[AF_OBS_gap_max] == 0.0);
    ck_assert(o[AF_OBS_cos_min] == 1.0);
    ck_assert(o[AF_OBS_cos_mean] == 1.0);
    /* mean of n equal numbers is that number to within n eps. */
    AFT_CLOSE("equal var", o[AF_OBS_var], 0.0, 0, (double) (n * n) * EPS * EPS);
    AFT_CLOSE("equal energy", o[AF_OBS_energy], exp(2.0), 4 * (double) (n * n) * EPS, 0);
    AFT_CLOSE("equal speed", o[AF_OBS_speed_mean], 0.0, 0, 4 * (double) (n + d) * EPS);
  }
}
END_TEST

/* Cluster counting by union-find on cos > threshold (the public cases). */
START_TEST(test_clusters)
{
  const size_t d = 3;
  double o[AF_OBS_COUNT];
  /* Two groups: three tokens within 1e-3 of e1, two within 1e-3 of e2.
   * Within a group cos >= 1 - 2e-6 (> 0.9999); across, |cos| < 3e-3. */
  double y2[20] = {1, 1e-3, 0,    1, 0, 1e-3,   1, -1e-3, 0,
                   0, 1, 1e-3,    1e-3, 1, 0,
                   1, 1, 1, 1, 1};
  AFT_OK(observe(o, 0, y2, 0.9999, 5, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 2.0, "two groups: %g", o[AF_OBS_clusters]);
  AFT_OK(observe(o, 0, y2, 1.0 - 1e-9, 5, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 5.0, "tight threshold: %g", o[AF_OBS_clusters]);
  AFT_OK(observe(o, 0, y2, -0.5, 5, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 1.0, "loose threshold: %g", o[AF_OBS_clusters]);
  /* A chain at angles 0, 0.01, 0.02, 0.05 (radians, in a plane).  With
   * threshold cos(0.015) the first three are linked through the middle
   * one (cos 0.02 < threshold, yet one cluster), the fourth is alone. */
  double yc[16];
  const double ang[4] = {0.0, 0.01, 0.02, 0.05};
  for (size_t j = 0; j < 4; j++) {
    yc[j * d] = cos(ang[j]);
    yc[j * d + 1] = sin(ang[j]);
    yc[j * d + 2] = 0;
    yc[12 + j] = 1;
  }
  AFT_OK(observe(o, 0, yc, cos(0.015), 4, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 2.0, "chain: %g", o[AF_OBS_clusters]);
  AFT_OK(observe(o, 0, yc, cos(0.005), 4, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 4.0, "chain, tight: %g", o[AF_OBS_clusters]);
  AFT_OK(observe(o, 0, yc, cos(0.035), 4, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  ck_assert_msg(o[AF_OBS_clusters] == 1.0, "chain, loose: %g", o[AF_OBS_clusters]);
  /* cos_min, cos_max of the chain: cos(0.05), cos(0.01). */
  AFT_CLOSE("chain cos_min", o[AF_OBS_cos_min], cos(0.05), 0, 4 * EPS);
  AFT_CLOSE("chain cos_max", o[AF_OBS_cos_max], cos(0.01), 0, 4 * EPS);
}
END_TEST

/* Drift = max_j | |theta_j| - 1 |; cosine observables see theta/|theta|. */
START_TEST(test_drift)
{
  const size_t n = 3, d = 2;
  double y[9] = {1.5, 0, 0, 0.9, 1, 0, 1, 1, 1};
  double o[AF_OBS_COUNT];
  AFT_OK(observe(o, 0, y, 0.9999, n, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  AFT_CLOSE("drift", o[AF_OBS_drift], 0.5, 0, 0);
  AFT_CLOSE("drift cos_max", o[AF_OBS_cos_max], 1.0, 0, 2 * EPS);
  AFT_CLOSE("drift cos_min", o[AF_OBS_cos_min], 0.0, 0, 2 * EPS);
  ck_assert(o[AF_OBS_clusters] == 2.0);
  y[0] = 1.0;
  y[3] = 0.875; /* 1 - 1/8, exactly */
  AFT_OK(observe(o, 0, y, 0.9999, n, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  AFT_CLOSE("drift below 1", o[AF_OBS_drift], 0.125, 0, 0);
}
END_TEST

/* Random state: every observable against its definition in long double. */
START_TEST(test_random_definitions)
{
  const size_t n = 9, d = 4;
  const double beta = 1.7;
  double y[45], o[AF_OBS_COUNT];
  aft_random_state(y, n, d, aft_seed(61));
  AFT_OK(observe(o, 0.25, y, 0.5, n, d, beta, AF_POST_LN, AF_KERNEL_DIRECT));
  long double th[36], mean[4] = {0, 0, 0, 0};
  for (size_t j = 0; j < n; j++) {
    long double s = 0;
    for (size_t i = 0; i < d; i++)
      s += (long double) y[j * d + i] * y[j * d + i];
    for (size_t i = 0; i < d; i++) {
      th[j * d + i] = y[j * d + i] / sqrtl(s);
      mean[i] += th[j * d + i] / n;
    }
  }
  long double cs = 0, cmin = 2, cmax = -2, E = 0, rs = 0, rmin = 1e9, rmax = -1e9;
  for (size_t j = 0; j < n; j++) {
    rs += y[n * d + j];
    rmin = fminl(rmin, y[n * d + j]);
    rmax = fmaxl(rmax, y[n * d + j]);
    for (size_t k = 0; k < n; k++) {
      long double g = 0;
      for (size_t i = 0; i < d; i++)
        g += th[j * d + i] * th[k * d + i];
      E += expl(beta * g);
      if (k > j) {
        cs += g;
        cmin = fminl(cmin, g);
        cmax = fmaxl(cmax, g);
      }
    }
  }
  long double np = n * (n - 1) / 2.0L, m2 = 0;
  for (size_t i = 0; i < d; i++)
    m2 += mean[i] * mean[i];
  double tol = 4 * (double) (n * n + d) * EPS;
  AFT_CLOSE("cos_mean", o[AF_OBS_cos_mean], (double) (cs / np), 0, tol);
  AFT_CLOSE("cos_min", o[AF_OBS_cos_min], (double) cmin, 0, tol);
  AFT_CLOSE("cos_max", o[AF_OBS_cos_max], (double) cmax, 0, tol);
  AFT_CLOSE("gap_mean", o[AF_OBS_gap_mean], (double) (1 - cs / np), 0, tol);
  AFT_CLOSE("gap_max", o[AF_OBS_gap_max], (double) (1 - cmin), 0, tol);
  /* I3: var = 1 - |mean|^2 = (n-1)(1 - gamma)/n. */
  AFT_CLOSE("var = 1 - |mean|^2", o[AF_OBS_var], (double) (1 - m2), 0, tol);
  AFT_CLOSE("var = (n-1)(1-gamma)/n (I3)", o[AF_OBS_var],
            (n - 1.0) * (1 - o[AF_OBS_cos_mean]) / n, 0, tol);
  /* Energy: n^2 exponentials, each relatively 2 d beta eps + 1 ulp. */
  AFT_CLOSE("energy", o[AF_OBS_energy], (double) (E / (n * n)),
            4 * ((double) (n * n) + d * beta) * EPS, 0);
  AFT_CLOSE("r_mean", o[AF_OBS_r_mean], (double) (rs / n), 4 * n * EPS, 0);
  ck_assert(o[AF_OBS_r_min] == (double) rmin);
  ck_assert(o[AF_OBS_r_max] == (double) rmax);
  ck_assert(o[AF_OBS_t] == 0.25);
  /* Clusters at threshold 0.5, by brute force (transitive closure). */
  size_t label[9];
  for (size_t j = 0; j < n; j++)
    label[j] = j;
  for (int pass = 0; pass < (int) n; pass++)
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < n; k++) {
        long double g = 0;
        for (size_t i = 0; i < d; i++)
          g += th[j * d + i] * th[k * d + i];
        if (g > 0.5L && label[k] < label[j])
          label[j] = label[k];
      }
  size_t nc = 0;
  for (size_t j = 0; j < n; j++)
    nc += label[j] == j;
  ck_assert_msg(o[AF_OBS_clusters] == (double) nc, "clusters %g, brute force %zu",
                o[AF_OBS_clusters], nc);
}
END_TEST

/* Gaps for tokens at tiny angles (theorems.md N1): |th1 - th2|^2 / 2 keeps its
 * relative accuracy where 1 - cos would be 0.  (1,0,0), (1,1e-10,0): the
 * second vector's norm rounds to 1, so both are exactly unit and the gap
 * is 5e-21 (1e-20/2 to relative 1e-20).  Generic orientation at angle
 * 1e-6: normalization rounding perturbs each component by eps, i.e. the
 * difference by a relative ~eps / 1e-6 = 2e-10; 1e-6 is ample. */
START_TEST(test_gap_tiny)
{
  double o[AF_OBS_COUNT];
  double y[8] = {1, 0, 0, 1, 1e-10, 0, 1, 1};
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    AFT_OK(observe(o, 0, y, 0.9999, 2, 3, 1.0, AF_POST_LN, (af_kernel) kk));
    AFT_CLOSE("gap_mean at 1e-10", o[AF_OBS_gap_mean], 5e-21, 1e-6, 0);
    AFT_CLOSE("gap_max at 1e-10", o[AF_OBS_gap_max], 5e-21, 1e-6, 0);
    ck_assert(o[AF_OBS_clusters] == 1.0);
  }
  const size_t d = 5;
  double u[5], v[5], yg[12];
  aft_random_state(yg, 2, d, aft_seed(3));
  memcpy(u, yg, sizeof u);
  memcpy(v, yg + d, sizeof v);
  double p = 0, q = 0;
  for (size_t i = 0; i < d; i++)
    p += u[i] * v[i];
  for (size_t i = 0; i < d; i++) {
    v[i] -= p * u[i];
    q += v[i] * v[i];
  }
  for (size_t i = 0; i < d; i++)
    yg[d + i] = u[i] + 1e-6 * v[i] / sqrt(q);
  long double n1 = 0, n2 = 0, g = 0;
  for (size_t i = 0; i < d; i++) {
    n1 += (long double) yg[i] * yg[i];
    n2 += (long double) yg[d + i] * yg[d + i];
  }
  for (size_t i = 0; i < d; i++) {
    long double df = yg[d + i] / sqrtl(n2) - yg[i] / sqrtl(n1);
    g += df * df / 2;
  }
  yg[10] = yg[11] = 1;
  AFT_OK(observe(o, 0, yg, 0.9999, 2, d, 1.0, AF_POST_LN, AF_KERNEL_BLAS));
  AFT_CLOSE("gap at 1e-6, generic", o[AF_OBS_gap_max], (double) g, 1e-6, 0);
  AFT_CLOSE("gap_mean = gap_max for n = 2", o[AF_OBS_gap_mean], o[AF_OBS_gap_max], 0, 0);
}
END_TEST

/* speed_mean = mean_j |P A_j| / s_j for every scheme and kernel, with P A
 * from af_attention and s from af_speeds (the sum of n norms: n eps). */
START_TEST(test_speed_mean)
{
  const size_t n = 7, d = 3;
  double y[28], pt[21], s[7], o[AF_OBS_COUNT];
  aft_random_state(y, n, d, aft_seed(17));
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
      af_model m;
      af_model_init(&m, n, d, 1.2, (af_scheme_id) sc);
      m.alpha = 0.3;
      m.tau = 0.5;
      af_work *w = af_work_alloc(n, d);
      AFT_OK(af_work_set_kernel(w, (af_kernel) kk));
      AFT_OK(af_attention(NULL, pt, NULL, NULL, 1.5, y, &m, w));
      AFT_OK(af_speeds(s, NULL, 1.5, y, &m, w));
      AFT_OK(af_observe(o, 1.5, y, 0.9999, &m, w));
      long double want = 0;
      for (size_t j = 0; j < n; j++) {
        long double q = 0;
        for (size_t i = 0; i < d; i++)
          q += (long double) pt[j * d + i] * pt[j * d + i];
        want += sqrtl(q) / s[j] / n;
      }
      char what[64];
      snprintf(what, sizeof what, "speed_mean %s", af_scheme_get((af_scheme_id) sc)->name);
      ck_assert_msg(aft_close(what, o[AF_OBS_speed_mean], (double) want,
                              4 * (double) (n + d) * EPS, 0), "%s", what);
      af_work_free(w);
    }
}
END_TEST

/* n = 1: no pairs; cosines and gaps take their one-cluster values. */
START_TEST(test_single_token)
{
  double y[4] = {0.0, 2.0, 0.0, 3.0}, o[AF_OBS_COUNT];
  for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
    AFT_OK(observe(o, 1.0, y, 0.9999, 1, 3, 0.5, (af_scheme_id) sc, AF_KERNEL_BLAS));
    for (int k = 0; k < AF_OBS_COUNT; k++)
      ck_assert_msg(isfinite(o[k]), "n=1: %s = %g", obs_names[k], o[k]);
    ck_assert(o[AF_OBS_clusters] == 1.0);
    ck_assert(o[AF_OBS_gap_mean] == 0.0);
    ck_assert(o[AF_OBS_gap_max] == 0.0);
    ck_assert(o[AF_OBS_cos_mean] == 1.0);
    ck_assert(o[AF_OBS_var] == 0.0);
    AFT_CLOSE("n=1 energy", o[AF_OBS_energy], exp(0.5), 2 * EPS, 0);
    AFT_CLOSE("n=1 drift", o[AF_OBS_drift], 1.0, 0, 0);
    ck_assert(o[AF_OBS_r_mean] == 3.0 && o[AF_OBS_r_min] == 3.0 && o[AF_OBS_r_max] == 3.0);
    AFT_CLOSE("n=1 speed", o[AF_OBS_speed_mean], 0.0, 0, 4 * EPS);
  }
}
END_TEST

START_TEST(test_errors)
{
  const size_t n = 3, d = 2;
  double y[9] = {1, 0, -1, 0, -1, 0, 1, 1, 1}, o[AF_OBS_COUNT];
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  af_work *w = af_work_alloc(n, d);
  AFT_OK(af_observe(o, 0, y, 0.9999, &m, w));
  AFT_STATUS(af_observe(NULL, 0, y, 0.9999, &m, w), AF_EINVAL);
  AFT_STATUS(af_observe(o, 0, NULL, 0.9999, &m, w), AF_EINVAL);
  AFT_STATUS(af_observe(o, 0, y, 0.9999, &m, NULL), AF_EINVAL);
  AFT_STATUS(af_observe(o, 0, y, NAN, &m, w), AF_EINVAL);
  AFT_STATUS(af_observe(o, 0, y, 0.9999, NULL, w), AF_EINVAL);
  af_model bm = m;
  bm.n = 4;
  AFT_STATUS(af_observe(o, 0, y, 0.9999, &bm, w), AF_EDIM);
  bm = m;
  bm.alpha = 0;
  AFT_STATUS(af_observe(o, 0, y, 0.9999, &bm, w), AF_EINVAL);
  /* Peri-LN at the zero-attention configuration (theorems.md S0): its speed
   * factor r |A_1| is 0, so speed_mean is undefined. */
  bm = m;
  bm.beta = M_LN2 / 2;
  bm.scheme = AF_PERI_LN;
  AFT_STATUS(af_observe(o, 0, y, 0.9999, &bm, w), AF_EZEROATTN);
  double yz[9] = {1, 0, 0, 0, -1, 0, 1, 1, 1};
  AFT_STATUS(af_observe(o, 0, yz, 0.9999, &m, w), AF_EZERONORM);
  yz[2] = 1;
  yz[7] = NAN;
  AFT_STATUS(af_observe(o, 0, yz, 0.9999, &m, w), AF_ENONFINITE);
  af_work_free(w);
}
END_TEST

static Suite *observe_suite(void)
{
  Suite *s = suite_create("observe");
  TCase *tc = tcase_create("observe");
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_orthonormal);
  tcase_add_test(tc, test_all_equal);
  tcase_add_test(tc, test_clusters);
  tcase_add_test(tc, test_drift);
  tcase_add_test(tc, test_random_definitions);
  tcase_add_test(tc, test_gap_tiny);
  tcase_add_test(tc, test_speed_mean);
  tcase_add_test(tc, test_single_token);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(observe_suite()); }
