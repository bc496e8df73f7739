/* figure_c2.c -- `attnflow figure`, case C2: the metastable staircase on
 * the circle (clusters, energy, angles), and its caption. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"

/* The fixed separated start of case C2, the angles (rad) of the public
 * "dynamic metastability" particles demo: two near 0, one near 1.82, two
 * near pi. */
static const double fig_c2_angles[5] = {0.062, 0.214, 1.819, 2.911, 3.188};

int fig_c2(fig_table *T, const fig_cfg *c) {
  const size_t n = 5, d = 2;
  const double beta = 4, t_end = c->quick ? 40 : 400, dt = 0.5;
  enum { R_LAY, R_ADAPT, R_REF, R_N };
  static const char *const rname[R_N] = {"layers_h0.1", "rk8pd", "ref"};
  af_integ_opts o[R_N];
  fig_runs_lay_adapt_ref(o); /* R_LAY, R_ADAPT, R_REF */
  size_t nt;
  double *times = fig_linear_times(&nt, t_end, dt);
  if (times == NULL) return AF_ENOMEM;
  size_t ss = af_state_size(n, d);
  double y0[5 * 2 + 5];
  for (size_t j = 0; j < n; j++) {
    y0[j * d] = cos(fig_c2_angles[j]);
    y0[j * d + 1] = sin(fig_c2_angles[j]);
    y0[n * d + j] = 1;
  }
  double *obs[R_N] = {0}, *st[R_N] = {0};
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  const double ccos = 0.9999;
  int rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "post-ln (SA)");
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "d", d);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "beta", beta);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "init",
                         "angles %.17g,%.17g,%.17g,%.17g,%.17g rad, r = 1",
                         fig_c2_angles[0], fig_c2_angles[1], fig_c2_angles[2],
                         fig_c2_angles[3], fig_c2_angles[4]);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "seed", "unused (fixed start)");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "cluster_cos", ccos);
  if (rc == AF_OK) rc = fig_prov_grid(T, t_end, dt);
  if (rc == AF_OK) rc = fig_prov_runs(T, rname, o, R_N);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "clusters_R (union-find at cos > cluster_cos), "
                         "energy_R = sum_jk e^{beta <th_j,th_k>} / n^2, "
                         "angle<j>_R = angle of token j in [-pi/2, 3pi/2)");
  if (rc == AF_OK)
    rc = fig_runs(obs, st, rname, o, R_N, y0, times, nt, &m, ccos, c);
  long ct = fig_col(T, "t"), cc[R_N], ce[R_N], ca[R_N][5];
  for (int k = 0; k < R_N; k++) {
    cc[k] = fig_col(T, "clusters_%s", rname[k]);
    ce[k] = fig_col(T, "energy_%s", rname[k]);
    for (size_t j = 0; j < n; j++)
      ca[k][j] = fig_col(T, "angle%zu_%s", j + 1, rname[k]);
  }
  if (ct < 0 || ca[R_N - 1][n - 1] < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nt);
  for (size_t i = 0; i < nt && rc == AF_OK; i++) {
    *fig_at(T, i, ct) = times[i];
    for (int k = 0; k < R_N; k++) {
      const double *ob = obs[k] + i * AF_OBS_COUNT, *yy = st[k] + i * ss;
      *fig_at(T, i, cc[k]) = ob[AF_OBS_clusters];
      *fig_at(T, i, ce[k]) = ob[AF_OBS_energy];
      for (size_t j = 0; j < n; j++) {
        /* In [-pi/2, 3 pi/2): the cluster near pi does not wrap. */
        double a = atan2(yy[j * d + 1], yy[j * d]);
        *fig_at(T, i, ca[k][j]) = a < -M_PI / 2 ? a + 2 * M_PI : a;
      }
    }
  }
  fig_runs_free(obs, st, R_N);
  free(times);
  return rc;
}

/* Caption of C2: the merge times of each run (first output time with
 * fewer clusters), the two-cluster plateau and the energy errors. */
int fig_cap_c2(fig_cap *c) {
  enum { NR = 3 };
  static const char *const rn[NR] = {"ref", "rk8pd", "layers_h0.1"};
  char rt[NR][96], bt[48];
  snprintf(rt[0], sizeof rt[0], "the reference (rk8pd, rtol %s)",
           fig_num(bt, atof(fig_cap_prov(c, "ref_rtol")), 2));
  snprintf(rt[1], sizeof rt[1], "adaptive rk8pd (rtol %s)",
           fig_num(bt, atof(fig_cap_prov(c, "rk8pd_rtol")), 2));
  snprintf(rt[2], sizeof rt[2], "the public step h = %s",
           fig_num(bt, atof(fig_cap_prov(c, "layers_h0.1_h")), 2));
  const fig_table *t = c->t;
  long ct = fig_cap_col(c, "t"), cc[NR], ce[NR];
  for (int r = 0; r < NR; r++) {
    cc[r] = fig_cap_col(c, "clusters_%s", rn[r]);
    ce[r] = fig_cap_col(c, "energy_%s", rn[r]);
  }
  if (c->rc != AF_OK || t->nrow < 2) return AF_EPARSE;
  char b1[48], b2[48], b3[48];
  double tlast[NR], tplat[NR];
  fig_cap_printf(c, "Merges (the first output time, every %s, with fewer "
                    "clusters):",
                 fig_num(b1, fig_cap_at(c, 1, ct) - fig_cap_at(c, 0, ct), 3));
  for (int r = 0; r < NR; r++) {
    fig_cap_printf(c, "%s %s", r ? ";" : "", rt[r]);
    tlast[r] = tplat[r] = NAN;
    int first = 1;
    for (size_t i = 1; i < t->nrow; i++) {
      double a = fig_cap_at(c, i - 1, cc[r]), b = fig_cap_at(c, i, cc[r]);
      if (!(b < a)) continue;
      double ti = fig_cap_at(c, i, ct);
      fig_cap_printf(c, "%s %g → %g at t = %s", first ? "" : ",", a, b,
                     fig_num(b1, ti, 4));
      first = 0;
      if (b == 2) tplat[r] = ti;
      if (b == 1) tlast[r] = ti;
    }
    if (first) fig_cap_printf(c, " none");
    fig_cap_printf(c, " (%g at t = %s)", fig_cap_at(c, t->nrow - 1, cc[r]),
                   fig_num(b2, fig_cap_at(c, t->nrow - 1, ct), 4));
  }
  fig_cap_printf(c, ".  ");
  if (!isnan(tlast[0]) && !isnan(tplat[0]))
    fig_cap_printf(c, "The two clusters of the flow persist from t = %s to "
                      "t = %s (%s time units) before the last merge; ",
                   fig_num(b1, tplat[0], 4), fig_num(b2, tlast[0], 4),
                   fig_num(b3, tlast[0] - tplat[0], 4));
  else
    fig_cap_printf(c, "The flow does not reach one cluster by the horizon; ");
  if (!isnan(tlast[0]) && !isnan(tlast[2]))
    fig_cap_printf(c, "the public step h = 0.1 merges last at t = %s, %s "
                      "later (%s %%), ",
                   fig_num(b1, tlast[2], 4), fig_num(b2, tlast[2] - tlast[0], 3),
                   fig_num(b3, 100 * (tlast[2] - tlast[0]) / tlast[0], 2));
  double emax[NR] = {0, 0, 0}, emin[NR] = {INFINITY, INFINITY, INFINITY};
  for (size_t i = 1; i < t->nrow; i++)
    for (int r = 1; r < NR; r++) {
      double e = fabs(fig_cap_at(c, i, ce[r]) - fig_cap_at(c, i, ce[0]));
      emax[r] = fmax(emax[r], e);
      if (e > 0) emin[r] = fmin(emin[r], e);
    }
  fig_cap_printf(c, "and its energy differs from the reference's by up to %s "
                    "(rk8pd: %s to %s).\n",
                 fig_num(b1, emax[2], 2), fig_num(b2, emin[1], 2),
                 fig_num(b3, emax[1], 2));
  return c->rc;
}
