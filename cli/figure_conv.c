/* figure_conv.c -- `attnflow figure`, convergence orders and
 * work-precision of every GSL stepper, the layer maps and the MPFR methods
 * against an MPFR reference, and its caption. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attnflow_mp.h"
#include "figure.h"

/* Convergence orders and work-precision on one common case (Pre-LN, so
 * both the directions and the radii move): every GSL stepper, the layer
 * maps and the two MPFR methods, each error the max-norm distance of the
 * final state from an MPFR reference. */

/* Method ids of the conv table: af_method values, then the MPFR ones. */
enum { FIG_MP_GAUSS = 10, FIG_MP_GBS = 11 };

typedef struct {
  fig_table *T;
  size_t row;
  long col[10];
} fig_conv_out;

enum { CV_METHOD, CV_FIXED, CV_H, CV_TOL, CV_STEPS, CV_NEVALS, CV_TIME,
       CV_ERR, CV_HMEAN, CV_ORDER, CV_NCOL };

static void fig_conv_row(fig_conv_out *x, double method, int fixed, double h,
                         double tol, double steps, double nevals, double time,
                         double err, double order, double t_end) {
  double v[CV_NCOL] = {method, fixed, h,   tol,           steps,
                       nevals, time,  err, t_end / steps, order};
  for (int k = 0; k < CV_NCOL; k++) *fig_at(x->T, x->row, x->col[k]) = v[k];
  x->row++;
}

/* CPU seconds of the calling thread: on a shared machine the wall clock
 * of a millisecond run measures the other processes, not the method. */
static double fig_cpu(void) { return af_out_clock(CLOCK_THREAD_CPUTIME_ID); }

/* One double run from y0 to t_end: error against ref (double), steps,
 * evaluations, and the least CPU time of `reps` repetitions. */
static int fig_conv_double(double *err, double *steps, double *nevals,
                           double *secs, const double *y0, const double *ref,
                           double t_end, const af_model *m,
                           const af_integ_opts *o, int reps) {
  size_t ss = af_state_size(m->n, m->d);
  double *y = malloc(ss * sizeof *y);
  af_work *w = af_work_alloc(m->n, m->d);
  int rc = (y && w) ? AF_OK : AF_ENOMEM;
  double times[2] = {0, t_end}, best = INFINITY;
  af_integ_stats st = {0, 0, 0};
  for (int r = 0; r < reps && rc == AF_OK; r++) {
    memcpy(y, y0, ss * sizeof *y);
    unsigned long e0 = af_work_nevals(w);
    double t0 = fig_cpu();
    rc = af_integrate(y, times, 2, m, o, w, NULL, NULL, &st);
    best = fmin(best, fig_cpu() - t0);
    *nevals = (double)(af_work_nevals(w) - e0);
  }
  if (rc == AF_OK) {
    double e = 0;
    for (size_t i = 0; i < ss; i++) e = fmax(e, fabs(y[i] - ref[i]));
    *err = e;
    *steps = (double)st.steps;
    *secs = best;
  }
  af_work_free(w);
  free(y);
  return rc;
}

/* One MPFR run at precision prec from y0: error against ref (MPFR). */
static int fig_conv_mp(double *err, af_mp_stats *st, double *secs,
                       const double *y0, mpfr_t *ref, double t_end,
                       const af_model *m, const af_mp_opts *o,
                       mpfr_prec_t prec) {
  size_t ss = af_state_size(m->n, m->d);
  af_mp_work *w = af_mp_work_alloc(m->n, m->d, prec);
  mpfr_t *y = af_mp_vec_alloc(ss, prec);
  int rc = (w && y) ? AF_OK : AF_ENOMEM;
  double times[2] = {0, t_end};
  if (rc == AF_OK) {
    af_mp_vec_set_d(y, y0, ss);
    double t0 = fig_cpu();
    rc = af_mp_integrate(y, times, 2, m, o, w, NULL, NULL, st);
    *secs = fig_cpu() - t0;
  }
  if (rc == AF_OK && ref) *err = af_mp_vec_maxdiff(y, ref, ss);
  if (rc == AF_OK && ref == NULL) *err = 0;
  if (y) af_mp_vec_free(y, ss);
  af_mp_work_free(w);
  return rc;
}

/* Least-squares slope of log10(err) against log10(x) over the rows of
 * method `id` (fixed flag `fixed`) with err in [lo, hi]; NaN if < 3. */
static double fig_conv_slope(const fig_table *T, const long *col, double id,
                             int fixed, long xcol, double lo, double hi) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
  for (size_t r = 0; r < T->nrow; r++) {
    const double *v = T->v + r * T->ncol;
    double e = v[col[CV_ERR]];
    if (v[col[CV_METHOD]] != id || v[col[CV_FIXED]] != fixed) continue;
    if (!(e >= lo && e <= hi)) continue;
    double x = log10(v[xcol]), yv = log10(e);
    sx += x;
    sy += yv;
    sxx += x * x;
    sxy += x * yv;
    k++;
  }
  if (k < 3) return NAN;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

int fig_conv(fig_table *T, const fig_cfg *c) {
  const size_t n = c->quick ? 4 : 8, d = 3;
  const double beta = 1, t_end = c->quick ? 1 : 5;
  const mpfr_prec_t prec_ref = 192, prec = 128;
  const double tol_ref = c->quick ? 1e-25 : 1e-35;
  af_model m;
  af_model_init(&m, n, d, beta, AF_PRE_LN);
  size_t ss = af_state_size(n, d), line;
  double *y0 = malloc(ss * sizeof *y0), *refd = malloc(ss * sizeof *refd);
  mpfr_t *ref = af_mp_vec_alloc(ss, prec_ref);
  af_mp_work *wref = af_mp_work_alloc(n, d, prec_ref);
  int rc = (y0 && refd && ref && wref) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) rc = af_init_state(y0, &line, "uniform", n, d, 1.0, c->seed);
  /* Reference: mp-gbs at tol 1e-35, 192 bits, checked against mp-gauss
   * at the same tolerance (an independent method). */
  af_mp_opts ro;
  af_mp_opts_init(&ro);
  ro.method = AF_MP_GBS;
  ro.tol = tol_ref;
  af_mp_stats rst, gst;
  double rsecs = 0, gsecs = 0, check = NAN;
  if (rc == AF_OK) {
    fig_note(c, "MPFR reference (mp-gbs, tol %g, %ld bits)", tol_ref,
             (long)prec_ref);
    af_mp_vec_set_d(ref, y0, ss);
    double times[2] = {0, t_end}, t0 = fig_cpu();
    rc = af_mp_integrate(ref, times, 2, &m, &ro, wref, NULL, NULL, &rst);
    rsecs = fig_cpu() - t0;
  }
  if (rc == AF_OK) {
    af_mp_vec_get_d(refd, ref, ss);
    af_mp_opts go = ro;
    go.method = AF_MP_GAUSS;
    fig_note(c, "MPFR check (mp-gauss, tol %g)", tol_ref);
    rc = fig_conv_mp(&check, &gst, &gsecs, y0, ref, t_end, &m, &go, prec_ref);
  }

  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "pre-ln");
  if (rc == AF_OK)
    rc = fig_prov_case(T, c, n, d, beta, "uniform (Gaussian, normalized), r = 1");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "reference_method", "mp-gbs");
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "reference",
                         "mp-gbs (af_mp_integrate), tol %g, %ld bits, %lu "
                         "steps, order %u, own error estimate %.3g, %.3g s",
                         tol_ref, (long)prec_ref, rst.steps, rst.order,
                         rst.err_est, rsecs);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "reference_check",
                         "max |mp-gauss - mp-gbs| at tol %g, %ld bits = %.3g "
                         "(mp-gauss order %u, %lu steps, %.3g s)",
                         tol_ref, (long)prec_ref, check, gst.order, gst.steps,
                         gsecs);
  static const char *const notes[][2] = {
      {"method_ids",
       "0 rk8pd, 1 rkf45, 2 rk4, 3 rkck, 4 msadams, 5 layers, 6 vern9 "
       "(af_method), 10 mp-gauss (4 stages, order 8), 11 mp-gbs (5 rows, order 10)"},
      {"runs",
       "fixed = 1: fixed steps h = t_end/N (rk8pd, rkf45, rkck, vern9 with "
       "af_integ_opts.fixed; rk4; layers; vern9 at N = 2, 3, 4, ...); fixed = 0: adaptive, tol = rtol "
       "= atol (GSL) or af_mp_opts.tol at 128 bits (MPFR)"},
      {"columns",
       "method (id), fixed, h (fixed step, else NaN), tol (else NaN), steps "
       "(accepted), nevals (right-hand sides), time (CPU s of the thread: "
       "least of 3 repetitions for double, one run for MPFR), err = "
       "max_i |y_i(t_end) - ref_i| over directions and radii, hmean = "
       "t_end/steps, order "
       "(nominal)"},
      {"timing", "one thread, CPU time (CLOCK_THREAD_CPUTIME_ID) of "
                 "af_integrate / af_mp_integrate alone"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);

  static const char *const cname[CV_NCOL] = {
      "method", "fixed", "h", "tol", "steps", "nevals", "time", "err",
      "hmean", "order"};
  fig_conv_out x = {T, 0, {0}};
  for (int k = 0; k < CV_NCOL; k++)
    if ((x.col[k] = fig_col(T, "%s", cname[k])) < 0) rc = AF_ENOMEM;
  /* Row counts: fixed rk8pd/rkf45/rkck/rk4/vern9 nf each, layers nl,
   * adaptive GSL 5 x na, MPFR 2 x nm. */
  const int nf = c->quick ? 3 : 9, nl = c->quick ? 3 : 13;
  const int na = c->quick ? 3 : 11, nm = c->quick ? 2 : 6;
  if (rc == AF_OK) rc = fig_rows(T, (size_t)(5 * nf + nl + 5 * na + 2 * nm));
  static const af_method fixm[6] = {AF_METHOD_RK8PD, AF_METHOD_RKF45,
                                    AF_METHOD_RKCK, AF_METHOD_RK4,
                                    AF_METHOD_LAYERS, AF_METHOD_VERN9};
  for (int k = 0; k < 6 && rc == AF_OK; k++) {
    int cnt = fixm[k] == AF_METHOD_LAYERS ? nl : nf;
    fig_note(c, "fixed steps: %s", af_method_name(fixm[k]));
    for (int i = 0; i < cnt && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = fixm[k];
      o.fixed = 1;
      /* vern9 reaches rounding within two halvings of N = 5: its ladder
       * is N = 2, 3, ..., so that the fit has points above rounding. */
      double nsteps = fixm[k] == AF_METHOD_VERN9
                          ? 2.0 + i
                          : (fixm[k] == AF_METHOD_LAYERS ? 10.0 : 5.0) *
                                ldexp(1, i);
      o.h = t_end / nsteps;
      o.max_steps = 0;
      double err = NAN, st = NAN, ne = NAN, secs = NAN;
      rc = fig_conv_double(&err, &st, &ne, &secs, y0, refd, t_end, &m, &o, 3);
      fig_conv_row(&x, fixm[k], 1, o.h, NAN, st, ne, secs, err,
                   af_method_order(fixm[k]), t_end);
    }
  }
  static const af_method adm[5] = {AF_METHOD_RK8PD, AF_METHOD_RKF45,
                                   AF_METHOD_RKCK, AF_METHOD_MSADAMS,
                                   AF_METHOD_VERN9};
  for (int k = 0; k < 5 && rc == AF_OK; k++) {
    fig_note(c, "adaptive: %s", af_method_name(adm[k]));
    for (int i = 0; i < na && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = adm[k];
      o.rtol = o.atol = pow(10, -3 - i);
      double err = NAN, st = NAN, ne = NAN, secs = NAN;
      rc = fig_conv_double(&err, &st, &ne, &secs, y0, refd, t_end, &m, &o, 3);
      fig_conv_row(&x, adm[k], 0, NAN, o.rtol, st, ne, secs, err,
                   af_method_order(adm[k]), t_end);
    }
  }
  for (int k = 0; k < 2 && rc == AF_OK; k++) {
    fig_note(c, "MPFR: %s", k == 0 ? "mp-gauss" : "mp-gbs");
    for (int i = 0; i < nm && rc == AF_OK; i++) {
      af_mp_opts o;
      af_mp_opts_init(&o);
      o.method = k == 0 ? AF_MP_GAUSS : AF_MP_GBS;
      o.stages = 4;
      o.columns = 5;
      o.tol = pow(10, -6 - 3 * i);
      af_mp_stats st;
      double err = NAN, secs = NAN;
      rc = fig_conv_mp(&err, &st, &secs, y0, ref, t_end, &m, &o, prec);
      fig_conv_row(&x, k == 0 ? FIG_MP_GAUSS : FIG_MP_GBS, 0, NAN, o.tol,
                   (double)st.steps, (double)st.nevals, secs, err, st.order,
                   t_end);
    }
  }
  fig_note_done(c);
  /* Measured orders (least squares over the rows with error between
   * 1e-13 and 1e-2: above, the asymptotic regime has not begun; below,
   * double rounding dominates). */
  for (int k = 0; k < 6 && rc == AF_OK; k++) {
    char key[64];
    snprintf(key, sizeof key, "slope_fixed_%s", af_method_name(fixm[k]));
    rc = af_prov_add_fmt(&T->prov, key,
                         "%.3f (log err against log h; nominal %d)",
                         fig_conv_slope(T, x.col, fixm[k], 1, x.col[CV_H],
                                        1e-13, 1e-2),
                         af_method_order(fixm[k]));
  }
  for (int k = 0; k < 2 && rc == AF_OK; k++) {
    char key[64];
    snprintf(key, sizeof key, "slope_%s", k == 0 ? "mp-gauss" : "mp-gbs");
    rc = af_prov_add_fmt(&T->prov, key,
                         "%.3f (log err against log mean step; nominal %d)",
                         fig_conv_slope(T, x.col,
                                        k == 0 ? FIG_MP_GAUSS : FIG_MP_GBS, 0,
                                        x.col[CV_HMEAN], 1e-40, 1e-2),
                         k == 0 ? 8 : 10);
  }
  af_mp_work_free(wref);
  if (ref) af_mp_vec_free(ref, ss);
  FIG_FREE(y0, refd);
  return rc;
}

/* Caption of the convergence figure: measured orders (provenance, fitted
 * by the command) and the cheapest runs of each kind. */
int fig_cap_conv(fig_cap *c) {
  const fig_table *t = c->t;
  long cm = fig_cap_col(c, "method"), cfx = fig_cap_col(c, "fixed");
  long ce = fig_cap_col(c, "err"), cn = fig_cap_col(c, "nevals");
  long cs = fig_cap_col(c, "steps"), ctm = fig_cap_col(c, "time");
  static const char *const fx[6] = {"rk8pd", "rkf45", "rkck", "rk4", "layers",
                                    "vern9"};
  char key[64], b[6][48];
  fig_cap_printf(c, "Reference: %s; %s.  Measured orders (least squares of "
                    "log error against log h over errors in [10⁻¹³, 10⁻²]):",
                 fig_cap_prov(c, "reference"), fig_cap_prov(c, "reference_check"));
  for (int k = 0; k < 6; k++) {
    snprintf(key, sizeof key, "slope_fixed_%s", fx[k]);
    fig_cap_printf(c, "%s %s %.2f", k ? "," : "", fx[k], atof(fig_cap_prov(c, key)));
  }
  fig_cap_printf(c, " (nominal 8, 5, 5, 4, 1, 9; GSL's rk4 takes two half steps "
                    "h/2 per step h, 12 evaluations, and returns their "
                    "result; rkf45 and rkck propagate their fifth-order "
                    "solution); MPFR, against the mean step: mp-gauss %.2f, "
                    "mp-gbs %.2f (nominal 8, 10).  ",
                 atof(fig_cap_prov(c, "slope_mp-gauss")),
                 atof(fig_cap_prov(c, "slope_mp-gbs")));
  if (c->rc != AF_OK) return c->rc;
  /* Smallest error of each kind and its cost. */
  static const struct { double id; int fixed; const char *name; } kinds[] = {
      {0, 0, "adaptive rk8pd"}, {6, 0, "adaptive vern9"},
      {1, 0, "adaptive rkf45"}, {3, 0, "adaptive rkck"},
      {4, 0, "msadams"}, {5, 1, "the layer map"}, {10, 0, "mp-gauss"},
      {11, 0, "mp-gbs"}};
  fig_cap_printf(c, "Smallest error of each:");
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    double best = INFINITY, ne = NAN, st = NAN, tm = NAN;
    for (size_t r = 0; r < t->nrow; r++)
      if (fig_cap_at(c, r, cm) == kinds[k].id &&
          fig_cap_at(c, r, cfx) == kinds[k].fixed &&
          fig_cap_at(c, r, ce) < best) {
        best = fig_cap_at(c, r, ce);
        ne = fig_cap_at(c, r, cn);
        st = fig_cap_at(c, r, cs);
        tm = fig_cap_at(c, r, ctm);
      }
    fig_cap_printf(c, "%s %s %s (%s steps, %s evaluations, %s s CPU)",
                   k ? ";" : "", kinds[k].name, fig_num(b[0], best, 2),
                   fig_num(b[1], st, 3), fig_num(b[2], ne, 3),
                   fig_num(b[3], tm, 2));
  }
  fig_cap_printf(c, ".\n");
  return c->rc;
}
