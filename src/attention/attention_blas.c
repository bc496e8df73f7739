/* attention_blas.c -- the BLAS kernel of attention (AF_KERNEL_BLAS; see
 * attention.c): scores and weighted sums by level-3 products, with Q = K = I
 * by dsyrk and dsymm (dtrmm under the causal mask), its small sizes by the
 * loops of attention_small.c. */
#include <gsl/gsl_cblas.h>

#include "attention_impl.h"

/* Every CBLAS call below goes through the table bound at first use
 * (blas.c), so that the optimized library is loaded only when a product
 * needs it. */
#define cblas_dgemm (af_blas()->dgemm)
#define cblas_dsymm (af_blas()->dsymm)
#define cblas_dsyrk (af_blas()->dsyrk)
#define cblas_dtrmm (af_blas()->dtrmm)
#define cblas_dgemv (af_blas()->dgemv)

/* G = rows V th_k (or th when V is the identity), and gn[k] = |G_k|. */
static void value_rows(af_work *w, const double *V)
{
  size_t n = w->n, d = w->d;
  if (V == NULL) {
    memcpy(w->G, w->th, n * d * sizeof(double));
    for (size_t k = 0; k < n; k++)
      w->gn[k] = 1.0;
    return;
  }
  /* G = th V^T */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) d,
              (int) d, 1.0, w->th, (int) d, V, (int) d, 0.0, w->G, (int) d);
  for (size_t k = 0; k < n; k++)
    w->gn[k] = sqrt(dot(w->G + k * d, w->G + k * d, d));
}

/* M = Q^T K into w->dtmp (Q or K may be NULL = identity). */
static void score_matrix(af_work *w, const double *Q, const double *K)
{
  size_t d = w->d;
  if (Q == NULL)
    memcpy(w->dtmp, K, d * d * sizeof(double));
  else if (K == NULL) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++)
        w->dtmp[a * d + b] = Q[b * d + a];
  } else
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int) d, (int) d,
                (int) d, 1.0, Q, (int) d, K, (int) d, 0.0, w->dtmp, (int) d);
}

/* Turn raw scores S_jk = <Q th_j, K th_k> (rows k > j ignored under the
 * causal mask) into unnormalized weights E_jk and normalizers Z_j with
 * w_jk = E_jk / Z_j.  Softmax and causal: E_jk = exp(beta (S_jk - m_j)),
 * m_j the row maximum.  USA: w_jk = exp(beta S_jk) / n, written as
 * E_jk = exp(beta (S_jk - m_j)), Z_j = n exp(-beta m_j). */
static int weights_general(af_work *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  for (size_t j = 0; j < n; j++) {
    double *row = w->S + j * n;
    size_t kend = causal ? j + 1 : n;
    double mx = -INFINITY;
    for (size_t k = 0; k < kend; k++)
      if (row[k] > mx)
        mx = row[k];
    if (!isfinite(mx))
      return AF_ENONFINITE;
    double z = 0;
    for (size_t k = 0; k < kend; k++) {
      row[k] = exp(m->beta * (row[k] - mx));
      z += row[k];
    }
    for (size_t k = kend; k < n; k++)
      row[k] = 0.0;
    if (m->attn == AF_ATTN_USA) {
      double e = exp(-m->beta * mx);
      if (e == 0.0 || !isfinite(e))
        return AF_EOVERFLOW;
      z = (double) n * e;
    }
    w->Z[j] = z;
  }
  return AF_OK;
}

/* BLAS kernel, identity Q, K: unnormalized weights
 * E_jk = exp(beta (S_jk - 1)) for k <= j, in place in the lower triangle
 * of S (the exponent is <= 0 up to rounding: the row maximum is at k = j).
 * The upper triangle is never written: the products read the lower one. */
typedef struct {
  af_work *w;
  double beta;
} exp_ctx;

/* Rows j0..j1 of the lower triangle, packed into blocks of EXP_BLOCK
 * exponents (rows at small n are short: one call per row would spend its
 * time in partial vectors) and written back in the same order. */
static void weights_rows(void *vc, size_t j0, size_t j1)
{
  exp_ctx *c = vc;
  size_t n = c->w->n;
  double *S = c->w->S;
  double beta = c->beta;
  double xb[EXP_BLOCK], yb[EXP_BLOCK];
  size_t fill = 0, sj = j0, sk = 0; /* xb[0] came from S[sj][sk] */
  for (size_t j = j0; j < j1; j++) {
    const double *row = S + j * n;
    for (size_t k = 0; k <= j;) {
      size_t len = j + 1 - k < EXP_BLOCK - fill ? j + 1 - k : EXP_BLOCK - fill;
#pragma omp simd
      for (size_t i = 0; i < len; i++)
        xb[fill + i] = beta * (row[k + i] - 1.0);
      fill += len;
      k += len;
      if (fill == EXP_BLOCK || (j + 1 == j1 && k > j)) {
        exp_block(yb, xb, fill);
        for (size_t m = 0; m < fill;) { /* scatter back, row by row */
          size_t seg = sj + 1 - sk < fill - m ? sj + 1 - sk : fill - m;
          memcpy(S + sj * n + sk, yb + m, seg * sizeof(double));
          m += seg;
          sk += seg;
          if (sk > sj) {
            sj++;
            sk = 0;
          }
        }
        fill = 0;
      }
    }
  }
}

static void weights_identity_lower(af_work *w, double beta)
{
  exp_ctx c = {w, beta};
  run_rows(weights_rows, &c, w->n, w->n * w->n >= AF_OMP_MIN_PAIRS);
}

/* BLAS kernel for Q = K = I (softmax, USA, causal).  One evaluation is
 *   dsyrk   S = th th^T (lower triangle),
 *   exp     E_jk = exp(beta (S_jk - 1)), k <= j, vectorized (af_exp_block),
 *   dsymm   Ax = E Gx on the lower triangle, Gx = [V th_k | 1 | |V th_k|]
 *           (dtrmm when causal: E is then lower triangular),
 * so one level-3 product yields the weighted sums, the normalizers
 * Z_j = sum_k E_jk (column d) and the rounding scale amag (column d + 1,
 * only when V is not the identity: otherwise it equals column d).  The
 * exponentials are evaluated once per unordered pair and never mirrored:
 * copying E above the diagonal (block by block) for a dgemm cost more than
 * dgemm gained over dsymm at n = 1024, d = 64 (docs/performance.md).
 *
 * Small sizes (n^2 d <= AF_SMALL_NND_MAX = 16384, and n <= EXP_BLOCK) take
 * a loop path instead of the BLAS calls, serially (the sizes are far below
 * AF_OMP_MIN_*): small_weights forms S_jk = <th_j, th_k> by sums over the
 * coordinates in order, E_jk = exp(beta (S_jk - 1)) once per pair in
 * blocks of rows, and writes E with its mirror (E^T under the causal
 * mask; by register transposes of tiles, mirror_v*); small_product sums
 * Ax_j = sum_k E_jk Gx_k over k in order, in register tiles, into Ax
 * transposed; small_finish forms A, c, a, P across rows.  For af_rhs with
 * V = I the directions go straight into th transposed (small_directions)
 * and P stays transposed for dy (attention_fill).  The same quantities,
 * another fixed rounding order; the same bits for every vector width.
 * The threshold is measured (af_rhs,
 * Post-LN, CPU time, one thread, this path against the BLAS one, 4-lane
 * exp): n = 16, d = 3 1.5 against 2.0 us; n = 32, d = 3 3.1 against 4.1 us;
 * n = 64, d = 3 8.8 against 10.7 us; n = 32, d = 16 5.7 against 6.2 us;
 * close to even at n^2 d = 32768 (n = 64, d = 8: 12.4 against 13.4 us;
 * n = 32, d = 32: 9.6 against 9.4 us), the loops losing beyond (n = 64,
 * d = 16: 18.4 against 16.4 us; n = 128, d = 3: 36.8 against 32.9 us;
 * n = 256, d = 64: 1.9 ms against 0.41 ms); these timings predate the
 * row passes across rows (vec_rows), so the threshold is if anything
 * conservative.  Inside af_integrate (bench/bench_integrate, Post-LN,
 * rk8pd, 8-lane exp, CPU time) one evaluation at n = 32, d = 3 takes
 * 1.75 us (2.5 us before the row passes across rows, the tiled mirror and
 * the transposed layouts), about a third of it in the 528 exponentials
 * and a tenth in GSL's stepping. */
/* Rows k of Gx = [V th_k | 1 | |V th_k|] (V th_k already there if V). */
static void value_rows_x(void *vc, size_t k0, size_t k1)
{
  ident_ctx *c = vc;
  af_work *w = c->w;
  size_t d = w->d, e = c->e;
  for (size_t k = k0; k < k1; k++) {
    double *g = w->Gx + k * e;
    if (c->V == NULL)
      memcpy(g, w->th + k * d, d * sizeof(double));
    g[d] = 1.0;
    if (c->V != NULL)
      g[d + 1] = sqrt(dot(g, g, d));
  }
}

/* Rows j of A = Ax / Z_j, amag, c = <th_j, A_j>, a = |A_j|, P.  The
 * reciprocals 1 / Z_j and the roots of |A_j|^2 are taken across rows
 * (vec_rows), the same bits as row by row; scratch: ytmp, rows j0..j1. */
static inline __attribute__((always_inline)) void
finish_rows_d(void *vc, size_t j0, size_t j1, size_t d)
{
  ident_ctx *c = vc;
  af_work *w = c->w;
  size_t n = w->n, e = c->e, m = j1 - j0;
  double *restrict iz = w->ytmp + j0, *restrict ss = w->ytmp + n + j0;
  for (size_t j = j0; j < j1; j++)
    w->Z[j] = c->usa ? c->usa_z : w->Ax[j * e + d];
  vec_rows(iz, NULL, w->Z + j0, m, 0);
  int unsafe = 0;
  for (size_t j = j0; j < j1; j++) {
    const double *ax = w->Ax + j * e;
    double izj = iz[j - j0];
    double *restrict Aj = w->A + j * d, *restrict Pj = w->P + j * d;
    const double *restrict tj = w->th + j * d;
#pragma omp simd
    for (size_t i = 0; i < d; i++)
      Aj[i] = ax[i] * izj;
    w->amag[j] = ax[c->V != NULL ? d + 1 : d] * izj;
    double cj = dot(tj, Aj, d);
    w->c[j] = cj;
    ss[j - j0] = dot(Aj, Aj, d);
    unsafe |= !sumsq_safe(ss[j - j0]);
#pragma omp simd
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - cj * tj[i];
  }
  vec_rows(w->a + j0, NULL, ss, m, 1);
  if (unsafe)
    for (size_t j = j0; j < j1; j++)
      if (!sumsq_safe(ss[j - j0]))
        w->a[j] = norm2(w->A + j * d, d);
}

/* finish_rows for rows j0..j1, its loops over the coordinates unrolled
 * for the small d where the per-row overhead dominates (the same
 * operations). */
static void finish_rows(void *vc, size_t j0, size_t j1)
{
  AF_CALL_SMALL_D(((ident_ctx *) vc)->w->d, finish_rows_d, vc, j0, j1);
}

static int attention_blas_ident(af_work *w, const af_model *m,
                                const double *V, int *soa)
{
  size_t n = w->n, d = w->d;
  size_t e = d + (V != NULL ? 2 : 1); /* columns of Gx and Ax */
  int causal = m->attn == AF_ATTN_CAUSAL, usa = m->attn == AF_ATTN_USA;
  double usa_z = 0;
  if (usa) {
    double ez = exp(-m->beta);
    if (ez == 0.0)
      return AF_EOVERFLOW;
    usa_z = (double) n * ez;
  }
  ident_ctx ic = {w, V, e, usa, usa_z, 0};
  if (small_size(n, d)) {
    small_ident(w, m, &ic, soa);
    return AF_OK;
  }
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) n, (int) d,
              1.0, w->th, (int) d, 0.0, w->S, (int) n);
  weights_identity_lower(w, m->beta);
  if (V != NULL) /* rows V th_k straight into Gx */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) d,
                (int) d, 1.0, w->th, (int) d, V, (int) d, 0.0, w->Gx,
                (int) e);
  run_rows(value_rows_x, &ic, n, n * d >= AF_OMP_MIN_ND);
  if (causal) {
    memcpy(w->Ax, w->Gx, n * e * sizeof(double));
    cblas_dtrmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans,
                CblasNonUnit, (int) n, (int) e, 1.0, w->S, (int) n, w->Ax,
                (int) e);
  } else
    cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int) n, (int) e, 1.0,
                w->S, (int) n, w->Gx, (int) e, 0.0, w->Ax, (int) e);
  run_rows(finish_rows, &ic, n, n * d >= AF_OMP_MIN_ND);
  return AF_OK;
}

int attention_blas(af_work *w, const af_model *m, const double *Q,
                   const double *K, const double *V, int *soa)
{
  size_t n = w->n, d = w->d;
  int rc;
  if (Q == NULL && K == NULL)
    return attention_blas_ident(w, m, V, soa);
  {
    score_matrix(w, Q, K);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) n, (int) d,
                (int) d, 1.0, w->th, (int) d, w->dtmp, (int) d, 0.0, w->T,
                (int) d);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) n,
                (int) d, 1.0, w->T, (int) d, w->th, (int) d, 0.0, w->S,
                (int) n);
    rc = weights_general(w, m);
  }
  if (rc != AF_OK)
    return rc;
  value_rows(w, V);
  /* A = E G, then row j divided by Z_j. */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) n, (int) d,
              (int) n, 1.0, w->S, (int) n, w->G, (int) d, 0.0, w->A, (int) d);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, (int) n, 1.0, w->S,
              (int) n, w->gn, 1, 0.0, w->amag, 1);
  for (size_t j = 0; j < n; j++) {
    double iz = 1.0 / w->Z[j];
    double *Aj = w->A + j * d, *Pj = w->P + j * d;
    const double *tj = w->th + j * d;
    for (size_t i = 0; i < d; i++)
      Aj[i] *= iz;
    w->amag[j] *= iz;
    double c = dot(tj, Aj, d);
    w->c[j] = c;
    w->a[j] = norm2(Aj, d);
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - c * tj[i];
  }
  return AF_OK;
}
