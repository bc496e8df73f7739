/* figure_c1.c -- `attnflow figure`, case C1: the discretization panel
 * (public step, the Post-LN layer map at h = 0.1, vs h = 0.01 vs adaptive
 * rk8pd vs a tight reference) and the paths on S^2 of the six schemes from
 * one start, with their captions. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"

/* Largest |theta_j^a - theta_j^b| over tokens (directions normalized). */
static double fig_max_dist(const double *ya, const double *yb, size_t n,
                           size_t d) {
  double worst = 0;
  for (size_t j = 0; j < n; j++)
    worst = fmax(worst, fig_dir_dist(ya + j * d, yb + j * d, d));
  return worst;
}

int fig_c1(fig_table *T, const fig_cfg *c) {
  const size_t n = c->quick ? 16 : 64, d = 3;
  const double beta = 1, t_end = c->quick ? 3 : 15, dt = 0.1;
  enum { R_H1, R_H2, R_ADAPT, R_REF, R_N };
  static const char *const rname[R_N] = {"layers_h0.1", "layers_h0.01",
                                         "rk8pd", "ref"};
  af_integ_opts o[R_N];
  for (int k = 0; k < R_N; k++) af_integ_opts_init(&o[k]);
  o[R_H1].method = AF_METHOD_LAYERS;
  o[R_H1].h = 0.1;
  o[R_H2].method = AF_METHOD_LAYERS;
  o[R_H2].h = 0.01;
  o[R_ADAPT].method = AF_METHOD_RK8PD; /* library defaults 1e-10, 1e-12 */
  /* Reference: rk8pd with fixed steps h = 0.005 (global error ~ h^8, far
   * below the other runs' differences; its own step sequence, unlike a
   * tighter adaptive run, which here takes the same steps as rk8pd).  An
   * MPFR reference (mp-gauss, 128 bits) took 20 s already for n = 16,
   * t <= 3, too slow for this figure. */
  o[R_REF].method = AF_METHOD_RK8PD;
  o[R_REF].fixed = 1;
  o[R_REF].h = 0.005;
  size_t nt;
  double *times = fig_linear_times(&nt, t_end, dt);
  if (times == NULL) return AF_ENOMEM;
  size_t ss = af_state_size(n, d);
  double *y0 = malloc(ss * sizeof *y0);
  double *obs[R_N] = {0}, *st[R_N] = {0};
  int rc = y0 ? AF_OK : AF_ENOMEM;
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  size_t line;
  if (rc == AF_OK) rc = af_init_state(y0, &line, "uniform", n, d, 1.0, c->seed);

  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "post-ln");
  if (rc == AF_OK)
    rc = fig_prov_case(T, c, n, d, beta, "uniform (Gaussian, normalized)");
  if (rc == AF_OK) rc = fig_prov_grid(T, t_end, dt);
  if (rc == AF_OK) rc = fig_prov_runs(T, rname, o, R_N);
  static const char *const notes[][2] = {
      {"ref_fixed_steps", "yes"},
      {"columns", "cos_R = mean pairwise cosine of run R; dcos_R = "
                  "cos_R - cos_ref; dx_R = max_j |theta_j^R - "
                  "theta_j^ref|"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  if (rc == AF_OK)
    rc = fig_runs(obs, st, rname, o, R_N, y0, times, nt, &m, 0.9999, c);
  long ct = fig_col(T, "t"), cc[R_N], cd[R_N], cx[R_N];
  for (int k = 0; k < R_N; k++) cc[k] = fig_col(T, "cos_%s", rname[k]);
  for (int k = 0; k < R_REF; k++) cd[k] = fig_col(T, "dcos_%s", rname[k]);
  for (int k = 0; k < R_REF; k++) cx[k] = fig_col(T, "dx_%s", rname[k]);
  if (ct < 0 || cx[R_REF - 1] < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nt);
  for (size_t i = 0; i < nt && rc == AF_OK; i++) {
    *fig_at(T, i, ct) = times[i];
    double ref = obs[R_REF][i * AF_OBS_COUNT + AF_OBS_cos_mean];
    for (int k = 0; k < R_N; k++)
      *fig_at(T, i, cc[k]) = obs[k][i * AF_OBS_COUNT + AF_OBS_cos_mean];
    for (int k = 0; k < R_REF; k++) {
      *fig_at(T, i, cd[k]) = obs[k][i * AF_OBS_COUNT + AF_OBS_cos_mean] - ref;
      *fig_at(T, i, cx[k]) =
          fig_max_dist(st[k] + i * ss, st[R_REF] + i * ss, n, d);
    }
  }
  fig_runs_free(obs, st, R_N);
  FIG_FREE(y0, times);
  return rc;
}

/* ------------------------------------------------------------ C1 paths */

/* Case C1 itself: the paths of the n = 64 tokens on S^2 under each of the
 * six schemes from one start, for an orthographic view.  View axes: e3 is
 * the final mean direction of the Post-LN run (where its cluster forms),
 * e1, e2 complete it to a right-handed orthonormal basis; (u, v) are the
 * coordinates in the picture plane and w = <theta, e3> the depth (w >= 0
 * faces the viewer). */
int fig_c1traj(fig_table *T, const fig_cfg *c) {
  const size_t n = c->quick ? 8 : 64, d = 3;
  const double beta = 1, t_end = c->quick ? 2 : 15, dt = 0.1;
  af_integ_opts o;
  af_integ_opts_init(&o); /* rk8pd, rtol 1e-10, atol 1e-12 */
  size_t nt;
  double *times = fig_linear_times(&nt, t_end, dt);
  size_t ss = af_state_size(n, d);
  double *y0 = malloc(ss * sizeof *y0), *y = malloc(ss * sizeof *y);
  double *st[AF_SCHEME_COUNT] = {0};
  int rc = (times && y0 && y) ? AF_OK : AF_ENOMEM;
  for (int s = 0; s < AF_SCHEME_COUNT && rc == AF_OK; s++)
    if ((st[s] = malloc(nt * ss * sizeof *st[s])) == NULL) rc = AF_ENOMEM;
  size_t line;
  if (rc == AF_OK) rc = af_init_state(y0, &line, "uniform", n, d, 1.0, c->seed);
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "schemes", "all six");
  if (rc == AF_OK)
    rc = fig_prov_case(T, c, n, d, beta, "uniform (Gaussian, normalized), r = 1");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", m.alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha_decay", m.alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tau", m.tau);
  if (rc == AF_OK) rc = fig_prov_grid(T, t_end, dt);
  if (rc == AF_OK) rc = fig_prov_integ(T, "", &o);
  for (int s = 0; s < AF_SCHEME_COUNT && rc == AF_OK; s++) {
    fig_note(c, "paths of %s", fig_scheme_name(s));
    m.scheme = (af_scheme_id)s;
    memcpy(y, y0, ss * sizeof *y);
    rc = fig_run(NULL, st[s], y, times, nt, &m, &o, 0.9999);
  }
  fig_note_done(c);
  /* View basis from the final Post-LN mean direction. */
  double e[3][3] = {{0}};
  if (rc == AF_OK) {
    const double *yf = st[AF_POST_LN] + (nt - 1) * ss;
    double q = 0;
    for (size_t j = 0; j < n; j++) {
      double nj = 0;
      for (size_t i = 0; i < d; i++) nj += yf[j * d + i] * yf[j * d + i];
      for (size_t i = 0; i < d; i++) e[2][i] += yf[j * d + i] / sqrt(nj);
    }
    for (size_t i = 0; i < d; i++) q += e[2][i] * e[2][i];
    if (!(q > 0)) rc = AF_EZERONORM;
    for (size_t i = 0; i < d && rc == AF_OK; i++) e[2][i] /= sqrt(q);
    /* e1: the coordinate axis least aligned with e3, orthogonalized. */
    size_t a = 0;
    for (size_t i = 1; i < d; i++)
      if (fabs(e[2][i]) < fabs(e[2][a])) a = i;
    double p = e[2][a];
    q = 0;
    for (size_t i = 0; i < d; i++) {
      e[0][i] = (i == a ? 1.0 : 0.0) - p * e[2][i];
      q += e[0][i] * e[0][i];
    }
    for (size_t i = 0; i < d; i++) e[0][i] /= sqrt(q);
    e[1][0] = e[2][1] * e[0][2] - e[2][2] * e[0][1]; /* e2 = e3 x e1 */
    e[1][1] = e[2][2] * e[0][0] - e[2][0] * e[0][2];
    e[1][2] = e[2][0] * e[0][1] - e[2][1] * e[0][0];
  }
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "view",
                         "e3 = final Post-LN mean direction (%.6f, %.6f, "
                         "%.6f), e1 = (%.6f, %.6f, %.6f), e2 = e3 x e1",
                         e[2][0], e[2][1], e[2][2], e[0][0], e[0][1], e[0][2]);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "token j, t; per scheme S: u_S, v_S, w_S = "
                         "coordinates of theta_j/|theta_j| on e1, e2, e3 (w "
                         ">= 0: front hemisphere; x = u e1 + v e2 + w e3); "
                         "rows by token, then time");
  /* I2 (time change): LN-Scaling at t_end is Post-LN at u = 2(sqrt(t_end
   * + 1) - 1); compared when u is an output time (u = 6 for t_end = 15). */
  double u = 2 * (sqrt(t_end + 1) - 1);
  for (size_t k = 0; k < nt && rc == AF_OK; k++)
    if (fabs(times[k] - u) < 1e-9) {
      double dist = fig_max_dist(st[AF_LN_SCALING] + (nt - 1) * ss,
                                 st[AF_POST_LN] + k * ss, n, d);
      rc = af_prov_add_fmt(&T->prov, "check_I2",
                           "max_j |theta_j^ln-scaling(%g) - "
                           "theta_j^post-ln(%g)| = %.3g",
                           t_end, times[k], dist);
    }
  long cj = fig_col(T, "token"), ct = fig_col(T, "t"), cx[AF_SCHEME_COUNT][3];
  static const char *const ax[3] = {"u", "v", "w"};
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    for (int k = 0; k < 3; k++)
      if ((cx[s][k] = fig_col(T, "%s_%s", ax[k], fig_scheme_name(s))) < 0)
        rc = AF_ENOMEM;
  if (cj < 0 || ct < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, n * nt);
  for (size_t j = 0; j < n && rc == AF_OK; j++)
    for (size_t i = 0; i < nt; i++) {
      size_t row = j * nt + i;
      *fig_at(T, row, cj) = (double)j;
      *fig_at(T, row, ct) = times[i];
      for (int s = 0; s < AF_SCHEME_COUNT; s++) {
        const double *th = st[s] + i * ss + j * d;
        double nn = sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]);
        double x[3] = {th[0] / nn, th[1] / nn, th[2] / nn};
        for (int k = 0; k < 3; k++)
          *fig_at(T, row, cx[s][k]) =
              x[0] * e[k][0] + x[1] * e[k][1] + x[2] * e[k][2];
      }
    }
  for (int s = 0; s < AF_SCHEME_COUNT; s++) free(st[s]);
  FIG_FREE(times, y0, y);
  return rc;
}

/* Caption of C1: the largest errors of the public step against the
 * reference, the error ratio h = 0.1 over h = 0.01, rk8pd's error. */
int fig_cap_c1(fig_cap *c) {
  const fig_table *t = c->t;
  long ct = fig_cap_col(c, "t"), d1 = fig_cap_col(c, "dcos_layers_h0.1");
  long d2 = fig_cap_col(c, "dcos_layers_h0.01"), x1 = fig_cap_col(c, "dx_layers_h0.1");
  long x2 = fig_cap_col(c, "dx_layers_h0.01"), da = fig_cap_col(c, "dcos_rk8pd");
  long xa = fig_cap_col(c, "dx_rk8pd");
  if (c->rc != AF_OK) return c->rc;
  double m1 = 0, tm1 = 0, mx1 = 0, ma = 0, mxa = 0, rlo = INFINITY, rhi = 0,
         tsplit = NAN;
  for (size_t i = 1; i < t->nrow; i++) {
    double a = fabs(fig_cap_at(c, i, d1)), ti = fig_cap_at(c, i, ct);
    if (a > m1) {
      m1 = a;
      tm1 = ti;
    }
    mx1 = fmax(mx1, fig_cap_at(c, i, x1));
    ma = fmax(ma, fabs(fig_cap_at(c, i, da)));
    mxa = fmax(mxa, fig_cap_at(c, i, xa));
    double r = fig_cap_at(c, i, x1) / fig_cap_at(c, i, x2);
    rlo = fmin(rlo, r);
    rhi = fmax(rhi, r);
    double rc2 = fabs(fig_cap_at(c, i, d1) / fig_cap_at(c, i, d2));
    if (isnan(tsplit) && rc2 > 11) tsplit = ti;
  }
  char b[7][48];
  fig_cap_printf(c, "The public step delays clustering visibly (mean cosine "
                    "off by up to %s at t = %s, tokens off by up to %s); the "
                    "trajectory error falls ten-fold with h (ratio %s to %s in "
                    "(d): first order, as S7 is a consistent one-step "
                    "discretization of S1), while rk8pd agrees with the "
                    "reference to %s in the mean cosine and %s in the "
                    "tokens.",
                 fig_num(b[0], m1, 2), fig_num(b[1], tm1, 3),
                 fig_num(b[2], mx1, 2), fig_num(b[3], rlo, 3),
                 fig_num(b[4], rhi, 3), fig_num(b[5], ma, 2),
                 fig_num(b[6], mxa, 2));
  if (!isnan(tsplit))
    fig_cap_printf(c, "  The mean-cosine ratio in (d) drifts above 11 from "
                      "t = %s, where both errors decay exponentially at rates "
                      "that themselves depend on h.",
                   fig_num(b[0], tsplit, 3));
  fig_cap_printf(c, "\n");
  return c->rc;
}

/* Mean pairwise cosine of scheme column triple cx at time index i of the
 * C1 paths table (rows by token, then time; nt rows per token). */
static double fig_c1traj_cos(const fig_cap *c, const long *cx, size_t n,
                             size_t nt, size_t i) {
  double sum = 0;
  for (size_t a = 0; a < n; a++)
    for (size_t b = a + 1; b < n; b++) {
      double q = 0;
      for (int k = 0; k < 3; k++)
        q += fig_cap_at(c, a * nt + i, cx[k]) * fig_cap_at(c, b * nt + i, cx[k]);
      sum += q;
    }
  return sum / ((double)n * (double)(n - 1) / 2);
}

/* Caption of the C1 paths: when Post-LN and nGPT collapse, the mean
 * cosines at the end, and identity I2 measured on the coordinates. */
int fig_cap_c1traj(fig_cap *c) {
  const fig_table *t = c->t;
  long cj = fig_cap_col(c, "token"), ct = fig_cap_col(c, "t");
  long cx[AF_SCHEME_COUNT][3];
  static const char *const ax[3] = {"u", "v", "w"};
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    for (int k = 0; k < 3; k++)
      cx[s][k] = fig_cap_col(c, "%s_%s", ax[k], fig_scheme_name(s));
  if (c->rc != AF_OK || t->nrow == 0) return AF_EPARSE;
  size_t nt = 0;
  while (nt < t->nrow && fig_cap_at(c, nt, cj) == 0) nt++;
  size_t n = t->nrow / nt;
  if (n < 2 || n * nt != t->nrow) return AF_EPARSE;
  double tend = fig_cap_at(c, nt - 1, ct), fin[AF_SCHEME_COUNT],
         t999[AF_SCHEME_COUNT];
  for (int s = 0; s < AF_SCHEME_COUNT; s++) {
    t999[s] = NAN;
    for (size_t i = 0; i < nt && isnan(t999[s]); i++)
      if (fig_c1traj_cos(c, cx[s], n, nt, i) > 0.999)
        t999[s] = fig_cap_at(c, i, ct);
    fin[s] = fig_c1traj_cos(c, cx[s], n, nt, nt - 1);
  }
  /* I2: LN-Scaling at tend against Post-LN at u = 2(sqrt(tend+1) - 1). */
  double u = 2 * (sqrt(tend + 1) - 1), di2 = NAN;
  for (size_t i = 0; i < nt; i++)
    if (fabs(fig_cap_at(c, i, ct) - u) < 1e-9) {
      di2 = 0;
      for (size_t j = 0; j < n; j++) {
        double q = 0;
        for (int k = 0; k < 3; k++) {
          double e = fig_cap_at(c, j * nt + nt - 1, cx[AF_LN_SCALING][k]) -
                     fig_cap_at(c, j * nt + i, cx[AF_POST_LN][k]);
          q += e * e;
        }
        di2 = fmax(di2, sqrt(q));
      }
    }
  char b[6][48];
  fig_cap_printf(c, "Post-LN and nGPT collapse to one point (mean cosine "
                    "above 0.999 from t = %s and t = %s; at t = %s, 1 − %s "
                    "and 1 − %s); Pre-, Mix-, Peri-LN and LN-Scaling move "
                    "along the same kind of paths but more slowly and are "
                    "still spread at t = %s (mean cosine %.2f, %.2f, %.2f, "
                    "%.2f), as T3.1 allows (clustering is asymptotic, its "
                    "rate depends on the scheme).  ",
                 fig_num(b[0], t999[AF_POST_LN], 3),
                 fig_num(b[1], t999[AF_NGPT], 3), fig_num(b[2], tend, 3),
                 fig_num(b[3], 1 - fin[AF_POST_LN], 1),
                 fig_num(b[4], 1 - fin[AF_NGPT], 1), b[2], fin[AF_PRE_LN],
                 fin[AF_MIX_LN], fin[AF_PERI_LN], fin[AF_LN_SCALING]);
  fig_cap_printf(c, "LN-Scaling follows exactly the Post-LN paths with the "
                    "clock u = 2(√(t+1) − 1) (identity I2): its tokens at "
                    "t = %s are the Post-LN tokens at u = %s, to %s (on the "
                    "view coordinates of the data).\n",
                 b[2], fig_num(b[5], u, 3), fig_num(b[0], di2, 2));
  return c->rc;
}
