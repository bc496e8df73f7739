/* figure_tradeoff.c -- `attnflow figure tradeoff`: the speed/diversity
 * trade-off of the six schemes over a grid of (n, beta, r0, alpha, tau),
 * its Pareto fronts and its caption (theorems.md, "The trade-off over the
 * parameters"; theory/tradeoff.c).
 *
 * Three sources per grid point:
 *   exact   the T4.1 scalar systems on the symmetric (orthonormal) start,
 *           d = n (af_tradeoff_metrics, rk8pd rtol 1e-14);
 *   map     the S7 layer maps at h = 1 on the same start, in closed form
 *           (af_s7_sym_step; S7.sym checks it against src/'s maps);
 *   random  uniform starts on S^{d-1}, d = 16, the n-particle flow of
 *           src/ (rk8pd at the library's tolerances), `systems` seeds
 *           (default 16): means with 95% Student-t half-widths, the front
 *           of the means and the share of seeds on which each scheme is
 *           on the front; only for n <= 64 (n^2 d per field evaluation).
 * r0 is 1 or sqrt(d) (d = n on the symmetric start, 16 for random starts).
 * Early metric: gamma(L0) (mean cosine) or the mean angle moved by L0
 * (--metric); late metric: 1 - mean cosine at L.  One row per source and
 * grid point; dom_S is the bit mask of the schemes S dominates (bit b for
 * scheme b), so the caption reads fronts and dominance from the table.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "figure.h"
#include "tradeoff.h"

#define NS AF_SCHEME_COUNT
#define TR_MAXG 32          /* values per grid list */
#define TR_RANDOM_D 16
#define TR_RANDOM_NMAX 64
#define TR_NMAX 4096

enum { SRC_EXACT = 0, SRC_MAP, SRC_RANDOM, SRC_N };
static const double g_alpha[2] = {0.2, 1}, g_tau[2] = {0.5, 2};

typedef struct {
  size_t n[TR_MAXG], nn;
  double beta[TR_MAXG];
  size_t nbeta;
  double L0, L;
  af_tradeoff_early metric;
} tr_grid;

/* Parse "a,b,c" into v (at most TR_MAXG finite numbers). */
static int parse_list(double *v, size_t *k, const char *s, const char *what,
                      char *why, size_t cap)
{
  *k = 0;
  if (!s || !*s) {
    snprintf(why, cap, "empty grid: --%s needs at least one value", what);
    return AF_EINVAL;
  }
  const char *p = s;
  while (*p) {
    char *end;
    errno = 0;
    double x = strtod(p, &end);
    if (end == p || errno != 0 || !isfinite(x) || (*end && *end != ',')) {
      snprintf(why, cap, "--%s: '%s' is not a list of finite numbers "
                         "separated by commas", what, s);
      return AF_EINVAL;
    }
    if (*k == TR_MAXG) {
      snprintf(why, cap, "--%s: more than %d values", what, TR_MAXG);
      return AF_EINVAL;
    }
    v[(*k)++] = x;
    p = *end ? end + 1 : end;
    if (*end && !*p) {
      snprintf(why, cap, "--%s: '%s' ends with a comma", what, s);
      return AF_EINVAL;
    }
  }
  return AF_OK;
}

/* The grid of the figure from its options (defaults by --quick). */
static int tr_grid_make(tr_grid *g, const fig_cfg *c, char *why, size_t cap)
{
  double v[TR_MAXG];
  size_t k;
  const char *ns = c->grid_n ? c->grid_n
                   : c->quick ? "4,16"
                              : "4,16,64,256,1024";
  const char *bs = c->grid_beta ? c->grid_beta
                   : c->quick   ? "1,4"
                                : "0.5,1,2,4,8";
  int st = parse_list(v, &k, ns, "n", why, cap);
  if (st != AF_OK)
    return st;
  g->nn = k;
  for (size_t i = 0; i < k; i++) {
    if (!(v[i] >= 2 && v[i] <= TR_NMAX) || v[i] != floor(v[i])) {
      snprintf(why, cap, "--n: %g is not a whole number of tokens in "
                         "[2, %d]", v[i], TR_NMAX);
      return AF_EINVAL;
    }
    g->n[i] = (size_t) v[i];
  }
  st = parse_list(g->beta, &g->nbeta, bs, "beta", why, cap);
  if (st != AF_OK)
    return st;
  for (size_t i = 0; i < g->nbeta; i++)
    if (!(g->beta[i] >= 0 && g->beta[i] <= 700)) {
      snprintf(why, cap, "--beta: %g is outside [0, 700]", g->beta[i]);
      return AF_EINVAL;
    }
  st = parse_list(v, &k, c->depths ? c->depths : "1,10", "depths", why, cap);
  if (st != AF_OK)
    return st;
  if (k != 2) {
    snprintf(why, cap, "--depths takes two depths L0,L (early, late), "
                       "got %zu values", k);
    return AF_EINVAL;
  }
  g->L0 = v[0];
  g->L = v[1];
  if (!(g->L0 >= 1) || g->L0 != floor(g->L0) || g->L != floor(g->L) ||
      !(g->L <= 1000)) {
    snprintf(why, cap, "--depths %g,%g: depths are whole numbers of layers "
                       "(h = 1), L0 >= 1 and the horizon L <= 1000",
             g->L0, g->L);
    return AF_EINVAL;
  }
  if (!(g->L0 < g->L)) {
    snprintf(why, cap, "--depths %g,%g: the early depth L0 = %g is beyond "
                       "the horizon L = %g (need L0 < L)", g->L0, g->L,
             g->L0, g->L);
    return AF_EINVAL;
  }
  g->metric = AF_TRADEOFF_EARLY_GAMMA;
  if (c->metric &&
      af_tradeoff_early_lookup(&g->metric, c->metric) != AF_OK) {
    snprintf(why, cap, "--metric '%s' does not exist (early metrics: "
                       "gamma, angle)", c->metric);
    return AF_EINVAL;
  }
  return AF_OK;
}

int fig_tradeoff_check(const fig_cfg *c, char *why, size_t cap)
{
  tr_grid g;
  return tr_grid_make(&g, c, why, cap);
}

/* Mean angle between the directions of tokens in states a and b. */
static double mean_angle(const double *ya, const double *yb, size_t n,
                         size_t d)
{
  double sum = 0;
  for (size_t j = 0; j < n; j++)
    sum += 2 * asin(fmin(1.0, fig_dir_dist(ya + j * d, yb + j * d, d) / 2));
  return sum / (double) n;
}

/* Column indices. */
typedef struct {
  long src, n, d, beta, r0sd, r0, alpha, tau, L0, L;
  long e[NS], l[NS], eci[NS], lci[NS], front[NS], sfront[NS], dom[NS];
} tr_cols;

static int tr_columns(tr_cols *k, fig_table *T)
{
  k->src = fig_col(T, "source");
  k->n = fig_col(T, "n");
  k->d = fig_col(T, "d");
  k->beta = fig_col(T, "beta");
  k->r0sd = fig_col(T, "r0_is_sqrt_d");
  k->r0 = fig_col(T, "r0");
  k->alpha = fig_col(T, "alpha");
  k->tau = fig_col(T, "tau");
  k->L0 = fig_col(T, "L0");
  k->L = fig_col(T, "L");
  int ok = k->src >= 0 && k->L >= 0;
  for (int s = 0; s < NS; s++) {
    const char *sn = fig_scheme_name(s);
    k->e[s] = fig_col(T, "early_%s", sn);
    k->l[s] = fig_col(T, "late_%s", sn);
    k->eci[s] = fig_col(T, "early_ci_%s", sn);
    k->lci[s] = fig_col(T, "late_ci_%s", sn);
    k->front[s] = fig_col(T, "front_%s", sn);
    k->sfront[s] = fig_col(T, "seedfront_%s", sn);
    k->dom[s] = fig_col(T, "dom_%s", sn);
    ok = ok && k->dom[s] >= 0;
  }
  return ok ? AF_OK : AF_ENOMEM;
}

/* Front and dominance of one row from its metrics. */
static int tr_front_row(fig_table *T, const tr_cols *k, size_t row,
                        const double *e, const double *l)
{
  int of[NS], dm[NS * NS];
  int st = af_tradeoff_front(of, dm, NULL, e, l, NS, AF_TRADEOFF_TIE);
  for (int s = 0; s < NS && st == AF_OK; s++) {
    double mask = 0;
    for (int b = 0; b < NS; b++)
      mask += dm[s * NS + b] ? (double) (1 << b) : 0.0;
    *fig_at(T, row, k->e[s]) = e[s];
    *fig_at(T, row, k->l[s]) = l[s];
    *fig_at(T, row, k->front[s]) = of[s];
    *fig_at(T, row, k->dom[s]) = mask;
  }
  return st;
}

/* Random starts of one (n, beta, r0): per seed the metrics of the eight
 * runs (four schemes, nGPT per alpha, Mix-LN per tau): em[seed][run]. */
static int random_runs(double *em, double *lm, size_t seeds, size_t n,
                       double beta, double r0, const tr_grid *g,
                       const fig_cfg *c)
{
  const size_t d = TR_RANDOM_D;
  size_t ss = af_state_size(n, d), line;
  double times[3] = {0, g->L0, g->L};
  double *y0 = malloc(ss * sizeof *y0), *y = malloc(ss * sizeof *y);
  double *st3 = malloc(3 * ss * sizeof *st3), ob[3 * AF_OBS_COUNT];
  int rc = y0 && y && st3 ? AF_OK : AF_ENOMEM;
  af_integ_opts o;
  af_integ_opts_init(&o);
  for (size_t q = 0; q < seeds && rc == AF_OK; q++) {
    rc = af_init_state(y0, &line, "uniform", n, d, r0, c->seed + q);
    for (int run = 0; run < 8 && rc == AF_OK; run++) {
      af_scheme_id s = run < 4 ? (af_scheme_id[]){AF_POST_LN, AF_PRE_LN,
                                                  AF_PERI_LN,
                                                  AF_LN_SCALING}[run]
                       : run < 6 ? AF_NGPT
                                 : AF_MIX_LN;
      af_model m;
      af_model_init(&m, n, d, beta, s);
      if (run >= 4 && run < 6)
        m.alpha = g_alpha[run - 4];
      if (run >= 6)
        m.tau = g_tau[run - 6];
      memcpy(y, y0, ss * sizeof *y);
      rc = fig_run(ob, st3, y, times, 3, &m, &o, 0.9999);
      if (rc != AF_OK)
        break;
      double e = g->metric == AF_TRADEOFF_EARLY_GAMMA
                     ? ob[AF_OBS_COUNT + AF_OBS_cos_mean]
                     : mean_angle(st3, st3 + ss, n, d);
      em[q * 8 + (size_t) run] = e;
      lm[q * 8 + (size_t) run] = 1.0 - ob[2 * AF_OBS_COUNT + AF_OBS_cos_mean];
    }
  }
  FIG_FREE(y0, y, st3);
  return rc;
}

/* run index of scheme s at alpha index ia, tau index it */
static int run_of(int s, int ia, int it)
{
  switch (s) {
  case AF_POST_LN: return 0;
  case AF_PRE_LN: return 1;
  case AF_PERI_LN: return 2;
  case AF_LN_SCALING: return 3;
  case AF_NGPT: return 4 + ia;
  default: return 6 + it;
  }
}

int fig_tradeoff(fig_table *T, const fig_cfg *c)
{
  tr_grid g;
  char why[256];
  int rc = tr_grid_make(&g, c, why, sizeof why);
  if (rc != AF_OK)
    return rc; /* the command checked the options already */
  size_t seeds = c->systems ? c->systems : 16;
  size_t nrand = 0;
  for (size_t i = 0; i < g.nn; i++)
    nrand += g.n[i] <= TR_RANDOM_NMAX;
  size_t per = 2 * g.nbeta * 2 * 2; /* r0 x beta x alpha x tau */
  size_t nrow = per * (2 * g.nn + nrand);
  tr_cols k;
  memset(&k, 0, sizeof k);
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "early_metric",
                                        af_tradeoff_early_name(g.metric));
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "L0", g.L0);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "L", g.L);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seed", c->seed);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seeds", seeds);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tie", AF_TRADEOFF_TIE);
  static const char *const notes[][2] = {
      {"exact_method", "T4.1 scalar systems, rk8pd on the log-gap, rtol "
                       "1e-14 (af_tradeoff_metrics), orthonormal start, d = n"},
      {"map_method", "S7 layer maps at h = 1 on the symmetric start, closed "
                     "form (af_s7_sym_step)"},
      {"random_method", "uniform starts on S^15 (d = 16), rk8pd at the "
                        "library's tolerances, n <= 64 only; means over "
                        "seeds seed .. seed + seeds - 1 with 95% Student-t "
                        "half-widths"},
      {"grid", "r0 in {1, sqrt(d)}, alpha (nGPT) in {0.2, 1}, tau (Mix-LN) "
               "in {0.5, 2}, n and beta as listed in the rows"},
      {"columns", "per scheme S: early_S (gamma(L0) or angle moved by L0), "
                  "late_S (1 - mean cos at L), *_ci_S (95% half-width, "
                  "random only), front_S (1: on the Pareto front of the "
                  "six), seedfront_S (share of seeds with S on the front, "
                  "random only), dom_S (bit b set: S dominates scheme b, "
                  "schemes in the order of attnflow.h); source 0 exact, 1 "
                  "map, 2 random"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  if (rc == AF_OK) rc = tr_columns(&k, T);
  if (rc == AF_OK) rc = fig_rows(T, nrow);
  size_t row = 0;
  double *em = malloc(seeds * 8 * sizeof *em), *lm = malloc(seeds * 8 * sizeof *lm);
  if (rc == AF_OK && (!em || !lm)) rc = AF_ENOMEM;
  double tq = seeds > 1 ? gsl_cdf_tdist_Pinv(0.975, (double) (seeds - 1)) : NAN;
  for (int src = 0; src < SRC_N && rc == AF_OK; src++)
    for (size_t in = 0; in < g.nn && rc == AF_OK; in++) {
      size_t n = g.n[in], d = src == SRC_RANDOM ? TR_RANDOM_D : n;
      if (src == SRC_RANDOM && n > TR_RANDOM_NMAX)
        continue;
      for (size_t ib = 0; ib < g.nbeta && rc == AF_OK; ib++)
        for (int ir = 0; ir < 2 && rc == AF_OK; ir++) {
          double beta = g.beta[ib], r0 = ir ? sqrt((double) d) : 1.0;
          if (src == SRC_RANDOM) {
            fig_note(c, "random starts n = %zu, beta = %g, r0 = %g", n, beta,
                     r0);
            rc = random_runs(em, lm, seeds, n, beta, r0, &g, c);
          }
          for (int ia = 0; ia < 2 && rc == AF_OK; ia++)
            for (int it = 0; it < 2 && rc == AF_OK; it++) {
              af_tradeoff_point pt = {n, beta, r0, g_alpha[ia], g_tau[it],
                                      g.L0, g.L};
              double e[NS], l[NS];
              for (int s = 0; s < NS && rc == AF_OK; s++) {
                if (src != SRC_RANDOM) {
                  rc = af_tradeoff_metrics(&e[s], &l[s], (af_scheme_id) s,
                                           &pt, g.metric,
                                           src == SRC_EXACT
                                               ? AF_TRADEOFF_SCALAR
                                               : AF_TRADEOFF_MAP,
                                           1.0);
                  continue;
                }
                int ru = run_of(s, ia, it);
                double se = 0, sl = 0, qe = 0, ql = 0;
                for (size_t q = 0; q < seeds; q++) {
                  se += em[q * 8 + (size_t) ru];
                  sl += lm[q * 8 + (size_t) ru];
                }
                e[s] = se / (double) seeds;
                l[s] = sl / (double) seeds;
                for (size_t q = 0; q < seeds; q++) {
                  qe += pow(em[q * 8 + (size_t) ru] - e[s], 2);
                  ql += pow(lm[q * 8 + (size_t) ru] - l[s], 2);
                }
                double den = (double) seeds * (double) (seeds - 1);
                *fig_at(T, row, k.eci[s]) = tq * sqrt(qe / den);
                *fig_at(T, row, k.lci[s]) = tq * sqrt(ql / den);
              }
              if (rc == AF_OK && src == SRC_RANDOM) {
                /* the share of seeds with each scheme on the front */
                double on[NS] = {0};
                for (size_t q = 0; q < seeds && rc == AF_OK; q++) {
                  double eq[NS], lq[NS];
                  int of[NS];
                  for (int s = 0; s < NS; s++) {
                    eq[s] = em[q * 8 + (size_t) run_of(s, ia, it)];
                    lq[s] = lm[q * 8 + (size_t) run_of(s, ia, it)];
                  }
                  rc = af_tradeoff_front(of, NULL, NULL, eq, lq, NS,
                                         AF_TRADEOFF_TIE);
                  for (int s = 0; s < NS; s++)
                    on[s] += of[s];
                }
                for (int s = 0; s < NS; s++)
                  *fig_at(T, row, k.sfront[s]) = on[s] / (double) seeds;
              }
              if (rc == AF_OK)
                rc = tr_front_row(T, &k, row, e, l);
              if (rc != AF_OK)
                break;
              double *v[] = {fig_at(T, row, k.src), fig_at(T, row, k.n),
                             fig_at(T, row, k.d), fig_at(T, row, k.beta),
                             fig_at(T, row, k.r0sd), fig_at(T, row, k.r0),
                             fig_at(T, row, k.alpha), fig_at(T, row, k.tau),
                             fig_at(T, row, k.L0), fig_at(T, row, k.L)};
              double w[] = {src, (double) n, (double) d, beta, ir, r0,
                            g_alpha[ia], g_tau[it], g.L0, g.L};
              for (size_t i = 0; i < sizeof w / sizeof *w; i++)
                *v[i] = w[i];
              row++;
            }
        }
    }
  fig_note_done(c);
  FIG_FREE(em, lm);
  if (rc == AF_OK && row != nrow)
    rc = AF_EINVAL;
  return rc;
}

/* ---------------------------------------------------------------- caption */

static const char *pct(char *b, double num, double den)
{
  if (!(den > 0))
    return "–";
  snprintf(b, 48, "%.0f%%", 100.0 * num / den);
  return b;
}

int fig_cap_tradeoff(fig_cap *c)
{
  const fig_table *t = c->t;
  long csrc = fig_cap_col(c, "source"), cr = fig_cap_col(c, "r0_is_sqrt_d");
  long cf[NS], cd[NS];
  for (int s = 0; s < NS; s++) {
    cf[s] = fig_cap_col(c, "front_%s", fig_scheme_name(s));
    cd[s] = fig_cap_col(c, "dom_%s", fig_scheme_name(s));
  }
  const char *metric = fig_cap_prov(c, "early_metric");
  const char *L0 = fig_cap_prov(c, "L0"), *L = fig_cap_prov(c, "L");
  const char *seeds = fig_cap_prov(c, "seeds");
  if (c->rc != AF_OK)
    return c->rc;
  /* counts[src][r][s]: points on the front; pts[src][r]; dom[r][a][b] on
   * the exact source */
  double front[SRC_N][2][NS] = {{{0}}}, pts[SRC_N][2] = {{0}};
  double dom[SRC_N][2][NS][NS] = {{{{0}}}};
  for (size_t i = 0; i < t->nrow; i++) {
    double sv = fig_cap_at(c, i, csrc), rv = fig_cap_at(c, i, cr);
    if (!(sv >= 0 && sv < SRC_N) || !(rv == 0 || rv == 1))
      return AF_EPARSE;
    int so = (int) sv, r = (int) rv;
    pts[so][r]++;
    for (int s = 0; s < NS; s++) {
      front[so][r][s] += fig_cap_at(c, i, cf[s]) == 1;
      unsigned long mask = (unsigned long) fig_cap_at(c, i, cd[s]);
      for (int b = 0; b < NS; b++)
        dom[so][r][s][b] += (mask >> b) & 1UL;
    }
  }
  if (!(pts[SRC_EXACT][0] > 0 && pts[SRC_EXACT][1] > 0))
    return AF_EPARSE;
  char b[8][48];
  fig_cap_printf(c, "Early metric %s at depth L0 = %s, late metric 1 − mean "
                    "cos at L = %s; share of grid points on the Pareto "
                    "front (r0 = 1 / r0 = √d):\n\n"
                    "| scheme | exact | layer maps h = 1 | random starts "
                    "(%s seeds, means) |\n|---|---|---|---|\n",
                 strcmp(metric, "gamma") == 0 ? "γ(L0)" : "angle moved",
                 L0, L, seeds);
  for (int s = 0; s < NS; s++) {
    fig_cap_printf(c, "| %s |", af_scheme_get((af_scheme_id) s)->title);
    for (int so = 0; so < SRC_N; so++)
      fig_cap_printf(c, " %s / %s |",
                     pct(b[0], front[so][0][s], pts[so][0]),
                     pct(b[1], front[so][1][s], pts[so][1]));
    fig_cap_printf(c, "\n");
  }
  fig_cap_printf(c, "\nExact systems: share of grid points where the row's "
                    "scheme dominates the column's (r0 = 1 / r0 = √d):\n\n"
                    "| dominates | ");
  for (int s = 0; s < NS; s++)
    fig_cap_printf(c, "%s |", af_scheme_get((af_scheme_id) s)->title);
  fig_cap_printf(c, "\n|---|---|---|---|---|---|---|\n");
  for (int a = 0; a < NS; a++) {
    fig_cap_printf(c, "| %s |", af_scheme_get((af_scheme_id) a)->title);
    for (int s = 0; s < NS; s++)
      if (a == s)
        fig_cap_printf(c, " – |");
      else
        fig_cap_printf(c, " %s / %s |",
                       pct(b[0], dom[0][0][a][s], pts[0][0]),
                       pct(b[1], dom[0][1][a][s], pts[0][1]));
    fig_cap_printf(c, "\n");
  }
  /* the verdict, one sentence from the exact source */
  const int P = AF_PERI_LN;
  double sh[2][NS];
  for (int r = 0; r < 2; r++)
    for (int s = 0; s < NS; s++)
      sh[r][s] = front[0][r][s] / pts[0][r];
  /* per r0: the other schemes on the front at least as often as Peri-LN
   * (peer), the schemes that dominate Peri-LN somewhere (dby), and the
   * schemes most often on the front (top) */
  char peer[2][160], dby[2][200], top[2][160];
  int npeer[2] = {0, 0}, ndby[2] = {0, 0}, ntop[2] = {0, 0};
  for (int r = 0; r < 2; r++) {
    double mx = 0;
    for (int s = 0; s < NS; s++)
      mx = fmax(mx, sh[r][s]);
    peer[r][0] = dby[r][0] = top[r][0] = '\0';
    for (int s = 0; s < NS; s++) {
      const char *ti = af_scheme_get((af_scheme_id) s)->title;
      size_t len;
      if (s != P && sh[r][s] >= sh[r][P]) {
        len = strlen(peer[r]);
        snprintf(peer[r] + len, sizeof peer[r] - len, "%s%s",
                 npeer[r]++ ? ", " : "", ti);
      }
      if (sh[r][s] == mx) {
        len = strlen(top[r]);
        snprintf(top[r] + len, sizeof top[r] - len, "%s%s",
                 ntop[r]++ ? ", " : "", ti);
      }
      if (s != P && dom[0][r][s][P] > 0) {
        len = strlen(dby[r]);
        snprintf(dby[r] + len, sizeof dby[r] - len, "%s%s %s",
                 ndby[r]++ ? ", " : "", ti,
                 pct(b[0], dom[0][r][s][P], pts[0][r]));
      }
    }
  }
  char v[2][640];
  for (int r = 0; r < 2; r++) {
    const char *where = r ? "r0 = √d" : "r0 = 1";
    if (ntop[r] == 1 && strcmp(top[r], "Peri-LN") == 0)
      snprintf(v[r], sizeof v[r], "the best balance alone at %s", where);
    else if (npeer[r] > 0 && sh[r][P] >= 1.0)
      snprintf(v[r], sizeof v[r], "a best balance at %s only jointly with "
                                  "%s (never dominated either)", where,
               peer[r]);
    else if (strstr(top[r], "Peri-LN"))
      snprintf(v[r], sizeof v[r], "a best balance at %s jointly with the "
                                  "other schemes most often on the front",
               where);
    else
      snprintf(v[r], sizeof v[r], "not the best balance at %s, where %s "
                                  "%s on the front most often", where,
               top[r], ntop[r] > 1 ? "are" : "is");
  }
  fig_cap_printf(c, "\n**Verdict (exact symmetric systems):** with r0 = 1 "
                    "Peri-LN is on the front at %s of the grid points "
                    "(dominated by %s) and dominates Post-LN at %s, Pre-LN "
                    "at %s and nGPT at %s of them; with r0 = √d it is on "
                    "the front at %s (dominated by %s) and dominates "
                    "Post-LN at %s — so Peri-LN is %s, and %s.\n",
                 pct(b[1], front[0][0][P], pts[0][0]),
                 ndby[0] ? dby[0] : "no scheme",
                 pct(b[2], dom[0][0][P][AF_POST_LN], pts[0][0]),
                 pct(b[3], dom[0][0][P][AF_PRE_LN], pts[0][0]),
                 pct(b[4], dom[0][0][P][AF_NGPT], pts[0][0]),
                 pct(b[5], front[0][1][P], pts[0][1]),
                 ndby[1] ? dby[1] : "no scheme",
                 pct(b[6], dom[0][1][P][AF_POST_LN], pts[0][1]), v[0], v[1]);
  return c->rc;
}
