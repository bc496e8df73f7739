/* cli_sweep.c -- `attnflow sweep`: one run of `attnflow run` for every
 * point of a grid (scheme x n x d x beta x seed), in one CSV.
 *
 * Linked only into the program attnflow-sweep, compiled with the flags of
 * mpicc (configure.ac); 'attnflow sweep' executes it (main.c), which keeps
 * the MPI environment of 'mpirun -n K attnflow sweep ...'.
 *
 * Runs are numbered by their grid key r (scheme outermost, then n, d,
 * beta, seed innermost, each axis in the order given).  Run r is exactly
 * 'attnflow run --scheme S --n N --d D --beta B --seed SEED' with every
 * other run option of the command line: its start and its Kaiming weights
 * depend on its own seed alone, so its row does not depend on the number
 * of ranks, of threads, or on the order in which runs finish.
 *
 * The engine is af_sweep_exec (src/flow/sweep.c) with a queue of this file:
 *   - rank 0 keeps the list of runs still to do, hands them out one at a
 *     time to its own threads and, through a serving thread, to the
 *     threads of the other ranks (dynamic: run times differ by large
 *     factors across beta and scheme), and receives every row;
 *   - each finished row is appended to a journal beside --out (one line
 *     per run, with a checksum, fsync'd), so a killed sweep started again
 *     with the same command computes only the runs missing from it;
 *   - at the end rank 0 writes the CSV in grid-key order (atomically) and
 *     removes the journal.
 * Without MPI (configure --without-mpi), or when not started by a launcher,
 * the program is one rank with OpenMP threads.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
/* The queue's critical section, the one af_sweep_exec calls next and
 * done in (attnflow.h). */
#define AF_SWEEP_CRITICAL _Pragma("omp critical(af_sweep_queue)")
#else
#define AF_SWEEP_CRITICAL
#endif
#ifdef AF_HAVE_MPI
#include <mpi.h>
#endif

#include "cli.h"
#include "cli_run.h"
#include "cli_sweep_grid.h"
#include "internal.h"
#include "output.h"

/* ------------------------------------------------------------ options */

enum { S_HELP, S_SCHEME, S_N, S_D, S_BETA, S_SEEDS, S_OUT, S_THREADS,
       S_PROGRESS, S_SCHEME_DEF, S_MAX_RUNS, S_COUNT };

static const af_cli_opt af_sweep_own[S_COUNT] = {
    [S_HELP] = {"help", 0},       [S_SCHEME] = {"scheme", 1},
    [S_N] = {"n", 1},             [S_D] = {"d", 1},
    [S_BETA] = {"beta", 1},       [S_SEEDS] = {"seeds", 1},
    [S_OUT] = {"out", 1},         [S_THREADS] = {"threads", 1},
    [S_PROGRESS] = {"progress", 0}, [S_SCHEME_DEF] = {"scheme-def", 1},
    [S_MAX_RUNS] = {"max-runs", 1},
};

/* Options of 'attnflow run' that a sweep does not pass on, and why. */
static const struct {
  int opt;
  const char *why;
} af_sweep_refused[] = {
    {O_SEED, "the seeds are a grid axis: use --seeds"},
    {O_FORMAT, "a sweep writes CSV"},
    {O_SAVE_STATE, "a sweep writes no states"},
    {O_PRECISION, "a sweep runs the double path"},
    {O_TOL, "a sweep runs the double path"},
    {O_DIGITS, "a sweep runs the double path"},
    {O_CHECKPOINT, "a sweep restarts from its journal"},
    {O_CHECKPOINT_EVERY, "a sweep restarts from its journal"},
    {O_RESUME, "a sweep restarts from its journal"},
};

/* Most runs in one grid: run numbers travel between ranks as doubles
 * and as C ints, and 2^31 - 1 runs of one row each already need 16 GiB
 * on rank 0. */
/* AF_SWEEP_MAX_RUNS: attnflow_limits.h */

static void af_sweep_help(void) {
  printf(
      "Usage: attnflow sweep --scheme LIST --n LIST --d LIST --beta GRID\n"
      "                      (or --scheme-def FILES in place of or beside --scheme)\n"
      "                      --seeds LIST --out PATH [RUN OPTIONS] [--threads T]\n"
      "\n"
      "Run 'attnflow run' at every point of a grid and write one CSV: columns\n"
      "scheme,n,d,beta,seed,t and the observables, rows in grid-key order\n"
      "(scheme, n, d, beta, seed, each in the order given) and t.  Run\n"
      "(S, N, D, B, SEED) is exactly 'attnflow run --scheme S --n N --d D --beta B\n"
      "--seed SEED' with the other options below: its rows do not depend on the\n"
      "number of MPI ranks or threads.\n"
      "\n"
      "Grid:\n"
      "  --scheme LIST   schemes, comma-separated (as 'run --scheme')\n"
      "  --scheme-def FILES  spec files, comma-separated (as 'run --scheme-def';\n"
      "                  docs/schemes.md): schemes of the grid after --scheme's,\n"
      "                  named in the CSV by their spec's name\n"
      "  --n LIST        token counts, comma-separated\n"
      "  --d LIST        dimensions, comma-separated\n"
      "  --beta GRID     comma-separated values and START:STOP:STEP ranges\n"
      "                  (START + k STEP up to STOP, STOP included)\n"
      "  --seeds LIST    comma-separated seeds and ranges A-B (A <= B)\n"
      "\n"
      "Sweep:\n"
      "  --out PATH      the CSV (a file; written atomically at the end).  The\n"
      "                  journal PATH.journal records every finished run; a\n"
      "                  killed sweep run again with the same command computes\n"
      "                  only the missing runs; removed at the end\n"
      "  --threads T     OpenMP threads per rank (default: OMP_NUM_THREADS or\n"
      "                  the number of cores)\n"
      "  --progress      progress on stderr even when it is not a terminal (under\n"
      "                  mpirun, which hands the ranks pipes); a terminal gets it\n"
      "                  anyway\n"
      "  --max-runs N    refuse a grid of more than N runs (default %lu, at most\n"
      "                  %lu).  The grid's size is counted, and the memory of\n"
      "                  its axes and of rank 0's table of rows estimated, before\n"
      "                  any value is expanded; a grid whose table would not fit\n"
      "                  in this machine's memory is refused as well\n"
      "\n"
      "Every other option of 'attnflow run --help' applies to each run, except\n"
      "--seed (use --seeds), --format, --save-state and the MPFR options\n"
      "(--precision, --tol, --digits, --checkpoint*, --resume).\n"
      "\n"
      "MPI: started by 'mpirun -n K' or 'srun', rank 0 hands out runs one at a\n"
      "time to every rank (its own threads included) and writes the CSV.\n"
      "Progress on stderr when it is a terminal.\n"
      "\n"
      "Exit status: 0 success, 1 run-time failure (a run failed: its rows are\n"
      "nan from the failure on), 2 usage error.\n",
      AF_SWEEP_DEFAULT_MAX_RUNS, AF_SWEEP_MAX_RUNS);
}

/* ------------------------------------------------------------ the grid */
/* cli_sweep_grid.c */

/* Parse 'run' for one (scheme, n, d): the synthesized command line
 * "run --scheme S --n N --d D --beta B0 --seed S0 OPTIONS". */
static int af_sweep_parse_run(af_run_cfg *c, const af_sweep *g,
                              const char *scheme, int def, size_t n,
                              size_t d) {
  char sn[32], sd[32], sb[32], ss[32];
  snprintf(sn, sizeof sn, "%zu", n);
  snprintf(sd, sizeof sd, "%zu", d);
  snprintf(sb, sizeof sb, "%.17g", g->beta0);
  snprintf(ss, sizeof ss, "%lu", g->seed0);
  char *argv[11 + 2 * O_COUNT];
  int argc = 0;
  argv[argc++] = "run";
  const char *fixed[] = {def ? "--scheme-def" : "--scheme", scheme, "--n", sn,
                         "--d", sd, "--beta", sb, "--seed", ss};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    argv[argc++] = (char *)fixed[i];
  char names[O_COUNT][40];
  for (int o = 0; o < O_COUNT; o++)
    if (g->run_val[o] != NULL) {
      snprintf(names[o], sizeof names[o], "--%s", af_run_opts[o].name);
      argv[argc++] = names[o];
      argv[argc++] = (char *)g->run_val[o];
    }
  argv[argc] = NULL;
  memset(c, 0, sizeof *c);
  return af_run_parse(c, argc, argv);
}

/* Spec'd schemes: the CSV names them by the spec's name (the file stays
 * in defpath for the provenance); two schemes of one name are refused. */
static int af_sweep_spec_names(af_sweep *g) {
  size_t per = g->nn * g->nd;
  for (size_t s = g->nbuiltin; s < g->nscheme; s++) {
    const char *name = g->cfg[s * per].scheme_name;
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL) {
      af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
      return 0;
    }
    strcpy(copy, name);
    g->defpath[s] = g->schemes[s];
    g->schemes[s] = copy;
  }
  for (size_t s = g->nbuiltin; s < g->nscheme; s++)
    for (size_t u = 0; u < s; u++)
      if (strcmp(g->schemes[s], g->schemes[u]) == 0) {
        af_cli_error("--scheme-def %s: its name '%s' is already a scheme of "
                     "the grid (the CSV could not tell them apart)",
                     g->defpath[s], g->schemes[s]);
        return 0;
      }
  return 1;
}

/* One option of the command line (index into the table of
 * af_sweep_parse): the sweep's own into own[], run's into g->run_val,
 * unless the sweep refuses it.  A repeated option is an error, as in
 * run. */
typedef struct {
  af_sweep *g;
  const char **own;
} af_sweep_take_ctx;

static int af_sweep_take(int o, const char *val, void *vctx) {
  af_sweep_take_ctx *x = vctx;
  if (o < S_COUNT) {
    if (x->own[o] != NULL) {
      af_cli_error("sweep: --%s given twice", af_sweep_own[o].name);
      return AF_EXIT_USAGE;
    }
    x->own[o] = val ? val : ""; /* a flag: present */
    return AF_EXIT_OK;
  }
  o -= S_COUNT;
  if (x->g->run_val[o] != NULL) {
    af_cli_error("sweep: --%s given twice ('%s', then '%s')",
                 af_run_opts[o].name, x->g->run_val[o], val);
    return AF_EXIT_USAGE;
  }
  for (size_t i = 0; i < sizeof af_sweep_refused / sizeof af_sweep_refused[0];
       i++)
    if (af_sweep_refused[i].opt == o) {
      af_cli_error("sweep: --%s is not a sweep option (%s)",
                   af_run_opts[o].name, af_sweep_refused[i].why);
      return AF_EXIT_USAGE;
    }
  x->g->run_val[o] = val;
  return AF_EXIT_OK;
}

/* Parse the command line into g.  AF_EXIT_OK, AF_EXIT_USAGE, or -1 after
 * printing the help. */
static int af_sweep_parse(af_sweep *g, int argc, char **argv) {
  /* One table: the sweep's options first (they shadow run's --scheme,
   * --n, --d, --beta, --out, --help), then run's. */
  af_cli_opt table[S_COUNT + O_COUNT + 1];
  memcpy(table, af_sweep_own, sizeof af_sweep_own);
  memcpy(table + S_COUNT, af_run_opts, O_COUNT * sizeof *table);
  table[S_COUNT + O_COUNT].name = NULL;
  table[S_COUNT + O_COUNT].takes_value = 0;
  const char *own[S_COUNT] = {NULL};
  af_sweep_take_ctx x = {g, own};
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, 1, "sweep");
  int rc = af_cli_options(&p, table, S_HELP, af_sweep_help, af_sweep_take, &x);
  if (rc != AF_EXIT_OK) return rc;
  static const int required[] = {S_SCHEME, S_N, S_D, S_BETA, S_SEEDS, S_OUT};
  /* --scheme-def stands in for --scheme, or adds to it. */
  int skip = own[S_SCHEME] == NULL && own[S_SCHEME_DEF] != NULL;
  if (own[S_SCHEME] == NULL && own[S_SCHEME_DEF] == NULL) {
    af_cli_error("sweep: missing required option --scheme or --scheme-def "
                 "(try 'attnflow sweep --help')");
    return AF_EXIT_USAGE;
  }
  if (!af_cli_required("sweep", af_sweep_own, own, required + skip,
                       sizeof required / sizeof required[0] - (size_t)skip))
    return AF_EXIT_USAGE;
  unsigned long max_runs = AF_SWEEP_DEFAULT_MAX_RUNS;
  if (own[S_MAX_RUNS]) {
    if (!af_cli_ulong(&max_runs, "max-runs", own[S_MAX_RUNS]))
      return AF_EXIT_USAGE;
    if (max_runs < 1 || max_runs > AF_SWEEP_MAX_RUNS) {
      af_cli_error("--max-runs must be in [1, %lu] (got %s)",
                   AF_SWEEP_MAX_RUNS, own[S_MAX_RUNS]);
      return AF_EXIT_USAGE;
    }
  }
  /* Pass 1: every item checked, the values of each axis counted, none
   * stored; the grid refused by its size or its memory before anything
   * proportional to it is allocated. */
  af_sweep_lc cs = {g, 0, 1, 0}, cb = {g, 0, 1, 0}, cz = {g, 0, 1, 0};
  af_sweep_sc cn = {{g, 0, 1, 0}, "n", &g->ns, &g->nn};
  af_sweep_sc cd = {{g, 0, 1, 0}, "d", &g->ds, &g->nd};
  if ((own[S_SCHEME] &&
       !af_sweep_split("scheme", own[S_SCHEME], af_sweep_scheme_item, &cs)) ||
      (own[S_SCHEME_DEF] && !af_sweep_split("scheme-def", own[S_SCHEME_DEF],
                                            af_sweep_scheme_item, &cs)) ||
      !af_sweep_split("n", own[S_N], af_sweep_size_item, &cn) ||
      !af_sweep_split("d", own[S_D], af_sweep_size_item, &cd) ||
      !af_sweep_split("beta", own[S_BETA], af_sweep_beta_item, &cb) ||
      !af_sweep_split("seeds", own[S_SEEDS], af_sweep_seed_item, &cz))
    return AF_EXIT_USAGE;
  const double axes[5] = {cs.nval, cn.lc.nval, cd.lc.nval, cb.nval, cz.nval};
  size_t names_len = (own[S_SCHEME] ? strlen(own[S_SCHEME]) : 0) +
                     (own[S_SCHEME_DEF] ? strlen(own[S_SCHEME_DEF]) : 0);
  if (!af_sweep_check_size(axes, names_len, max_runs))
    return AF_EXIT_USAGE;
  memcpy(g->naxis, axes, sizeof axes);
  g->nruns = (size_t)(axes[0] * axes[1] * axes[2] * axes[3] * axes[4]);
  /* Pass 2: the values of the short axes (lists, no ranges); beta and the
   * seeds once the memory of the whole table is known. */
  af_sweep_lc lc = {g, 0, 0, 0};
  if (own[S_SCHEME] &&
      !af_sweep_split("scheme", own[S_SCHEME], af_sweep_scheme_item, &lc))
    return AF_EXIT_USAGE;
  g->nbuiltin = g->nscheme;
  if (own[S_SCHEME_DEF] && !af_sweep_split("scheme-def", own[S_SCHEME_DEF],
                                           af_sweep_scheme_item, &lc))
    return AF_EXIT_USAGE;
  if (!af_sweep_names_distinct(g, 0, g->nbuiltin, "--scheme") ||
      !af_sweep_names_distinct(g, g->nbuiltin, g->nscheme, "--scheme-def"))
    return AF_EXIT_USAGE;
  af_sweep_sc sc = {{g, 0, 0, 0}, "n", &g->ns, &g->nn};
  if (!af_sweep_split("n", own[S_N], af_sweep_size_item, &sc) ||
      !af_sweep_sizes_distinct("n", g->ns, g->nn))
    return AF_EXIT_USAGE;
  af_sweep_sc sc2 = {{g, 0, 0, 0}, "d", &g->ds, &g->nd};
  if (!af_sweep_split("d", own[S_D], af_sweep_size_item, &sc2) ||
      !af_sweep_sizes_distinct("d", g->ds, g->nd))
    return AF_EXIT_USAGE;
  g->out = own[S_OUT];
  if (g->out[0] == '\0' || strcmp(g->out, "-") == 0) {
    af_cli_error("sweep: --out must name a file (its journal lives beside "
                 "it)");
    return AF_EXIT_USAGE;
  }
  if (!af_out_target_check("sweep: --out", g->out,
                           "a sweep keeps its journal beside its output"))
    return AF_EXIT_USAGE;
  g->progress = own[S_PROGRESS] != NULL;
  g->nthreads = 0;
  if (own[S_THREADS]) {
    unsigned long t;
    if (!af_cli_ulong(&t, "threads", own[S_THREADS])) return AF_EXIT_USAGE;
    if (t < 1 || t > AF_THREADS_MAX) {
      af_cli_error("--threads must be in [1, %d] (got %s)", AF_THREADS_MAX,
                   own[S_THREADS]);
      return AF_EXIT_USAGE;
    }
    g->nthreads = (int)t;
  }

  /* Every (scheme, n, d) through run's parser: its checks apply. */
  g->ncomb = g->nscheme * g->nn * g->nd;
  g->cfg = calloc(g->ncomb, sizeof *g->cfg);
  g->wfile = calloc(g->ncomb, sizeof *g->wfile);
  if (g->cfg == NULL || g->wfile == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return AF_EXIT_FAIL;
  }
  g->defpath = calloc(g->nscheme, sizeof *g->defpath);
  if (g->defpath == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return AF_EXIT_FAIL;
  }
  for (size_t s = 0, c = 0; s < g->nscheme; s++)
    for (size_t i = 0; i < g->nn; i++)
      for (size_t j = 0; j < g->nd; j++, c++) {
        int ex = af_sweep_parse_run(&g->cfg[c], g, g->schemes[s],
                                    s >= g->nbuiltin, g->ns[i], g->ds[j]);
        if (ex != AF_EXIT_OK) return ex == -1 ? AF_EXIT_USAGE : ex;
      }
  if (!af_sweep_spec_names(g)) return AF_EXIT_USAGE;
  /* Columns: the observables without t (t has its own column). */
  const af_run_cfg *c0 = &g->cfg[0];
  g->nobs = 0;
  for (size_t k = 0; k < c0->nobs; k++)
    if (c0->obs[k] != AF_OBS_t) {
      g->obs[g->nobs] = c0->obs[k];
      g->obs_names[g->nobs++] = c0->obs_names[k];
    }
  if (g->nobs == 0) {
    af_cli_error("--observables: a sweep needs one besides t");
    return AF_EXIT_USAGE;
  }
  if (!af_size_mul(&g->rowlen, c0->ntimes, g->nobs) ||
      !af_size_add(&g->rowlen, g->rowlen, 2) ||
      !af_sweep_check_table(g))
    return AF_EXIT_USAGE;
  /* Pass 2 for beta and the seeds: at most max_runs values each, within
   * the memory just checked. */
  af_sweep_lc lb = {g, 0, 0, 0};
  if (!af_sweep_split("beta", own[S_BETA], af_sweep_beta_item, &lb) ||
      !af_sweep_betas_distinct(g))
    return AF_EXIT_USAGE;
  af_sweep_lc ls = {g, 0, 0, 0};
  if (!af_sweep_split("seeds", own[S_SEEDS], af_sweep_seed_item, &ls) ||
      !af_sweep_seeds_distinct(g))
    return AF_EXIT_USAGE;
  return AF_EXIT_OK;
}

/* Files named by the run options, read once per (scheme, n, d) before
 * any run: a missing or malformed file is one error, not one per run. */
static void af_sweep_file_error(const char *opt, const char *path,
                                size_t line, int st, int err) {
  if (line > 0)
    af_cli_error("%s %s:%zu: %s", opt, path, line, af_strerror(st));
  else if (st == AF_EIO && err != 0)
    af_cli_error("%s %s: %s (%s)", opt, path, af_strerror(st), strerror(err));
  else
    af_cli_error("%s %s: %s", opt, path, af_strerror(st));
}

static int af_sweep_read_files(af_sweep *g) {
  for (size_t c = 0; c < g->ncomb; c++) {
    const af_run_cfg *rc = &g->cfg[c];
    size_t line = 0;
    int st;
    errno = 0;
    if (strcmp(rc->weights, "identity") != 0 &&
        strcmp(rc->weights, "kaiming") != 0) {
      af_read_info info;
      st = af_cli_weights_read(&g->wfile[c], &info, rc->weights, rc->d,
                               rc->integ.h);
      line = info.line;
      if (st != AF_OK && info.what != NULL && line == 0) {
        af_cli_error("--weights %s: %s: %s", rc->weights, af_strerror(st),
                     info.what);
        return AF_EXIT_FAIL;
      }
      if (st != AF_OK) {
        af_sweep_file_error("--weights", rc->weights, line, st, errno);
        return AF_EXIT_FAIL;
      }
    }
    if (strncmp(rc->init, "file:", 5) == 0) {
      double *y = malloc(af_state_size(rc->n, rc->d) * sizeof *y);
      errno = 0;
      st = y ? af_init_state(y, &line, rc->init, rc->n, rc->d, rc->r0, 1)
             : AF_ENOMEM;
      int err = errno;
      free(y);
      if (st != AF_OK) {
        af_sweep_file_error("--init", rc->init + 5, line, st, err);
        return AF_EXIT_FAIL;
      }
    }
  }
  return AF_EXIT_OK;
}

/* Grid key of run r. */
typedef struct {
  size_t comb, scheme, n, d, beta, seed;
} af_sweep_key;

static af_sweep_key af_sweep_key_of(const af_sweep *g, size_t r) {
  af_sweep_key k;
  k.seed = r % g->nseed;
  r /= g->nseed;
  k.beta = r % g->nbeta;
  k.comb = r / g->nbeta;
  k.d = k.comb % g->nd;
  k.n = (k.comb / g->nd) % g->nn;
  k.scheme = k.comb / (g->nd * g->nn);
  return k;
}

/* The engine's task: run r into row (observables, then steps, nevals). */
static int af_sweep_task(double *row, size_t r, void *vctx) {
  const af_sweep *g = vctx;
  af_sweep_key k = af_sweep_key_of(g, r);
  const af_run_cfg *c = &g->cfg[k.comb];
  af_sweep_obs_spec s;
  memset(&s, 0, sizeof s);
  af_model_init(&s.model, c->n, c->d, g->betas[k.beta], c->scheme);
  s.model.attn = c->attn;
  s.model.alpha = c->alpha;
  s.model.alpha_decay = c->alpha_decay;
  s.model.tau = c->tau;
  if (c->spec != NULL)
    af_model_set_user_scheme(&s.model, af_scheme_spec_row(c->spec));
  s.model.w = g->wfile[k.comb];
  s.init = c->init;
  s.r0 = c->r0;
  s.seed = g->seeds[k.seed];
  s.times = c->times;
  s.ntimes = c->ntimes;
  s.opts = c->integ;
  if (c->h_auto)
    s.opts.h = 0; /* as 'attnflow run': the starting-step rule */
  s.kernel = c->kernel;
  s.cluster_cos = c->cluster_cos;
  s.obs = g->obs;
  s.nobs = g->nobs;
  s.kaiming = strcmp(c->weights, "kaiming") == 0;
  af_integ_stats st;
  int rc = af_sweep_observe(row, &st, &s);
  row[g->rowlen - 2] = (double)st.steps;
  row[g->rowlen - 1] = (double)st.nevals;
  return rc;
}

/* ------------------------------------------------------------ journal */

/* FNV-1a, 64 bits: the checksum of a journal line and the fingerprint
 * of a sweep (not cryptographic: it catches torn and damaged lines). */
static uint64_t af_sweep_fnv(uint64_t h, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)s[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}
#define AF_FNV_BASIS UINT64_C(0xcbf29ce484222325)

/* State of rank 0: rows, what is done, what is left, the journal. */
typedef struct {
  const af_sweep *g;
  double *rows; /* nruns * rowlen */
  int *status;
  unsigned char *have;
  size_t *todo, ntodo, next; /* runs not in the journal, in key order */
  size_t nresumed, nfinished;
  FILE *journal;
  char *jpath;
  uint64_t fingerprint;
  int err;     /* first error of the journal (stops the sweep) */
  int abort;   /* stop handing out runs */
  /* MPI. */
  int nranks, nfin;
  size_t nwritten, nsynced; /* journal lines written, fsync'd */
  size_t *per_rank; /* runs finished by each rank (this execution) */
  /* Progress (stderr a terminal). */
  int tty;
  double t0, last;
} af_sweep_state;

static double af_sweep_now(void) { return af_out_clock(CLOCK_MONOTONIC); }

static void af_sweep_progress(af_sweep_state *x, int final) {
  if (!x->tty) return;
  double now = af_sweep_now();
  /* At most five updates a second: a terminal is slower than short runs. */
  if (!final && now - x->last < 0.2) return;
  x->last = now;
  size_t done = x->nresumed + x->nfinished;
  if (final) {
    fprintf(stderr, "\r%-72s\r", "");
  } else {
    fprintf(stderr, "\rsweep: %zu/%zu runs (%.0f%%)%s, %.0f s", done,
            x->g->nruns, 100.0 * (double)done / (double)x->g->nruns,
            x->nresumed ? ", part resumed" : "", now - x->t0);
  }
  fflush(stderr);
}

/* One journal line: "R STATUS V1 ... Vm CHECKSUM", values in %a (exact),
 * the checksum over everything before its separating blank. */
static int af_sweep_journal_add(af_sweep_state *x, size_t r, int status,
                                const double *row) {
  const af_sweep *g = x->g;
  size_t cap = 64 + g->rowlen * 32, len;
  char *line = malloc(cap);
  if (line == NULL) return AF_ENOMEM;
  len = (size_t)snprintf(line, cap, "%zu %d", r, status);
  for (size_t i = 0; i < g->rowlen; i++)
    len += (size_t)snprintf(line + len, cap - len, " %a", row[i]);
  uint64_t h = af_sweep_fnv(AF_FNV_BASIS, line, len);
  len += (size_t)snprintf(line + len, cap - len, " %016llx\n",
                          (unsigned long long)h);
  int rc = fwrite(line, 1, len, x->journal) == len && fflush(x->journal) == 0
               ? AF_OK
               : AF_EIO;
#ifndef _OPENMP
  /* No serving thread to fsync it (af_sweep_serve0): now. */
  if (rc == AF_OK && fsync(fileno(x->journal)) != 0) rc = AF_EIO;
#endif
  x->nwritten++;
  free(line);
  return rc;
}

/* Parse one journal line (without its newline) into run r; 1 if sound. */
static int af_sweep_journal_parse(const af_sweep_state *x, char *line,
                                  size_t *r, int *status, double *row) {
  const af_sweep *g = x->g;
  char *sp = strrchr(line, ' ');
  if (sp == NULL || strlen(sp + 1) != 16) return 0;
  char *end;
  unsigned long long sum = strtoull(sp + 1, &end, 16);
  if (*end != '\0' ||
      sum != af_sweep_fnv(AF_FNV_BASIS, line, (size_t)(sp - line)))
    return 0;
  *sp = '\0';
  errno = 0;
  unsigned long long rr = strtoull(line, &end, 10);
  if (end == line || *end != ' ' || rr >= g->nruns) return 0;
  *r = (size_t)rr;
  long st = strtol(end + 1, &end, 10);
  if (*end != ' ' || st < 0 || st >= AF_STATUS_COUNT) return 0;
  *status = (int)st;
  for (size_t i = 0; i < g->rowlen; i++) {
    char *p = end;
    row[i] = strtod(p, &end);
    if (end == p) return 0;
  }
  return *end == '\0';
}

/* Open the journal beside --out: read the runs it holds (the same sweep
 * only: same fingerprint), drop a torn last line, or create it. */
static int af_sweep_journal_open(af_sweep_state *x) {
  const af_sweep *g = x->g;
  char head[128];
  snprintf(head, sizeof head,
           "# attnflow sweep journal: runs %zu, row %zu, sweep %016llx\n",
           g->nruns, g->rowlen, (unsigned long long)x->fingerprint);
  FILE *f = fopen(x->jpath, "r+");
  if (f == NULL && errno != ENOENT) {
    af_cli_error("sweep: cannot read journal '%s': %s", x->jpath,
                 strerror(errno));
    return AF_EXIT_FAIL;
  }
  if (f != NULL) {
    char *line = NULL;
    size_t cap = 0, lineno = 1;
    ssize_t len = getline(&line, &cap, f);
    if (len < 0 || strcmp(line, head) != 0) {
      af_cli_error("sweep: journal '%s' belongs to another sweep (other grid "
                   "or options): remove it to start again",
                   x->jpath);
      free(line);
      fclose(f);
      return AF_EXIT_FAIL;
    }
    double *row = malloc(g->rowlen * sizeof *row);
    long good = ftell(f);
    int torn = 0;
    while (row && (len = getline(&line, &cap, f)) > 0) {
      lineno++;
      size_t r;
      int st;
      int ok = line[len - 1] == '\n';
      if (ok) line[len - 1] = '\0';
      if (!ok || !af_sweep_journal_parse(x, line, &r, &st, row)) {
        torn = 1;
        break;
      }
      good = ftell(f);
      if (!x->have[r]) {
        memcpy(x->rows + r * g->rowlen, row, g->rowlen * sizeof *row);
        x->status[r] = st;
        x->have[r] = 1;
        x->nresumed++;
      }
    }
    free(row);
    free(line);
    if (torn) {
      /* Only the last line may be damaged (a kill during its write). */
      char rest[2];
      if (fgets(rest, sizeof rest, f) != NULL) {
        af_cli_error("sweep: journal '%s': line %zu is damaged: remove the "
                     "journal to start again",
                     x->jpath, lineno);
        fclose(f);
        return AF_EXIT_FAIL;
      }
      if (ftruncate(fileno(f), good) != 0) {
        af_cli_error("sweep: cannot repair journal '%s': %s", x->jpath,
                     strerror(errno));
        fclose(f);
        return AF_EXIT_FAIL;
      }
    }
    if (fseek(f, 0, SEEK_END) != 0) {
      fclose(f);
      return AF_EXIT_FAIL;
    }
    x->journal = f;
    fprintf(stderr, "attnflow: sweep: resuming from '%s': %zu of %zu runs "
            "done\n", x->jpath, x->nresumed, g->nruns);
  } else {
    x->journal = fopen(x->jpath, "w");
    if (x->journal == NULL || fputs(head, x->journal) == EOF ||
        fflush(x->journal) != 0 || fsync(fileno(x->journal)) != 0) {
      af_cli_error("sweep: cannot write journal '%s': %s", x->jpath,
                   strerror(errno));
      return AF_EXIT_FAIL;
    }
  }
  for (size_t r = 0; r < g->nruns; r++)
    if (!x->have[r]) x->todo[x->ntodo++] = r;
  return AF_EXIT_OK;
}

/* ------------------------------------------------------------ queues */

/* Rank 0: the next run of the list. */
static int af_sweep_next0(size_t *r, void *vctx) {
  af_sweep_state *x = vctx;
  if (x->abort || x->next >= x->ntodo) return 0;
  *r = x->todo[x->next++];
  return 1;
}

/* Rank 0: a finished run, from here or from another rank. */
static int af_sweep_done0(size_t r, const double *row, int status,
                          void *vctx) {
  af_sweep_state *x = vctx;
  const af_sweep *g = x->g;
  if (r >= g->nruns || x->have[r]) return AF_EINVAL;
  memcpy(x->rows + r * g->rowlen, row, g->rowlen * sizeof *row);
  x->status[r] = status;
  x->have[r] = 1;
  x->nfinished++;
  int rc = af_sweep_journal_add(x, r, status, row);
  if (rc != AF_OK && x->err == AF_OK) {
    x->err = rc;
    x->abort = 1;
  }
  af_sweep_progress(x, 0);
  return rc;
}

#ifdef AF_HAVE_MPI
/* Messages: a worker thread asks for a run (AF_TAG_ASK, no data) and gets
 * its number or -1 (AF_TAG_RUN, one long long); it sends a finished run
 * as rowlen + 2 doubles, its number and status first (AF_TAG_ROW; run
 * numbers < 2^31 are exact); a rank whose threads are all done says so
 * (AF_TAG_FIN).  Between two ranks messages keep their order, so a
 * rank's rows reach rank 0 before its AF_TAG_FIN. */
enum { AF_TAG_ASK = 1, AF_TAG_RUN, AF_TAG_ROW, AF_TAG_FIN };

/* One message from another rank, if one is waiting: 1 if handled. */
static int af_sweep_serve_msg(af_sweep_state *x, double *buf, int *rc) {
  const af_sweep *g = x->g;
  int flag;
  MPI_Status ms;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms);
  if (!flag) return 0;
  if (ms.MPI_TAG == AF_TAG_ASK || ms.MPI_TAG == AF_TAG_FIN) {
    MPI_Recv(NULL, 0, MPI_BYTE, ms.MPI_SOURCE, ms.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (ms.MPI_TAG == AF_TAG_FIN) {
    AF_SWEEP_CRITICAL
      x->nfin++;
      return 1;
    }
    size_t r = 0;
    int have;
    AF_SWEEP_CRITICAL
    have = af_sweep_next0(&r, x);
    long long v = have ? (long long)r : -1;
    MPI_Send(&v, 1, MPI_LONG_LONG, ms.MPI_SOURCE, AF_TAG_RUN, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, (int)g->rowlen + 2, MPI_DOUBLE, ms.MPI_SOURCE, AF_TAG_ROW,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int st;
    AF_SWEEP_CRITICAL
    {
      st = af_sweep_done0((size_t)buf[0], buf + 2, (int)buf[1], x);
      x->per_rank[ms.MPI_SOURCE]++;
    }
    if (st != AF_OK && *rc == AF_OK) *rc = st;
  }
  return 1;
}
#endif

/* Nanoseconds rank 0's serving thread sleeps when it has nothing to do:
 * from 0.2 ms after a message, doubling while idle up to 5 ms, short
 * against a run (tens of milliseconds and more) and cheap to poll
 * (sleeping 0.2 ms throughout cost about 4 % of a core). */
#define AF_SWEEP_POLL_NS 200000L
#define AF_SWEEP_POLL_MAX_NS 5000000L

/* Rank 0's serving thread: answers the other ranks (MPI) and fsyncs the
 * journal lines the computing threads have written, so that no thread
 * waits for the disk (an fsync takes 10-30 ms on a busy machine, longer
 * than small runs).  A line is written and flushed at once, so a killed
 * process loses none; the fsync guards against a crash of the machine.
 * Returns when every other rank has finished and every run handed out
 * has come back. */
static int af_sweep_serve0(void *vctx) {
  af_sweep_state *x = vctx;
  int rc = AF_OK;
  double *buf = malloc((x->g->rowlen + 2) * sizeof *buf);
  if (buf == NULL) return AF_ENOMEM;
  long idle_ns = AF_SWEEP_POLL_NS;
  for (;;) {
    int busy = 0;
#ifdef AF_HAVE_MPI
    if (x->nranks > 1) busy = af_sweep_serve_msg(x, buf, &rc);
#endif
    size_t written, synced;
    int finished;
    AF_SWEEP_CRITICAL
    {
      written = x->nwritten;
      synced = x->nsynced;
      finished = x->nfin == x->nranks - 1 &&
                 (x->next >= x->ntodo || x->abort) && x->nfinished == x->next;
    }
    if (written > synced) {
      busy = 1;
      if (fsync(fileno(x->journal)) != 0 && rc == AF_OK) rc = AF_EIO;
    AF_SWEEP_CRITICAL
      {
        x->nsynced = written;
        if (rc != AF_OK) x->abort = 1;
      }
    } else if (finished) {
      break;
    }
    if (busy) {
      idle_ns = AF_SWEEP_POLL_NS;
    } else {
      struct timespec ts = {0, idle_ns};
      nanosleep(&ts, NULL);
      if (idle_ns < AF_SWEEP_POLL_MAX_NS / 2) idle_ns *= 2;
    }
  }
  free(buf);
  return rc;
}

#ifdef AF_HAVE_MPI
/* Other ranks: ask rank 0 (inside the engine's critical section, so one
 * thread of this rank talks to rank 0 at a time: MPI_THREAD_SERIALIZED). */
typedef struct {
  const af_sweep *g;
  double *buf;
} af_sweep_worker;

static int af_sweep_next_mpi(size_t *r, void *vctx) {
  (void)vctx;
  long long v;
  MPI_Send(NULL, 0, MPI_BYTE, 0, AF_TAG_ASK, MPI_COMM_WORLD);
  MPI_Recv(&v, 1, MPI_LONG_LONG, 0, AF_TAG_RUN, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  if (v < 0) return 0;
  *r = (size_t)v;
  return 1;
}

static int af_sweep_done_mpi(size_t r, const double *row, int status,
                             void *vctx) {
  af_sweep_worker *w = vctx;
  w->buf[0] = (double)r;
  w->buf[1] = (double)status;
  memcpy(w->buf + 2, row, w->g->rowlen * sizeof *row);
  MPI_Send(w->buf, (int)w->g->rowlen + 2, MPI_DOUBLE, 0, AF_TAG_ROW,
           MPI_COMM_WORLD);
  return AF_OK;
}
#endif

/* ------------------------------------------------------------ output */

/* FNV-1a of a file's bytes (at most 64 KiB, the limit of a spec); 0 if
 * it cannot be read. */
static uint64_t af_sweep_file_fnv(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  static const size_t max = 65536;
  char buf[4096];
  uint64_t h = AF_FNV_BASIS;
  size_t got, total = 0;
  while (total < max && (got = fread(buf, 1, sizeof buf, f)) > 0) {
    h = af_sweep_fnv(h, buf, got);
    total += got;
  }
  fclose(f);
  return h;
}

/* Provenance: the head, the grid, every run option with its default, and
 * (after the fingerprint's part) the ranks and threads. */
static int af_sweep_provenance(af_prov *p, const af_sweep *g, size_t *nfixed) {
  int argc;
  char **argv = af_cli_argv(&argc);
  const af_run_cfg *c = &g->cfg[0];
  int rc = af_prov_add_head(p, argc, argv);
  size_t len = 1;
  for (size_t i = 0; i < g->nscheme; i++) len += strlen(g->schemes[i]) + 1;
  len += (g->nn + g->nd + g->nseed) * 24 + g->nbeta * 32 + c->ntimes * 32;
  char *s = malloc(len);
  if (s == NULL) return AF_ENOMEM;
#define AF_SWEEP_LIST(key, count, fmt, expr)                                  \
  do {                                                                        \
    size_t q_ = 0;                                                            \
    s[0] = '\0';                                                              \
    for (size_t i = 0; i < (count); i++)                                      \
      q_ += (size_t)snprintf(s + q_, len - q_, "%s" fmt, i ? "," : "", expr); \
    if (rc == AF_OK) rc = af_prov_add_str(p, key, s);                         \
  } while (0)
  AF_SWEEP_LIST("grid_scheme", g->nscheme, "%s", g->schemes[i]);
  for (size_t i = g->nbuiltin; i < g->nscheme && rc == AF_OK; i++) {
    /* A spec by its file and the FNV-1a of its bytes: a journal of an
     * edited spec is not reused. */
    char key[64], val[96];
    snprintf(key, sizeof key, "scheme_def_%s", g->schemes[i]);
    snprintf(val, sizeof val, "fnv1a64=%016llx",
             (unsigned long long)af_sweep_file_fnv(g->defpath[i]));
    rc = af_prov_add_str(p, key, val);
  }
  AF_SWEEP_LIST("grid_n", g->nn, "%zu", g->ns[i]);
  AF_SWEEP_LIST("grid_d", g->nd, "%zu", g->ds[i]);
  AF_SWEEP_LIST("grid_beta", g->nbeta, "%.17g", g->betas[i]);
  {
    /* Seeds with consecutive runs as ranges A-B (1-2048 stays short). */
    size_t q = 0;
    for (size_t i = 0, j; i < g->nseed; i = j) {
      for (j = i + 1; j < g->nseed && g->seeds[j] == g->seeds[j - 1] + 1; j++)
        ;
      q += (size_t)snprintf(s + q, len - q, "%s%lu", i ? "," : "", g->seeds[i]);
      if (j - i > 1) q += (size_t)snprintf(s + q, len - q, "-%lu", g->seeds[j - 1]);
    }
    if (rc == AF_OK) rc = af_prov_add_str(p, "grid_seeds", s);
  }
  if (rc == AF_OK) rc = af_prov_add_ulong(p, "runs", (unsigned long)g->nruns);
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "seed_rule",
                         "run (scheme, n, d, beta, seed) = 'attnflow run' "
                         "with --seed seed");
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "attention",
                         c->arg[O_ATTENTION] ? c->arg[O_ATTENTION]
                                             : "softmax (sa, usa, causal: theirs)");
  if (rc == AF_OK) {
    if (!isnan(c->r0))
      rc = af_prov_add_double(p, "r0", c->r0);
    else
      rc = af_prov_add_str(p, "r0", "default of --init");
  }
  if (rc == AF_OK) rc = af_prov_add_double(p, "alpha", c->alpha);
  if (rc == AF_OK) rc = af_prov_add_double(p, "alpha_decay", c->alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(p, "tau", c->tau);
  if (rc == AF_OK) rc = af_prov_add_str(p, "init", c->init);
  if (rc == AF_OK) rc = af_prov_add_integ(p, &c->integ, c->h_auto);
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "kernel",
                         c->kernel == AF_KERNEL_DIRECT  ? "direct"
                         : c->kernel == AF_KERNEL_TILED ? "tiled"
                                                        : "blas");
  if (rc == AF_OK) rc = af_prov_add_str(p, "weights", c->weights);
  if (rc == AF_OK) rc = af_prov_add_double(p, "cluster_cos", c->cluster_cos);
  if (rc == AF_OK) rc = af_prov_add_double(p, "t_end", c->t_end);
  AF_SWEEP_LIST("times", c->ntimes, "%.17g", c->times[i]);
#undef AF_SWEEP_LIST
  free(s);
  *nfixed = p->n;
  return rc;
}

/* Fingerprint of the sweep: its provenance after the head (the command
 * line may differ in order or in --threads; the journal may be reused). */
static uint64_t af_sweep_fingerprint(const af_prov *p, size_t from,
                                     size_t to) {
  uint64_t h = AF_FNV_BASIS;
  for (size_t i = from; i < to; i++) {
    h = af_sweep_fnv(h, p->items[i].key, strlen(p->items[i].key) + 1);
    h = af_sweep_fnv(h, p->items[i].value, strlen(p->items[i].value) + 1);
  }
  return h;
}

typedef struct {
  const af_sweep_state *x;
  const af_prov *prov;
} af_sweep_out_ctx;

static int af_sweep_write(FILE *f, void *vctx) {
  const af_sweep_out_ctx *o = vctx;
  const af_sweep_state *x = o->x;
  const af_sweep *g = x->g;
  const af_run_cfg *c0 = &g->cfg[0];
  int rc = af_out_provenance_csv(f, o->prov);
  if (rc == AF_OK &&
      fprintf(f, "scheme,n,d,beta,seed,t") < 0)
    rc = AF_EIO;
  for (size_t k = 0; k < g->nobs && rc == AF_OK; k++)
    if (fprintf(f, ",%s", g->obs_names[k]) < 0) rc = AF_EIO;
  if (rc == AF_OK && putc('\n', f) == EOF) rc = AF_EIO;
  for (size_t r = 0; r < g->nruns && rc == AF_OK; r++) {
    af_sweep_key k = af_sweep_key_of(g, r);
    const double *row = x->rows + r * g->rowlen;
    for (size_t i = 0; i < c0->ntimes && rc == AF_OK; i++) {
      if (fprintf(f, "%s,%zu,%zu,%.17g,%lu,%.17g,", g->schemes[k.scheme],
                  g->ns[k.n], g->ds[k.d], g->betas[k.beta], g->seeds[k.seed],
                  c0->times[i]) < 0)
        rc = AF_EIO;
      if (rc == AF_OK) rc = af_out_csv_row(f, row + i * g->nobs, g->nobs);
    }
  }
  return rc;
}

/* ------------------------------------------------------------ command */

/* Started by an MPI launcher (mpirun, mpiexec, srun)?  Without one the
 * program is a single rank and never initializes MPI. */
static int af_sweep_launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                                     "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]) != NULL) return 1;
  return 0;
}

/* Rank 0's part once every rank agreed to start: the engine, then the
 * CSV and the end of the journal.  Returns the exit status. */
static int af_sweep_rank0(af_sweep_state *x, af_prov *prov, int nthreads) {
  const af_sweep *g = x->g;
  af_sweep_queue q = {af_sweep_next0, af_sweep_done0, NULL, x};
#ifdef _OPENMP
  q.serve = af_sweep_serve0;
#else
  /* One thread: it serves the other ranks, or computes alone. */
  if (x->nranks > 1) q.serve = af_sweep_serve0;
#endif
  x->t0 = af_sweep_now();
  x->last = 0;
  int rc = af_sweep_exec(NULL, NULL, 0, g->rowlen, af_sweep_task, (void *)g,
                         &q, nthreads, NULL, NULL);
  af_sweep_progress(x, 1);
  if (rc == AF_OK && (fflush(x->journal) != 0 || fsync(fileno(x->journal)) != 0))
    rc = AF_EIO;
  if (x->tty) {
    /* Where the runs went (not in the file: it does not depend on it). */
    size_t remote = 0;
    for (int k = 1; k < x->nranks; k++) remote += x->per_rank[k];
    fprintf(stderr, "sweep: %zu runs computed in %.2f s (rank 0: %zu", x->nfinished,
            af_sweep_now() - x->t0, x->nfinished - remote);
    for (int k = 1; k < x->nranks; k++)
      fprintf(stderr, ", rank %d: %zu", k, x->per_rank[k]);
    fprintf(stderr, "), %zu resumed\n", x->nresumed);
  }
  if (rc != AF_OK) {
    af_cli_error("sweep: %s (journal '%s' keeps the finished runs)",
                 af_strerror(rc), x->jpath);
    return AF_EXIT_FAIL;
  }
  /* Totals of the statistics: deterministic, so the file is the same
   * however the runs were spread and resumed. */
  double steps = 0, nevals = 0;
  size_t nfail = 0, first = 0;
  for (size_t r = 0; r < g->nruns; r++) {
    steps += x->rows[r * g->rowlen + g->rowlen - 2];
    nevals += x->rows[r * g->rowlen + g->rowlen - 1];
    if (x->status[r] != AF_OK && nfail++ == 0) first = r;
  }
  rc = af_prov_add_fmt(prov, "steps", "%.0f", steps);
  if (rc == AF_OK) rc = af_prov_add_fmt(prov, "nevals", "%.0f", nevals);
  if (rc == AF_OK) rc = af_prov_add_ulong(prov, "failed_runs", (unsigned long)nfail);
  if (rc == AF_OK) {
    af_sweep_out_ctx o = {x, prov};
    errno = 0;
    rc = af_write_atomic(g->out, af_sweep_write, &o);
    if (rc != AF_OK) {
      af_cli_error("sweep: cannot write '%s': %s%s%s", g->out, af_strerror(rc),
                   errno ? ": " : "", errno ? strerror(errno) : "");
      return AF_EXIT_FAIL;
    }
  }
  if (rc != AF_OK) {
    af_cli_error("sweep: %s", af_strerror(rc));
    return AF_EXIT_FAIL;
  }
  fclose(x->journal);
  x->journal = NULL;
  if (remove(x->jpath) != 0)
    af_cli_warn("sweep: cannot remove journal '%s': %s", x->jpath,
                strerror(errno));
  if (nfail > 0) {
    af_sweep_key k = af_sweep_key_of(g, first);
    af_cli_error("sweep: %zu of %zu runs failed (rows nan from the failure "
                 "on), the first: scheme %s n %zu d %zu beta %.17g seed %lu: "
                 "%s (%s)",
                 nfail, g->nruns, g->schemes[k.scheme], g->ns[k.n], g->ds[k.d],
                 g->betas[k.beta], g->seeds[k.seed],
                 af_strerror(x->status[first]),
                 af_status_name(x->status[first]));
    return AF_EXIT_FAIL;
  }
  return AF_EXIT_OK;
}

int af_cli_sweep(int argc, char **argv) {
  int rank = 0, nranks = 1, mpi = 0, provided = 0;
  (void)provided;
  (void)mpi;
#ifdef AF_HAVE_MPI
  if (af_sweep_launched()) {
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) !=
        MPI_SUCCESS) {
      af_cli_error("sweep: MPI_Init_thread failed");
      return AF_EXIT_FAIL;
    }
    mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  }
#else
  /* K copies of a program without MPI would each write the same file. */
  const char *size = getenv("OMPI_COMM_WORLD_SIZE");
  if (size == NULL) size = getenv("PMI_SIZE");
  if (af_sweep_launched() && size != NULL && strcmp(size, "1") != 0) {
    af_cli_error("sweep: this attnflow was built without MPI (configure "
                 "--without-mpi or no mpicc): run it without mpirun or srun");
    return AF_EXIT_USAGE;
  }
#endif
  /* One process of the sweep parallelizes runs: OpenBLAS threads inside
   * them would only compete (set before the first product loads it). */
  setenv("OPENBLAS_NUM_THREADS", "1", 0);

  af_sweep g;
  memset(&g, 0, sizeof g);
  af_prov prov;
  af_prov_init(&prov);
  af_sweep_state x;
  memset(&x, 0, sizeof x);
  x.g = &g;
  x.nranks = nranks;

  /* Every rank parses (each needs the grid); only rank 0 says what is
   * wrong, once. */
  int saved = -1;
  if (rank != 0) {
    fflush(stderr);
    saved = dup(2);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
      dup2(nul, 2);
      close(nul);
    }
  }
  int ex = af_sweep_parse(&g, argc, argv);
  if (ex == AF_EXIT_OK) ex = af_sweep_read_files(&g);
  if (saved >= 0) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
  }
  int nthreads = g.nthreads;
#if defined(AF_HAVE_MPI) && defined(_OPENMP)
  /* Threads of a rank other than 0 call MPI one at a time. */
  if (mpi && rank != 0 && provided < MPI_THREAD_SERIALIZED) nthreads = 1;
#endif
  size_t nfixed = 0;
  if (ex == AF_EXIT_OK && rank == 0) {
    int rc = af_sweep_provenance(&prov, &g, &nfixed);
    x.fingerprint = af_sweep_fingerprint(&prov, 3, nfixed);
    if (rc == AF_OK) rc = af_prov_add_ulong(&prov, "ranks", (unsigned long)nranks);
#ifdef _OPENMP
    if (rc == AF_OK)
      rc = af_prov_add_ulong(&prov, "threads",
                             (unsigned long)(nthreads ? nthreads
                                                      : omp_get_max_threads()));
#else
    if (rc == AF_OK) rc = af_prov_add_ulong(&prov, "threads", 1);
#endif
    size_t jl = strlen(g.out) + sizeof ".journal";
    x.jpath = malloc(jl);
    size_t nrows;
    x.rows = af_size_mul(&nrows, g.nruns, g.rowlen) &&
                     af_size_mul(&nrows, nrows, sizeof *x.rows)
                 ? malloc(nrows)
                 : NULL;
    x.status = calloc(g.nruns, sizeof *x.status);
    x.have = calloc(g.nruns, 1);
    x.todo = malloc(g.nruns * sizeof *x.todo);
    x.per_rank = calloc((size_t)nranks, sizeof *x.per_rank);
    if (rc != AF_OK || !x.per_rank || !x.jpath || !x.rows || !x.status || !x.have || !x.todo) {
      af_cli_error("sweep: %s (%zu runs of %zu values)",
                   af_strerror(AF_ENOMEM), g.nruns, g.rowlen);
      ex = AF_EXIT_FAIL;
    } else {
      snprintf(x.jpath, jl, "%s.journal", g.out);
      ex = af_sweep_journal_open(&x);
    }
  }
#ifdef AF_HAVE_MPI
  if (mpi) {
    int worst = ex == -1 ? 0 : ex;
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != 0 && ex == AF_EXIT_OK) ex = worst;
  }
#endif
  if (ex == -1) {
    ex = fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  } else if (ex == AF_EXIT_OK && rank == 0) {
    x.tty = g.progress || isatty(fileno(stderr));
    ex = af_sweep_rank0(&x, &prov, nthreads);
#ifdef AF_HAVE_MPI
    if (mpi && ex != AF_EXIT_OK) MPI_Abort(MPI_COMM_WORLD, ex);
#endif
  }
#ifdef AF_HAVE_MPI
  else if (ex == AF_EXIT_OK) {
    af_sweep_worker w = {&g, malloc((g.rowlen + 2) * sizeof(double))};
    af_sweep_queue q = {af_sweep_next_mpi, af_sweep_done_mpi, NULL, &w};
    int rc = w.buf ? af_sweep_exec(NULL, NULL, 0, g.rowlen, af_sweep_task, &g,
                                   &q, nthreads, NULL, NULL)
                   : AF_ENOMEM;
    free(w.buf);
    if (rc != AF_OK) {
      af_cli_error("sweep: rank %d: %s", rank, af_strerror(rc));
      MPI_Abort(MPI_COMM_WORLD, AF_EXIT_FAIL);
    }
    MPI_Send(NULL, 0, MPI_BYTE, 0, AF_TAG_FIN, MPI_COMM_WORLD);
  }
  if (mpi) MPI_Finalize();
#endif
  if (x.journal) fclose(x.journal);
  free(x.jpath);
  free(x.rows);
  free(x.status);
  free(x.have);
  free(x.todo);
  free(x.per_rank);
  af_prov_clear(&prov);
  af_sweep_free(&g);
  return ex;
}
