/* claims_mprun.h -- one MPFR run of the claims of claims_mp.c and
 * claims_mptaylor.c (theorems.md N3, N3t). */
#ifndef AF_CLAIMS_MPRUN_H
#define AF_CLAIMS_MPRUN_H

#include "attnflow_mp.h"
#include "verify.h"

/* The precisions and tolerances of a run and of its reference at the
 * verify level: quick 128 bits, tol 1e-25 (reference 256 bits, tol
 * 1e-45); full 256 bits, tol 1e-40 (reference 384 bits, tol 1e-64).  The
 * reference's own error is 20 or more digits below the run's tol. */
typedef struct {
  mpfr_prec_t prec, ref_prec;
  double tol, ref_tol;
} af_claims_mp_level;

af_claims_mp_level af_claims_mp_level_at(const af_vctx *c);

/* *err = max |y - y_ref| at t = T: y the run of m by method meth at
 * prec bits and tol (statistics in *st), y_ref mp-gbs at ref_prec bits
 * and ref_tol on m without its faults (af_claims_mp_ref, statistics in
 * *sr), both from the Gaussian start of the given seed.  AF_OK, or the
 * code of whatever failed (memory, the start, a run). */
int af_claims_mp_error(double *err, af_mp_stats *st, af_mp_stats *sr,
                       const af_model *m, unsigned long seed,
                       af_mp_method meth, mpfr_prec_t prec, double tol,
                       mpfr_prec_t ref_prec, double ref_tol, double T);

/* y (N = af_state_size(n, d) numbers at prec bits, allocated by the
 * caller) = the state at t = T of the run of m from y0 by method meth at
 * tolerance tol, output times 0, T/2, T; statistics into st.  AF_OK or
 * the integrator's code. */
int af_claims_mp_run(mpfr_t *y, const double *y0, mpfr_prec_t prec,
                     af_mp_method meth, double tol, double T,
                     const af_model *m, af_mp_stats *st);

/* af_claims_mp_run, for a reference run: a second call with the same
 * start, model (no weights, no user scheme), method, precision, tol and T
 * copies the stored result of the first instead of running it again (one
 * entry, kept for the process). */
int af_claims_mp_ref(mpfr_t *y, const double *y0, mpfr_prec_t prec,
                     af_mp_method meth, double tol, double T,
                     const af_model *m, af_mp_stats *st);

#endif
