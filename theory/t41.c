/* t41.c -- T4.1 of theorems.md: the symmetric start.
 *
 * Method.  With Q = K = V = I, theta_j(0) orthonormal and r_j(0) = r0, all
 * pairwise cosines equal one gamma(t), all radii one r(t), and the
 * n-particle system reduces to
 *
 *     dgamma/dt = F(gamma) / s(t, r, gamma),    dr/dt = rho(t, r, gamma),
 *
 * with s, rho the scheme's row of the table S1-S6 evaluated at
 * c(gamma) = <theta_j, A_j> and a(gamma) = |A_j|.  The system is
 * integrated with GSL's rk8pd (Prince-Dormand 8(7)) under the standard
 * "y" error control |err_i| <= atol + rtol |y_i|.  Default tolerances
 * rtol = 1e-14 (about 45 DBL_EPSILON) and atol = 1e-16: the scalar
 * solution is the reference against which the n-particle system is
 * checked to 1e-9 when that system is integrated at rtol 1e-12, so the
 * reference must be at least 100 times more accurate; going much below
 * ~10 DBL_EPSILON makes the step control chase rounding noise.  The
 * absolute tolerance only matters while a component is near 0 (gamma
 * at t = 0, or u = log(1-gamma) at t = 0); 1e-16 keeps it below an ulp
 * of the O(1) values reached right after.
 *
 * Mix-LN's field jumps at t = tau; the run is integrated exactly to tau
 * (GSL's evolve lands on the end point) and restarted there with the
 * Pre-LN branch.  The branch is a flag of the segment, never decided
 * from t, so no stage of the first segment can see the second branch.
 *
 * Derivations (w = 1 - gamma, E = e^{-beta w}):
 *   e^{beta gamma} = e^beta E,  Z = e^beta (1 + (n-1) E),
 *   1 + (n-1) gamma = n - (n-1) w.
 * F: F = 2 e^beta E w (n-(n-1)w) / (e^beta (1 + (n-1)E)); the factor e^beta
 *    cancels and, multiplying by e^{beta w}:
 *        F = 2 w (n - (n-1) w) / (e^{beta w} + n - 1).
 * c: c = (1 + (n-1)(1-w) E) / (1 + (n-1) E) = 1 - (n-1) w E/(1 + (n-1)E)
 *      = 1 - (n-1) w / (e^{beta w} + n - 1).
 * a: divide the numerator under the root by e^{2 beta} and Z by e^beta:
 *        a = sqrt(1 + 2(n-1)(1-w) E + (n-1) E^2 (1 + (n-2)(1-w))) / (1 + (n-1)E).
 * These never overflow (E <= 1 for w >= 0; for gamma < 0, w <= n/(n-1)).
 * u = log(1 - gamma) = log w:  du/dt = -(dgamma/dt)/w = -F/(w s) = -G/s,
 *        G = F/w = 2 (n - (n-1) w) / (e^{beta w} + n - 1)
 *          = 2 e^{beta gamma} (1 + (n-1) gamma) / Z   (gamma form),
 * which is smooth and tends to 2 as w -> 0, so u follows the gap with
 * relative accuracy long after 1 - gamma has dropped below DBL_EPSILON.
 * The outputs are gamma = -expm1(u) and gap = exp(u).
 *
 * T4.1c in the gap variable: with rho = ln(r/r0), Pre-LN and Peri-LN both
 * give dgamma/drho = F/c, so du/drho = -G/c.  Put v = u + 2 rho =
 * ln((1-gamma)(r/r0)^2); from the forms above 2c - G = 2(1-E)/(1+(n-1)E), so
 *        dv/drho = (2c - G)/c = -2 expm1(-beta w) / (1 + (n-1)(1-w) E),
 * free of cancellation, and ln K = lim v.
 */
#include <config.h>

#include "t41_mp.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_expint.h>

/* Default tolerances (see the file header). */
#define AF_T41_RTOL 1e-14
#define AF_T41_ATOL 1e-16
#define AF_T41_MAX_STEPS 10000000UL

/* ------------------------------------------------------------------ */
/* Scalar functions                                                     */
/* ------------------------------------------------------------------ */

static int bad_nb(size_t n, double beta)
{
  return n < 2 || !isfinite(beta) || beta < 0;
}

double af_t41_Z(double gamma, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  return exp(beta) + (double) (n - 1) * exp(beta * gamma);
}

double af_t41_F(double gamma, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  double nm1 = (double) (n - 1);
  return 2.0 * exp(beta * gamma) * (1.0 - gamma) * (1.0 + nm1 * gamma) /
         af_t41_Z(gamma, n, beta);
}

double af_t41_c(double gamma, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  double nm1 = (double) (n - 1);
  return (exp(beta) + nm1 * gamma * exp(beta * gamma)) / af_t41_Z(gamma, n, beta);
}

double af_t41_a(double gamma, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  double nm1 = (double) (n - 1), nm2 = (double) n - 2.0;
  double q = exp(2.0 * beta) + 2.0 * nm1 * gamma * exp(beta * (1.0 + gamma)) +
             nm1 * exp(2.0 * beta * gamma) * (1.0 + nm2 * gamma);
  /* q = |Z A_j|^2 >= 0; where A_j vanishes (beta = 0 at the simplex
   * gamma = -1/(n-1)) rounding can make it slightly negative. */
  return sqrt(fmax(q, 0.0)) / af_t41_Z(gamma, n, beta);
}

/* Unchecked w forms, used by the right-hand sides. */
static double G_w(double w, double nm1, double beta)
{
  return 2.0 * (nm1 + 1.0 - nm1 * w) / (exp(beta * w) + nm1);
}

static double c_w(double w, double nm1, double beta)
{
  return 1.0 - nm1 * w / (exp(beta * w) + nm1);
}

static double a_w(double w, double nm1, double beta)
{
  double E = exp(-beta * w), g = 1.0 - w;
  double q = 1.0 + 2.0 * nm1 * g * E + nm1 * E * E * (1.0 + (nm1 - 1.0) * g);
  return sqrt(fmax(q, 0.0)) / (1.0 + nm1 * E); /* q >= 0 up to rounding */
}

double af_t41_F_w(double w, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  return w * G_w(w, (double) (n - 1), beta);
}

double af_t41_G_w(double w, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  return G_w(w, (double) (n - 1), beta);
}

double af_t41_c_w(double w, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  return c_w(w, (double) (n - 1), beta);
}

double af_t41_a_w(double w, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  return a_w(w, (double) (n - 1), beta);
}

/* ------------------------------------------------------------------ */
/* Parameters                                                           */
/* ------------------------------------------------------------------ */

void af_t41_params_init(af_t41_params *p, size_t n, double beta,
                        af_scheme_id scheme)
{
  if (!p)
    return;
  p->n = n;
  p->beta = beta;
  p->scheme = scheme;
  p->r0 = 1.0;
  p->alpha = 1.0;
  p->alpha_decay = 0.0;
  p->tau = 1.0;
  p->gap0 = 1.0;
  p->var = AF_T41_VAR_LOGGAP;
  p->rtol = 0.0;
  p->atol = 0.0;
  p->max_steps = 0;
  p->user = NULL;
}

int af_t41_params_validate(const af_t41_params *p)
{
  if (!p)
    return AF_EINVAL;
  if (!isfinite(p->beta) || !isfinite(p->r0) || !isfinite(p->alpha) ||
      !isfinite(p->alpha_decay) || !isfinite(p->tau) || !isfinite(p->rtol) ||
      !isfinite(p->gap0) ||
      !isfinite(p->atol))
    return AF_ENONFINITE;
  if (p->scheme == AF_SCHEME_USER
      && (p->user == NULL || p->user->rates == NULL))
    return AF_EINVAL;
  /* U3: scores or a gain change F itself (not written for them). */
  if (p->scheme == AF_SCHEME_USER
      && af_scheme_spec_alters_attention(af_scheme_spec_of(p->user)))
    return AF_EINVAL;
  if (p->n < 2 || p->beta < 0 || (unsigned) p->scheme > AF_SCHEME_COUNT ||
      !(p->r0 > 0) || !(p->alpha > 0) || p->alpha_decay < 0 || p->tau < 0 ||
      (unsigned) p->var >= AF_T41_VAR_COUNT || p->rtol < 0 || p->atol < 0 ||
      (p->rtol > 0 && (p->rtol < AF_RTOL_MIN || p->rtol >= AF_RTOL_MAX)) ||
      p->atol > AF_ATOL_MAX ||
      !(p->gap0 > 0) || p->gap0 * (double) (p->n - 1) > (double) p->n)
    return AF_EINVAL;
  return AF_OK;
}

int af_t41_params_from_model(af_t41_params *p, const af_model *m, double r0)
{
  if (!p || !m)
    return AF_EINVAL;
  int st = af_model_validate(m);
  if (st != AF_OK)
    return st;
  /* T4.1 needs Q = K = V = I, plain softmax and room for n orthonormal
   * directions. */
  if (m->attn != AF_ATTN_SOFTMAX || m->w != NULL || m->d < m->n)
    return AF_EINVAL;
  af_t41_params q;
  af_t41_params_init(&q, m->n, m->beta, m->scheme);
  if (m->scheme == AF_SCHEME_USER)
    q.user = m->user;
  q.r0 = r0;
  q.alpha = m->alpha;
  q.alpha_decay = m->alpha_decay;
  q.tau = m->tau;
  st = af_t41_params_validate(&q);
  if (st == AF_OK)
    *p = q;
  return st;
}

double af_t41_alpha(const af_t41_params *p, double t)
{
  if (!p)
    return NAN;
  return p->alpha_decay == 0 ? p->alpha : p->alpha * pow(1.0 + t, -p->alpha_decay);
}

/* ------------------------------------------------------------------ */
/* The table S1-S6, written out again (independent of src/model/scheme.c).    */
/* ------------------------------------------------------------------ */

static int rates(double *s, double *rho, double t, double r, double w,
                 int after, const af_t41_params *p)
{
  double nm1 = (double) (p->n - 1), b = p->beta, a;
  switch (p->scheme) {
  case AF_POST_LN: /* S1: s = 1, dr/dt = 0 */
    *s = 1.0;
    *rho = 0.0;
    break;
  case AF_PRE_LN: /* S2: s = r, dr/dt = <theta, A> */
    *s = r;
    *rho = c_w(w, nm1, b);
    break;
  case AF_MIX_LN: /* S3: Post-LN for t <= tau, Pre-LN after */
    if (after) {
      *s = r;
      *rho = c_w(w, nm1, b);
    } else {
      *s = 1.0;
      *rho = 0.0;
    }
    break;
  case AF_PERI_LN: /* S4: s = r |A|, dr/dt = <theta, A>/|A| */
    a = a_w(w, nm1, b);
    if (!(a > 0))
      return AF_EZEROATTN;
    *s = r * a;
    *rho = c_w(w, nm1, b) / a;
    break;
  case AF_NGPT: /* S5: s = |A| / alpha(t), dr/dt = 0 */
    a = a_w(w, nm1, b);
    if (!(a > 0))
      return AF_EZEROATTN;
    *s = a / af_t41_alpha(p, t);
    *rho = 0.0;
    break;
  case AF_LN_SCALING: /* S6: s = sqrt(t + 1), dr/dt = 0 */
    *s = sqrt(t + 1.0);
    *rho = 0.0;
    break;
  case AF_SCHEME_USER: { /* U2: the row's rates at c(gamma), a(gamma) */
    const af_scheme_spec *spec = af_scheme_spec_of(p->user);
    a = a_w(w, nm1, b);
    if (p->user->needs_anorm && !(a > 0))
      return AF_EZEROATTN;
    if (spec != NULL)
      af_scheme_spec_eval(s, rho, NULL, spec, t, r, c_w(w, nm1, b), a,
                          af_t41_alpha(p, t), after ? -INFINITY : INFINITY);
    else
      p->user->rates(s, rho, t, r, c_w(w, nm1, b), a, af_t41_alpha(p, t),
                     INFINITY);
    break;
  }
  default:
    return AF_EINVAL;
  }
  if (!isfinite(*s) || !isfinite(*rho) || !(*s > 0))
    return AF_ENONFINITE;
  return AF_OK;
}

int af_t41_rates(double *s, double *rho, double t, double r, double w,
                 int after, const af_t41_params *p)
{
  int st = af_t41_params_validate(p);
  if (st != AF_OK)
    return st;
  if (!s || !rho)
    return AF_EINVAL;
  if (!isfinite(t) || !isfinite(r) || !isfinite(w))
    return AF_ENONFINITE;
  return rates(s, rho, t, r, w, after, p);
}

/* ------------------------------------------------------------------ */
/* Integration                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
  const af_t41_params *p;
  int after;  /* Mix-LN branch of the current segment */
  int status; /* af_status of a failed right-hand side */
} ode_ctx;

/* y[0] = gamma or u = log(1 - gamma), y[1] = r. */
static int ode_rhs(double t, const double y[], double dy[], void *params)
{
  ode_ctx *ctx = params;
  const af_t41_params *p = ctx->p;
  double w = p->var == AF_T41_VAR_GAMMA ? 1.0 - y[0] : exp(y[0]);
  double s, rho;
  int st = rates(&s, &rho, t, y[1], w, ctx->after, p);
  if (st != AF_OK) {
    ctx->status = st;
    return GSL_EBADFUNC;
  }
  double nm1 = (double) (p->n - 1);
  if (p->var == AF_T41_VAR_GAMMA)
    dy[0] = w * G_w(w, nm1, p->beta) / s; /* F / s */
  else
    dy[0] = -G_w(w, nm1, p->beta) / s; /* du/dt = -G / s */
  dy[1] = rho;
  if (!isfinite(dy[0]) || !isfinite(dy[1])) {
    ctx->status = AF_ENONFINITE;
    return GSL_EBADFUNC;
  }
  return GSL_SUCCESS;
}

typedef struct {
  gsl_odeiv2_step *step;
  gsl_odeiv2_control *con;
  gsl_odeiv2_evolve *ev;
  gsl_odeiv2_system sys;
  ode_ctx ctx;
  int *status; /* where the right-hand side leaves its af_status */
  double h;
  unsigned long max_steps;
  unsigned long steps; /* accepted steps in total */
} ode_run;

static int ode_run_alloc(ode_run *o, size_t dim, double rtol, double atol,
                         gsl_odeiv2_system sys)
{
  o->step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, dim);
  o->con = gsl_odeiv2_control_y_new(atol, rtol);
  o->ev = gsl_odeiv2_evolve_alloc(dim);
  o->sys = sys;
  if (!o->step || !o->con || !o->ev)
    return AF_ENOMEM;
  return AF_OK;
}

static void ode_run_free(ode_run *o)
{
  if (o->step)
    gsl_odeiv2_step_free(o->step);
  if (o->con)
    gsl_odeiv2_control_free(o->con);
  if (o->ev)
    gsl_odeiv2_evolve_free(o->ev);
}

/* Advance (t, y) to t1 exactly; at most o->max_steps steps. */
static int ode_advance(ode_run *o, double *t, double t1, double *y)
{
  unsigned long k = 0;
  while (*t < t1) {
    if (k++ >= o->max_steps)
      return AF_EMAXSTEPS;
    if (af_interrupted()) /* af_interrupt(1): stop at the next step */
      return AF_ECANCELED;
    af_gsl_quiet_enter(); /* statuses, not the caller's handler */
    int st = gsl_odeiv2_evolve_apply(o->ev, o->con, o->step, &o->sys, t, t1,
                                     &o->h, y);
    af_gsl_quiet_leave();
    if (st == GSL_SUCCESS) {
      o->steps++;
      continue;
    }
    if (st == GSL_EBADFUNC)
      return *o->status != AF_OK ? *o->status : AF_EGSL;
    if (st == GSL_ENOPROG || st == GSL_FAILURE)
      return AF_ENOPROGRESS;
    return AF_EGSL;
  }
  return AF_OK;
}

/* Restart after a breakpoint: forget the stepper's history. */
static void ode_restart(ode_run *o)
{
  gsl_odeiv2_step_reset(o->step);
  gsl_odeiv2_evolve_reset(o->ev);
}

int af_t41_times_check(const double *times, size_t ntimes)
{
  if (ntimes > 0 && !times)
    return AF_EINVAL;
  for (size_t k = 0; k < ntimes; k++) {
    if (!isfinite(times[k]))
      return AF_ENONFINITE;
    if (times[k] < 0 || (k > 0 && times[k] < times[k - 1]))
      return AF_EINVAL;
  }
  return AF_OK;
}

int af_t41_solve(double *gamma, double *gap, double *r, const double *times,
                 size_t ntimes, const af_t41_params *p)
{
  return af_t41_solve_ex(gamma, gap, r, NULL, times, ntimes, p);
}

int af_t41_solve_ex(double *gamma, double *gap, double *r,
                    unsigned long *steps, const double *times, size_t ntimes,
                    const af_t41_params *p)
{
  int st = af_t41_params_validate(p);
  if (st == AF_OK)
    st = af_t41_times_check(times, ntimes);
  if (st != AF_OK)
    return st;

  ode_run o = {0};
  gsl_odeiv2_system sys = {ode_rhs, NULL, 2, &o.ctx};
  o.ctx.p = p;
  o.ctx.status = AF_OK;
  o.status = &o.ctx.status;
  o.max_steps = p->max_steps ? p->max_steps : AF_T41_MAX_STEPS;
  st = ode_run_alloc(&o, 2, p->rtol > 0 ? p->rtol : AF_T41_RTOL,
                     p->atol > 0 ? p->atol : AF_T41_ATOL, sys);
  if (st != AF_OK) {
    ode_run_free(&o);
    return st;
  }
  /* Initial step: a small fraction of the time scale 1/|dgamma/dt(0)|;
   * the error control corrects it within a few trials. */
  double v0 = 0;
  af_t41_initial_velocity(&v0, p);
  o.h = v0 > 0 ? 1e-3 / v0 : 1e-3;

  /* gamma(0) = 1 - gap0, u(0) = log gap0 (0 at the orthonormal start) */
  double y[2] = {p->var == AF_T41_VAR_GAMMA ? 1.0 - p->gap0 : log(p->gap0),
                 p->r0}, t = 0.0;
  int mix = p->scheme == AF_MIX_LN
         || (p->scheme == AF_SCHEME_USER /* a spec that reads tau */
             && (af_scheme_spec_vars(af_scheme_spec_of(p->user)) & (1u << 5)));
  o.ctx.after = mix && p->tau == 0; /* tau = 0: Pre-LN from the start */

  for (size_t k = 0; k < ntimes && st == AF_OK; k++) {
    double t1 = times[k];
    if (mix && !o.ctx.after && t1 > p->tau) {
      st = ode_advance(&o, &t, p->tau, y);
      if (st != AF_OK)
        break;
      o.ctx.after = 1;
      ode_restart(&o);
    }
    st = ode_advance(&o, &t, t1, y);
    if (st != AF_OK)
      break;
    if (p->var == AF_T41_VAR_GAMMA) {
      if (gamma)
        gamma[k] = y[0];
      if (gap)
        gap[k] = 1.0 - y[0];
    } else {
      if (gamma)
        gamma[k] = -expm1(y[0]);
      if (gap)
        gap[k] = exp(y[0]);
    }
    if (r)
      r[k] = y[1];
  }
  if (steps)
    *steps = o.steps;
  ode_run_free(&o);
  return st;
}

/* ------------------------------------------------------------------ */
/* T4.1a, T4.1b                                                         */
/* ------------------------------------------------------------------ */

int af_t41_initial_velocity(double *v, const af_t41_params *p)
{
  int st = af_t41_params_validate(p);
  if (st != AF_OK)
    return st;
  if (!v)
    return AF_EINVAL;
  double nm1 = (double) (p->n - 1), eb = exp(p->beta);
  /* sqrt(e^{2b} + n - 1) without overflowing e^{2b}. */
  double root = hypot(eb, sqrt(nm1));
  switch (p->scheme) {
  case AF_POST_LN:
  case AF_LN_SCALING:
    *v = 2.0 / (eb + nm1);
    break;
  case AF_PRE_LN:
    *v = 2.0 / (p->r0 * (eb + nm1));
    break;
  case AF_MIX_LN: /* right derivative at 0: Post-LN unless tau = 0 */
    *v = p->tau > 0 ? 2.0 / (eb + nm1) : 2.0 / (p->r0 * (eb + nm1));
    break;
  case AF_PERI_LN:
    *v = 2.0 / (p->r0 * root);
    break;
  case AF_NGPT:
    *v = 2.0 * af_t41_alpha(p, 0.0) / root;
    break;
  case AF_SCHEME_USER: { /* U2: F(gamma0) / s at t = 0 (right side of tau) */
    double s, rho;
    int after = p->tau == 0
             && (af_scheme_spec_vars(af_scheme_spec_of(p->user)) & (1u << 5));
    st = rates(&s, &rho, 0.0, p->r0, p->gap0, after, p);
    if (st != AF_OK)
      return st;
    *v = p->gap0 * G_w(p->gap0, nm1, p->beta) / s;
    break;
  }
  default:
    return AF_EINVAL;
  }
  return AF_OK;
}

static const af_t41_terminal terminal_table[AF_SCHEME_COUNT] = {
  {AF_POST_LN, "exp", 2.0, "1-gamma ~ C e^{-2t}"},
  {AF_PRE_LN, "power", 2.0, "1-gamma ~ C t^{-2}"},
  {AF_MIX_LN, "power", 2.0, "1-gamma ~ C t^{-2}"},
  {AF_PERI_LN, "power", 2.0, "1-gamma ~ C t^{-2}"},
  {AF_NGPT, "exp-int-alpha", 2.0, "1-gamma ~ C e^{-2 int_0^t alpha}"},
  {AF_LN_SCALING, "exp-sqrt", 4.0, "1-gamma ~ C e^{-4 sqrt(t+1)}"},
};

int af_t41_terminal_law(af_t41_terminal *law, af_scheme_id scheme)
{
  if (!law || (unsigned) scheme >= AF_SCHEME_COUNT)
    return AF_EINVAL;
  *law = terminal_table[scheme];
  return AF_OK;
}

/* ------------------------------------------------------------------ */
/* T4.1d closed forms                                                   */
/* ------------------------------------------------------------------ */

/* I1 + I2 of T4.1d at gap w > 0 with 1 + (n-1) gamma = n - (n-1) w > 0:
 *   I1 = Ei(b) - Ei(b w),
 *   I2 = e^{bn/(n-1)} [Ei(-b(1+(n-1)g)/(n-1)) - Ei(-b/(n-1))]
 *      = e^b E1s(b/(n-1)) - e^{b w} E1s(b (n-(n-1)w)/(n-1)),
 * using Ei(-x) = -E1(x) = -e^{-x} E1s(x) for x > 0, E1s the scaled E1 of
 * GSL; the exponents combine to b n/(n-1) - b/(n-1) = b and
 * b n/(n-1) - b(1+(n-1)g)/(n-1) = b (1 - g) = b w, so nothing overflows
 * beyond Ei(b) itself and no Ei of a large negative argument underflows
 * (GSL would report an underflow through its error handler).  Caller
 * guarantees 0 < b < log(DBL_MAX). */
static double t41_I12(double w, double nm1, double b)
{
  double x1 = b * (nm1 + 1.0 - nm1 * w) / nm1;
  af_gsl_quiet_enter();
  double I1 = gsl_sf_expint_Ei(b) - gsl_sf_expint_Ei(b * w);
  double I2 = exp(b) * gsl_sf_expint_E1_scaled(b / nm1) -
              exp(b * w) * gsl_sf_expint_E1_scaled(x1);
  af_gsl_quiet_leave();
  return I1 + I2;
}

/* Common argument checks; *edge = +1 at w = 0 (gamma = 1), -1 at
 * 1 + (n-1) gamma = 0, 0 inside. */
static int t41_check(int *edge, double w, double lg, size_t n, double beta)
{
  if (n < 2)
    return AF_EINVAL;
  if (!isfinite(beta) || !isfinite(w))
    return AF_ENONFINITE;
  if (beta < 0 || w < 0 || isnan(lg))
    return AF_EINVAL;
  if (beta >= GSL_LOG_DBL_MAX)
    return AF_EOVERFLOW; /* Ei(beta) ~ e^beta / beta overflows */
  *edge = w == 0 ? 1 : (isinf(lg) ? -1 : 0);
  return AF_OK;
}

/* The two T4.1d closed forms from lw = ln(1 - gamma) = ln w and
 * lg = ln(1 + (n-1) gamma):
 *  - Post-LN time t(gamma);
 *  - Pre-LN radius: d ln r / d gamma = c/F (dr/dt = c, dgamma/dt = F/r),
 *    integrated: ln(r/r0) = [I1 + I2 - (n-1) lw - lg] / (2n). */
typedef enum { T41_POSTLN_TIME, T41_PRELN_LOG_R } t41_form;

static int t41_closed(double *out, t41_form form, double w, double lw,
                      double lg, size_t n, double beta)
{
  int edge, st = t41_check(&edge, w, lg, n, beta);
  if (st != AF_OK)
    return st;
  if (!out)
    return AF_EINVAL;
  if (edge) {
    *out = edge * INFINITY;
    return AF_OK;
  }
  double nm1 = (double) (n - 1);
  if (form == T41_POSTLN_TIME) {
    /* beta = 0: F = 2(1-g)(1+(n-1)g)/n, and partial fractions give
     * t = (lg - lw)/2, the beta -> 0 limit of the closed form. */
    if (beta == 0)
      *out = 0.5 * (lg - lw);
    else
      *out = (t41_I12(w, nm1, beta) + nm1 * (lg - lw)) / (2.0 * (double) n);
  } else {
    /* beta = 0: c/F = 1/(2(1-g)), so ln(r/r0) = -lw/2. */
    if (beta == 0)
      *out = -0.5 * lw;
    else
      *out = (t41_I12(w, nm1, beta) - nm1 * lw - lg) / (2.0 * (double) n);
  }
  return AF_OK;
}

/* A closed form at gamma in [-1/(n-1), 1]. */
static int t41_closed_gamma(double *out, t41_form form, double gamma,
                            size_t n, double beta)
{
  if (!isfinite(gamma))
    return AF_ENONFINITE;
  if (n < 2)
    return AF_EINVAL;
  double nm1 = (double) (n - 1);
  if (gamma > 1 || nm1 * gamma < -1)
    return AF_EINVAL;
  return t41_closed(out, form, 1.0 - gamma, log1p(-gamma), log1p(nm1 * gamma),
                    n, beta);
}

/* A closed form at the gap w = 1 - gamma in [0, n/(n-1)]. */
static int t41_closed_gap(double *out, t41_form form, double w, size_t n,
                          double beta)
{
  if (n < 2)
    return AF_EINVAL;
  if (!isfinite(w))
    return AF_ENONFINITE;
  double nm1 = (double) (n - 1), lin = (double) n - nm1 * w;
  if (w < 0 || lin < 0)
    return AF_EINVAL;
  return t41_closed(out, form, w, log(w), log(lin), n, beta);
}

int af_t41_time_postln(double *t, double gamma, size_t n, double beta)
{
  return t41_closed_gamma(t, T41_POSTLN_TIME, gamma, n, beta);
}

int af_t41_time_postln_gap(double *t, double w, size_t n, double beta)
{
  return t41_closed_gap(t, T41_POSTLN_TIME, w, n, beta);
}

int af_t41_preln_log_r(double *logr, double gamma, size_t n, double beta)
{
  return t41_closed_gamma(logr, T41_PRELN_LOG_R, gamma, n, beta);
}

int af_t41_preln_log_r_gap(double *logr, double w, size_t n, double beta)
{
  return t41_closed_gap(logr, T41_PRELN_LOG_R, w, n, beta);
}

/* I2: with t(u) the inverse of u(t) = 2(sqrt(t+1) - 1), t'(u) = sqrt(t+1),
 * so LN-Scaling's factor sqrt(t+1) / t'(u) = 1 is Post-LN.  Written as
 * 2t / (sqrt(t+1) + 1) to avoid the cancellation at small t. */
double af_t41_lnscaling_time(double t)
{
  if (!(t >= -1.0))
    return NAN;
  return 2.0 * t / (sqrt(t + 1.0) + 1.0);
}

/* ------------------------------------------------------------------ */
/* T4.1c: K(n, beta)                                                    */
/* ------------------------------------------------------------------ */

typedef struct {
  double nm1, beta;
} k_ctx;

/* Independent variable rho = ln(r/r0); y[0] = u = ln w, y[1] = v = u + 2 rho.
 * dv/drho = -2 expm1(-b w) / (1 + (n-1)(1-w) e^{-b w}), du/drho = dv/drho - 2
 * (derivation in the file header). */
static double k_dv(double w, const k_ctx *k)
{
  double E = exp(-k->beta * w);
  return -2.0 * expm1(-k->beta * w) / (1.0 + k->nm1 * (1.0 - w) * E);
}

typedef struct {
  k_ctx k;
  int status; /* af_status of a failed right-hand side */
} k_run_ctx;

static int k_rhs(double t, const double y[], double dy[], void *params)
{
  (void) t;
  k_run_ctx *c = params;
  double dv = k_dv(exp(y[0]), &c->k);
  dy[0] = dv - 2.0;
  dy[1] = dv;
  if (!isfinite(dv)) {
    c->status = AF_ENONFINITE;
    return GSL_EBADFUNC;
  }
  return GSL_SUCCESS;
}

int af_t41_K_args(int have_out, size_t n, double beta)
{
  if (!have_out || n < 2)
    return AF_EINVAL;
  if (!isfinite(beta))
    return AF_ENONFINITE;
  if (beta < 0)
    return AF_EINVAL;
  return AF_OK;
}

int af_t41_K(double *K, size_t n, double beta)
{
  int st = af_t41_K_args(K != NULL, n, beta);
  if (st != AF_OK)
    return st;
  k_run_ctx c = {{(double) (n - 1), beta}, AF_OK};
  gsl_odeiv2_system sys = {k_rhs, NULL, 2, &c};
  ode_run o = {0};
  st = ode_run_alloc(&o, 2, AF_T41_RTOL, AF_T41_ATOL, sys);
  o.status = &c.status;
  o.max_steps = AF_T41_MAX_STEPS;
  o.h = 1e-3;
  double y[2] = {0.0, 0.0}, rho = 0.0;
  /* As w -> 0, dv/drho = 2 b w / n + O(w^2) and w ~ K e^{-2 rho}, so the
   * tail int_rho^inf dv/drho is dv/drho(rho) / 2 to leading order.  Stop
   * once that tail is below half an ulp of v (v = ln K); the stride 1/2
   * in rho divides the tail by e per stride (rho ~ 18 at n = 6, beta = 2). */
  const double stride = 0.5;
  while (st == AF_OK) {
    st = ode_advance(&o, &rho, rho + stride, y);
    if (st != AF_OK)
      break;
    double tail = 0.5 * k_dv(exp(y[0]), &c.k);
    if (tail <= 0.5 * DBL_EPSILON * fabs(y[1]) || tail == 0) {
      y[1] += tail;
      break;
    }
    /* v increases to ln K: past log(DBL_MAX), K is not representable. */
    if (y[1] >= GSL_LOG_DBL_MAX) {
      st = AF_EOVERFLOW;
      break;
    }
    /* Unreachable guard: with v < log(DBL_MAX), w = e^{v - 2 rho}
     * underflows to 0 (tail 0, loop ends) before rho passes this. */
    if (rho > 0.5 * (GSL_LOG_DBL_MAX - log(DBL_TRUE_MIN)) + 1.0) {
      st = AF_ENOPROGRESS;
      break;
    }
  }
  ode_run_free(&o);
  if (st == AF_OK)
    *K = exp(y[1]);
  return st;
}

int af_t41_K_closed(double *K, size_t n, double beta)
{
  int st = af_t41_K_args(K != NULL, n, beta);
  if (st != AF_OK)
    return st;
  if (beta == 0) {
    *K = 1.0; /* r^2 = r0^2/(1-gamma) exactly (T4.1d at beta = 0) */
    return AF_OK;
  }
  if (beta >= GSL_LOG_DBL_MAX)
    return AF_EOVERFLOW;
  /* ln(w (r/r0)^2) = [I1 + I2 + ln w - ln(n - (n-1) w)] / n from the
   * invariant; as w -> 0, I1 + ln w -> Ei(b) - gamma_E - ln b (Ei(x) =
   * gamma_E + ln x + O(x)) and I2 -> e^b E1s(b/(n-1)) - E1s(b n/(n-1)). */
  double nm1 = (double) (n - 1), dn = (double) n;
  af_gsl_quiet_enter();
  double lnK = gsl_sf_expint_Ei(beta) - M_EULER - log(beta) +
               exp(beta) * gsl_sf_expint_E1_scaled(beta / nm1) -
               gsl_sf_expint_E1_scaled(beta * dn / nm1) - log(dn);
  af_gsl_quiet_leave();
  if (!(lnK / dn < GSL_LOG_DBL_MAX))
    return AF_EOVERFLOW;
  *K = exp(lnK / dn);
  return AF_OK;
}
