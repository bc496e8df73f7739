/* claims_mprun.c -- one MPFR run of the claims of claims_mp.c and
 * claims_mptaylor.c (theorems.md N3, N3t): a work at the run's precision,
 * the double start rounded once, af_mp_integrate over 0, T/2, T. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "claims_mprun.h"

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
