/* claims_u3mp.c -- normalization that changes attention (theorems.md U3)
 * on the MPFR path: the kernel attention_norm of src/mp/mp_kernel_source.c
 * (attention_norm.c's formulas at the working precision).
 *
 * U3.mp, two parts, each measured as a ratio to a rounding bound of the
 * form 2(n + d + 8)u (1 + 2 S), S the largest |score| (the bound of
 * U3.radii and U3.qknorm: T4.1a.velocity's rounding of the sums and
 * projection plus each exponent's rounding):
 *   - double against MPFR: af_rhs of a U3 spec (scores = radii with
 *     distinct radii, scores = qknorm with a gain) under Kaiming Q, K, V
 *     with softmax, causal and USA weights against af_mp_rhs at 128 bits, u = 2^-53 (the MPFR field is exact
 *     to 2^-120 here, so this is the double path's error, bounded as the
 *     double claims bound it);
 *   - the reductions of U3 at the working precision: af_mp_rhs of the
 *     radii spec at a common radius R against the MPFR built-in Post-LN
 *     at beta R^2, and of the qknorm spec with Q = 3I, K = I/2 against the
 *     built-in at beta g with identity weights, u = 2^-128.
 * The measured value is the largest of the ratios (each must be <= 1).
 * Field evaluations only (a few milliseconds): the MPFR methods that take
 * a spec (mp-gauss, mp-gbs) evaluate the field through af_mp_rhs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow_mp.h"
#include "verify.h"

#define U3M_N 6
#define U3M_D 4
#define U3M_NS (U3M_N * U3M_D + U3M_N) /* af_state_size(n, d) */
#define U3M_PREC 128

/* max |a - b| / max |b| over the first len numbers. */
static double u3m_reldiff(const double *a, const double *b, size_t len)
{
  double md = 0, mb = 0;
  for (size_t i = 0; i < len; i++) {
    md = fmax(md, fabs(a[i] - b[i]));
    mb = fmax(mb, fabs(b[i]));
  }
  return mb > 0 ? md / mb : md;
}

/* The field of m at y in double into dd (af_rhs; dd NULL: not made) and
 * at U3M_PREC bits into dym (af_mp_rhs from y's doubles, exact). */
static int u3m_fields(double *dd, mpfr_t *dym, const double *y,
                      const af_model *m)
{
  size_t N = af_state_size(m->n, m->d);
  af_work *w = af_work_alloc(m->n, m->d);
  af_mp_work *wm = af_mp_work_alloc(m->n, m->d, U3M_PREC);
  mpfr_t *ym = af_mp_vec_alloc(N, U3M_PREC);
  mpfr_t t;
  mpfr_init2(t, U3M_PREC);
  mpfr_set_ui(t, 0, MPFR_RNDN);
  int rc = (w && wm && ym) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK && dd != NULL)
    rc = af_rhs(dd, 0.0, y, m, w);
  if (rc == AF_OK) {
    af_mp_vec_set_d(ym, y, N);
    rc = af_mp_rhs(dym, t, ym, m, wm);
  }
  mpfr_clear(t);
  af_mp_vec_free(ym, ym ? N : 0);
  af_mp_work_free(wm);
  af_work_free(w);
  return rc;
}

/* max_i |a_i| over the first len numbers, in double. */
static double u3m_maxabs(mpfr_t *a, size_t len)
{
  double mx = 0;
  for (size_t i = 0; i < len; i++)
    mx = fmax(mx, fabs(mpfr_get_d(a[i], MPFR_RNDN)));
  return mx;
}

/* out = M x (d x d row-major). */
static void u3m_matvec(double *out, const double *M, const double *x,
                       size_t d)
{
  for (size_t a = 0; a < d; a++) {
    out[a] = 0;
    for (size_t b = 0; b < d; b++)
      out[a] += M[a * d + b] * x[b];
  }
}

/* The largest |score| beta g u_j v_k <Q th_j, K th_k> of the state y
 * (for the bound; radii: u = v = r, qknorm: u = v = 1/|.|). */
static double u3m_smax(const double *y, const double *Q, const double *K,
                       size_t n, size_t d, double bg, int radii)
{
  double th[U3M_N * U3M_D], q[U3M_N * U3M_D], k[U3M_N * U3M_D], s = 0;
  af_v_unit_dirs(th, y, n, d);
  for (size_t j = 0; j < n; j++) {
    u3m_matvec(q + j * d, Q, th + j * d, d);
    u3m_matvec(k + j * d, K, th + j * d, d);
  }
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < n; l++) {
      double dot = 0, nq = 0, nk = 0;
      for (size_t i = 0; i < d; i++) {
        dot += q[j * d + i] * k[l * d + i];
        nq += q[j * d + i] * q[j * d + i];
        nk += k[l * d + i] * k[l * d + i];
      }
      double sc = radii ? bg * y[n * d + j] * y[n * d + l] * dot
                        : bg * dot / sqrt(nq * nk);
      s = fmax(s, fabs(sc));
    }
  return s;
}

static void claim_u3_mp(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const char *const txt[2] = {
      "name = u3-radii\nspeed = 1\nradial = 0\nlayer = sphere\n"
      "scores = radii\n",
      "name = u3-qknorm\nparam g = 1.5\nspeed = 1\nradial = 0\n"
      "layer = sphere\nscores = qknorm\ngain = g\n"};
  af_scheme_spec *sp[2] = {NULL, NULL};
  int rc = AF_OK;
  for (int i = 0; i < 2 && rc == AF_OK; i++)
    rc = af_scheme_spec_parse(&sp[i], NULL, txt[i], strlen(txt[i]));
  const size_t n = U3M_N, d = U3M_D, nd = n * d;
  const double beta = 1.25, gain = 1.5;
  const double u53 = DBL_EPSILON / 2, up = ldexp(1.0, -U3M_PREC);
  const double kb = 2 * (double) (n + d + 8);
  double y[U3M_NS], dd[U3M_NS], dm[U3M_NS];
  mpfr_t *xm = af_mp_vec_alloc(U3M_NS, U3M_PREC);
  mpfr_t *xb = af_mp_vec_alloc(U3M_NS, U3M_PREC);
  double QI[U3M_D * U3M_D], KI[U3M_D * U3M_D];
  double worst_dbl = 0, worst_red = 0, rel_dbl = 0, rel_red = 0;
  af_weights *kw = af_weights_alloc(d, 1, 1.0);
  af_weights *sw = af_weights_alloc(d, 1, 1.0);
  if (rc == AF_OK && (kw == NULL || sw == NULL || xm == NULL || xb == NULL))
    rc = AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_weights_kaiming(kw, 28);
  /* Double against MPFR: both specs under Kaiming Q, K, V, distinct
   * radii 0.75 + 0.25 j, with softmax, causal and USA weights. */
  static const af_attn_kind attn[3] = {AF_ATTN_SOFTMAX, AF_ATTN_CAUSAL,
                                       AF_ATTN_USA};
  for (int q = 0; q < 6 && rc == AF_OK; q++) {
    int i = q % 2;
    rc = af_init_state(y, NULL, "gaussian", n, d, NAN, 17 + (unsigned) i);
    for (size_t j = 0; j < n; j++)
      y[nd + j] = 0.75 + 0.25 * (double) j;
    af_model m;
    af_v_model(&m, c, n, d, beta, AF_POST_LN);
    m.w = kw;
    m.attn = attn[q / 2];
    if (rc == AF_OK)
      rc = af_model_set_user_scheme(&m, af_scheme_spec_row(sp[i]));
    if (rc == AF_OK)
      rc = u3m_fields(dd, xm, y, &m);
    if (rc != AF_OK)
      break;
    af_mp_vec_get_d(dm, xm, nd);
    double S = u3m_smax(y, kw->Q[0], kw->K[0], n, d,
                        i == 0 ? beta : beta * gain, i == 0);
    double rel = u3m_reldiff(dd, dm, nd);
    rel_dbl = fmax(rel_dbl, rel);
    worst_dbl = fmax(worst_dbl, rel / (kb * u53 * (1 + 2 * S)));
  }
  /* The reductions at U3M_PREC bits. */
  const double radii[2] = {2.0, 0.75};
  for (int q = 0; q < 3 && rc == AF_OK; q++) {
    rc = af_init_state(y, NULL, "gaussian", n, d, NAN, 7);
    double R = q < 2 ? radii[q] : 1.0;
    for (size_t j = 0; j < n; j++)
      y[nd + j] = R;
    af_model ms, mb;
    af_v_model(&ms, c, n, d, beta, AF_POST_LN);
    mb = ms;
    mb.beta = q < 2 ? beta * R * R : beta * gain;
    if (q == 2) { /* Q = 3I, K = I/2 (V = I) */
      for (size_t i = 0; i < d * d; i++) {
        QI[i] = (i % (d + 1) == 0) ? 3.0 : 0.0;
        KI[i] = (i % (d + 1) == 0) ? 0.5 : 0.0;
      }
      sw->Q[0] = QI;
      sw->K[0] = KI;
      ms.w = sw;
    }
    if (rc == AF_OK)
      rc = af_model_set_user_scheme(&ms, af_scheme_spec_row(sp[q < 2 ? 0 : 1]));
    if (rc == AF_OK)
      rc = u3m_fields(NULL, xm, y, &ms);
    if (rc == AF_OK)
      rc = u3m_fields(NULL, xb, y, &mb);
    if (rc != AF_OK)
      break;
    double mb_ = u3m_maxabs(xb, nd), md = af_mp_vec_maxdiff(xm, xb, nd);
    double rel = mb_ > 0 ? md / mb_ : md;
    rel_red = fmax(rel_red, rel);
    worst_red = fmax(worst_red, rel / (kb * up * (1 + 2 * mb.beta)));
  }
  if (sw != NULL)
    sw->Q[0] = sw->K[0] = NULL; /* not the weights' own */
  af_weights_free(sw);
  af_weights_free(kw);
  af_mp_vec_free(xm, xm ? U3M_NS : 0);
  af_mp_vec_free(xb, xb ? U3M_NS : 0);
  if (rc != AF_OK)
    af_v_error(r, rc, "U3.mp");
  else {
    af_v_le(r, fmax(worst_dbl, worst_red), af_v_tol(c, "U3.mp"), 0.0);
    af_v_note(r, "n=%d d=%d beta=%g, %d bits: double vs MPFR field (radii "
              "0.75..2, qknorm gain %g; Kaiming Q, K, V; softmax, causal, USA) "
              "rel. %.3g = %.3g "
              "of the 2^-53 bound; MPFR reductions (radii at R = 2, 0.75 vs "
              "built-in at beta R^2; qknorm Q = 3I, K = I/2 vs beta g) rel. "
              "%.3g = %.3g of the 2^-%d bound",
              U3M_N, U3M_D, beta, U3M_PREC, gain, rel_dbl, worst_dbl,
              rel_red, worst_red, U3M_PREC);
  }
  af_scheme_spec_free(sp[0]);
  af_scheme_spec_free(sp[1]);
}

const af_claim af_claims_u3mp[] = {
    {"U3.mp", "post-ln", AF_V_PASS, "U3.mp", claim_u3_mp, 0, 0,
     "U3's scores and gain on the MPFR path: = double, reductions at 128 bits"},
};

const size_t af_claims_u3mp_count =
    sizeof af_claims_u3mp / sizeof af_claims_u3mp[0];
