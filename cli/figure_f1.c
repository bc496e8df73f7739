/* figure_f1.c -- `attnflow figure`, F1: gamma(t) of the six schemes from
 * the T4.1 scalar ODEs (n = 256, beta = 5), with n = d = 8 particle runs
 * in double and MPFR against the n = 8 ODE, and its caption. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow_mp.h"
#include "figure.h"
#include "theory.h"

/* ln of the T4.1b terminal law of 1 - gamma (without its constant C). */
static double fig_ln_law(const af_t41_terminal *law, const af_t41_params *p,
                         double t) {
  if (strcmp(law->form, "exp") == 0) return -law->exponent * t;
  if (strcmp(law->form, "power") == 0) return -law->exponent * log(t);
  if (strcmp(law->form, "exp-sqrt") == 0) return -law->exponent * sqrt(t + 1);
  /* exp-int-alpha: int_0^t alpha (1+s)^-q ds. */
  double q = p->alpha_decay, ia;
  if (q == 0)
    ia = p->alpha * t;
  else if (q == 1)
    ia = p->alpha * log1p(t);
  else
    ia = p->alpha * (pow(1 + t, 1 - q) - 1) / (1 - q);
  return -law->exponent * ia;
}

/* F1's MPFR particle gap: the n = d = np system of model m from the
 * orthonormal start (r0), integrated by mp-gbs at prec bits (tol relative
 * to max(1, |y|)), gap_mean computed in MPFR (af_mp_observe) at
 * times[k] for k = 0, every, 2 every, ... (other rows untouched). */
typedef struct {
  fig_table *T;
  long col;
  const size_t *rows;
  size_t next;
  const af_model *m;
  af_mp_work *w;
  mpfr_t *obs;
  mpfr_t t;
} fig_f1_mp_ctx;

static int fig_f1_mp_out(double t, mpfr_t *y, void *vctx) {
  fig_f1_mp_ctx *x = vctx;
  mpfr_set_d(x->t, t, MPFR_RNDN);
  int rc = af_mp_observe(x->obs, x->t, y, 0.9999, x->m, x->w);
  if (rc != AF_OK) return rc;
  *fig_at(x->T, x->rows[x->next++], x->col) =
      mpfr_get_d(x->obs[AF_OBS_gap_mean], MPFR_RNDN);
  return AF_OK;
}

static int fig_f1_mp(fig_table *T, long col, const double *times, size_t nt,
                     size_t every, const af_model *m, double r0,
                     mpfr_prec_t prec, double tol, af_mp_stats *st) {
  size_t nsub = (nt + every - 1) / every, ss = af_state_size(m->n, m->d);
  double *ts = malloc(nsub * sizeof *ts), *y0 = malloc(ss * sizeof *y0);
  size_t *rows = malloc(nsub * sizeof *rows), line;
  af_mp_work *w = af_mp_work_alloc(m->n, m->d, prec);
  mpfr_t *y = af_mp_vec_alloc(ss, prec);
  mpfr_t *obs = af_mp_vec_alloc(AF_OBS_COUNT, prec);
  int rc = (ts && y0 && rows && w && y && obs) ? AF_OK : AF_ENOMEM;
  for (size_t k = 0; k < nsub && rc == AF_OK; k++) {
    rows[k] = k * every;
    ts[k] = times[k * every];
  }
  if (rc == AF_OK) rc = af_init_state(y0, &line, "orthonormal", m->n, m->d, r0, 0);
  if (rc == AF_OK) {
    af_mp_vec_set_d(y, y0, ss);
    af_mp_opts o;
    af_mp_opts_init(&o);
    o.method = AF_MP_GBS;
    o.tol = tol;
    fig_f1_mp_ctx x = {T, col, rows, 0, m, w, obs, {{0}}};
    mpfr_init2(x.t, prec);
    rc = af_mp_integrate(y, ts, nsub, m, &o, w, fig_f1_mp_out, &x, st);
    mpfr_clear(x.t);
  }
  if (obs) af_mp_vec_free(obs, AF_OBS_COUNT);
  if (y) af_mp_vec_free(y, ss);
  af_mp_work_free(w);
  FIG_FREE(rows, y0, ts);
  return rc;
}

int fig_f1(fig_table *T, const fig_cfg *c) {
  const size_t n = 256, np = 8; /* ODE n; particles n = d = np */
  const double beta = 5;
  /* Grid: linear to t_lin (the transient and the exponential laws), then
   * log-spaced to t_max (the power laws). */
  const double t_lin = c->quick ? 20 : 100, dt = c->quick ? 0.5 : 0.25;
  const double t_max = c->quick ? 1e3 : 1e5;
  const size_t nlog = c->quick ? 20 : 120;
  size_t nlin;
  double *lin = fig_linear_times(&nlin, t_lin, dt);
  if (lin == NULL) return AF_ENOMEM;
  size_t nt = nlin + nlog;
  double *times = realloc(lin, nt * sizeof *times);
  if (times == NULL) {
    free(lin);
    return AF_ENOMEM;
  }
  for (size_t k = 1; k <= nlog; k++)
    times[nlin + k - 1] =
        pow(10, log10(t_lin) + (log10(t_max) - log10(t_lin)) * (double)k /
                                   (double)nlog);
  af_integ_opts po;
  af_integ_opts_init(&po);
  po.method = AF_METHOD_RK8PD;
  po.rtol = 1e-12; /* tight: the particle gap is followed to ~1e-20 */
  po.atol = 1e-14;

  int rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "beta", beta);
  af_t41_params p0;
  af_t41_params_init(&p0, n, beta, AF_POST_LN);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "r0", p0.r0);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", p0.alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha_decay", p0.alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tau", p0.tau);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "ode",
                         "T4.1 scalar ODEs (af_t41_solve), GSL rk8pd in u = "
                         "log(1-gamma), default tolerances rtol 1e-14 atol 1e-16");
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "particles",
                         "n = d = %zu, init orthonormal, r0 1, Q = K = V = I",
                         np);
  if (rc == AF_OK) rc = fig_prov_integ(T, "", &po);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "seed", "unused (deterministic start)");
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "times",
                         "0:%g:%g, then %zu log-spaced to %g", dt, t_lin, nlog,
                         t_max);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "per scheme S: gamma_S gap_S r_S (n ODE), lncomp_S = "
                         "ln(gap/law(t)) (T4.1b, NaN where gap underflows), "
                         "gamma8_S gap8_S (n = 8 ODE), pcos8_S pgap8_S pr8_S "
                         "(n = d = 8 particles: cos_mean, gap_mean, r_mean), "
                         "mpgap8_S (the same gap_mean from an MPFR run, "
                         "every 8th row of the linear part)");
  /* MPFR particle runs: where the double gap stops at ~1e-32 */
  const mpfr_prec_t mp_prec = c->quick ? 128 : 256;
  const double mp_tol = c->quick ? 1e-30 : 1e-60;
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "particles_mpfr",
                         "mp-gbs, %ld bits, tol %g (relative to max(1,|y|)), "
                         "t <= %g, gap_mean by af_mp_observe",
                         (long)mp_prec, mp_tol, t_lin);
  enum { F1_G, F1_GAP, F1_R, F1_COMP, F1_G8, F1_GAP8, F1_PC, F1_PGAP, F1_PR,
         F1_MPGAP, F1_NC };
  static const char *const suffix[F1_NC] = {"gamma", "gap", "r", "lncomp",
                                            "gamma8", "gap8", "pcos8",
                                            "pgap8", "pr8", "mpgap8"};
  long ct = fig_col(T, "t"), col[AF_SCHEME_COUNT][F1_NC];
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    for (int k = 0; k < F1_NC; k++) {
      col[s][k] = fig_col(T, "%s_%s", suffix[k], fig_scheme_name(s));
      if (col[s][k] < 0) rc = AF_ENOMEM;
    }
  if (ct < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nt);
  double *g = malloc(nt * sizeof *g), *w = malloc(nt * sizeof *w),
         *r = malloc(nt * sizeof *r);
  double *obs = malloc(nt * AF_OBS_COUNT * sizeof *obs);
  double *y = malloc(af_state_size(np, np) * sizeof *y);
  if (!g || !w || !r || !obs || !y) rc = AF_ENOMEM;
  for (size_t k = 0; k < nt && rc == AF_OK; k++) *fig_at(T, k, ct) = times[k];

  for (int s = 0; s < AF_SCHEME_COUNT && rc == AF_OK; s++) {
    const char *sn = fig_scheme_name(s);
    af_t41_params p;
    af_t41_params_init(&p, n, beta, (af_scheme_id)s);
    af_t41_terminal law;
    double v0;
    fig_note(c, "%s: scalar ODE", sn);
    rc = af_t41_solve(g, w, r, times, nt, &p);
    if (rc == AF_OK) rc = af_t41_initial_velocity(&v0, &p);
    if (rc == AF_OK) rc = af_t41_terminal_law(&law, (af_scheme_id)s);
    if (rc != AF_OK) break;
    double lnC = NAN, tC = NAN;
    for (size_t k = 0; k < nt; k++) {
      *fig_at(T, k, col[s][F1_G]) = g[k];
      *fig_at(T, k, col[s][F1_GAP]) = w[k];
      *fig_at(T, k, col[s][F1_R]) = r[k];
      /* ln(gap / law) where gap is a normal number (below DBL_MIN it has
       * lost relative accuracy or underflowed to 0). */
      if (times[k] > 0 && w[k] >= DBL_MIN) {
        double lc = log(w[k]) - fig_ln_law(&law, &p, times[k]);
        *fig_at(T, k, col[s][F1_COMP]) = lc;
        lnC = lc;
        tC = times[k];
      }
    }
    char key[64];
    snprintf(key, sizeof key, "v0_%s", sn);
    rc = af_prov_add_double(&T->prov, key, v0);
    snprintf(key, sizeof key, "law_%s", sn);
    if (rc == AF_OK) rc = af_prov_add_str(&T->prov, key, law.text);
    snprintf(key, sizeof key, "C_%s", sn);
    if (rc == AF_OK)
      rc = af_prov_add_fmt(&T->prov, key,
                           "%.6g (gap/law at t = %.6g, last normal gap)",
                           exp(lnC), tC);
    if (rc != AF_OK) break;

    /* n = 8: the scalar ODE and the particle system. */
    af_t41_params_init(&p, np, beta, (af_scheme_id)s);
    rc = af_t41_solve(g, w, NULL, times, nt, &p);
    if (rc != AF_OK) break;
    fig_note(c, "%s: n = d = %zu particles", sn, np);
    af_model m;
    af_model_init(&m, np, np, beta, (af_scheme_id)s);
    m.alpha = p.alpha;
    m.alpha_decay = p.alpha_decay;
    m.tau = p.tau;
    size_t line;
    rc = af_init_state(y, &line, "orthonormal", np, np, p.r0, 0);
    if (rc == AF_OK) rc = fig_run(obs, NULL, y, times, nt, &m, &po, 0.9999);
    if (rc != AF_OK) break;
    /* Agreement of particles with the ODE while the gap is at least
     * 1e-6 (descriptive statistic for the caption, not a pass/fail). */
    double dcos = 0, dgap = 0;
    for (size_t k = 0; k < nt; k++) {
      const double *o = obs + k * AF_OBS_COUNT;
      *fig_at(T, k, col[s][F1_G8]) = g[k];
      *fig_at(T, k, col[s][F1_GAP8]) = w[k];
      *fig_at(T, k, col[s][F1_PC]) = o[AF_OBS_cos_mean];
      *fig_at(T, k, col[s][F1_PGAP]) = o[AF_OBS_gap_mean];
      *fig_at(T, k, col[s][F1_PR]) = o[AF_OBS_r_mean];
      dcos = fmax(dcos, fabs(o[AF_OBS_cos_mean] - g[k]));
      if (w[k] >= 1e-6)
        dgap = fmax(dgap, fabs(o[AF_OBS_gap_mean] - w[k]) / w[k]);
    }
    snprintf(key, sizeof key, "particles_vs_ode_%s", sn);
    rc = af_prov_add_fmt(&T->prov, key,
                         "max |cos_mean - gamma| = %.3g, max rel. gap "
                         "difference (gap >= 1e-6) = %.3g",
                         dcos, dgap);
    if (rc != AF_OK) break;
    /* The same particles in MPFR on the linear part of the grid, and
     * their largest relative gap difference from the n = 8 ODE there. */
    fig_note(c, "%s: n = d = %zu particles, MPFR %ld bits", sn, np,
             (long)mp_prec);
    af_mp_stats mst;
    rc = fig_f1_mp(T, col[s][F1_MPGAP], times, nlin, 8, &m, p.r0, mp_prec,
                   mp_tol, &mst);
    if (rc != AF_OK) break;
    double dmp = 0, gmin = INFINITY;
    for (size_t k = 0; k < nlin; k += 8) {
      double pg = *fig_at(T, k, col[s][F1_MPGAP]);
      if (w[k] >= DBL_MIN && w[k] > 0) {
        dmp = fmax(dmp, fabs(pg - w[k]) / w[k]);
        gmin = fmin(gmin, pg);
      }
    }
    snprintf(key, sizeof key, "particles_mpfr_vs_ode_%s", sn);
    rc = af_prov_add_fmt(&T->prov, key,
                         "max rel. gap difference = %.3g down to gap %.3g; "
                         "%lu steps, own error estimate %.3g",
                         dmp, gmin, mst.steps, mst.err_est);
  }
  fig_note_done(c);
  FIG_FREE(g, w, r, obs, y, times);
  return rc;
}

/* Caption of F1: per scheme the initial velocity (provenance v0_S), the
 * terminal law and its constant C = gap/law at the last normal gap; then
 * the agreement of the n = d = 8 particles (double and MPFR) with the
 * n = 8 ODE. */
int fig_cap_f1(fig_cap *c) {
  const fig_table *t = c->t;
  long ct = fig_cap_col(c, "t");
  char b1[48], b2[48], b3[48], b4[48], key[64];
  double lnC[AF_SCHEME_COUNT], tC[AF_SCHEME_COUNT], dmp[AF_SCHEME_COUNT],
      gmin[AF_SCHEME_COUNT], v0[AF_SCHEME_COUNT];
  const char *law[AF_SCHEME_COUNT];
  double dcos = 0, dgap = 0;
  int wcos = 0;
  for (int s = 0; s < AF_SCHEME_COUNT && c->rc == AF_OK; s++) {
    const char *sn = fig_scheme_name(s);
    long cl = fig_cap_col(c, "lncomp_%s", sn);
    long cg8 = fig_cap_col(c, "gamma8_%s", sn), cw8 = fig_cap_col(c, "gap8_%s", sn);
    long cpc = fig_cap_col(c, "pcos8_%s", sn), cpg = fig_cap_col(c, "pgap8_%s", sn);
    long cmp = fig_cap_col(c, "mpgap8_%s", sn);
    snprintf(key, sizeof key, "v0_%s", sn);
    v0[s] = atof(fig_cap_prov(c, key));
    snprintf(key, sizeof key, "law_%s", sn);
    law[s] = fig_cap_prov(c, key);
    lnC[s] = tC[s] = NAN;
    dmp[s] = 0;
    gmin[s] = INFINITY;
    for (size_t i = 0; i < t->nrow && c->rc == AF_OK; i++) {
      double lc = fig_cap_at(c, i, cl), g8 = fig_cap_at(c, i, cg8);
      double w8 = fig_cap_at(c, i, cw8), pg = fig_cap_at(c, i, cpg);
      double mp = fig_cap_at(c, i, cmp);
      if (!isnan(lc)) {
        lnC[s] = lc;
        tC[s] = fig_cap_at(c, i, ct);
      }
      double e = fabs(fig_cap_at(c, i, cpc) - g8);
      if (e > dcos) {
        dcos = e;
        wcos = s;
      }
      if (w8 >= 1e-6) dgap = fmax(dgap, fabs(pg - w8) / w8);
      if (!isnan(mp) && w8 >= DBL_MIN) {
        dmp[s] = fmax(dmp[s], fabs(mp - w8) / w8);
        gmin[s] = fmin(gmin[s], mp);
      }
    }
  }
  if (c->rc != AF_OK) return c->rc;
  fig_cap_printf(c, "| scheme | dγ/dt at 0⁺ (T4.1a) | terminal law (T4.1b) "
                    "| C measured (gap/law at the last normal gap) |\n"
                    "|---|---|---|---|\n");
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    fig_cap_printf(c, "| %s | %.5g | %s | %s (t = %s) |\n",
                   af_scheme_get((af_scheme_id)s)->title, v0[s], law[s],
                   fig_num(b1, exp(lnC[s]), 4), fig_num(b2, tC[s], 2));
  double dpoly = fmax(dmp[AF_PRE_LN], fmax(dmp[AF_MIX_LN], dmp[AF_PERI_LN]));
  fig_cap_printf(c, "\nParticle check, largest differences over the run: "
                    "|cos − γ| ≤ %s (%s); relative gap difference ≤ %s while "
                    "the gap is ≥ 10⁻⁶.  The MPFR particles follow the n = 8 "
                    "ODE down to a gap of %s (Post-LN) and %s (nGPT), with "
                    "largest relative difference ",
                 fig_num(b1, dcos, 2),
                 af_scheme_get((af_scheme_id)wcos)->title,
                 fig_num(b2, dgap, 2), fig_num(b3, gmin[AF_POST_LN], 2),
                 fig_num(b4, gmin[AF_NGPT], 2));
  fig_cap_printf(c, "%s and %s", fig_num(b1, dmp[AF_POST_LN], 2),
                 fig_num(b2, dmp[AF_NGPT], 2));
  fig_cap_printf(c, ", %s for LN-Scaling (down to %s) and at most %s for "
                    "Pre-, Mix- and Peri-LN.\n",
                 fig_num(b1, dmp[AF_LN_SCALING], 2),
                 fig_num(b2, gmin[AF_LN_SCALING], 2), fig_num(b3, dpoly, 2));
  return c->rc;
}
