/* claims_vern9.c -- the Vern9 integrator (src/flow/rkv98.c) keeps its
 * order and its tableau's row sums (theorems.md N2): N.vern9 measures
 * the order of fixed steps and the adaptive run's global error, and
 * N.vern9.stages reads the tableau back through the stepper.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "verify.h"
#include "internal.h" /* af_step_vern9: N.vern9.stages steps it directly */

#define U (DBL_EPSILON / 2)

/* ------------------------------------------------------------------ */
/* N.vern9: the order of the Vern9 integrator                          */
/* ------------------------------------------------------------------ */

/* Vern9 (src/flow/rkv98.c) in fixed steps h = 2, 1, 1/2, 1/4 on the Post-LN
 * field from a uniform start (n = 6, d = 3, beta = 6: a field fast enough
 * that the differences reach the asymptotic regime well above rounding)
 * over [0, VN_T]: the differences D(h) = |y_h - y_{h/2}|_inf fall as h^9,
 * so log2(D(h/2) / D(h/4)) is 9 up to O(h) terms (measured 9.74 on the
 * first two levels, 8.87 on the last two, D = 1.4e-6, 1.6e-9, 3.4e-12).
 * The row N.vern9's tolerance is half the distance to the embedded order
 * 8: a slip in a weight drops the order to 1 (measured 0.85 with two
 * digits of b_13 swapped), one in the embedded weights to 8.  Also the
 * adaptive run at tol VN_TOL against rk8pd at VN_TOL_REF: the global
 * error must stay within N tol max(1, |y|) (N accepted steps; measured
 * 0.002 of it).  Not caught here: the sign of a_31 (stage 3 enters only
 * stages 4 and 5, which carry no weight): on this field the order stays
 * 9 at these steps (9.31) and the error constant grows 1900-fold, which
 * the adaptive run's own estimate follows (error 8.5e-12 against
 * 2.9e-12); N.vern9.stages catches it (row 3 no longer sums to c_3). */
#define VN_T 4.0
#define VN_H 2.0
#define VN_N 6
#define VN_TOL 1e-10
#define VN_TOL_REF 1e-15
#define VN_D 3
#define VN_BETA 6.0

/* method, fixed step h (h > 0) or adaptive tolerance tol (h = 0) */
static int vn_run(double *y, af_method meth, double h, double tol, size_t n,
                  unsigned long *steps)
{
  af_model m;
  af_model_init(&m, n, VN_D, VN_BETA, AF_POST_LN);
  af_work *w = af_work_alloc(n, VN_D);
  size_t line;
  int st = w ? af_init_state(y, &line, "uniform", n, VN_D, 1.0, 3)
             : AF_ENOMEM;
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.method = meth;
  if (h > 0) {
    o.fixed = 1;
    o.h = h;
  } else {
    o.rtol = o.atol = tol;
    o.h = 1e-3;
  }
  double times[2] = {0.0, VN_T};
  af_integ_stats stats = {0, 0, 0};
  if (st == AF_OK)
    st = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &stats);
  if (steps)
    *steps = stats.steps;
  af_work_free(w);
  return st;
}

static void claim_vern9(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = VN_N, N = af_state_size(n, VN_D);
  double y[4][VN_N * VN_D + VN_N], D[3];
  int st = AF_OK;
  for (int l = 0; l < 4 && st == AF_OK; l++)
    st = vn_run(y[l], AF_METHOD_VERN9, VN_H / (double) (1 << l), 0, n, NULL);
  double ya[VN_N * VN_D + VN_N], yr[VN_N * VN_D + VN_N];
  unsigned long na = 0, nr = 0;
  if (st == AF_OK)
    st = vn_run(ya, AF_METHOD_VERN9, 0, VN_TOL, n, &na);
  if (st == AF_OK)
    st = vn_run(yr, AF_METHOD_RK8PD, 0, VN_TOL_REF, n, &nr);
  if (st != AF_OK) {
    af_v_error(r, st, "N.vern9");
    return;
  }
  for (int l = 0; l < 3; l++) {
    D[l] = 0;
    for (size_t i = 0; i < N; i++)
      D[l] = fmax(D[l], fabs(y[l][i] - y[l + 1][i]));
  }
  double p0 = log2(D[0] / D[1]), p1 = log2(D[1] / D[2]);
  double E = 0, ymax = 1;
  for (size_t i = 0; i < N; i++) {
    E = fmax(E, fabs(ya[i] - yr[i]));
    ymax = fmax(ymax, fabs(yr[i]));
  }
  af_v_abs(r, p1, 9.0, af_v_tol(c, "N.vern9"));
  /* The adaptive run's promise: each accepted step's local error within
   * tol max(1, |y|); summed over the steps (the clustering flow does not
   * amplify them on [0, 4]) the global error stays within N tol |y|. */
  if (!(E <= (double) na * VN_TOL * ymax))
    r->status = AF_V_FAIL;
  af_v_note(r, "Post-LN uniform n=%d d=%d beta=%g, t in [0, %g], fixed "
            "h = %g/2^k: D = %.3g, %.3g, %.3g; orders %.3f, %.3f; adaptive "
            "tol %g: %lu steps, |y - y_rk8pd| %.3g = %.3g N tol |y|", VN_N, VN_D,
            VN_BETA, VN_T, VN_H, D[0], D[1],
            D[2], p0, p1, VN_TOL, na, E, E / ((double) na * VN_TOL * ymax));
  (void) c;
}

/* ------------------------------------------------------------------ */
/* N.vern9.stages: Vern9's tableau read back through the stepper         */
/* ------------------------------------------------------------------ */

/* Butcher's row-sum condition c_i = sum_j a_ij: a Runge-Kutta method
 * treats time as one more state component (t' = 1) only if every stage
 * is evaluated at the time its own increments reach; without it the
 * method applied to a field that depends on t (Mix-LN, nGPT's alpha(t),
 * LN-Scaling, per-layer weights) is not the method applied to the
 * autonomous form, and the order conditions verified for autonomous
 * fields say nothing.  With it, sum_i b_i = 1 (order 1 of the propagated
 * solution) and sum_i e_i = 0 (the embedded solution consistent too, so
 * the error estimate is O(h^2) at least).  The coefficients are read back
 * through the stepper itself (af_step_vern9): one step of h = 1 from
 * t = 0, y = 0 with a field that returns 1 at its m-th call and 0
 * otherwise makes k_m = 1, every other k_j = 0, so the i-th call sees
 * t = c_i and y = a_im exactly (a product by 1 and sums of zeros), the
 * call after the stages y = b_m, and yerr = e_m.  Rounding bound of each
 * identity: the 40-digit coefficients rounded to double, u/2 relative
 * each (the exact values satisfy it to 1e-39, src/flow/rkv98.c), and the sum
 * taken here with compensated summation (Neumaier; error
 * <= u |s| + 2 k^2 u^2 sum |x|, Higham 2002 sec. 4.3):
 *     |sum_j a_ij - c_i| <= u/2 (sum_j |a_ij| + |c_i|) + u |c_i|
 *                           + 2 k^2 u^2 sum_j |a_ij|
 * (b with c = 1; e with c = 0).  The row N.vern9.stages is a factor on
 * it.  A slip in one a_ij breaks its row's sum by 2 |a_ij| (a sign) or
 * more: the sign of a_31 breaks row 3 by 0.078 while the order on the
 * autonomous field of N.vern9 stays 9 at h >= 1/4 (measured 9.31); on
 * other fields it is lower (the pendulum: global order 7.2, the error
 * 1e4 times Vern9's at h = 1/16). */
#define VS_S 16 /* stages; the field is called once more at the new point */

typedef struct {
  size_t k, m;
  double t[VS_S + 1], y[VS_S + 1];
} vs_rec;

static int vs_field(double t, const double y[], double dydt[], void *p)
{
  vs_rec *r = p;
  if (r->k <= VS_S) {
    r->t[r->k] = t;
    r->y[r->k] = y[0];
  }
  dydt[0] = r->k == r->m ? 1.0 : 0.0;
  r->k++;
  return GSL_SUCCESS;
}

/* Neumaier's compensated sum of x[0..k-1]; *abs = sum |x|. */
static double vs_sum(const double *x, size_t k, double *abs)
{
  double s = 0, comp = 0, a = 0;
  for (size_t i = 0; i < k; i++) {
    double t = s + x[i];
    comp += fabs(s) >= fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
    s = t;
    a += fabs(x[i]);
  }
  *abs = a;
  return s + comp;
}

static void claim_vern9_stages(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double fac = af_v_tol(c, "N.vern9.stages");
  /* A[i][m] (call i, stage m; 0-based), B[m], E[m], c[i] */
  double A[VS_S][VS_S], B[VS_S], E[VS_S], C[VS_S];
  gsl_odeiv2_step *s = gsl_odeiv2_step_alloc(af_step_vern9, 1);
  if (s == NULL) {
    af_v_error(r, AF_ENOMEM, "N.vern9.stages");
    return;
  }
  int st = GSL_SUCCESS;
  size_t calls = 0;
  for (size_t m = 0; m < VS_S && st == GSL_SUCCESS; m++) {
    vs_rec rec = {0, m, {0}, {0}};
    gsl_odeiv2_system sys = {vs_field, NULL, 1, &rec};
    double y[1] = {0.0}, yerr[1], dydt_out[1];
    gsl_odeiv2_step_reset(s);
    st = gsl_odeiv2_step_apply(s, 0.0, 1.0, y, yerr, NULL, dydt_out, &sys);
    calls = rec.k;
    if (st != GSL_SUCCESS || rec.k != VS_S + 1)
      break;
    for (size_t i = 0; i < VS_S; i++) {
      A[i][m] = rec.y[i];
      C[i] = rec.t[i];
    }
    B[m] = rec.y[VS_S];
    E[m] = yerr[0]; /* yerr = h sum_i e_i k_i, e = b8 - b9 */
  }
  gsl_odeiv2_step_free(s);
  if (st != GSL_SUCCESS || calls != VS_S + 1) {
    r->status = AF_V_ERROR;
    af_v_note(r, "stepper status %d, %zu field calls per step (expected "
              "%d)", st, calls, VS_S + 1);
    return;
  }
  double worst = 0, wdev = 0;
  const char *what = "";
  size_t wi = 0;
  for (size_t i = 0; i <= VS_S + 1; i++) {
    /* rows 2..16 (a_ij, j < i), then b (c = 1), then e (c = 0) */
    const double *x = i < VS_S ? A[i] : i == VS_S ? B : E;
    size_t k = i < VS_S ? i : VS_S;
    double ci = i < VS_S ? C[i] : i == VS_S ? 1.0 : 0.0, sa;
    if (i == 0)
      continue;
    double sum = vs_sum(x, k, &sa);
    double bnd = 0.5 * U * (sa + fabs(ci)) + U * fabs(ci) +
                 2.0 * (double) (k * k) * U * U * sa;
    double dev = fabs(sum - ci);
    if (!(dev / bnd <= worst)) {
      worst = dev / bnd;
      wdev = dev;
      wi = i;
      what = i < VS_S ? "row sum - c_i" : i == VS_S ? "sum b - 1" : "sum e";
    }
  }
  af_v_abs(r, worst, 0.0, fac);
  af_v_note(r, "tableau read back through one step h = 1 per stage: worst "
            "%s %.3g", what, wdev);
  if (wi < VS_S)
    af_v_note(r, " (stage %zu)", wi + 1);
  af_v_note(r, ", %.3g of its rounding bound", worst);
}

const af_claim af_claims_vern9[] = {
  {"N.vern9", "", AF_V_PASS, "N.vern9", claim_vern9, 0, 0,
   "Vern9 in fixed steps: order 9"},
  {"N.vern9.stages", "", AF_V_PASS, "N.vern9.stages", claim_vern9_stages, 0,
   0, "Vern9's stages at the times their increments reach: c_i = sum_j a_ij"},
};
const size_t af_claims_vern9_count =
    sizeof af_claims_vern9 / sizeof af_claims_vern9[0];
