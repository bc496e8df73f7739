/* certify.c -- af_certify (certify.h): a validated enclosure of the
 * n-particle flow from one start, closed by a lemma (theorems.md C-flow,
 * C-close).
 *
 * Loop: from balls around the exact start (each direction row / |row| in
 * Arb, radii exact), validated Taylor steps (vode.c) on the tape of the
 * field (flow_tape.c); after every accepted step the closing test of the
 * scheme (closing.c) on the state's directions.  Stops with
 *  - certified at the first step end T* where the test holds (Mix-LN:
 *    T* >= tau, after which the flow is Pre-LN's);
 *  - could-not-certify at the horizon, when a radius exceeds max_rad
 *    (width), when no a-priori enclosure exists (step size underflow), or
 *    when the step budget is spent; the field at the midpoint is reported
 *    so that a stall near an equilibrium (a saddle, the simplex, an
 *    antipodal pair) is named as such.
 * Time stays an exact dyadic; output times and tau are hit exactly.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certify.h"
#include "flow.h"
#include "lohner.h"
#include "merges.h"
#include "scheme_spec.h"

const char *af_certify_status_name(af_certify_status s)
{
  switch (s) {
  case AF_CERTIFY_CERTIFIED: return "certified";
  case AF_CERTIFY_NOCERT: return "could-not-certify";
  case AF_CERTIFY_REFUTED: return "refuted";
  }
  return "?";
}

const char *af_close_lemma_name(af_close_lemma l)
{
  switch (l) {
  case AF_CLOSE_HEMISPHERE: return "P3h-hemisphere";
  case AF_CLOSE_CAP: return "T4.3-cap";
  case AF_CLOSE_SPEED: return "U-close";
  case AF_CLOSE_CAP_ENTERED: return "cap-entered";
  default: return "none";
  }
}

void af_certify_opts_init(af_certify_opts *o, af_scheme_id scheme, size_t n,
                          size_t d, double beta)
{
  if (o == NULL)
    return;
  memset(o, 0, sizeof *o);
  o->scheme = scheme;
  o->n = n;
  o->d = d;
  o->beta = beta;
  o->alpha = 1.0;
  o->tau = 1.0;
  o->t_max = 64.0;
  o->prec = 64;
}

void af_certify_result_free(af_certify_result *res)
{
  if (res == NULL)
    return;
  if (res->dump) {
    for (size_t i = 0; i < res->nballs * res->dim; i++)
      free(res->dump[i]);
    free(res->dump);
  }
  free(res->ball_t);
  free(res->mid);
  free(res->rad);
  free(res->pair_lo);
  free(res->pair_hi);
  free(res->pair_stays);
  free(res->merge_lo);
  free(res->merge_hi);
  res->dump = NULL;
  res->ball_t = res->mid = res->rad = NULL;
  res->pair_lo = res->pair_hi = res->merge_lo = res->merge_hi = NULL;
  res->pair_stays = NULL;
}

static int fail(af_certify_result *res, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(af_certify_result *res, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(res->reason, sizeof res->reason, fmt, ap);
  va_end(ap);
  return rc;
}

#ifndef AF_HAVE_ARB

int af_certify(af_certify_result *res, const double *y,
               const af_certify_opts *o)
{
  (void) y;
  (void) o;
  if (res == NULL)
    return AF_EINVAL;
  memset(res, 0, sizeof *res);
  res->status = AF_CERTIFY_NOCERT;
  return fail(res, AF_EINVAL,
              "built without Arb: certify needs ball arithmetic (configure "
              "found no Arb or was given --without-arb)");
}

#else

/* Largest radius of the state, log-free (a double rounded up). */
static double max_rad(arb_srcptr Y, size_t dim)
{
  double m = 0;
  for (size_t i = 0; i < dim; i++) {
    double r = mag_get_d(arb_radref(Y + i));
    if (r > m || isnan(r))
      m = r;
  }
  return m;
}

static int record(af_certify_result *res, size_t k, double t, arb_srcptr Y)
{
  size_t dim = res->dim;
  res->ball_t[k] = t;
  for (size_t i = 0; i < dim; i++) {
    res->mid[k * dim + i] = arf_get_d(arb_midref(Y + i), ARF_RND_NEAR);
    /* radius + the rounding of the midpoint, rounded up */
    arb_t e;
    arb_init(e);
    arb_set_d(e, res->mid[k * dim + i]);
    arb_sub(e, e, Y + i, 64);
    arb_abs(e, e);
    arf_t u;
    arf_init(u);
    arb_get_ubound_arf(u, e, 64);
    res->rad[k * dim + i] = arf_get_d(u, ARF_RND_UP);
    arf_clear(u);
    arb_clear(e);
    char *s = arb_dump_str(Y + i);
    if (s == NULL)
      return AF_ENOMEM;
    /* arb_dump_str allocates with flint_malloc: copy to malloc memory */
    res->dump[k * dim + i] = malloc(strlen(s) + 1);
    if (res->dump[k * dim + i] == NULL) {
      flint_free(s);
      return AF_ENOMEM;
    }
    strcpy(res->dump[k * dim + i], s);
    flint_free(s);
  }
  return AF_OK;
}

/* The spec of o (NULL for a built-in). */
static const af_scheme_spec *spec_of(const af_certify_opts *o)
{
  return o->user ? af_scheme_spec_of(o->user) : NULL;
}

/* 1 if the state carries radii. */
static int has_radii(const af_certify_opts *o)
{
  const af_scheme_spec *sp = spec_of(o);
  return sp ? af_flow_spec_reads(sp, 0, AF_EXPR_R)
            : af_flow_has_radii(o->scheme);
}

static int check_spec(af_certify_result *res, const af_certify_opts *o,
                      const af_scheme_spec *sp)
{
  if (sp == NULL)
    return fail(res, AF_EINVAL, "scheme '%s' is a callback: certify needs a "
                "spec (af_scheme_spec_row), whose expressions it tapes",
                o->user->name ? o->user->name : "?");
  const char *why = af_flow_spec_refusal(sp);
  if (why)
    return fail(res, AF_EINVAL, "spec '%s' cannot be certified: %s",
                sp->name, why);
  int ra = af_flow_spec_reads(sp, 0, AF_EXPR_ALPHA)
           || (has_radii(o) && af_flow_spec_reads(sp, 1, AF_EXPR_ALPHA));
  if (ra && (!(o->alpha > 0) || !isfinite(o->alpha)
             || !(o->alpha_decay >= 0) || !isfinite(o->alpha_decay)))
    return fail(res, AF_EINVAL, "spec '%s' reads alpha: need alpha > 0 and "
                "a finite decay >= 0 (alpha = %g, decay = %g)", sp->name,
                o->alpha, o->alpha_decay);
  if (o->property_cap)
    return AF_OK; /* a finite-time property: any tapeable spec */
  if (o->q || o->k)
    return fail(res, AF_EINVAL, "spec '%s' with weights: the closing lemma "
                "of a spec (U-close) needs Q^T K = I (the energy of the "
                "symmetric kernel); --property cap states a property that "
                "any weights allow", sp->name);
  /* U-close (theorems.md): a speed G(ta, na, alpha) times or divided by
   * factors of t alone, the time factor growing at most like t */
  double e;
  int closable = af_flow_spec_time_split(sp, o->alpha_decay);
  if (closable
      && !af_flow_spec_time_growth(&e, sp, o->alpha, o->alpha_decay, 1.0,
                                   64))
    return fail(res, AF_EINVAL, "spec '%s': its speed's factor of t is not "
                "proven to grow at most like t (bound on its exponent: %g; a "
                "faster growth can stop the tokens short of a cluster, "
                "theorems.md U-close), so convergence cannot be closed; "
                "--property cap proves or refutes that the flow enters the "
                "cap of T4.3 by t-max", sp->name, e);
  if (!closable)
    return fail(res, AF_EINVAL, "spec '%s': %s, and the closing lemma of a "
                "spec (U-close, theorems.md) needs a speed G(ta, na, alpha), "
                "possibly times or divided by a factor of t alone, so "
                "convergence cannot be closed; --property cap proves or "
                "refutes that the flow enters the cap of T4.3 by t-max",
                sp->name, af_flow_spec_reads(sp, 0, AF_EXPR_R)
                ? "its speed reads r"
                : "its speed is not such a product or quotient");
  return AF_OK;
}

static int check_opts(af_certify_result *res, const double *y,
                      const af_certify_opts *o)
{
  if (o->user == NULL && ((int) o->scheme < 0 || o->scheme >= AF_SCHEME_COUNT))
    return fail(res, AF_EINVAL, "unknown scheme %.0f", (double) o->scheme);
  if (o->n < 2 || o->d < 2)
    return fail(res, AF_EINVAL, "n = %.0f and d = %.0f: certify needs n >= 2 "
                "tokens and dimension d >= 2", (double) o->n, (double) o->d);
  if (o->user) {
    int rc = check_spec(res, o, spec_of(o));
    if (rc != AF_OK)
      return rc;
  }
  size_t dim = o->n * o->d + (has_radii(o) ? o->n : 0);
  if (dim > AF_CERTIFY_DIM_MAX || o->n > AF_CERTIFY_DIM_MAX
      || o->d > AF_CERTIFY_DIM_MAX)
    return fail(res, AF_EDIM, "state dimension %.0f (n d, plus n radii for "
                "Pre-, Mix-, Peri-LN) exceeds what this build certifies (%.0f)",
                (double) dim, (double) AF_CERTIFY_DIM_MAX);
  if (!isfinite(o->beta) || o->beta < 0)
    return fail(res, AF_EINVAL, "beta = %g: must be finite and >= 0",
                o->beta);
  if (!(o->t_max > 0) || o->t_max > AF_CERTIFY_TMAX_MAX)
    return fail(res, AF_EINVAL, "horizon t-max = %g cannot be reached: it "
                "must be > 0 and at most %g (steps grow at most like t)",
                o->t_max, AF_CERTIFY_TMAX_MAX);
  if (o->prec < 32 || o->prec > 4096)
    return fail(res, AF_EINVAL, "precision %.0f bits: must be in [32, 4096]",
                (double) o->prec);
  if (o->order > AF_CERTIFY_ORDER_MAX)
    return fail(res, AF_EINVAL, "Taylor order %.0f: must be at most %d (0 "
                "chooses ceil(prec ln 2 / 2), at most 1420)", (double) o->order,
                AF_CERTIFY_ORDER_MAX);
  if (!(o->max_rad >= 0) || !isfinite(o->max_rad))
    return fail(res, AF_EINVAL, "largest radius %g: must be finite and >= 0 "
                "(0 = 1e-3)", o->max_rad);
  if (!(o->h_fixed >= 0) || !isfinite(o->h_fixed))
    return fail(res, AF_EINVAL, "fixed step %g: must be finite and >= 0",
                o->h_fixed);
  if (o->user == NULL && o->scheme == AF_NGPT
      && (!(o->alpha > 0) || !isfinite(o->alpha) || !(o->alpha_decay >= 0)
          || o->alpha_decay > 1))
    return fail(res, AF_EINVAL, "nGPT alpha = %g, decay = %g: need alpha > 0 "
                "and decay in [0, 1] (the closing lemma needs int alpha = "
                "infinity)", o->alpha, o->alpha_decay);
  if (o->user == NULL && o->scheme == AF_MIX_LN) {
    if (!(o->tau >= 0) || !isfinite(o->tau))
      return fail(res, AF_EINVAL, "Mix-LN tau = %g: must be finite and >= 0",
                  o->tau);
    if (o->t_max < o->tau)
      return fail(res, AF_EINVAL, "horizon t-max = %g is before Mix-LN's "
                  "switch tau = %g: the certificate closes after tau",
                  o->t_max, o->tau);
  }
  if (!(o->init_radius >= 0) || !isfinite(o->init_radius))
    return fail(res, AF_EINVAL, "init radius %g: must be finite and >= 0",
                o->init_radius);
  if (!(o->max_rad >= 0) || !isfinite(o->max_rad))
    return fail(res, AF_EINVAL, "max radius %g: must be finite and >= 0 "
                "(0: the default)", o->max_rad);
  if (!(o->merge_cos >= 0 && o->merge_cos < 1))
    return fail(res, AF_EINVAL, "merge threshold cos = %g: must be in (0, "
                "1) (0: no merge enclosures)", o->merge_cos);
  if (!(o->h_max >= 0) || !isfinite(o->h_max))
    return fail(res, AF_EINVAL, "largest step %g: must be finite and >= 0 "
                "(0: no limit)", o->h_max);
  if (o->merge_cos > 0 && o->property_cap)
    return fail(res, AF_EINVAL, "merge enclosures and --property cap are "
                "separate runs");
  if (o->ntimes && o->times == NULL)
    return fail(res, AF_EINVAL, "output times missing");
  if (o->ntimes > AF_CERTIFY_TIMES_MAX)
    return fail(res, AF_EINVAL, "%.0f output times: at most %.0f (each "
                "records every ball of the state)", (double) o->ntimes,
                (double) AF_CERTIFY_TIMES_MAX);
  for (size_t k = 0; k < o->ntimes; k++)
    if (!(o->times[k] >= 0) || o->times[k] > o->t_max
        || (k && o->times[k] < o->times[k - 1]))
      return fail(res, AF_EINVAL, "output time %g: times must be ascending "
                  "in [0, t-max = %g]", o->times[k], o->t_max);
  for (size_t j = 0; j < o->n; j++) {
    double s = 0;
    for (size_t c = 0; c < o->d; c++) {
      double v = y[j * o->d + c];
      if (!isfinite(v))
        return fail(res, AF_EINVAL, "token %.0f: coordinate %.0f is not "
                    "finite", (double) (j + 1), (double) (c + 1));
      s += v * v;
    }
    if (!(fabs(sqrt(s) - 1) <= 1e-12))
      return fail(res, AF_EINVAL, "token %.0f has norm %.17g: a start must "
                  "lie on the unit sphere (within 1e-12; radii are separate)",
                  (double) (j + 1), sqrt(s));
    if (has_radii(o)) {
      double r = y[o->n * o->d + j];
      if (!(r > 0) || !isfinite(r))
        return fail(res, AF_EINVAL, "token %.0f has radius %g: radii must be "
                    "finite and > 0", (double) (j + 1), r);
    }
  }
  return AF_OK;
}

/* The hemisphere test's record: its margin v and w. */
static void record_hemisphere(af_certify_result *res, arb_srcptr Y,
                              const af_certify_opts *o, double v)
{
  res->hyp = v;
  res->hyp_bound = 0;
  for (size_t c = 0; c < o->d && c < 16; c++) {
    double s = 0;
    for (size_t i = 0; i < o->n; i++)
      s += arf_get_d(arb_midref(Y + i * o->d + c), ARF_RND_NEAR);
    res->w[c] = s; /* the record of w (af_close_hemisphere's w is the
                      exact midpoint sum; this is its double) */
  }
}

/* The closing test of the scheme at the current state.  Returns the
 * lemma proven (AF_CLOSE_NONE if none). */
static af_close_lemma closing(af_certify_result *res, arb_srcptr Y,
                              const af_certify_opts *o, int identity,
                              double tnow, long prec)
{
  int ok = 0;
  double v, b;
  const af_scheme_spec *sp = spec_of(o);
  if (sp && o->property_cap) {
    /* the property C-refute only: no lemma on a spec makes it convergence */
    af_close_cap(&ok, &v, &b, Y, o->n, o->d, o->beta, prec);
    if (!ok)
      return AF_CLOSE_NONE;
    res->hyp = v;
    res->hyp_bound = b;
    return AF_CLOSE_CAP_ENTERED;
  }
  if (sp) {
    /* U-close: the hemisphere of P3h, and the speed proven positive and
     * bounded on the box ta in [-1, 1], na in [m, 1] that the hemisphere
     * keeps every token in (theorems.md U-close) */
    af_close_hemisphere(&ok, &v, Y, o->n, o->d, prec);
    if (!ok || !(v > 0))
      return AF_CLOSE_NONE;
    int sok;
    af_flow_spec_speed_box(&sok, &res->speed_lo, &res->speed_hi,
                           &res->time_exp, sp, -1.0, 1.0, v, 1.0, o->alpha,
                           o->alpha_decay, tnow, prec);
    if (!sok)
      return AF_CLOSE_NONE;
    record_hemisphere(res, Y, o, v);
    return AF_CLOSE_SPEED;
  }
  int hemi = identity && !o->property_cap
             && (o->scheme == AF_POST_LN || o->scheme == AF_NGPT
                 || o->scheme == AF_LN_SCALING);
  if (hemi) {
    af_close_hemisphere(&ok, &v, Y, o->n, o->d, prec);
    if (ok) {
      record_hemisphere(res, Y, o, v);
      return AF_CLOSE_HEMISPHERE;
    }
    return AF_CLOSE_NONE;
  }
  af_close_cap(&ok, &v, &b, Y, o->n, o->d, o->beta, prec);
  if (ok) {
    res->hyp = v;
    res->hyp_bound = b;
    return AF_CLOSE_CAP;
  }
  return AF_CLOSE_NONE;
}

int af_certify(af_certify_result *res, const double *y,
               const af_certify_opts *o)
{
  if (res == NULL)
    return AF_EINVAL;
  memset(res, 0, sizeof *res);
  res->status = AF_CERTIFY_NOCERT;
  res->time_exp = NAN;
  if (o == NULL || y == NULL)
    return fail(res, AF_EINVAL, "no start or no options");
  int rc = check_opts(res, y, o);
  if (rc != AF_OK)
    return rc;
  clock_t c0 = clock();
  long prec = o->prec;
  size_t n = o->n, d = o->d;
  int K = o->order ? (int) o->order
                   : (int) ceil((double) prec * log(2.0) / 2.0);
  res->order = (unsigned) K;
  /* Q^T K in balls (exact products of the given doubles), its norm */
  arb_ptr M = NULL;
  int identity = 1;
  for (size_t i = 0; i < d * d; i++)
    if ((o->q && !isfinite(o->q[i])) || (o->k && !isfinite(o->k[i])))
      return fail(res, AF_EINVAL, "weights: entry %zu of %s is not finite",
                  i + 1, o->q && !isfinite(o->q[i]) ? "Q" : "K");
  if (o->q || o->k) {
    M = _arb_vec_init((slong) (d * d));
    arb_t a, b;
    arb_init(a);
    arb_init(b);
    for (size_t i = 0; i < d; i++)
      for (size_t j = 0; j < d; j++) {
        arb_ptr m = M + i * d + j;
        arb_zero(m);
        for (size_t l = 0; l < d; l++) { /* (Q^T K)_ij = sum_l Q_li K_lj */
          arb_set_d(a, o->q ? o->q[l * d + i] : (double) (l == i));
          arb_set_d(b, o->k ? o->k[l * d + j] : (double) (l == j));
          arb_addmul(m, a, b, prec);
        }
        if (!(i == j ? arb_is_one(m) : arb_is_zero(m)))
          identity = 0;
      }
    arb_clear(a);
    arb_clear(b);
    if (identity) {
      _arb_vec_clear(M, (slong) (d * d));
      M = NULL;
    }
  }
  res->qtk_norm = 1;
  if (!identity) {
    arb_t nb;
    arb_init(nb);
    af_close_norm_bound(nb, M, d, prec);
    arf_t u;
    arf_init(u);
    arb_get_ubound_arf(u, nb, prec);
    res->qtk_norm = arf_get_d(u, ARF_RND_UP);
    int le1 = arf_cmp_si(u, 1) <= 0;
    arf_clear(u);
    arb_clear(nb);
    if (!le1) {
      _arb_vec_clear(M, (slong) (d * d));
      return fail(res, AF_EINVAL, "|Q^T K| <= %.6g is not proven <= 1: the "
                  "closing lemma for Q^T K != I (Theorem 4.3) needs |Q^T K| "
                  "<= 1", res->qtk_norm);
    }
  }
  af_flow_sys fs = {o->scheme, n, d, o->beta, o->alpha, o->alpha_decay, M,
                    spec_of(o)};
  int mix = o->user == NULL && o->scheme == AF_MIX_LN;
  int after = mix && o->tau == 0;
  af_vtape tp, tp2;
  memset(&tp2, 0, sizeof tp2);
  rc = af_flow_tape(&tp, &fs, mix ? 1 : 0, prec); /* the longer branch */
  if (rc == AF_OK && mix && !after)
    rc = af_flow_tape(&tp2, &fs, 0, prec);
  af_vode *v = rc == AF_OK ? af_vode_alloc(&tp, K, prec) : NULL;
  size_t dim = (size_t) tp.dim;
  res->dim = dim;
  res->nballs = o->ntimes + 1;
  res->ball_t = calloc(res->nballs, sizeof *res->ball_t);
  res->mid = calloc(res->nballs * dim, sizeof *res->mid);
  res->rad = calloc(res->nballs * dim, sizeof *res->rad);
  res->dump = calloc(res->nballs * dim, sizeof *res->dump);
  if (rc == AF_OK && (v == NULL || !res->ball_t || !res->mid || !res->rad
                      || !res->dump))
    rc = AF_ENOMEM;
  if (rc == AF_OK && mix && !after)
    rc = af_vode_set_tape(v, &tp2);
  if (rc == AF_OK) {
    af_vode_set_test(v, o->drop_remainder, o->h_fixed);
    /* the exact start: theta_j = row / |row| in balls, radii exact */
    arb_ptr Y = af_vode_state(v);
    arb_t nr;
    arb_init(nr);
    for (size_t j = 0; j < n; j++) {
      arb_zero(nr);
      for (size_t c = 0; c < d; c++) {
        arb_set_d(Y + j * d + c, y[j * d + c]);
        arb_addmul(nr, Y + j * d + c, Y + j * d + c, prec);
      }
      arb_sqrt(nr, nr, prec);
      for (size_t c = 0; c < d; c++) {
        arb_div(Y + j * d + c, Y + j * d + c, nr, prec);
        mag_t e;
        mag_init(e);
        mag_set_d(e, o->init_radius);
        mag_add(arb_radref(Y + j * d + c), arb_radref(Y + j * d + c), e);
        mag_clear(e);
      }
      if (dim > n * d)
        arb_set_d(Y + n * d + j, y[n * d + j]);
    }
    arb_clear(nr);
    res->start_rad = max_rad(Y, dim);
    /* a set of starts: Lohner's QR doubleton carries it (wrapping
     * control); a point start needs none (its balls are rounding only) */
    af_lohner *L = NULL;
    if (o->init_radius > 0 && !o->no_wrap) {
      L = af_lohner_alloc((int) dim, prec);
      if (L == NULL)
        rc = AF_ENOMEM;
      else
        af_lohner_init(L, Y);
    }
    /* the merge enclosures of the staircase (theorems.md C-merge) */
    af_merge_track mt;
    memset(&mt, 0, sizeof mt);
    int merges = o->merge_cos > 0;
    if (rc == AF_OK && merges) {
      rc = af_merge_track_init(&mt, n, d, o->merge_cos);
      if (rc == AF_OK)
        af_merge_track_start(&mt, Y, prec);
    }
    res->peak_rad = res->start_rad;
    int mdone = 0; /* every merge enclosed */
    unsigned long maxsteps = o->max_steps ? o->max_steps : 200000UL;
    /* the width at which to give up: 1e-3 for balls; 0.1 for a set
     * carried by Lohner's doubleton, whose first-order part is exact (a
     * wide hull there is the flow's own spreading of the set, e.g. past a
     * saddle, not a loss of the enclosure) */
    double maxr = o->max_rad > 0 ? o->max_rad : L ? 0.1 : 1e-3;
    double hsug = 1.0 / 16;
    arf_t t, tend, tauf;
    arf_init(t);
    arf_init(tend);
    arf_init(tauf);
    arf_set_d(tauf, o->tau);
    size_t k = 0; /* next output time */
    af_close_lemma lem = AF_CLOSE_NONE;
    const char *why = NULL;
    /* outputs at t = 0 and the closing test at the start */
    for (; k < o->ntimes && o->times[k] == 0 && rc == AF_OK; k++)
      rc = record(res, k, 0, Y);
    if (!mix || o->tau == 0)
      lem = closing(res, Y, o, identity, 0.0, prec);
    /* C-refute: the smallest lower bound of max 1 - cos over the a-priori
     * enclosures of the steps so far (every t in [0, t]) */
    double gap_lo = INFINITY;
    if (lem != AF_CLOSE_NONE)
      res->t_star = 0;
    if (merges && rc == AF_OK)
      mdone = af_merge_track_done(&mt);
    while (rc == AF_OK && (lem == AF_CLOSE_NONE || (merges && !mdone))
           && why == NULL) {
      af_vode_get_time(t, v);
      if (arf_cmp_d(t, o->t_max) >= 0) {
        why = "horizon";
        break;
      }
      arf_set_d(tend, o->t_max);
      if (k < o->ntimes)
        arf_set_d(tend, o->times[k]);
      if (mix && !after && arf_cmp(tauf, tend) < 0)
        arf_set(tend, tauf);
      if (o->h_max > 0) {
        arf_t th;
        arf_init(th);
        arf_set_d(th, o->h_max);
        arf_add(th, th, t, ARF_PREC_EXACT, ARF_RND_DOWN);
        if (arf_cmp(th, tend) < 0)
          arf_set(tend, th);
        arf_clear(th);
      }
      if (res->steps + res->rejected >= maxsteps) {
        why = "steps";
        break;
      }
      int src = af_vode_step(v, tend, &hsug, &res->rejected);
      res->steps++;
      if (src == AF_ENOPROGRESS) {
        why = "enclosure";
        break;
      }
      if (src != AF_OK) {
        rc = src;
        snprintf(res->reason, sizeof res->reason, "soundness check failed "
                 "(empty intersection of the mean-value and naive "
                 "enclosures): a bug, not a result");
        break;
      }
      if (o->property_cap) {
        double g;
        af_close_gap_lower(&g, af_vode_apriori(v), n, d, prec);
        if (!(g >= gap_lo))
          gap_lo = isnan(g) ? -INFINITY : g;
      }
      if (L) {
        arb_srcptr lm, lp, lj;
        af_vode_last(v, &lm, &lp, &lj);
        if (af_lohner_update(L, Y, lm, lp, lj) != AF_OK) {
          rc = AF_EINVAL;
          snprintf(res->reason, sizeof res->reason, "soundness check "
                   "failed (empty intersection of the Lohner set and the "
                   "mean-value enclosure): a bug, not a result");
          break;
        }
      }
      af_vode_get_time(t, v);
      double td = arf_get_d(t, ARF_RND_NEAR);
      if (merges) {
        /* the step's exact end, rounded down for lo and up for hi */
        af_merge_track_step(&mt, af_vode_apriori(v), Y,
                            arf_get_d(t, ARF_RND_DOWN),
                            arf_get_d(t, ARF_RND_UP), prec);
        mdone = af_merge_track_done(&mt);
      }
      for (; k < o->ntimes && arf_cmp_d(t, o->times[k]) >= 0 && rc == AF_OK;
           k++)
        rc = record(res, k, td, Y);
      if (mix && !after && arf_equal(t, tauf)) {
        after = 1;
        rc = af_vode_set_tape(v, &tp);
      }
      double mr = max_rad(Y, dim);
      if (mr > res->peak_rad || isnan(mr))
        res->peak_rad = mr;
      if (mr > maxr) {
        why = "width";
        break;
      }
      if ((!mix || after) && lem == AF_CLOSE_NONE) {
        lem = closing(res, Y, o, identity, arf_get_d(t, ARF_RND_DOWN), prec);
        if (lem != AF_CLOSE_NONE)
          res->t_star = td;
      }
    }
    if (merges && rc == AF_OK) {
      res->npairs = mt.npairs;
      res->pair_lo = malloc(mt.npairs * sizeof *res->pair_lo);
      res->pair_hi = malloc(mt.npairs * sizeof *res->pair_hi);
      res->pair_stays = malloc(mt.npairs * sizeof *res->pair_stays);
      res->merge_lo = malloc((n - 1) * sizeof *res->merge_lo);
      res->merge_hi = malloc((n - 1) * sizeof *res->merge_hi);
      if (!res->pair_lo || !res->pair_hi || !res->pair_stays
          || !res->merge_lo || !res->merge_hi)
        rc = AF_ENOMEM;
      else {
        memcpy(res->pair_lo, mt.lo, mt.npairs * sizeof *mt.lo);
        memcpy(res->pair_hi, mt.hi, mt.npairs * sizeof *mt.hi);
        memcpy(res->pair_stays, mt.stays, mt.npairs * sizeof *mt.stays);
        af_merge_events(res->merge_lo, res->merge_hi, &mt);
      }
    }
    af_merge_track_clear(&mt);
    af_vode_get_time(t, v);
    res->t_end = arf_get_d(t, ARF_RND_NEAR);
    res->final_rad = max_rad(Y, dim);
    res->nballs = k + 1; /* the output times reached, then t_end */
    if (rc == AF_OK)
      rc = record(res, k, res->t_end, Y);
    if (rc == AF_OK) {
      /* the field at the midpoint: small means a stall near an
       * equilibrium */
      arb_ptr mid = _arb_vec_init((slong) dim), f = _arb_vec_init((slong) dim);
      for (size_t i = 0; i < dim; i++)
        arb_get_mid_arb(mid + i, Y + i);
      arb_t ta;
      arb_init(ta);
      arb_set_arf(ta, t);
      af_vode_field(f, v, ta, mid);
      double fm = 0;
      for (size_t i = 0; i < n * d; i++)
        fm = fmax(fm, fabs(arf_get_d(arb_midref(f + i), ARF_RND_NEAR)));
      res->field_max = fm;
      arb_clear(ta);
      _arb_vec_clear(mid, (slong) dim);
      _arb_vec_clear(f, (slong) dim);
    }
    double dmax = INFINITY;
    if (o->property_cap) {
      /* an upper bound of delta_max = 1/(100 n^2 max(1, beta^2)) */
      arb_t dm;
      arb_init(dm);
      arb_set_d(dm, o->beta);
      arb_sqr(dm, dm, prec);
      if (!(o->beta > 1))
        arb_one(dm);
      arb_mul_ui(dm, dm, 100 * (ulong) n * (ulong) n, prec);
      arb_inv(dm, dm, prec);
      arf_t u;
      arf_init(u);
      arb_get_ubound_arf(u, dm, prec);
      dmax = arf_get_d(u, ARF_RND_UP);
      arf_clear(u);
      arb_clear(dm);
    }
    if (rc == AF_OK && lem != AF_CLOSE_NONE) {
      res->status = AF_CERTIFY_CERTIFIED;
      res->lemma = lem;
      if (!merges)
        res->t_star = res->t_end;
    } else if (rc == AF_OK && o->property_cap && strcmp(why, "horizon") == 0
               && gap_lo > dmax) {
      /* every t in [0, t_max] lies in a step whose a-priori enclosure
       * proves max 1 - cos >= gap_lo > delta_max: the cap is not entered */
      res->status = AF_CERTIFY_REFUTED;
      res->hyp = gap_lo;
      res->hyp_bound = dmax;
      snprintf(res->reason, sizeof res->reason, "refuted: the flow does not "
               "enter the cap of T4.3 by t = %g: max 1 - cos >= %.6g > "
               "delta_max = %.6g is proven on every step's a-priori "
               "enclosure over [0, %g]", o->t_max, gap_lo, dmax, o->t_max);
    } else if (rc == AF_OK) {
      const char *near = res->field_max < 1e-4
        ? " near an equilibrium (|f| at the midpoint is small): a saddle "
          "such as the simplex or an antipodal pair cannot be certified"
        : "";
      if (strcmp(why, "horizon") == 0)
        snprintf(res->reason, sizeof res->reason, "horizon: t-max = %g "
                 "reached before the closing hypotheses held (largest radius "
                 "%.3g, max |f| %.3g)%s", o->t_max, res->final_rad,
                 res->field_max, near);
      else if (strcmp(why, "width") == 0)
        snprintf(res->reason, sizeof res->reason, "width: a ball radius "
                 "exceeded %g at t = %g (from %.3g at t = 0; max |f| %.3g)%s",
                 maxr, res->t_end, res->start_rad, res->field_max, near);
      else if (strcmp(why, "enclosure") == 0)
        snprintf(res->reason, sizeof res->reason, "no a-priori enclosure "
                 "even for tiny steps at t = %g (largest radius %.3g)%s",
                 res->t_end, res->final_rad, near);
      else
        snprintf(res->reason, sizeof res->reason, "step budget of %lu "
                 "spent at t = %g%s", maxsteps, res->t_end, near);
    }
    af_lohner_free(L);
    arf_clear(t);
    arf_clear(tend);
    arf_clear(tauf);
  } else if (res->reason[0] == '\0') {
    snprintf(res->reason, sizeof res->reason, "out of memory");
  }
  af_vode_free(v);
  af_vtape_clear(&tp);
  if (tp2.nd)
    af_vtape_clear(&tp2);
  if (M)
    _arb_vec_clear(M, (slong) (d * d));
  res->cpu_seconds = (double) (clock() - c0) / CLOCKS_PER_SEC;
  return rc;
}

#endif /* AF_HAVE_ARB */
