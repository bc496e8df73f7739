/* certify.h -- af_certify: a computer-assisted proof that one start of the
 * n-particle flow converges to one cluster under one scheme
 * ('attnflow certify', theorems.md C-flow and C-close).
 *
 * Method: the validated Taylor integrator of vode.c (a-priori Picard
 * enclosure, Lagrange remainder, forward-mode tangents, mean-value form)
 * on the tape of the n-particle field (flow_tape.c) carries balls around
 * the exact start until a closing lemma's hypotheses are proven in the
 * balls (closing.c): the hemisphere lemma P3h (Post-LN, LN-Scaling, nGPT
 * with Q^T K = I) or the cap of Theorem 4.3 with delta < 1/(100 n^2
 * max(1, beta^2)) (every scheme; Pre-, Mix-, Peri-LN, and any scheme with
 * Q^T K != I).  The statement certified is: the exact solution from the
 * given start (each direction row / |row|, radii as given; with
 * init_radius every start on the sphere within the boxes) converges to
 * one point of the sphere.
 *
 * The interface has no Arb types: it is declared with and without Arb;
 * without Arb af_certify returns AF_EINVAL with a reason saying so.
 */
#ifndef AF_CERTIFY_H
#define AF_CERTIFY_H

#include <stddef.h>

#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  AF_CERTIFY_CERTIFIED = 0, /* hypotheses of a closing lemma proven at T* */
  AF_CERTIFY_NOCERT,        /* could-not-certify: reason says why         */
  AF_CERTIFY_REFUTED        /* a stated property proven false             */
} af_certify_status;

typedef enum {
  AF_CLOSE_NONE = 0,
  AF_CLOSE_HEMISPHERE, /* P3h: every <theta_i, w> > 0                     */
  AF_CLOSE_CAP,        /* T4.3 with the corrected delta                   */
  AF_CLOSE_SPEED,      /* U-close: a spec'd scheme whose speed is a
                          function G of <theta, A>, |A| and alpha, proven
                          positive and bounded on the hemisphere's box,
                          times or divided by a factor of t whose growth
                          is at most linear (theorems.md U-close)       */
  AF_CLOSE_CAP_ENTERED /* a spec'd scheme under property_cap: the cap is
                          entered (the property C-refute, proven); no
                          lemma on a spec turns it into convergence     */
} af_close_lemma;

/* "certified", "could-not-certify", "refuted". */
const char *af_certify_status_name(af_certify_status s);
/* "P3h-hemisphere", "T4.3-cap", "U-close", "cap-entered", "none". */
const char *af_close_lemma_name(af_close_lemma l);

/* Largest state dimension n d (+ n with radii) a build accepts: the work
 * grows like dim^2 x tape length x order, the time like dim^3. */
#define AF_CERTIFY_DIM_MAX 160
/* Largest horizon: steps grow at most like t (Pre-LN, Peri-LN), so a
 * horizon beyond this cannot be reached in a bounded number of steps. */
#define AF_CERTIFY_TMAX_MAX 1e7
/* Largest Taylor order: the stored coefficients grow like order x tape
 * length, the step's cost like order^2; the default at the largest
 * precision (4096 bits) is 1420. */
#define AF_CERTIFY_ORDER_MAX 2048
/* Most output times: each records dim balls (midpoints, radii and their
 * exact text), so 10^6 of them at the largest dim take gigabytes. */
#define AF_CERTIFY_TIMES_MAX 1000000

typedef struct {
  af_scheme_id scheme;
  size_t n, d;         /* n >= 2, d >= 2                                */
  double beta;         /* >= 0                                          */
  double alpha;        /* nGPT alpha > 0 (default 1)                    */
  double alpha_decay;  /* nGPT decay in [0, 1] (the lemma needs
                          int alpha = infinity)                          */
  double tau;          /* Mix-LN switch time >= 0, a dyadic (default 1)  */
  const double *q, *k; /* d x d row-major Q and K (NULL = identity; V = I);
                          Q^T K is formed exactly in balls             */
  double t_max;        /* horizon > 0 (default 64)                       */
  long prec;           /* bits in [32, 4096] (default 64)                */
  unsigned order;      /* Taylor order <= AF_CERTIFY_ORDER_MAX,
                          0 = ceil(prec ln2 / 2)                         */
  unsigned long max_steps; /* 0 = 200000                                 */
  double init_radius;  /* >= 0: certify the set of starts within this of
                          each coordinate (on the sphere)                */
  double max_rad;      /* stop (could-not-certify, width) once a radius
                          exceeds this; finite, >= 0; 0 = 1e-3 (0.1 for a
                          set carried by Lohner's doubleton)             */
  const double *times; /* output times (balls recorded), ascending, <= t_max */
  size_t ntimes;       /* <= AF_CERTIFY_TIMES_MAX                        */
  int drop_remainder;  /* TEST ONLY: an unsound integrator              */
  double h_fixed;      /* TEST ONLY: > 0 every step min(h_fixed, rest)  */
  int no_wrap;         /* init_radius > 0: carry the set as boxes (mean-
                          value form only) instead of Lohner's QR
                          doubleton (lohner.c); for comparisons         */
  int property_cap;    /* state the refutable property C-refute "the flow
                          enters the cap of T4.3 (every 1 - cos <
                          delta_max) at some t <= t_max": certified when
                          the cap test holds at a step end <= t_max (the
                          cap lemma then closes, every scheme), refuted
                          when max 1 - cos > delta_max is proven on the
                          a-priori enclosure of every step of [0, t_max] */
  double merge_cos;    /* in (0, 1): also enclose the merge times of the
                          staircase (theorems.md C-merge): a pair is merged
                          once 1 - <theta_i, theta_j> < eta = 1 - merge_cos;
                          the run does not stop at T* but goes on until
                          every merge is enclosed (or t_max); 0 = off     */
  double h_max;        /* > 0: no step longer than this (narrower merge
                          intervals); 0 = no limit                        */
  const af_scheme *user; /* a spec'd scheme (the row of af_scheme_spec_row;
                          scheme is then ignored), NULL = scheme.  Its
                          speed and radial rate are taped with every
                          number read from its text at prec; radii are in
                          the state when the speed reads r.  Convergence
                          (not property_cap) is closed by U-close, which
                          needs identity weights and a speed G(ta, na,
                          alpha), times or divided by a factor of t alone
                          (and of alpha when it decays); otherwise only
                          property_cap is accepted.
                          Refused: a callback
                          row, scores or gain (U3), tau, ifle          */
} af_certify_opts;

/* Defaults as documented above. */
void af_certify_opts_init(af_certify_opts *o, af_scheme_id scheme, size_t n,
                          size_t d, double beta);

typedef struct {
  af_certify_status status;
  af_close_lemma lemma;
  double t_star;      /* time the closing hypotheses were proven (exact) */
  double t_end;       /* time reached                                   */
  double hyp;         /* P3h: lower bound of min_i <theta_i, w>/|w| (> 0);
                         T4.3: upper bound of max 1 - cos (< hyp_bound);
                         refuted (property_cap): lower bound of
                         min over [0, t_max] of max 1 - cos (> hyp_bound) */
  double hyp_bound;   /* P3h: 0; T4.3: 1/(100 n^2 max(1, beta^2))      */
  double qtk_norm;    /* upper bound of |Q^T K| (1 for the identity)    */
  double start_rad, final_rad; /* largest ball radius at 0 and t_end    */
  double field_max;   /* max |f| at the midpoint at t_end (near-equilibrium
                         diagnosis)                                      */
  unsigned long steps, rejected;
  double cpu_seconds;
  unsigned order;
  char reason[320];   /* could-not-certify or error: what and why       */
  size_t dim;         /* state dimension                                */
  size_t nballs;      /* records: the output times reached, then t_end  */
  double *ball_t;     /* nballs times                                   */
  double *mid, *rad;  /* nballs x dim: midpoints (nearest) and radii
                         (upper bounds, + the midpoint's rounding)        */
  char **dump;        /* nballs x dim exact balls (arb_dump_str format)  */
  double w[16];       /* P3h: the vector w (first min(d, 16) entries)   */
  /* merge_cos > 0 (theorems.md C-merge), pairs (i < j) in the order
   * (0,1), (0,2), ..., (n-2,n-1): */
  size_t npairs;
  double *pair_lo;    /* 1 - cos > eta proven on every a-priori enclosure
                         of [0, pair_lo] (pair_lo = t_end: never failed) */
  double *pair_hi;    /* first step end with 1 - cos < eta proven in the
                         ball (INFINITY: not by t_end)                   */
  int *pair_stays;    /* 1: 1 - cos < eta proven on every a-priori
                         enclosure from pair_hi to t_end                 */
  double *merge_lo, *merge_hi; /* n - 1 events: merge k (k = 0 .. n-2) is
                         the first time the pairs merged so far join the
                         tokens into at most n - 1 - k clusters; it lies
                         in [merge_lo[k], merge_hi[k]] (hi INFINITY: not
                         enclosed by t_end)                              */
  double peak_rad;    /* largest ball radius at any step end            */
  double speed_lo, speed_hi; /* U-close: the bounds over the box ta in
                         [-1, 1], na in [hyp, 1] of the speed's part G
                         that is not a factor of t (rounded outwards)  */
  double time_exp;    /* U-close with a time factor Phi(t): an upper bound
                         of e in Phi <= K (1 + t)^e on [T*, inf) (<= 1);
                         NaN without one                                */
} af_certify_result;

/* Certify the start y (af_state_size(n, d) doubles, src/ layout:
 * directions then radii).  Errors with a reason in res->reason:
 * AF_EINVAL (bad options, a direction off the unit sphere by more than
 * 1e-12, |Q^T K| > 1 where the lemma needs <= 1, Mix-LN horizon before
 * tau, nGPT decay > 1, built without Arb, or an empty mean-value
 * intersection: a soundness bug), AF_EDIM (n or d beyond the build's
 * limit), AF_ENOMEM.  Statuses certified / could-not-certify are results
 * (AF_OK).  Free res with af_certify_result_free. */
int af_certify(af_certify_result *res, const double *y,
               const af_certify_opts *o);
void af_certify_result_free(af_certify_result *res);

#ifdef __cplusplus
}
#endif
#endif /* AF_CERTIFY_H */
