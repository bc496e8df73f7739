/* figure_c5.c -- `attnflow figure`, case C5: beta*(t), the largest beta
 * with gamma(t) >= 1 - 10^-3, and its caption. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"
#include "theory.h"

/* Time at which the Post-LN (SA) scalar ODE reaches gap = w_star, by
 * solving on the grid 0, dt, ..., t_max and interpolating ln(gap)
 * linearly between the two grid points around the crossing; NaN if not
 * reached by t_max. */
static int fig_c5_ode_time(double *tc, size_t n, double beta, double w_star,
                           const double *times, size_t nt, double *gap) {
  af_t41_params p;
  af_t41_params_init(&p, n, beta, AF_POST_LN);
  int rc = af_t41_solve(NULL, gap, NULL, times, nt, &p);
  if (rc != AF_OK) return rc;
  *tc = NAN;
  for (size_t k = 1; k < nt; k++)
    if (gap[k] <= w_star) {
      double a = log(gap[k - 1]), b = log(gap[k]), l = log(w_star);
      *tc = times[k - 1] + (times[k] - times[k - 1]) * (a - l) / (a - b);
      break;
    }
  return AF_OK;
}

int fig_c5(fig_table *T, const fig_cfg *c) {
  static const size_t ns[] = {2, 8, 32, 128, 256}; /* 128: the source's */
  const size_t nn = sizeof ns / sizeof ns[0];
  const size_t nb = c->quick ? 10 : 50;
  const double b_lo = 0.1, b_hi = 9, w_star = 1e-3;
  /* The ODE is solved on a grid of step 0.01 past the plotted t <= 30. */
  const double t_max = c->quick ? 10 : 40, dt = 0.01;
  size_t nt;
  double *times = fig_linear_times(&nt, t_max, dt);
  double *gap = malloc((times ? nt : 1) * sizeof *gap);
  int rc = (times && gap) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "post-ln (SA)");
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "n", "2,8,32,128,256");
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "beta", "%zu values %g + (%g - %g) k/%zu",
                         nb, b_lo, b_hi, b_lo, nb - 1);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "threshold_gap", w_star);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "method",
                         "closed form T4.1d (af_t41_time_postln_gap); check: "
                         "T4.1 ODE (af_t41_solve, rk8pd in log gap) on a "
                         "grid, ln(gap) interpolated linearly");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "ode_grid_dt", dt);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "ode_t_max", t_max);
  static const char *const notes[][2] = {
      {"seed", "unused (deterministic)"},
      {"columns", "beta; tclosed_n<N>, tode_n<N>: time at which gamma "
                  "reaches 1 - threshold_gap from gamma(0) = 0 (NaN: "
                  "not by ode_t_max); beta*(t) is the staircase "
                  "(tclosed, beta)"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  long cb = fig_col(T, "beta"), cc[5], co[5];
  for (size_t i = 0; i < nn; i++) {
    cc[i] = fig_col(T, "tclosed_n%zu", ns[i]);
    co[i] = fig_col(T, "tode_n%zu", ns[i]);
  }
  if (cb < 0 || co[nn - 1] < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nb);
  for (size_t k = 0; k < nb && rc == AF_OK; k++) {
    double beta = b_lo + (b_hi - b_lo) * (double)k / (double)(nb - 1);
    fig_note(c, "beta %zu/%zu", k + 1, nb);
    *fig_at(T, k, cb) = beta;
    for (size_t i = 0; i < nn && rc == AF_OK; i++) {
      double tcl = NAN, tode = NAN;
      rc = af_t41_time_postln_gap(&tcl, w_star, ns[i], beta);
      if (rc == AF_OK)
        rc = fig_c5_ode_time(&tode, ns[i], beta, w_star, times, nt, gap);
      *fig_at(T, k, cc[i]) = tcl;
      *fig_at(T, k, co[i]) = tode;
    }
  }
  fig_note_done(c);
  FIG_FREE(times, gap);
  return rc;
}

/* Caption of C5: closed form against the ODE, the times at the ends of
 * the beta grid and beta*(t_plot) per n, where the curves cross. */
int fig_cap_c5(fig_cap *c) {
  const fig_table *t = c->t;
  const char *ns = fig_cap_prov(c, "n");
  long cb = fig_cap_col(c, "beta");
  if (c->rc != AF_OK || t->nrow < 2) return AF_EPARSE;
  const double tplot = 30;
  char list[128], b[6][48];
  snprintf(list, sizeof list, "%s", ns);
  long cc[16], co[16];
  size_t nn = 0, nval[16];
  for (char *sv = NULL, *p = strtok_r(list, ",", &sv); p && nn < 16;
       p = strtok_r(NULL, ",", &sv), nn++) {
    nval[nn] = (size_t)strtoul(p, NULL, 10);
    cc[nn] = fig_cap_col(c, "tclosed_n%zu", nval[nn]);
    co[nn] = fig_cap_col(c, "tode_n%zu", nval[nn]);
  }
  if (c->rc != AF_OK) return c->rc;
  double rel = 0;
  fig_cap_printf(c, "| n | T(β = %s) | T(β = %s) | β*(%g) |\n|---|---|---|---|\n",
                 fig_num(b[0], fig_cap_at(c, 0, cb), 3),
                 fig_num(b[1], fig_cap_at(c, t->nrow - 1, cb), 3), tplot);
  for (size_t i = 0; i < nn; i++) {
    double bstar = NAN;
    for (size_t r = 0; r < t->nrow; r++) {
      double tc = fig_cap_at(c, r, cc[i]), to = fig_cap_at(c, r, co[i]);
      if (!isnan(to)) rel = fmax(rel, fabs(to - tc) / tc);
      if (tc <= tplot) bstar = fig_cap_at(c, r, cb);
    }
    fig_cap_printf(c, "| %zu | %s | %s | %s |\n", nval[i],
                   fig_num(b[0], fig_cap_at(c, 0, cc[i]), 4),
                   fig_num(b[1], fig_cap_at(c, t->nrow - 1, cc[i]), 4),
                   fig_num(b[2], bstar, 3));
  }
  /* Crossings of consecutive n: first beta where the larger n is faster. */
  double xlo = INFINITY, xhi = -INFINITY;
  for (size_t i = 0; i + 1 < nn; i++)
    for (size_t r = 1; r < t->nrow; r++) {
      double d0 = fig_cap_at(c, r - 1, cc[i + 1]) - fig_cap_at(c, r - 1, cc[i]);
      double d1 = fig_cap_at(c, r, cc[i + 1]) - fig_cap_at(c, r, cc[i]);
      if (d0 > 0 && d1 <= 0) {
        xlo = fmin(xlo, fig_cap_at(c, r, cb));
        xhi = fmax(xhi, fig_cap_at(c, r, cb));
      }
    }
  fig_cap_printf(c, "\nClosed form and ODE agree to %s relative.  ",
                 fig_num(b[0], rel, 2));
  if (xlo <= xhi)
    fig_cap_printf(c, "For small β larger n is slower, for large β faster: "
                      "consecutive curves cross between β ≈ %s and %s.\n",
                   fig_num(b[0], xlo, 3), fig_num(b[1], xhi, 3));
  else
    fig_cap_printf(c, "No two consecutive curves cross on the grid.\n");
  return c->rc;
}
