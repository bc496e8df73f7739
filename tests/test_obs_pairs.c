/* test_obs_pairs.c -- the tiled pair observables (src/flow/observe_pairs.c)
 * against observe.c's serial pair loop (theorems.md N.obs).
 *
 * - af_obs_pairs_tiled against af_obs_pairs_serial on the same directions:
 *   n from 1 to 700 (one block, a block cut short, many tiles), d = 1, 2,
 *   3, 7, 64, random directions and clustered ones (a few centres with
 *   perturbations of 1e-4 to 0.3, exact duplicates, chains of neighbours
 *   whose ends are far apart, so that single linkage joins through
 *   intermediaries), cluster_cos from -0.5 to 0.9999: the minimum and
 *   maximum gap the same bits (the squared distances are the same sums),
 *   the cluster count equal, the sums of gaps and of exp(-beta g) within
 *   the bound of N.obs: (N - 1) u of the sum for each of the two orders
 *   (N terms, all non-negative), plus 2 u per exp (both within 1 ulp);
 * - the same bits for 1, 2 and 3 OpenMP threads;
 * - af_observe above AF_OBS_TILED_MIN tokens (the tiled path) against the
 *   serial loop on its directions.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "aftest.h"
#include "internal.h"

#define U (DBL_EPSILON / 2)

/* xorshift64*: uniform in [0, 1). */
static double rnd(unsigned long long *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double) ((*s * 2685821657736338717ULL) >> 11) * 0x1p-53;
}

static void normalize(double *x, size_t d)
{
  double q = 0;
  for (size_t i = 0; i < d; i++)
    q += x[i] * x[i];
  q = sqrt(q);
  for (size_t i = 0; i < d; i++)
    x[i] /= q;
}

/* Directions th (n x d) of kind: 0 random, 1 a few centres perturbed by
 * eps (some rows exact duplicates), 2 a chain: th_j at angle j * eps on a
 * great circle (neighbours close, ends far). */
static void directions(double *th, size_t n, size_t d, int kind, double eps,
                       unsigned long long seed)
{
  unsigned long long s = seed * 0x9E3779B97F4A7C15ULL + 1;
  size_t nc = 1 + n % 5;
  double cen[5 * 64];
  for (size_t c = 0; c < nc * d; c++)
    cen[c] = rnd(&s) - 0.5;
  for (size_t c = 0; c < nc; c++)
    normalize(cen + c * d, d);
  for (size_t j = 0; j < n; j++) {
    double *x = th + j * d;
    if (kind == 0 || d == 1) {
      for (size_t i = 0; i < d; i++)
        x[i] = rnd(&s) - 0.5;
      if (d == 1)
        x[0] = x[0] < 0 ? -1.0 : 1.0;
    } else if (kind == 1) {
      const double *c = cen + (j % nc) * d;
      int dup = j % 7 == 3;
      for (size_t i = 0; i < d; i++)
        x[i] = c[i] + (dup ? 0.0 : eps * (rnd(&s) - 0.5));
    } else {
      memset(x, 0, d * sizeof *x);
      x[0] = cos(eps * (double) j);
      x[1] = sin(eps * (double) j);
    }
    normalize(x, d);
  }
}

static void check_pair(const af_obs_pairs *a, const af_obs_pairs *b,
                       size_t n, const char *what)
{
  double N = 0.5 * (double) n * (double) (n - 1);
  ck_assert_msg(memcmp(&a->gmin, &b->gmin, sizeof(double)) == 0
                    && memcmp(&a->gmax, &b->gmax, sizeof(double)) == 0,
                "%s: gmin %a/%a gmax %a/%a", what, a->gmin, b->gmin, a->gmax,
                b->gmax);
  ck_assert_msg(a->clusters == b->clusters, "%s: clusters %zu, serial %zu",
                what, a->clusters, b->clusters);
  double tg = 2.0 * N * U * b->gsum;
  ck_assert_msg(fabs(a->gsum - b->gsum) <= tg, "%s: gsum %.17g, serial %.17g",
                what, a->gsum, b->gsum);
  double te = (2.0 * (N + (double) n) + 4.0) * U * b->esum;
  ck_assert_msg(fabs(a->esum - b->esum) <= te, "%s: esum %.17g, serial %.17g",
                what, a->esum, b->esum);
}

START_TEST(test_obs_pairs_serial)
{
  static const size_t ns[] = {1, 2, 5, 63, 64, 65, 129, 300, 700};
  static const size_t ds[] = {1, 2, 3, 7, 64};
  static const double cc[] = {-0.5, 0.5, 0.9, 0.999, 0.9999};
  static const double eps[] = {1e-4, 0.02, 0.3};
  char what[160];
  size_t checked = 0, multi = 0;
  for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
    for (size_t b = 0; b < sizeof ds / sizeof *ds; b++) {
      size_t n = ns[a], d = ds[b];
      if (n * n * d > 700 * 700 * 7)
        continue; /* the serial loop's time */
      double *th = malloc(n * d * sizeof *th);
      ck_assert_ptr_nonnull(th);
      for (int kind = 0; kind < 3; kind++)
        for (size_t e = 0; e < 3; e++) {
          if (kind == 0 && e > 0)
            continue;
          directions(th, n, d, kind, eps[e], n * 131 + d * 7 + kind);
          for (size_t k = 0; k < 5; k++) {
            af_obs_pairs ps, pt;
            double beta = 0.5 + (double) k;
            AFT_OK(af_obs_pairs_serial(&ps, th, n, d, beta, cc[k]));
            AFT_OK(af_obs_pairs_tiled(&pt, th, n, d, beta, cc[k]));
            snprintf(what, sizeof what,
                     "n %zu d %zu kind %d eps %g cos %g", n, d, kind, eps[e],
                     cc[k]);
            check_pair(&pt, &ps, n, what);
            checked++;
            multi += ps.clusters > 1 && ps.clusters < n;
          }
        }
      free(th);
    }
  /* The cases reach non-trivial partitions, not only 1 or n clusters. */
  ck_assert_msg(multi >= checked / 10, "only %zu of %zu cases between", multi,
                checked);
}
END_TEST

START_TEST(test_obs_pairs_threads)
{
#ifdef _OPENMP
  size_t n = 900, d = 5;
  double *th = malloc(n * d * sizeof *th);
  ck_assert_ptr_nonnull(th);
  directions(th, n, d, 1, 0.3, 11);
  af_obs_pairs p[3];
  af_work_free(af_work_alloc(2, 2)); /* reads OMP_NUM_THREADS */
  for (int t = 0; t < 3; t++) {
    omp_set_num_threads(t + 1);
    AFT_OK(af_obs_pairs_tiled(&p[t], th, n, d, 2.0, 0.95));
  }
  omp_set_num_threads(1);
  for (int t = 1; t < 3; t++)
    ck_assert_msg(memcmp(&p[0].gsum, &p[t].gsum, 4 * sizeof(double)) == 0
                      && p[0].clusters == p[t].clusters,
                  "%d threads differ from 1", t + 1);
  free(th);
#endif
}
END_TEST

START_TEST(test_obs_pairs_observe)
{
  size_t n = AF_OBS_TILED_MIN + 100, d = 3, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), obs[AF_OBS_COUNT];
  ck_assert_ptr_nonnull(y);
  directions(y, n, d, 1, 0.05, 5);
  for (size_t j = 0; j < n; j++)
    y[n * d + j] = 1.0;
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_observe(obs, 0.0, y, 0.99, &m, w));
  af_obs_pairs ps;
  AFT_OK(af_obs_pairs_serial(&ps, w->th, n, d, 1.0, 0.99));
  ck_assert_msg(obs[AF_OBS_clusters] == (double) ps.clusters,
                "clusters %g, serial %zu", obs[AF_OBS_clusters], ps.clusters);
  ck_assert_msg(obs[AF_OBS_gap_max] == ps.gmax, "gap_max %a, serial %a",
                obs[AF_OBS_gap_max], ps.gmax);
  ck_assert(obs[AF_OBS_clusters] > 1);
  double np = 0.5 * (double) n * (double) (n - 1);
  AFT_CLOSE("gap_mean", obs[AF_OBS_gap_mean], ps.gsum / np,
            4.0 * np * U, 0.0);
  AFT_CLOSE("energy", obs[AF_OBS_energy],
            exp(1.0) * (ps.esum / ((double) n * (double) n)),
            (4.0 * np + 16.0) * U, 0.0);
  af_work_free(w);
  free(y);
}
END_TEST

static Suite *obs_pairs_suite(void)
{
  Suite *s = suite_create("obs_pairs");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_obs_pairs_serial);
  tcase_add_test(tc, test_obs_pairs_threads);
  tcase_add_test(tc, test_obs_pairs_observe);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  setenv("OMP_NUM_THREADS", "2", 0); /* before any work: threads allowed */
  return aft_run(obs_pairs_suite());
}
