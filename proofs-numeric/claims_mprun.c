/* claims_mprun.c -- one MPFR run of the claims of claims_mp.c and
 * claims_mptaylor.c (theorems.md N3, N3t): a work at the run's precision,
 * the double start rounded once, af_mp_integrate over 0, T/2, T. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "claims_mprun.h"

af_claims_mp_level af_claims_mp_level_at(const af_vctx *c)
{
  af_claims_mp_level k = {128, 256, 1e-25, 1e-45};
  if (c->level == AF_LEVEL_FULL) {
    k.prec = 256;
    k.ref_prec = 384;
    k.tol = 1e-40;
    k.ref_tol = 1e-64;
  }
  return k;
}

int af_claims_mp_run(mpfr_t *y, const double *y0, mpfr_prec_t prec,
                     af_mp_method meth, double tol, double T,
                     const af_model *m, af_mp_stats *st)
{
  size_t N = af_state_size(m->n, m->d);
  af_mp_work *w = af_mp_work_alloc(m->n, m->d, prec);
  if (w == NULL)
    return AF_ENOMEM;
  af_mp_vec_set_d(y, y0, N);
  af_mp_opts o;
  af_mp_opts_init(&o);
  o.method = meth;
  o.tol = tol;
  double times[3] = {0.0, T / 2, T};
  int rc = af_mp_integrate(y, times, 3, m, &o, w, NULL, NULL, st);
  af_mp_work_free(w);
  return rc;
}

/* The reference runs of N.mp and N.taylor.over are the same run (the same
 * nGPT model, start, precision and tolerance): it is computed once per
 * process and copied out on a later call with an identical key.  The key
 * holds every input the run depends on; a model with weights or a user
 * scheme (pointers whose targets the key cannot hold) is never cached. */
static struct {
  int valid;
  size_t n, d, N;
  double beta, alpha, alpha_decay, tau, tol, T;
  af_scheme_id scheme;
  af_attn_kind attn;
  unsigned fault;
  mpfr_prec_t prec;
  af_mp_method meth;
  double *y0;
  mpfr_t *y;
  af_mp_stats st;
} ref_cache;

static int ref_key_eq(const double *y0, mpfr_prec_t prec, af_mp_method meth,
                      double tol, double T, const af_model *m)
{
  size_t N = af_state_size(m->n, m->d);
  if (!ref_cache.valid || ref_cache.n != m->n || ref_cache.d != m->d
      || ref_cache.beta != m->beta || ref_cache.alpha != m->alpha
      || ref_cache.alpha_decay != m->alpha_decay || ref_cache.tau != m->tau
      || ref_cache.scheme != m->scheme || ref_cache.attn != m->attn
      || ref_cache.fault != m->fault || ref_cache.prec != prec
      || ref_cache.meth != meth || ref_cache.tol != tol || ref_cache.T != T)
    return 0;
  for (size_t i = 0; i < N; i++)
    if (ref_cache.y0[i] != y0[i])
      return 0;
  return 1;
}

int af_claims_mp_ref(mpfr_t *y, const double *y0, mpfr_prec_t prec,
                     af_mp_method meth, double tol, double T,
                     const af_model *m, af_mp_stats *st)
{
  size_t N = af_state_size(m->n, m->d);
  if (m->w != NULL || m->user != NULL)
    return af_claims_mp_run(y, y0, prec, meth, tol, T, m, st);
  if (ref_key_eq(y0, prec, meth, tol, T, m)) {
    for (size_t i = 0; i < N; i++)
      mpfr_set(y[i], ref_cache.y[i], MPFR_RNDN); /* same precision: exact */
    *st = ref_cache.st;
    return AF_OK;
  }
  int rc = af_claims_mp_run(y, y0, prec, meth, tol, T, m, st);
  if (rc != AF_OK)
    return rc;
  /* replace the cached run (one entry: the claims ask for one reference) */
  free(ref_cache.y0);
  af_mp_vec_free(ref_cache.y, ref_cache.y ? ref_cache.N : 0);
  ref_cache.valid = 0;
  ref_cache.y0 = malloc(N * sizeof *ref_cache.y0);
  ref_cache.y = af_mp_vec_alloc(N, prec);
  if (ref_cache.y0 == NULL || ref_cache.y == NULL) {
    free(ref_cache.y0);
    af_mp_vec_free(ref_cache.y, ref_cache.y ? N : 0);
    ref_cache.y0 = NULL;
    ref_cache.y = NULL;
    return AF_OK; /* the run itself succeeded; it is only not kept */
  }
  for (size_t i = 0; i < N; i++) {
    ref_cache.y0[i] = y0[i];
    mpfr_set(ref_cache.y[i], y[i], MPFR_RNDN);
  }
  ref_cache.N = N;
  ref_cache.n = m->n;
  ref_cache.d = m->d;
  ref_cache.beta = m->beta;
  ref_cache.alpha = m->alpha;
  ref_cache.alpha_decay = m->alpha_decay;
  ref_cache.tau = m->tau;
  ref_cache.scheme = m->scheme;
  ref_cache.attn = m->attn;
  ref_cache.fault = m->fault;
  ref_cache.prec = prec;
  ref_cache.meth = meth;
  ref_cache.tol = tol;
  ref_cache.T = T;
  ref_cache.st = *st;
  ref_cache.valid = 1;
  return AF_OK;
}

int af_claims_mp_error(double *err, af_mp_stats *st, af_mp_stats *sr,
                       const af_model *m, unsigned long seed,
                       af_mp_method meth, mpfr_prec_t prec, double tol,
                       mpfr_prec_t ref_prec, double ref_tol, double T)
{
  size_t N = af_state_size(m->n, m->d);
  double *y0 = malloc(N * sizeof *y0);
  mpfr_t *y = af_mp_vec_alloc(N, prec);
  mpfr_t *yr = af_mp_vec_alloc(N, ref_prec);
  mpfr_t *yc = af_mp_vec_alloc(N, ref_prec);
  int rc = (y0 && y && yr && yc) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "gaussian", m->n, m->d, NAN, seed);
  if (rc == AF_OK)
    rc = af_claims_mp_run(y, y0, prec, meth, tol, T, m, st);
  if (rc == AF_OK) { /* the reference without the model's faults */
    af_model clean = *m;
    clean.fault = 0;
    rc = af_claims_mp_ref(yr, y0, ref_prec, AF_MP_GBS, ref_tol, T, &clean,
                          sr);
  }
  if (rc == AF_OK) {
    for (size_t i = 0; i < N; i++)
      mpfr_set(yc[i], y[i], MPFR_RNDN); /* exact: ref_prec >= prec */
    *err = af_mp_vec_maxdiff(yc, yr, N);
  }
  free(y0);
  af_mp_vec_free(y, y ? N : 0);
  af_mp_vec_free(yr, yr ? N : 0);
  af_mp_vec_free(yc, yc ? N : 0);
  return rc;
}
