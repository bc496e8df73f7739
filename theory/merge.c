/* merge.c -- merging time of two tokens on the circle under Post-LN by
 * adaptive Gauss-Kronrod quadrature (GSL qag, 61 points), and under the
 * other schemes by the Post-LN time change (I2): closed form for
 * LN-Scaling, rk8pd in the angle for Pre-, Peri-LN and nGPT, Post-LN up
 * to tau then Pre-LN for Mix-LN; see merge.h. */
#include <config.h>

#include <float.h>
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_odeiv2.h>

#include "attnflow.h"
#include "merge.h"

static double integrand(double phi, void *p)
{
  double beta = *(const double *) p;
  /* 1 - cos phi = 2 sin^2(phi/2), accurate for small phi */
  double s = sin(0.5 * phi);
  return (1.0 + exp(2.0 * beta * s * s)) / (2.0 * sin(phi));
}

int af_merge_time(double *t, double beta, double phi0, double phie)
{
  if (t == NULL || !(phie > 0) || !(phie <= phi0) || !(phi0 < M_PI)
      || !(beta >= 0) || !isfinite(beta))
    return AF_EINVAL;
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc(200);
  if (ws == NULL)
    return AF_ENOMEM;
  gsl_function F = {integrand, &beta};
  double err;
  gsl_set_error_handler_off(); /* the library never aborts (integrate.c) */
  int rc = gsl_integration_qag(&F, phie, phi0, 0.0, 1e-13, 200,
                               GSL_INTEG_GAUSS61, ws, t, &err);
  gsl_integration_workspace_free(ws);
  return rc == GSL_SUCCESS ? AF_OK : AF_EGSL;
}

/* y = (u, ln r, t) as functions of phi (decreasing from phi0): with
 * D = |du/dphi| = (1 + e^{beta (1 - cos phi)}) / (2 sin phi), going down
 * in phi: du = D, d ln r = c D, dt = s D per unit decrease, s the speed
 * factor (S2 Pre-LN r, S4 Peri-LN r |A|, S5 nGPT |A|/alpha with r fixed;
 * c = <th, A> is d ln r/du for Pre- and Peri-LN alike). */
typedef struct {
  double beta, alpha;
  af_scheme_id scheme;
} merge_par;

static int preln_field(double phi, const double y[], double f[], void *p)
{
  const merge_par *q = p;
  double beta = q->beta;
  double s = sin(0.5 * phi), g = 2.0 * s * s; /* 1 - cos phi */
  double D = (1.0 + exp(beta * g)) / (2.0 * sin(phi));
  double E = exp(-beta * g);
  double c = (1.0 + E * cos(phi)) / (1.0 + E);
  f[0] = -D; /* d/dphi: phi decreases as u grows */
  f[1] = -c * D;
  f[2] = -exp(y[1]) * D;
  if (q->scheme != AF_PRE_LN) {
    /* |A|^2 = (1 + E^2 + 2 E cos phi)/(1 + E)^2 = c^2 + (E sin phi/(1+E))^2 */
    double A = hypot(c, E * sin(phi) / (1.0 + E));
    if (q->scheme == AF_NGPT) {
      f[1] = 0.0;
      f[2] = -A / q->alpha * D;
    } else
      f[2] *= A;
  }
  return GSL_SUCCESS;
}

/* The ODE in phi from phi0 to phie for Pre-LN, Peri-LN or nGPT. */
static int merge_ode(double *t, double *u, af_scheme_id scheme, double beta,
                     double alpha, double phi0, double phie)
{
  merge_par par = {beta, alpha, scheme};
  gsl_odeiv2_system sys = {preln_field, NULL, 3, &par};
  gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new(
      &sys, gsl_odeiv2_step_rk8pd, -1e-3, 0.0, 1e-13);
  if (drv == NULL)
    return AF_ENOMEM;
  gsl_set_error_handler_off(); /* the library never aborts (integrate.c) */
  double phi = phi0, y[3] = {0, 0, 0};
  int rc = gsl_odeiv2_driver_apply(drv, &phi, phie, y);
  gsl_odeiv2_driver_free(drv);
  if (rc != GSL_SUCCESS)
    return AF_EGSL;
  if (u)
    *u = y[0];
  if (t)
    *t = y[2];
  return AF_OK;
}

int af_merge_time_preln(double *t_pre, double *t_post, double beta,
                        double phi0, double phie)
{
  if (!(phie > 0) || !(phie <= phi0) || !(phi0 < M_PI) || !(beta >= 0)
      || !isfinite(beta))
    return AF_EINVAL;
  return merge_ode(t_pre, t_post, AF_PRE_LN, beta, 1.0, phi0, phie);
}

/* Mix-LN: the angle phi_tau reached at Post-LN time tau, by bisection of
 * af_merge_time(beta, phi0, .) = tau on [phie, phi0] (decreasing in its
 * last argument), to the resolution of double. */
static int merge_angle_at(double *phi_tau, double beta, double phi0,
                          double phie, double tau)
{
  double lo = phie, hi = phi0; /* time(lo) > tau >= time(hi) = 0 */
  for (int it = 0; it < 200 && hi - lo > 4 * DBL_EPSILON * hi; it++) {
    double mid = 0.5 * (lo + hi), tm;
    int rc = af_merge_time(&tm, beta, phi0, mid);
    if (rc != AF_OK)
      return rc;
    if (tm > tau)
      lo = mid;
    else
      hi = mid;
  }
  *phi_tau = 0.5 * (lo + hi);
  return AF_OK;
}

int af_merge_time_scheme(double *t, double *t_post, af_scheme_id scheme,
                         double beta, double alpha, double tau, double phi0,
                         double phie)
{
  if (t == NULL || !(phie > 0) || !(phie <= phi0) || !(phi0 < M_PI)
      || !(beta >= 0) || !isfinite(beta) || !(alpha > 0)
      || !isfinite(alpha) || !(tau >= 0) || !isfinite(tau))
    return AF_EINVAL;
  double u;
  int rc = af_merge_time(&u, beta, phi0, phie);
  if (rc != AF_OK)
    return rc;
  if (t_post)
    *t_post = u;
  switch (scheme) {
  case AF_POST_LN:
    *t = u;
    return AF_OK;
  case AF_LN_SCALING: /* dt/du = sqrt(t + 1): sqrt(t + 1) = 1 + u/2 */
    *t = u * (1.0 + 0.25 * u);
    return AF_OK;
  case AF_PRE_LN:
  case AF_PERI_LN:
  case AF_NGPT:
    return merge_ode(t, NULL, scheme, beta, alpha, phi0, phie);
  case AF_MIX_LN: {
    /* Post-LN (radii fixed at 1) until tau, Pre-LN from there */
    if (u <= tau) {
      *t = u;
      return AF_OK;
    }
    double phit, tp;
    rc = merge_angle_at(&phit, beta, phi0, phie, tau);
    if (rc == AF_OK)
      rc = merge_ode(&tp, NULL, AF_PRE_LN, beta, 1.0, phit, phie);
    if (rc == AF_OK)
      *t = tau + tp;
    return rc;
  }
  default:
    return AF_EINVAL;
  }
}
