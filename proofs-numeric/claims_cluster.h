/* claims_cluster.h -- the measurements behind the clustering claims of
 * claims_cluster.c (T3.1, T3.1r, T4.2, P2, P3, P6), exposed so that
 * tests/test_claims_cluster.c can show that each claim no injected fault
 * can break still fails on a wrong input (house style: a test that cannot
 * fail is a defect).  Every function runs src/ only; predictions stay in
 * theory/cluster.h.  Outputs first; af_status codes.
 */
#ifndef AF_CLAIMS_CLUSTER_H
#define AF_CLAIMS_CLUSTER_H

#include <stddef.h>
#include "attnflow.h"
#include "verify.h"

/* T3.1: from `seeds` starts of kind init ("uniform", "gaussian"; seeds
 * seed0, seed0 + 7, ...), integrate model m to T; *synced counts the runs
 * whose every pairwise 1 - cos is <= thr at T; *gap_worst is the largest
 * 1 - cos at T over all runs; *rho_min the smallest dr_j/dt at T among
 * unsynchronized runs (+inf if none); *stalled how many of those have
 * min_j dr_j/dt <= thr. */
int af_cc_sync(size_t *synced, size_t *stalled, double *gap_worst,
               double *rho_min, const af_model *m, const char *init,
               double T, size_t seeds, unsigned long seed0, double thr);

/* T3.1, d = 1 negative case (any d): over mixed-sign starts (by the sign
 * of coordinate 0; single-sign starts are skipped), the smallest number
 * of clusters (threshold 0.9999) at T and the largest change of
 * sign(coordinate 0) of any token; *runs counts the starts used. */
int af_cc_min_clusters(double *cmin, double *moved, size_t *runs,
                       const af_model *m, const char *init, double T,
                       size_t seeds, unsigned long seed0);

/* T3.1r: min over sampled configurations of min_j dr_j/dt (af_speeds):
 * `samples` random (uniform and caps), 201 "others coincident at cosine
 * x" for x on a grid of [-1, 1], n antipodal-cluster splits, and the
 * configuration "others at x = xstar", whose token-0 rate is *at_star. */
int af_cc_t31r_scan(double *rmin, double *at_star, const af_model *m,
                    size_t samples, double xstar);

/* T4.2 over a grid of (n, d) points, uniform starts, Q = K = V = I. */
typedef struct {
  double ratio_all;   /* max over grid of max_j |A_j(0)| / shape         */
  double ratio_hyp;   /* same over the points meeting T4.2's hypotheses   */
  double speed_ratio; /* max over grid of q_j / shape: q_j = angular speed
                         (slow schemes) or |P A_j| / angular speed (Peri-LN,
                         nGPT: 1/gain over Post-LN)                       */
  double sin_min, sin_mean; /* sin angle(theta_j, A_j)                   */
  size_t points, hyp_points;
} af_cc_t42;
int af_cc_t42_scan(af_cc_t42 *out, const af_vctx *c, af_scheme_id s,
                   double beta, const size_t *ns, const size_t *ds,
                   size_t pts);

/* P2: max_j |P A_j| at the configuration y (radii ignored) at t = 0. */
int af_cc_max_tangent(double *out, const double *y, const af_model *m);

/* P3: hemisphere starts ({x_1 > 0}, seeds seed0 + k), model m (n, d from
 * it) integrated to T with K output times: *drop = min over consecutive
 * outputs of the change of min_i <x_i, e_1> (>= 0 when non-decreasing),
 * *gap_worst = largest pairwise 1 - cos at T. */
int af_cc_hemisphere(double *drop, double *gap_worst, const af_model *m,
                     double T, size_t K, size_t seeds, unsigned long seed0);

/* P3 (Wendel): frequency *f of N uniform starts (af_init_state, seeds
 * seed0 + s) of n points in d = 2 or 3 dims lying in an open hemisphere,
 * and *z = (f - p) / sqrt(p (1-p) / N) against the given p. */
int af_cc_wendel(double *z, double *f, size_t n, size_t d, size_t N,
                 unsigned long seed0, double p);

/* P6: uniform starts (seeds seed0 + k) under model m (causal for P6)
 * integrated to T: *gap = max_k 1 - <x_k(T), x_1(0)>, *moved = largest
 * coordinate change of token 1's direction. */
int af_cc_causal(double *gap, double *moved, const af_model *m, double T,
                 size_t seeds, unsigned long seed0);

/* T4.3b and T4.3c along one run of model m (any Q, K; n, d from it) from
 * y (overwritten), to the scheme's horizon (quick or full), the runs
 * stopping where Var falls below floor: the range [qmin, qmax] of
 * q = -dVar/dt scale(t)/Var over nq output times t >= T0 (1; 2 tau for
 * Mix-LN), and rdev = max |R - 1| over the nr times with Var in
 * [var_lo, var_hi] (definitions in claims_cluster.c, T4.3b/c). */
typedef struct {
  double qmin, qmax, rdev;
  size_t nq, nr;
} af_cc_t43bc_res;
int af_cc_t43bc(af_cc_t43bc_res *out, const af_model *m, double *y,
                int quick, double floor, double var_lo, double var_hi);

/* A point of a claim drawn from the statement's range instead of a
 * hand-picked one (the rows that were at beta = 1): lo + (hi - lo) u, or
 * lo (hi/lo)^u when log_scale, u the first uniform of mt19937 seeded with
 * seed (deterministic: the level stays reproducible; the draw is in the
 * claim's note); NAN when no generator can be allocated. */
double af_cc_draw(double lo, double hi, int log_scale, unsigned long seed);

#endif
