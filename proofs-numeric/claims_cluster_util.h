/* claims_cluster_util.h -- small helpers shared by claims_cluster.c and
 * claims_props.c (private to them). */
#ifndef AF_CLAIMS_CLUSTER_UTIL_H
#define AF_CLAIMS_CLUSTER_UTIL_H

#include <math.h>
#include <stddef.h>

#include "verify.h"

static inline int is_quick(const af_vctx *c)
{
  return c->level == AF_LEVEL_QUICK;
}

static inline const char *sname(af_scheme_id s)
{
  const af_scheme *sc = af_scheme_get(s);
  return sc ? sc->name : "?";
}

/* Tolerance rows other than the claim's own key: NaN makes the claim an
 * ERROR naming the missing row. */
static inline int need_tol(af_vresult *r, const af_vctx *c, const char *key,
                    double *v)
{
  *v = af_v_tol(c, key);
  if (isnan(*v)) {
    r->status = AF_V_ERROR;
    af_v_note(r, "no row '%s' in the tolerance table", key);
    return 0;
  }
  return 1;
}

static inline void opts(af_integ_opts *o, double rtol, double atol)
{
  af_integ_opts_init(o);
  o->rtol = rtol;
  o->atol = atol;
}

#define unit_dirs af_v_unit_dirs /* th = y_j / |y_j| (verify.c) */

static inline double dot(const double *a, const double *b, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += a[i] * b[i];
  return s;
}

/* |a - b|^2 / 2 = 1 - <a, b> for unit a, b, accurate as they merge. */
static inline double half_gap(const double *a, const double *b, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return 0.5 * s;
}

#endif
