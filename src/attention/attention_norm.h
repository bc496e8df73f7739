/* attention_norm.h -- the kernel of attention changed by normalization
 * (attention_norm.c, theorems.md U3).  Library-internal. */
#ifndef AF_ATTENTION_NORM_H
#define AF_ATTENTION_NORM_H

#include "attnflow.h"

/* Fill w->A, w->P, w->c, w->a, w->amag, w->Z for the directions in w->th
 * and the radii r[0..n) under the spec's scores and gain at time t (Q, K,
 * V NULL = identity).  AF_ENONFINITE for a non-finite gain or score,
 * AF_EZERONORM for a query or key of norm zero under qknorm. */
int af_attention_norm_fill(af_work *w, const af_model *m,
                           const af_scheme_spec *sp, const double *Q,
                           const double *K, const double *V, double t,
                           const double *r);

#endif /* AF_ATTENTION_NORM_H */
