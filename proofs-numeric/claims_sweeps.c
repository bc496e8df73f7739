/* claims_sweeps.c -- statements checked over their range of parameters
 * instead of at one point (theorems.md T3.1.range, T3.1.meta, P3, P6,
 * T4.3a.range, T4.3bc.range, T4.2.seeds) and the metastable time scales
 * (P5.tmerge, P5.depth, P5.scheme, P5.tscale; each described above its
 * function).
 * The runs of a grid go through af_sweep_exec (threads; rows do not
 * depend on their number).
 *
 *  - T3.1.range: Post-LN from uniform starts over (beta, n, d) in
 *    {0.5, 2} x {3, 16, 64} x {2, 3, 8} (full; quick: one point drawn,
 *    beta in [0.5, 2], n in 3..16, d 3; sw_draw),
 *    4 seeds a point (quick 2): every run synchronized (all pairwise
 *    1 - cos <= T3.1.threshold) at the horizon T = 40 (Post-LN collapses
 *    at rate e^{-2t} once near consensus; 1e-4 is reached by t ~ 5 + the
 *    time to leave the start at these beta).  The share synchronized is
 *    reported per point.
 *  - T3.1.meta: beta = 8 (full: n 5, 16, 64 and d 2, 3, 8; quick: n 5,
 *    d 2), same horizon: where runs have not synchronized they sit on a
 *    metastable plateau (several clusters, theorems.md P5); T3.1 says
 *    nothing about finite times, so the claim is INCONCLUSIVE with the
 *    share, the horizon and the cluster counts, never a pass.
 *  - P3 per scheme: hemisphere starts, beta = 1.7 (quick: drawn from
 *    [0.5, 8] per scheme): min_i <x_i, e_1> never
 *    decreases (at the minimizing token <P A_i, e_1> >= 0, and dividing by
 *    a positive speed factor keeps the sign), and the maximal gap shrinks.
 *  - P6 per scheme: causal masking, beta = 1.7: token 1 never moves
 *    (A_1 = th_1, P A_1 = 0 exactly) and every token approaches x_1(0);
 *    the horizon is the scheme's: Pre-, Mix-, Peri-LN collapse at
 *    polynomial rates (T4.1b), so their horizon is longer and the
 *    threshold the gap of that rate.
 *  - T4.3a.range: Pre-LN and Peri-LN, V = I, beta in {0.1, 0.5, 2, 8}
 *    (quick: one drawn from [0.1, 1], one from [1, 8]),
 *    8 random Q^T K with ||Q^T K||_op = 0.9 (K = I, Q^T = M, M Gaussian
 *    scaled), caps with delta = 0.9 min(1/(100 n^2 beta^2), 1/(100 n^2)):
 *    r_k(0) + (1 - 4 delta) t <= r_k(t) <= r_k(0) + t.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../theory/cluster.h"
#include "../theory/merge.h"
#include "claims_cluster.h"
#include "verify.h"

/* A point of a quick row drawn from the statement's range instead of a
 * hand-picked one: af_cc_draw (claims_cluster.h). */
#define sw_draw af_cc_draw

/* ------------------------------------------------------------ T3.1 */

typedef struct {
  double beta;
  size_t n, d;
} sw_point;

typedef struct {
  const sw_point *pts;
  size_t seeds;
  const double *T; /* horizons, increasing */
  size_t nT;
  double thr;
  unsigned fault;
} t31_grid;

/* Run r = point * seeds + k: integrate to the first horizon of g->T[]
 * at which every pairwise 1 - cos <= thr (or the last one): row = {max
 * gap, clusters, horizon} there. */
static int t31_task(double *row, size_t r, void *vctx)
{
  const t31_grid *g = vctx;
  const sw_point *p = &g->pts[r / g->seeds];
  size_t k = r % g->seeds;
  af_model m;
  af_model_init(&m, p->n, p->d, p->beta, AF_POST_LN);
  m.fault = g->fault;
  double *y = malloc(af_state_size(p->n, p->d) * sizeof *y);
  af_work *w = af_work_alloc(p->n, p->d);
  double obs[AF_OBS_COUNT];
  int rc = (y && w) ? af_init_state(y, NULL, "uniform", p->n, p->d, 1.0,
                                    af_sweep_seed(3170 + p->n * 31 + p->d, k))
                    : AF_ENOMEM;
  af_integ_opts o;
  af_integ_opts_init(&o);
  if (rc == AF_OK)
    af_work_set_kernel(w, AF_KERNEL_DIRECT);
  double t = 0;
  row[0] = row[1] = row[2] = NAN;
  for (size_t h = 0; h < g->nT && rc == AF_OK; h++) {
    const double times[2] = {t, g->T[h]};
    rc = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, NULL);
    if (rc == AF_OK)
      rc = af_observe(obs, g->T[h], y, 0.9999, &m, w);
    if (rc != AF_OK)
      break;
    t = g->T[h];
    row[0] = obs[AF_OBS_gap_max];
    row[1] = obs[AF_OBS_clusters];
    row[2] = t;
    if (row[0] <= g->thr)
      break;
  }
  free(y);
  af_work_free(w);
  return rc;
}

static int t31_run(double **rows, size_t npts, const t31_grid *g)
{
  size_t nr = npts * g->seeds;
  *rows = malloc(3 * nr * sizeof **rows);
  int *st = malloc(nr * sizeof *st);
  int rc = (*rows && st) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_sweep_exec(*rows, st, nr, 3, t31_task, (void *) g, NULL, 2, NULL,
                       NULL);
  for (size_t i = 0; rc == AF_OK && i < nr; i++)
    rc = st[i];
  free(st);
  return rc;
}

static void claim_t31_range(af_vresult *r, const af_vctx *c, int meta)
{
  double thr = af_v_tol(c, "T3.1.threshold");
  sw_point pts[18];
  size_t np = 0;
  int full = c->level == AF_LEVEL_FULL;
  static const size_t ns[3] = {3, 16, 64}, ds[3] = {2, 3, 8};
  if (!meta) {
    if (full) {
      static const double bs[2] = {0.5, 2.0};
      for (size_t b = 0; b < 2; b++)
        for (size_t i = 0; i < 3; i++)
          for (size_t j = 0; j < 3; j++)
            pts[np++] = (sw_point){bs[b], ns[i], ds[j]};
    } else /* one point drawn from [0.5, 2] x {3..16}, d = 3 */
      pts[np++] = (sw_point){sw_draw(0.5, 2.0, 0, 3101),
                             3 + (size_t) (14 * sw_draw(0, 1, 0, 3102)), 3};
  } else {
    static const size_t nm[3] = {5, 16, 64};
    if (full) {
      for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
          pts[np++] = (sw_point){8.0, nm[i], ds[j]};
    } else
      pts[np++] = (sw_point){8.0, 5, 2};
  }
  static const double hz[3] = {40.0, 400.0, 4000.0};
  t31_grid g = {pts, full ? 4 : 2, hz, meta ? 2 : 3, thr, c->fault};
  double *rows = NULL;
  int rc = t31_run(&rows, np, &g);
  if (rc != AF_OK) {
    free(rows);
    af_v_error(r, rc, "T3.1 range");
    return;
  }
  size_t runs = np * g.seeds, synced = 0, late = 0;
  double hmax = 0;
  for (size_t i = 0; i < runs; i++) {
    synced += rows[3 * i] <= thr;
    late += rows[3 * i] <= thr && rows[3 * i + 2] > g.T[0];
    if (rows[3 * i] <= thr)
      hmax = fmax(hmax, rows[3 * i + 2]);
  }
  double share = (double) synced / (double) runs;
  af_v_abs(r, share, 1.0, af_v_tol(c, "T3.1.sync"));
  af_v_note(r, "Post-LN uniform, %zu points x %zu seeds, horizons %g..%g: "
            "%zu of %zu synchronized (share %.3f; %zu after t=%g, the last "
            "by t=%g)", np, g.seeds, g.T[0], g.T[g.nT - 1], synced, runs,
            share, late, g.T[0], hmax);
  if (!full)
    af_v_note(r, "; point drawn: b=%.4g n=%zu d=%zu", pts[0].beta, pts[0].n,
              pts[0].d);
  /* the points not synchronized, with their cluster counts */
  for (size_t p = 0; p < np; p++) {
    size_t sp = 0;
    double cmin = INFINITY, cmax = 0;
    for (size_t k = 0; k < g.seeds; k++) {
      const double *row = rows + 3 * (p * g.seeds + k);
      sp += row[0] <= thr;
      cmin = fmin(cmin, row[1]);
      cmax = fmax(cmax, row[1]);
    }
    if (sp < g.seeds)
      af_v_note(r, "; b=%g n=%zu d=%zu: %zu/%zu, clusters %g-%g", pts[p].beta,
                pts[p].n, pts[p].d, sp, g.seeds, cmin, cmax);
  }
  /* A finite horizon cannot refute an almost-sure limit: a run not
   * synchronized at the last horizon sits on a plateau (several clusters),
   * which makes the claim inconclusive, never a pass nor a fail. */
  if (synced < runs) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, " -- metastable plateau at the last horizon: T3.1 (t -> "
                 "infinity) not decided there");
  } else if (meta) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, " -- no plateau reached the horizon");
  }
  free(rows);
}

static void claim_t31_sync(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  claim_t31_range(r, c, 0);
}

static void claim_t31_meta(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  claim_t31_range(r, c, 1);
}

/* ------------------------------------------------------------ P3, P6 */


static const char *sw_scheme_name(af_scheme_id s)
{
  const af_scheme *row = af_scheme_get(s);
  return row ? row->name : "?";
}

static void claim_p3_scheme(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  int quick = c->level == AF_LEVEL_QUICK;
  af_model m;
  /* quick: beta drawn log-uniformly from [0.5, 8] per scheme */
  double beta = quick ? sw_draw(0.5, 8.0, 1, 4761 + (unsigned long) s) : 1.7;
  af_v_model(&m, c, 8, 3, beta, s);
  double drop, gmax;
  double T = quick ? 10.0 : 30.0;
  size_t seeds = quick ? 1 : 8;
  int rc = af_cc_hemisphere(&drop, &gmax, &m, T, quick ? 51 : 301, seeds,
                            4760);
  if (rc != AF_OK) {
    af_v_error(r, rc, "P3 scheme");
    return;
  }
  af_v_ge(r, drop, 0.0, af_v_tol(c, "P3"));
  af_v_note(r, "%s n=8 d=3 beta=%.4g, %zu hemisphere starts, T=%g: worst "
            "change of min<x_i,e1> between outputs %.3g; max 1-cos at T %.3g",
            sw_scheme_name(s), beta, seeds, T, drop, gmax);
}

/* Horizon of P6 per scheme: Post-LN time 60 or more (LN-Scaling: u =
 * 2(sqrt(T+1) - 1) = 32 at T = 300; nGPT: s = |A|/alpha <= 1 is faster
 * than Post-LN).  Pre-, Mix-, Peri-LN: r grows like t, so Post-LN time
 * is about log T: the start of seed 4960, which Post-LN takes to one
 * point by t = 30, is still spread (max gap 1.3) at t = 3000 under
 * Pre-LN and reaches gap 2.5e-6 at t = 1e12; the adaptive steps grow with
 * t, so T = 1e13 costs a few hundred steps. */
static double p6_horizon(af_scheme_id s)
{
  switch (s) {
  case AF_PRE_LN:
  case AF_MIX_LN:
  case AF_PERI_LN:
    return 1e13;
  case AF_LN_SCALING:
    return 300.0;
  default:
    return 60.0;
  }
}

static void claim_p6_scheme(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  int quick = c->level == AF_LEVEL_QUICK;
  double tok1 = af_v_tol(c, "P6.token1");
  af_model m;
  af_v_model(&m, c, 6, 3, 1.7, s);
  m.attn = AF_ATTN_CAUSAL;
  double gmax, moved, T = p6_horizon(s);
  size_t seeds = quick ? 1 : 8;
  int rc = af_cc_causal(&gmax, &moved, &m, T, seeds, 4960);
  if (rc != AF_OK) {
    af_v_error(r, rc, "P6 scheme");
    return;
  }
  af_v_le(r, gmax, 0.0, af_v_tol(c, "P6"));
  af_v_note(r, "causal %s n=6 d=3 beta=1.7 T=%g, %zu seeds: max_k "
            "1-<x_k(T),x_1(0)> %.3g; token 1 moved %.3g", sw_scheme_name(s),
            T, seeds, gmax, moved);
  if (!(moved <= tok1)) {
    r->status = AF_V_FAIL;
    af_v_note(r, " -- token 1 moved");
  }
}

/* ------------------------------------------------------------ T4.3a */

/* Largest singular value of the d x d matrix M (power iteration on
 * M^T M from a fixed vector, 500 steps: d = 3, the ratio of the two
 * largest singular values of a Gaussian matrix is far from 1 a.s.). */
static double op_norm(const double *M, size_t d)
{
  double v[8] = {1, 0.7, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01}, u[8], s = 0;
  for (int it = 0; it < 500; it++) {
    for (size_t a = 0; a < d; a++) {
      u[a] = 0;
      for (size_t b = 0; b < d; b++)
        u[a] += M[a * d + b] * v[b];
    }
    for (size_t b = 0; b < d; b++) {
      v[b] = 0;
      for (size_t a = 0; a < d; a++)
        v[b] += M[a * d + b] * u[a];
    }
    double q = 0;
    for (size_t b = 0; b < d; b++)
      q += v[b] * v[b];
    q = sqrt(q);
    for (size_t b = 0; b < d; b++)
      v[b] /= q;
    s = sqrt(q);
  }
  return s;
}

#define TA_N 6
#define TA_D 3

/* One case of T4.3a/b/c over the range: Q (the model's Q^T K, K = I)
 * Gaussian scaled to ||Q^T K||_op = 0.9, and y a cap start of TA_N tokens
 * with delta = 0.9 min(1/(100 n^2 beta^2), 1/(100 n^2)) (seed of draw k
 * at beta index ib); *delta receives delta. */
static int ta_draw(double *y, double *delta, double *Q, gsl_rng *rng,
                   double beta, unsigned long seed, size_t ib, size_t k)
{
  for (size_t i = 0; i < TA_D * TA_D; i++)
    Q[i] = gsl_ran_gaussian(rng, 1.0);
  double sc = 0.9 / op_norm(Q, TA_D);
  for (size_t i = 0; i < TA_D * TA_D; i++)
    Q[i] *= sc;
  double nn = (double) (TA_N * TA_N);
  *delta = 0.9 * fmin(1.0 / (100 * nn * beta * beta), 1.0 / (100 * nn));
  char spec[64];
  snprintf(spec, sizeof spec, "cap:%.17g", *delta);
  return af_init_state(y, NULL, spec, TA_N, TA_D, 1.0,
                       af_sweep_seed(seed, ib * 64 + k));
}

static void claim_t43a_range(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  int quick = c->level == AF_LEVEL_QUICK;
  /* quick: one beta log-uniform in [0.1, 1], one in [1, 8] */
  const double bq[2] = {sw_draw(0.1, 1.0, 1, 4302 + (unsigned long) s),
                        sw_draw(1.0, 8.0, 1, 4303 + (unsigned long) s)};
  static const double bf[4] = {0.1, 0.5, 2.0, 8.0};
  const double *bs = quick ? bq : bf;
  size_t nb = quick ? 2 : 4, draws = quick ? 2 : 8;
  double T = quick ? 5.0 : 20.0;
  size_t nt = (size_t) T + 1;
  double times[21];
  for (size_t i = 0; i < nt; i++)
    times[i] = (double) i;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  af_weights *wt = af_weights_alloc(TA_D, 1, 1.0);
  double *Q = malloc(TA_D * TA_D * sizeof *Q);
  af_work *w = af_work_alloc(TA_N, TA_D);
  if (!(rng && wt && Q && w)) {
    gsl_rng_free(rng);
    af_weights_free(wt);
    free(Q);
    af_work_free(w);
    af_v_error(r, AF_ENOMEM, "T4.3a range");
    return;
  }
  gsl_rng_set(rng, 4300);
  wt->Q[0] = Q; /* owned by wt from here */
  double worst = INFINITY, wlo = INFINITY, whi = INFINITY, wb = 0;
  int rc = AF_OK;
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  for (size_t ib = 0; ib < nb && rc == AF_OK; ib++)
    for (size_t k = 0; k < draws && rc == AF_OK; k++) {
      double beta = bs[ib], delta;
      double y[TA_N * TA_D + TA_N], r0[TA_N];
      rc = ta_draw(y, &delta, Q, rng, beta, 4301, ib, k);
      if (rc != AF_OK)
        break;
      memcpy(r0, y + TA_N * TA_D, sizeof r0);
      af_model m;
      af_v_model(&m, c, TA_N, TA_D, beta, s);
      m.w = wt;
      for (size_t i = 1; i < nt && rc == AF_OK; i++) {
        rc = af_integrate(y, times + i - 1, 2, &m, &o, w, NULL, NULL, NULL);
        for (size_t j = 0; rc == AF_OK && j < TA_N; j++) {
          double t = times[i], rr = y[TA_N * TA_D + j];
          double lo = (rr - r0[j] - (1 - 4 * delta) * t) / t;
          double hi = (r0[j] + t - rr) / t;
          wlo = fmin(wlo, lo);
          whi = fmin(whi, hi);
          if (fmin(lo, hi) < worst) {
            worst = fmin(lo, hi);
            wb = beta;
          }
        }
      }
    }
  af_work_free(w);
  af_weights_free(wt);
  gsl_rng_free(rng);
  if (rc != AF_OK) {
    af_v_error(r, rc, "T4.3a range");
    return;
  }
  af_v_ge(r, worst, 0.0, af_v_tol(c, "T4.3a"));
  af_v_note(r, "%s n=%d d=%d V=I, beta in {%.4g, %.4g%s}, %zu random Q^T K "
            "per beta with ||Q^T K|| = 0.9, caps delta = 0.9 min(1/(100n^2b^2),"
            " 1/(100n^2)), t = 1..%g: min room/t to the lower bound %.3g, "
            "upper %.3g (worst at beta %.4g)", sw_scheme_name(s), TA_N, TA_D,
            bs[0], bs[1], quick ? "" : ", 2, 8", draws, T, wlo, whi, wb);
}

/* ------------------------------------------------------------ T4.3b/c */


/* T4.3b and T4.3c along one run: af_cc_t43bc (claims_cluster.c, the
 * definitions of its T4.3b/c, for any Q, K), with R taken where Var is in
 * [BC_VAR_LO, BC_VAR_HI]. */
#define BC_VAR_LO 1e-14
#define BC_VAR_HI 1e-7

static void claim_t43bc_range(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  int quick = c->level == AF_LEVEL_QUICK;
  /* quick: one beta log-uniform in [0.1, 8] per scheme */
  const double bq[1] = {sw_draw(0.1, 8.0, 1, 4332 + (unsigned long) s)};
  static const double bf[4] = {0.1, 0.5, 2.0, 8.0};
  const double *bs = quick ? bq : bf;
  size_t nb = quick ? 1 : 4, draws = quick ? 1 : 8;
  double slack = af_v_tol(c, "T4.3b"), floor = af_v_tol(c, "T4.3b.var_floor");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  af_weights *wt = af_weights_alloc(TA_D, 1, 1.0);
  double *Q = malloc(TA_D * TA_D * sizeof *Q);
  int rc = (rng && wt && Q) ? AF_OK : AF_ENOMEM;
  if (wt)
    wt->Q[0] = Q; /* owned by wt from here */
  else
    free(Q);
  double qmin = INFINITY, qmax = -INFINITY, rdev = 0;
  size_t nq = 0, nr = 0, runs = 0, windowless = 0;
  if (rc == AF_OK)
    gsl_rng_set(rng, 4330 + (unsigned long) s);
  for (size_t ib = 0; ib < nb && rc == AF_OK; ib++)
    for (size_t k = 0; k < draws && rc == AF_OK; k++) {
      double beta = bs[ib], delta;
      double y[TA_N * TA_D + TA_N];
      rc = ta_draw(y, &delta, Q, rng, beta, 4331, ib, k);
      if (rc != AF_OK)
        break;
      af_model m;
      af_v_model(&m, c, TA_N, TA_D, beta, s);
      m.w = wt;
      if (s == AF_NGPT)
        m.alpha = 0.6; /* alpha != 1: scale 1/alpha, not alpha */
      af_cc_t43bc_res x;
      rc = af_cc_t43bc(&x, &m, y, quick, floor, BC_VAR_LO, BC_VAR_HI);
      qmin = fmin(qmin, x.qmin);
      qmax = fmax(qmax, x.qmax);
      rdev = fmax(rdev, x.rdev);
      nq += x.nq;
      nr += x.nr;
      windowless += x.nr == 0;
      runs++;
    }
  af_weights_free(wt);
  gsl_rng_free(rng);
  if (rc != AF_OK) {
    af_v_error(r, rc, "T4.3bc range");
    return;
  }
  af_v_abs(r, 1.0 + rdev, 1.0, af_v_tol(c, "T4.3c"));
  char bstr[32];
  snprintf(bstr, sizeof bstr, "%.4g", bq[0]);
  af_v_note(r, "%s%s n=%d d=%d V=I, beta in {%s}, %zu random Q^T K each "
            "(||Q^T K|| = 0.9): T4.3c max |R-1| %.3g over %zu times with Var "
            "in [%g, %g]; T4.3b q in [%.4g, %.4g] over %zu times",
            sw_scheme_name(s), s == AF_NGPT ? " alpha=0.6" : "", TA_N, TA_D,
            quick ? bstr : "0.1, 0.5, 2, 8", draws, rdev, nr, BC_VAR_LO,
            BC_VAR_HI, qmin, qmax, nq);
  if (!(qmin >= AF_CL_T43B_LOWER - slack && qmax <= AF_CL_T43B_UPPER + slack)) {
    r->status = AF_V_FAIL;
    af_v_note(r, " -- T4.3b: q outside [1/9, 4]");
  }
  if (windowless > 0 && r->status == AF_V_PASS) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, " -- %zu of %zu runs never in the Var window", windowless,
              runs);
  }
}

/* ------------------------------------------------------------ T4.2 */

/* T4.2 with many starts per point: (n, d) meeting e^sqrt(d) >= n log n
 * >= d, 32 uniform starts each (quick: one point, 8 starts), beta = 1,
 * Q = K = V = I; per start the ratio max_j |A_j(0)| / (sqrt(log n/n) +
 * log n/d).  The statement holds with probability >= 1 - n^-c: the
 * frequency of ratios above C_ref (row T4.2.C) is reported per point; the
 * claim passes when no start exceeds it (0 of 32 at every n is what
 * any c > 0 predicts for these n to within the sampling error). */
typedef struct {
  const size_t (*pts)[2];
  size_t seeds;
  unsigned fault;
} t42_grid;

static int t42_task(double *row, size_t r, void *vctx)
{
  const t42_grid *g = vctx;
  size_t n = g->pts[r / g->seeds][0], d = g->pts[r / g->seeds][1];
  af_model m;
  af_model_init(&m, n, d, 1.0, AF_POST_LN);
  m.fault = g->fault;
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  double *a = malloc(n * sizeof *a);
  af_work *w = af_work_alloc(n, d);
  int rc = (y && a && w)
               ? af_init_state(y, NULL, "uniform", n, d, 1.0,
                               af_sweep_seed(4200 + n + 7 * d, r % g->seeds))
               : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_attention(NULL, NULL, NULL, a, 0.0, y, &m, w);
  double mx = 0;
  for (size_t j = 0; rc == AF_OK && j < n; j++)
    mx = fmax(mx, a[j]);
  double L = log((double) n);
  row[0] = rc == AF_OK ? mx / (sqrt(L / (double) n) + L / (double) d) : NAN;
  free(y);
  free(a);
  af_work_free(w);
  return rc;
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void claim_t42_seeds(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const size_t full[5][2] = {
    {64, 32}, {64, 128}, {256, 64}, {256, 256}, {1024, 128}};
  static const size_t quick[1][2] = {{64, 48}};
  int q = c->level == AF_LEVEL_QUICK;
  size_t np = q ? 1 : 5;
  t42_grid g = {q ? quick : full, q ? 8 : 32, c->fault};
  double cref = af_v_tol(c, "T4.2.C");
  size_t nr = np * g.seeds;
  double *rows = malloc(nr * sizeof *rows);
  int *st = malloc(nr * sizeof *st);
  int rc = (rows && st) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_sweep_exec(rows, st, nr, 1, t42_task, &g, NULL, 2, NULL, NULL);
  for (size_t i = 0; rc == AF_OK && i < nr; i++)
    rc = st[i];
  free(st);
  if (rc != AF_OK) {
    free(rows);
    af_v_error(r, rc, "T4.2 seeds");
    return;
  }
  double worst = 0;
  for (size_t i = 0; i < nr; i++)
    worst = fmax(worst, rows[i]);
  af_v_le(r, worst, cref, 0.0);
  af_v_note(r, "beta=1 uniform, %zu starts per (n,d) meeting the hypothesis; "
            "ratio max_j|A_j|/shape (median, max; starts above C_ref):",
            g.seeds);
  for (size_t p = 0; p < np; p++) {
    double *v = rows + p * g.seeds;
    size_t fp = 0;
    for (size_t k = 0; k < g.seeds; k++)
      fp += !(v[k] <= cref);
    qsort(v, g.seeds, sizeof *v, cmp_dbl);
    af_v_note(r, " (%zu,%zu) %.3f %.3f %zu/%zu;", g.pts[p][0], g.pts[p][1],
              v[g.seeds / 2], v[g.seeds - 1], fp, g.seeds);
  }
  free(rows);
}

/* ------------------------------------------------------------ P5 */


/* P5.tmerge: two tokens at right angles on the circle (Post-LN, the
 * smallest metastable configuration: two clusters of one token) merge to
 * angle 0.1 at the time of theory/merge.c; checked at beta = 4, 7, 10 by
 * the angle the simulation reaches at that time, converted to a time
 * error with dphi/dt at 0.1.  The slope d ln t / d beta (theory, central
 * difference) is reported against its limit 1 - cos phi0 = 1. */
#define PM_PHI0 (0.5 * M_PI)
#define PM_PHIE 0.1

static void pm_slopes(double *sl, const double *bs, size_t nb, int *rc)
{
  for (size_t i = 0; i < nb && *rc == AF_OK; i++) {
    double tp, tm, h = 1e-3;
    *rc = af_merge_time(&tp, bs[i] + h, PM_PHI0, PM_PHIE);
    if (*rc == AF_OK)
      *rc = af_merge_time(&tm, bs[i] - h, PM_PHI0, PM_PHIE);
    sl[i] = (log(tp) - log(tm)) / (2 * h);
  }
}

/* Two tokens at angle PM_PHI0 on the circle (radii 1) under model m run
 * to the merging time t of theory/merge.c: *err = |phi(t) - PM_PHIE| /
 * (|dphi/dt| t), the angle's miss as a relative time error, with
 * dphi/dt = -2 sin phi / (1 + e^{beta (1 - cos phi)}) / s at PM_PHIE and
 * the speed factor s of the final state (af_cl_speed: S1-S6 written again
 * in theory/). */
static int pm_time_error(double *err, const af_model *m, double t)
{
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  double y[2 * 2 + 2] = {1, 0, cos(PM_PHI0), sin(PM_PHI0), 1, 1};
  const double times[2] = {0, t};
  int rc = af_v_run(NULL, y, times, 2, m, &o, AF_KERNEL_DIRECT);
  if (rc != AF_OK)
    return rc;
  double phi = atan2(y[0] * y[3] - y[1] * y[2], y[0] * y[2] + y[1] * y[3]);
  double sh = sin(0.5 * PM_PHIE), E = exp(-2 * m->beta * sh * sh);
  double c = (1 + E * cos(PM_PHIE)) / (1 + E);
  double A = hypot(c, E * sin(PM_PHIE) / (1 + E)); /* |A| at PM_PHIE */
  double s = af_cl_speed(m->scheme, t, y[4], A, af_model_alpha(m, t), m->tau);
  double rate = 2 * sin(PM_PHIE) / (1 + 1 / E) / s;
  *err = fabs(phi - PM_PHIE) / rate / t;
  return AF_OK;
}

static void claim_p5_tmerge(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const double bs[3] = {4.0, 7.0, 10.0};
  double worst = 0, ts[3], sl[3];
  int rc = AF_OK;
  for (size_t i = 0; i < 3 && rc == AF_OK; i++) {
    double e = 0;
    rc = af_merge_time(&ts[i], bs[i], PM_PHI0, PM_PHIE);
    af_model m;
    af_v_model(&m, c, 2, 2, bs[i], AF_POST_LN);
    if (rc == AF_OK)
      rc = pm_time_error(&e, &m, ts[i]);
    worst = fmax(worst, e);
  }
  pm_slopes(sl, bs, 3, &rc);
  if (rc != AF_OK) {
    af_v_error(r, rc, "P5.tmerge");
    return;
  }
  af_v_le(r, worst, 0.0, af_v_tol(c, "P5.tmerge"));
  af_v_note(r, "two tokens at pi/2 on the circle, Post-LN, to angle 0.1: "
            "t_merge %.6g, %.6g, %.6g at beta 4, 7, 10 (quadrature), "
            "relative time error of the run %.2g; d ln t/d beta %.4f, %.4f, "
            "%.4f (limit 1 - cos phi0 = 1; Laplace 1 - 1/beta)", ts[0], ts[1],
            ts[2], worst, sl[0], sl[1], sl[2]);
}

/* P5.depth: the same two tokens under Pre-LN (r0 = 1): the merging time
 * of theory/merge.c (Post-LN time u = int dt/r, I2) against the run, as
 * a relative time error; and ln(1 + t_pre) against t_post (a plateau of
 * Post-LN length T lasts about e^T under Pre-LN).  beta = 4, 5.5, 7: at
 * beta = 10 the Post-LN merge takes 1129, the Pre-LN one e^1129, beyond
 * double. */
static void claim_p5_depth(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const double bs[3] = {4.0, 5.5, 7.0};
  double worst = 0, tp[3], tq[3];
  int rc = AF_OK;
  for (size_t i = 0; i < 3 && rc == AF_OK; i++) {
    double e = 0;
    rc = af_merge_time_preln(&tp[i], &tq[i], bs[i], PM_PHI0, PM_PHIE);
    af_model m;
    af_v_model(&m, c, 2, 2, bs[i], AF_PRE_LN);
    if (rc == AF_OK)
      rc = pm_time_error(&e, &m, tp[i]);
    worst = fmax(worst, e);
  }
  if (rc != AF_OK) {
    af_v_error(r, rc, "P5.depth");
    return;
  }
  af_v_le(r, worst, 0.0, af_v_tol(c, "P5.tmerge"));
  af_v_note(r, "two tokens at pi/2, Pre-LN r0=1, to angle 0.1: t_pre %.4g, "
            "%.4g, %.4g at beta 4, 5.5, 7 (Post-LN %.4g, %.4g, %.4g); "
            "ln(1+t_pre)/t_post %.3f %.3f %.3f; relative time error of the "
            "run %.2g", tp[0], tp[1], tp[2], tq[0], tq[1], tq[2],
            log1p(tp[0]) / tq[0], log1p(tp[1]) / tq[1], log1p(tp[2]) / tq[2],
            worst);
}

/* P5.scheme: the same two tokens under Mix-LN (tau = 1), Peri-LN, nGPT
 * (alpha = 0.6) and LN-Scaling, radii 1: the merging time of
 * af_merge_time_scheme against the run (relative time error, row
 * P5.scheme) over beta in [4, 7] (Mix-, Peri-LN: their times grow like
 * e^{t_post}, beyond double past beta ~ 7.5) or [4, 10] (nGPT,
 * LN-Scaling); quick: one beta drawn uniformly from the range (fixed
 * seed per scheme), full: four evenly spaced plus that draw.  Reported:
 * the scheme's time against Post-LN's (ln(1 + t)/t_post for Mix- and
 * Peri-LN, alpha t/t_post for nGPT, t/t_post for LN-Scaling) and its
 * d ln t/d beta (central difference of the theory). */
static void claim_p5_scheme(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id s = (af_scheme_id) arg;
  int fast = s == AF_NGPT || s == AF_LN_SCALING;
  double blo = 4.0, bhi = fast ? 10.0 : 7.0, alpha = 0.6;
  size_t nb = c->level == AF_LEVEL_FULL ? 5 : 1;
  double bs[5], ts[5], tu[5], sl[5], worst = 0, wb = 0;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  int rc = rng ? AF_OK : AF_ENOMEM;
  if (rng) {
    gsl_rng_set(rng, 5500 + (unsigned long) s);
    bs[nb - 1] = blo + (bhi - blo) * gsl_rng_uniform(rng);
    gsl_rng_free(rng);
  }
  for (size_t i = 0; i + 1 < nb; i++)
    bs[i] = blo + (bhi - blo) * (double) i / (double) (nb - 2);
  for (size_t i = 0; i < nb && rc == AF_OK; i++) {
    af_model m;
    af_v_model(&m, c, 2, 2, bs[i], s);
    if (s == AF_NGPT)
      m.alpha = alpha;
    double e = 0, tp, tm, h = 1e-3;
    rc = af_merge_time_scheme(&ts[i], &tu[i], s, bs[i], m.alpha, m.tau,
                              PM_PHI0, PM_PHIE);
    if (rc == AF_OK)
      rc = af_merge_time_scheme(&tp, NULL, s, bs[i] + h, m.alpha, m.tau,
                                PM_PHI0, PM_PHIE);
    if (rc == AF_OK)
      rc = af_merge_time_scheme(&tm, NULL, s, bs[i] - h, m.alpha, m.tau,
                                PM_PHI0, PM_PHIE);
    sl[i] = (log(tp) - log(tm)) / (2 * h);
    if (rc == AF_OK)
      rc = pm_time_error(&e, &m, ts[i]);
    if (e >= worst) {
      worst = e;
      wb = bs[i];
    }
  }
  if (rc != AF_OK) {
    af_v_error(r, rc, "P5.scheme");
    return;
  }
  af_v_le(r, worst, 0.0, af_v_tol(c, "P5.scheme"));
  af_v_note(r, "pi/2 -> 0.1, %s%s, beta in [%g, %g]: relative time error "
            "%.2g (beta %.4g); beta: t, t_post, %s, d ln t/d beta:",
            sw_scheme_name(s), s == AF_NGPT ? " alpha=0.6" : "", blo, bhi,
            worst, wb,
            s == AF_NGPT ? "alpha t/t_post"
            : s == AF_LN_SCALING ? "t/t_post" : "ln(1+t)/t_post");
  for (size_t i = 0; i < nb; i++) {
    double rel = s == AF_NGPT ? alpha * ts[i] / tu[i]
                 : s == AF_LN_SCALING ? ts[i] / tu[i]
                                      : log1p(ts[i]) / tu[i];
    af_v_note(r, " %.3g: %.4g %.4g %.3g %.3g;", bs[i], ts[i], tu[i], rel,
              sl[i]);
  }
}

/* The statement asked of the metastable time scale: d ln t_merge / d beta
 * within 2 % of 1 - cos phi over beta in [4, 10].  It fails: the
 * prefactor of e^{beta (1 - cos phi)} depends on beta (Laplace: 1/beta),
 * so the slope is 1 - cos phi - 1/beta + ...; expected outcome FAIL. */
static void claim_p5_slope(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const double bs[7] = {4, 5, 6, 7, 8, 9, 10};
  double sl[7], worst = 0;
  int rc = AF_OK;
  pm_slopes(sl, bs, 7, &rc);
  if (rc != AF_OK) {
    af_v_error(r, rc, "P5.tscale");
    return;
  }
  for (size_t i = 0; i < 7; i++)
    worst = fmax(worst, fabs(sl[i] - 1.0));
  af_v_le(r, worst, 0.0, af_v_tol(c, "P5.tscale"));
  af_v_note(r, "d ln t_merge/d beta vs 1 - cos phi0 = 1 at beta 4..10: %.3f "
            "%.3f %.3f %.3f %.3f %.3f %.3f", sl[0], sl[1], sl[2], sl[3], sl[4],
            sl[5], sl[6]);
}

#define SW_PER_SCHEME AF_V_PER_SCHEME /* verify.h */

const af_claim af_claims_sweeps[] = {
  {"T3.1.range", "post-ln", AF_V_PASS, "T3.1.sync", claim_t31_sync, 0, 0,
   "clustering over (beta, n, d): every start synchronized at the horizon"},
  {"T3.1.meta", "post-ln", AF_V_INCONCLUSIVE, "T3.1.sync", claim_t31_meta, 0,
   0, "sanity: beta = 8, metastable plateaus at the horizon reported "
   "(inconclusive by design)"},
  SW_PER_SCHEME("P3.scheme", "P3", claim_p3_scheme, 0,
                "hemisphere: min <x_i, e_1> non-decreasing, every scheme"),
  SW_PER_SCHEME("P6.scheme", "P6", claim_p6_scheme, 0,
                "causal: token 1 fixed, all tokens -> x_1(0), every scheme"),
  {"T4.3a.range", "pre-ln", AF_V_PASS, "T4.3a", claim_t43a_range, AF_PRE_LN,
   F_R, "radial bounds over beta in [0.1, 8] and random Q^T K"},
  {"T4.3a.range", "peri-ln", AF_V_PASS, "T4.3a", claim_t43a_range,
   AF_PERI_LN, F_R, "radial bounds over beta in [0.1, 8] and random Q^T K"},
  {"P5.tmerge", "post-ln", AF_V_PASS, "P5.tmerge", claim_p5_tmerge, 0, F_A,
   "two-token merging time at beta 4, 7, 10 against its quadrature"},
  {"P5.depth", "pre-ln", AF_V_PASS, "P5.tmerge", claim_p5_depth, 0,
   F_A | F_R, "two-token merging time under Pre-LN (about e^T for a Post-LN "
   "plateau of length T) against its quadrature"},
  {"P5.scheme", "mix-ln", AF_V_PASS, "P5.scheme", claim_p5_scheme, AF_MIX_LN,
   F_A, "two-token merging time under Mix-LN over beta against theory"},
  {"P5.scheme", "peri-ln", AF_V_PASS, "P5.scheme", claim_p5_scheme,
   AF_PERI_LN, F_A, "two-token merging time under Peri-LN over beta against "
   "theory"},
  {"P5.scheme", "ngpt", AF_V_PASS, "P5.scheme", claim_p5_scheme, AF_NGPT, F_A,
   "two-token merging time under nGPT (alpha = 0.6) over beta against "
   "theory"},
  {"P5.scheme", "ln-scaling", AF_V_PASS, "P5.scheme", claim_p5_scheme,
   AF_LN_SCALING, F_A, "two-token merging time under LN-Scaling over beta "
   "against theory"},
  {"P5.tscale", "", AF_V_FAIL, "P5.tscale", claim_p5_slope, 0, 0,
   "sanity: d ln t_merge/d beta within 2% of 1 - cos phi on [4, 10] "
   "(false: the prefactor depends on beta)"},
  {"T4.2.seeds", "", AF_V_PASS, "T4.2.C", claim_t42_seeds, 0, 0,
   "initial velocity bound over 32 random starts per (n, d) point"},
  SW_PER_SCHEME("T4.3bc.range", "T4.3c", claim_t43bc_range, F_S,
                "decay constant and its limit over beta and random Q^T K"),
};

const size_t af_claims_sweeps_count =
    sizeof af_claims_sweeps / sizeof af_claims_sweeps[0];
