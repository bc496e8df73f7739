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

#ifdef __cplusplus
}
#endif
#endif
