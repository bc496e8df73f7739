/* claims_field.c -- the n-particle field away from t = 0 and through
 * every kernel (theorems.md T4.1a, T4.1w): T4.1a.t checks the field and
 * the observables at times t > 0 on the orthonormal start against the
 * T4.1a closed forms with the rates in force at t (Mix-LN's side of tau,
 * nGPT's alpha(t), per-layer weights); T4.1w.kernels checks that the
 * BLAS, direct and MPFR fields agree for general Q, K, V to a running
 * rounding bound.  Each claim's derivation is beside it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "attnflow_mp.h"
#include "theory.h"
#include "verify.h"

#define U (DBL_EPSILON / 2)

/* ------------------------------------------------------------------ */
/* T4.1a.t: the field and the observables at a time t > 0               */
/* ------------------------------------------------------------------ */

/* On the orthonormal start (n = d = TT_N, radius r0) the field at any
 * time t is T4.1's symmetric field with the rates in force at t: the
 * Mix-LN side of tau, nGPT's alpha(t) = alpha (1 + t)^-p (theory's
 * af_t41_alpha), and with per-layer weights Q = K = sqrt(c_l) I, V = I
 * the weight set l = floor(t / layer_dt), i.e. beta c_l (T4.1w).  So
 * every pair has dgamma/dt = F(1)/s(t) and every radius dr/dt = rho(t)
 * (af_t41_rates of theory, the T4.1a closed forms at time t), however t
 * reaches the field.  Checked on the default kernel, the direct kernel
 * and MPFR (TT_PREC bits, af_mp_rhs), each evaluated at the times of the
 * case without an integration (the paths that read the model's tau and
 * alpha schedule directly).  On the same state the observables of
 * af_observe and af_mp_observe are known in closed form: gap_mean =
 * gap_max = 1, cos_mean = 0, var = 1 - 1/n (I3), r_mean = r0, energy =
 * sum_{j,k} e^{beta <th_j, th_k>} / n^2 = (e^beta + n - 1)/n, and
 * speed_mean = |P A_j| / s_j = sqrt(n - 1)/2 dgamma/dt (|P A_j| =
 * sqrt(n - 1)/(e^b + n - 1) there).  Tolerance: a rounding bound that
 * uses what this start makes exact, times the row T4.1a.t.  The
 * directions are unit axes and Q = K = sqrt(c_l) I with sqrt(c_l) in
 * {1, 2, 1/2}, so every score beta c_l <th_j, th_k> is exact (0 or
 * beta c_l), and so is everything downstream of the weights except
 * their own rounding: A_j's coordinates are single weights (sums of one
 * product by 1 and exact zeros), <th_j, A_j> is the weight w_jj, and the
 * tangent part A_j - w_jj th_j is exact (0 on th_j's axis, w_jk off it):
 * no cancellation, so the worst-case amplification a/|P A| of T4.1m.rates
 * does not apply here.  What rounds, relative to each quantity:
 *   src rates: the exps (2 u each: af_exp_block's 1 ulp), Z (n - 1
 *     additions of positive terms), the weight (2 u: 1/Z and a product):
 *     (n + 3) u; |A_j| (d squares, d - 1 additions, sqrt): (d + 1) u;
 *     alpha(t) (pow, a product: 4 u); the speed factor, the division by
 *     it and c/a (2 u); the pair rate's sum of two products (u):
 *     (n + d + 11) u;
 *   src observables: the energy's n^2 positive terms e^{b <th_j,th_k>}
 *     ((n^2 - 1) u, the exps 2 u, the division u): (n^2 + 2) u;
 *     speed_mean (the rates' (n + d + 11) u and a mean of n terms):
 *     (2n + d + 11) u; the others (gaps, var, r_mean) fewer;
 *   theory (af_t41_F_w, af_t41_a_w, af_t41_alpha, the division F/s):
 *     <= 12 u (two exps, sums, a square, sqrt, pow, divisions);
 * hence (max(n^2 + 2, 2n + d + 11) + 12) u = 39 u = 4.3e-15 at n = d =
 * 5 (was (2 (n^2 + d + 8) + 4 d^2) u a/|P A|: 7.5e-14 .. 3.9e-12). */
#define TT_N 5
#define TT_PREC 128
static const double tt_layer_c[3] = {1.0, 4.0, 0.25};

typedef struct {
  af_scheme_id s;
  double beta, r0, alpha, decay, tau;
  size_t layers; /* 0: identity weights; else sets Q = K = sqrt(c_l) I */
  double t[3];
} ttcase;

static const ttcase ttcases[] = {
  /* 0: Mix-LN, tau = 2.5: Post-LN side at 0.5 and at tau itself (S3
   * closes [0, tau] on the Post-LN side), Pre-LN at 3. */
  {AF_MIX_LN, 2.0, 1.5, 1.0, 0.0, 2.5, 0, {0.5, 2.5, 3.0}},
  /* 1: Mix-LN, tau = 0.3: Pre-LN side at 0.5 and 0.9, Post-LN at 0.1. */
  {AF_MIX_LN, 2.0, 1.5, 1.0, 0.0, 0.3, 0, {0.1, 0.5, 0.9}},
  /* 2: nGPT, alpha = 1.5, decay 0.7: alpha(t) = 1.5 (1 + t)^-0.7. */
  {AF_NGPT, 2.0, 1.0, 1.5, 0.7, 1.0, 0, {0.5, 3.0, 10.0}},
  /* 3: Pre-LN, three weight sets (c = 1, 4, 1/4) of one time unit each;
   * the times are inside the layers 0, 1, 2. */
  {AF_PRE_LN, 1.5, 1.5, 1.0, 0.0, 1.0, 3, {0.5, 1.5, 2.5}},
};

/* Worst relative deviation of the pair rates and radial rates of dy. */
static double tt_rates_dev(const double *y, const double *dy, size_t n,
                           size_t d, double v, double rho)
{
  double worst = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double q = 0;
      for (size_t l = 0; l < d; l++)
        q += dy[i * d + l] * y[j * d + l] + y[i * d + l] * dy[j * d + l];
      double e = fabs(q - v) / fabs(v);
      if (!(e <= worst))
        worst = e;
    }
  for (size_t j = 0; j < n; j++) {
    double dr = dy[n * d + j];
    double e = rho != 0 ? fabs(dr - rho) / fabs(rho) : fabs(dr);
    if (!(e <= worst))
      worst = e;
  }
  return worst;
}

/* Worst deviation of the observables from their closed forms. */
static double tt_obs_dev(const double *ob, size_t n, double beta, double r0,
                         double v, const char **what)
{
  double nn = (double) n;
  struct {
    af_obs_id id;
    double pred;
    const char *name;
  } rows[] = {
    {AF_OBS_gap_mean, 1.0, "gap_mean"},
    {AF_OBS_gap_max, 1.0, "gap_max"},
    {AF_OBS_cos_mean, 0.0, "cos_mean"},
    {AF_OBS_var, 1.0 - 1.0 / nn, "var"},
    {AF_OBS_r_mean, r0, "r_mean"},
    {AF_OBS_energy, (exp(beta) + nn - 1.0) / nn, "energy"},
    {AF_OBS_speed_mean, 0.5 * sqrt(nn - 1.0) * v, "speed_mean"},
  };
  double worst = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    double p = rows[i].pred, m = ob[rows[i].id];
    double e = p != 0 ? fabs(m - p) / fabs(p) : fabs(m);
    if (!(e <= worst)) {
      worst = e;
      *what = rows[i].name;
    }
  }
  return worst;
}

static void claim_rates_t(af_vresult *r, const af_vctx *c, int arg)
{
  const ttcase *k = &ttcases[arg];
  const size_t n = TT_N, d = TT_N, N = af_state_size(n, d);
  double fac = af_v_tol(c, "T4.1a.t");
  af_model m;
  af_v_model(&m, c, n, d, k->beta, k->s);
  m.alpha = k->alpha;
  m.alpha_decay = k->decay;
  m.tau = k->tau;
  af_weights *W = NULL;
  double *mats = NULL;
  int st = AF_OK;
  if (k->layers > 0) {
    W = af_weights_alloc(d, k->layers, 1.0);
    mats = calloc(k->layers * d * d, sizeof *mats);
    if (!W || !mats)
      st = AF_ENOMEM;
    for (size_t l = 0; st == AF_OK && l < k->layers; l++) {
      double *Q = mats + l * d * d;
      for (size_t i = 0; i < d; i++)
        Q[i * d + i] = sqrt(tt_layer_c[l]); /* 1, 2, 1/2: exact */
      W->Q[l] = W->K[l] = Q;
    }
    m.w = W;
  }
  double y[TT_N * TT_N + TT_N], dy[TT_N * TT_N + TT_N];
  double ob[AF_OBS_COUNT];
  af_work *w = af_work_alloc(n, d);
  af_mp_work *mw = af_mp_work_alloc(n, d, TT_PREC);
  mpfr_t *my = af_mp_vec_alloc(N, TT_PREC), *mdy = af_mp_vec_alloc(N, TT_PREC);
  mpfr_t *mob = af_mp_vec_alloc(AF_OBS_COUNT, TT_PREC);
  mpfr_t mt;
  mpfr_init2(mt, TT_PREC);
  size_t line;
  if (st == AF_OK && (!w || !mw || !my || !mdy || !mob))
    st = AF_ENOMEM;
  if (st == AF_OK)
    st = af_init_state(y, &line, "orthonormal", n, d, k->r0, 0);
  if (st == AF_OK)
    af_mp_vec_set_d(my, y, N);
  double worst = 0, bound = 0, wv = 0, wt = 0;
  const char *where = "", *what = "";
  for (size_t it = 0; it < 3 && st == AF_OK; it++) {
    double t = k->t[it];
    size_t l = k->layers ? (size_t) floor(t) : 0;
    double ceff = k->layers ? tt_layer_c[l < k->layers ? l : k->layers - 1]
                            : 1.0;
    af_t41_params p;
    af_t41_params_init(&p, n, k->beta * ceff, k->s);
    p.r0 = k->r0;
    p.alpha = k->alpha;
    p.alpha_decay = k->decay;
    p.tau = k->tau;
    double s, rho;
    st = af_t41_rates(&s, &rho, t, k->r0, 1.0, k->s == AF_MIX_LN && t > k->tau,
                      &p);
    if (st != AF_OK)
      break;
    double b = p.beta;
    double v = af_t41_F_w(1.0, n, b) / s;
    bound = (fmax((double) (n * n + 2), (double) (2 * n + d + 11)) + 12.0) *
            U;
    struct {
      const char *name;
      int kind; /* 0 default kernel, 1 direct, 2 MPFR, 3 obs, 4 MPFR obs */
    } ev[] = {{"default kernel", 0}, {"direct kernel", 1}, {"MPFR", 2},
              {"observables", 3}, {"MPFR observables", 4}};
    for (size_t e = 0; e < 5 && st == AF_OK; e++) {
      double dev = 0;
      const char *wh = "rates";
      switch (ev[e].kind) {
      case 0:
      case 1:
        st = af_work_set_kernel(w, ev[e].kind ? AF_KERNEL_DIRECT
                                              : AF_KERNEL_BLAS);
        if (st == AF_OK)
          st = af_rhs(dy, t, y, &m, w);
        if (st == AF_OK)
          dev = tt_rates_dev(y, dy, n, d, v, rho);
        break;
      case 2:
        mpfr_set_d(mt, t, MPFR_RNDN);
        st = af_mp_rhs(mdy, mt, my, &m, mw);
        if (st == AF_OK) {
          af_mp_vec_get_d(dy, mdy, N);
          dev = tt_rates_dev(y, dy, n, d, v, rho);
        }
        break;
      case 3:
        st = af_work_set_kernel(w, AF_KERNEL_BLAS);
        if (st == AF_OK)
          st = af_observe(ob, t, y, 0.9999, &m, w);
        if (st == AF_OK)
          dev = tt_obs_dev(ob, n, k->beta, k->r0, v, &wh);
        break;
      default:
        mpfr_set_d(mt, t, MPFR_RNDN);
        st = af_mp_observe(mob, mt, my, 0.9999, &m, mw);
        if (st == AF_OK) {
          af_mp_vec_get_d(ob, mob, AF_OBS_COUNT);
          dev = tt_obs_dev(ob, n, k->beta, k->r0, v, &wh);
        }
        break;
      }
      if (st == AF_OK && !(dev <= worst)) {
        worst = dev;
        where = ev[e].name;
        what = wh;
        wv = v;
        wt = t;
      }
    }
  }
  if (st != AF_OK) {
    af_v_error(r, st, "T4.1a.t");
  } else {
    af_v_abs(r, worst, 0.0, fac * bound);
    af_v_note(r, "orthonormal n=d=%zu beta=%g r0=%g alpha=%g decay=%g "
              "tau=%g layers=%zu, t = %g, %g, %g: worst rel. deviation "
              "%.3g (%s, %s, t=%g, dgamma/dt %.6g), bound %.3g", n, k->beta,
              k->r0, k->alpha, k->decay, k->tau, k->layers, k->t[0], k->t[1],
              k->t[2], worst, where, what, wt, wv, fac * bound);
  }
  mpfr_clear(mt);
  af_mp_vec_free(my, N);
  af_mp_vec_free(mdy, N);
  af_mp_vec_free(mob, AF_OBS_COUNT);
  af_mp_work_free(mw);
  af_work_free(w);
  if (W) {
    for (size_t l = 0; l < k->layers; l++)
      W->Q[l] = W->K[l] = NULL;
    af_weights_free(W);
  }
  free(mats);
}

/* ------------------------------------------------------------------ */
/* T4.1w.kernels: general Q, K, V on the three field paths              */
/* ------------------------------------------------------------------ */

/* M2's field with general (Kaiming) Q, K, V from a uniform start: the
 * BLAS kernel (score matrix from the products Q th, K th), the direct
 * kernel (plain loops over Q^T K) and MPFR (the direct source at
 * KW_PREC bits) compute the same field, so they agree to the rounding of
 * the double paths; MPFR is the reference.  Bound per component, for
 * each double path, a first-order running bound from this run's own
 * magnitudes (|M| the entrywise absolute value, theta_j = y_j/|y_j|):
 *   directions: theta_j's normalization, (d + 2) u per coordinate;
 *   scores: beta <Q th_j, K th_k> (BLAS: two d-term products and a
 *     d-term dot; direct: Q^T K, then a bilinear form) within
 *     (3 d + 5) u beta E_jk, E_jk = <|Q||th_j|, |K||th_k|> (both
 *     orders of summation, the directions' error and the subtraction of
 *     the row maximum, bounded by it);
 *   weights: w_jk = exp(s_jk - max)/Z_j, relative
 *     om_j = 2 max_k |ds_jk| + (n + 3) u (the score and Z's weighted
 *     mean of the scores' errors; exp 2 u, Z n - 1 additions, 2 u);
 *   A_ji = sum_k w_jk (V th_k)_i: da_ji = sum_k w_jk ((om_j + n u)
 *     |(V th_k)_i| + (2 d + 2) u (|V||th_k|)_i);
 *   c_j = <th_j, A_j>: dc_j = sum_i |th_ji| da_ji + (2 d + 2) u
 *     sum_i |th_ji A_ji|;
 *   P_ji = A_ji - c_j th_ji: da_ji + |th_ji| dc_j + (d + 3) u |c_j th_ji|
 *     + u |P_ji|; the field P_ji / r_j one more u, dr_j/dt = c_j;
 * plus u/2 for MPFR's rounding to double.  The magnitudes are this run's
 * (double) values: a second-order change.  Measured: the largest ratio
 * of |f_double - f_MPFR| to its component's bound, against the row
 * T4.1w.kernels.  (Was one worst case for every component,
 * 2 (2 d + n + 8) u (1 + beta Smax) Vmax / min(1, r_min) = 4.4e-14
 * against errors of 1.7e-16; now the largest ratio is 0.014.) */
#define KW_N 6
#define KW_D 4
#define KW_PREC 128

static void claim_kernels(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = KW_N, d = KW_D, N = af_state_size(n, d);
  const double beta = 1.5;
  double fac = af_v_tol(c, "T4.1w.kernels");
  af_model m;
  af_v_model(&m, c, n, d, beta, AF_PRE_LN);
  af_weights *W = af_weights_alloc(d, 1, 1.0);
  double y[KW_N * KW_D + KW_N], dyb[KW_N * KW_D + KW_N],
      dyd[KW_N * KW_D + KW_N], dym[KW_N * KW_D + KW_N];
  af_work *w = af_work_alloc(n, d);
  af_mp_work *mw = af_mp_work_alloc(n, d, KW_PREC);
  mpfr_t *my = af_mp_vec_alloc(N, KW_PREC), *mdy = af_mp_vec_alloc(N, KW_PREC);
  mpfr_t mt;
  mpfr_init2(mt, KW_PREC);
  mpfr_set_zero(mt, 1);
  size_t line;
  int st = (!W || !w || !mw || !my || !mdy) ? AF_ENOMEM : AF_OK;
  if (st == AF_OK)
    st = af_weights_kaiming(W, 11);
  m.w = W;
  if (st == AF_OK)
    st = af_init_state(y, &line, "uniform", n, d, 1.0, 5);
  /* radii 0.7 .. 1.7, so that the speed factors differ */
  for (size_t j = 0; st == AF_OK && j < n; j++)
    y[n * d + j] = 0.7 + 0.2 * (double) j;
  if (st == AF_OK)
    st = af_work_set_kernel(w, AF_KERNEL_BLAS);
  if (st == AF_OK)
    st = af_rhs(dyb, 0.0, y, &m, w);
  if (st == AF_OK)
    st = af_work_set_kernel(w, AF_KERNEL_DIRECT);
  if (st == AF_OK)
    st = af_rhs(dyd, 0.0, y, &m, w);
  if (st == AF_OK) {
    af_mp_vec_set_d(my, y, N);
    st = af_mp_rhs(mdy, mt, my, &m, mw);
  }
  if (st != AF_OK) {
    af_v_error(r, st, "T4.1w.kernels");
    goto out;
  }
  af_mp_vec_get_d(dym, mdy, N);
  /* The bound of each component from this run's magnitudes. */
  const double *Qm = W->Q[0], *Km = W->K[0], *Vm = W->V[0];
  double th[KW_N * KW_D], aq[KW_N * KW_D], ak[KW_N * KW_D], av[KW_N * KW_D],
      G[KW_N * KW_D], qt[KW_N * KW_D], kt[KW_N * KW_D], bnd[KW_N * KW_D + KW_N];
  af_v_unit_dirs(th, y, n, d);
  for (size_t j = 0; j < n; j++)
    for (size_t a = 0; a < d; a++) {
      double q = 0, k = 0, v = 0, sq = 0, sk = 0, sv = 0;
      for (size_t b = 0; b < d; b++) {
        double t = th[j * d + b];
        q += Qm[a * d + b] * t;
        k += Km[a * d + b] * t;
        v += Vm[a * d + b] * t;
        sq += fabs(Qm[a * d + b] * t);
        sk += fabs(Km[a * d + b] * t);
        sv += fabs(Vm[a * d + b] * t);
      }
      qt[j * d + a] = q;
      kt[j * d + a] = k;
      G[j * d + a] = v;
      aq[j * d + a] = sq;
      ak[j * d + a] = sk;
      av[j * d + a] = sv;
    }
  double smax = 0, vmax = 0, fmag = 0;
  for (size_t j = 0; j < n; j++) {
    double sc[KW_N], mx = -INFINITY, z = 0, eps = 0, wt[KW_N];
    for (size_t k = 0; k < n; k++) {
      double e = 0, sv = 0;
      for (size_t a = 0; a < d; a++) {
        sv += qt[j * d + a] * kt[k * d + a];
        e += aq[j * d + a] * ak[k * d + a];
      }
      sc[k] = beta * sv;
      mx = fmax(mx, sc[k]);
      eps = fmax(eps, (double) (3 * d + 5) * U * beta * e);
      smax = fmax(smax, beta * e);
    }
    for (size_t k = 0; k < n; k++)
      z += (wt[k] = exp(sc[k] - mx));
    double om = 2.0 * eps + (double) (n + 3) * U;
    double A[KW_D], da[KW_D], cj = 0, dc = 0, rj = y[n * d + j];
    for (size_t i = 0; i < d; i++) {
      A[i] = da[i] = 0;
      for (size_t k = 0; k < n; k++) {
        double wk = wt[k] / z;
        A[i] += wk * G[k * d + i];
        da[i] += wk * ((om + (double) n * U) * fabs(G[k * d + i]) +
                       (double) (2 * d + 2) * U * av[k * d + i]);
      }
      cj += th[j * d + i] * A[i];
      vmax = fmax(vmax, fabs(A[i]));
    }
    for (size_t i = 0; i < d; i++)
      dc += fabs(th[j * d + i]) * da[i] +
            (double) (2 * d + 2) * U * fabs(th[j * d + i] * A[i]);
    for (size_t i = 0; i < d; i++) {
      double P = A[i] - cj * th[j * d + i];
      double dP = da[i] + fabs(th[j * d + i]) * dc +
                  (double) (d + 3) * U * fabs(cj * th[j * d + i]) +
                  U * fabs(P);
      bnd[j * d + i] = (dP + U * fabs(P)) / rj + 0.5 * U * fabs(P / rj);
    }
    bnd[n * d + j] = dc + 0.5 * U * fabs(cj);
  }
  double worst = 0, wabs = 0;
  const char *where = "";
  for (size_t i = 0; i < N; i++) {
    fmag = fmax(fmag, fabs(dym[i]));
    double eb = fabs(dyb[i] - dym[i]) / bnd[i],
           ed = fabs(dyd[i] - dym[i]) / bnd[i];
    if (!(eb <= worst)) {
      worst = eb;
      wabs = fabs(dyb[i] - dym[i]);
      where = "BLAS";
    }
    if (!(ed <= worst)) {
      worst = ed;
      wabs = fabs(dyd[i] - dym[i]);
      where = "direct";
    }
  }
  af_v_abs(r, worst, 0.0, fac);
  af_v_note(r, "Pre-LN n=%zu d=%zu beta=%g, Kaiming Q,K,V (seed 11), uniform "
            "start: max |f_double - f_MPFR| / its component's bound %.3g "
            "(%s kernel: %.3g) of |f| %.3g; beta E_jk <= %.3g, |A| <= %.3g",
            n, d, beta, worst, where, wabs, fmag, smax, vmax);
out:
  mpfr_clear(mt);
  af_mp_vec_free(my, N);
  af_mp_vec_free(mdy, N);
  af_mp_work_free(mw);
  af_work_free(w);
  af_weights_free(W);
}

const af_claim af_claims_field[] = {
  {"T4.1a.t", "mix-ln", AF_V_PASS, "T4.1a.t", claim_rates_t, 0,
   F_S | F_R | F_A, "tau = 2.5: field, observables at t = 0.5, 1.5, 3 on "
   "the side of tau"},
  {"T4.1a.t", "mix-ln", AF_V_PASS, "T4.1a.t", claim_rates_t, 1,
   F_S | F_R | F_A, "tau = 0.3: field, observables at t = 0.1, 0.5, 0.9 on "
   "the side of tau"},
  {"T4.1a.t", "ngpt", AF_V_PASS, "T4.1a.t", claim_rates_t, 2, F_S | F_A,
   "decay 0.7: field, observables at t = 0.5, 3, 10 with alpha(t)"},
  {"T4.1a.t", "pre-ln", AF_V_PASS, "T4.1a.t", claim_rates_t, 3,
   F_S | F_R | F_A, "per-layer weights: field, observables at t = 0.5, "
   "1.5, 2.5 with set floor(t/h)"},
  {"T4.1w.kernels", "pre-ln", AF_V_PASS, "T4.1w.kernels", claim_kernels, 0,
   0, "general Q, K, V: BLAS, direct and MPFR fields agree"},
};
const size_t af_claims_field_count =
    sizeof af_claims_field / sizeof af_claims_field[0];
