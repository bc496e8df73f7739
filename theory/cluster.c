/* cluster.c -- predictions for T3.1r, T4.2, T4.3, P1 (USA), P2, P3 of the
 * theorems.md.  See cluster.h.
 *
 * T3.1r infimum (derived).  For Pre-LN, dr_j/dt = c_j = N / D with
 *     N = e^b + sum_{k != j} e^{b x_k} x_k,   D = e^b + sum_{k != j} e^{b x_k},
 * x_k = <theta_j, theta_k>.  Only the cosines to theta_j enter, and for
 * d >= 2 every tuple (x_k) in [-1, 1]^{n-1} is realized (theta_k =
 * x_k theta_j + sqrt(1 - x_k^2) u with one unit u orthogonal to theta_j).
 * lambda = inf N / D is the root of g(lambda) = min_x (N - lambda D)
 * (Dinkelbach), and N - lambda D = e^b (1 - lambda) + sum_k h(x_k) with
 * h(x) = e^{bx} (x - lambda) is separable: each x_k takes the minimizer of
 * h, h'(x) = e^{bx}(1 + b (x - lambda)), i.e. x* = lambda - 1/b clamped to
 * [-1, 1] (x* = -1 at b = 0).  Hence
 *     g(lambda) = e^b (1 - lambda) + (n - 1) e^{b x*} (x* - lambda),
 * strictly decreasing (envelope theorem: g' = -e^b - (n-1) e^{b x*} < 0),
 * g(-1) >= 2 e^b > 0 and g(1) = (n-1) min_x e^{bx}(x - 1) < 0, so the root
 * is unique in (-1, 1) and found by bisection to the last bit.  It is
 * attained: all others at cosine x*.  The paper's bound
 * (e^b - n + 1)/(n e^b) follows from x e^{bx} >= -1 on [-1, 1] (so
 * N >= e^b - (n - 1) >= 0 when n <= e^b) and D <= n e^b; the infimum is
 * much larger (c* = 0.5507 at n = 7, b = 2 against the bound 0.0269).
 * g is scaled by e^{-b}, so it never overflows.
 *
 * USA ODE (P1).  dgamma/dt = (2/n) e^{b gamma} (1-gamma)(1+(n-1)gamma).
 * With w = 1 - gamma and u = log w:
 *     du/dt = -(2/n) e^{b (1-w)} (n - (n-1) w),
 * smooth, tending to -2 e^b as w -> 0: u follows the gap with relative
 * accuracy long after 1 - gamma is below DBL_EPSILON (the local rate
 * e^{-2 e^b t} of spec P1).  Integrated with GSL rk8pd; the default
 * tolerances rtol 1e-14, atol 1e-16 are those of t41.c (the reference must
 * be >= 100 times more accurate than the n-particle run it is compared
 * with, at rtol 1e-12).
 *
 * Wendel (P3).  J. G. Wendel, "A problem in geometric probability", Math.
 * Scand. 11 (1962) 109-111: P = 2^{-(n-1)} sum_{k=0}^{d-1} C(n-1, k),
 * summed from log binomials (gsl_sf_lnchoose) so large n cannot overflow.
 */
#include <config.h>

#include "cluster.h"
#include "internal.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_gamma.h>

#define AF_CL_RTOL 1e-14
#define AF_CL_ATOL 1e-16
#define AF_CL_MAX_STEPS 10000000UL

static int bad_nb(size_t n, double beta)
{
  return n < 1 || !isfinite(beta) || beta < 0;
}

/* ------------------------------------------------------------ T3.1r */

double af_cl_t31r_bound(size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  /* (e^b - n + 1)/(n e^b) = (1 - (n-1) e^{-b}) / n: no overflow */
  return (1.0 - (double) (n - 1) * exp(-beta)) / (double) n;
}

int af_cl_t31r_applies(size_t n, double beta)
{
  return !bad_nb(n, beta) && beta > 0 && log((double) n) <= beta;
}

double af_cl_t31r_rate_at(double x, size_t n, double beta)
{
  if (bad_nb(n, beta) || !(x >= -1 && x <= 1))
    return NAN;
  double e = exp(beta * (x - 1.0)); /* e^{bx} / e^b */
  double m = (double) (n - 1);
  return (1.0 + m * x * e) / (1.0 + m * e);
}

/* Minimizer of h(x) = e^{bx}(x - lambda) on [-1, 1]. */
static double t31r_xstar(double lambda, double beta)
{
  if (beta == 0)
    return -1.0;
  double x = lambda - 1.0 / beta;
  return x < -1 ? -1.0 : (x > 1 ? 1.0 : x);
}

/* g(lambda) e^{-b}. */
static double t31r_g(double lambda, size_t n, double beta)
{
  double x = t31r_xstar(lambda, beta);
  return (1.0 - lambda)
         + (double) (n - 1) * exp(beta * (x - 1.0)) * (x - lambda);
}

int af_cl_t31r_inf(double *cmin, double *xmin, size_t n, double beta)
{
  if (bad_nb(n, beta) || n < 2)
    return AF_EINVAL;
  double lo = -1.0, hi = 1.0; /* g(lo) > 0 > g(hi) (file header) */
  for (;;) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi)
      break; /* interval down to adjacent doubles */
    if (t31r_g(mid, n, beta) > 0)
      lo = mid;
    else
      hi = mid;
  }
  double lam = 0.5 * (lo + hi);
  if (xmin)
    *xmin = t31r_xstar(lam, beta);
  if (cmin)
    *cmin = lam;
  return AF_OK;
}

/* ------------------------------------------------------------ T4.2 */

double af_cl_t42_shape(size_t n, size_t d)
{
  if (n < 2 || d < 1)
    return NAN;
  double ln = log((double) n);
  return sqrt(ln / (double) n) + ln / (double) d;
}

int af_cl_t42_applies(size_t n, size_t d)
{
  if (n < 2 || d < 1)
    return 0;
  double nl = (double) n * log((double) n);
  return sqrt((double) d) >= log(nl) && nl >= (double) d;
}

/* ------------------------------------------------------------ T4.3 */

double af_cl_t43_delta_max(size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  double n2 = 100.0 * (double) n * (double) n;
  double b2 = beta > 1 ? beta * beta : 1.0; /* min(1/(n2 b^2), 1/n2) */
  return 1.0 / (n2 * b2);
}

double af_cl_t43_delta_max_printed(size_t n, double beta)
{
  if (bad_nb(n, beta))
    return NAN;
  if (beta == 0)
    return INFINITY;
  return 1.0 / (100.0 * (double) n * (double) n * beta * beta);
}

void af_cl_t43a_bounds(double *lo, double *hi, double r0, double delta,
                       double t)
{
  if (lo)
    *lo = r0 + (1.0 - 4.0 * delta) * t;
  if (hi)
    *hi = r0 + t;
}

double af_cl_t43b_scale(af_scheme_id scheme, double t, double alpha)
{
  switch (scheme) {
  case AF_POST_LN: return 1.0;
  case AF_PRE_LN:
  case AF_MIX_LN:
  case AF_PERI_LN: return t;
  case AF_LN_SCALING: return sqrt(t);
  case AF_NGPT: return 1.0 / alpha;
  default: return NAN;
  }
}

/* The theorems.md S1-S6, written out again (see cluster.h). */
double af_cl_speed(af_scheme_id scheme, double t, double r, double a,
                   double alpha, double tau)
{
  switch (scheme) {
  case AF_POST_LN: return 1.0;
  case AF_PRE_LN: return r;
  case AF_MIX_LN: return t <= tau ? 1.0 : r;
  case AF_PERI_LN: return r * a;
  case AF_NGPT: return a / alpha;
  case AF_LN_SCALING: return sqrt(t + 1.0);
  default: return NAN;
  }
}

/* ------------------------------------------------------------ P1 (USA) */

double af_cl_usa_F(double gamma, size_t n, double beta)
{
  if (bad_nb(n, beta) || n < 2)
    return NAN;
  return 2.0 / (double) n * exp(beta * gamma) * (1.0 - gamma)
         * (1.0 + (double) (n - 1) * gamma);
}

typedef struct {
  size_t n;
  double beta;
} usa_ctx;

static int usa_rhs(double t, const double y[], double dy[], void *params)
{
  (void) t;
  const usa_ctx *c = params;
  double w = exp(y[0]);
  double m = (double) c->n;
  dy[0] = -(2.0 / m) * exp(c->beta * (1.0 - w)) * (m - (m - 1.0) * w);
  return isfinite(dy[0]) ? GSL_SUCCESS : GSL_EBADFUNC;
}

int af_cl_usa_solve(double *gamma, double *gap, const double *times,
                    size_t ntimes, size_t n, double beta, double rtol,
                    double atol)
{
  if (bad_nb(n, beta) || n < 2 || (ntimes > 0 && times == NULL))
    return AF_EINVAL;
  if (beta >= log(DBL_MAX))
    return AF_EOVERFLOW;
  for (size_t k = 0; k < ntimes; k++)
    if (!isfinite(times[k]) || times[k] < 0
        || (k > 0 && times[k] < times[k - 1]))
      return AF_EINVAL;
  if (!(rtol > 0))
    rtol = AF_CL_RTOL;
  if (!(atol > 0))
    atol = AF_CL_ATOL;
  usa_ctx c = {n, beta};
  gsl_odeiv2_system sys = {usa_rhs, NULL, 1, &c};
  gsl_odeiv2_step *st = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, 1);
  gsl_odeiv2_control *con = gsl_odeiv2_control_y_new(atol, rtol);
  gsl_odeiv2_evolve *ev = gsl_odeiv2_evolve_alloc(1);
  int rc = (st && con && ev) ? AF_OK : AF_ENOMEM;
  double t = 0, u = 0, h = 1e-3;
  af_gsl_quiet_enter(); /* statuses, not the caller's handler */
  for (size_t k = 0; k < ntimes && rc == AF_OK; k++) {
    unsigned long steps = 0;
    while (t < times[k] && rc == AF_OK) {
      if (++steps > AF_CL_MAX_STEPS) {
        rc = AF_EMAXSTEPS;
        break;
      }
      int s = gsl_odeiv2_evolve_apply(ev, con, st, &sys, &t, times[k], &h,
                                      &u);
      if (s != GSL_SUCCESS)
        rc = AF_EGSL;
    }
    if (rc != AF_OK)
      break;
    if (gamma)
      gamma[k] = -expm1(u);
    if (gap)
      gap[k] = exp(u);
  }
  af_gsl_quiet_leave();
  if (ev)
    gsl_odeiv2_evolve_free(ev);
  if (con)
    gsl_odeiv2_control_free(con);
  if (st)
    gsl_odeiv2_step_free(st);
  return rc;
}

/* ------------------------------------------------------------ P2 */

int af_cl_antipodal_radius(double *r, af_scheme_id scheme, double r0,
                           double beta, double t, double tau)
{
  if (r == NULL || !isfinite(r0) || !(r0 > 0) || bad_nb(2, beta)
      || !isfinite(t) || t < 0 || !isfinite(tau) || tau < 0)
    return AF_EINVAL;
  /* A_1 = (e^b - e^{-b})/(e^b + e^{-b}) theta_1 = tanh(b) theta_1. */
  switch (scheme) {
  case AF_PRE_LN: *r = r0 + t * tanh(beta); return AF_OK;
  case AF_MIX_LN: *r = r0 + (t > tau ? t - tau : 0.0) * tanh(beta); return AF_OK;
  case AF_PERI_LN:
    if (beta == 0)
      return AF_EINVAL;
    *r = r0 + t; /* <theta, A>/|A| = 1 */
    return AF_OK;
  case AF_POST_LN:
  case AF_NGPT:
  case AF_LN_SCALING: *r = r0; return AF_OK;
  default: return AF_EINVAL;
  }
}

/* ------------------------------------------------------------ P3 */

double af_cl_wendel(size_t n, size_t d)
{
  if (n < 1 || d < 1)
    return NAN;
  if (d >= n)
    return 1.0;
  double m = (double) (n - 1), p = 0;
  for (size_t k = 0; k < d; k++)
    p += exp(gsl_sf_lnchoose((unsigned) (n - 1), (unsigned) k) - m * M_LN2);
  return p;
}
