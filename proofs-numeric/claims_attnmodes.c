/* claims_attnmodes.c -- the USA and causal attention of M5 on every
 * kernel path (theorems.md M5, P1, P6).
 *
 * P1 (USA) and P6 (causal SA) integrate on the direct kernel only, so the
 * USA normalizer and the causal mask of the other paths -- the small path
 * (n^2 d <= 16384: scores, mirror and products by plain loops, rows past
 * the last vector tile one by one) and the BLAS path (dsyrk, dsymm,
 * dtrmm) -- are reached by no other claim.  On the orthonormal start
 * theta_k = e_k (n = d) with Q = K = V = I both have closed forms, with
 * E = e^{-beta}:
 *
 *   USA:     A_j = (e^beta e_j + sum_{k != j} e_k) / n,
 *            c_j = <theta_j, A_j> = e^beta / n,  P A_j = sum_{k != j} e_k / n;
 *   causal:  Z_j = 1 + j E (token j attends to tokens k <= j),
 *            A_j = (e_j + E sum_{k < j} e_k) / Z_j,
 *            c_j = 1 / Z_j,  P A_j = E sum_{k < j} e_k / Z_j.
 *
 * Under Pre-LN with r_j = 1 the field is d theta_j/dt = P A_j and
 * dr_j/dt = c_j.  Each claim evaluates af_rhs (no integration) at
 * n = d = 20 (small path: one tile of 16 rows and 4 rows past it on the
 * 8-lane build) and n = d = 32 (BLAS path) on the default and the direct
 * kernel, and af_mp_rhs at 128 bits at n = d = 20, and compares every
 * component with the closed form, relative to the rounding scale
 * m_j = sum_k w_jk |theta_k| (attention.c's amag: 1 for causal SA,
 * (e^beta + n - 1)/n for USA).  t = 1 (the Pre-LN field does not depend
 * on t; at t = 1 the speed fault scales it).
 *
 * Rounding bound (u = 2^-53).  On this start every direction is exact
 * (|x_j| = 1), every score is 0 or 1 exactly (the direct kernel's
 * differences: |D|^2 = 2, 1 - |D|^2/2 = 0 exactly), so the exponents are
 * -beta or 0 exactly; each weight carries the exp's rounding (at most
 * 1 ulp, 2u relative: attention.c, libm).  Small and BLAS paths: a
 * component of the weighted sum is one weight (the other terms are exact
 * zeros), the normalizer a sum of at most n positive terms ((n - 1)u; USA:
 * n e^{-beta}, 3u), the division two roundings: A_ji within (n + 3)u of
 * m_j; c_j = A_jj and P A_j = A_j - c_j e_j are exact from there.  Direct
 * kernel: (P A_j)_i = w_ji (4u) for i != j and exactly 0 for i = j (the
 * sum of w_jk (th_k - th_j)_j and the radial term are the same operations
 * with opposite signs), and c_j = sum_k w_jk - R_j with R_j =
 * sum_{k != j} w_jk |D|^2 / 2 <= m_j: (n + 3)u + (n + 1)u + u of m_j.
 * s_j = r_j = 1 and |x_j| = 1 make the scaling exact; MPFR adds the
 * rounding to double (u); the prediction itself (libm exp, a sum, a
 * division) at most 5u of m_j.  Bound: (2n + 10)u of m_j, times the
 * factor of row M5.kernels; the claim reports the worst deviation in
 * units of that bound.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "attnflow_mp.h"
#include "verify.h"

#define U (DBL_EPSILON / 2)
#define AM_BETA 1.0
#define AM_PREC 128

/* Closed form of the Pre-LN field (r = 1) on the orthonormal start:
 * pred[j d + i] = (P A_j)_i, pred[n d + j] = c_j; a[j] = m_j, the
 * rounding scale sum_k w_jk |theta_k|. */
static void am_predict(double *pred, double *a, size_t n, int causal,
                       double beta)
{
  size_t d = n;
  double E = exp(-beta), eb = exp(beta);
  for (size_t j = 0; j < n; j++) {
    double *p = pred + j * d;
    for (size_t i = 0; i < d; i++)
      p[i] = 0.0;
    if (causal) {
      double Z = 1.0 + (double) j * E;
      for (size_t k = 0; k < j; k++)
        p[k] = E / Z;
      pred[n * d + j] = 1.0 / Z;
      a[j] = 1.0;
    } else {
      double nn = (double) n;
      for (size_t k = 0; k < n; k++)
        if (k != j)
          p[k] = 1.0 / nn;
      pred[n * d + j] = eb / nn;
      a[j] = (eb + nn - 1.0) / nn;
    }
  }
}

/* max over tokens j of |dy - pred| / m_j (directions and radius). */
static double am_dev(const double *dy, const double *pred, const double *a,
                     size_t n)
{
  size_t d = n;
  double worst = 0;
  for (size_t j = 0; j < n; j++) {
    for (size_t i = 0; i < d; i++) {
      double e = fabs(dy[j * d + i] - pred[j * d + i]) / a[j];
      if (!(e <= worst))
        worst = e;
    }
    double e = fabs(dy[n * d + j] - pred[n * d + j]) / a[j];
    if (!(e <= worst))
      worst = e;
  }
  return worst;
}

static void claim_modes(af_vresult *r, const af_vctx *c, int arg)
{
  int causal = arg;
  double fac = af_v_tol(c, "M5.kernels");
  static const size_t sizes[2] = {20, 32}; /* small path, BLAS path */
  double worst = 0; /* in units of the bound (2n + 10)u */
  const char *where = "";
  size_t wn = 0;
  int st = AF_OK;
  for (size_t q = 0; q < 2 && st == AF_OK; q++) {
    size_t n = sizes[q], d = n, N = af_state_size(n, d);
    af_model m;
    af_v_model(&m, c, n, d, AM_BETA, AF_PRE_LN);
    m.attn = causal ? AF_ATTN_CAUSAL : AF_ATTN_USA;
    double *y = malloc(N * sizeof *y), *dy = malloc(N * sizeof *dy);
    double *pred = malloc(N * sizeof *pred), *a = malloc(n * sizeof *a);
    af_work *w = af_work_alloc(n, d);
    af_mp_work *mw = q == 0 ? af_mp_work_alloc(n, d, AM_PREC) : NULL;
    mpfr_t *my = q == 0 ? af_mp_vec_alloc(N, AM_PREC) : NULL;
    mpfr_t *mdy = q == 0 ? af_mp_vec_alloc(N, AM_PREC) : NULL;
    mpfr_t mt;
    mpfr_init2(mt, AM_PREC);
    mpfr_set_ui(mt, 1, MPFR_RNDN);
    size_t line;
    if (!y || !dy || !pred || !a || !w || (q == 0 && (!mw || !my || !mdy)))
      st = AF_ENOMEM;
    if (st == AF_OK)
      st = af_init_state(y, &line, "orthonormal", n, d, 1.0, 0);
    if (st == AF_OK)
      am_predict(pred, a, n, causal, AM_BETA);
    static const char *const names[3] = {"default kernel", "direct kernel",
                                          "MPFR"};
    for (int e = 0; e < 3 && st == AF_OK; e++) {
      if (e == 2 && q != 0)
        break;
      if (e < 2) {
        st = af_work_set_kernel(w, e ? AF_KERNEL_DIRECT : AF_KERNEL_BLAS);
        if (st == AF_OK)
          st = af_rhs(dy, 1.0, y, &m, w);
      } else {
        af_mp_vec_set_d(my, y, N);
        st = af_mp_rhs(mdy, mt, my, &m, mw);
        if (st == AF_OK)
          af_mp_vec_get_d(dy, mdy, N);
      }
      if (st != AF_OK)
        break;
      double dev = am_dev(dy, pred, a, n) / ((2.0 * (double) n + 10.0) * U);
      if (!(dev <= worst) || wn == 0) {
        worst = dev;
        where = names[e];
        wn = n;
      }
    }
    mpfr_clear(mt);
    af_mp_vec_free(my, q == 0 ? N : 0);
    af_mp_vec_free(mdy, q == 0 ? N : 0);
    af_mp_work_free(mw);
    af_work_free(w);
    free(y);
    free(dy);
    free(pred);
    free(a);
  }
  if (st != AF_OK) {
    af_v_error(r, st, causal ? "M5.causal" : "M5.usa");
    return;
  }
  af_v_abs(r, worst, 0.0, fac);
  af_v_note(r, "%s, Pre-LN r0=1 beta=%g, orthonormal n=d=20 (small path; "
            "also MPFR %d bits) and 32 (BLAS path), default and direct "
            "kernels: worst |dy - closed form| / m_j %.3g of the bound "
            "(2n + 10)u (%s, n=%zu; %.3g absolute)", causal ? "causal SA"
            : "USA", AM_BETA, AM_PREC, worst, where, wn,
            worst * (2.0 * (double) wn + 10.0) * U);
}

const af_claim af_claims_attnmodes[] = {
  {"M5.usa", "pre-ln", AF_V_PASS, "M5.kernels", claim_modes, 0,
   F_S | F_R | F_A, "USA field on the orthonormal start equals its closed "
   "form on the small, BLAS, direct and MPFR paths"},
  {"M5.causal", "pre-ln", AF_V_PASS, "M5.kernels", claim_modes, 1,
   F_S | F_R | F_A, "causal field on the orthonormal start equals its closed "
   "form on the small, BLAS, direct and MPFR paths"},
};

const size_t af_claims_attnmodes_count =
    sizeof af_claims_attnmodes / sizeof af_claims_attnmodes[0];
