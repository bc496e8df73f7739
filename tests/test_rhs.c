/* test_rhs.c -- unit tests of the attention outputs and the vector field
 * S0 (af_attention, af_rhs, af_speeds), theorems.md M1-S6: closed forms
 * and properties.  The energy, the errors and the layer maps S7 are in
 * test_rhs_layers.c.
 *
 * Expected values come from closed forms worked out by hand (n = 1, 2,
 * beta = 0, antipodal pairs) and from the independent long-double
 * reference of rhs_ref.c, with the tolerances of rhs_ref.h (T1).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "aftest.h"
#include "internal.h" /* af_exp_block */
#include "rhs_ref.h"

/* ================================================================ closed forms */

/* n = 1: A = V theta/|theta| = theta/|theta| (softmax, causal) or
 * e^beta theta/|theta| (USA); the tangent part vanishes; rho from table S0
 * with c = a (= 1, resp. e^beta). */
/* The vector exp of the BLAS kernel: within 1 ulp of exp (checked against
 * expl, 64-bit mantissa, whose own error is ~2^-11 ulp of a double) on a
 * dense grid of the arguments the kernel meets (beta (S - 1) <= 0) and
 * beyond; the 2-, 4- and 8-lane versions give the same bits; arguments outside
 * [-708, 708], infinities and NaN follow libm. */
START_TEST(test_vector_exp)
{
  enum { N = 200003 };
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *y2 = malloc(N * sizeof *y2);
  ck_assert(x && y && y2);
  for (size_t i = 0; i < N; i++) /* [-720, 712], both signs, odd spacing */
    x[i] = -720.0 + 1432.0 * (double) i / (N - 1);
  double worst = 0;
  int isa = af_exp_block_isa(-1);
  af_exp_block(y, x, N);
  for (size_t i = 0; i < N; i++) {
    long double e = expl((long double) x[i]);
    double ed = (double) e;
    if (!isfinite(ed) || ed < DBL_MIN) { /* libm's pass: same as exp */
      ck_assert_msg(y[i] == exp(x[i]), "x=%a: %a != exp %a", x[i], y[i],
                    exp(x[i]));
      continue;
    }
    double ulp = nextafter(ed, INFINITY) - ed;
    double err = (double) (fabsl((long double) y[i] - e) / ulp);
    if (err > worst)
      worst = err;
  }
  ck_assert_msg(worst <= 1.0, "vector exp: %.3f ulp", worst);
  /* Every width the CPU runs (0: 2 lanes, 1: 4 lanes AVX2, 2: 8 lanes
   * AVX-512F) gives the same bits; forcing a width the CPU lacks falls
   * back to the widest one it has instead of faulting. */
  for (int f = 0; f <= 2; f++) {
    int got = af_exp_block_isa(f);
    ck_assert_int_le(got, f);
    if (got != f) {
      printf("test_vector_exp: %d lanes not supported here (fell back to "
             "%d lanes): not compared\n", 2 << f, 2 << got);
      continue;
    }
    af_exp_block(y2, x, N);
    ck_assert_msg(memcmp(y, y2, N * sizeof *y) == 0,
                  "%d-lane exp differs from the default width", 2 << f);
  }
  ck_assert_int_le(af_exp_block_isa(7), 2); /* out of range: the widest */
  af_exp_block_isa(isa);
  ck_assert_int_eq(af_exp_block_isa(-1), isa);
  /* specials, in place (y may equal x), odd length */
  double sp[5] = {NAN, -INFINITY, INFINITY, 0.0, -1000.0};
  af_exp_block(sp, sp, 5);
  ck_assert(isnan(sp[0]) && sp[1] == 0 && isinf(sp[2]) && sp[3] == 1 &&
            sp[4] == 0);
  free(x);
  free(y);
  free(y2);
}
END_TEST

/* The BLAS kernel with Q = K = I below its size threshold (n^2 d <=
 * 16384 in attention_small.c) forms the scores and the products with plain
 * loops instead of dsyrk/dsymm/dtrmm.  Sizes on both sides of the
 * threshold, three attention kinds, V = I and a general V: the BLAS-kernel
 * dy is within the bound (T1) of the long-double reference, and within
 * twice that bound of the direct kernel (each is within (T1) of the
 * reference).  Both paths keep every sum in a fixed order with the same
 * IEEE operations per vector lane, so dy is also the same bits for every
 * exp/vector width the CPU runs. */
/* The row passes take the roots of the sums of squares across rows and
 * fall back to norm2's rescaling, row by row, where a sum leaves the safe
 * range: tokens scaled by 1e-170 (the sum underflows) and 1e160 (it
 * overflows) among ordinary ones.  Post-LN's field scales with |x_j|, so
 * dy_j of the scaled state is the scale times dy_j of the unscaled one, up
 * to the rounding of the directions; and the same bits for every width. */
START_TEST(test_rows_scaled)
{
  static const double scale[] = {1e-170, 1e160, 1.0, 3.7, 1e-300, 1e300};
  const size_t ns = sizeof scale / sizeof scale[0];
  int isa0 = af_exp_block_isa(-1);
  for (size_t d = 2; d <= 5; d++) {
    size_t n = 19;
    double *y = state_new(n, d), *ys = state_new(n, d), *dy = state_new(n, d),
           *dys = state_new(n, d), *dyw = state_new(n, d);
    aft_random_state(y, n, d, aft_seed(91) + d);
    memcpy(ys, y, af_state_size(n, d) * sizeof(double));
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i < d; i++)
        ys[j * d + i] *= scale[j % ns];
    for (int k = 0; k < AF_KERNEL_COUNT; k++) {
      af_work *w = work_new(n, d, (af_kernel) k);
      af_model m;
      af_model_init(&m, n, d, 2.0, AF_POST_LN);
      AFT_OK(af_rhs(dy, 0.3, y, &m, w));
      AFT_OK(af_rhs(dys, 0.3, ys, &m, w));
      for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < d; i++) {
          double want = scale[j % ns] * dy[j * d + i];
          ck_assert_msg(fabs(dys[j * d + i] - want)
                            <= 1e-13 * scale[j % ns],
                        "d=%zu kernel %d row %zu: %g against %g", d, k, j,
                        dys[j * d + i], want);
        }
      for (int f = 0; f <= 2; f++) {
        if (af_exp_block_isa(f) != f)
          continue;
        AFT_OK(af_rhs(dyw, 0.3, ys, &m, w));
        ck_assert_msg(memcmp(dyw, dys, af_state_size(n, d) * sizeof(double))
                          == 0,
                      "d=%zu kernel %d: dy differs with %d lanes", d, k,
                      2 << f);
      }
      /* af_attention after an af_rhs on another state (whose small path
       * may keep P transposed in the work): P of ys row by row, and
       * Post-LN's dy_j = P_j |x_j|. */
      double *y3 = state_new(n, d), *P = state_new(n, d);
      aft_random_state(y3, n, d, aft_seed(92) + d);
      AFT_OK(af_rhs(dyw, 0.3, y3, &m, w));
      AFT_OK(af_attention(NULL, P, NULL, NULL, 0.3, ys, &m, w));
      for (size_t j = 0; j < n; j++) {
        long double q = 0;
        for (size_t i = 0; i < d; i++)
          q += (long double) y[j * d + i] * y[j * d + i];
        double nx = (double) (sqrtl(q) * scale[j % ns]);
        for (size_t i = 0; i < d; i++)
          ck_assert_msg(fabs(P[j * d + i] * nx - dys[j * d + i])
                            <= 1e-13 * scale[j % ns],
                        "d=%zu kernel %d row %zu: P after af_rhs", d, k, j);
      }
      free(y3);
      free(P);
      af_exp_block_isa(isa0);
      af_work_free(w);
    }
    free(y);
    free(ys);
    free(dy);
    free(dys);
    free(dyw);
  }
}
END_TEST

START_TEST(test_small_path)
{
  static const size_t sizes[][2] = {{1, 3},  {2, 3},   {31, 3},  {32, 3},
                                    {73, 3}, {74, 3},  {32, 2},  {90, 2},
                                    {91, 2}, {32, 16}, {33, 16}, {128, 1},
                                    {129, 1}};
  static const double betas[] = {1.0, 4.0};
  unsigned long seed = aft_seed(777);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(rng);
  gsl_rng_set(rng, seed);
  int isa0 = af_exp_block_isa(-1);
  for (size_t is = 0; is < sizeof sizes / sizeof sizes[0]; is++) {
    size_t n = sizes[is][0], d = sizes[is][1];
    double *y = state_new(n, d), *dyb = state_new(n, d),
           *dyd = state_new(n, d), *dyw = state_new(n, d);
    ref_t *R = ref_new(n, d);
    af_work *wb = work_new(n, d, AF_KERNEL_BLAS),
            *wd = work_new(n, d, AF_KERNEL_DIRECT);
    aft_random_state(y, n, d, seed + 13 * is);
    for (int withv = 0; withv < 2; withv++) {
      af_weights *wts = NULL;
      if (withv) { /* Q = K = I (NULL), V Gaussian with entries N(0, 1/d) */
        wts = af_weights_alloc(d, 1, 1.0);
        ck_assert_ptr_nonnull(wts);
        wts->V[0] = malloc(d * d * sizeof(double));
        ck_assert_ptr_nonnull(wts->V[0]);
        for (size_t i = 0; i < d * d; i++)
          wts->V[0][i] = gsl_ran_gaussian(rng, 1.0 / sqrt((double) d));
      }
      for (size_t ib = 0; ib < sizeof betas / sizeof betas[0]; ib++)
        for (int at = 0; at < AF_ATTN_COUNT; at++) {
          af_model m;
          af_model_init(&m, n, d, betas[ib], AF_POST_LN);
          m.attn = (af_attn_kind) at;
          m.w = wts;
          char what[160];
          snprintf(what, sizeof what, "n=%zu d=%zu beta=%g %s V%s", n, d,
                   betas[ib], rr_aname[at], withv ? "=random" : "=I");
          ref_eval(R, 0.5, y, &m);
          AFT_OK(af_rhs(dyb, 0.5, y, &m, wb));
          AFT_OK(af_rhs(dyd, 0.5, y, &m, wd));
          ck_assert_msg(dy_matches(what, dyb, R, y, &m, 1.0), "%s", what);
          for (size_t j = 0; j < n; j++) {
            long double tmp[16];
            for (size_t i = 0; i < d; i++)
              tmp[i] = dyd[j * d + i];
            ck_assert_msg(vec_close(what, dyb + j * d, tmp, d,
                                    2 * tol_dth(R, j, y)),
                          "blas vs direct %s", what);
          }
          for (int f = 0; f <= 2; f++) {
            if (af_exp_block_isa(f) != f)
              continue; /* width not run by this CPU */
            AFT_OK(af_rhs(dyw, 0.5, y, &m, wb));
            ck_assert_msg(memcmp(dyw, dyb, af_state_size(n, d) *
                                                sizeof(double)) == 0,
                          "%s: dy differs with %d lanes", what, 2 << f);
          }
          af_exp_block_isa(isa0);
        }
      af_weights_free(wts);
    }
    af_work_free(wb);
    af_work_free(wd);
    ref_free(R);
    free(y);
    free(dyb);
    free(dyd);
    free(dyw);
  }
  gsl_rng_free(rng);
}
END_TEST

START_TEST(test_single_token)
{
  const double beta = 0.75, eb = exp(beta);
  for (size_t d = 1; d <= 4; d += 3)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int at = 0; at < AF_ATTN_COUNT; at++)
        for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
          double y[5], u[4], A[4], pt[4], c, a, dy[5], dyl[5];
          aft_random_state(y, 1, d, 11 + d);
          for (size_t i = 0; i < d; i++) {
            u[i] = y[i];
            y[i] *= 2.0; /* off the sphere: the field uses theta/|theta| */
          }
          y[d] = 1.7;
          af_model m;
          af_model_init(&m, 1, d, beta, (af_scheme_id) sc);
          m.attn = (af_attn_kind) at;
          af_work *w = work_new(1, d, (af_kernel) kk);
          AFT_OK(af_attention(A, pt, &c, &a, 0.5, y, &m, w));
          double mag = at == AF_ATTN_USA ? eb : 1.0;
          for (size_t i = 0; i < d; i++) {
            AFT_CLOSE("n=1 A", A[i], mag * u[i], 4 * EPS, 0);
            AFT_CLOSE("n=1 pt", pt[i], 0.0, 0, 4 * EPS * mag);
          }
          AFT_CLOSE("n=1 c", c, mag, 4 * EPS, 0);
          AFT_CLOSE("n=1 a", a, mag, 4 * EPS, 0);
          AFT_OK(af_rhs(dy, 0.5, y, &m, w));
          double rho = 0;
          if (sc == AF_PRE_LN)
            rho = mag;
          if (sc == AF_PERI_LN)
            rho = 1.0;
          for (size_t i = 0; i < d; i++)
            AFT_CLOSE("n=1 dtheta", dy[i], 0.0, 0, 8 * EPS * mag);
          AFT_CLOSE("n=1 dr", dy[d], rho, 4 * EPS, 0);
          /* Mix-LN after tau is Pre-LN. */
          AFT_OK(af_rhs(dyl, 1.5, y, &m, w));
          if (sc == AF_MIX_LN)
            AFT_CLOSE("n=1 mix dr after tau", dyl[d], mag, 4 * EPS, 0);
          af_work_free(w);
        }
}
END_TEST

/* n = 2, Q = K = V = I, g = <th1, th2>:
 *   softmax  A_1 = (e^beta th1 + e^{beta g} th2) / (e^beta + e^{beta g})
 *            c_1 = (e^beta + g e^{beta g}) / Z,  P A_1 = e^{beta g} (th2 - g th1) / Z
 *   USA      A_1 = (e^beta th1 + e^{beta g} th2) / 2
 *   causal   A_1 = th1 (token 1 sees only itself), A_2 as softmax.
 * Done with the implicit identity (NULL matrices) and with explicit
 * identity matrices, which take the general-weight code paths. */
START_TEST(test_two_tokens)
{
  const size_t n = 2, d = 3;
  const double betas[] = {0.0, 0.5, 2.0, 7.0};
  for (size_t ib = 0; ib < sizeof betas / sizeof betas[0]; ib++)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int ex = 0; ex < 2; ex++)
        for (int at = 0; at < AF_ATTN_COUNT; at++) {
          double beta = betas[ib];
          double y[8], A[6], pt[6], c[2], a[2], dy[8];
          aft_random_state(y, n, d, 100 + ib);
          af_weights *wts = ex ? explicit_weights(d, 1, 1, 1) : NULL;
          af_model m;
          af_model_init(&m, n, d, beta, AF_POST_LN);
          m.attn = (af_attn_kind) at;
          m.w = wts;
          af_work *w = work_new(n, d, (af_kernel) kk);
          AFT_OK(af_attention(A, pt, c, a, 0.0, y, &m, w));
          long double th[2][3], ld = 0, l2 = 0;
          for (size_t i = 0; i < d; i++) {
            ld += (long double) y[i] * y[i];
            l2 += (long double) y[d + i] * y[d + i];
          }
          for (size_t i = 0; i < d; i++) {
            th[0][i] = y[i] / sqrtl(ld);
            th[1][i] = y[d + i] / sqrtl(l2);
          }
          long double g = dotl(th[0], th[1], d);
          long double eb = expl((long double) beta), eg = expl((long double) beta * g);
          for (size_t j = 0; j < n; j++) {
            const long double *tj = th[j], *tk = th[1 - j];
            long double Aw[3], Pw[3], z = eb + eg, cw, aw;
            int self_only = (at == AF_ATTN_CAUSAL && j == 0);
            for (size_t i = 0; i < d; i++) {
              if (self_only)
                Aw[i] = tj[i];
              else if (at == AF_ATTN_USA)
                Aw[i] = (eb * tj[i] + eg * tk[i]) / 2;
              else
                Aw[i] = (eb * tj[i] + eg * tk[i]) / z;
            }
            cw = self_only ? 1.0L
                 : at == AF_ATTN_USA ? (eb + g * eg) / 2 : (eb + g * eg) / z;
            for (size_t i = 0; i < d; i++)
              Pw[i] = self_only ? 0.0L
                      : at == AF_ATTN_USA ? eg * (tk[i] - g * tj[i]) / 2
                                          : eg * (tk[i] - g * tj[i]) / z;
            aw = sqrtl(dotl(Aw, Aw, d));
            /* (T1) with n = 2, d = 3, qk = 1, amag = sum of weights. */
            double amag = at == AF_ATTN_USA ? (double) ((eb + eg) / 2) : 1.0;
            double tol = 4.0 * (double) (n + d + 4 * d * beta) * EPS * amag;
            char what[128];
            snprintf(what, sizeof what, "n=2 %s %s beta=%g %s A_%zu", rr_aname[at],
                     rr_kname[kk], beta, ex ? "explicit-I" : "I", j + 1);
            ck_assert_msg(vec_close(what, A + j * d, Aw, d, tol), "%s", what);
            ck_assert_msg(vec_close(what, pt + j * d, Pw, d, 2 * tol), "%s pt", what);
            ck_assert_msg(aft_close(what, c[j], (double) cw, 0, 2 * tol), "%s c", what);
            ck_assert_msg(aft_close(what, a[j], (double) aw, 0, 2 * tol), "%s a", what);
          }
          /* Causal: token 1 does not move. */
          AFT_OK(af_rhs(dy, 0.0, y, &m, w));
          if (at == AF_ATTN_CAUSAL)
            for (size_t i = 0; i < d; i++)
              AFT_CLOSE("causal token 1 at rest", dy[i], 0.0, 0, 4 * EPS);
          af_work_free(w);
          af_weights_free(wts);
        }
}
END_TEST

/* beta = 0: every weight is equal.  Softmax: A_j = mean_k th_k; USA: the
 * same (exp(0)/n); causal: mean over k <= j. */
START_TEST(test_beta_zero)
{
  const size_t n = 5, d = 4;
  double y[25], A[20];
  aft_random_state(y, n, d, 77);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int at = 0; at < AF_ATTN_COUNT; at++) {
      af_model m;
      af_model_init(&m, n, d, 0.0, AF_PRE_LN);
      m.attn = (af_attn_kind) at;
      af_work *w = work_new(n, d, (af_kernel) kk);
      AFT_OK(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w));
      for (size_t j = 0; j < n; j++) {
        size_t kend = at == AF_ATTN_CAUSAL ? j + 1 : n;
        long double mean[4] = {0, 0, 0, 0};
        for (size_t k = 0; k < kend; k++)
          for (size_t i = 0; i < d; i++)
            mean[i] += (long double) y[k * d + i] / (long double) kend;
        char what[64];
        snprintf(what, sizeof what, "beta=0 %s %s A_%zu", rr_aname[at], rr_kname[kk], j);
        ck_assert_msg(vec_close(what, A + j * d, mean, d, 4.0 * (double) (n + d) * EPS),
                      "%s", what);
      }
      af_work_free(w);
    }
}
END_TEST

/* Both kernels against the long-double reference and against each other,
 * on random states: identity, explicit identity and Kaiming weights, three
 * attention kinds, six schemes, several (n, d, beta). */
START_TEST(test_kernels_reference)
{
  static const size_t sizes[][2] = {{1, 1}, {1, 3}, {2, 2}, {3, 1}, {5, 3},
                                    {7, 8}, {16, 5}, {33, 16}};
  static const double betas[] = {0.0, 0.7, 3.0};
  unsigned long seed = aft_seed(4242);
  unsigned long reps = aft_reps(1);
  for (unsigned long rep = 0; rep < reps; rep++)
    for (size_t is = 0; is < sizeof sizes / sizeof sizes[0]; is++) {
      size_t n = sizes[is][0], d = sizes[is][1];
      double *y = state_new(n, d);
      double *dy[AF_KERNEL_COUNT], *A[AF_KERNEL_COUNT];
      for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
        dy[kk] = state_new(n, d);
        A[kk] = state_new(n, d);
      }
      double *pt = state_new(n, d), *c = state_new(n, 1), *a = state_new(n, 1);
      ref_t *R = ref_new(n, d);
      af_work *w[AF_KERNEL_COUNT] = {work_new(n, d, AF_KERNEL_BLAS),
                                     work_new(n, d, AF_KERNEL_DIRECT),
                                     work_new(n, d, AF_KERNEL_TILED)};
      aft_random_state(y, n, d, seed + 31 * is + 1000 * rep);
      for (int wt = 0; wt < 3; wt++) {
        af_weights *wts = NULL;
        if (wt == 1)
          wts = explicit_weights(d, 1, 1, 1);
        if (wt == 2) {
          wts = af_weights_alloc(d, 1, 1.0);
          ck_assert_ptr_nonnull(wts);
          AFT_OK(af_weights_kaiming(wts, seed + is));
        }
        for (size_t ib = 0; ib < sizeof betas / sizeof betas[0]; ib++)
          for (int at = 0; at < AF_ATTN_COUNT; at++)
            for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
              af_model m;
              af_model_init(&m, n, d, betas[ib], (af_scheme_id) sc);
              m.attn = (af_attn_kind) at;
              m.w = wts;
              m.alpha = 0.6;
              m.alpha_decay = 0.3;
              m.tau = 0.4;
              double t = 0.9; /* past tau: Mix-LN in its Pre-LN phase */
              ref_eval(R, t, y, &m);
              /* 2: some A_j = 0 exactly; 1: some |A_j| within 1e3 times
               * the detection bound n eps amag_j of attnflow.h. */
              int singular = 0;
              for (size_t j = 0; j < n; j++) {
                if (R->a[j] == 0)
                  singular = 2;
                else if (singular == 0 && R->a[j] <= 1e3L * n * EPS * R->amag[j])
                  singular = 1;
              }
              char what[160];
              for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
                snprintf(what, sizeof what, "n=%zu d=%zu beta=%g %s %s w%d %s", n, d,
                         betas[ib], rr_aname[at], sname(sc), wt, rr_kname[kk]);
                if (sc == 0) { /* attention outputs once per (kernel, attn) */
                  AFT_OK(af_attention(A[kk], pt, c, a, t, y, &m, w[kk]));
                  for (size_t j = 0; j < n; j++) {
                    ck_assert_msg(vec_close(what, A[kk] + j * d, R->A + j * d, d,
                                            R->tolA[j]), "%s A", what);
                    ck_assert_msg(vec_close(what, pt + j * d, R->P + j * d, d,
                                            2 * R->tolA[j]), "%s pt", what);
                    ck_assert_msg(aft_close(what, c[j], (double) R->c[j], 0,
                                            2 * R->tolA[j]), "%s c", what);
                    ck_assert_msg(aft_close(what, a[j], (double) R->a[j], 0,
                                            2 * R->tolA[j]), "%s a", what);
                  }
                }
                int rc = af_rhs(dy[kk], t, y, &m, w[kk]);
                if (singular == 2 && af_scheme_get(m.scheme)->needs_anorm) {
                  /* Some A_j = 0 exactly (e.g. d = 1, beta = 0, tokens of
                   * opposite signs): Peri-LN and nGPT must refuse. */
                  ck_assert_msg(rc == AF_EZEROATTN, "%s: af_rhs gave %s at A_j = 0", what,
                                af_status_name(rc));
                  continue;
                }
                if (singular == 1 && af_scheme_get(m.scheme)->needs_anorm)
                  continue; /* |A_j| near the detection bound: either answer */
                ck_assert_msg(rc == AF_OK, "%s: af_rhs gave %s", what, af_status_name(rc));
                ck_assert_msg(dy_matches(what, dy[kk], R, y, &m, 1.0), "%s", what);
              }
              if (singular && af_scheme_get(m.scheme)->needs_anorm)
                continue;
              /* Kernels against each other: each is within the bound of
               * the reference, so they agree within twice the bound. */
              for (size_t j = 0; j < n; j++) {
                long double tmp[16];
                for (size_t i = 0; i < d; i++)
                  tmp[i] = dy[AF_KERNEL_DIRECT][j * d + i];
                snprintf(what, sizeof what, "blas vs direct n=%zu d=%zu %s %s w%d", n, d,
                         rr_aname[at], sname(sc), wt);
                ck_assert_msg(vec_close(what, dy[AF_KERNEL_BLAS] + j * d, tmp, d,
                                        2 * tol_dth(R, j, y)), "%s", what);
              }
            }
        af_weights_free(wts);
      }
      for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
        free(dy[kk]);
        free(A[kk]);
        af_work_free(w[kk]);
      }
      free(y); free(pt); free(c); free(a);
      ref_free(R);
    }
}
END_TEST

/* Weight set l is in force on [l dt, (l+1) dt); the last one after. */
START_TEST(test_weight_sets_in_time)
{
  const size_t n = 6, d = 4, L = 3;
  af_weights *wts = af_weights_alloc(d, L, 0.5);
  ck_assert_ptr_nonnull(wts);
  AFT_OK(af_weights_kaiming(wts, aft_seed(9)));
  double y[30], A[24];
  aft_random_state(y, n, d, 5);
  ref_t *R = ref_new(n, d);
  af_model m;
  af_model_init(&m, n, d, 1.5, AF_POST_LN);
  m.w = wts;
  const double times[] = {0.0, 0.2, 0.5, 0.7, 1.0, 1.3, 5.0};
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    af_work *w = work_new(n, d, (af_kernel) kk);
    for (size_t it = 0; it < sizeof times / sizeof times[0]; it++) {
      AFT_OK(af_attention(A, NULL, NULL, NULL, times[it], y, &m, w));
      ref_eval(R, times[it], y, &m);
      char what[64];
      snprintf(what, sizeof what, "weights at t=%g %s", times[it], rr_kname[kk]);
      for (size_t j = 0; j < n; j++)
        ck_assert_msg(vec_close(what, A + j * d, R->A + j * d, d, R->tolA[j]), "%s", what);
      /* A different set gives a different A (the check can fail). */
      ref_eval(R, times[it] + 0.5, y, &m);
      if (times[it] < 1.0) {
        int differs = 0;
        for (size_t i = 0; i < n * d; i++)
          differs |= fabsl(A[i] - R->A[i]) > 1e3 * R->tolA[i / d];
        ck_assert_msg(differs, "%s: next weight set gives the same A", what);
      }
    }
    af_work_free(w);
  }
  ref_free(R);
  af_weights_free(wts);
}
END_TEST

/* ================================================================ properties */

/* f(R theta) = R f(theta) with Q = K = V = I, for every scheme, attention
 * kind and kernel.  The rotated input itself carries a rounding error of
 * d eps, which the field amplifies by at most about (1 + 2 beta) (Lipschitz
 * constant of the weights in theta); hence the tolerance
 * 2 (1 + 2 beta) x the bound of one evaluation. */
START_TEST(test_rotation_equivariance)
{
  const size_t n = 7, d = 5;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, aft_seed(123));
  double Rm[25], y[42], yr[42], dy[42], dyr[42];
  ref_t *R = ref_new(n, d);
  unsigned long reps = aft_reps(3);
  for (unsigned long rep = 0; rep < reps; rep++) {
    random_orthogonal(Rm, d, rng);
    aft_random_state(y, n, d, aft_seed(123) + rep);
    for (size_t j = 0; j < n; j++) {
      for (size_t a = 0; a < d; a++) {
        double s = 0;
        for (size_t b = 0; b < d; b++)
          s += Rm[a * d + b] * y[j * d + b];
        yr[j * d + a] = s;
      }
      yr[n * d + j] = y[n * d + j];
    }
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int at = 0; at < AF_ATTN_COUNT; at++)
        for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
          af_model m;
          af_model_init(&m, n, d, 2.0, (af_scheme_id) sc);
          m.attn = (af_attn_kind) at;
          af_work *w = work_new(n, d, (af_kernel) kk);
          AFT_OK(af_rhs(dy, 1.5, y, &m, w));
          AFT_OK(af_rhs(dyr, 1.5, yr, &m, w));
          ref_eval(R, 1.5, y, &m);
          double lip = 2.0 * (1.0 + 2.0 * m.beta);
          for (size_t j = 0; j < n; j++) {
            long double Rdy[5];
            for (size_t a = 0; a < d; a++) {
              long double s = 0;
              for (size_t b = 0; b < d; b++)
                s += (long double) Rm[a * d + b] * dy[j * d + b];
              Rdy[a] = s;
            }
            char what[96];
            snprintf(what, sizeof what, "rotation %s %s %s token %zu", rr_aname[at],
                     sname(sc), rr_kname[kk], j);
            ck_assert_msg(vec_close(what, dyr + j * d, Rdy, d, lip * tol_dth(R, j, y)),
                          "%s", what);
            long double dr = dy[n * d + j];
            ck_assert_msg(vec_close(what, dyr + n * d + j, &dr, 1, lip * tol_dr(R, j, &m)),
                          "%s dr", what);
          }
          af_work_free(w);
        }
  }
  /* Negative control: Kaiming weights are not rotation invariant, and the
   * same comparison must see f(R theta) != R f(theta). */
  af_weights *wk = af_weights_alloc(d, 1, 1.0);
  AFT_OK(af_weights_kaiming(wk, 5));
  af_model m;
  af_model_init(&m, n, d, 2.0, AF_POST_LN);
  m.w = wk;
  af_work *w = work_new(n, d, AF_KERNEL_BLAS);
  AFT_OK(af_rhs(dy, 1.5, y, &m, w));
  AFT_OK(af_rhs(dyr, 1.5, yr, &m, w));
  ref_eval(R, 1.5, y, &m);
  int equivariant = 1;
  for (size_t j = 0; j < n; j++)
    for (size_t a = 0; a < d; a++) {
      double s = 0;
      for (size_t b = 0; b < d; b++)
        s += Rm[a * d + b] * dy[j * d + b];
      equivariant &= fabs(dyr[j * d + a] - s) <= 2.0 * (1.0 + 2.0 * m.beta) * tol_dth(R, j, y);
    }
  ck_assert_msg(!equivariant, "negative control: Kaiming field looks rotation-equivariant");
  af_work_free(w);
  af_weights_free(wk);
  gsl_rng_free(rng);
  ref_free(R);
}
END_TEST

/* f(pi y)_j = f(y)_{pi(j)} for softmax and USA (not causal, which orders
 * the tokens); summation order changes, so the bound is 2 x one
 * evaluation's.  Under the causal mask a permutation does change the
 * field, which shows the comparison can fail. */
START_TEST(test_permutation_equivariance)
{
  const size_t n = 9, d = 3;
  const size_t perm[9] = {4, 0, 8, 2, 7, 1, 3, 6, 5};
  double y[36], yp[36], dy[36], dyp[36];
  ref_t *R = ref_new(n, d);
  aft_random_state(y, n, d, aft_seed(321));
  for (size_t j = 0; j < n; j++) {
    memcpy(yp + j * d, y + perm[j] * d, d * sizeof(double));
    yp[n * d + j] = y[n * d + perm[j]];
  }
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int at = 0; at < AF_ATTN_COUNT; at++)
      for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
        af_model m;
        af_model_init(&m, n, d, 1.2, (af_scheme_id) sc);
        m.attn = (af_attn_kind) at;
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_rhs(dy, 0.3, y, &m, w));
        AFT_OK(af_rhs(dyp, 0.3, yp, &m, w));
        ref_eval(R, 0.3, y, &m);
        int all_ok = 1;
        for (size_t j = 0; j < n && all_ok; j++) {
          size_t pj = perm[j];
          double tol = 2 * tol_dth(R, pj, y), tolr = 2 * tol_dr(R, pj, &m);
          for (size_t i = 0; i < d; i++)
            all_ok &= fabs(dyp[j * d + i] - dy[pj * d + i]) <= tol;
          all_ok &= fabs(dyp[n * d + j] - dy[n * d + pj]) <= tolr;
        }
        if (at == AF_ATTN_CAUSAL)
          ck_assert_msg(!all_ok, "causal field unexpectedly permutation-equivariant");
        else
          ck_assert_msg(all_ok, "permutation %s %s %s", rr_aname[at], sname(sc), rr_kname[kk]);
        af_work_free(w);
      }
  ref_free(R);
}
END_TEST

/* Tangency <theta_j, d theta_j> = 0 (up to the rounding bound of P A_j,
 * d eps |A| for the subtraction A - c theta plus tolA), also off the
 * sphere; and the angular velocity d theta_j / |theta_j| does not depend
 * on |theta_j| (attnflow.h: |theta_j| is a first integral, the integrators
 * never renormalize). */
START_TEST(test_tangency_and_scaling)
{
  const size_t n = 8, d = 6;
  double y[56], ys[56], dy[56], dys[56];
  ref_t *R = ref_new(n, d);
  af_weights *wts = af_weights_alloc(d, 1, 1.0);
  AFT_OK(af_weights_kaiming(wts, 3));
  for (int wt = 0; wt < 2; wt++)
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
      for (int at = 0; at < AF_ATTN_COUNT; at++)
        for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
          aft_random_state(y, n, d, aft_seed(55) + (unsigned long) sc);
          memcpy(ys, y, sizeof y);
          for (size_t j = 0; j < n; j++) {
            double f = 0.5 + 0.25 * (double) j; /* radii of theta: 0.5 .. 2.25 */
            for (size_t i = 0; i < d; i++)
              ys[j * d + i] *= f;
          }
          af_model m;
          af_model_init(&m, n, d, 2.5, (af_scheme_id) sc);
          m.attn = (af_attn_kind) at;
          m.w = wt ? wts : NULL;
          af_work *w = work_new(n, d, (af_kernel) kk);
          AFT_OK(af_rhs(dy, 0.2, y, &m, w));
          AFT_OK(af_rhs(dys, 0.2, ys, &m, w));
          ref_eval(R, 0.2, ys, &m);
          for (size_t j = 0; j < n; j++) {
            double f = 0.5 + 0.25 * (double) j, ip = 0, nrm = 0;
            for (size_t i = 0; i < d; i++) {
              ip += ys[j * d + i] * dys[j * d + i];
              nrm += ys[j * d + i] * ys[j * d + i];
            }
            /* <th, dth> / |th| compared with the error of dth's
             * radial component: tol_dth + d eps |A| |th| / s. */
            double tol = tol_dth(R, j, ys)
                         + (double) d * EPS * (double) (R->a[j] / R->s[j]) * sqrt(nrm);
            char what[96];
            snprintf(what, sizeof what, "tangency w%d %s %s %s token %zu", wt, rr_aname[at],
                     sname(sc), rr_kname[kk], j);
            ck_assert_msg(aft_close(what, ip / sqrt(nrm), 0.0, 0, 2 * tol), "%s", what);
            for (size_t i = 0; i < d; i++)
              ck_assert_msg(aft_close("angular velocity independent of |theta|",
                                      dys[j * d + i] / f, dy[j * d + i], 0,
                                      2 * tol_dth(R, j, ys) / f), "%s", what);
            ck_assert_msg(aft_close("dr independent of |theta|", dys[n * d + j],
                                    dy[n * d + j], 0, 2 * tol_dr(R, j, &m)), "%s", what);
          }
          af_work_free(w);
        }
  af_weights_free(wts);
  ref_free(R);
}
END_TEST

/* af_speeds and af_rhs against table S0 applied by hand to af_attention's
 * c, a, P A: s and rho exactly as the table (the same two doubles go
 * through one operation), d theta = P A / s within 2 ulps.  Mix-LN before,
 * at and after tau; nGPT with a decaying alpha. */
START_TEST(test_speeds_table)
{
  const size_t n = 6, d = 4;
  double y[30], pt[24], c[6], a[6], s[6], rho[6], dy[30];
  aft_random_state(y, n, d, aft_seed(888));
  const double times[] = {0.0, 0.5, 1.0, 1.75, 4.0};
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int sc = 0; sc < AF_SCHEME_COUNT; sc++)
      for (size_t it = 0; it < sizeof times / sizeof times[0]; it++) {
        double t = times[it];
        af_model m;
        af_model_init(&m, n, d, 1.1, (af_scheme_id) sc);
        m.alpha = 0.5;
        m.alpha_decay = 0.7;
        m.tau = 1.0;
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_attention(NULL, pt, c, a, t, y, &m, w));
        AFT_OK(af_speeds(s, rho, t, y, &m, w));
        AFT_OK(af_rhs(dy, t, y, &m, w));
        double alpha = 0.5 * pow(1.0 + t, -0.7);
        for (size_t j = 0; j < n; j++) {
          double r = y[n * d + j], ws = 1, wr = 0;
          switch (sc) {
          case AF_POST_LN: ws = 1; wr = 0; break;
          case AF_PRE_LN: ws = r; wr = c[j]; break;
          case AF_MIX_LN: ws = t <= 1.0 ? 1 : r; wr = t <= 1.0 ? 0 : c[j]; break;
          case AF_PERI_LN: ws = r * a[j]; wr = c[j] / a[j]; break;
          case AF_NGPT: ws = a[j] / alpha; wr = 0; break;
          case AF_LN_SCALING: ws = sqrt(t + 1); wr = 0; break;
          }
          char what[96];
          snprintf(what, sizeof what, "%s %s t=%g token %zu", sname(sc), rr_kname[kk], t, j);
          /* alpha: pow within 1 ulp plus a product. */
          ck_assert_msg(aft_ulps(what, s[j], ws, sc == AF_NGPT ? 4 : 0), "%s s", what);
          ck_assert_msg(aft_ulps(what, rho[j], wr, 0), "%s rho", what);
          ck_assert_msg(aft_ulps(what, dy[n * d + j], wr, 0), "%s dr", what);
          for (size_t i = 0; i < d; i++)
            ck_assert_msg(aft_close(what, dy[j * d + i], pt[j * d + i] / ws, 4 * EPS, 0),
                          "%s dtheta", what);
        }
        /* Radius moves only where the table says so. */
        const af_scheme *row = af_scheme_get((af_scheme_id) sc);
        if (!row->moves_radius)
          for (size_t j = 0; j < n; j++)
            ck_assert(dy[n * d + j] == 0.0);
        AFT_OK(af_speeds(NULL, NULL, t, y, &m, w));
        af_work_free(w);
      }
}
END_TEST

/* Antipodal pair th2 = -th1 (spec P2): A_j is parallel to th_j, so the
 * directions are stationary under every scheme; c_1 = a_1 = tanh(beta)
 * (softmax), so Pre-LN's radius grows at tanh(beta) and Peri-LN's at 1.
 * USA: A_1 = sinh(beta) th1. */
START_TEST(test_antipodal)
{
  const size_t n = 2, d = 3;
  const double beta = 0.9;
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int at = 0; at < 2; at++)
      for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
        double y[8], dy[8], c[2], a[2];
        aft_random_state(y, 1, d, 42);
        for (size_t i = 0; i < d; i++)
          y[d + i] = -y[i];
        y[6] = 1.0;
        y[7] = 2.0;
        af_model m;
        af_model_init(&m, n, d, beta, (af_scheme_id) sc);
        m.attn = (af_attn_kind) at;
        af_work *w = work_new(n, d, (af_kernel) kk);
        AFT_OK(af_attention(NULL, NULL, c, a, 2.0, y, &m, w));
        double cw = at == AF_ATTN_USA ? sinh(beta) : tanh(beta);
        for (size_t j = 0; j < n; j++) {
          AFT_CLOSE("antipodal c", c[j], cw, 16 * EPS, 0);
          AFT_CLOSE("antipodal a", a[j], cw, 16 * EPS, 0);
        }
        AFT_OK(af_rhs(dy, 2.0, y, &m, w));
        double amag = at == AF_ATTN_USA ? cosh(beta) : 1.0;
        for (size_t i = 0; i < n * d; i++)
          AFT_CLOSE("antipodal directions stationary", dy[i], 0.0, 0,
                    16 * EPS * amag / (sc == AF_PERI_LN || sc == AF_NGPT ? cw : 1.0));
        for (size_t j = 0; j < n; j++) {
          double want = 0;
          if (sc == AF_PRE_LN || sc == AF_MIX_LN)
            want = cw;
          if (sc == AF_PERI_LN)
            want = 1.0;
          AFT_CLOSE("antipodal dr", dy[n * d + j], want, 16 * EPS, 0);
        }
        /* beta = 0: A = 0 exactly; Peri-LN and nGPT must refuse. */
        m.beta = 0.0;
        m.attn = AF_ATTN_SOFTMAX;
        int want_rc = af_scheme_get((af_scheme_id) sc)->needs_anorm ? AF_EZEROATTN : AF_OK;
        AFT_STATUS(af_rhs(dy, 2.0, y, &m, w), want_rc);
        af_work_free(w);
      }
}
END_TEST

/* Near-coincident tokens (theorems.md N1).  Two tokens at angle phi; Post-LN
 * with Q = K = V = I: |d theta_1| = w_12 sin(phi), w_12 = e^{beta(cos phi
 * - 1)} / (1 + e^{beta(cos phi - 1)}).  The directions are chosen so that
 * the stored vectors' double sums of squares are exactly 1: the library's
 * normalization is then exact and the test isolates the kernel's tangent
 * part (otherwise normalization adds an input perturbation of eps per
 * component, i.e. a relative eps/phi).  The direct kernel forms
 * P th_k from differences, exact for neighbouring vectors (Sterbenz), and
 * must give |d theta| to relative 1e-6 at phi = 1e-9 and 1e-12; the BLAS
 * kernel's error is absolute, a few eps |A| (attnflow.h), which is checked
 * as such. */
START_TEST(test_near_coincident)
{
  const size_t n = 2, d = 3;
  const double beta = 1.5, phis[] = {1e-9, 1e-12};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, aft_seed(2024));
  for (size_t ip = 0; ip < 2; ip++) {
    double phi = phis[ip], y[8];
    /* Draw until both stored vectors have sum of squares exactly 1. */
    int found = 0;
    for (int tries = 0; tries < 100000 && !found; tries++) {
      double u[3], v[3], s = 0, q = 0, p = 0;
      for (size_t i = 0; i < d; i++) {
        u[i] = gsl_ran_gaussian(rng, 1.0);
        v[i] = gsl_ran_gaussian(rng, 1.0);
        s += u[i] * u[i];
      }
      s = sqrt(s);
      for (size_t i = 0; i < d; i++) {
        u[i] /= s;
        p += u[i] * v[i];
      }
      for (size_t i = 0; i < d; i++)
        v[i] -= p * u[i];
      for (size_t i = 0; i < d; i++)
        q += v[i] * v[i];
      q = sqrt(q);
      for (size_t i = 0; i < d; i++) {
        y[i] = u[i];
        y[d + i] = cos(phi) * u[i] + sin(phi) * v[i] / q;
      }
      double s1 = 0, s2 = 0;
      for (size_t i = 0; i < d; i++) {
        s1 += y[i] * y[i];
        s2 += y[d + i] * y[d + i];
      }
      found = (s1 == 1.0 && s2 == 1.0);
    }
    ck_assert_msg(found, "no exactly normalized pair found");
    y[6] = y[7] = 1.0;
    /* Exact angle of the stored vectors, in long double. */
    long double th[2][3], g = 0, sn = 0;
    for (size_t i = 0; i < d; i++) {
      th[0][i] = y[i];
      th[1][i] = y[d + i];
    }
    for (size_t i = 0; i < d; i++)
      g += th[0][i] * th[1][i];
    for (size_t i = 0; i < d; i++) {
      long double p = th[1][i] - g * th[0][i];
      sn += p * p;
    }
    sn = sqrtl(sn); /* sin(phi) = |P_th1 th2|, exact to ~1e-19 / phi */
    long double diff2 = 0;
    for (size_t i = 0; i < d; i++)
      diff2 += (th[1][i] - th[0][i]) * (th[1][i] - th[0][i]);
    long double e = expl(-(long double) beta * diff2 / 2); /* beta (cos - 1) */
    double want = (double) (sn * e / (1 + e));
    af_model m;
    af_model_init(&m, n, d, beta, AF_POST_LN);
    for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
      af_work *w = work_new(n, d, (af_kernel) kk);
      double dy[8];
      AFT_OK(af_rhs(dy, 0.0, y, &m, w));
      for (size_t j = 0; j < n; j++) {
        double q = 0;
        for (size_t i = 0; i < d; i++)
          q += dy[j * d + i] * dy[j * d + i];
        char what[80];
        snprintf(what, sizeof what, "|dtheta_%zu| at angle %g, %s", j + 1, phi, rr_kname[kk]);
        if (kk == AF_KERNEL_DIRECT)
          ck_assert_msg(aft_close(what, sqrt(q), want, 1e-6, 0), "%s", what);
        else /* absolute error of A - c th: (d + n + 2) eps |A|, |A| <= 1 */
          ck_assert_msg(aft_close(what, sqrt(q), want, 0, 4.0 * (double) (d + n + 2) * EPS),
                        "%s", what);
      }
      af_work_free(w);
    }
  }
  gsl_rng_free(rng);
}
END_TEST

/* Huge beta = 1e4: softmax subtracts the row maximum, so nothing
 * overflows; every output is finite and matches the reference (weights
 * far below 1 vanish, A_j -> the nearest-score tokens).  Also general
 * weights and the causal mask.  beta = 705 under USA is still finite
 * (e^705 / 2 < DBL_MAX) and must be computed. */
START_TEST(test_huge_beta)
{
  const size_t n = 8, d = 3;
  double y[32], dy[32], A[24];
  aft_random_state(y, n, d, aft_seed(99));
  ref_t *R = ref_new(n, d);
  af_weights *wts = af_weights_alloc(d, 1, 1.0);
  AFT_OK(af_weights_kaiming(wts, 17));
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int wt = 0; wt < 2; wt++)
      for (int at = 0; at < AF_ATTN_COUNT; at += 2) /* softmax, causal */
        for (int sc = 0; sc < AF_SCHEME_COUNT; sc++) {
          af_model m;
          af_model_init(&m, n, d, 1e4, (af_scheme_id) sc);
          m.attn = (af_attn_kind) at;
          m.w = wt ? wts : NULL;
          af_work *w = work_new(n, d, (af_kernel) kk);
          AFT_OK(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w));
          AFT_OK(af_rhs(dy, 0.0, y, &m, w));
          ref_eval(R, 0.0, y, &m);
          for (size_t i = 0; i < af_state_size(n, d); i++)
            ck_assert_msg(isfinite(dy[i]), "beta=1e4 %s %s: dy[%zu] = %g", sname(sc),
                          rr_kname[kk], i, dy[i]);
          char what[80];
          snprintf(what, sizeof what, "beta=1e4 %s w%d %s %s", rr_aname[at], wt, sname(sc),
                   rr_kname[kk]);
          ck_assert_msg(dy_matches(what, dy, R, y, &m, 1.0), "%s", what);
          af_work_free(w);
        }
  /* USA at beta = 705, n = 2: the outputs (~e^705 / 2 ~ 1e306) are
   * representable doubles.  The library must compute them or report
   * AF_EOVERFLOW (attnflow.h); anything else (a NaN, an infinity,
   * AF_ENONFINITE for finite input) is a defect. */
  double y2[8], dy2[8];
  aft_random_state(y2, 2, d, 7);
  ref_t *R2 = ref_new(2, d);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++) {
    af_model m;
    af_model_init(&m, 2, d, 705.0, AF_PRE_LN);
    m.attn = AF_ATTN_USA;
    af_work *w = work_new(2, d, (af_kernel) kk);
    int rc = af_rhs(dy2, 0.0, y2, &m, w);
    ck_assert_msg(rc == AF_OK || rc == AF_EOVERFLOW,
                  "USA beta=705 (%s): af_rhs gave %s; true |A_1| = %Lg", rr_kname[kk],
                  af_status_name(rc), (ref_eval(R2, 0.0, y2, &m), R2->a[0]));
    if (rc == AF_OK) {
      ref_eval(R2, 0.0, y2, &m);
      /* Relative form of (T1): the weights' relative error is
       * 4 (n + d + 4 d beta) eps; compare the radial rate c relatively. */
      AFT_CLOSE("USA beta=705 dr", dy2[6], (double) R2->rho[0],
                4.0 * (2 + d + 4.0 * d * 705.0) * EPS, 0);
    }
    af_work_free(w);
  }
  ref_free(R2);
  af_weights_free(wts);
  ref_free(R);
}
END_TEST

/* Peri-LN and nGPT divide by |A_j|, so their field does not change when
 * V is scaled by lambda > 0 (theta part; Peri-LN's dr = c/a too).  With
 * lambda = 1e-20 every |A_j| is ~1e-20: the zero-attention detection must
 * be relative to sum_k w_jk |V th_k| (attnflow.h), not absolute. */
START_TEST(test_value_scale_invariance)
{
  const size_t n = 6, d = 3;
  double y[24], dy0[24], dy1[24];
  aft_random_state(y, n, d, aft_seed(15));
  const double lambdas[] = {1e-20, 1e20};
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int sc = AF_PERI_LN; sc <= AF_NGPT; sc++)
      for (int il = 0; il < 2; il++) {
        af_weights *wl = explicit_weights(d, 1, 1, lambdas[il]);
        af_weights *w1 = explicit_weights(d, 1, 1, 1);
        af_model m;
        af_model_init(&m, n, d, 0.8, (af_scheme_id) sc);
        af_work *w = work_new(n, d, (af_kernel) kk);
        m.w = w1;
        AFT_OK(af_rhs(dy0, 0.3, y, &m, w));
        m.w = wl;
        int rc = af_rhs(dy1, 0.3, y, &m, w);
        ck_assert_msg(rc == AF_OK, "%s, V = %g I (%s): af_rhs gave %s", sname(sc),
                      lambdas[il], rr_kname[kk], af_status_name(rc));
        /* Scaling by a power of ten is not exact: a few eps relative. */
        for (size_t i = 0; i < af_state_size(n, d); i++)
          AFT_CLOSE("V scale invariance", dy1[i], dy0[i], 16 * EPS, 16 * EPS);
        af_work_free(w);
        af_weights_free(wl);
        af_weights_free(w1);
      }
}
END_TEST

/* Huge beta with every score negative (Q = -I, tokens in a cap so all
 * cosines are positive): the row maximum must be the true maximum, not 0,
 * or every weight underflows and A_j = 0/0. */
START_TEST(test_huge_beta_negative_scores)
{
  const size_t n = 5, d = 3;
  double y[20], dy[20];
  aft_random_state(y, n, d, aft_seed(3));
  for (size_t j = 0; j < n; j++) { /* pull every token near e1 */
    y[j * d] += 3.0;
  }
  af_weights *wq = explicit_weights(d, -1, 1, 1);
  ref_t *R = ref_new(n, d);
  for (int kk = 0; kk < AF_KERNEL_COUNT; kk++)
    for (int at = 0; at < AF_ATTN_COUNT; at += 2) {
      af_model m;
      af_model_init(&m, n, d, 1e4, AF_POST_LN);
      m.attn = (af_attn_kind) at;
      m.w = wq;
      af_work *w = work_new(n, d, (af_kernel) kk);
      AFT_OK(af_rhs(dy, 0, y, &m, w));
      ref_eval(R, 0, y, &m);
      char what[64];
      snprintf(what, sizeof what, "beta=1e4, Q=-I, %s %s", rr_aname[at], rr_kname[kk]);
      ck_assert_msg(dy_matches(what, dy, R, y, &m, 1.0), "%s", what);
      af_work_free(w);
    }
  ref_free(R);
  af_weights_free(wq);
}
END_TEST

/* ================================================================ energy I1 */

static Suite *rhs_suite(void)
{
  Suite *s = suite_create("rhs");
  TCase *tc = tcase_create("closed");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_single_token);
  tcase_add_test(tc, test_two_tokens);
  tcase_add_test(tc, test_beta_zero);
  tcase_add_test(tc, test_kernels_reference);
  tcase_add_test(tc, test_weight_sets_in_time);
  suite_add_tcase(s, tc);
  tc = tcase_create("properties");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_rotation_equivariance);
  tcase_add_test(tc, test_permutation_equivariance);
  tcase_add_test(tc, test_tangency_and_scaling);
  tcase_add_test(tc, test_speeds_table);
  tcase_add_test(tc, test_antipodal);
  tcase_add_test(tc, test_near_coincident);
  tcase_add_test(tc, test_huge_beta);
  tcase_add_test(tc, test_vector_exp);
  tcase_add_test(tc, test_small_path);
  tcase_add_test(tc, test_rows_scaled);
  tcase_add_test(tc, test_huge_beta_negative_scores);
  tcase_add_test(tc, test_value_scale_invariance);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(rhs_suite()); }
