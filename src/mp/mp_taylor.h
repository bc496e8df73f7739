/* mp_taylor.h -- the Taylor series method mp-taylor (mp_taylor.c);
 * library-internal: mp_integrate.c drives it through af_mp_integrate. */
#ifndef AF_MP_TAYLOR_H
#define AF_MP_TAYLOR_H

#include <stddef.h>
#include <mpfr.h>
#include "attnflow.h"
#include "attnflow_mp.h"

typedef struct af_mp_taylor af_mp_taylor;

/* Series of order p for n tokens in d dimensions at precision prec,
 * computed by nthr threads (bit-identical for any count); NULL if out of
 * memory or a size is out of range. */
af_mp_taylor *af_mp_taylor_alloc(size_t n, size_t d, unsigned p,
                                 mpfr_prec_t prec, int nthr);
void af_mp_taylor_free(af_mp_taylor *tc);
unsigned af_mp_taylor_order(const af_mp_taylor *tc);

/* Order from the tolerance: ceil(1.15 D) + 2, D = -log10 tol, clamped to
 * [8, AF_MP_TAYLOR_MAX] (mp_taylor.c, header). */
unsigned af_mp_taylor_default_order(double tol);

/* One step from (t0, y0) on the piece [lo, hi] of the field: the Taylor
 * coefficients at t0, the step h (Jorba-Zou, at most rem; *last = 1 when
 * h = rem exactly), y1 = the polynomial at h (y1 must not alias y0) and
 * *err the step's error estimate (absolute, max norm).  tol_rate is the
 * error allowed per unit step (relative to max(1, |y0|)), noise the
 * rounding floor of a step (relative).  par: exact parameters or NULL. */
int af_mp_taylor_step(mpfr_t *y1, mpfr_ptr h, double *err, int *last,
                      mpfr_t *y0, mpfr_srcptr t0, mpfr_srcptr rem,
                      double tol_rate, double noise, double lo, double hi,
                      const af_model *m, const af_mp_params *par,
                      af_mp_taylor *tc);

#endif
