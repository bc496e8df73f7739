/* attention_exp.c -- exp and the row-wise square roots and divisions of
 * the attention kernels on vectors of 2, 4 or 8 doubles, the width chosen
 * at run time (attention_impl.h); the same bits at every width. */
#include "attention_impl.h"

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

void exp_block_v2(double *restrict y, const double *restrict x,
                  size_t len)
{
  EXP_BLOCK_BODY(af_v2d, af_v2u, 2)
}

#ifdef AF_EXP_AVX2
/* The same operations on 4 lanes; AVX2 without FMA (contraction is off),
 * so the results are those of exp_block_v2, bit for bit. */
__attribute__((target("avx2"))) void
exp_block_v4(double *restrict y, const double *restrict x, size_t len)
{
  EXP_BLOCK_BODY(af_v4d, af_v4u, 4)
}

/* And on 8 lanes (AVX-512F, again without FMA): the same bits. */
__attribute__((target("avx512f"))) void
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
int exp_isa = -1;            /* -1 unknown, 0 SSE2, 1 AVX2, 2 AVX-512F */
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

void exp_block(double *restrict y, const double *restrict x,
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
void vec_rows(double *restrict y, const double *restrict a,
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
