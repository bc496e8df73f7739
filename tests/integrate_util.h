/* integrate_util.h -- what test_integrate.c and test_integrate_contracts.c
 * share: the small case of the studies, state buffers and one run of
 * af_integrate.  Static inline, so that each program takes what it uses.
 */
#ifndef AF_TESTS_INTEGRATE_UTIL_H
#define AF_TESTS_INTEGRATE_UTIL_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"
#include "attnflow.h"

#define EPS DBL_EPSILON

/* The smooth small case of every convergence study. */
enum { NT = 4, DT = 3 };
static const double T_END = 1.0;
static const double BETA = 1.0;

static inline size_t ssize(size_t n, size_t d) { return af_state_size(n, d); }

static inline double *new_state(size_t n, size_t d)
{
  double *y = malloc(ssize(n, d) * sizeof *y);
  ck_assert_ptr_nonnull(y);
  return y;
}

static inline void start_state(double *y, size_t n, size_t d)
{
  aft_random_state(y, n, d, aft_seed(20251029));
}

static inline double max_diff(const double *a, const double *b, size_t k)
{
  double m = 0;
  for (size_t i = 0; i < k; i++)
    m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static inline void model_for(af_model *m, size_t n, size_t d,
                             af_scheme_id s, af_attn_kind attn)
{
  af_model_init(m, n, d, BETA, s);
  m->attn = attn;
  /* Mix-LN switches at tau = 1/2, on the grids of the order studies (see
   * LADDER); tests of the off-grid switch set their own tau. */
  m->tau = 0.5;
  /* A genuinely time-dependent nGPT step alpha(t) = (1+t)^(-1/2). */
  m->alpha_decay = 0.5;
}

/* Integrate y0 over [t0, t1] into y; returns the status. */
static inline int run(double *y, const double *y0, double t0, double t1,
                      const af_model *m, const af_integ_opts *o, af_integ_stats *st)
{
  size_t k = ssize(m->n, m->d);
  memcpy(y, y0, k * sizeof *y);
  af_work *w = af_work_alloc(m->n, m->d);
  ck_assert_ptr_nonnull(w);
  double times[2] = {t0, t1};
  int rc = af_integrate(y, times, 2, m, o, w, NULL, NULL, st);
  af_work_free(w);
  return rc;
}

static inline void opts(af_integ_opts *o, af_method meth, double h, int fixed)
{
  af_integ_opts_init(o);
  o->method = meth;
  o->h = h;
  o->fixed = fixed;
}

#endif
