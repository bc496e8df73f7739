/* s7.c -- the layer maps S7 written again from theorems.md, and their
 * closed form on the symmetric start (see s7.h).
 *
 * Symmetric start.  n unit directions with common cosine gamma = 1 - w,
 * S = sum_k th_k, sigma = <th_i, S> = n - (n - 1) w, |S|^2 = n sigma.
 * Dividing weights by e^beta, A_i = ((1 - E) th_i + E S)/D with
 * E = e^{-beta w}, D = 1 + (n - 1) E, so
 *   c = <th_i, A_i> = (1 - E + E sigma)/D,
 *   a^2 = |A_i|^2 = ((1 - E)^2 + 2 (1 - E) E sigma + E^2 n sigma)/D^2,
 *   A_i - A_j = (1 - E)(th_i - th_j)/D.
 * Every map is v = R th + g A (Post-LN R = 1, g = h; Pre-LN R = r, g = h;
 * Peri-LN R = r, g = h/a; nGPT R = 1 - alpha_l h, g = alpha_l h / a;
 * LN-Scaling R = 1, g = h/sqrt(l h + 1)), hence
 *   v_i - v_j = kappa (th_i - th_j),  kappa = R + g (1 - E)/D,
 *   |v|^2 = R^2 + 2 R g c + g^2 a^2,
 *   w+ = |v_i - v_j|^2 / (2 |v|^2) = kappa^2 w / |v|^2,
 * and r+ = |v| for the maps that move the radius (Pre-, Peri-LN).
 *
 * Rounding of one layer step (af_s7_rounding), eps = DBL_EPSILON.  Each
 * attention component carries dA = (2n + beta(3d + 6) + d + 6) eps
 * (the softmax weights: scores (3d + 4) eps beta, exp, a sum of n; the
 * weighted sum of n unit vectors; see ident.c and S7.geodesic), |A| <= 1.
 * With G = |g| (|g| |A| <= h for every map; g = h/a divides by a, whose
 * error is d eps + sqrt(d) dA relative), each component of v carries
 * e_v = eps (2R + 3G) + G dA (2 + sqrt(d)); normalizing by |v| >= R - G
 * adds (d + 4) eps per component and doubles e_v/|v|; the radius |v| is
 * off by sqrt(d) e_v/|v| + (d + 2) eps relative.
 */
#include <config.h>

#include "s7.h"
#include "ident.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

static double alpha_at(const af_s7_params *p, double t)
{
  return p->decay == 0 ? p->alpha : p->alpha * pow(1.0 + t, -p->decay);
}

/* Mix-LN's layer l is Post-LN if l h < tau, else Pre-LN (theorems.md S7). */
static af_scheme_id effective(const af_s7_params *p, double t)
{
  if (p->scheme == AF_MIX_LN)
    return t < p->tau ? AF_POST_LN : AF_PRE_LN;
  return p->scheme;
}

/* R and g of v = R th + g A for radius r, |A| = a at time t. */
static int coeffs(double *R, double *g, af_scheme_id s, double r, double a,
                  double h, double t, const af_s7_params *p)
{
  double al;
  switch (s) {
  case AF_POST_LN:
    *R = 1.0;
    *g = h;
    return AF_OK;
  case AF_PRE_LN:
    *R = r;
    *g = h;
    return AF_OK;
  case AF_PERI_LN:
    if (!(a > 0))
      return AF_EZEROATTN;
    *R = r;
    *g = h / a;
    return AF_OK;
  case AF_NGPT:
    if (!(a > 0))
      return AF_EZEROATTN;
    al = alpha_at(p, t);
    *R = 1.0 - al * h;
    *g = al * h / a;
    return AF_OK;
  case AF_LN_SCALING:
    *R = 1.0;
    *g = h / sqrt(t + 1.0);
    return AF_OK;
  default:
    return AF_EINVAL;
  }
}

static int moves_radius(af_scheme_id s)
{
  return s == AF_PRE_LN || s == AF_PERI_LN;
}

int af_s7_step(double *y_out, const double *y_in, size_t n, size_t d,
               size_t layer, double h, const af_s7_params *p)
{
  if (!y_out || !y_in || !p || n == 0 || d == 0 || !(h > 0) || !isfinite(h))
    return AF_EINVAL;
  double t = (double) layer * h;
  af_scheme_id s = effective(p, t);
  double *th = malloc(n * d * sizeof *th), *A = malloc(n * d * sizeof *A);
  int st = AF_OK;
  if (!th || !A) {
    st = AF_ENOMEM;
    goto out;
  }
  for (size_t j = 0; j < n; j++) {
    const double *x = y_in + j * d;
    double nx = 0;
    for (size_t i = 0; i < d; i++)
      nx += x[i] * x[i];
    nx = sqrt(nx);
    if (!(nx > 0)) {
      st = AF_EZERONORM;
      goto out;
    }
    for (size_t i = 0; i < d; i++)
      th[j * d + i] = x[i] / nx;
  }
  st = af_id_attention(A, th, n, d, p->beta, NULL, NULL);
  if (st != AF_OK)
    goto out;
  for (size_t j = 0; j < n; j++) {
    const double *tj = th + j * d, *Aj = A + j * d;
    double a = 0;
    for (size_t i = 0; i < d; i++)
      a += Aj[i] * Aj[i];
    a = sqrt(a);
    double r = y_in[n * d + j], R, g;
    st = coeffs(&R, &g, s, r, a, h, t, p);
    if (st != AF_OK)
      goto out;
    double *o = y_out + j * d, nv = 0;
    for (size_t i = 0; i < d; i++) {
      o[i] = R * tj[i] + g * Aj[i];
      nv += o[i] * o[i];
    }
    nv = sqrt(nv);
    if (!(nv > 0) || !isfinite(nv)) {
      st = AF_EZERONORM;
      goto out;
    }
    for (size_t i = 0; i < d; i++)
      o[i] /= nv;
    y_out[n * d + j] = moves_radius(s) ? nv : r;
  }
out:
  free(th);
  free(A);
  return st;
}

void af_s7_rounding(double *edir, double *erad, size_t n, size_t d,
                    double beta, double h, double rmax, double amin,
                    const af_s7_params *p)
{
  double dA = (2.0 * (double) n + beta * (3.0 * (double) d + 6.0) +
               (double) d + 6.0) * EPS;
  double G = h, R = 1.0;
  if (p->scheme == AF_PRE_LN || p->scheme == AF_PERI_LN ||
      p->scheme == AF_MIX_LN)
    R = fmax(rmax, 1.0);
  (void) amin; /* |g| |A| <= h for every map (see above) */
  double ev = EPS * (2.0 * R + 3.0 * G) + G * dA * (2.0 + sqrt((double) d));
  double vmin = fmax(R - G, 0.5 * R);
  *edir = 2.0 * ev / vmin + ((double) d + 4.0) * EPS;
  *erad = sqrt((double) d) * ev / vmin + ((double) d + 2.0) * EPS;
}

int af_s7_sym_step(double *w_out, double *r_out, double w, double r, size_t n,
                   size_t layer, double h, const af_s7_params *p)
{
  if (!w_out || !r_out || !p || n < 2 || !(h > 0) || !isfinite(w) ||
      !isfinite(r))
    return AF_EINVAL;
  double t = (double) layer * h;
  af_scheme_id s = effective(p, t);
  double nm1 = (double) (n - 1), E = exp(-p->beta * w), D = 1.0 + nm1 * E;
  double sigma = (double) n - nm1 * w, ome = -expm1(-p->beta * w);
  double c = (ome + E * sigma) / D;
  double a2 = (ome * ome + 2.0 * ome * E * sigma + E * E * (double) n * sigma)
              / (D * D);
  double a = sqrt(a2), R, g;
  int st = coeffs(&R, &g, s, r, a, h, t, p);
  if (st != AF_OK)
    return st;
  double kappa = R + g * ome / D;
  double v2 = R * R + 2.0 * R * g * c + g * g * a2;
  *w_out = kappa * kappa * w / v2;
  *r_out = moves_radius(s) ? sqrt(v2) : r;
  return isfinite(*w_out) && isfinite(*r_out) ? AF_OK : AF_ENONFINITE;
}
