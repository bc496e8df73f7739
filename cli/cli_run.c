/* cli_run.c -- `attnflow run`: integrate one case of the attention flow
 * (theorems.md S0-S7, M5) and write its observables at the requested times.
 * This file parses every option and runs the double path; with
 * --precision the run itself is af_run_mp (cli_run_mp.c, MPFR).
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

/* ------------------------------------------------------------ options */

/* Option indices O_*: cli_run.h. */

const af_cli_opt af_run_opts[] = {
    [O_HELP] = {"help", 0},
    [O_SCHEME] = {"scheme", 1},
    [O_N] = {"n", 1},
    [O_D] = {"d", 1},
    [O_BETA] = {"beta", 1},
    [O_INIT] = {"init", 1},
    [O_SEED] = {"seed", 1},
    [O_R0] = {"r0", 1},
    [O_ALPHA] = {"alpha", 1},
    [O_ALPHA_DECAY] = {"alpha-decay", 1},
    [O_TAU] = {"tau", 1},
    [O_T_END] = {"t-end", 1},
    [O_TIMES] = {"times", 1},
    [O_METHOD] = {"method", 1},
    [O_H] = {"h", 1},
    [O_RTOL] = {"rtol", 1},
    [O_ATOL] = {"atol", 1},
    [O_FORMAT] = {"format", 1},
    [O_OUT] = {"out", 1},
    [O_SAVE_STATE] = {"save-state", 1},
    [O_ATTENTION] = {"attention", 1},
    [O_KERNEL] = {"kernel", 1},
    [O_WEIGHTS] = {"weights", 1},
    [O_CLUSTER_COS] = {"cluster-cos", 1},
    [O_OBSERVABLES] = {"observables", 1},
    [O_MAX_STEPS] = {"max-steps", 1},
    [O_PRECISION] = {"precision", 1},
    [O_TOL] = {"tol", 1},
    [O_DIGITS] = {"digits", 1},
    [O_CHECKPOINT] = {"checkpoint", 1},
    [O_CHECKPOINT_EVERY] = {"checkpoint-every", 1},
    [O_RESUME] = {"resume", 1},
    [O_SCHEME_DEF] = {"scheme-def", 1},
    [O_PROGRESS] = {"progress", 0},
    [O_COUNT] = {NULL, 0},
};

static void af_run_help(void) {
  printf(
      "Usage: attnflow run --scheme S --n N --d D --beta B [OPTIONS]\n"
      "\n"
      "Integrate n tokens on S^{d-1} under a normalization scheme and write\n"
      "observables at the requested times (CSV with '# ' provenance lines, or\n"
      "JSON Lines).  Options take '--opt VALUE' or '--opt=VALUE'.  Without\n"
      "--precision every number given (options, --init and --weights files) is\n"
      "rounded once to double.\n"
      "\n"
      "Required:\n"
      "  --scheme S      post-ln|pre-ln|mix-ln|peri-ln|ngpt|ln-scaling, or the\n"
      "                  predecessor models sa|usa|causal (Post-LN with softmax,\n"
      "                  unnormalized and causal attention)\n"
      "  --n N           number of tokens (>= 1)\n"
      "  --d D           dimension (>= 1)\n"
      "  --beta B        inverse temperature (finite, >= 0)\n"
      "  --scheme-def F  in place of --scheme: a scheme of one's own from a spec\n"
      "                  file (speed, radial rate, layer placement; see\n"
      "                  docs/schemes.md); every method and --precision run it\n"
      "\n"
      "Initial condition:\n"
      "  --init I        uniform|gaussian|orthonormal|cap:DELTA|hemisphere|file:PATH\n"
      "                  (default uniform; orthonormal needs n <= d; file: CSV,\n"
      "                  one row x_j per token, '#' comments)\n"
      "  --seed S        seed of random starts and Kaiming weights (default 1)\n"
      "  --r0 R          initial radius (> 0; default 1, gaussian: |x_j|)\n"
      "\n"
      "Model:\n"
      "  --alpha A       nGPT step alpha (> 0, default 1)\n"
      "  --alpha-decay P nGPT schedule alpha(t) = A (1+t)^-P (>= 0, default 0;\n"
      "                  P > 1 is integrable: warning)\n"
      "  --tau T         Mix-LN switch time (>= 0, default 1)\n"
      "  --attention K   softmax|usa|causal (default softmax; sa/usa/causal fix it)\n"
      "  --weights W     identity|kaiming|PATH (default identity; kaiming: per-layer\n"
      "                  Kaiming-random Q,K,V, ceil(t_end/h) layers of time h,\n"
      "                  seeded by --seed; PATH: 3d rows of d numbers, Q, K, V;\n"
      "                  PATH.npy: shape (3,d,d) or (L,3,d,d), L sets of time h,\n"
      "                  or (L,H,3,d,d): H heads per set, outputs summed;\n"
      "                  PATH.npz, PATH.safetensors: arrays Q.l, K.l, V.l (d,d),\n"
      "                  or Q.l.h, K.l.h, V.l.h for head h)\n"
      "  --kernel K      blas|direct|tiled (default blas, or tiled when the n x n\n"
      "                  matrix would exceed 1 GiB; direct with --precision)\n"
      "\n"
      "Integration:\n"
      "  --t-end T       final time (>= 0, default 10)\n"
      "  --times LIST    output times t1,t2,... (>= 0, non-decreasing; default 0,T;\n"
      "                  the start is always t = 0)\n"
      "  --method M      rk8pd|rkf45|rk4|rkck|msadams|layers|vern9 (default rk8pd;\n"
      "                  vern9: Verner's 9(8) pair, 16 stages);\n"
      "                  with --precision: mp-gbs|mp-taylor|mp-gauss (default\n"
      "                  mp-gbs; mp-taylor: Taylor series, order ~1.15 digits;\n"
      "                  mp-gauss is the slow independent cross-check: its stages\n"
      "                  are solved by fixed-point iteration)\n"
      "  --h H           step of rk4 and layers, initial step otherwise (default 0.01;\n"
      "                  also the time of one Kaiming weight set)\n"
      "  --rtol E        relative tolerance (> 0, default 1e-10)\n"
      "  --atol E        absolute tolerance (> 0, default 1e-12)\n"
      "  --max-steps N   step limit per output interval (>= 1, default 10^7;\n"
      "                  with --precision: accepted + rejected steps of the run,\n"
      "                  default 10^6)\n"
      "\n"
      "High precision (MPFR; the same observables and columns, every number\n"
      "computed at the working precision; --beta, --alpha, --alpha-decay, --tau,\n"
      "--r0, --times, --t-end, --h (the boundaries of Kaiming weight sets) and\n"
      "the rows of --init file:PATH and --weights PATH are read as typed, decimal\n"
      "or hex, rounded once to B bits; --tol and --cluster-cos are doubles):\n"
      "  --precision B   bits of the MPFR run (53..100000); selects the MPFR\n"
      "                  integrators and the direct kernel\n"
      "  --tol E         requested global error of the state (max norm relative to\n"
      "                  max(1, |y|); 2^(16-B) <= E < 1; default 1e-60, or\n"
      "                  10^-floor((B-20) log10 2) if B < 220); the run's own\n"
      "                  estimate is written as err_est\n"
      "  --digits N      significant digits printed (1..100000; default the\n"
      "                  round-trip count 1 + ceil(B log10 2))\n"
      "  --checkpoint P  save the integrator state (exact) to P, atomically, every\n"
      "                  --checkpoint-every seconds and when the run ends or fails\n"
      "  --checkpoint-every S  seconds between checkpoints (>= 0, default 60;\n"
      "                  0: after every step)\n"
      "  --resume P      continue the run saved in checkpoint P (same parameters;\n"
      "                  the result is bit-identical to an uninterrupted run)\n"
      "\n"
      "Output:\n"
      "  --format F      csv|jsonl (default csv); hex with --precision: CSV with\n"
      "                  exact values (MPFR %%Ra, hexadecimal significand)\n"
      "  --out PATH      output file, '-' for stdout (default -)\n"
      "  --save-state P  write the final tokens x_j = r_j theta_j as CSV, readable\n"
      "                  by --init file:P; with --precision the final state\n"
      "                  (theta_j, r_j) as an exact reference file (attnflow_mp.h)\n"
      "  --observables L comma-separated columns (default: the first 12 below)\n"
      "  --cluster-cos C cosine threshold of the clusters observable (default 0.9999)\n"
      "  --progress      progress on stderr even when it is not a terminal (whole\n"
      "                  lines, at most one a second, after a line with the\n"
      "                  memory the run needs); a terminal gets one line, redrawn\n"
      "\n"
      "Observables:");
  for (int i = 0; i < AF_OBS_COUNT; i++)
    printf(" %s", af_obs_name((af_obs_id)i));
  printf("\n\n"
         "Exit status: 0 success, 1 run-time failure, 2 usage error.  Outputs\n"
         "are written atomically: a failed run leaves no file.\n");
}

/* ------------------------------------------------------------ config */

/* af_run_cfg and af_format: cli_run.h. */

static const char *const af_attn_names[AF_ATTN_COUNT] = {"softmax", "usa",
                                                          "causal"};
static const char *const af_kernel_names[AF_KERNEL_COUNT] = {"blas",
                                                              "direct",
                                                              "tiled"};

/* --max-steps: a count of at least 1 (for either integrator). */
static int af_run_max_steps(unsigned long *v, const char *s) {
  if (!af_cli_ulong(v, "max-steps", s)) return 0;
  if (*v < 1) {
    af_cli_error("--max-steps must be at least 1");
    return 0;
  }
  return 1;
}

/* Option value parsed as a double that must lie in [lo, hi] (open at lo
 * if lo_open).  Prints the usage error. */
static int af_run_range(double *v, int opt, const char *s, double lo,
                        int lo_open, double hi) {
  const char *name = af_run_opts[opt].name;
  if (!af_cli_double(v, name, s)) return 0;
  if ((lo_open ? !(*v > lo) : !(*v >= lo)) || !(*v <= hi)) {
    if (hi == INFINITY)
      af_cli_error("--%s must be %s %g (got %s)", name, lo_open ? ">" : ">=",
                   lo, s);
    else
      af_cli_error("--%s must be in %s%g, %g] (got %s)", name,
                   lo_open ? "(" : "[", lo, hi, s);
    return 0;
  }
  return 1;
}

/* Check an --init spec without running it (usage errors). */
static int af_run_check_init(const af_run_cfg *c) {
  const char *s = c->init;
  if (strcmp(s, "uniform") == 0 || strcmp(s, "gaussian") == 0 ||
      strcmp(s, "hemisphere") == 0)
    return 1;
  if (strcmp(s, "orthonormal") == 0) {
    if (c->n > c->d) {
      af_cli_error("--init orthonormal needs n <= d (got n = %zu, d = %zu)",
                   c->n, c->d);
      return 0;
    }
    return 1;
  }
  if (strncmp(s, "cap:", 4) == 0) {
    double delta;
    if (!af_cli_double(&delta, "init cap", s + 4)) return 0;
    if (!(delta >= 0 && delta <= 2)) {
      af_cli_error("--init cap:DELTA needs 0 <= DELTA <= 2 (got %s)", s + 4);
      return 0;
    }
    return 1;
  }
  if (strncmp(s, "file:", 5) == 0) {
    if (s[5] == '\0') {
      af_cli_error("--init file:PATH needs a path");
      return 0;
    }
    return 1;
  }
  af_cli_error("--init: unknown initial condition '%s' (uniform, gaussian, "
               "orthonormal, cap:DELTA, hemisphere, file:PATH)",
               s);
  return 0;
}

static int af_run_parse_observables(af_run_cfg *c, const char *s) {
  c->nobs = 0;
  const char *item = s;
  for (;;) {
    const char *comma = strchr(item, ',');
    size_t len = comma ? (size_t)(comma - item) : strlen(item);
    char name[64];
    af_obs_id id;
    if (len == 0 || len >= sizeof name) {
      af_cli_error("--observables: bad name '%.*s' in '%s'", (int)len, item,
                   s);
      return 0;
    }
    memcpy(name, item, len);
    name[len] = '\0';
    if (af_obs_lookup(&id, name) != AF_OK) {
      char hint[80];
      af_cli_error("--observables: unknown observable '%s'%s", name,
                   af_cli_obs_hint(hint, sizeof hint, name));
      return 0;
    }
    if (!af_cli_once(&id, c->obs, c->nobs, sizeof id, NULL,
                     "--observables: '%s' listed twice", name))
      return 0;
    c->obs[c->nobs++] = id;
    if (!comma) break;
    item = comma + 1;
  }
  return 1;
}

/* The options of the MPFR path (c->precision is set): method, tol,
 * digits, checkpoints; options of the double integrators are errors.
 * Then the common options after the integrator (af_run_parse_rest). */
static int af_run_parse_rest(af_run_cfg *c);

/* 0 (and the message) if an option of the other path than mp (1: MPFR,
 * 0: double) is given, the first in the order below; else 1. */
static int af_run_one_path(const char *const *a, int mp) {
  static const int only[2][5] = {
      {O_TOL, O_DIGITS, O_CHECKPOINT, O_CHECKPOINT_EVERY, O_RESUME},
      {O_RTOL, O_ATOL}};
  static const size_t count[2] = {5, 2};
  static const char *const why[2] = {
      "--%s needs --precision BITS (the MPFR path)",
      "--%s is an option of the double integrators; with --precision use "
      "--tol"};
  for (size_t i = 0; i < count[mp]; i++)
    if (a[only[mp][i]] != NULL) {
      af_cli_error(why[mp], af_run_opts[only[mp][i]].name);
      return 0;
    }
  return 1;
}

static int af_run_parse_mp(af_run_cfg *c) {
  const char *const *a = c->arg;
  if (!af_run_one_path(a, 1)) return AF_EXIT_USAGE;
  if (a[O_METHOD] && af_mp_method_lookup(&c->mp.method, a[O_METHOD]) != AF_OK) {
    af_cli_error("--method %s: with --precision the methods are mp-gbs, "
                 "mp-taylor and mp-gauss",
                 a[O_METHOD]);
    return AF_EXIT_USAGE;
  }
  if (c->spec != NULL && c->mp.method == AF_MP_TAYLOR
      && af_mp_taylor_spec_refusal(c->spec) != NULL) {
    af_cli_error("--method mp-taylor: --scheme-def %s: %s", a[O_SCHEME_DEF],
                 af_mp_taylor_spec_refusal(c->spec));
    return AF_EXIT_USAGE;
  }
  /* --h: first step (and the time of a Kaiming weight set, as without
   * --precision); absent, the integrator starts from 1/8 of the span. */
  if (a[O_H]) {
    if (!af_run_range(&c->integ.h, O_H, a[O_H], 0, 1, INFINITY))
      return AF_EXIT_USAGE;
    c->mp.h0 = c->integ.h;
  }
  /* The integrators compare tolerances in double arithmetic and need
   * them in the normal range (attnflow_mp.h). */
  if (a[O_TOL] && !af_run_range(&c->mp.tol, O_TOL, a[O_TOL], AF_MP_TOL_MIN, 0, AF_MP_TOL_MAX))
    return AF_EXIT_USAGE;
  if (c->mp.tol == 1) {
    af_cli_error("--tol must be below 1 (got %s)", a[O_TOL]);
    return AF_EXIT_USAGE;
  }
  /* A tolerance needs room above the rounding level 2^-B: the Gauss stage
   * iteration stops within 2^16 units of it (mp_integrate.c), and local
   * error estimates below that are rounding noise, so the controller would
   * shrink the step without end.  Default: 1e-60, or 2^20 units of the
   * precision rounded down to a power of ten when B is too small for
   * 1e-60 (B < 220). */
  double floor_tol = ldexp(1.0, 16 - (int)c->precision);
  if (a[O_TOL] == NULL) {
    double dflt = pow(10.0, -floor((double)(c->precision - 20) * log10(2.0)));
    c->mp.tol = fmax(c->mp.tol, dflt);
  } else if (c->mp.tol < floor_tol) {
    af_cli_error("--tol %s is below what %lu bits resolve (2^(16-%lu) = "
                 "%.2g); raise --precision",
                 a[O_TOL], c->precision, c->precision, floor_tol);
    return AF_EXIT_USAGE;
  }
  if (a[O_MAX_STEPS] && !af_run_max_steps(&c->mp.max_steps, a[O_MAX_STEPS]))
    return AF_EXIT_USAGE;
  c->digits = (unsigned long)mpfr_get_str_ndigits(10, (mpfr_prec_t)c->precision);
  if (a[O_DIGITS]) {
    if (!af_cli_ulong(&c->digits, "digits", a[O_DIGITS])) return AF_EXIT_USAGE;
    if (c->digits < 1 || c->digits > AF_RUN_PREC_MAX) {
      af_cli_error("--digits must be in [1, %d] (got %s)", AF_RUN_PREC_MAX,
                   a[O_DIGITS]);
      return AF_EXIT_USAGE;
    }
  }
  c->checkpoint = a[O_CHECKPOINT];
  c->resume = a[O_RESUME];
  if ((c->checkpoint && c->checkpoint[0] == '\0') ||
      (c->resume && c->resume[0] == '\0')) {
    af_cli_error("empty checkpoint path");
    return AF_EXIT_USAGE;
  }
  c->checkpoint_every = 60;
  if (a[O_CHECKPOINT_EVERY]) {
    if (c->checkpoint == NULL) {
      af_cli_error("--checkpoint-every needs --checkpoint PATH");
      return AF_EXIT_USAGE;
    }
    if (!af_run_range(&c->checkpoint_every, O_CHECKPOINT_EVERY,
                      a[O_CHECKPOINT_EVERY], 0, 0, INFINITY))
      return AF_EXIT_USAGE;
  }
  if (a[O_KERNEL] && strcmp(a[O_KERNEL], "direct") != 0) {
    af_cli_error("--kernel %s: the MPFR path has the direct kernel only",
                 a[O_KERNEL]);
    return AF_EXIT_USAGE;
  }
  return af_run_parse_rest(c);
}

/* One option of the command line into c->arg; a repeated option is an
 * error. */
static int af_run_take(int o, const char *val, void *vc) {
  af_run_cfg *c = vc;
  if (c->arg[o] != NULL) {
    af_cli_error("--%s given twice ('%s', then '%s')", af_run_opts[o].name,
                 c->arg[o], val);
    return AF_EXIT_USAGE;
  }
  c->arg[o] = val ? val : ""; /* a flag: present */
  return AF_EXIT_OK;
}

/* Parse argv into c (cli_run.h). */
int af_run_parse(af_run_cfg *c, int argc, char **argv) {
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, 1, "run");
  int rc = af_cli_options(&p, af_run_opts, O_HELP, af_run_help, af_run_take, c);
  if (rc != AF_EXIT_OK) return rc;
  static const int required[] = {O_SCHEME, O_N, O_D, O_BETA};
  const char *const *a = c->arg;
  c->progress = a[O_PROGRESS] != NULL;
  if (a[O_SCHEME_DEF] != NULL) { /* a spec'd scheme in place of --scheme */
    if (a[O_SCHEME] != NULL) {
      af_cli_error("give --scheme or --scheme-def, not both");
      return AF_EXIT_USAGE;
    }
    if (!af_cli_required("run", af_run_opts, c->arg, required + 1,
                         sizeof required / sizeof required[0] - 1))
      return AF_EXIT_USAGE;
    if (!af_cli_scheme_def(&c->spec, a[O_SCHEME_DEF]))
      return AF_EXIT_USAGE;
  } else if (!af_cli_required("run", af_run_opts, c->arg, required,
                              sizeof required / sizeof required[0]))
    return AF_EXIT_USAGE;

  /* Scheme and attention. */
  c->scheme_name = a[O_SCHEME];
  int attn_fixed = 1;
  c->attn = AF_ATTN_SOFTMAX;
  if (c->spec != NULL) {
    c->scheme = AF_SCHEME_USER;
    c->scheme_name = af_scheme_spec_row(c->spec)->name;
    attn_fixed = 0;
  } else if (strcmp(a[O_SCHEME], "sa") == 0) {
    c->scheme = AF_POST_LN;
  } else if (strcmp(a[O_SCHEME], "usa") == 0) {
    c->scheme = AF_POST_LN;
    c->attn = AF_ATTN_USA;
  } else if (strcmp(a[O_SCHEME], "causal") == 0) {
    c->scheme = AF_POST_LN;
    c->attn = AF_ATTN_CAUSAL;
  } else if (af_scheme_lookup(&c->scheme, a[O_SCHEME]) == AF_OK) {
    attn_fixed = 0;
  } else {
    char hint[80];
    af_cli_error("--scheme: unknown scheme '%s' (see 'attnflow schemes'; "
                 "also sa, usa, causal)%s",
                 a[O_SCHEME], af_cli_scheme_hint(hint, sizeof hint, a[O_SCHEME]));
    return AF_EXIT_USAGE;
  }
  if (a[O_ATTENTION] != NULL) {
    int k;
    for (k = 0; k < AF_ATTN_COUNT; k++)
      if (strcmp(a[O_ATTENTION], af_attn_names[k]) == 0) break;
    if (k == AF_ATTN_COUNT) {
      af_cli_error("--attention: unknown attention '%s' (softmax, usa, "
                   "causal)",
                   a[O_ATTENTION]);
      return AF_EXIT_USAGE;
    }
    if (attn_fixed && (af_attn_kind)k != c->attn) {
      af_cli_error("--attention %s contradicts --scheme %s", a[O_ATTENTION],
                   a[O_SCHEME]);
      return AF_EXIT_USAGE;
    }
    c->attn = (af_attn_kind)k;
  }

  /* Sizes and model parameters. */
  if (!af_cli_size(&c->n, "n", a[O_N]) || !af_cli_size(&c->d, "d", a[O_D]))
    return AF_EXIT_USAGE;
  if (c->n < 1) {
    af_cli_error("--n must be at least 1 (got %s)", a[O_N]);
    return AF_EXIT_USAGE;
  }
  if (c->d < 1) {
    af_cli_error("--d must be at least 1 (got %s)", a[O_D]);
    return AF_EXIT_USAGE;
  }
  if (!af_run_range(&c->beta, O_BETA, a[O_BETA], 0, 0, INFINITY))
    return AF_EXIT_USAGE;
  c->r0 = NAN; /* library default: 1, or the norms of a Gaussian start */
  if (a[O_R0] && !af_run_range(&c->r0, O_R0, a[O_R0], 0, 1, INFINITY))
    return AF_EXIT_USAGE;

  af_model dm;
  af_model_init(&dm, 1, 1, 1.0, AF_POST_LN);
  c->alpha = dm.alpha;
  c->alpha_decay = dm.alpha_decay;
  c->tau = dm.tau;
  if (a[O_ALPHA] && !af_run_range(&c->alpha, O_ALPHA, a[O_ALPHA], 0, 1,
                                  INFINITY))
    return AF_EXIT_USAGE;
  if (a[O_ALPHA_DECAY] && !af_run_range(&c->alpha_decay, O_ALPHA_DECAY,
                                        a[O_ALPHA_DECAY], 0, 0, INFINITY))
    return AF_EXIT_USAGE;
  if (a[O_TAU] && !af_run_range(&c->tau, O_TAU, a[O_TAU], 0, 0, INFINITY))
    return AF_EXIT_USAGE;

  c->seed = 1;
  if (a[O_SEED] && !af_cli_ulong(&c->seed, "seed", a[O_SEED]))
    return AF_EXIT_USAGE;

  /* Times. */
  c->t_end = 10;
  if (a[O_T_END] && !af_run_range(&c->t_end, O_T_END, a[O_T_END], 0, 0,
                                  INFINITY))
    return AF_EXIT_USAGE;
  if (a[O_TIMES]) {
    if (!af_cli_double_list(&c->times, &c->ntimes, "times", a[O_TIMES]))
      return AF_EXIT_USAGE;
    for (size_t k = 0; k < c->ntimes; k++) {
      if (!(c->times[k] >= 0)) {
        af_cli_error("--times: negative time %.17g", c->times[k]);
        return AF_EXIT_USAGE;
      }
      if (k > 0 && c->times[k] < c->times[k - 1]) {
        af_cli_error("--times must be non-decreasing (%.17g after %.17g)",
                     c->times[k], c->times[k - 1]);
        return AF_EXIT_USAGE;
      }
    }
    double last = c->times[c->ntimes - 1];
    if (a[O_T_END] && c->t_end != last) {
      af_cli_error("--t-end %s disagrees with the last of --times (%.17g)",
                   a[O_T_END], last);
      return AF_EXIT_USAGE;
    }
    c->t_end = last;
  } else {
    c->times = malloc(2 * sizeof *c->times);
    if (c->times == NULL) {
      af_cli_error("%s", af_strerror(AF_ENOMEM));
      return AF_EXIT_FAIL;
    }
    c->times[0] = 0;
    c->times[1] = c->t_end;
    c->ntimes = 2;
  }

  /* High precision first: it decides what --method names. */
  af_integ_opts_init(&c->integ);
  af_mp_opts_init(&c->mp);
  if (a[O_PRECISION]) {
    if (!af_cli_ulong(&c->precision, "precision", a[O_PRECISION]))
      return AF_EXIT_USAGE;
    if (c->precision < AF_RUN_PREC_MIN || c->precision > AF_RUN_PREC_MAX) {
      af_cli_error("--precision must be in [%d, %d] bits (got %s)",
                   AF_RUN_PREC_MIN, AF_RUN_PREC_MAX, a[O_PRECISION]);
      return AF_EXIT_USAGE;
    }
    return af_run_parse_mp(c);
  }
  if (!af_run_one_path(a, 0)) return AF_EXIT_USAGE;
  if (a[O_METHOD] && strncmp(a[O_METHOD], "mp-", 3) == 0) {
    af_cli_error("--method %s needs --precision BITS", a[O_METHOD]);
    return AF_EXIT_USAGE;
  }

  /* Integrator. */
  if (a[O_METHOD] && af_method_lookup(&c->integ.method, a[O_METHOD]) != AF_OK) {
    char hint[80];
    af_cli_error("--method: unknown method '%s' (rk8pd, rkf45, rk4, rkck, "
                 "msadams, layers, vern9)%s",
                 a[O_METHOD], af_cli_method_hint(hint, sizeof hint, a[O_METHOD]));
    return AF_EXIT_USAGE;
  }
  if (a[O_H] && !af_run_range(&c->integ.h, O_H, a[O_H], 0, 1, INFINITY))
    return AF_EXIT_USAGE;
  /* Tolerances: a relative one below the rounding unit DBL_EPSILON asks
   * for more than double arithmetic resolves (the step size shrinks
   * without end), one of 1 or more for no accuracy at all; an absolute
   * one above 1 exceeds every coordinate of a direction on the sphere. */
  if (a[O_RTOL]) {
    if (!af_cli_double(&c->integ.rtol, "rtol", a[O_RTOL])) return AF_EXIT_USAGE;
    if (!(c->integ.rtol >= AF_RTOL_MIN && c->integ.rtol < AF_RTOL_MAX)) {
      af_cli_error("--rtol must be in [%.3g, 1) (DBL_EPSILON to 1; got %s)",
                   DBL_EPSILON, a[O_RTOL]);
      return AF_EXIT_USAGE;
    }
  }
  if (a[O_ATOL] && !af_run_range(&c->integ.atol, O_ATOL, a[O_ATOL], 0, 1, AF_ATOL_MAX))
    return AF_EXIT_USAGE;
  if (a[O_MAX_STEPS] && !af_run_max_steps(&c->integ.max_steps, a[O_MAX_STEPS]))
    return AF_EXIT_USAGE;

  /* Fixed steps (rk4, layers): the step count of each output interval is
   * known now; more than --max-steps would fail only at the end of it. */
  if (c->integ.method == AF_METHOD_RK4 || c->integ.method == AF_METHOD_LAYERS) {
    double lim = c->integ.max_steps ? (double)c->integ.max_steps : 1e7;
    for (size_t k = 0; k < c->ntimes; k++) {
      double span = c->times[k] - (k ? c->times[k - 1] : 0);
      if (ceil(span / c->integ.h) > lim) {
        af_cli_error("--h %s: %s needs %.3g steps from t = %.17g to %.17g, "
                     "more than --max-steps %.0f",
                     a[O_H] ? a[O_H] : "0.01", af_method_name(c->integ.method),
                     ceil(span / c->integ.h), k ? c->times[k - 1] : 0.0,
                     c->times[k], lim);
        return AF_EXIT_USAGE;
      }
    }
  }
  if (c->integ.method == AF_METHOD_LAYERS) {
    /* The layer maps output at layer boundaries only: t = l h within the
     * relative 1e-9 that af_integrate accepts (attnflow.h). */
    for (size_t k = 0; k < c->ntimes; k++) {
      double l = nearbyint(c->times[k] / c->integ.h);
      if (fabs(c->times[k] - l * c->integ.h) >
          1e-9 * fmax(1.0, c->times[k])) {
        af_cli_error("--method layers: time %.17g is not a multiple of "
                     "--h %.17g",
                     c->times[k], c->integ.h);
        return AF_EXIT_USAGE;
      }
    }
  }

  return af_run_parse_rest(c);
}

/* Options common to both paths, after the integrator's. */
static int af_run_parse_rest(af_run_cfg *c) {
  const char *const *a = c->arg;
  c->kernel = c->precision ? AF_KERNEL_DIRECT : af_kernel_auto(c->n, c->d);
  if (a[O_KERNEL]) {
    int k;
    for (k = 0; k < AF_KERNEL_COUNT; k++)
      if (strcmp(a[O_KERNEL], af_kernel_names[k]) == 0) break;
    if (k == AF_KERNEL_COUNT) {
      af_cli_error("--kernel: unknown kernel '%s' (blas, direct, tiled)",
                   a[O_KERNEL]);
      return AF_EXIT_USAGE;
    }
    c->kernel = (af_kernel)k;
  }

  /* Output. */
  c->format = AF_FMT_CSV;
  if (a[O_FORMAT]) {
    if (strcmp(a[O_FORMAT], "csv") == 0) {
      c->format = AF_FMT_CSV;
    } else if (strcmp(a[O_FORMAT], "jsonl") == 0) {
      c->format = AF_FMT_JSONL;
    } else if (strcmp(a[O_FORMAT], "hex") == 0 && c->precision) {
      c->format = AF_FMT_HEX;
    } else if (strcmp(a[O_FORMAT], "hex") == 0) {
      af_cli_error("--format hex needs --precision BITS (exact MPFR values)");
      return AF_EXIT_USAGE;
    } else {
      af_cli_error("--format: unknown format '%s' (csv, jsonl%s)", a[O_FORMAT],
                   c->precision ? ", hex" : "");
      return AF_EXIT_USAGE;
    }
  }
  c->out = a[O_OUT] ? a[O_OUT] : "-";
  c->save_state = a[O_SAVE_STATE];
  if (c->out[0] == '\0' || (c->save_state && c->save_state[0] == '\0')) {
    af_cli_error("empty output path");
    return AF_EXIT_USAGE;
  }
  if (c->save_state && strcmp(c->save_state, c->out) == 0) {
    af_cli_error("--out and --save-state name the same file '%s'", c->out);
    return AF_EXIT_USAGE;
  }
  if (c->checkpoint && (strcmp(c->checkpoint, c->out) == 0 ||
                        (c->save_state &&
                         strcmp(c->checkpoint, c->save_state) == 0))) {
    af_cli_error("--checkpoint '%s' names the same file as --out or "
                 "--save-state",
                 c->checkpoint);
    return AF_EXIT_USAGE;
  }
  if (!af_out_target_check("--out", c->out, NULL) ||
      (c->save_state && !af_out_target_check("--save-state", c->save_state, NULL)) ||
      (c->checkpoint && !af_out_target_check("--checkpoint", c->checkpoint, NULL)))
    return AF_EXIT_USAGE;
  c->cluster_cos = 0.9999;
  if (a[O_CLUSTER_COS] && !af_run_range(&c->cluster_cos, O_CLUSTER_COS,
                                        a[O_CLUSTER_COS], AF_COS_MIN, 0, AF_COS_MAX))
    return AF_EXIT_USAGE;
  if (a[O_OBSERVABLES]) {
    if (!af_run_parse_observables(c, a[O_OBSERVABLES])) return AF_EXIT_USAGE;
  } else {
    c->nobs = AF_OBS_DEFAULT_COUNT;
    for (size_t k = 0; k < c->nobs; k++) c->obs[k] = (af_obs_id)k;
  }
  for (size_t k = 0; k < c->nobs; k++) c->obs_names[k] = af_obs_name(c->obs[k]);

  c->init = a[O_INIT] ? a[O_INIT] : "uniform";
  if (!af_run_check_init(c)) return AF_EXIT_USAGE;
  c->weights = a[O_WEIGHTS] ? a[O_WEIGHTS] : "identity";
  if (c->weights[0] == '\0') {
    af_cli_error("--weights: empty value (identity, kaiming or a path)");
    return AF_EXIT_USAGE;
  }
  return AF_EXIT_OK;
}

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
  int rc = af_integrate(x->y, x->itimes, x->nitimes, x->m, &x->c->integ,
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
    rc = af_prov_add_integ(p, &c->integ);
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
