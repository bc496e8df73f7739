/* attention_small.c -- the BLAS kernel's loop path at small sizes
 * (n^2 d <= AF_SMALL_NND_MAX, n <= EXP_BLOCK): the same quantities as the
 * level-3 products of attention_blas.c in plain loops of a fixed order, on
 * vectors (see attention_blas.c for the method and its measurements). */
#include "attention_impl.h"

/* ------------------------------------------------------------ small sizes */

/* At small sizes one evaluation of the BLAS kernel is dominated by the
 * fixed costs of the BLAS calls (argument checks, packing into panels,
 * clearing the output), not by arithmetic: at n = 32, d = 3 an af_rhs
 * took 3.5 us, most of it in dsyrk and dsymm (their packing, memset and
 * memmove) and a quarter in the exponentials.  Below AF_SMALL_NND_MAX
 * (n^2 d) the kernel forms the same quantities with plain loops in a
 * fixed order instead (small_weights, small_product); see
 * attention_blas_ident (attention_blas.c) for the threshold's measurement. */
#ifndef AF_SMALL_NND_MAX
#define AF_SMALL_NND_MAX 16384
#endif

int small_size(size_t n, size_t d)
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

/* NAME_d and NAME: small_weights on vectors VD of L lanes for the target
 * TGT, NAME with d known to the compiler for the small d where the loop
 * over the coordinates is most of the work of a score (the same
 * operations). */
#define SMALL_WEIGHTS_FN(NAME, TGT, EXPF, VD, L, MIRRORF)                     \
  TGT __attribute__((always_inline)) static inline void NAME##_d(            \
      af_work *w, double beta, int causal, int tt, size_t d)                 \
  {                                                                          \
    SMALL_WEIGHTS_BODY(EXPF, VD, L, MIRRORF)                                 \
  }                                                                          \
  TGT static void NAME(af_work *w, double beta, int causal, int tt)          \
  {                                                                          \
    AF_CALL_SMALL_D(w->d, NAME##_d, w, beta, causal, tt);                    \
  }

SMALL_WEIGHTS_FN(small_weights_v2, , exp_block_v2, af_v2d, 2, mirror_v2)
#ifdef AF_EXP_AVX2
SMALL_WEIGHTS_FN(small_weights_v4, __attribute__((target("avx2"))),
                 exp_block_v4, af_v4d, 4, mirror_v4)
SMALL_WEIGHTS_FN(small_weights_v8, __attribute__((target("avx512f"))),
                 exp_block_v8, af_v8d, 8, mirror_v8)
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

int small_directions(af_work *w, const double *y)
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

/* The small path of attention_blas_ident: serial, far below AF_OMP_MIN_*. */
void small_ident(af_work *w, const af_model *m, ident_ctx *ic, int *soa)
{
  const double *V = ic->V;
  size_t d = w->d, e = ic->e;
  int causal = m->attn == AF_ATTN_CAUSAL;
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
    ic->soa = *soa = 1;
  small_finish(w, ic);
}
