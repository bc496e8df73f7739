/* claims_range.c -- claims that close classes of errors the kernels'
 * mutual agreement cannot see (theorems.md M2.qk, N.mplocal, N.sweep,
 * M1.dist), and I1.eq (the energy near equilibrium, MPFR; described
 * above its function).
 *
 *  - M2.qk: the scores are <Q th_j, K th_k>, i.e. th_j^T Q^T K th_k, not
 *    th_j^T K^T Q th_k.  The kernels share the product M = Q^T K, so they
 *    agree with each other whichever way it is formed; here a loop written
 *    from theorems.md M2 alone (Q th_j and K th_k formed, their dot
 *    product taken, softmax with the row maximum subtracted, A_j =
 *    sum_k w_jk V th_k, P_{th_j} A_j, in long double) is compared with
 *    af_rhs (BLAS and DIRECT kernels) and af_mp_rhs (MPFR) for a
 *    non-symmetric Q^T K and general V, Q alone, K alone, and causal
 *    masking.  measured = max error / rounding bound (derived below).
 *
 *  - N.mplocal: every step the MPFR controller accepts has its local
 *    estimate within the local tolerance: err_k <= max(1, |y|_inf) *
 *    max(tol h_k / span, 8 * 2^-prec) (attnflow_mp.h, mp_integrate.c's
 *    header).  The claim recomputes the local tolerance of each step from
 *    the documented rule, from the step's exact length (the checkpoint
 *    callback's times) and the estimate err_k (the increase of err_est),
 *    so a slip in the acceptance test or in the local tolerance is seen
 *    even where the run's total estimate stays below tol.
 *
 *  - N.sweep: each row of af_sweep_pairs (phase diagrams) is the run made
 *    alone at its grid point (beta_b, start af_sweep_seed(seed, k)), bit
 *    for bit; the grid is chosen so that all its rows differ (else the
 *    claim could not see a row filed under another point: INCONCLUSIVE).
 *
 *  - M1.dist: the starts have the laws theorems.md M1/S0 give them.
 *    Kolmogorov-Smirnov statistics sqrt(N) D_N of exact one-dimensional
 *    laws: each coordinate of "uniform" on S^2 (Archimedes: uniform on
 *    [-1, 1]) and on S^7 ((x+1)/2 ~ Beta(7/2, 7/2)); the cosine of
 *    consecutive tokens (independence: same law as a coordinate); the
 *    radius of "gaussian" in R^5 (r^2 ~ chi^2_5); the first coordinate of
 *    "hemisphere" on S^2 (uniform on [0, 1]).  Dvoretzky-Kiefer-Wolfowitz
 *    (Massart's constant): P(sqrt(N) D_N > lambda) <= 2 exp(-2 lambda^2)
 *    per statistic.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "attnflow_mp.h"
#include "verify.h"

/* ------------------------------------------------------------ M2.qk */

#define QK_N 7
#define QK_D 4
#define QK_BETA 1.7
#define QK_PREC 128

/* The Post-LN field of theorems.md M2/M3 for unit directions th (n x d),
 * from the definition: s_jk = <Q th_j, K th_k> (Q, K, V NULL = I), k <= j
 * only if causal.  dth (n x d) = P_{th_j} A_j. */
static void qk_reference(long double *dth, const double *th, size_t n,
                         size_t d, double beta, const double *Q,
                         const double *K, const double *V, int causal)
{
  long double qth[QK_N][QK_D], kth[QK_N][QK_D], vth[QK_N][QK_D];
  for (size_t j = 0; j < n; j++)
    for (size_t a = 0; a < d; a++) {
      long double sq = 0, sk = 0, sv = 0;
      for (size_t b = 0; b < d; b++) {
        long double x = th[j * d + b];
        sq += (Q ? (long double) Q[a * d + b] : (a == b)) * x;
        sk += (K ? (long double) K[a * d + b] : (a == b)) * x;
        sv += (V ? (long double) V[a * d + b] : (a == b)) * x;
      }
      qth[j][a] = sq;
      kth[j][a] = sk;
      vth[j][a] = sv;
    }
  for (size_t j = 0; j < n; j++) {
    size_t kmax = causal ? j + 1 : n;
    long double s[QK_N], mx = -INFINITY, z = 0, A[QK_D] = {0};
    for (size_t k = 0; k < kmax; k++) {
      s[k] = 0;
      for (size_t a = 0; a < d; a++)
        s[k] += qth[j][a] * kth[k][a];
      if (s[k] > mx)
        mx = s[k];
    }
    for (size_t k = 0; k < kmax; k++) {
      long double e = expl((long double) beta * (s[k] - mx));
      z += e;
      for (size_t a = 0; a < d; a++)
        A[a] += e * vth[k][a];
    }
    long double c = 0;
    for (size_t a = 0; a < d; a++) {
      A[a] /= z;
      c += A[a] * th[j * d + a];
    }
    for (size_t a = 0; a < d; a++)
      dth[j * d + a] = A[a] - c * th[j * d + a];
  }
}

/* Rounding bound of a double kernel's P_{th_j} A_j (u = 2^-53): a score
 * is two matrix-vector products and a dot product of length d, error <=
 * 2 d u sum_ab |th_ja| |M|_ab |th_kb| <= 2 d u S with S = sum |Q|^T|K|
 * entries (|th| <= 1); the weight then has relative error <= beta (2 x 2 d
 * u S) (score and row maximum) + 2u (exp, division) + n u (Z); A_j adds
 * (n + d) u relative to G = max_k |V th_k|; P adds 3 u |A| + its own
 * (d + 2) u.  Bound = G (2 beta 2 d u S + (2 n + 2 d + 8) u), doubled
 * for the reference's own rounding of th (none: long double). */
static double qk_bound(size_t n, size_t d, double beta, const double *Q,
                       const double *K, const double *V, const double *th)
{
  double u = DBL_EPSILON / 2, S = 0, G = 0;
  for (size_t a = 0; a < d; a++)
    for (size_t b = 0; b < d; b++) {
      double m = 0;
      for (size_t k = 0; k < d; k++)
        m += fabs(Q ? Q[k * d + a] : (double) (k == a))
             * fabs(K ? K[k * d + b] : (double) (k == b));
      S += m;
    }
  for (size_t k = 0; k < n; k++) {
    double g = 0;
    for (size_t a = 0; a < d; a++) {
      double v = 0;
      for (size_t b = 0; b < d; b++)
        v += fabs(V ? V[a * d + b] : (double) (a == b)) * fabs(th[k * d + b]);
      g += v * v;
    }
    if (sqrt(g) > G)
      G = sqrt(g);
  }
  return 2.0 * G * (4.0 * beta * (double) d * u * S
                    + (double) (2 * n + 2 * d + 8) * u);
}

typedef struct {
  const char *what;
  int q, k, v, causal; /* which matrices are given */
} qk_case;

static void claim_qk(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = QK_N, d = QK_D, N = af_state_size(QK_N, QK_D);
  double tol = af_v_tol(c, "M2.qk");
  static const qk_case cases[] = {
    {"Q,K,V", 1, 1, 1, 0}, {"Q only", 1, 0, 0, 0}, {"K only", 0, 1, 0, 0},
    {"Q,K causal", 1, 1, 0, 1}};
  double Q[QK_D * QK_D], K[QK_D * QK_D], V[QK_D * QK_D];
  double y[QK_N * QK_D + QK_N], dy[QK_N * QK_D + QK_N];
  long double ref[QK_N * QK_D];
  /* Non-symmetric Q^T K: entries of Q, K, V Gaussian N(0, 1/d) from a
   * fixed seed, plus the cyclic shift in Q, which makes Q^T K - K^T Q of
   * order 1. */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (rng == NULL) {
    af_v_error(r, AF_ENOMEM, "M2.qk");
    return;
  }
  gsl_rng_set(rng, 27101);
  for (size_t i = 0; i < d * d; i++) {
    Q[i] = gsl_ran_gaussian(rng, 1.0 / sqrt((double) d))
           + (double) (i % d == (i / d + 1) % d);
    K[i] = gsl_ran_gaussian(rng, 1.0 / sqrt((double) d));
    V[i] = gsl_ran_gaussian(rng, 1.0 / sqrt((double) d));
  }
  gsl_rng_free(rng);
  int rc;
  rc = af_init_state(y, NULL, "uniform", n, d, 1.0, 27102);
  af_weights *wt = af_weights_alloc(d, 1, 1.0);
  af_work *w = af_work_alloc(n, d);
  af_mp_work *mw = af_mp_work_alloc(n, d, QK_PREC);
  mpfr_t *my = af_mp_vec_alloc(N, QK_PREC), *mdy = af_mp_vec_alloc(N, QK_PREC);
  if (rc == AF_OK && !(wt && w && mw && my && mdy))
    rc = AF_ENOMEM;
  double worst = 0, asym = 0;
  const char *worst_what = "";
  mpfr_t t0;
  mpfr_init2(t0, QK_PREC);
  mpfr_set_zero(t0, 1);
  for (size_t ci = 0; rc == AF_OK && ci < sizeof cases / sizeof cases[0];
       ci++) {
    const qk_case *cs = &cases[ci];
    wt->Q[0] = cs->q ? Q : NULL;
    wt->K[0] = cs->k ? K : NULL;
    wt->V[0] = cs->v ? V : NULL;
    af_model m;
    af_v_model(&m, c, n, d, QK_BETA, AF_POST_LN);
    m.w = wt;
    m.attn = cs->causal ? AF_ATTN_CAUSAL : AF_ATTN_SOFTMAX;
    qk_reference(ref, y, n, d, QK_BETA, wt->Q[0], wt->K[0], wt->V[0],
                 cs->causal);
    double bound = qk_bound(n, d, QK_BETA, wt->Q[0], wt->K[0], wt->V[0], y);
    if (ci == 0) { /* how far the transposed scores would move the field */
      long double alt[QK_N * QK_D]; /* scores <K th_j, Q th_k> */
      qk_reference(alt, y, n, d, QK_BETA, K, Q, V, 0);
      for (size_t i = 0; i < n * d; i++)
        asym = fmax(asym, (double) fabsl(alt[i] - ref[i]));
    }
    for (int kern = 0; kern < 3 && rc == AF_OK; kern++) {
      if (kern < 2) {
        af_work_set_kernel(w, kern == 0 ? AF_KERNEL_BLAS : AF_KERNEL_DIRECT);
        rc = af_rhs(dy, 0.0, y, &m, w);
      } else {
        af_mp_vec_set_d(my, y, N);
        rc = af_mp_rhs(mdy, t0, my, &m, mw);
        af_mp_vec_get_d(dy, mdy, N);
      }
      for (size_t i = 0; rc == AF_OK && i < n * d; i++) {
        double e = (double) fabsl((long double) dy[i] - ref[i]) / bound;
        if (!(e <= worst)) {
          worst = e;
          worst_what = cs->what;
        }
      }
    }
  }
  mpfr_clear(t0);
  if (rc == AF_OK) {
    af_v_le(r, worst, tol, 0.0);
    af_v_note(r, "Post-LN n=%d d=%d beta=%g, Q^T K non-symmetric, BLAS, "
              "DIRECT and MPFR %d-bit fields vs the M2 loop: worst "
              "error/rounding bound %.3g (%s); K^T Q in place of Q^T K "
              "would move the field by %.3g",
              QK_N, QK_D, QK_BETA, QK_PREC, worst, worst_what, asym);
  } else
    af_v_error(r, rc, "M2.qk");
  if (wt) { /* the matrices are on the stack: detach before freeing */
    wt->Q[0] = wt->K[0] = wt->V[0] = NULL;
    af_weights_free(wt);
  }
  af_work_free(w);
  af_mp_work_free(mw);
  af_mp_vec_free(my, my ? N : 0);
  af_mp_vec_free(mdy, mdy ? N : 0);
}

/* ------------------------------------------------------------ N.mplocal */

#define ML_N 4
#define ML_D 3
#define ML_PREC 128

typedef struct {
  mpfr_t tprev;
  double eprev;   /* err_est after the previous accepted step            */
  double scale;   /* max(1, |y|_inf) before the step (MPFR_RNDA, as the
                     controller)                                        */
  double tol, span, noise;
  double worst;   /* max over steps of err_k / (scale tol_local)         */
  double worst_t;
  unsigned long steps;
  size_t N;
} ml_ctx;

static double ml_scale(mpfr_t *y, size_t N)
{
  double mx = 1.0;
  for (size_t i = 0; i < N; i++) {
    double v = fabs(mpfr_get_d(y[i], MPFR_RNDA));
    if (v > mx)
      mx = v;
  }
  return mx;
}

static int ml_step(const af_mp_ckpt *ck, mpfr_t *y, void *vctx)
{
  ml_ctx *x = vctx;
  if (ck->event != AF_MP_CK_STEP)
    return 0;
  mpfr_t h;
  mpfr_init2(h, mpfr_get_prec(ck->t));
  mpfr_sub(h, ck->t, x->tprev, MPFR_RNDN); /* the step's exact length */
  double hk = mpfr_get_d(h, MPFR_RNDN);
  mpfr_clear(h);
  mpfr_set(x->tprev, ck->t, MPFR_RNDN);
  /* err_est = fl(previous + err_k): the difference is err_k within
   * u err_est; take the smaller end, so that a correct run never fails. */
  double ek = ck->stats.err_est - x->eprev
              - 0.5 * DBL_EPSILON * ck->stats.err_est;
  x->eprev = ck->stats.err_est;
  double tl = x->tol * hk / x->span;
  if (tl < x->noise)
    tl = x->noise;
  double q = ek / (x->scale * tl);
  if (q > x->worst) {
    x->worst = q;
    x->worst_t = mpfr_get_d(ck->t, MPFR_RNDN);
  }
  x->steps++;
  x->scale = ml_scale(y, x->N);
  return 0;
}

static void claim_mplocal(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t N = af_state_size(ML_N, ML_D);
  double lim = af_v_tol(c, "N.mplocal");
  af_model m;
  af_v_model(&m, c, ML_N, ML_D, 2.5, AF_NGPT);
  m.alpha = 1.5;
  m.alpha_decay = 0.5;
  double y0[ML_N * ML_D + ML_N];
  int rc = af_init_state(y0, NULL, "gaussian", ML_N, ML_D, NAN, 5301);
  af_mp_work *w = af_mp_work_alloc(ML_N, ML_D, ML_PREC);
  mpfr_t *y = af_mp_vec_alloc(N, ML_PREC);
  if (rc == AF_OK && !(w && y))
    rc = AF_ENOMEM;
  const double times[3] = {0.0, 1.3, 3.0};
  double worst = 0, worst_t = 0;
  unsigned long steps = 0, rejected = 0;
  const char *worst_m = "";
  for (int meth = 0; meth < 2 && rc == AF_OK; meth++) {
    af_mp_opts o;
    af_mp_opts_init(&o);
    o.method = meth == 0 ? AF_MP_GAUSS : AF_MP_GBS;
    o.stages = 2;  /* order 4: the controller aims at 0.9^4 of the */
    o.columns = 3; /* local tolerance, so estimates near it are common */
    o.tol = 1e-9;
    ml_ctx x;
    memset(&x, 0, sizeof x);
    mpfr_init2(x.tprev, ML_PREC);
    mpfr_set_d(x.tprev, times[0], MPFR_RNDN);
    x.tol = o.tol;
    x.span = times[2] - times[0];
    x.noise = ldexp(8.0, -ML_PREC); /* the documented rounding floor */
    x.N = N;
    af_mp_vec_set_d(y, y0, N);
    x.scale = ml_scale(y, N);
    o.checkpoint = ml_step;
    o.checkpoint_ctx = &x;
    af_mp_stats st;
    rc = af_mp_integrate(y, times, 3, &m, &o, w, NULL, NULL, &st);
    mpfr_clear(x.tprev);
    if (rc == AF_OK && x.steps != st.steps)
      rc = AF_EINVAL; /* every accepted step must reach the callback */
    if (x.worst > worst || meth == 0) {
      worst = x.worst;
      worst_t = x.worst_t;
      worst_m = af_mp_method_name(o.method);
    }
    steps += st.steps;
    rejected += st.rejected;
  }
  if (rc == AF_OK) {
    af_v_le(r, worst, lim, 0.0);
    af_v_note(r, "nGPT alpha(t)=1.5(1+t)^-1/2, n=%d d=%d beta=2.5, %d bits, "
              "tol 1e-9, mp-gauss s=2 and mp-gbs K=3: %lu accepted, %lu "
              "rejected steps; worst accepted estimate / local tolerance "
              "%.4g (%s, t=%.3g)", ML_N, ML_D, ML_PREC, steps, rejected,
              worst, worst_m, worst_t);
  } else
    af_v_error(r, rc, "N.mplocal");
  af_mp_work_free(w);
  af_mp_vec_free(y, y ? N : 0);
}

/* ------------------------------------------------------------ N.sweep */

#define SW_N 12
#define SW_D 2
#define SW_NB 3
#define SW_NS 4
#define SW_NT 5

typedef struct {
  double f[SW_NT];
  size_t k;
} sw_rows;

static int sw_out(double t, const double *y, void *vctx)
{
  (void) t;
  sw_rows *x = vctx;
  if (x->k >= SW_NT)
    return AF_EINVAL;
  return af_pairs_above(&x->f[x->k++], y, SW_N, SW_D, 0.9);
}

static void claim_sweep(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double tol = af_v_tol(c, "N.sweep");
  const double betas[SW_NB] = {0.7, 2.5, 5.5};
  const double times[SW_NT] = {0.0, 1.5, 3.0, 6.0, 10.0};
  af_model m;
  af_v_model(&m, c, SW_N, SW_D, 1.0, AF_POST_LN);
  af_sweep_spec s;
  af_sweep_spec_init(&s, &m, betas, SW_NB, SW_NS, times, SW_NT);
  s.seed = 2711;
  s.cos_threshold = 0.9;
  s.nthreads = 2;
  s.opts.rtol = 1e-9;
  s.opts.atol = 1e-11;
  double frac[SW_NB * SW_NS * SW_NT];
  int st[SW_NB * SW_NS];
  int rc = af_sweep_pairs(frac, st, NULL, &s, NULL, NULL);
  double y[SW_N * SW_D + SW_N];
  af_work *w = af_work_alloc(SW_N, SW_D);
  if (rc == AF_OK && w == NULL)
    rc = AF_ENOMEM;
  double worst = 0;
  size_t bad = 0, same = 0;
  for (size_t b = 0; rc == AF_OK && b < SW_NB; b++)
    for (size_t k = 0; rc == AF_OK && k < SW_NS; k++) {
      size_t row = b * SW_NS + k;
      rc = st[row];
      af_model mb = m;
      mb.beta = betas[b];
      if (rc == AF_OK)
        rc = af_init_state(y, NULL, "uniform", SW_N, SW_D, 1.0,
                           af_sweep_seed(s.seed, k));
      sw_rows x;
      x.k = 0;
      if (rc == AF_OK)
        rc = af_integrate(y, times, SW_NT, &mb, &s.opts, w, sw_out, &x, NULL);
      for (size_t i = 0; rc == AF_OK && i < SW_NT; i++) {
        double e = fabs(frac[row * SW_NT + i] - x.f[i]);
        if (!(e <= worst))
          worst = e;
        if (!(e <= tol))
          bad++;
      }
      /* power: the row differs from every other row of the sweep after
       * t = 0 (where the rows of one start agree for every beta) */
      for (size_t o = 0; rc == AF_OK && o < row; o++)
        if (memcmp(frac + o * SW_NT + 1, frac + row * SW_NT + 1,
                   (SW_NT - 1) * sizeof(double)) == 0)
          same++;
    }
  af_work_free(w);
  if (rc != AF_OK) {
    af_v_error(r, rc, "N.sweep");
    return;
  }
  af_v_le(r, worst, tol, 0.0);
  af_v_note(r, "af_sweep_pairs, Post-LN n=%d d=%d, beta {0.7, 2.5, 5.5} x "
            "%d starts, 2 threads: %zu of %d values differ from the run "
            "made alone at their grid point (max |diff| %.3g)",
            SW_N, SW_D, SW_NS, bad, SW_NB * SW_NS * SW_NT, worst);
  if (same > 0 && r->status == AF_V_PASS) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, "; %zu pairs of rows are equal, so a row filed under the "
              "wrong point could go unseen", same);
  }
}

/* ------------------------------------------------------------ M1.dist */

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* sqrt(N) sup |F_N - F| of the sample v (sorted in place) against the
 * continuous CDF F. */
static double ks_stat(double *v, size_t N, double (*F)(double, double),
                      double par)
{
  qsort(v, N, sizeof *v, cmp_double);
  double D = 0;
  for (size_t i = 0; i < N; i++) {
    double f = F(v[i], par);
    double lo = f - (double) i / (double) N;
    double hi = (double) (i + 1) / (double) N - f;
    if (lo > D)
      D = lo;
    if (hi > D)
      D = hi;
  }
  return sqrt((double) N) * D;
}

/* Coordinate of a uniform point of S^{d-1} (par = d):
 * (x + 1)/2 ~ Beta((d-1)/2, (d-1)/2); for d = 3 uniform on [-1, 1]. */
static double F_coord(double x, double d)
{
  return gsl_cdf_beta_P(0.5 * (x + 1.0), 0.5 * (d - 1.0), 0.5 * (d - 1.0));
}
/* First coordinate of "hemisphere" on S^2: uniform on [0, 1]. */
static double F_hemi(double x, double d)
{
  (void) d;
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
/* Radius of "gaussian" in R^d: r^2 ~ chi^2_d. */
static double F_radius(double x, double d)
{
  return gsl_cdf_chisq_P(x * x, d);
}

#define DS_N 40000

static void claim_dist(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double lam = af_v_tol(c, "M1.dist");
  const size_t N = DS_N;
  double *y = malloc(af_state_size(N, 8) * sizeof *y);
  double *v = malloc(N * sizeof *v);
  if (y == NULL || v == NULL) {
    free(y);
    free(v);
    af_v_error(r, AF_ENOMEM, "M1.dist");
    return;
  }
  double worst = 0;
  char what[96] = "";
  size_t nstat = 0;
  int rc = AF_OK;
#define KS(F, par, label)                                                     \
  do {                                                                        \
    double ks_ = ks_stat(v, N, F, par);                                       \
    nstat++;                                                                  \
    if (!(ks_ <= worst)) {                                                    \
      worst = ks_;                                                            \
      snprintf(what, sizeof what, "%s", label);                               \
    }                                                                         \
  } while (0)
  /* uniform on S^2 and S^7: every coordinate, and <th_j, th_{j+1}> */
  static const size_t dims[2] = {3, 8};
  for (int q = 0; q < 2 && rc == AF_OK; q++) {
    size_t d = dims[q];
    rc = af_init_state(y, NULL, "uniform", N, d, 1.0, 31000 + d);
    for (size_t i = 0; rc == AF_OK && i < d; i++) {
      for (size_t j = 0; j < N; j++)
        v[j] = y[j * d + i];
      KS(F_coord, (double) d, d == 3 ? "uniform S^2 coordinate"
                                     : "uniform S^7 coordinate");
    }
    for (size_t j = 0; rc == AF_OK && j < N; j++) {
      size_t k = (j + 1) % N;
      double s = 0;
      for (size_t i = 0; i < d; i++)
        s += y[j * d + i] * y[k * d + i];
      v[j] = s;
    }
    /* consecutive pairs share a token, but for a uniform law on the
     * sphere <th_j, th_k> is independent of th_j: the N cosines are
     * i.i.d. (a cycle of rotations), with the coordinate's law */
    if (rc == AF_OK)
      KS(F_coord, (double) d, d == 3 ? "uniform S^2 cosine of neighbours"
                                     : "uniform S^7 cosine of neighbours");
  }
  if (rc == AF_OK)
    rc = af_init_state(y, NULL, "gaussian", N, 5, NAN, 31005);
  if (rc == AF_OK) {
    for (size_t j = 0; j < N; j++)
      v[j] = y[N * 5 + j];
    KS(F_radius, 5.0, "gaussian R^5 radius");
    for (size_t j = 0; j < N; j++)
      v[j] = y[j * 5 + 4];
    KS(F_coord, 5.0, "gaussian R^5 direction coordinate");
  }
  if (rc == AF_OK)
    rc = af_init_state(y, NULL, "hemisphere", N, 3, 1.0, 31003);
  if (rc == AF_OK) {
    for (size_t j = 0; j < N; j++)
      v[j] = y[j * 3];
    KS(F_hemi, 3.0, "hemisphere S^2 first coordinate");
    for (size_t j = 0; j < N; j++)
      v[j] = y[j * 3 + 2];
    KS(F_coord, 3.0, "hemisphere S^2 third coordinate");
  }
#undef KS
  free(y);
  free(v);
  if (rc != AF_OK) {
    af_v_error(r, rc, "M1.dist");
    return;
  }
  af_v_le(r, worst, lam, 0.0);
  af_v_note(r, "%zu Kolmogorov-Smirnov statistics sqrt(N) D_N, N=%zu draws "
            "each, against exact laws: largest %.3f (%s)", nstat, N, worst,
            what);
}

/* ------------------------------------------------------------ I1.eq */

/* I1 near equilibrium: the energy is non-decreasing also where its
 * increments are far below double resolution.  Post-LN or nGPT (both
 * collapse like e^{-2t}; Pre-, Mix- and Peri-LN only like t^-2, so that
 * their increments stay above 1e-8 to t = 65536), n = 3, d = 3,
 * beta = 1.3, a cap start (all cosines >= 0.5), MPFR (mp-gbs, 100 bits,
 * tol 1e-24) to t = 16 (quick) or 22 (full) with outputs every 2: every
 * increment E_k - E_{k-1} (af_mp_observe's energy, in MPFR) >= -slack
 * E_k, slack = 4 beta tol (|dE/dy| <= 2 beta E per component, two
 * values); the smallest relative increment reached is reported and must
 * be below 1e-12 (else the run did not come close enough to equilibrium:
 * INCONCLUSIVE). */
#define EQ_N 3
#define EQ_D 3
#define EQ_PREC 100
#define EQ_TOL 1e-24

typedef struct {
  mpfr_t *obs;
  mpfr_t prev, diff;
  af_mp_work *w;
  const af_model *m;
  int have;
  double worst, smallest;
} eq_ctx;

static int eq_out(double t, mpfr_t *y, void *vctx)
{
  eq_ctx *x = vctx;
  mpfr_t tt;
  mpfr_init2(tt, EQ_PREC);
  mpfr_set_d(tt, t, MPFR_RNDN);
  int rc = af_mp_observe(x->obs, tt, y, 0.9999, x->m, x->w);
  mpfr_clear(tt);
  if (rc != AF_OK)
    return rc;
  mpfr_ptr E = x->obs[AF_OBS_energy];
  if (x->have) {
    mpfr_sub(x->diff, E, x->prev, MPFR_RNDN);
    mpfr_div(x->diff, x->diff, E, MPFR_RNDN);
    double q = mpfr_get_d(x->diff, MPFR_RNDN);
    x->worst = fmin(x->worst, q);
    if (q > 0)
      x->smallest = fmin(x->smallest, q);
  }
  mpfr_set(x->prev, E, MPFR_RNDN);
  x->have = 1;
  return AF_OK;
}

static void claim_i1_eq(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  const size_t N = af_state_size(EQ_N, EQ_D);
  const double beta = 1.3;
  af_model m;
  af_v_model(&m, c, EQ_N, EQ_D, beta, s);
  double y0[EQ_N * EQ_D + EQ_N], times[12];
  int quick = c->level == AF_LEVEL_QUICK;
  size_t K = quick ? 9 : 12;
  for (size_t k = 0; k < K; k++)
    times[k] = 2.0 * (double) k;
  int rc = af_init_state(y0, NULL, "cap:0.5", EQ_N, EQ_D, 1.0, 1101);
  eq_ctx x;
  memset(&x, 0, sizeof x);
  x.m = &m;
  x.worst = INFINITY;
  x.smallest = INFINITY;
  x.w = af_mp_work_alloc(EQ_N, EQ_D, EQ_PREC);
  x.obs = af_mp_vec_alloc(AF_OBS_COUNT, EQ_PREC);
  mpfr_t *y = af_mp_vec_alloc(N, EQ_PREC);
  mpfr_inits2(EQ_PREC, x.prev, x.diff, (mpfr_ptr) 0);
  if (rc == AF_OK && !(x.w && x.obs && y))
    rc = AF_ENOMEM;
  af_mp_stats st;
  if (rc == AF_OK) {
    af_mp_vec_set_d(y, y0, N);
    af_mp_opts o;
    af_mp_opts_init(&o);
    o.tol = EQ_TOL;
    rc = af_mp_integrate(y, times, K, &m, &o, x.w, eq_out, &x, &st);
  }
  mpfr_clears(x.prev, x.diff, (mpfr_ptr) 0);
  af_mp_work_free(x.w);
  af_mp_vec_free(x.obs, x.obs ? AF_OBS_COUNT : 0);
  af_mp_vec_free(y, y ? N : 0);
  if (rc != AF_OK) {
    af_v_error(r, rc, "I1.eq");
    return;
  }
  af_v_ge(r, x.worst, 0.0, af_v_tol(c, "I1.eq"));
  af_v_note(r, "n=%d d=%d beta=1.3 cap:0.5 start, mp-gbs %d bits tol %g to "
            "t=%g: smallest relative energy increment %.3g (>= 0 required), "
            "the smallest positive one %.3g", EQ_N, EQ_D, EQ_PREC, EQ_TOL,
            times[K - 1], x.worst, x.smallest);
  if (r->status == AF_V_PASS && !(x.smallest <= 1e-12)) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, " -- not near equilibrium (increments above 1e-12)");
  }
}

const af_claim af_claims_range[] = {
  {"M2.qk", "post-ln", AF_V_PASS, "M2.qk", claim_qk, 0, F_A,
   "scores <Q th_j, K th_k> (non-symmetric Q^T K) in every kernel, against "
   "a loop written from M2"},
  {"N.mplocal", "ngpt", AF_V_PASS, "N.mplocal", claim_mplocal, 0, 0,
   "MPFR: every accepted step's estimate within its local tolerance"},
  {"N.sweep", "post-ln", AF_V_PASS, "N.sweep", claim_sweep, 0, 0,
   "each sweep row is the run alone at its grid point"},
  {"I1.eq", "post-ln", AF_V_PASS, "I1.eq", claim_i1_eq, AF_POST_LN, 0,
   "energy non-decreasing down to relative increments < 1e-12 (MPFR)"},
  {"I1.eq", "ngpt", AF_V_PASS, "I1.eq", claim_i1_eq, AF_NGPT, 0,
   "energy non-decreasing down to relative increments < 1e-12 (MPFR)"},
  {"M1.dist", "", AF_V_PASS, "M1.dist", claim_dist, 0, 0,
   "starts have their laws (KS against exact distributions)"},
};

const size_t af_claims_range_count =
    sizeof af_claims_range / sizeof af_claims_range[0];
