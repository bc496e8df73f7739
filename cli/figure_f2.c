/* figure_f2.c -- `attnflow figure`, F2: random weights, the layer maps of
 * every scheme with Kaiming-random Q, K, V per layer, and its caption. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"

/* Mean over tokens of the angle between theta_j in states a and b
 * (2 asin(|u - v|/2) of the unit vectors: accurate for small angles). */
static double fig_mean_angle(const double *ya, const double *yb, size_t n,
                             size_t d) {
  double sum = 0;
  for (size_t j = 0; j < n; j++)
    sum += 2 * asin(fmin(1.0, fig_dir_dist(ya + j * d, yb + j * d, d) / 2));
  return sum / (double)n;
}

/* The random-start experiment: the layer maps (S7, h = 1) of every scheme
 * with Kaiming-random Q, K, V drawn per layer, from two starts with the
 * same directions: (u) tokens at the unit scale of T4.1 (r_j = 1), the
 * setting of the theory; (g) raw Gaussian tokens, r_j = |x_j| ~ sqrt(d),
 * the "sqrt(d) convention" of a LayerNorm output.  Mix-LN runs Post-LN for
 * the first quarter of the layers (tau = L h / 4), as the original
 * Mix-LN. */
int fig_f2(fig_table *T, const fig_cfg *c) {
  const size_t d = c->quick ? 64 : 512, n = c->quick ? 32 : 128;
  /* seeds seed .. seed + ns - 1: weights and starts drawn per seed */
  const size_t ns = c->systems ? c->systems : 8;
  const size_t L = c->quick ? 8 : 64;
  const double beta = sqrt((double)d), h = 1;
  enum { ST_U, ST_G, ST_N };
  static const char *const stn[ST_N] = {"u", "g"};
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.method = AF_METHOD_LAYERS;
  o.h = h;
  size_t nt;
  double *times = fig_linear_times(&nt, (double)L * h, h);
  size_t ss = af_state_size(n, d);
  double *y0[ST_N] = {malloc(ss * sizeof(double)), malloc(ss * sizeof(double))};
  double *y = malloc(ss * sizeof *y);
  double *obs = malloc((L + 1) * AF_OBS_COUNT * sizeof *obs);
  double *st = malloc((L + 1) * ss * sizeof *st);
  af_weights *wts = af_weights_alloc(d, L, h);
  int rc = (times && y0[ST_U] && y0[ST_G] && y && obs && st && wts)
               ? AF_OK : AF_ENOMEM;
  size_t line;
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  m.w = wts;
  m.tau = (double)L * h / 4;
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "d", d);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "beta", beta);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "layers", L);
  static const char *const notes[][2] = {
      {"weights", "Kaiming normal N(0, 1/d) Q, K, V per layer "
                  "(af_weights_kaiming), layer_dt = h, drawn per seed "
                  "(seeds seed .. seed + seeds - 1), the same for both "
                  "starts and every scheme of a seed"},
      {"init", "u: uniform (Gaussian, normalized), r_j = 1 (unit "
               "scale of T4.1); g: gaussian, r_j = |x_j| (sqrt(d) "
               "convention); the same directions"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seed", c->seed);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seeds", ns);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", m.alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha_decay", m.alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tau", m.tau);
  if (rc == AF_OK) rc = fig_prov_integ(T, "", &o);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "layer l (t = l h); per start X (u, g) and scheme "
                         "S after l layers, each the mean over the seeds "
                         "with *lo_/*hi_ its smallest and largest value "
                         "over the seeds (the band): gap_X_S = mean over "
                         "pairs of 1 - cos (gap_mean), move_X_S = mean over "
                         "tokens of the angle (rad) moved by layer l (NaN "
                         "at l = 0), r_X_S = mean radius");
  long cl = fig_col(T, "layer");
  /* [0] mean, [1] lowest, [2] highest over the seeds */
  long cg[3][ST_N][AF_SCHEME_COUNT], cm[3][ST_N][AF_SCHEME_COUNT],
      cr[3][ST_N][AF_SCHEME_COUNT];
  static const char *const pre[3] = {"", "lo_", "hi_"};
  for (int v = 0; v < 3; v++)
    for (int x = 0; x < ST_N; x++)
      for (int s = 0; s < AF_SCHEME_COUNT; s++) {
        cg[v][x][s] = fig_col(T, "%sgap_%s_%s", pre[v], stn[x], fig_scheme_name(s));
        cm[v][x][s] = fig_col(T, "%smove_%s_%s", pre[v], stn[x], fig_scheme_name(s));
        cr[v][x][s] = fig_col(T, "%sr_%s_%s", pre[v], stn[x], fig_scheme_name(s));
        if (cr[v][x][s] < 0) rc = AF_ENOMEM;
      }
  if (cl < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nt);
  for (size_t k = 0; k < nt && rc == AF_OK; k++) *fig_at(T, k, cl) = times[k] / h;
  for (size_t k = 0; k < nt && rc == AF_OK; k++)
    for (int v = 0; v < 3; v++)
      for (int x = 0; x < ST_N; x++)
        for (int s = 0; s < AF_SCHEME_COUNT; s++) {
          double init = v == 0 ? 0 : v == 1 ? INFINITY : -INFINITY;
          *fig_at(T, k, cg[v][x][s]) = init;
          *fig_at(T, k, cr[v][x][s]) = init;
          *fig_at(T, k, cm[v][x][s]) = k > 0 ? init : NAN;
        }
  for (size_t q = 0; q < ns && rc == AF_OK; q++) {
    fig_note(c, "seed %zu of %zu: drawing %zu layers of Kaiming weights",
             q + 1, ns, L);
    rc = af_weights_kaiming(wts, c->seed + q);
    if (rc == AF_OK)
      rc = af_init_state(y0[ST_G], &line, "gaussian", n, d, NAN, c->seed + q);
    if (rc == AF_OK)
      rc = af_init_state(y0[ST_U], &line, "uniform", n, d, 1.0, c->seed + q);
    for (int x = 0; x < ST_N && rc == AF_OK; x++)
      for (int s = 0; s < AF_SCHEME_COUNT && rc == AF_OK; s++) {
        fig_note(c, "seed %zu, start %s: layers of %s", q + 1, stn[x],
                 fig_scheme_name(s));
        m.scheme = (af_scheme_id)s;
        memcpy(y, y0[x], ss * sizeof *y);
        rc = fig_run(obs, st, y, times, nt, &m, &o, 0.9999);
        for (size_t k = 0; k < nt && rc == AF_OK; k++) {
          double val[3] = {obs[k * AF_OBS_COUNT + AF_OBS_gap_mean],
                           obs[k * AF_OBS_COUNT + AF_OBS_r_mean],
                           k > 0 ? fig_mean_angle(st + k * ss,
                                                  st + (k - 1) * ss, n, d)
                                 : NAN};
          long *col[3] = {cg[0][x], cr[0][x], cm[0][x]};
          long *clo[3] = {cg[1][x], cr[1][x], cm[1][x]};
          long *chi[3] = {cg[2][x], cr[2][x], cm[2][x]};
          for (int i = 0; i < 3; i++) {
            if (i == 2 && k == 0) continue;
            *fig_at(T, k, col[i][s]) += val[i] / (double)ns;
            double *lo = fig_at(T, k, clo[i][s]), *hi = fig_at(T, k, chi[i][s]);
            *lo = fmin(*lo, val[i]);
            *hi = fmax(*hi, val[i]);
          }
        }
      }
  }
  fig_note_done(c);
  af_weights_free(wts);
  FIG_FREE(times, y0[ST_U], y0[ST_G], y, obs, st);
  return rc;
}

/* Caption of F2 (means over the seeds): per scheme and start, 1 - cos
 * after L/4 and L layers (and its range over the seeds at L),
 * the angle moved by the first and the last layer, the radius growth. */
int fig_cap_f2(fig_cap *c) {
  const fig_table *t = c->t;
  static const char *const stn[2] = {"u", "g"};
  if (t->nrow < 3) return AF_EPARSE;
  size_t L = t->nrow - 1, q = L / 4;
  char b[8][48];
  const char *seeds = fig_cap_prov(c, "seeds");
  if (c->rc != AF_OK) return c->rc;
  fig_cap_printf(c, "Means over %s seeds (weights and starts drawn per "
                    "seed), the range over the seeds in brackets.\n\n"
                    "| scheme | stream, update | 1 − cos, layer %zu | 1 − cos, layer %zu "
                    "| angle moved by layer 1 | by layer %zu | r(0) → r(%zu) "
                    "|\n|---|---|---|---|---|---|---|\n",
                 seeds, q, L, L, L);
  double mv[2][AF_SCHEME_COUNT];
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    for (int x = 0; x < 2; x++) {
      const char *sn = fig_scheme_name(s);
      long cg = fig_cap_col(c, "gap_%s_%s", stn[x], sn);
      long cgl = fig_cap_col(c, "lo_gap_%s_%s", stn[x], sn);
      long cgh = fig_cap_col(c, "hi_gap_%s_%s", stn[x], sn);
      long cm = fig_cap_col(c, "move_%s_%s", stn[x], sn);
      long cr = fig_cap_col(c, "r_%s_%s", stn[x], sn);
      if (c->rc != AF_OK) return c->rc;
      mv[x][s] = fig_cap_at(c, 1, cm);
      fig_cap_printf(c, "| %s | %s | %s | %s [%s, %s] | %s | %s | %s → %s |\n",
                     af_scheme_get((af_scheme_id)s)->title,
                     x == 0 ? "unit, unit" : "√d, unit", fig_num(b[0], fig_cap_at(c, q, cg), 2),
                     fig_num(b[1], fig_cap_at(c, L, cg), 2),
                     fig_num(b[6], fig_cap_at(c, L, cgl), 2),
                     fig_num(b[7], fig_cap_at(c, L, cgh), 2),
                     fig_num(b[2], mv[x][s], 2),
                     fig_num(b[3], fig_cap_at(c, L, cm), 2),
                     fig_num(b[4], fig_cap_at(c, 0, cr), 4),
                     fig_num(b[5], fig_cap_at(c, L, cr), 4));
    }
  fig_cap_printf(c, "\nIn the first layer Peri-LN moves the tokens %s times "
                    "as far as Post-LN at the unit scale (%s against %s rad) "
                    "and %s times as far with a √d stream and a unit update "
                    "(%s against %s rad).\n",
                 fig_num(b[0], mv[0][AF_PERI_LN] / mv[0][AF_POST_LN], 2),
                 fig_num(b[1], mv[0][AF_PERI_LN], 2),
                 fig_num(b[2], mv[0][AF_POST_LN], 2),
                 fig_num(b[3], mv[1][AF_PERI_LN] / mv[1][AF_POST_LN], 2),
                 fig_num(b[4], mv[1][AF_PERI_LN], 2),
                 fig_num(b[5], mv[1][AF_POST_LN], 2));
  return c->rc;
}
