/* cli_figure.c -- `attnflow figure NAME`: write the data of one figure of
 * docs/figures.md as CSV (provenance block of "# key: value" lines, one
 * header line, rows of %.17g numbers).  The gnuplot scripts in
 * docs/figures/ read these files; `make figures` runs both.
 *
 * Each figure computes its whole table in memory first and writes it with
 * af_write_atomic, so a failed run leaves no file.  Long figures report
 * progress on stderr only when stderr is a terminal.
 *
 * Figures (see docs/figures.md for captions and claim IDs):
 *   f1  gamma(t) of the six schemes from the T4.1 scalar ODEs, n = 256,
 *       beta = 5, with n = d = 8 particle runs against the n = 8 ODE
 *   c1  discretization panel of case C1: public step (Post-LN layer map,
 *       h = 0.1) vs h = 0.01 vs adaptive rk8pd vs a tight reference
 *   c1traj  case C1 itself: paths on S^2 of all six schemes from one
 *       start, coordinates for an orthographic view
 *   c2  case C2, metastable staircase on the circle: clusters, energy
 *   c3  case C3, beta x t phase diagram (fraction of pairs with cosine
 *       > 0.999) of SA on the circle, public step vs rk8pd vs reference;
 *       the runs are an OpenMP sweep (af_sweep_pairs, src/sweep.c)
 *   c4  case C4, the same diagram for Post-, Pre-, Peri-LN and nGPT
 *   f2  random-weights experiment: layer maps of every scheme with
 *       Kaiming-random Q, K, V per layer
 *   c5  case C5: beta*(t), largest beta with gamma(t) >= 1 - 10^-3
 *   conv  convergence orders and work-precision of every GSL stepper,
 *       the layer maps and the MPFR methods against an MPFR reference
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attnflow_mp.h"
#include "cli.h"
#include "output.h"
#include "theory.h"

/* ------------------------------------------------------------ table */

typedef struct {
  af_prov prov;
  size_t ncol, nrow;
  char **names; /* ncol column names */
  double *v;    /* nrow x ncol, NaN where a value does not exist */
} fig_table;

static void fig_table_init(fig_table *t) {
  memset(t, 0, sizeof *t);
  af_prov_init(&t->prov);
}

static void fig_table_free(fig_table *t) {
  for (size_t k = 0; k < t->ncol; k++) free(t->names[k]);
  free(t->names);
  free(t->v);
  af_prov_clear(&t->prov);
}

/* Append a column named printf(fmt, ...); returns its index or -1. */
static long fig_col(fig_table *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static long fig_col(fig_table *t, const char *fmt, ...) {
  char buf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **nn = realloc(t->names, (t->ncol + 1) * sizeof *nn);
  if (nn == NULL) return -1;
  t->names = nn;
  t->names[t->ncol] = malloc(strlen(buf) + 1);
  if (t->names[t->ncol] == NULL) return -1;
  strcpy(t->names[t->ncol], buf);
  return (long)t->ncol++;
}

/* Allocate the rows once every column exists; all values NaN. */
static int fig_rows(fig_table *t, size_t nrow) {
  t->nrow = nrow;
  t->v = malloc(nrow * t->ncol * sizeof *t->v);
  if (t->v == NULL) return AF_ENOMEM;
  for (size_t k = 0; k < nrow * t->ncol; k++) t->v[k] = NAN;
  return AF_OK;
}

static double *fig_at(fig_table *t, size_t row, long col) {
  return t->v + row * t->ncol + (size_t)col;
}

static int fig_write_cb(FILE *f, void *vctx) {
  fig_table *t = vctx;
  int rc = af_out_provenance_csv(f, &t->prov);
  if (rc == AF_OK)
    rc = af_out_csv_header(f, (const char *const *)t->names, t->ncol);
  for (size_t r = 0; r < t->nrow && rc == AF_OK; r++)
    rc = af_out_csv_row(f, t->v + r * t->ncol, t->ncol);
  return rc;
}

/* ------------------------------------------------------------ reading back */

/* Read a CSV written by fig_write_cb into an empty table: "# key: value"
 * lines into the provenance, the header into the column names, the rows
 * into v.  AF_EPARSE if a row has the wrong number of fields or a field
 * is not a number, AF_EIO if the file cannot be read. */
static int fig_table_read(fig_table *t, const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return AF_EIO;
  char *line = NULL;
  size_t cap = 0, rcap = 0;
  ssize_t len;
  int rc = AF_OK, header = 0;
  while (rc == AF_OK && (len = getline(&line, &cap, f)) != -1) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (line[0] == '#') {
      char *sep = strstr(line, ": ");
      if (header || sep == NULL || line[1] != ' ') {
        rc = AF_EPARSE;
        break;
      }
      *sep = '\0';
      rc = af_prov_add_str(&t->prov, line + 2, sep + 2);
    } else if (!header) {
      header = 1;
      for (char *tok = strtok(line, ","); tok && rc == AF_OK;
           tok = strtok(NULL, ","))
        if (fig_col(t, "%s", tok) < 0) rc = AF_ENOMEM;
    } else {
      if (t->nrow == rcap) {
        rcap = rcap ? 2 * rcap : 256;
        double *nv = realloc(t->v, rcap * t->ncol * sizeof *nv);
        if (nv == NULL) {
          rc = AF_ENOMEM;
          break;
        }
        t->v = nv;
      }
      char *p = line, *end;
      for (size_t k = 0; k < t->ncol && rc == AF_OK; k++) {
        t->v[t->nrow * t->ncol + k] = strtod(p, &end);
        if (end == p || *end != (k + 1 < t->ncol ? ',' : '\0'))
          rc = AF_EPARSE;
        p = end + 1;
      }
      t->nrow++;
    }
  }
  if (rc == AF_OK && (ferror(f) || !header)) rc = header ? AF_EIO : AF_EPARSE;
  free(line);
  fclose(f);
  return rc;
}

/* Column index of `name`, -1 if absent. */
static long fig_find(const fig_table *t, const char *name) {
  for (size_t k = 0; k < t->ncol; k++)
    if (strcmp(t->names[k], name) == 0) return (long)k;
  return -1;
}

/* Value of provenance key `key`, NULL if absent. */
static const char *fig_prov_get(const fig_table *t, const char *key) {
  for (size_t k = 0; k < t->prov.n; k++)
    if (strcmp(t->prov.items[k].key, key) == 0) return t->prov.items[k].value;
  return NULL;
}

/* ------------------------------------------------------------ captions */

/* A caption is the Markdown paragraph of docs/figures.md that states what
 * a figure's data show, written from the table alone (columns and
 * provenance), so that it is the same whether the table was just computed
 * or read back from its CSV (`--from`): tests/test_figures.sh checks the
 * committed captions against the committed data this way.  The writer
 * looks every column up by name and fails with AF_EPARSE if one is
 * missing (a CSV of another figure). */
typedef struct fig_cap {
  FILE *f;
  const fig_table *t;
  int rc;
  int (*cap)(struct fig_cap *c);
} fig_cap;

/* Column `fmt...` of the table, or -1 (and rc = AF_EPARSE). */
static long fig_cap_col(fig_cap *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static long fig_cap_col(fig_cap *c, const char *fmt, ...) {
  char buf[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  long k = fig_find(c->t, buf);
  if (k < 0) c->rc = AF_EPARSE;
  return k;
}

/* Value at (row, col); NaN if col < 0. */
static double fig_cap_at(const fig_cap *c, size_t row, long col) {
  return col < 0 ? NAN : c->t->v[row * c->t->ncol + (size_t)col];
}

/* Provenance value of key, "?" (and rc = AF_EPARSE) if absent. */
static const char *fig_cap_prov(fig_cap *c, const char *key) {
  const char *v = fig_prov_get(c->t, key);
  if (v == NULL) c->rc = AF_EPARSE;
  return v ? v : "?";
}

static void fig_cap_printf(fig_cap *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fig_cap_printf(fig_cap *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(c->f, fmt, ap) < 0 && c->rc == AF_OK) c->rc = AF_EIO;
  va_end(ap);
}

/* v with `sig` significant digits as caption text: plain (%g style) for
 * 10^-3 <= |v| < 10^5, else "m·10ᵉ" with a superscript exponent; "NaN"
 * for NaN.  buf has at least 48 bytes. */
static const char *fig_num(char *buf, double v, int sig) {
  static const char *const sup[10] = {"⁰", "¹", "²", "³", "⁴",
                                      "⁵", "⁶", "⁷", "⁸", "⁹"};
  if (isnan(v)) return strcpy(buf, "NaN");
  double a = fabs(v);
  if (a == 0 || (a >= 1e-3 && a < 1e5)) {
    /* %g would switch to e-notation for a >= 10^sig: round instead. */
    if (a >= pow(10, sig)) {
      char tmp[40];
      snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
      snprintf(buf, 48, "%.0f", strtod(tmp, NULL));
    } else {
      snprintf(buf, 48, "%.*g", sig, v);
    }
    return buf;
  }
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
  char *e = strchr(tmp, 'e');
  int ex = atoi(e + 1);
  *e = '\0';
  if (strchr(tmp, '.') != NULL) { /* 1.50 -> 1.5, 1.0 -> 1 */
    char *z = tmp + strlen(tmp) - 1;
    while (*z == '0') *z-- = '\0';
    if (*z == '.') *z = '\0';
  }
  char *q = buf;
  if (strcmp(tmp, "1") == 0)
    q += snprintf(buf, 48, "10");
  else if (strcmp(tmp, "-1") == 0)
    q += snprintf(buf, 48, "−10");
  else
    q += snprintf(buf, 48, "%s·10", tmp);
  if (ex < 0) q += sprintf(q, "⁻");
  char digits[16];
  snprintf(digits, sizeof digits, "%d", abs(ex));
  for (char *dch = digits; *dch; dch++) q += sprintf(q, "%s", sup[*dch - '0']);
  return buf;
}

/* ------------------------------------------------------------ context */

typedef struct {
  const char *name;
  int quick;
  unsigned long seed;
  unsigned long systems; /* starts per beta of C3, C4; 0 = the figure's */
  FILE *progress; /* stderr if it is a terminal, else NULL */
} fig_cfg;

static void fig_note(const fig_cfg *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fig_note(const fig_cfg *c, const char *fmt, ...) {
  if (c->progress == NULL) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(c->progress, "\r%-70s\rfigure %s: ", "", c->name);
  vfprintf(c->progress, fmt, ap);
  fflush(c->progress);
  va_end(ap);
}

static void fig_note_done(const fig_cfg *c) {
  if (c->progress) fprintf(c->progress, "\r%-70s\r", "");
}

/* Standard head: version, commit, command, figure, quick flag. */
static int fig_prov_head(fig_table *t, const fig_cfg *c) {
  int argc;
  char **argv = af_cli_argv(&argc);
  int rc = af_prov_add_head(&t->prov, argc, argv);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "figure", c->name);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "quick", c->quick ? "yes" : "no");
  return rc;
}

/* Size and seeded start of a case: n, d, beta, init, seed. */
static int fig_prov_case(fig_table *t, const fig_cfg *c, size_t n, size_t d,
                         double beta, const char *init) {
  int rc = af_prov_add_ulong(&t->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&t->prov, "d", d);
  if (rc == AF_OK) rc = af_prov_add_double(&t->prov, "beta", beta);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "init", init);
  if (rc == AF_OK) rc = af_prov_add_ulong(&t->prov, "seed", c->seed);
  return rc;
}

static int fig_prov_integ(fig_table *t, const char *prefix,
                          const af_integ_opts *o) {
  char key[64];
  snprintf(key, sizeof key, "%smethod", prefix);
  int rc = af_prov_add_str(&t->prov, key, af_method_name(o->method));
  if (rc != AF_OK) return rc;
  if (af_method_fixed(o->method)) {
    snprintf(key, sizeof key, "%sh", prefix);
    return af_prov_add_double(&t->prov, key, o->h);
  }
  snprintf(key, sizeof key, "%srtol", prefix);
  rc = af_prov_add_double(&t->prov, key, o->rtol);
  snprintf(key, sizeof key, "%satol", prefix);
  if (rc == AF_OK) rc = af_prov_add_double(&t->prov, key, o->atol);
  return rc;
}

/* Output grid 0, dt, ..., t_end (exact multiples k*dt). */
static double *fig_linear_times(size_t *nt, double t_end, double dt) {
  size_t n = (size_t)nearbyint(t_end / dt) + 1;
  double *t = malloc(n * sizeof *t);
  if (t == NULL) return NULL;
  for (size_t k = 0; k < n; k++) t[k] = (double)k * dt;
  *nt = n;
  return t;
}

/* Collects observables (or whole states) at the output times. */
typedef struct {
  const af_model *m;
  af_work *w;
  double cluster_cos;
  size_t k, nt;
  double *obs;    /* nt x AF_OBS_COUNT, or NULL */
  double *states; /* nt x state size, or NULL */
  size_t ssize;
} fig_collect;

static int fig_collect_cb(double t, const double *y, void *vctx) {
  fig_collect *x = vctx;
  if (x->k >= x->nt) return AF_EINVAL;
  if (x->obs) {
    int rc = af_observe(x->obs + x->k * AF_OBS_COUNT, t, y, x->cluster_cos,
                        x->m, x->w);
    if (rc != AF_OK) return rc;
  }
  if (x->states) memcpy(x->states + x->k * x->ssize, y, x->ssize * sizeof *y);
  x->k++;
  return AF_OK;
}

/* Integrate y (in place) over times, collecting observables into obs
 * (nt x AF_OBS_COUNT) and states (nt x state size); either may be NULL. */
static int fig_run(double *obs, double *states, double *y, const double *times,
                   size_t nt, const af_model *m, const af_integ_opts *o,
                   double cluster_cos) {
  af_work *w = af_work_alloc(m->n, m->d);
  if (w == NULL) return AF_ENOMEM;
  fig_collect x = {m, w, cluster_cos, 0, nt, obs, states,
                   af_state_size(m->n, m->d)};
  af_integ_stats st;
  int rc = af_integrate(y, times, nt, m, o, w, fig_collect_cb, &x, &st);
  if (rc == AF_OK && x.k != nt) rc = AF_EINVAL;
  af_work_free(w);
  return rc;
}

static const char *fig_scheme_name(int s) {
  return af_scheme_get((af_scheme_id)s)->name;
}

/* ------------------------------------------------------------ F1 */

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
  free(rows);
  free(y0);
  free(ts);
  return rc;
}

static int fig_f1(fig_table *T, const fig_cfg *c) {
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
  free(g);
  free(w);
  free(r);
  free(obs);
  free(y);
  free(times);
  return rc;
}

/* ------------------------------------------------------------ C1 */

/* |a/|a| - b/|b|| of two tokens of dimension d. */
static double fig_dir_dist(const double *a, const double *b, size_t d) {
  double na = 0, nb = 0, q = 0;
  for (size_t i = 0; i < d; i++) {
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  na = sqrt(na);
  nb = sqrt(nb);
  for (size_t i = 0; i < d; i++) {
    double e = a[i] / na - b[i] / nb;
    q += e * e;
  }
  return sqrt(q);
}

/* Largest |theta_j^a - theta_j^b| over tokens (directions normalized). */
static double fig_max_dist(const double *ya, const double *yb, size_t n,
                           size_t d) {
  double worst = 0;
  for (size_t j = 0; j < n; j++)
    worst = fmax(worst, fig_dir_dist(ya + j * d, yb + j * d, d));
  return worst;
}

static int fig_c1(fig_table *T, const fig_cfg *c) {
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
  double *y0 = malloc(ss * sizeof *y0), *y = malloc(ss * sizeof *y);
  double *obs[R_N] = {0}, *st[R_N] = {0};
  int rc = (y0 && y) ? AF_OK : AF_ENOMEM;
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    obs[k] = malloc(nt * AF_OBS_COUNT * sizeof *obs[k]);
    st[k] = malloc(nt * ss * sizeof *st[k]);
    if (!obs[k] || !st[k]) rc = AF_ENOMEM;
  }
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  size_t line;
  if (rc == AF_OK) rc = af_init_state(y0, &line, "uniform", n, d, 1.0, c->seed);

  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "post-ln");
  if (rc == AF_OK)
    rc = fig_prov_case(T, c, n, d, beta, "uniform (Gaussian, normalized)");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "output_dt", dt);
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    char pre[32];
    snprintf(pre, sizeof pre, "%s_", rname[k]);
    rc = fig_prov_integ(T, pre, &o[k]);
  }
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "ref_fixed_steps", "yes");
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "cos_R = mean pairwise cosine of run R; dcos_R = "
                         "cos_R - cos_ref; dx_R = max_j |theta_j^R - "
                         "theta_j^ref|");
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    fig_note(c, "run %s", rname[k]);
    memcpy(y, y0, ss * sizeof *y);
    rc = fig_run(obs[k], st[k], y, times, nt, &m, &o[k], 0.9999);
  }
  fig_note_done(c);
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
  for (int k = 0; k < R_N; k++) {
    free(obs[k]);
    free(st[k]);
  }
  free(y0);
  free(y);
  free(times);
  return rc;
}

/* ------------------------------------------------------------ C1 paths */

/* Case C1 itself: the paths of the n = 64 tokens on S^2 under each of the
 * six schemes from one start, for an orthographic view.  View axes: e3 is
 * the final mean direction of the Post-LN run (where its cluster forms),
 * e1, e2 complete it to a right-handed orthonormal basis; (u, v) are the
 * coordinates in the picture plane and w = <theta, e3> the depth (w >= 0
 * faces the viewer). */
static int fig_c1traj(fig_table *T, const fig_cfg *c) {
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
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "output_dt", dt);
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
  free(times);
  free(y0);
  free(y);
  return rc;
}

/* ------------------------------------------------------------ C2 */

/* The fixed separated start of case C2, the angles (rad) of the public
 * "dynamic metastability" particles demo: two near 0, one near 1.82, two
 * near pi. */
static const double fig_c2_angles[5] = {0.062, 0.214, 1.819, 2.911, 3.188};

static int fig_c2(fig_table *T, const fig_cfg *c) {
  const size_t n = 5, d = 2;
  const double beta = 4, t_end = c->quick ? 40 : 400, dt = 0.5;
  enum { R_LAY, R_ADAPT, R_REF, R_N };
  static const char *const rname[R_N] = {"layers_h0.1", "rk8pd", "ref"};
  af_integ_opts o[R_N];
  for (int k = 0; k < R_N; k++) af_integ_opts_init(&o[k]);
  o[R_LAY].method = AF_METHOD_LAYERS;
  o[R_LAY].h = 0.1;
  o[R_ADAPT].method = AF_METHOD_RK8PD;
  o[R_REF].method = AF_METHOD_RK8PD;
  o[R_REF].rtol = 1e-13; /* 1000 times tighter than the adaptive run */
  o[R_REF].atol = 1e-15;
  size_t nt;
  double *times = fig_linear_times(&nt, t_end, dt);
  if (times == NULL) return AF_ENOMEM;
  size_t ss = af_state_size(n, d);
  double y0[5 * 2 + 5], y[5 * 2 + 5];
  for (size_t j = 0; j < n; j++) {
    y0[j * d] = cos(fig_c2_angles[j]);
    y0[j * d + 1] = sin(fig_c2_angles[j]);
    y0[n * d + j] = 1;
  }
  double *obs[R_N] = {0}, *st[R_N] = {0};
  int rc = AF_OK;
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    obs[k] = malloc(nt * AF_OBS_COUNT * sizeof *obs[k]);
    st[k] = malloc(nt * ss * sizeof *st[k]);
    if (!obs[k] || !st[k]) rc = AF_ENOMEM;
  }
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  const double ccos = 0.9999;
  if (rc == AF_OK) rc = fig_prov_head(T, c);
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
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "output_dt", dt);
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    char pre[32];
    snprintf(pre, sizeof pre, "%s_", rname[k]);
    rc = fig_prov_integ(T, pre, &o[k]);
  }
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "clusters_R (union-find at cos > cluster_cos), "
                         "energy_R = sum_jk e^{beta <th_j,th_k>} / n^2, "
                         "angle<j>_R = angle of token j in [-pi/2, 3pi/2)");
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    fig_note(c, "run %s", rname[k]);
    memcpy(y, y0, sizeof y);
    rc = fig_run(obs[k], st[k], y, times, nt, &m, &o[k], ccos);
  }
  fig_note_done(c);
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
  for (int k = 0; k < R_N; k++) {
    free(obs[k]);
    free(st[k]);
  }
  free(times);
  return rc;
}

/* Caption of C2: the merge times of each run (first output time with
 * fewer clusters), the two-cluster plateau and the energy errors. */
static int fig_cap_c2(fig_cap *c) {
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

/* ------------------------------------------------------------ F2 */

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
static int fig_f2(fig_table *T, const fig_cfg *c) {
  const size_t d = c->quick ? 64 : 512, n = c->quick ? 32 : 128;
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
  if (rc == AF_OK) {
    fig_note(c, "drawing %zu layers of Kaiming weights", L);
    rc = af_weights_kaiming(wts, c->seed);
  }
  size_t line;
  if (rc == AF_OK)
    rc = af_init_state(y0[ST_G], &line, "gaussian", n, d, NAN, c->seed);
  if (rc == AF_OK)
    rc = af_init_state(y0[ST_U], &line, "uniform", n, d, 1.0, c->seed);
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  m.w = wts;
  m.tau = (double)L * h / 4;
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "d", d);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "beta", beta);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "layers", L);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "weights",
                         "Kaiming normal N(0, 1/d) Q, K, V per layer "
                         "(af_weights_kaiming), layer_dt = h, the same for "
                         "both starts and every scheme");
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "init",
                         "u: uniform (Gaussian, normalized), r_j = 1 (unit "
                         "scale of T4.1); g: gaussian, r_j = |x_j| (sqrt(d) "
                         "convention); the same directions");
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seed", c->seed);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", m.alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha_decay", m.alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "tau", m.tau);
  if (rc == AF_OK) rc = fig_prov_integ(T, "", &o);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "layer l (t = l h); per start X (u, g) and scheme "
                         "S after l layers: gap_X_S = mean over pairs of "
                         "1 - cos (gap_mean), move_X_S = mean over tokens "
                         "of the angle (rad) moved by layer l (NaN at l = "
                         "0), r_X_S = mean radius");
  long cl = fig_col(T, "layer");
  long cg[ST_N][AF_SCHEME_COUNT], cm[ST_N][AF_SCHEME_COUNT],
      cr[ST_N][AF_SCHEME_COUNT];
  for (int x = 0; x < ST_N; x++)
    for (int s = 0; s < AF_SCHEME_COUNT; s++) {
      cg[x][s] = fig_col(T, "gap_%s_%s", stn[x], fig_scheme_name(s));
      cm[x][s] = fig_col(T, "move_%s_%s", stn[x], fig_scheme_name(s));
      cr[x][s] = fig_col(T, "r_%s_%s", stn[x], fig_scheme_name(s));
      if (cr[x][s] < 0) rc = AF_ENOMEM;
    }
  if (cl < 0) rc = AF_ENOMEM;
  if (rc == AF_OK) rc = fig_rows(T, nt);
  for (size_t k = 0; k < nt && rc == AF_OK; k++) *fig_at(T, k, cl) = times[k] / h;
  for (int x = 0; x < ST_N && rc == AF_OK; x++)
    for (int s = 0; s < AF_SCHEME_COUNT && rc == AF_OK; s++) {
      fig_note(c, "start %s: layers of %s", stn[x], fig_scheme_name(s));
      m.scheme = (af_scheme_id)s;
      memcpy(y, y0[x], ss * sizeof *y);
      rc = fig_run(obs, st, y, times, nt, &m, &o, 0.9999);
      for (size_t k = 0; k < nt && rc == AF_OK; k++) {
        *fig_at(T, k, cg[x][s]) = obs[k * AF_OBS_COUNT + AF_OBS_gap_mean];
        *fig_at(T, k, cr[x][s]) = obs[k * AF_OBS_COUNT + AF_OBS_r_mean];
        if (k > 0)
          *fig_at(T, k, cm[x][s]) =
              fig_mean_angle(st + k * ss, st + (k - 1) * ss, n, d);
      }
    }
  fig_note_done(c);
  af_weights_free(wts);
  free(times);
  free(y0[ST_U]);
  free(y0[ST_G]);
  free(y);
  free(obs);
  free(st);
  return rc;
}

/* ------------------------------------------------------------ C5 */

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

static int fig_c5(fig_table *T, const fig_cfg *c) {
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
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "seed", "unused (deterministic)");
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "columns",
                         "beta; tclosed_n<N>, tode_n<N>: time at which gamma "
                         "reaches 1 - threshold_gap from gamma(0) = 0 (NaN: "
                         "not by ode_t_max); beta*(t) is the staircase "
                         "(tclosed, beta)");
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
  free(times);
  free(gap);
  return rc;
}

/* ------------------------------------------------------------ C3, C4 */

/* CPU seconds of the whole process (every thread). */
static double fig_cpu_all(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall-clock seconds (monotonic), for the timings in the provenance. */
static double fig_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
  double b_lo, b_hi, t_end, dt, alpha;
  const af_scheme_id *schemes;
  size_t nschemes;
  const char *title;
  size_t ref_stride; /* reference sweep on every ref_stride-th beta only */
} fig_phase_cfg;

static int fig_phase(fig_table *T, const fig_cfg *c, const fig_phase_cfg *p) {
  enum { R_LAY, R_ADAPT, R_REF, R_N };
  static const char *const rname[R_N] = {"h0.1", "rk8pd", "ref"};
  af_integ_opts o[R_N];
  for (int k = 0; k < R_N; k++) af_integ_opts_init(&o[k]);
  o[R_LAY].method = AF_METHOD_LAYERS;
  o[R_LAY].h = 0.1;
  o[R_ADAPT].method = AF_METHOD_RK8PD; /* defaults rtol 1e-10, atol 1e-12 */
  o[R_REF].method = AF_METHOD_RK8PD;
  o[R_REF].rtol = 1e-13;
  o[R_REF].atol = 1e-15;
  const double thr = 0.999;
  size_t nt;
  double *times = fig_linear_times(&nt, p->t_end, p->dt);
  double *betas = malloc(p->nbeta * sizeof *betas);
  double *sbetas = malloc(p->nbeta * sizeof *sbetas);
  const size_t nrun = p->nbeta * p->nsys;
  double *frac = malloc(nrun * (times ? nt : 1) * sizeof *frac);
  double *mean = malloc(p->nbeta * (times ? nt : 1) * sizeof *mean);
  int *st = malloc(nrun * sizeof *st);
  int rc = (times && betas && sbetas && frac && mean && st) ? AF_OK : AF_ENOMEM;
  for (size_t b = 0; b < p->nbeta && rc == AF_OK; b++)
    betas[b] = p->nbeta == 1 ? p->b_lo
                             : p->b_lo + (p->b_hi - p->b_lo) * (double)b /
                                             (double)(p->nbeta - 1);
  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "case", p->title);
  if (rc == AF_OK) {
    char buf[256] = "";
    for (size_t s = 0; s < p->nschemes; s++)
      snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
               s ? "," : "", fig_scheme_name((int)p->schemes[s]));
    rc = af_prov_add_str(&T->prov, "schemes", buf);
  }
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "n", p->n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "d", p->d);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "beta", "%zu values %g + (%g - %g) k/%zu",
                         p->nbeta, p->b_lo, p->b_hi, p->b_lo,
                         p->nbeta > 1 ? p->nbeta - 1 : 1);
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "systems", p->nsys);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "ref_betas",
                         "every %zu-th beta from the first (other rows of "
                         "the ref columns NaN)", p->ref_stride);
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "init",
                         "uniform (Gaussian, normalized), r = 1; start k has "
                         "seed af_sweep_seed(seed, k), the same for every "
                         "beta and scheme");
  if (rc == AF_OK) rc = af_prov_add_ulong(&T->prov, "seed", c->seed);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "alpha", p->alpha);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "cos_threshold", thr);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", p->t_end);
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "output_dt", p->dt);
  for (int k = 0; k < R_N && rc == AF_OK; k++) {
    char pre[32];
    snprintf(pre, sizeof pre, "%s_", rname[k]);
    rc = fig_prov_integ(T, pre, &o[k]);
  }
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
  if (rc == AF_OK) rc = fig_rows(T, p->nbeta * nt);
  for (size_t b = 0; b < p->nbeta && rc == AF_OK; b++)
    for (size_t i = 0; i < nt; i++) {
      *fig_at(T, b * nt + i, cb) = betas[b];
      *fig_at(T, b * nt + i, ct) = times[i];
    }
  for (size_t s = 0; s < p->nschemes && rc == AF_OK; s++) {
    const char *sn = fig_scheme_name((int)p->schemes[s]);
    af_model m;
    af_model_init(&m, p->n, p->d, 1.0, p->schemes[s]);
    m.alpha = p->alpha;
    for (int k = 0; k < R_N && rc == AF_OK; k++) {
      /* The reference sweep costs most (rtol 1e-13): on a subset of the
       * betas, every ref_stride-th (the other rows of its columns NaN). */
      const size_t stride = k == R_REF ? p->ref_stride : 1;
      const size_t nbk = (p->nbeta + stride - 1) / stride;
      const size_t nrunk = nbk * p->nsys;
      for (size_t b = 0; b < nbk; b++) sbetas[b] = betas[b * stride];
      af_sweep_spec sw;
      af_sweep_spec_init(&sw, &m, sbetas, nbk, p->nsys, times, nt);
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
          for (size_t q = 0; q < p->nsys; q++)
            sum += frac[(bk * p->nsys + q) * nt + i];
          mb[i] = sum / (double)p->nsys;
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
    for (size_t r = 0; r < p->nbeta * nt && rc == AF_OK; r++) {
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
  free(times);
  free(betas);
  free(sbetas);
  free(frac);
  free(mean);
  free(st);
  return rc;
}

static int fig_c3(fig_table *T, const fig_cfg *c) {
  static const af_scheme_id sch[1] = {AF_POST_LN};
  fig_phase_cfg p = {32, 2, 90, 2048, 0.1, 9, 30, 0.5, 1.0, sch, 1,
                     "C3: SA (Post-LN) on the circle, Q = K = V = I", 10};
  if (c->quick) {
    p.n = 8;
    p.nbeta = 6;
    p.nsys = 4;
    p.t_end = 5;
    p.dt = 0.5;
    p.ref_stride = 2;
  }
  if (c->systems) p.nsys = c->systems;
  return fig_phase(T, c, &p);
}

static int fig_c4(fig_table *T, const fig_cfg *c) {
  static const af_scheme_id sch[4] = {AF_POST_LN, AF_PRE_LN, AF_PERI_LN,
                                      AF_NGPT};
  fig_phase_cfg p = {64, 16, 20, 16, 0.1, 15, 50, 0.5, 0.2, sch, 4,
                     "C4: Post-, Pre-, Peri-LN, nGPT (alpha = 0.2), "
                     "Q = K = V = I", 1};
  if (c->quick) {
    p.n = 8;
    p.d = 4;
    p.nbeta = 4;
    p.nsys = 2;
    p.t_end = 5;
  }
  if (c->systems) p.nsys = c->systems;
  return fig_phase(T, c, &p);
}

/* ------------------------------------------------------------ convergence */

/* Convergence orders and work-precision on one common case (Pre-LN, so
 * both the directions and the radii move): every GSL stepper, the layer
 * maps and the two MPFR methods, each error the max-norm distance of the
 * final state from an MPFR reference. */

/* Method ids of the conv table: af_method values, then the MPFR ones. */
enum { FIG_MP_GAUSS = 10, FIG_MP_GBS = 11 };

typedef struct {
  fig_table *T;
  size_t row;
  long col[10];
} fig_conv_out;

enum { CV_METHOD, CV_FIXED, CV_H, CV_TOL, CV_STEPS, CV_NEVALS, CV_TIME,
       CV_ERR, CV_HMEAN, CV_ORDER, CV_NCOL };

static void fig_conv_row(fig_conv_out *x, double method, int fixed, double h,
                         double tol, double steps, double nevals, double time,
                         double err, double order, double t_end) {
  double v[CV_NCOL] = {method, fixed, h,   tol,           steps,
                       nevals, time,  err, t_end / steps, order};
  for (int k = 0; k < CV_NCOL; k++) *fig_at(x->T, x->row, x->col[k]) = v[k];
  x->row++;
}

/* CPU seconds of the calling thread: on a shared machine the wall clock
 * of a millisecond run measures the other processes, not the method. */
static double fig_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One double run from y0 to t_end: error against ref (double), steps,
 * evaluations, and the least CPU time of `reps` repetitions. */
static int fig_conv_double(double *err, double *steps, double *nevals,
                           double *secs, const double *y0, const double *ref,
                           double t_end, const af_model *m,
                           const af_integ_opts *o, int reps) {
  size_t ss = af_state_size(m->n, m->d);
  double *y = malloc(ss * sizeof *y);
  af_work *w = af_work_alloc(m->n, m->d);
  int rc = (y && w) ? AF_OK : AF_ENOMEM;
  double times[2] = {0, t_end}, best = INFINITY;
  af_integ_stats st = {0, 0, 0};
  for (int r = 0; r < reps && rc == AF_OK; r++) {
    memcpy(y, y0, ss * sizeof *y);
    unsigned long e0 = af_work_nevals(w);
    double t0 = fig_cpu();
    rc = af_integrate(y, times, 2, m, o, w, NULL, NULL, &st);
    best = fmin(best, fig_cpu() - t0);
    *nevals = (double)(af_work_nevals(w) - e0);
  }
  if (rc == AF_OK) {
    double e = 0;
    for (size_t i = 0; i < ss; i++) e = fmax(e, fabs(y[i] - ref[i]));
    *err = e;
    *steps = (double)st.steps;
    *secs = best;
  }
  af_work_free(w);
  free(y);
  return rc;
}

/* One MPFR run at precision prec from y0: error against ref (MPFR). */
static int fig_conv_mp(double *err, af_mp_stats *st, double *secs,
                       const double *y0, mpfr_t *ref, double t_end,
                       const af_model *m, const af_mp_opts *o,
                       mpfr_prec_t prec) {
  size_t ss = af_state_size(m->n, m->d);
  af_mp_work *w = af_mp_work_alloc(m->n, m->d, prec);
  mpfr_t *y = af_mp_vec_alloc(ss, prec);
  int rc = (w && y) ? AF_OK : AF_ENOMEM;
  double times[2] = {0, t_end};
  if (rc == AF_OK) {
    af_mp_vec_set_d(y, y0, ss);
    double t0 = fig_cpu();
    rc = af_mp_integrate(y, times, 2, m, o, w, NULL, NULL, st);
    *secs = fig_cpu() - t0;
  }
  if (rc == AF_OK && ref) *err = af_mp_vec_maxdiff(y, ref, ss);
  if (rc == AF_OK && ref == NULL) *err = 0;
  if (y) af_mp_vec_free(y, ss);
  af_mp_work_free(w);
  return rc;
}

/* Least-squares slope of log10(err) against log10(x) over the rows of
 * method `id` (fixed flag `fixed`) with err in [lo, hi]; NaN if < 3. */
static double fig_conv_slope(const fig_table *T, const long *col, double id,
                             int fixed, long xcol, double lo, double hi) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
  for (size_t r = 0; r < T->nrow; r++) {
    const double *v = T->v + r * T->ncol;
    double e = v[col[CV_ERR]];
    if (v[col[CV_METHOD]] != id || v[col[CV_FIXED]] != fixed) continue;
    if (!(e >= lo && e <= hi)) continue;
    double x = log10(v[xcol]), yv = log10(e);
    sx += x;
    sy += yv;
    sxx += x * x;
    sxy += x * yv;
    k++;
  }
  if (k < 3) return NAN;
  return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

static int fig_conv(fig_table *T, const fig_cfg *c) {
  const size_t n = c->quick ? 4 : 8, d = 3;
  const double beta = 1, t_end = c->quick ? 1 : 5;
  const mpfr_prec_t prec_ref = 192, prec = 128;
  const double tol_ref = c->quick ? 1e-25 : 1e-35;
  af_model m;
  af_model_init(&m, n, d, beta, AF_PRE_LN);
  size_t ss = af_state_size(n, d), line;
  double *y0 = malloc(ss * sizeof *y0), *refd = malloc(ss * sizeof *refd);
  mpfr_t *ref = af_mp_vec_alloc(ss, prec_ref);
  af_mp_work *wref = af_mp_work_alloc(n, d, prec_ref);
  int rc = (y0 && refd && ref && wref) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) rc = af_init_state(y0, &line, "uniform", n, d, 1.0, c->seed);
  /* Reference: mp-gbs at tol 1e-35, 192 bits, checked against mp-gauss
   * at the same tolerance (an independent method). */
  af_mp_opts ro;
  af_mp_opts_init(&ro);
  ro.method = AF_MP_GBS;
  ro.tol = tol_ref;
  af_mp_stats rst, gst;
  double rsecs = 0, gsecs = 0, check = NAN;
  if (rc == AF_OK) {
    fig_note(c, "MPFR reference (mp-gbs, tol %g, %ld bits)", tol_ref,
             (long)prec_ref);
    af_mp_vec_set_d(ref, y0, ss);
    double times[2] = {0, t_end}, t0 = fig_cpu();
    rc = af_mp_integrate(ref, times, 2, &m, &ro, wref, NULL, NULL, &rst);
    rsecs = fig_cpu() - t0;
  }
  if (rc == AF_OK) {
    af_mp_vec_get_d(refd, ref, ss);
    af_mp_opts go = ro;
    go.method = AF_MP_GAUSS;
    fig_note(c, "MPFR check (mp-gauss, tol %g)", tol_ref);
    rc = fig_conv_mp(&check, &gst, &gsecs, y0, ref, t_end, &m, &go, prec_ref);
  }

  if (rc == AF_OK) rc = fig_prov_head(T, c);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "scheme", "pre-ln");
  if (rc == AF_OK)
    rc = fig_prov_case(T, c, n, d, beta, "uniform (Gaussian, normalized), r = 1");
  if (rc == AF_OK) rc = af_prov_add_double(&T->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_str(&T->prov, "reference_method", "mp-gbs");
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "reference",
                         "mp-gbs (af_mp_integrate), tol %g, %ld bits, %lu "
                         "steps, order %u, own error estimate %.3g, %.3g s",
                         tol_ref, (long)prec_ref, rst.steps, rst.order,
                         rst.err_est, rsecs);
  if (rc == AF_OK)
    rc = af_prov_add_fmt(&T->prov, "reference_check",
                         "max |mp-gauss - mp-gbs| at tol %g, %ld bits = %.3g "
                         "(mp-gauss order %u, %lu steps, %.3g s)",
                         tol_ref, (long)prec_ref, check, gst.order, gst.steps,
                         gsecs);
  if (rc == AF_OK)
    rc = af_prov_add_str(
        &T->prov, "method_ids",
        "0 rk8pd, 1 rkf45, 2 rk4, 3 rkck, 4 msadams, 5 layers (af_method), "
        "10 mp-gauss (4 stages, order 8), 11 mp-gbs (5 rows, order 10)");
  if (rc == AF_OK)
    rc = af_prov_add_str(
        &T->prov, "runs",
        "fixed = 1: fixed steps h = t_end/N (rk8pd, rkf45, rkck with "
        "af_integ_opts.fixed; rk4; layers); fixed = 0: adaptive, tol = rtol "
        "= atol (GSL) or af_mp_opts.tol at 128 bits (MPFR)");
  if (rc == AF_OK)
    rc = af_prov_add_str(
        &T->prov, "columns",
        "method (id), fixed, h (fixed step, else NaN), tol (else NaN), steps "
        "(accepted), nevals (right-hand sides), time (CPU s of the thread: "
        "least of 3 repetitions for double, one run for MPFR), err = "
        "max_i |y_i(t_end) - ref_i| over directions and radii, hmean = "
        "t_end/steps, order "
        "(nominal)");
  if (rc == AF_OK)
    rc = af_prov_add_str(&T->prov, "timing",
                         "one thread, CPU time (CLOCK_THREAD_CPUTIME_ID) of "
                         "af_integrate / af_mp_integrate alone");

  static const char *const cname[CV_NCOL] = {
      "method", "fixed", "h", "tol", "steps", "nevals", "time", "err",
      "hmean", "order"};
  fig_conv_out x = {T, 0, {0}};
  for (int k = 0; k < CV_NCOL; k++)
    if ((x.col[k] = fig_col(T, "%s", cname[k])) < 0) rc = AF_ENOMEM;
  /* Row counts: fixed rk8pd/rkf45/rkck/rk4 nf each, layers nl, adaptive
   * GSL 4 x na, MPFR 2 x nm. */
  const int nf = c->quick ? 3 : 9, nl = c->quick ? 3 : 13;
  const int na = c->quick ? 3 : 11, nm = c->quick ? 2 : 6;
  if (rc == AF_OK) rc = fig_rows(T, (size_t)(4 * nf + nl + 4 * na + 2 * nm));
  static const af_method fixm[5] = {AF_METHOD_RK8PD, AF_METHOD_RKF45,
                                    AF_METHOD_RKCK, AF_METHOD_RK4,
                                    AF_METHOD_LAYERS};
  for (int k = 0; k < 5 && rc == AF_OK; k++) {
    int cnt = fixm[k] == AF_METHOD_LAYERS ? nl : nf;
    fig_note(c, "fixed steps: %s", af_method_name(fixm[k]));
    for (int i = 0; i < cnt && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = fixm[k];
      o.fixed = 1;
      double nsteps = (fixm[k] == AF_METHOD_LAYERS ? 10.0 : 5.0) * ldexp(1, i);
      o.h = t_end / nsteps;
      o.max_steps = 0;
      double err = NAN, st = NAN, ne = NAN, secs = NAN;
      rc = fig_conv_double(&err, &st, &ne, &secs, y0, refd, t_end, &m, &o, 3);
      fig_conv_row(&x, fixm[k], 1, o.h, NAN, st, ne, secs, err,
                   af_method_order(fixm[k]), t_end);
    }
  }
  static const af_method adm[4] = {AF_METHOD_RK8PD, AF_METHOD_RKF45,
                                   AF_METHOD_RKCK, AF_METHOD_MSADAMS};
  for (int k = 0; k < 4 && rc == AF_OK; k++) {
    fig_note(c, "adaptive: %s", af_method_name(adm[k]));
    for (int i = 0; i < na && rc == AF_OK; i++) {
      af_integ_opts o;
      af_integ_opts_init(&o);
      o.method = adm[k];
      o.rtol = o.atol = pow(10, -3 - i);
      double err = NAN, st = NAN, ne = NAN, secs = NAN;
      rc = fig_conv_double(&err, &st, &ne, &secs, y0, refd, t_end, &m, &o, 3);
      fig_conv_row(&x, adm[k], 0, NAN, o.rtol, st, ne, secs, err,
                   af_method_order(adm[k]), t_end);
    }
  }
  for (int k = 0; k < 2 && rc == AF_OK; k++) {
    fig_note(c, "MPFR: %s", k == 0 ? "mp-gauss" : "mp-gbs");
    for (int i = 0; i < nm && rc == AF_OK; i++) {
      af_mp_opts o;
      af_mp_opts_init(&o);
      o.method = k == 0 ? AF_MP_GAUSS : AF_MP_GBS;
      o.stages = 4;
      o.columns = 5;
      o.tol = pow(10, -6 - 3 * i);
      af_mp_stats st;
      double err = NAN, secs = NAN;
      rc = fig_conv_mp(&err, &st, &secs, y0, ref, t_end, &m, &o, prec);
      fig_conv_row(&x, k == 0 ? FIG_MP_GAUSS : FIG_MP_GBS, 0, NAN, o.tol,
                   (double)st.steps, (double)st.nevals, secs, err, st.order,
                   t_end);
    }
  }
  fig_note_done(c);
  /* Measured orders (least squares over the rows with error between
   * 1e-13 and 1e-2: above, the asymptotic regime has not begun; below,
   * double rounding dominates). */
  for (int k = 0; k < 5 && rc == AF_OK; k++) {
    char key[64];
    snprintf(key, sizeof key, "slope_fixed_%s", af_method_name(fixm[k]));
    rc = af_prov_add_fmt(&T->prov, key,
                         "%.3f (log err against log h; nominal %d)",
                         fig_conv_slope(T, x.col, fixm[k], 1, x.col[CV_H],
                                        1e-13, 1e-2),
                         af_method_order(fixm[k]));
  }
  for (int k = 0; k < 2 && rc == AF_OK; k++) {
    char key[64];
    snprintf(key, sizeof key, "slope_%s", k == 0 ? "mp-gauss" : "mp-gbs");
    rc = af_prov_add_fmt(&T->prov, key,
                         "%.3f (log err against log mean step; nominal %d)",
                         fig_conv_slope(T, x.col,
                                        k == 0 ? FIG_MP_GAUSS : FIG_MP_GBS, 0,
                                        x.col[CV_HMEAN], 1e-40, 1e-2),
                         k == 0 ? 8 : 10);
  }
  af_mp_work_free(wref);
  if (ref) af_mp_vec_free(ref, ss);
  free(y0);
  free(refd);
  return rc;
}

/* Caption of F1: per scheme the initial velocity (provenance v0_S), the
 * terminal law and its constant C = gap/law at the last normal gap; then
 * the agreement of the n = d = 8 particles (double and MPFR) with the
 * n = 8 ODE. */
static int fig_cap_f1(fig_cap *c) {
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

/* Caption of C1: the largest errors of the public step against the
 * reference, the error ratio h = 0.1 over h = 0.01, rk8pd's error. */
static int fig_cap_c1(fig_cap *c) {
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
static int fig_cap_c1traj(fig_cap *c) {
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
static int fig_cap_phase(fig_cap *c) {
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

/* Caption of F2: per scheme and start, 1 - cos after L/4 and L layers,
 * the angle moved by the first and the last layer, the radius growth. */
static int fig_cap_f2(fig_cap *c) {
  const fig_table *t = c->t;
  static const char *const stn[2] = {"u", "g"};
  if (t->nrow < 3) return AF_EPARSE;
  size_t L = t->nrow - 1, q = L / 4;
  char b[8][48];
  fig_cap_printf(c, "| scheme | start | 1 − cos, layer %zu | 1 − cos, layer %zu "
                    "| angle moved by layer 1 | by layer %zu | r(0) → r(%zu) "
                    "|\n|---|---|---|---|---|---|---|\n",
                 q, L, L, L);
  double mv[2][AF_SCHEME_COUNT];
  for (int s = 0; s < AF_SCHEME_COUNT; s++)
    for (int x = 0; x < 2; x++) {
      const char *sn = fig_scheme_name(s);
      long cg = fig_cap_col(c, "gap_%s_%s", stn[x], sn);
      long cm = fig_cap_col(c, "move_%s_%s", stn[x], sn);
      long cr = fig_cap_col(c, "r_%s_%s", stn[x], sn);
      if (c->rc != AF_OK) return c->rc;
      mv[x][s] = fig_cap_at(c, 1, cm);
      fig_cap_printf(c, "| %s | %s | %s | %s | %s | %s | %s → %s |\n",
                     af_scheme_get((af_scheme_id)s)->title,
                     x == 0 ? "unit" : "√d", fig_num(b[0], fig_cap_at(c, q, cg), 2),
                     fig_num(b[1], fig_cap_at(c, L, cg), 2),
                     fig_num(b[2], mv[x][s], 2),
                     fig_num(b[3], fig_cap_at(c, L, cm), 2),
                     fig_num(b[4], fig_cap_at(c, 0, cr), 4),
                     fig_num(b[5], fig_cap_at(c, L, cr), 4));
    }
  fig_cap_printf(c, "\nIn the first layer Peri-LN moves the tokens %s times "
                    "as far as Post-LN at the unit scale (%s against %s rad) "
                    "and %s times as far in the √d convention (%s against %s "
                    "rad).\n",
                 fig_num(b[0], mv[0][AF_PERI_LN] / mv[0][AF_POST_LN], 2),
                 fig_num(b[1], mv[0][AF_PERI_LN], 2),
                 fig_num(b[2], mv[0][AF_POST_LN], 2),
                 fig_num(b[3], mv[1][AF_PERI_LN] / mv[1][AF_POST_LN], 2),
                 fig_num(b[4], mv[1][AF_PERI_LN], 2),
                 fig_num(b[5], mv[1][AF_POST_LN], 2));
  return c->rc;
}

/* Caption of C5: closed form against the ODE, the times at the ends of
 * the beta grid and beta*(t_plot) per n, where the curves cross. */
static int fig_cap_c5(fig_cap *c) {
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

/* Caption of the convergence figure: measured orders (provenance, fitted
 * by the command) and the cheapest runs of each kind. */
static int fig_cap_conv(fig_cap *c) {
  const fig_table *t = c->t;
  long cm = fig_cap_col(c, "method"), cfx = fig_cap_col(c, "fixed");
  long ce = fig_cap_col(c, "err"), cn = fig_cap_col(c, "nevals");
  long cs = fig_cap_col(c, "steps"), ctm = fig_cap_col(c, "time");
  static const char *const fx[5] = {"rk8pd", "rkf45", "rkck", "rk4", "layers"};
  char key[64], b[6][48];
  fig_cap_printf(c, "Reference: %s; %s.  Measured orders (least squares of "
                    "log error against log h over errors in [10⁻¹³, 10⁻²]):",
                 fig_cap_prov(c, "reference"), fig_cap_prov(c, "reference_check"));
  for (int k = 0; k < 5; k++) {
    snprintf(key, sizeof key, "slope_fixed_%s", fx[k]);
    fig_cap_printf(c, "%s %s %.2f", k ? "," : "", fx[k], atof(fig_cap_prov(c, key)));
  }
  fig_cap_printf(c, " (nominal 8, 5, 5, 4, 1; GSL's rk4 takes two half steps "
                    "h/2 per step h, 12 evaluations, and returns their "
                    "result; rkf45 and rkck propagate their fifth-order "
                    "solution); MPFR, against the mean step: mp-gauss %.2f, "
                    "mp-gbs %.2f (nominal 8, 10).  ",
                 atof(fig_cap_prov(c, "slope_mp-gauss")),
                 atof(fig_cap_prov(c, "slope_mp-gbs")));
  if (c->rc != AF_OK) return c->rc;
  /* Smallest error of each kind and its cost. */
  static const struct { double id; int fixed; const char *name; } kinds[] = {
      {0, 0, "adaptive rk8pd"}, {1, 0, "adaptive rkf45"}, {3, 0, "adaptive rkck"},
      {4, 0, "msadams"}, {5, 1, "the layer map"}, {10, 0, "mp-gauss"},
      {11, 0, "mp-gbs"}};
  fig_cap_printf(c, "Smallest error of each:");
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    double best = INFINITY, ne = NAN, st = NAN, tm = NAN;
    for (size_t r = 0; r < t->nrow; r++)
      if (fig_cap_at(c, r, cm) == kinds[k].id &&
          fig_cap_at(c, r, cfx) == kinds[k].fixed &&
          fig_cap_at(c, r, ce) < best) {
        best = fig_cap_at(c, r, ce);
        ne = fig_cap_at(c, r, cn);
        st = fig_cap_at(c, r, cs);
        tm = fig_cap_at(c, r, ctm);
      }
    fig_cap_printf(c, "%s %s %s (%s steps, %s evaluations, %s s CPU)",
                   k ? ";" : "", kinds[k].name, fig_num(b[0], best, 2),
                   fig_num(b[1], st, 3), fig_num(b[2], ne, 3),
                   fig_num(b[3], tm, 2));
  }
  fig_cap_printf(c, ".\n");
  return c->rc;
}

/* ------------------------------------------------------------ command */

typedef struct {
  const char *name;
  const char *summary;
  int (*fn)(fig_table *t, const fig_cfg *c);
  int (*cap)(fig_cap *c); /* NULL: no generated caption */
} fig_def;

static int fig_cap_write_cb(FILE *f, void *vctx) {
  fig_cap *c = vctx;
  c->f = f;
  return c->cap(c);
}

static const fig_def fig_defs[] = {
    {"f1", "gamma(t) of the six schemes, T4.1 scalar ODEs (n = 256, beta = 5) "
           "and n = d = 8 particles", fig_f1, fig_cap_f1},
    {"c1", "C1 discretization panel: Post-LN layer map h = 0.1, 0.01 vs "
           "rk8pd vs reference (n = 64, d = 3, beta = 1)", fig_c1, fig_cap_c1},
    {"c1traj", "C1 paths on S^2 of the six schemes from one start (n = 64, "
               "d = 3, beta = 1, t <= 15), orthographic view", fig_c1traj, fig_cap_c1traj},
    {"c2", "C2 metastable staircase on the circle (n = 5, beta = 4, "
           "t <= 400): clusters, energy, angles", fig_c2, fig_cap_c2},
    {"c3", "C3 phase diagram: fraction of pairs with cos > 0.999 over beta x "
           "t (SA, n = 32, d = 2, 90 beta, 2048 starts, t <= 30)", fig_c3, fig_cap_phase},
    {"c4", "C4 phase diagrams of Post-, Pre-, Peri-LN, nGPT (n = 64, d = 16, "
           "20 beta, 16 starts, t <= 50)", fig_c4, fig_cap_phase},
    {"f2", "random-weights layer maps, every scheme (d = 512, n = 128, "
           "beta = sqrt(d), 64 Kaiming layers; unit and sqrt(d) token scales)",
           fig_f2, fig_cap_f2},
    {"c5", "C5 beta*(t): largest beta with gamma(t) >= 1 - 1e-3 (SA scalar "
           "ODE)", fig_c5, fig_cap_c5},
    {"conv", "convergence orders and work-precision of every GSL stepper, "
             "the layer maps and mp-gauss/mp-gbs against an MPFR reference "
             "(Pre-LN, n = 8, d = 3, beta = 1, t = 5)", fig_conv, fig_cap_conv},
};
#define FIG_COUNT (sizeof fig_defs / sizeof fig_defs[0])

static void fig_help(void) {
  printf("Usage: attnflow figure NAME [--out PATH] [--caption PATH] [--quick]"
         " [--seed S]\n"
         "       attnflow figure NAME --from CSV --caption PATH\n"
         "       attnflow figure --list\n"
         "\n"
         "Write the data of one figure of docs/figures.md as CSV ('# key: "
         "value'\nprovenance lines, a header line, then rows).  'make "
         "figures' plots them.\n"
         "\n"
         "  --out PATH   output file, '-' for stdout (default -)\n"
         "  --caption PATH  also write the figure's caption (Markdown, every\n"
         "               number from the data) to PATH, '-' for stdout\n"
         "  --from CSV   compute nothing: read the data of an earlier run\n"
         "               from CSV (for --caption)\n"
         "  --quick      small sizes and short horizons (for tests, seconds)\n"
         "  --seed S     seed of random starts and weights (default 1)\n"
         "  --systems N  starts per beta of c3, c4 (default 2048, 16)\n"
         "  --list       list the figures\n"
         "\nFigures:\n");
  for (size_t i = 0; i < FIG_COUNT; i++)
    printf("  %-4s %s\n", fig_defs[i].name, fig_defs[i].summary);
  printf("\nExit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

int af_cli_figure(int argc, char **argv) {
  static const af_cli_opt opts[] = {
      {"help", 0}, {"list", 0}, {"out", 1},     {"quick", 0},
      {"seed", 1}, {"caption", 1}, {"from", 1}, {"systems", 1}, {NULL, 0}};
  enum { OH, OL, OO, OQ, OS, OC, OF, OY };
  fig_cfg c = {NULL, 0, 1, 0, NULL};
  const char *out = "-", *cap = NULL, *from = NULL;
  int first = 1;
  if (argc >= 2 && argv[1][0] != '-') {
    c.name = argv[1];
    first = 2;
  }
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, first, "figure");
  int o, list = 0;
  const char *val;
  while ((o = af_cli_next(&p, opts, &val)) != -1) {
    if (o == -2) return AF_EXIT_USAGE;
    if (o == OH) {
      fig_help();
      return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
    }
    if (o == OL) list = 1;
    if (o == OO) out = val;
    if (o == OQ) c.quick = 1;
    if (o == OS && !af_cli_ulong(&c.seed, "seed", val)) return AF_EXIT_USAGE;
    if (o == OC) cap = val;
    if (o == OF) from = val;
    if (o == OY) {
      if (!af_cli_ulong(&c.systems, "systems", val)) return AF_EXIT_USAGE;
      if (c.systems == 0) {
        af_cli_error("figure: --systems must be at least 1");
        return AF_EXIT_USAGE;
      }
    }
  }
  if (list) {
    for (size_t i = 0; i < FIG_COUNT; i++)
      printf("%s\t%s\n", fig_defs[i].name, fig_defs[i].summary);
    return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }
  if (c.name == NULL) {
    af_cli_error("figure: missing figure NAME (try 'attnflow figure --list')");
    return AF_EXIT_USAGE;
  }
  const fig_def *def = NULL;
  for (size_t i = 0; i < FIG_COUNT; i++)
    if (strcmp(c.name, fig_defs[i].name) == 0) def = &fig_defs[i];
  if (def == NULL) {
    af_cli_error("figure: unknown figure '%s' (try 'attnflow figure --list')",
                 c.name);
    return AF_EXIT_USAGE;
  }
  if (out[0] == '\0' || (cap && cap[0] == '\0') || (from && from[0] == '\0')) {
    af_cli_error("figure: empty path");
    return AF_EXIT_USAGE;
  }
  if (cap && def->cap == NULL) {
    af_cli_error("figure %s: no generated caption", c.name);
    return AF_EXIT_USAGE;
  }
  if (from && cap == NULL) {
    af_cli_error("figure: --from needs --caption");
    return AF_EXIT_USAGE;
  }
  c.progress = isatty(fileno(stderr)) ? stderr : NULL;
  fig_table t;
  fig_table_init(&t);
  int rc = from ? fig_table_read(&t, from) : def->fn(&t, &c);
  if (rc != AF_OK) {
    if (from)
      af_cli_error("figure %s: cannot read %s: %s", c.name, from,
                   af_strerror(rc));
    else
      af_cli_error("figure %s: %s", c.name, af_strerror(rc));
    fig_table_free(&t);
    return AF_EXIT_FAIL;
  }
  if (from == NULL) {
    rc = af_write_atomic(out, fig_write_cb, &t);
    if (rc != AF_OK) {
      af_cli_error("figure %s: cannot write %s: %s", c.name, out,
                   af_strerror(rc));
      fig_table_free(&t);
      return AF_EXIT_FAIL;
    }
  }
  if (cap) {
    fig_cap fc = {NULL, &t, AF_OK, def->cap};
    rc = af_write_atomic(cap, fig_cap_write_cb, &fc);
    if (rc != AF_OK) {
      af_cli_error("figure %s: cannot write caption %s: %s%s", c.name, cap,
                   af_strerror(rc),
                   rc == AF_EPARSE ? " (a column or key of the figure is "
                                     "missing)" : "");
      fig_table_free(&t);
      return AF_EXIT_FAIL;
    }
  }
  fig_table_free(&t);
  return AF_EXIT_OK;
}
