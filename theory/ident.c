/* ident.c -- identities I1, I3 and the S7 Post-LN geodesic step
 * (theorems.md S7, I1-I3), written from their formulas.
 *
 * Rounding bounds (Higham, Accuracy and Stability of Numerical Algorithms,
 * 2nd ed., 2002, §3.1 and §4.2: a recursive sum of N terms carries an
 * absolute error of at most (N - 1) eps sum |terms| to first order, a dot
 * product of length d at most d eps sum |x_i y_i|).  The inputs are unit
 * vectors normalized by the caller, each component within (d/2 + 2) eps
 * relative of the exact direction (a sum of d squares, a sqrt, a
 * division).
 *
 * Energy (I1).  s_jk = <th_j, M th_k>: the product M th_k and the dot
 * product each add at most d eps |M|, the inputs' normalization
 * 2 (d/2 + 2) eps |M| = (d + 4) eps |M|: |ds| <= (3d + 4) eps |M|.
 * The exponent x = beta s - m (x <= 0, |x| <= 2 beta |M|) is rounded once
 * (2 beta |M| eps), exp once (eps): each term exp(x) has a relative error
 * of at most beta |M| (3d + 6) eps + eps.  Summing n^2 positive terms adds
 * (n^2 - 1) eps relative.  Total: (n^2 + beta |M| (3d + 6) + 2) eps
 * relative in E (af_id_energy_rounding); log E = m + log S then carries
 * that much absolute plus eps |log E| from the final rounding.
 *
 * Variance (I3).  Each form is <= 2 in magnitude.  The mean of n unit
 * vectors: (n - 1) eps per component relative to 1; |th_k - mean|^2 and
 * |mean|^2 then at most 2 (n + d + 4) eps.  The mean cosine over
 * N = n(n-1)/2 pairs: each dot product <= d eps + (d + 4) eps from the
 * inputs, the sum of N terms of magnitude <= 1 at most (N - 1) eps each
 * after dividing by N; from gaps g = |th_i - th_j|^2 / 2 <= 2 the terms
 * are twice as large: 2 N eps + (2d + 8) eps + 2 (d + 2) eps.  With
 * 2N = n(n - 1) <= n^2 all three stay below (n^2 + 4d + 16) eps
 * (af_id_var_rounding).
 */
#include <config.h>

#include "ident.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dot(const double *x, const double *y, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += x[i] * y[i];
  return s;
}

/* out = M x (M NULL = identity). */
static void matvec(double *out, const double *M, const double *x, size_t d)
{
  if (M == NULL) {
    memcpy(out, x, d * sizeof(double));
    return;
  }
  for (size_t a = 0; a < d; a++)
    out[a] = dot(M + a * d, x, d);
}

/* Scores S_jk = <th_j, M th_k> into S (n x n). */
static int scores(double *S, const double *th, size_t n, size_t d,
                  const double *M)
{
  double *Mt = malloc(n * d * sizeof(double));
  if (Mt == NULL)
    return AF_ENOMEM;
  for (size_t k = 0; k < n; k++)
    matvec(Mt + k * d, M, th + k * d, d);
  for (size_t j = 0; j < n; j++)
    for (size_t k = 0; k < n; k++)
      S[j * n + k] = dot(th + j * d, Mt + k * d, d);
  free(Mt);
  return AF_OK;
}

static int bad_args(const double *th, size_t n, size_t d, double beta)
{
  return th == NULL || n < 1 || d < 1 || !isfinite(beta) || beta < 0;
}

int af_id_attention(double *A, const double *th, size_t n, size_t d,
                    double beta, const double *M, const double *V)
{
  if (A == NULL || bad_args(th, n, d, beta))
    return AF_EINVAL;
  double *S = malloc(n * n * sizeof(double));
  double *vk = malloc(d * sizeof(double));
  int rc = (S && vk) ? scores(S, th, n, d, M) : AF_ENOMEM;
  for (size_t j = 0; j < n && rc == AF_OK; j++) {
    double *row = S + j * n, mx = -INFINITY, z = 0;
    for (size_t k = 0; k < n; k++)
      mx = fmax(mx, row[k]);
    if (!isfinite(mx)) {
      rc = AF_ENONFINITE;
      break;
    }
    for (size_t k = 0; k < n; k++) {
      row[k] = exp(beta * (row[k] - mx));
      z += row[k];
    }
    double *Aj = A + j * d;
    memset(Aj, 0, d * sizeof(double));
    for (size_t k = 0; k < n; k++) {
      matvec(vk, V, th + k * d, d);
      for (size_t i = 0; i < d; i++)
        Aj[i] += row[k] * vk[i];
    }
    for (size_t i = 0; i < d; i++)
      Aj[i] /= z;
  }
  free(S);
  free(vk);
  return rc;
}

int af_id_log_energy(double *logE, const double *th, size_t n, size_t d,
                     double beta, const double *M)
{
  if (logE == NULL || bad_args(th, n, d, beta))
    return AF_EINVAL;
  double *S = malloc(n * n * sizeof(double));
  int rc = S ? scores(S, th, n, d, M) : AF_ENOMEM;
  if (rc == AF_OK) {
    double mx = -INFINITY, sum = 0;
    for (size_t k = 0; k < n * n; k++)
      mx = fmax(mx, beta * S[k]);
    for (size_t k = 0; k < n * n; k++)
      sum += exp(beta * S[k] - mx);
    *logE = mx + log(sum);
    if (!isfinite(*logE))
      rc = AF_ENONFINITE;
  }
  free(S);
  return rc;
}

double af_id_energy_rounding(size_t n, size_t d, double beta, double mnorm)
{
  double nn = (double) n * (double) n;
  return (nn + beta * mnorm * (3.0 * (double) d + 6.0) + 2.0) * DBL_EPSILON;
}

int af_id_var_forms(double forms[3], const double *th, size_t n, size_t d)
{
  if (forms == NULL || th == NULL || n < 1 || d < 1)
    return AF_EINVAL;
  double *mean = calloc(d, sizeof(double));
  if (mean == NULL)
    return AF_ENOMEM;
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < d; i++)
      mean[i] += th[k * d + i];
  for (size_t i = 0; i < d; i++)
    mean[i] /= (double) n;
  double centred = 0;
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; i < d; i++) {
      double e = th[k * d + i] - mean[i];
      centred += e * e;
    }
  forms[0] = centred / (double) n;
  forms[1] = 1.0 - dot(mean, mean, d);
  double gsum = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      gsum += dot(th + i * d, th + j * d, d);
  double npairs = 0.5 * (double) n * (double) (n - 1);
  forms[2] = n > 1 ? af_id_var_from_cos(n, gsum / npairs) : 0.0;
  free(mean);
  return AF_OK;
}

double af_id_var_from_cos(size_t n, double gbar)
{
  return (double) (n - 1) * (1.0 - gbar) / (double) n;
}

double af_id_var_rounding(size_t n, size_t d)
{
  return ((double) n * (double) n + 4.0 * (double) d + 16.0) * DBL_EPSILON;
}

double af_id_postln_step_angle(const double *theta, const double *v, size_t d,
                               double h)
{
  double c = dot(theta, v, d), w2 = 0;
  for (size_t i = 0; i < d; i++) {
    double wi = v[i] - c * theta[i];
    w2 += wi * wi;
  }
  return atan2(h * sqrt(w2), 1.0 + h * c);
}
