/* test_tiled.c -- unit tests of the tiled attention kernel
 * (AF_KERNEL_TILED, src/attention/attention_tiled.c; theorems.md M2, M5, N.tiled).
 *
 * - the same bits for 1, 2 and 3 OpenMP threads (af_attention and af_rhs,
 *   softmax, USA, causal, identity and Kaiming weights, d not a multiple
 *   of the vector widths, many blocks and tiles);
 * - huge scores: Q = 2 I, beta = 800, tokens on a great circle, so that
 *   exp(beta s) overflows and every row's maximum rises tile after tile:
 *   the tiled result is finite and equals the direct kernel's and its own
 *   with one tile of keys to the rounding bound tau_j of N.tiled
 *   (claims_tiled.c);
 * - the layer maps S7 of every scheme on the tiled kernel against the BLAS
 *   kernel (the same bound propagated through one step: 1e-12, far above
 *   it at n = 60, far below any slip);
 * - the kernel choice and the memory: af_kernel_auto at the 1 GiB budget,
 *   af_work_bytes, a work allocated without its n x n matrix that gets it
 *   when another kernel is chosen, af_work_set_tiles' checks;
 * - USA's overflow reported as by the BLAS kernel.
 *
 * The OpenMP threads of one evaluation are used only when OMP_NUM_THREADS
 * is set (attention.c); main sets it (if unset) before any work exists.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "aftest.h"
#include "internal.h" /* af_work_set_tiles, the work's amag */

#define U (DBL_EPSILON / 2)

static af_work *work_tiled(size_t n, size_t d, size_t rows, size_t keys)
{
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_TILED));
  AFT_OK(af_work_set_tiles(w, rows, keys));
  return w;
}

/* Tokens on a great circle at angles 0.003 j, r = 1. */
static void circle_state(double *y, size_t n, size_t d)
{
  for (size_t j = 0; j < n; j++) {
    double *x = y + j * d;
    memset(x, 0, d * sizeof *x);
    x[0] = cos(0.003 * (double) j);
    x[1] = sin(0.003 * (double) j);
    y[n * d + j] = 1.0;
  }
}

START_TEST(test_tiled_threads)
{
#ifdef _OPENMP
  size_t n = 150, d = 7, nd = n * d, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *out[3], *dy[3];
  for (int t = 0; t < 3; t++) {
    out[t] = malloc((2 * nd + 2 * n) * sizeof(double));
    dy[t] = malloc(N * sizeof(double));
  }
  aft_random_state(y, n, d, aft_seed(5));
  af_weights *wt = af_weights_alloc(d, 1, 1.0);
  ck_assert_ptr_nonnull(wt);
  AFT_OK(af_weights_kaiming(wt, 3));
  for (int attn = 0; attn < AF_ATTN_COUNT; attn++)
    for (int kw = 0; kw < 2; kw++)
      for (int tl = 0; tl < 2; tl++) {
        af_model m;
        af_model_init(&m, n, d, 2.0, AF_PRE_LN);
        m.attn = (af_attn_kind) attn;
        m.w = kw ? wt : NULL;
        af_work *w = work_tiled(n, d, tl ? 4 : 8, tl ? 8 : 16);
        for (int t = 0; t < 3; t++) {
          omp_set_num_threads(t + 1);
          double *o = out[t];
          AFT_OK(af_attention(o, o + nd, o + 2 * nd, o + 2 * nd + n, 0.0, y,
                              &m, w));
          AFT_OK(af_rhs(dy[t], 0.0, y, &m, w));
        }
        for (int t = 1; t < 3; t++) {
          ck_assert_msg(memcmp(out[0], out[t], (2 * nd + 2 * n)
                                                   * sizeof(double)) == 0,
                        "attention %d, weights %d: %d threads differ from 1",
                        attn, kw, t + 1);
          ck_assert_msg(memcmp(dy[0], dy[t], N * sizeof(double)) == 0,
                        "af_rhs, attention %d, weights %d: %d threads differ",
                        attn, kw, t + 1);
        }
        af_work_free(w);
      }
  omp_set_num_threads(1);
  af_weights_free(wt);
  for (int t = 0; t < 3; t++) {
    free(out[t]);
    free(dy[t]);
  }
  free(y);
#endif
}
END_TEST

/* max_j |A_j - B_j| / tau_j, tau_j of N.tiled with mu = 2 (Q = 2 I), V = I,
 * T tiles, amag_j of the reference. */
static double dev_bound(const double *A, const double *B, const double *amag,
                        size_t n, size_t d, double beta, double T)
{
  double worst = 0;
  for (size_t j = 0; j < n; j++) {
    double mu = 2.0, s = 0;
    for (size_t i = 0; i < d; i++)
      s += (A[j * d + i] - B[j * d + i]) * (A[j * d + i] - B[j * d + i]);
    double tau = U * amag[j] * (4.0 * (double) n + 14.0
                                + 8.0 * beta * mu * ((double) d + 2.0)
                                + T * (8.0 * beta * mu + 6.0));
    double e = sqrt(s) / tau;
    if (!(e <= worst))
      worst = e;
  }
  return worst;
}

START_TEST(test_tiled_huge_beta)
{
  size_t n = 100, d = 3, nd = n * d, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *A = malloc(nd * sizeof *A),
         *B = malloc(nd * sizeof *B), *C1 = malloc(nd * sizeof *C1),
         *amag = malloc(n * sizeof *amag);
  circle_state(y, n, d);
  double two[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  af_weights *wt = af_weights_alloc(d, 1, 1.0);
  ck_assert_ptr_nonnull(wt);
  wt->Q[0] = two;
  for (int attn = 0; attn < AF_ATTN_COUNT; attn += 2) { /* softmax, causal */
    af_model m;
    af_model_init(&m, n, d, 800.0, AF_POST_LN);
    m.attn = (af_attn_kind) attn;
    m.w = wt;
    af_work *w = work_tiled(n, d, 4, 8);
    AFT_OK(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w));
    AFT_OK(af_work_set_tiles(w, 4, 104)); /* one tile of all keys */
    AFT_OK(af_attention(C1, NULL, NULL, NULL, 0.0, y, &m, w));
    AFT_OK(af_work_set_kernel(w, AF_KERNEL_DIRECT));
    AFT_OK(af_attention(B, NULL, NULL, NULL, 0.0, y, &m, w));
    memcpy(amag, w->amag, n * sizeof *amag);
    for (size_t i = 0; i < nd; i++)
      ck_assert_msg(isfinite(A[i]), "A[%zu] = %g", i, A[i]);
    double e1 = dev_bound(A, B, amag, n, d, 800.0, 13.0);
    double e2 = dev_bound(A, C1, amag, n, d, 800.0, 13.0);
    ck_assert_msg(e1 <= 1.0, "attention %d: tiled - direct = %g bounds", attn,
                  e1);
    ck_assert_msg(e2 <= 1.0, "attention %d: 13 tiles - 1 tile = %g bounds",
                  attn, e2);
    /* The weights are not trivial: row 50 attends to its neighbours
     * (beta 2 (1 - cos 0.003) = 0.0072 per step squared). */
    ck_assert_msg(fabs(A[50 * d + 0] - y[50 * d + 0]) > 1e-6,
                  "attention %d: A_50 is th_50 alone", attn);
    af_work_free(w);
  }
  wt->Q[0] = NULL;
  af_weights_free(wt);
  free(y);
  free(A);
  free(B);
  free(C1);
  free(amag);
}
END_TEST

START_TEST(test_tiled_layers)
{
  size_t n = 60, d = 5, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *y1 = malloc(N * sizeof *y1),
         *y2 = malloc(N * sizeof *y2);
  aft_random_state(y, n, d, aft_seed(9));
  for (int sc = 0; sc < AF_SCHEME_COUNT; sc++)
    for (int attn = 0; attn < AF_ATTN_COUNT; attn++) {
      af_model m;
      af_model_init(&m, n, d, 1.5, (af_scheme_id) sc);
      m.attn = (af_attn_kind) attn;
      af_work *w = work_tiled(n, d, 8, 16);
      AFT_OK(af_layer_step(y1, y, 0, 0.05, &m, w));
      AFT_OK(af_work_set_kernel(w, AF_KERNEL_BLAS));
      AFT_OK(af_layer_step(y2, y, 0, 0.05, &m, w));
      for (size_t i = 0; i < N; i++)
        AFT_CLOSE("layer step, tiled against blas", y1[i], y2[i], 0, 1e-12);
      af_work_free(w);
    }
  free(y);
  free(y1);
  free(y2);
}
END_TEST

START_TEST(test_tiled_memory)
{
  /* 11585^2 doubles fit 1 GiB, 11586^2 do not. */
  ck_assert_int_eq(af_kernel_auto(11585, 64), AF_KERNEL_BLAS);
  ck_assert_int_eq(af_kernel_auto(11586, 64), AF_KERNEL_TILED);
  ck_assert_int_eq(af_kernel_auto((size_t) 1 << 40, 3), AF_KERNEL_TILED);
  size_t bt = af_work_bytes(100000, 64, AF_KERNEL_TILED, 2);
  size_t bb = af_work_bytes(100000, 64, AF_KERNEL_BLAS, 2);
  ck_assert_msg(bt > 0 && bt < ((size_t) 1 << 30), "tiled work %zu bytes",
                bt);
  ck_assert_msg(bb > (size_t) 8e10, "blas work %zu bytes", bb);
  ck_assert_uint_eq(af_work_bytes(((size_t) 1 << 62), 64, AF_KERNEL_TILED, 1),
                    0);
  /* Past the budget: no n x n matrix until another kernel is chosen (its
   * allocation is not touched: about 1.07 GiB of address space). */
  af_work *w = af_work_alloc(11586, 2);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(af_work_kernel(w), AF_KERNEL_TILED);
  ck_assert_ptr_null(w->S);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_BLAS));
  ck_assert_ptr_nonnull(w->S);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_TILED));
  af_work_free(w);
  w = af_work_alloc(10, 3);
  ck_assert_int_eq(af_work_kernel(w), AF_KERNEL_BLAS);
  AFT_STATUS(af_work_set_tiles(w, 6, 8), AF_EINVAL);
  AFT_STATUS(af_work_set_tiles(w, 8, 12), AF_EINVAL);
  AFT_STATUS(af_work_set_tiles(NULL, 8, 8), AF_EINVAL);
  AFT_OK(af_work_set_tiles(w, 0, 0));
  ck_assert_uint_eq(w->tile_rows, 256);
  ck_assert_uint_eq(w->tile_keys, 128);
  af_work_free(w);
}
END_TEST

START_TEST(test_tiled_usa_overflow)
{
  size_t n = 20, d = 3, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *A = malloc(n * d * sizeof *A);
  aft_random_state(y, n, d, aft_seed(2));
  af_model m;
  af_model_init(&m, n, d, 800.0, AF_POST_LN);
  m.attn = AF_ATTN_USA;
  af_work *w = work_tiled(n, d, 4, 8);
  AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w), AF_EOVERFLOW);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_BLAS));
  AFT_STATUS(af_attention(A, NULL, NULL, NULL, 0.0, y, &m, w), AF_EOVERFLOW);
  af_work_free(w);
  free(y);
  free(A);
}
END_TEST

static Suite *tiled_suite(void)
{
  Suite *s = suite_create("tiled");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_tiled_threads);
  tcase_add_test(tc, test_tiled_huge_beta);
  tcase_add_test(tc, test_tiled_layers);
  tcase_add_test(tc, test_tiled_memory);
  tcase_add_test(tc, test_tiled_usa_overflow);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  setenv("OMP_NUM_THREADS", "2", 0); /* before any work: threads allowed */
  return aft_run(tiled_suite());
}
