/* lohner.h -- wrapping control for set-valued starts (lohner.c): Lohner's
 * QR method in the doubleton form X = c + A R0 + B S, fed by the steps of
 * the validated integrator (vode_impl.h).  Internal to libafcert.
 */
#ifndef AF_LOHNER_H
#define AF_LOHNER_H

#include "vode_impl.h"

#ifdef AF_HAVE_ARB

typedef struct af_lohner af_lohner;

/* NULL if out of memory or dim < 1. */
af_lohner *af_lohner_alloc(int dim, long prec);
void af_lohner_free(af_lohner *L); /* NULL: no-op */
/* The set of starts: the balls Y (c = mid Y, R0 = Y - c, A = B = I, S = 0). */
void af_lohner_init(af_lohner *L, arb_srcptr Y);
/* After one accepted step from Y_k (an enclosure of the set) whose
 * midpoint was mid, whose point image (with remainder) is phim and whose
 * Jacobian enclosure over Y_k is J (dim x dim, row-major; af_vode_last):
 * carry the set one step and intersect the step's new state Y with its
 * box.  AF_OK, or AF_EINVAL for an empty intersection (a soundness bug,
 * never a result). */
int af_lohner_update(af_lohner *L, arb_ptr Y, arb_srcptr mid,
                     arb_srcptr phim, arb_srcptr J);

#endif /* AF_HAVE_ARB */
#endif /* AF_LOHNER_H */
