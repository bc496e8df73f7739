/* claims_flow.c -- certified claims on the n-particle flow itself
 * (theory/theorems.md C-flow, C-close): af_certify (certified/certify.c)
 * proves that a start converges to one cluster, and each proof is checked
 * by things it has nothing in common with.
 *
 *   C-flow/<scheme>   quick: one short start per scheme, beta = 1, 64
 *       bits: n = 3, d = 2, angles 0, 1.7, 3.6 (in no open half-circle)
 *       for Post-LN (T* = 2), nGPT (alpha(t) = 1.5 (1+t)^-1/2, T* = 1)
 *       and LN-Scaling (T* = 3.1), closed by the hemisphere lemma P3h;
 *       n = 2, angles 0, 0.5 for Pre-LN, Mix-LN (tau = 1) and Peri-LN
 *       (r0 = 1), closed by the cap of T4.3 (T* 2.9 to 6.5).
 *       full: besides, the former quick starts (angles 0, 2.0, 4.2 for
 *       every scheme, T* up to 3800 under Pre-, Mix- and Peri-LN; angles
 *       0, 0.3, 0.6 for those three), seeds 1-4 of uniform starts at
 *       n = 3, d = 2 and seed 1 at n = 4, d = 3.
 *     Certified only if every start is certified AND
 *       (1) every ball recorded (t = 0.5, 1, 2, 4 and T*) contains the MPFR path
 *           of the same start (row C.flow.mpfr);
 *       (2) the closing hypothesis holds on the MPFR path at T*, tested
 *           with its own arithmetic: min <theta_i, s> > 0 (s = sum theta_i)
 *           for P3h, max 1 - cos < 1/(100 n^2 max(1, beta^2)) for T4.3
 *           (written here again, not taken from certified/);
 *       (3) Post-LN only: a remainder-dominated run (order 8, fixed steps
 *           1/16, 128 bits, to t = 2) whose balls (radius ~1e-9, all
 *           truncation) must contain the MPFR path: the Lagrange remainder
 *           is the only thing that makes them wide enough;
 *       the largest radius at T* <= C.flow.radius (2^-44, quick) or
 *       C.flow.radius_full (2^-30, full).
 *     Refuted when a check proves the opposite (a ball misses the MPFR
 *     path, or the hypothesis fails on it).
 *     Post-LN at the full level also runs the start 0, 2.0, 4.2 at 128 bits:
 *     final radius <= 1e-20 (row C.flow.r128).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "verify.h"
#include "cert.h"
#include "certify.h"
#include "claims_flow.h"
#include "attnflow_mp.h"

#ifdef AF_HAVE_ARB

/* the reference: 128 bits, tolerance 1e-25 for runs at more than 64 bits
 * (balls of 1e-36); 96 bits, 1e-21 for 64-bit runs, whose balls are never
 * narrower than the start's rounding 2^-62 = 2e-19 */
#define MP_PREC(p) ((p) > 64 ? 128 : 96)
#define MP_TOL(p) ((p) > 64 ? 1e-25 : 1e-21)

typedef struct {
  const af_certify_result *res;
  size_t n, d, dim, k;
  double excess, eps, gap, hemi;
  int skip;
} mp_ctx;

/* |mid - ref| - rad for component i of the records, from the exact ball
 * (the proof log's string) and the MPFR value ref, in Arb (upper bound):
 * the excess over the ball. */
static void dev_update(mp_ctx *c, mpfr_srcptr ref, size_t i)
{
  arb_t b, x;
  arb_init(b);
  arb_init(x);
  double dev = INFINITY;
  if (c->res->dump && c->res->dump[i] && arb_load_str(b, c->res->dump[i]) == 0) {
    arb_set_interval_mpfr(x, ref, ref, mpfr_get_prec(ref) + 64);
    arf_sub(arb_midref(x), arb_midref(b), arb_midref(x), ARF_PREC_EXACT,
            ARF_RND_DOWN);
    arf_abs(arb_midref(x), arb_midref(x));
    arf_t rb;
    arf_init(rb);
    arf_set_mag(rb, arb_radref(b));
    arf_sub(arb_midref(x), arb_midref(x), rb, 64, ARF_RND_UP);
    dev = arf_get_d(arb_midref(x), ARF_RND_UP);
    arf_clear(rb);
  }
  if (dev > c->excess || isnan(dev))
    c->excess = isnan(dev) ? INFINITY : dev;
  arb_clear(b);
  arb_clear(x);
}

/* MPFR output: compare with record k. */
static int mp_out(double t, mpfr_t *y, void *vctx)
{
  (void) t;
  mp_ctx *c = vctx;
  if (c->skip) {
    c->skip = 0;
    return 0;
  }
  size_t n = c->n, d = c->d;
  const af_certify_result *r = c->res;
  mpfr_t s, q, nr;
  mpfr_inits2(mpfr_get_prec(y[0]) + 32, s, q, nr, (mpfr_ptr) 0);
  double *th = malloc(n * d * sizeof *th);
  for (size_t j = 0; j < n; j++) {
    mpfr_set_ui(nr, 0, MPFR_RNDN);
    for (size_t e = 0; e < d; e++)
      mpfr_fma(nr, y[j * d + e], y[j * d + e], nr, MPFR_RNDN);
    mpfr_sqrt(nr, nr, MPFR_RNDN);
    for (size_t e = 0; e < c->dim && e < d; e++) {
      size_t i = j * d + e;
      mpfr_div(q, y[i], nr, MPFR_RNDN);
      if (th)
        th[i] = mpfr_get_d(q, MPFR_RNDN);
      dev_update(c, q, c->k * c->dim + i);
    }
    if (c->dim > n * d)
      dev_update(c, y[n * d + j], c->k * c->dim + n * d + j);
  }
  if (th && c->k + 1 == r->nballs) {
    /* the closing hypotheses on the MPFR point, in double */
    double gmax = 0, hmin = INFINITY, sn = 0;
    double sv[64] = {0};
    for (size_t i = 0; i < n; i++)
      for (size_t e = 0; e < d && e < 64; e++)
        sv[e] += th[i * d + e];
    for (size_t e = 0; e < d && e < 64; e++)
      sn += sv[e] * sv[e];
    sn = sqrt(sn);
    for (size_t i = 0; i < n; i++) {
      double h = 0;
      for (size_t e = 0; e < d && e < 64; e++)
        h += th[i * d + e] * sv[e];
      hmin = fmin(hmin, h / sn);
      for (size_t j = i + 1; j < n; j++) {
        double g = 0;
        for (size_t e = 0; e < d; e++)
          g += (th[i * d + e] - th[j * d + e]) * (th[i * d + e] - th[j * d + e]);
        gmax = fmax(gmax, g / 2);
      }
    }
    c->gap = gmax;
    c->hemi = hmin;
  }
  free(th);
  mpfr_clears(s, q, nr, (mpfr_ptr) 0);
  c->k++;
  return th ? 0 : AF_ENOMEM;
}

int af_flow_mpfr_check(int *ok, double *excess, double *eps, double *gap_ref,
                       double *hemi_ref, const af_certify_result *res,
                       const double *y, const af_certify_opts *o)
{
  size_t n = o->n, d = o->d, N = af_state_size(n, d);
  if (res->nballs == 0 || res->mid == NULL)
    return AF_EINVAL;
  af_model m;
  af_model_init(&m, n, d, o->beta, o->scheme);
  m.alpha = o->alpha;
  m.alpha_decay = o->alpha_decay;
  m.tau = o->tau;
  if (o->user) /* a spec'd scheme: the MPFR path evaluates its expressions
                  with every number read at the working precision */
    af_model_set_user_scheme(&m, o->user);
  af_mp_work *w = af_mp_work_alloc(n, d, MP_PREC(o->prec));
  mpfr_t *my = af_mp_vec_alloc(N, MP_PREC(o->prec));
  double *times = malloc((res->nballs + 1) * sizeof *times);
  int rc = (w && my && times) ? AF_OK : AF_ENOMEM;
  mp_ctx c = {res, n, d, res->dim, 0, -INFINITY, 0, NAN, NAN, 0};
  if (rc == AF_OK) {
    af_mp_vec_set_d(my, y, N);
    af_mp_opts mo;
    af_mp_opts_init(&mo);
    mo.method = AF_MP_GBS;
    mo.tol = MP_TOL(o->prec);
    /* times[0] = 0 is the start (its callback is skipped), then the
     * records; eps from the run's own error estimate at the end */
    times[0] = 0;
    memcpy(times + 1, res->ball_t, res->nballs * sizeof *times);
    af_mp_stats st;
    c.k = 0;
    c.skip = 1;
    /* one thread: the GBS rows of a system of 6 to 40 numbers are too
     * small for a team (the threads' waiting cost most of the claim's
     * time); the result does not depend on the thread count */
#ifdef _OPENMP
    int nthr = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    rc = af_mp_integrate(my, times, res->nballs + 1, &m, &mo, w, mp_out, &c,
                         &st);
#ifdef _OPENMP
    omp_set_num_threads(nthr);
#endif
    c.eps = 10 * fmax(st.err_est, MP_TOL(o->prec));
  }
  *ok = rc == AF_OK && c.k == res->nballs && c.excess <= c.eps;
  *excess = c.excess;
  *eps = c.eps;
  if (gap_ref)
    *gap_ref = c.gap;
  if (hemi_ref)
    *hemi_ref = c.hemi;
  free(times);
  if (my)
    af_mp_vec_free(my, N);
  af_mp_work_free(w);
  return rc;
}

typedef struct {
  const char *angles; /* NULL: uniform with seed */
  size_t n, d;
  unsigned long seed;
  double t_max;       /* 0: 20000 (the full batch's longest T* is ~6000);
                         > 0: a quick start, also a budget of 1000 steps */
} fstart;

/* The start of a claim: directions (on the sphere) and radii 1. */
static int make_start(double *y, const fstart *s)
{
  size_t n = s->n, d = s->d;
  if (s->angles) {
    double a[8];
    size_t k = 0;
    const char *p = s->angles;
    while (*p && k < 8) {
      char *e;
      a[k++] = strtod(p, &e);
      p = *e == ',' ? e + 1 : e;
    }
    for (size_t j = 0; j < n; j++) {
      y[2 * j] = cos(a[j]);
      y[2 * j + 1] = sin(a[j]);
      y[n * d + j] = 1;
    }
    return AF_OK;
  }
  size_t line;
  return af_init_state(y, &line, "uniform", n, d, 1.0, s->seed);
}

/* delta_max of the corrected T4.3, written again (theorems.md C-close). */
static double cap_delta(size_t n, double beta)
{
  double b2 = beta > 1 ? beta * beta : 1.0;
  return 1.0 / (100.0 * (double) n * (double) n * b2);
}

/* One start: certify and check.  Returns 1 certified and checked, 0
 * could-not-certify, -1 refuted (a check failed), -2 library error. */
static int one_start(af_vresult *r, const fstart *s, af_scheme_id sc,
                     double *worst_rad, long prec)
{
  size_t n = s->n, d = s->d;
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  if (y == NULL)
    return -2;
  int rc = make_start(y, s);
  static const double times[] = {0.5, 1, 2, 4};
  af_certify_opts o;
  af_certify_opts_init(&o, sc, n, d, 1.0);
  o.prec = prec;
  o.t_max = s->t_max > 0 ? s->t_max : 20000;
  /* the quick starts take 26 to 48 steps: a budget of 1000 ends a run
   * whose field went wrong (e.g. off the sphere, stiff) in seconds */
  o.max_steps = s->t_max > 0 ? 1000 : 0;
  o.times = times;
  o.ntimes = 4;
  if (sc == AF_NGPT) {
    o.alpha = 1.5;
    o.alpha_decay = 0.5;
  }
  af_certify_result res;
  memset(&res, 0, sizeof res);
  if (rc == AF_OK)
    rc = af_certify(&res, y, &o);
  int out = 0;
  char tag[64];
  if (s->angles)
    snprintf(tag, sizeof tag, "angles %s", s->angles);
  else
    snprintf(tag, sizeof tag, "uniform n=%zu d=%zu seed %lu", n, d, s->seed);
  if (rc != AF_OK) {
    af_v_note(r, "%s: error %s; ", tag, res.reason);
    out = -2;
  } else if (res.status != AF_CERTIFY_CERTIFIED) {
    af_v_note(r, "%s: could not certify (%s); ", tag, res.reason);
    out = 0;
  } else {
    int ok;
    double ex, eps, gap, hemi;
    rc = af_flow_mpfr_check(&ok, &ex, &eps, &gap, &hemi, &res, y, &o);
    if (rc != AF_OK) {
      af_v_note(r, "%s: MPFR error %s; ", tag, af_strerror(rc));
      out = -2;
    } else {
      int hyp = res.lemma == AF_CLOSE_HEMISPHERE ? hemi > 0
                                                  : gap < cap_delta(n, 1.0);
      out = ok && hyp ? 1 : -1;
      af_v_note(r, "%s: %s at T*=%.6g (%lu steps, radius 2^%.1f), MPFR "
                "inside (excess %.2g <= eps %.2g): %s, hypothesis on MPFR "
                "(%s %.3g): %s; ",
                tag, af_close_lemma_name(res.lemma), res.t_star, res.steps,
                log2(res.final_rad), ex, eps, ok ? "yes" : "NO",
                res.lemma == AF_CLOSE_HEMISPHERE ? "min <th,s>/|s|" : "gap",
                res.lemma == AF_CLOSE_HEMISPHERE ? hemi : gap,
                hyp ? "holds" : "FAILS");
      if (res.final_rad > *worst_rad)
        *worst_rad = res.final_rad;
    }
  }
  af_certify_result_free(&res);
  free(y);
  return out;
}

/* The outcome of af_flow_mpfr_check. */
typedef struct {
  int ok;
  double ex, eps, gap, hemi;
} fcheck;

/* af_certify from y under o, then the independent MPFR path of the same
 * start checked against the recorded balls (af_flow_mpfr_check): AF_OK
 * or the first error.  res is always to be freed by the caller. */
static int certify_checked(af_certify_result *res, fcheck *k,
                           const double *y, const af_certify_opts *o)
{
  int rc = af_certify(res, y, o);
  if (rc == AF_OK)
    rc = af_flow_mpfr_check(&k->ok, &k->ex, &k->eps, &k->gap, &k->hemi, res,
                            y, o);
  return rc;
}

/* (3): the remainder-dominated enclosure of Post-LN. */
static int remainder_check(af_vresult *r)
{
  double y[9];
  fstart s = {"0,2.0,4.2", 3, 2, 0, 0};
  make_start(y, &s);
  static const double times[] = {0.5, 1};
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, 3, 2, 1.0);
  o.prec = 128;
  o.order = 8;
  o.h_fixed = 1.0 / 16;
  o.t_max = 2;
  o.times = times;
  o.ntimes = 2;
  af_certify_result res;
  fcheck k;
  int out = -2;
  if (certify_checked(&res, &k, y, &o) == AF_OK) {
    out = k.ok ? 1 : -1;
    af_v_note(r, "remainder-dominated run (order 8, h = 1/16, 128 bits, "
              "t = 2): radius %.2g, MPFR inside: %s (excess %.2g); ",
              res.final_rad, k.ok ? "yes" : "NO", k.ex);
  }
  af_certify_result_free(&res);
  return out;
}

/* quick starts: short runs (T* 1 to 6.5, 26 to 48 steps) that still
 * cross the closing test's boundary (0, 1.7, 3.6 lies in no open
 * half-circle); the longer former quick starts run at the full level */
static const fstart quick_far = {"0,1.7,3.6", 3, 2, 0, 64};
static const fstart quick_cap = {"0,0.5", 2, 2, 0, 64};
static const fstart old_far = {"0,2.0,4.2", 3, 2, 0, 0};
static const fstart old_cap = {"0,0.3,0.6", 3, 2, 0, 0};
static const fstart batch[] = {
  {NULL, 3, 2, 1, 0}, {NULL, 3, 2, 2, 0}, {NULL, 3, 2, 3, 0},
  {NULL, 3, 2, 4, 0}, {NULL, 4, 3, 1, 0}};

static void claim_flow(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id sc = (af_scheme_id) arg;
  int radii = sc == AF_PRE_LN || sc == AF_MIX_LN || sc == AF_PERI_LN;
  const char *key = c->level == AF_LEVEL_FULL ? "C.flow.radius_full"
                                              : "C.flow.radius";
  double tol = af_v_tol(c, key);
  double worst = 0;
  int nok = 0, nno = 0, nref = 0, nerr = 0, total = 0;
  const fstart *list[3 + sizeof batch / sizeof batch[0]];
  size_t k = 0;
  list[k++] = radii ? &quick_cap : &quick_far;
  if (c->level == AF_LEVEL_FULL) {
    list[k++] = &old_far;
    if (radii)
      list[k++] = &old_cap;
    for (size_t i = 0; i < sizeof batch / sizeof batch[0]; i++)
      list[k++] = &batch[i];
  }
  for (size_t i = 0; i < k; i++) {
    int v = one_start(r, list[i], sc, &worst, 64);
    total++;
    nok += v == 1;
    nno += v == 0;
    nref += v == -1;
    nerr += v == -2;
  }
  if (sc == AF_POST_LN) {
    int v = remainder_check(r);
    nref += v == -1;
    nerr += v == -2;
  }
  if (sc == AF_POST_LN && c->level == AF_LEVEL_FULL) {
    /* the quick start at 128 bits: final radius <= C.flow.r128 */
    double w128 = 0;
    int v = one_start(r, &old_far, sc, &w128, 128);
    double t128 = af_v_tol(c, "C.flow.r128");
    nok += v == 1;
    total++;
    nno += v == 0 || !(w128 <= t128);
    nref += v == -1;
    nerr += v == -2;
    af_v_note(r, "128 bits: final radius %.3g (<= %g); ", w128, t128);
  }
  af_v_note(r, "%d of %d starts certified", nok, total);
  r->measured = worst;
  r->predicted = 0;
  r->tolerance = tol;
  r->margin = (tol - worst) / tol;
  if (nerr)
    r->status = AF_V_ERROR;
  else if (nref)
    r->status = AF_V_REFUTED;
  else if (nno || !(r->measured <= tol))
    r->status = AF_V_NOCERT;
  else
    r->status = AF_V_CERTIFIED;
}

/* C-flow-set: a ball of starts (init radius 1e-6 on every coordinate)
 * certified as a set with Lohner's QR doubleton; the MPFR paths of four
 * starts sampled from the set (every angle moved by +-0.9e-6, so every
 * coordinate by less than 1e-6) lie in every ball recorded. */
static void claim_flow_set(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const double a0[3] = {0, 1.7, 3.6};
  static const int sg[4][3] = {{1, 1, 1}, {-1, -1, -1}, {1, -1, 1},
                               {-1, 1, -1}};
  static const double times[] = {0.5, 1};
  const double eps = 1e-6;
  double y[6];
  for (size_t j = 0; j < 3; j++) {
    y[2 * j] = cos(a0[j]);
    y[2 * j + 1] = sin(a0[j]);
  }
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, 3, 2, 1.0);
  o.t_max = 64;
  o.init_radius = eps;
  o.times = times;
  o.ntimes = 2;
  af_certify_result res;
  int rc = af_certify(&res, y, &o);
  double tol = af_v_tol(c, "C.flow.set_radius");
  r->tolerance = tol;
  r->predicted = 0;
  if (rc != AF_OK) {
    af_v_note(r, "error: %s", res.reason);
    r->status = AF_V_ERROR;
    af_certify_result_free(&res);
    return;
  }
  if (res.status != AF_CERTIFY_CERTIFIED) {
    af_v_note(r, "set of starts not certified: %s", res.reason);
    r->status = AF_V_NOCERT;
    af_certify_result_free(&res);
    return;
  }
  af_v_note(r, "set of radius %g certified at T*=%.6g (P3h), final radius "
            "%.3g (growth %.1f); ", eps, res.t_star, res.final_rad,
            res.final_rad / eps);
  int bad = 0, err = 0;
  double worst = -INFINITY;
  for (int k = 0; k < 4; k++) {
    double ys[6];
    for (size_t j = 0; j < 3; j++) {
      double a = a0[j] + sg[k][j] * 0.9 * eps;
      ys[2 * j] = cos(a);
      ys[2 * j + 1] = sin(a);
    }
    int ok;
    double ex, ep, gap, hemi;
    rc = af_flow_mpfr_check(&ok, &ex, &ep, &gap, &hemi, &res, ys, &o);
    if (rc != AF_OK) {
      err = 1;
      break;
    }
    if (!ok || !(hemi > 0))
      bad = 1;
    if (ex > worst)
      worst = ex;
  }
  af_v_note(r, "4 sampled starts: MPFR paths inside every ball: %s (largest "
            "excess over the radius %.3g)", err ? "error" : bad ? "NO" : "yes",
            worst);
  r->measured = res.final_rad;
  r->margin = (tol - r->measured) / tol;
  r->status = err ? AF_V_ERROR : bad ? AF_V_REFUTED
              : r->measured <= tol ? AF_V_CERTIFIED : AF_V_NOCERT;
  af_certify_result_free(&res);
}

/* C-refute: the property "the flow enters the T4.3 cap by t_max" decided
 * both ways and checked against MPFR. */
static int refute_case(af_vresult *r, const double *y, size_t n,
                       af_scheme_id sc, double tmax, af_certify_status want,
                       double *lower)
{
  static const double times[] = {0.5, 1};
  af_certify_opts o;
  af_certify_opts_init(&o, sc, n, 2, 1.0);
  o.t_max = tmax;
  o.property_cap = 1;
  o.times = times;
  o.ntimes = 2;
  af_certify_result res;
  fcheck k;
  int out = -2;
  if (certify_checked(&res, &k, y, &o) == AF_OK) {
    double dm = cap_delta(n, 1.0);
    int hold;
    if (res.status == AF_CERTIFY_REFUTED)
      /* the lower bound must not exceed the true max 1 - cos at t_max
       * (the MPFR value, to its double rounding) and the reference must
       * be outside the cap */
      hold = res.hyp <= k.gap * (1 + 1e-14) && k.gap >= dm;
    else if (res.status == AF_CERTIFY_CERTIFIED)
      hold = k.gap < dm;
    else
      hold = 1;
    if (lower)
      *lower = res.hyp;
    out = !(k.ok && hold) ? -1 : res.status == want ? 1 : 0;
    af_v_note(r, "%s n=%zu t-max %g: %s%s (bound %.6g, MPFR max 1-cos at "
              "t_end %.6g, delta_max %.4g, MPFR inside: %s); ",
              af_scheme_get(sc)->name, n, tmax,
              af_certify_status_name(res.status),
              res.status == AF_CERTIFY_CERTIFIED ? " at T*" : "",
              res.hyp, k.gap, dm, k.ok ? "yes" : "NO");
  }
  af_certify_result_free(&res);
  return out;
}

static void claim_refute(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  (void) c;
  double y2[4] = {1, 0, cos(0.5), sin(0.5)};
  double anti[6] = {1, 0, -1, 0, 1, 1}; /* exact antipodal pair, radii 1 */
  double lower = NAN;
  int v[3];
  v[0] = refute_case(r, y2, 2, AF_POST_LN, 1.5, AF_CERTIFY_REFUTED, &lower);
  v[1] = refute_case(r, y2, 2, AF_POST_LN, 2.5, AF_CERTIFY_CERTIFIED, NULL);
  v[2] = refute_case(r, anti, 2, AF_PRE_LN, 4, AF_CERTIFY_REFUTED, NULL);
  int nerr = 0, nref = 0, nno = 0;
  for (int k = 0; k < 3; k++) {
    nerr += v[k] == -2;
    nref += v[k] == -1;
    nno += v[k] == 0;
  }
  r->measured = lower;
  r->predicted = cap_delta(2, 1.0);
  r->tolerance = 0;
  r->margin = lower - r->predicted;
  r->status = nerr ? AF_V_ERROR : nref ? AF_V_REFUTED
              : nno ? AF_V_NOCERT : AF_V_CERTIFIED;
}

#else /* no Arb */

static void claim_flow(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  (void) arg;
  af_v_nocert(r, "built without Arb");
}

static void claim_flow_set(af_vresult *r, const af_vctx *c, int arg)
{
  claim_flow(r, c, arg);
}

static void claim_refute(af_vresult *r, const af_vctx *c, int arg)
{
  claim_flow(r, c, arg);
}

#endif

#define EXP_OK AF_V_CERT_EXPECTED
#define FLOW(name, sc, title) \
  {"C-flow", name, EXP_OK, "C.flow.radius", claim_flow, sc, 0, title}

const af_claim af_claims_flow[] = {
  FLOW("post-ln", AF_POST_LN, "certified: the start at angles 0, 1.7, 3.6 (n=3, d=2, beta=1) converges to one cluster (P3h); balls contain the MPFR path; remainder-dominated run"),
  FLOW("pre-ln", AF_PRE_LN, "certified: angles 0, 0.5 (n=2, d=2, beta=1, r0=1) converge to one cluster (T4.3 cap); balls contain the MPFR path"),
  FLOW("mix-ln", AF_MIX_LN, "certified: angles 0, 0.5 (n=2, tau=1) converge to one cluster (T4.3 cap after tau); balls contain the MPFR path"),
  FLOW("peri-ln", AF_PERI_LN, "certified: angles 0, 0.5 (n=2, r0=1) converge to one cluster (T4.3 cap); balls contain the MPFR path"),
  FLOW("ngpt", AF_NGPT, "certified: angles 0, 1.7, 3.6, alpha(t)=1.5(1+t)^-1/2, converge to one cluster (P3h); balls contain the MPFR path"),
  FLOW("ln-scaling", AF_LN_SCALING, "certified: angles 0, 1.7, 3.6 converge to one cluster (P3h through the time change); balls contain the MPFR path"),
  {"C-flow-set", "post-ln", EXP_OK, "C.flow.set_radius", claim_flow_set, 0, 0, "certified: every start within 1e-6 of angles 0, 1.7, 3.6 (Post-LN, n=3, d=2) converges to one cluster (Lohner QR doubleton); MPFR paths of 4 sampled starts inside every ball"},
  {"C-refute", "cap", EXP_OK, "C.flow.radius", claim_refute, 0, 0, "certified: 'enters the T4.3 cap by t' decided both ways (Post-LN angles 0, 0.5: refuted at t=1.5, certified at t=2.5; exact antipodal pair, Pre-LN: refuted at t=4); bounds checked against MPFR"},
};
const size_t af_claims_flow_count = sizeof af_claims_flow / sizeof af_claims_flow[0];
