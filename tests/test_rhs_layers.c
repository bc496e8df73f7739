/* test_rhs_layers.c -- unit tests of the energy identity I1-I3 along
 * the flow, the errors of af_attention / af_rhs (bad input, vanishing
 * attention, overflow), the deliberate faults, and the discrete layer maps
 * S7 (af_layer_step).  Closed forms and properties of the field are in
 * test_rhs.c; the long-double reference and the tolerances (T1) are in
 * rhs_ref.c / rhs_ref.h.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "aftest.h"
#include "rhs_ref.h"

typedef struct {
  const af_model *m;
  af_work *w;
  double E[64];
  size_t count;
  int rc;
} energy_ctx;

static int record_energy(double t, const double *y, void *ctx)
{
  energy_ctx *e = ctx;
  double obs[AF_OBS_COUNT];
  int rc = af_observe(obs, t, y, 0.9999, e->m, e->w);
  if (rc != AF_OK) {
    e->rc = rc;
    return rc;
  }
  if (e->count < 64)
    e->E[e->count++] = obs[AF_OBS_energy];
  return 0;
}

/* Count the steps where energy drops by more than the slack: rounding of
 * the n^2 exponentials, each relatively 2 d beta eps + 1 ulp, summed:
 * 4 (n^2 + d beta) eps E, plus the change of E under the integrator's
 * global error delta per coordinate, at most 2 beta delta E (each cosine
 * moves by <= 2 delta); delta is taken as 100 (rtol + atol), a generous
 * bound for rk8pd's global error on [0, 1] at these tolerances. */
static size_t energy_drops(const energy_ctx *e, size_t n, size_t d, double beta,
                           const af_integ_opts *o)
{
  size_t bad = 0;
  double delta = 100 * (o->rtol + o->atol);
  for (size_t k = 1; k < e->count; k++) {
    double slack = (4.0 * ((double) (n * n) + (double) d * beta) * EPS + 2 * beta * delta)
                   * e->E[k - 1];
    if (e->E[k] < e->E[k - 1] - slack) {
      bad++;
    }
  }
  return bad;
}

START_TEST(test_energy_monotone)
{
  const size_t n = 6, d = 3;
  const double beta = 1.0;
  double times[21];
  for (int k = 0; k <= 20; k++)
    times[k] = 0.05 * k;
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  double *y = state_new(n, d);
  for (int at = 0; at < 2; at++) /* softmax and USA are gradient flows */
    for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
      aft_random_state(y, n, d, aft_seed(606) + (unsigned long) sc);
      af_model m;
      af_model_init(&m, n, d, beta, (af_scheme_id) sc);
      m.attn = (af_attn_kind) at;
      m.tau = 0.5;
      af_work *w = af_work_alloc(n, d), *wo = af_work_alloc(n, d);
      energy_ctx e = {&m, wo, {0}, 0, AF_OK};
      af_integ_stats st;
      AFT_OK(af_integrate(y, times, 21, &m, &o, w, record_energy, &e, &st));
      AFT_OK(e.rc);
      ck_assert_uint_eq(e.count, 21);
      size_t bad = energy_drops(&e, n, d, beta, &o);
      ck_assert_msg(bad == 0, "%s %s: energy dropped at %zu of 20 steps", rr_aname[at],
                    sname(sc), bad);
      ck_assert_msg(e.E[20] > e.E[0], "%s %s: energy did not grow", rr_aname[at], sname(sc));
      af_work_free(w);
      af_work_free(wo);
    }
  /* Negative control: V = -I reverses the field, energy decreases, and
   * the same check must notice. */
  aft_random_state(y, n, d, aft_seed(606));
  af_weights *neg = explicit_weights(d, 1, 1, -1);
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  m.w = neg;
  af_work *w = af_work_alloc(n, d), *wo = af_work_alloc(n, d);
  af_model mo; /* observe energy with the identity model */
  af_model_init(&mo, n, d, beta, AF_POST_LN);
  energy_ctx e = {&mo, wo, {0}, 0, AF_OK};
  af_integ_stats st;
  AFT_OK(af_integrate(y, times, 21, &m, &o, w, record_energy, &e, &st));
  size_t drops = energy_drops(&e, n, d, beta, &o);
  ck_assert_msg(drops > 0, "negative control (V = -I) not detected");
  af_work_free(w);
  af_work_free(wo);
  af_weights_free(neg);
  free(y);
}
END_TEST

/* Sum_{j,k} exp(beta <th_j, th_k>) in long double, th = x/|x|. */
static long double energy_ld(const double *y, size_t n, size_t d, double beta,
                             long double *Z)
{
  long double E = 0;
  for (size_t j = 0; j < n; j++) {
    long double nj = 0, zj = 0;
    for (size_t i = 0; i < d; i++)
      nj += (long double) y[j * d + i] * y[j * d + i];
    for (size_t k = 0; k < n; k++) {
      long double nk = 0, g = 0;
      for (size_t i = 0; i < d; i++) {
        nk += (long double) y[k * d + i] * y[k * d + i];
        g += (long double) y[j * d + i] * y[k * d + i];
      }
      zj += expl(beta * g / sqrtl(nj * nk));
    }
    if (Z)
      Z[j] = zj;
    E += zj;
  }
  return E;
}

/* dE/dt = sum_j 2 beta Z_j |P A_j|^2 / s_j (I1, softmax, Q = K = V = I)
 * against a central difference of E along the field.  E is evaluated in
 * long double (rounding ~1e-19 E / h); the difference's truncation error
 * is h^2 E''' / 6 with E''' <= (2 beta + 2)^3 |v|^3 E-ish, about 1e-10
 * relative at h = 1e-5 for the velocities here: a 1e-7 relative bound
 * covers both by three orders.  A missing factor 2 or Z_j fails by O(1). */
START_TEST(test_energy_derivative)
{
  const size_t n = 7, d = 4;
  const double beta = 1.3, h = 1e-5;
  double y[35], yp[35], ym[35], dy[35], pt[28], s[7];
  long double Z[7];
  for (int sc = 0; sc < AF_SCHEME_COUNT; sc++)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
      aft_random_state(y, n, d, aft_seed(31) + (unsigned long) sc);
      af_model m;
      af_model_init(&m, n, d, beta, (af_scheme_id) sc);
      af_work *w = work_new(n, d, (af_kernel) kk);
      AFT_OK(af_rhs(dy, 0.7, y, &m, w));
      AFT_OK(af_attention(NULL, pt, NULL, NULL, 0.7, y, &m, w));
      AFT_OK(af_speeds(s, NULL, 0.7, y, &m, w));
      energy_ld(y, n, d, beta, Z);
      long double formula = 0;
      for (size_t j = 0; j < n; j++) {
        long double q = 0;
        for (size_t i = 0; i < d; i++)
          q += (long double) pt[j * d + i] * pt[j * d + i];
        formula += 2 * beta * Z[j] * q / s[j];
      }
      for (size_t i = 0; i < n * d + n; i++) {
        yp[i] = y[i] + h * dy[i];
        ym[i] = y[i] - h * dy[i];
      }
      /* The difference quotient along the actually applied step. */
      long double fd = (energy_ld(yp, n, d, beta, NULL) - energy_ld(ym, n, d, beta, NULL))
                       / (2.0L * h);
      char what[64];
      snprintf(what, sizeof what, "dE/dt %s %s", sname(sc), rr_kname[kk]);
      ck_assert_msg(formula > 0, "%s not positive", what);
      ck_assert_msg(aft_close(what, (double) fd, (double) formula, 1e-7, 0), "%s", what);
      af_work_free(w);
    }
}
END_TEST

/* ================================================================ errors */

START_TEST(test_errors_inputs)
{
  const size_t n = 3, d = 2;
  double y[9], dy[9], A[6], s[3];
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    af_work *w = work_new(n, d, (af_kernel) kk);
    /* A token of norm zero has no direction. */
    aft_random_state(y, n, d, 1);
    y[2] = y[3] = 0.0;
    AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, y, &m, w), AF_EZERONORM);
    AFT_STATUS(af_rhs(dy, 0, y, &m, w), AF_EZERONORM);
    AFT_STATUS(af_speeds(s, NULL, 0, y, &m, w), AF_EZERONORM);
    AFT_STATUS(af_layer_step(dy, y, 0, 0.1, &m, w), AF_EZERONORM);
    /* Non-finite entries anywhere in y, radii included. */
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t ib = 0; ib < 3; ib++)
      for (size_t pos = 0; pos < af_state_size(n, d); pos += 4) {
        aft_random_state(y, n, d, 1);
        y[pos] = bad[ib];
        AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, y, &m, w), AF_ENONFINITE);
        AFT_STATUS(af_rhs(dy, 0, y, &m, w), AF_ENONFINITE);
        AFT_STATUS(af_layer_step(dy, y, 0, 0.1, &m, w), AF_ENONFINITE);
      }
    /* Contract errors. */
    aft_random_state(y, n, d, 1);
    AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, y, &m, NULL), AF_EINVAL);
    AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, NULL, &m, w), AF_EINVAL);
    AFT_STATUS(af_rhs(NULL, 0, y, &m, w), AF_EINVAL);
    AFT_STATUS(af_rhs(dy, 0, NULL, &m, w), AF_EINVAL);
    AFT_STATUS(af_rhs(dy, 0, y, &m, NULL), AF_EINVAL);
    AFT_STATUS(af_speeds(s, NULL, 0, NULL, &m, w), AF_EINVAL);
    AFT_STATUS(af_speeds(s, NULL, 0, y, &m, NULL), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, 0.0, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, -0.1, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, NAN, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, INFINITY, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(NULL, y, 0, 0.1, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, NULL, 0, 0.1, &m, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, 0.1, &m, NULL), AF_EINVAL);
    /* An invalid model is refused by every entry point. */
    af_model bm = m;
    bm.beta = -1;
    AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, y, &bm, w), AF_EINVAL);
    AFT_STATUS(af_rhs(dy, 0, y, &bm, w), AF_EINVAL);
    AFT_STATUS(af_speeds(s, NULL, 0, y, &bm, w), AF_EINVAL);
    AFT_STATUS(af_layer_step(dy, y, 0, 0.1, &bm, w), AF_EINVAL);
    bm = m;
    bm.beta = NAN;
    AFT_STATUS(af_rhs(dy, 0, y, &bm, w), AF_ENONFINITE);
    /* Model and work of different sizes. */
    bm = m;
    bm.n = n + 1;
    AFT_STATUS(af_rhs(dy, 0, y, &bm, w), AF_EDIM);
    bm = m;
    bm.d = d + 1;
    AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0, y, &bm, w), AF_EDIM);
    af_weights *w3 = af_weights_alloc(d + 1, 1, 1.0);
    bm = m;
    bm.w = w3;
    AFT_STATUS(af_rhs(dy, 0, y, &bm, w), AF_EDIM);
    af_weights_free(w3);
    /* Pre-LN and Peri-LN with radius 0 or below: s = r (|A|) <= 0. */
    for (int sc = AF_PRE_LN; sc <= AF_PERI_LN; sc += 2) {
      af_model pm = m;
      pm.scheme = (af_scheme_id) sc;
      y[n * d + 1] = 0.0;
      AFT_STATUS(af_rhs(dy, 0, y, &pm, w), AF_ESPEED);
      AFT_STATUS(af_speeds(s, NULL, 0, y, &pm, w), AF_ESPEED);
      y[n * d + 1] = -0.5;
      AFT_STATUS(af_rhs(dy, 0, y, &pm, w), AF_ESPEED);
      /* Post-LN ignores the radius. */
      AFT_OK(af_rhs(dy, 0, y, &m, w));
      y[n * d + 1] = 1.0;
    }
    af_work_free(w);
  }
  /* Work objects. */
  ck_assert_ptr_null(af_work_alloc(0, 3));
  ck_assert_ptr_null(af_work_alloc(3, 0));
  af_work_free(NULL);
  af_work *w = af_work_alloc(n, d);
  ck_assert_int_eq(af_work_kernel(w), AF_KERNEL_BLAS); /* default */
  AFT_STATUS(af_work_set_kernel(w, AF_KERNEL_COUNT), AF_EINVAL);
  AFT_STATUS(af_work_set_kernel(w, (af_kernel) -1), AF_EINVAL);
  AFT_STATUS(af_work_set_kernel(NULL, AF_KERNEL_DIRECT), AF_EINVAL);
  ck_assert_int_eq(af_work_kernel(w), AF_KERNEL_BLAS);
  ck_assert_uint_eq(af_work_nevals(w), 0);
  aft_random_state(y, n, d, 1);
  AFT_OK(af_rhs(dy, 0, y, &m, w));
  AFT_OK(af_rhs(dy, 0, y, &m, w));
  ck_assert_uint_eq(af_work_nevals(w), 2);
  ck_assert_uint_eq(af_state_size(4, 3), 16);
  af_work_free(w);
}
END_TEST

/* Peri-LN and nGPT at a configuration with A_1 = 0 exactly (theorems.md S0):
 * tokens (1,0), (-1,0), (-1,0), beta = ln(2)/2: weights of token 1 are
 * 1, e^{-2 beta} = 1/2, 1/2, so A_1 = (e1 - e1/2 - e1/2) / 2 = 0.  The
 * other schemes do not divide by |A| and are fine (token 1 at rest). */
START_TEST(test_errors_zero_attention)
{
  const size_t n = 3, d = 2;
  double y[9] = {1, 0, -1, 0, -1, 0, 1, 1, 1}, y0[9], dy[9], a[3], s[3];
  memcpy(y0, y, sizeof y);
  for (int ex = 0; ex < 2; ex++)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
        af_weights *wts = ex ? explicit_weights(d, 1, 1, 1) : NULL;
        af_model m;
        af_model_init(&m, n, d, M_LN2 / 2, (af_scheme_id) sc);
        m.w = wts;
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_attention(NULL, NULL, NULL, a, 0, y, &m, w));
        /* Bound of attnflow.h: |A_1| within n eps sum_k w_1k |V th_k|. */
        double bound = (double) n * EPS * 1.0;
        if (af_scheme_get((af_scheme_id) sc)->needs_anorm) {
          int rc = af_rhs(dy, 0, y, &m, w);
          ck_assert_msg(rc == AF_EZEROATTN,
                        "%s %s ex=%d: af_rhs gave %s; |A_1| = %.17g (%a), bound %.3g",
                        sname(sc), rr_kname[kk], ex, af_status_name(rc), a[0], a[0], bound);
          AFT_STATUS(af_speeds(s, NULL, 0, y, &m, w), AF_EZEROATTN);
          AFT_STATUS(af_layer_step(y, y, 0, 0.1, &m, w), AF_EZEROATTN);
          ck_assert(memcmp(y, y0, sizeof y) == 0); /* untouched on failure */
        } else {
          AFT_OK(af_rhs(dy, 0, y, &m, w));
          AFT_CLOSE("zero-attention token at rest", fabs(dy[0]) + fabs(dy[1]), 0, 0,
                    4 * EPS);
        }
        af_work_free(w);
        af_weights_free(wts);
      }
}
END_TEST

/* USA without a normalizer: e^{beta} overflows.  beta = 1e4 overflows
 * outright; beta = 720 gives outputs near e^720 / n ~ 1e312 / n > DBL_MAX
 * for n < 1e4, which must be reported as AF_EOVERFLOW too (attnflow.h),
 * not as an infinity or a NaN. */
static void usa_overflow_case(const double *betas, size_t nb)
{
  const size_t n = 4, d = 3;
  double y[16], dy[16], A[12];
  aft_random_state(y, n, d, 8);
  af_weights *wts = af_weights_alloc(d, 1, 1.0);
  AFT_OK(af_weights_kaiming(wts, 4));
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int wt = 0; wt < 3; wt++)
      for (size_t ib = 0; ib < nb; ib++) {
        af_weights *use = wt == 1 ? wts : NULL;
        af_weights *ex = wt == 2 ? explicit_weights(d, 1, 1, 1) : NULL;
        af_model m;
        af_model_init(&m, n, d, betas[ib], AF_POST_LN);
        m.attn = AF_ATTN_USA;
        m.w = ex ? ex : use;
        af_work *w = work_new(n, d, (af_kernel) kk);
        int rc = af_attention(A, NULL, NULL, NULL, 0, y, &m, w);
        if (wt == 1 && rc == AF_OK) {
          /* Kaiming scores are O(1) of either sign, so e^{beta s} / n may
           * well be representable; then the outputs must be finite. */
          for (size_t i = 0; i < n * d; i++)
            ck_assert(isfinite(A[i]));
        } else {
          ck_assert_msg(rc == AF_EOVERFLOW, "USA beta=%g w%d %s: af_attention gave %s",
                        betas[ib], wt, rr_kname[kk], af_status_name(rc));
          AFT_STATUS(af_rhs(dy, 0, y, &m, w), AF_EOVERFLOW);
        }
        af_work_free(w);
        af_weights_free(ex);
      }
  af_weights_free(wts);
}

START_TEST(test_errors_usa_overflow)
{
  const double betas[] = {1e4, 1e3, 746.0};
  usa_overflow_case(betas, 3);
}
END_TEST

/* Just below exp's own overflow threshold (745.13 for e^-beta): e^-720
 * is subnormal, so 1/Z overflows although exp did not. */
START_TEST(test_errors_usa_overflow_boundary)
{
  const double betas[] = {720.0};
  usa_overflow_case(betas, 1);
}
END_TEST

/* Huge or tiny but finite tokens still have a direction: the
 * normalization must not overflow or underflow in |x|^2 (|x| = 1.4e200
 * or 1.4e-200 are ordinary doubles, and the header reserves
 * AF_ENONFINITE for NaN and infinity, AF_EZERONORM for x = 0). */
START_TEST(test_errors_extreme_tokens)
{
  const size_t n = 3, d = 2;
  double y[9], dy[9];
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    af_work *w = work_new(n, d, (af_kernel) kk);
    const double scales[] = {1e200, 1e-200};
    for (size_t isc = 0; isc < 2; isc++) {
      double yref[9], dyref[9];
      aft_random_state(yref, n, d, 1);
      AFT_OK(af_rhs(dyref, 0, yref, &m, w));
      memcpy(y, yref, sizeof y);
      y[0] *= scales[isc];
      y[1] *= scales[isc];
      int rc = af_rhs(dy, 0, y, &m, w);
      ck_assert_msg(rc == AF_OK, "token of norm %g (%s kernel): af_rhs gave %s",
                    scales[isc], rr_kname[kk], af_status_name(rc));
      for (size_t i = d; i < n * d; i++) /* other tokens see the same direction */
        AFT_CLOSE("field with a rescaled token", dy[i], dyref[i], 0, 64 * EPS);
    }
    af_work_free(w);
  }
}
END_TEST

/* Mixed weights (only Q, only K, only V given) against the reference:
 * the score matrix Q^T K must be formed with the right transpositions. */
START_TEST(test_mixed_weights)
{
  const size_t n = 5, d = 4;
  double y[25], A[20];
  aft_random_state(y, n, d, aft_seed(44));
  ref_t *R = ref_new(n, d);
  af_weights *full = af_weights_alloc(d, 1, 1.0);
  AFT_OK(af_weights_kaiming(full, 8));
  for (int which = 0; which < 3; which++) {
    af_weights *w1 = af_weights_alloc(d, 1, 1.0);
    double **src[3] = {full->Q, full->K, full->V}, **dst[3] = {w1->Q, w1->K, w1->V};
    dst[which][0] = malloc(d * d * sizeof(double));
    memcpy(dst[which][0], src[which][0], d * d * sizeof(double));
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int at = 0; at < AF_ATTN_COUNT; at++) {
        af_model m;
        af_model_init(&m, n, d, 1.9, AF_POST_LN);
        m.attn = (af_attn_kind) at;
        m.w = w1;
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w));
        ref_eval(R, 0.0, y, &m);
        char what[64];
        snprintf(what, sizeof what, "only %c given, %s %s", "QKV"[which], rr_aname[at],
                 rr_kname[kk]);
        for (size_t j = 0; j < n; j++)
          ck_assert_msg(vec_close(what, A + j * d, R->A + j * d, d, R->tolA[j]), "%s", what);
        af_work_free(w);
      }
    af_weights_free(w1);
  }
  af_weights_free(full);
  ref_free(R);
}
END_TEST

/* Scores that overflow (Q = K = 1e200 I: Q^T K = inf) are reported. */
START_TEST(test_errors_score_overflow)
{
  const size_t n = 3, d = 2;
  double y[9], dy[9];
  aft_random_state(y, n, d, 2);
  af_weights *big = explicit_weights(d, 1e200, 1e200, 1);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int at = 0; at < AF_ATTN_COUNT; at++) {
      af_model m;
      af_model_init(&m, n, d, 1.0, AF_POST_LN);
      m.attn = (af_attn_kind) at;
      m.w = big;
      af_work *w = work_new(n, d, (af_kernel) kk);
      AFT_STATUS(af_rhs(dy, 0, y, &m, w), AF_ENONFINITE);
      af_work_free(w);
    }
  af_weights_free(big);
}
END_TEST

/* The deliberate faults of attnflow.h change the field by exactly their
 * documented amounts (the verification claims rely on that):
 * SPEED divides d theta by (1 + 0.05 t), RADIAL multiplies dr by 1.1,
 * ATTENTION is beta (1 + 0.05).  Layer maps: RADIAL scales the radius
 * update by 1.1; SPEED turns Post-LN's step h into h / (1 + 0.05 t). */
START_TEST(test_faults)
{
  const size_t n = 5, d = 3;
  const double t = 2.0, h = 0.5;
  double y[20], dy0[20], dy1[20], yo0[20], yo1[20];
  aft_random_state(y, n, d, aft_seed(77));
  for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
    af_model m;
    af_model_init(&m, n, d, 1.4, (af_scheme_id) sc);
    af_work *w = af_work_alloc(n, d);
    AFT_OK(af_rhs(dy0, t, y, &m, w));
    af_model f = m;
    f.fault = AF_FAULT_SPEED;
    AFT_OK(af_rhs(dy1, t, y, &f, w));
    for (size_t i = 0; i < n * d; i++)
      AFT_CLOSE("fault speed dtheta", dy1[i], dy0[i] / (1 + 0.05 * t), 4 * EPS, 0);
    for (size_t j = 0; j < n; j++)
      AFT_CLOSE("fault speed dr", dy1[n * d + j], dy0[n * d + j], 0, 0);
    f.fault = AF_FAULT_RADIAL;
    AFT_OK(af_rhs(dy1, t, y, &f, w));
    for (size_t i = 0; i < n * d; i++)
      AFT_CLOSE("fault radial dtheta", dy1[i], dy0[i], 0, 0);
    for (size_t j = 0; j < n; j++)
      AFT_CLOSE("fault radial dr", dy1[n * d + j], 1.1 * dy0[n * d + j], 2 * EPS, 0);
    f.fault = AF_FAULT_ATTENTION;
    AFT_OK(af_rhs(dy1, t, y, &f, w));
    af_model mb = m;
    mb.beta = 1.4 * 1.05;
    AFT_OK(af_rhs(dy0, t, y, &mb, w));
    for (size_t i = 0; i < af_state_size(n, d); i++)
      AFT_CLOSE("fault attention", dy1[i], dy0[i], 0, 0);
    /* Layer maps, layer 4 (t = 2). */
    AFT_OK(af_layer_step(yo0, y, 4, h, &m, w));
    f.fault = AF_FAULT_RADIAL;
    AFT_OK(af_layer_step(yo1, y, 4, h, &f, w));
    for (size_t j = 0; j < n; j++)
      AFT_CLOSE("layer fault radial", yo1[n * d + j] - y[n * d + j],
                1.1 * (yo0[n * d + j] - y[n * d + j]), 0, 8 * EPS);
    if (sc == AF_POST_LN) {
      f.fault = AF_FAULT_SPEED;
      AFT_OK(af_layer_step(yo1, y, 4, h, &f, w));
      /* Same map with step h' = h / (1 + 0.05 t) at the same time t. */
      double A[15];
      AFT_OK(af_attention(A, NULL, NULL, NULL, t, y, &m, w));
      for (size_t j = 0; j < n; j++) {
        long double v[3];
        for (size_t i = 0; i < d; i++)
          v[i] = y[j * d + i] + h / (1 + 0.05 * t) * A[j * d + i];
        long double s = sqrtl(dotl(v, v, d));
        for (size_t i = 0; i < d; i++)
          v[i] /= s;
        ck_assert(vec_close("layer fault speed", yo1 + j * d, v, d, 16 * EPS));
      }
    }
    af_work_free(w);
  }
}
END_TEST

/* ================================================================ layer maps */

static void normalize_ld(long double *v, size_t d)
{
  long double s = sqrtl(dotl(v, v, d));
  for (size_t i = 0; i < d; i++)
    v[i] /= s;
}

/* Expected S7 map of one token in long double from the reference A. */
static void map_token(long double *th_out, long double *r_out, af_scheme_id sc,
                      const long double *th, long double r, const long double *A,
                      long double a, double h, double t, const af_model *m, size_t d)
{
  long double v[16];
  long double alpha = (long double) m->alpha * powl(1.0L + t, -(long double) m->alpha_decay);
  *r_out = r;
  if (sc == AF_MIX_LN)
    sc = t < m->tau ? AF_POST_LN : AF_PRE_LN;
  for (size_t i = 0; i < d; i++) {
    switch (sc) {
    case AF_POST_LN: v[i] = th[i] + h * A[i]; break;
    case AF_PRE_LN: v[i] = r * th[i] + h * A[i]; break;
    case AF_PERI_LN: v[i] = r * th[i] + h * A[i] / a; break;
    case AF_NGPT: v[i] = th[i] + alpha * h * (A[i] / a - th[i]); break;
    case AF_LN_SCALING: v[i] = th[i] + h * A[i] / sqrtl(t + 1.0L); break;
    default: ck_abort_msg("bad scheme");
    }
  }
  if (sc == AF_PRE_LN || sc == AF_PERI_LN)
    *r_out = sqrtl(dotl(v, v, d));
  normalize_ld(v, d);
  memcpy(th_out, v, d * sizeof(long double));
}

/* Every scheme's map against the formulas of S7; Mix-LN on both sides of
 * tau (l h < tau is Post-LN, l h = tau already Pre-LN); in place. */
START_TEST(test_layer_maps)
{
  const size_t n = 5, d = 4;
  const double h = 0.25;
  double y[25], yo[25], yi[25];
  ref_t *R = ref_new(n, d);
  const size_t layers[] = {0, 3, 4, 7};
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int sc = 0; sc < AF_SCHEME_COUNT; sc++)
      for (size_t il = 0; il < 4; il++) {
        size_t l = layers[il];
        double t = (double) l * h;
        aft_random_state(y, n, d, aft_seed(71) + l);
        af_model m;
        af_model_init(&m, n, d, 1.3, (af_scheme_id) sc);
        m.alpha = 0.4;
        m.alpha_decay = 0.5;
        m.tau = 1.0; /* = 4 h */
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_layer_step(yo, y, l, h, &m, w));
        memcpy(yi, y, sizeof y);
        AFT_OK(af_layer_step(yi, yi, l, h, &m, w));
        ck_assert_msg(memcmp(yi, yo, sizeof y) == 0, "in-place map differs");
        ref_eval(R, t, y, &m);
        for (size_t j = 0; j < n; j++) {
          long double th[4], rr;
          map_token(th, &rr, (af_scheme_id) sc, R->th + j * d, y[n * d + j],
                    R->A + j * d, R->a[j], h, t, &m, d);
          /* A's error tolA, amplified by h (and 1/|A| where N(A) is
           * used), then a few roundings of O(1) quantities (r <= 1.5). */
          double tol = 2.0 * R->tolA[j] * h * (1.0 + 1.0 / (double) R->a[j])
                       + 8.0 * (double) d * EPS * 2.0;
          char what[80];
          snprintf(what, sizeof what, "layer map %s l=%zu %s token %zu", sname(sc), l,
                   rr_kname[kk], j);
          ck_assert_msg(vec_close(what, yo + j * d, th, d, tol), "%s", what);
          ck_assert_msg(vec_close(what, yo + n * d + j, &rr, 1, tol), "%s r", what);
        }
        af_work_free(w);
      }
  ref_free(R);
}
END_TEST

/* Post-LN's map is a geodesic step (S7, derived): theta+ = cos(phi) theta
 * + sin(phi) w/|w| with w = P_theta A and phi = atan2(h |w|, 1 + h <theta, A>),
 * including 1 + h<theta, A> < 0 (V = -2I, h = 2: the step passes pi/2). */
START_TEST(test_post_ln_geodesic)
{
  const size_t n = 6, d = 3;
  double y[24], yo[24], A[18], pt[18], c[6];
  const double hs[] = {0.1, 2.0};
  for (int neg = 0; neg < 2; neg++)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
      double h = hs[neg];
      aft_random_state(y, n, d, aft_seed(13));
      af_weights *wts = neg ? explicit_weights(d, 1, 1, -2) : NULL;
      af_model m;
      af_model_init(&m, n, d, 0.8, AF_POST_LN);
      m.w = wts;
      af_work *w = work_new(n, d, (af_kernel) kk);
      AFT_OK(af_attention(A, pt, c, NULL, 0.0, y, &m, w));
      AFT_OK(af_layer_step(yo, y, 0, h, &m, w));
      int past_half = 0;
      for (size_t j = 0; j < n; j++) {
        double wn = 0, cth = 0;
        for (size_t i = 0; i < d; i++)
          wn += pt[j * d + i] * pt[j * d + i];
        wn = sqrt(wn);
        double phi = atan2(h * wn, 1.0 + h * c[j]);
        past_half |= phi > M_PI / 2;
        long double want[3];
        for (size_t i = 0; i < d; i++)
          want[i] = cos(phi) * y[j * d + i] + sin(phi) * pt[j * d + i] / wn;
        for (size_t i = 0; i < d; i++)
          cth += yo[j * d + i] * y[j * d + i];
        if (neg)
          ck_assert_msg((cth < 0) == (phi > M_PI / 2), "angle side");
        /* pt, c carry 2 tolA ~ 2 (n+d)(...)eps |V|; the map and the
         * formula each add a few roundings of O(h |A|) quantities. */
        double tol = 16.0 * (double) (n + d) * EPS * (1.0 + h * 2.0) / (neg ? wn : 1.0);
        char what[64];
        snprintf(what, sizeof what, "geodesic h=%g %s token %zu", h, rr_kname[kk], j);
        ck_assert_msg(vec_close(what, yo + j * d, want, d, tol), "%s", what);
        AFT_CLOSE("Post-LN keeps r", yo[n * d + j], y[n * d + j], 0, 0);
      }
      if (neg)
        ck_assert_msg(past_half, "no token with 1 + h<theta, A> < 0 (test setup)");
      af_work_free(w);
      af_weights_free(wts);
    }
}
END_TEST

/* Layer l uses weight set l when layer_dt = h; y_out = y_in on failure;
 * zero directions after the step are refused. */
START_TEST(test_layer_weights_and_errors)
{
  const size_t n = 4, d = 3, L = 3;
  const double h = 0.5;
  double y[16], yo[16];
  af_weights *wts = af_weights_alloc(d, L, h);
  AFT_OK(af_weights_kaiming(wts, aft_seed(19)));
  ref_t *R = ref_new(n, d);
  for (size_t l = 0; l < L + 1; l++) {
    aft_random_state(y, n, d, 3);
    af_model m;
    af_model_init(&m, n, d, 0.9, AF_POST_LN);
    m.w = wts;
    af_work *w = work_new(n, d, AF_KERNEL_BLAS);
    AFT_OK(af_layer_step(yo, y, l, h, &m, w));
    ref_eval(R, ((double) l + 0.5) * h, y, &m); /* set min(l, L-1) */
    for (size_t j = 0; j < n; j++) {
      long double th[3], rr;
      map_token(th, &rr, AF_POST_LN, R->th + j * d, y[n * d + j], R->A + j * d, R->a[j],
                h, (double) l * h, &m, d);
      double tol = 2.0 * R->tolA[j] * h + 16.0 * (double) d * EPS;
      char what[48];
      snprintf(what, sizeof what, "layer %zu weight set", l);
      ck_assert_msg(vec_close(what, yo + j * d, th, d, tol), "%s", what);
    }
    af_work_free(w);
  }
  /* n = 1, V = -I, h = 1: theta + h A = 0 (Post-LN) and x + h A = 0
   * (Pre-LN, r = 1) have no direction.  The token (1, 0) is exactly unit,
   * so A = -theta exactly and the zero is exact. */
  af_weights *neg = explicit_weights(2, 1, 1, -1);
  double y1o[3];
  /* An exactly unit token: (1, 0). */
  double y2[3] = {1.0, 0.0, 1.0};
  for (int sc = 0; sc < 2; sc++) {
    af_model m;
    af_model_init(&m, 1, 2, 1.0, sc ? AF_PRE_LN : AF_POST_LN);
    m.w = neg;
    af_work *w = af_work_alloc(1, 2);
    AFT_STATUS(af_layer_step(y1o, y2, 0, 1.0, &m, w), AF_EZERONORM);
    af_work_free(w);
  }
  af_weights_free(neg);
  af_weights_free(wts);
  ref_free(R);
}
END_TEST

static Suite *rhs_layers_suite(void)
{
  Suite *s = suite_create("rhs_layers");
  TCase *tc = tcase_create("energy");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_energy_monotone);
  tcase_add_test(tc, test_energy_derivative);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_test(tc, test_errors_inputs);
  tcase_add_test(tc, test_errors_zero_attention);
  tcase_add_test(tc, test_errors_usa_overflow);
  tcase_add_test(tc, test_errors_usa_overflow_boundary);
  tcase_add_test(tc, test_errors_extreme_tokens);
  tcase_add_test(tc, test_errors_score_overflow);
  tcase_add_test(tc, test_mixed_weights);
  tcase_add_test(tc, test_faults);
  suite_add_tcase(s, tc);
  tc = tcase_create("layers");
  tcase_add_test(tc, test_layer_maps);
  tcase_add_test(tc, test_post_ln_geodesic);
  tcase_add_test(tc, test_layer_weights_and_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(rhs_layers_suite()); }
