/* test_heads.c -- several attention heads whose outputs are summed
 * (af_weights with heads > 1, src/attention/attention_heads.c,
 * docs/weights.md).
 *
 * - two heads with the same Q, K and V_0 + V_1 = V (exactly, dyadic
 *   entries) give the one-head field within the rounding bound derived
 *   below, for every kernel and every attention kind;
 * - a two-head field (one head with V = I, one Kaiming) against a naive
 *   double loop over the formula, at a random state, on the direct, BLAS
 *   and tiled kernels, softmax, USA and causal;
 * - one head never enters the head sum (its path, bit for bit as before:
 *   no accumulator is ever allocated), and a struct with heads = 0 (made
 *   by hand before the field existed) is one head, the same bits;
 * - the refusals: a U3 spec that alters attention, the allocator's
 *   bounds;
 * - the MPFR field sums the heads (test_heads_mp, below).
 *
 * Tolerances.  A kernel's A_j = sum_k w_jk V th_k is a sum of n terms of
 * matrix-vector products of length d, so its rounding error is at most
 * about (n + d + 4) u mag_j with mag_j = sum_k w_jk |V th_k| (the work's
 * amag; recursive summation, Higham 2002, 3.1 and 4.2; the 4 covers the
 * division by Z and the exp of each weight, relative error ~ u).  The
 * score s_jk = <Q th_j, K th_k> carries an absolute error at most about
 * 2 (d + 2) u |Q th_j| |K th_k|, which beta multiplies into a relative
 * error of the weight.  Hence per row
 *   |A_j - A_j'| <= (2 (n + d + 4) u + 2 beta (2 d + 4) u S) (mag_j + mag_j'),
 * S = max |Q th_j| |K th_k|, for two computations of one field; with
 * n = 23, d = 5, beta = 1.5, S ~ 3 this is ~ 2e-14 of mag.  The measured
 * worst ratio is printed (docs/weights.md gives the numbers).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "aftest.h"
#include "attnflow_mp.h"
#include "internal.h" /* the work's amag and hsum */
#include "mp_kernel.h"  /* the double instance of the MPFR kernel */

#define U (DBL_EPSILON / 2)

static const af_kernel kernels[3] = {AF_KERNEL_DIRECT, AF_KERNEL_BLAS,
                                     AF_KERNEL_TILED};
static const char *kname[3] = {"direct", "blas", "tiled"};

/* A d x d matrix of N(0, 1/d) entries rounded to multiples of 2^-10 (so
 * that sums and differences of two of them are exact). */
static double *dyadic(gsl_rng *r, size_t d)
{
  double *M = malloc(d * d * sizeof *M);
  ck_assert_ptr_nonnull(M);
  for (size_t i = 0; i < d * d; i++)
    M[i] = round(1024.0 * gsl_ran_gaussian(r, 1.0 / sqrt((double) d)))
           / 1024.0;
  return M;
}

static double *copy(const double *M, size_t d)
{
  double *C = malloc(d * d * sizeof *C);
  ck_assert_ptr_nonnull(C);
  memcpy(C, M, d * d * sizeof *C);
  return C;
}

/* x = M v (M NULL: identity). */
static void matvec(double *x, const double *M, const double *v, size_t d)
{
  for (size_t a = 0; a < d; a++) {
    double s = 0;
    if (M == NULL)
      s = v[a];
    else
      for (size_t b = 0; b < d; b++)
        s += M[a * d + b] * v[b];
    x[a] = s;
  }
}

/* The formula by a double loop, for the directions th (n x d): A (n x d),
 * the rounding scale mag (n) and S = max |Q th_j| |K th_k| over heads. */
static void naive(double *A, double *mag, double *S, const double *th,
                  size_t n, size_t d, double beta, af_attn_kind attn,
                  const af_weights *wt)
{
  size_t H = af_weights_heads(wt);
  double *q = malloc(n * d * sizeof *q), *k = malloc(n * d * sizeof *k),
         *v = malloc(n * d * sizeof *v), *s = malloc(n * sizeof *s);
  ck_assert(q && k && v && s);
  memset(A, 0, n * d * sizeof *A);
  memset(mag, 0, n * sizeof *mag);
  *S = 0;
  for (size_t h = 0; h < H; h++) {
    const double *Q = wt->Q[h], *K = wt->K[h], *V = wt->V[h];
    for (size_t j = 0; j < n; j++) {
      matvec(q + j * d, Q, th + j * d, d);
      matvec(k + j * d, K, th + j * d, d);
      matvec(v + j * d, V, th + j * d, d);
    }
    for (size_t j = 0; j < n; j++) {
      size_t kend = attn == AF_ATTN_CAUSAL ? j + 1 : n;
      double mx = -INFINITY, z = 0;
      for (size_t kk = 0; kk < kend; kk++) {
        double sc = 0, nq = 0, nk = 0;
        for (size_t a = 0; a < d; a++) {
          sc += q[j * d + a] * k[kk * d + a];
          nq += q[j * d + a] * q[j * d + a];
          nk += k[kk * d + a] * k[kk * d + a];
        }
        s[kk] = beta * sc;
        if (s[kk] > mx)
          mx = s[kk];
        if (sqrt(nq * nk) > *S)
          *S = sqrt(nq * nk);
      }
      if (attn == AF_ATTN_USA)
        mx = 0; /* unnormalized: exp(beta s) / n */
      for (size_t kk = 0; kk < kend; kk++)
        z += (s[kk] = exp(s[kk] - mx));
      if (attn == AF_ATTN_USA)
        z = (double) n;
      for (size_t kk = 0; kk < kend; kk++) {
        double wjk = s[kk] / z, nv = 0;
        for (size_t a = 0; a < d; a++) {
          A[j * d + a] += wjk * v[kk * d + a];
          nv += v[kk * d + a] * v[kk * d + a];
        }
        mag[j] += wjk * sqrt(nv);
      }
    }
  }
  free(q);
  free(k);
  free(v);
  free(s);
}

/* max_j |A_j - B_j| / tol_j, tol_j as in the header comment, and the
 * worst relative difference |A_j - B_j| / mag_j in *rel. */
static double ratio(const double *A, const double *B, const double *magA,
                    const double *magB, size_t n, size_t d, double beta,
                    double S, double *rel)
{
  double worst = 0;
  *rel = 0;
  double f = 2.0 * (double) (n + d + 4) * U
             + 2.0 * beta * (double) (2 * d + 4) * U * S;
  for (size_t j = 0; j < n; j++) {
    double e = 0;
    for (size_t a = 0; a < d; a++) {
      double x = A[j * d + a] - B[j * d + a];
      e += x * x;
    }
    e = sqrt(e);
    double m = magA[j] + magB[j];
    if (e / (f * m) > worst)
      worst = e / (f * m);
    if (e / m > *rel)
      *rel = e / m;
  }
  return worst;
}

static void fill(af_work *w, const double *y, const af_model *m, double *A,
                 double *P, double *c, double *a, double *mag)
{
  AFT_OK(af_attention(A, P, c, a, 0.0, y, m, w));
  memcpy(mag, w->amag, w->n * sizeof *mag);
}

START_TEST(test_heads_split_v)
{
  size_t n = 23, d = 5, nd = n * d;
  double beta = 1.5;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, aft_seed(11));
  af_weights *one = af_weights_alloc(d, 1, 1.0);
  af_weights *two = af_weights_alloc_heads(d, 1, 2, 1.0);
  ck_assert(one && two);
  one->Q[0] = dyadic(r, d);
  one->K[0] = dyadic(r, d);
  one->V[0] = dyadic(r, d);
  two->Q[0] = copy(one->Q[0], d);
  two->K[0] = copy(one->K[0], d);
  two->Q[1] = copy(one->Q[0], d);
  two->K[1] = copy(one->K[0], d);
  two->V[0] = dyadic(r, d);
  two->V[1] = malloc(d * d * sizeof(double));
  for (size_t i = 0; i < d * d; i++) /* exact: dyadic, small */
    two->V[1][i] = one->V[0][i] - two->V[0][i];
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  double *A1 = malloc(nd * sizeof *A1), *A2 = malloc(nd * sizeof *A2);
  double *P1 = malloc(nd * sizeof *P1), *P2 = malloc(nd * sizeof *P2);
  double c1[23], c2[23], a1[23], a2[23], m1[23], m2[23], mg[23], S;
  double *An = malloc(nd * sizeof *An), *th = malloc(nd * sizeof *th);
  aft_random_state(y, n, d, aft_seed(12));
  memcpy(th, y, nd * sizeof *th); /* unit rows already */
  double worst = 0, wrel = 0;
  for (int attn = 0; attn < AF_ATTN_COUNT; attn++)
    for (int kk = 0; kk < 3; kk++) {
      af_model m1m, m2m;
      af_model_init(&m1m, n, d, beta, AF_PRE_LN);
      m1m.attn = (af_attn_kind) attn;
      m2m = m1m;
      m1m.w = one;
      m2m.w = two;
      af_work *w = af_work_alloc(n, d);
      ck_assert_ptr_nonnull(w);
      AFT_OK(af_work_set_kernel(w, kernels[kk]));
      fill(w, y, &m1m, A1, P1, c1, a1, m1);
      fill(w, y, &m2m, A2, P2, c2, a2, m2);
      naive(An, mg, &S, th, n, d, beta, (af_attn_kind) attn, one);
      double rel, q = ratio(A1, A2, m1, m2, n, d, beta, S, &rel);
      ck_assert_msg(q <= 1.0, "%s attn %d: A of two heads vs one: %.3g of "
                    "the bound (relative %.3g)", kname[kk], attn, q, rel);
      if (q > worst)
        worst = q;
      if (rel > wrel)
        wrel = rel;
      double relp, qp = ratio(P1, P2, m1, m2, n, d, beta, S, &relp);
      ck_assert_msg(qp <= 2.0, "%s attn %d: P: %.3g of the bound",
                    kname[kk], attn, qp);
      for (size_t j = 0; j < n; j++) {
        double f = 2.0 * (double) (n + d + 4) * U
                   + 2.0 * beta * (double) (2 * d + 4) * U * S;
        ck_assert_msg(fabs(c1[j] - c2[j]) <= 2 * f * (m1[j] + m2[j]),
                      "%s attn %d: c_%zu %.17g vs %.17g", kname[kk], attn,
                      j, c1[j], c2[j]);
        ck_assert_msg(fabs(a1[j] - a2[j]) <= 2 * f * (m1[j] + m2[j]),
                      "%s attn %d: a_%zu %.17g vs %.17g", kname[kk], attn,
                      j, a1[j], a2[j]);
        /* amag: a sum over heads of |V_h th_k|-weighted sums, at least
         * the one head's |V th_k| sum (triangle inequality) */
        ck_assert(m2[j] >= m1[j] * (1 - 1e-12));
      }
      ck_assert_ptr_nonnull(w->hsum); /* two heads: the sum ran */
      af_work_free(w);
    }
  fprintf(stderr, "split V: worst |A(2 heads) - A(1 head)| = %.3g of the "
          "bound, %.3g relative to sum_k w_jk |V th_k|\n", worst, wrel);
  af_weights_free(one);
  af_weights_free(two);
  free(y);
  free(A1);
  free(A2);
  free(P1);
  free(P2);
  free(An);
  free(th);
  gsl_rng_free(r);
}
END_TEST

START_TEST(test_heads_naive)
{
  size_t n = 23, d = 5, nd = n * d;
  double beta = 1.5;
  af_weights *two = af_weights_alloc_heads(d, 1, 2, 1.0);
  ck_assert_ptr_nonnull(two);
  AFT_OK(af_weights_kaiming(two, 7));
  free(two->V[0]); /* head 0: V = I (the direct kernel's differences form) */
  two->V[0] = NULL;
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  double *A = malloc(nd * sizeof *A), *P = malloc(nd * sizeof *P);
  double *An = malloc(nd * sizeof *An), *Pn = malloc(nd * sizeof *Pn);
  double c[23], a[23], mg[23], mn[23], S;
  aft_random_state(y, n, d, aft_seed(13));
  double worst = 0, wrel = 0;
  for (int attn = 0; attn < AF_ATTN_COUNT; attn++) {
    naive(An, mn, &S, y, n, d, beta, (af_attn_kind) attn, two);
    for (size_t j = 0; j < n; j++) {
      double cj = 0;
      for (size_t i = 0; i < d; i++)
        cj += y[j * d + i] * An[j * d + i];
      for (size_t i = 0; i < d; i++)
        Pn[j * d + i] = An[j * d + i] - cj * y[j * d + i];
    }
    for (int kk = 0; kk < 3; kk++) {
      af_model m;
      af_model_init(&m, n, d, beta, AF_PRE_LN);
      m.attn = (af_attn_kind) attn;
      m.w = two;
      af_work *w = af_work_alloc(n, d);
      ck_assert_ptr_nonnull(w);
      AFT_OK(af_work_set_kernel(w, kernels[kk]));
      fill(w, y, &m, A, P, c, a, mg);
      double rel, q = ratio(A, An, mg, mn, n, d, beta, S, &rel);
      ck_assert_msg(q <= 1.0, "%s attn %d: A vs the naive loop: %.3g of the "
                    "bound (relative %.3g)", kname[kk], attn, q, rel);
      if (q > worst)
        worst = q;
      if (rel > wrel)
        wrel = rel;
      double relp, qp = ratio(P, Pn, mg, mn, n, d, beta, S, &relp);
      ck_assert_msg(qp <= 2.0, "%s attn %d: P vs the naive loop: %.3g of "
                    "the bound", kname[kk], attn, qp);
      for (size_t j = 0; j < n; j++) {
        AFT_CLOSE("amag", mg[j], mn[j], 1e-12, 0);
        double nA = 0;
        for (size_t i = 0; i < d; i++)
          nA += An[j * d + i] * An[j * d + i];
        AFT_CLOSE("a", a[j], sqrt(nA), 0, 4e-14 * mn[j]);
      }
      /* the field itself runs on the sum (rhs reads P) */
      double *dy = malloc(af_state_size(n, d) * sizeof *dy);
      AFT_OK(af_rhs(dy, 0.0, y, &m, w));
      for (size_t j = 0; j < n; j++) /* pre-ln: dth_j = P_j / r_j * |x_j| */
        for (size_t i = 0; i < d; i++)
          AFT_CLOSE("dy", dy[j * d + i], P[j * d + i] / y[n * d + j], 1e-15,
                    1e-300);
      free(dy);
      af_work_free(w);
    }
  }
  fprintf(stderr, "naive loop: worst |A - A_naive| = %.3g of the bound, "
          "%.3g relative to sum_h sum_k w_jk |V_h th_k|\n", worst, wrel);
  af_weights_free(two);
  free(y);
  free(A);
  free(P);
  free(An);
  free(Pn);
}
END_TEST

START_TEST(test_heads_one_path)
{
  size_t n = 9, d = 3, N = af_state_size(n, d);
  af_weights *w1 = af_weights_alloc(d, 2, 0.5);
  ck_assert_ptr_nonnull(w1);
  ck_assert_uint_eq(w1->heads, 1);
  AFT_OK(af_weights_kaiming(w1, 5));
  af_weights legacy = *w1; /* a struct filled without the head count */
  legacy.heads = 0;
  ck_assert_uint_eq(af_weights_heads(&legacy), 1);
  ck_assert_uint_eq(af_weights_heads(NULL), 1);
  double *y = malloc(N * sizeof *y), *d1 = malloc(N * sizeof *d1),
         *d2 = malloc(N * sizeof *d2);
  aft_random_state(y, n, d, aft_seed(14));
  for (int kk = 0; kk < 3; kk++) {
    af_model m;
    af_model_init(&m, n, d, 2.0, AF_PERI_LN);
    af_work *w = af_work_alloc(n, d);
    ck_assert_ptr_nonnull(w);
    AFT_OK(af_work_set_kernel(w, kernels[kk]));
    m.w = w1;
    AFT_OK(af_rhs(d1, 0.7, y, &m, w));
    m.w = &legacy;
    AFT_OK(af_rhs(d2, 0.7, y, &m, w));
    ck_assert(memcmp(d1, d2, N * sizeof *d1) == 0);
    ck_assert_ptr_null(w->hsum); /* one head: never the head sum */
    af_work_free(w);
  }
  af_weights_free(w1);
  free(y);
  free(d1);
  free(d2);
}
END_TEST

START_TEST(test_heads_refused)
{
  ck_assert_ptr_null(af_weights_alloc_heads(2, 1, 0, 1.0));
  ck_assert_ptr_null(af_weights_alloc_heads(2, 1, AF_WEIGHTS_HEADS_MAX + 1,
                                            1.0));
  ck_assert_ptr_null(af_weights_alloc_heads(2, AF_WEIGHTS_TRIPLES_MAX, 2,
                                            1.0));
  af_weights *w = af_weights_alloc_heads(2, 3, 4, 1.0);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(w->heads, 4);
  AFT_OK(af_weights_kaiming(w, 1)); /* all 12 triples drawn */
  for (size_t i = 0; i < 12; i++)
    ck_assert(w->Q[i] && w->K[i] && w->V[i]);
  af_weights_free(w);
}
END_TEST

/* af_mp_rhs at prec bits of the double state y into out (doubles, rounded
 * to nearest), twice on the same work: the same bits both times. */
static void mp_field(double *out, const double *y, const af_model *m,
                     mpfr_prec_t prec, mpfr_t *keep)
{
  size_t n = m->n, d = m->d, N = af_state_size(n, d);
  af_mp_work *mw = af_mp_work_alloc(n, d, prec);
  mpfr_t *my = af_mp_vec_alloc(N, prec), *d1 = af_mp_vec_alloc(N, prec),
         *d2 = af_mp_vec_alloc(N, prec);
  ck_assert(mw && my && d1 && d2);
  for (size_t i = 0; i < N; i++)
    mpfr_set_d(my[i], y[i], MPFR_RNDN);
  mpfr_t t;
  mpfr_init2(t, prec);
  mpfr_set_d(t, 0.7, MPFR_RNDN);
  AFT_OK(af_mp_rhs(d1, t, my, m, mw));
  AFT_OK(af_mp_rhs(d2, t, my, m, mw));
  for (size_t i = 0; i < N; i++) {
    ck_assert(mpfr_equal_p(d1[i], d2[i]));
    out[i] = mpfr_get_d(d1[i], MPFR_RNDN);
    if (keep != NULL)
      mpfr_set(keep[i], d1[i], MPFR_RNDN);
  }
  mpfr_clear(t);
  af_mp_vec_free(my, N);
  af_mp_vec_free(d1, N);
  af_mp_vec_free(d2, N);
  af_mp_work_free(mw);
}

/* The MPFR field sums the heads (mp_kernel_source.c, attention_heads):
 * - its double instance gives af_rhs's direct kernel bit for bit with two
 *   Kaiming heads (the same head order and operations);
 * - at 200 bits it agrees with the double field within the double's own
 *   rounding (the bound of the header, n = 9, d = 4: below 1e-13 of the
 *   speed scale; the components here are O(1)), repeated bit for bit;
 * - the same Q, K in two heads with dyadic V_0 + V_1 = V give the
 *   one-head MPFR field to its own rounding (below 2^-180 at 200 bits);
 * - af_mp_attention's A, P, c, a agree with af_attention's (1e-13). */
START_TEST(test_heads_mp)
{
  size_t n = 9, d = 4, N = af_state_size(n, d);
  af_weights *two = af_weights_alloc_heads(d, 1, 2, 1.0);
  ck_assert_ptr_nonnull(two);
  AFT_OK(af_weights_kaiming(two, 21));
  af_model m;
  af_model_init(&m, n, d, 1.5, AF_PRE_LN);
  m.w = two;
  double *y = malloc(N * sizeof *y), *dd = malloc(N * sizeof *dd),
         *dg = malloc(N * sizeof *dg), *dm = malloc(N * sizeof *dm),
         *d0 = malloc(N * sizeof *d0);
  ck_assert(y && dd && dg && dm && d0);
  aft_random_state(y, n, d, aft_seed(31));
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_DIRECT));
  AFT_OK(af_rhs(dd, 0.7, y, &m, w));
  af_work_free(w);
  af_work_generic_d *g = af_work_alloc_generic_d(n, d, 53);
  ck_assert_ptr_nonnull(g);
  AFT_OK(af_rhs_generic_d(dg, 0.7, y, &m, g));
  af_work_free_generic_d(g);
  ck_assert(memcmp(dd, dg, N * sizeof *dd) == 0);
  mp_field(dm, y, &m, 200, NULL);
  double worst = 0;
  for (size_t i = 0; i < N; i++)
    if (fabs(dm[i] - dd[i]) > worst)
      worst = fabs(dm[i] - dd[i]);
  /* head 0 alone is another field */
  two->heads = 1;
  mp_field(d0, y, &m, 200, NULL);
  two->heads = 2;
  double far = 0;
  for (size_t i = 0; i < N; i++)
    if (fabs(d0[i] - dm[i]) > far)
      far = fabs(d0[i] - dm[i]);
  printf("heads (MPFR, 200 bits): |mp - double| <= %.3g, head 0 alone "
         "%.3g away\n", worst, far);
  ck_assert(worst <= 1e-13);
  ck_assert(far > 1e-3);
  /* the outputs too: A, P, c and a = |A| of the sum (af_mp_attention
   * against af_attention's direct kernel) */
  {
    size_t nd = n * d;
    double *A = malloc(nd * sizeof *A), *P = malloc(nd * sizeof *P),
           c[9], a[9];
    mpfr_t *mA = af_mp_vec_alloc(nd, 200), *mP = af_mp_vec_alloc(nd, 200),
           *mc = af_mp_vec_alloc(n, 200), *ma = af_mp_vec_alloc(n, 200),
           *my = af_mp_vec_alloc(N, 200);
    af_mp_work *mw = af_mp_work_alloc(n, d, 200);
    af_work *aw = af_work_alloc(n, d);
    ck_assert(A && P && mA && mP && mc && ma && my && mw && aw);
    AFT_OK(af_work_set_kernel(aw, AF_KERNEL_DIRECT));
    AFT_OK(af_attention(A, P, c, a, 0.7, y, &m, aw));
    for (size_t i = 0; i < N; i++)
      mpfr_set_d(my[i], y[i], MPFR_RNDN);
    mpfr_t t;
    mpfr_init2(t, 200);
    mpfr_set_d(t, 0.7, MPFR_RNDN);
    AFT_OK(af_mp_attention(mA, mP, mc, ma, t, my, &m, mw));
    double wo = 0;
    for (size_t i = 0; i < nd; i++) {
      wo = fmax(wo, fabs(mpfr_get_d(mA[i], MPFR_RNDN) - A[i]));
      wo = fmax(wo, fabs(mpfr_get_d(mP[i], MPFR_RNDN) - P[i]));
    }
    for (size_t j = 0; j < n; j++) {
      wo = fmax(wo, fabs(mpfr_get_d(mc[j], MPFR_RNDN) - c[j]));
      wo = fmax(wo, fabs(mpfr_get_d(ma[j], MPFR_RNDN) - a[j]));
    }
    printf("heads (MPFR, 200 bits): A, P, c, a within %.3g of double\n", wo);
    ck_assert(wo <= 1e-13);
    mpfr_clear(t);
    af_mp_vec_free(mA, nd);
    af_mp_vec_free(mP, nd);
    af_mp_vec_free(mc, n);
    af_mp_vec_free(ma, n);
    af_mp_vec_free(my, N);
    af_mp_work_free(mw);
    af_work_free(aw);
    free(A);
    free(P);
  }
  af_weights_free(two);

  /* V split across two heads at 200 bits */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, aft_seed(32));
  af_weights *one = af_weights_alloc(d, 1, 1.0);
  af_weights *spl = af_weights_alloc_heads(d, 1, 2, 1.0);
  ck_assert(r && one && spl);
  one->Q[0] = dyadic(r, d);
  one->K[0] = dyadic(r, d);
  one->V[0] = dyadic(r, d);
  for (size_t h = 0; h < 2; h++) {
    spl->Q[h] = copy(one->Q[0], d);
    spl->K[h] = copy(one->K[0], d);
  }
  spl->V[0] = dyadic(r, d);
  spl->V[1] = malloc(d * d * sizeof(double));
  ck_assert_ptr_nonnull(spl->V[1]);
  for (size_t i = 0; i < d * d; i++) /* exact: dyadic, small */
    spl->V[1][i] = one->V[0][i] - spl->V[0][i];
  mpfr_t *k1 = af_mp_vec_alloc(N, 200), *k2 = af_mp_vec_alloc(N, 200);
  mpfr_t e;
  mpfr_init2(e, 200);
  ck_assert(k1 && k2);
  m.w = one;
  mp_field(dm, y, &m, 200, k1);
  m.w = spl;
  mp_field(dm, y, &m, 200, k2);
  double split = 0;
  for (size_t i = 0; i < N; i++) {
    mpfr_sub(e, k1[i], k2[i], MPFR_RNDN);
    mpfr_abs(e, e, MPFR_RNDN);
    if (mpfr_get_d(e, MPFR_RNDU) > split)
      split = mpfr_get_d(e, MPFR_RNDU);
  }
  printf("heads (MPFR, 200 bits): V_0 + V_1 = V within %.3g of one head\n",
         split);
  ck_assert(split <= ldexp(1.0, -180));
  mpfr_clear(e);
  af_mp_vec_free(k1, N);
  af_mp_vec_free(k2, N);
  af_weights_free(one);
  af_weights_free(spl);
  gsl_rng_free(r);
  free(y);
  free(dd);
  free(dg);
  free(dm);
  free(d0);
}
END_TEST

static Suite *heads_suite(void)
{
  Suite *s = suite_create("heads");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_heads_split_v);
  tcase_add_test(tc, test_heads_naive);
  tcase_add_test(tc, test_heads_one_path);
  tcase_add_test(tc, test_heads_refused);
  tcase_add_test(tc, test_heads_mp);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return aft_run(heads_suite());
}
