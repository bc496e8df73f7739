/* flow.h -- certified n-particle flow (libafcert, internal): the tape of
 * the field (flow_tape.c), the closing tests (closing.c) and the driver
 * behind 'attnflow certify' and af_certify (certify.c).
 *
 * State layout of the tape (Cartesian, as src/'s state): theta_j at
 * y[j d .. j d + d - 1]; for the schemes whose radii move (Pre-LN, Mix-LN,
 * Peri-LN) r_j at y[n d + j].  Post-LN, nGPT and LN-Scaling carry no radii:
 * their directions do not depend on them (theorems.md S0).
 */
#ifndef AF_FLOW_H
#define AF_FLOW_H

#include "vode_impl.h"
#include "expr.h"

#ifdef AF_HAVE_ARB

/* The field to tape. */
typedef struct {
  af_scheme_id scheme;
  size_t n, d;
  double beta;        /* >= 0 (exact)                                */
  double alpha;       /* nGPT alpha > 0 (exact)                      */
  double alpha_decay; /* nGPT: alpha(t) = alpha (1 + t)^-decay        */
  arb_srcptr M;       /* d x d row-major Q^T K (balls), NULL = identity;
                         V = I always                                */
  const af_scheme_spec *spec; /* a spec'd scheme (flow_spec.c; scheme is
                         then ignored), NULL for a built-in          */
} af_flow_sys;

/* 1 if the scheme's state carries radii (Pre-, Mix-, Peri-LN). */
int af_flow_has_radii(af_scheme_id s);
/* 1 if the system's state carries radii: a built-in's as above, a spec's
 * when its speed reads r (the directions then depend on the radii; a
 * speed that does not read r leaves them out, as Post-LN). */
int af_flow_sys_has_radii(const af_flow_sys *s);
/* State dimension n d (+ n with radii). */
size_t af_flow_dim(const af_flow_sys *s);

/* ---- spec'd schemes (flow_spec.c; theorems.md U-close) ------------- */

/* Why the spec cannot be taped (a sentence), NULL if it can: scores or a
 * gain (U3), tau, ifle. */
const char *af_flow_spec_refusal(const af_scheme_spec *sp);
/* 1 if the speed (which = 0) or the radial rate (1) reads variable var
 * (AF_EXPR_T, ...). */
int af_flow_spec_reads(const af_scheme_spec *sp, int which, int var);
/* One constant node per literal and parameter of the spec (cnode: the
 * spec's constant count), each the ball Arb reads from its text at prec. */
int af_flow_spec_consts(af_vtape *tp, int *cnode, const af_scheme_spec *sp,
                        long prec);
/* The nodes of expression e of sp (its speed or radial) on tp: *out its
 * value, vars[AF_EXPR_NVARS] the nodes of t, r, ta, na, alpha (-1: not
 * available, AF_EINVAL if read).  AF_OK, AF_ENOMEM, AF_EINVAL. */
int af_flow_spec_expr(af_vtape *tp, int *out, const af_scheme_spec *sp,
                      const af_expr *e, const int *cnode, const int *vars);
/* 1 if the speed of sp is of a form U-close covers (theorems.md
 * U-close): it reads no r, and it is G, Phi(t), Phi(t) G, G / Phi'(t) or
 * Phi(t) / G' with G, G' reading neither t nor (when decay != 0) alpha,
 * and Phi, Phi' reading nothing else (a product or quotient at the top). */
int af_flow_spec_time_split(const af_scheme_spec *sp, double decay);
/* 1 if the speed splits so and its time factor (if any) is proven > 0 on
 * [tstar, inf) and at most K (1 + t)^e with e <= 1 (*pexp: the bound on
 * e, NaN without a time factor): the first half of U-close's test. */
int af_flow_spec_time_growth(double *pexp, const af_scheme_spec *sp,
                             double alpha, double decay, double tstar,
                             long prec);
/* U-close's test on sp at time tstar: the speed split as above; the time
 * factor (Phi, or 1 / Phi') proven positive on [tstar, inf) and at most
 * K (1 + t)^e with e <= 1 (*pexp: the bound on e, NaN without a time
 * factor), by a growth analysis of its tree (positive constants, t,
 * alpha(t) = alpha (1 + t)^-decay, +, x, /, sqrt, constant powers); and
 * G (or 1 / G') over the box ta in [c0, c1], na in [a0, a1] in Arb on
 * AF_SPEC_BOX_SPLIT^2 sub-boxes that cover it: every log and sqrt
 * argument and every non-integer power's base proven > 0, every divisor
 * and the base of a negative integer power proven != 0, the enclosure
 * finite and proven > 0.  *ok = 1 if all holds; *slo, *shi: G's bounds
 * over the box (1, 1 without G; rounded outwards). */
#define AF_SPEC_BOX_SPLIT 16
void af_flow_spec_speed_box(int *ok, double *slo, double *shi, double *pexp,
                            const af_scheme_spec *sp, double c0, double c1,
                            double a0, double a1, double alpha, double decay,
                            double tstar, long prec);

/* Tape of the field (theorems.md M2, M3, S0): w_jk = exp(beta
 * (<theta_j, M theta_k> - 1)) / Z_j (the shift by beta cancels in the
 * softmax), A_j = sum_k w_jk theta_k, c_j = <theta_j, A_j>, the tangent
 * part A_j - c_j theta_j (which keeps |theta_j| = 1 invariant, so the field
 * off the sphere is irrelevant to a start on it), divided by the speed
 * factor, and the radial rate.  Mix-LN: after = 0 the Post-LN branch
 * (radii frozen), after = 1 the Pre-LN branch.  AF_OK, AF_ENOMEM,
 * AF_EINVAL.  tp is initialized here (af_vtape_clear it). */
int af_flow_tape(af_vtape *tp, const af_flow_sys *s, int after, long prec);

/* ---- closing tests (closing.c; theorems.md C-close) ---------------- */

/* Hemisphere test (theorems.md P3h): w = the midpoint of sum_i theta_i,
 * rounded to an exact vector; *ok = 1 if every <theta_i, w> > 0 is
 * proven in balls.  *margin: the smallest lower bound of <theta_i, w>/|w|
 * (a double, rounded down; may be NULL). */
void af_close_hemisphere(int *ok, double *margin, arb_srcptr theta,
                         size_t n, size_t d, long prec);

/* The corrected cap of Theorem 4.3: delta_max = 1/(100 n^2 max(1,
 * beta^2)); *ok = 1 if 1 - <theta_i, theta_j> = |theta_i - theta_j|^2 / 2
 * < delta_max is proven for every pair (the exact directions are unit
 * vectors).  *gap: upper bound of the largest 1 - cosine (may be NULL). */
void af_close_cap(int *ok, double *gap, double *delta_max, arb_srcptr theta,
                  size_t n, size_t d, double beta, long prec);

/* Lower bound (a double rounded down) of max_ij 1 - <theta_i, theta_j> =
 * |theta_i - theta_j|^2 / 2 over the balls theta (which contain unit
 * vectors): the refutation test of C-refute, applied to the a-priori
 * enclosure of a whole step. */
void af_close_gap_lower(double *lower, arb_srcptr theta, size_t n, size_t d,
                        long prec);

/* g = 1 - <theta_i, theta_j> as the ball |theta_i - theta_j|^2 / 2 (the
 * arithmetic of the cap and refutation tests; theta contains unit
 * vectors): the pair gap of the merge enclosures (merges.c). */
void af_close_pair_gap(arb_t g, arb_srcptr theta, size_t i, size_t j,
                       size_t d, long prec);

/* Upper bound of the spectral norm of the d x d ball matrix M:
 * min(Frobenius norm, sqrt(|M|_1 |M|_inf)). */
void af_close_norm_bound(arb_t out, arb_srcptr M, size_t d, long prec);

#endif /* AF_HAVE_ARB */
#endif /* AF_FLOW_H */
