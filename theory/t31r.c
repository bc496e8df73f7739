/* t31r.c -- the infimum of the Peri-LN radial rate (theorems.md T3.1r,
 * derived).  See t31r.h.
 *
 * Peri-LN: dr_j/dt = <theta_j, A_j> / |A_j|, the cosine of the angle
 * between theta_j and A_j.  With x_k = <theta_j, theta_k> and
 * theta_k = x_k theta_j + sqrt(1 - x_k^2) v_k (v_k unit, orthogonal to
 * theta_j), Z A_j = P theta_j + O with
 *     P = e^b + sum_{k != j} x_k e^{b x_k},
 *     O = sum_{k != j} e^{b x_k} sqrt(1 - x_k^2) v_k,
 * so the rate is P / sqrt(P^2 + |O|^2).  When P > 0 (always if
 * n <= e^b: x e^{bx} >= -1 on [-1, 1], so P >= e^b - (n - 1) > 0; the
 * code checks it at the minimizer of x e^{bx}, x = max(-1, -1/b)) the
 * rate falls as
 * |O| grows, and |O| <= S = sum_k e^{b x_k} sqrt(1 - x_k^2), with
 * equality iff every v_k is the same v (triangle inequality; realized in
 * d >= 2).  So inf rate = 1 / sqrt(1 + R*^2), R* = sup of
 *     R(x) = sum_k f(x_k) / (e^b + sum_k g(x_k)),
 *     f(x) = e^{bx} sqrt(1 - x^2),   g(x) = x e^{bx},
 * over [-1, 1]^{n-1}.  Dinkelbach: R* is the root of
 * max_x [sum_k (f(x_k) - R g(x_k))] - R e^b, and the bracket is
 * separable: every x_k takes a maximizer of h(x) = f(x) - R* g(x), so
 * the supremum is attained with all others at one common cosine x* (and
 * direction v).  The infimum over all configurations is therefore the
 * minimum over x of the one-parameter family af_t31r_peri_rate_at
 * ("others coincident at cosine x"; compact, so attained).
 *
 * That minimum is found on a grid of 4001 points of [-1, 1] (the rate is
 * 1 at both ends, S = 0 there), checked unimodal on it (the differences
 * change sign once), then refined by golden section on the two grid
 * cells around the grid minimum down to adjacent doubles.  The rate is
 * stationary at x*, so the x found (off by ~sqrt(eps) where rounding
 * hides the slope) changes the value by O(eps); the value itself carries
 * ~12 eps of rounding (two exps, P, S, the squares, sqrt, division).
 * Scaled by e^{-b} throughout, so nothing overflows.  At n = 7, b = 2:
 * c*_Peri = 0.7151 at x* = 0.308 (Pre-LN's c* = 0.5507; the paper's bound
 * 0.0269).
 */
#include <config.h>

#include "t31r.h"

#include <math.h>

static int bad_nb(size_t n, double beta)
{
  return n < 2 || !isfinite(beta) || beta < 0;
}

double af_t31r_peri_rate_at(double x, size_t n, double beta)
{
  if (bad_nb(n, beta) || !(x >= -1 && x <= 1))
    return NAN;
  double m = (double) (n - 1), e = exp(beta * (x - 1.0)); /* e^{b(x-1)} */
  double P = 1.0 + m * x * e, S = m * e * sqrt(1.0 - x * x);
  return P / sqrt(P * P + S * S);
}

#define T31R_GRID 4001

int af_t31r_peri_inf(double *cmin, double *xmin, size_t n, double beta)
{
  if (bad_nb(n, beta))
    return AF_EINVAL;
  double m = (double) (n - 1);
  /* P > 0 on [-1, 1]: min of x e^{b(x-1)} is at x = -1/b (b >= 1) or -1 */
  double xm = beta >= 1 ? -1.0 / beta : -1.0;
  if (!(1.0 + m * xm * exp(beta * (xm - 1.0)) > 0))
    return AF_EINVAL;
  size_t best = 0, turns = 0;
  double prev = NAN, vbest = INFINITY, dprev = 0;
  for (size_t i = 0; i < T31R_GRID; i++) {
    double x = -1.0 + 2.0 * (double) i / (double) (T31R_GRID - 1);
    double v = af_t31r_peri_rate_at(x, n, beta);
    if (v < vbest) {
      vbest = v;
      best = i;
    }
    if (i > 0) {
      double dv = v - prev;
      if (dv != 0 && dprev != 0 && (dv > 0) != (dprev > 0))
        turns++;
      if (dv != 0)
        dprev = dv;
    }
    prev = v;
  }
  if (turns != 1)
    return AF_EINVAL;
  double lo = -1.0 + 2.0 * (double) (best > 0 ? best - 1 : 0) /
                         (double) (T31R_GRID - 1);
  double hi = -1.0 + 2.0 * (double) (best + 1 < T31R_GRID ? best + 1 : best)
                         / (double) (T31R_GRID - 1);
  const double gr = 0.5 * (sqrt(5.0) - 1.0);
  double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo);
  double fa = af_t31r_peri_rate_at(a, n, beta);
  double fb = af_t31r_peri_rate_at(b, n, beta);
  for (int it = 0; it < 200 && a > lo && b < hi && a < b; it++) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - gr * (hi - lo);
      fa = af_t31r_peri_rate_at(a, n, beta);
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + gr * (hi - lo);
      fb = af_t31r_peri_rate_at(b, n, beta);
    }
  }
  double x = fa <= fb ? a : b, v = fmin(fa, fb);
  if (!(v <= vbest)) { /* the grid point itself was lower */
    v = vbest;
    x = -1.0 + 2.0 * (double) best / (double) (T31R_GRID - 1);
  }
  if (xmin)
    *xmin = x;
  if (cmin)
    *cmin = v;
  return AF_OK;
}
