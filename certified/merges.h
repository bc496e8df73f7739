/* merges.h -- enclosures of the merge times of the n-particle flow's
 * staircase (merges.c; theory/theorems.md C-merge), used by af_certify
 * with merge_cos > 0.  Internal to libafcert. */
#ifndef AF_MERGES_H
#define AF_MERGES_H

#include "flow.h"

#ifdef AF_HAVE_ARB

typedef struct {
  size_t n, d, npairs;
  arb_t eta;     /* 1 - merge_cos, exact                                   */
  double *lo;    /* pair: 1 - cos > eta proven over [0, lo]                */
  double *hi;    /* pair: first step end with 1 - cos < eta proven (INF)   */
  int *lofix;    /* pair: lo frozen (a step failed to prove > eta)         */
  int *stays;    /* pair: < eta proven on every enclosure since hi         */
} af_merge_track;

/* AF_OK, AF_EINVAL (merge_cos not in (0, 1)), AF_ENOMEM. */
int af_merge_track_init(af_merge_track *m, size_t n, size_t d,
                        double merge_cos);
void af_merge_track_clear(af_merge_track *m);
/* The start (balls theta at t = 0). */
void af_merge_track_start(af_merge_track *m, arb_srcptr theta, long prec);
/* One accepted step ending at the exact time t1 (t1_down <= t1 <=
 * t1_up, doubles): A its a-priori enclosure, Y the state at t1
 * (directions first). */
void af_merge_track_step(af_merge_track *m, arb_srcptr A, arb_srcptr Y,
                         double t1_down, double t1_up, long prec);
/* 1 when the last merge (into one cluster) is enclosed. */
int af_merge_track_done(const af_merge_track *m);
/* The events from the pair bounds (Kruskal on lo and on hi): lo[k],
 * hi[k] for k = 0 .. n-2 (arrays of n - 1). */
void af_merge_events(double *lo, double *hi, const af_merge_track *m);

#endif /* AF_HAVE_ARB */
#endif /* AF_MERGES_H */
