/* sweep.c -- many independent runs of one model over a grid of beta.
 *
 * A phase diagram (cases C3, C4 of cases.md) integrates nsys random starts
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
  if (frac == NULL || y == NULL || n == 0 || d == 0 || isnan(cos_threshold))
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
  memset(s, 0, sizeof *s);
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

int af_sweep_pairs(double *frac, int *status, unsigned long *nevals,
                   const af_sweep_spec *s, af_sweep_progress_fn progress,
                   void *ctx)
{
  if (frac == NULL || s == NULL || s->betas == NULL || s->times == NULL ||
      s->init == NULL || s->nbeta == 0 || s->nsys == 0 || s->ntimes == 0 ||
      s->nthreads < 0 || isnan(s->cos_threshold))
    return AF_EINVAL;
  int rc = af_model_validate(&s->model);
  if (rc != AF_OK)
    return rc;
  for (size_t b = 0; b < s->nbeta; b++)
    if (!isfinite(s->betas[b]) || s->betas[b] < 0)
      return AF_EINVAL;
  const size_t nruns = s->nbeta * s->nsys;
  if (nruns / s->nsys != s->nbeta)
    return AF_EINVAL;
  int *st = status ? status : malloc(nruns * sizeof *st);
  if (st == NULL)
    return AF_ENOMEM;
  unsigned long total_evals = 0;
  size_t done = 0;
  long nr = (long) nruns;
#ifdef _OPENMP
  int nth = s->nthreads > 0 ? s->nthreads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic) num_threads(nth) \
    reduction(+ : total_evals)
#endif
  for (long r = 0; r < nr; r++) {
    size_t b = (size_t) r / s->nsys, k = (size_t) r % s->nsys;
    unsigned long ne = 0;
    st[r] = af_sweep_one(frac + (size_t) r * s->ntimes, s, b, k, &ne);
    total_evals += ne;
    if (progress) {
#ifdef _OPENMP
#pragma omp critical(af_sweep_progress)
#endif
      {
        done++;
        progress(done, nruns, ctx);
      }
    }
  }
  if (nevals)
    *nevals = total_evals;
  rc = AF_OK;
  if (status == NULL) {
    for (size_t r = 0; r < nruns && rc == AF_OK; r++)
      rc = st[r];
    free(st);
  }
  return rc;
}
