/* ident.h -- the identities I1, I3 and the exact geodesic form of the
 * Post-LN layer map (theorems.md S7, I1-I3), as code (libaftheory).
 *
 * Independence: these functions are written from the formulas of theorems.md
 * (M2 attention, the energy of I1, the three forms of the variance of I3,
 * the geodesic angle of S7); they share only the state layout with src/
 * and never integrate the n-particle system.
 *
 * Conventions as in attnflow.h: prefix af_id_, outputs first, af_status
 * codes, nothing prints.  Directions are passed as n x d row-major arrays
 * of unit vectors (callers normalize).
 */
#ifndef AF_IDENT_H
#define AF_IDENT_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* M2 attention outputs A (n x d) of unit directions th with scores
 * beta <th_j, M th_k> (M = Q^T K, NULL = identity) and values V th_k
 * (V NULL = identity); softmax with the row maximum subtracted. */
int af_id_attention(double *A, const double *th, size_t n, size_t d,
                    double beta, const double *M, const double *V);

/* I1: log E with E = sum_{j,k} exp(beta <th_j, M th_k>) (M NULL =
 * identity), computed as m + log sum exp(beta s_jk - m), m the largest
 * exponent, so it never overflows. */
int af_id_log_energy(double *logE, const double *th, size_t n, size_t d,
                     double beta, const double *M);

/* Bound of the relative rounding error of the E computed by
 * af_id_log_energy (see ident.c): (n^2 + beta |M| (3d + 6) + 2) eps, with
 * |M| an upper bound of |<x, M y>| over unit x, y (1 for the identity). */
double af_id_energy_rounding(size_t n, size_t d, double beta, double mnorm);

/* I3: the three forms of the variance of unit directions th:
 *   forms[0] = (1/n) sum_k |th_k - mean|^2,
 *   forms[1] = 1 - |mean|^2,
 *   forms[2] = (n-1)(1 - gbar)/n, gbar the mean over pairs i < j of
 *              <th_i, th_j> (n >= 2; for n = 1 forms[2] = 0). */
int af_id_var_forms(double forms[3], const double *th, size_t n, size_t d);

/* I3 with gbar given: (n-1)(1 - gbar)/n. */
double af_id_var_from_cos(size_t n, double gbar);

/* Bound of the absolute rounding error of any one of the forms above, and
 * of a mean pair cosine or centred variance computed from pair gaps or
 * components by recursive summation of unit vectors (see ident.c):
 * (n^2 + 4 d + 16) eps. */
double af_id_var_rounding(size_t n, size_t d);

/* S7: angle of the Post-LN layer step theta+ = N(theta + h v) along the
 * great circle from theta: atan2(h |w|, 1 + h <theta, v>), w = P_theta v
 * (the flow moves by h |w|).  theta is a unit vector. */
double af_id_postln_step_angle(const double *theta, const double *v, size_t d,
                               double h);

#ifdef __cplusplus
}
#endif
#endif /* AF_IDENT_H */
