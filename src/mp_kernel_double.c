/* mp_kernel_double.c -- the kernel template mp_kernel_source.c compiled
 * for double (functions af_*_generic_d).  Bitwise equal to af_rhs with
 * AF_KERNEL_DIRECT (tests/test_mp.c), which checks the template's
 * arithmetic against the double kernel. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "mp_kernel.h"

#define AF_T double
#define AF_SRC double
#define AF_CONST const
#define AF_PREC_T long
#define AF_FN(name) af_##name##_generic_d
#define AF_WORK af_work_generic_d
#define AF_INIT(x, p) ((x) = 0.0)
#define AF_CLEAR(x) ((void) 0)
#define AF_SET(r, a) ((r) = (a))
#define AF_SET_D(r, d) ((r) = (d))
#define AF_SET_UI(r, u) ((r) = (double) (u))
#define AF_GET_D(a) (a)
#define AF_ADD(r, a, b) ((r) = (a) + (b))
#define AF_SUB(r, a, b) ((r) = (a) - (b))
#define AF_MUL(r, a, b) ((r) = (a) * (b))
#define AF_DIV(r, a, b) ((r) = (a) / (b))
#define AF_ADD_D(r, a, d) ((r) = (a) + (d))
#define AF_SUB_D(r, a, d) ((r) = (a) - (d))
#define AF_D_SUB(r, d, a) ((r) = (d) - (a))
#define AF_D_ADD(r, d, a) ((r) = (d) + (a))
#define AF_MUL_D(r, a, d) ((r) = (a) * (d))
#define AF_MUL_UI(r, a, u) ((r) = (double) (u) * (a))
#define AF_UI_DIV(r, u, a) ((r) = (double) (u) / (a))
#define AF_NEG(r, a) ((r) = -(a))
#define AF_MULQ(r, a, num, den, dval) ((r) = (a) * (dval))
#define AF_SQRT(r, a) ((r) = sqrt(a))
#define AF_EXP(r, a) ((r) = exp(a))
#define AF_POW_D(r, a, d) ((r) = pow((a), (d)))
#define AF_CMP(a, b) (((a) > (b)) - ((a) < (b)))
#define AF_CMP_D(a, d) (((a) > (d)) - ((a) < (d)))
#define AF_SGN(a) (((a) > 0) - ((a) < 0))
#define AF_ISFINITE(a) isfinite(a)
#define AF_ISZERO(a) ((a) == 0.0)
#define AF_EPS_N(r, n, prec) ((r) = (double) (n) * DBL_EPSILON)
#define AF_ABS(r, a) ((r) = fabs(a))
#define AF_ISNAN(a) isnan(a)
#define AF_NORM2_UNSAFE(s) (!(isfinite(s) && (s) >= DBL_MIN / DBL_EPSILON))

#include "mp_kernel_source.c"
