/* claims_certspec.c -- certified claims on spec'd schemes (theory/
 * theorems.md U-close, C-refute): af_certify (certified/certify.c) on the
 * tape of a spec's expressions (certified/flow_spec.c), each proof checked
 * by the MPFR path of the same spec (af_flow_mpfr_check: the spec's
 * expressions evaluated by src/model/expr.c at 96 bits, code the tape
 * shares nothing with but the parsed bytecode).
 *
 *   C-flow-spec/deepnorm   data/schemes/deepnorm.scheme (s = 2): angles
 *       0, 1.7, 3.6 (in no open half-circle) certified by U-close, the
 *       spec'd copy of Post-LN (data/schemes/post-ln.scheme) certified by
 *       U-close at the built-in's T* (the same closing test on balls of
 *       the same flow), nGPT's copy (s = na / alpha, alpha = 1.5) by
 *       U-close; every ball holds the MPFR path of its spec; the speed
 *       bounds of U-close contain the spec's double value at 441 points of
 *       its box.  Negative controls: the antipodal pair and the
 *       equilateral triangle under deepnorm never certify.
 *   C-flow-spec/ops        a spec whose speed uses every operation the tape
 *       rewrites (unary minus, integer and real powers, tanh, exp, log,
 *       sqrt, abs, min, max, division): certified by U-close; its balls
 *       hold the MPFR path (a mistaped identity moves the field: the
 *       breakers of flow_spec.c).
 *   C-flow-spec/peri-damped  data/schemes/peri-damped.scheme (reads r and
 *       t: no closing lemma): --property cap decided both ways from angles
 *       0, 0.5: refuted at t = 3, certified (cap entered) by t = 64; the
 *       refutation's bound is at most the MPFR value of max 1 - cos at 3
 *       and every ball holds the MPFR path (directions and radii).
 *   Each row also bounds the largest radius at T* by C.flow.radius.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"
#include "cert.h"
#include "certify.h"
#include "claims_flow.h"
#include "claims_certspec.h"
#include "datadir.h"

#ifdef AF_HAVE_ARB

static af_scheme_spec *spec_file(af_vresult *r, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/schemes/%s.scheme", af_data_dir(), name);
  af_scheme_spec *sp = NULL;
  af_spec_error e;
  if (af_scheme_spec_read(&sp, &e, path) != AF_OK) {
    af_v_note(r, "%s: line %zu: %s; ", path, e.line, e.what);
    return NULL;
  }
  return sp;
}

/* A start of n tokens at the given angles in the plane, radii 1. */
static void angles(double *y, const double *a, size_t n)
{
  for (size_t j = 0; j < n; j++) {
    y[2 * j] = cos(a[j]);
    y[2 * j + 1] = sin(a[j]);
    y[2 * n + j] = 1;
  }
}

typedef struct {
  int nok, nfail, nerr;
  double worst;
} tally;

/* The U-close speed bounds of sp against its double value on a grid of
 * the box ta in [-1, 1], na in [m, 1] (af_scheme_spec_eval): 1 if every
 * value lies in [lo, hi]. */
static int box_sampled(const af_scheme_spec *sp, double m, double lo,
                       double hi, double alpha)
{
  for (int i = 0; i <= 20; i++)
    for (int k = 0; k <= 20; k++) {
      double c = -1 + i / 10.0, a = m + (1 - m) * k / 20.0, s;
      if (af_scheme_spec_eval(&s, NULL, NULL, sp, 0, 1, c, a, alpha,
                              INFINITY) != AF_OK || !(s >= lo && s <= hi))
        return 0;
    }
  return 1;
}

/* Certify y under o and check the balls against MPFR; expect the status
 * want (and, for certified, the lemma lem).  Notes what it saw. */
static void run_one(af_vresult *r, tally *t, const char *tag, const double *y,
                    const af_certify_opts *o, af_certify_status want,
                    af_close_lemma lem, double *tstar)
{
  af_certify_result res;
  int rc = af_certify(&res, y, o);
  if (rc != AF_OK) {
    af_v_note(r, "%s: error %s; ", tag, res.reason);
    t->nerr++;
    af_certify_result_free(&res);
    return;
  }
  int ok = 0;
  double ex = NAN, eps = NAN, gap = NAN, hemi = NAN;
  int mrc = af_flow_mpfr_check(&ok, &ex, &eps, &gap, &hemi, &res, y, o);
  int good = res.status == want && (want != AF_CERTIFY_CERTIFIED
                                    || res.lemma == lem);
  /* the closing hypothesis again on the MPFR point (its own arithmetic);
   * U-close's speed bounds against the spec's own double evaluation */
  if (good && want == AF_CERTIFY_CERTIFIED)
    good = lem == AF_CLOSE_SPEED ? hemi > 0 : gap < res.hyp_bound;
  if (good && lem == AF_CLOSE_SPEED && isnan(res.time_exp)
      && !box_sampled(af_scheme_spec_of(o->user), res.hyp, res.speed_lo,
                      res.speed_hi, o->alpha)) {
    af_v_note(r, "%s: s outside [%.4g, %.4g] on its box; ", tag,
              res.speed_lo, res.speed_hi);
    good = 0;
  }
  if (mrc != AF_OK) {
    af_v_note(r, "%s: MPFR error %s; ", tag, af_strerror(mrc));
    t->nerr++;
  } else if (!ok || !good) {
    t->nfail++;
  } else
    t->nok++;
  if (want == AF_CERTIFY_CERTIFIED && res.final_rad > t->worst)
    t->worst = res.final_rad;
  if (tstar)
    *tstar = res.t_star;
  af_v_note(r, "%s %s t=%.4g MPFR %s; ", tag,
            res.status == AF_CERTIFY_CERTIFIED ? af_close_lemma_name(res.lemma)
                                               : af_certify_status_name(res.status),
            res.t_end, ok ? "in" : "OUT");
  af_certify_result_free(&res);
}

static void finish(af_vresult *r, const af_vctx *c, const tally *t)
{
  double tol = af_v_tol(c, "C.flow.radius");
  r->measured = t->worst;
  r->predicted = 0;
  r->tolerance = tol;
  r->margin = (tol - t->worst) / tol;
  if (t->nerr)
    r->status = AF_V_ERROR;
  else if (t->nfail)
    r->status = AF_V_REFUTED;
  else if (!(t->worst <= tol))
    r->status = AF_V_NOCERT;
  else
    r->status = AF_V_CERTIFIED;
}

static const double far3[] = {0, 1.7, 3.6};

/* The options and start of the spec rows: angles 0, 1.7, 3.6 (in no open
 * half-circle), beta = 1, 64 bits, balls at 0.5, 1, 2, 4, at most 1000
 * steps (the runs take 26 to 110). */
static void far_start(af_certify_opts *o, double *y, const af_scheme_spec *sp)
{
  static const double times[] = {0.5, 1, 2, 4};
  angles(y, far3, 3);
  af_certify_opts_init(o, AF_POST_LN, 3, 2, 1.0);
  o->user = af_scheme_spec_row(sp);
  o->times = times;
  o->ntimes = 4;
  o->max_steps = 1000;
}

/* The built-in scheme's certificate from y under the options of a spec
 * run (same times, alpha, decay): its T*, NaN if not certified. */
static double builtin_tstar(af_scheme_id id, const double *y,
                            const af_certify_opts *so)
{
  af_certify_opts o = *so;
  o.user = NULL;
  o.scheme = id;
  af_certify_result res;
  double ts = NAN;
  if (af_certify(&res, y, &o) == AF_OK && res.status == AF_CERTIFY_CERTIFIED)
    ts = res.t_star;
  af_certify_result_free(&res);
  return ts;
}

static void claim_deepnorm(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  tally t = {0, 0, 0, 0};
  /* deepnorm (s = 2), and the copies of Post-LN (s = 1), nGPT (na /
   * alpha(t), alpha 1.5 (1 + t)^-1/2: a time divisor) and LN-Scaling
   * (sqrt(t + 1): a time factor alone) */
  enum { NS = 4 };
  const char *names[NS] = {"deepnorm", "post-ln", "ngpt", "ln-scaling"};
  const af_scheme_id ids[NS] = {AF_POST_LN, AF_POST_LN, AF_NGPT,
                                AF_LN_SCALING};
  af_scheme_spec *sp[NS] = {NULL, NULL, NULL, NULL};
  double y[9];
  for (int i = 0; i < NS; i++) {
    sp[i] = spec_file(r, names[i]);
    if (sp[i] == NULL) {
      t.nerr++;
      continue;
    }
    af_certify_opts o;
    far_start(&o, y, sp[i]);
    o.alpha = 1.5;
    o.alpha_decay = 0.5;
    double ts = NAN;
    run_one(r, &t, names[i], y, &o, AF_CERTIFY_CERTIFIED, AF_CLOSE_SPEED,
            &ts);
    if (i > 0) { /* a copy closes where its built-in does */
      double tb = builtin_tstar(ids[i], y, &o);
      int same = ts == tb;
      af_v_note(r, "built-in T*=%.4g %s; ", tb, same ? "same" : "DIFFERS");
      t.nfail += !same;
    }
  }
  /* refused: a time factor growing like t^2 and nGPT's alpha decaying
   * like (1 + t)^-3/2 (their tokens may stop short of a cluster) */
  static const char fast[] =
    "name = fast\nspeed = (1 + t)^2 * na\nradial = 0\nlayer = sphere\n";
  af_scheme_spec *fs = NULL;
  af_spec_error e;
  for (int k = 0; k < 2; k++) {
    if (k == 0 && af_scheme_spec_parse(&fs, &e, fast, sizeof fast - 1)
                  != AF_OK) {
      t.nerr++;
      continue;
    }
    if (k == 1 && sp[2] == NULL)
      continue;
    af_certify_opts o;
    far_start(&o, y, k ? sp[2] : fs);
    o.alpha = 1.5;
    o.alpha_decay = k ? 1.5 : 0;
    af_certify_result res;
    int rc = af_certify(&res, y, &o);
    af_v_note(r, "%s: %s; ", k ? "ngpt decay 1.5" : "(1+t)^2 na",
              rc == AF_EINVAL ? "refused" : "NOT refused");
    t.nfail += rc != AF_EINVAL;
    af_certify_result_free(&res);
  }
  af_scheme_spec_free(fs);
  /* negative controls: a saddle and a stationary pair never certify */
  if (sp[0]) {
    double ya[6] = {1, 0, -1, 0, 1, 1}, yt[9];
    static const double tri[] = {0, 2.0943951023931957, 4.1887902047863905};
    angles(yt, tri, 3);
    for (int k = 0; k < 2; k++) {
      af_certify_opts o;
      af_certify_opts_init(&o, AF_POST_LN, k ? 3 : 2, 2, 1.0);
      o.user = af_scheme_spec_row(sp[0]);
      o.t_max = 20;
      af_certify_result res;
      if (af_certify(&res, k ? yt : ya, &o) != AF_OK)
        t.nerr++;
      else {
        int never = res.status != AF_CERTIFY_CERTIFIED;
        af_v_note(r, "%s: %s; ", k ? "triangle" : "antipodal",
                  af_certify_status_name(res.status));
        t.nfail += !never;
      }
      af_certify_result_free(&res);
    }
  }
  for (int i = 0; i < NS; i++)
    af_scheme_spec_free(sp[i]);
  af_v_note(r, "%d of %d runs checked", t.nok, t.nok + t.nfail + t.nerr);
  finish(r, c, &t);
}

/* every operation the tape rewrites, in a speed that stays in [2, 9] on
 * the hemisphere's box (ta - 3, ta - 2 and na - 3 never vanish) */
static const char ops_spec[] =
  "name = ops\n"
  "speed = 3 + tanh(ta - 2) + exp(-na) * sqrt(na + 1) / (1 + na^2)"
  " + log(2 + ta) / 4 - na^1.5 / 8 + max(na, 3) - min(ta, 2)"
  " + abs(ta - 3) / 5 + pow(na, 2) / 7 + 1 / (2 + ta)^-2\n"
  "radial = 0\n"
  "layer = sphere\n";

static void claim_ops(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  tally t = {0, 0, 0, 0};
  af_scheme_spec *sp = NULL;
  af_spec_error e;
  if (af_scheme_spec_parse(&sp, &e, ops_spec, sizeof ops_spec - 1) != AF_OK) {
    af_v_note(r, "spec: line %zu column %zu: %s", e.line, e.col, e.what);
    r->status = AF_V_ERROR;
    return;
  }
  double y[9];
  af_certify_opts o;
  far_start(&o, y, sp);
  run_one(r, &t, "ops", y, &o, AF_CERTIFY_CERTIFIED, AF_CLOSE_SPEED, NULL);
  af_scheme_spec_free(sp);
  finish(r, c, &t);
}

static void claim_peri_damped(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  tally t = {0, 0, 0, 0};
  af_scheme_spec *sp = spec_file(r, "peri-damped");
  if (sp == NULL) {
    r->status = AF_V_ERROR;
    return;
  }
  static const double a2[] = {0, 0.5};
  double y[6];
  angles(y, a2, 2);
  static const double times[] = {1, 2, 3};
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, 2, 2, 1.0);
  o.user = af_scheme_spec_row(sp);
  o.property_cap = 1;
  o.max_steps = 1000;
  o.times = times;
  o.ntimes = 3;
  o.t_max = 3;
  run_one(r, &t, "t-max 3", y, &o, AF_CERTIFY_REFUTED, AF_CLOSE_NONE, NULL);
  /* the refutation's bound against the MPFR gap at t = 3 */
  af_certify_result res;
  if (af_certify(&res, y, &o) == AF_OK && res.status == AF_CERTIFY_REFUTED) {
    int ok;
    double ex, eps, gap = NAN;
    if (af_flow_mpfr_check(&ok, &ex, &eps, &gap, NULL, &res, y, &o) == AF_OK) {
      int below = res.hyp <= gap;
      af_v_note(r, "bound %.4g %s MPFR gap %.4g; ", res.hyp,
                below ? "<=" : "EXCEEDS", gap);
      t.nfail += !below;
    } else
      t.nerr++;
  }
  af_certify_result_free(&res);
  o.t_max = 64;
  run_one(r, &t, "t-max 64", y, &o, AF_CERTIFY_CERTIFIED,
          AF_CLOSE_CAP_ENTERED, NULL);
  /* without the property the spec has no closing lemma: refused */
  o.property_cap = 0;
  int rc = af_certify(&res, y, &o);
  af_v_note(r, "without the property: %s",
            rc == AF_EINVAL ? "refused (no lemma)" : "NOT refused");
  t.nfail += rc != AF_EINVAL;
  af_certify_result_free(&res);
  af_scheme_spec_free(sp);
  finish(r, c, &t);
}

/* verify --scheme-def: certify on the user's spec (claims_certspec.h). */
void af_certspec_on(af_vresult *r, const af_scheme_spec *sp)
{
  tally t = {0, 0, 0, 0};
  double y[9];
  af_certify_opts o;
  far_start(&o, y, sp);
  af_certify_result res;
  int rc = af_certify(&res, y, &o);
  int prop = rc == AF_EINVAL && strstr(res.reason, "--property cap");
  if (rc == AF_EINVAL && !prop) {
    af_v_note(r, "refused: %s", res.reason);
    r->status = AF_V_INCONCLUSIVE;
    af_certify_result_free(&res);
    return;
  }
  af_certify_result_free(&res);
  if (!prop) {
    run_one(r, &t, "angles 0,1.7,3.6:", y, &o, AF_CERTIFY_CERTIFIED,
            AF_CLOSE_SPEED, NULL);
  } else {
    /* no lemma for this speed: the finite-time property, either way */
    static const double a2[] = {0, 0.5};
    angles(y, a2, 2);
    o.n = 2;
    o.property_cap = 1;
    rc = af_certify(&res, y, &o);
    af_certify_status want = rc == AF_OK ? res.status : AF_CERTIFY_CERTIFIED;
    af_certify_result_free(&res);
    af_v_note(r, "speed reads t or r (no lemma): --property cap; ");
    run_one(r, &t, "angles 0,0.5:", y, &o, want, AF_CLOSE_CAP_ENTERED, NULL);
  }
  r->measured = t.worst;
  r->predicted = 0;
  r->tolerance = NAN;
  r->margin = NAN;
  r->status = t.nerr ? AF_V_ERROR : t.nfail ? AF_V_REFUTED
              : t.nok ? AF_V_CERTIFIED : AF_V_NOCERT;
}

#else /* no Arb */

void af_certspec_on(af_vresult *r, const af_scheme_spec *sp)
{
  (void) sp;
  af_v_nocert(r, "built without Arb");
}

static void claim_deepnorm(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  (void) arg;
  af_v_nocert(r, "built without Arb");
}

static void claim_ops(af_vresult *r, const af_vctx *c, int arg)
{
  claim_deepnorm(r, c, arg);
}

static void claim_peri_damped(af_vresult *r, const af_vctx *c, int arg)
{
  claim_deepnorm(r, c, arg);
}

#endif

#define EXP_OK AF_V_CERT_EXPECTED

const af_claim af_claims_certspec[] = {
  {"C-flow-spec", "deepnorm", EXP_OK, "C.flow.radius", claim_deepnorm, 0, 0, "certified: spec'd schemes converge to one cluster (U-close): deepnorm (s = 2), the spec'd Post-LN (at the built-in's T*) and nGPT (alpha 1.5) from angles 0, 1.7, 3.6; balls contain the spec's MPFR path; antipodal pair and triangle never certify"},
  {"C-flow-spec", "ops", EXP_OK, "C.flow.radius", claim_ops, 0, 0, "certified: a spec using every rewritten operation (neg, powers, tanh, exp, log, sqrt, abs, min, max) converges (U-close); balls contain its MPFR path"},
  {"C-flow-spec", "peri-damped", EXP_OK, "C.flow.radius", claim_peri_damped, 0, 0, "certified: peri-damped (reads r, t; no lemma) decided both ways on entering the T4.3 cap from angles 0, 0.5: refuted by t=3, entered by t=64; balls and bound checked against MPFR"},
};
const size_t af_claims_certspec_count =
  sizeof af_claims_certspec / sizeof af_claims_certspec[0];
