/* t31r.h -- the infimum of the Peri-LN radial rate over configurations
 * (part of libaftheory; spec theorems.md T3.1r, derived).
 *
 * Independence as in cluster.h: the Peri-LN radial rate
 * <theta_j, A_j> / |A_j| is written out again from the table S4 of theorems.md,
 * nothing here calls src/.  Conventions: prefix af_t31r_, outputs first,
 * af_status codes; scalar functions return NaN for invalid arguments.
 */
#ifndef AF_T31R_H
#define AF_T31R_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Peri-LN dr_j/dt = <theta_j, A_j> / |A_j| when the n-1 other tokens all
 * sit at one point at cosine x from theta_j (Q = K = V = I):
 * P / sqrt(P^2 + S^2), P = e^b + (n-1) x e^{bx},
 * S = (n-1) e^{bx} sqrt(1 - x^2).  NaN for x outside [-1, 1], n < 2 or
 * beta not finite and >= 0. */
double af_t31r_peri_rate_at(double x, size_t n, double beta);

/* (derived) inf over all configurations (d >= 2) of the Peri-LN radial
 * rate: *cmin, attained when every other token sits at one point at
 * cosine *xmin from theta_j (t31r.c for the derivation).  Needs P > 0
 * on [-1, 1] (true when n <= e^b: the hypothesis of T3.1r): AF_EINVAL
 * otherwise, or when the rate is not unimodal on the search grid. */
int af_t31r_peri_inf(double *cmin, double *xmin, size_t n, double beta);

#ifdef __cplusplus
}
#endif

#endif
