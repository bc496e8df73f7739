/* t41_mp.h -- the T4.1 scalar reduction at MPFR precision (libaftheory).
 *
 * Same system as af_t41_solve (theory.h) in the log-gap variable
 * u = ln(1 - gamma), integrated at the precision of the caller's mpfr_t
 * outputs, so the tail of the scalar ODE can be followed to gaps far
 * below the double range of resolution (1 - gamma down to 1e-60 and
 * beyond, r up to 2^60).  The rates are written out again in MPFR from
 * the theorems.md S1-S6 (t41_mp.c), independent of src/model/scheme.c and of
 * the double code in t41.c.  Conventions as in theory.h.
 */
#ifndef AF_T41_MP_H
#define AF_T41_MP_H

#include <stddef.h>
#include <gmp.h>
#include <mpfr.h>

#include "theory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Integrate u = ln(1 - gamma), r from u(0) = 0, r(0) = p->r0 and report
 * u[k], r[k] at times[k] (finite, >= 0, non-decreasing); r may be NULL.
 * Precision: that of u[0] (r's entries should have the same).  Method:
 * Gragg-Bulirsch-Stoer extrapolation of the modified midpoint rule (8
 * rows, order 16) with step control on the error per unit step; the
 * local error estimate |T_88 - T_87| in the norm
 * max(|e_u|, |e_r| / max(1, |r|)) is kept <= tol h / (times[k] -
 * times[k-1]) on every output interval, so the error of u[k] is about
 * k tol (the flows contract; the estimate neglects error growth).
 * tol in [1e-300, 1e-3]; p->rtol, p->atol, p->var are ignored,
 * p->max_steps (0: 10^6) bounds the steps of the whole run.  *steps (may
 * be NULL) receives the accepted steps.  Mix-LN is integrated to tau
 * exactly and restarted there.
 * Errors: AF_EINVAL, AF_ENONFINITE, AF_EMAXSTEPS, AF_ENOPROGRESS, AF_ENOMEM;
 * outputs before the failing interval are filled. */
int af_t41_solve_mp(mpfr_t *u, mpfr_t *r, unsigned long *steps,
                    const double *times, size_t ntimes,
                    const af_t41_params *p, double tol);

/* T4.1c: ln K(n, beta) from the closed form of af_t41_K_closed,
 *   ln K = [Ei(b) - gamma_E - ln b + e^b E1s(b/(n-1)) - E1s(bn/(n-1))
 *           - ln n] / n,   E1s(x) = e^x E1(x) = -e^x Ei(-x),
 * with MPFR's Ei (mpfr_eint, negative arguments since MPFR 4) at the
 * precision of lnK plus 64 guard bits; ln K = 0 at beta = 0. */
int af_t41_lnK_mp(mpfr_t lnK, size_t n, double beta);

/* The arguments of K(n, beta) (af_t41_K, af_t41_K_closed, af_t41_lnK_mp):
 * AF_EINVAL without an output (have_out 0), for n < 2 or beta < 0,
 * AF_ENONFINITE for a beta not finite, else AF_OK (t41.c). */
int af_t41_K_args(int have_out, size_t n, double beta);

/* Output times: AF_EINVAL if times is NULL with ntimes > 0 or a time is
 * negative or before the one preceding it, AF_ENONFINITE for a time not
 * finite, else AF_OK (t41.c; af_t41_solve_ex, af_t41_solve_mp). */
int af_t41_times_check(const double *times, size_t ntimes);

#ifdef __cplusplus
}
#endif
#endif /* AF_T41_MP_H */
