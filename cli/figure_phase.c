/* figure_phase.c -- `attnflow figure`, cases C3 and C4: beta x t phase
 * diagrams (fraction of pairs with cosine > 0.999) of the public step vs
 * rk8pd vs a reference, run as OpenMP sweeps (af_sweep_pairs,
 * src/flow/sweep.c), and their caption. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "figure.h"

/* CPU seconds of the whole process (every thread). */
static double fig_cpu_all(void) { return af_out_clock(CLOCK_PROCESS_CPUTIME_ID); }

/* Wall-clock seconds (monotonic), for the timings in the provenance. */
static double fig_now(void) { return af_out_clock(CLOCK_MONOTONIC); }

/* Progress of a sweep on the terminal (fig_cfg of the figure as ctx). */
typedef struct {
  const fig_cfg *c;
  const char *what;
} fig_sweep_note;

static void fig_sweep_progress(size_t done, size_t total, void *vctx) {
  const fig_sweep_note *x = vctx;
  if (done == total || done % 16 == 0)
    fig_note(x->c, "%s: run %zu/%zu", x->what, done, total);
}

/* Time at which the mean fraction m[0..nt-1] first reaches 1/2, linear
 * between output times; NaN if never. */
static double fig_t_half(const double *m, const double *times, size_t nt) {
  for (size_t i = 0; i < nt; i++)
    if (m[i] >= 0.5) {
      if (i == 0) return times[0];
      return times[i - 1] +
             (times[i] - times[i - 1]) * (0.5 - m[i - 1]) / (m[i] - m[i - 1]);
    }
  return NAN;
}

/* One phase diagram (cases C3, C4): for each scheme, nsys Gaussian
 * normalized starts per beta integrated three ways -- the public step
 * (the scheme's layer map, h = 0.1), adaptive rk8pd (library defaults) and
 * a reference rk8pd at rtol 1e-13 -- with the mean over starts of the
 * fraction of pairs with cosine > 0.999 on the grid beta x t. */
typedef struct {
  size_t n, d, nbeta, nsys;
  double t_end;
  size_t ref_stride; /* reference sweep on every ref_stride-th beta only */
} fig_phase_size;

typedef struct {
  fig_phase_size z; /* the sizes, those of --quick in place */
  double b_lo, b_hi, dt, alpha;
  const af_scheme_id *schemes;
  size_t nschemes;
  const char *title;
} fig_phase_cfg;

static int fig_phase(fig_table *T, const fig_cfg *c, const fig_phase_cfg *p) {
  enum { R_LAY, R_ADAPT, R_REF, R_N };
  static const char *const rname[R_N] = {"h0.1", "rk8pd", "ref"};
  af_integ_opts o[R_N];
  fig_runs_lay_adapt_ref(o); /* R_LAY, R_ADAPT, R_REF */
  const double thr = 0.999;
  size_t nt;
  double *times = fig_linear_times(&nt, p->z.t_end, p->dt);
  double *betas = malloc(p->z.nbeta * sizeof *betas);
  double *sbetas = malloc(p->z.nbeta * sizeof *sbetas);
  const size_t nrun = p->z.nbeta * p->z.nsys;
  double *frac = malloc(nrun * (times ? nt : 1) * sizeof *frac);
  double *mean = malloc(p->z.nbeta * (times ? nt : 1) * sizeof *mean);
  int *st = malloc(nrun * sizeof *st);
  int rc = (times && betas && sbetas && frac && mean && st) ? AF_OK : AF_ENOMEM;
  for (size_t b = 0; b < p->z.nbeta && rc == AF_OK; b++)
    betas[b] = p->z.nbeta == 1 ? p->b_lo
                             : p->b_lo + (p->b_hi - p->b_lo) * (double)b /
                                             (double)(p->z.nbeta - 1);
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "case", p->title);
  if (rc == AF_OK) {
    char buf[256] = "";
    for (size_t s = 0; s < p->nschemes; s++)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
               s ? "," : "", fig_scheme_name((int)p->schemes[s]));
    rc = af_prov_add_str(&T->prov, "schemes", buf);
  }
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", p->z.n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "d", p->z.d);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "beta", "%zu values %g + (%g - %g) k/%zu",
                         p->z.nbeta, p->b_lo, p->b_hi, p->b_lo,
                         p->z.nbeta > 1 ? p->z.nbeta - 1 : 1);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "systems", p->z.nsys);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "ref_betas",
                         "every %zu-th beta from the first (other rows of "
                         "the ref columns NaN)", p->z.ref_stride);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "init",
                         "uniform (Gaussian, normalized), r = 1; start k has "
                         "seed af_sweep_seed(seed, k), the same for every "
                         "beta and scheme");
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seed", c->seed);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", p->alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "cos_threshold", thr);
  if (rc == AF_OK) rc = fig_prov_grid(T, p->z.t_end, p->dt);
  if (rc == AF_OK) rc = fig_prov_runs(T, rname, o, R_N);
#ifdef _OPENMP
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "threads",
                         "OpenMP, one run per thread (results independent "
                         "of the thread count)");
#endif
  if (rc == AF_OK)
    rc = af_prov_add_str(
        &T->prov, "columns",
        "beta, t; frac_R_S = mean over the starts of the fraction of pairs "
        "with cosine > cos_threshold, run R (h0.1 = public step, the layer "
        "map of S; rk8pd; ref), scheme S; thalf_R_S = first time the mean "
        "fraction reaches 1/2 (linear between output times, NaN: not by "
        "t_end), repeated on every row of its beta");
  long cb = fig_col(T, "beta"), ct = fig_col(T, "t");
  long cf[AF_SCHEME_COUNT][R_N], ch[AF_SCHEME_COUNT][R_N];
  for (size_t s = 0; s < p->nschemes; s++)
    for (int k = 0; k < R_N; k++) {
      cf[s][k] = fig_col(T, "frac_%s_%s", rname[k],
                         fig_scheme_name((int)p->schemes[s]));
      ch[s][k] = fig_col(T, "thalf_%s_%s", rname[k],
                         fig_scheme_name((int)p->schemes[s]));
      if (cf[s][k] < 0 || ch[s][k] < 0) rc = AF_ENOMEM;
    }
  if (cb < 0 || ct < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, p->z.nbeta * nt);
  for (size_t b = 0; b < p->z.nbeta && rc == AF_OK; b++)
    for (size_t i = 0; i < nt; i++) {
      *fig_at(T, b * nt + i, cb) = betas[b];
      *fig_at(T, b * nt + i, ct) = times[i];
    }
  for (size_t s = 0; s < p->nschemes && rc == AF_OK; s++) {
    const char *sn = fig_scheme_name((int)p->schemes[s]);
    af_model m;
    af_model_init(&m, p->z.n, p->z.d, 1.0, p->schemes[s]);
    m.alpha = p->alpha;
    for (int k = 0; k < R_N && rc == AF_OK; k++) {
      /* The reference sweep costs most (rtol 1e-13): on a subset of the
       * betas, every ref_stride-th (the other rows of its columns NaN). */
      const size_t stride = k == R_REF ? p->z.ref_stride : 1;
      const size_t nbk = (p->z.nbeta + stride - 1) / stride;
      const size_t nrunk = nbk * p->z.nsys;
      for (size_t b = 0; b < nbk; b++) sbetas[b] = betas[b * stride];
      af_sweep_spec sw;
      af_sweep_spec_init(&sw, &m, sbetas, nbk, p->z.nsys, times, nt);
      sw.seed = c->seed;
      sw.opts = o[k];
      sw.cos_threshold = thr;
      char what[64];
      snprintf(what, sizeof what, "%s %s", sn, rname[k]);
      fig_sweep_note note = {c, what};
      unsigned long ne = 0;
      double t0 = fig_now(), c0 = fig_cpu_all();
      rc = af_sweep_pairs(frac, st, &ne, &sw,
                          c->progress ? fig_sweep_progress : NULL, &note);
      double el = fig_now() - t0, cpu = fig_cpu_all() - c0;
      size_t nfail = 0;
      int first_fail = AF_OK;
      for (size_t r = 0; r < nrunk; r++)
        if (st[r] != AF_OK) {
          if (nfail++ == 0) first_fail = st[r];
        }
      /* Mean over the starts; a failed run (NaN) makes its beta NaN from
       * the failure on: never averaged over the survivors silently. */
      for (size_t bk = 0; bk < nbk && rc == AF_OK; bk++) {
        const size_t b = bk * stride;
        double *mb = mean + b * nt;
        for (size_t i = 0; i < nt; i++) {
          double sum = 0;
          for (size_t q = 0; q < p->z.nsys; q++)
            sum += frac[(bk * p->z.nsys + q) * nt + i];
          mb[i] = sum / (double)p->z.nsys;
        }
        double th = fig_t_half(mb, times, nt);
        for (size_t i = 0; i < nt; i++) {
          *fig_at(T, b * nt + i, cf[s][k]) = mb[i];
          *fig_at(T, b * nt + i, ch[s][k]) = th;
        }
      }
      char key[96];
      snprintf(key, sizeof key, "runs_%s_%s", rname[k], sn);
      if (rc == AF_OK)
        rc = af_prov_add_fmt(&T->prov, key,
                             "%zu runs, %zu failed%s%s, %lu evaluations, "
                             "%.3g s wall, %.3g s CPU (all threads)",
                             nrunk, nfail, nfail ? " first: " : "",
                             nfail ? af_status_name(first_fail) : "", ne, el,
                             cpu);
    }
    /* Largest differences of the mean fraction (descriptive). */
    double dlay = 0, dref = 0;
    for (size_t r = 0; r < p->z.nbeta * nt && rc == AF_OK; r++) {
      double a = *fig_at(T, r, cf[s][R_ADAPT]);
      dlay = fmax(dlay, fabs(*fig_at(T, r, cf[s][R_LAY]) - a));
      dref = fmax(dref, fabs(*fig_at(T, r, cf[s][R_REF]) - a));
    }
    char key[96];
    snprintf(key, sizeof key, "maxdiff_%s", sn);
    if (rc == AF_OK)
      rc = af_prov_add_fmt(&T->prov, key,
                           "max |frac_h0.1 - frac_rk8pd| = %.4g, max "
                           "|frac_ref - frac_rk8pd| = %.4g",
                           dlay, dref);
  }
  fig_note_done(c);
  FIG_FREE(times, betas, sbetas, frac, mean, st);
  return rc;
}

static const af_scheme_id fig_c3_schemes[1] = {AF_POST_LN};
static const af_scheme_id fig_c4_schemes[4] = {AF_POST_LN, AF_PRE_LN,
                                               AF_PERI_LN, AF_NGPT};

/* C3 and C4: the case, then its sizes under --quick. */
static const struct {
  fig_phase_cfg full;
  fig_phase_size quick;
} fig_phase_cases[2] = {
    {{{32, 2, 90, 2048, 30, 10}, 0.1, 9, 0.5, 1.0, fig_c3_schemes, 1,
      "C3: SA (Post-LN) on the circle, Q = K = V = I"},
     {8, 2, 6, 4, 5, 2}},
    {{{64, 16, 20, 16, 50, 1}, 0.1, 15, 0.5, 0.2, fig_c4_schemes, 4,
      "C4: Post-, Pre-, Peri-LN, nGPT (alpha = 0.2), Q = K = V = I"},
     {8, 4, 4, 2, 5, 1}}};

/* Case k of fig_phase_cases at the sizes of c (--quick, --systems). */
static int fig_phase_case(fig_table *T, const fig_cfg *c, int k) {
  fig_phase_cfg p = fig_phase_cases[k].full;
  if (c->quick) p.z = fig_phase_cases[k].quick;
  if (c->systems) p.z.nsys = c->systems;
  return fig_phase(T, c, &p);
}

int fig_c3(fig_table *T, const fig_cfg *c) { return fig_phase_case(T, c, 0); }

int fig_c4(fig_table *T, const fig_cfg *c) { return fig_phase_case(T, c, 1); }

/* Wall and CPU seconds of a sweep from its provenance line runs_R_S
 * ("..., N evaluations, W s wall, C s CPU (all threads)"). */
static void fig_cap_sweep_time(fig_cap *c, const char *r, const char *sn,
                               double *wall, double *cpu) {
  char key[96];
  snprintf(key, sizeof key, "runs_%s_%s", r, sn);
  const char *v = fig_cap_prov(c, key), *p = strstr(v, "evaluations, ");
  *wall = *cpu = NAN;
  if (p == NULL || sscanf(p, "evaluations, %lf s wall, %lf s CPU", wall, cpu) != 2)
    c->rc = AF_EPARSE;
}

/* Caption of a phase diagram (C3, C4): per scheme what rk8pd shows, the
 * reference's agreement, what the public step changes, and the cost. */
int fig_cap_phase(fig_cap *c) {
  const fig_table *t = c->t;
  static const char *const rn[3] = {"h0.1", "rk8pd", "ref"};
  long cb = fig_cap_col(c, "beta"), ct = fig_cap_col(c, "t");
  const char *schemes = fig_cap_prov(c, "schemes");
  if (c->rc != AF_OK || t->nrow == 0) return AF_EPARSE;
  size_t nt = 0;
  while (nt < t->nrow && fig_cap_at(c, nt, cb) == fig_cap_at(c, 0, cb)) nt++;
  size_t nb = t->nrow / nt;
  if (nb * nt != t->nrow) return AF_EPARSE;
  double tend = fig_cap_at(c, nt - 1, ct), twall = 0, tcpu = 0;
  char list[256], b[8][48];
  snprintf(list, sizeof list, "%s", schemes);
  for (char *sv = NULL, *sn = strtok_r(list, ",", &sv); sn && c->rc == AF_OK;
       sn = strtok_r(NULL, ",", &sv)) {
    af_scheme_id sid = AF_POST_LN;
    if (af_scheme_lookup(&sid, sn) != AF_OK) return AF_EPARSE;
    long cf[3], ch[3];
    for (int k = 0; k < 3; k++) {
      cf[k] = fig_cap_col(c, "frac_%s_%s", rn[k], sn);
      ch[k] = fig_cap_col(c, "thalf_%s_%s", rn[k], sn);
    }
    if (c->rc != AF_OK) break;
    /* rk8pd: one cluster for every start at t_end up to beta1; t_half
     * range and the last beta where it exists (rk8pd and public step). */
    double beta1 = NAN, th_lo = NAN, th_hi = NAN, bth_hi = NAN, blast[2] = {NAN, NAN};
    for (size_t q = 0; q < nb; q++) {
      size_t r = q * nt;
      double beta = fig_cap_at(c, r, cb);
      if (fig_cap_at(c, r + nt - 1, cf[1]) == 1 && (q == 0 || beta1 == fig_cap_at(c, r - nt, cb)))
        beta1 = beta;
      double th = fig_cap_at(c, r, ch[1]);
      if (!isnan(th)) {
        if (isnan(th_lo)) th_lo = th;
        if (isnan(th_hi) || th > th_hi) {
          th_hi = th;
          bth_hi = beta;
        }
        blast[1] = beta;
      }
      if (!isnan(fig_cap_at(c, r, ch[0]))) blast[0] = beta;
    }
    fig_cap_printf(c, "%s (rk8pd): ", af_scheme_get(sid)->title);
    if (!isnan(beta1))
      fig_cap_printf(c, "every start is in one cluster by t = %s for β ≤ %s; ",
                     fig_num(b[0], tend, 3), fig_num(b[1], beta1, 3));
    fig_cap_printf(c, "mean fraction at t = %s: %.3f at β = %s, %.3f at β = "
                      "%s, %.3f at β = %s; ",
                   fig_num(b[0], tend, 3), fig_cap_at(c, nt - 1, cf[1]),
                   fig_num(b[1], fig_cap_at(c, 0, cb), 3),
                   fig_cap_at(c, (nb / 2) * nt + nt - 1, cf[1]),
                   fig_num(b[2], fig_cap_at(c, (nb / 2) * nt, cb), 3),
                   fig_cap_at(c, t->nrow - 1, cf[1]),
                   fig_num(b[3], fig_cap_at(c, t->nrow - 1, cb), 3));
    if (!isnan(th_lo))
      fig_cap_printf(c, "t½ from %s (β = %s) up to %s (β = %s); the mean "
                        "fraction reaches 1/2 by t = %s up to β = %s (public "
                        "step: up to β = %s).  ",
                     fig_num(b[0], th_lo, 3), fig_num(b[1], fig_cap_at(c, 0, cb), 3),
                     fig_num(b[2], th_hi, 3), fig_num(b[3], bth_hi, 3),
                     fig_num(b[4], tend, 3), fig_num(b[5], blast[1], 3),
                     fig_num(b[6], blast[0], 3));
    else
      fig_cap_printf(c, "the mean fraction never reaches 1/2 by t = %s.  ",
                     fig_num(b[0], tend, 3));
    /* Reference and public step against rk8pd. */
    double dref = 0, dlo = 0, dhi = 0, blo = NAN, tlo = NAN, bhi = NAN, thi = NAN;
    size_t nlo = 0, nhi = 0, nref = 0;
    double shlo = INFINITY, shhi = -INFINITY, shrel = 0;
    for (size_t r = 0; r < t->nrow; r++) {
      double a = fig_cap_at(c, r, cf[1]);
      dref = fmax(dref, fabs(fig_cap_at(c, r, cf[2]) - a));
      if (r % nt == 0 && !isnan(fig_cap_at(c, r, cf[2]))) nref++;
      double e = fig_cap_at(c, r, cf[0]) - a;
      if (e < 0) nlo++;
      if (e > 0) nhi++;
      if (e < dlo) {
        dlo = e;
        blo = fig_cap_at(c, r, cb);
        tlo = fig_cap_at(c, r, ct);
      }
      if (e > dhi) {
        dhi = e;
        bhi = fig_cap_at(c, r, cb);
        thi = fig_cap_at(c, r, ct);
      }
      if (r % nt == 0) {
        double s0 = fig_cap_at(c, r, ch[0]), s1 = fig_cap_at(c, r, ch[1]);
        if (!isnan(s0) && !isnan(s1)) {
          shlo = fmin(shlo, s0 - s1);
          shhi = fmax(shhi, s0 - s1);
          shrel = fmax(shrel, fabs(s0 - s1) / s1);
        }
      }
    }
    fig_cap_printf(c, "The reference (run for %zu of the %zu values of β) "
                      "differs from rk8pd by at most %s in the mean "
                      "fraction.  The public step h = 0.1 is lower in "
                      "%.0f %% of the cells and higher in %.0f %%, from %s "
                      "(β = %s, t = %s) to %s",
                   nref, nb, fig_num(b[0], dref, 2),
                   100.0 * (double)nlo / (double)t->nrow,
                   100.0 * (double)nhi / (double)t->nrow, fig_num(b[1], dlo, 2),
                   fig_num(b[2], blo, 3), fig_num(b[3], tlo, 3),
                   fig_num(b[4], dhi, 2));
    if (dhi > 0)
      fig_cap_printf(c, " (β = %s, t = %s)", fig_num(b[0], bhi, 3),
                     fig_num(b[1], thi, 3));
    if (shlo <= shhi)
      fig_cap_printf(c, "; its t½ differs by %s to %s (up to %.0f %%)",
                     fig_num(b[0], shlo, 2), fig_num(b[1], shhi, 2),
                     100 * shrel);
    fig_cap_printf(c, ".  Sweeps (wall / CPU of all threads):");
    for (int k = 0; k < 3; k++) {
      double w, u;
      fig_cap_sweep_time(c, rn[k], sn, &w, &u);
      twall += w;
      tcpu += u;
      fig_cap_printf(c, "%s %s %s s / %s s", k ? "," : "", rn[k],
                     fig_num(b[0], w, 3), fig_num(b[1], u, 3));
    }
    fig_cap_printf(c, ".\n\n");
  }
  char b9[48], b10[48];
  fig_cap_printf(c, "All sweeps together: %s s wall, %s s CPU.\n",
                 fig_num(b9, twall, 3), fig_num(b10, tcpu, 3));
  return c->rc;
}
