/* attention.c -- attention (spec M2, M5), the vector field S0 and the
 * discrete layer maps S7.
 *
 * Two kernels compute the same quantities:
 *
 *  - AF_KERNEL_BLAS: scores by a level-3 product (dsyrk when Q = K = I, so
 *    the score matrix is symmetric and exp is evaluated once per pair),
 *    weighted sums by dgemm.  The tangent part is A_j - <th_j, A_j> th_j,
 *    which carries an absolute rounding error ~ eps |A_j|: when tokens
 *    cluster to within delta, its relative error grows like eps/delta.
 *
 *  - AF_KERNEL_DIRECT: plain loops over pairs in a fixed order.  With V = I
 *    the exponent and the tangent part are formed from the differences
 *    D_jk = th_k - th_j of unit vectors:
 *        beta (<th_j, th_k> - 1) = -beta |D_jk|^2 / 2,
 *        P_{th_j} th_k = D_jk + (|D_jk|^2 / 2) th_j,
 *    so P_{th_j} A_j keeps its relative accuracy as tokens merge (the
 *    residual error is radial and leaves the directions alone).  This is
 *    the kernel for long horizons and terminal rates (spec §6.8).
 *
 * Softmax weights always subtract the row maximum (never overflow, any
 * beta); with Q = K = I that maximum is beta at k = j (spec M2).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>

#include "internal.h"

/* ------------------------------------------------------------ helpers */

/* Four partial sums combined as (s0 + s1) + (s2 + s3): a fixed order
 * (deterministic), the same first-order error bound as one running sum,
 * and four independent add chains instead of one latency-bound chain. */
static double dot(const double *x, const double *y, size_t d)
{
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < d; i++)
    s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/* Euclidean norm without spurious overflow or underflow: the plain sum of
 * squares when it is safely inside the normal range (the usual case),
 * else the sum of squares of x / max|x_i| (LAPACK dnrm2's idea). */
static double norm2(const double *x, size_t d)
{
  double s = dot(x, x, d);
  if (isfinite(s) && s >= DBL_MIN / DBL_EPSILON)
    return sqrt(s);
  double mx = 0;
  for (size_t i = 0; i < d; i++) {
    double a = fabs(x[i]);
    if (isnan(a))
      return a;
    if (a > mx)
      mx = a;
  }
  if (mx == 0 || !isfinite(mx))
    return mx;
  double q = 0;
  for (size_t i = 0; i < d; i++) {
    double v = x[i] / mx;
    q += v * v;
  }
  return mx * sqrt(q);
}

/* ------------------------------------------------------------ exp */

/* exp(x) by Cody-Waite reduction and a polynomial, in plain IEEE double
 * arithmetic on vectors (GCC/Clang vector extension) with no branch, so
 * that, the build forbidding contraction into FMA (-ffp-contract=off),
 * every lane gets the same bits on every x86-64 machine, for either
 * vector width below and for any number of threads:
 *
 *   k = nearest integer to x / ln 2 (added to 1.5 * 2^52, whose ulp is 1,
 *       so the sum's low bits hold k),
 *   r = (x - k ln2_hi) - k ln2_lo, |r| <= ln 2 / 2 (+ 1 ulp); ln2_hi has
 *       32 significant bits, so k ln2_hi and the first subtraction are
 *       exact for |k| < 2^21 (fdlibm's split),
 *   exp(r) = sum_{i <= 13} r^i / i!, by Estrin's scheme (independent
 *       products instead of Horner's chain of 13 dependent steps); the
 *       truncation r^14/14! <= 4e-18 is 0.04 ulp of exp(r) >= 0.7,
 *   exp(x) = exp(r) 2^k, 2^k built from its exponent bits.
 * Accuracy against MPFR's exp on 2 * 10^6 random arguments in [-40, 0]
 * and [-708, 708] (bench/bench_roofline.c; docs/performance.md): at most
 * 1.00 ulp, mean 0.27 ulp (glibc's exp: 0.51 and 0.25).  Arguments
 * outside [-708, 708] (where 2^k would leave the normal range) and NaN
 * are passed to libm's exp in a second pass.  Speed: 4 lanes (AVX2,
 * chosen at run time) or 2 lanes (SSE2); 1.84 ns against libm's 5.06 ns
 * per exp on the machine of docs/performance.md. */
#define EXP_SHIFT 0x1.8p52
#define EXP_LOG2E 0x1.71547652b82fep0
#define EXP_LN2HI 0x1.62e42feep-1 /* 6.93147180369123816490e-01 */
#define EXP_LN2LO 0x1.a39ef35793c76p-33 /* 1.90821492927058770002e-10 */
#define EXP_XMAX 708.0

/* Body of exp_block for vectors of L doubles: types VD (double), VU
 * (uint64_t) of L lanes.  x and y must not overlap. */
#define EXP_BLOCK_BODY(VD, VU, L)                                            \
  const double c13 = 0x1.6124613a86d09p-33, c12 = 0x1.1eed8eff8d898p-29,    \
               c11 = 0x1.ae64567f544e4p-26, c10 = 0x1.27e4fb7789f5cp-22,    \
               c9 = 0x1.71de3a556c734p-19, c8 = 0x1.a01a01a01a01ap-16,      \
               c7 = 0x1.a01a01a01a01ap-13, c6 = 0x1.6c16c16c16c17p-10,      \
               c5 = 0x1.1111111111111p-7, c4 = 0x1.5555555555555p-5,        \
               c3 = 0x1.5555555555555p-3, c2 = 0.5;                         \
  VU out = {0};                                                              \
  for (size_t i = 0; i < len; i += L) {                                      \
    VD xi = {0}; /* the last vector is padded with zeros */                  \
    size_t m = len - i < L ? len - i : L;                                    \
    if (m == L)                                                              \
      memcpy(&xi, x + i, sizeof xi);                                         \
    else                                                                     \
      for (size_t q = 0; q < m; q++)                                         \
        xi[q] = x[i + q];                                                    \
    /* all ones where x is outside [-708, 708] or NaN */                     \
    out |= ~(VU) ((xi >= -EXP_XMAX) & (xi <= EXP_XMAX));                     \
    VD t = xi * EXP_LOG2E + EXP_SHIFT;                                       \
    VD kd = t - EXP_SHIFT;                                                   \
    VD r = (xi - kd * EXP_LN2HI) - kd * EXP_LN2LO;                           \
    /* qs = sum_{i=2}^{13} r^(i-2)/i! by Estrin; exp(r) = 1 + (r + r^2 qs), \
     * the leading 1 added last so that its rounding is the main error. */ \
    VD r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;                               \
    VD p23 = c2 + c3 * r, p45 = c4 + c5 * r, p67 = c6 + c7 * r,              \
       p89 = c8 + c9 * r, pab = c10 + c11 * r, pcd = c12 + c13 * r;          \
    VD qs = ((p23 + p45 * r2) + (p67 + p89 * r2) * r4)                       \
           + ((pab + pcd * r2) * r8);                                        \
    /* bits(t) = bits(1.5 * 2^52) + k; the biased exponent 1023 + k of      \
     * 2^k lies in [2, 2044] for |x| <= 708 (other lanes: redone below). */  \
    VU eb = ((VU) t - UINT64_C(0x4338000000000000) + 1023) << 52;            \
    VD res = (1.0 + (r + r2 * qs)) * (VD) eb;                                \
    if (m == L)                                                              \
      memcpy(y + i, &res, sizeof res);                                       \
    else                                                                     \
      for (size_t q = 0; q < m; q++)                                         \
        y[i + q] = res[q];                                                   \
  }                                                                          \
  uint64_t any = 0;                                                          \
  for (size_t q = 0; q < L; q++)                                             \
    any |= out[q];                                                           \
  if (any)                                                                   \
    for (size_t i = 0; i < len; i++)                                         \
      if (!(x[i] >= -EXP_XMAX && x[i] <= EXP_XMAX))                          \
        y[i] = exp(x[i]);

typedef double af_v2d __attribute__((vector_size(16)));
typedef uint64_t af_v2u __attribute__((vector_size(16)));

static void exp_block_v2(double *restrict y, const double *restrict x,
                         size_t len)
{
  EXP_BLOCK_BODY(af_v2d, af_v2u, 2)
}

#if defined(__x86_64__) && defined(__GNUC__)
#define AF_EXP_AVX2 1
typedef double af_v4d __attribute__((vector_size(32)));
typedef uint64_t af_v4u __attribute__((vector_size(32)));

/* The same operations on 4 lanes; AVX2 without FMA (contraction is off),
 * so the results are those of exp_block_v2, bit for bit. */
__attribute__((target("avx2"))) static void
exp_block_v4(double *restrict y, const double *restrict x, size_t len)
{
  EXP_BLOCK_BODY(af_v4d, af_v4u, 4)
}
#endif

/* Which one runs: detected by af_work_alloc (and af_exp_block); until
 * then the 2-lane version runs.  Threads of a sweep allocate their work
 * concurrently and all store the same value: relaxed atomic accesses make
 * that well defined (and cost a plain load on x86-64). */
static int exp_isa = -1; /* -1 unknown, 0 SSE2, 1 AVX2 */

int af_exp_block_isa(int force)
{
  int isa = force;
  if (isa < 0)
    isa = __atomic_load_n(&exp_isa, __ATOMIC_RELAXED);
  if (isa < 0) {
#ifdef AF_EXP_AVX2
    __builtin_cpu_init();
    isa = __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    isa = 0;
#endif
  }
#ifndef AF_EXP_AVX2
  isa = 0;
#endif
  __atomic_store_n(&exp_isa, isa, __ATOMIC_RELAXED);
  return isa;
}

static void exp_block(double *restrict y, const double *restrict x,
                      size_t len)
{
#ifdef AF_EXP_AVX2
  if (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED) == 1) {
    exp_block_v4(y, x, len);
    return;
  }
#endif
  exp_block_v2(y, x, len);
}

#define EXP_BLOCK 256

void af_exp_block(double *y, const double *x, size_t len)
{
  double xb[EXP_BLOCK]; /* y may equal x: the arguments are kept here */
  af_exp_block_isa(-1);
  for (size_t i0 = 0; i0 < len; i0 += EXP_BLOCK) {
    size_t m = len - i0 < EXP_BLOCK ? len - i0 : EXP_BLOCK;
    memcpy(xb, x + i0, m * sizeof *xb);
    exp_block(y + i0, xb, m);
  }
}

static void omp_inrun_init(void); /* below, with the row loops */

af_work *af_work_alloc(size_t n, size_t d)
{
  if (n < 1 || d < 1)
    return NULL;
  af_work *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  af_exp_block_isa(-1);
  omp_inrun_init();
  w->n = n;
  w->d = d;
  w->kernel = AF_KERNEL_BLAS;
  size_t nd = n * d;
  w->th = malloc(nd * sizeof(double));
  w->T = malloc(nd * sizeof(double));
  w->G = malloc(nd * sizeof(double));
  w->S = malloc(n * n * sizeof(double));
  w->A = malloc(nd * sizeof(double));
  w->P = malloc(nd * sizeof(double));
  w->c = malloc(n * sizeof(double));
  w->a = malloc(n * sizeof(double));
  w->Z = malloc(n * sizeof(double));
  w->amag = malloc(n * sizeof(double));
  w->gn = malloc(n * sizeof(double));
  w->ytmp = malloc((nd + n) * sizeof(double));
  w->dtmp = malloc(d * d * sizeof(double));
  w->xn = malloc(n * sizeof(double));
  w->Gx = malloc(n * (d + 2) * sizeof(double));
  w->Ax = malloc(n * (d + 2) * sizeof(double));
  if (!w->th || !w->T || !w->G || !w->S || !w->A || !w->P || !w->c || !w->a
      || !w->Z || !w->amag || !w->gn || !w->ytmp || !w->dtmp || !w->xn
      || !w->Gx || !w->Ax) {
    af_work_free(w);
    return NULL;
  }
  return w;
}

void af_work_free(af_work *w)
{
  if (w == NULL)
    return;
  free(w->th);
  free(w->T);
  free(w->G);
  free(w->S);
  free(w->A);
  free(w->P);
  free(w->c);
  free(w->a);
  free(w->Z);
  free(w->amag);
  free(w->gn);
  free(w->ytmp);
  free(w->dtmp);
  free(w->xn);
  free(w->Gx);
  free(w->Ax);
  free(w);
}

int af_work_set_kernel(af_work *w, af_kernel k)
{
  if (w == NULL || (int) k < 0 || k >= AF_KERNEL_COUNT)
    return AF_EINVAL;
  w->kernel = k;
  return AF_OK;
}

af_kernel af_work_kernel(const af_work *w) { return w->kernel; }
unsigned long af_work_nevals(const af_work *w) { return w->nevals; }

size_t af_state_size(size_t n, size_t d) { return n * d + n; }

double af_work_piece_time(const af_work *w, double t)
{
  if (w->seg_set)
    return 0.5 * (w->seg_lo + w->seg_hi);
  return t;
}

/* ------------------------------------------------------------ threads */

/* OpenMP inside one evaluation.  The row loops below (directions, the
 * exponentials, value rows, normalization and projection, dy) write
 * disjoint rows and keep every sum's order, so the results are the same
 * bits for any number of threads.  A parallel region costs a few
 * microseconds, so only loops of enough work are split, in blocks of
 * AF_ROW_BLOCK rows handed out dynamically (the exponential loop runs
 * over a triangle).
 *
 * Threads inside one evaluation are used only when OMP_NUM_THREADS is set
 * in the environment: without it OpenMP would take every core, and when
 * another process holds one of them each barrier waits for a descheduled
 * thread (measured on the 2-core machine of docs/performance.md while
 * other builds ran: af_rhs at n = 1024, d = 64 took 68 ms of wall time
 * with 2 threads against 10.3 ms with 1).  Inside an enclosing parallel
 * region (a sweep running one system per thread) the regions here are
 * inactive. */
#define AF_OMP_MIN_PAIRS 65536 /* n^2: the exp loop from n = 256 */
#define AF_OMP_MIN_ND 65536    /* n d: the O(n d) row loops      */
#define AF_ROW_BLOCK 16

static int omp_inrun = -1; /* set by af_work_alloc; atomic as exp_isa */

static void omp_inrun_init(void)
{
  if (__atomic_load_n(&omp_inrun, __ATOMIC_RELAXED) < 0)
    __atomic_store_n(&omp_inrun, getenv("OMP_NUM_THREADS") != NULL,
                     __ATOMIC_RELAXED);
}

typedef void (*rows_fn)(void *ctx, size_t j0, size_t j1);

/* f(ctx, j0, j1) over [0, n), in parallel when par and allowed. */
static void run_rows(rows_fn f, void *ctx, size_t n, int par)
{
#ifdef _OPENMP
  if (par && __atomic_load_n(&omp_inrun, __ATOMIC_RELAXED) == 1) {
    size_t nb = (n + AF_ROW_BLOCK - 1) / AF_ROW_BLOCK;
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t b = 0; b < nb; b++)
      f(ctx, b * AF_ROW_BLOCK,
        (b + 1) * AF_ROW_BLOCK < n ? (b + 1) * AF_ROW_BLOCK : n);
    return;
  }
#else
  (void) par;
#endif
  f(ctx, 0, n);
}

typedef struct {
  af_work *w;
  const double *y;
} dir_ctx;

static void directions_rows(void *vc, size_t j0, size_t j1)
{
  dir_ctx *c = vc;
  size_t d = c->w->d;
  for (size_t j = j0; j < j1; j++) {
    const double *restrict x = c->y + j * d;
    double *restrict th = c->w->th + j * d;
    double s = norm2(x, d);
    c->w->xn[j] = s;
    if (isfinite(s) && s != 0) {
      /* Element-wise loops carry '#pragma omp simd': the same IEEE
       * operation per element, vectorized at -O2 whatever the trip count. */
#pragma omp simd
      for (size_t i = 0; i < d; i++)
        th[i] = x[i] / s;
    }
  }
}

int af_work_directions(af_work *w, const double *y)
{
  size_t n = w->n, d = w->d;
  dir_ctx c = {w, y};
  run_rows(directions_rows, &c, n, n * d >= AF_OMP_MIN_ND);
  for (size_t j = 0; j < n; j++) {
    double s = w->xn[j];
    if (!isfinite(s) || !isfinite(y[n * d + j]))
      return AF_ENONFINITE;
    if (s == 0)
      return AF_EZERONORM;
  }
  return AF_OK;
}

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

/* Identity Q, K: exponent beta (S_jk - 1) <= 0 (max at k = j), symmetric,
 * so exp is evaluated once per unordered pair (lower triangle), mirrored
 * unless the mask is causal. */
static int weights_identity(af_work *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  double usa_z = 0;
  if (m->attn == AF_ATTN_USA) {
    double e = exp(-m->beta);
    if (e == 0.0)
      return AF_EOVERFLOW;
    usa_z = (double) n * e;
  }
  for (size_t j = 0; j < n; j++) {
    double *row = w->S + j * n;
    for (size_t k = 0; k < j; k++) {
      double e = exp(m->beta * (row[k] - 1.0));
      row[k] = e;
      w->S[k * n + j] = causal ? 0.0 : e;
    }
    row[j] = exp(m->beta * (row[j] - 1.0));
  }
  for (size_t j = 0; j < n; j++) {
    if (m->attn == AF_ATTN_USA) {
      w->Z[j] = usa_z;
      continue;
    }
    const double *row = w->S + j * n;
    double z = 0;
    for (size_t k = 0; k < n; k++)
      z += row[k];
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

/* ------------------------------------------------------------ kernels */

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
 * dgemm gained over dsymm at n = 1024, d = 64 (docs/performance.md). */
typedef struct {
  af_work *w;
  const double *V;
  size_t e;       /* columns of Gx and Ax */
  int usa;
  double usa_z;   /* Z_j under USA */
} ident_ctx;

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

/* Rows j of A = Ax / Z_j, amag, c = <th_j, A_j>, a = |A_j|, P. */
static void finish_rows(void *vc, size_t j0, size_t j1)
{
  ident_ctx *c = vc;
  af_work *w = c->w;
  size_t d = w->d, e = c->e;
  for (size_t j = j0; j < j1; j++) {
    const double *ax = w->Ax + j * e;
    double z = c->usa ? c->usa_z : ax[d];
    double iz = 1.0 / z;
    double *restrict Aj = w->A + j * d, *restrict Pj = w->P + j * d;
    const double *restrict tj = w->th + j * d;
#pragma omp simd
    for (size_t i = 0; i < d; i++)
      Aj[i] = ax[i] * iz;
    w->Z[j] = z;
    w->amag[j] = ax[c->V != NULL ? d + 1 : d] * iz;
    double cj = dot(tj, Aj, d);
    w->c[j] = cj;
    w->a[j] = norm2(Aj, d);
#pragma omp simd
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - cj * tj[i];
  }
}

static int attention_blas_ident(af_work *w, const af_model *m,
                                const double *V)
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
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) n, (int) d,
              1.0, w->th, (int) d, 0.0, w->S, (int) n);
  weights_identity_lower(w, m->beta);
  if (V != NULL) /* rows V th_k straight into Gx */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) d,
                (int) d, 1.0, w->th, (int) d, V, (int) d, 0.0, w->Gx,
                (int) e);
  ident_ctx ic = {w, V, e, usa, usa_z};
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

static int attention_blas(af_work *w, const af_model *m, const double *Q,
                          const double *K, const double *V)
{
  size_t n = w->n, d = w->d;
  int rc;
  if (Q == NULL && K == NULL)
    return attention_blas_ident(w, m, V);
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

static int attention_direct(af_work *w, const af_model *m, const double *Q,
                            const double *K, const double *V)
{
  size_t n = w->n, d = w->d;
  int rc;
  int ident = (Q == NULL && K == NULL);
  /* Scores into S (exponents for the identity case). */
  if (ident) {
    for (size_t j = 0; j < n; j++) {
      const double *tj = w->th + j * d;
      w->S[j * n + j] = 1.0;
      for (size_t k = 0; k < j; k++) {
        const double *tk = w->th + k * d;
        double q = 0;
        for (size_t i = 0; i < d; i++) {
          double diff = tk[i] - tj[i];
          q += diff * diff;
        }
        /* 1 - |D|^2/2 = <th_j, th_k> for unit vectors, formed so that
         * weights_identity's S - 1 is exactly -|D|^2/2. */
        double s = 1.0 - 0.5 * q;
        w->S[j * n + k] = s;
        w->S[k * n + j] = s;
      }
    }
    /* weights_identity computes exp(beta (S - 1)).  S = fl(1 - q/2) is
     * within eps/2 of 1 - q/2 and S - 1 is then exact (Sterbenz, S in
     * [1/2, 2] for pairs within 90 degrees), so each weight carries a
     * relative error of at most beta eps / 2 + one rounding of exp. */
    rc = weights_identity(w, m);
  } else {
    score_matrix(w, Q, K);
    for (size_t j = 0; j < n; j++) {
      const double *tj = w->th + j * d;
      double *Tj = w->T + j * d;
      for (size_t b = 0; b < d; b++) {
        double s = 0;
        for (size_t a = 0; a < d; a++)
          s += tj[a] * w->dtmp[a * d + b];
        Tj[b] = s;
      }
    }
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < n; k++)
        w->S[j * n + k] = dot(w->T + j * d, w->th + k * d, d);
    rc = weights_general(w, m);
  }
  if (rc != AF_OK)
    return rc;
  if (V != NULL) {
    for (size_t k = 0; k < n; k++) {
      double *Gk = w->G + k * d;
      const double *tk = w->th + k * d;
      for (size_t a = 0; a < d; a++)
        Gk[a] = dot(V + a * d, tk, d);
      w->gn[k] = sqrt(dot(Gk, Gk, d));
    }
  }
  for (size_t j = 0; j < n; j++) {
    const double *tj = w->th + j * d;
    const double *row = w->S + j * n;
    double *Aj = w->A + j * d, *Pj = w->P + j * d;
    double iz = 1.0 / w->Z[j];
    for (size_t i = 0; i < d; i++) {
      Aj[i] = 0;
      Pj[i] = 0;
    }
    double am = 0;
    if (V == NULL) {
      double radial = 0; /* sum_k w_jk |D_jk|^2 / 2 */
      for (size_t k = 0; k < n; k++) {
        double e = row[k];
        if (e == 0.0)
          continue;
        const double *tk = w->th + k * d;
        double q = 0;
        for (size_t i = 0; i < d; i++) {
          double diff = tk[i] - tj[i];
          Pj[i] += e * diff;
          Aj[i] += e * tk[i];
          q += diff * diff;
        }
        radial += e * 0.5 * q;
        am += e;
      }
      radial *= iz;
      for (size_t i = 0; i < d; i++) {
        Aj[i] *= iz;
        Pj[i] = Pj[i] * iz + radial * tj[i];
      }
      /* c = sum_k w_jk <th_j, th_k> = sum_k w_jk - radial; sum_k w_jk = 1
       * under softmax, e^beta-weighted under USA. */
      w->c[j] = am * iz - radial;
    } else {
      for (size_t k = 0; k < n; k++) {
        double e = row[k];
        if (e == 0.0)
          continue;
        const double *Gk = w->G + k * d;
        for (size_t i = 0; i < d; i++)
          Aj[i] += e * Gk[i];
        am += e * w->gn[k];
      }
      for (size_t i = 0; i < d; i++)
        Aj[i] *= iz;
      double c = dot(tj, Aj, d);
      w->c[j] = c;
      for (size_t i = 0; i < d; i++)
        Pj[i] = Aj[i] - c * tj[i];
    }
    w->amag[j] = am * iz;
    w->a[j] = norm2(Aj, d);
  }
  return AF_OK;
}

/* Fill w->A, w->P, w->c, w->a, w->amag for the directions of y. */
static int attention_fill(af_work *w, double t, const double *y,
                          const af_model *m)
{
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  if (m->n != w->n || m->d != w->d)
    return AF_EDIM;
  rc = af_work_directions(w, y);
  if (rc != AF_OK)
    return rc;
  af_model faulty;
  if (m->fault & AF_FAULT_ATTENTION) { /* documented in attnflow.h */
    faulty = *m;
    faulty.beta *= 1.05;
    m = &faulty;
  }
  const double *Q, *K, *V;
  af_weights_at(&Q, &K, &V, m->w, af_work_piece_time(w, t));
  rc = (w->kernel == AF_KERNEL_DIRECT) ? attention_direct(w, m, Q, K, V)
                                       : attention_blas(w, m, Q, K, V);
  if (rc != AF_OK)
    return rc;
  w->nevals++;
  /* The directions are finite here, so a non-finite output under the
   * unnormalized USA weights (up to e^beta) is an overflow. */
  for (size_t j = 0; j < w->n; j++)
    if (!isfinite(w->a[j]) || !isfinite(w->c[j]))
      return m->attn == AF_ATTN_USA ? AF_EOVERFLOW : AF_ENONFINITE;
  return AF_OK;
}

int af_attention(double *A, double *pt, double *c, double *a, double t,
                 const double *y, const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t nd = w->n * w->d;
  if (A)
    memcpy(A, w->A, nd * sizeof(double));
  if (pt)
    memcpy(pt, w->P, nd * sizeof(double));
  if (c)
    memcpy(c, w->c, w->n * sizeof(double));
  if (a)
    memcpy(a, w->a, w->n * sizeof(double));
  return AF_OK;
}

/* |A_j| is indistinguishable from zero when it lies within the rounding
 * error bound of its own computation: a sum of n terms of total magnitude
 * sum_k w_jk |V th_k| carries an error of at most about n eps times that
 * magnitude (recursive summation, Higham 2002, §4.2). */
static int attention_vanishes(const af_work *w, size_t j)
{
  return w->a[j] <= (double) w->n * DBL_EPSILON * w->amag[j];
}

/* Scheme rates for every token from the filled work arrays. */
static int rates_fill(double *s, double *rho, double t, const double *y,
                      const af_model *m, af_work *w)
{
  const af_scheme *sc = af_scheme_get(m->scheme);
  size_t n = w->n, d = w->d;
  double alpha = af_model_alpha(m, t);
  /* Mix-LN's side of tau comes from the piece being integrated, so that a
   * stage evaluated exactly at tau after the restart is a Pre-LN stage. */
  double tau = m->tau;
  if (w->seg_set)
    tau = (w->seg_lo >= m->tau) ? -INFINITY : INFINITY;
  for (size_t j = 0; j < n; j++) {
    if (sc->needs_anorm && attention_vanishes(w, j))
      return AF_EZEROATTN;
    double sj, rj;
    sc->rates(&sj, &rj, t, y[n * d + j], w->c[j], w->a[j], alpha, tau);
    if (m->fault & AF_FAULT_SPEED)
      sj *= 1.0 + 0.05 * t;
    if (m->fault & AF_FAULT_RADIAL)
      rj *= 1.1;
    if (!isfinite(sj) || !isfinite(rj))
      return AF_ENONFINITE;
    if (!(sj > 0))
      return AF_ESPEED;
    s[j] = sj;
    rho[j] = rj;
  }
  return AF_OK;
}

int af_speeds(double *s, double *rho, double t, const double *y,
              const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  double *ss = w->ytmp, *rr = w->ytmp + w->n;
  rc = rates_fill(ss, rr, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  if (s)
    memcpy(s, ss, w->n * sizeof(double));
  if (rho)
    memcpy(rho, rr, w->n * sizeof(double));
  return AF_OK;
}

typedef struct {
  af_work *w;
  double *dy;
  const double *s, *rho;
} dy_ctx;

static void dy_rows(void *vc, size_t j0, size_t j1)
{
  dy_ctx *c = vc;
  size_t n = c->w->n, d = c->w->d;
  for (size_t j = j0; j < j1; j++) {
    double is = 1.0 / c->s[j];
    const double *restrict Pj = c->w->P + j * d;
    double *restrict dyj = c->dy + j * d;
    /* The state's theta_j may have drifted off the sphere; the field is a
     * function of theta/|theta|, and scaling by |theta_j| keeps
     * d theta/dt tangent to the sphere of radius |theta_j| with the
     * same angular velocity. */
    double nx = c->w->xn[j]; /* |x_j|, from af_work_directions */
#pragma omp simd
    for (size_t i = 0; i < d; i++)
      dyj[i] = Pj[i] * is * nx;
    c->dy[n * d + j] = c->rho[j];
  }
}

int af_rhs(double *dy, double t, const double *y, const af_model *m,
           af_work *w)
{
  if (w == NULL || y == NULL || dy == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  double *s = w->ytmp, *rho = w->ytmp + n;
  rc = rates_fill(s, rho, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  dy_ctx c = {w, dy, s, rho};
  run_rows(dy_rows, &c, n, n * d >= AF_OMP_MIN_ND);
  return AF_OK;
}

/* ------------------------------------------------------------ layer maps */

/* y_out direction = v/|v|; AF_EZERONORM if v = 0. */
static int set_direction(double *out, const double *v, size_t d)
{
  double s = sqrt(dot(v, v, d));
  if (!isfinite(s))
    return AF_ENONFINITE;
  if (s == 0)
    return AF_EZERONORM;
  for (size_t i = 0; i < d; i++)
    out[i] = v[i] / s;
  return AF_OK;
}

int af_layer_step(double *y_out, const double *y_in, size_t layer, double h,
                  const af_model *m, af_work *w)
{
  if (w == NULL || y_in == NULL || y_out == NULL || !(h > 0) || !isfinite(h))
    return AF_EINVAL;
  double t = (double) layer * h;
  /* The weight set of layer l is selected from the middle of its step. */
  int seg_saved = w->seg_set;
  double lo = w->seg_lo, hi = w->seg_hi;
  w->seg_set = 1;
  w->seg_lo = t;
  w->seg_hi = t + h;
  int rc = attention_fill(w, t, y_in, m);
  w->seg_set = seg_saved;
  w->seg_lo = lo;
  w->seg_hi = hi;
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  af_scheme_id sc = m->scheme;
  if (sc == AF_MIX_LN)
    sc = (t < m->tau) ? AF_POST_LN : AF_PRE_LN; /* spec S7: l h < tau */
  const af_scheme *row = af_scheme_get(sc);
  double alpha = af_model_alpha(m, t);
  double *v = w->T; /* scratch n x d (free after attention_fill) */
  double *rnew = w->ytmp;
  for (size_t j = 0; j < n; j++) {
    if (row->needs_anorm && attention_vanishes(w, j))
      return AF_EZEROATTN;
    const double *tj = w->th + j * d, *Aj = w->A + j * d;
    double r = y_in[n * d + j], a = w->a[j];
    double *vj = v + j * d;
    rnew[j] = r;
    switch (sc) {
    case AF_POST_LN: /* theta+ = N(theta + h A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + h * Aj[i];
      break;
    case AF_PRE_LN: /* x+ = x + h A */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i];
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_PERI_LN: /* x+ = x + h N(A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i] / a;
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_NGPT: /* theta+ = N(theta + alpha h (N(A) - theta)) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + alpha * h * (Aj[i] / a - tj[i]);
      break;
    case AF_LN_SCALING: { /* theta+ = N(theta + h A / sqrt(l h + 1)) */
      double f = h / sqrt(t + 1.0);
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + f * Aj[i];
      break;
    }
    default:
      return AF_EINVAL;
    }
    if (m->fault & AF_FAULT_RADIAL)
      rnew[j] = r + 1.1 * (rnew[j] - r);
    if (m->fault & AF_FAULT_SPEED) /* the step's angle, as s (1 + 0.05 t) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + (vj[i] / (row->moves_radius ? r : 1.0) - tj[i])
                            / (1.0 + 0.05 * t);
    if (!isfinite(rnew[j]))
      return AF_ENONFINITE;
  }
  /* Write only after every token succeeded: y_out may alias y_in. */
  double *tmp = w->P;
  for (size_t j = 0; j < n; j++) {
    rc = set_direction(tmp + j * d, v + j * d, d);
    if (rc != AF_OK)
      return rc;
    if (rnew[j] == 0)
      return AF_EZERONORM;
  }
  memcpy(y_out, tmp, n * d * sizeof(double));
  memcpy(y_out + n * d, rnew, n * sizeof(double));
  return AF_OK;
}
