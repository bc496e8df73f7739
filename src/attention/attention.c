/* attention.c -- attention (theorems.md M2, M5) and the vector field S0.
 *
 * Three kernels compute the same quantities:
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
 *  - AF_KERNEL_TILED (attention_tiled.c): tiles of keys with an online
 *    (running-maximum) softmax, O(n d) memory, no n x n array; the
 *    default when the n x n matrix of doubles would exceed
 *    AF_KERNEL_NN_BUDGET (af_kernel_auto), whose work then holds no S
 *    until another kernel is chosen (af_work_set_kernel).
 *
 * Softmax weights always subtract the row maximum (never overflow, any
 * beta); with Q = K = I that maximum is beta at k = j (theorems.md M2). *
 * The discrete layer maps S7 built on these kernels are in layer_maps.c.
 *
 * This file holds the work space, the directions, the row loops' threads,
 * the dispatch between the kernels and the field (af_attention, af_speeds,
 * af_rhs); the BLAS kernel is in attention_blas.c, its loop path at small
 * sizes in attention_small.c, the vectorized exp and row passes in
 * attention_exp.c, all sharing attention_impl.h.
 */
#include "attention_impl.h"
#include "attention_norm.h"

/* Euclidean norm without spurious overflow or underflow: the plain sum of
 * squares when it is safely inside the normal range (the usual case),
 * else the sum of squares of x / max|x_i| (LAPACK dnrm2's idea). */
double norm2(const double *x, size_t d)
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

static void omp_inrun_init(void); /* below, with the row loops */

af_work *af_work_alloc(size_t n, size_t d)
{
  if (n < 1 || d < 1)
    return NULL;
  /* Every size below, checked: the largest are n (d + 2) + pad and
   * n n + pad doubles; a size that overflows size_t is no allocation. */
  size_t nd, nn = 0, nd2, dd, big;
  int tiled = af_kernel_auto(n, d) == AF_KERNEL_TILED;
  if (!af_size_mul(&nd, n, d) || (!tiled && !af_size_mul(&nn, n, n))
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
  w->kernel = af_kernel_auto(n, d);
  w->tile_rows = AF_TILE_ROWS;
  w->tile_keys = AF_TILE_KEYS;
  w->th = malloc(nd * sizeof(double));
  /* T: n x d, and d x n plus the padding that small_weights reads past
   * its last row (zeros, never written). */
  w->T = calloc(nd + AF_T_PAD, sizeof(double));
  w->G = malloc(nd * sizeof(double));
  /* see T; none for the tiled kernel (af_work_set_kernel adds it) */
  if (w->kernel != AF_KERNEL_TILED)
    w->S = malloc((nn + AF_T_PAD) * sizeof(double));
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
  if (!w->th || !w->T || !w->G
      || (!w->S && w->kernel != AF_KERNEL_TILED) || !w->A || !w->P || !w->c || !w->a
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
  free(w->tl_buf);
  free(w->tl_slots);
  free(w->hsum);
  free(w);
}

int af_work_set_kernel(af_work *w, af_kernel k)
{
  if (w == NULL || (int) k < 0 || k >= AF_KERNEL_COUNT)
    return AF_EINVAL;
  if (k != AF_KERNEL_TILED && w->S == NULL) {
    /* The n x n matrix the other kernels need, and the direct kernel's
     * view of the arrays rebound to it. */
    size_t nn;
    if (!af_size_mul(&nn, w->n, w->n) || !af_size_add(&nn, nn, AF_T_PAD)
        || !af_size_mul(&nn, nn, sizeof(double)))
      return AF_ENOMEM;
    double *S = malloc(nn);
    if (S == NULL)
      return AF_ENOMEM;
    w->S = S;
    af_work_generic_d *dw = af_work_bind_generic_d(w);
    if (dw == NULL)
      return AF_ENOMEM;
    af_work_free_generic_d(w->direct);
    w->direct = dw;
  }
  w->kernel = k;
  return AF_OK;
}

af_kernel af_kernel_auto(size_t n, size_t d)
{
  (void) d;
  size_t nn;
  if (!af_size_mul(&nn, n, n) || !af_size_mul(&nn, nn, sizeof(double))
      || nn > AF_KERNEL_NN_BUDGET)
    return AF_KERNEL_TILED;
  return AF_KERNEL_BLAS;
}

size_t af_work_bytes(size_t n, size_t d, af_kernel k, int threads)
{
  /* The arrays of af_work_alloc: th, T, G, A, P (n d each), ytmp
   * (n d + n), Gx, Ax (n (d + 2) each), c, a, Z, amag, gn, xn (n each),
   * dtmp (d d), the pad of T; S (n n + pad) unless tiled. */
  size_t nd, nd2, dd, r, x;
  if ((unsigned) k >= AF_KERNEL_COUNT || threads < 0
      || threads > AF_THREADS_MAX)
    return 0;
  if (n < 1 || d < 1 || !af_size_mul(&nd, n, d)
      || !af_size_mul(&nd2, n, d + 2) || d + 2 < d || !af_size_mul(&dd, d, d)
      || !af_size_mul(&r, nd, 6) || !af_size_mul(&x, nd2, 2)
      || !af_size_add(&r, r, x) || !af_size_mul(&x, n, 7)
      || !af_size_add(&r, r, x) || !af_size_add(&r, r, dd)
      || !af_size_add(&r, r, AF_T_PAD))
    return 0;
  if (k == AF_KERNEL_TILED) {
    x = tiled_doubles(n, d, AF_TILE_ROWS, AF_TILE_KEYS,
                      threads < 1 ? 1 : (size_t) threads);
    if (x == 0 || !af_size_add(&r, r, x))
      return 0;
    /* af_observe's pair tiles (observe_pairs.c), held while it runs */
    x = af_obs_pairs_doubles(n, d, threads < 1 ? 1 : (size_t) threads);
    if (x == 0 || !af_size_add(&r, r, x))
      return 0;
  } else if (!af_size_mul(&x, n, n) || !af_size_add(&r, r, x)
             || !af_size_add(&r, r, AF_T_PAD))
    return 0;
  if (!af_size_mul(&r, r, sizeof(double)))
    return 0;
  return r;
}

af_kernel af_work_kernel(const af_work *w)
{
  return w ? w->kernel : AF_KERNEL_BLAS;
}
unsigned long af_work_nevals(const af_work *w) { return w ? w->nevals : 0; }

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
#define AF_ROW_BLOCK 16

static int omp_inrun = -1; /* set by af_work_alloc; atomic as exp_isa */

int omp_allowed(void)
{
  return __atomic_load_n(&omp_inrun, __ATOMIC_RELAXED) == 1;
}

static void omp_inrun_init(void)
{
  if (__atomic_load_n(&omp_inrun, __ATOMIC_RELAXED) < 0)
    __atomic_store_n(&omp_inrun, getenv("OMP_NUM_THREADS") != NULL,
                     __ATOMIC_RELAXED);
}

/* f(ctx, j0, j1) over [0, n), in parallel when par and allowed. */
void run_rows(rows_fn f, void *ctx, size_t n, int par)
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

/* One head's run of the chosen kernel (attention_heads.c), A and P row
 * by row. */
static int attention_kernel_rows(af_work *w, const af_model *m,
                                 const double *Q, const double *K,
                                 const double *V, void *ctx)
{
  (void) ctx;
  if (w->kernel == AF_KERNEL_TILED)
    return attention_tiled(w, m, Q, K, V);
  return (w->kernel == AF_KERNEL_DIRECT)
             ? af_work_direct_generic_d(w->direct, m, Q, K, V)
             : attention_blas(w, m, Q, K, V, NULL);
}

/* One head's run of the U3 kernel (attention_norm.c): the spec, the time
 * and the radii of the state. */
typedef struct {
  const af_scheme_spec *sp;
  double t;
  const double *r;
} norm_ctx;

static int attention_norm_head(af_work *w, const af_model *m, const double *Q,
                               const double *K, const double *V, void *ctx)
{
  const norm_ctx *c = ctx;
  return af_attention_norm_fill(w, m, c->sp, Q, K, V, c->t, c->r);
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
  int rc = af_model_fits(m, w->n, w->d);
  if (rc != AF_OK)
    return rc;
  const double *Q, *K, *V;
  af_weights_at(&Q, &K, &V, m->w, af_work_piece_time(w, t));
  /* A spec whose normalization changes attention (U3): its own kernel. */
  const af_scheme_spec *nsp =
      m->scheme == AF_SCHEME_USER ? af_scheme_spec_of(m->user) : NULL;
  if (nsp != NULL && !af_scheme_spec_alters_attention(nsp))
    nsp = NULL;
  /* Several heads (attention_heads.c), under a U3 spec too (its kernel
   * once per head). */
  int heads = m->w != NULL && af_weights_heads(m->w) > 1;
  /* af_rhs on the small path with V = I needs th only transposed. */
  if (nsp == NULL && !heads && soa != NULL && w->kernel == AF_KERNEL_BLAS
      && Q == NULL && K == NULL && V == NULL && small_size(w->n, w->d)) {
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
  if (nsp != NULL && heads) {
    norm_ctx nc = {nsp, t, y + w->n * w->d};
    rc = attention_heads(w, m, af_work_piece_time(w, t), attention_norm_head,
                         &nc);
  } else if (nsp != NULL)
    rc = af_attention_norm_fill(w, m, nsp, Q, K, V, t, y + w->n * w->d);
  else if (heads)
    rc = attention_heads(w, m, af_work_piece_time(w, t),
                         attention_kernel_rows, NULL);
  else if (w->kernel == AF_KERNEL_TILED)
    rc = attention_tiled(w, m, Q, K, V);
  else
    rc = (w->kernel == AF_KERNEL_DIRECT)
             ? af_work_direct_generic_d(w->direct, m, Q, K, V)
             : attention_blas(w, m, Q, K, V, soa);
  if (rc != AF_OK)
    return rc;
  w->nevals++;
  /* The directions are finite here (USA's unnormalized weights reach
   * e^beta); w->direct's a and c are w's (af_work_bind_generic_d). */
  return af_attention_status_generic_d(w->direct, m);
}

int af_attention(double *A, double *pt, double *c, double *a, double t,
                 const double *y, const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL || isnan(t))
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
  if (w == NULL || y == NULL || isnan(t))
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
  if (w == NULL || y == NULL || dy == NULL || isnan(t))
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
