/* attention_impl.h -- what the files of the double attention kernel share
 * (private to the library, not installed).
 *
 *   attention.c        the work space, directions, threads, the dispatch
 *                      between the kernels and the field S0 (af_attention,
 *                      af_speeds, af_rhs);
 *   attention_exp.c    exp and the row-wise roots and divisions on vectors,
 *                      the width chosen at run time;
 *   attention_blas.c   the BLAS kernel (level-3 products);
 *   attention_small.c  its loop path at small sizes;
 *   attention_tiled.c  the tiled kernel (online softmax, O(n d) memory);
 *   attention_heads.c  several heads: one kernel run per head, summed.
 *
 * The direct kernel is the double instance of mp_kernel_source.c
 * (mp_kernel_double.c).  The functions shared between these files keep
 * the short names they had as static functions of one file; each is
 * mapped to an af_attn_ name here, as dot is to af_dot. */
#ifndef AF_ATTENTION_IMPL_H
#define AF_ATTENTION_IMPL_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mp_kernel.h"

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

/* dot(x, y, d): af_dot (internal.h), shared with the template's double
 * instance that computes AF_KERNEL_DIRECT. */
#define dot af_dot

/* Euclidean norm without spurious overflow or underflow (attention.c). */
#define norm2 af_attn_norm2
double norm2(const double *x, size_t d);

/* A sum of squares s is used as is (its root is the norm) when it lies
 * safely inside the normal range; otherwise norm2 rescales (see norm2). */
static inline int sumsq_safe(double s)
{
  return isfinite(s) && s >= DBL_MIN / DBL_EPSILON;
}

/* ------------------------------------------------------------ vectors */

/* Vectors of 2, 4 and 8 doubles (GCC/Clang vector extension); 4 and 8
 * lanes with the AVX2 and AVX-512F code compiled for x86-64. */
typedef double af_v2d __attribute__((vector_size(16)));
typedef uint64_t af_v2u __attribute__((vector_size(16)));

#if defined(__x86_64__) && defined(__GNUC__)
#define AF_EXP_AVX2 1
typedef double af_v4d __attribute__((vector_size(32)));
typedef uint64_t af_v4u __attribute__((vector_size(32)));
typedef double af_v8d __attribute__((vector_size(64)));
typedef uint64_t af_v8u __attribute__((vector_size(64)));
#endif

#ifdef AF_EXP_AVX2
#include <immintrin.h>
#define SQRT_V2(v) ((af_v2d) _mm_sqrt_pd((__m128d) (v)))
#define SQRT_V4(v) ((af_v4d) _mm256_sqrt_pd((__m256d) (v)))
#define SQRT_V8(v) ((af_v8d) _mm512_sqrt_pd((__m512d) (v)))
#endif

/* The width in use: -1 unknown, 0 SSE2, 1 AVX2, 2 AVX-512F (attention_exp.c,
 * af_exp_block_isa); read with relaxed atomic loads. */
#define exp_isa af_attn_exp_isa
extern int exp_isa;

/* Exponentials in blocks of at most EXP_BLOCK (the rows of weights_rows,
 * the bound of small_size). */
#define EXP_BLOCK 256

/* exp(x[i]) into y[i], x and y not overlapping: exp_block at the width in
 * use, or at a given one (attention_exp.c). */
#define exp_block af_attn_exp_block
#define exp_block_v2 af_attn_exp_block_v2
#define exp_block_v4 af_attn_exp_block_v4
#define exp_block_v8 af_attn_exp_block_v8
void exp_block(double *restrict y, const double *restrict x, size_t len);
void exp_block_v2(double *restrict y, const double *restrict x, size_t len);
#ifdef AF_EXP_AVX2
__attribute__((target("avx2"))) void
exp_block_v4(double *restrict y, const double *restrict x, size_t len);
__attribute__((target("avx512f"))) void
exp_block_v8(double *restrict y, const double *restrict x, size_t len);
#endif

/* y = sqrt(b) if sq, else a / b (1 / b when a is NULL), element-wise, at
 * the width in use; y must not overlap a or b (attention_exp.c). */
#define vec_rows af_attn_vec_rows
void vec_rows(double *restrict y, const double *restrict a,
              const double *restrict b, size_t len, int sq);

/* ------------------------------------------------------------ threads */

/* Row loops split between threads from these sizes (attention.c). */
#define AF_OMP_MIN_PAIRS 65536 /* n^2: the exp loop from n = 256 */
#define AF_OMP_MIN_ND 65536    /* n d: the O(n d) row loops      */

typedef void (*rows_fn)(void *ctx, size_t j0, size_t j1);

/* f(ctx, j0, j1) over [0, n), in parallel when par and allowed
 * (attention.c). */
#define run_rows af_attn_run_rows
void run_rows(rows_fn f, void *ctx, size_t n, int par);

/* ------------------------------------------------------------ kernels */

#define AF_T_PAD 8 /* the widest vector of small_weights, in doubles */

/* The BLAS kernel with Q = K = I and its small path (attention_blas.c). */
typedef struct {
  af_work *w;
  const double *V;
  size_t e;       /* columns of Gx and Ax */
  int usa;
  double usa_z;   /* Z_j under USA */
  int soa;        /* small path for af_rhs: P transposed, A not stored */
} ident_ctx;

/* Fill w->A, w->P, w->c, w->a, w->amag by the BLAS kernel (and its small
 * path) for the directions in w->th (attention_blas.c); soa as for
 * attention_fill (attention.c). */
#define attention_blas af_attn_blas
int attention_blas(af_work *w, const af_model *m, const double *Q,
                   const double *K, const double *V, int *soa);

/* Whether (n, d) takes the small path (attention_small.c). */
#define small_size af_attn_small_size
int small_size(size_t n, size_t d);
/* Directions of y transposed into w->T for the small path with V = I
 * (attention_small.c). */
#define small_directions af_attn_small_directions
int small_directions(af_work *w, const double *y);
/* The small path of the BLAS kernel with Q = K = I (attention_small.c). */
#define small_ident af_attn_small_ident
void small_ident(af_work *w, const af_model *m, ident_ctx *ic, int *soa);

/* ------------------------------------------------------------ tiled */

/* Whether the row loops may use threads (OMP_NUM_THREADS set; attention.c). */
#define omp_allowed af_attn_omp_allowed
int omp_allowed(void);

/* Default tile sizes of the tiled kernel: rows of a block (a multiple of
 * 4), keys of a tile (a multiple of 8). */
#define AF_TILE_ROWS 256
#define AF_TILE_KEYS 128

/* Fill w->A, w->P, w->c, w->a, w->amag, w->Z by the tiled kernel with an
 * online softmax, no n x n array (attention_tiled.c). */
#define attention_tiled af_attn_tiled
int attention_tiled(af_work *w, const af_model *m, const double *Q,
                    const double *K, const double *V);
/* One head's kernel run: fill w->A, w->P, w->c, w->a, w->amag (row by
 * row) for the directions in w->th and that head's Q, K, V; ctx: what the
 * kernel needs besides (attention.c: the U3 spec, time and radii). */
typedef int (*attention_head_fn)(af_work *w, const af_model *m,
                                 const double *Q, const double *K,
                                 const double *V, void *ctx);
/* The sum of the heads of m->w in force at the piece time tp, each run by
 * kernel (given ctx), into w->A, P, c, a, amag (attention_heads.c). */
#define attention_heads af_attn_heads
int attention_heads(af_work *w, const af_model *m, double tp,
                    attention_head_fn kernel, void *ctx);

/* Doubles of the tiled kernel's scratch for (n, d), tiles of rows x keys
 * and nslots threads; 0 if that overflows size_t (attention_tiled.c). */
#define tiled_doubles af_attn_tiled_doubles
size_t tiled_doubles(size_t n, size_t d, size_t rows, size_t keys,
                     size_t nslots);

#endif /* AF_ATTENTION_IMPL_H */
