/* mp_kernel_source.c -- the DIRECT attention kernel and the vector field
 * S0, written once against scalar macros and compiled for several number
 * types (in the manner of GSL's templates_on.h /
 * *_source.c).  NOT compiled on its own: it is #included by
 *
 *   mp_kernel_double.c   AF_T = double          (af_*_generic_d)
 *   mp_kernel_mpfr.c     AF_T = mpfr_t          (af_mp_*)
 *
 * after the includer has defined the macros listed below.
 *
 * The attention part (attention_direct below) IS the AF_KERNEL_DIRECT
 * kernel of the library: attention.c calls the double instance on the
 * arrays of its af_work (af_work_direct_generic_d, mp_kernel_double.c).
 * The rest (directions here; rates_fill and rhs in mp_rhs_source.c, which
 * this file includes before af_attention) transcribes af_work_directions,
 * rates_fill and af_rhs of attention.c / scheme.c (theorems.md M2, M3, M5,
 * S0-S6) with every floating operation in the same order, so that the
 * double instance is bitwise equal to af_rhs with AF_KERNEL_DIRECT
 * (tests/test_mp.c asserts it).  The MPFR instance at 53 bits differs
 * where libm's exp/pow are not correctly rounded, and for d >= 4 by the
 * order of its dot products (recursive; the double instance uses af_dot's
 * four partial sums).  With V = I the tangent part is formed from the
 * differences D_jk = th_k - th_j (attention.c, header).
 *
 * Macros required (r is an lvalue / mpfr_ptr, a, b sources, all rounded
 * to nearest; "D" operands are exact doubles, "UI" unsigned longs):
 *   AF_T                   scalar type (double, mpfr_t)
 *   AF_SRC                 type of a by-value scalar argument
 *   AF_CONST               const for double, empty for MPFR arrays
 *   AF_PREC_T              precision type (ignored by double)
 *   AF_FN(name)            instance name of function `name`
 *   AF_WORK                instance name of the work struct tag
 *   AF_INIT(x, prec) AF_CLEAR(x)
 *   AF_SET(r,a) AF_SET_D(r,d) AF_SET_UI(r,u) AF_GET_D(a)
 *   AF_ADD AF_SUB AF_MUL AF_DIV (r,a,b)
 *   AF_ADD_D(r,a,d) AF_SUB_D(r,a,d) AF_D_SUB(r,d,a) AF_MUL_D(r,a,d)
 *   AF_D_ADD(r,d,a) AF_MUL_UI(r,a,u) AF_UI_DIV(r,u,a) AF_NEG(r,a)
 *   AF_MULQ(r,a,num,den,dval)  r = a num/den; the double instance
 *                          multiplies by the double literal dval (as the
 *                          double path does), MPFR by num then 1/den
 *   AF_SQRT AF_EXP (r,a)  AF_POW_D(r,a,d) (r = a^d)
 *   AF_CMP(a,b) AF_CMP_D(a,d) (sign of a-b; NaN compares as 0)
 *   AF_SGN(a) AF_ISFINITE(a) AF_ISZERO(a)
 *   AF_EPS_N(r,n,prec)     r = n * (unit roundoff 2^(1-prec)); double:
 *                          (double) n * DBL_EPSILON
 *   AF_ABS(r,a) AF_ISNAN(a)
 *   AF_NORM2_UNSAFE(s)     1 if a sum of squares s may have over- or
 *                          underflowed (double: !(finite, >= DBL_MIN/eps))
 *   AF_LOCAL(name)         declares the scalar temporary `name` of one
 *                          function: double, a plain local (kept in a
 *                          register: the work's fields could alias the
 *                          arrays, which would force every temporary
 *                          through memory); MPFR, a pointer to the work's
 *                          initialized scalar w->name (no allocation)
 *   AF_VAL(name, x)        declares `name`, read-only, as the value of x,
 *                          an array element or a scalar of the work
 *                          (double, a copy kept in a register; MPFR, a
 *                          pointer to x)
 *
 * Optional (the default in brackets):
 *   AF_PAIR_SYMMETRIC      defined: identity Q, K, V under softmax take
 *                          attention_pairs (one pass over unordered
 *                          pairs; needs AF_MUL_2SI(r,a,e) = a 2^e)
 *                          [undefined: the loops of the double path]
 *   AF_DOT(r, x, y, d)     r = sum_i x[i] y[i] for scalar arrays
 *                          [recursive summation from i = 0]
 *   AF_DOT_D(r, v, x, d)   the same with v an array of doubles
 *   AF_GEMM_QK(M, Q, K, d) M = Q^T K for two d x d double matrices (the
 *                          double instance: dgemm, as the BLAS kernel)
 *                          [sums over k = 0..d-1]
 *   AF_DOT_FN              how the two dot helpers are declared [static]
 *   AF_PARAMS              type of exact parameters a work may hold in
 *                          place of the model's doubles (with AF_POW(r,
 *                          a, b) = a^b) [none]
 *   AF_EXACT_WEIGHTS(w)    true when w->par holds one weight set as read
 *                          (wq, wk, wv of AF_T, d x d) to use in place
 *                          of the model's doubles [none]
 *   AF_SPEC_MP             defined: a spec'd scheme's expressions are
 *                          evaluated in MPFR (af_expr_eval_mp, literals
 *                          at the work's precision), and a spec that
 *                          sets scores or gain (U3) gets attention_norm,
 *                          the formulas of attention_norm.c at the
 *                          work's precision [undefined: in double,
 *                          af_scheme_spec_eval, as the double path; a U3
 *                          spec is refused (AF_EINVAL): the double path
 *                          runs attention_norm.c itself]
 */

/* Scalar temporaries of one evaluation, kept in the work so that an
 * MPFR evaluation never allocates (initialized once at the precision). */
#define AF_GK_SCALARS(X)                                                       \
  X(q) X(e) X(sv) X(diff) X(radial) X(am) X(iz) X(tmp) X(tmp2) X(mx) X(z)     \
  X(beta) X(alpha) X(sj) X(rj) X(nx) X(usa_z)

struct AF_WORK {
  size_t n, d;
  AF_PREC_T prec;
  unsigned long nevals;
  AF_T *th;   /* n x d unit directions                     */
  AF_T *T;    /* n x d th M                                 */
  AF_T *G;    /* n x d V th rows                            */
  AF_T *S;    /* n x n scores, then weights                 */
  AF_T *A;    /* n x d attention outputs                    */
  AF_T *P;    /* n x d tangent parts                        */
  AF_T *c;    /* n <th_j, A_j>                              */
  AF_T *a;    /* n |A_j|                                    */
  AF_T *Z;    /* n normalizers                              */
  AF_T *amag; /* n sum_k w_jk |V th_k|                      */
  AF_T *gn;   /* n |V th_k|                                 */
  AF_T *s;    /* n speed factors                            */
  AF_T *rho;  /* n radial rates                             */
  AF_T *M;    /* d x d Q^T K                                */
  /* Sums over several heads (attention_heads): A, P (n x d), c, amag
   * (n); allocated at the first use with heads > 1, else NULL. */
  AF_T *hA, *hP, *hc, *hm;
#define AF_GK_FIELD(name) AF_T name;
  AF_GK_SCALARS(AF_GK_FIELD)
#undef AF_GK_FIELD
  /* Piece of a piecewise field (see struct af_work in internal.h). */
  int seg_set;
  double seg_lo, seg_hi;
  /* The arrays are the caller's (af_work_bind_generic_d): not freed. */
  int borrowed;
#ifdef AF_SPEC_MP
  /* A spec'd scheme's constants at the work's precision, and a copy of
   * the spec's constants they were made from (made at first use). */
  af_expr_mp *spec_x;
  af_expr_consts *spec_k;
#endif
#ifdef AF_PARAMS
  /* Exact parameters in place of the model's doubles (NULL: none). */
  const AF_PARAMS *par;
#endif
};

#ifndef AF_PREC_OK
#define AF_PREC_OK(p) 1
#endif
#ifndef AF_SRC_BAD
#define AF_SRC_BAD(t) 0
#endif

static AF_T *AF_FN(vec_new)(size_t len, AF_PREC_T prec)
{
  size_t bytes;
  if (!af_size_mul(&bytes, len ? len : 1, sizeof(AF_T)))
    return NULL; /* len * sizeof wraps (internal.h, checked sizes) */
  AF_T *v = malloc(bytes);
  if (v == NULL)
    return NULL;
  for (size_t i = 0; i < len; i++)
    AF_INIT(v[i], prec);
  (void) prec;
  return v;
}

static void AF_FN(vec_del)(AF_T *v, size_t len)
{
  if (v == NULL)
    return;
  for (size_t i = 0; i < len; i++)
    AF_CLEAR(v[i]);
  (void) len;
  free(v);
}

void AF_FN(work_free)(struct AF_WORK *w)
{
  if (w == NULL)
    return;
  size_t n = w->n, d = w->d, nd = n * d;
  AF_FN(vec_del)(w->hA, nd);
  AF_FN(vec_del)(w->hP, nd);
  AF_FN(vec_del)(w->hc, n);
  AF_FN(vec_del)(w->hm, n);
  if (w->borrowed) {
    free(w);
    return;
  }
  AF_FN(vec_del)(w->th, nd);
  AF_FN(vec_del)(w->T, nd);
  AF_FN(vec_del)(w->G, nd);
  AF_FN(vec_del)(w->S, n * n);
  AF_FN(vec_del)(w->A, nd);
  AF_FN(vec_del)(w->P, nd);
  AF_FN(vec_del)(w->c, n);
  AF_FN(vec_del)(w->a, n);
  AF_FN(vec_del)(w->Z, n);
  AF_FN(vec_del)(w->amag, n);
  AF_FN(vec_del)(w->gn, n);
  AF_FN(vec_del)(w->s, n);
  AF_FN(vec_del)(w->rho, n);
  AF_FN(vec_del)(w->M, d * d);
#define AF_GK_CLEAR(name) AF_CLEAR(w->name);
  AF_GK_SCALARS(AF_GK_CLEAR)
#undef AF_GK_CLEAR
#ifdef AF_SPEC_MP
  af_expr_mp_free(w->spec_x);
  free(w->spec_k);
#endif
  free(w);
}

struct AF_WORK *AF_FN(work_alloc)(size_t n, size_t d, AF_PREC_T prec)
{
  size_t nd, nn, dd; /* checked: a wrapped product would under-allocate */
  if (n < 1 || d < 1 || !AF_PREC_OK(prec) || !af_size_mul(&nd, n, d)
      || !af_size_mul(&nn, n, n) || !af_size_mul(&dd, d, d))
    return NULL;
  struct AF_WORK *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  w->n = n;
  w->d = d;
  w->prec = prec;
  /* Scalars first: work_free clears them unconditionally. */
#define AF_GK_INIT(name) AF_INIT(w->name, prec);
  AF_GK_SCALARS(AF_GK_INIT)
#undef AF_GK_INIT
  w->th = AF_FN(vec_new)(nd, prec);
  w->T = AF_FN(vec_new)(nd, prec);
  w->G = AF_FN(vec_new)(nd, prec);
  w->S = AF_FN(vec_new)(nn, prec);
  w->A = AF_FN(vec_new)(nd, prec);
  w->P = AF_FN(vec_new)(nd, prec);
  w->c = AF_FN(vec_new)(n, prec);
  w->a = AF_FN(vec_new)(n, prec);
  w->Z = AF_FN(vec_new)(n, prec);
  w->amag = AF_FN(vec_new)(n, prec);
  w->gn = AF_FN(vec_new)(n, prec);
  w->s = AF_FN(vec_new)(n, prec);
  w->rho = AF_FN(vec_new)(n, prec);
  w->M = AF_FN(vec_new)(dd, prec);
  if (!w->th || !w->T || !w->G || !w->S || !w->A || !w->P || !w->c || !w->a
      || !w->Z || !w->amag || !w->gn || !w->s || !w->rho || !w->M) {
    AF_FN(work_free)(w);
    return NULL;
  }
  return w;
}

unsigned long AF_FN(work_nevals)(const struct AF_WORK *w)
{
  return w ? w->nevals : 0;
}

#ifdef AF_PARAMS
void AF_FN(work_set_params)(struct AF_WORK *w, const AF_PARAMS *p)
{
  if (w != NULL)
    w->par = p;
}

const AF_PARAMS *AF_FN(work_params)(const struct AF_WORK *w)
{
  return w ? w->par : NULL;
}
#endif

void AF_FN(work_add_nevals)(struct AF_WORK *w, unsigned long k)
{
  w->nevals += k;
}

void AF_FN(work_set_piece)(struct AF_WORK *w, int set, double lo, double hi)
{
  if (w == NULL)
    return;
  w->seg_set = set;
  w->seg_lo = lo;
  w->seg_hi = hi;
}

/* The double instance inlines the dot helpers: at small d a call per
 * pair of the scores costs as much as the sum. */
#ifndef AF_DOT_FN
#define AF_DOT_FN static
#endif

/* r = sum_i x[i] y[i]: AF_DOT, else recursive summation from i = 0. */
AF_DOT_FN void AF_FN(dot)(struct AF_WORK *w, AF_T *r, AF_CONST AF_T *x,
                          AF_CONST AF_T *y, size_t d)
{
#ifdef AF_DOT
  (void) w;
  AF_DOT(*r, x, y, d);
#else
  AF_SET_UI(*r, 0);
  for (size_t i = 0; i < d; i++) {
    AF_MUL(w->tmp2, x[i], y[i]);
    AF_ADD(*r, *r, w->tmp2);
  }
#endif
}

/* r = sum_i v[i] x[i] for doubles v (exact in any instance): AF_DOT_D,
 * else recursive summation from i = 0. */
AF_DOT_FN void AF_FN(dot_d)(struct AF_WORK *w, AF_T *r, const double *v,
                            AF_CONST AF_T *x, size_t d)
{
#ifdef AF_DOT_D
  (void) w;
  AF_DOT_D(*r, v, x, d);
#else
  AF_SET_UI(*r, 0);
  for (size_t i = 0; i < d; i++) {
    AF_MUL_D(w->tmp2, x[i], v[i]);
    AF_ADD(*r, *r, w->tmp2);
  }
#endif
}

/* norm2 of attention.c: sqrt of the plain sum of squares when that is
 * safely inside the normal range, else of the squares of x / max|x_i|
 * (AF_NORM2_UNSAFE is never true for MPFR's exponent range).  Uses
 * w->tmp2 (through dot) and w->mx, w->q. */
static void AF_FN(norm2)(struct AF_WORK *w, AF_T *r, AF_CONST AF_T *x,
                         size_t d)
{
  AF_FN(dot)(w, r, x, x, d);
  if (!AF_NORM2_UNSAFE(*r)) {
    AF_SQRT(*r, *r);
    return;
  }
  AF_SET_UI(w->mx, 0);
  for (size_t i = 0; i < d; i++) {
    AF_ABS(w->q, x[i]);
    if (AF_ISNAN(w->q)) {
      AF_SET(*r, w->q);
      return;
    }
    if (AF_CMP(w->q, w->mx) > 0)
      AF_SET(w->mx, w->q);
  }
  if (AF_ISZERO(w->mx) || !AF_ISFINITE(w->mx)) {
    AF_SET(*r, w->mx);
    return;
  }
  AF_SET_UI(*r, 0);
  for (size_t i = 0; i < d; i++) {
    AF_DIV(w->q, x[i], w->mx);
    AF_MUL(w->q, w->q, w->q);
    AF_ADD(*r, *r, w->q);
  }
  AF_SQRT(*r, *r);
  AF_MUL(*r, w->mx, *r);
}

/* af_work_directions. */
static int AF_FN(directions)(struct AF_WORK *w, AF_CONST AF_T *y)
{
  size_t n = w->n, d = w->d;
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *x = y + j * d;
    AF_FN(norm2)(w, &w->sv, x, d);
    if (!AF_ISFINITE(w->sv) || !AF_ISFINITE(y[n * d + j]))
      return AF_ENONFINITE;
    if (AF_ISZERO(w->sv))
      return AF_EZERONORM;
    for (size_t i = 0; i < d; i++)
      AF_DIV(w->th[j * d + i], x[i], w->sv);
  }
  return AF_OK;
}

/* w->M = Q^T K (Q or K may be NULL = identity; not both). */
static void AF_FN(score_matrix)(struct AF_WORK *w, const double *Q,
                                const double *K)
{
  size_t d = w->d;
#ifdef AF_EXACT_WEIGHTS
  /* Exact weights in place of the model's single set (attention_fill):
   * M = Q^T K from the numbers as read, summed from k = 0. */
  if (AF_EXACT_WEIGHTS(w)) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++) {
        AF_SET_UI(w->M[a * d + b], 0);
        for (size_t k = 0; k < d; k++) {
          AF_MUL(w->tmp, w->par->wq[k * d + a], w->par->wk[k * d + b]);
          AF_ADD(w->M[a * d + b], w->M[a * d + b], w->tmp);
        }
      }
    return;
  }
#endif
  if (Q == NULL) {
    for (size_t i = 0; i < d * d; i++)
      AF_SET_D(w->M[i], K[i]);
  } else if (K == NULL) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++)
        AF_SET_D(w->M[a * d + b], Q[b * d + a]);
  } else {
#ifdef AF_GEMM_QK
    AF_GEMM_QK(w->M, Q, K, d);
#else
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++) {
        AF_SET_UI(w->M[a * d + b], 0);
        for (size_t k = 0; k < d; k++) {
          AF_SET_D(w->tmp, Q[k * d + a]);
          AF_MUL_D(w->tmp, w->tmp, K[k * d + b]);
          AF_ADD(w->M[a * d + b], w->M[a * d + b], w->tmp);
        }
      }
#endif
  }
}

/* Turn raw scores S_jk = <Q th_j, K th_k> (rows k > j ignored under the
 * causal mask) into unnormalized weights E_jk and normalizers Z_j with
 * w_jk = E_jk / Z_j.  Softmax and causal: E_jk = exp(beta (S_jk - m_j)),
 * m_j the row maximum.  USA: w_jk = exp(beta S_jk) / n, written as
 * E_jk = exp(beta (S_jk - m_j)), Z_j = n exp(-beta m_j).  (attention_blas.c's
 * weights_general, which the BLAS kernel uses, in the same order.) */
static int AF_FN(weights_general)(struct AF_WORK *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  AF_LOCAL(mx);
  AF_LOCAL(z);
  AF_LOCAL(tmp);
  AF_LOCAL(e);
  AF_VAL(beta, w->beta);
  for (size_t j = 0; j < n; j++) {
    AF_T *row = w->S + j * n;
    size_t kend = causal ? j + 1 : n;
    AF_SET_D(mx, -INFINITY);
    for (size_t k = 0; k < kend; k++)
      if (AF_CMP(row[k], mx) > 0)
        AF_SET(mx, row[k]);
    if (!AF_ISFINITE(mx))
      return AF_ENONFINITE;
    AF_SET_UI(z, 0);
    for (size_t k = 0; k < kend; k++) {
      AF_SUB(tmp, row[k], mx);
      AF_MUL(tmp, beta, tmp);
      AF_EXP(row[k], tmp);
      AF_ADD(z, z, row[k]);
    }
    for (size_t k = kend; k < n; k++)
      AF_SET_UI(row[k], 0);
    if (m->attn == AF_ATTN_USA) {
      AF_NEG(tmp, beta);
      AF_MUL(tmp, tmp, mx);
      AF_EXP(e, tmp);
      if (AF_ISZERO(e) || !AF_ISFINITE(e))
        return AF_EOVERFLOW;
      AF_MUL_UI(z, e, n);
    }
    AF_SET(w->Z[j], z);
  }
  return AF_OK;
}

/* Identity Q, K: exponent beta (S_jk - 1) <= 0 (max at k = j), symmetric,
 * so exp is evaluated once per unordered pair (lower triangle), mirrored
 * unless the mask is causal. */
static int AF_FN(weights_identity)(struct AF_WORK *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  AF_LOCAL(tmp);
  AF_LOCAL(e);
  AF_LOCAL(usa_z);
  AF_LOCAL(z);
  AF_VAL(beta, w->beta);
  AF_SET_UI(usa_z, 0);
  if (m->attn == AF_ATTN_USA) {
    AF_NEG(tmp, beta);
    AF_EXP(e, tmp);
    if (AF_ISZERO(e))
      return AF_EOVERFLOW;
    AF_MUL_UI(usa_z, e, n);
  }
  for (size_t j = 0; j < n; j++) {
    AF_T *row = w->S + j * n;
    for (size_t k = 0; k < j; k++) {
      AF_SUB_D(tmp, row[k], 1.0);
      AF_MUL(tmp, beta, tmp);
      AF_EXP(row[k], tmp);
      if (causal)
        AF_SET_UI(w->S[k * n + j], 0);
      else
        AF_SET(w->S[k * n + j], row[k]);
    }
    AF_SUB_D(tmp, row[j], 1.0);
    AF_MUL(tmp, beta, tmp);
    AF_EXP(row[j], tmp);
  }
  for (size_t j = 0; j < n; j++) {
    if (m->attn == AF_ATTN_USA) {
      AF_SET(w->Z[j], usa_z);
      continue;
    }
    AF_T *row = w->S + j * n;
    AF_SET_UI(z, 0);
    for (size_t k = 0; k < n; k++)
      AF_ADD(z, z, row[k]);
    AF_SET(w->Z[j], z);
  }
  return AF_OK;
}

#ifdef AF_PAIR_SYMMETRIC
/* Identity Q, K, V under softmax (not causal), in one pass over the
 * unordered pairs k < j (instances defining AF_PAIR_SYMMETRIC, i.e. MPFR,
 * whose operations all cost alike, so that halving their number halves
 * the time).  For a pair, D = th_k - th_j and q = |D|^2 are formed once,
 * e = exp(-beta q / 2) = exp(beta (<th_j, th_k> - 1)) once (symmetric),
 * and e D is added to row j's sum and subtracted from row k's:
 *   Z_j = sum_k e_jk (e_jj = 1),  R_j = sum_k e_jk q_jk,
 *   Praw_j = sum_k e_jk (th_k - th_j),
 * then with w_jk = e_jk / Z_j:  A_j = th_j + Praw_j / Z_j,
 * radial_j = R_j / (2 Z_j),  P_j = Praw_j / Z_j + radial_j th_j,
 * c_j = 1 - radial_j (sum_k w_jk = 1), amag_j = Z_j / Z_j (|V th_k| = 1).
 * About 23 operations and one exp per unordered pair, against about 50
 * and one exp for the two ordered pairs of attention_direct's loops.  The
 * exponent -beta q / 2 is formed directly (the general path rounds
 * 1 - q/2 first).  Uses w->G[0..d-1] for D and w->c for R_j. */
static void AF_FN(attention_pairs)(struct AF_WORK *w)
{
  size_t n = w->n, d = w->d;
  AF_LOCAL(q);
  AF_LOCAL(tmp);
  AF_LOCAL(tmp2);
  AF_LOCAL(e);
  AF_LOCAL(iz);
  AF_LOCAL(radial);
  AF_VAL(beta, w->beta);
  AF_T *D = w->G;
  for (size_t j = 0; j < n; j++) {
    for (size_t i = 0; i < d; i++)
      AF_SET_UI(w->P[j * d + i], 0);
    AF_SET_UI(w->Z[j], 1);
    AF_SET_UI(w->c[j], 0);
  }
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *tj = w->th + j * d;
    AF_T *Pj = w->P + j * d;
    for (size_t k = 0; k < j; k++) {
      AF_CONST AF_T *tk = w->th + k * d;
      AF_T *Pk = w->P + k * d;
      AF_SUB(D[0], tk[0], tj[0]);
      AF_MUL(q, D[0], D[0]);
      for (size_t i = 1; i < d; i++) {
        AF_SUB(D[i], tk[i], tj[i]);
        AF_MUL(tmp, D[i], D[i]);
        AF_ADD(q, q, tmp);
      }
      AF_MUL(tmp, beta, q);
      AF_MUL_2SI(tmp, tmp, -1);
      AF_NEG(tmp, tmp);
      AF_EXP(e, tmp);
      for (size_t i = 0; i < d; i++) {
        AF_MUL(tmp, e, D[i]);
        AF_ADD(Pj[i], Pj[i], tmp);
        AF_SUB(Pk[i], Pk[i], tmp);
      }
      AF_ADD(w->Z[j], w->Z[j], e);
      AF_ADD(w->Z[k], w->Z[k], e);
      AF_MUL(tmp, e, q);
      AF_ADD(w->c[j], w->c[j], tmp);
      AF_ADD(w->c[k], w->c[k], tmp);
    }
  }
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *tj = w->th + j * d;
    AF_T *Aj = w->A + j * d, *Pj = w->P + j * d;
    AF_UI_DIV(iz, 1, w->Z[j]);
    AF_MUL(radial, w->c[j], iz);
    AF_MUL_2SI(radial, radial, -1);
    for (size_t i = 0; i < d; i++) {
      AF_MUL(tmp, Pj[i], iz);
      AF_ADD(Aj[i], tj[i], tmp);
      AF_MUL(tmp2, radial, tj[i]);
      AF_ADD(Pj[i], tmp, tmp2);
    }
    AF_D_SUB(w->c[j], 1.0, radial);
    AF_MUL(w->amag[j], w->Z[j], iz);
    AF_FN(norm2)(w, &w->a[j], Aj, d);
  }
}
#endif

/* The AF_KERNEL_DIRECT attention: from the unit directions in w->th and
 * beta in w->beta, the weights into S and Z, and A, P = P_th A, c, a = |A|,
 * amag into the work (Q, K, V doubles, NULL = identity; plain loops over
 * pairs in a fixed order). */
static int AF_FN(attention_direct)(struct AF_WORK *w, const af_model *m,
                                   const double *Q, const double *K,
                                   const double *V)
{
  size_t n = w->n, d = w->d;
  int rc;
  int ident = (Q == NULL && K == NULL);
  AF_LOCAL(q);
  AF_LOCAL(diff);
  AF_LOCAL(tmp);
  AF_LOCAL(tmp2);
  AF_LOCAL(iz);
  AF_LOCAL(am);
  AF_LOCAL(radial);
#ifdef AF_PAIR_SYMMETRIC
  if (ident && V == NULL && m->attn == AF_ATTN_SOFTMAX) {
    AF_FN(attention_pairs)(w);
    return AF_OK;
  }
#endif
  /* Scores into S (exponents for the identity case). */
  if (ident) {
    for (size_t j = 0; j < n; j++) {
      AF_CONST AF_T *tj = w->th + j * d;
      AF_SET_D(w->S[j * n + j], 1.0);
      for (size_t k = 0; k < j; k++) {
        AF_CONST AF_T *tk = w->th + k * d;
        AF_SET_UI(q, 0);
        for (size_t i = 0; i < d; i++) {
          AF_SUB(diff, tk[i], tj[i]);
          AF_MUL(tmp, diff, diff);
          AF_ADD(q, q, tmp);
        }
        /* 1 - |D|^2/2 = <th_j, th_k> for unit vectors, formed so that
         * weights_identity's S - 1 is exactly -|D|^2/2. */
        AF_MUL_D(tmp, q, 0.5);
        AF_D_SUB(w->S[j * n + k], 1.0, tmp);
        AF_SET(w->S[k * n + j], w->S[j * n + k]);
      }
    }
    /* weights_identity computes exp(beta (S - 1)).  In double S =
     * fl(1 - q/2) is within eps/2 of 1 - q/2 and S - 1 is then exact
     * (Sterbenz, S in [1/2, 2] for pairs within 90 degrees), so each
     * weight carries a relative error of at most beta eps / 2 + one
     * rounding of exp (likewise at any MPFR precision). */
    rc = AF_FN(weights_identity)(w, m);
  } else {
    AF_FN(score_matrix)(w, Q, K);
    for (size_t j = 0; j < n; j++) {
      AF_CONST AF_T *tj = w->th + j * d;
      AF_T *Tj = w->T + j * d;
      for (size_t b = 0; b < d; b++) {
        AF_SET_UI(tmp2, 0);
        for (size_t a = 0; a < d; a++) {
          AF_MUL(tmp, tj[a], w->M[a * d + b]);
          AF_ADD(tmp2, tmp2, tmp);
        }
        AF_SET(Tj[b], tmp2);
      }
    }
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < n; k++)
        AF_FN(dot)(w, &w->S[j * n + k], w->T + j * d, w->th + k * d, d);
    rc = AF_FN(weights_general)(w, m);
  }
  if (rc != AF_OK)
    return rc;
  if (V != NULL) {
    for (size_t k = 0; k < n; k++) {
      AF_T *Gk = w->G + k * d;
      AF_CONST AF_T *tk = w->th + k * d;
      for (size_t a = 0; a < d; a++)
#ifdef AF_EXACT_WEIGHTS
        if (AF_EXACT_WEIGHTS(w))
          AF_FN(dot)(w, &Gk[a], w->par->wv + a * d, tk, d);
        else
#endif
          AF_FN(dot_d)(w, &Gk[a], V + a * d, tk, d);
      AF_FN(dot)(w, &w->gn[k], Gk, Gk, d);
      AF_SQRT(w->gn[k], w->gn[k]);
    }
  }
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *tj = w->th + j * d;
    AF_CONST AF_T *row = w->S + j * n;
    AF_T *Aj = w->A + j * d, *Pj = w->P + j * d;
    AF_UI_DIV(iz, 1, w->Z[j]);
    for (size_t i = 0; i < d; i++) {
      AF_SET_UI(Aj[i], 0);
      AF_SET_UI(Pj[i], 0);
    }
    AF_SET_UI(am, 0);
    if (V == NULL) {
      AF_SET_UI(radial, 0); /* sum_k w_jk |D_jk|^2 / 2 */
      for (size_t k = 0; k < n; k++) {
        if (AF_ISZERO(row[k]))
          continue;
        AF_VAL(e, row[k]);
        AF_CONST AF_T *tk = w->th + k * d;
        AF_SET_UI(q, 0);
        for (size_t i = 0; i < d; i++) {
          AF_SUB(diff, tk[i], tj[i]);
          AF_MUL(tmp, e, diff);
          AF_ADD(Pj[i], Pj[i], tmp);
          AF_MUL(tmp, e, tk[i]);
          AF_ADD(Aj[i], Aj[i], tmp);
          AF_MUL(tmp, diff, diff);
          AF_ADD(q, q, tmp);
        }
        AF_MUL_D(tmp, e, 0.5); /* (e * 0.5) * q */
        AF_MUL(tmp, tmp, q);
        AF_ADD(radial, radial, tmp);
        AF_ADD(am, am, e);
      }
      AF_MUL(radial, radial, iz);
      for (size_t i = 0; i < d; i++) {
        AF_MUL(Aj[i], Aj[i], iz);
        AF_MUL(tmp, Pj[i], iz);
        AF_MUL(tmp2, radial, tj[i]);
        AF_ADD(Pj[i], tmp, tmp2);
      }
      /* c = sum_k w_jk <th_j, th_k> = sum_k w_jk - radial; sum_k w_jk = 1
       * under softmax, e^beta-weighted under USA. */
      AF_MUL(tmp, am, iz);
      AF_SUB(w->c[j], tmp, radial);
    } else {
      for (size_t k = 0; k < n; k++) {
        if (AF_ISZERO(row[k]))
          continue;
        AF_VAL(e, row[k]);
        AF_CONST AF_T *Gk = w->G + k * d;
        for (size_t i = 0; i < d; i++) {
          AF_MUL(tmp, e, Gk[i]);
          AF_ADD(Aj[i], Aj[i], tmp);
        }
        AF_MUL(tmp, e, w->gn[k]);
        AF_ADD(am, am, tmp);
      }
      for (size_t i = 0; i < d; i++)
        AF_MUL(Aj[i], Aj[i], iz);
      AF_FN(dot)(w, &w->c[j], tj, Aj, d);
      for (size_t i = 0; i < d; i++) {
        AF_MUL(tmp, w->c[j], tj[i]);
        AF_SUB(Pj[i], Aj[i], tmp);
      }
    }
    AF_MUL(w->amag[j], am, iz);
    AF_FN(norm2)(w, &w->a[j], Aj, d);
  }
  return AF_OK;
}

/* The status of the attention just computed from finite directions:
 * AF_OK, or a non-finite a_j or c_j, an overflow (AF_EOVERFLOW) under
 * USA's unnormalized weights and AF_ENONFINITE otherwise.  Every kernel's
 * (attention.c calls the double instance's for the BLAS kernel too). */
int AF_FN(attention_status)(const struct AF_WORK *w, const af_model *m)
{
  for (size_t j = 0; j < w->n; j++)
    if (!AF_ISFINITE(w->a[j]) || !AF_ISFINITE(w->c[j]))
      return m->attn == AF_ATTN_USA ? AF_EOVERFLOW : AF_ENONFINITE;
  return AF_OK;
}

#ifdef AF_SPEC_MP
/* A spec'd scheme's constants at the work's precision (made at first use,
 * and again when the work meets another spec's constants). */
static int AF_FN(spec_consts)(struct AF_WORK *w, const af_scheme_spec *sp)
{
  if (w->spec_x == NULL || memcmp(w->spec_k, &sp->k, sizeof sp->k) != 0) {
    af_expr_mp_free(w->spec_x);
    w->spec_x = NULL;
    if (w->spec_k == NULL && (w->spec_k = malloc(sizeof *w->spec_k)) == NULL)
      return AF_ENOMEM;
    memcpy(w->spec_k, &sp->k, sizeof sp->k);
    if ((w->spec_x = af_expr_mp_alloc(&sp->k, w->prec)) == NULL)
      return AF_ENOMEM;
  }
  return AF_OK;
}

/* out = M x for one d x d weight matrix: the exact one (a weights file
 * read at the precision, ex != NULL), else the double Md (NULL =
 * identity).  Row-major, out[a] = sum_b M[a][b] x[b] from b = 0. */
static void AF_FN(norm_matvec)(struct AF_WORK *w, AF_T *out, const AF_T *ex,
                               const double *Md, AF_CONST AF_T *x)
{
  size_t d = w->d;
  for (size_t a = 0; a < d; a++) {
    if (ex != NULL)
      AF_FN(dot)(w, &out[a], (AF_T *) ex + a * d, x, d);
    else if (Md != NULL)
      AF_FN(dot_d)(w, &out[a], Md + a * d, x, d);
    else
      AF_SET(out[a], x[a]);
  }
}

/* Attention changed by normalization (theorems.md U3) at the working
 * precision: the formulas of attention_norm.c (the double path's kernel
 * for such a spec), every operation correctly rounded and the gain g(t)
 * evaluated by af_expr_eval_mp with the spec's literals read at the
 * precision.  Score of (j, k): (beta g) (u_j v_k) <Q th_j, K th_k>, with
 * u = v = 1 (plain), u_j = r_j, v_k = r_k (radii) or u_j = 1/|Q th_j|,
 * v_k = 1/|K th_k| (qknorm); softmax with the row maximum subtracted,
 * causal, or USA (exp(score), Z = n); values V th_k.  Queries go to T,
 * keys to P and u, v to c and a until the scores are made (all are
 * overwritten below); the weights fill S and Z, then A, P, c, a, amag. */
static int AF_FN(attention_norm)(struct AF_WORK *w, const af_model *m,
                                 const af_scheme_spec *sp, const double *Q,
                                 const double *K, const double *V, AF_SRC t,
                                 AF_CONST AF_T *y)
{
  size_t n = w->n, d = w->d;
  int scores = sp->scores, causal = m->attn == AF_ATTN_CAUSAL;
  const AF_T *eq = NULL, *ek = NULL, *ev = NULL;
#ifdef AF_EXACT_WEIGHTS
  if (AF_EXACT_WEIGHTS(w)) {
    eq = w->par->wq;
    ek = w->par->wk;
    ev = w->par->wv;
  }
#endif
  /* beta g(t) into w->sv (w->beta stays beta: several heads call this
   * once each) */
  if (sp->has_gain) {
    int rc = AF_FN(spec_consts)(w, sp);
    if (rc != AF_OK)
      return rc;
    mpfr_srcptr v[AF_EXPR_NVARS] = {t, NULL, NULL, NULL, NULL, NULL};
    af_expr_eval_mp(w->sv, &sp->gain, w->spec_x, v);
    if (!AF_ISFINITE(w->sv))
      return AF_ENONFINITE;
    AF_MUL(w->sv, w->beta, w->sv);
  } else
    AF_SET(w->sv, w->beta);
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *tj = w->th + j * d;
    AF_T *qj = w->T + j * d, *kj = w->P + j * d, *gj = w->G + j * d;
    AF_FN(norm_matvec)(w, qj, eq, Q, tj);
    AF_FN(norm_matvec)(w, kj, ek, K, tj);
    AF_FN(norm_matvec)(w, gj, ev, V, tj);
    AF_FN(norm2)(w, &w->gn[j], gj, d);
    if (scores == AF_SPEC_SCORES_RADII) {
      AF_SET(w->c[j], y[n * d + j]);
      AF_SET(w->a[j], y[n * d + j]);
    } else if (scores == AF_SPEC_SCORES_QKNORM) {
      AF_FN(norm2)(w, &w->c[j], qj, d);
      AF_FN(norm2)(w, &w->a[j], kj, d);
      if (!(AF_SGN(w->c[j]) > 0) || !(AF_SGN(w->a[j]) > 0))
        return AF_EZERONORM; /* a query or key of norm zero */
      AF_UI_DIV(w->c[j], 1, w->c[j]);
      AF_UI_DIV(w->a[j], 1, w->a[j]);
    } else {
      AF_SET_UI(w->c[j], 1);
      AF_SET_UI(w->a[j], 1);
    }
  }
  for (size_t j = 0; j < n; j++) {
    AF_T *row = w->S + j * n;
    size_t kend = causal ? j + 1 : n;
    AF_SET_D(w->mx, -INFINITY);
    for (size_t k = 0; k < kend; k++) {
      /* (beta g) (u_j v_k) <q_j, k_k> */
      AF_FN(dot)(w, &w->q, w->T + j * d, w->P + k * d, d);
      AF_MUL(w->e, w->c[j], w->a[k]);
      AF_MUL(w->e, w->sv, w->e);
      AF_MUL(row[k], w->e, w->q);
      if (AF_CMP(row[k], w->mx) > 0)
        AF_SET(w->mx, row[k]);
    }
    if (!AF_ISFINITE(w->mx))
      return AF_ENONFINITE;
    AF_SET_UI(w->z, 0);
    for (size_t k = 0; k < kend; k++) {
      if (m->attn == AF_ATTN_USA) /* exp(score) / n, nothing subtracted */
        AF_EXP(row[k], row[k]);
      else {
        AF_SUB(w->tmp, row[k], w->mx);
        AF_EXP(row[k], w->tmp);
        AF_ADD(w->z, w->z, row[k]);
      }
    }
    for (size_t k = kend; k < n; k++)
      AF_SET_UI(row[k], 0);
    if (m->attn == AF_ATTN_USA)
      AF_SET_UI(w->z, n);
    AF_SET(w->Z[j], w->z);
  }
  for (size_t j = 0; j < n; j++) {
    AF_CONST AF_T *tj = w->th + j * d;
    AF_CONST AF_T *row = w->S + j * n;
    AF_T *Aj = w->A + j * d, *Pj = w->P + j * d;
    size_t kend = causal ? j + 1 : n;
    for (size_t i = 0; i < d; i++)
      AF_SET_UI(Aj[i], 0);
    AF_SET_UI(w->am, 0);
    for (size_t k = 0; k < kend; k++) {
      AF_CONST AF_T *gk = w->G + k * d;
      for (size_t i = 0; i < d; i++) {
        AF_MUL(w->tmp, row[k], gk[i]);
        AF_ADD(Aj[i], Aj[i], w->tmp);
      }
      AF_MUL(w->tmp, row[k], w->gn[k]);
      AF_ADD(w->am, w->am, w->tmp);
    }
    AF_UI_DIV(w->iz, 1, w->Z[j]);
    for (size_t i = 0; i < d; i++)
      AF_MUL(Aj[i], Aj[i], w->iz);
    AF_FN(dot)(w, &w->c[j], tj, Aj, d);
    for (size_t i = 0; i < d; i++) {
      AF_MUL(w->tmp, w->c[j], tj[i]);
      AF_SUB(Pj[i], Aj[i], w->tmp);
    }
    AF_MUL(w->amag[j], w->am, w->iz);
    AF_FN(norm2)(w, &w->a[j], Aj, d);
  }
  return AF_OK;
}
#endif

/* Several heads (attention_heads.c's sum at the work's precision): the
 * direct kernel runs once per head with that head's Q, K, V on the same
 * directions, and A, P, c, amag are added in head order h = 0, 1, ...
 * into the work's accumulators (the first head copied, exactly); then
 * a_j = |A_j| of the sum.  Z, S and the other scratch keep the last
 * head's values. */
static int AF_FN(attention_heads)(struct AF_WORK *w, const af_model *m,
                                  double tp, size_t H,
                                  const af_scheme_spec *nsp, AF_SRC t,
                                  AF_CONST AF_T *y)
{
#ifndef AF_SPEC_MP
  (void) nsp;
  (void) t;
  (void) y;
#endif
  size_t n = w->n, d = w->d, nd = n * d;
  if (w->hA == NULL) {
    w->hA = AF_FN(vec_new)(nd, w->prec);
    w->hP = AF_FN(vec_new)(nd, w->prec);
    w->hc = AF_FN(vec_new)(n, w->prec);
    w->hm = AF_FN(vec_new)(n, w->prec);
    if (!w->hA || !w->hP || !w->hc || !w->hm) {
      AF_FN(vec_del)(w->hA, nd);
      AF_FN(vec_del)(w->hP, nd);
      AF_FN(vec_del)(w->hc, n);
      AF_FN(vec_del)(w->hm, n);
      w->hA = w->hP = w->hc = w->hm = NULL;
      return AF_ENOMEM;
    }
  }
  for (size_t h = 0; h < H; h++) {
    const double *Q, *K, *V;
    af_weights_head_at(&Q, &K, &V, m->w, tp, h);
    int rc;
#ifdef AF_SPEC_MP
    if (nsp != NULL) /* U3: its kernel, once per head */
      rc = AF_FN(attention_norm)(w, m, nsp, Q, K, V, t, y);
    else
#endif
      rc = AF_FN(attention_direct)(w, m, Q, K, V);
    if (rc != AF_OK)
      return rc;
    if (h == 0) {
      for (size_t i = 0; i < nd; i++) {
        AF_SET(w->hA[i], w->A[i]);
        AF_SET(w->hP[i], w->P[i]);
      }
      for (size_t j = 0; j < n; j++) {
        AF_SET(w->hc[j], w->c[j]);
        AF_SET(w->hm[j], w->amag[j]);
      }
      continue;
    }
    for (size_t i = 0; i < nd; i++) {
      AF_ADD(w->hA[i], w->hA[i], w->A[i]);
      AF_ADD(w->hP[i], w->hP[i], w->P[i]);
    }
    for (size_t j = 0; j < n; j++) {
      AF_ADD(w->hc[j], w->hc[j], w->c[j]);
      AF_ADD(w->hm[j], w->hm[j], w->amag[j]);
    }
  }
  for (size_t i = 0; i < nd; i++) {
    AF_SET(w->A[i], w->hA[i]);
    AF_SET(w->P[i], w->hP[i]);
  }
  for (size_t j = 0; j < n; j++) {
    AF_SET(w->c[j], w->hc[j]);
    AF_SET(w->amag[j], w->hm[j]);
    AF_FN(norm2)(w, &w->a[j], w->A + j * d, d);
  }
  return AF_OK;
}

/* attention_fill of attention.c. */
static int AF_FN(attention_fill)(struct AF_WORK *w, AF_SRC t,
                                 AF_CONST AF_T *y, const af_model *m)
{
  int rc = af_model_fits(m, w->n, w->d);
  if (rc != AF_OK)
    return rc;
  rc = AF_FN(directions)(w, y);
  if (rc != AF_OK)
    return rc;
#ifdef AF_PARAMS
  if (w->par != NULL)
    AF_SET(w->beta, w->par->beta);
  else
#endif
    AF_SET_D(w->beta, m->beta);
  if (m->fault & AF_FAULT_ATTENTION) /* beta (1 + 0.05), attnflow.h */
    AF_MULQ(w->beta, w->beta, 21, 20, 1.05);
  /* Piece time as in af_work_piece_time (weight sets switch at double
   * breakpoints, so the piece is selected in double). */
  double tp = w->seg_set ? 0.5 * (w->seg_lo + w->seg_hi) : AF_GET_D(t);
  size_t H = af_weights_heads(m->w);
  if (H > 1) {
    /* Several heads, summed (attention_heads), under a U3 spec by its
     * kernel.  Exact weights stand for one set of one head: refused
     * (head 0 alone would be another model). */
#ifdef AF_EXACT_WEIGHTS
    if (AF_EXACT_WEIGHTS(w))
      return AF_EINVAL;
#endif
    const af_scheme_spec *hsp =
        m->scheme == AF_SCHEME_USER ? af_scheme_spec_of(m->user) : NULL;
    if (!af_scheme_spec_alters_attention(hsp))
      hsp = NULL;
    rc = AF_FN(attention_heads)(w, m, tp, H, hsp, t, y);
    if (rc != AF_OK)
      return rc;
    w->nevals++;
    return AF_FN(attention_status)(w, m);
  }
  const double *Q, *K, *V;
  af_weights_at(&Q, &K, &V, m->w, tp);
#ifdef AF_EXACT_WEIGHTS
  /* Exact weights stand for the model's one set (a weights file): its
   * matrices are all given, so the general kernel runs. */
  if (AF_EXACT_WEIGHTS(w) && (m->w == NULL || m->w->layers != 1
                              || Q == NULL || K == NULL || V == NULL
                              || w->par->wd != w->d))
    return AF_EINVAL;
#endif
#ifdef AF_SPEC_MP
  /* A spec whose normalization changes attention (U3): its own kernel. */
  const af_scheme_spec *nsp =
      m->scheme == AF_SCHEME_USER ? af_scheme_spec_of(m->user) : NULL;
  if (af_scheme_spec_alters_attention(nsp))
    rc = AF_FN(attention_norm)(w, m, nsp, Q, K, V, t, y);
  else
#endif
    rc = AF_FN(attention_direct)(w, m, Q, K, V);
  if (rc != AF_OK)
    return rc;
  w->nevals++;
  return AF_FN(attention_status)(w, m);
}

/* The vector field: rates, rates_fill and rhs (mp_rhs_source.c; they use
 * attention_fill and norm2 above). */
#include "mp_rhs_source.c"

/* Attention outputs (af_attention): any output may be NULL. */
int AF_FN(attention)(AF_T *A, AF_T *pt, AF_T *c, AF_T *a, AF_SRC t,
                     AF_CONST AF_T *y, const af_model *m, struct AF_WORK *w)
{
  if (w == NULL || y == NULL || AF_SRC_BAD(t))
    return AF_EINVAL;
  int rc = AF_FN(attention_fill)(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, nd = w->n * w->d;
  for (size_t i = 0; i < nd; i++) {
    if (A)
      AF_SET(A[i], w->A[i]);
    if (pt)
      AF_SET(pt[i], w->P[i]);
  }
  for (size_t j = 0; j < n; j++) {
    if (c)
      AF_SET(c[j], w->c[j]);
    if (a)
      AF_SET(a[j], w->a[j]);
  }
  return AF_OK;
}

#undef AF_GK_SCALARS
