/* theory.h -- what the paper predicts, as code (libaftheory).
 *
 * T4.1 (theory/theorems.md section 4): from an orthonormal start with
 * Q = K = V = I and equal radii r0, every pairwise cosine equals one gamma(t)
 * and the n-particle system reduces to scalar ODEs for (gamma, r).  This
 * module implements those ODEs, the initial velocities (T4.1a), the
 * terminal laws (T4.1b, as data), the Pre/Peri-LN constant K(n, beta)
 * (T4.1c), the Post-LN closed form t(gamma) and the Pre-LN invariant
 * (T4.1d), and the LN-Scaling time change (I2).
 *
 * Independence: nothing here calls af_scheme_get()->rates.  The speed
 * factor s and the radial rate of each scheme are written out again from
 * the theorems.md S1-S6, so a wrong row in src/model/scheme.c shows up as a
 * disagreement with the n-particle simulation.  Only the af_scheme_id enum
 * and the af_model struct (for parameters) are shared with src/.
 *
 * Conventions as in attnflow.h: prefix af_t41_, outputs first, af_status
 * codes, nothing prints.  The plain scalar functions (Z, F, c, a, ...)
 * return double and give NaN for invalid (n, beta), like a C math
 * function on a domain error.
 */
#ifndef AF_THEORY_H
#define AF_THEORY_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The functions of T4.1 in the cosine gamma (exactly as in theorems.md) */
/* and in the gap w = 1 - gamma (robust for any beta, accurate as w->0). */
/* Valid for n >= 2, beta >= 0 finite; otherwise NaN.                   */
/* ------------------------------------------------------------------ */

/* Z(g) = e^b + (n-1) e^{b g}  (overflows for b > ~709: use the w forms). */
double af_t41_Z(double gamma, size_t n, double beta);
/* F(g) = 2 e^{b g} (1-g)(1+(n-1)g) / Z(g) = d gamma/dt under Post-LN. */
double af_t41_F(double gamma, size_t n, double beta);
/* c(g) = <theta_j, A_j> = (e^b + (n-1) g e^{b g}) / Z(g). */
double af_t41_c(double gamma, size_t n, double beta);
/* a(g) = |A_j| = sqrt(e^{2b} + 2(n-1) g e^{b(1+g)}
 *                     + (n-1) e^{2bg}(1+(n-2)g)) / Z(g). */
double af_t41_a(double gamma, size_t n, double beta);

/* Same functions of w = 1 - gamma (derivations in t41.c):
 *   F = 2 w (n - (n-1) w) / (e^{b w} + n - 1)
 *   c = 1 - (n-1) w / (e^{b w} + n - 1)
 *   a = sqrt(1 + 2(n-1)(1-w)E + (n-1)E^2 (1 + (n-2)(1-w))) / (1 + (n-1)E),
 *       E = e^{-b w}. */
double af_t41_F_w(double w, size_t n, double beta);
double af_t41_c_w(double w, size_t n, double beta);
double af_t41_a_w(double w, size_t n, double beta);
/* G(w) = F/w = 2 (n - (n-1) w) / (e^{b w} + n - 1): with u = log(1-gamma)
 * the ODE reads du/dt = -G / s. */
double af_t41_G_w(double w, size_t n, double beta);

/* ------------------------------------------------------------------ */
/* The scalar system per scheme.                                        */
/* ------------------------------------------------------------------ */

/* Variable the ODE is integrated in. */
typedef enum {
  AF_T41_VAR_GAMMA = 0, /* gamma itself: 1 - gamma only to absolute eps    */
  AF_T41_VAR_LOGGAP,    /* u = log(1 - gamma): the gap keeps its relative
                           accuracy far below double resolution of gamma  */
  AF_T41_VAR_COUNT
} af_t41_var;

typedef struct {
  size_t n;            /* tokens, >= 2                                   */
  double beta;         /* inverse temperature, finite, >= 0              */
  af_scheme_id scheme; /* S1..S6                                         */
  double r0;           /* common initial radius, finite, > 0             */
  double alpha;        /* nGPT: alpha(t) = alpha (1+t)^(-alpha_decay), > 0 */
  double alpha_decay;  /* >= 0                                           */
  double tau;          /* Mix-LN switch time, >= 0                       */
  double gap0;         /* 1 - gamma(0) in (0, n/(n-1)]; 1 = orthonormal  */
  af_t41_var var;      /* integration variable (default LOGGAP)          */
  double rtol, atol;   /* integrator tolerances; 0 = defaults 1e-14, 1e-16;
                          else rtol in [AF_RTOL_MIN, AF_RTOL_MAX), atol in
                          (0, AF_ATOL_MAX] (attnflow_limits.h)           */
  unsigned long max_steps; /* per output interval; 0 = 10^7              */
  /* scheme == AF_SCHEME_USER: the user row (theorems.md U2), whose rates
   * are evaluated at c(gamma), a(gamma): a spec'd row's expressions (a
   * spec that reads tau switches there like Mix-LN) or a callback row's
   * function (given tau = +infinity).  NULL otherwise. */
  const af_scheme *user;
} af_t41_params;

/* Defaults: r0 = 1, alpha = 1, decay 0, tau = 1, gap0 = 1 (the orthonormal
 * start), LOGGAP, default tols. */
void af_t41_params_init(af_t41_params *p, size_t n, double beta,
                        af_scheme_id scheme);
/* Take n, beta, scheme, alpha, alpha_decay, tau from a model, with r0
 * (and a user scheme's row).
 * AF_EINVAL if the model is not the T4.1 setting (not softmax, weights
 * given, d < n). */
int af_t41_params_from_model(af_t41_params *p, const af_model *m, double r0);
/* AF_OK or AF_EINVAL / AF_ENONFINITE, no side effect. */
int af_t41_params_validate(const af_t41_params *p);

/* alpha(t) of nGPT for these parameters. */
double af_t41_alpha(const af_t41_params *p, double t);

/* Speed factor s and radial rate rho of the scheme at time t, radius r,
 * gap w (= 1 - gamma), written from the table S1-S6 of theorems.md.  For Mix-LN, `after`
 * selects the branch (0: t <= tau, Post-LN; 1: t > tau, Pre-LN); it is
 * ignored by the other schemes. */
int af_t41_rates(double *s, double *rho, double t, double r, double w,
                 int after, const af_t41_params *p);

/* Integrate from gamma(0) = 1 - gap0 (any equiangular start: the
 * symmetry of T4.1 holds for every common cosine), r(0) = r0 and report at times[k] (finite,
 * >= 0, non-decreasing): gamma[k], gap[k] = 1 - gamma[k] (with the LOGGAP
 * variable it keeps its relative accuracy), r[k].  Any output may be NULL.
 * GSL rk8pd, error per step <= atol + rtol |y| on each component; Mix-LN
 * is integrated exactly to tau and restarted there.
 * Errors: AF_EINVAL, AF_ENONFINITE, AF_EMAXSTEPS, AF_ENOPROGRESS, AF_EGSL;
 * outputs before the failing interval are filled. */
int af_t41_solve(double *gamma, double *gap, double *r, const double *times,
                 size_t ntimes, const af_t41_params *p);
/* Same, also returning the number of accepted steps (may be NULL). */
int af_t41_solve_ex(double *gamma, double *gap, double *r,
                    unsigned long *steps, const double *times, size_t ntimes,
                    const af_t41_params *p);

/* T4.1a: dgamma/dt at t = 0+ from the closed forms of theorems.md:
 * Post-LN, LN-Scaling, Mix-LN with tau > 0: 2/(e^b+n-1);
 * Pre-LN (and Mix-LN with tau = 0): 2/(r0 (e^b+n-1));
 * Peri-LN: 2/(r0 sqrt(e^{2b}+n-1));  nGPT: 2 alpha(0)/sqrt(e^{2b}+n-1);
 * a user scheme (U2): F(gamma0)/s(0, r0, c(gamma0), a(gamma0)) from its
 * rates, gamma0 = 1 - gap0. */
int af_t41_initial_velocity(double *v, const af_t41_params *p);

/* T4.1b terminal behaviour of 1 - gamma, as data. */
typedef struct {
  af_scheme_id scheme;
  const char *form;   /* "exp", "power", "exp-sqrt", "exp-int-alpha"    */
  double exponent;    /* 2, 2, 4, 2 (see text)                          */
  const char *text;   /* the law as printed, e.g. "1-gamma ~ C e^{-2t}" */
} af_t41_terminal;
int af_t41_terminal_law(af_t41_terminal *law, af_scheme_id scheme);

/* T4.1d: Post-LN time to reach gamma from 0,
 *   t = [I1 + I2 + (n-1)(ln(1+(n-1)g) - ln(1-g))] / (2n),
 * for gamma in [-1/(n-1), 1] (+-infinity at the ends).  AF_EOVERFLOW
 * if beta >= log(DBL_MAX) (Ei(beta) overflows). */
int af_t41_time_postln(double *t, double gamma, size_t n, double beta);
/* Same, as a function of the gap w = 1 - gamma in [0, n/(n-1)]. */
int af_t41_time_postln_gap(double *t, double w, size_t n, double beta);
/* T4.1d Pre-LN invariant ln(r/r0) as a function of gamma (also Peri-LN,
 * T4.1c; Mix-LN after tau as a difference of two values). */
int af_t41_preln_log_r(double *logr, double gamma, size_t n, double beta);
int af_t41_preln_log_r_gap(double *logr, double w, size_t n, double beta);

/* I2: LN-Scaling at time t equals Post-LN at u = 2(sqrt(t+1) - 1). */
double af_t41_lnscaling_time(double t);

/* T4.1c: K(n, beta) = lim (1 - gamma)(r/r0)^2 for Pre-LN and Peri-LN,
 * by integrating d gamma / d log r = F/c in the gap variable to the log r
 * where the remaining tail is below rounding (see t41.c).  AF_EOVERFLOW
 * if K > DBL_MAX (ln K ~ Ei(beta)/n: beta above ~ 25 at n = 6). */
int af_t41_K(double *K, size_t n, double beta);
/* Same constant from the closed form derived from T4.1d (t41.c):
 * ln K = [Ei(b) - gamma_E - ln b + e^b E1s(b/(n-1)) - E1s(bn/(n-1)) - ln n]/n,
 * E1s(x) = e^x E1(x); K = 1 at beta = 0. */
int af_t41_K_closed(double *K, size_t n, double beta);

#ifdef __cplusplus
}
#endif
#endif /* AF_THEORY_H */
