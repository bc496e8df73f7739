/* figure.c -- `attnflow figure NAME`: write the data of one figure of
 * docs/figures.md as CSV (provenance block of "# key: value" lines, one
 * header line, rows of %.17g numbers).  The gnuplot scripts in
 * docs/figures/ read these files; `make figures` runs both.
 *
 * Each figure computes its whole table in memory first and writes it with
 * af_write_atomic, so a failed run leaves no file.  Long figures report
 * progress on stderr only when stderr is a terminal.
 *
 * This file holds the table, the caption helpers, the setup shared by
 * the panels, and the command; each family of figures has a file of its
 * own (figure.h lists them).
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
 *       the runs are an OpenMP sweep (af_sweep_pairs, src/flow/sweep.c)
 *   c4  case C4, the same diagram for Post-, Pre-, Peri-LN and nGPT
 *   f2  random-weights experiment: layer maps of every scheme with
 *       Kaiming-random Q, K, V per layer
 *   c5  case C5: beta*(t), largest beta with gamma(t) >= 1 - 10^-3
 *   conv  convergence orders and work-precision of every GSL stepper,
 *       the layer maps and the MPFR methods against an MPFR reference
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "figure.h"

/* ------------------------------------------------------------ table */

/* A column name: the char array buf printed from fmt and the arguments
 * of the variadic function it stands in. */
#define FIG_VNAME(buf, fmt)                  \
  do {                                       \
    va_list ap_;                             \
    va_start(ap_, fmt);                      \
    vsnprintf(buf, sizeof buf, fmt, ap_);    \
    va_end(ap_);                             \
  } while (0)

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

long fig_col(fig_table *t, const char *fmt, ...) {
  char buf[128];
  FIG_VNAME(buf, fmt);
  char **nn = realloc(t->names, (t->ncol + 1) * sizeof *nn);
  if (nn == NULL) return -1;
  t->names = nn;
  t->names[t->ncol] = malloc(strlen(buf) + 1);
  if (t->names[t->ncol] == NULL) return -1;
  strcpy(t->names[t->ncol], buf);
  return (long)t->ncol++;
}

int fig_rows(fig_table *t, size_t nrow) {
  t->nrow = nrow;
  t->v = malloc(nrow * t->ncol * sizeof *t->v);
  if (t->v == NULL) return AF_ENOMEM;
  for (size_t k = 0; k < nrow * t->ncol; k++) t->v[k] = NAN;
  return AF_OK;
}

double *fig_at(fig_table *t, size_t row, long col) {
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

long fig_cap_col(fig_cap *c, const char *fmt, ...) {
  char buf[128];
  FIG_VNAME(buf, fmt);
  long k = fig_find(c->t, buf);
  if (k < 0) c->rc = AF_EPARSE;
  return k;
}

double fig_cap_at(const fig_cap *c, size_t row, long col) {
  return col < 0 ? NAN : c->t->v[row * c->t->ncol + (size_t)col];
}

const char *fig_cap_prov(fig_cap *c, const char *key) {
  const char *v = fig_prov_get(c->t, key);
  if (v == NULL) c->rc = AF_EPARSE;
  return v ? v : "?";
}

void fig_cap_printf(fig_cap *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(c->f, fmt, ap) < 0 && c->rc == AF_OK) c->rc = AF_EIO;
  va_end(ap);
}

const char *fig_num(char *buf, double v, int sig) {
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

void fig_note(const fig_cfg *c, const char *fmt, ...) {
  if (c->progress == NULL) return;
  if (c->lines) {
    /* A log or a pipe: whole lines, the first and then at most one a
     * second (a phase diagram has thousands of runs). */
    static double last = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (last >= 0 && now - last < 1.0) return;
    last = now;
  }
  va_list ap;
  va_start(ap, fmt);
  if (c->lines)
    fprintf(c->progress, "figure %s: ", c->name);
  else
    fprintf(c->progress, "\r%-70s\rfigure %s: ", "", c->name);
  vfprintf(c->progress, fmt, ap);
  if (c->lines) fputc('\n', c->progress);
  fflush(c->progress);
  va_end(ap);
}

void fig_note_done(const fig_cfg *c) {
  if (c->progress && !c->lines) fprintf(c->progress, "\r%-70s\r", "");
}

int fig_prov_head(fig_table *t, const fig_cfg *c) {
  int argc;
  char **argv = af_cli_argv(&argc);
  int rc = af_prov_add_head(&t->prov, argc, argv);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "figure", c->name);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "quick", c->quick ? "yes" : "no");
  return rc;
}

int fig_prov_case(fig_table *t, const fig_cfg *c, size_t n, size_t d,
                  double beta, const char *init) {
  int rc = af_prov_add_ulong(&t->prov, "n", n);
  if (rc == AF_OK) rc = af_prov_add_ulong(&t->prov, "d", d);
  if (rc == AF_OK) rc = af_prov_add_double(&t->prov, "beta", beta);
  if (rc == AF_OK) rc = af_prov_add_str(&t->prov, "init", init);
  if (rc == AF_OK) rc = af_prov_add_ulong(&t->prov, "seed", c->seed);
  return rc;
}

int fig_prov_grid(fig_table *t, double t_end, double dt) {
  int rc = af_prov_add_double(&t->prov, "t_end", t_end);
  if (rc == AF_OK) rc = af_prov_add_double(&t->prov, "output_dt", dt);
  return rc;
}

int fig_prov_strs(fig_table *t, const char *const (*kv)[2], size_t n) {
  int rc = AF_OK;
  for (size_t k = 0; k < n && rc == AF_OK; k++)
    rc = af_prov_add_str(&t->prov, kv[k][0], kv[k][1]);
  return rc;
}

int fig_prov_integ(fig_table *t, const char *prefix,
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

double *fig_linear_times(size_t *nt, double t_end, double dt) {
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

int fig_run(double *obs, double *states, double *y, const double *times,
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

void fig_runs_lay_adapt_ref(af_integ_opts o[3]) {
  for (int k = 0; k < 3; k++) af_integ_opts_init(&o[k]);
  o[0].method = AF_METHOD_LAYERS;
  o[0].h = 0.1;
  o[1].method = AF_METHOD_RK8PD;
  o[2].method = AF_METHOD_RK8PD;
  o[2].rtol = 1e-13;
  o[2].atol = 1e-15;
}

int fig_prov_runs(fig_table *t, const char *const *names,
                  const af_integ_opts *o, int count) {
  int rc = AF_OK;
  for (int k = 0; k < count && rc == AF_OK; k++) {
    char pre[32];
    snprintf(pre, sizeof pre, "%s_", names[k]);
    rc = fig_prov_integ(t, pre, &o[k]);
  }
  return rc;
}

int fig_runs(double **obs, double **st, const char *const *names,
             const af_integ_opts *o, int count, const double *y0,
             const double *times, size_t nt, const af_model *m,
             double cluster_cos, const fig_cfg *c) {
  size_t ss = af_state_size(m->n, m->d);
  double *y = malloc(ss * sizeof *y);
  int rc = y ? AF_OK : AF_ENOMEM;
  for (int k = 0; k < count && rc == AF_OK; k++) {
    obs[k] = malloc(nt * AF_OBS_COUNT * sizeof *obs[k]);
    st[k] = malloc(nt * ss * sizeof *st[k]);
    if (!obs[k] || !st[k]) rc = AF_ENOMEM;
  }
  for (int k = 0; k < count && rc == AF_OK; k++) {
    fig_note(c, "run %s", names[k]);
    memcpy(y, y0, ss * sizeof *y);
    rc = fig_run(obs[k], st[k], y, times, nt, m, &o[k], cluster_cos);
  }
  fig_note_done(c);
  free(y);
  return rc;
}

void fig_runs_free(double **obs, double **st, int count) {
  for (int k = 0; k < count; k++) {
    free(obs[k]);
    free(st[k]);
  }
}

void fig_free_all(void *const *p, size_t n) {
  for (size_t k = 0; k < n; k++) free(p[k]);
}

const char *fig_scheme_name(int s) {
  return af_scheme_get((af_scheme_id)s)->name;
}

double fig_dir_dist(const double *a, const double *b, size_t d) {
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

/* ------------------------------------------------------------ command */

typedef struct {
  const char *name;
  const char *summary;
  fig_fn *fn;
  fig_cap_fn *cap; /* NULL: no generated caption */
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
           "beta = sqrt(d), 64 Kaiming layers, 8 seeds; unit and sqrt(d) "
           "stream scales)",
           fig_f2, fig_cap_f2},
    {"c5", "C5 beta*(t): largest beta with gamma(t) >= 1 - 1e-3 (SA scalar "
           "ODE)", fig_c5, fig_cap_c5},
    {"conv", "convergence orders and work-precision of every GSL stepper, "
             "the layer maps and mp-gauss/mp-gbs against an MPFR reference "
             "(Pre-LN, n = 8, d = 3, beta = 1, t = 5)", fig_conv, fig_cap_conv},
    {"tradeoff", "speed/diversity Pareto fronts of the six schemes over n, "
                 "beta, r0, alpha, tau (scalar systems, layer maps h = 1, "
                 "random starts)", fig_tradeoff, fig_cap_tradeoff},
    {"lc", "long-context transition of one layer per map: exact cosine at "
           "n = 1e2 ... 1e16 and its limits vs gamma (rho = 1/2, beta = "
           "gamma log n)", fig_lc, fig_cap_lc},
    {"tmerge", "metastability time scales: merging time of two tokens at "
               "pi/2 per scheme and its slope d ln t/d beta, beta in [1, 10]",
     fig_tmerge, fig_cap_tmerge},
};
#define FIG_COUNT (sizeof fig_defs / sizeof fig_defs[0])

static void fig_help(void) {
  printf("Usage: attnflow figure NAME [--out PATH] [--caption PATH] [--quick]"
         " [--seed S] [--progress]\n"
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
         "  --systems N  starts per beta of c3, c4 (default 2048, 16), seeds\n"
         "               of f2 (default 8)\n"
         "  --progress   progress on stderr even when it is not a terminal\n"
         "               (whole lines, at most one a second)\n"
         "  --list       list the figures\n"
         "\nFigures:\n");
  for (size_t i = 0; i < FIG_COUNT; i++)
    printf("  %-4s %s\n", fig_defs[i].name, fig_defs[i].summary);
  printf("\nOptions of the tradeoff figure only:\n"
         "  --metric M   early metric: gamma (gamma(L0), default) or angle\n"
         "               (mean angle moved by L0)\n"
         "  --n LIST     token counts, e.g. 4,16,64 (default 4,16,64,256,1024;\n"
         "               --quick 4,16)\n"
         "  --beta LIST  inverse temperatures (default 0.5,1,2,4,8; --quick 1,4)\n"
         "  --depths L0,L  early depth and horizon in layers (default 1,10)\n"
         "  --systems N  random starts per grid point (default 16)\n");
  printf("\nExit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

int af_cli_figure(int argc, char **argv) {
  static const af_cli_opt opts[] = {
      {"help", 0}, {"list", 0}, {"out", 1},     {"quick", 0},
      {"seed", 1}, {"caption", 1}, {"from", 1}, {"systems", 1},
      {"metric", 1}, {"n", 1}, {"beta", 1}, {"depths", 1},
      {"progress", 0}, {NULL, 0}};
  enum { OH, OL, OO, OQ, OS, OC, OF, OY, OMET, ON, OB, ODEP, OP };
  fig_cfg c = {NULL, 0, 1, 0, NULL, 0, NULL, NULL, NULL, NULL};
  int progress_opt = 0;
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
    if (o == OMET) c.metric = val;
    if (o == ON) c.grid_n = val;
    if (o == OB) c.grid_beta = val;
    if (o == ODEP) c.depths = val;
    if (o == OP) progress_opt = 1;
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
  if (strcmp(def->name, "tradeoff") != 0 &&
      (c.metric || c.grid_n || c.grid_beta || c.depths)) {
    af_cli_error("figure %s: --metric, --n, --beta and --depths apply to "
                 "the tradeoff figure only", c.name);
    return AF_EXIT_USAGE;
  }
  if (strcmp(def->name, "tradeoff") == 0 && from == NULL) {
    char why[256];
    if (fig_tradeoff_check(&c, why, sizeof why) != AF_OK) {
      af_cli_error("figure tradeoff: %s", why);
      return AF_EXIT_USAGE;
    }
  }
  if (!af_out_target_check("figure: --out", out, NULL) ||
      (cap && !af_out_target_check("figure: --caption", cap, NULL)))
    return AF_EXIT_USAGE;
  if (cap && def->cap == NULL) {
    af_cli_error("figure %s: no generated caption", c.name);
    return AF_EXIT_USAGE;
  }
  if (from && cap == NULL) {
    af_cli_error("figure: --from needs --caption");
    return AF_EXIT_USAGE;
  }
  int tty = isatty(fileno(stderr));
  c.progress = (tty || progress_opt) ? stderr : NULL;
  c.lines = !tty;
  fig_table t;
  fig_table_init(&t);
  errno = 0;
  int rc = from ? fig_table_read(&t, from) : def->fn(&t, &c);
  if (rc != AF_OK) {
    if (from)
      af_cli_error("figure %s: cannot read '%s': %s", c.name, from,
                   af_cli_errno_text(rc, rc == AF_EIO ? errno : 0));
    else
      af_cli_error("figure %s: %s", c.name, af_strerror(rc));
    fig_table_free(&t);
    return AF_EXIT_FAIL;
  }
  if (from == NULL) {
    errno = 0;
    rc = af_write_atomic(out, fig_write_cb, &t);
    if (rc != AF_OK) {
      af_cli_error("figure %s: cannot write '%s': %s", c.name, out,
                   af_cli_errno_text(rc, errno));
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
