/* mp_integrate.c -- two independent high-order MPFR integrators of the
 * attention flow, with error control to a requested tolerance.
 *
 * mp-gauss: s-stage Gauss-Legendre collocation, order 2s (Hairer, Norsett,
 *   Wanner, Solving ODEs I, 2nd ed., §II.7, Table 7.4 for s <= 3).  Nodes
 *   c_i = (1 - x_i)/2 with x_i the roots of the Legendre polynomial P_s,
 *   found by Newton from Tricomi's estimate cos(pi (i - 1/4)/(s + 1/2));
 *   weights b_i = 1/((1 - x_i^2) P_s'(x_i)^2); a_ij = int_0^{c_i} l_j, l_j
 *   the Lagrange basis on the nodes (condition C(s)).  All computed with
 *   guard bits over the working precision; no decimal literal enters
 *   (mp_tableau.c, with the GBS table's ratios).
 *   The stage equations are solved by Gauss-Seidel fixed-point iteration
 *   until the increment is at the rounding level of the working precision
 *   (it converges for h L rho(A) < 1; a step whose iteration stalls above
 *   that level is rejected and halved).  Error control: step doubling
 *   (one step of h against two of h/2, HNW I §II.4); the two half steps
 *   are kept (not extrapolated) and the estimate of their local error is
 *   the whole difference D = |y_{h/2,h/2} - y_h|, not Richardson's
 *   D/(2^{2s} - 1): at the large steps a high order takes, the asymptotic
 *   factor 2^{2s} is not reached (measured: the Richardson form was 3x
 *   optimistic on T4.1 pre-ln at order 44), while D bounds the error of
 *   y_{h/2,h/2} whenever halving the step at least halves the error
 *   (e_h <= D + e_{h/2} <= D + e_h/2 gives e_{h/2} <= e_h/2 <= D).
 *
 * mp-gbs: Gragg-Bulirsch-Stoer (HNW I §II.9): the modified midpoint rule
 *   with n_k = 2k substeps (k = 1..K) has an error expansion in even powers
 *   of the step (Gragg 1965), so the Aitken-Neville table in h^2,
 *   T_{k,j+1} = T_{k,j} + (T_{k,j} - T_{k-1,j}) n_{k-j}^2/(n_k^2 - n_{k-j}^2),
 *   uses only integer ratios.  T_{K,K} (order 2K) is the result and
 *   D = |T_{K,K} - T_{K,K-1}| its local error estimate: by the argument
 *   above it bounds the error of T_{K,K} whenever that is at most half the
 *   error of T_{K,K-1}.  With the rows left to it (columns 0), K starts at
 *   one row per 3 digits and moves by work per unit step (gbs_select)
 *   up to two rows above that; the signed D is also carried to the end
 *   for the global estimate err_global (mp_globerr.c).
 *
 * Both: error per unit step -- a step of length h is accepted when its
 * local estimate is <= tol h / span (span = the whole run's length), so
 * the sum of local estimates, reported as the run's error estimate, stays
 * below tol; the local tolerance never drops below the rounding floor of
 * the estimate, MP_NOISE_ULPS units of the working precision, where no
 * step size would meet it.  (The sum neglects the growth of earlier errors; the flows
 * here contract, and tests/test_mp.c checks the estimate against a run at
 * twice the precision and a tighter tolerance.)  The error norm is the max
 * norm divided by max(1, |y|_inf).  Step-size controller: h_new = h
 * min(4, max(1/5, (aim tol_local/err)^(1/q))) with q the order of the
 * estimate's h-dependence after dividing by h, and aim = 0.9^q (mp-gauss:
 * the safety factor 0.9 on the step) or 1/4 (mp-gbs, with the predictive
 * factor of gbs_predict).  Control arithmetic is in
 * double (it decides step sizes, never values); the state and time are
 * MPFR at the working precision, and step ends hit the breakpoints and
 * output times exactly.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "attnflow_mp.h"
#include "mp_kernel.h"
#include "mp_taylor.h"
#include "mp_globerr.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define RND MPFR_RNDN

/* ---------------------------------------------------------- vectors */

mpfr_t *af_mp_vec_alloc(size_t len, mpfr_prec_t prec)
{
  size_t bytes;
  if (prec < AF_PREC_MIN || prec > AF_PREC_MAX + AF_PREC_GUARD
      || !af_size_mul(&bytes, len ? len : 1, sizeof(mpfr_t)))
    return NULL;
  mpfr_t *v = malloc(bytes);
  if (v == NULL)
    return NULL;
  for (size_t i = 0; i < len; i++) {
    mpfr_init2(v[i], prec);
    mpfr_set_zero(v[i], 1);
  }
  return v;
}

void af_mp_vec_free(mpfr_t *v, size_t len)
{
  if (v == NULL)
    return;
  for (size_t i = 0; i < len; i++)
    mpfr_clear(v[i]);
  free(v);
}

void af_mp_vec_set_d(mpfr_t *v, const double *x, size_t len)
{
  if (v == NULL || x == NULL)
    return;
  for (size_t i = 0; i < len; i++)
    mpfr_set_d(v[i], x[i], RND);
}

void af_mp_vec_get_d(double *x, mpfr_t *v, size_t len)
{
  if (v == NULL || x == NULL)
    return;
  for (size_t i = 0; i < len; i++)
    x[i] = mpfr_get_d(v[i], RND);
}

void af_mp_vec_set(mpfr_t *dst, mpfr_t *src, size_t len)
{
  if (dst == NULL || src == NULL)
    return;
  for (size_t i = 0; i < len; i++)
    mpfr_set(dst[i], src[i], RND);
}

void af_mp_vec_dist2(mpfr_t r, mpfr_t *a, mpfr_t *b, size_t len, mpfr_t tmp)
{
  if (r == NULL || a == NULL || b == NULL || tmp == NULL)
    return;
  mpfr_set_zero(r, 1);
  for (size_t i = 0; i < len; i++) {
    mpfr_sub(tmp, a[i], b[i], RND);
    mpfr_sqr(tmp, tmp, RND);
    mpfr_add(r, r, tmp, RND);
  }
}

/* max_i |a_i - b_i| 2^scale, rounded up to a double (scale lets values
 * below the double range be compared with the working precision). */
static double maxdiff_scaled(mpfr_t *a, mpfr_t *b, size_t len, long scale)
{
  mpfr_prec_t p = len ? mpfr_get_prec(a[0]) : 53;
  mpfr_t t;
  mpfr_init2(t, p + 8);
  double mx = 0;
  for (size_t i = 0; i < len; i++) {
    mpfr_sub(t, a[i], b[i], MPFR_RNDA);
    mpfr_abs(t, t, RND);
    mpfr_mul_2si(t, t, scale, RND);
    double v = mpfr_get_d(t, MPFR_RNDU);
    if (!(v <= mx)) /* also propagates NaN */
      mx = v;
  }
  mpfr_clear(t);
  return mx;
}

double af_mp_vec_maxdiff(mpfr_t *a, mpfr_t *b, size_t len)
{
  if (a == NULL || b == NULL)
    return NAN;
  return maxdiff_scaled(a, b, len, 0);
}

/* max(1, |y|_inf) as a double. */
static double vec_scale(mpfr_t *y, size_t len)
{
  double mx = 1.0;
  for (size_t i = 0; i < len; i++) {
    double v = fabs(mpfr_get_d(y[i], MPFR_RNDA));
    if (v > mx)
      mx = v;
  }
  return mx;
}

/* ---------------------------------------------------------- methods */

static const char *const mp_method_names[AF_MP_METHOD_COUNT] = {
    "mp-gauss", "mp-gbs", "mp-taylor"};

AF_DEFINE_NAME(af_mp_method_name, af_mp_method, mp_method_names,
               AF_MP_METHOD_COUNT, )
AF_DEFINE_LOOKUP(af_mp_method_lookup, af_mp_method, mp_method_names,
                 AF_MP_METHOD_COUNT, )

void af_mp_opts_init(af_mp_opts *o)
{
  if (o == NULL)
    return;
  memset(o, 0, sizeof *o);
  o->method = AF_MP_GBS; /* the faster (docs/performance.md) */
  o->tol = 1e-60;
}

/* Private status: the stage iteration of a Gauss step did not converge
 * (the step is rejected and halved, never returned to the caller). */
#define MP_NOCONV (-1)

typedef struct {
  af_mp_method method;
  size_t N;
  mpfr_prec_t prec;
  unsigned s;          /* Gauss stages / GBS rows K */
  mpfr_t *gA, *gb, *gc; /* Gauss tableau */
  mpfr_t *K;           /* Gauss: s x N stages; GBS: 2 K x N table rows */
  mpfr_t *K2;          /* Gauss: stages of the full step (s x N)        */
  mpfr_t *lv;          /* Gauss: Lagrange basis values (s x s)          */
  mpfr_t *Y, *F, *y1, *y2, *y3, *z0, *z1;
  mpfr_t ts, hh, acc, tmp;
  /* GBS rows in parallel: the first column T_{k,1} of the table (K x N),
   * and per thread i a work (0: the caller's) and scratch rows zp, zc,
   * zn, F (4 N) and scalars ts, hh, acc, tmp (4). */
  int nthr;
  mpfr_t *T1;
  af_mp_work **tw;
  mpfr_t *tz, *tsc;
  unsigned long ev_moved; /* their evaluations already added to tw[0] */
  af_mp_taylor *tay;      /* mp-taylor: its series (mp_taylor.c)          */
  af_mp_glob *glob;       /* global estimate (mp_globerr.c), or NULL      */
  double *dvec, *ydbl;    /* a step's local error vector, its start (N)   */
  /* GBS order selection: the rows the next step takes, in [kmin, kmax]
   * (s = kmax rows are allocated); err1 = |T_{K-1,K-1} - T_{K-1,K-2}| of
   * the last step (INFINITY for K < 3). */
  unsigned kcur, kmin, kmax;
  double err1;
  /* GBS step control's memory (gbs_predict): the last accepted step's
   * length (0: none to use) and its estimate over its local tolerance. */
  double ctl_h, ctl_err;
} mp_ctx;

/* Numbers in c->K: GBS two rows of the table per row K, Gauss s stages,
 * Taylor none (one row, unused). */
static size_t ctx_klen(af_mp_method method, unsigned s, size_t N)
{
  if (method == AF_MP_TAYLOR)
    return N;
  return (method == AF_MP_GBS ? 2 : 1) * (size_t) s * N;
}

static void ctx_free(mp_ctx *c)
{
  size_t N = c->N;
  af_mp_vec_free(c->gA, (size_t) c->s * c->s);
  af_mp_vec_free(c->gb, c->s);
  af_mp_vec_free(c->gc, c->s);
  af_mp_vec_free(c->K2, (size_t) c->s * N);
  af_mp_vec_free(c->lv, (size_t) c->s * c->s);
  af_mp_vec_free(c->K, ctx_klen(c->method, c->s, N));
  af_mp_taylor_free(c->tay);
  af_mp_glob_free(c->glob);
  free(c->dvec);
  free(c->ydbl);
  af_mp_vec_free(c->Y, N);
  af_mp_vec_free(c->F, N);
  af_mp_vec_free(c->y1, N);
  af_mp_vec_free(c->y2, N);
  af_mp_vec_free(c->y3, N);
  af_mp_vec_free(c->z0, N);
  af_mp_vec_free(c->z1, N);
  mpfr_clears(c->ts, c->hh, c->acc, c->tmp, (mpfr_ptr) 0);
  if (c->method == AF_MP_GBS) {
    af_mp_vec_free(c->T1, (size_t) c->s * N);
    af_mp_vec_free(c->tz, (size_t) c->nthr * 4 * N);
    af_mp_vec_free(c->tsc, (size_t) c->nthr * 4);
    if (c->tw != NULL)
      for (int i = 1; i < c->nthr; i++)
        af_mp_work_free(c->tw[i]);
    free(c->tw);
  }
}

/* Threads for the rows of a GBS table: OpenMP's count (OMP_NUM_THREADS),
 * at most K; 1 inside an enclosing parallel region or without OpenMP. */
static int gbs_threads(unsigned K)
{
#ifdef _OPENMP
  if (omp_in_parallel())
    return 1;
  int t = omp_get_max_threads();
  if (t > (int) K)
    t = (int) K;
  return t < 1 ? 1 : t;
#else
  (void) K;
  return 1;
#endif
}

static int ctx_init(mp_ctx *c, af_mp_method method, unsigned s, size_t N,
                    mpfr_prec_t prec, const af_model *m, af_mp_work *w)
{
  memset(c, 0, sizeof *c);
  c->method = method;
  c->N = N;
  c->prec = prec;
  c->s = s;
  c->kcur = c->kmin = c->kmax = s;
  mpfr_inits2(prec, c->ts, c->hh, c->acc, c->tmp, (mpfr_ptr) 0);
  int ok = 1;
  if (method == AF_MP_GAUSS) {
    c->gA = af_mp_vec_alloc((size_t) s * s, prec);
    c->gb = af_mp_vec_alloc(s, prec);
    c->gc = af_mp_vec_alloc(s, prec);
    c->K2 = af_mp_vec_alloc((size_t) s * N, prec);
    c->lv = af_mp_vec_alloc((size_t) s * s, prec);
    ok = c->gA && c->gb && c->gc && c->K2 && c->lv;
    if (ok && af_mp_gauss_tableau(c->gA, c->gb, c->gc, s) != AF_OK)
      ok = 0;
  }
  if (method == AF_MP_GBS) {
    c->nthr = gbs_threads(s);
    c->T1 = af_mp_vec_alloc((size_t) s * N, prec);
    c->tz = af_mp_vec_alloc((size_t) c->nthr * 4 * N, prec);
    c->tsc = af_mp_vec_alloc((size_t) c->nthr * 4, prec);
    c->tw = calloc((size_t) c->nthr, sizeof *c->tw);
    ok = c->T1 && c->tz && c->tsc && c->tw;
    if (ok) {
      c->tw[0] = w;
      for (int i = 1; i < c->nthr; i++)
        if ((c->tw[i] = af_mp_work_alloc(m->n, m->d, prec)) == NULL)
          ok = 0;
        else /* the exact parameters of w, if any (af_mp_work_set_params) */
          af_mp_work_set_params(c->tw[i], af_mp_work_params(w));
    }
  }
  if (method == AF_MP_TAYLOR) {
    /* Threads over tokens and pairs: OpenMP's count, 1 inside an
     * enclosing parallel region (bit-identical for any count); 1 below
     * 16 tokens, where an order's work per thread (under 120 pairs) is
     * short against the two barriers that close it. */
    int nt = m->n >= 16 ? gbs_threads((unsigned) m->n) : 1;
    c->tay = af_mp_taylor_alloc(m->n, m->d, s, prec, nt);
    ok = ok && c->tay != NULL;
  }
  if (method == AF_MP_GBS) {
    /* The transported global estimate (mp_globerr.c, theorems.md N3g).
     * Not for mp-gauss: its difference y_h - y_{h/2,h/2} is the error of
     * the full step, up to 2^(2s) times that of the two half steps kept
     * (transported: 1.7e8 times the true error on T4.1 Pre-LN, tol 1e-40,
     * tests/test_mp.c). */
    c->glob = af_mp_glob_alloc(m);
    c->dvec = calloc(N ? N : 1, sizeof(double));
    c->ydbl = calloc(N ? N : 1, sizeof(double));
    ok = ok && c->glob && c->dvec && c->ydbl;
  }
  c->K = af_mp_vec_alloc(ctx_klen(method, s, N), prec);
  c->Y = af_mp_vec_alloc(N, prec);
  c->F = af_mp_vec_alloc(N, prec);
  c->y1 = af_mp_vec_alloc(N, prec);
  c->y2 = af_mp_vec_alloc(N, prec);
  c->y3 = af_mp_vec_alloc(N, prec);
  c->z0 = af_mp_vec_alloc(N, prec);
  c->z1 = af_mp_vec_alloc(N, prec);
  if (!ok || !c->K || !c->Y || !c->F || !c->y1 || !c->y2 || !c->y3 || !c->z0
      || !c->z1) {
    ctx_free(c);
    return AF_ENOMEM;
  }
  return AF_OK;
}

/* One Gauss-Legendre step y1 = Phi_h(t0, y0) (y1 may not alias y0).
 * guess = 0: the stages start from f(t0, y0); 1: from c->K as given. */
static int gauss_step(mpfr_t *y1, mpfr_t *y0, mpfr_srcptr t0, mpfr_srcptr h,
                      int guess, mp_ctx *c, const af_model *m, af_mp_work *w)
{
  size_t N = c->N;
  unsigned s = c->s;
  double hd = fabs(mpfr_get_d(h, RND));
  double ymax = vec_scale(y0, N);
  int rc;
  if (!guess) {
    rc = af_mp_rhs(c->F, t0, y0, m, w);
    if (rc != AF_OK)
      return rc;
    for (unsigned i = 0; i < s; i++)
      af_mp_vec_set(c->K + (size_t) i * N, c->F, N);
  }
  /* Converged when the last sweep changed h K by at most 4 units of the
   * working precision relative to |y|; a sweep that no longer reduces the
   * change has reached rounding noise if the change is within 2^16 units
   * (else the iteration diverges). */
  double prev = INFINITY;
  int maxit = 4 * (int) c->prec + 20;
  for (int it = 0;; it++) {
    if (it >= maxit)
      return MP_NOCONV;
    double delta = 0;
    for (unsigned i = 0; i < s; i++) {
      for (size_t l = 0; l < N; l++) {
        mpfr_set_zero(c->acc, 1);
        for (unsigned j = 0; j < s; j++) {
          mpfr_mul(c->tmp, c->gA[i * s + j], c->K[(size_t) j * N + l], RND);
          mpfr_add(c->acc, c->acc, c->tmp, RND);
        }
        mpfr_mul(c->acc, c->acc, h, RND);
        mpfr_add(c->Y[l], y0[l], c->acc, RND);
      }
      mpfr_mul(c->ts, c->gc[i], h, RND);
      mpfr_add(c->ts, t0, c->ts, RND);
      rc = af_mp_rhs(c->F, c->ts, c->Y, m, w);
      if (rc != AF_OK)
        return rc;
      double di = maxdiff_scaled(c->F, c->K + (size_t) i * N, N,
                                 (long) c->prec);
      if (!(di <= delta))
        delta = di;
      af_mp_vec_set(c->K + (size_t) i * N, c->F, N);
    }
    if (!isfinite(delta))
      return MP_NOCONV;
    if (hd * delta <= 4 * ymax)
      break;
    if (it >= 2 && delta >= prev) {
      if (hd * delta <= 65536.0 * ymax)
        break;
      return MP_NOCONV;
    }
    prev = delta;
  }
  for (size_t l = 0; l < N; l++) {
    mpfr_set_zero(c->acc, 1);
    for (unsigned i = 0; i < s; i++) {
      mpfr_mul(c->tmp, c->gb[i], c->K[(size_t) i * N + l], RND);
      mpfr_add(c->acc, c->acc, c->tmp, RND);
    }
    mpfr_mul(c->acc, c->acc, h, RND);
    mpfr_add(y1[l], y0[l], c->acc, RND);
  }
  return AF_OK;
}

/* Stage predictor for a half step from the full step's collocation
 * polynomial u (stages in c->K2): u'(t0 + theta h) = sum_j K2_j
 * l_j(theta), at theta_i = off + c_i / 2 (off = 0: first half, 1/2:
 * second).  Its error is that of the collocation polynomial, O(h^s), so
 * the iteration starts close to its fixed point; it changes only the
 * starting guess, never the converged stages. */
static void gauss_predict(mp_ctx *c, int second)
{
  size_t N = c->N;
  unsigned s = c->s;
  mpfr_t th, num, q;
  mpfr_inits2(c->prec, th, num, q, (mpfr_ptr) 0);
  for (unsigned i = 0; i < s; i++) {
    mpfr_div_2ui(th, c->gc[i], 1, RND);
    if (second)
      mpfr_add_d(th, th, 0.5, RND);
    for (unsigned j = 0; j < s; j++) {
      mpfr_set_ui(num, 1, RND);
      for (unsigned k = 0; k < s; k++) {
        if (k == j)
          continue;
        mpfr_sub(q, th, c->gc[k], RND);
        mpfr_mul(num, num, q, RND);
        mpfr_sub(q, c->gc[j], c->gc[k], RND);
        mpfr_div(num, num, q, RND);
      }
      mpfr_set(c->lv[i * s + j], num, RND);
    }
  }
  for (unsigned i = 0; i < s; i++)
    for (size_t l = 0; l < N; l++) {
      mpfr_set_zero(c->acc, 1);
      for (unsigned j = 0; j < s; j++) {
        mpfr_mul(c->tmp, c->lv[i * s + j], c->K2[(size_t) j * N + l], RND);
        mpfr_add(c->acc, c->acc, c->tmp, RND);
      }
      mpfr_set(c->K[(size_t) i * N + l], c->acc, RND);
    }
  mpfr_clears(th, num, q, (mpfr_ptr) 0);
}

/* One Gauss step with step doubling: c->y3 = two half steps, *err its
 * local error estimate (max norm, absolute). */
static int gauss_double_step(double *err, mpfr_t *y0, mpfr_srcptr t0,
                             mpfr_srcptr h, mp_ctx *c, const af_model *m,
                             af_mp_work *w)
{
  size_t N = c->N;
  int rc = gauss_step(c->y1, y0, t0, h, 0, c, m, w);
  if (rc != AF_OK)
    return rc;
  af_mp_vec_set(c->K2, c->K, (size_t) c->s * N);
  mpfr_div_2ui(c->hh, h, 1, RND);
  gauss_predict(c, 0);
  rc = gauss_step(c->y2, y0, t0, c->hh, 1, c, m, w);
  if (rc != AF_OK)
    return rc;
  mpfr_t th;
  mpfr_init2(th, c->prec);
  mpfr_add(th, t0, c->hh, RND);
  gauss_predict(c, 1);
  rc = gauss_step(c->y3, c->y2, th, c->hh, 1, c, m, w);
  mpfr_clear(th);
  if (rc != AF_OK)
    return rc;
  /* |y_{h/2,h/2} - y_h|, not divided by 2^(2s) - 1 (see the header). */
  *err = af_mp_vec_maxdiff(c->y3, c->y1, N);
  return AF_OK;
}

/* T_{k,1} of a GBS step: n_k = 2k modified midpoint substeps of H from
 * (t0, y0) with f0 = f(t0, y0), into out, with the kernel work w and the
 * scratch of one thread (z: 4 N, sc: 4 scalars). */
static int gbs_row(mpfr_t *out, unsigned k, mpfr_t *y0, mpfr_srcptr t0,
                   mpfr_srcptr H, mpfr_t *f0, size_t N, mpfr_t *z, mpfr_t *sc,
                   const af_model *m, af_mp_work *w)
{
  mpfr_ptr ts = sc[0], hh = sc[1], acc = sc[2], tmp = sc[3];
  unsigned long nk = af_mp_gbs_seq(k);
  mpfr_div_ui(hh, H, nk, RND);
  mpfr_t *zp = z, *zc = z + N, *zn = z + 2 * N, *F = z + 3 * N;
  af_mp_vec_set(zp, y0, N);
  for (size_t l = 0; l < N; l++) {
    mpfr_mul(tmp, hh, f0[l], RND);
    mpfr_add(zc[l], y0[l], tmp, RND);
  }
  mpfr_mul_2ui(acc, hh, 1, RND);
  for (unsigned long q = 1; q < nk; q++) {
    mpfr_mul_ui(ts, hh, q, RND);
    mpfr_add(ts, t0, ts, RND);
    int rc = af_mp_rhs(F, ts, zc, m, w);
    if (rc != AF_OK)
      return rc;
    for (size_t l = 0; l < N; l++) {
      mpfr_mul(tmp, acc, F[l], RND);
      mpfr_add(zn[l], zp[l], tmp, RND);
    }
    mpfr_t *r = zp;
    zp = zc;
    zc = zn;
    zn = r;
  }
  af_mp_vec_set(out, zc, N);
  return AF_OK;
}

/* One GBS step of length H: result in c->y3, *err its estimate.  The
 * rows T_{k,1} are independent and computed by c->nthr threads, largest
 * first (row k costs 2k - 1 evaluations); each is the same sequence of
 * correctly rounded operations whichever thread computes it, and the
 * extrapolation that combines them runs afterwards in a fixed order, so
 * the result does not depend on the thread count. */
static int gbs_step(double *err, mpfr_t *y0, mpfr_srcptr t0, mpfr_srcptr H,
                    mp_ctx *c, const af_model *m, af_mp_work *w)
{
  size_t N = c->N;
  unsigned K = c->kcur;
  mpfr_t *Tprev = c->K, *Tcur = c->K + (size_t) c->s * N;
  int rc = af_mp_rhs(c->Y, t0, y0, m, w); /* f0, kept in c->Y */
  if (rc != AF_OK)
    return rc;
  int nthr = c->nthr;
  int rcs = AF_OK;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthr) if (nthr > 1) reduction(max : rcs)
#endif
  for (unsigned r = 0; r < K; r++) {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    unsigned k = K - r;
    int rr = gbs_row(c->T1 + (size_t) (k - 1) * N, k, y0, t0, H, c->Y, N,
                     c->tz + (size_t) me * 4 * N, c->tsc + (size_t) me * 4, m,
                     c->tw[me]);
    if (rr > rcs) /* status codes are positive: the largest, whatever
                     the order the rows finish in */
      rcs = rr;
  }
  /* The other threads' evaluations are counted on the caller's work. */
  unsigned long ev = 0;
  for (int i = 1; i < nthr; i++)
    ev += af_mp_work_nevals(c->tw[i]);
  af_mp_work_add_nevals(w, ev - c->ev_moved);
  c->ev_moved = ev;
  if (rcs != AF_OK)
    return rcs;
  for (unsigned k = 1; k <= K; k++) {
    af_mp_vec_set(Tcur, c->T1 + (size_t) (k - 1) * N, N);
    for (unsigned j = 1; j < k; j++) {
      unsigned long num, den;
      af_mp_gbs_ratio(&num, &den, k, j);
      mpfr_t *Tj = Tcur + (size_t) j * N, *Tj1 = Tcur + (size_t) (j - 1) * N;
      mpfr_t *Pj1 = Tprev + (size_t) (j - 1) * N;
      for (size_t l = 0; l < N; l++) {
        mpfr_sub(c->tmp, Tj1[l], Pj1[l], RND);
        mpfr_mul_ui(c->tmp, c->tmp, num, RND);
        mpfr_div_ui(c->tmp, c->tmp, den, RND);
        mpfr_add(Tj[l], Tj1[l], c->tmp, RND);
      }
    }
    mpfr_t *r = Tprev;
    Tprev = Tcur;
    Tcur = r;
  }
  af_mp_vec_set(c->y3, Tprev + (size_t) (K - 1) * N, N);
  if (c->dvec != NULL && K >= 2)
    for (size_t l = 0; l < N; l++) {
      mpfr_sub(c->tmp, Tprev[(size_t) (K - 2) * N + l],
               Tprev[(size_t) (K - 1) * N + l], RND);
      c->dvec[l] = mpfr_get_d(c->tmp, RND);
    }
  /* Row K - 1 is in Tcur now: its own estimate, for order selection. */
  c->err1 = K >= 3 ? af_mp_vec_maxdiff(Tcur + (size_t) (K - 2) * N,
                                       Tcur + (size_t) (K - 3) * N, N)
                   : INFINITY;
  *err = K >= 2 ? af_mp_vec_maxdiff(Tprev + (size_t) (K - 1) * N,
                                    Tprev + (size_t) (K - 2) * N, N)
                : INFINITY;
  return AF_OK;
}

/* Default order from the tolerance: one Gauss stage / one GBS row per 3
 * decimal digits requested (order 2s ~ 2/3 of the digits), at least 3, at
 * most AF_MP_GAUSS_MAX.  The solutions here are analytic in a strip of
 * complex time of width ~0.3 (T4.1, beta = 2: poles of 1/Z), so the error
 * of order p behaves like (h/0.3)^p and a tolerance of 10^-D wants p
 * proportional to D (Taylor methods use p ~ D ln 10 / 2 for the same
 * reason).  Measured on T4.1 post-ln, n = d = 4, tol 1e-64, 256 bits:
 * gbs K = 10/16/24/32: 152510/12593/6924/7175 evaluations; gauss s =
 * 10/16/24: 160154/20448/13722.  On the benchmark case (n = 32, d = 3,
 * post-ln, tol 1e-60, T = 10; two starts) gbs K = 14/16/18/20/22/24:
 * 55357/36237/27300/22055/19400/19041 and 56342/36751/27625/22456/19400/
 * 18464 evaluations.  A row per 2.5 digits (K = 24 here) would save 15 %,
 * but the larger steps bring the estimate (the last two entries of the
 * table) to the true global error: 4.99e-42 against 5.01e-42 on the
 * peri-ln case of tests/test_mp.c at tol 1e-40 (K = 16; with K = 14 the
 * error is at most 0.25 of the estimate there), so the default stays. */
static unsigned default_order(double tol)
{
  double digits = -log10(tol);
  double k = ceil(digits / 3.0);
  if (k < 3)
    k = 3;
  if (k > AF_MP_GAUSS_MAX)
    k = AF_MP_GAUSS_MAX;
  return (unsigned) k;
}

/* Checkpoint bookkeeping of one run (opts->checkpoint). */
typedef struct {
  af_mp_ckpt ck;  /* identity fields set once; the rest per call */
  const af_mp_opts *o;
  int stopped;    /* the callback returned non-zero: do not call again */
  const mp_ctx *gbs; /* mp-gbs: its next rows and step control's memory,
                        else NULL */
} mp_ck_run;

/* Report the run's state to the checkpoint callback (if any). */
static int ck_call(mp_ck_run *r, af_mp_ck_event ev, int status, size_t k,
                   double lo, double hi, mpfr_ptr t, double hd, mpfr_t *y,
                   const af_mp_stats *st, unsigned long ev0, af_mp_work *w)
{
  if (r->o->checkpoint == NULL || r->stopped)
    return AF_OK;
  r->ck.event = ev;
  r->ck.status = status;
  r->ck.next_out = k;
  r->ck.piece_lo = lo;
  r->ck.piece_hi = hi;
  r->ck.t = t;
  r->ck.h = hd;
  r->ck.columns = r->gbs != NULL ? r->gbs->kcur : 0;
  r->ck.ctl_h = r->gbs != NULL ? r->gbs->ctl_h : 0;
  r->ck.ctl_err = r->gbs != NULL ? r->gbs->ctl_err : 0;
  r->ck.stats = *st;
  r->ck.stats.nevals = af_mp_work_nevals(w) - ev0;
  int rc = r->o->checkpoint(&r->ck, y, r->o->checkpoint_ctx);
  if (rc != 0)
    r->stopped = 1;
  return rc;
}

/* Rounding floor of a step's error estimate, in units 2^-prec of
 * max(1, |y|_inf): the estimate is the difference of two computed results
 * (GBS: two entries of the table; Gauss: the step against the two half
 * steps), each accurate to the few units its last sums and, for Gauss, the
 * stage iteration (converged at 4 units, gauss_step) leave, so 2 x 4 units.
 * A local tolerance below this floor cannot be met by shrinking the step:
 * the controller would shrink it until t + h == t (the stall of a long
 * run at low precision, tests/test_mp.c). */
#define MP_NOISE_ULPS 8.0

/* 1 if a step of hd from t does not move t at its precision (rem is
 * scratch of that precision). */
static int no_progress(mpfr_srcptr t, double hd, mpfr_ptr rem)
{
  if (!(hd > 0))
    return 1;
  mpfr_add_d(rem, t, hd, RND);
  return mpfr_equal_p(rem, t);
}

/* Step factor h_new/h, safety (tol_aim/errn)^(1/q), from a relative
 * estimate errn, for an estimate whose h-power after dividing by h is q;
 * in [1/5, 4].  mp-gauss: safety 0.9 and tol_aim the local tolerance;
 * mp-gbs: safety 1 and tol_aim a quarter of it (MP_GBS_AIM). */
static double step_factor(double errn, double tol_aim, double q,
                          double safety)
{
  double fac = errn > 0 ? safety * pow(tol_aim / errn, 1.0 / q) : 4.0;
  if (!(fac <= 4.0))
    fac = 4.0;
  if (fac < 0.2)
    fac = 0.2;
  return fac;
}

/* GBS order selection by work per unit step (Deuflhard, Numer. Math. 41
 * (1983) 399-422; HNW I §II.9, "order and step size control", the rule of
 * ODEX): a step with K rows costs A_K = 1 + K^2 evaluations (row k takes
 * 2k - 1, f0 is shared), and the step each of the last two rows would
 * allow is h fac_K and h fac_{K-1}, from their estimates.  The next step
 * takes K - 1 rows if A_{K-1}/fac_{K-1} < 0.9 A_K/fac_K; after an
 * accepted step, K + 1 rows with fac_K A_{K+1}/A_K if A_K/fac_K <
 * A_{K-1}/fac_{K-1}; else K.  K stays in [kmin, kmax], and does not grow
 * where the local tolerance is at the rounding floor (floored): there the
 * rounding decides a step's accuracy, and more rows only add to it (the
 * rows enter T_{K,K} with weights whose absolute sum grows with K, from
 * 3.4 at K = 6 to 7.0 at K = 20; at 64 bits and tol 1e-18, K + 2 rows
 * gave 3 times the error of K, tests/test_mp.c).  Returns the next K and
 * the step factor in *fac (fac_K on entry). */
static unsigned gbs_select(double *fac, const mp_ctx *c, double e1n,
                           double tol_aim, int accepted, int floored)
{
  unsigned K = c->kcur;
  if (c->kmax == c->kmin || K < 3)
    return K;
  double f1 = step_factor(e1n, tol_aim, 2.0 * K - 4, 1.0);
  double AK = 1.0 + (double) K * K, A1 = 1.0 + (double) (K - 1) * (K - 1);
  double WK = AK / *fac, W1 = A1 / f1;
  if (K - 1 >= c->kmin && W1 < 0.9 * WK) {
    *fac = f1;
    return K - 1;
  }
  if (accepted && !floored && K + 1 <= c->kmax && WK < W1) {
    double A2 = 1.0 + (double) (K + 1) * (K + 1);
    *fac = fmin(4.0, *fac * A2 / AK);
    return K + 1;
  }
  return K;
}

/* Where the step control aims a step's estimate, as a fraction of the
 * local tolerance.  mp-gauss: the classical safety factor 0.9 on the step,
 * which at order q aims at 0.9^q of it (0.018 at q = 38).  mp-gbs: a
 * quarter of it, and the predictive factor below, so that the sum of the
 * local estimates comes near tol instead of 0.02 tol (docs/performance.md:
 * on the benchmark's five starts at 1e-60 the errors land 20-56 times
 * below tol instead of 54-285 times, in about the same evaluations; an
 * aim of 0.05 to 0.2 without the predictive factor took up to 17 % more
 * evaluations by rejected steps). */
#define MP_GBS_AIM 0.25

/* mp-gbs: the predictive step factor (Gustafsson, ACM TOMS 20 (1994)
 * 496-517; HNW II §IV.8, as RADAU5 applies it).  Along these flows a
 * step's estimate changes with t as much as with h (it grows by 20-60
 * times a step while the tokens gather, so a factor aimed at the last
 * estimate alone overshoots into a rejection): with e_n = err/tol_local
 * of this step and e_{n-1} of the last accepted one (same rows), the
 * trend e_{n-1}/e_n is assumed to go on,
 *   fac_pred = (h_n/h_{n-1}) (aim/e_n)^(1/q) (e_{n-1}/e_n)^(1/q),
 * and the step takes min(fac, fac_pred); e_{n-1} is kept at least 1/100
 * (RADAU5's floor), so a step far below its tolerance does not make the
 * next one shrink.  Returns fac unchanged without a usable last step. */
static double gbs_predict(const mp_ctx *c, double fac, double hcur,
                          double en, double q)
{
  if (!(c->ctl_h > 0) || !(en > 0))
    return fac;
  double fp = (hcur / c->ctl_h) * pow(MP_GBS_AIM / en, 1.0 / q)
              * pow(c->ctl_err / en, 1.0 / q);
  if (fp < 0.2)
    fp = 0.2;
  return fp < fac ? fp : fac;
}

/* Integrate one piece [ta, tb] of the field; *hd carries the step.  The
 * run starts at t0 if given (the exact time of y), else at ta, and ends
 * at tbx if given (the exact end), else at tb.  k is the index of the
 * output time being approached (for checkpoints); *tfinal receives the
 * exact time reached. */
static int integrate_piece(mpfr_t *y, double ta, double tb, mpfr_srcptr t0,
                           mpfr_srcptr tbx, double *hd, double span, const af_mp_opts *o,
                           mp_ctx *c, const af_model *m, af_mp_work *w,
                           af_mp_stats *st, unsigned long maxsteps,
                           mp_ck_run *ckr, size_t k, unsigned long ev0,
                           mpfr_ptr tfinal)
{
  size_t N = c->N;
  mpfr_t t, tend, h, rem;
  mpfr_inits2(c->prec, t, tend, h, rem, (mpfr_ptr) 0);
  if (t0 != NULL)
    mpfr_set(t, t0, RND);
  else
    mpfr_set_d(t, ta, RND);
  if (tbx != NULL)
    mpfr_set(tend, tbx, RND);
  else
    mpfr_set_d(tend, tb, RND);
  /* The estimate's h-power after dividing by h: Gauss 2s, GBS 2K - 2
   * (K the rows of the step, c->kcur). */
  double q = 2.0 * c->s;
  /* MP_NOISE_ULPS units of 2^-prec, relative to max(1, |y|_inf). */
  double noise = ldexp(MP_NOISE_ULPS, -(int) c->prec);
  int rc = AF_OK;
  while (mpfr_cmp(t, tend) < 0) {
    if (st->steps + st->rejected >= maxsteps) {
      rc = AF_EMAXSTEPS;
      break;
    }
    if (af_interrupted()) {
      rc = AF_ECANCELED;
      break;
    }
    mpfr_sub(rem, tend, t, RND);
    int last = 0;
    if (*hd >= mpfr_get_d(rem, RND)) {
      mpfr_set(h, rem, RND);
      last = 1;
    } else
      mpfr_set_d(h, *hd, RND);
    double hcur = mpfr_get_d(h, RND);
    double err = 0;
    if (c->method == AF_MP_TAYLOR) {
      /* The step comes from the coefficients (Jorba-Zou) and is never
       * rejected: its estimate meets the local tolerance by choice of h. */
      rc = af_mp_taylor_step(c->y3, h, &err, &last, y, t, rem, o->tol / span,
                             noise, ta, tb, m, af_mp_work_params(w), c->tay);
      if (rc != AF_OK)
        break;
      af_mp_work_add_nevals(w, c->s);
      hcur = mpfr_get_d(h, RND);
      af_mp_vec_set(y, c->y3, N);
      if (last)
        mpfr_set(t, tend, RND);
      else
        mpfr_add(t, t, h, RND);
      st->steps++;
      st->err_est += err;
      st->t_reached = mpfr_get_d(t, RND);
      if (!last || hcur > *hd)
        *hd = hcur;
      rc = ck_call(ckr, AF_MP_CK_STEP, AF_OK, k, ta, tb, t, *hd, y, st, ev0,
                   w);
      if (rc != AF_OK)
        break;
      continue;
    }
    rc = c->method == AF_MP_GAUSS ? gauss_double_step(&err, y, t, h, c, m, w)
                                  : gbs_step(&err, y, t, h, c, m, w);
    if (rc == MP_NOCONV) {
      st->rejected++;
      *hd = 0.5 * hcur;
      rc = AF_OK;
      if (no_progress(t, *hd, rem)) {
        rc = AF_ENOPROGRESS;
        break;
      }
      continue;
    }
    if (rc != AF_OK)
      break;
    double scale = vec_scale(y, N);
    double errn = err / scale;
    /* Error per unit step, but never below the rounding floor of the
     * estimate: below it the estimate is noise that no step size reduces
     * (see MP_NOISE_ULPS). */
    double tol_local = o->tol * hcur / span;
    int floored = tol_local < noise;
    if (floored)
      tol_local = noise;
    int gbs = c->method == AF_MP_GBS;
    if (gbs)
      q = 2.0 * c->kcur - 2;
    double aim = gbs ? MP_GBS_AIM : 1.0;
    double fac = step_factor(errn, aim * tol_local, q, gbs ? 1.0 : 0.9);
    int acc = errn <= tol_local;
    if (gbs) {
      unsigned Kstep = c->kcur;
      if (acc && !last) /* a step cut short to a piece's end has a
                           small estimate that says nothing of the trend */
        fac = gbs_predict(c, fac, hcur, errn / tol_local, q);
      c->kcur = gbs_select(&fac, c, c->err1 / scale, aim * tol_local, acc,
                           floored);
      /* The memory of an accepted step that was not cut short to a
       * piece's end, while the rows stay (the trend is one order's). */
      if (acc && !last) {
        c->ctl_h = hcur;
        c->ctl_err = fmax(errn / tol_local, 0.01);
      }
      if (c->kcur != Kstep)
        c->ctl_h = 0;
    }
    if (acc) {
      if (c->glob != NULL) {
        af_mp_vec_get_d(c->ydbl, y, N);
        int grc = af_mp_glob_step(c->glob, mpfr_get_d(t, RND), hcur, c->ydbl,
                                  c->dvec, m);
        /* The double field can fail where the MPFR one does not (a |A_j|
         * below double's resolution): the estimate is then unknown, the
         * run goes on. */
        if (grc != AF_OK) {
          af_mp_glob_free(c->glob);
          c->glob = NULL;
          st->err_global = NAN;
        } else
          st->err_global = af_mp_glob_norm(c->glob);
      }
      af_mp_vec_set(y, c->y3, N);
      if (last)
        mpfr_set(t, tend, RND);
      else
        mpfr_add(t, t, h, RND);
      st->steps++;
      st->err_est += err; /* absolute, as the tests compare */
      st->t_reached = mpfr_get_d(t, RND);
      /* Never let the carried step shrink to the last piece's remnant. */
      double hn = hcur * fac;
      if (!last || hn > *hd)
        *hd = hn;
      rc = ck_call(ckr, AF_MP_CK_STEP, AF_OK, k, ta, tb, t, *hd, y, st, ev0,
                   w);
      if (rc != AF_OK)
        break;
    } else {
      st->rejected++;
      *hd = hcur * fac;
      if (no_progress(t, *hd, rem)) {
        rc = AF_ENOPROGRESS;
        break;
      }
    }
  }
  mpfr_set(tfinal, t, RND);
  mpfr_clears(t, tend, h, rem, (mpfr_ptr) 0);
  return rc;
}

/* The exact end of a piece that stops at the double stop before the
 * output time tk: Mix-LN's exact tau when stop is its double (the value
 * in force in the field, af_mp_work_set_params); the boundary l h of
 * weight sets at the exact layer time h (into buf: l h rounded once)
 * when stop is the double path's l h; else NULL (stop itself). */
static mpfr_srcptr piece_end(const af_model *m, const af_mp_work *w,
                             double stop, mpfr_ptr buf)
{
  const af_mp_params *par = af_mp_work_params(w);
  if (par != NULL && af_model_switches_at_tau(m) && stop == m->tau)
    return par->tau;
  const af_weights *wt = m->w;
  if (par != NULL && wt != NULL && wt->layers > 1
      && mpfr_number_p(par->layer_dt)) {
    double l = nearbyint(stop / wt->layer_dt);
    if (l >= 1 && l < (double) wt->layers && l * wt->layer_dt == stop) {
      mpfr_mul_ui(buf, par->layer_dt, (unsigned long) l, RND);
      return buf;
    }
  }
  return NULL;
}

/* af_mp_integrate_x and af_mp_integrate: the times both in double (td:
 * pieces and step control) and exactly (tx, at the precision of y); one
 * of out_d, out_x is called. */
static int mp_integrate(mpfr_t *y, const double *td, mpfr_t *tx,
                        size_t ntimes, const af_model *m, const af_mp_opts *o,
                        af_mp_work *w, af_mp_output_fn out_d,
                        af_mp_output_x_fn out_x, void *ctx,
                        af_mp_stats *stats)
{
  af_mp_stats local;
  af_mp_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  if ((int) o->method < 0 || o->method >= AF_MP_METHOD_COUNT)
    return AF_EINVAL;
  /* tol is compared in double arithmetic; keep it in the normal range. */
  if (!(o->tol >= AF_MP_TOL_MIN && o->tol <= AF_MP_TOL_MAX)
      || !(o->h0 >= 0) || !isfinite(o->h0))
    return AF_EINVAL;
  for (size_t k = 0; k < ntimes; k++)
    if (!mpfr_number_p(tx[k]) || mpfr_sgn(tx[k]) < 0
        || (k && mpfr_cmp(tx[k], tx[k - 1]) < 0))
      return AF_EINVAL;
  unsigned s = o->method == AF_MP_GAUSS ? o->stages
               : o->method == AF_MP_GBS ? o->columns : o->order;
  if (s == 0)
    s = o->method == AF_MP_TAYLOR ? af_mp_taylor_default_order(o->tol)
                                  : default_order(o->tol);
  if (o->method == AF_MP_TAYLOR
          ? (s <= 2 || s > AF_MP_TAYLOR_MAX)
          : (s > AF_MP_GAUSS_MAX || (o->method == AF_MP_GBS && s < 2)))
    return AF_EINVAL;
  /* The order reported and checked on resume: 2s, or Taylor's p. */
  unsigned ord = o->method == AF_MP_TAYLOR ? s : 2 * s;
  size_t N = af_state_size(m->n, m->d);
  mpfr_prec_t prec = mpfr_get_prec(y[0]);
  /* mp-gbs with its rows chosen from tol: order selection (gbs_select)
   * in [3, K + 2], the table allocated for K + 2 rows.  Above K + 2 the
   * last two entries stop bounding the kept one's error at the large
   * steps the order allows (docs/performance.md: at K + 4, seed 2 of the
   * benchmark lands at 1.5 times its err_est, and N.mp's nGPT case at
   * 1.33 times). */
  unsigned kmax = s;
  if (o->method == AF_MP_GBS && o->columns == 0)
    kmax = s + 2 > AF_MP_GAUSS_MAX ? AF_MP_GAUSS_MAX : s + 2;
  mp_ctx c;
  rc = ctx_init(&c, o->method, kmax, N, prec, m, w);
  if (rc != AF_OK)
    return rc;
  c.kcur = s;
  c.kmin = kmax > s ? 3 : s; /* default_order is at least 3 */
  st->err_global = c.glob != NULL ? 0.0 : NAN;
  unsigned long maxsteps = o->max_steps ? o->max_steps : 1000000UL;
  double span = td[ntimes - 1] - td[0];
  if (span == 0) {
    /* Times that differ below a double's resolution. */
    mpfr_t sp;
    mpfr_init2(sp, prec);
    mpfr_sub(sp, tx[ntimes - 1], tx[0], RND);
    span = mpfr_get_d(sp, RND);
    mpfr_clear(sp);
  }
  double hd = o->h0 > 0 ? o->h0 : span / 8;
  double t = td[0];
  size_t k0 = 0;
  const af_mp_ckpt *rs = o->resume;
  if (rs != NULL) {
    /* Continue exactly where the checkpoint left off: same identity, a
     * consistent position (the piece is the one the run would take from
     * piece_lo towards times[next_out]). */
    if (rs->method != o->method || rs->order != ord || rs->tol != o->tol
        || rs->len != N || rs->prec != prec || rs->t == NULL
        || rs->next_out > ntimes || !(rs->h > 0) || !isfinite(rs->h)
        || mpfr_get_prec(rs->t) != prec || !mpfr_number_p(rs->t)) {
      ctx_free(&c);
      return AF_EINVAL;
    }
    if (rs->next_out < ntimes) {
      double tk = td[rs->next_out];
      if (!(rs->piece_lo >= td[0] && rs->piece_lo <= rs->piece_hi
            && rs->piece_hi <= tk
            && (rs->piece_lo == rs->piece_hi
                || af_next_breakpoint(m, rs->piece_lo, tk) == rs->piece_hi)
            && mpfr_get_d(rs->t, RND) >= rs->piece_lo
            && mpfr_get_d(rs->t, RND) <= rs->piece_hi
            && mpfr_cmp(rs->t, tx[rs->next_out]) <= 0)) {
        ctx_free(&c);
        return AF_EINVAL;
      }
    }
    if (o->method == AF_MP_GBS) {
      if (rs->columns < c.kmin || rs->columns > c.kmax
          || !(rs->ctl_h >= 0) || !isfinite(rs->ctl_h)
          || !(rs->ctl_err >= 0) || !isfinite(rs->ctl_err)) {
        ctx_free(&c);
        return AF_EINVAL;
      }
      c.kcur = rs->columns;
      c.ctl_h = rs->ctl_h;
      c.ctl_err = rs->ctl_err;
    }
    *st = rs->stats;
    /* The transported vector is not in a checkpoint: a resumed run
     * reports no global estimate (theorems.md N3g). */
    st->err_global = NAN;
    af_mp_glob_free(c.glob);
    c.glob = NULL;
    hd = rs->h;
    t = rs->piece_lo;
    k0 = rs->next_out;
  }
  st->order = ord;
  /* nevals continues from the checkpoint's count. */
  unsigned long ev0 = af_mp_work_nevals(w) - st->nevals;
  if (rs == NULL)
    st->t_reached = t;
  mp_ck_run ckr;
  memset(&ckr, 0, sizeof ckr);
  ckr.o = o;
  ckr.ck.method = o->method;
  ckr.ck.order = ord;
  ckr.ck.tol = o->tol;
  ckr.ck.len = N;
  ckr.ck.prec = prec;
  if (o->method == AF_MP_GBS)
    ckr.gbs = &c;
  mpfr_t tex, pend; /* exact time of y; exact end of a piece */
  mpfr_inits2(prec, tex, pend, (mpfr_ptr) 0);
  if (rs != NULL)
    mpfr_set(tex, rs->t, RND);
  else
    mpfr_set(tex, tx[0], RND);
  /* A resumed run re-enters its piece at the exact time saved. */
  int first = rs != NULL && k0 < ntimes && rs->piece_lo < rs->piece_hi;
  double lo = t, hi = t;
  size_t k;
  for (k = k0; k < ntimes && rc == AF_OK; k++) {
    double tk = td[k];
    /* (Exact times closer than a double's resolution share tk.) */
    while ((t < tk || mpfr_cmp(tex, tx[k]) < 0) && rc == AF_OK) {
      double stop = first ? rs->piece_hi : af_next_breakpoint(m, t, tk);
      lo = t;
      hi = stop;
      af_mp_work_set_piece(w, 1, t, stop);
      if (c.glob != NULL)
        af_mp_glob_set_piece(c.glob, 1, t, stop);
      for (int i = 1; i < c.nthr; i++)
        af_mp_work_set_piece(c.tw[i], 1, t, stop);
      rc = integrate_piece(y, t, stop, tex,
                           stop == tk ? tx[k] : piece_end(m, w, stop, pend), &hd,
                           span, o, &c, m, w, st, maxsteps, &ckr, k, ev0,
                           tex);
      first = 0;
      if (rc == AF_OK)
        t = stop;
    }
    af_mp_work_set_piece(w, 0, 0, 0);
    if (rc == AF_OK) {
      st->t_reached = tk;
      int orc = 0;
      if (out_d)
        orc = out_d(tk, y, ctx);
      else if (out_x)
        orc = out_x(tx[k], y, ctx);
      if (orc != 0)
        rc = orc;
    }
  }
  af_mp_work_set_piece(w, 0, 0, 0);
  st->nevals = af_mp_work_nevals(w) - ev0;
  /* Last report: the end, or the failure with the state of the last
   * accepted step (a failed output callback leaves next_out at its time,
   * so a resumed run calls it again). */
  if (rc == AF_OK) {
    int crc = ck_call(&ckr, AF_MP_CK_END, AF_OK, ntimes, t, t, tex, hd, y, st,
                      ev0, w);
    if (crc != AF_OK)
      rc = crc;
  } else if (!ckr.stopped) {
    size_t kf = k > k0 ? k - 1 : k0;
    if (mpfr_cmp_d(tex, hi) >= 0 && hi > lo)
      lo = hi; /* the piece was finished */
    ck_call(&ckr, AF_MP_CK_FAIL, rc, kf, lo, hi, tex, hd, y, st, ev0, w);
  }
  mpfr_clears(tex, pend, (mpfr_ptr) 0);
  ctx_free(&c);
  return rc;
}

/* Both entry points: the output times given as doubles td (checked
 * here) or as MPFR numbers tx, the other form made from them. */
static int mp_integrate_given(mpfr_t *y, const double *td, mpfr_t *tx,
                              size_t ntimes, const af_model *m,
                              const af_mp_opts *o, af_mp_work *w,
                              af_mp_output_fn out, af_mp_output_x_fn out_x,
                              void *ctx, af_mp_stats *stats)
{
  if (stats)
    memset(stats, 0, sizeof *stats);
  if (y == NULL || o == NULL || w == NULL || (td == NULL && tx == NULL)
      || ntimes == 0)
    return AF_EINVAL;
  double *td_made = NULL;
  mpfr_t *tx_made = NULL;
  if (td == NULL) {
    td = td_made = malloc(ntimes * sizeof *td_made);
    if (td_made == NULL)
      return AF_ENOMEM;
    for (size_t k = 0; k < ntimes; k++)
      td_made[k] = mpfr_get_d(tx[k], RND);
  } else {
    for (size_t k = 0; k < ntimes; k++)
      if (!isfinite(td[k]) || td[k] < 0 || (k && td[k] < td[k - 1]))
        return AF_EINVAL;
    tx = tx_made = af_mp_vec_alloc(ntimes, mpfr_get_prec(y[0]));
    if (tx_made == NULL)
      return AF_ENOMEM;
    af_mp_vec_set_d(tx_made, td, ntimes);
  }
  int rc = mp_integrate(y, td, tx, ntimes, m, o, w, out, out_x, ctx, stats);
  free(td_made);
  if (tx_made != NULL)
    af_mp_vec_free(tx_made, ntimes);
  return rc;
}

int af_mp_integrate_x(mpfr_t *y, mpfr_t *times, size_t ntimes,
                      const af_model *m, const af_mp_opts *o, af_mp_work *w,
                      af_mp_output_x_fn out, void *ctx, af_mp_stats *stats)
{
  return mp_integrate_given(y, NULL, times, ntimes, m, o, w, NULL, out, ctx,
                            stats);
}

int af_mp_integrate(mpfr_t *y, const double *times, size_t ntimes,
                    const af_model *m, const af_mp_opts *o, af_mp_work *w,
                    af_mp_output_fn out, void *ctx, af_mp_stats *stats)
{
  return mp_integrate_given(y, times, NULL, ntimes, m, o, w, out, NULL, ctx,
                            stats);
}
