/* mp_taylor_spec.h -- a spec'd scheme's speed factor and radial rate as
 * Taylor series for the method mp-taylor (mp_taylor_spec.c; theorems.md
 * U1).  Library-internal. */
#ifndef AF_MP_TAYLOR_SPEC_H
#define AF_MP_TAYLOR_SPEC_H

#include <stddef.h>
#include <mpfr.h>
#include "attnflow.h"

typedef struct af_tay_spec af_tay_spec;

/* Why mp-taylor cannot run sp (a sentence), NULL if it can: scores or a
 * gain (U3), abs, min, max (not analytic: the step's error estimate from
 * the last coefficients would not see the kink), ifle other than a
 * comparison of t with tau (constant on every piece: the integrators
 * stop at tau), or tau anywhere else. */
const char *af_tay_spec_refusal(const af_scheme_spec *sp);

/* 1 if the speed or the radial rate reads |A_j| (na). */
int af_tay_spec_reads_na(const af_scheme_spec *sp);

/* Series of L coefficients for n tokens at precision prec: the spec's
 * constants read from their text there.  NULL if out of memory or the
 * spec is refused. */
af_tay_spec *af_tay_spec_alloc(const af_scheme_spec *sp, size_t n, size_t L,
                               mpfr_prec_t prec);
void af_tay_spec_free(af_tay_spec *x);
/* The spec x was made for. */
const af_scheme_spec *af_tay_spec_of(const af_tay_spec *x);

/* The piece's shared series: t = t0 + h, alpha(t) = alpha (1 + t)^-decay,
 * and tau's side (+inf before the switch, -inf after). */
void af_tay_spec_piece(af_tay_spec *x, mpfr_srcptr t0, mpfr_srcptr alpha,
                       mpfr_srcptr decay, double tau_side);

/* Coefficient k of the speed (*s) and the radial rate (*rho) of token j,
 * from the series r, c = <theta_j, A_j>, a = |A_j| (coefficients 0..k;
 * a may be NULL when the spec does not read na), all earlier orders of
 * token j already computed.  acc, tmp: scratch of the calling thread.
 * Tokens may run on different threads. */
void af_tay_spec_coef(af_tay_spec *x, size_t j, size_t k, mpfr_t *r,
                      mpfr_t *c, mpfr_t *a, mpfr_ptr s, mpfr_ptr rho,
                      mpfr_ptr acc, mpfr_ptr tmp);

#endif
