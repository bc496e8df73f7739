/* figure_lc.c -- `attnflow figure lc`: the long-context transition of one
 * layer (theorems.md LC) per map, and its caption.
 *
 * n tokens with all pairwise cosines rho = 1/2, beta = gamma log n, one
 * layer (h = 1, layer 0): the output cosine of the exact finite-n formula
 * (theory/longctx.c, long double) at n = 10^2, 10^4, 10^8, 10^16 and its
 * n -> infinity limit (1 or the map's lower value, the transition value,
 * rho) against gamma, for the attention output alone (= nGPT at alpha h =
 * 1), the Post-LN family (Post-, Pre-, Mix-LN, LN-Scaling), Peri-LN and
 * nGPT at alpha = 1/4 (at alpha h = 1/2 nGPT's map is Peri-LN's
 * direction); and at n = 100 the simulated layer (af_layer_step
 * on x_i = sqrt(rho) e_0 + sqrt(1 - rho) e_i, d = n + 1) as a check.  The
 * transition is at gamma = 1/(1 - rho) = 2 for every map; only the values
 * on either side move.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "figure.h"
#include "longctx.h"

#define LC_FIG_RHO 0.5
#define LC_FIG_NSIM 100

typedef struct {
  const char *name;  /* column suffix */
  af_scheme_id lc;   /* map of theory/longctx.c */
  af_scheme_id sim;  /* scheme simulated (same map at layer 0) */
  double alpha;
} lc_map;

static const lc_map lc_maps[4] = {
    {"attn", AF_LC_ATTN, AF_NGPT, 1.0},
    {"post", AF_POST_LN, AF_POST_LN, 1.0},
    {"peri", AF_PERI_LN, AF_PERI_LN, 1.0},
    {"ngpt025", AF_NGPT, AF_NGPT, 0.25}};
static const double lc_logn[4] = {2, 4, 8, 16}; /* log10 n */

/* Output cosine of tokens 0 and 1 after one simulated layer at gamma. */
static int lc_fig_sim(double *cosv, const lc_map *mp, double gamma,
                      const double *y, double *yo, af_work *w)
{
  size_t n = LC_FIG_NSIM, d = n + 1;
  af_model m;
  af_model_init(&m, n, d, gamma * log((double) n), mp->sim);
  m.alpha = mp->alpha;
  int rc = af_layer_step(yo, y, 0, 1.0, &m, w);
  if (rc != AF_OK)
    return rc;
  double uv = 0, uu = 0, vv = 0;
  for (size_t k = 0; k < d; k++) {
    uv += yo[k] * yo[d + k];
    uu += yo[k] * yo[k];
    vv += yo[d + k] * yo[d + k];
  }
  *cosv = uv / sqrt(uu * vv);
  return AF_OK;
}

int fig_lc(fig_table *T, const fig_cfg *c)
{
  const double g_lo = 0.5, g_hi = 3.5, dg = c->quick ? 0.25 : 0.05;
  const size_t ng = (size_t) ((g_hi - g_lo) / dg + 0.5) + 1;
  const size_t n = LC_FIG_NSIM, d = n + 1, N = af_state_size(n, d);
  double *y = calloc(N, sizeof *y), *yo = malloc(N * sizeof *yo);
  af_work *w = af_work_alloc(n, d);
  int rc = (y && yo && w) ? AF_OK : AF_ENOMEM;
  for (size_t i = 0; rc == AF_OK && i < n; i++) {
    y[i * d] = sqrt(LC_FIG_RHO);
    y[i * d + i + 1] = sqrt(1.0 - LC_FIG_RHO);
    y[n * d + i] = 1.0;
  }
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "rho", LC_FIG_RHO);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "gamma", "%zu values %g + %g k", ng, g_lo,
                         dg);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "maps",
                         "attn (attention output alone = nGPT alpha h = 1), "
                         "post (Post-, Pre-, Mix-LN, LN-Scaling at layer 0), "
                         "peri (Peri-LN), ngpt025 (nGPT alpha = 0.25); h = 1");
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "method",
                         "exact finite-n cosine and n -> infinity limits "
                         "(theory/longctx.c, long double); check: one "
                         "af_layer_step at n = 100, d = 101 (sim_n100)");
  static const char *const notes[][2] = {
      {"seed", "unused (deterministic)"},
      {"columns", "gamma; cos_<map>_n1e<k>: output cosine at n = 10^k, beta "
                  "= gamma log n; lim_<map>: its n -> infinity limit "
                  "(regime of gamma against 1/(1 - rho) = 2); sim_<map>_n100: "
                  "the simulated layer at n = 100"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  long cg = fig_col(T, "gamma"), cc[4][4], cl[4], cs[4];
  for (size_t m = 0; m < 4; m++) {
    for (size_t k = 0; k < 4; k++)
      cc[m][k] = fig_col(T, "cos_%s_n1e%g", lc_maps[m].name, lc_logn[k]);
    cl[m] = fig_col(T, "lim_%s", lc_maps[m].name);
    cs[m] = fig_col(T, "sim_%s_n100", lc_maps[m].name);
  }
  if (cg < 0 || cs[3] < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, ng);
  double gt = 1.0 / (1.0 - LC_FIG_RHO);
  for (size_t i = 0; i < ng && rc == AF_OK; i++) {
    double g = g_lo + dg * (double) i;
    fig_note(c, "gamma %zu/%zu", i + 1, ng);
    *fig_at(T, i, cg) = g;
    int regime = fabs(g - gt) < 1e-9 ? 0 : g < gt ? -1 : 1;
    for (size_t m = 0; m < 4 && rc == AF_OK; m++) {
      const lc_map *mp = &lc_maps[m];
      for (size_t k = 0; k < 4; k++) {
        long double cx, gx;
        af_lc_cos(&cx, &gx, mp->lc, powl(10.0L, lc_logn[k]) - 1.0L,
                  LC_FIG_RHO, g, 1.0, mp->alpha);
        *fig_at(T, i, cc[m][k]) = (double) cx;
      }
      *fig_at(T, i, cl[m]) =
          (double) af_lc_limit(mp->lc, regime, LC_FIG_RHO, 1.0, mp->alpha);
      double sv = NAN;
      rc = lc_fig_sim(&sv, mp, g, y, yo, w);
      *fig_at(T, i, cs[m]) = sv;
    }
  }
  fig_note_done(c);
  af_work_free(w);
  FIG_FREE(y, yo);
  return rc;
}

/* Caption of lc: the three limits per map, the exact cosine at the
 * transition for each n, and the simulation's largest relative error. */
int fig_cap_lc(fig_cap *c)
{
  const fig_table *t = c->t;
  long cg = fig_cap_col(c, "gamma");
  if (c->rc != AF_OK || t->nrow < 3) return AF_EPARSE;
  static const char *const names[4] = {"attn", "post", "peri", "ngpt025"};
  static const char *const label[4] = {
      "attention alone (nGPT αh = 1)", "Post-, Pre-, Mix-LN, LN-Scaling",
      "Peri-LN (= nGPT αh = 1/2)", "nGPT α = 1/4"};
  double gt = 2.0;
  size_t rt = t->nrow; /* the row at the transition */
  for (size_t r = 0; r < t->nrow; r++)
    if (fabs(fig_cap_at(c, r, cg) - gt) < 1e-9) rt = r;
  if (rt == t->nrow) return c->rc = AF_EPARSE;
  char b[8][48];
  fig_cap_printf(c, "| map | limit γ < 2 | at γ = 2 | γ > 2 | cos at γ = 2, "
                    "n = 10² / 10⁴ / 10⁸ / 10¹⁶ |\n|---|---|---|---|---|\n");
  double err = 0;
  for (size_t m = 0; m < 4; m++) {
    long cl = fig_cap_col(c, "lim_%s", names[m]);
    long cs = fig_cap_col(c, "sim_%s_n100", names[m]);
    long ce = fig_cap_col(c, "cos_%s_n1e2", names[m]);
    long cn[4];
    for (size_t k = 0; k < 4; k++)
      cn[k] = fig_cap_col(c, "cos_%s_n1e%g", names[m], lc_logn[k]);
    if (c->rc != AF_OK) return c->rc;
    for (size_t r = 0; r < t->nrow; r++) {
      double ex = fig_cap_at(c, r, ce);
      err = fmax(err, fabs(fig_cap_at(c, r, cs) - ex) / ex);
    }
    fig_cap_printf(c, "| %s | %s | %s | %s | %s / %s / %s / %s |\n", label[m],
                   fig_num(b[0], fig_cap_at(c, 0, cl), 4),
                   fig_num(b[1], fig_cap_at(c, rt, cl), 4),
                   fig_num(b[2], fig_cap_at(c, t->nrow - 1, cl), 4),
                   fig_num(b[3], fig_cap_at(c, rt, cn[0]), 4),
                   fig_num(b[4], fig_cap_at(c, rt, cn[1]), 4),
                   fig_num(b[5], fig_cap_at(c, rt, cn[2]), 4),
                   fig_num(b[6], fig_cap_at(c, rt, cn[3]), 4));
  }
  fig_cap_printf(c, "\nρ = %s, β = γ log n, one layer with h = 1.  The "
                    "simulated layer at n = 100 (af_layer_step) agrees with "
                    "the exact formula to %s relative over the whole γ "
                    "grid.\n",
                 fig_cap_prov(c, "rho"), fig_num(b[0], err, 2));
  return c->rc;
}
