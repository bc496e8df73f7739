/* mp_kernel.h -- instances of the kernel template mp_kernel_source.c
 * (library-internal; the MPFR instance's public part is attnflow_mp.h). */
#ifndef AF_MP_KERNEL_H
#define AF_MP_KERNEL_H

#include <stddef.h>
#include "attnflow.h"

/* ---- double instance (mp_kernel_double.c) ---- */
typedef struct af_work_generic_d af_work_generic_d;
af_work_generic_d *af_work_alloc_generic_d(size_t n, size_t d, long prec);
void af_work_free_generic_d(af_work_generic_d *w);
unsigned long af_work_nevals_generic_d(const af_work_generic_d *w);
void af_work_set_piece_generic_d(af_work_generic_d *w, int set, double lo,
                                 double hi);
/* Same contract as af_rhs with AF_KERNEL_DIRECT, bitwise equal to it. */
int af_rhs_generic_d(double *dy, double t, const double *y, const af_model *m,
                     af_work_generic_d *w);
int af_attention_generic_d(double *A, double *pt, double *c, double *a,
                           double t, const double *y, const af_model *m,
                           af_work_generic_d *w);

#endif
