/* mp_kernel.h -- instances of the kernel template mp_kernel_source.c
 * (library-internal; the MPFR instance's public part is attnflow_mp.h). */
#ifndef AF_MP_KERNEL_H
#define AF_MP_KERNEL_H

#include <stddef.h>
#include <mpfr.h>
#include "attnflow.h"

/* ---- double instance (mp_kernel_double.c) ---- */
typedef struct af_work_generic_d af_work_generic_d;
af_work_generic_d *af_work_alloc_generic_d(size_t n, size_t d, long prec);
void af_work_free_generic_d(af_work_generic_d *w);
unsigned long af_work_nevals_generic_d(const af_work_generic_d *w);
void af_work_add_nevals_generic_d(af_work_generic_d *w, unsigned long k);
void af_work_set_piece_generic_d(af_work_generic_d *w, int set, double lo,
                                 double hi);
/* Same contract as af_rhs with AF_KERNEL_DIRECT, bitwise equal to it. */
int af_rhs_generic_d(double *dy, double t, const double *y, const af_model *m,
                     af_work_generic_d *w);
int af_attention_generic_d(double *A, double *pt, double *c, double *a,
                           double t, const double *y, const af_model *m,
                           af_work_generic_d *w);

/* AF_KERNEL_DIRECT of af_work (attention.c): a double work over the arrays
 * of aw (th, T, G, S, A, P, c, a, Z, amag, gn, dtmp), which stay aw's;
 * only the work itself is allocated.  Free it (before aw) with
 * af_work_free_generic_d.  Only af_work_direct_generic_d may be called on
 * it. */
af_work_generic_d *af_work_bind_generic_d(af_work *aw);
/* The attention of the unit directions in aw->th (filled by
 * af_work_directions) with beta = m->beta (any fault already applied by
 * the caller) and the weight set Q, K, V (NULL = identity): the weights in
 * S and Z, and A, P, c, a, amag.  AF_OK, AF_ENONFINITE (non-finite score
 * maximum) or AF_EOVERFLOW (USA normalizer); the caller checks a and c. */
int af_work_direct_generic_d(af_work_generic_d *w, const af_model *m,
                             const double *Q, const double *K,
                             const double *V);

/* AF_OK, or the error of a non-finite a_j or c_j just computed from
 * finite directions: AF_EOVERFLOW under USA's weights, else
 * AF_ENONFINITE (mp_kernel_source.c). */
int af_attention_status_generic_d(const af_work_generic_d *w,
                                  const af_model *m);

/* ---- MPFR instance (mp_kernel_mpfr.c; the rest in attnflow_mp.h) ---- */
struct af_mp_work;
int af_mp_attention_status(const struct af_mp_work *w, const af_model *m);
/* Add k to the evaluation count of w (evaluations made on other works
 * on its behalf, e.g. by the threads of a GBS step). */
void af_mp_work_add_nevals(struct af_mp_work *w, unsigned long k);

/* exp(x) correctly rounded to nearest at r's precision: the same bits
 * as mpfr_exp(r, x, MPFR_RNDN), faster for -1024 < x < 0 at up to 1024
 * bits (mp_exp.c). */
void af_mp_exp(mpfr_ptr r, mpfr_srcptr x);
/* Its approximation before rounding (for the tests): exp(x) into b
 * (precision >= 1088 bits; exact) and the return value err > 0 with
 * |b - exp(x)| < 2^(EXP(b) - err); 0 (b untouched) where af_mp_exp calls
 * mpfr_exp directly (x or p outside its range). */
int af_mp_exp_approx(mpfr_ptr b, mpfr_srcptr x, mpfr_prec_t p);

#endif
