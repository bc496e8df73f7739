/* claims_spectaylor.c -- mp-taylor on spec'd schemes (theorems.md U1):
 * the Taylor series of a spec's expressions (src/mp/mp_taylor_spec.c)
 * against the built-in rates' series (src/mp/mp_taylor.c).
 *
 *   U1.taylor/<scheme>  the spec'd copy data/schemes/<scheme>.scheme and
 *       the built-in on mp-taylor, 128 bits, tol 1e-30, n = d = 3,
 *       beta = 1.5, Gaussian start (radii |x_j|), alpha 0.8 with decay
 *       0.3, tau = 1, to T = 1.5.  The evaluator forms each rate's
 *       series by the recurrences of the built-in's (r * na a product,
 *       ta / na a quotient, sqrt(t + 1) the square root of the series
 *       t + 1); where the operations differ -- nGPT's na / alpha(t)
 *       against the built-in's na * (1 / alpha(t)) -- the series differ by
 *       rounding only.  Bound: steps x order x 4 u x max |y|
 *       (u = 2^-128; row U1.taylor).  Every row also checks the spec run
 *       against mp-gbs on the same spec within 10 times the sum of the two
 *       runs' own error estimates: the two methods are independent, so
 *       a wrong recurrence shows there.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow_mp.h"
#include "claims_mprun.h"
#include "claims_certspec.h"
#include "datadir.h"
#include "verify.h"

#define ST_N 3
#define ST_PREC 128
#define ST_TOL 1e-30

/* One MPFR run to T = 1.5 (times 0, 0.75, 1.5) from the Gaussian start
 * of seed 2801; *st its statistics. */
static int st_run(mpfr_t *y, const af_model *m, af_mp_method meth,
                  af_mp_stats *st)
{
  double y0[af_state_size(ST_N, ST_N)];
  int rc = af_init_state(y0, NULL, "gaussian", ST_N, ST_N, NAN, 2801);
  return rc == AF_OK ? af_claims_mp_run(y, y0, ST_PREC, meth, ST_TOL, 1.5, m,
                                        st)
                     : rc;
}

/* Every operation mp-taylor's spec evaluator has a recurrence for
 * (abs, min and max it refuses), in a speed and a radial rate that read
 * t, r, ta, na and alpha: checked against mp-gbs only. */
static const char ops_spec[] =
  "name = ops-taylor\n"
  "speed = 3 + tanh(ta - 2) + exp(-na) * sqrt(na + 1) / (1 + na^2)"
  " + log(2 + ta) / 4 - na^1.5 / 8 + pow(na, 2) / 7 + 1 / (2 + ta)^-2"
  " + (1 + t)^(ta / 4) + alpha * r / (1 + r)\n"
  "radial = ta / (r + 1) - na^3 / 9\n"
  "layer = sphere\n";

/* The runs and the comparison: spec sp on mp-taylor against mp-gbs, and
 * with builtin against the built-in scheme id on mp-taylor. */
static void compare(af_vresult *r, const af_vctx *c, const af_scheme_spec *sp,
                    af_scheme_id id, int builtin, const char *label)
{
  int ops = !builtin;
  const af_scheme *row = af_scheme_get(id);
  size_t N = af_state_size(ST_N, ST_N);
  af_model mb, ms;
  af_v_model(&mb, c, ST_N, ST_N, 1.5, id);
  mb.alpha = 0.8;
  mb.alpha_decay = 0.3;
  mb.tau = 1.0;
  ms = mb;
  int rc = af_model_set_user_scheme(&ms, af_scheme_spec_row(sp));
  mpfr_t *yb = af_mp_vec_alloc(N, ST_PREC), *ys = af_mp_vec_alloc(N, ST_PREC);
  mpfr_t *yg = af_mp_vec_alloc(N, ST_PREC);
  af_mp_stats sb, ss, sg;
  if (rc == AF_OK && !(yb && ys && yg))
    rc = AF_ENOMEM;
  if (rc == AF_OK)
    rc = st_run(yb, ops ? &ms : &mb, AF_MP_TAYLOR, &sb);
  if (rc == AF_OK)
    rc = st_run(ys, &ms, AF_MP_TAYLOR, &ss);
  if (rc == AF_OK)
    rc = st_run(yg, &ms, AF_MP_GBS, &sg);
  size_t nd = 0;
  double maxd = 0, gbs = 0, ymax = 1;
  mpfr_t t;
  mpfr_init2(t, ST_PREC);
  for (size_t i = 0; rc == AF_OK && i < N; i++) {
    ymax = fmax(ymax, fabs(mpfr_get_d(yb[i], MPFR_RNDN)));
    nd += !mpfr_equal_p(yb[i], ys[i]);
    mpfr_sub(t, yb[i], ys[i], MPFR_RNDN); /* exact differences, rounded */
    maxd = fmax(maxd, fabs(mpfr_get_d(t, MPFR_RNDN)));
    mpfr_sub(t, yg[i], ys[i], MPFR_RNDN);
    gbs = fmax(gbs, fabs(mpfr_get_d(t, MPFR_RNDN)));
  }
  mpfr_clear(t);
  af_mp_vec_free(yb, yb ? N : 0);
  af_mp_vec_free(ys, ys ? N : 0);
  af_mp_vec_free(yg, yg ? N : 0);
  if (rc != AF_OK) {
    af_v_error(r, rc, "U1.taylor");
    return;
  }
  /* rounding bound of two evaluations of the same series: every
   * coefficient of every step rounded differently, 4 u each */
  double u = ldexp(1.0, -ST_PREC);
  double bound = (double) sb.steps * (double) sb.order * 4 * u * ymax;
  /* two independent methods, each within its own error estimate of the
   * exact flow (up to the factor 10 the MPFR estimates are held to,
   * N.mp and N.taylor.over) */
  double gtol = 10 * (sg.err_est + ss.err_est);
  int gok = gbs <= gtol;
  if (ops) {
    af_v_le(r, gbs / gtol, af_v_tol(c, "U1.taylor"), 0.0);
    af_v_note(r, "%s: mp-taylor (%lu steps, order %u) vs mp-gbs on the "
              "same spec %.3g, <= 10 x their error estimates %.3g: %s", label,
              ss.steps, ss.order, gbs, gtol, gok ? "yes" : "NO");
    return;
  }
  af_v_le(r, maxd / bound, af_v_tol(c, "U1.taylor"), 0.0);
  if (!gok)
    r->status = AF_V_FAIL;
  af_v_note(r, "%s: built-in vs spec on mp-taylor (128 bits, %lu steps, "
            "order %u): %zu of %zu numbers differ, max %.3g (bound %.3g); "
            "spec on mp-gbs vs mp-taylor %.3g (<= %.3g: %s)", row->name,
            sb.steps, sb.order, nd, N, maxd, bound, gbs, gtol,
            gok ? "yes" : "NO");
}

static void claim_taylor(af_vresult *r, const af_vctx *c, int arg)
{
  int ops = arg >= (int) AF_SCHEME_COUNT;
  af_scheme_id id = ops ? AF_POST_LN : (af_scheme_id) arg;
  char path[4096];
  snprintf(path, sizeof path, "%s/schemes/%s.scheme", af_data_dir(),
           af_scheme_get(id)->name);
  af_scheme_spec *sp = NULL;
  af_spec_error e;
  if ((ops ? af_scheme_spec_parse(&sp, &e, ops_spec, sizeof ops_spec - 1)
           : af_scheme_spec_read(&sp, &e, path)) != AF_OK) {
    r->status = AF_V_ERROR;
    af_v_note(r, "cannot read %s: %s", ops ? "the ops spec" : path, e.what);
    return;
  }
  compare(r, c, sp, id, !ops, "every recurrence (tanh, exp, log, sqrt, x^e, "
          "x^y, /)");
  af_scheme_spec_free(sp);
}

void af_spectaylor_on(af_vresult *r, const af_vctx *c,
                      const af_scheme_spec *sp)
{
  const char *why = af_mp_taylor_spec_refusal(sp);
  if (why) {
    r->status = AF_V_INCONCLUSIVE;
    af_v_note(r, "mp-taylor refuses it: %s", why);
    return;
  }
  compare(r, c, sp, AF_POST_LN, 0, "n=d=3 beta=1.5 gaussian, 128 bits, tol "
          "1e-30, T=1.5");
}

#define ROW(name, id) \
  {"U1.taylor", name, AF_V_PASS, "U1.taylor", claim_taylor, id, 0, \
   "mp-taylor on the spec'd copy = the built-in (rounding bound), and = mp-gbs within the runs' error estimates"}

const af_claim af_claims_spectaylor[] = {
  ROW("post-ln", AF_POST_LN),
  ROW("pre-ln", AF_PRE_LN),
  ROW("mix-ln", AF_MIX_LN),
  ROW("peri-ln", AF_PERI_LN),
  ROW("ngpt", AF_NGPT),
  ROW("ln-scaling", AF_LN_SCALING),
  {"U1.taylor", "ops", AF_V_PASS, "U1.taylor", claim_taylor, AF_SCHEME_COUNT,
   0, "mp-taylor on a spec using every recurrence = mp-gbs within the runs' error estimates"},
};
const size_t af_claims_spectaylor_count =
  sizeof af_claims_spectaylor / sizeof af_claims_spectaylor[0];
