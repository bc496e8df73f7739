/* figure.h -- the parts of `attnflow figure` (cli/figure*.c) shared by
 * the figure families: the table a figure fills, the caption writer's
 * context, the figure's options, and the helpers every panel uses.
 *
 * cli/figure.c holds these helpers and the command (the list of figures,
 * options, --from, writing the CSV and the caption); each family of
 * docs/figures.md has a file of its own:
 *   figure_f1.c     F1, gamma(t) of the six schemes
 *   figure_c1.c     C1, the discretization panel and the paths on S^2
 *   figure_c2.c     C2, the metastable staircase
 *   figure_phase.c  C3 and C4, the beta x t phase diagrams
 *   figure_f2.c     F2, random weights
 *   figure_c5.c     C5, beta*(t)
 *   figure_conv.c   convergence orders and work-precision
 *   figure_lc.c     the long-context transition per map
 * Each defines fig_NAME (compute the table) and fig_cap_NAME (its
 * caption from the table alone). */
#ifndef AF_CLI_FIGURE_H
#define AF_CLI_FIGURE_H

#include <stddef.h>
#include <stdio.h>

#include "attnflow.h"
#include "output.h"

#if defined(__GNUC__)
#define FIG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FIG_PRINTF(f, a)
/* figure tradeoff (figure_tradeoff.c); fig_tradeoff_check: AF_OK, or
 * AF_EINVAL with the reason in why (bad grid, metric or depths). */
fig_fn fig_tradeoff;
fig_cap_fn fig_cap_tradeoff;
int fig_tradeoff_check(const fig_cfg *c, char *why, size_t cap);

#endif

/* ------------------------------------------------------------ table */

typedef struct {
  af_prov prov;
  size_t ncol, nrow;
  char **names; /* ncol column names */
  double *v;    /* nrow x ncol, NaN where a value does not exist */
} fig_table;

/* Append a column named printf(fmt, ...); returns its index or -1. */
long fig_col(fig_table *t, const char *fmt, ...) FIG_PRINTF(2, 3);
/* Allocate the rows once every column exists; all values NaN. */
int fig_rows(fig_table *t, size_t nrow);
double *fig_at(fig_table *t, size_t row, long col);

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
long fig_cap_col(fig_cap *c, const char *fmt, ...) FIG_PRINTF(2, 3);
/* Value at (row, col); NaN if col < 0. */
double fig_cap_at(const fig_cap *c, size_t row, long col);
/* Provenance value of key, "?" (and rc = AF_EPARSE) if absent. */
const char *fig_cap_prov(fig_cap *c, const char *key);
void fig_cap_printf(fig_cap *c, const char *fmt, ...) FIG_PRINTF(2, 3);
/* v with `sig` significant digits as caption text: plain (%g style) for
 * 10^-3 <= |v| < 10^5, else "m·10ᵉ" with a superscript exponent; "NaN"
 * for NaN.  buf has at least 48 bytes. */
const char *fig_num(char *buf, double v, int sig);

/* ------------------------------------------------------------ context */

typedef struct {
  const char *name;
  int quick;
  unsigned long seed;
  unsigned long systems; /* starts per beta of C3, C4; 0 = the figure's */
  FILE *progress; /* stderr if it is a terminal or --progress, else NULL */
  int lines;      /* --progress off a terminal: whole lines, at most 1/s */
  /* figure tradeoff only (NULL: its defaults): early metric name, grid
   * lists "a,b,..." of n and beta, depths "L0,L" */
  const char *metric, *grid_n, *grid_beta, *depths;
} fig_cfg;

/* Progress on the terminal (nothing when stderr is not one). */
void fig_note(const fig_cfg *c, const char *fmt, ...) FIG_PRINTF(2, 3);
void fig_note_done(const fig_cfg *c);
/* Standard head: version, commit, command, figure, quick flag. */
int fig_prov_head(fig_table *t, const fig_cfg *c);
/* Size and seeded start of a case: n, d, beta, init, seed. */
int fig_prov_case(fig_table *t, const fig_cfg *c, size_t n, size_t d,
                  double beta, const char *init);
/* The output grid of fig_linear_times(t_end, dt): t_end, output_dt. */
int fig_prov_grid(fig_table *t, double t_end, double dt);
/* Text lines kv[k][0]: kv[k][1], k = 0..n-1, in order. */
int fig_prov_strs(fig_table *t, const char *const (*kv)[2], size_t n);
/* The integrator of o as PREFIXmethod and PREFIXh or PREFIXrtol,
 * PREFIXatol. */
int fig_prov_integ(fig_table *t, const char *prefix, const af_integ_opts *o);
/* Output grid 0, dt, ..., t_end (exact multiples k*dt). */
double *fig_linear_times(size_t *nt, double t_end, double dt);
/* Integrate y (in place) over times, collecting observables into obs
 * (nt x AF_OBS_COUNT) and states (nt x state size); either may be NULL. */
int fig_run(double *obs, double *states, double *y, const double *times,
            size_t nt, const af_model *m, const af_integ_opts *o,
            double cluster_cos);
/* The three runs of C2, C3 and C4: o[0] the layer maps at h = 0.1,
 * o[1] rk8pd at the library's tolerances (rtol 1e-10, atol 1e-12), o[2]
 * the reference, rk8pd 1000 times tighter (rtol 1e-13, atol 1e-15). */
void fig_runs_lay_adapt_ref(af_integ_opts o[3]);
/* The integrators of the runs names[0..count-1], each by fig_prov_integ
 * with the prefix "NAME_". */
int fig_prov_runs(fig_table *t, const char *const *names,
                  const af_integ_opts *o, int count);
/* Runs k = 0..count-1 of model m from y0 with options o[k]: observables
 * into obs[k] (nt x AF_OBS_COUNT) and states into st[k] (nt x state
 * size), both allocated here (free them with fig_runs_free, also after a
 * failure); the terminal shows "run NAME". */
int fig_runs(double **obs, double **st, const char *const *names,
             const af_integ_opts *o, int count, const double *y0,
             const double *times, size_t nt, const af_model *m,
             double cluster_cos, const fig_cfg *c);
void fig_runs_free(double **obs, double **st, int count);
const char *fig_scheme_name(int s);
/* free() of each of the n buffers p[0..n-1] (NULL allowed); FIG_FREE(a,
 * b, ...) frees the scratch buffers of a panel, after it ran or failed. */
void fig_free_all(void *const *p, size_t n);
#define FIG_FREE(...)                                                   \
  fig_free_all((void *[]){__VA_ARGS__},                                 \
               sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
/* |a/|a| - b/|b|| of two tokens of dimension d. */
double fig_dir_dist(const double *a, const double *b, size_t d);

/* ------------------------------------------------------------ figures */

/* A figure computes its table; its caption writer reads only the table. */
typedef int fig_fn(fig_table *T, const fig_cfg *c);
typedef int fig_cap_fn(fig_cap *c);

fig_fn fig_f1, fig_c1, fig_c1traj, fig_c2, fig_c3, fig_c4, fig_f2, fig_c5,
    fig_conv;
fig_cap_fn fig_cap_f1, fig_cap_c1, fig_cap_c1traj, fig_cap_c2,
    fig_cap_phase /* C3 and C4 */, fig_cap_f2, fig_cap_c5, fig_cap_conv;

/* figure tradeoff (figure_tradeoff.c); fig_tradeoff_check: AF_OK, or
 * AF_EINVAL with the reason in why (bad grid, metric or depths). */
fig_fn fig_tradeoff;
fig_cap_fn fig_cap_tradeoff;
int fig_tradeoff_check(const fig_cfg *c, char *why, size_t cap);

/* figure lc (figure_lc.c): the long-context transition per map. */
fig_fn fig_lc;
fig_cap_fn fig_cap_lc;
fig_fn fig_tmerge;
fig_cap_fn fig_cap_tmerge;

#endif
