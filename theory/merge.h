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

#ifdef __cplusplus
}
#endif
#endif
