/* attention.c -- attention (theorems.md M2, M5) and the vector field S0.
 *
 * Two kernels compute the same quantities:
 *
 *  - AF_KERNEL_BLAS: scores by a level-3 product (dsyrk when Q = K = I, so
 *    the score matrix is symmetric and exp is evaluated once per pair),
 *    weighted sums by dgemm.  The tangent part is A_j - <th_j, A_j> th_j,
 *    which carries an absolute rounding error ~ eps |A_j|: when tokens
 *    cluster to within delta, its relative error grows like eps/delta.
 *
 *  - AF_KERNEL_DIRECT: plain loops over pairs in a fixed order, written once
 *    in the kernel template mp_kernel_source.c (whose MPFR instance is the
 *    multiple-precision field) and called here as its double instance,
 *    af_work_direct_generic_d, on the arrays of af_work.  With V = I
 *    the exponent and the tangent part are formed from the differences
 *    D_jk = th_k - th_j of unit vectors:
 *        beta (<th_j, th_k> - 1) = -beta |D_jk|^2 / 2,
 *        P_{th_j} th_k = D_jk + (|D_jk|^2 / 2) th_j,
 *    so P_{th_j} A_j keeps its relative accuracy as tokens merge (the
 *    residual error is radial and leaves the directions alone).  This is
 *    the kernel for long horizons and terminal rates (theorems.md N1).
 *
 * Softmax weights always subtract the row maximum (never overflow, any
 * beta); with Q = K = I that maximum is beta at k = j (theorems.md M2). *
 * The discrete layer maps S7 built on these kernels are in layer_maps.c.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>

#include "internal.h"
#include "mp_kernel.h"

/* Every CBLAS call below goes through the table bound at first use
 * (blas.c), so that the optimized library is loaded only when a product
 * needs it. */
#define cblas_dgemm (af_blas()->dgemm)
#define cblas_dsymm (af_blas()->dsymm)
#define cblas_dsyrk (af_blas()->dsyrk)
#define cblas_dtrmm (af_blas()->dtrmm)
#define cblas_dgemv (af_blas()->dgemv)

/* Return F(args..., D) with D a constant for d = 2, 3, 4 -- the loops over
 * the coordinates are then unrolled where the per-row overhead dominates --
 * and D = d otherwise: the same operations either way.  For void F. */
#define AF_CALL_SMALL_D(dval, F, ...)                                        \
  do {                                                                       \
    switch (dval) {                                                          \
    case 2:                                                                  \
      F(__VA_ARGS__, 2);                                                     \
      return;                                                                \
    case 3:                                                                  \
      F(__VA_ARGS__, 3);                                                     \
      return;                                                                \
    case 4:                                                                  \
      F(__VA_ARGS__, 4);                                                     \
      return;                                                                \
    default:                                                                 \
      F(__VA_ARGS__, (dval));                                                \
      return;                                                                \
    }                                                                        \
  } while (0)

/* ------------------------------------------------------------ helpers */

/* dot(x, y, d): af_dot (internal.h), shared with the template's double
 * instance that computes AF_KERNEL_DIRECT. */
#define dot af_dot

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
 * are passed to libm's exp in a second pass.  Speed: 8 lanes (AVX-512F)
 * or 4 lanes (AVX2), chosen at run time, or 2 lanes (SSE2); 1.21 ns
 * (8 lanes) and 1.84 ns (4 lanes) against libm's 5.06 ns per exp on the
 * machine of docs/performance.md. */
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

typedef double af_v8d __attribute__((vector_size(64)));
typedef uint64_t af_v8u __attribute__((vector_size(64)));

/* And on 8 lanes (AVX-512F, again without FMA): the same bits. */
__attribute__((target("avx512f"))) static void
exp_block_v8(double *restrict y, const double *restrict x, size_t len)
{
  EXP_BLOCK_BODY(af_v8d, af_v8u, 8)
}
#endif

/* Which one runs: detected by af_work_alloc (and af_exp_block); until
 * then the 2-lane version runs.  Threads of a sweep allocate their work
 * concurrently and all store the same value: relaxed atomic accesses make
 * that well defined (and cost a plain load on x86-64).
 *
 * The default is the widest the CPU runs.  8 lanes pay on the AVX-512
 * machine of docs/performance.md (OpenBLAS core Cooperlake): 1.21 ns per
 * exp in blocks of 256 against 1.67 ns with 4 lanes and 3.0 ns with 2,
 * af_rhs at n = 256, d = 64 391 us against 406 us, and at n = 32, d = 3
 * 2.9 us against 3.1 us (CPU time, one thread). */
#ifndef AF_EXP_ISA_DEFAULT_MAX
#define AF_EXP_ISA_DEFAULT_MAX 2
#endif
static int exp_isa = -1;     /* -1 unknown, 0 SSE2, 1 AVX2, 2 AVX-512F */
static int exp_isa_cpu = -1; /* the widest the CPU runs, same values  */

static int exp_isa_supported(void)
{
  int cpu = __atomic_load_n(&exp_isa_cpu, __ATOMIC_RELAXED);
  if (cpu >= 0)
    return cpu;
#ifdef AF_EXP_AVX2
  __builtin_cpu_init();
  cpu = __builtin_cpu_supports("avx512f") ? 2
        : __builtin_cpu_supports("avx2")  ? 1
                                           : 0;
#else
  cpu = 0;
#endif
  __atomic_store_n(&exp_isa_cpu, cpu, __ATOMIC_RELAXED);
  return cpu;
}

/* force = 0, 1, 2 selects 2, 4, 8 lanes; a width the CPU (or the build)
 * lacks falls back to the widest one it has, so forcing never faults. */
int af_exp_block_isa(int force)
{
  int cpu = exp_isa_supported();
  int isa = force;
  if (isa < 0)
    isa = __atomic_load_n(&exp_isa, __ATOMIC_RELAXED);
  if (isa < 0)
    isa = AF_EXP_ISA_DEFAULT_MAX;
  if (isa > 2)
    isa = 2;
  if (isa > cpu)
    isa = cpu;
  __atomic_store_n(&exp_isa, isa, __ATOMIC_RELAXED);
  return isa;
}

static void exp_block(double *restrict y, const double *restrict x,
                      size_t len)
{
#ifdef AF_EXP_AVX2
  switch (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED)) {
  case 2:
    exp_block_v8(y, x, len);
    return;
  case 1:
    exp_block_v4(y, x, len);
    return;
  default:
    break;
  }
#endif
  exp_block_v2(y, x, len);
}

/* Row-wise square roots and divisions, vectorized across rows: the O(n d)
 * passes need one sqrt or one division per row or per element, a
 * throughput of one per 4 to 6 cycles each in a scalar loop, a large part
 * of those passes at small d.  Each lane does the one IEEE operation
 * (correctly rounded), so every width gives the bits of the scalar loop. */
#define VEC_ROWS_BODY(VD, L, SQRTV)                                          \
  size_t i = 0;                                                              \
  for (; i + L <= len; i += L) {                                             \
    VD u, v;                                                                 \
    memcpy(&v, b + i, sizeof v);                                             \
    if (sq)                                                                  \
      u = SQRTV(v);                                                          \
    else if (a == NULL)                                                      \
      u = 1.0 / v;                                                           \
    else {                                                                   \
      memcpy(&u, a + i, sizeof u);                                           \
      u = u / v;                                                             \
    }                                                                        \
    memcpy(y + i, &u, sizeof u);                                             \
  }                                                                          \
  for (; i < len; i++)                                                       \
    y[i] = sq ? sqrt(b[i]) : (a == NULL ? 1.0 : a[i]) / b[i];

#ifdef AF_EXP_AVX2
#include <immintrin.h>
#define SQRT_V2(v) ((af_v2d) _mm_sqrt_pd((__m128d) (v)))
#define SQRT_V4(v) ((af_v4d) _mm256_sqrt_pd((__m256d) (v)))
#define SQRT_V8(v) ((af_v8d) _mm512_sqrt_pd((__m512d) (v)))

static void vec_rows_v2(double *restrict y, const double *restrict a,
                        const double *restrict b, size_t len, int sq)
{
  VEC_ROWS_BODY(af_v2d, 2, SQRT_V2)
}

__attribute__((target("avx2"))) static void
vec_rows_v4(double *restrict y, const double *restrict a,
            const double *restrict b, size_t len, int sq)
{
  VEC_ROWS_BODY(af_v4d, 4, SQRT_V4)
}

__attribute__((target("avx512f"))) static void
vec_rows_v8(double *restrict y, const double *restrict a,
            const double *restrict b, size_t len, int sq)
{
  VEC_ROWS_BODY(af_v8d, 8, SQRT_V8)
}
#endif

/* y = sqrt(b) if sq, else a / b (1 / b when a is NULL), element-wise; y
 * must not overlap a or b. */
static void vec_rows(double *restrict y, const double *restrict a,
                     const double *restrict b, size_t len, int sq)
{
#ifdef AF_EXP_AVX2
  switch (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED)) {
  case 2:
    vec_rows_v8(y, a, b, len, sq);
    return;
  case 1:
    vec_rows_v4(y, a, b, len, sq);
    return;
  default:
    vec_rows_v2(y, a, b, len, sq);
    return;
  }
#else
  for (size_t i = 0; i < len; i++)
    y[i] = sq ? sqrt(b[i]) : (a == NULL ? 1.0 : a[i]) / b[i];
#endif
}

/* A sum of squares s is used as is (its root is the norm) when it lies
 * safely inside the normal range; otherwise norm2 rescales (see norm2). */
static int sumsq_safe(double s)
{
  return isfinite(s) && s >= DBL_MIN / DBL_EPSILON;
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

#define AF_T_PAD 8 /* the widest vector of small_weights, in doubles */

af_work *af_work_alloc(size_t n, size_t d)
{
  if (n < 1 || d < 1)
    return NULL;
  /* Every size below, checked: the largest are n (d + 2) + pad and
   * n n + pad doubles; a size that overflows size_t is no allocation. */
  size_t nd, nn, nd2, dd, big;
  if (!af_size_mul(&nd, n, d) || !af_size_mul(&nn, n, n)
      || !af_size_mul(&nd2, n, d + 2) || d + 2 < d
      || !af_size_mul(&dd, d, d) || !af_size_add(&big, nd2, nn)
      || !af_size_add(&big, big, AF_T_PAD + n)
      || !af_size_mul(&big, big, sizeof(double)))
    return NULL;
  af_work *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  af_exp_block_isa(-1);
  omp_inrun_init();
  w->n = n;
  w->d = d;
  w->kernel = AF_KERNEL_BLAS;
  w->th = malloc(nd * sizeof(double));
  /* T: n x d, and d x n plus the padding that small_weights reads past
   * its last row (zeros, never written). */
  w->T = calloc(nd + AF_T_PAD, sizeof(double));
  w->G = malloc(nd * sizeof(double));
  w->S = malloc((nn + AF_T_PAD) * sizeof(double)); /* see T */
  w->A = malloc(nd * sizeof(double));
  w->P = malloc(nd * sizeof(double));
  w->c = malloc(n * sizeof(double));
  w->a = malloc(n * sizeof(double));
  w->Z = malloc(n * sizeof(double));
  w->amag = malloc(n * sizeof(double));
  w->gn = malloc(n * sizeof(double));
  w->ytmp = malloc((nd + n) * sizeof(double));
  w->dtmp = malloc(dd * sizeof(double));
  w->xn = malloc(n * sizeof(double));
  w->Gx = malloc(nd2 * sizeof(double));
  w->Ax = malloc(nd2 * sizeof(double));
  if (!w->th || !w->T || !w->G || !w->S || !w->A || !w->P || !w->c || !w->a
      || !w->Z || !w->amag || !w->gn || !w->ytmp || !w->dtmp || !w->xn
      || !w->Gx || !w->Ax) {
    af_work_free(w);
    return NULL;
  }
  w->direct = af_work_bind_generic_d(w);
  if (w->direct == NULL) {
    af_work_free(w);
    return NULL;
  }
  return w;
}

void af_work_free(af_work *w)
{
  if (w == NULL)
    return;
  af_work_free_generic_d(w->direct);
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

size_t af_state_size(size_t n, size_t d)
{
  size_t r;
  if (!af_size_mul(&r, n, d + 1) || d + 1 == 0)
    return 0;
  return r;
}

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

/* xn_j = norm2(x_j) and th_j = x_j / xn_j, the same bits as those calls
 * row by row: the sums of squares row by row (dot's order), then the roots
 * and the divisions across rows and elements (vec_rows), rows whose sum
 * leaves the safe range redone by norm2.  Scratch: ytmp (sums) and T (the
 * norm repeated per element), rows j0..j1 only. */
static inline __attribute__((always_inline)) void
directions_rows_d(void *vc, size_t j0, size_t j1, size_t d)
{
  dir_ctx *c = vc;
  af_work *w = c->w;
  size_t m = j1 - j0;
  const double *restrict y = c->y;
  double *restrict ss = w->ytmp + j0, *restrict xn = w->xn + j0;
  double *restrict rep = w->T + j0 * d;
  int unsafe = 0;
  for (size_t j = 0; j < m; j++) {
    ss[j] = dot(y + (j0 + j) * d, y + (j0 + j) * d, d);
    unsafe |= !sumsq_safe(ss[j]);
  }
  vec_rows(xn, NULL, ss, m, 1);
  if (unsafe)
    for (size_t j = 0; j < m; j++)
      if (!sumsq_safe(ss[j]))
        xn[j] = norm2(y + (j0 + j) * d, d);
  /* Rows with a zero or non-finite norm get meaningless directions here;
   * af_work_directions rejects them.  At small d the divisions run across
   * rows over the norm repeated per element; at larger d a row is long
   * enough for its own vector loop, and the copy would only add memory
   * traffic. */
  if (d < 8) {
    for (size_t j = 0; j < m; j++)
      for (size_t i = 0; i < d; i++)
        rep[j * d + i] = xn[j];
    vec_rows(w->th + j0 * d, y + j0 * d, rep, m * d, 0);
  } else
    for (size_t j = j0; j < j1; j++) {
      const double *restrict x = y + j * d;
      double *restrict th = w->th + j * d, s = w->xn[j];
#pragma omp simd
      for (size_t i = 0; i < d; i++)
        th[i] = x[i] / s;
    }
}

/* directions_rows for rows j0..j1, its loops over the coordinates unrolled
 * for the small d where the per-row overhead dominates (the same
 * operations). */
static void directions_rows(void *vc, size_t j0, size_t j1)
{
  AF_CALL_SMALL_D(((dir_ctx *) vc)->w->d, directions_rows_d, vc, j0, j1);
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

/* af_work_directions for af_rhs's small path with V = I (attention_fill):
 * the norms as there, and the directions only transposed, straight into T
 * (d x n) for small_weights: th_ji = x_ji / |x_j|, the same division,
 * across rows (vec_rows) without the per-element copy of the norm.
 * w->th is left alone.  Scratch: ytmp (sums), G (x transposed). */
static inline __attribute__((always_inline)) int
small_directions_d(af_work *w, const double *y, size_t d)
{
  size_t n = w->n;
  double *restrict ss = w->ytmp, *restrict xn = w->xn, *restrict yT = w->G;
  int unsafe = 0;
  for (size_t j = 0; j < n; j++) {
    ss[j] = dot(y + j * d, y + j * d, d);
    unsafe |= !sumsq_safe(ss[j]);
  }
  vec_rows(xn, NULL, ss, n, 1);
  if (unsafe)
    for (size_t j = 0; j < n; j++)
      if (!sumsq_safe(ss[j]))
        xn[j] = norm2(y + j * d, d);
  for (size_t j = 0; j < n; j++) {
    if (!isfinite(xn[j]) || !isfinite(y[n * d + j]))
      return AF_ENONFINITE;
    if (xn[j] == 0)
      return AF_EZERONORM;
  }
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < n; j++)
      yT[i * n + j] = y[j * d + i];
  for (size_t i = 0; i < d; i++)
    vec_rows(w->T + i * n, yT + i * n, xn, n, 0);
  return AF_OK;
}

static int small_directions(af_work *w, const double *y)
{
  switch (w->d) {
  case 2:
    return small_directions_d(w, y, 2);
  case 3:
    return small_directions_d(w, y, 3);
  default:
    return small_directions_d(w, y, w->d);
  }
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

/* ------------------------------------------------------------ small sizes */

/* At small sizes one evaluation of the BLAS kernel is dominated by the
 * fixed costs of the BLAS calls (argument checks, packing into panels,
 * clearing the output), not by arithmetic: at n = 32, d = 3 an af_rhs
 * took 3.5 us, most of it in dsyrk and dsymm (their packing, memset and
 * memmove) and a quarter in the exponentials.  Below AF_SMALL_NND_MAX
 * (n^2 d) the kernel forms the same quantities with plain loops in a
 * fixed order instead (small_weights, small_product); see
 * attention_blas_ident for the threshold's measurement. */
#ifndef AF_SMALL_NND_MAX
#define AF_SMALL_NND_MAX 16384
#endif

static int small_size(size_t n, size_t d)
{
  return n <= EXP_BLOCK && n * n * d <= AF_SMALL_NND_MAX;
}

/* mirror_v2/v4/v8: the mirror of the lower triangle of S (diagonal
 * included) into the upper one: S_kj = S_jk for k < j, or under the causal
 * mask S_kj = S_jk and then S_jk = 0 (S holds E^T).  Element by element
 * this is one strided store per pair, the store port's limit; by L x L
 * tiles transposed in registers (log2 L rounds of two-vector shuffles,
 * GCC's __builtin_shuffle) it is L loads, L log2 L shuffles and L stores
 * per tile.  Copies only: the same bits whatever the width.  Rows past the
 * last whole tile are mirrored element by element. */
static void mirror_scalar(double *S, size_t n, size_t n0, int causal)
{
  for (size_t r = n0; r < n; r++)
    for (size_t k = 0; k < r; k++) {
      S[k * n + r] = S[r * n + k];
      if (causal)
        S[r * n + k] = 0.0;
    }
}

#if defined(AF_EXP_AVX2) && !defined(__clang__)
typedef int64_t af_v2i __attribute__((vector_size(16)));
typedef int64_t af_v4i __attribute__((vector_size(32)));
typedef int64_t af_v8i __attribute__((vector_size(64)));

/* Lane l of the first output of the round of width w: lanes with bit w
 * set take the second input's lane l - w; of the second output: lanes
 * without bit w take the first input's lane l + w. */
#define TR_LO(l, w, L) (((l) & (w)) ? (L) + (l) - (w) : (l))
#define TR_HI(l, w, L) (((l) & (w)) ? (L) + (l) : (l) + (w))
#define TR_ID(l, w, L) (l)
#define TR_IDX2(M, w) {M(0, w, 2), M(1, w, 2)}
#define TR_IDX4(M, w) {M(0, w, 4), M(1, w, 4), M(2, w, 4), M(3, w, 4)}
#define TR_IDX8(M, w)                                                        \
  {M(0, w, 8), M(1, w, 8), M(2, w, 8), M(3, w, 8),                           \
   M(4, w, 8), M(5, w, 8), M(6, w, 8), M(7, w, 8)}
#define TR_ROUND(VI, L, IDX, w)                                              \
  _Pragma("GCC unroll 8") for (int a = 0; a < L; a++)                        \
    if (!(a & (w))) {                                                        \
      __typeof__(rr[0]) p = rr[a], q = rr[a + (w)];                          \
      rr[a] = __builtin_shuffle(p, q, (VI) IDX(TR_LO, w));                   \
      rr[a + (w)] = __builtin_shuffle(p, q, (VI) IDX(TR_HI, w));             \
    }
#define TR_2(VI) TR_ROUND(VI, 2, TR_IDX2, 1)
#define TR_4(VI) TR_ROUND(VI, 4, TR_IDX4, 1) TR_ROUND(VI, 4, TR_IDX4, 2)
#define TR_8(VI)                                                             \
  TR_ROUND(VI, 8, TR_IDX8, 1) TR_ROUND(VI, 8, TR_IDX8, 2)                    \
  TR_ROUND(VI, 8, TR_IDX8, 4)

#define MIRROR_BODY(VD, VI, L, IDX, TRANSPOSE)                               \
  size_t nb = n / L * L;                                                     \
  const VI lane = IDX(TR_ID, 0);                                             \
  for (size_t I = 0; I < nb; I += L)                                         \
    for (size_t K = 0; K <= I; K += L) {                                     \
      VD rr[L], orig[L];                                                     \
      _Pragma("GCC unroll 8") for (int q = 0; q < L; q++)                  \
        memcpy(&rr[q], S + (I + (size_t) q) * n + K, sizeof rr[q]);          \
      memcpy(orig, rr, sizeof orig);                                         \
      TRANSPOSE(VI) /* rr[q]: column K + q of the tile */                    \
      if (K < I) {                                                           \
        _Pragma("GCC unroll 8") for (int q = 0; q < L; q++) {              \
          memcpy(S + (K + (size_t) q) * n + I, &rr[q], sizeof rr[q]);        \
          if (causal)                                                        \
            memset(S + (I + (size_t) q) * n + K, 0, sizeof rr[q]);           \
        }                                                                    \
      } else                                                                 \
        /* row I + q: above the diagonal from the transpose, the rest     \
         * kept (causal: only the diagonal) */                              \
        _Pragma("GCC unroll 8") for (int q = 0; q < L; q++) {                \
          VI up = lane > q, keep = causal ? lane == q : ~up;                 \
          VI v = ((VI) rr[q] & up) | ((VI) orig[q] & keep);                  \
          memcpy(S + (I + (size_t) q) * n + K, &v, sizeof v);                \
        }                                                                    \
    }                                                                        \
  mirror_scalar(S, n, nb, causal);

static void mirror_v2(double *S, size_t n, int causal)
{
  MIRROR_BODY(af_v2d, af_v2i, 2, TR_IDX2, TR_2)
}

__attribute__((target("avx2"))) static void mirror_v4(double *S, size_t n,
                                                      int causal)
{
  MIRROR_BODY(af_v4d, af_v4i, 4, TR_IDX4, TR_4)
}

__attribute__((target("avx512f"))) static void
mirror_v8(double *S, size_t n, int causal)
{
  MIRROR_BODY(af_v8d, af_v8i, 8, TR_IDX8, TR_8)
}
#else
#define mirror_v2(S, n, causal) mirror_scalar(S, n, 0, causal)
#define mirror_v4(S, n, causal) mirror_scalar(S, n, 0, causal)
#define mirror_v8(S, n, causal) mirror_scalar(S, n, 0, causal)
#endif

/* E_jk = exp(beta (<th_j, th_k> - 1)) for k <= j, as the full matrix:
 * S_jk = S_kj = E_jk, or under the causal mask S_kj = E_jk (k <= j) and
 * S_jk = 0 (k < j), i.e. S holds E^T, so that row k of S is what column k
 * of E contributes to every output row.  The dot products run over i in
 * order (thT is th transposed, vectorized over k); exponents of whole
 * rows are gathered into blocks of up to SMALL_XB for exp_block, as in
 * weights_rows (larger blocks than there: fewer calls and partial vectors;
 * n = 32 is one block of 528).  Needs n <= SMALL_XB. */
#define SMALL_XB 1024
#define SMALL_WEIGHTS_BODY(EXPF, VD, L, MIRRORF)                             \
  size_t n = w->n;                                                           \
  double *S = w->S, *thT = w->T; /* T: scratch, d x n here */                \
  if (!tt) /* else small_directions wrote it */                              \
    for (size_t i = 0; i < d; i++)                                           \
      for (size_t k = 0; k < n; k++)                                         \
        thT[i * n + k] = w->th[k * d + i];                                   \
  double xb[SMALL_XB + AF_T_PAD], yb[SMALL_XB + AF_T_PAD];                   \
  size_t fill = 0, r0 = 0; /* xb holds the rows r0, r0 + 1, ... */           \
  for (size_t j = 0;; j++) {                                                 \
    if (j == n || fill + j + 1 > SMALL_XB) {                                 \
      EXPF(yb, xb, fill);                                                    \
      const double *er = yb;                                                 \
      for (size_t r = r0; r < j; r++) {                                      \
        double *restrict Sr = S + r * n;                                     \
        /* Whole vectors (no library call per row): the lanes past k = r    \
         * land above the diagonal, which the mirror below writes over     \
         * (or in S's padding, at the last row). */                        \
        for (size_t k = 0; k <= r; k += L)                                   \
          memcpy(Sr + k, er + k, sizeof(VD));                                \
        er += r + 1;                                                         \
      }                                                                      \
      fill = 0;                                                              \
      r0 = j;                                                                \
      if (j == n)                                                            \
        break;                                                               \
    }                                                                        \
    double *restrict x = xb + fill;                                          \
    size_t k = 0;                                                            \
    /* Whole vectors up to the end of the row: the lanes past k = j read    \
     * the next row of thT (or T's padding) and land in xb past this row,   \
     * where the next row or nothing is written. */                        \
    for (; k <= j; k += L) {                                                 \
      VD t, s;                                                               \
      memcpy(&t, thT + k, sizeof t);                                         \
      s = thT[j] * t; /* th_j0 th_k0 */                                      \
      for (size_t i = 1; i < d; i++) {                                       \
        memcpy(&t, thT + i * n + k, sizeof t);                               \
        s += thT[i * n + j] * t;                                             \
      }                                                                      \
      s = beta * (s - 1.0);                                                  \
      memcpy(x + k, &s, sizeof s);                                           \
    }                                                                        \
    fill += j + 1;                                                           \
  }                                                                          \
  MIRRORF(S, n, causal);

static inline __attribute__((always_inline)) void
small_weights_v2_d(af_work *w, double beta, int causal, int tt, size_t d)
{
  SMALL_WEIGHTS_BODY(exp_block_v2, af_v2d, 2, mirror_v2)
}

/* d known to the compiler for the small d where the loop over the
 * coordinates is most of the work of a score (the same operations). */
static void
small_weights_v2(af_work *w, double beta, int causal, int tt)
{
  AF_CALL_SMALL_D(w->d, small_weights_v2_d, w, beta, causal, tt);
}

#ifdef AF_EXP_AVX2
__attribute__((target("avx2"), always_inline)) static inline void
small_weights_v4_d(af_work *w, double beta, int causal, int tt, size_t d)
{
  SMALL_WEIGHTS_BODY(exp_block_v4, af_v4d, 4, mirror_v4)
}

/* d known to the compiler for the small d where the loop over the
 * coordinates is most of the work of a score (the same operations). */
__attribute__((target("avx2"))) static void
small_weights_v4(af_work *w, double beta, int causal, int tt)
{
  AF_CALL_SMALL_D(w->d, small_weights_v4_d, w, beta, causal, tt);
}

__attribute__((target("avx512f"), always_inline)) static inline void
small_weights_v8_d(af_work *w, double beta, int causal, int tt, size_t d)
{
  SMALL_WEIGHTS_BODY(exp_block_v8, af_v8d, 8, mirror_v8)
}

/* d known to the compiler for the small d where the loop over the
 * coordinates is most of the work of a score (the same operations). */
__attribute__((target("avx512f"))) static void
small_weights_v8(af_work *w, double beta, int causal, int tt)
{
  AF_CALL_SMALL_D(w->d, small_weights_v8_d, w, beta, causal, tt);
}
#endif

/* tt: th transposed is in T already (small_directions). */
static void small_weights(af_work *w, double beta, int causal, int tt)
{
#ifdef AF_EXP_AVX2
  switch (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED)) {
  case 2:
    small_weights_v8(w, beta, causal, tt);
    return;
  case 1:
    small_weights_v4(w, beta, causal, tt);
    return;
  default:
    break;
  }
#endif
  small_weights_v2(w, beta, causal, tt);
}

/* Ax = E Gx from the S of small_weights: Ax_jc = sum_k S_kj Gx_kc, summed
 * over k in increasing order from 0 (the same IEEE operations per output
 * for every vector width, so the 2-, 4- and 8-lane versions agree bit for
 * bit; under the causal mask the rows k > j add exact zeros or are
 * skipped).  Tiles of W vectors of L outputs j times NC columns stay in
 * registers over the whole sum.  Ax is stored transposed here (e x n,
 * Ax_jc at Ax[c n + j]): the tiles store whole vectors, and small_finish
 * reads it across rows. */
#define SMALL_TILE(VD, L, W, NC, ONES)                                       \
  {                                                                          \
    VD acc[W][NC];                                                           \
    _Pragma("GCC unroll 8") for (int v = 0; v < W; v++)                      \
      _Pragma("GCC unroll 4") for (int q = 0; q < NC; q++)                   \
        acc[v][q] = (VD){0};                                                 \
    size_t kend = causal && jb + W * L < n ? jb + W * L : n;                 \
    for (size_t k = 0; k < kend; k++) {                                      \
      const double *sk = S + k * n + jb, *gk = Gx + k * e + c0;              \
      VD s[W];                                                               \
      _Pragma("GCC unroll 8") for (int v = 0; v < W; v++)                    \
        memcpy(&s[v], sk + v * L, sizeof s[v]);                              \
      _Pragma("GCC unroll 4") for (int q = 0; q < NC; q++) {                 \
        VD g = gk[q] - (VD){0}; /* broadcast; keeps the sign of zero */      \
        _Pragma("GCC unroll 8") for (int v = 0; v < W; v++)                  \
          if (ONES && q == NC - 1) /* Gx_kq = 1: s * 1 is s exactly */       \
            acc[v][q] += s[v];                                               \
          else                                                               \
            acc[v][q] += s[v] * g;                                           \
      }                                                                      \
    }                                                                        \
    _Pragma("GCC unroll 8") for (int v = 0; v < W; v++)                      \
      _Pragma("GCC unroll 4") for (int q = 0; q < NC; q++)                   \
        memcpy(Ax + (c0 + (size_t) q) * n + jb + (size_t) (v * L),           \
               &acc[v][q], sizeof acc[v][q]);                                \
  }

#define SMALL_NC(VD, L, W, NC)                                               \
  if (ones && c0 + NC == e)                                                  \
    SMALL_TILE(VD, L, W, NC, 1)                                              \
  else                                                                       \
    SMALL_TILE(VD, L, W, NC, 0)

#define SMALL_COLS(VD, L, W)                                                 \
  switch (e - c0 < 4 ? e - c0 : 4) {                                         \
  case 4:                                                                    \
    SMALL_NC(VD, L, W, 4) break;                                             \
  case 3:                                                                    \
    SMALL_NC(VD, L, W, 3) break;                                             \
  case 2:                                                                    \
    SMALL_NC(VD, L, W, 2) break;                                             \
  default:                                                                   \
    SMALL_NC(VD, L, W, 1) break;                                             \
  }

#define SMALL_PRODUCT_BODY(VD, L)                                            \
  for (size_t c0 = 0; c0 < e; c0 += 4) {                                     \
    size_t jb = 0;                                                           \
    for (; jb + 2 * L <= n; jb += 2 * L)                                     \
      SMALL_COLS(VD, L, 2)                                                   \
    for (; jb + L <= n; jb += L)                                             \
      SMALL_COLS(VD, L, 1)                                                   \
    for (size_t j = jb; j < n; j++) { /* the same sums, one lane */          \
      size_t kend = causal ? j + 1 : n;                                      \
      for (size_t c = c0; c < e && c < c0 + 4; c++) {                        \
        double s = 0;                                                        \
        for (size_t k = 0; k < kend; k++)                                    \
          s += S[k * n + j] * Gx[k * e + c];                                 \
        Ax[c * n + j] = s;                                                   \
      }                                                                      \
    }                                                                        \
  }

static void small_product_v2(double *restrict Ax, const double *restrict S,
                             const double *restrict Gx, size_t n, size_t e,
                             int causal, int ones)
{
  SMALL_PRODUCT_BODY(af_v2d, 2)
}

#ifdef AF_EXP_AVX2
__attribute__((target("avx2"))) static void
small_product_v4(double *restrict Ax, const double *restrict S,
                 const double *restrict Gx, size_t n, size_t e, int causal,
                 int ones)
{
  SMALL_PRODUCT_BODY(af_v4d, 4)
}

__attribute__((target("avx512f"))) static void
small_product_v8(double *restrict Ax, const double *restrict S,
                 const double *restrict Gx, size_t n, size_t e, int causal,
                 int ones)
{
  SMALL_PRODUCT_BODY(af_v8d, 8)
}
#endif

/* ones: the last column of Gx is all ones (V = I). */
static void small_product(af_work *w, size_t e, int causal, int ones)
{
  size_t n = w->n;
#ifdef AF_EXP_AVX2
  switch (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED)) {
  case 2:
    small_product_v8(w->Ax, w->S, w->Gx, n, e, causal, ones);
    return;
  case 1:
    small_product_v4(w->Ax, w->S, w->Gx, n, e, causal, ones);
    return;
  default:
    break;
  }
#endif
  small_product_v2(w->Ax, w->S, w->Gx, n, e, causal, ones);
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
typedef struct {
  af_work *w;
  const double *V;
  size_t e;       /* columns of Gx and Ax */
  int usa;
  double usa_z;   /* Z_j under USA */
  int soa;        /* small path for af_rhs: P transposed, A not stored */
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

/* finish_rows for the small path, across rows: L rows per vector, from
 * Ax transposed (small_product) and th transposed (T, from small_weights).
 * Per row the same operations as finish_rows (A = Ax / Z by the
 * reciprocal, c and |A|^2 in dot's order of partial sums, a = sqrt or
 * norm2 outside the safe range, P = A - c th), so the same bits for every
 * width.  A and P are stored row by row, or for af_rhs (c->soa) P alone,
 * transposed (d x n, P_ji at P[i n + j]): af_rhs needs no more. */
#define SMALL_FINISH_BODY(VD, L, SQRTV)                                      \
  size_t n = w->n, zc = d, mc = c->V != NULL ? d + 1 : d;                    \
  size_t d4 = d / 4 * 4;                                                     \
  const double *AxT = w->Ax, *thT = w->T;                                    \
  double *ss = w->ytmp + n;                                                  \
  size_t j = 0;                                                              \
  for (; j + L <= n; j += L) {                                               \
    VD z, sc[4] = {{0}}, sa[4] = {{0}};                                      \
    if (c->usa)                                                              \
      for (int l = 0; l < L; l++)                                            \
        z[l] = c->usa_z;                                                     \
    else                                                                     \
      memcpy(&z, AxT + zc * n + j, sizeof z);                                \
    VD iz = 1.0 / z;                                                         \
    _Pragma("GCC unroll 4") for (size_t i = 0; i < d; i++) {                 \
      VD ax, t;                                                              \
      memcpy(&ax, AxT + i * n + j, sizeof ax);                               \
      memcpy(&t, thT + i * n + j, sizeof t);                                 \
      VD A = ax * iz;                                                        \
      size_t p = i < d4 ? i % 4 : 0;                                         \
      sc[p] += t * A;                                                        \
      sa[p] += A * A;                                                        \
    }                                                                        \
    VD cj = (sc[0] + sc[1]) + (sc[2] + sc[3]);                               \
    VD s2 = (sa[0] + sa[1]) + (sa[2] + sa[3]);                               \
    VD am;                                                                   \
    memcpy(&am, AxT + mc * n + j, sizeof am);                                \
    am = am * iz;                                                            \
    VD an = SQRTV(s2);                                                       \
    memcpy(w->Z + j, &z, sizeof z);                                          \
    memcpy(w->amag + j, &am, sizeof am);                                     \
    memcpy(w->c + j, &cj, sizeof cj);                                        \
    memcpy(w->a + j, &an, sizeof an);                                        \
    memcpy(ss + j, &s2, sizeof s2);                                          \
    _Pragma("GCC unroll 4") for (size_t i = 0; i < d; i++) {                 \
      VD ax, t;                                                              \
      memcpy(&ax, AxT + i * n + j, sizeof ax);                               \
      memcpy(&t, thT + i * n + j, sizeof t);                                 \
      VD A = ax * iz, P = A - cj * t;                                        \
      if (c->soa)                                                            \
        memcpy(w->P + i * n + j, &P, sizeof P);                              \
      else                                                                   \
        for (int l = 0; l < L; l++) {                                        \
          w->A[(j + (size_t) l) * d + i] = A[l];                             \
          w->P[(j + (size_t) l) * d + i] = P[l];                             \
        }                                                                    \
    }                                                                        \
  }                                                                          \
  for (; j < n; j++) { /* the same operations, one row */                    \
    double z = c->usa ? c->usa_z : AxT[zc * n + j];                          \
    double iz = 1.0 / z, sc[4] = {0}, sa[4] = {0};                           \
    for (size_t i = 0; i < d; i++) {                                         \
      double A = AxT[i * n + j] * iz;                                        \
      size_t p = i < d4 ? i % 4 : 0;                                         \
      sc[p] += thT[i * n + j] * A;                                           \
      sa[p] += A * A;                                                        \
    }                                                                        \
    double cj = (sc[0] + sc[1]) + (sc[2] + sc[3]);                           \
    ss[j] = (sa[0] + sa[1]) + (sa[2] + sa[3]);                               \
    w->Z[j] = z;                                                             \
    w->amag[j] = AxT[mc * n + j] * iz;                                       \
    w->c[j] = cj;                                                            \
    w->a[j] = sqrt(ss[j]);                                                   \
    for (size_t i = 0; i < d; i++) {                                         \
      double A = AxT[i * n + j] * iz, P = A - cj * thT[i * n + j];           \
      if (c->soa)                                                            \
        w->P[i * n + j] = P;                                                 \
      else {                                                                 \
        w->A[j * d + i] = A;                                                 \
        w->P[j * d + i] = P;                                                 \
      }                                                                      \
    }                                                                        \
  }                                                                          \
  for (j = 0; j < n; j++)                                                    \
    if (!sumsq_safe(ss[j])) { /* A_j again (G: free here), then norm2 */     \
      double z = c->usa ? c->usa_z : AxT[zc * n + j], iz = 1.0 / z;          \
      double *Aj = w->G + j * d;                                             \
      for (size_t i = 0; i < d; i++)                                         \
        Aj[i] = AxT[i * n + j] * iz;                                         \
      w->a[j] = norm2(Aj, d);                                                \
    }

#define SMALL_FINISH_FN(NAME, TGT, VD, L, SQRTV)                             \
  TGT static inline __attribute__((always_inline)) void NAME##_d(           \
      af_work *w, const ident_ctx *c, size_t d)                              \
  {                                                                          \
    SMALL_FINISH_BODY(VD, L, SQRTV)                                          \
  }                                                                          \
  TGT static void NAME(af_work *w, const ident_ctx *c)                       \
  {                                                                          \
    switch (w->d) {                                                          \
    case 2:                                                                  \
      NAME##_d(w, c, 2);                                                     \
      return;                                                                \
    case 3:                                                                  \
      NAME##_d(w, c, 3);                                                     \
      return;                                                                \
    default:                                                                 \
      NAME##_d(w, c, w->d);                                                  \
      return;                                                                \
    }                                                                        \
  }

#ifdef AF_EXP_AVX2
SMALL_FINISH_FN(small_finish_v2, , af_v2d, 2, SQRT_V2)
SMALL_FINISH_FN(small_finish_v4, __attribute__((target("avx2"))), af_v4d, 4,
                SQRT_V4)
SMALL_FINISH_FN(small_finish_v8, __attribute__((target("avx512f"))), af_v8d,
                8, SQRT_V8)
#else
#define SQRT_LANES2(v) ((af_v2d){sqrt((v)[0]), sqrt((v)[1])})
SMALL_FINISH_FN(small_finish_v2, , af_v2d, 2, SQRT_LANES2)
#endif

static void small_finish(af_work *w, const ident_ctx *c)
{
#ifdef AF_EXP_AVX2
  switch (__atomic_load_n(&exp_isa, __ATOMIC_RELAXED)) {
  case 2:
    small_finish_v8(w, c);
    return;
  case 1:
    small_finish_v4(w, c);
    return;
  default:
    break;
  }
#endif
  small_finish_v2(w, c);
}

/* Gx rows [V th_k | 1 | |V th_k|] at small sizes (value_rows_x, without
 * its memcpy); with V = I from th transposed, which small_weights leaves
 * in T (w->th is not written on af_rhs's path, see attention_fill). */
static inline __attribute__((always_inline)) void
small_values(af_work *w, const double *V, size_t e, size_t d)
{
  size_t n = w->n;
  for (size_t k = 0; k < n; k++) {
    double *g = w->Gx + k * e;
    const double *tk = w->th + k * d;
    for (size_t a = 0; a < d; a++) /* th_k from T (small_weights) */
      g[a] = V != NULL ? dot(V + a * d, tk, d) : w->T[a * n + k];
    g[d] = 1.0;
    if (V != NULL)
      g[d + 1] = sqrt(dot(g, g, d));
  }
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
  if (small_size(n, d)) { /* serial: far below AF_OMP_MIN_* */
    small_weights(w, m->beta, causal, soa != NULL && *soa);
    switch (V == NULL ? d : 0) { /* no library call per row */
    case 2:
      small_values(w, V, e, 2);
      break;
    case 3:
      small_values(w, V, e, 3);
      break;
    default:
      small_values(w, V, e, d);
      break;
    }
    small_product(w, e, causal, V == NULL);
    if (soa != NULL)
      ic.soa = *soa = 1;
    small_finish(w, &ic);
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

static int attention_blas(af_work *w, const af_model *m, const double *Q,
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

/* Fill w->A, w->P, w->c, w->a, w->amag for the directions of y.  With
 * soa != NULL (af_rhs, which reads P alone) the small path may leave A
 * unset and P transposed (d x n), and then sets *soa = 1; else *soa stays
 * 0.  Every other caller passes NULL and gets A and P row by row. */
static int attention_fill(af_work *w, double t, const double *y,
                          const af_model *m, int *soa)
{
  if (soa != NULL)
    *soa = 0;
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  if (m->n != w->n || m->d != w->d)
    return AF_EDIM;
  const double *Q, *K, *V;
  af_weights_at(&Q, &K, &V, m->w, af_work_piece_time(w, t));
  /* af_rhs on the small path with V = I needs th only transposed. */
  if (soa != NULL && w->kernel != AF_KERNEL_DIRECT && Q == NULL && K == NULL
      && V == NULL && small_size(w->n, w->d)) {
    rc = small_directions(w, y);
    *soa = 1;
  } else
    rc = af_work_directions(w, y);
  if (rc != AF_OK)
    return rc;
  af_model faulty;
  if (m->fault & AF_FAULT_ATTENTION) { /* documented in attnflow.h */
    faulty = *m;
    faulty.beta *= 1.05;
    m = &faulty;
  }
  rc = (w->kernel == AF_KERNEL_DIRECT)
           ? af_work_direct_generic_d(w->direct, m, Q, K, V)
           : attention_blas(w, m, Q, K, V, soa);
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
  int rc = attention_fill(w, t, y, m, NULL);
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
  const af_scheme *sc = af_model_scheme(m);
  size_t n = w->n, d = w->d;
  double alpha = af_model_alpha(m, t);
  /* Mix-LN's side of tau comes from the piece being integrated, so that a
   * stage evaluated exactly at tau after the restart is a Pre-LN stage. */
  double tau = m->tau;
  if (w->seg_set)
    tau = (w->seg_lo >= m->tau) ? -INFINITY : INFINITY;
  /* The rates of all rows first (af_scheme_rates_rows), the checks after;
   * the first failing row decides, as row by row. */
  size_t nz = n; /* the first row whose |A_j| vanishes, if it matters */
  if (sc->needs_anorm)
    for (size_t j = 0; j < n; j++)
      if (attention_vanishes(w, j)) {
        nz = j;
        break;
      }
  af_scheme_rates_rows(sc, s, rho, nz, t, y + n * d, w->c, w->a, alpha, tau);
  unsigned fault = m->fault;
  double fs = 1.0 + 0.05 * t;
  for (size_t j = 0; j < nz; j++) {
    double sj = s[j], rj = rho[j];
    if (fault & AF_FAULT_SPEED)
      sj *= fs;
    if (fault & AF_FAULT_RADIAL)
      rj *= 1.1;
    if (!isfinite(sj) || !isfinite(rj))
      return AF_ENONFINITE;
    if (!(sj > 0))
      return AF_ESPEED;
    s[j] = sj;
    rho[j] = rj;
  }
  return nz < n ? AF_EZEROATTN : AF_OK;
}

int af_speeds(double *s, double *rho, double t, const double *y,
              const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m, NULL);
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

/* isv[j] = 1 / s[j] for rows j0..j1, across rows; s_j = 1 (Post-LN)
 * needs no division (1 / 1 is 1 exactly). */
static void inv_speeds(double *restrict isv, const double *restrict s,
                       size_t j0, size_t j1)
{
  int ones = 1;
  for (size_t j = j0; j < j1; j++)
    ones &= s[j] == 1.0;
  if (ones)
    for (size_t j = j0; j < j1; j++)
      isv[j] = 1.0;
  else
    vec_rows(isv + j0, NULL, s + j0, j1 - j0, 0);
}

/* Scratch: T (the reciprocals 1 / s_j, taken across rows). */
static inline __attribute__((always_inline)) void
dy_rows_d(void *vc, size_t j0, size_t j1, size_t d)
{
  dy_ctx *c = vc;
  size_t n = c->w->n;
  double *restrict isv = c->w->T;
  inv_speeds(isv, c->s, j0, j1);
  for (size_t j = j0; j < j1; j++) {
    double is = isv[j];
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

/* dy_rows for rows j0..j1, its loops over the coordinates unrolled
 * for the small d where the per-row overhead dominates (the same
 * operations). */
static void dy_rows(void *vc, size_t j0, size_t j1)
{
  AF_CALL_SMALL_D(((dy_ctx *) vc)->w->d, dy_rows_d, vc, j0, j1);
}

int af_rhs(double *dy, double t, const double *y, const af_model *m,
           af_work *w)
{
  if (w == NULL || y == NULL || dy == NULL)
    return AF_EINVAL;
  int soa;
  int rc = attention_fill(w, t, y, m, &soa);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  double *s = w->ytmp, *rho = w->ytmp + n;
  rc = rates_fill(s, rho, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  if (soa) { /* small path: P transposed (attention_fill), serial */
    size_t ones = 0; /* s_j = 1 (Post-LN): P_ji * (1 / 1) is P_ji exactly */
    while (ones < n && s[ones] == 1.0)
      ones++;
    if (ones == n)
      for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < n; j++)
          dy[j * d + i] = w->P[i * n + j] * w->xn[j];
    else {
      double *restrict isv = w->T;
      vec_rows(isv, NULL, s, n, 0);
      for (size_t i = 0; i < d; i++) /* the operations of dy_rows */
        for (size_t j = 0; j < n; j++)
          dy[j * d + i] = w->P[i * n + j] * isv[j] * w->xn[j];
    }
    memcpy(dy + n * d, rho, n * sizeof *dy);
    return AF_OK;
  }
  dy_ctx c = {w, dy, s, rho};
  run_rows(dy_rows, &c, n, n * d >= AF_OMP_MIN_ND);
  return AF_OK;
}

/* ------------------------------------------------------------ layer maps */

/* The layer maps (layer_maps.c) read the work arrays that attention_fill
 * fills row by row, and test |A_j| as the rates do. */
int af_work_attention(af_work *w, double t, const double *y, const af_model *m)
{
  return attention_fill(w, t, y, m, NULL);
}

int af_work_attention_vanishes(const af_work *w, size_t j)
{
  return attention_vanishes(w, j);
}
