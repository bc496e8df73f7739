/* tradeoff.h -- the speed/diversity trade-off of the six schemes as a
 * Pareto front, from the scalar systems of T4.1 and the symmetric layer
 * maps of S7 (libaftheory).  Definitions: theorems.md, "The trade-off
 * over the parameters" (X.front, X.dominates).
 *
 * A grid point fixes (n, beta, r0, alpha, tau) and two depths L0 < L.
 * Every scheme gets an early metric (larger = faster mixing by depth L0)
 * and a late metric (larger = more diversity kept at depth L):
 *   early "gamma":  gamma(L0), the common cosine;
 *   early "angle":  the angle each token moved by L0, arccos <th_j(L0),
 *                   th_j(0)>; on the symmetric start
 *                   cos = (1 - 1/n) sqrt(1 - gamma) + sqrt(1 + (n-1) gamma)/n,
 *                   decreasing in gamma on [0, 1], so both early metrics
 *                   give the same front there;
 *   late  "gap":    1 - gamma(L) (1 - mean cosine).
 * Scheme a dominates b if it is at least as good in both metrics and
 * better in one, "at least as good" and "better" up to a relative tie
 * tolerance (two values within tie * max(|x|, |y|) are equal).  A scheme
 * is on the front if no scheme dominates it.
 *
 * Conventions as in attnflow.h: prefix af_tradeoff_, outputs first,
 * af_status codes, nothing prints. */
#ifndef AF_TRADEOFF_H
#define AF_TRADEOFF_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  AF_TRADEOFF_EARLY_GAMMA = 0, /* gamma(L0)                            */
  AF_TRADEOFF_EARLY_ANGLE,     /* mean angle moved by L0 (radians)     */
  AF_TRADEOFF_EARLY_COUNT
} af_tradeoff_early;

/* "gamma" / "angle"; AF_EINVAL for any other name. */
int af_tradeoff_early_lookup(af_tradeoff_early *m, const char *name);
const char *af_tradeoff_early_name(af_tradeoff_early m);

/* The source of the metrics on the symmetric start. */
typedef enum {
  AF_TRADEOFF_SCALAR = 0, /* the T4.1 scalar ODEs (af_t41_solve)      */
  AF_TRADEOFF_MAP,        /* the S7 layer maps, af_s7_sym_step, step h */
  AF_TRADEOFF_SOURCE_COUNT
} af_tradeoff_source;

/* One grid point. */
typedef struct {
  size_t n;           /* tokens, >= 2 (d = n on the symmetric start)  */
  double beta;        /* >= 0                                          */
  double r0;          /* > 0                                           */
  double alpha, tau;  /* nGPT's alpha (no decay), Mix-LN's switch      */
  double L0, L;       /* 0 < L0 < L: early and late depth               */
} af_tradeoff_point;

/* Validate a point: AF_EINVAL with a reason in *why (static text). */
int af_tradeoff_point_check(const af_tradeoff_point *pt, const char **why);

/* cos of the angle a token moved on the symmetric (orthonormal) start
 * when the common cosine is gamma in [0, 1]. */
double af_tradeoff_cos_moved(double gamma, size_t n);

/* Metrics of scheme s at point pt: *early (by metric m) and *late, from
 * source src (h: the map's step, ignored by SCALAR; L0 and L must be
 * multiples of h).  Errors of af_t41_solve / af_s7_sym_step. */
int af_tradeoff_metrics(double *early, double *late, af_scheme_id s,
                        const af_tradeoff_point *pt, af_tradeoff_early m,
                        af_tradeoff_source src, double h);

/* Front and dominance of k schemes (k <= AF_SCHEME_COUNT) from their
 * metrics: onfront[i] = 1 if no j dominates i, dom[i * k + j] = 1 if i
 * dominates j.  *nearties (may be NULL) counts the pairs of values whose
 * relative difference lies in [tie / 100, 100 tie] (a comparison a small
 * error could flip).  AF_EINVAL for a non-finite metric or tie < 0. */
int af_tradeoff_front(int *onfront, int *dom, size_t *nearties,
                      const double *early, const double *late, size_t k,
                      double tie);

/* The tie tolerance the claims and the figure use: 1e-9, far above the
 * 1e-9 relative accuracy of the n-particle runs they compare and far
 * below the smallest real difference of two schemes on the grids
 * (theorems.md, X.front). */
#define AF_TRADEOFF_TIE 1e-9

#ifdef __cplusplus
}
#endif
#endif /* AF_TRADEOFF_H */
