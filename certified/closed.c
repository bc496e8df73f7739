/* closed.c -- closed forms of the theory in Arb (T4.1d, P1), used to
 * certify the integrator's balls a second way, with nothing in common with
 * the integrator (see cert.h). */
#include "cert.h" /* config.h first, and Arb's headers */

#include <math.h>

#ifdef AF_HAVE_ARB

static int bad(unsigned long n, double beta)
{
  return n < 2 || !isfinite(beta) || !(beta > 0);
}

/* Ei(b) - Ei(b(1-g)) into I1 and Ei(-b(1+(n-1)g)/(n-1)) - Ei(-b/(n-1))
 * into J (without the factor of I2). */
static void ei_parts(arb_t I1, arb_t J, const arb_t g, unsigned long n,
                     const arb_t b, long prec)
{
  arb_t x, y;
  arb_init(x);
  arb_init(y);
  arb_hypgeom_ei(I1, b, prec);
  arb_sub_si(x, g, 1, prec);
  arb_neg(x, x);
  arb_mul(x, x, b, prec);
  arb_hypgeom_ei(y, x, prec);
  arb_sub(I1, I1, y, prec);
  /* -b (1 + (n-1) g)/(n-1) */
  arb_mul_ui(x, g, n - 1, prec);
  arb_add_ui(x, x, 1, prec);
  arb_mul(x, x, b, prec);
  arb_div_ui(x, x, n - 1, prec);
  arb_neg(x, x);
  arb_hypgeom_ei(J, x, prec);
  arb_div_ui(x, b, n - 1, prec);
  arb_neg(x, x);
  arb_hypgeom_ei(y, x, prec);
  arb_sub(J, J, y, prec);
  arb_clear(x);
  arb_clear(y);
}

/* I1 + I2 of T4.1d. */
static void i12(arb_t s, const arb_t g, unsigned long n, const arb_t b,
                long prec)
{
  arb_t I1, J, e;
  arb_init(I1);
  arb_init(J);
  arb_init(e);
  ei_parts(I1, J, g, n, b, prec);
  arb_mul_ui(e, b, n, prec);
  arb_div_ui(e, e, n - 1, prec);
  arb_exp(e, e, prec);
  arb_mul(J, J, e, prec);
  arb_add(s, I1, J, prec);
  arb_clear(I1);
  arb_clear(J);
  arb_clear(e);
}

/* ln(1 - g) and ln(1 + (n-1) g). */
static void logs(arb_t l1, arb_t l2, const arb_t g, unsigned long n, long prec)
{
  arb_sub_si(l1, g, 1, prec);
  arb_neg(l1, l1);
  arb_log(l1, l1, prec);
  arb_mul_ui(l2, g, n - 1, prec);
  arb_add_ui(l2, l2, 1, prec);
  arb_log(l2, l2, prec);
}

/* The T4.1d closed forms from I1 + I2, l1 = ln(1 - g), l2 = ln(1 + (n-1) g):
 * Post-LN t = [I1 + I2 + (n-1)(l2 - l1)] / (2n) (logr 0) or Pre-LN
 * ln(r/r0) = [I1 + I2 - (n-1) l1 - l2] / (2n) (logr 1). */
static int t41d(arb_t out, int logr, const arb_t gamma, unsigned long n,
                double beta, long prec)
{
  if (bad(n, beta))
    return AF_EINVAL;
  arb_t b, l1, l2;
  arb_init(b);
  arb_init(l1);
  arb_init(l2);
  arb_set_d(b, beta);
  i12(out, gamma, n, b, prec);
  logs(l1, l2, gamma, n, prec);
  if (logr) {
    arb_mul_ui(l1, l1, n - 1, prec);
    arb_sub(out, out, l1, prec);
    arb_sub(out, out, l2, prec);
  } else {
    arb_sub(l2, l2, l1, prec);
    arb_mul_ui(l2, l2, n - 1, prec);
    arb_add(out, out, l2, prec);
  }
  arb_div_ui(out, out, 2 * n, prec);
  arb_clear(b);
  arb_clear(l1);
  arb_clear(l2);
  return AF_OK;
}

int af_cert_postln_time(arb_t t, const arb_t gamma, unsigned long n,
                        double beta, long prec)
{
  return t41d(t, 0, gamma, n, beta, prec);
}

int af_cert_preln_logr(arb_t logr, const arb_t gamma, unsigned long n,
                       double beta, long prec)
{
  return t41d(logr, 1, gamma, n, beta, prec);
}

int af_cert_usa_time(arb_t t, const arb_t gamma, unsigned long n, double beta,
                     long prec)
{
  if (bad(n, beta))
    return AF_EINVAL;
  arb_t b, I1, J, e;
  arb_init(b);
  arb_init(I1);
  arb_init(J);
  arb_init(e);
  arb_set_d(b, beta);
  ei_parts(I1, J, gamma, n, b, prec);
  arb_neg(e, b);
  arb_exp(e, e, prec);
  arb_mul(I1, I1, e, prec);
  arb_div_ui(e, b, n - 1, prec);
  arb_exp(e, e, prec);
  arb_mul(J, J, e, prec);
  arb_add(t, I1, J, prec);
  arb_mul_2exp_si(t, t, -1);
  arb_clear(b);
  arb_clear(I1);
  arb_clear(J);
  arb_clear(e);
  return AF_OK;
}

/* nGPT integrand in v = 1 - g: sqrt(Q(v)) / (2 v P(v)), with
 * E = e^{b v}, Q = E^2 + 2(n-1)(1-v) E + (n-1)(1 + (n-2)(1-v)),
 * P = n - (n-1) v (holomorphic where Q avoids the branch cut). */
typedef struct {
  unsigned long n;
  double beta;
  int scheme; /* AF_NGPT, AF_PRE_LN or AF_PERI_LN */
} ngpt_par;

/* e^{Phi(1 - v)} = r/r0 of T4.1d in v = 1 - gamma, P = n - (n-1) v:
 *   Phi = [Ei(b) - Ei(b v) + e^{bn/(n-1)} (E1(b/(n-1)) - E1(b P/(n-1)))
 *          - (n-1) ln v - ln P] / (2n)
 * (Ei(-x) = -E1(x) for x > 0).  Indeterminate where a branch cut could
 * be met (Re v or Re P not positive) when analyticity is requested. */
static void rratio(acb_t out, const acb_t v, const acb_t P, const ngpt_par *p,
                   int analytic, slong prec)
{
  unsigned long n = p->n;
  if (analytic && !(arb_is_positive(acb_realref(v))
                    && arb_is_positive(acb_realref(P)))) {
    acb_indeterminate(out);
    return;
  }
  acb_t x, y, one;
  arb_t b;
  acb_init(x);
  acb_init(y);
  acb_init(one);
  arb_init(b);
  acb_one(one);
  arb_set_d(b, p->beta);
  acb_set_arb(x, b);
  acb_hypgeom_ei(out, x, prec); /* Ei(b) */
  acb_mul_arb(x, v, b, prec);
  acb_hypgeom_ei(y, x, prec);
  acb_sub(out, out, y, prec); /* I1 */
  acb_set_arb(x, b);
  acb_div_ui(x, x, n - 1, prec);
  acb_hypgeom_expint(y, one, x, prec); /* E1(b/(n-1)) */
  acb_mul_arb(x, P, b, prec);
  acb_div_ui(x, x, n - 1, prec);
  acb_hypgeom_expint(x, one, x, prec);
  acb_sub(y, y, x, prec);
  arb_mul_ui(acb_realref(x), b, n, prec);
  arb_div_ui(acb_realref(x), acb_realref(x), n - 1, prec);
  arb_exp(acb_realref(x), acb_realref(x), prec);
  arb_zero(acb_imagref(x));
  acb_mul(y, y, x, prec);
  acb_add(out, out, y, prec); /* I1 + I2 */
  acb_log_analytic(x, v, analytic, prec);
  acb_mul_ui(x, x, n - 1, prec);
  acb_sub(out, out, x, prec);
  acb_log_analytic(x, P, analytic, prec);
  acb_sub(out, out, x, prec);
  acb_div_ui(out, out, 2 * n, prec);
  acb_exp(out, out, prec);
  acb_clear(x);
  acb_clear(y);
  acb_clear(one);
  arb_clear(b);
}

static int ngpt_integrand(acb_ptr out, const acb_t v, void *param,
                          slong order, slong prec)
{
  const ngpt_par *p = param;
  unsigned long n = p->n;
  acb_t E, Q, t, u;
  acb_init(E);
  acb_init(Q);
  acb_init(t);
  acb_init(u);
  arb_t b;
  arb_init(b);
  arb_set_d(b, p->beta);
  acb_mul_arb(E, v, b, prec);
  acb_exp(E, E, prec);
  acb_mul(Q, E, E, prec);
  acb_sub_ui(u, v, 1, prec);
  acb_neg(u, u); /* 1 - v */
  acb_mul(t, u, E, prec);
  acb_mul_ui(t, t, 2 * (n - 1), prec);
  acb_add(Q, Q, t, prec);
  acb_mul_ui(t, u, n - 2, prec);
  acb_add_ui(t, t, 1, prec);
  acb_mul_ui(t, t, n - 1, prec);
  acb_add(Q, Q, t, prec);
  acb_sqrt_analytic(Q, Q, order != 0, prec);
  acb_mul_ui(t, v, n - 1, prec);
  acb_neg(t, t);
  acb_add_ui(t, t, n, prec); /* P */
  if (p->scheme != AF_NGPT) {
    /* Pre-LN: D = E + n - 1 instead of sqrt(Q); both: times r/r0 */
    if (p->scheme == AF_PRE_LN)
      acb_add_ui(Q, E, n - 1, prec);
    rratio(u, v, t, p, order != 0, prec);
    acb_mul(Q, Q, u, prec);
  }
  acb_mul(t, t, v, prec);
  acb_mul_2exp_si(t, t, 1);
  acb_div(out, Q, t, prec);
  arb_clear(b);
  acb_clear(E);
  acb_clear(Q);
  acb_clear(t);
  acb_clear(u);
  return 0;
}

/* int_{v0}^{v1} of the integrand (real v0, v1). */
static int quad_int(arb_t t, const arb_t v0, const arb_t v1, unsigned long n,
                    double beta, long prec, int scheme)
{
  ngpt_par par = {n, beta, scheme};
  acb_t a, b, res;
  acb_init(a);
  acb_init(b);
  acb_init(res);
  acb_set_arb(a, v0);
  acb_set_arb(b, v1);
  mag_t tol;
  mag_init(tol);
  mag_set_ui_2exp_si(tol, 1, -prec);
  acb_calc_integrate(res, ngpt_integrand, &par, a, b, prec, tol, NULL, prec);
  arb_set(t, acb_realref(res));
  int rc = arb_is_finite(t) ? AF_OK : AF_ENONFINITE;
  mag_clear(tol);
  acb_clear(a);
  acb_clear(b);
  acb_clear(res);
  return rc;
}

/* Where T stands against the times [tl, th] of a gamma ball's ends: 1 if
 * strictly inside (the ball is certified to hold gamma(T)), -1 if
 * certainly outside, 0 undecided. */
static int bracket(const arb_t tl, const arb_t th, const arb_t T)
{
  if (arb_lt(tl, T) && arb_gt(th, T))
    return 1;
  if (arb_gt(tl, T) || arb_lt(th, T))
    return -1;
  return 0;
}

/* v = 1 - x for an exact x, exactly (quadrature endpoints are points). */
static void one_minus_exact(arb_t v, const arf_t x)
{
  arf_t one;
  arf_init(one);
  arf_one(one);
  arf_sub(arb_midref(v), one, x, ARF_PREC_EXACT, ARF_RND_DOWN);
  mag_zero(arb_radref(v));
  arf_clear(one);
}

static int quad_time(arb_t t, const arb_t gamma, unsigned long n,
                     double beta, long prec, int scheme)
{
  if (bad(n, beta))
    return AF_EINVAL;
  arb_t v0, v1;
  arb_init(v0);
  arb_init(v1);
  if (arb_is_exact(gamma))
    one_minus_exact(v0, arb_midref(gamma)); /* from w = 1 - gamma ... */
  else {
    arb_sub_si(v0, gamma, 1, prec);
    arb_neg(v0, v0);
  }
  arb_one(v1); /* ... to 1 */
  int rc = quad_int(t, v0, v1, n, beta, prec, scheme);
  arb_clear(v0);
  arb_clear(v1);
  return rc;
}

int af_cert_check_quad(int *verdict, const arb_t g, const arb_t T,
                       af_scheme_id scheme, unsigned long n, double beta,
                       long prec)
{
  *verdict = 0;
  if (bad(n, beta) || !(scheme == AF_NGPT || scheme == AF_PRE_LN
                        || scheme == AF_PERI_LN))
    return AF_EINVAL;
  if (!arb_is_finite(g))
    return AF_OK;
  /* t(mid) by one full integral; t(lo), t(hi) from it by two integrals
   * over intervals of the ball's width (cheap) */
  arb_t vm, vl, vh, tm, d, tl, th;
  arb_init(vm);
  arb_init(vl);
  arb_init(vh);
  arb_init(tm);
  arb_init(d);
  arb_init(tl);
  arb_init(th);
  arf_t e;
  arf_init(e);
  one_minus_exact(vm, arb_midref(g)); /* v at mid gamma */
  arb_get_lbound_arf(e, g, prec);
  one_minus_exact(vh, e); /* v at lo gamma: the larger v */
  arb_get_ubound_arf(e, g, prec);
  one_minus_exact(vl, e); /* v at hi gamma */
  arb_t one;
  arb_init(one);
  arb_one(one);
  int rc = quad_int(tm, vm, one, n, beta, prec, scheme);
  if (rc == AF_OK) /* t(lo) = t(mid) - int_{vm}^{vh} */
    rc = quad_int(d, vm, vh, n, beta, prec, scheme);
  if (rc == AF_OK) {
    arb_sub(tl, tm, d, prec);
    rc = quad_int(d, vl, vm, n, beta, prec, scheme); /* t(hi) = t(mid) + int_{vl}^{vm} */
  }
  if (rc == AF_OK) {
    arb_add(th, tm, d, prec);
    *verdict = bracket(tl, th, T);
  }
  arb_clear(one);
  arb_clear(vm);
  arb_clear(vl);
  arb_clear(vh);
  arb_clear(tm);
  arb_clear(d);
  arb_clear(tl);
  arb_clear(th);
  arf_clear(e);
  return rc;
}

int af_cert_ngpt_time(arb_t t, const arb_t gamma, unsigned long n,
                      double beta, long prec)
{
  return quad_time(t, gamma, n, beta, prec, AF_NGPT);
}

int af_cert_preln_time(arb_t t, const arb_t gamma, unsigned long n,
                       double beta, long prec)
{
  return quad_time(t, gamma, n, beta, prec, AF_PRE_LN);
}

int af_cert_periln_time(arb_t t, const arb_t gamma, unsigned long n,
                        double beta, long prec)
{
  return quad_time(t, gamma, n, beta, prec, AF_PERI_LN);
}

int af_cert_check_tmap(int *verdict, const arb_t g, const arb_t T,
                       af_cert_tmap tmap, unsigned long n, double beta,
                       long prec)
{
  *verdict = 0;
  if (!arb_is_finite(g))
    return AF_OK;
  arb_t e, tl, th;
  arf_t lo, hi;
  arb_init(e);
  arb_init(tl);
  arb_init(th);
  arf_init(lo);
  arf_init(hi);
  arb_get_lbound_arf(lo, g, prec);
  arb_get_ubound_arf(hi, g, prec);
  int rc;
  arb_set_arf(e, lo);
  rc = tmap(tl, e, n, beta, prec);
  if (rc == AF_OK) {
    arb_set_arf(e, hi);
    rc = tmap(th, e, n, beta, prec);
  }
  if (rc == AF_OK) {
    *verdict = bracket(tl, th, T);
  }
  arb_clear(e);
  arb_clear(tl);
  arb_clear(th);
  arf_clear(lo);
  arf_clear(hi);
  return rc;
}

#endif /* AF_HAVE_ARB */
