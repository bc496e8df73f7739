/* mp_globerr.h -- the first-order global error estimate of an MPFR run,
 * transported in double (mp_globerr.c; theorems.md N3g).  Library-
 * internal. */
#ifndef AF_MP_GLOBERR_H
#define AF_MP_GLOBERR_H

#include <stddef.h>
#include "attnflow.h"

typedef struct af_mp_glob af_mp_glob;

/* NULL if out of memory.  The estimate starts at 0. */
af_mp_glob *af_mp_glob_alloc(const af_model *m);
void af_mp_glob_free(af_mp_glob *G);
/* The piece of a piecewise field (as af_mp_work_set_piece). */
void af_mp_glob_set_piece(af_mp_glob *G, int set, double lo, double hi);
void af_mp_glob_reset(af_mp_glob *G);
/* The estimate vector (N = af_state_size doubles) out and in. */
void af_mp_glob_get(double *g, const af_mp_glob *G);
void af_mp_glob_set(af_mp_glob *G, const double *g);
/* |g|_inf. */
double af_mp_glob_norm(const af_mp_glob *G);
/* One accepted step of length h from (t, y) (y the step's start rounded
 * to double): g = Phi(t + h, t) g + d.  An af_rhs status if the double
 * field fails. */
int af_mp_glob_step(af_mp_glob *G, double t, double h, const double *y,
                    const double *d, const af_model *m);

#endif
