/* merge.c -- merging time of two tokens on the circle under Post-LN by
 * adaptive Gauss-Kronrod quadrature (GSL qag, 61 points), see merge.h. */
#include <config.h>

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
 * in phi: du = D, d ln r = c D, dt = r D per unit decrease. */
static int preln_field(double phi, const double y[], double f[], void *p)
{
  double beta = *(const double *) p;
  double s = sin(0.5 * phi), g = 2.0 * s * s; /* 1 - cos phi */
  double D = (1.0 + exp(beta * g)) / (2.0 * sin(phi));
  double E = exp(-beta * g);
  double c = (1.0 + E * cos(phi)) / (1.0 + E);
  f[0] = -D; /* d/dphi: phi decreases as u grows */
  f[1] = -c * D;
  f[2] = -exp(y[1]) * D;
  return GSL_SUCCESS;
}

int af_merge_time_preln(double *t_pre, double *t_post, double beta,
                        double phi0, double phie)
{
  if (!(phie > 0) || !(phie <= phi0) || !(phi0 < M_PI) || !(beta >= 0)
      || !isfinite(beta))
    return AF_EINVAL;
  gsl_odeiv2_system sys = {preln_field, NULL, 3, &beta};
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
  if (t_post)
    *t_post = y[0];
  if (t_pre)
    *t_pre = y[2];
  return AF_OK;
}
