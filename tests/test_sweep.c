/* test_sweep.c -- sweeps of independent runs (src/flow/sweep.c): the pair
 * fraction, the seed derivation, agreement of each run of a sweep with
 * the same run done alone by af_integrate, independence of the result
 * from the number of OpenMP threads, and argument errors; the engine
 * af_sweep_exec under another queue (order, a serving thread) and the
 * runs of 'attnflow sweep' (af_sweep_observe).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"

START_TEST(test_pairs_above_counts)
{
  /* Four tokens in the plane: 0 and 1 at angle 0.01 rad (cos 0.99995),
   * 2 at angle 0.05 from 0 (cos 0.99875 with 0, 0.9992 with 1), 3 opposite.
   * Pairs above 0.999: (0,1), (1,2) -> 2 of 6.  Norms other than 1 must
   * not matter. */
  const double a[4] = {0.0, 0.01, 0.05, M_PI};
  const double rad[4] = {1.0, 3.0, 0.5, 2.0};
  double y[4 * 2 + 4];
  for (int j = 0; j < 4; j++) {
    y[2 * j] = rad[j] * cos(a[j]);
    y[2 * j + 1] = rad[j] * sin(a[j]);
    y[8 + j] = 1;
  }
  double f;
  AFT_OK(af_pairs_above(&f, y, 4, 2, 0.999));
  ck_assert_msg(f == 2.0 / 6.0, "fraction %.17g, wanted 1/3", f);
  AFT_OK(af_pairs_above(&f, y, 4, 2, -2.0));
  ck_assert_msg(f == 1.0, "fraction %.17g at threshold -2", f);
  AFT_OK(af_pairs_above(&f, y, 1, 2, 0.5));
  ck_assert_msg(f == 0.0, "one token: %.17g", f);
  y[2] = y[3] = 0;
  AFT_STATUS(af_pairs_above(&f, y, 4, 2, 0.999), AF_EZERONORM);
  AFT_STATUS(af_pairs_above(&f, y, 0, 2, 0.999), AF_EINVAL);
}
END_TEST

static int cmp_ulong(const void *a, const void *b)
{
  unsigned long x = *(const unsigned long *) a, y = *(const unsigned long *) b;
  return (x > y) - (x < y);
}

START_TEST(test_seed_distinct)
{
  /* Distinct (base, k) give distinct nonzero seeds on a small grid, and
   * the seed is a pure function of its arguments. */
  enum { NB = 8, NK = 512 };
  static unsigned long s[NB * NK];
  for (unsigned long b = 0; b < NB; b++)
    for (size_t k = 0; k < NK; k++) {
      s[b * NK + k] = af_sweep_seed(b, k);
      if (s[b * NK + k] == 0 || s[b * NK + k] != af_sweep_seed(b, k))
        ck_abort_msg("seed (%lu, %zu) is 0 or not reproducible", b, k);
    }
  /* Sorted, no two equal (ck_assert costs a system call per use, so the
   * comparison is counted, then asserted once). */
  qsort(s, NB * NK, sizeof s[0], cmp_ulong);
  size_t equal = 0;
  for (size_t i = 1; i < NB * NK; i++)
    equal += s[i] == s[i - 1];
  ck_assert_msg(equal == 0, "%zu seed collisions", equal);
}
END_TEST

/* The C3 setting at a small size: SA on the circle, Gaussian starts. */
static void small_spec(af_sweep_spec *s, af_model *m, const double *betas,
                       size_t nbeta, const double *times, size_t nt)
{
  af_model_init(m, 8, 2, 1.0, AF_POST_LN);
  af_sweep_spec_init(s, m, betas, nbeta, 5, times, nt);
  s->seed = 7;
}

/* Pair fractions of a run made by hand, at its output times. */
typedef struct {
  double f[8];
  size_t k;
} collect;

static int collect_cb(double t, const double *y, void *ctx)
{
  (void) t;
  collect *c = ctx;
  if (c->k >= 8)
    return AF_EINVAL;
  return af_pairs_above(&c->f[c->k++], y, 8, 2, 0.999);
}

START_TEST(test_sweep_matches_single_runs)
{
  /* Each run of the sweep equals the same run made by hand: start from
   * af_sweep_seed(seed, k), af_integrate, af_pairs_above at each time. */
  const double betas[3] = {0.5, 2.0, 6.0};
  const double times[4] = {0, 1, 4, 10};
  af_model m;
  af_sweep_spec s;
  small_spec(&s, &m, betas, 3, times, 4);
  double frac[3 * 5 * 4];
  int st[3 * 5];
  unsigned long ne = 0;
  AFT_OK(af_sweep_pairs(frac, st, &ne, &s, NULL, NULL));
  ck_assert(ne > 0);
  size_t ss = af_state_size(8, 2);
  double *y = malloc(ss * sizeof *y);
  ck_assert(y != NULL);
  af_work *w = af_work_alloc(8, 2);
  for (size_t b = 0; b < 3; b++)
    for (size_t k = 0; k < 5; k++) {
      size_t r = b * 5 + k, line;
      AFT_OK(st[r]);
      af_model mb = m;
      mb.beta = betas[b];
      AFT_OK(af_init_state(y, &line, "uniform", 8, 2, 1.0,
                           af_sweep_seed(7, k)));
      collect c = {{0}, 0};
      af_integ_stats ist;
      AFT_OK(af_integrate(y, times, 4, &mb, &s.opts, w, collect_cb, &c, &ist));
      ck_assert(c.k == 4);
      for (size_t i = 0; i < 4; i++)
        ck_assert_msg(c.f[i] == frac[r * 4 + i],
                      "run %zu time %g: sweep %.17g, alone %.17g", r,
                      times[i], frac[r * 4 + i], c.f[i]);
    }
  af_work_free(w);
  free(y);
  /* The diagram is not trivial: at t = 10 some run has clustered pairs and
   * some run is not fully clustered. */
  int some = 0, notall = 0;
  for (size_t r = 0; r < 15; r++) {
    some |= frac[r * 4 + 3] > 0;
    notall |= frac[r * 4 + 3] < 1;
  }
  ck_assert(some && notall);
}
END_TEST

START_TEST(test_sweep_thread_independent)
{
  /* One thread, two threads, three threads: bit-identical fractions and
   * evaluation counts, for an adaptive method and for the layer maps. */
  double betas[6];
  for (int b = 0; b < 6; b++)
    betas[b] = 0.1 + 1.7 * b;
  double times[11];
  for (int i = 0; i <= 10; i++)
    times[i] = 0.5 * i;
  af_model m;
  af_sweep_spec s;
  for (int method = 0; method < 2; method++) {
    small_spec(&s, &m, betas, 6, times, 11);
    if (method == 1) {
      s.opts.method = AF_METHOD_LAYERS;
      s.opts.h = 0.1;
    }
    double f[3][6 * 5 * 11];
    unsigned long ne[3];
    for (int th = 0; th < 3; th++) {
      s.nthreads = th + 1;
      AFT_OK(af_sweep_pairs(f[th], NULL, &ne[th], &s, NULL, NULL));
    }
    for (int th = 1; th < 3; th++) {
      ck_assert_msg(memcmp(f[0], f[th], sizeof f[0]) == 0,
                    "method %d: %d threads differ from 1", method, th + 1);
      ck_assert(ne[0] == ne[th]);
    }
  }
}
END_TEST

static void count_progress(size_t done, size_t total, void *ctx)
{
  size_t *c = ctx;
  ck_assert(done >= 1 && done <= total);
  c[0]++;
  if (done > c[1])
    c[1] = done;
}

START_TEST(test_sweep_progress_and_errors)
{
  const double betas[2] = {1, 2};
  const double times[2] = {0, 1};
  af_model m;
  af_sweep_spec s;
  small_spec(&s, &m, betas, 2, times, 2);
  s.nthreads = 2;
  double frac[2 * 5 * 2];
  size_t c[2] = {0, 0};
  AFT_OK(af_sweep_pairs(frac, NULL, NULL, &s, count_progress, c));
  ck_assert_msg(c[0] == 10 && c[1] == 10, "progress %zu calls, max %zu",
                c[0], c[1]);
  AFT_STATUS(af_sweep_pairs(NULL, NULL, NULL, &s, NULL, NULL), AF_EINVAL);
  s.nsys = 0;
  AFT_STATUS(af_sweep_pairs(frac, NULL, NULL, &s, NULL, NULL), AF_EINVAL);
  s.nsys = 5;
  const double bad[2] = {1, -1};
  s.betas = bad;
  AFT_STATUS(af_sweep_pairs(frac, NULL, NULL, &s, NULL, NULL), AF_EINVAL);
  s.betas = betas;
  s.model.n = 0;
  AFT_STATUS(af_sweep_pairs(frac, NULL, NULL, &s, NULL, NULL), AF_EINVAL);
  s.model.n = 8;
  /* A failing run: a start spec the library rejects is reported per run
   * and, without a status array, as the return value. */
  s.init = "orthonormal"; /* n = 8 > d = 2 */
  int st[10];
  AFT_OK(af_sweep_pairs(frac, st, NULL, &s, NULL, NULL));
  for (int r = 0; r < 10; r++) {
    ck_assert(st[r] != AF_OK);
    ck_assert(isnan(frac[r * 2]) && isnan(frac[r * 2 + 1]));
  }
  ck_assert(af_sweep_pairs(frac, NULL, NULL, &s, NULL, NULL) == st[0]);
}
END_TEST

/* One small run of 'attnflow sweep' per r: seed r + 1, beta from r. */
static int obs_task(double *row, size_t r, void *ctx)
{
  (void) ctx;
  static const double times[3] = {0.5, 1, 3};
  static const af_obs_id obs[2] = {AF_OBS_cos_mean, AF_OBS_energy};
  af_sweep_obs_spec s;
  memset(&s, 0, sizeof s);
  af_model_init(&s.model, 6, 3, 0.5 + (double) (r % 4), AF_PRE_LN);
  s.init = "uniform";
  s.r0 = 1;
  s.seed = (unsigned long) r + 1;
  s.times = times;
  s.ntimes = 3;
  af_integ_opts_init(&s.opts);
  s.kernel = AF_KERNEL_BLAS;
  s.cluster_cos = 0.9999;
  s.obs = obs;
  s.nobs = 2;
  return af_sweep_observe(row, NULL, &s);
}

/* A queue that hands runs out last first and has a serving thread take
 * every third run itself, as a remote rank would: the rows must be those
 * of the default queue, each run done once. */
typedef struct {
  size_t left;       /* runs not handed out: left-1, ..., 0 */
  double rows[24 * 6];
  int done[24];
  size_t served;
} rev_queue;

static int rev_next(size_t *r, void *ctx)
{
  rev_queue *q = ctx;
  if (q->left == 0)
    return 0;
  *r = --q->left;
  return 1;
}

static int rev_done(size_t r, const double *row, int status, void *ctx)
{
  rev_queue *q = ctx;
  if (r >= 24 || status != AF_OK)
    return AF_EINVAL;
  memcpy(q->rows + r * 6, row, 6 * sizeof *row);
  q->done[r]++;
  return AF_OK;
}

static int rev_serve(void *ctx)
{
  rev_queue *q = ctx;
  double row[6];
  for (;;) {
    size_t r = 0;
    int have;
#ifdef _OPENMP
#pragma omp critical(af_sweep_queue)
#endif
    {
      have = q->left % 3 == 0 ? rev_next(&r, q) : 0;
      if (q->left == 0 && !have)
        have = -1;
    }
    if (have < 0)
      return AF_OK;
    if (!have)
      continue;
    int st = obs_task(row, r, NULL);
#ifdef _OPENMP
#pragma omp critical(af_sweep_queue)
#endif
    {
      rev_done(r, row, st, q);
      q->served++;
    }
  }
}

START_TEST(test_exec_queue_order)
{
  enum { NR = 24, RL = 6 };
  static double rows[NR * RL];
  int st[NR];
  AFT_OK(af_sweep_exec(rows, st, NR, RL, obs_task, NULL, NULL, 2, NULL,
                       NULL));
  for (size_t r = 0; r < NR; r++)
    AFT_OK(st[r]);
  static rev_queue q;
  memset(&q, 0, sizeof q);
  q.left = NR;
  af_sweep_queue rq = {rev_next, rev_done, rev_serve, &q};
  AFT_OK(af_sweep_exec(NULL, NULL, 0, RL, obs_task, NULL, &rq, 2, NULL,
                       NULL));
  for (size_t r = 0; r < NR; r++)
    ck_assert_msg(q.done[r] == 1, "run %zu done %d times", r, q.done[r]);
  ck_assert_msg(memcmp(rows, q.rows, sizeof rows) == 0,
                "rows depend on the queue");
  /* Errors: no task, a queue whose next fails. */
  AFT_STATUS(af_sweep_exec(rows, st, NR, RL, NULL, NULL, NULL, 1, NULL, NULL),
             AF_EINVAL);
  AFT_STATUS(af_sweep_exec(NULL, NULL, NR, RL, obs_task, NULL, NULL, 1, NULL,
                           NULL),
             AF_EINVAL);
}
END_TEST

/* Observables cos_mean and energy at the output calls after t = 0. */
typedef struct {
  const af_model *m;
  af_work *w;
  double v[6];
  size_t k;
} obs_collect;

static int obs_collect_cb(double t, const double *y, void *ctx)
{
  obs_collect *c = ctx;
  double obs[AF_OBS_COUNT];
  if (c->k++ == 0)
    return AF_OK;
  if (c->k > 4)
    return AF_EINVAL;
  int rc = af_observe(obs, t, y, 0.9999, c->m, c->w);
  c->v[2 * (c->k - 2)] = obs[AF_OBS_cos_mean];
  c->v[2 * (c->k - 2) + 1] = obs[AF_OBS_energy];
  return rc;
}

START_TEST(test_observe_matches_integrate)
{
  /* af_sweep_observe = af_init_state + af_integrate from t = 0 through
   * the requested times (the first one > 0) + af_observe at each: the
   * same bits as those calls made by hand. */
  double row[6];
  AFT_OK(obs_task(row, 5, NULL));
  const double itimes[4] = {0, 0.5, 1, 3};
  af_model m;
  af_model_init(&m, 6, 3, 0.5 + 1, AF_PRE_LN);
  double *y = malloc(af_state_size(6, 3) * sizeof *y);
  af_work *w = af_work_alloc(6, 3);
  ck_assert(y && w);
  size_t line;
  AFT_OK(af_init_state(y, &line, "uniform", 6, 3, 1, 6));
  af_integ_opts o;
  af_integ_opts_init(&o);
  obs_collect c = {&m, w, {0}, 0};
  af_integ_stats st;
  AFT_OK(af_integrate(y, itimes, 4, &m, &o, w, obs_collect_cb, &c, &st));
  ck_assert(c.k == 4);
  for (size_t i = 0; i < 6; i++)
    ck_assert_msg(row[i] == c.v[i], "value %zu: %.17g against %.17g", i,
                  row[i], c.v[i]);
  af_work_free(w);
  free(y);
  /* Bad specs: decreasing times, an unknown observable. */
  af_sweep_obs_spec s;
  memset(&s, 0, sizeof s);
  af_model_init(&s.model, 6, 3, 1, AF_PRE_LN);
  const double bad_times[2] = {1, 0.5};
  const af_obs_id bad_obs[1] = {AF_OBS_COUNT};
  const af_obs_id good_obs[1] = {AF_OBS_energy};
  s.init = "uniform";
  s.r0 = 1;
  s.times = bad_times;
  s.ntimes = 2;
  af_integ_opts_init(&s.opts);
  s.obs = good_obs;
  s.nobs = 1;
  s.cluster_cos = 0.9;
  AFT_STATUS(af_sweep_observe(row, NULL, &s), AF_EINVAL);
  ck_assert(isnan(row[0]) && isnan(row[1]));
  s.times = itimes;
  s.obs = bad_obs;
  AFT_STATUS(af_sweep_observe(row, NULL, &s), AF_EINVAL);
}
END_TEST

static Suite *sweep_suite(void)
{
  Suite *s = suite_create("sweep");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_pairs_above_counts);
  tcase_add_test(tc, test_seed_distinct);
  tcase_add_test(tc, test_sweep_matches_single_runs);
  tcase_add_test(tc, test_sweep_thread_independent);
  tcase_add_test(tc, test_sweep_progress_and_errors);
  tcase_add_test(tc, test_exec_queue_order);
  tcase_add_test(tc, test_observe_matches_integrate);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return aft_run(sweep_suite());
}
