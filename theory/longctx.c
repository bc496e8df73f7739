/* longctx.c -- one attention layer on an equiangular input at long
 * context (theorems.md LC; see longctx.h).
 *
 * Per scheme (S7 at layer 0, step h, all radii 1, so Pre-LN, Mix-LN with
 * tau > 0 and LN-Scaling act on directions as Post-LN):
 *   Post/Pre/Mix/LN-Scaling  v_i = th_i + h A_i:         p = 1 + h a, q = h b
 *   Peri-LN                  v_i = th_i + h A_i/|A|:     p = 1 + h a/|A|, q = h b/|A|
 *   nGPT                     v_i = th_i + alpha h (A_i/|A| - th_i):
 *                            p = 1 - alpha h + alpha h a/|A|, q = alpha h b/|A|
 *   attention alone          p = a, q = b
 * with |A|^2 = rho + (1 - rho)(a^2 + (n - 1) b^2) (A_i = a th_i + b sum).
 *
 * Limits (n -> infinity, beta = gamma log n, kappa = 1 - gamma (1 - rho)):
 * (n - 1) E = (n - 1) n^{-gamma (1 - rho)} behaves like n^kappa, so
 * a -> 0 (kappa > 0), 1/2 (kappa = 0), 1 (kappa < 0), (n - 1) b -> 1 - a,
 * b -> 0 and (n - 1) b^2 -> 0.  With p -> p0 and (n - 1) q -> q0 the
 * cosine tends to rho (p0 + q0)^2 / (rho (p0 + q0)^2 + (1 - rho) p0^2).
 * Rates: a - a0 and (n - 1) b - (1 - a0) are O(n^{-|kappa|}) off the
 * transition and O(1/n) at it ((n - 1)/n in place of 1); (n - 1) q^2 is
 * O(1/n); every map but attention alone and nGPT at alpha h = 1 (whose
 * output direction is that of A) is linear in a there, so the cosine
 * converges at rate |kappa| (below: min(kappa, 1) = kappa); attention
 * alone below the transition has 1 - cos = (1 - rho)(a - b)^2 / ..., of
 * order a^2: rate 2 kappa (if 2 kappa < 1, else 1).
 */
#include <config.h>

#include <math.h>

#include "longctx.h"

void af_lc_weights(long double *a, long double *b, long double x,
                   long double rho, long double beta)
{
  long double E = expl(-beta * (1.0L - rho));
  *a = 1.0L / (1.0L + x * E);
  *b = E * *a;
}

static void pq_of(long double *p, long double *q, af_scheme_id scheme,
                  long double a, long double b, long double x,
                  long double rho, double h, double alpha)
{
  long double A = sqrtl(rho + (1.0L - rho) * (a * a + x * b * b));
  switch ((int) scheme) {
  case AF_PERI_LN:
    *p = 1.0L + h * a / A;
    *q = h * b / A;
    break;
  case AF_NGPT:
    *p = 1.0L - (long double) alpha * h + (long double) alpha * h * a / A;
    *q = (long double) alpha * h * b / A;
    break;
  case AF_LC_ATTN:
    *p = a;
    *q = b;
    break;
  default: /* Post-LN, Pre-LN, Mix-LN (layer 0 is Post-LN), LN-Scaling */
    *p = 1.0L + h * a;
    *q = h * b;
  }
}

void af_lc_pq(long double *p, long double *q, af_scheme_id scheme,
              long double x, long double rho, long double beta, double h,
              double alpha)
{
  long double a, b;
  af_lc_weights(&a, &b, x, rho, beta);
  pq_of(p, q, scheme, a, b, x, rho, h, alpha);
}

void af_lc_cos(long double *cos, long double *gap, af_scheme_id scheme,
               long double x, long double rho, long double gamma, double h,
               double alpha)
{
  long double p, q;
  af_lc_pq(&p, &q, scheme, x, rho, gamma * logl(x + 1.0L), h, alpha);
  long double P = p + x * q;
  long double den = rho * P * P + (1.0L - rho) * (p * p + x * q * q);
  long double num = rho * P * P
                    + (1.0L - rho) * (2.0L * p * q + (x - 1.0L) * q * q);
  *cos = num / den;
  *gap = (1.0L - rho) * (p - q) * (p - q) / den;
}

long double af_lc_limit(af_scheme_id scheme, int regime, long double rho,
                        double h, double alpha)
{
  long double a0 = regime < 0 ? 0.0L : regime == 0 ? 0.5L : 1.0L;
  /* Limits of p and (n - 1) q: the maps with x q -> (1 - a0) scaled as
   * q is; |A| -> sqrt(rho + (1 - rho) a0^2). */
  long double A = sqrtl(rho + (1.0L - rho) * a0 * a0), p0, q0;
  switch ((int) scheme) {
  case AF_PERI_LN:
    p0 = 1.0L + h * a0 / A;
    q0 = h * (1.0L - a0) / A;
    break;
  case AF_NGPT:
    p0 = 1.0L - (long double) alpha * h + (long double) alpha * h * a0 / A;
    q0 = (long double) alpha * h * (1.0L - a0) / A;
    break;
  case AF_LC_ATTN:
    p0 = a0;
    q0 = 1.0L - a0;
    break;
  default:
    p0 = 1.0L + h * a0;
    q0 = h * (1.0L - a0);
  }
  long double s = (p0 + q0) * (p0 + q0) * rho;
  return s / (s + (1.0L - rho) * p0 * p0);
}

double af_lc_rate(af_scheme_id scheme, int regime, double rho, double gamma,
                  double alpha)
{
  double kappa = 1.0 - gamma * (1.0 - rho);
  if (regime == 0)
    return 1.0;
  if (regime > 0)
    return -kappa;
  int direction_of_A = scheme == AF_LC_ATTN
                       || (scheme == AF_NGPT && alpha == 1.0);
  return direction_of_A ? fmin(2.0 * kappa, 1.0) : kappa;
}
