/* merge.h -- merging time of two tokens (or two equal clusters) on the
 * circle under Post-LN, exactly by quadrature (theorems.md P5.tmerge;
 * libaftheory).
 *
 * Two tokens at angle phi (d >= 2, Q = K = V = I): each moves toward the
 * other at angular speed sin(phi) e^{beta cos phi} / (e^beta + e^{beta cos
 * phi}), so dphi/dt = -2 sin(phi) / (1 + e^{beta (1 - cos phi)}) and the
 * time from phi0 to phie < phi0 is
 *   t = int_{phie}^{phi0} (1 + e^{beta (1 - cos phi)}) / (2 sin phi) dphi.
 * Two clusters of m coincident tokens each have the same weights (m
 * cancels), hence the same time.  Nothing here calls src/.
 */
#ifndef AF_MERGE_H
#define AF_MERGE_H

#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *t = the time above (0 < phie <= phi0 < pi, beta >= 0); AF_EINVAL
 * otherwise, AF_EGSL if the quadrature misses its tolerance (1e-13
 * relative). */
int af_merge_time(double *t, double beta, double phi0, double phie);

/* The same merge under Pre-LN (both radii r0 = 1 and equal by symmetry,
 * so Pre-LN at t is Post-LN at u = int_0^t ds / r, theorems.md I2): in
 * Post-LN time u, d ln r/du = c(phi) = (1 + E cos phi)/(1 + E),
 * E = e^{-beta (1 - cos phi)}, and dt/du = r.  *t_pre and *t_post (may be
 * NULL) = the Pre-LN and Post-LN times from phi0 to phie, by rk8pd in phi
 * (rtol 1e-13).  On the plateau c ~ 1, so t_pre ~ e^{t_post}: a plateau
 * of Post-LN length T lasts about e^T under Pre-LN. */
int af_merge_time_preln(double *t_pre, double *t_post, double beta,
                        double phi0, double phie);

/* The same merge under each scheme of S1-S6 (theorems.md P5.scheme), radii
 * 1 at t = 0, alpha constant (nGPT), tau (Mix-LN): *t the scheme's time
 * and *t_post (may be NULL) the Post-LN time u from phi0 to phie.  Each
 * scheme is Post-LN at u = int_0^t ds/s (I2, both tokens alike):
 * Post-LN t = u; LN-Scaling t = u + u^2/4 (dt/du = sqrt(t + 1)); Pre-LN
 * dt/du = r, Peri-LN r |A|, nGPT |A|/alpha, with d ln r/du = c(phi) (Pre-,
 * Peri-LN; |A|^2 = (1 + E^2 + 2 E cos phi)/(1 + E)^2), by rk8pd in phi
 * (rtol 1e-13); Mix-LN t = u while u <= tau, else tau plus the Pre-LN time
 * from the angle at u = tau (bisection).  AF_EINVAL on bad arguments or
 * scheme, AF_EGSL if the quadrature or the ODE misses its tolerance. */
int af_merge_time_scheme(double *t, double *t_post, af_scheme_id scheme,
                         double beta, double alpha, double tau, double phi0,
                         double phie);

#ifdef __cplusplus
}
#endif
#endif
