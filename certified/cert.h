/* cert.h -- certified enclosures with Arb ball arithmetic (libafcert).
 *
 * A validated Taylor integrator for the small ODE systems of the theory
 * (theory/theorems.md T4.1 for the six schemes, P1 for USA) and a
 * bisection prover for inequalities over intervals.  "Certified" means: the
 * exact solution of the stated ODE lies in the returned ball; every rounding
 * and truncation error is inside the radius.
 *
 * Method (theory/theorems.md, "Certified claims"), one step from (t, Y) to
 * t + h:
 *   1. a-priori enclosure B of the solution and of its Jacobian over
 *      [t, t + h] by Picard iteration on balls;
 *   2. Taylor coefficients of the solution (and of the variational
 *      equation) by the recurrences for sums, products, quotients, exp and
 *      sqrt, evaluated on a small tape of operations;
 *   3. rigorous remainder: coefficient K+1 over ([t, t+h], B) times h^(K+1);
 *   4. mean-value propagation Y+ = T(mid Y) + J (Y - mid Y), intersected
 *      with the plain interval Taylor map (empty intersection = soundness
 *      bug, reported as AF_EINVAL, never as a result);
 *   5. step size from the last two Taylor coefficients, rounded down to a
 *      short dyadic number, time kept exact, so output times (dyadic) are
 *      hit exactly;
 *   6. order K ~ prec ln2 / 2;
 *   7. the unknown is the gap w = 1 - gamma (and r where it moves).
 *
 * Without Arb (configure --without-arb or no Arb found) only
 * af_cert_available() (returning 0) and the two *_init functions are
 * defined.
 */
#ifndef AF_CERT_H
#define AF_CERT_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stddef.h>

#include "attnflow.h"

#ifdef AF_HAVE_ARB
#if defined(HAVE_ARB_H)
#include <acb_calc.h>
#include <acb_hypgeom.h>
#include <arb.h>
#include <arb_hypgeom.h>
#else
#include <flint/acb_calc.h>
#include <flint/acb_hypgeom.h>
#include <flint/arb.h>
#include <flint/arb_hypgeom.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if the library was built with Arb, else 0. */
int af_cert_available(void);

/* A system to certify: the T4.1 scalar system of a scheme from gamma(0) = 0,
 * r(0) = r0, or the USA equation of P1 (dgamma/dt = (2/n) e^{beta gamma}
 * (1 - gamma)(1 + (n-1) gamma), usa = 1; scheme ignored). */
typedef struct {
  af_scheme_id scheme;
  int usa;
  unsigned long n; /* >= 2                                              */
  double beta;     /* >= 0, finite (taken exactly as a binary number)     */
  double r0;       /* > 0 (exact)                                        */
  double alpha;    /* nGPT constant step alpha > 0 (exact)               */
  double tau;      /* Mix-LN switch time, dyadic, >= 0                   */
} af_cert_sys;

/* Defaults: r0 = 1, alpha = 1, tau = 1, usa = 0. */
void af_cert_sys_init(af_cert_sys *s, unsigned long n, double beta,
                      af_scheme_id scheme);

typedef struct {
  long prec;              /* working precision in bits (>= 32)           */
  unsigned order;         /* Taylor order K; 0 = ceil(prec ln2 / 2)       */
  unsigned long max_steps;/* accepted + rejected; 0 = 100000             */
  int drop_remainder;     /* TEST ONLY: omit the remainder term and its
                             step-size control (an unsound integrator,
                             for negative controls)                     */
  double h_fixed;         /* > 0: every step min(h_fixed, remaining), no
                             adaptivity (diagnostics and tests); 0 = auto */
} af_cert_opts;

void af_cert_opts_init(af_cert_opts *o, long prec); /* order auto */

typedef struct {
  unsigned long steps, rejected;
  unsigned order;
  double tmax_rad_log2; /* log2 of the largest output radius (gamma, r) */
} af_cert_stats;

#ifdef AF_HAVE_ARB

/* Enclose gamma(times[k]) and r(times[k]) (either output may be NULL;
 * arrays of ntimes initialized arb_t).  times: finite, >= 0,
 * non-decreasing, each exactly representable with at most 53 significant
 * bits as a dyadic number (any double is).  Errors: AF_EINVAL (bad
 * arguments, or an empty mean-value/naive intersection), AF_ENOPROGRESS (no
 * a-priori enclosure found even for tiny steps: could not certify),
 * AF_EMAXSTEPS.  On error, outputs not reached are set to [+-inf]. */
int af_cert_solve(arb_ptr gamma, arb_ptr r, const double *times,
                  size_t ntimes, const af_cert_sys *s, const af_cert_opts *o,
                  af_cert_stats *st);

/* The right-hand side (dgamma/dt, dr/dt) of the system at (t, gamma, r),
 * in ball arithmetic (Mix-LN: after = 0 Post-LN branch, 1 Pre-LN branch).
 * Used for the initial velocities (T4.1a). */
int af_cert_rhs(arb_t dgamma, arb_t dr, const arb_t t, const arb_t gamma,
                const arb_t r, int after, const af_cert_sys *s, long prec);

/* ---- closed forms (closed.c), independent of the integrator -------- */

/* The one signature of the closed forms below: out, a function of the
 * ball gamma of the cosine for n tokens at inverse temperature beta,
 * computed at prec bits. */
typedef int af_cert_gamma_map(arb_t out, const arb_t gamma, unsigned long n,
                              double beta, long prec);

/* T4.1d: Post-LN time to reach gamma from 0 (gamma a ball inside
 * (-1/(n-1), 1)):
 *   t = [I1 + I2 + (n-1)(ln(1 + (n-1)g) - ln(1 - g))] / (2n),
 *   I1 = Ei(b) - Ei(b(1-g)),
 *   I2 = e^{bn/(n-1)} [Ei(-b(1 + (n-1)g)/(n-1)) - Ei(-b/(n-1))]. */
af_cert_gamma_map af_cert_postln_time;
/* T4.1d Pre-LN invariant (also Peri-LN by T4.1c):
 *   ln(r/r0) = [I1 + I2 - (n-1) ln(1-g) - ln(1 + (n-1)g)] / (2n). */
af_cert_gamma_map af_cert_preln_logr;
/* P1 USA: time to reach gamma (derived by partial fractions,
 * 1/((1-g)(1+(n-1)g)) = [1/(1-g) + (n-1)/(1+(n-1)g)]/n):
 *   t = [e^{-b}(Ei(b) - Ei(b(1-g)))
 *        + e^{b/(n-1)}(Ei(-b(1+(n-1)g)/(n-1)) - Ei(-b/(n-1)))] / 2. */
af_cert_gamma_map af_cert_usa_time;

/* nGPT with alpha = 1 (dgamma/dt = F/a): time to reach gamma as the
 * integral of a/F, in v = 1 - g: t = int_{1-gamma}^{1} sqrt(Q(v)) /
 * (2 v (n - (n-1) v)) dv (Q as in vode.c), by acb_calc_integrate
 * (rigorous Gauss-Legendre with error bounds) to about 2^-prec. */
af_cert_gamma_map af_cert_ngpt_time;
/* Pre-LN and Peri-LN with r0 = 1: along the solution r = e^{Phi(gamma)}
 * (the T4.1d invariant, T4.1c for Peri-LN), so dgamma/dt = F/(r s') with
 * s' = 1 (Pre-LN) or a (Peri-LN) and t = int r s'/F dgamma, in v:
 *   Pre-LN   int_{1-gamma}^1 e^Phi (e^{bv} + n - 1) / (2 v P) dv,
 *   Peri-LN  int_{1-gamma}^1 e^Phi sqrt(Q) / (2 v P) dv,
 * Phi with Ei and E1 in Arb's complex functions (closed.c). */
af_cert_gamma_map af_cert_preln_time;
af_cert_gamma_map af_cert_periln_time;

/* Same verdict as af_cert_check_tmap with the quadrature time map of
 * scheme (AF_NGPT, AF_PRE_LN, AF_PERI_LN), at the cost of one full
 * integral: t(lo) and t(hi) from t(mid) by integrals over the ball. */
int af_cert_check_quad(int *verdict, const arb_t g, const arb_t T,
                       af_scheme_id scheme, unsigned long n, double beta,
                       long prec);

/* Certify gamma(T) in the ball g with an increasing time map tmap
 * (af_cert_postln_time, af_cert_usa_time, af_cert_ngpt_time): *verdict = 1 if
 * tmap(lo) < T < tmap(hi) (proven: the exact gamma(T) lies in [lo, hi]),
 * -1 if tmap(lo) > T or tmap(hi) < T (proven: it does not), 0 otherwise.
 * T is a ball (e.g. the LN-Scaling time 2(sqrt(t+1) - 1)). */
typedef af_cert_gamma_map *af_cert_tmap;
int af_cert_check_tmap(int *verdict, const arb_t g, const arb_t T,
                       af_cert_tmap tmap, unsigned long n, double beta,
                       long prec);

/* ---- inequalities over intervals by bisection ---------------------- */

/* Outcome of a proof attempt. */
typedef enum {
  AF_PROVE_CERTIFIED = 0, /* holds on the whole interval (proven)       */
  AF_PROVE_REFUTED,       /* a point where it fails (proven)            */
  AF_PROVE_UNDECIDED      /* budget exhausted                          */
} af_prove_result;

/* g(out, x, ctx, prec): a ball enclosing g over the ball x. */
typedef int (*af_cert_fn)(arb_t out, const arb_t x, void *ctx, long prec);

/* Prove g(x) > 0 for every x in [lo, hi] (exact doubles, lo <= hi) by
 * bisection: a box where the enclosure of g is > 0 is done; a box whose
 * midpoint (an exact point) has g < 0 refutes the claim there; otherwise the
 * box is split.  At most max_boxes boxes are examined (then UNDECIDED).
 * *where receives the refuting point or the midpoint of the first
 * undecided box; *boxes the number of boxes examined.  A zero of g inside
 * [lo, hi] can never be certified: near a known zero, prove the sign of
 * the derivative instead (the caller's job). */
int af_cert_prove_gt0(af_prove_result *res, double *where,
                      unsigned long *boxes, af_cert_fn g, void *ctx,
                      double lo, double hi, unsigned long max_boxes,
                      long prec);

#endif /* AF_HAVE_ARB */

#ifdef __cplusplus
}
#endif
#endif /* AF_CERT_H */
