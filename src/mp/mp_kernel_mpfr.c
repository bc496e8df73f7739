/* mp_kernel_mpfr.c -- the kernel template mp_kernel_source.c compiled for
 * MPFR (functions af_mp_*): every operation correctly rounded to nearest
 * at the precision of the work (af_mp_work_alloc), so results are
 * bit-identical across runs and machines.  The double inputs of the model
 * (beta, alpha, tau, Q, K, V) are exact MPFR numbers; with exact
 * parameters (af_mp_work_set_params) beta, alpha, alpha_decay, tau and a
 * weights file's Q, K, V are the numbers as typed. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scheme_spec.h"
#include "attnflow_mp.h"
#include "mp_kernel.h"

#define AF_RND MPFR_RNDN
#define AF_T mpfr_t
#define AF_SRC mpfr_srcptr
#define AF_CONST
#define AF_PREC_T mpfr_prec_t
#define AF_FN(name) af_mp_##name
/* Hostile arguments: a precision outside attnflow_limits.h, a NULL time. */
#define AF_PREC_OK(p) ((p) >= AF_PREC_MIN && (p) <= AF_PREC_MAX)
#define AF_SRC_BAD(t) ((t) == NULL)
#define AF_WORK af_mp_work
#define AF_INIT(x, p) mpfr_init2((x), (p))
#define AF_CLEAR(x) mpfr_clear(x)
#define AF_SET(r, a) mpfr_set((r), (a), AF_RND)
#define AF_SET_D(r, d) mpfr_set_d((r), (d), AF_RND)
#define AF_SET_UI(r, u) mpfr_set_ui((r), (u), AF_RND)
#define AF_GET_D(a) mpfr_get_d((a), AF_RND)
#define AF_ADD(r, a, b) mpfr_add((r), (a), (b), AF_RND)
#define AF_SUB(r, a, b) mpfr_sub((r), (a), (b), AF_RND)
#define AF_MUL(r, a, b) mpfr_mul((r), (a), (b), AF_RND)
#define AF_DIV(r, a, b) mpfr_div((r), (a), (b), AF_RND)
#define AF_ADD_D(r, a, d) mpfr_add_d((r), (a), (d), AF_RND)
#define AF_SUB_D(r, a, d) mpfr_sub_d((r), (a), (d), AF_RND)
#define AF_D_SUB(r, d, a) mpfr_d_sub((r), (d), (a), AF_RND)
#define AF_D_ADD(r, d, a) mpfr_add_d((r), (a), (d), AF_RND)
#define AF_MUL_D(r, a, d) mpfr_mul_d((r), (a), (d), AF_RND)
#define AF_MUL_UI(r, a, u) mpfr_mul_ui((r), (a), (u), AF_RND)
#define AF_UI_DIV(r, u, a) mpfr_ui_div((r), (u), (a), AF_RND)
#define AF_NEG(r, a) mpfr_neg((r), (a), AF_RND)
/* Exact rational factor num/den: two roundings at working precision. */
#define AF_MULQ(r, a, num, den, dval)                                          \
  (mpfr_mul_ui((r), (a), (num), AF_RND), mpfr_div_ui((r), (r), (den), AF_RND))
#define AF_SQRT(r, a) mpfr_sqrt((r), (a), AF_RND)
#define AF_EXP(r, a) af_mp_exp((r), (a))
#define AF_POW_D(r, a, d) af_mp_pow_d((r), (a), (d))
#define AF_CMP(a, b) mpfr_cmp((a), (b))
#define AF_CMP_D(a, d) mpfr_cmp_d((a), (d))
#define AF_SGN(a) mpfr_sgn(a)
#define AF_ISFINITE(a) mpfr_number_p(a)
#define AF_ISZERO(a) mpfr_zero_p(a)
/* Unit roundoff of precision p is 2^-p; the double path's DBL_EPSILON =
 * 2^(1-53) is twice that, so the MPFR cut-off n 2^(1-p) is its analogue. */
#define AF_EPS_N(r, n, prec)                                                   \
  (mpfr_set_ui((r), (n), AF_RND), mpfr_mul_2si((r), (r), 1 - (long) (prec), AF_RND))

/* r = a^x for an exact double x (the exponent needs 53 bits). */
static void af_mp_pow_d(mpfr_ptr r, mpfr_srcptr a, double x)
{
  mpfr_t e;
  mpfr_init2(e, 53);
  mpfr_set_d(e, x, AF_RND);
  mpfr_pow(r, a, e, AF_RND);
  mpfr_clear(e);
}
/* Exact parameters (attnflow_mp.h): beta, alpha, alpha_decay, tau. */
#define AF_PARAMS af_mp_params
/* A weight set read exactly (af_mp_weights_read) replaces the model's. */
#define AF_EXACT_WEIGHTS(w) ((w)->par != NULL && (w)->par->wq != NULL)
#define AF_POW(r, a, b) mpfr_pow((r), (a), (b), AF_RND)
#define AF_ABS(r, a) mpfr_abs((r), (a), AF_RND)
#define AF_ISNAN(a) mpfr_nan_p(a)
/* MPFR's exponent range makes the plain sum of squares safe. */
#define AF_NORM2_UNSAFE(s) 0
/* One pass over unordered pairs for identity weights (attention_pairs). */
#define AF_PAIR_SYMMETRIC 1
#define AF_MUL_2SI(r, a, e) mpfr_mul_2si((r), (a), (e), AF_RND)
#define AF_LOCAL(name) mpfr_ptr name = w->name
#define AF_VAL(name, x) mpfr_srcptr name = (x)

/* A spec'd scheme's rates at the working precision. */
#define AF_SPEC_MP 1

#include "mp_kernel_source.c"
