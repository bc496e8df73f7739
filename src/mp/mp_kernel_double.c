/* mp_kernel_double.c -- the kernel template mp_kernel_source.c compiled
 * for double (functions af_*_generic_d).  Its attention part is the
 * library's AF_KERNEL_DIRECT kernel (attention.c calls
 * af_work_direct_generic_d on the arrays of its af_work); af_rhs_generic_d
 * is bitwise equal to af_rhs with AF_KERNEL_DIRECT (tests/test_mp.c),
 * which checks the template's directions, rates and field against
 * attention.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "scheme_spec.h"
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
#define AF_LOCAL(name) double name
#define AF_VAL(name, x) const double name = (x)
/* attention.c's dot product (af_dot, inlined: the scores call it once per
 * pair) and its product Q^T K by dgemm (score_matrix), so that the
 * directions and norms of attention.c and the BLAS kernel's M agree with
 * this instance bit for bit. */
#define AF_DOT(r, x, y, d) ((r) = af_dot((x), (y), (d)))
#define AF_DOT_D(r, v, x, d) ((r) = af_dot((v), (x), (d)))
#define AF_DOT_FN static inline __attribute__((always_inline))
#define AF_GEMM_QK(M, Q, K, d)                                                 \
  af_blas()->dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int) (d),       \
                   (int) (d), (int) (d), 1.0, (Q), (int) (d), (K), (int) (d), \
                   0.0, (M), (int) (d))

#include "mp_kernel_source.c"

af_work_generic_d *af_work_bind_generic_d(af_work *aw)
{
  af_work_generic_d *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  w->n = aw->n;
  w->d = aw->d;
  w->prec = 53;
  w->borrowed = 1;
  /* aw's arrays of the same names, and its dtmp as M */
#define AF_BORROW(f) w->f = aw->f;
  AF_BORROW(th) AF_BORROW(T) AF_BORROW(G) AF_BORROW(S) AF_BORROW(A)
  AF_BORROW(P) AF_BORROW(c) AF_BORROW(a) AF_BORROW(Z) AF_BORROW(amag)
  AF_BORROW(gn)
#undef AF_BORROW
  w->M = aw->dtmp;
  /* s and rho stay NULL: only af_rhs_generic_d's rates use them. */
  return w;
}

int af_work_direct_generic_d(af_work_generic_d *w, const af_model *m,
                             const double *Q, const double *K,
                             const double *V)
{
  w->beta = m->beta;
  return af_attention_direct_generic_d(w, m, Q, K, V);
}
