/* cli_sweep_grid.h -- the grid of `attnflow sweep` (cli_sweep_grid.c),
 * shared with the command (cli_sweep.c). */
#ifndef AF_CLI_SWEEP_GRID_H
#define AF_CLI_SWEEP_GRID_H

#include <stddef.h>

#include "attnflow.h"
#include "cli_run.h"

typedef struct {
  /* Axes. */
  char **schemes;   /* the CSV's names (a spec's name for a spec) */
  size_t nscheme;
  size_t nbuiltin;  /* schemes[i] for i >= nbuiltin come from specs */
  char **defpath;   /* nscheme entries: NULL, or the spec's file */
  size_t *ns, *ds;
  size_t nn, nd;
  double *betas;
  size_t nbeta;
  unsigned long *seeds;
  size_t nseed;
  size_t nruns;
  double naxis[5]; /* values on each axis, counted before expansion */
  double beta0;    /* the first beta and seed (pass 1) */
  unsigned long seed0;
  /* One parsed 'run' configuration per (scheme, n, d). */
  af_run_cfg *cfg;
  af_weights **wfile; /* --weights PATH, read per (scheme, n, d) */
  size_t ncomb;
  af_obs_id obs[AF_OBS_COUNT]; /* columns after t */
  const char *obs_names[AF_OBS_COUNT];
  size_t nobs;
  size_t rowlen; /* ntimes * nobs values, then steps and nevals */
  const char *out;
  int nthreads;
  int progress; /* --progress */
  /* Run options as given, for the synthesized 'run' command line. */
  const char *run_val[O_COUNT];
} af_sweep;

typedef int (*af_sweep_item_fn)(void *ctx, const char *item);

/* A list being parsed.  In the counting pass (count set) every item is
 * checked and its values counted into nval, nothing is stored: a range is
 * counted in O(1), so the grid's size is known before any value is
 * expanded. */
typedef struct {
  af_sweep *g;
  size_t cap;
  int count;
  double nval; /* values counted (a double: the sum cannot wrap) */
} af_sweep_lc;

typedef struct {
  af_sweep_lc lc;
  const char *opt;
  size_t **v;
  size_t *k;
} af_sweep_sc;

int af_sweep_split(const char *opt, const char *s, af_sweep_item_fn f,
                   void *ctx);
int af_sweep_scheme_item(void *vctx, const char *item);
int af_sweep_size_item(void *vctx, const char *item);
int af_sweep_beta_item(void *vctx, const char *item);
int af_sweep_seed_item(void *vctx, const char *item);
int af_sweep_seeds_distinct(const af_sweep *g);
int af_sweep_betas_distinct(const af_sweep *g);
int af_sweep_sizes_distinct(const char *opt, const size_t *v, size_t n);
int af_sweep_names_distinct(const af_sweep *g, size_t lo, size_t hi,
                            const char *opt);
void af_sweep_free(af_sweep *g);
int af_sweep_check_size(const double axes[5], size_t namelen,
                        unsigned long max_runs);
int af_sweep_check_table(const af_sweep *g);

#endif
