/* layer_maps.c -- the discrete layer maps S7 (theorems.md): one layer of
 * each scheme as a map of the state, from the attention of attention.c. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "scheme_spec.h"

/* dot(x, y, d): af_dot (internal.h), as in attention.c. */
#define dot af_dot

/* y_out direction = v/|v|; AF_EZERONORM if v = 0. */
static int set_direction(double *out, const double *v, size_t d)
{
  double s = sqrt(dot(v, v, d));
  if (!isfinite(s))
    return AF_ENONFINITE;
  if (s == 0)
    return AF_EZERONORM;
  for (size_t i = 0; i < d; i++)
    out[i] = v[i] / s;
  return AF_OK;
}

int af_layer_step(double *y_out, const double *y_in, size_t layer, double h,
                  const af_model *m, af_work *w)
{
  if (w == NULL || y_in == NULL || y_out == NULL || !(h > 0) || !isfinite(h))
    return AF_EINVAL;
  double t = (double) layer * h;
  /* The weight set of layer l is selected from the middle of its step. */
  int seg_saved = w->seg_set;
  double lo = w->seg_lo, hi = w->seg_hi;
  w->seg_set = 1;
  w->seg_lo = t;
  w->seg_hi = t + h;
  int rc = af_work_attention(w, t, y_in, m);
  w->seg_set = seg_saved;
  w->seg_lo = lo;
  w->seg_hi = hi;
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  af_scheme_id sc = m->scheme;
  if (sc == AF_MIX_LN)
    sc = (t < m->tau) ? AF_POST_LN : AF_PRE_LN; /* theorems.md S7: l h < tau */
  const af_scheme *row = af_scheme_get(sc);
  /* A spec'd scheme (theorems.md U1): sphere or residual, mix switching
   * from the first to the second where S7 switches Mix-LN. */
  const af_scheme_spec *spec = NULL;
  int place = AF_SPEC_LAYER_NONE;
  if (sc == AF_SCHEME_USER && (spec = af_scheme_spec_of(m->user)) != NULL) {
    row = m->user;
    place = spec->layer;
    if (place == AF_SPEC_LAYER_MIX)
      place = (t < m->tau) ? AF_SPEC_LAYER_SPHERE : AF_SPEC_LAYER_RESIDUAL;
    if (place == AF_SPEC_LAYER_NONE)
      return AF_EINVAL; /* the spec says layer = none */
  }
  if (row == NULL) /* a user-defined callback scheme has no layer map */
    return AF_EINVAL;
  double alpha = af_model_alpha(m, t);
  double *v = w->T; /* scratch n x d (free after af_work_attention) */
  double *rnew = w->ytmp;
  for (size_t j = 0; j < n; j++) {
    if (row->needs_anorm && af_work_attention_vanishes(w, j))
      return AF_EZEROATTN;
    const double *tj = w->th + j * d, *Aj = w->A + j * d;
    double r = y_in[n * d + j], a = w->a[j];
    double *vj = v + j * d;
    rnew[j] = r;
    if (spec != NULL) {
      double sj, rhoj, g;
      af_scheme_spec_eval(&sj, &rhoj, &g, spec, t, r, w->c[j], a, alpha,
                          m->tau);
      if (place == AF_SPEC_LAYER_SPHERE) { /* theta+ = N(theta + h A / s) */
        if (!isfinite(sj) || !isfinite(rhoj))
          return AF_ENONFINITE;
        if (!(sj > 0))
          return AF_ESPEED;
        double f = h / sj;
        for (size_t i = 0; i < d; i++)
          vj[i] = tj[i] + f * Aj[i];
        rnew[j] = r + h * rhoj;
      } else { /* residual: x+ = x + h A / g */
        if (!isfinite(g))
          return AF_ENONFINITE;
        if (!(g > 0))
          return AF_ESPEED;
        for (size_t i = 0; i < d; i++)
          vj[i] = r * tj[i] + h * Aj[i] / g;
        rnew[j] = sqrt(dot(vj, vj, d));
      }
    } else
    switch (sc) {
    case AF_POST_LN: /* theta+ = N(theta + h A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + h * Aj[i];
      break;
    case AF_PRE_LN: /* x+ = x + h A */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i];
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_PERI_LN: /* x+ = x + h N(A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i] / a;
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_NGPT: /* theta+ = N(theta + alpha h (N(A) - theta)) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + alpha * h * (Aj[i] / a - tj[i]);
      break;
    case AF_LN_SCALING: { /* theta+ = N(theta + h A / sqrt(l h + 1)) */
      double f = h / sqrt(t + 1.0);
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + f * Aj[i];
      break;
    }
    default:
      return AF_EINVAL;
    }
    if (m->fault & AF_FAULT_RADIAL)
      rnew[j] = r + 1.1 * (rnew[j] - r);
    if (m->fault & AF_FAULT_SPEED) /* the step's angle, as s (1 + 0.05 t) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + (vj[i] / (row->moves_radius ? r : 1.0) - tj[i])
                            / (1.0 + 0.05 * t);
    if (!isfinite(rnew[j]))
      return AF_ENONFINITE;
  }
  /* Write only after every token succeeded: y_out may alias y_in. */
  double *tmp = w->P;
  for (size_t j = 0; j < n; j++) {
    rc = set_direction(tmp + j * d, v + j * d, d);
    if (rc != AF_OK)
      return rc;
    if (rnew[j] == 0)
      return AF_EZERONORM;
  }
  memcpy(y_out, tmp, n * d * sizeof(double));
  memcpy(y_out + n * d, rnew, n * sizeof(double));
  return AF_OK;
}
