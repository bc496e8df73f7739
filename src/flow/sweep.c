/* sweep.c -- many independent runs of one model over a grid of beta.
 *
 * A phase diagram (figures C3, C4) integrates nsys random starts
 * for each of nbeta values of beta and records, at every output time, the
 * fraction of token pairs whose cosine exceeds a threshold.  The runs are
 * independent, so they are spread over OpenMP threads, one run per thread
 * at a time (schedule(dynamic): run times differ across beta and scheme,
 * by a factor of 7 in case C4).  Each run allocates its own af_work and
 * writes only its own slice of the output, and start k is drawn from the
 * seed af_sweep_seed(seed, k), a function of the base seed and k alone, so
 * the result is bit-identical for every number of threads.  Start k is the
 * same for every beta (common random numbers: the diagram varies
 * smoothly in beta instead of carrying independent noise per column).
 *
 * One engine, af_sweep_exec, runs every sweep: threads take runs from a
 * queue one at a time and hand each finished row back to it.  The phase
 * diagrams use its default queue (runs 0..N-1 into an array); the
 * command 'attnflow sweep' plugs in a queue that journals every row and,
 * under MPI, hands runs to other processes (cli/cli_sweep.c).  Its runs
 * are af_sweep_observe: the observables of 'attnflow run' at each time.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

/* splitmix64 finalizer (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijection of 64-bit
 * words with good avalanche, so nearby (base, k) give unrelated seeds. */
static uint64_t af_mix64(uint64_t z)
{
  z += UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

unsigned long af_sweep_seed(unsigned long base, size_t k)
{
  uint64_t z = af_mix64(af_mix64((uint64_t) base) ^ (uint64_t) k);
  /* mt19937 (af_init_state) uses 32 bits of its seed; keep 32 bits that
   * are never 0, which gsl_rng_set maps to its default seed. */
  unsigned long s = (unsigned long) (z >> 32);
  return s == 0 ? 1 : s;
}

int af_pairs_above(double *frac, const double *y, size_t n, size_t d,
                   double cos_threshold)
{
  if (frac == NULL || y == NULL || n == 0 || d == 0 || isnan(cos_threshold)
      || af_state_size(n, d) == 0 || n > SIZE_MAX / sizeof(double))
    return AF_EINVAL;
  if (n == 1) {
    *frac = 0;
    return AF_OK;
  }
  /* Inverse norms first: one division per token, not per pair. */
  double *inv = malloc(n * sizeof *inv);
  if (inv == NULL)
    return AF_ENOMEM;
  for (size_t j = 0; j < n; j++) {
    double q = 0;
    for (size_t i = 0; i < d; i++)
      q += y[j * d + i] * y[j * d + i];
    if (!(q > 0) || !isfinite(q)) {
      free(inv);
      return q == 0 ? AF_EZERONORM : AF_ENONFINITE;
    }
    inv[j] = 1 / sqrt(q);
  }
  size_t count = 0;
  for (size_t j = 0; j < n; j++)
    for (size_t k = j + 1; k < n; k++) {
      double p = 0;
      for (size_t i = 0; i < d; i++)
        p += y[j * d + i] * y[k * d + i];
      if (p * inv[j] * inv[k] > cos_threshold)
        count++;
    }
  free(inv);
  *frac = (double) count / ((double) n * (double) (n - 1) / 2);
  return AF_OK;
}

void af_sweep_spec_init(af_sweep_spec *s, const af_model *model,
                        const double *betas, size_t nbeta, size_t nsys,
                        const double *times, size_t ntimes)
{
  if (s == NULL)
    return;
  memset(s, 0, sizeof *s);
  if (model != NULL)
    s->model = *model;
  s->betas = betas;
  s->nbeta = nbeta;
  s->nsys = nsys;
  s->init = "uniform";
  s->r0 = 1;
  s->seed = 1;
  s->times = times;
  s->ntimes = ntimes;
  af_integ_opts_init(&s->opts);
  s->cos_threshold = 0.999;
  s->nthreads = 0;
}

/* Output callback of one run: the pair fraction at each output time. */
typedef struct {
  double *frac; /* ntimes values of this run */
  size_t k, ntimes, n, d;
  double thr;
} af_sweep_run;

static int af_sweep_out(double t, const double *y, void *vctx)
{
  (void) t;
  af_sweep_run *r = vctx;
  if (r->k >= r->ntimes)
    return AF_EINVAL;
  int rc = af_pairs_above(r->frac + r->k, y, r->n, r->d, r->thr);
  r->k++;
  return rc;
}

/* Run (b, k) of the sweep into frac (ntimes values, NaN where not
 * reached). */
static int af_sweep_one(double *frac, const af_sweep_spec *s, size_t b,
                        size_t k, unsigned long *nevals)
{
  const size_t n = s->model.n, d = s->model.d;
  for (size_t i = 0; i < s->ntimes; i++)
    frac[i] = NAN;
  af_model m = s->model;
  m.beta = s->betas[b];
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  af_work *w = af_work_alloc(n, d);
  int rc = (y && w) ? AF_OK : AF_ENOMEM;
  size_t line;
  if (rc == AF_OK)
    rc = af_init_state(y, &line, s->init, n, d, s->r0,
                       af_sweep_seed(s->seed, k));
  if (rc == AF_OK) {
    af_sweep_run r = {frac, 0, s->ntimes, n, d, s->cos_threshold};
    af_integ_stats st;
    rc = af_integrate(y, s->times, s->ntimes, &m, &s->opts, w, af_sweep_out,
                      &r, &st);
  }
  *nevals = w ? af_work_nevals(w) : 0;
  af_work_free(w);
  free(y);
  return rc;
}

/* ---------------------------------------------------------- engine */

/* The default queue: runs 0..nruns-1 in order, rows into one array. */
typedef struct {
  size_t next, nruns, rowlen;
  double *rows;
  int *status;
} af_sweep_dq;

static int af_sweep_dq_next(size_t *r, void *vctx)
{
  af_sweep_dq *q = vctx;
  if (q->next >= q->nruns)
    return 0;
  *r = q->next++;
  return 1;
}

static int af_sweep_dq_done(size_t r, const double *row, int status,
                            void *vctx)
{
  af_sweep_dq *q = vctx;
  memcpy(q->rows + r * q->rowlen, row, q->rowlen * sizeof *row);
  q->status[r] = status;
  return AF_OK;
}

/* The loop of one computing thread; *err is shared (first error wins). */
static void af_sweep_worker(size_t rowlen, af_sweep_task_fn task,
                            void *task_ctx, const af_sweep_queue *q,
                            size_t total, size_t *ndone, int *err,
                            af_sweep_progress_fn progress, void *pctx)
{
  double *row = malloc(rowlen * sizeof *row);
  for (;;) {
    size_t r = 0;
    int have;
#ifdef _OPENMP
#pragma omp critical(af_sweep_queue)
#endif
    {
      if (row == NULL && *err == AF_OK)
        *err = AF_ENOMEM;
      have = *err != AF_OK ? 0 : q->next(&r, q->ctx);
      if (have < 0) {
        *err = -have;
        have = 0;
      }
    }
    if (!have)
      break;
    int st = task(row, r, task_ctx);
#ifdef _OPENMP
#pragma omp critical(af_sweep_queue)
#endif
    {
      int rc = q->done(r, row, st, q->ctx);
      if (rc != AF_OK && *err == AF_OK)
        *err = rc;
      (*ndone)++;
      if (progress)
        progress(*ndone, total, pctx);
    }
  }
  free(row);
}

int af_sweep_exec(double *rows, int *status, size_t nruns, size_t rowlen,
                  af_sweep_task_fn task, void *task_ctx,
                  const af_sweep_queue *q, int nthreads,
                  af_sweep_progress_fn progress, void *progress_ctx)
{
  if (task == NULL || rowlen == 0 || nthreads < 0 ||
      nthreads > AF_THREADS_MAX ||
      (q == NULL && nruns > 0 && (rows == NULL || status == NULL)) ||
      (q != NULL && (q->next == NULL || q->done == NULL)))
    return AF_EINVAL;
  if (q == NULL && nruns > 0 && rowlen > SIZE_MAX / sizeof(double) / nruns)
    return AF_EINVAL;
  af_sweep_dq dq = {0, nruns, rowlen, rows, status};
  const af_sweep_queue dflt = {af_sweep_dq_next, af_sweep_dq_done, NULL, &dq};
  const size_t total = q == NULL ? nruns : 0;
  if (q == NULL)
    q = &dflt;
  int err = AF_OK;
  size_t ndone = 0;
#ifdef _OPENMP
  const int extra = q->serve != NULL;
  const int nth = nthreads > 0 ? nthreads : omp_get_max_threads();
#pragma omp parallel num_threads(nth + extra)
  {
    if (extra && omp_get_thread_num() == 0) {
      int rc = q->serve(q->ctx);
#pragma omp critical(af_sweep_queue)
      if (rc != AF_OK && err == AF_OK)
        err = rc;
    } else {
      af_sweep_worker(rowlen, task, task_ctx, q, total, &ndone, &err,
                      progress, progress_ctx);
    }
  }
#else
  /* One thread: a serving queue is served, not computed from here. */
  if (q->serve != NULL)
    err = q->serve(q->ctx);
  else
    af_sweep_worker(rowlen, task, task_ctx, q, total, &ndone, &err,
                    progress, progress_ctx);
#endif
  return err;
}

/* ---------------------------------------------------- phase diagrams */

typedef struct {
  const af_sweep_spec *s;
  unsigned long nevals; /* total, summed atomically */
} af_sweep_pairs_ctx;

static int af_sweep_pairs_task(double *row, size_t r, void *vctx)
{
  af_sweep_pairs_ctx *x = vctx;
  unsigned long ne = 0;
  int st = af_sweep_one(row, x->s, r / x->s->nsys, r % x->s->nsys, &ne);
#ifdef _OPENMP
#pragma omp atomic
#endif
  x->nevals += ne;
  return st;
}

int af_sweep_pairs(double *frac, int *status, unsigned long *nevals,
                   const af_sweep_spec *s, af_sweep_progress_fn progress,
                   void *ctx)
{
  if (frac == NULL || s == NULL || s->betas == NULL || s->times == NULL ||
      s->init == NULL || s->nbeta == 0 || s->nsys == 0 || s->ntimes == 0 ||
      s->nthreads < 0 || s->nthreads > AF_THREADS_MAX ||
      isnan(s->cos_threshold) || af_integ_opts_check(&s->opts) != AF_OK)
    return AF_EINVAL;
  int rc = af_model_validate(&s->model);
  if (rc != AF_OK)
    return rc;
  /* Sizes first: a grid whose run count wraps is refused before its
   * arrays are read. */
  const size_t nruns = s->nbeta * s->nsys;
  if (nruns / s->nsys != s->nbeta || nruns > SIZE_MAX / sizeof(int))
    return AF_EINVAL;
  for (size_t b = 0; b < s->nbeta; b++)
    if (!isfinite(s->betas[b]) || s->betas[b] < 0)
      return AF_EINVAL;
  int *st = status ? status : malloc(nruns * sizeof *st);
  if (st == NULL)
    return AF_ENOMEM;
  af_sweep_pairs_ctx x = {s, 0};
  rc = af_sweep_exec(frac, st, nruns, s->ntimes, af_sweep_pairs_task, &x,
                     NULL, s->nthreads, progress, ctx);
  if (nevals)
    *nevals = x.nevals;
  if (status == NULL) {
    for (size_t r = 0; r < nruns && rc == AF_OK; r++)
      rc = st[r];
    free(st);
  }
  return rc;
}

/* ------------------------------------------------ observables of a run */

/* Output callback of af_sweep_observe. */
typedef struct {
  const af_sweep_obs_spec *s;
  const af_model *m;
  af_work *w;
  double *rows;
  size_t ncalls, skip;
  double obs[AF_OBS_COUNT];
} af_sweep_obs_run;

static int af_sweep_obs_out(double t, const double *y, void *vctx)
{
  af_sweep_obs_run *x = vctx;
  size_t k = x->ncalls++;
  if (k < x->skip)
    return AF_OK;
  k -= x->skip;
  if (k >= x->s->ntimes)
    return AF_EINVAL;
  int rc = af_observe(x->obs, t, y, x->s->cluster_cos, x->m, x->w);
  if (rc != AF_OK)
    return rc;
  for (size_t i = 0; i < x->s->nobs; i++)
    x->rows[k * x->s->nobs + i] = x->obs[x->s->obs[i]];
  return AF_OK;
}

int af_sweep_observe(double *rows, af_integ_stats *stats,
                     const af_sweep_obs_spec *s)
{
  if (stats)
    memset(stats, 0, sizeof *stats);
  if (rows == NULL || s == NULL || s->init == NULL || s->times == NULL ||
      s->ntimes == 0 || s->obs == NULL || s->nobs == 0 ||
      s->nobs > SIZE_MAX / sizeof(double) / s->ntimes ||
      af_integ_opts_check(&s->opts) != AF_OK ||
      !(s->cluster_cos >= AF_COS_MIN && s->cluster_cos <= AF_COS_MAX))
    return AF_EINVAL;
  for (size_t i = 0; i < s->nobs; i++)
    if ((int) s->obs[i] < 0 || s->obs[i] >= AF_OBS_COUNT)
      return AF_EINVAL;
  for (size_t i = 0; i < s->ntimes * s->nobs; i++)
    rows[i] = NAN;
  for (size_t i = 0; i < s->ntimes; i++)
    if (!(s->times[i] >= 0) || !isfinite(s->times[i])
        || (i > 0 && s->times[i] < s->times[i - 1]))
      return AF_EINVAL;
  const size_t n = s->model.n, d = s->model.d;
  af_model m = s->model;
  af_weights *wts = NULL;
  int rc = AF_OK;
  if (s->kaiming) {
    /* ceil(t_end / h) sets of time h each (at least one), t_end the last
     * output time, as 'attnflow run --weights kaiming'. */
    double hw = s->opts.h == 0 ? AF_STEP_DEFAULT : s->opts.h; /* 0: rule */
    double layers = ceil(s->times[s->ntimes - 1] / hw);
    if (!(hw > 0) || !(layers <= (double) (SIZE_MAX / 4)))
      return AF_EINVAL;
    wts = af_weights_alloc(d, layers < 1 ? 1 : (size_t) layers, hw);
    rc = wts ? af_weights_kaiming(wts, s->seed) : AF_ENOMEM;
    m.w = wts;
  }
  if (rc == AF_OK)
    rc = af_model_validate(&m);
  if (rc != AF_OK) {
    af_weights_free(wts);
    return rc;
  }
  af_work *w = af_work_alloc(n, d);
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  double *itimes = malloc((s->ntimes + 1) * sizeof *itimes);
  rc = (w && y && itimes) ? af_work_set_kernel(w, s->kernel) : AF_ENOMEM;
  size_t line = 0;
  if (rc == AF_OK)
    rc = af_init_state(y, &line, s->init, n, d, s->r0, s->seed);
  if (rc == AF_OK) {
    /* The integration starts at t = 0. */
    size_t skip = s->times[0] > 0 ? 1 : 0;
    itimes[0] = 0;
    memcpy(itimes + skip, s->times, s->ntimes * sizeof *itimes);
    af_sweep_obs_run x = {s, &m, w, rows, 0, skip, {0}};
    af_integ_stats st = {0, 0, 0};
    rc = af_integrate(y, itimes, s->ntimes + skip, &m, &s->opts, w,
                      af_sweep_obs_out, &x, &st);
    if (rc == AF_OK && x.ncalls != s->ntimes + skip)
      rc = AF_EINVAL;
    if (stats)
      *stats = st;
  }
  free(itimes);
  free(y);
  af_work_free(w);
  af_weights_free(wts);
  return rc;
}
