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

/* log of sum_k (beta^2/4)^k Gamma(nu+1) / (k! Gamma(nu+1+k)) = log M_d:
 * every term positive (no cancellation), the ratio of terms x/(k (nu+k));
 * NaN if 20000 terms do not converge or the sum overflows. */
static double log_mgf_series(double nu, double beta)
{
  double x = 0.25 * beta * beta, t = 1.0, s = 1.0;
  for (int k = 1; k < 20000; k++) {
    t *= x / ((double) k * (nu + (double) k));
    s += t;
    if (!isfinite(s))
      return NAN;
    if (t < 1e-18 * s && x < (double) k * (nu + (double) k))
      return log(s);
  }
  return NAN;
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
