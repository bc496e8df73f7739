/* cluster.h -- what the paper predicts about clustering and collapse, as
 * code (part of libaftheory).
 *
 * Spec theorems.md T3.1r (radial lower bound of Pre-LN and Peri-LN, and
 * the exact infimum it bounds, derived), T4.2 (shape of the bound on
 * max_j |A_j(0)| from a random start), T4.3 (the cap condition, the radial
 * bounds T4.3a, the scale(t) and formal constants of T4.3b, the speed
 * factors of T4.3c), P1 (the USA equiangular ODE), P2 (radius of an
 * antipodal pair), P3 (Wendel's probability).
 *
 * Independence: like t41.c, nothing here calls af_scheme_get()->rates;
 * speed factors and radial rates are written out again from the
 * table S1-S6 of theorems.md, so a wrong row in src/model/scheme.c disagrees with these
 * predictions.  Nothing here integrates the n-particle system.
 *
 * Conventions as in attnflow.h: prefix af_cl_, outputs first, af_status
 * codes; plain scalar functions return NaN for invalid arguments.
 */
#ifndef AF_CLUSTER_H
#define AF_CLUSTER_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- T3.1r -------------------------------------------------------- */

/* (e^b - n + 1) / (n e^b): the paper's lower bound on dr_j/dt for
 * Pre-LN and Peri-LN (Q = K = V = I), valid when n <= e^b, b > 0.
 * NaN if n < 1 or beta not finite and >= 0. */
double af_cl_t31r_bound(size_t n, double beta);
/* 1 if the hypotheses of T3.1r hold: beta > 0 and n <= e^beta. */
int af_cl_t31r_applies(size_t n, double beta);
/* <theta_j, A_j> (Pre-LN dr_j/dt) when the n-1 other tokens all sit at
 * cosine x from theta_j: (e^b + (n-1) x e^{bx}) / (e^b + (n-1) e^{bx}). */
double af_cl_t31r_rate_at(double x, size_t n, double beta);
/* (derived) inf over all configurations (d >= 2) of the Pre-LN radial
 * rate <theta_j, A_j> = sum_k w_jk <theta_j, theta_k>: *cmin, attained
 * when every other token sits at cosine *xmin from theta_j (see
 * cluster.c for the derivation).  Valid for every n >= 2, beta >= 0;
 * AF_EINVAL otherwise. */
int af_cl_t31r_inf(double *cmin, double *xmin, size_t n, double beta);

/* ---- T4.2 ---------------------------------------------------------- */

/* sqrt(log n / n) + log n / d: the shape of the bound on max_j |A_j(0)|
 * (NaN for n < 2 or d < 1). */
double af_cl_t42_shape(size_t n, size_t d);
/* 1 if e^{sqrt d} >= n log n >= d (the hypotheses of T4.2). */
int af_cl_t42_applies(size_t n, size_t d);

/* ---- T4.3 ---------------------------------------------------------- */

/* The cap condition on delta: min(1/(100 n^2 beta^2), 1/(100 n^2)) with
 * the condition the paper omits (theorems.md T4.3); *_printed: the paper's
 * 1/(100 n^2 beta^2) alone (infinite at beta = 0). */
double af_cl_t43_delta_max(size_t n, double beta);
double af_cl_t43_delta_max_printed(size_t n, double beta);
/* T4.3a: lo = r0 + (1 - 4 delta) t, hi = r0 + t. */
void af_cl_t43a_bounds(double *lo, double *hi, double r0, double delta,
                       double t);
/* T4.3b: scale(t) of the scheme: 1 (Post-LN), t (Pre-, Mix-, Peri-LN),
 * sqrt(t) (LN-Scaling), 1/alpha (nGPT, alpha = alpha(t)).  NaN for an
 * unknown scheme. */
double af_cl_t43b_scale(af_scheme_id scheme, double t, double alpha);
/* T4.3b formal constants: -4 Var/scale <= dVar/dt <= -Var/(9 scale). */
#define AF_CL_T43B_LOWER (1.0 / 9.0)
#define AF_CL_T43B_UPPER 4.0

/* Speed factor s_j of the theorems.md S1-S6 for a token of radius r with
 * |A_j| = a, at time t (alpha = alpha(t) of nGPT, tau = Mix-LN switch:
 * Post-LN for t <= tau).  Returns NaN for an unknown scheme. */
double af_cl_speed(af_scheme_id scheme, double t, double r, double a,
                   double alpha, double tau);

/* ---- P1: USA equiangular ODE ---------------------------------------- */

/* dgamma/dt = (2/n) e^{b gamma} (1 - gamma)(1 + (n-1) gamma). */
double af_cl_usa_F(double gamma, size_t n, double beta);
/* Integrate the USA ODE from gamma(0) = 0 (in u = log(1 - gamma), see
 * cluster.c) and report gamma[k], gap[k] = 1 - gamma[k] at times[k]
 * (finite, >= 0, non-decreasing); either output may be NULL.  GSL rk8pd,
 * |err| <= atol + rtol |u| per step (rtol, atol <= 0: 1e-14, 1e-16).
 * Errors: AF_EINVAL, AF_EOVERFLOW (beta >= log DBL_MAX), AF_EMAXSTEPS,
 * AF_EGSL. */
int af_cl_usa_solve(double *gamma, double *gap, const double *times,
                    size_t ntimes, size_t n, double beta, double rtol,
                    double atol);

/* ---- P2: antipodal pair ---------------------------------------------- */

/* Radius at time t of each token of an antipodal pair (n = 2,
 * Q = K = V = I, r(0) = r0): its directions are stationary, so
 * dr/dt is constant: tanh(beta) for Pre-LN (Mix-LN after tau), 1 for
 * Peri-LN, 0 for the others.  AF_EINVAL for Peri-LN at beta = 0
 * (A_j = 0: singular) or invalid arguments. */
int af_cl_antipodal_radius(double *r, af_scheme_id scheme, double r0,
                           double beta, double t, double tau);

/* ---- P3: Wendel ------------------------------------------------------ */

/* Probability that n i.i.d. uniform points on S^{d-1} lie in an open
 * hemisphere: 2^{-(n-1)} sum_{k<d} C(n-1, k) (1 if d >= n). */
double af_cl_wendel(size_t n, size_t d);

#ifdef __cplusplus
}
#endif
#endif /* AF_CLUSTER_H */
