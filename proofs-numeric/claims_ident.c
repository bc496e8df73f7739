/* claims_ident.c -- claims for the identities I1, I2, I3 and the discrete
 * layer maps S7 (theory/theorems.md S7, I1-I3).
 *
 *  I1 (one claim per scheme, and one for weights Q, K with V = Q^T K
 *     symmetric): E = sum_{j,k} exp(beta <Q th_j, K th_k>) never decreases
 *     along a trajectory from a random start.  Measured: the relative
 *     increment (E(t_k+1) - E(t_k))/E(t_k) of the interval where it comes
 *     closest to its slack; the slack bounds what the integrator's local
 *     errors and rounding can do to the increment (af_ci_energy_run).
 *  I2 (four claims): time changes between schemes, integrated by src/ on
 *     both sides and compared state by state: LN-Scaling at t against
 *     Post-LN at u = 2(sqrt(t+1) - 1) (u from theory/); Pre-LN at t against
 *     Post-LN at u = int_0^t ds / r(s) and nGPT at t against Post-LN at
 *     u = int_0^t alpha / |A| ds under the symmetric start of T4.1 (the
 *     integrals by Gauss-Legendre quadrature on output times of the run);
 *     Mix-LN against Post-LN on [0, tau] followed by a fresh Pre-LN run
 *     started from (theta(tau), r(0)).
 *  I3: Var = 1 - |mean|^2 = (n-1)(1 - gbar)/n along a trajectory: the
 *     library's observables against the three forms written in theory/.
 *  S7 (one claim per scheme): the layer maps converge to their flow at
 *     order 1 (fitted order of the error at T = 1 over h = 0.1 / 2^k
 *     against a tight rk8pd run of the flow); and (Post-LN) the layer step
 *     is the geodesic step of angle atan2(h|w|, 1 + h<theta, v>).
 *
 * Faults (AF_FAULT_*).  src/ applies each fault to the flow and to the
 * layer maps alike, and the identities hold for any positive speed
 * factor, any radial law and any beta; so only these claims have a fault
 * that must break them:
 *  - SPEED breaks the I2 claims: the factor (1 + 0.05 t) depends on the
 *    time itself, which the time change maps to another time (LN-Scaling,
 *    Pre-LN, nGPT), or which a fresh Pre-LN run restarts from 0 (Mix-LN);
 *  - SPEED and ATTENTION break the S7 geodesic claim, whose angle uses the
 *    S7 map with A from theory/ (M2, the unperturbed beta) at a layer
 *    with l h = 3 (SPEED shrinks that step's angle by 1/1.15).
 * RADIAL breaks none of them: the Pre-LN time change integrates the
 * run's own radius, and the Mix-LN composite uses the same radial law on
 * both sides; the layer maps' radius update is scaled like the flow's.
 * I1, I3 and the S7 order claims cannot be broken by any fault; their
 * power is shown in tests/test_claims_ident.c (an energy-decreasing model
 * V = -I, a wrong variance formula, a layer map compared with another
 * scheme's flow).
 */
#include <config.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>

#include "verify.h"
#include "theory.h"
#include "ident.h"
#include "claims_ident.h"

#define EPS DBL_EPSILON

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static double dot(const double *x, const double *y, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += x[i] * y[i];
  return s;
}

static void directions(double *th, const double *y, size_t n, size_t d)
{
  for (size_t j = 0; j < n; j++) {
    double inv = 1.0 / sqrt(dot(y + j * d, y + j * d, d));
    for (size_t i = 0; i < d; i++)
      th[j * d + i] = y[j * d + i] * inv;
  }
}

/* Operator norm (largest singular value, GSL's one-sided Jacobi SVD,
 * accurate to a few eps relative: the bounds using it carry far more
 * slack than that); 1 for NULL = identity; NaN if the SVD fails. */
static double op_norm(const double *M, size_t d)
{
  if (M == NULL)
    return 1.0;
  gsl_matrix *A = gsl_matrix_alloc(d, d), *Vm = gsl_matrix_alloc(d, d);
  gsl_vector *S = gsl_vector_alloc(d);
  double nrm = NAN;
  if (A && Vm && S) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++)
        gsl_matrix_set(A, a, b, M[a * d + b]);
    if (gsl_linalg_SV_decomp_jacobi(A, Vm, S) == 0)
      nrm = gsl_vector_max(S) * (1.0 + 8.0 * (double) d * EPS);
  }
  if (A) gsl_matrix_free(A);
  if (Vm) gsl_matrix_free(Vm);
  if (S) gsl_vector_free(S);
  return nrm;
}

double af_ci_state_distance(const double *ya, const double *yb, size_t n,
                            size_t d)
{
  double worst = 0;
  for (size_t j = 0; j < n; j++) {
    const double *a = ya + j * d, *b = yb + j * d;
    double na = sqrt(dot(a, a, d)), nb = sqrt(dot(b, b, d)), q = 0;
    for (size_t i = 0; i < d; i++) {
      double e = a[i] / na - b[i] / nb;
      q += e * e;
    }
    double ra = ya[n * d + j], rb = yb[n * d + j];
    worst = fmax(worst, sqrt(q));
    worst = fmax(worst, fabs(ra - rb) / fabs(rb));
  }
  return worst;
}

/* Integrator options of the claims that compare two integrated runs: the
 * tightest tolerances at which rk8pd's step control still sees truncation
 * rather than rounding (about 4500 eps). */
static void tight_opts(af_integ_opts *o)
{
  af_integ_opts_init(o);
  o->rtol = 1e-12;
  o->atol = 1e-14;
}

/* Integrate y over times, copying the state at each output time into
 * states (ntimes x size) and, if a is non-NULL, mean |A_j| into a[k]. */
typedef struct {
  double *states;
  double *a;
  size_t size, k;
  const af_model *m;
  af_work *w;
  double *abuf;
} collect_ctx;

static int collect(double t, const double *y, void *vctx)
{
  collect_ctx *c = vctx;
  if (c->states)
    memcpy(c->states + c->k * c->size, y, c->size * sizeof(double));
  if (c->a) {
    int rc = af_attention(NULL, NULL, NULL, c->abuf, t, y, c->m, c->w);
    if (rc != AF_OK)
      return rc;
    double s = 0;
    for (size_t j = 0; j < c->m->n; j++)
      s += c->abuf[j];
    c->a[c->k] = s / (double) c->m->n;
  }
  c->k++;
  return 0;
}

static int run_collect(double *states, double *a, unsigned long *steps,
                       double *y, const double *times, size_t ntimes,
                       const af_model *m, const af_integ_opts *o)
{
  af_work *w = af_work_alloc(m->n, m->d);
  af_work *w2 = af_work_alloc(m->n, m->d);
  double *abuf = malloc(m->n * sizeof(double));
  if (w == NULL || w2 == NULL || abuf == NULL) {
    af_work_free(w);
    af_work_free(w2);
    free(abuf);
    return AF_ENOMEM;
  }
  collect_ctx c = {states, a, af_state_size(m->n, m->d), 0, m, w2, abuf};
  af_integ_stats st;
  int rc = af_integrate(y, times, ntimes, m, o, w, collect, &c, &st);
  if (steps)
    *steps = st.steps;
  af_work_free(w);
  af_work_free(w2);
  free(abuf);
  return rc;
}

/* ------------------------------------------------------------------ */
/* I1: the energy never decreases                                       */
/* ------------------------------------------------------------------ */

/* log E and the smallest speed factor at (t, y). */
static int energy_at(double *logE, double *smin, double *rmin, double t,
                     const double *y, const af_model *m, const double *M,
                     af_work *w, double *th, double *s)
{
  size_t n = m->n, d = m->d;
  directions(th, y, n, d);
  int rc = af_id_log_energy(logE, th, n, d, m->beta, M);
  if (rc == AF_OK)
    rc = af_speeds(s, NULL, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  *smin = INFINITY;
  *rmin = INFINITY;
  for (size_t j = 0; j < n; j++) {
    *smin = fmin(*smin, s[j]);
    *rmin = fmin(*rmin, fabs(y[n * d + j]));
  }
  return AF_OK;
}

/* The slack of one interval [t_k, t_k + dt] (y_k the computed state at
 * t_k, phi the exact flow).  E(y_k+1) - E(y_k) = [E(phi(y_k)) - E(y_k)]
 * + [E(y_k+1) - E(phi(y_k))]; the first bracket is >= 0 by I1, the second
 * is the effect on E of the error made inside this one interval:
 *  - local errors: N_k accepted steps, each within atol + rtol |y_i| per
 *    component (rk8pd's control; its estimate is that of the embedded
 *    lower-order solution, so conservative for the propagated one): a
 *    direction moves by at most sqrt(d) (atol + rtol) per step; a radius
 *    error delta r changes d theta/dt = P A / s by at most
 *    |V| (delta r / r) / s_min (s proportional to r for Pre/Mix/Peri-LN),
 *    i.e. theta by |V| dt (atol / r_min + rtol) / s_min per step;
 *  - propagation inside the interval: at most e^{L dt}, L a Lipschitz
 *    constant of the direction field.  With w_jk the weights, |V th| <=
 *    |V|, |<x, M y>| <= |M|: a change of th_k moves A_j by at most
 *    w_jk |V| (1 + 2 beta |M|), of th_j (through its scores) by at most
 *    4 beta |M| |V|; the projection adds 2 |A_j| <= 2 |V|; dividing by a
 *    speed factor proportional to |A| (Peri-LN, nGPT) adds |dA| / s.
 *    So L <= |V| (4 + 12 beta |M|) / s_min;
 *  - dE: |dE/d th_j| = 2 beta |sum_k e^{beta s_jk} M th_k| <= 2 beta |M| Z_j
 *    (M symmetric), sum_j Z_j = E, so |dE| / E <= 2 beta |M| max_j |d th_j|;
 *  - rounding: both energies within af_id_energy_rounding relative, both
 *    logarithms within eps |log E| absolute.
 * s_min is the smallest speed factor at the two ends of the interval
 * (dt small against the time scale on which s changes). */
int af_ci_energy_run(af_ci_energy *res, double *y, const af_model *m,
                     double T, double dt, const af_integ_opts *o)
{
  if (res == NULL || y == NULL || m == NULL || o == NULL || !(dt > 0)
      || !(T >= dt))
    return AF_EINVAL;
  size_t K = (size_t) nearbyint(T / dt);
  if (fabs((double) K * dt - T) > 4 * EPS * T)
    return AF_EINVAL;
  size_t n = m->n, d = m->d;
  const double *V = NULL;
  double *M = NULL;
  if (m->w != NULL) {
    if (m->w->layers != 1)
      return AF_EINVAL; /* I1 needs constant weights */
    const double *Q = m->w->Q[0], *Kw = m->w->K[0];
    V = m->w->V[0];
    if (Q != NULL || Kw != NULL) {
      M = malloc(d * d * sizeof(double));
      if (M == NULL)
        return AF_ENOMEM;
      for (size_t a = 0; a < d; a++) /* M = Q^T K */
        for (size_t b = 0; b < d; b++) {
          double s = 0;
          for (size_t i = 0; i < d; i++)
            s += (Q ? Q[i * d + a] : (double) (i == a))
                 * (Kw ? Kw[i * d + b] : (double) (i == b));
          M[a * d + b] = s;
        }
    }
  }
  double mn = op_norm(M, d), vn = op_norm(V, d);
  if (isnan(mn) || isnan(vn)) {
    free(M);
    return AF_EGSL;
  }
  af_work *w = af_work_alloc(n, d);
  double *th = malloc(n * d * sizeof(double));
  double *s = malloc(n * sizeof(double));
  int rc = (w && th && s) ? AF_OK : AF_ENOMEM;
  memset(res, 0, sizeof *res);
  res->inc_min = INFINITY;
  res->s_min = INFINITY;
  double best = INFINITY, logE0 = 0, s0 = 0, r0 = 0;
  if (rc == AF_OK)
    rc = energy_at(&logE0, &s0, &r0, 0.0, y, m, M, w, th, s);
  double round = 2 * af_id_energy_rounding(n, d, m->beta, mn);
  /* Shorter intervals where the propagation bound would be useless: at
   * most 1/L(0) long, so that e^{L dt} stays near e while s_min stays near
   * its initial value. */
  if (rc == AF_OK) {
    double L0 = vn * (4.0 + 12.0 * m->beta * mn) / s0;
    double kmin = ceil(T * L0 * (1.0 - 4 * EPS));
    if (kmin > (double) K)
      K = (size_t) kmin;
  }
  double h = T / (double) K;
  for (size_t k = 0; k < K && rc == AF_OK; k++) {
    double times[2] = {(double) k * h, k + 1 == K ? T : (double) (k + 1) * h};
    af_integ_stats st;
    rc = af_integrate(y, times, 2, m, o, w, NULL, NULL, &st);
    double logE1, s1, r1;
    if (rc == AF_OK)
      rc = energy_at(&logE1, &s1, &r1, times[1], y, m, M, w, th, s);
    if (rc != AF_OK)
      break;
    double smin = fmin(s0, s1), rmin = fmin(r0, r1);
    double L = vn * (4.0 + 12.0 * m->beta * mn) / smin;
    double eloc = sqrt((double) d) * (o->atol + o->rtol)
                  + vn * h * (o->atol / rmin + o->rtol) / smin;
    double slack = 2.0 * m->beta * mn * (double) st.steps * eloc * exp(L * h)
                   + round + 2 * EPS * fmax(fabs(logE0), fabs(logE1));
    double inc = expm1(logE1 - logE0);
    if (inc + slack < best) {
      best = inc + slack;
      res->inc = inc;
      res->slack = slack;
      res->t = times[0];
    }
    res->inc_min = fmin(res->inc_min, inc);
    res->s_min = fmin(res->s_min, smin);
    if (st.steps > res->steps_max)
      res->steps_max = st.steps;
    res->intervals++;
    res->dt = h;
    logE0 = logE1;
    s0 = s1;
    r0 = r1;
  }
  af_work_free(w);
  free(th);
  free(s);
  free(M);
  return rc;
}

typedef struct {
  size_t n, d, seeds;
  double beta, T, dt;
} i1_case;

static i1_case i1_case_for(af_level level)
{
  /* quick: the brief's case; full: the paper's n = 256, beta = 5 */
  if (level == AF_LEVEL_FULL)
    return (i1_case){256, 8, 1, 5.0, 5.0, 0.05};
  return (i1_case){8, 3, 3, 1.0, 5.0, 0.05};
}

/* Energy claim over several seeds; weights (may be NULL) go into the
 * model.  Reports the seed whose tightest interval is closest to its
 * slack. */
static void i1_common(af_vresult *r, const af_vctx *c, af_scheme_id scheme,
                      af_weights *wts, const char *label)
{
  i1_case k = i1_case_for(c->level);
  double factor = af_v_tol(c, "I1.energy");
  af_model m;
  af_v_model(&m, c, k.n, k.d, k.beta, scheme);
  m.w = wts;
  af_integ_opts o;
  af_integ_opts_init(&o); /* rk8pd, rtol 1e-10, atol 1e-12 */
  double *y = malloc(af_state_size(k.n, k.d) * sizeof(double));
  if (y == NULL) {
    af_v_error(r, AF_ENOMEM, "I1");
    return;
  }
  af_ci_energy worst = {0};
  double worst_margin = INFINITY, inc_min = INFINITY, smin = INFINITY;
  unsigned long smax = 0;
  unsigned long worst_seed = 0;
  for (size_t sd = 0; sd < k.seeds; sd++) {
    unsigned long seed = 101 + sd;
    int rc = af_init_state(y, NULL, "uniform", k.n, k.d, NAN, seed);
    af_ci_energy e;
    if (rc == AF_OK)
      rc = af_ci_energy_run(&e, y, &m, k.T, k.dt, &o);
    if (rc != AF_OK) {
      af_v_error(r, rc, "I1 energy run");
      free(y);
      return;
    }
    double margin = e.inc + factor * e.slack;
    if (margin < worst_margin) {
      worst_margin = margin;
      worst = e;
      worst_seed = seed;
    }
    inc_min = fmin(inc_min, e.inc_min);
    smin = fmin(smin, e.s_min);
    if (e.steps_max > smax)
      smax = e.steps_max;
  }
  free(y);
  af_v_ge(r, worst.inc, 0.0, factor * worst.slack);
  af_v_note(r, "%s n=%zu d=%zu beta=%g T=%g dt=%g, %zu seeds: tightest dE/E="
            "%.3g at t=%g (seed %lu), slack %.3g; min dE/E %.3g; "
            "min s %.3g; <=%lu steps/interval", label, k.n, k.d, k.beta, k.T,
            worst.dt, k.seeds, worst.inc, worst.t, worst_seed,
            factor * worst.slack, inc_min, smin, smax);
}

static void claim_i1(af_vresult *r, const af_vctx *c, int arg)
{
  i1_common(r, c, (af_scheme_id) arg, NULL, "Q=K=V=I");
}

/* Constant Q (Kaiming), symmetric S = (B + B^T)/2 with B Kaiming, and
 * K = Q^{-T} S, V = S: then Q^T K = S = V symmetric, the hypothesis of
 * the weighted I1. */
static int symmetric_weights(af_weights **out, size_t d, double T,
                             unsigned long seed)
{
  af_weights *w = af_weights_alloc(d, 1, T);
  if (w == NULL)
    return AF_ENOMEM;
  int rc = af_weights_kaiming(w, seed);
  gsl_matrix *Qt = gsl_matrix_alloc(d, d);
  gsl_permutation *p = gsl_permutation_alloc(d);
  gsl_vector *b = gsl_vector_alloc(d), *x = gsl_vector_alloc(d);
  if (rc == AF_OK && (!Qt || !p || !b || !x))
    rc = AF_ENOMEM;
  if (rc == AF_OK) {
    double *Q = w->Q[0], *K = w->K[0], *V = w->V[0];
    double *S = malloc(d * d * sizeof(double));
    if (S == NULL)
      rc = AF_ENOMEM;
    for (size_t a = 0; rc == AF_OK && a < d; a++)
      for (size_t c = 0; c < d; c++) {
        S[a * d + c] = 0.5 * (V[a * d + c] + V[c * d + a]);
        gsl_matrix_set(Qt, a, c, Q[c * d + a]);
      }
    int sg;
    if (rc == AF_OK && gsl_linalg_LU_decomp(Qt, p, &sg) != 0)
      rc = AF_EGSL;
    for (size_t c = 0; rc == AF_OK && c < d; c++) { /* Q^T K[:, c] = S[:, c] */
      for (size_t a = 0; a < d; a++)
        gsl_vector_set(b, a, S[a * d + c]);
      if (gsl_linalg_LU_solve(Qt, p, b, x) != 0)
        rc = AF_EGSL;
      for (size_t a = 0; a < d; a++)
        K[a * d + c] = gsl_vector_get(x, a);
    }
    if (rc == AF_OK)
      memcpy(V, S, d * d * sizeof(double));
    free(S);
  }
  if (Qt) gsl_matrix_free(Qt);
  if (p) gsl_permutation_free(p);
  if (b) gsl_vector_free(b);
  if (x) gsl_vector_free(x);
  if (rc != AF_OK) {
    af_weights_free(w);
    return rc;
  }
  *out = w;
  return AF_OK;
}

static void claim_i1_weighted(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  i1_case k = i1_case_for(c->level);
  af_weights *w = NULL;
  int rc = symmetric_weights(&w, k.d, k.T, 7);
  if (rc != AF_OK) {
    af_v_error(r, rc, "I1 weights");
    return;
  }
  i1_common(r, c, AF_POST_LN, w, "Post-LN, V=Q^TK symmetric (seed 7)");
  af_weights_free(w);
}

/* ------------------------------------------------------------------ */
/* I2: time changes                                                     */
/* ------------------------------------------------------------------ */

/* The I2 comparisons: two runs at tight_opts; each direction within
 * N sqrt(d) (atol + rtol) of the exact flow times the growth of errors
 * along the run, a radius within N (atol + rtol r) likewise.  The row
 * "I2.state" is that growth allowance G: tolerance = G (N_a + N_b)
 * (atol + rtol) sqrt(d + 1) r_max, r_max the largest radius met (>= 1). */
static double i2_tolerance(const af_vctx *c, unsigned long steps, size_t d,
                           double rmax, const af_integ_opts *o)
{
  return af_v_tol(c, "I2.state") * (double) steps * (o->atol + o->rtol)
         * sqrt((double) d + 1.0) * fmax(1.0, rmax);
}

/* The tolerance above grows with the steps of the runs it judges, so a
 * wrong field that forces many steps would widen it: past the work
 * budget (row I2.budget: total steps of the compared runs per unit of
 * time, times the horizon T) the claim
 * FAILs instead.  Returns 1 (and sets r) if over budget. */
static int i2_over_budget(af_vresult *r, const af_vctx *c,
                          unsigned long steps, double T)
{
  double b = af_v_tol(c, "I2.budget") * T;
  if (!((double) steps > b))
    return 0;
  r->status = AF_V_FAIL;
  r->measured = (double) steps;
  r->predicted = 0;
  r->tolerance = b;
  r->margin = (b - (double) steps) / b;
  af_v_note(r, "the runs took %lu steps, over the work budget %.0f; ", steps,
            b);
  return 1;
}

static double max_radius(const double *states, size_t count, size_t n,
                         size_t d)
{
  double rmax = 0;
  size_t size = af_state_size(n, d);
  for (size_t k = 0; k < count; k++)
    for (size_t j = 0; j < n; j++)
      rmax = fmax(rmax, fabs(states[k * size + n * d + j]));
  return rmax;
}

typedef struct {
  size_t n, d;
  double beta, T;
  size_t nout; /* comparison times T k / nout, k = 0..nout */
} i2_case;

static i2_case i2_case_random(af_level level)
{
  if (level == AF_LEVEL_FULL)
    return (i2_case){256, 8, 5.0, 5.0, 10};
  return (i2_case){8, 3, 1.0, 5.0, 10};
}

static i2_case i2_case_symmetric(af_level level)
{
  if (level == AF_LEVEL_FULL)
    return (i2_case){128, 128, 5.0, 20.0, 10};
  return (i2_case){8, 8, 1.0, 5.0, 10};
}

/* (a) LN-Scaling at t against Post-LN at u = 2(sqrt(t+1) - 1). */
static void claim_i2_lnscaling(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  i2_case k = i2_case_random(c->level);
  size_t size = af_state_size(k.n, k.d), nt = k.nout + 1;
  af_model ml, mp;
  af_v_model(&ml, c, k.n, k.d, k.beta, AF_LN_SCALING);
  af_v_model(&mp, c, k.n, k.d, k.beta, AF_POST_LN);
  af_integ_opts o;
  tight_opts(&o);
  double *y0 = malloc(size * sizeof(double)), *y = malloc(size * sizeof(double));
  double *sl = malloc(nt * size * sizeof(double));
  double *sp = malloc(nt * size * sizeof(double));
  double *t = malloc(nt * sizeof(double)), *u = malloc(nt * sizeof(double));
  int rc = (y0 && y && sl && sp && t && u) ? AF_OK : AF_ENOMEM;
  unsigned long nl = 0, np = 0;
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "uniform", k.n, k.d, NAN, 211);
  if (rc == AF_OK) {
    for (size_t i = 0; i < nt; i++) {
      t[i] = k.T * (double) i / (double) k.nout;
      u[i] = af_t41_lnscaling_time(t[i]);
    }
    memcpy(y, y0, size * sizeof(double));
    rc = run_collect(sl, NULL, &nl, y, t, nt, &ml, &o);
  }
  if (rc == AF_OK) {
    memcpy(y, y0, size * sizeof(double));
    rc = run_collect(sp, NULL, &np, y, u, nt, &mp, &o);
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "I2 LN-Scaling / Post-LN runs");
  else {
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < nt; i++) {
      double e = af_ci_state_distance(sl + i * size, sp + i * size, k.n, k.d);
      if (e > worst) {
        worst = e;
        at = i;
      }
    }
    double tol = i2_tolerance(c, nl + np, k.d, 1.0, &o);
    af_v_abs(r, worst, 0.0, tol);
    i2_over_budget(r, c, nl + np, k.T);
    af_v_note(r, "uniform n=%zu d=%zu beta=%g t<=%g: max state diff %.3g at "
              "t=%g (u=%g); steps %lu+%lu", k.n, k.d, k.beta, k.T, worst,
              t[at], u[at], nl, np);
  }
  free(y0);
  free(y);
  free(sl);
  free(sp);
  free(t);
  free(u);
}

/* Output times for a Gauss-Legendre rule on panels of width T / panels:
 * for each panel its q nodes then its right end.  Returns the count. */
static size_t gl_times(double *times, double *weights, size_t panels,
                       double T, const gsl_integration_glfixed_table *tab,
                       size_t q)
{
  size_t k = 0;
  times[k] = 0.0;
  weights[k++] = 0.0;
  for (size_t p = 0; p < panels; p++) {
    double a = T * (double) p / (double) panels;
    double b = T * (double) (p + 1) / (double) panels;
    for (size_t i = 0; i < q; i++) {
      double xi, wi;
      gsl_integration_glfixed_point(a, b, i, &xi, &wi, tab);
      times[k] = xi;
      weights[k++] = wi;
    }
    times[k] = b;
    weights[k++] = 0.0; /* panel end: a comparison point */
  }
  return k;
}

/* (b), (d): scheme (Pre-LN or nGPT) from the symmetric start of T4.1 at t
 * against Post-LN at u = int_0^t ds / s(s), s = r (Pre-LN) or |A|/alpha
 * (nGPT), equal for all tokens there.  The integral: 8-point
 * Gauss-Legendre on panels of width 1/4 (error ~ (1/8)^16 times the 16th
 * derivative of the analytic integrand: far below rounding). */
#define I2_GL_NODES 8
#define I2_PANELS_PER_UNIT 4

static void i2_symmetric(af_vresult *r, const af_vctx *c, af_scheme_id sc)
{
  i2_case k = i2_case_symmetric(c->level);
  size_t size = af_state_size(k.n, k.d);
  size_t panels = (size_t) (k.T * I2_PANELS_PER_UNIT);
  size_t nt = 1 + panels * (I2_GL_NODES + 1);
  af_model ms, mp;
  af_v_model(&ms, c, k.n, k.d, k.beta, sc);
  af_v_model(&mp, c, k.n, k.d, k.beta, AF_POST_LN);
  af_integ_opts o;
  tight_opts(&o);
  gsl_integration_glfixed_table *tab =
      gsl_integration_glfixed_table_alloc(I2_GL_NODES);
  double *y0 = malloc(size * sizeof(double)), *y = malloc(size * sizeof(double));
  double *ss = malloc(nt * size * sizeof(double));
  double *a = malloc(nt * sizeof(double));
  double *times = malloc(nt * sizeof(double)), *wq = malloc(nt * sizeof(double));
  double *tc = malloc((panels + 1) * sizeof(double));
  double *uc = malloc((panels + 1) * sizeof(double));
  double *sp = malloc((panels + 1) * size * sizeof(double));
  size_t *idx = malloc((panels + 1) * sizeof(size_t));
  int rc = (tab && y0 && y && ss && a && times && wq && tc && uc && sp && idx)
               ? AF_OK : AF_ENOMEM;
  unsigned long ns = 0, np = 0;
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "orthonormal", k.n, k.d, 1.0, 0);
  if (rc == AF_OK) {
    gl_times(times, wq, panels, k.T, tab, I2_GL_NODES);
    memcpy(y, y0, size * sizeof(double));
    rc = run_collect(ss, sc == AF_NGPT ? a : NULL, &ns, y, times, nt, &ms, &o);
  }
  double spread = 0; /* the hypothesis: equal speed factors */
  if (rc == AF_OK) {
    double u = 0;
    size_t p = 0;
    tc[0] = uc[0] = 0.0;
    idx[0] = 0;
    for (size_t i = 1; i < nt; i++) {
      const double *yi = ss + i * size;
      double smin = INFINITY, smax = -INFINITY;
      for (size_t j = 0; j < k.n; j++) {
        double sj = (sc == AF_NGPT) ? 0 : yi[k.n * k.d + j];
        smin = fmin(smin, sj);
        smax = fmax(smax, sj);
      }
      double s = (sc == AF_NGPT) ? a[i] / af_model_alpha(&ms, times[i])
                                 : 0.5 * (smin + smax);
      if (sc != AF_NGPT)
        spread = fmax(spread, (smax - smin) / s);
      if (wq[i] > 0)
        u += wq[i] / s;
      else {
        p++;
        tc[p] = times[i];
        uc[p] = u;
        idx[p] = i;
      }
    }
    memcpy(y, y0, size * sizeof(double));
    rc = run_collect(sp, NULL, &np, y, uc, panels + 1, &mp, &o);
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "I2 time-change runs");
  else {
    /* Compare directions only: the radii differ by construction. */
    double worst = 0;
    size_t at = 0;
    for (size_t p = 0; p <= panels; p++) {
      const double *ya = ss + idx[p] * size, *yb = sp + p * size;
      double e = 0;
      for (size_t j = 0; j < k.n; j++) {
        const double *xa = ya + j * k.d, *xb = yb + j * k.d;
        double na = sqrt(dot(xa, xa, k.d)), nb = sqrt(dot(xb, xb, k.d)), q = 0;
        for (size_t i = 0; i < k.d; i++) {
          double diff = xa[i] / na - xb[i] / nb;
          q += diff * diff;
        }
        e = fmax(e, sqrt(q));
      }
      if (e > worst) {
        worst = e;
        at = p;
      }
    }
    double rmax = max_radius(ss, nt, k.n, k.d);
    double tol = i2_tolerance(c, ns + np, k.d, rmax, &o);
    af_v_abs(r, worst, 0.0, tol);
    i2_over_budget(r, c, ns + np, k.T);
    af_v_note(r, "orthonormal n=%zu d=%zu beta=%g t<=%g: max dir diff %.3g at "
              "t=%g (u=%.6g); u(T)=%.6g; steps %lu+%lu", k.n, k.d, k.beta, k.T,
              worst, tc[at], uc[at], uc[panels], ns, np);
    if (sc != AF_NGPT)
      af_v_note(r, "; radius spread %.2g", spread);
  }
  if (tab)
    gsl_integration_glfixed_table_free(tab);
  free(y0);
  free(y);
  free(ss);
  free(a);
  free(times);
  free(wq);
  free(tc);
  free(uc);
  free(sp);
  free(idx);
}

static void claim_i2_symmetric(af_vresult *r, const af_vctx *c, int arg)
{
  i2_symmetric(r, c, (af_scheme_id) arg);
}

/* (c) Mix-LN against Post-LN on [0, tau] then a fresh Pre-LN run (from
 * time 0) started from (theta(tau), r(0)). */
static void claim_i2_mixln(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  i2_case k = i2_case_random(c->level);
  const double tau = 1.0;
  size_t size = af_state_size(k.n, k.d), nt = k.nout + 1;
  af_model mm, mp, mr;
  af_v_model(&mm, c, k.n, k.d, k.beta, AF_MIX_LN);
  mm.tau = tau;
  af_v_model(&mp, c, k.n, k.d, k.beta, AF_POST_LN);
  af_v_model(&mr, c, k.n, k.d, k.beta, AF_PRE_LN);
  af_integ_opts o;
  tight_opts(&o);
  double *y0 = malloc(size * sizeof(double)), *y = malloc(size * sizeof(double));
  double *smix = malloc(nt * size * sizeof(double));
  double *scomp = malloc((nt + 1) * size * sizeof(double));
  double *t = malloc(nt * sizeof(double));
  double *tp = malloc((nt + 1) * sizeof(double));
  int rc = (y0 && y && smix && scomp && t && tp) ? AF_OK : AF_ENOMEM;
  unsigned long n1 = 0, n2 = 0, n3 = 0;
  size_t npost = 0;
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "gaussian", k.n, k.d, NAN, 223);
  if (rc == AF_OK) {
    for (size_t i = 0; i < nt; i++) {
      t[i] = k.T * (double) i / (double) k.nout;
      if (t[i] <= tau)
        npost = i + 1;
    }
    memcpy(y, y0, size * sizeof(double));
    rc = run_collect(smix, NULL, &n1, y, t, nt, &mm, &o);
  }
  if (rc == AF_OK) { /* Post-LN on [0, tau], outputs at t <= tau and tau */
    memcpy(y, y0, size * sizeof(double));
    memcpy(tp, t, npost * sizeof(double));
    tp[npost] = tau;
    rc = run_collect(scomp, NULL, &n2, y, tp, npost + 1, &mp, &o);
  }
  if (rc == AF_OK) { /* then Pre-LN from (theta(tau), r(0)) at time 0 */
    memcpy(y + k.n * k.d, y0 + k.n * k.d, k.n * sizeof(double));
    size_t rest = nt - npost;
    tp[0] = 0.0; /* the run starts at its own time 0 (not output) */
    for (size_t i = 0; i < rest; i++)
      tp[i + 1] = t[npost + i] - tau;
    /* slot npost: the start (theta(tau), r(0)) overwrites Post-LN's state
     * at tau, whose radius is r(0) anyway */
    rc = run_collect(scomp + npost * size, NULL, &n3, y, tp, rest + 1, &mr,
                     &o);
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "I2 Mix-LN runs");
  else {
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < nt; i++) {
      /* composite slots: Post-LN at t[0..npost-1], tau, Pre-LN after */
      size_t ic = i < npost ? i : i + 1;
      double e = af_ci_state_distance(smix + i * size, scomp + ic * size, k.n,
                                      k.d);
      if (e > worst) {
        worst = e;
        at = i;
      }
    }
    double rmax = max_radius(smix, nt, k.n, k.d);
    double tol = i2_tolerance(c, n1 + n2 + n3, k.d, rmax, &o);
    af_v_abs(r, worst, 0.0, tol);
    i2_over_budget(r, c, n1 + n2 + n3, k.T);
    af_v_note(r, "gaussian n=%zu d=%zu beta=%g tau=%g t<=%g: max state diff "
              "%.3g at t=%g; steps %lu+%lu+%lu", k.n, k.d, k.beta, tau, k.T,
              worst, t[at], n1, n2, n3);
  }
  free(y0);
  free(y);
  free(smix);
  free(scomp);
  free(t);
  free(tp);
}

/* ------------------------------------------------------------------ */
/* I3: the three forms of the variance                                  */
/* ------------------------------------------------------------------ */

int af_ci_var_discrepancy(double *disc, double *bound, const double *y,
                          const af_model *m, af_work *w)
{
  size_t n = m->n, d = m->d;
  double obs[AF_OBS_COUNT], forms[3];
  double *th = malloc(n * d * sizeof(double));
  if (th == NULL)
    return AF_ENOMEM;
  directions(th, y, n, d);
  int rc = af_id_var_forms(forms, th, n, d);
  free(th);
  if (rc == AF_OK)
    rc = af_observe(obs, 0.0, y, 0.9999, m, w);
  if (rc != AF_OK)
    return rc;
  double v[5] = {obs[AF_OBS_var], af_id_var_from_cos(n, obs[AF_OBS_cos_mean]),
                 forms[0], forms[1], forms[2]};
  double lo = v[0], hi = v[0];
  for (int i = 1; i < 5; i++) {
    lo = fmin(lo, v[i]);
    hi = fmax(hi, v[i]);
  }
  *disc = hi - lo;
  *bound = af_id_var_rounding(n, d);
  return AF_OK;
}

typedef struct {
  double worst, bound, t;
  const af_model *m;
  af_work *w;
} i3_ctx;

static int i3_out(double t, const double *y, void *vctx)
{
  i3_ctx *c = vctx;
  double disc, bound;
  int rc = af_ci_var_discrepancy(&disc, &bound, y, c->m, c->w);
  if (rc != AF_OK)
    return rc;
  if (disc > c->worst) {
    c->worst = disc;
    c->t = t;
  }
  c->bound = bound;
  return 0;
}

static void claim_i3(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  i2_case k = i2_case_random(c->level);
  size_t size = af_state_size(k.n, k.d), nt = 4 * (size_t) k.T + 1;
  af_model m;
  af_v_model(&m, c, k.n, k.d, k.beta, AF_POST_LN);
  af_integ_opts o;
  af_integ_opts_init(&o);
  double *y = malloc(size * sizeof(double)), *t = malloc(nt * sizeof(double));
  af_work *w = af_work_alloc(k.n, k.d), *w2 = af_work_alloc(k.n, k.d);
  int rc = (y && t && w && w2) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_init_state(y, NULL, "uniform", k.n, k.d, NAN, 307);
  i3_ctx ctx = {0, 0, 0, &m, w2};
  if (rc == AF_OK) {
    for (size_t i = 0; i < nt; i++)
      t[i] = k.T * (double) i / (double) (nt - 1);
    rc = af_integrate(y, t, nt, &m, &o, w, i3_out, &ctx, NULL);
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "I3 run");
  else {
    af_v_abs(r, ctx.worst, 0.0, af_v_tol(c, "I3.var") * ctx.bound);
    af_v_note(r, "uniform n=%zu d=%zu beta=%g t<=%g, %zu outputs: max spread "
              "of 5 forms %.3g at t=%g (one-form bound %.3g)", k.n, k.d,
              k.beta, k.T, nt, ctx.worst, ctx.t, ctx.bound);
  }
  free(y);
  free(t);
  af_work_free(w);
  af_work_free(w2);
}

/* ------------------------------------------------------------------ */
/* S7: layer maps                                                       */
/* ------------------------------------------------------------------ */

typedef struct {
  size_t n, d, nh;
  double beta, T, h0;
} s7_case;

static s7_case s7_case_for(af_level level)
{
  if (level == AF_LEVEL_FULL)
    return (s7_case){256, 8, 7, 5.0, 1.0, 0.1};
  return (s7_case){8, 3, 4, 1.0, 1.0, 0.1};
}

#define S7_MAX_H 16
#define S7_TAU 0.5 /* Mix-LN switch on the layer grid of every h = 0.1/2^k */

static void claim_s7_order(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id sc = (af_scheme_id) arg;
  s7_case k = s7_case_for(c->level);
  size_t size = af_state_size(k.n, k.d);
  af_model m;
  af_v_model(&m, c, k.n, k.d, k.beta, sc);
  m.tau = S7_TAU;
  af_integ_opts o;
  tight_opts(&o);
  double *y0 = malloc(size * sizeof(double)), *y = malloc(size * sizeof(double));
  double *yref = malloc(size * sizeof(double));
  af_work *w = af_work_alloc(k.n, k.d);
  int rc = (y0 && y && yref && w) ? AF_OK : AF_ENOMEM;
  double err[S7_MAX_H], hs[S7_MAX_H];
  double times[2] = {0.0, k.T};
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "gaussian", k.n, k.d, NAN, 401);
  if (rc == AF_OK) {
    memcpy(yref, y0, size * sizeof(double));
    rc = af_integrate(yref, times, 2, &m, &o, w, NULL, NULL, NULL);
  }
  for (size_t i = 0; i < k.nh && rc == AF_OK; i++) {
    af_integ_opts ol;
    af_integ_opts_init(&ol);
    ol.method = AF_METHOD_LAYERS;
    hs[i] = ldexp(k.h0, -(int) i);
    ol.h = hs[i];
    memcpy(y, y0, size * sizeof(double));
    rc = af_integrate(y, times, 2, &m, &ol, w, NULL, NULL, NULL);
    if (rc == AF_OK)
      err[i] = af_ci_state_distance(y, yref, k.n, k.d);
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "S7 runs");
  else {
    double tol = af_v_tol(c, "S7.order");
    size_t L = k.nh - 1;
    double p = log2(err[L - 1] / err[L]);
    double pprev = log2(err[L - 2] / err[L - 1]);
    af_v_abs(r, p, 1.0, tol);
    /* A map that does not converge at order 1 FAILs: the window is fixed
     * in advance (S7.order's origin), so a pre-asymptotic window is not an
     * excuse; the previous pair's order is reported for diagnosis. */
    if (fabs(p - pprev) > tol)
      af_v_note(r, "last two pairwise orders differ by %.3g; ",
                fabs(p - pprev));
    af_v_note(r, "gaussian n=%zu d=%zu beta=%g T=%g%s: err(h=%g..%g)=", k.n,
              k.d, k.beta, k.T, sc == AF_MIX_LN ? " tau=0.5" : "", hs[0],
              hs[L]);
    for (size_t i = 0; i <= L; i++)
      af_v_note(r, "%s%.3g", i ? "," : "", err[i]);
    af_v_note(r, "; pairwise p=");
    for (size_t i = 0; i < L; i++)
      af_v_note(r, "%s%.3f", i ? "," : "", log2(err[i] / err[i + 1]));
  }
  free(y0);
  free(y);
  free(yref);
  af_work_free(w);
}

/* Rounding bound of the geodesic comparison, per token (|v| the norm of
 * theta + h A):
 *  - A from src/ and from theory/ each within (2n + beta (3d + 6) + d + 6)
 *    eps of the exact A (a softmax-weighted sum of n unit vectors: n eps
 *    for the sums, n eps for Z, the exponents as in ident.c);
 *  - measured angle atan2(|P th+|, <th, th+>) from the unit th+ (within
 *    (d/2 + 2) eps per component): (3d + 8) eps;
 *  - predicted atan2(h|w|, 1 + h<th, A>): the arguments within
 *    h (|dA| + (2d + 4) eps) + eps; atan2 amplifies absolute errors of its
 *    arguments by 1 / |v|^2;
 *  - src/'s step itself, N(th + h A_src), differs from the exact map by
 *    h |A_src - A| / |v| in angle.
 * Summed: (3d + 8) eps + (h (3 dA + (2d + 4) eps) + eps) / min(|v|, |v|^2). */
int af_ci_geodesic(double *disc, double *bound, const double *y, size_t layer,
                   double h, const af_model *m, af_work *w)
{
  if (m->w != NULL || m->attn != AF_ATTN_SOFTMAX)
    return AF_EINVAL; /* theory's M2 here is Q = K = V = I softmax */
  size_t n = m->n, d = m->d, size = af_state_size(n, d);
  double *th = malloc(n * d * sizeof(double)), *A = malloc(n * d * sizeof(double));
  double *yo = malloc(size * sizeof(double));
  int rc = (th && A && yo) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) {
    directions(th, y, n, d);
    rc = af_id_attention(A, th, n, d, m->beta, NULL, NULL);
  }
  if (rc == AF_OK)
    rc = af_layer_step(yo, y, layer, h, m, w);
  double dA = (2.0 * (double) n + m->beta * (3.0 * (double) d + 6.0)
               + (double) d + 6.0) * EPS;
  *disc = 0;
  *bound = 0;
  for (size_t j = 0; j < n && rc == AF_OK; j++) {
    const double *tj = th + j * d, *Aj = A + j * d, *xp = yo + j * d;
    double np = sqrt(dot(xp, xp, d)), cth = dot(tj, xp, d) / np, q = 0, v2 = 0;
    for (size_t i = 0; i < d; i++) {
      double e = xp[i] / np - cth * tj[i];
      double vi = tj[i] + h * Aj[i];
      q += e * e;
      v2 += vi * vi;
    }
    double meas = atan2(sqrt(q), cth);
    double pred = af_id_postln_step_angle(tj, Aj, d, h);
    *disc = fmax(*disc, fabs(meas - pred));
    double b = (3.0 * (double) d + 8.0) * EPS
               + (h * (3.0 * dA + (2.0 * (double) d + 4.0) * EPS) + EPS)
                     / fmin(sqrt(v2), v2);
    *bound = fmax(*bound, b);
  }
  free(th);
  free(A);
  free(yo);
  return rc;
}

#define S7_GEO_H 0.3
#define S7_GEO_LAYER 10 /* l h = 3: the SPEED fault's factor is 1.15 */

static void claim_s7_geodesic(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  s7_case k = s7_case_for(c->level);
  size_t size = af_state_size(k.n, k.d);
  af_model m;
  af_v_model(&m, c, k.n, k.d, k.beta, AF_POST_LN);
  double *y = malloc(size * sizeof(double));
  af_work *w = af_work_alloc(k.n, k.d);
  int rc = (y && w) ? AF_OK : AF_ENOMEM;
  double disc = 0, bound = 0;
  if (rc == AF_OK)
    rc = af_init_state(y, NULL, "uniform", k.n, k.d, NAN, 503);
  if (rc == AF_OK)
    rc = af_ci_geodesic(&disc, &bound, y, S7_GEO_LAYER, S7_GEO_H, &m, w);
  if (rc != AF_OK)
    af_v_error(r, rc, "S7 geodesic step");
  else {
    af_v_abs(r, disc, 0.0, af_v_tol(c, "S7.geodesic") * bound);
    af_v_note(r, "uniform n=%zu d=%zu beta=%g h=%g layer %d: max |angle - "
              "atan2(h|w|,1+h<th,v>)| = %.3g (bound %.3g)", k.n, k.d, k.beta,
              S7_GEO_H, S7_GEO_LAYER, disc, bound);
  }
  free(y);
  af_work_free(w);
}

/* ------------------------------------------------------------------ */
/* The table                                                            */
/* ------------------------------------------------------------------ */

#define S AF_FAULT_SPEED
#define ATT AF_FAULT_ATTENTION
#define I1_TITLE "energy sum exp(beta<th_j,th_k>) non-decreasing (random start)"
#define S7_TITLE "layer map converges to its flow at order 1"

const af_claim af_claims_ident[] = {
  {"I1", "post-ln", AF_V_PASS, "I1.energy", claim_i1, AF_POST_LN, 0, I1_TITLE},
  {"I1", "pre-ln", AF_V_PASS, "I1.energy", claim_i1, AF_PRE_LN, 0, I1_TITLE},
  {"I1", "mix-ln", AF_V_PASS, "I1.energy", claim_i1, AF_MIX_LN, 0, I1_TITLE},
  {"I1", "peri-ln", AF_V_PASS, "I1.energy", claim_i1, AF_PERI_LN, 0, I1_TITLE},
  {"I1", "ngpt", AF_V_PASS, "I1.energy", claim_i1, AF_NGPT, 0, I1_TITLE},
  {"I1", "ln-scaling", AF_V_PASS, "I1.energy", claim_i1, AF_LN_SCALING, 0,
   I1_TITLE},
  {"I1", "", AF_V_PASS, "I1.energy", claim_i1_weighted, 0, 0,
   "weighted energy sum exp(beta<Q th_j,K th_k>) non-decreasing, V=Q^TK "
   "symmetric (Post-LN)"},
  {"I2", "ln-scaling", AF_V_PASS, "I2.state", claim_i2_lnscaling, 0, S,
   "LN-Scaling at t = Post-LN at u = 2(sqrt(t+1)-1), random start"},
  {"I2", "pre-ln", AF_V_PASS, "I2.state", claim_i2_symmetric, AF_PRE_LN, S,
   "Pre-LN at t = Post-LN at u = int ds/r, symmetric start"},
  {"I2", "ngpt", AF_V_PASS, "I2.state", claim_i2_symmetric, AF_NGPT, S,
   "nGPT at t = Post-LN at u = int alpha/|A| ds, symmetric start"},
  {"I2", "mix-ln", AF_V_PASS, "I2.state", claim_i2_mixln, 0, S,
   "Mix-LN = Post-LN on [0,tau], then Pre-LN from (theta(tau), r(0))"},
  {"I3", "", AF_V_PASS, "I3.var", claim_i3, 0, 0,
   "Var = 1-|mean|^2 = (n-1)(1-mean cos)/n along a trajectory"},
  {"S7", "post-ln", AF_V_PASS, "S7.order", claim_s7_order, AF_POST_LN, 0,
   S7_TITLE},
  {"S7", "pre-ln", AF_V_PASS, "S7.order", claim_s7_order, AF_PRE_LN, 0,
   S7_TITLE},
  {"S7", "mix-ln", AF_V_PASS, "S7.order", claim_s7_order, AF_MIX_LN, 0,
   S7_TITLE " (tau = 0.5)"},
  {"S7", "peri-ln", AF_V_PASS, "S7.order", claim_s7_order, AF_PERI_LN, 0,
   S7_TITLE},
  {"S7", "ngpt", AF_V_PASS, "S7.order", claim_s7_order, AF_NGPT, 0, S7_TITLE},
  {"S7", "ln-scaling", AF_V_PASS, "S7.order", claim_s7_order, AF_LN_SCALING, 0,
   S7_TITLE},
  {"S7.geodesic", "post-ln", AF_V_PASS, "S7.geodesic", claim_s7_geodesic, 0,
   S | ATT,
   "Post-LN layer step = geodesic step of angle atan2(h|w|, 1+h<th,v>)"},
};
const size_t af_claims_ident_count =
    sizeof af_claims_ident / sizeof af_claims_ident[0];
