/* merge.c -- merging time of two tokens on the circle under Post-LN by
 * adaptive Gauss-Kronrod quadrature (GSL qag, 61 points), see merge.h. */
#include <config.h>

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

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
