/* longctx_rand.c -- one attention layer at long context on a *random*
 * start: the self-weight of a token among n independent uniform points of
 * the sphere S^{d-1} (theorems.md LC.rand; libaftheory).
 *
 * With Q = K = V = I the softmax weight of token j on itself is
 * p_j = e^beta / Z_j, Z_j = e^beta + S_j, S_j = sum_{k != j} e^{beta c_jk},
 * c_jk = <th_j, th_k>.  Given th_j the c_jk are independent, each
 * distributed as one coordinate of a uniform point of S^{d-1}, whose
 * moment generating function is
 *
 *   M_d(beta) = E e^{beta c} = Gamma(d/2) (2/beta)^{d/2-1} I_{d/2-1}(beta)
 *
 * (d = 3: sinh(beta)/beta), so E[S_j] = (n - 1) M_d(beta) exactly and the
 * relative standard deviation of S_j is sqrt((M_d(2 beta)/M_d(beta)^2 - 1)
 * / (n - 1)).  Nothing here calls src/.
 */
#include "config.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>
#include <gsl/gsl_sf_gamma.h>

#include "longctx.h"

/* The series M_d(beta) = sum_k t_k, t_k = (beta^2/4)^k Gamma(nu+1) /
 * (k! Gamma(nu+1+k)), every term positive (no cancellation), the ratio of
 * terms x/(k (nu+k)): s[0] = sum t_k and, with moments, s[1] = sum 2k t_k
 * = beta M' and s[2] = sum 2k (2k - 1) t_k = beta^2 M'' (t_k is a multiple
 * of beta^{2k}).  Stops past the largest term once the last term of the
 * last sum formed is below 1e-18 of it; -1 if 20000 terms do not converge
 * or that sum overflows. */
static int mgf_series(double s[3], double nu, double beta, int moments)
{
  double x = 0.25 * beta * beta, t = 1.0;
  s[0] = 1.0;
  s[1] = s[2] = 0.0;
  for (int k = 1; k < 20000; k++) {
    t *= x / ((double) k * (nu + (double) k));
    double kk = 2.0 * k;
    s[0] += t;
    if (moments) {
      s[1] += kk * t;
      s[2] += kk * (kk - 1.0) * t;
    }
    double last = moments ? s[2] : s[0], tl = moments ? t * kk * kk : t;
    if (!isfinite(last))
      return -1;
    if (tl < 1e-18 * last && x < (double) k * (nu + (double) k))
      return 0;
  }
  return -1;
}

/* log M_d by the series; NaN where it fails. */
static double log_mgf_series(double nu, double beta)
{
  double s[3];
  return mgf_series(s, nu, beta, 0) ? NAN : log(s[0]);
}

double af_lc_rand_log_mgf(size_t d, double beta)
{
  if (d < 2 || !(beta >= 0) || !isfinite(beta))
    return NAN;
  if (beta == 0)
    return 0.0;
  double nu = 0.5 * (double) d - 1.0;
  if (beta < 2.0)
    return log_mgf_series(nu, beta);
  /* GSL's scaled I_nu; where it fails (underflow at large nu against
   * beta, e.g. d = 1024), the series. */
  gsl_sf_result r;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  int st = gsl_sf_bessel_Inu_scaled_e(nu, beta, &r);
  gsl_set_error_handler(old);
  if (st != GSL_SUCCESS || !(r.val > 0) || !isfinite(r.val))
    return log_mgf_series(nu, beta);
  return gsl_sf_lngamma(nu + 1.0) + nu * log(2.0 / beta) + log(r.val) + beta;
}

double af_lc_rand_selfweight(double n, size_t d, double beta)
{
  double lm = af_lc_rand_log_mgf(d, beta);
  if (!(n >= 2) || isnan(lm))
    return NAN;
  /* 1 / (1 + (n - 1) M e^{-beta}), in logs so that nothing overflows. */
  double l = log(n - 1.0) + lm - beta;
  return l > 700 ? 0.0 : 1.0 / (1.0 + exp(l));
}

double af_lc_rand_relsd(double n, size_t d, double beta)
{
  double l1 = af_lc_rand_log_mgf(d, beta), l2 = af_lc_rand_log_mgf(d, 2 * beta);
  if (!(n >= 2) || isnan(l1) || isnan(l2))
    return NAN;
  return sqrt(expm1(l2 - 2 * l1) / (n - 1.0));
}

double af_lc_rand_midpoint(double n, size_t d)
{
  /* gamma with e^beta = (n - 1) M_d(beta), beta = gamma log n: the
   * self-weight predicted from E[S_j] crosses 1/2 there.  f(gamma) =
   * beta - log(n-1) - log M_d(beta) is -log(n-1) < 0 at gamma = 0; the
   * first sign change on a grid, then bisection. */
  if (!(n >= 3) || d < 2)
    return NAN;
  double L = log(n);
  double lo = 0, flo = -log(n - 1.0);
  for (double g = 0.05; g <= 20.0; g += 0.05) {
    double f = g * L - log(n - 1.0) - af_lc_rand_log_mgf(d, g * L);
    if (isnan(f))
      return NAN;
    if (f >= 0 && flo < 0) {
      double hi = g;
      for (int it = 0; it < 200 && hi - lo > 1e-14 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        double fm = mid * L - log(n - 1.0) - af_lc_rand_log_mgf(d, mid * L);
        if (fm < 0)
          lo = mid;
        else
          hi = mid;
      }
      return 0.5 * (lo + hi);
    }
    lo = g;
    flo = f;
  }
  return INFINITY;
}

int af_lc_rand_moments(double *m1, double *m2, size_t d, double beta)
{
  /* M, M', M'' from the series (mgf_series): M' = s1/beta, M'' = s2/beta^2. */
  if (d < 2 || !(beta > 0) || !(beta <= 700))
    return -1;
  double s[3];
  if (mgf_series(s, 0.5 * (double) d - 1.0, beta, 1))
    return -1;
  *m1 = s[1] / (beta * s[0]);
  *m2 = s[2] / (beta * beta * s[0]);
  return 0;
}

int af_lc_rand_attn(double *par, double *perp, double n, size_t d,
                    double beta)
{
  double m1, m2, m1b, m2b;
  double l1 = af_lc_rand_log_mgf(d, beta), l2 = af_lc_rand_log_mgf(d, 2 * beta);
  if (!(n >= 2) || isnan(l1) || isnan(l2) || af_lc_rand_moments(&m1, &m2, d, beta)
      || af_lc_rand_moments(&m1b, &m2b, d, 2 * beta))
    return -1;
  /* Everything relative to e^beta: Z e^{-beta} = 1 + (n - 1) M e^{-beta}. */
  double em = exp(log(n - 1.0) + l1 - beta); /* (n - 1) M(beta) e^{-beta} */
  double z = 1.0 + em;
  *par = (1.0 + em * m1) / z;
  /* (n - 1) E[e^{2 beta c} (1 - c^2)] e^{-2 beta} / Z'^2 */
  double q = exp(log(n - 1.0) + l2 - 2.0 * beta) * (1.0 - m2b);
  *perp = sqrt(q > 0 ? q : 0.0) / z;
  return 0;
}
