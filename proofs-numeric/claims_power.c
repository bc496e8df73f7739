/* claims_power.c -- claims that reach the parameters, kernel paths, large
 * beta and weights that the per-theorem claims leave at their defaults
 * (theorems.md T4.1m, T4.1w; the cross-scheme orderings X.*).
 *
 * T4.1m (replicated symmetric start).  k groups of m identical tokens,
 * the groups at a common pairwise cosine gamma0 (an orthonormal start when
 * gamma0 = 0): the m copies cancel in the softmax (every weight and Z_j
 * carries the same factor m), so each group stays one point and the k
 * groups follow the T4.1 scalar system with n = k, started from
 * gap0 = 1 - gamma0 (af_t41_solve).  This turns one exact prediction into
 * checks of every kernel path at any (n, d): the small path (n^2 d small),
 * the BLAS path (n = k m large) and the direct kernel, at d = 2, 3, 4 and
 * a generic d, at any beta (including beta = 500, where the weights of the
 * softmax need the max subtraction), and with any alpha, decay, tau, r0.
 * T4.1w (weights).  With Q^T K = c I on the span of the tokens and V = I
 * there, the flow is the identity-weight flow at beta c.  Two forms:
 * Q = K = sqrt(c) I, and Q = A = (I + L)(I + U) (dyadic, so A^{-1} is
 * exact), K = A^{-T} M with M = c on the tokens' span and c' != c off it
 * (so Q K^T = A M A^{-1} != Q^T K), V = I + E with E mapping the
 * complement into the span (V th = th for th in the span, V^T th not).
 *
 * Each claim checks (1) the initial rates: dgamma/dt(0) of every pair of
 * tokens and dr_j/dt(0) from af_rhs against F(gap0)/s and rho of theory,
 * to a rounding bound; (2) the trajectory on [0, T]: every pairwise
 * cosine (within groups: 1) and every radius against the scalar system,
 * to a bound from the run's own error estimate: the same run at 100 times
 * the tolerance gives est = max |y_fine - y_coarse|, which bounds the
 * fine run's error (rk8pd's error scales as tol^(8/9): the fine error is
 * about est/60); plus the scalar system's own estimate the same way, plus
 * a rounding floor 4 u (N + (n + d + 8) V) (N steps, V the total
 * variation of gamma and r: each step rounds the state once and the field
 * to (n + d + 8) u of its size).  A run that needs more than a budget of
 * steps (10 times the scalar system's at the same tolerance, + 50) FAILs:
 * a wrong field cannot widen its own tolerance by forcing small steps.
 *
 * Tolerance rows: T4.1m.rates (factor on the rounding bound of (1)),
 * T4.1m.traj (factor on the bound of (2)), X.* (cross-scheme orderings).
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
#include "s7.h"
#include "theory.h"
#include "verify.h"
#include "internal.h" /* af_step_vern9: N.vern9.stages steps it directly */

#define U (DBL_EPSILON / 2)

enum { P_SMALL = 0, P_BLAS, P_DIRECT };
enum { W_NONE = 0, W_SCALED, W_MIXED };

typedef struct {
  af_scheme_id s;
  size_t k, m, d;
  double beta, r0, alpha, decay, tau;
  int wkind;
  double c;    /* Q^T K = c I on the span (W_SCALED, W_MIXED)          */
  int path;    /* P_SMALL, P_BLAS (kernel AF_KERNEL_BLAS), P_DIRECT     */
  double gap0; /* 1 - gamma0                                             */
  double T;    /* trajectory horizon                                     */
} pcase;

/* The cases, indexed by the claim's arg.  Paths: the small path needs
 * n^2 d <= 16384 and no weights; the BLAS path is taken above that. */
static const pcase cases[] = {
  /* 0-5: parameters away from 1 (orthonormal start, n = d = 5). */
  {AF_NGPT, 5, 1, 5, 2.0, 1.0, 0.5, 0.0, 1.0, W_NONE, 1, P_SMALL, 1.0, 6.0},
  {AF_NGPT, 5, 1, 5, 2.0, 1.0, 2.0, 0.7, 1.0, W_NONE, 1, P_SMALL, 1.0, 6.0},
  {AF_MIX_LN, 5, 1, 5, 2.0, 2.0, 1.0, 0.0, 0.3, W_NONE, 1, P_SMALL, 1.0, 6.0},
  {AF_MIX_LN, 5, 1, 5, 2.0, 0.5, 1.0, 0.0, 2.5, W_NONE, 1, P_SMALL, 1.0, 6.0},
  {AF_PRE_LN, 5, 1, 5, 2.0, 0.4, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 1.0, 6.0},
  {AF_PERI_LN, 5, 1, 5, 2.0, 3.0, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 1.0, 6.0},
  /* 6-14: d = 2, 3, 4 and 6 through the small, BLAS and direct paths,
   * from gamma0 = 0.4 (gap0 0.6). */
  {AF_PERI_LN, 2, 1, 2, 1.5, 1.3, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 0.6, 4.0},
  {AF_PRE_LN, 2, 64, 2, 1.5, 1.3, 1.0, 0.0, 1.0, W_NONE, 1, P_BLAS, 0.6, 4.0},
  {AF_NGPT, 2, 8, 2, 1.5, 1.0, 1.5, 0.5, 1.0, W_NONE, 1, P_DIRECT, 0.6, 4.0},
  {AF_PERI_LN, 2, 4, 3, 1.5, 0.8, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 0.6, 4.0},
  {AF_LN_SCALING, 2, 48, 3, 1.5, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_BLAS, 0.6, 4.0},
  {AF_PRE_LN, 3, 2, 4, 1.5, 1.3, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 0.6, 4.0},
  {AF_NGPT, 3, 27, 4, 1.5, 1.0, 0.7, 0.3, 1.0, W_NONE, 1, P_BLAS, 0.6, 4.0},
  {AF_PERI_LN, 3, 4, 4, 1.5, 0.7, 1.0, 0.0, 1.0, W_NONE, 1, P_DIRECT, 0.6, 4.0},
  {AF_MIX_LN, 5, 12, 6, 1.5, 1.2, 1.0, 0.0, 0.5, W_NONE, 1, P_BLAS, 0.6, 4.0},
  /* 15-19: large beta, near consensus (beta gap0 = 5): the scores reach
   * beta (500, 1000 with c = 2) and exp needs the max subtraction. */
  {AF_POST_LN, 3, 2, 4, 50.0, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 0.1, 40.0},
  {AF_PERI_LN, 2, 64, 2, 500.0, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_BLAS, 0.01, 40.0},
  {AF_NGPT, 2, 4, 3, 500.0, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_DIRECT, 0.01, 40.0},
  {AF_PRE_LN, 2, 2, 2, 800.0, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_SMALL, 0.00625, 40.0},
  {AF_POST_LN, 2, 3, 3, 500.0, 1.0, 1.0, 0.0, 1.0, W_SCALED, 2, P_BLAS, 0.005, 40.0},
  /* 20-22: general Q, K, V. */
  {AF_PERI_LN, 3, 2, 5, 1.0, 1.0, 1.0, 0.0, 1.0, W_SCALED, 2.5, P_BLAS, 0.6, 4.0},
  {AF_PRE_LN, 3, 2, 6, 1.0, 1.0, 1.0, 0.0, 1.0, W_MIXED, 2.0, P_BLAS, 0.6, 4.0},
  {AF_NGPT, 3, 2, 6, 1.0, 1.0, 1.0, 0.0, 1.0, W_MIXED, 2.0, P_DIRECT, 0.6, 4.0},
  /* 23: beta = 800 on the BLAS path (scores above log(DBL_MAX)) */
  {AF_LN_SCALING, 2, 64, 2, 800.0, 1.0, 1.0, 0.0, 1.0, W_NONE, 1, P_BLAS, 0.00625, 40.0},
  /* 24: case 19 on the direct kernel (general weights, scores 1000: its
   * softmax needs the max subtraction too) */
  {AF_PRE_LN, 2, 3, 3, 500.0, 1.0, 1.0, 0.0, 1.0, W_SCALED, 2, P_DIRECT, 0.005, 40.0},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ------------------------------------------------------------------ */
/* Building a case                                                      */
/* ------------------------------------------------------------------ */

/* Group of token j (groups interleaved, so that no kernel can take a
 * group for a block of rows). */
static size_t group(const pcase *k, size_t j) { return j % k->k; }

/* Span dimension of the tokens: k (orthonormal) or k + 1 (k >= 3 with a
 * common cosine gamma0, via the extra direction e_k); k = 2 always 2. */
static size_t span_dim(const pcase *k)
{
  if (k->gap0 == 1.0 || k->k == 2)
    return k->k;
  return k->k + 1;
}

/* The directions of the k groups: orthonormal if gap0 = 1; for k = 2
 * (cos a, +-sin a) with cos 2a = 1 - gap0; else sqrt(gap0) e_g +
 * sqrt(1 - gap0) e_k (gap0 <= 1), radii r0. */
static void build_state(double *y, const pcase *k)
{
  size_t n = k->k * k->m, d = k->d;
  memset(y, 0, af_state_size(n, d) * sizeof *y);
  for (size_t j = 0; j < n; j++) {
    double *th = y + j * d;
    size_t g = group(k, j);
    if (k->gap0 == 1.0)
      th[g] = 1.0;
    else if (k->k == 2) {
      th[0] = sqrt(1.0 - 0.5 * k->gap0);
      th[1] = (g == 0 ? 1.0 : -1.0) * sqrt(0.5 * k->gap0);
    } else {
      th[g] = sqrt(k->gap0);
      th[k->k] = sqrt(1.0 - k->gap0);
    }
    y[n * d + j] = k->r0;
  }
}

/* Exact inverse of a unit lower (lower = 1) or upper triangular matrix
 * with dyadic entries, by substitution (the entries stay dyadic). */
static void unit_tri_inverse(double *X, const double *T, size_t d, int lower)
{
  memset(X, 0, d * d * sizeof *X);
  for (size_t col = 0; col < d; col++) {
    for (size_t ii = 0; ii < d; ii++) {
      size_t i = lower ? ii : d - 1 - ii;
      double v = i == col ? 1.0 : 0.0;
      for (size_t q = 0; q < d; q++)
        if (lower ? q < i : q > i)
          v -= T[i * d + q] * X[q * d + col];
      X[i * d + col] = v;
    }
  }
}

static void matmul(double *C, const double *A, const double *B, size_t d)
{
  for (size_t i = 0; i < d; i++)
    for (size_t j = 0; j < d; j++) {
      double s = 0;
      for (size_t q = 0; q < d; q++)
        s += A[i * d + q] * B[q * d + j];
      C[i * d + j] = s;
    }
}

/* Weights of the case (NULL for W_NONE); see the header comment. */
static int build_weights(af_weights **out, const pcase *k)
{
  *out = NULL;
  if (k->wkind == W_NONE)
    return AF_OK;
  size_t d = k->d, dd = d * d, sd = span_dim(k);
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  if (!w)
    return AF_ENOMEM;
  double *Q = calloc(dd, sizeof *Q), *K = calloc(dd, sizeof *K);
  double *V = k->wkind == W_MIXED ? calloc(dd, sizeof *V) : NULL;
  double *L = calloc(dd, sizeof *L), *Up = calloc(dd, sizeof *Up);
  double *Li = calloc(dd, sizeof *Li), *Ui = calloc(dd, sizeof *Ui);
  double *Ai = calloc(dd, sizeof *Ai);
  int st = AF_OK;
  if (!Q || !K || (k->wkind == W_MIXED && !V) || !L || !Up || !Li || !Ui ||
      !Ai) {
    st = AF_ENOMEM;
    free(Q);
    free(K);
    free(V);
    goto out;
  }
  if (k->wkind == W_SCALED) {
    double s = sqrt(k->c);
    for (size_t i = 0; i < d; i++)
      Q[i * d + i] = K[i * d + i] = s;
  } else {
    /* A = (I + L)(I + U), entries +-1/2 in a fixed pattern. */
    for (size_t i = 0; i < d; i++) {
      L[i * d + i] = Up[i * d + i] = 1.0;
      for (size_t j = 0; j < d; j++) {
        if (j < i)
          L[i * d + j] = ((i + 2 * j) % 3 == 0) ? -0.5 : 0.5;
        if (j > i)
          Up[i * d + j] = ((2 * i + j) % 3 == 1) ? -0.5 : 0.5;
      }
    }
    matmul(Q, L, Up, d);
    unit_tri_inverse(Li, L, d, 1);
    unit_tri_inverse(Ui, Up, d, 0);
    matmul(Ai, Ui, Li, d); /* A^{-1} */
    /* K = A^{-T} M, M = diag(c on the span, c + 1 off it). */
    for (size_t i = 0; i < d; i++)
      for (size_t j = 0; j < d; j++)
        K[i * d + j] = Ai[j * d + i] * (j < sd ? k->c : k->c + 1.0);
    /* V = I + E, E[i][j] = 1/2 for i in the span, j off it. */
    for (size_t i = 0; i < d; i++) {
      V[i * d + i] = 1.0;
      for (size_t j = sd; j < d; j++)
        if (i < sd)
          V[i * d + j] = 0.5;
    }
  }
  w->Q[0] = Q;
  w->K[0] = K;
  w->V[0] = V;
out:
  free(L);
  free(Up);
  free(Li);
  free(Ui);
  free(Ai);
  if (st != AF_OK) {
    af_weights_free(w);
    return st;
  }
  *out = w;
  return AF_OK;
}

/* Model (with the context's faults), weights, work and theory params. */
typedef struct {
  af_model m;
  af_weights *wts;
  af_work *w;
  af_t41_params p;
  size_t n, d, N;
} pset;

static void pset_free(pset *P)
{
  af_work_free(P->w);
  af_weights_free(P->wts);
}

static int pset_init(pset *P, const af_vctx *c, const pcase *k)
{
  memset(P, 0, sizeof *P);
  P->n = k->k * k->m;
  P->d = k->d;
  P->N = af_state_size(P->n, P->d);
  af_v_model(&P->m, c, P->n, P->d, k->beta, k->s);
  P->m.alpha = k->alpha;
  P->m.alpha_decay = k->decay;
  P->m.tau = k->tau;
  int st = build_weights(&P->wts, k);
  if (st != AF_OK)
    return st;
  P->m.w = P->wts;
  P->w = af_work_alloc(P->n, P->d);
  if (!P->w)
    return AF_ENOMEM;
  st = af_work_set_kernel(P->w, k->path == P_DIRECT ? AF_KERNEL_DIRECT
                                                    : AF_KERNEL_BLAS);
  if (st != AF_OK)
    return st;
  /* theory/ sees the clean parameters at n = k, beta c. */
  af_t41_params_init(&P->p, k->k, k->beta * (k->wkind ? k->c : 1.0), k->s);
  P->p.r0 = k->r0;
  P->p.alpha = k->alpha;
  P->p.alpha_decay = k->decay;
  P->p.tau = k->tau;
  P->p.gap0 = k->gap0;
  return af_t41_params_validate(&P->p);
}

/* Cosine and gap (|th_i - th_j|^2 / 2, accurate near 1) of two tokens. */
/* ------------------------------------------------------------------ */
/* (1) initial rates                                                    */
/* ------------------------------------------------------------------ */

/* Largest relative deviation of dgamma_ij/dt(0) over pairs of tokens in
 * different groups, and of dr_j/dt(0), from theory; *bound the rounding
 * bound: 2 (n + d + 8) u (T4.1a.velocity's derivation) amplified by
 * a/|P A| (the tangent part is a difference of O(a) terms), plus
 * 4 d^2 u for the weight products. */
static int rates_check(double *dev, double *bound, double *vmeas,
                       double *vpred, pset *P, const pcase *k)
{
  size_t n = P->n, d = P->d;
  double *y = malloc(P->N * sizeof *y), *dy = malloc(P->N * sizeof *dy);
  if (!y || !dy) {
    free(y);
    free(dy);
    return AF_ENOMEM;
  }
  build_state(y, k);
  int st = af_rhs(dy, 0.0, y, &P->m, P->w);
  double s, rho;
  double w0 = k->gap0, nk = (double) k->k;
  if (st == AF_OK)
    st = af_t41_rates(&s, &rho, 0.0, k->r0, w0,
                      k->s == AF_MIX_LN && k->tau == 0, &P->p);
  if (st != AF_OK)
    goto out;
  double b = P->p.beta;
  double F = af_t41_F_w(w0, k->k, b);
  double v = F / s;
  double cc = af_t41_c_w(w0, k->k, b), aa = af_t41_a_w(w0, k->k, b);
  double pa = sqrt(fmax(aa * aa - cc * cc, 0.0));
  double amp = pa > 0 ? fmax(1.0, aa / pa) : 1.0;
  *bound = (2.0 * (double) (n + d + 8) + 4.0 * (double) (d * d)) * U * amp;
  (void) nk;
  double worst = 0, wm = v;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      if (group(k, i) == group(k, j))
        continue;
      const double *yi = y + i * d, *yj = y + j * d;
      const double *di = dy + i * d, *dj = dy + j * d;
      double q = 0;
      for (size_t l = 0; l < d; l++)
        q += di[l] * yj[l] + yi[l] * dj[l];
      double e = fabs(q - v) / fabs(v);
      if (!(e <= worst)) {
        worst = e;
        wm = q;
      }
    }
  for (size_t j = 0; j < n; j++) {
    double dr = dy[n * d + j];
    double e = rho != 0 ? fabs(dr - rho) / fabs(rho) : fabs(dr);
    if (!(e <= worst)) {
      worst = e;
      wm = dr;
    }
  }
  *dev = worst;
  *vmeas = wm;
  *vpred = v;
out:
  free(y);
  free(dy);
  return st;
}

/* ------------------------------------------------------------------ */
/* (2) trajectory                                                       */
/* ------------------------------------------------------------------ */

#define TR_NOUT 40
#define TR_RTOL 1e-13
#define TR_ATOL 1e-15
#define TR_COARSE 100.0 /* the estimating run's tolerance factor */

typedef struct {
  const pcase *k;
  size_t n, d, i;
  double *ys;   /* per output: gaps of pairs (0, j), (1, j) and radii   */
} tr_ctx;

/* Record the gaps of token pairs (0, j) and (1, j) and the radii. */
static int tr_out(double t, const double *y, void *vc)
{
  (void) t;
  tr_ctx *c = vc;
  size_t n = c->n, d = c->d;
  double *o = c->ys + c->i * 3 * n;
  for (size_t j = 0; j < n; j++) {
    af_v_pair_gap(&o[j], y, y + j * d, d);
    af_v_pair_gap(&o[n + j], y + (n > 1 ? d : 0), y + j * d, d);
    o[2 * n + j] = y[n * d + j];
  }
  c->i++;
  return 0;
}

static int tr_run(double *ys, unsigned long *steps, pset *P, const pcase *k,
                  const double *times, double tolfac, unsigned long budget)
{
  double *y = malloc(P->N * sizeof *y);
  if (!y)
    return AF_ENOMEM;
  build_state(y, k);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = TR_RTOL * tolfac;
  o.atol = TR_ATOL * tolfac;
  o.h = 1e-3;
  o.max_steps = budget; /* per interval: a run past the budget stops */
  tr_ctx c = {k, P->n, P->d, 0, ys};
  af_integ_stats stats;
  int st = af_integrate(y, times, TR_NOUT + 1, &P->m, &o, P->w, tr_out, &c,
                        &stats);
  *steps = stats.steps;
  free(y);
  return st;
}

/* Deviation of a run's records from the scalar system (gap g, radius r):
 * max over outputs and tokens of |gap_0j - g| (j in another group),
 * gap_0j (same group), |r_j - r|/r; also between records of two runs. */
static double tr_dev(const double *ys, const double *g, const double *r,
                     const double *ys2, const pcase *k, size_t n)
{
  double worst = 0;
  for (size_t i = 0; i <= TR_NOUT; i++) {
    const double *o = ys + i * 3 * n, *o2 = ys2 ? ys2 + i * 3 * n : NULL;
    for (size_t j = 0; j < n; j++) {
      for (size_t a = 0; a < 2; a++) {
        size_t ga = a == 0 ? 0 : (n > 1 ? group(k, 1) : 0);
        double ref = o2 ? o2[a * n + j] : (group(k, j) == ga ? 0.0 : g[i]);
        double e = fabs(o[a * n + j] - ref);
        if (!(e <= worst))
          worst = e;
      }
      double rr = o2 ? o2[2 * n + j] : r[i];
      double e = fabs(o[2 * n + j] - rr) / rr;
      if (!(e <= worst))
        worst = e;
    }
  }
  return worst;
}

static void claim_power(af_vresult *r, const af_vctx *c, int arg)
{
  double frate = af_v_tol(c, "T4.1m.rates"), ftraj = af_v_tol(c,
                                                             "T4.1m.traj");
  if (isnan(frate) || isnan(ftraj) || arg < 0 || (size_t) arg >= NCASES) {
    r->status = AF_V_ERROR;
    af_v_note(r, "no rows T4.1m.rates / T4.1m.traj or bad case");
    return;
  }
  const pcase *k = &cases[arg];
  pset P;
  double *ys = NULL, *ys2 = NULL, *g = NULL, *g2 = NULL, *rr = NULL,
         *rr2 = NULL, *times = NULL;
  int st = pset_init(&P, c, k);
  if (st != AF_OK)
    goto out;
  double dev, bnd, vm, vp;
  st = rates_check(&dev, &bnd, &vm, &vp, &P, k);
  if (st != AF_OK)
    goto out;
  size_t n = P.n, nt = TR_NOUT + 1;
  ys = malloc(nt * 3 * n * sizeof *ys);
  ys2 = malloc(nt * 3 * n * sizeof *ys2);
  g = malloc(nt * sizeof *g);
  g2 = malloc(nt * sizeof *g2);
  rr = malloc(nt * sizeof *rr);
  rr2 = malloc(nt * sizeof *rr2);
  times = malloc(nt * sizeof *times);
  if (!ys || !ys2 || !g || !g2 || !rr || !rr2 || !times) {
    st = AF_ENOMEM;
    goto out;
  }
  for (size_t i = 0; i < nt; i++)
    times[i] = k->T * (double) i / TR_NOUT;
  /* The scalar system at its default tolerance and 100 times looser
   * (its error estimate), and at the n-particle run's tolerance (its
   * step count sets the budget). */
  unsigned long nth;
  st = af_t41_solve_ex(NULL, g, rr, NULL, times, nt, &P.p);
  if (st != AF_OK)
    goto out;
  af_t41_params q = P.p;
  q.rtol = 1e-12;
  q.atol = 1e-14;
  st = af_t41_solve_ex(NULL, g2, rr2, NULL, times, nt, &q);
  if (st != AF_OK)
    goto out;
  q.rtol = TR_RTOL;
  q.atol = TR_ATOL;
  double *gb = ys2; /* scratch for the budget run */
  st = af_t41_solve_ex(NULL, gb, gb + nt, &nth, times, nt, &q);
  if (st != AF_OK)
    goto out;
  double th_est = 0, var = 0;
  for (size_t i = 0; i < nt; i++) {
    th_est = fmax(th_est, fmax(fabs(g[i] - g2[i]),
                               fabs(rr[i] - rr2[i]) / rr[i]));
    if (i > 0)
      var += fabs(g[i] - g[i - 1]) + fabs(rr[i] - rr[i - 1]) / rr[i];
  }
  unsigned long budget = 10 * nth + 50, nf = 0, nc = 0;
  int stf = tr_run(ys, &nf, &P, k, times, 1.0, budget);
  int stc = stf == AF_OK ? tr_run(ys2, &nc, &P, k, times, TR_COARSE, budget) : stf;
  double err = stf == AF_OK ? tr_dev(ys, g, rr, NULL, k, n) : INFINITY;
  double est = (stf == AF_OK && stc == AF_OK) ? tr_dev(ys, NULL, NULL, ys2,
                                                        k, n)
                                              : INFINITY;
  double floor_ = 4.0 * U * ((double) nf + (double) (n + P.d + 8) * var);
  double tol = ftraj * (est + th_est + floor_);
  double rtol_ = frate * bnd;
  int ok_rates = dev <= rtol_, ok_traj = err <= tol && nf <= budget &&
                                         stf == AF_OK;
  /* Report the part that is closest to failing. */
  double q1 = dev / rtol_, q2 = err / tol;
  if (!ok_rates || (ok_traj && q1 >= q2))
    af_v_abs(r, dev, 0.0, rtol_);
  else
    af_v_abs(r, err, 0.0, tol);
  if (!(ok_rates && ok_traj))
    r->status = AF_V_FAIL;
  af_v_note(r, "k=%zu m=%zu d=%zu b=%g%s r0=%g a=%g/%g tau=%g gap0=%g %s; "
            "rates dev %.2g (bound %.2g); traj err %.2g (tol %.2g: est %.2g "
            "ode %.2g floor %.2g), %lu steps (budget %lu)%s",
            k->k, k->m, k->d, k->beta,
            k->wkind == W_SCALED ? " Q=K=sqrt(c)I" :
            k->wkind == W_MIXED ? " QtK=cI,V=I+E" : "", k->r0, k->alpha,
            k->decay, k->tau, k->gap0,
            k->path == P_SMALL ? "small" : k->path == P_BLAS ? "blas"
                                                               : "direct",
            dev, rtol_, err, tol, est, th_est, floor_, nf, budget,
            stf != AF_OK ? "; run failed" : "");
  if (stf != AF_OK)
    af_v_note(r, " (%s)", af_strerror(stf));
out:
  if (st != AF_OK)
    af_v_error(r, st, "T4.1m");
  pset_free(&P);
  free(ys);
  free(ys2);
  free(g);
  free(g2);
  free(rr);
  free(rr2);
  free(times);
}

/* ------------------------------------------------------------------ */
/* X.*: the comparisons between schemes that the paper concludes from   */
/* ------------------------------------------------------------------ */

/* Run scheme s from a start spec and record gap_mean and var at times;
 * the same run at 100 times the tolerance gives the estimate. */
#define X_MAXT 8

/* gap[i], var[i] at times[i], and est[i] = max relative difference of
 * the two against the coarse run. */
static int x_run(double *gap, double *var, double *est, const af_vctx *c,
                 af_scheme_id s, size_t n, size_t d, double beta, double r0,
                 const char *init, unsigned long seed, const double *times,
                 size_t nt)
{
  af_model m;
  af_v_model(&m, c, n, d, beta, s);
  size_t N = af_state_size(n, d), line;
  double *y = malloc(N * sizeof *y);
  af_work *w = af_work_alloc(n, d);
  double g2[X_MAXT], v2[X_MAXT], ob[X_MAXT * AF_OBS_COUNT];
  int st = (y && w && nt <= X_MAXT) ? AF_OK : AF_ENOMEM;
  for (int pass = 0; pass < 2 && st == AF_OK; pass++) {
    st = af_init_state(y, &line, init, n, d, r0, seed);
    af_integ_opts o;
    af_integ_opts_init(&o);
    o.rtol = TR_RTOL * (pass ? TR_COARSE : 1.0);
    o.atol = TR_ATOL * (pass ? TR_COARSE : 1.0);
    o.max_steps = 100000;
    if (st == AF_OK)
      st = af_v_integrate(ob, y, times, nt, &m, &o, w, NULL);
    for (size_t i = 0; i < nt && st == AF_OK; i++) {
      (pass ? g2 : gap)[i] = ob[i * AF_OBS_COUNT + AF_OBS_gap_mean];
      (pass ? v2 : var)[i] = ob[i * AF_OBS_COUNT + AF_OBS_var];
    }
  }
  for (size_t i = 0; i < nt && st == AF_OK; i++)
    est[i] = fmax(fabs(gap[i] - g2[i]) / gap[i], fabs(var[i] - v2[i]) /
                                                     var[i]);
  free(y);
  af_work_free(w);
  return st;
}

/* Symmetric start n = d = 4, beta = 1, r0 = 1 (X.terminal, X.early,
 * X.late) and uniform starts n = 8, d = 3 (X.random, seeds 1..3). */
typedef struct {
  const char *what;
  af_scheme_id a, b;
  int use_gamma;   /* compare gamma = 1 - gap (early) instead of gap   */
  int random;      /* uniform starts: an ordering, no exact prediction */
  double t[3];
} xcase;

static const xcase xcases[] = {
  /* exponential (Post-LN) against power (Pre-LN): gap_pre/gap_post grows */
  {"terminal: gap pre/post", AF_PRE_LN, AF_POST_LN, 0, 0, {2.5, 5, 10}},
  /* early speed: Peri-LN ahead of Pre-LN (gamma_peri/gamma_pre > 1) */
  {"early: gamma peri/pre", AF_PERI_LN, AF_PRE_LN, 1, 0, {0.25, 0.5, 1}},
  /* late diversity: Peri-LN keeps more than Post-LN (gap ratio > 1) */
  {"late: gap peri/post", AF_PERI_LN, AF_POST_LN, 0, 0, {2.5, 5, 10}},
  /* random starts: early Var drop of Peri-LN > Pre-LN's, late Var of
   * Peri-LN > Post-LN's */
  {"random early: dVar peri/pre", AF_PERI_LN, AF_PRE_LN, 1, 1,
   {0.25, 0.5, 1}},
  {"random late: Var peri/post", AF_PERI_LN, AF_POST_LN, 0, 1, {5, 10, 20}},
};

static void claim_cross(af_vresult *r, const af_vctx *c, int arg)
{
  const xcase *x = &xcases[arg];
  double fac = af_v_tol(c, "X.ratio");
  double times[4] = {0, x->t[0], x->t[1], x->t[2]};
  size_t nt = 4;
  double ga[4], va[4], ea[4], gb[4], vb[4], eb[4];
  double worst = 0, tolw = 1, minratio = INFINITY, meas = 0, pred = 0;
  int st = AF_OK, ok = 1;
  unsigned long nseeds = x->random ? 3 : 1;
  for (unsigned long seed = 1; seed <= nseeds && st == AF_OK; seed++) {
    size_t n = x->random ? 8 : 4, d = x->random ? 3 : 4;
    const char *init = x->random ? "uniform" : "orthonormal";
    st = x_run(ga, va, ea, c, x->a, n, d, 1.0, 1.0, init, seed, times, nt);
    if (st == AF_OK)
      st = x_run(gb, vb, eb, c, x->b, n, d, 1.0, 1.0, init, seed, times,
                 nt);
    if (st != AF_OK)
      break;
    double pg_a[4], pg_b[4];
    if (!x->random) {
      af_t41_params p;
      af_t41_params_init(&p, n, 1.0, x->a);
      st = af_t41_solve(NULL, pg_a, NULL, times, nt, &p);
      af_t41_params_init(&p, n, 1.0, x->b);
      if (st == AF_OK)
        st = af_t41_solve(NULL, pg_b, NULL, times, nt, &p);
      if (st != AF_OK)
        break;
    }
    for (size_t i = 1; i < nt; i++) {
      double qa, qb, pa = 0, pb = 0;
      if (x->random) {
        qa = x->use_gamma ? va[0] - va[i] : va[i];
        qb = x->use_gamma ? vb[0] - vb[i] : vb[i];
      } else {
        qa = x->use_gamma ? 1.0 - ga[i] : ga[i];
        qb = x->use_gamma ? 1.0 - gb[i] : gb[i];
        pa = x->use_gamma ? 1.0 - pg_a[i] : pg_a[i];
        pb = x->use_gamma ? 1.0 - pg_b[i] : pg_b[i];
      }
      double ratio = qa / qb;
      /* relative error of the ratio: both runs' estimates (relative to
       * the quantity compared), the scalar system's 1e-12 relative, and
       * the rounding floor 4 (n + d + 8) u / q of each quantity */
      double ra = x->use_gamma ? ea[i] * (x->random ? va[i] : ga[i]) / qa
                               : ea[i];
      double rb = x->use_gamma ? eb[i] * (x->random ? vb[i] : gb[i]) / qb
                               : eb[i];
      double fl = 4.0 * (double) (n + d + 8) * U * (1.0 / qa + 1.0 / qb);
      double rel = ra + rb + fl + (x->random ? 0.0 : 2e-12);
      double tol = fac * rel;
      minratio = fmin(minratio, ratio);
      if (!x->random) {
        double pr = pa / pb, e = fabs(ratio - pr) / pr;
        if (!(e <= tol))
          ok = 0;
        if (!(e / tol <= worst / tolw)) {
          worst = e;
          tolw = tol;
          meas = ratio;
          pred = pr;
        }
      }
      /* the ordering, with the same allowance */
      if (!(ratio > 1.0 + tol))
        ok = 0;
    }
    /* terminal: exp beats power ever more (ratio increasing) */
    if (x->a == AF_PRE_LN && x->b == AF_POST_LN &&
        !(ga[3] / gb[3] > ga[2] / gb[2] && ga[2] / gb[2] > ga[1] / gb[1]))
      ok = 0;
  }
  if (st != AF_OK) {
    af_v_error(r, st, "X");
    return;
  }
  if (x->random)
    af_v_ge(r, minratio, 1.0, 0.0);
  else
    af_v_abs(r, meas, pred, tolw * fabs(pred));
  if (!ok)
    r->status = AF_V_FAIL;
  af_v_note(r, "%s at t=%g,%g,%g (%s): min ratio %.6g%s", x->what, x->t[0],
            x->t[1], x->t[2], x->random ? "uniform n=8 d=3 b=1, seeds 1-3"
                                        : "orthonormal n=d=4 b=1 r0=1",
            minratio, x->random ? "" : "; worst vs scalar system shown");
}

/* ------------------------------------------------------------------ */
/* T3.1.d1r: on S^0 nothing turns, and the radii grow at exact rates    */
/* ------------------------------------------------------------------ */

/* d = 1, n = 5 with signs + - + + -, beta 0.7, r0 1.3, tau 1, T = 10.
 * theta_j = +-1 exactly, so P A_j = A_j - theta_j^2 A_j = 0 and every
 * direction stays; A_j = (m_s e^{+-beta} - m_o e^{-+beta})/Z_j is
 * constant, so r_j(T) = r0 + c_j T (Pre-LN, c_j = theta_j A_j),
 * r0 + sign(c_j) T (Peri-LN: c/|A|), r0 + c_j (T - tau) (Mix-LN), r0
 * (the others); rk8pd is exact on a linear r up to rounding: N steps of
 * 4 u r each.  Measured: max over tokens of |theta_j(T) - theta_j(0)| and
 * |r_j(T) - prediction|/prediction; tolerance row T3.1.d1r: factor on
 * 4 u (N + 10). */
static void claim_d1r(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  const double sg[5] = {1, -1, 1, 1, -1};
  const size_t n = 5;
  double beta = 0.7, r0 = 1.3, T = 10.0, tau = 1.0;
  af_model m;
  af_v_model(&m, c, n, 1, beta, s);
  m.tau = tau;
  double y[10], times[2] = {0, T};
  for (size_t j = 0; j < n; j++) {
    y[j] = sg[j];
    y[n + j] = r0;
  }
  af_work *w = af_work_alloc(n, 1);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = TR_RTOL;
  o.atol = TR_ATOL;
  af_integ_stats stats = {0, 0, 0};
  int st = w ? af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &stats)
             : AF_ENOMEM;
  af_work_free(w);
  if (st != AF_OK) {
    af_v_error(r, st, "T3.1.d1r");
    return;
  }
  double np = 3, nm = 2, worst = 0;
  for (size_t j = 0; j < n; j++) {
    double ms = sg[j] > 0 ? np : nm, mo = sg[j] > 0 ? nm : np;
    /* theta_j A_j = (m_same e^beta - m_other e^-beta)/(same + other) */
    double cj = (ms * exp(beta) - mo * exp(-beta)) /
                (ms * exp(beta) + mo * exp(-beta));
    double pred = r0;
    if (s == AF_PRE_LN)
      pred = r0 + cj * T;
    else if (s == AF_MIX_LN)
      pred = r0 + cj * (T - tau);
    else if (s == AF_PERI_LN)
      pred = r0 + (cj > 0 ? 1.0 : -1.0) * T;
    double e = fmax(fabs(y[j] - sg[j]), fabs(y[n + j] - pred) / pred);
    if (!(e <= worst))
      worst = e;
  }
  double tol = af_v_tol(c, "T3.1.d1r") * 4.0 * U *
               ((double) stats.steps + 10.0);
  af_v_abs(r, worst, 0.0, tol);
  af_v_note(r, "d=1 n=5 signs +-++- beta=0.7 r0=1.3 T=10: max direction "
            "change / radius error %.3g, %lu steps", worst, stats.steps);
}

/* ------------------------------------------------------------------ */
/* P4: small beta                                                       */
/* ------------------------------------------------------------------ */

/* Post-LN, uniform start n = 6, d = 3 (seed 1), T = 1: the distance
 * D(beta) = max_j |theta_j^beta(T) - theta_j^0(T)| is C beta + O(beta^2)
 * (P4: <= C beta e^{3t}), so its order in beta, log2(D(b)/D(b/2)) at
 * b = 0.02, is 1 within P4.order; and the beta = 0 flow is the mean
 * field dx/dt = P_x(mean): one step of af_rhs at beta = 0 equals
 * mean - <theta, mean> theta to rounding (P4.beta0). */
static int p4_run(double *y, const af_vctx *c, double beta)
{
  af_model m;
  af_v_model(&m, c, 6, 3, beta, AF_POST_LN);
  size_t line;
  int st = af_init_state(y, &line, "uniform", 6, 3, 1.0, 1);
  af_work *w = af_work_alloc(6, 3);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = TR_RTOL;
  o.atol = TR_ATOL;
  double times[2] = {0, 1.0};
  if (st == AF_OK)
    st = w ? af_integrate(y, times, 2, &m, &o, w, NULL, NULL, NULL)
           : AF_ENOMEM;
  af_work_free(w);
  return st;
}

static void claim_p4(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double y0[24], y1[24], y2[24];
  int st = p4_run(y0, c, 0.0);
  if (st == AF_OK)
    st = p4_run(y1, c, 0.02);
  if (st == AF_OK)
    st = p4_run(y2, c, 0.01);
  if (st != AF_OK) {
    af_v_error(r, st, "P4");
    return;
  }
  double d1 = 0, d2 = 0;
  for (size_t i = 0; i < 18; i++) {
    d1 = fmax(d1, fabs(y1[i] - y0[i]));
    d2 = fmax(d2, fabs(y2[i] - y0[i]));
  }
  double p = log2(d1 / d2);
  af_v_abs(r, p, 1.0, af_v_tol(c, "P4.order"));
  af_v_note(r, "Post-LN uniform n=6 d=3 T=1: D(0.02)=%.4g D(0.01)=%.4g, "
            "order %.4f; D/(beta e^3) = %.3g", d1, d2, p,
            d1 / (0.02 * exp(3.0)));
}

static void claim_p4_beta0(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = 6, d = 3;
  af_model m;
  af_v_model(&m, c, n, d, 0.0, AF_POST_LN);
  double y[24], dy[24], mean[3] = {0, 0, 0};
  size_t line;
  af_work *w = af_work_alloc(n, d);
  int st = af_init_state(y, &line, "uniform", n, d, 1.0, 2);
  if (st == AF_OK)
    st = w ? af_rhs(dy, 0.0, y, &m, w) : AF_ENOMEM;
  af_work_free(w);
  if (st != AF_OK) {
    af_v_error(r, st, "P4.beta0");
    return;
  }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < d; i++)
      mean[i] += y[j * d + i] / (double) n;
  double worst = 0;
  for (size_t j = 0; j < n; j++) {
    const double *t = y + j * d;
    double cm = t[0] * mean[0] + t[1] * mean[1] + t[2] * mean[2];
    for (size_t i = 0; i < d; i++)
      worst = fmax(worst, fabs(dy[j * d + i] - (mean[i] - cm * t[i])));
  }
  /* rounding: weights 1/n (n exps of 0, a sum), the mean of n unit
   * vectors, the projection: 2 (2n + d + 6) u per component, twice
   * (src/ and here) */
  double tol = af_v_tol(c, "P4.beta0") * 4.0 * (double) (2 * n + d + 6) * U;
  af_v_abs(r, worst, 0.0, tol);
  af_v_note(r, "beta=0, uniform n=6 d=3: max |f - P_x(mean)| %.3g", worst);
}

/* ------------------------------------------------------------------ */
/* P5: metastability                                                    */
/* ------------------------------------------------------------------ */

/* SA (Post-LN) on the circle, n = 5, the separated start of the
 * metastability demonstration (angles -0.1, 0.1, 1.82, 3.04, 3.24):
 * (1) at beta = 4 the cluster count (cosine > 0.9999) falls in a
 * staircase: non-increasing, >= 3 distinct values on [0, 400], ending at
 * 1; (2) the last plateau (two clusters at angle phi) lasts
 * ~ C(beta) e^{beta (1 - cos phi)}: the slope of ln t_merge between
 * beta = 3 and 4 equals 1 - cos phi (phi measured on the plateau at t =
 * 50, mean of the two betas) within P5.slope. */
#define P5_T 1000
static int p5_run(double *tmerge, double *cosphi, int *distinct,
                  int *monotone, const af_vctx *c, double beta)
{
  const double ang[5] = {-0.1, 0.1, 1.82, 3.04, 3.24};
  af_model m;
  af_v_model(&m, c, 5, 2, beta, AF_POST_LN);
  double y[15];
  for (size_t j = 0; j < 5; j++) {
    y[2 * j] = cos(ang[j]);
    y[2 * j + 1] = sin(ang[j]);
    y[10 + j] = 1.0;
  }
  af_work *w = af_work_alloc(5, 2);
  if (!w)
    return AF_ENOMEM;
  af_integ_opts o;
  af_integ_opts_init(&o);
  double prev = 5, t = 0;
  int st = AF_OK;
  *tmerge = INFINITY;
  *distinct = 1;
  *monotone = 1;
  *cosphi = NAN;
  for (int k = 1; k <= P5_T && st == AF_OK; k++) {
    double times[2] = {t, (double) k}, ob[AF_OBS_COUNT];
    st = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, NULL);
    t = (double) k;
    if (st == AF_OK)
      st = af_observe(ob, t, y, 0.9999, &m, w);
    if (st != AF_OK)
      break;
    double cl = ob[AF_OBS_clusters];
    if (k == 50)
      *cosphi = ob[AF_OBS_cos_min];
    if (cl > prev)
      *monotone = 0;
    if (cl != prev && k <= 400)
      (*distinct)++;
    if (cl == 1 && prev > 1)
      *tmerge = t;
    prev = cl;
  }
  af_work_free(w);
  return st;
}

static void claim_p5(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double t3, t4, c3, c4;
  int d3, d4, m3, m4;
  int st = p5_run(&t3, &c3, &d3, &m3, c, 3.0);
  if (st == AF_OK)
    st = p5_run(&t4, &c4, &d4, &m4, c, 4.0);
  if (st != AF_OK) {
    af_v_error(r, st, "P5");
    return;
  }
  double slope = log(t4 / t3), pred = 1.0 - 0.5 * (c3 + c4);
  af_v_abs(r, slope, pred, af_v_tol(c, "P5.slope"));
  if (!(m4 && m3 && d4 >= 3 && isfinite(t4)))
    r->status = AF_V_FAIL;
  af_v_note(r, "circle n=5, separated start: beta=4 %d cluster counts on "
            "[0,400] (%s), merge to 1 at t=%g (beta 3: %g); slope ln t "
            "%.4g vs 1-cos phi %.4g", d4, m4 ? "non-increasing" : "NOT "
            "monotone", t4, t3, slope, pred);
}

const af_claim af_claims_power[] = {
  {"T4.1m.alpha", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 0,
   F_S | F_A, "nGPT alpha = 0.5: gamma(t) of the scalar system"},
  {"T4.1m.decay", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 1,
   F_S | F_A, "nGPT alpha = 2 (1+t)^-0.7: gamma(t) of the scalar system"},
  {"T4.1m.tau", "mix-ln", AF_V_PASS, "T4.1m.traj", claim_power, 2,
   F_S | F_R | F_A, "Mix-LN tau = 0.3, r0 = 2: gamma, r of the scalar system"},
  {"T4.1m.tau", "mix-ln", AF_V_PASS, "T4.1m.traj", claim_power, 3,
   F_S | F_R | F_A, "Mix-LN tau = 2.5, r0 = 0.5: gamma, r of the scalar system"},
  {"T4.1m.r0", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 4,
   F_S | F_R | F_A, "Pre-LN r0 = 0.4: gamma, r of the scalar system"},
  {"T4.1m.r0", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 5,
   F_S | F_R | F_A, "Peri-LN r0 = 3: gamma, r of the scalar system"},
  {"T4.1m.d2-small", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 6,
   F_S | F_R | F_A, "d = 2, small path: 2 tokens at cos 0.4"},
  {"T4.1m.d2-blas", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 7,
   F_S | F_R | F_A, "d = 2, BLAS path: 2 groups of 64 at cos 0.4"},
  {"T4.1m.d2-direct", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 8,
   F_S | F_A, "d = 2, direct kernel: 2 groups of 8, alpha 1.5 (1+t)^-0.5"},
  {"T4.1m.d3-small", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 9,
   F_S | F_R | F_A, "d = 3, small path: 2 groups of 4"},
  {"T4.1m.d3-blas", "ln-scaling", AF_V_PASS, "T4.1m.traj", claim_power, 10,
   F_S | F_A, "d = 3, BLAS path: 2 groups of 48"},
  {"T4.1m.d4-small", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 11,
   F_S | F_R | F_A, "d = 4, small path: 3 groups of 2 at cos 0.4"},
  {"T4.1m.d4-blas", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 12,
   F_S | F_A, "d = 4, BLAS path: 3 groups of 27, alpha 0.7 (1+t)^-0.3"},
  {"T4.1m.d4-direct", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 13,
   F_S | F_R | F_A, "d = 4, direct kernel: 3 groups of 4"},
  {"T4.1m.d6-blas", "mix-ln", AF_V_PASS, "T4.1m.traj", claim_power, 14,
   F_S | F_R | F_A, "d = 6, BLAS path: 5 groups of 12, tau = 0.5"},
  {"T4.1m.beta50", "post-ln", AF_V_PASS, "T4.1m.traj", claim_power, 15,
   F_S | F_A, "beta = 50, small path, near consensus (beta w = 5)"},
  {"T4.1m.beta500", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 16,
   F_S | F_R | F_A, "beta = 500, BLAS path, 2 groups of 64 (beta w = 5)"},
  {"T4.1m.beta500", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 17,
   F_S | F_A, "beta = 500, direct kernel (beta w = 5)"},
  {"T4.1m.beta800", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 18,
   F_S | F_R | F_A, "beta = 800, small path: exp(800) overflows unshifted"},
  {"T4.1m.beta800", "ln-scaling", AF_V_PASS, "T4.1m.traj", claim_power, 23,
   F_S | F_A, "beta = 800, BLAS path: exp(800) overflows unshifted"},
  {"T4.1w.beta1000", "post-ln", AF_V_PASS, "T4.1m.traj", claim_power, 19,
   F_S | F_A, "beta = 500, Q = K = sqrt(2) I: the flow at beta 1000"},
  {"T4.1w.beta1000", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 24,
   F_S | F_R | F_A, "as T4.1w.beta1000, direct kernel"},
  {"T4.1w.scaled", "peri-ln", AF_V_PASS, "T4.1m.traj", claim_power, 20,
   F_S | F_R | F_A, "Q = K = sqrt(2.5) I, V = I: the flow at beta 2.5"},
  {"T4.1w.mixed", "pre-ln", AF_V_PASS, "T4.1m.traj", claim_power, 21,
   F_S | F_R | F_A, "Q = A, K = A^-T M, V = I + E: the flow at beta 2"},
  {"T4.1w.mixed", "ngpt", AF_V_PASS, "T4.1m.traj", claim_power, 22,
   F_S | F_A, "as T4.1w.mixed, direct kernel"},
  {"T3.1.d1r", "post-ln", AF_V_PASS, "T3.1.d1r", claim_d1r, AF_POST_LN, 0,
   "S^0: directions fixed, r = r0"},
  {"T3.1.d1r", "pre-ln", AF_V_PASS, "T3.1.d1r", claim_d1r, AF_PRE_LN,
   F_R | F_A, "S^0: directions fixed, r = r0 + c T"},
  {"T3.1.d1r", "mix-ln", AF_V_PASS, "T3.1.d1r", claim_d1r, AF_MIX_LN,
   F_R | F_A, "S^0: directions fixed, r = r0 + c (T - tau)"},
  {"T3.1.d1r", "peri-ln", AF_V_PASS, "T3.1.d1r", claim_d1r, AF_PERI_LN,
   F_R, "S^0: directions fixed, r = r0 + sign(c) T"},
  {"T3.1.d1r", "ngpt", AF_V_PASS, "T3.1.d1r", claim_d1r, AF_NGPT, 0,
   "S^0: directions fixed, r = r0"},
  {"T3.1.d1r", "ln-scaling", AF_V_PASS, "T3.1.d1r", claim_d1r,
   AF_LN_SCALING, 0, "S^0: directions fixed, r = r0"},
  {"P4", "", AF_V_PASS, "P4.order", claim_p4, 0, 0,
   "small beta: |x^b - x^0| = C b + O(b^2), order 1 in beta"},
  {"P4.beta0", "", AF_V_PASS, "P4.beta0", claim_p4_beta0, 0, 0,
   "beta = 0: dtheta/dt = P_theta(mean)"},
  {"P5", "", AF_V_PASS, "P5.slope", claim_p5, 0, F_S | F_A,
   "metastability: staircase; d ln t_merge/d beta = 1 - cos phi"},
  {"X.terminal", "", AF_V_PASS, "X.ratio", claim_cross, 0, F_S | F_R | F_A,
   "gap Pre-LN / Post-LN = scalar systems' ratio, > 1 and growing"},
  {"X.early", "", AF_V_PASS, "X.ratio", claim_cross, 1, F_S | F_R | F_A,
   "gamma Peri-LN / Pre-LN early = scalar systems' ratio, > 1"},
  {"X.late", "", AF_V_PASS, "X.ratio", claim_cross, 2, F_S | F_R | F_A,
   "gap Peri-LN / Post-LN late = scalar systems' ratio, > 1"},
  {"X.random-early", "", AF_V_PASS, "X.ratio", claim_cross, 3, 0,
   "random starts: Var drop Peri-LN > Pre-LN early"},
  {"X.random-late", "", AF_V_PASS, "X.ratio", claim_cross, 4, 0,
   "random starts: Var Peri-LN > Post-LN late"},
};
const size_t af_claims_power_count =
    sizeof af_claims_power / sizeof af_claims_power[0];
