/* observe_pairs.c -- the pair observables of af_observe (gap_mean,
 * gap_max, cos_mean, cos_min, cos_max, energy, clusters) in O(n d) memory,
 * by tiles of pairs, threaded over blocks of rows.
 *
 * The pair quantities are those of observe.c: g_ij = |th_i - th_j|^2 / 2
 * over i < j (theorems.md N1), their sum, minimum and maximum, the energy
 * sum 1 + 2 sum_{i<j} exp(-beta g_ij) per row, and the clusters: the
 * connected components of the graph with an edge i ~ j when
 * 1 - g_ij > cluster_cos (single linkage).
 *
 * Tiles.  The rows are cut into blocks of OP_R rows, the directions packed
 * once into tiles of OP_C keys stored transposed (d x OP_C each, the
 * layout of the tiled attention kernel).  A block meets the key tiles from
 * the one holding its first row onwards; for a tile it forms
 * s_rk = sum_i (th_r[i] - th_k[i])^2 on register tiles of 4 rows by 8 keys
 * (vectors of 4 doubles, GCC's vector extension, AVX2 where the CPU has
 * it), each lane a recursive sum over i = 0..d-1 with no fused
 * multiply-add: the bits of observe.c's scalar loop, so g_ij, gap_max,
 * the cosines' extremes and the edges of the cluster graph are the same
 * bits as there.  The row's stretch of keys k > r is then reduced: its
 * sum of g (recursive), min and max, and sum of exp(-beta g) by the
 * vector exp of attention_exp.c (at most 1 ulp; libm's in observe.c), so
 * gap_mean and energy agree with observe.c to rounding in another order
 * (theorems.md N.obs), not bit for bit.
 *
 * Determinism.  A block is computed by one thread, in a fixed order, into
 * its own partial sums; the partials are added in the order of the
 * blocks: the same bits for any number of threads.  The clusters are
 * joined in a union-find shared by the threads, linked by compare-and-swap
 * (the larger root below the smaller one; Anderson and Woll, "Wait-free
 * parallel algorithms for the union-find problem", STOC 1991): the
 * components, hence their number, do not depend on the order of the
 * unions.
 *
 * Cost: n (n - 1) / 2 pairs of 3 d flops and one exp each, O(n^2 d)
 * time: intrinsically so for the energy and the mean gap, which sum over
 * every pair.  Memory: the packed keys (n d rounded up to OP_C keys), the
 * forest (n), four partials per block and per thread a tile of OP_R x OP_C
 * values: O(n d), never n x n (af_obs_pairs_doubles). */
#include "attention_impl.h"
#include "tile_v4.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define OP_R 64  /* rows of a block (a multiple of 4) */
#define OP_C 128 /* keys of a tile (a multiple of 8)   */
/* Row stride of a packed tile: an odd number of 64-byte lines, so that
 * the d rows of an 8-key slice, walked by the distance loop, spread over
 * all sets of the L1 cache (at a stride of 16 lines they share 4). */
#define OP_LDK (OP_C + 8)


static inline size_t op_round(size_t a, size_t b)
{
  return (a + b - 1) / b * b;
}

/* Per-thread scratch: the block's rows (OP_R x d), the tile of squared
 * distances (OP_R x OP_C), exponents and exponentials (OP_C each). */
static size_t op_slot_len(size_t d)
{
  return OP_R * d + OP_R * OP_C + 2 * OP_C;
}

size_t af_obs_pairs_doubles(size_t n, size_t d, size_t nslots)
{
  size_t nk = op_round(n, OP_C), nb = (n + OP_R - 1) / OP_R, a, b, r;
  if (nk < n || !af_size_mul(&a, nk / OP_C * OP_LDK, d) || !af_size_mul(&b, op_slot_len(d),
                                                         nslots)
      || !af_size_add(&r, a, b) || !af_size_add(&r, r, n)
      || !af_size_mul(&b, nb, 4) || !af_size_add(&r, r, b))
    return 0;
  return r;
}

/* S[r][k] = sum_i (q_r[i] - kt[i][k])^2 for r < nrow (a multiple of 4),
 * k < nkey (a multiple of 8), recursive from i = 0; q rows of d, kt rows
 * of OP_LDK, S rows of OP_C. */
static inline __attribute__((always_inline)) void
dist_body(double *restrict S, const double *restrict q,
          const double *restrict kt, size_t d, size_t nrow, size_t nkey)
{
  TILE_ROWS_BY_KEYS(S, OP_C, q, kt, OP_LDK, d, nrow, nkey, TILE_ADD_SQDIFF);
}

static void dist_plain(double *restrict S, const double *restrict q,
                       const double *restrict kt, size_t d, size_t nrow,
                       size_t nkey)
{
  dist_body(S, q, kt, d, nrow, nkey);
}

#ifdef AF_EXP_AVX2
__attribute__((target("avx2"))) static void
dist_avx2(double *restrict S, const double *restrict q,
          const double *restrict kt, size_t d, size_t nrow, size_t nkey)
{
  dist_body(S, q, kt, d, nrow, nkey);
}
#endif

/* ------------------------------------------------------------ forest */

static size_t uf_root(size_t *p, size_t i)
{
  for (;;) {
    size_t q = __atomic_load_n(&p[i], __ATOMIC_RELAXED);
    if (q == i)
      return i;
    size_t g = __atomic_load_n(&p[q], __ATOMIC_RELAXED);
    if (g != q) /* halving: i to its grandparent, an ancestor still */
      __atomic_compare_exchange_n(&p[i], &q, g, 0, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED);
    i = g;
  }
}

static void uf_join(size_t *p, size_t a, size_t b)
{
  for (;;) {
    a = uf_root(p, a);
    b = uf_root(p, b);
    if (a == b)
      return;
    if (a < b) {
      size_t t = a;
      a = b;
      b = t;
    }
    size_t expect = a; /* a still a root: link it below b */
    if (__atomic_compare_exchange_n(&p[a], &expect, b, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED))
      return;
  }
}

/* ------------------------------------------------------------ blocks */

typedef struct {
  const double *th, *kt;
  size_t n, d;
  double beta, cluster_cos;
  size_t *parent;
  double *part; /* 4 per block: gsum, gmin, gmax, esum */
  int avx2;
} op_ctx;

static void op_block(const op_ctx *c, double *slot, size_t b)
{
  size_t n = c->n, d = c->d, i0 = b * OP_R;
  size_t nrow = n - i0 < OP_R ? n - i0 : OP_R, nrow4 = op_round(nrow, 4);
  double *q = slot, *S = q + OP_R * d, *x = S + OP_R * OP_C, *e = x + OP_C;
  memcpy(q, c->th + i0 * d, nrow * d * sizeof(double));
  memset(q + nrow * d, 0, (nrow4 - nrow) * d * sizeof(double));
  double gsum = 0, gmin = INFINITY, gmax = 0, esum = (double) nrow;
  for (size_t k0 = i0 / OP_C * OP_C; k0 < n; k0 += OP_C) {
    size_t nk = n - k0 < OP_C ? n - k0 : OP_C;
    const double *ktile = c->kt + k0 / OP_C * OP_LDK * d;
#ifdef AF_EXP_AVX2
    if (c->avx2)
      dist_avx2(S, q, ktile, d, nrow4, op_round(nk, 8));
    else
#endif
      dist_plain(S, q, ktile, d, nrow4, op_round(nk, 8));
    for (size_t r = 0; r < nrow; r++) {
      size_t i = i0 + r, klo = i + 1 > k0 ? i + 1 - k0 : 0;
      if (klo >= nk)
        continue;
      const double *Sr = S + r * OP_C;
      double rs = 0;
      for (size_t k = klo; k < nk; k++) {
        double g = 0.5 * Sr[k];
        rs += g;
        gmin = fmin(gmin, g);
        gmax = fmax(gmax, g);
        x[k - klo] = -c->beta * g;
        if (1.0 - g > c->cluster_cos)
          uf_join(c->parent, i, k0 + k);
      }
      gsum += rs;
      exp_block(e, x, nk - klo);
      double es = 0;
      for (size_t k = 0; k < nk - klo; k++)
        es += e[k];
      esum += 2.0 * es;
    }
  }
  double *p = c->part + 4 * b;
  p[0] = gsum;
  p[1] = gmin;
  p[2] = gmax;
  p[3] = esum;
}

/* Directions th (n x d) into tiles of OP_C keys, transposed (pads 0). */
static void op_pack(double *kt, const double *th, size_t n, size_t d)
{
  for (size_t k = 0; k < n; k++) {
    double *ktile = kt + (k / OP_C) * OP_LDK * d + k % OP_C;
    for (size_t i = 0; i < d; i++)
      ktile[i * OP_LDK] = th[k * d + i];
  }
}

int af_obs_pairs_tiled(af_obs_pairs *out, const double *th, size_t n, size_t d,
                    double beta, double cluster_cos)
{
  size_t nk = op_round(n, OP_C), nb = (n + OP_R - 1) / OP_R, ktl;
  if (n < 1 || d < 1 || nk < n || !af_size_mul(&ktl, nk / OP_C * OP_LDK, d))
    return AF_EINVAL;
  int par = omp_allowed() && nb > 1
            && (double) n * (double) n * (double) d >= AF_OMP_MIN_PAIRS;
  size_t nslots = 1;
#ifdef _OPENMP
  if (par)
    nslots = (size_t) omp_get_max_threads();
#endif
  size_t slen = op_slot_len(d), all;
  if (!af_size_mul(&all, slen, nslots))
    return AF_ENOMEM;
  op_ctx c;
  memset(&c, 0, sizeof c);
  double *kt = calloc(ktl, sizeof(double));
  double *slots = malloc(all * sizeof(double));
  c.parent = malloc(n * sizeof(size_t));
  c.part = malloc(nb * 4 * sizeof(double));
  int rc = AF_OK;
  if (kt == NULL || slots == NULL || c.parent == NULL || c.part == NULL) {
    rc = AF_ENOMEM;
    goto done;
  }
  op_pack(kt, th, n, d);
  for (size_t j = 0; j < n; j++)
    c.parent[j] = j;
  c.th = th;
  c.kt = kt;
  c.n = n;
  c.d = d;
  c.beta = beta;
  c.cluster_cos = cluster_cos;
#ifdef AF_EXP_AVX2
  c.avx2 = __atomic_load_n(&exp_isa, __ATOMIC_RELAXED) >= 1;
#endif
#ifdef _OPENMP
  if (par) {
#pragma omp parallel
    {
      double *slot = slots + (size_t) omp_get_thread_num() * slen;
#pragma omp for schedule(dynamic, 1)
      for (size_t b = 0; b < nb; b++)
        op_block(&c, slot, b);
    }
  } else
#endif
    for (size_t b = 0; b < nb; b++)
      op_block(&c, slots, b);
  /* Partials in the order of the blocks. */
  double gsum = 0, gmin = INFINITY, gmax = 0, esum = 0;
  for (size_t b = 0; b < nb; b++) {
    const double *p = c.part + 4 * b;
    gsum += p[0];
    gmin = fmin(gmin, p[1]);
    gmax = fmax(gmax, p[2]);
    esum += p[3];
  }
  size_t clusters = 0;
  for (size_t j = 0; j < n; j++)
    clusters += c.parent[j] == j;
  out->gsum = gsum;
  out->gmin = gmin;
  out->gmax = gmax;
  out->esum = esum;
  out->clusters = clusters;
done:
  free(kt);
  free(slots);
  free(c.parent);
  free(c.part);
  return rc;
}
