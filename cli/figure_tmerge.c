/* figure_tmerge.c -- `attnflow figure tmerge`: the metastability time
 * scales of every scheme (theorems.md P5.tmerge, P5.scheme), and its
 * caption.
 *
 * Two tokens at angle phi0 = pi/2 (radii 1, Q = K = V = I) merge to angle
 * 0.1; the merging time of each scheme by quadrature and rk8pd in phi
 * (af_merge_time_scheme, theory/merge.c: every scheme is Post-LN at u =
 * int dt/s), against beta in [1, 10]: log10 t and the slope d ln t/d beta
 * (central differences of the theory, step 1e-3), with the statement's
 * limit 1 - cos phi0 = 1.  nGPT at alpha = 0.6, Mix-LN at tau = 1.  Past
 * beta of about 7.5 the Pre-, Mix- and Peri-LN times leave double's range
 * (NaN in the data).  The claims P5.tmerge and P5.scheme check these times
 * against the simulated flow.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "figure.h"
#include "merge.h"

#define TM_PHI0 1.5707963267948966 /* pi/2 */
#define TM_PHIE 0.1
#define TM_ALPHA 0.6
#define TM_TAU 1.0

static const af_scheme_id tm_schemes[AF_SCHEME_COUNT] = {
    AF_POST_LN, AF_PRE_LN, AF_MIX_LN, AF_PERI_LN, AF_NGPT, AF_LN_SCALING};

/* ln t of scheme s at beta; NaN where the time is not finite in double. */
static double tm_lnt(af_scheme_id s, double beta)
{
  double t = NAN;
  if (af_merge_time_scheme(&t, NULL, s, beta, TM_ALPHA, TM_TAU, TM_PHI0,
                           TM_PHIE) != AF_OK || !(t > 0) || !isfinite(t))
    return NAN;
  return log(t);
}

int fig_tmerge(fig_table *T, const fig_cfg *c)
{
  const double b_lo = 1.0, b_hi = 10.0, db = c->quick ? 1.0 : 0.125;
  const size_t nb = (size_t) ((b_hi - b_lo) / db + 0.5) + 1;
  int rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "phi0", TM_PHI0);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "phie", TM_PHIE);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", TM_ALPHA);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tau", TM_TAU);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "beta", "%zu values %g + %g k", nb, b_lo,
                         db);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "method",
                         "af_merge_time_scheme (theory/merge.c): Post-LN "
                         "quadrature, each scheme through dt/du = s (rk8pd "
                         "in phi, rtol 1e-13); slope by central differences "
                         "of ln t, step 1e-3");
  static const char *const notes[][2] = {
      {"seed", "unused (deterministic)"},
      {"columns", "beta; log10t_<scheme>: merging time from phi0 to phie "
                  "(NaN past double's range); slope_<scheme>: d ln t / d "
                  "beta"}};
  if (rc == AF_OK) rc = fig_prov_strs(T, notes, sizeof notes / sizeof *notes);
  long cb = fig_col(T, "beta"), cl[AF_SCHEME_COUNT], cs[AF_SCHEME_COUNT];
  for (size_t s = 0; s < AF_SCHEME_COUNT; s++) {
    const char *nm = af_scheme_get(tm_schemes[s])->name;
    cl[s] = fig_col(T, "log10t_%s", nm);
    cs[s] = fig_col(T, "slope_%s", nm);
  }
  if (cb < 0 || cs[AF_SCHEME_COUNT - 1] < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nb);
  for (size_t i = 0; i < nb && rc == AF_OK; i++) {
    double b = b_lo + db * (double) i, h = 1e-3;
    fig_note(c, "beta %zu/%zu", i + 1, nb);
    *fig_at(T, i, cb) = b;
    for (size_t s = 0; s < AF_SCHEME_COUNT; s++) {
      double l0 = tm_lnt(tm_schemes[s], b);
      double lp = tm_lnt(tm_schemes[s], b + h), lm = tm_lnt(tm_schemes[s], b - h);
      *fig_at(T, i, cl[s]) = l0 / log(10.0);
      *fig_at(T, i, cs[s]) = (lp - lm) / (2 * h);
    }
  }
  fig_note_done(c);
  return rc;
}

/* Caption of tmerge: t and the slope at beta = 4, 6, 8, 10 per scheme. */
int fig_cap_tmerge(fig_cap *c)
{
  const fig_table *t = c->t;
  long cb = fig_cap_col(c, "beta");
  if (c->rc != AF_OK || t->nrow < 2) return AF_EPARSE;
  static const double bs[4] = {4, 6, 8, 10};
  size_t rb[4];
  for (size_t k = 0; k < 4; k++) {
    rb[k] = t->nrow;
    for (size_t r = 0; r < t->nrow; r++)
      if (fabs(fig_cap_at(c, r, cb) - bs[k]) < 1e-9) rb[k] = r;
    if (rb[k] == t->nrow) return c->rc = AF_EPARSE;
  }
  char b[8][48];
  fig_cap_printf(c, "| scheme | t (slope d ln t/dβ) at β = 4 | 6 | 8 | 10 |\n"
                    "|---|---|---|---|---|\n");
  for (size_t s = 0; s < AF_SCHEME_COUNT; s++) {
    const char *nm = af_scheme_get(tm_schemes[s])->name;
    long cl = fig_cap_col(c, "log10t_%s", nm), cs = fig_cap_col(c, "slope_%s", nm);
    if (c->rc != AF_OK) return c->rc;
    fig_cap_printf(c, "| %s |", nm);
    for (size_t k = 0; k < 4; k++) {
      double l = fig_cap_at(c, rb[k], cl), sl = fig_cap_at(c, rb[k], cs);
      if (isnan(l))
        fig_cap_printf(c, " beyond double |");
      else
        fig_cap_printf(c, " %s (%s) |", fig_num(b[2 * k], pow(10.0, l), 4),
                       fig_num(b[2 * k + 1], sl, 3));
    }
    fig_cap_printf(c, "\n");
  }
  fig_cap_printf(c, "\nφ₀ = π/2 to φ_e = %s, radii 1, nGPT at α = %s, Mix-LN at "
                    "τ = %s.  The statement asks d ln t/dβ → 1 − cos φ₀ = 1.\n",
                 fig_cap_prov(c, "phie"), fig_cap_prov(c, "alpha"),
                 fig_cap_prov(c, "tau"));
  return c->rc;
}
