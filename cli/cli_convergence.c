/* cli_convergence.c -- `attnflow convergence`: the observed order of
 * convergence of each integrator and a work-precision table, for a case
 * of one's own, against an MPFR reference.
 *
 * The case is given with the options of `attnflow run` (scheme, n, d,
 * beta, start, weights, kernel, ...; t_end is the time compared).  The
 * reference is the final state of the MPFR path (af_mp_integrate,
 * mp-gbs: Gragg-Bulirsch-Stoer extrapolation) at --ref-precision bits and
 * --ref-tol, checked against mp-gauss (Gauss-Legendre collocation, an
 * independent method) at the same settings; the check is in the output.
 * Each run's error is max_i |y_i(t_end) - ref_i| over the directions and
 * the radii of the state.
 *
 * Two kinds of rows, after DiffEqDevTools (Julia): test_convergence, fixed
 * steps h = t_end/N for N in --steps with the observed order
 * log(e_{k-1}/e_k) / log(h_{k-1}/h_k) of each refinement and their
 * median over the refinements with both errors in [1e-13, 1e-2]
 * (above, the asymptotic regime has not begun; below, double rounding
 * dominates, as in docs/figures.md's conv figure); and WorkPrecisionSet,
 * adaptive runs at rtol = atol = tol for tol in --tols with their error,
 * accepted steps, right-hand-side evaluations and CPU time (the least of
 * --reps repetitions, one thread: CLOCK_THREAD_CPUTIME_ID).  msadams has
 * no fixed steps; rk4 and the layer maps have no error control: they
 * appear in the rows they have.
 *
 * Output: CSV with the provenance block ("# key: value"), a header row
 * method,fixed,N,h,tol,steps,nevals,time,err,order and one row per run,
 * written (and flushed, on standard output) as each run ends; the fitted
 * orders follow the last row as "# order_METHOD: ..." lines, like the
 * statistics of `attnflow run`.  --plot PREFIX also writes PREFIX.gp and,
 * when gnuplot is on the PATH, runs it: PREFIX.png and PREFIX.svg, the
 * work-precision diagram (error against CPU time and against evaluations)
 * and the convergence panel (error against h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attnflow_mp.h"
#include "cli.h"
#include "cli_run.h"
#include "output.h"

/* The command's own options (shadowing run's --out and --help). */
enum { C_HELP, C_METHODS, C_STEPS, C_TOLS, C_REF_TOL, C_REF_PREC, C_REPS,
       C_OUT, C_PLOT, C_PROGRESS, C_COUNT };
static const af_cli_opt cv_own[C_COUNT] = {
    [C_HELP] = {"help", 0},         [C_METHODS] = {"methods", 1},
    [C_STEPS] = {"steps", 1},       [C_TOLS] = {"tols", 1},
    [C_REF_TOL] = {"ref-tol", 1},   [C_REF_PREC] = {"ref-precision", 1},
    [C_REPS] = {"reps", 1},         [C_OUT] = {"out", 1},
    [C_PLOT] = {"plot", 1},         [C_PROGRESS] = {"progress", 0}};

/* run options that name what this command varies or writes itself. */
static const struct {
  int opt;
  const char *why;
} cv_refused[] = {
    {O_TIMES, "the state at --t-end is compared"},
    {O_METHOD, "use --methods"},
    {O_H, "use --steps (numbers of fixed steps)"},
    {O_RTOL, "use --tols"},
    {O_ATOL, "use --tols"},
    {O_PRECISION, "use --ref-precision for the reference"},
    {O_TOL, "use --ref-tol for the reference"},
    {O_DIGITS, "the output is CSV of doubles"},
    {O_FORMAT, "the output is CSV"},
    {O_SAVE_STATE, "no state is saved"},
    {O_CHECKPOINT, "the runs are short"},
    {O_CHECKPOINT_EVERY, "the runs are short"},
    {O_RESUME, "the runs are short"},
    {O_OBSERVABLES, "the error is on the whole state"},
    {O_CLUSTER_COS, "the error is on the whole state"},
    {O_MAX_STEPS, "each run has the library's limit"},
};

static const char *const cv_default_methods =
    "rk8pd,vern9,rkf45,rkck,rk4,msadams,layers";
static const char *const cv_default_steps =
    "2,3,4,6,8,12,16,24,32,48,64,96,128,192,256,384,512,768,1024";
static const char *const cv_default_tols =
    "1e-3,1e-4,1e-5,1e-6,1e-7,1e-8,1e-9,1e-10,1e-11,1e-12,1e-13";

static void cv_help(void) {
  printf(
      "Usage: attnflow convergence --scheme S --n N --d D --beta B [RUN OPTIONS]\n"
      "                            [--methods LIST] [--steps LIST] [--tols LIST]\n"
      "                            [--ref-tol TOL] [--ref-precision BITS] [--reps K]\n"
      "                            [--out PATH] [--plot PREFIX] [--progress]\n"
      "\n"
      "Observed orders of convergence and a work-precision table of the\n"
      "integrators on one case, against an MPFR reference (mp-gbs, checked\n"
      "against mp-gauss).  The case: the options of 'attnflow run' (--scheme,\n"
      "--n, --d, --beta, --init, --seed, --r0, --alpha, --alpha-decay, --tau,\n"
      "--attention, --kernel, --weights; --t-end, default 10, is the time\n"
      "compared).  Error: max_i |y_i(t_end) - ref_i| over the whole state.\n"
      "\n"
      "  --methods LIST   methods, comma-separated (default\n"
      "                   rk8pd,vern9,rkf45,rkck,rk4,msadams,layers)\n"
      "  --steps LIST     numbers N of fixed steps h = t_end/N (default\n"
      "                   2,3,4,6,8,12,...,1024); observed order per refinement,\n"
      "                   and their median over errors in [1e-13, 1e-2]\n"
      "  --tols LIST      tolerances rtol = atol of the adaptive runs (default\n"
      "                   1e-3,1e-4,...,1e-13)\n"
      "  --ref-tol TOL    tolerance of the MPFR reference (default 1e-30)\n"
      "  --ref-precision BITS  its precision (default 160)\n"
      "  --reps K         CPU time: least of K repetitions (default 3)\n"
      "  --out PATH       the CSV (default '-', standard output)\n"
      "  --plot PREFIX    also write PREFIX.gp and, with gnuplot on the PATH,\n"
      "                   PREFIX.png and PREFIX.svg (needs --out FILE)\n"
      "  --progress       one line per finished run on stderr\n"
      "\n"
      "Columns: method, fixed (1: fixed steps, 0: adaptive), N, h, tol, steps,\n"
      "nevals, time (CPU s, one thread), err, order (observed, fixed steps).\n"
      "The fitted order of each method follows the rows ('# order_METHOD:').\n"
      "\n"
      "Exit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

typedef struct {
  af_run_cfg c;
  af_model m;
  af_weights *wts;
  double *y0, *ref;
  size_t ss;
  af_method methods[AF_METHOD_COUNT];
  size_t nmethods;
  double *steps, *tols;
  size_t nsteps, ntols;
  double ref_tol;
  unsigned long ref_prec, reps;
  int progress, stream;
  af_prov prov;
  /* Filled while writing. */
  size_t nrow;
  double *fit; /* per method: median observed order (NaN if < 2) */
  char ref_text[256], check_text[256];
  int run_status;
  const char *failed;
} cv_ctx;

/* One double run from y0 to t_end; err against ref, the least CPU time
 * of reps repetitions. */
static int cv_run(double *err, double *steps, double *nevals, double *secs,
                  const cv_ctx *x, const af_integ_opts *o) {
  double *y = malloc(x->ss * sizeof *y);
  af_work *w = af_work_alloc(x->m.n, x->m.d);
  int rc = (y && w) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) rc = af_work_set_kernel(w, x->c.kernel);
  double times[2] = {0, x->c.t_end}, best = INFINITY;
  af_integ_stats st = {0, 0, 0};
  for (unsigned long r = 0; r < x->reps && rc == AF_OK; r++) {
    memcpy(y, x->y0, x->ss * sizeof *y);
    double t0 = af_out_clock(CLOCK_THREAD_CPUTIME_ID);
    rc = af_integrate(y, times, 2, &x->m, o, w, NULL, NULL, &st);
    best = fmin(best, af_out_clock(CLOCK_THREAD_CPUTIME_ID) - t0);
  }
  if (rc == AF_OK) {
    double e = 0;
    for (size_t i = 0; i < x->ss; i++) e = fmax(e, fabs(y[i] - x->ref[i]));
    *err = e;
    *steps = (double)st.steps;
    *nevals = (double)st.nevals;
    *secs = best;
  }
  af_work_free(w);
  free(y);
  return rc;
}

/* The MPFR reference (mp-gbs) and its check (mp-gauss), rounded to
 * double in x->ref. */
/* One MPFR integration of the case's start to t_end with method 'method',
 * its thread CPU time in *secs. */
static int cv_mp_timed(mpfr_t *y, af_mp_method method, const cv_ctx *x,
                       const double times[2], af_mp_opts *o, af_mp_work *w,
                       af_mp_stats *st, double *secs) {
  o->method = method;
  af_mp_vec_set_d(y, x->y0, x->ss);
  double t0 = af_out_clock(CLOCK_THREAD_CPUTIME_ID);
  int rc = af_mp_integrate(y, times, 2, &x->m, o, w, NULL, NULL, st);
  *secs = af_out_clock(CLOCK_THREAD_CPUTIME_ID) - t0;
  return rc;
}

static int cv_reference(cv_ctx *x) {
  size_t ss = x->ss;
  mpfr_prec_t prec = (mpfr_prec_t)x->ref_prec;
  mpfr_t *a = af_mp_vec_alloc(ss, prec), *b = af_mp_vec_alloc(ss, prec);
  af_mp_work *w = af_mp_work_alloc(x->m.n, x->m.d, prec);
  int rc = (a && b && w) ? AF_OK : AF_ENOMEM;
  double times[2] = {0, x->c.t_end};
  af_mp_stats sa, sb;
  double ta = 0, tb = 0;
  af_mp_opts o;
  af_mp_opts_init(&o);
  o.tol = x->ref_tol;
  if (rc == AF_OK)
    rc = cv_mp_timed(a, AF_MP_GBS, x, times, &o, w, &sa, &ta);
  if (rc == AF_OK)
    rc = cv_mp_timed(b, AF_MP_GAUSS, x, times, &o, w, &sb, &tb);
  if (rc == AF_OK) {
    af_mp_vec_get_d(x->ref, a, ss);
    snprintf(x->ref_text, sizeof x->ref_text,
             "mp-gbs (af_mp_integrate), tol %g, %lu bits, %lu steps, order "
             "%u, own error estimate %.3g, %.3g s",
             x->ref_tol, x->ref_prec, sa.steps, sa.order, sa.err_est, ta);
    snprintf(x->check_text, sizeof x->check_text,
             "max |mp-gauss - mp-gbs| = %.3g (mp-gauss order %u, %lu steps, "
             "%.3g s)",
             af_mp_vec_maxdiff(a, b, ss), sb.order, sb.steps, tb);
  }
  af_mp_work_free(w);
  if (a) af_mp_vec_free(a, ss);
  if (b) af_mp_vec_free(b, ss);
  return rc;
}

enum { CV_N, CV_H, CV_TOL, CV_STEPS, CV_NEVALS, CV_TIME, CV_ERR, CV_ORDER,
       CV_NVAL };

static int cv_row(FILE *f, cv_ctx *x, af_method mth, int fixed,
                  const double *v) {
  if (fprintf(f, "%s,%d", af_method_name(mth), fixed) < 0) return AF_EIO;
  for (int k = 0; k < CV_NVAL; k++)
    if (fprintf(f, ",%.17g", v[k]) < 0) return AF_EIO;
  if (fputc('\n', f) == EOF) return AF_EIO;
  if (x->stream && fflush(f) != 0) return AF_EIO;
  if (x->progress) {
    if (fixed)
      fprintf(stderr, "convergence: %s, %.0f fixed steps: error %.3g\n",
              af_method_name(mth), v[CV_N], v[CV_ERR]);
    else
      fprintf(stderr, "convergence: %s, tol %g: error %.3g\n",
              af_method_name(mth), v[CV_TOL], v[CV_ERR]);
  }
  x->nrow++;
  return AF_OK;
}

static int cv_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of the observed orders log(e_{i-1}/e_i) / log(h_{i-1}/h_i) of
 * the refinements whose two errors lie in [lo, hi]: robust to the few
 * coarse steps before the asymptotic regime and to rounding at the fine
 * end.  NaN with fewer than 2 such refinements. */
static double cv_order(const double *h, const double *e, size_t k, double lo,
                       double hi) {
  double *p = malloc((k ? k : 1) * sizeof *p);
  if (p == NULL) return NAN;
  size_t c = 0;
  for (size_t i = 1; i < k; i++)
    if (e[i - 1] >= lo && e[i - 1] <= hi && e[i] >= lo && e[i] <= hi)
      p[c++] = log(e[i - 1] / e[i]) / log(h[i - 1] / h[i]);
  double r = NAN;
  if (c >= 2) {
    qsort(p, c, sizeof *p, cv_cmp);
    r = c % 2 ? p[c / 2] : 0.5 * (p[c / 2 - 1] + p[c / 2]);
  }
  free(p);
  return r;
}

#define CV_FIT_LO 1e-13
#define CV_FIT_HI 1e-2

static int cv_write(FILE *f, void *vctx) {
  cv_ctx *x = vctx;
  x->nrow = 0;
  int rc = cv_reference(x);
  if (rc != AF_OK) {
    x->run_status = rc;
    x->failed = "the MPFR reference";
    return rc;
  }
  af_prov *p = &x->prov;
  rc = af_prov_add_str(p, "reference", x->ref_text);
  if (rc == AF_OK) rc = af_prov_add_str(p, "reference_check", x->check_text);
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "error",
                         "max_i |y_i(t_end) - ref_i| over directions and radii");
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "time",
                         "CPU seconds of af_integrate, one thread, least of "
                         "the repetitions");
  if (rc == AF_OK) rc = af_out_provenance_csv(f, p);
  if (rc != AF_OK) return rc;
  if (fprintf(f, "method,fixed,N,h,tol,steps,nevals,time,err,order\n") < 0)
    return AF_EIO;
  if (x->stream && fflush(f) != 0) return AF_EIO;

  double *hs = malloc((x->nsteps ? x->nsteps : 1) * sizeof *hs);
  double *es = malloc((x->nsteps ? x->nsteps : 1) * sizeof *es);
  if (hs == NULL || es == NULL) rc = AF_ENOMEM;
  for (size_t k = 0; k < x->nmethods && rc == AF_OK; k++) {
    af_method mth = x->methods[k];
    x->fit[k] = NAN;
    if (mth == AF_METHOD_MSADAMS) continue; /* no fixed steps */
    size_t got = 0;
    for (size_t i = 0; i < x->nsteps && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = mth;
      o.fixed = 1;
      o.h = x->c.t_end / x->steps[i];
      double v[CV_NVAL];
      rc = cv_run(&v[CV_ERR], &v[CV_STEPS], &v[CV_NEVALS], &v[CV_TIME], x, &o);
      if (rc != AF_OK) {
        x->run_status = rc;
        x->failed = af_method_name(mth);
        break;
      }
      v[CV_N] = x->steps[i];
      v[CV_H] = o.h;
      v[CV_TOL] = NAN;
      v[CV_ORDER] = got > 0 && es[got - 1] > 0 && v[CV_ERR] > 0
                        ? log(es[got - 1] / v[CV_ERR]) / log(hs[got - 1] / o.h)
                        : NAN;
      hs[got] = o.h;
      es[got] = v[CV_ERR];
      got++;
      rc = cv_row(f, x, mth, 1, v);
    }
    x->fit[k] = cv_order(hs, es, got, CV_FIT_LO, CV_FIT_HI);
  }
  for (size_t k = 0; k < x->nmethods && rc == AF_OK; k++) {
    af_method mth = x->methods[k];
    if (af_method_fixed(mth)) continue; /* rk4, layers: no error control */
    for (size_t i = 0; i < x->ntols && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = mth;
      o.rtol = o.atol = x->tols[i];
      double v[CV_NVAL];
      rc = cv_run(&v[CV_ERR], &v[CV_STEPS], &v[CV_NEVALS], &v[CV_TIME], x, &o);
      if (rc != AF_OK) {
        x->run_status = rc;
        x->failed = af_method_name(mth);
        break;
      }
      v[CV_N] = NAN;
      v[CV_H] = NAN;
      v[CV_TOL] = x->tols[i];
      v[CV_ORDER] = NAN;
      rc = cv_row(f, x, mth, 0, v);
    }
  }
  free(hs);
  free(es);
  for (size_t k = 0; k < x->nmethods && rc == AF_OK; k++) {
    if (x->methods[k] == AF_METHOD_MSADAMS) continue;
    char buf[48];
    if (isnan(x->fit[k]))
      snprintf(buf, sizeof buf, "nan");
    else
      snprintf(buf, sizeof buf, "%.3f", x->fit[k]);
    if (fprintf(f,
                "# order_%s: %s (median observed order of the refinements "
                "with both errors in [%g, %g]; nominal %d)\n",
                af_method_name(x->methods[k]), buf, CV_FIT_LO, CV_FIT_HI,
                af_method_order(x->methods[k])) < 0)
      rc = AF_EIO;
  }
  return rc;
}

/* The gnuplot script of --plot: work-precision (error against CPU time,
 * against evaluations) and convergence (error against h), every method
 * of the table. */
static int cv_plot(const char *prefix, const char *csv, const cv_ctx *x) {
  size_t len = strlen(prefix) + 8;
  char *gp = malloc(len);
  if (gp == NULL) return AF_ENOMEM;
  snprintf(gp, len, "%s.gp", prefix);
  FILE *f = fopen(gp, "w");
  if (f == NULL) {
    af_cli_error("convergence: cannot open '%s': %s", gp, strerror(errno));
    free(gp);
    return AF_EIO;
  }
  fprintf(f,
          "# %s -- work-precision and convergence diagram of "
          "'attnflow convergence' (data: %s).\n"
          "set datafile separator comma\nset datafile columnheaders\n"
          "set encoding utf8\nset logscale xy\nset grid\n"
          "set format y \"10^{%%L}\"\nset format x \"10^{%%L}\"\n"
          "methods = \"",
          gp, csv);
  for (size_t k = 0; k < x->nmethods; k++)
    fprintf(f, "%s%s", k ? " " : "", af_method_name(x->methods[k]));
  fprintf(f,
          "\"\n"
          "sel(m, fx, v) = (strcol(\"method\") eq m && column(\"fixed\") == fx) ? v : NaN\n"
          "do for [fmt in \"png svg\"] {\n"
          "  if (fmt eq \"png\") { set term pngcairo enhanced size 1800,600 font 'Sans,13' } "
          "else { set term svg enhanced size 1800,600 font 'Sans,13' dynamic }\n"
          "  set output \"%s.\".fmt\n"
          "  set multiplot layout 1,3 title \"%s, n = %zu, d = %zu, β = %g, "
          "t = %g; error against the MPFR reference (solid: fixed steps, "
          "dashed: adaptive)\"\n"
          "  set ylabel \"max_i |y_i − y_i^{ref}|\"\n"
          "  set key inside left bottom font ',10'\n",
          prefix, x->c.scheme_name, x->m.n, x->m.d, x->m.beta, x->c.t_end);
  /* One curve per method and kind it has (msadams: adaptive only; rk4,
   * layers: fixed only), the same colour for a method in every panel. */
  static const char *const xcol[3] = {"time", "nevals", "h"};
  static const char *const head[3] = {
      "  set title \"work-precision: CPU time\"\n  set xlabel \"CPU s\"\n",
      "  set title \"work-precision: evaluations\"\n"
      "  set xlabel \"right-hand sides\"\n  set key off\n",
      "  set title \"convergence: fixed steps\"\n  set xlabel \"h\"\n"};
  for (int panel = 0; panel < 3; panel++) {
    fputs(head[panel], f);
    fputs("  plot", f);
    int first = 1;
    for (int fx = 1; fx >= 0; fx--) {
      if (panel == 2 && fx == 0) continue;
      for (size_t k = 0; k < x->nmethods; k++) {
        af_method mth = x->methods[k];
        if ((fx && mth == AF_METHOD_MSADAMS) || (!fx && af_method_fixed(mth)))
          continue;
        fprintf(f, "%s \"%s\" using (sel(\"%s\", %d, column(\"%s\"))):\"err\" "
                   "with linespoints lt %zu%s title \"%s%s\"",
                first ? "" : ", \\\n      ", csv, af_method_name(mth), fx,
                xcol[panel], k + 1, fx ? "" : " dt 2 pt 6",
                af_method_name(mth), fx ? " fixed" : " adaptive");
        first = 0;
      }
    }
    fputs("\n", f);
  }
  fputs("  unset multiplot\n  set output\n}\n", f);
  if (fclose(f) != 0) {
    af_cli_error("convergence: cannot write '%s': %s", gp, strerror(errno));
    free(gp);
    return AF_EIO;
  }
  /* gnuplot when it is on the PATH; without it the script stays. */
  pid_t pid = fork();
  if (pid == 0) {
    execlp("gnuplot", "gnuplot", gp, (char *)NULL);
    _exit(127);
  }
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) < 0) {
    af_cli_error("convergence: cannot run gnuplot: %s", strerror(errno));
    free(gp);
    return AF_EIO;
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    af_cli_warn("convergence: gnuplot not found: wrote %s only", gp);
  else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    af_cli_error("convergence: gnuplot %s failed", gp);
    free(gp);
    return AF_EIO;
  }
  free(gp);
  return AF_OK;
}

typedef struct {
  const char **own;
  const char **runv;
} cv_take_ctx;

static int cv_take(int o, const char *val, void *vctx) {
  cv_take_ctx *t = vctx;
  if (o < C_COUNT) {
    if (t->own[o] != NULL) {
      af_cli_error("convergence: --%s given twice", cv_own[o].name);
      return AF_EXIT_USAGE;
    }
    t->own[o] = val ? val : "";
    return AF_EXIT_OK;
  }
  o -= C_COUNT;
  for (size_t i = 0; i < sizeof cv_refused / sizeof cv_refused[0]; i++)
    if (cv_refused[i].opt == o) {
      af_cli_error("convergence: --%s is not an option here (%s)",
                   af_run_opts[o].name, cv_refused[i].why);
      return AF_EXIT_USAGE;
    }
  if (t->runv[o] != NULL) {
    af_cli_error("convergence: --%s given twice ('%s', then '%s')",
                 af_run_opts[o].name, t->runv[o], val);
    return AF_EXIT_USAGE;
  }
  t->runv[o] = val;
  return AF_EXIT_OK;
}

/* A positive list (steps: integers >= 1; tols: in [DBL_EPSILON, 1)). */
static int cv_list(double **v, size_t *k, const char *opt, const char *s,
                   int integers) {
  if (!af_cli_double_list(v, k, opt, s)) return 0;
  for (size_t i = 0; i < *k; i++) {
    double a = (*v)[i];
    if (integers ? !(a >= 1 && a <= 1e9 && a == floor(a))
                 : !(a >= 2.220446049250313e-16 && a < 1)) {
      af_cli_error("--%s: %s must be %s (got %s)", opt,
                   integers ? "every N" : "every tolerance",
                   integers ? "an integer in [1, 1e9]"
                            : "in [DBL_EPSILON, 1)",
                   s);
      return 0;
    }
  }
  return 1;
}

static int cv_methods(cv_ctx *x, const char *s) {
  char *buf = malloc(strlen(s) + 1);
  if (buf == NULL) return 0;
  strcpy(buf, s);
  int ok = 1;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && ok;
       tok = strtok_r(NULL, ",", &save)) {
    af_method id;
    if (af_method_lookup(&id, tok) != AF_OK) {
      char hint[80];
      af_cli_error("--methods: unknown method '%s' (rk8pd, rkf45, rk4, rkck, "
                   "msadams, layers, vern9)%s",
                   tok, af_cli_method_hint(hint, sizeof hint, tok));
      ok = 0;
      break;
    }
    for (size_t i = 0; i < x->nmethods; i++)
      if (x->methods[i] == id) {
        af_cli_error("--methods: '%s' listed twice", tok);
        ok = 0;
      }
    if (ok && x->nmethods < AF_METHOD_COUNT)
      x->methods[x->nmethods++] = id;
  }
  if (ok && x->nmethods == 0) {
    af_cli_error("--methods: empty list");
    ok = 0;
  }
  free(buf);
  return ok;
}

int af_cli_convergence(int argc, char **argv) {
  cv_ctx x;
  memset(&x, 0, sizeof x);
  af_prov_init(&x.prov);
  const char *own[C_COUNT] = {NULL};
  const char *runv[O_COUNT] = {NULL};
  af_cli_opt table[C_COUNT + O_COUNT + 1];
  memcpy(table, cv_own, sizeof cv_own);
  memcpy(table + C_COUNT, af_run_opts, O_COUNT * sizeof *table);
  table[C_COUNT + O_COUNT].name = NULL;
  table[C_COUNT + O_COUNT].takes_value = 0;
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, 1, "convergence");
  cv_take_ctx tc = {own, runv};
  int ex = af_cli_options(&p, table, C_HELP, cv_help, cv_take, &tc);
  if (ex == -1) return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  if (ex != AF_EXIT_OK) return ex;

  /* The case, as 'attnflow run' parses it. */
  char *rargv[2 + 2 * O_COUNT + 2];
  char names[O_COUNT][40];
  int rargc = 0;
  rargv[rargc++] = "run";
  for (int o = 0; o < O_COUNT; o++)
    if (runv[o] != NULL) {
      snprintf(names[o], sizeof names[o], "--%s", af_run_opts[o].name);
      rargv[rargc++] = names[o];
      rargv[rargc++] = (char *)runv[o];
    }
  rargv[rargc] = NULL;
  ex = af_run_parse(&x.c, rargc, rargv);
  if (ex != AF_EXIT_OK) {
    free(x.c.times);
    return ex == -1 ? AF_EXIT_USAGE : ex;
  }
  x.reps = 3;
  x.ref_tol = 1e-30;
  x.ref_prec = 160;
  ex = AF_EXIT_USAGE;
  if (!cv_methods(&x, own[C_METHODS] ? own[C_METHODS] : cv_default_methods))
    goto done;
  if (!cv_list(&x.steps, &x.nsteps, "steps",
               own[C_STEPS] ? own[C_STEPS] : cv_default_steps, 1))
    goto done;
  if (!cv_list(&x.tols, &x.ntols, "tols",
               own[C_TOLS] ? own[C_TOLS] : cv_default_tols, 0))
    goto done;
  if (own[C_REF_TOL] &&
      (!af_cli_double(&x.ref_tol, "ref-tol", own[C_REF_TOL]) ||
       !(x.ref_tol > 0 && x.ref_tol < 1))) {
    af_cli_error("--ref-tol must be in (0, 1) (got %s)", own[C_REF_TOL]);
    goto done;
  }
  if (own[C_REF_PREC] &&
      (!af_cli_ulong(&x.ref_prec, "ref-precision", own[C_REF_PREC]) ||
       x.ref_prec < AF_RUN_PREC_MIN || x.ref_prec > AF_RUN_PREC_MAX)) {
    af_cli_error("--ref-precision must be in [%d, %d] bits (got %s)",
                 AF_RUN_PREC_MIN, AF_RUN_PREC_MAX, own[C_REF_PREC]);
    goto done;
  }
  if (own[C_REPS] && (!af_cli_ulong(&x.reps, "reps", own[C_REPS]) ||
                      x.reps < 1 || x.reps > 1000)) {
    af_cli_error("--reps must be in [1, 1000] (got %s)", own[C_REPS]);
    goto done;
  }
  const char *out = own[C_OUT] ? own[C_OUT] : "-";
  if (own[C_PLOT] && (strcmp(out, "-") == 0 || own[C_PLOT][0] == '\0')) {
    af_cli_error("convergence: --plot PREFIX needs --out FILE (the script "
                 "reads the data from it)");
    goto done;
  }
  if (!(x.c.t_end > 0)) {
    af_cli_error("convergence: --t-end must be > 0");
    goto done;
  }
  x.progress = own[C_PROGRESS] != NULL;
  x.stream = af_out_streams(out);

  ex = AF_EXIT_FAIL;
  int rc = AF_OK;
  if (strcmp(x.c.weights, "kaiming") == 0) {
    af_cli_error("convergence: --weights kaiming depends on h (one weight "
                 "set per layer); give a weights file");
    ex = AF_EXIT_USAGE;
    goto done;
  } else if (strcmp(x.c.weights, "identity") != 0) {
    af_read_info info;
    errno = 0;
    rc = af_weights_read_info(&x.wts, &info, x.c.weights, x.c.d);
    if (rc != AF_OK) {
      af_cli_error("--weights '%s': %s", x.c.weights, af_strerror(rc));
      goto done;
    }
  }
  af_model_init(&x.m, x.c.n, x.c.d, x.c.beta, x.c.scheme);
  x.m.attn = x.c.attn;
  x.m.alpha = x.c.alpha;
  x.m.alpha_decay = x.c.alpha_decay;
  x.m.tau = x.c.tau;
  x.m.w = x.wts;
  rc = af_model_validate(&x.m);
  if (rc != AF_OK) {
    af_cli_error("invalid model: %s", af_strerror(rc));
    ex = AF_EXIT_USAGE;
    goto done;
  }
  x.ss = af_state_size(x.c.n, x.c.d);
  x.y0 = malloc(x.ss * sizeof *x.y0);
  x.ref = malloc(x.ss * sizeof *x.ref);
  x.fit = malloc(x.nmethods * sizeof *x.fit);
  if (x.y0 == NULL || x.ref == NULL || x.fit == NULL) {
    af_cli_error("%s", af_strerror(AF_ENOMEM));
    goto done;
  }
  if (strncmp(x.c.init, "file:", 5) == 0) {
    af_read_info info;
    errno = 0;
    rc = af_init_read_file_info(x.y0, &info, x.c.init + 5, x.c.n, x.c.d);
    if (rc != AF_OK) {
      af_cli_error("--init '%s': %s", x.c.init + 5, af_strerror(rc));
      goto done;
    }
    if (!isnan(x.c.r0))
      for (size_t j = 0; j < x.c.n; j++) x.y0[x.c.n * x.c.d + j] = x.c.r0;
  } else {
    size_t line = 0;
    rc = af_init_state(x.y0, &line, x.c.init, x.c.n, x.c.d, x.c.r0, x.c.seed);
    if (rc != AF_OK) {
      af_cli_error("--init %s: %s", x.c.init, af_strerror(rc));
      ex = af_cli_exit_status(rc);
      goto done;
    }
  }

  int cargc;
  char **cargv = af_cli_argv(&cargc);
  rc = af_prov_add_head(&x.prov, cargc, cargv);
  if (rc == AF_OK) rc = af_prov_add_str(&x.prov, "scheme", x.c.scheme_name);
  if (rc == AF_OK) rc = af_prov_add_ulong(&x.prov, "n", x.c.n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&x.prov, "d", x.c.d);
  if (rc == AF_OK) rc = af_prov_add_double(&x.prov, "beta", x.c.beta);
  if (rc == AF_OK) rc = af_prov_add_str(&x.prov, "init", x.c.init);
  if (rc == AF_OK) rc = af_prov_add_ulong(&x.prov, "seed", x.c.seed);
  if (rc == AF_OK) rc = af_prov_add_double(&x.prov, "t_end", x.c.t_end);
  if (rc == AF_OK) rc = af_prov_add_str(&x.prov, "weights", x.c.weights);
  if (rc == AF_OK) rc = af_prov_add_ulong(&x.prov, "reps", x.reps);
  if (rc != AF_OK) {
    af_cli_error("%s", af_strerror(rc));
    goto done;
  }

  x.run_status = AF_OK;
  errno = 0;
  rc = af_write_atomic(out, cv_write, &x);
  if (rc != AF_OK) {
    if (x.run_status != AF_OK)
      af_cli_error("convergence: %s failed: %s (%s)", x.failed,
                   af_strerror(x.run_status), af_status_name(x.run_status));
    else if (errno)
      af_cli_error("cannot write '%s': %s", out, strerror(errno));
    else
      af_cli_error("cannot write '%s': %s", out, af_strerror(rc));
    goto done;
  }
  if (own[C_PLOT] && cv_plot(own[C_PLOT], out, &x) != AF_OK) goto done;
  ex = AF_EXIT_OK;

done:
  af_prov_clear(&x.prov);
  af_weights_free(x.wts);
  free(x.y0);
  free(x.ref);
  free(x.fit);
  free(x.steps);
  free(x.tols);
  free(x.c.times);
  return ex;
}
