/* attention_tiled.c -- the tiled attention kernel (AF_KERNEL_TILED): the
 * attention of theorems.md M2, M5 in O(n d) memory, by the online
 * (running-maximum) softmax of Milakov and Gimelshein, "Online normalizer
 * calculation for softmax" (2018), in the tiling of Dao et al.,
 * "FlashAttention" (NeurIPS 2022).  No n x n array is formed.
 *
 * The queries are cut into blocks of R rows (w->tile_rows), the keys into
 * tiles of C keys (w->tile_keys).  A block keeps, per row j, a running
 * maximum m_j of the scores seen so far, the running sums
 *     acc_j = sum_k exp(beta (s_jk - m_j)) V th_k,   z_j = sum_k e_jk,
 *     am_j  = sum_k e_jk |V th_k|
 * and meets the tiles in order k = 0, C, 2C, ...; for a tile it forms the
 * scores s_jk = <q_j, th_k> (q_j = th_j, or M^T th_j with M = Q^T K) of
 * its R x C pairs, and if the tile's largest score t_j exceeds m_j it
 * rescales acc_j, z_j, am_j by exp(beta (m_j - t_j)) and sets m_j = t_j;
 * then it adds the tile's terms exp(beta (s_jk - m_j)) (af_exp_block).
 * At the end A_j = acc_j / Z_j with Z_j = z_j (softmax, causal) or
 * Z_j = n exp(-beta m_j) (USA: w_jk = exp(beta s_jk) / n), amag_j =
 * am_j / Z_j, and c_j, a_j, P_j = A_j - c_j th_j as in the BLAS kernel.
 * The causal mask keeps k <= j: tiles past a block's last row are
 * skipped, the diagonal tile masked.
 *
 * Products: register tiles of 4 rows by 8 keys (scores) and 4 rows by 8
 * coordinates (weighted sums) on vectors of 4 doubles (GCC's vector
 * extension; AVX2 where the CPU has it, pairs of SSE2 registers
 * otherwise), every sum recursive in a fixed order (the scores over the
 * coordinates i = 0..d-1, the weighted sums over the keys k = 0..n-1 with
 * the rescalings between tiles), no fused multiply-add: the same bits
 * at every vector width.  Blocks of rows are handed to threads (OpenMP,
 * when OMP_NUM_THREADS is set, as the row loops of attention.c); a block
 * is computed by one thread in the same order whatever the number of
 * threads, so the results are the same bits for any number of threads.
 *
 * Memory: the packed queries (n x d), keys (n x d, transposed per tile),
 * values (n x d rounded up to 8 columns) and |V th_k|, and per thread a
 * tile of weights R x C, the sums R x d and a few rows: about
 * 3 n d + threads (R C + R d) doubles beyond the arrays of af_work.
 * With the default R = 256, C = 128 a tile of keys and values (d = 64:
 * 128 KiB) and a block's weights (256 KiB) stay in the 1 MiB L2 cache of
 * the machine of docs/performance.md; the product loops take 8 keys (or
 * 8 coordinates) outermost, so that their slice of the tile stays in L1
 * while the rows pass, and the rows of a key tile and of the values are
 * stored an odd number of cache lines apart (odd_lines), so that the
 * slice's rows do not evict each other.  Each block streams every key
 * tile once: 256 rows a block halve, against 64, the passes over keys
 * that no longer fit a cache (n = 10^5: one thread 0.85 of the roofline
 * against 0.69; at n <= 2048 the row count made no measurable
 * difference; docs/performance.md).  R does not change the bits (a row
 * meets the same tiles in the same order); C does.
 *
 * Accuracy: the same quantities as the other kernels in another rounding
 * order; theorems.md N.tiled bounds the difference (claims_tiled.c). */
#include "attention_impl.h"
#include "tile_v4.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef af_tv4 tl_v4;

static inline size_t round_up(size_t a, size_t b)
{
  return (a + b - 1) / b * b;
}


/* Layout of the packed arrays and of one thread's scratch. */
typedef struct {
  size_t nr, nk, dp; /* rows, keys rounded up to R, C; d up to 8 */
  size_t ldk, ldg;   /* row strides of a key tile (>= C) and of g (>= dp) */
} tl_dims;

/* A row stride of an odd number of 64-byte lines (m a multiple of 8).
 * The product loops walk a slice of 8 columns down the rows of a key
 * tile (d rows) or of g (C rows); at a stride of 2^k lines those rows
 * fall into 64 / 2^k of the 64 sets of an 8-way L1 and evict each other
 * (C = 128: 4 sets for 64 rows), at an odd stride into all 64. */
static size_t odd_lines(size_t m)
{
  return (m / 8) % 2 == 1 ? m : m + 8;
}

static tl_dims dims_of(size_t n, size_t d, size_t rows, size_t keys)
{
  size_t dp = round_up(d, 8);
  tl_dims t = {round_up(n, rows), round_up(n, keys), dp, odd_lines(keys),
               odd_lines(dp)};
  return t;
}

/* Doubles of the packed arrays: q (nr x d), kt (nk / C tiles of d x ldk),
 * g (nk x ldg), gn (nk); of one slot: weights R x C, sums R x dp, m, z, am
 * (R each), exponents C.  0 if a size overflows. */
static size_t buf_len(size_t n, size_t d, size_t rows, size_t keys)
{
  tl_dims t = dims_of(n, d, rows, keys);
  size_t a, b, c, r;
  if (t.nr < n || t.nk < n || !af_size_mul(&a, t.nr, d)
      || !af_size_mul(&b, t.nk / keys * t.ldk, d)
      || !af_size_mul(&c, t.nk, t.ldg + 1) || !af_size_add(&r, a, b)
      || !af_size_add(&r, r, c))
    return 0;
  return r;
}

static size_t slot_len(size_t d, size_t rows, size_t keys)
{
  size_t dp = round_up(d, 8), a, b, r;
  if (!af_size_mul(&a, rows, keys) || !af_size_mul(&b, rows, dp + 3)
      || !af_size_add(&r, a, b) || !af_size_add(&r, r, keys))
    return 0;
  return r;
}

size_t tiled_doubles(size_t n, size_t d, size_t rows, size_t keys,
                     size_t nslots)
{
  size_t a = buf_len(n, d, rows, keys), b = slot_len(d, rows, keys), r;
  if (a == 0 || b == 0 || !af_size_mul(&b, b, nslots)
      || !af_size_add(&r, a, b))
    return 0;
  return r;
}

int af_work_set_tiles(af_work *w, size_t rows, size_t keys)
{
  if (w == NULL)
    return AF_EINVAL;
  if (rows == 0)
    rows = w->tile_rows;
  if (keys == 0)
    keys = w->tile_keys;
  if (rows % 4 != 0 || keys % 8 != 0 || rows > 4096 || keys > 65536)
    return AF_EINVAL;
  if (rows != w->tile_rows || keys != w->tile_keys) {
    free(w->tl_buf);
    free(w->tl_slots);
    w->tl_buf = w->tl_slots = NULL;
    w->tl_buf_len = w->tl_nslots = w->tl_slot_len = 0;
  }
  w->tile_rows = rows;
  w->tile_keys = keys;
  return AF_OK;
}

/* ------------------------------------------------------------ products */

/* E[r][k] = sum_i q_r[i] kt[i][k] for rows r < nrow (a multiple of 4) and
 * keys k < nkey (a multiple of 8): recursive sums from i = 0.  q rows of
 * d doubles, kt rows of ldk, E rows of lde. */
static inline __attribute__((always_inline)) void
scores_body(double *restrict E, size_t lde, const double *restrict q,
            const double *restrict kt, size_t ldk, size_t d, size_t nrow,
            size_t nkey)
{
  TILE_ROWS_BY_KEYS(E, lde, q, kt, ldk, d, nrow, nkey, TILE_ADD_PRODUCTS);
}

/* acc[r][c] += sum_k E[r][k] g[k][c] for rows r < nrow (a multiple of 4),
 * columns c < dp (a multiple of 8), keys k < nkey, added one by one in
 * the order of k.  acc rows of dp doubles, g rows of ldg, E rows of lde. */
static inline __attribute__((always_inline)) void
values_body(double *restrict acc, const double *restrict E, size_t lde,
            const double *restrict g, size_t ldg, size_t dp, size_t nrow,
            size_t nkey)
{
  /* Columns outer: their slice of g (8 nkey doubles) stays in L1 while
   * the rows pass. */
  for (size_t c = 0; c < dp; c += 8)
    for (size_t r = 0; r < nrow; r += 4) {
      const double *e0 = E + r * lde;
      double *a = acc + r * dp + c;
      tl_v4 t[8];
      TILE_LOAD(t, a, dp);
      const double *gp = g + c;
      for (size_t k = 0; k < nkey; k++, gp += ldg) {
        tl_v4 g0, g1;
        LOAD4(g0, gp);
        LOAD4(g1, gp + 4);
        const double x[4] = {e0[k], e0[lde + k], e0[2 * lde + k],
                             e0[3 * lde + k]};
        TILE_ADD_PRODUCTS(t, x, g0, g1);
      }
      TILE_STORE(a, dp, t);
    }
}

static void scores_plain(double *restrict E, size_t lde,
                         const double *restrict q, const double *restrict kt,
                         size_t ldk, size_t d, size_t nrow, size_t nkey)
{
  scores_body(E, lde, q, kt, ldk, d, nrow, nkey);
}

static void values_plain(double *restrict acc, const double *restrict E,
                         size_t lde, const double *restrict g, size_t ldg,
                         size_t dp, size_t nrow, size_t nkey)
{
  values_body(acc, E, lde, g, ldg, dp, nrow, nkey);
}

#ifdef AF_EXP_AVX2
__attribute__((target("avx2"))) static void
scores_avx2(double *restrict E, size_t lde, const double *restrict q,
            const double *restrict kt, size_t ldk, size_t d, size_t nrow,
            size_t nkey)
{
  scores_body(E, lde, q, kt, ldk, d, nrow, nkey);
}

__attribute__((target("avx2"))) static void
values_avx2(double *restrict acc, const double *restrict E, size_t lde,
            const double *restrict g, size_t ldg, size_t dp, size_t nrow,
            size_t nkey)
{
  values_body(acc, E, lde, g, ldg, dp, nrow, nkey);
}
#endif

/* ------------------------------------------------------------ packing */

typedef struct {
  af_work *w;
  const double *V; /* NULL: identity */
  int ident;       /* Q = K = I: q_j = th_j */
  double beta;
  int causal, usa;
  size_t R, C;     /* tile sizes */
  tl_dims t;
  double *q, *kt, *g, *gn;
  int avx2;
} tl_ctx;

/* Rows k0..k1 of q, kt, g, gn (the pads stay the zeros of calloc). */
static void pack_rows(void *vc, size_t k0, size_t k1)
{
  tl_ctx *c = vc;
  af_work *w = c->w;
  size_t d = w->d, ldk = c->t.ldk, ldg = c->t.ldg, C = c->C;
  const double *M = w->dtmp;
  for (size_t k = k0; k < k1; k++) {
    const double *tk = w->th + k * d;
    double *qk = c->q + k * d;
    if (c->ident)
      memcpy(qk, tk, d * sizeof(double));
    else
      for (size_t b = 0; b < d; b++) { /* (M^T th_k)_b, from a = 0 */
        double s = 0;
        for (size_t a = 0; a < d; a++)
          s += tk[a] * M[a * d + b];
        qk[b] = s;
      }
    double *ktile = c->kt + (k / C) * ldk * d + k % C;
    for (size_t i = 0; i < d; i++)
      ktile[i * ldk] = tk[i];
    double *gk = c->g + k * ldg;
    if (c->V == NULL) {
      memcpy(gk, tk, d * sizeof(double));
      c->gn[k] = 1.0;
    } else {
      for (size_t a = 0; a < d; a++) /* as the direct kernel's G */
        gk[a] = dot(c->V + a * d, tk, d);
      c->gn[k] = sqrt(dot(gk, gk, d));
    }
  }
}

/* w->dtmp = M = Q^T K (Q or K NULL = identity), sums from k = 0. */
static void score_matrix(af_work *w, const double *Q, const double *K)
{
  size_t d = w->d;
  double *M = w->dtmp;
  for (size_t a = 0; a < d; a++)
    for (size_t b = 0; b < d; b++) {
      double s;
      if (Q == NULL)
        s = K[a * d + b];
      else if (K == NULL)
        s = Q[b * d + a];
      else {
        s = 0;
        for (size_t k = 0; k < d; k++)
          s += Q[k * d + a] * K[k * d + b];
      }
      M[a * d + b] = s;
    }
}

/* ------------------------------------------------------------ blocks */

/* The largest of x[0..len) that compares greater than -inf (NaNs
 * skipped): exact, so taken over four lanes. */
static double row_max(const double *x, size_t len)
{
  double m0 = -INFINITY, m1 = m0, m2 = m0, m3 = m0;
  size_t k = 0;
  for (; k + 4 <= len; k += 4) {
    m0 = x[k] > m0 ? x[k] : m0;
    m1 = x[k + 1] > m1 ? x[k + 1] : m1;
    m2 = x[k + 2] > m2 ? x[k + 2] : m2;
    m3 = x[k + 3] > m3 ? x[k + 3] : m3;
  }
  for (; k < len; k++)
    m0 = x[k] > m0 ? x[k] : m0;
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  return m2 > m0 ? m2 : m0;
}

/* sum_k x[k] (g[k] x[k] if g) as four partial sums over k mod 4,
 * combined as (s0 + s1) + (s2 + s3) (af_dot's order): a fixed order. */
static double sum4(const double *restrict x, const double *restrict g,
                   size_t len)
{
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t k = 0;
  if (g == NULL) {
    for (; k + 4 <= len; k += 4) {
      s0 += x[k];
      s1 += x[k + 1];
      s2 += x[k + 2];
      s3 += x[k + 3];
    }
    for (; k < len; k++)
      s0 += x[k];
  } else {
    for (; k + 4 <= len; k += 4) {
      s0 += x[k] * g[k];
      s1 += x[k + 1] * g[k + 1];
      s2 += x[k + 2] * g[k + 2];
      s3 += x[k + 3] * g[k + 3];
    }
    for (; k < len; k++)
      s0 += x[k] * g[k];
  }
  return (s0 + s1) + (s2 + s3);
}

/* Rows j0..j1 (one block) against every tile of keys, then their
 * outputs; slot: this thread's scratch. */
static void tiled_block(const tl_ctx *c, double *slot, size_t j0, size_t j1)
{
  af_work *w = c->w;
  size_t n = w->n, d = w->d, dp = c->t.dp, R = c->R, C = c->C;
  size_t ldk = c->t.ldk, ldg = c->t.ldg;
  double beta = c->beta;
  double *E = slot, *acc = E + R * C, *mx = acc + R * dp, *z = mx + R,
         *am = z + R, *xb = am + R;
  size_t nrow = j1 - j0, nrow4 = round_up(nrow, 4);
  memset(acc, 0, nrow4 * dp * sizeof(double));
  for (size_t r = 0; r < nrow; r++) {
    mx[r] = -INFINITY;
    z[r] = 0;
    am[r] = 0;
  }
  size_t kstop = c->causal ? j1 : n; /* keys any row of the block sees */
  for (size_t k0 = 0; k0 < kstop; k0 += C) {
    size_t nk = kstop - k0 < C ? kstop - k0 : C;
    /* tile k0 / C: d rows of ldk */
    const double *ktile = c->kt + k0 / C * ldk * d;
#ifdef AF_EXP_AVX2
    if (c->avx2)
      scores_avx2(E, C, c->q + j0 * d, ktile, ldk, d, nrow4, round_up(nk, 8));
    else
#endif
      scores_plain(E, C, c->q + j0 * d, ktile, ldk, d, nrow4,
                   round_up(nk, 8));
    for (size_t r = 0; r < nrow4; r++) {
      double *Er = E + r * C;
      size_t j = j0 + r, ke = nk;
      if (r >= nrow)
        ke = 0; /* rows past n: zero weights */
      else if (c->causal)
        ke = j < k0 ? 0 : (j + 1 - k0 < nk ? j + 1 - k0 : nk);
      if (ke == 0) {
        memset(Er, 0, nk * sizeof(double));
        continue;
      }
      double tm = row_max(Er, ke);
      if (tm > mx[r]) {
        if (mx[r] > -INFINITY) { /* terms so far: onto the new maximum */
          double sc = exp(beta * (mx[r] - tm));
          double *ar = acc + r * dp;
#pragma omp simd
          for (size_t i = 0; i < dp; i++)
            ar[i] *= sc;
          z[r] *= sc;
          am[r] *= sc;
        }
        mx[r] = tm;
      }
      double m = mx[r];
#pragma omp simd
      for (size_t k = 0; k < ke; k++)
        xb[k] = beta * (Er[k] - m);
      exp_block(Er, xb, ke);
      for (size_t k = ke; k < nk; k++)
        Er[k] = 0.0;
      z[r] += sum4(Er, NULL, ke);
      if (c->V != NULL)
        am[r] += sum4(Er, c->gn + k0, ke);
    }
#ifdef AF_EXP_AVX2
    if (c->avx2)
      values_avx2(acc, E, C, c->g + k0 * ldg, ldg, dp, nrow4, nk);
    else
#endif
      values_plain(acc, E, C, c->g + k0 * ldg, ldg, dp, nrow4, nk);
  }
  /* Outputs: A = acc / Z, amag, c = <th, A>, a = |A|, P = A - c th. */
  for (size_t r = 0; r < nrow; r++) {
    size_t j = j0 + r;
    double Zj;
    if (!isfinite(mx[r]))
      Zj = NAN; /* no finite score: AF_ENONFINITE (attention_tiled) */
    else if (c->usa)
      Zj = (double) n * exp(-beta * mx[r]);
    else
      Zj = z[r];
    w->Z[j] = Zj;
    double iz = 1.0 / Zj;
    const double *ar = acc + r * dp, *tj = w->th + j * d;
    double *restrict Aj = w->A + j * d, *restrict Pj = w->P + j * d;
    for (size_t i = 0; i < d; i++)
      Aj[i] = ar[i] * iz;
    w->amag[j] = (c->V != NULL ? am[r] : z[r]) * iz;
    double cj = dot(tj, Aj, d);
    w->c[j] = cj;
    double ss = dot(Aj, Aj, d);
    w->a[j] = sumsq_safe(ss) ? sqrt(ss) : norm2(Aj, d);
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - cj * tj[i];
  }
}

/* ------------------------------------------------------------ kernel */

int attention_tiled(af_work *w, const af_model *m, const double *Q,
                    const double *K, const double *V)
{
  size_t n = w->n, d = w->d, R = w->tile_rows, C = w->tile_keys;
  tl_ctx c;
  memset(&c, 0, sizeof c);
  c.w = w;
  c.V = V;
  c.ident = (Q == NULL && K == NULL);
  c.beta = m->beta;
  c.causal = m->attn == AF_ATTN_CAUSAL;
  c.usa = m->attn == AF_ATTN_USA;
  c.R = R;
  c.C = C;
  c.t = dims_of(n, d, R, C);
#ifdef AF_EXP_AVX2
  c.avx2 = __atomic_load_n(&exp_isa, __ATOMIC_RELAXED) >= 1;
#endif
  size_t nb = (n + R - 1) / R;
  int par = omp_allowed() && nb > 1
            && (double) n * (double) n * (double) d >= AF_OMP_MIN_PAIRS;
  size_t nslots = 1;
#ifdef _OPENMP
  if (par)
    nslots = (size_t) omp_get_max_threads();
#endif
  /* Scratch at the first evaluation (and when more threads come). */
  if (w->tl_buf == NULL) {
    size_t len = buf_len(n, d, R, C);
    if (len == 0 || (w->tl_buf = calloc(len, sizeof(double))) == NULL)
      return AF_ENOMEM;
    w->tl_buf_len = len;
  }
  if (w->tl_nslots < nslots) {
    size_t len = slot_len(d, R, C), all;
    if (len == 0 || !af_size_mul(&all, len, nslots))
      return AF_ENOMEM;
    double *s = malloc(all * sizeof(double));
    if (s == NULL)
      return AF_ENOMEM;
    free(w->tl_slots);
    w->tl_slots = s;
    w->tl_nslots = nslots;
    w->tl_slot_len = len;
  }
  c.q = w->tl_buf;
  c.kt = c.q + c.t.nr * d;
  c.g = c.kt + c.t.nk / C * c.t.ldk * d;
  c.gn = c.g + c.t.nk * c.t.ldg;
  if (!c.ident)
    score_matrix(w, Q, K);
  run_rows(pack_rows, &c, n, n * d >= AF_OMP_MIN_ND);
#ifdef _OPENMP
  if (par) {
#pragma omp parallel
    {
      double *slot =
          w->tl_slots + (size_t) omp_get_thread_num() * w->tl_slot_len;
#pragma omp for schedule(dynamic, 1)
      for (size_t b = 0; b < nb; b++)
        tiled_block(&c, slot, b * R, (b + 1) * R < n ? (b + 1) * R : n);
    }
  } else
#endif
    for (size_t b = 0; b < nb; b++)
      tiled_block(&c, w->tl_slots, b * R, (b + 1) * R < n ? (b + 1) * R : n);
  /* The first failing row decides (the same for any number of threads). */
  for (size_t j = 0; j < n; j++) {
    double Zj = w->Z[j];
    if (isnan(Zj))
      return AF_ENONFINITE;
    if (Zj == 0.0 || isinf(Zj))
      return c.usa ? AF_EOVERFLOW : AF_ENONFINITE;
  }
  return AF_OK;
}
