/* limits.c -- the table of attnflow_limits.h, read by name (the Python
 * package takes its limits from here, so they are the command's). */
#include <string.h>

#include "internal.h"
#include "attnflow_limits.h"

static const struct {
  const char *name;
  double value;
} af_limits[] = {
    {"rtol_min", AF_RTOL_MIN},
    {"rtol_max", AF_RTOL_MAX},
    {"atol_max", AF_ATOL_MAX},
    {"cluster_cos_min", AF_COS_MIN},
    {"cluster_cos_max", AF_COS_MAX},
    {"precision_min", AF_PREC_MIN},
    {"precision_cli_min", AF_PREC_CLI_MIN},
    {"precision_max", AF_PREC_MAX},
    {"threads_max", AF_THREADS_MAX},
    {"sweep_max_runs", (double) AF_SWEEP_MAX_RUNS},
    {"mp_tol_min", AF_MP_TOL_MIN},
    {"mp_tol_max", AF_MP_TOL_MAX},
    {"sweep_default_max_runs", (double) AF_SWEEP_DEFAULT_MAX_RUNS},
};

#define AF_NLIMITS (sizeof af_limits / sizeof af_limits[0])

int af_limit_get(double *v, const char *name)
{
  if (v == NULL || name == NULL)
    return AF_EINVAL;
  for (size_t k = 0; k < AF_NLIMITS; k++)
    if (strcmp(af_limits[k].name, name) == 0) {
      *v = af_limits[k].value;
      return AF_OK;
    }
  return AF_EINVAL;
}

const char *af_limit_name(size_t k)
{
  return k < AF_NLIMITS ? af_limits[k].name : NULL;
}
