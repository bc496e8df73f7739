/* cli_run.c -- `attnflow run`: integrate one case of the attention flow
 * (theorems.md S0-S7, M5) and write its observables at the requested times.
 * This file runs the double path (the options are parsed by af_run_parse,
 * cli_run_parse.c); with --precision the run itself is af_run_mp
 * (cli_run_mp.c, MPFR).
 *
 * Order of work, chosen so that no failure leaves a file behind:
 *   1. parse and check every option (usage errors, exit 2);
 *   2. build the model, weights and the initial state (file errors and
 *      allocation failures, exit 1) -- nothing is open for writing yet;
 *   3. af_write_atomic(--out) with a callback that, when --save-state is
 *      given, nests af_write_atomic(--save-state); the innermost callback
 *      runs the integration, collecting the rows in memory, and the rows
 *      are written only once it has succeeded.  A failure anywhere makes
 *      each callback return an error, so the temporary files are removed
 *      and no output (not even a partial stdout) appears.
 */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "cli_run.h"
#include "internal.h"
#include "output.h"

/* ------------------------------------------------------------ running */

typedef struct {
  const af_run_cfg *c;
  const af_model *m;
  af_work *w;
  double *y;           /* state, size af_state_size(n, d) */
  af_prov *prov;       /* parameters; the output adds run statistics */
  double *itimes;      /* integration times: 0 prepended if needed */
  size_t nitimes, skip; /* skip = 1 if itimes[0] = 0 was prepended */
  double *rows;        /* ntimes x nobs */
  size_t ncalls;       /* output callbacks so far */
  double *obs;         /* AF_OBS_COUNT scratch */
  af_integ_stats stats;
  /* What failed, for the message. */
  int run_status;      /* status of the integration (AF_OK if it ran) */
  int ran;             /* the integration was attempted */
  int save_entered;    /* the --save-state callback was called */
  int out_entered;     /* the --out callback was called */
  const char *fail_path; /* file that could not be written (NULL: --out) */
  int fail_errno;      /* errno of a failed file creation, else 0 */
  /* Streaming to standard output (output.h): rows written so far, and
   * the provenance entries before the run's statistics. */
  int stream;
  size_t streamed, nprov;
  int stream_errno;    /* a streamed row could not be written: errno + 1 */
  af_out_progress *prog; /* erased before a streamed row (one screen) */
} af_run_ctx;

/* Row k, streamed: the provenance and header first. */
static int af_run_stream_row(af_run_ctx *x, size_t k) {
  const af_run_cfg *c = x->c;
  int rc = AF_OK, jsonl = c->format == AF_FMT_JSONL;
  if (x->prog) af_out_progress_end(x->prog);
  if (x->streamed == 0) {
    rc = jsonl ? af_out_provenance_jsonl(stdout, x->prov)
               : af_out_provenance_csv(stdout, x->prov);
    if (rc == AF_OK && !jsonl)
      rc = af_out_csv_header(stdout, c->obs_names, c->nobs);
  }
  const double *row = x->rows + k * c->nobs;
  if (rc == AF_OK)
    rc = jsonl ? af_out_jsonl_row(stdout, c->obs_names, row, c->nobs)
               : af_out_csv_row(stdout, row, c->nobs);
  if (rc == AF_OK && fflush(stdout) != 0) rc = AF_EIO;
  if (rc == AF_EIO) x->stream_errno = errno + 1;
  x->streamed++;
  return rc;
}

static int af_run_output(double t, const double *y, void *vctx) {
  af_run_ctx *x = vctx;
  size_t k = x->ncalls++;
  if (k < x->skip) return AF_OK;
  k -= x->skip;
  if (k >= x->c->ntimes) return AF_EINVAL; /* more calls than times */
  int rc = af_observe(x->obs, t, y, x->c->cluster_cos, x->m, x->w);
  if (rc != AF_OK) return rc;
  for (size_t i = 0; i < x->c->nobs; i++)
    x->rows[k * x->c->nobs + i] = x->obs[x->c->obs[i]];
  return x->stream ? af_run_stream_row(x, k) : AF_OK;
}

static int af_run_integrate(af_run_ctx *x) {
  x->ran = 1;
  x->ncalls = 0;
  memset(&x->stats, 0, sizeof x->stats);
  af_integ_opts io = x->c->integ;
  if (x->c->h_auto)
    io.h = 0; /* the starting-step rule; integ.h stays the weight-set time */
  int rc = af_integrate(x->y, x->itimes, x->nitimes, x->m, &io,
                        x->w, af_run_output, x, &x->stats);
  if (rc == AF_OK && x->ncalls != x->nitimes) rc = AF_EINVAL;
  x->run_status = rc;
  return rc;
}

/* Final tokens x_j = r_j theta_j / |theta_j| (|theta_j| = 1 up to the
 * integrator's drift), one CSV row each, after the provenance. */
static int af_run_write_state(FILE *f, const af_run_ctx *x) {
  size_t n = x->c->n, d = x->c->d;
  int rc = af_out_provenance_csv(f, x->prov);
  if (rc == AF_OK && fprintf(f, "# state_t: %.17g\n", x->stats.t_reached) < 0)
    rc = AF_EIO;
  for (size_t j = 0; j < n && rc == AF_OK; j++) {
    const double *th = x->y + j * d;
    double r = x->y[n * d + j], nrm = 0;
    for (size_t i = 0; i < d; i++) nrm += th[i] * th[i];
    nrm = sqrt(nrm);
    for (size_t i = 0; i < d && rc == AF_OK; i++)
      if (fprintf(f, "%s%.17g", i ? "," : "", r * (th[i] / nrm)) < 0)
        rc = AF_EIO;
    if (rc == AF_OK && putc('\n', f) == EOF) rc = AF_EIO;
  }
  return rc;
}

static int af_run_save_cb(FILE *f, void *vctx) {
  af_run_ctx *x = vctx;
  x->save_entered = 1;
  int rc = af_run_integrate(x);
  if (rc != AF_OK) return rc;
  return af_run_write_state(f, x);
}

static int af_run_out_cb(FILE *f, void *vctx) {
  af_run_ctx *x = vctx;
  const af_run_cfg *c = x->c;
  int rc;
  x->out_entered = 1;
  if (c->save_state) {
    errno = 0;
    rc = af_write_atomic(c->save_state, af_run_save_cb, x);
    if (rc != AF_OK && !(x->ran && x->run_status != AF_OK)) {
      /* The run did not fail: the state file could not be written. */
      x->fail_path = c->save_state;
      x->fail_errno = errno; /* kept by af_write_atomic */
    }
  } else {
    rc = af_run_integrate(x);
  }
  if (rc != AF_OK) return rc;

  /* The run succeeded: provenance with its statistics, then the rows. */
  rc = af_prov_add_ulong(x->prov, "steps", x->stats.steps);
  if (rc == AF_OK) rc = af_prov_add_ulong(x->prov, "nevals", x->stats.nevals);
  /* The library the level-3 products went through, if any (small cases
   * compute them in-house and never load one). */
  if (rc == AF_OK && !c->precision) {
    const char *blas = af_blas_library();
    rc = af_prov_add_str(x->prov, "blas", blas ? blas : "none (products in-house)");
  }
  if (x->stream) /* the rows are out: the statistics follow them */
    return rc == AF_OK ? af_out_prov_tail(f, x->prov, x->nprov,
                                          c->format == AF_FMT_JSONL)
                       : rc;
  if (c->format == AF_FMT_CSV) {
    if (rc == AF_OK) rc = af_out_provenance_csv(f, x->prov);
    if (rc == AF_OK) rc = af_out_csv_header(f, c->obs_names, c->nobs);
    for (size_t k = 0; k < c->ntimes && rc == AF_OK; k++)
      rc = af_out_csv_row(f, x->rows + k * c->nobs, c->nobs);
  } else {
    if (rc == AF_OK) rc = af_out_provenance_jsonl(f, x->prov);
    for (size_t k = 0; k < c->ntimes && rc == AF_OK; k++)
      rc = af_out_jsonl_row(f, c->obs_names, x->rows + k * c->nobs, c->nobs);
  }
  return rc;
}

/* Provenance of the run: every parameter, defaults included. */
static int af_run_provenance(af_prov *p, const af_run_cfg *c) {
  int argc;
  char **argv = af_cli_argv(&argc);
  int rc = af_prov_add_head(p, argc, argv);
  if (rc == AF_OK) rc = af_prov_add_str(p, "scheme", c->scheme_name);
  if (rc == AF_OK) rc = af_prov_add_str(p, "attention", af_attn_names[c->attn]);
  if (rc == AF_OK) rc = af_prov_add_ulong(p, "n", (unsigned long)c->n);
  if (rc == AF_OK) rc = af_prov_add_ulong(p, "d", (unsigned long)c->d);
  if (rc == AF_OK) rc = af_prov_add_double(p, "beta", c->beta);
  if (rc == AF_OK) {
    if (!isnan(c->r0))
      rc = af_prov_add_double(p, "r0", c->r0);
    else if (strcmp(c->init, "gaussian") == 0)
      rc = af_prov_add_str(p, "r0", "norms");
    else if (strncmp(c->init, "file:", 5) == 0)
      rc = af_prov_add_str(p, "r0", "file");
    else
      rc = af_prov_add_double(p, "r0", 1.0);
  }
  if (rc == AF_OK) rc = af_prov_add_double(p, "alpha", c->alpha);
  if (rc == AF_OK) rc = af_prov_add_double(p, "alpha_decay", c->alpha_decay);
  if (rc == AF_OK) rc = af_prov_add_double(p, "tau", c->tau);
  if (rc == AF_OK) rc = af_prov_add_str(p, "init", c->init);
  if (rc == AF_OK) rc = af_prov_add_ulong(p, "seed", c->seed);
  if (rc == AF_OK && c->precision) {
    /* The MPFR path: its method, precision, tolerance; h0 0 = 1/8 of the
     * span; max_steps 0 = the library's 10^6 (attnflow_mp.h). */
    rc = af_prov_add_str(p, "method", af_mp_method_name(c->mp.method));
    if (rc == AF_OK) rc = af_prov_add_ulong(p, "precision", c->precision);
    if (rc == AF_OK) rc = af_prov_add_double(p, "tol", c->mp.tol);
    if (rc == AF_OK) rc = af_prov_add_double(p, "h", c->integ.h);
    if (rc == AF_OK) rc = af_prov_add_double(p, "h0", c->mp.h0);
    if (rc == AF_OK)
      rc = af_prov_add_ulong(p, "max_steps",
                             c->mp.max_steps ? c->mp.max_steps : 1000000UL);
  } else if (rc == AF_OK)
    rc = af_prov_add_integ(p, &c->integ, c->h_auto);
  if (rc == AF_OK) rc = af_prov_add_str(p, "kernel", af_kernel_names[c->kernel]);
  if (rc == AF_OK) rc = af_prov_add_str(p, "weights", c->weights);
  if (rc == AF_OK) rc = af_prov_add_double(p, "cluster_cos", c->cluster_cos);
  if (rc == AF_OK) rc = af_prov_add_double(p, "t_end", c->t_end);
  if (rc == AF_OK) {
    /* The list as the shortest %g of each (as typed), comma-separated. */
    size_t len = 1;
    char *s, *q;
    len += c->ntimes * 32;
    s = malloc(len);
    if (s == NULL) return AF_ENOMEM;
    q = s;
    *q = '\0';
    for (size_t k = 0; k < c->ntimes; k++)
      q += snprintf(q, len - (size_t)(q - s), "%s%.*g", k ? "," : "",
                    af_out_shortest_prec(c->times[k]), c->times[k]);
    rc = af_prov_add_str(p, "times", s);
    free(s);
  }
  if (rc == AF_OK)
    rc = af_prov_add_str(p, "save_state", c->save_state ? c->save_state : "none");
  if (rc == AF_OK && c->precision) {
    /* The columns (they are part of a checkpoint's rows). */
    char cols[AF_OBS_COUNT * 24] = "";
    for (size_t k = 0; k < c->nobs; k++) {
      if (k) strcat(cols, ",");
      strcat(cols, c->obs_names[k]); /* names are < 16 characters */
    }
    rc = af_prov_add_str(p, "observables", cols);
    if (rc == AF_OK) rc = af_prov_add_ulong(p, "digits", c->digits);
    if (rc == AF_OK)
      rc = af_prov_add_str(p, "format", c->format == AF_FMT_HEX     ? "hex"
                                        : c->format == AF_FMT_JSONL ? "jsonl"
                                                                    : "csv");
    if (rc == AF_OK)
      rc = af_prov_add_str(p, "checkpoint", c->checkpoint ? c->checkpoint : "none");
    if (rc == AF_OK && c->checkpoint)
      rc = af_prov_add_double(p, "checkpoint_every", c->checkpoint_every);
    if (rc == AF_OK && c->resume) rc = af_prov_add_str(p, "resumed_from", c->resume);
  }
  return rc;
}

/* Message for a failed file read: "PATH:LINE: status[: detail]" or
 * "PATH: status (system error)"; the detail names the defect and the
 * count expected ("expected 3 numbers in the row, found 4"). */
static void af_run_file_error(const char *what, const char *path,
                              const af_read_info *info, int rc, int err) {
  char detail[320] = "";
  if (info->what != NULL && info->expected > 0)
    snprintf(detail, sizeof detail, ": expected %zu %s, found %zu",
             info->expected, info->what, info->found);
  else if (info->what != NULL)
    snprintf(detail, sizeof detail, ": %s", info->what);
  if (info->line > 0)
    af_cli_error("%s %s:%zu: %s%s", what, path, info->line, af_strerror(rc),
                 detail);
  else if (rc == AF_EIO && err == EISDIR)
    af_cli_error("%s %s: is a directory, not a file", what, path);
  else if (rc == AF_EIO && err != 0)
    af_cli_error("%s: cannot open '%s': %s", what, path, strerror(err));
  else
    af_cli_error("%s %s: %s%s", what, path, af_strerror(rc), detail);
}

/* Memory of a run of n tokens in d dimensions, estimated from above
 * (*bytes, a double so that it cannot wrap): the chosen kernel's work
 * space as af_work_bytes counts it (its arrays and the n x n attention
 * matrix, or the tiled kernel's packed keys and per-thread tiles for the
 * threads the run will use), and about 40 state-sized arrays (integrator
 * stages, state, error estimate), the d x d products and the output rows;
 * for MPFR numbers of prec bits, two n x n workspaces (integrator and
 * observables).  Refused (0) if it exceeds af_cli_mem_limit(): the
 * message names the kernel and what its work space needs.  *what
 * receives the description (for the note of --progress). */
static int af_run_check_size(const af_run_cfg *c, double *bytes, char *what,
                             size_t cap) {
  size_t N = af_state_size(c->n, c->d), nn, rows;
  *bytes = 0;
  snprintf(what, cap, "n = %zu, d = %zu", c->n, c->d);
  if (N == 0 || !af_size_mul(&nn, c->n, c->n) ||
      !af_size_mul(&rows, c->ntimes, c->nobs) ||
      !af_size_mul(&rows, rows, sizeof(double))) {
    af_cli_error("%s: the state of n (d + 1) numbers overflows the address "
                 "space",
                 what);
    return 0;
  }
  double per = (double)sizeof(double), work;
  double dd = (double)c->d * (double)c->d;
  char wb_text[64];
  if (!c->precision) {
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    size_t wb = af_work_bytes(c->n, c->d, c->kernel, threads);
    work = wb == 0 ? INFINITY : (double)wb;
    snprintf(what, cap, "n = %zu, d = %zu with the %s kernel (%s: %s)", c->n,
             c->d, af_kernel_names[c->kernel],
             c->kernel == AF_KERNEL_TILED ? "work space with its tiles"
                                        : "work space with its n x n matrix",
             wb == 0 ? "beyond size_t"
                     : af_cli_bytes(wb_text, sizeof wb_text, work));
  } else {
    per = (double)sizeof(mpfr_t) +
          (double)((c->precision + mp_bits_per_limb - 1) / mp_bits_per_limb) *
              (double)(mp_bits_per_limb / 8);
    work = per * 2 * (double)nn;
    snprintf(what, cap, "n = %zu, d = %zu at %lu bits (two n x n matrices: %s)",
             c->n, c->d, c->precision,
             af_cli_bytes(wb_text, sizeof wb_text, work));
  }
  *bytes = work + per * (40 * (double)N + dd) + (double)rows;
  return af_cli_mem_fits(*bytes, what);
}

/* SIGINT, SIGTERM, SIGHUP: remove the temporary files being written
 * (af_tmp_cleanup, async-signal-safe), then die of the signal as if
 * there were no handler. */
static void af_run_on_signal(int sig) {
  af_tmp_cleanup();
  signal(sig, SIG_DFL);
  raise(sig);
}

static void af_run_signals(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction sa, old;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
      continue; /* ignored (nohup): stays ignored */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = af_run_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, NULL);
  }
}

int af_cli_run(int argc, char **argv) {
  af_run_cfg c;
  memset(&c, 0, sizeof c);
  af_weights *wts = NULL;
  af_work *work = NULL;
  double *y = NULL, *rows = NULL, *itimes = NULL;
  double obs[AF_OBS_COUNT];
  af_prov prov;
  af_prov_init(&prov);
  int ex = af_run_parse(&c, argc, argv);
  int rc;
  if (ex == -1) {
    ex = fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
    goto done;
  }
  if (ex != AF_EXIT_OK) goto done;
  double mem_bytes;
  char mem_what[200];
  if (!af_run_check_size(&c, &mem_bytes, mem_what, sizeof mem_what)) {
    ex = AF_EXIT_FAIL;
    goto done;
  }
  if (c.progress) af_cli_mem_note(mem_bytes, mem_what);
  af_run_signals();

  /* Weights. */
  if (strcmp(c.weights, "kaiming") == 0) {
    /* ceil(t_end/h) sets of time h each (at least one): three d x d
     * matrices and three pointers per set. */
    double L = ceil(c.t_end / c.integ.h);
    char what[160];
    snprintf(what, sizeof what, "--weights kaiming: %.4g weight sets (t_end/h)",
             L);
    if (!af_cli_mem_fits(fmax(L, 1) * 3 *
                         ((double)c.d * (double)c.d + 1) * sizeof(double),
                     what)) {
      ex = AF_EXIT_FAIL;
      goto done;
    }
    wts = af_weights_alloc(c.d, L < 1 ? 1 : (size_t)L, c.integ.h);
    rc = wts ? af_weights_kaiming(wts, c.seed) : AF_ENOMEM;
    if (rc != AF_OK) {
      af_cli_error("--weights kaiming: %s", af_strerror(rc));
      ex = af_cli_exit_status(rc);
      goto done;
    }
  } else if (strcmp(c.weights, "identity") != 0) {
    af_read_info info;
    errno = 0;
    rc = af_cli_weights_read(&wts, &info, c.weights, c.d, c.integ.h);
    if (rc != AF_OK) {
      af_run_file_error("--weights", c.weights, &info, rc, errno);
      ex = AF_EXIT_FAIL;
      goto done;
    }
  }

  /* Model. */
  af_model m;
  af_model_init(&m, c.n, c.d, c.beta, c.scheme);
  if (c.spec != NULL)
    af_model_set_user_scheme(&m, af_scheme_spec_row(c.spec));
  m.attn = c.attn;
  m.alpha = c.alpha;
  m.alpha_decay = c.alpha_decay;
  m.tau = c.tau;
  m.w = wts;
  rc = af_model_validate(&m);
  if (rc != AF_OK) {
    af_cli_error("invalid model: %s", af_strerror(rc));
    ex = AF_EXIT_USAGE;
    goto done;
  }
  if (c.scheme == AF_NGPT && af_model_alpha_integrable(&m))
    af_cli_warn("alpha(t) = %g (1+t)^-%g is integrable: the nGPT clustering "
                "results (T3.1, T4.1b, T4.3b) do not apply",
                c.alpha, c.alpha_decay);

  /* Scratch and initial state. */
  work = af_work_alloc(c.n, c.d);
  y = malloc(af_state_size(c.n, c.d) * sizeof *y);
  rows = malloc(c.ntimes * c.nobs * sizeof *rows); /* both >= 1 */
  itimes = malloc((c.ntimes + 1) * sizeof *itimes);
  if (work == NULL || y == NULL || rows == NULL || itimes == NULL) {
    af_cli_error("%s", af_strerror(AF_ENOMEM));
    ex = AF_EXIT_FAIL;
    goto done;
  }
  rc = af_work_set_kernel(work, c.kernel);
  if (rc != AF_OK) {
    af_cli_error("--kernel %s: %s", af_kernel_names[c.kernel],
                 af_strerror(rc));
    ex = af_cli_exit_status(rc);
    goto done;
  }
  if (strncmp(c.init, "file:", 5) == 0) {
    af_read_info info;
    errno = 0;
    rc = af_init_read_file_info(y, &info, c.init + 5, c.n, c.d);
    if (rc != AF_OK) {
      af_run_file_error("--init", c.init + 5, &info, rc, errno);
      ex = AF_EXIT_FAIL; /* a malformed or unreadable file */
      goto done;
    }
    if (!isnan(c.r0)) /* --r0 sets every radius (af_init_state) */
      for (size_t j = 0; j < c.n; j++) y[c.n * c.d + j] = c.r0;
  } else {
    size_t line = 0;
    rc = af_init_state(y, &line, c.init, c.n, c.d, c.r0, c.seed);
    if (rc != AF_OK) {
      af_cli_error("--init %s: %s", c.init, af_strerror(rc));
      ex = af_cli_exit_status(rc);
      goto done;
    }
  }

  /* Integration times: the start is t = 0. */
  size_t skip = c.times[0] > 0 ? 1 : 0;
  itimes[0] = 0;
  memcpy(itimes + skip, c.times, c.ntimes * sizeof *itimes);

  rc = af_run_provenance(&prov, &c);
  if (rc != AF_OK) {
    af_cli_error("%s", af_strerror(rc));
    ex = AF_EXIT_FAIL;
    goto done;
  }
  if (c.precision) {
    ex = af_run_mp(&c, &m, y, &prov);
    goto done;
  }

  af_run_ctx x;
  memset(&x, 0, sizeof x);
  x.c = &c;
  x.m = &m;
  x.w = work;
  x.y = y;
  x.prov = &prov;
  x.itimes = itimes;
  x.nitimes = c.ntimes + skip;
  x.skip = skip;
  x.rows = rows;
  x.obs = obs;
  x.run_status = AF_OK;
  x.stream = af_out_streams(c.out);
  x.nprov = prov.n;
  /* Progress on a terminal (output.c); c.integ is x.c->integ. */
  af_out_progress prog;
  af_out_progress_init(&prog, 0, c.t_end);
  if (c.progress) af_out_progress_lines(&prog);
  if (prog.on) {
    c.integ.progress = af_out_progress_fn;
    c.integ.progress_ctx = &prog;
    x.prog = &prog;
  }
  errno = 0;
  rc = af_write_atomic(c.out, af_run_out_cb, &x);
  int err = x.fail_path ? x.fail_errno : errno;
  af_out_progress_end(&prog);
  if (rc == AF_OK) {
    ex = AF_EXIT_OK;
  } else if (x.stream_errno) { /* standard output failed, not the run */
    af_cli_error("cannot write %s: %s (%s)",
                 strcmp(c.out, "-") ? c.out : "standard output",
                 af_strerror(AF_EIO), strerror(x.stream_errno - 1));
    ex = AF_EXIT_FAIL;
  } else if (x.ran && x.run_status != AF_OK) {
    af_cli_error("run failed at t = %.17g: %s (%s)", x.stats.t_reached,
                 af_strerror(x.run_status), af_status_name(x.run_status));
    ex = af_cli_exit_status(x.run_status);
  } else {
    /* The run succeeded or never started: a file could not be written. */
    const char *path = x.fail_path ? x.fail_path : c.out;
    if (err != 0)
      af_cli_error("cannot write '%s': %s", path, strerror(err));
    else
      af_cli_error("cannot write '%s': %s", path, af_strerror(rc));
    ex = AF_EXIT_FAIL;
  }

done:
  af_prov_clear(&prov);
  free(itimes);
  free(rows);
  free(y);
  af_work_free(work);
  af_weights_free(wts);
  free(c.times);
  af_scheme_spec_free(c.spec);
  return ex;
}

int af_cli_weights_read(af_weights **w, af_read_info *info, const char *path,
                        size_t d, double h) {
  static char msg[256]; /* the reason a .npz or safetensors read failed */
  if (af_cli_is_npy(path)) return af_weights_read_npy(w, info, path, d, h);
  if (af_cli_ends_with(path, ".npz"))
    return af_weights_read_npz(w, info, msg, sizeof msg, path, d, h);
  if (af_cli_ends_with(path, ".safetensors"))
    return af_weights_read_safetensors(w, info, msg, sizeof msg, path, d, h);
  return af_weights_read_info(w, info, path, d);
}

int af_cli_scheme_def(af_scheme_spec **spec, const char *path) {
  af_spec_error e;
  int rc = af_scheme_spec_read(spec, &e, path);
  if (rc == AF_OK) return 1;
  if (e.line > 0)
    af_cli_error("--scheme-def %s: line %zu, column %zu: %s", path, e.line,
                 e.col, e.what);
  else
    af_cli_error("--scheme-def %s: %s", path,
                 e.what[0] ? e.what : af_strerror(rc));
  return 0;
}
