/* cli_run_parse.c -- the options of `attnflow run`: their table (shared
 * with `attnflow sweep`), the help, and af_run_parse, which reads and
 * checks every option into an af_run_cfg (step 1 of cli_run.c's order of
 * work: usage errors, exit 2, before anything is built or opened).  The
 * run itself is cli_run.c (double path) and cli_run_mp.c (MPFR).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
      "                  mp-gbs: extrapolation, one row per 3 digits to start,\n"
      "                  then chosen by work per step; mp-taylor: Taylor series,\n"
      "                  order ~1.15 digits;\n"
      "                  mp-gauss is the slow independent cross-check: its stages\n"
      "                  are solved by fixed-point iteration)\n"
      "  --h H           step of rk4 and layers (default 0.01), and the time of one\n"
      "                  Kaiming weight set (default 0.01); the first step of the\n"
      "                  adaptive methods (default: Hairer's starting-step rule,\n"
      "                  two right-hand sides; msadams 0.01)\n"
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
      "                  estimate is written as err_est (the sum of its local\n"
      "                  estimates, a bound) and, for mp-gbs, as err_global (its\n"
      "                  local errors carried by the flow's linearization: near\n"
      "                  the true error; not after --resume)\n"
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

const char *const af_attn_names[AF_ATTN_COUNT] = {"softmax", "usa",
                                                   "causal"};
const char *const af_kernel_names[AF_KERNEL_COUNT] = {"blas", "direct",
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
  c->h_auto = !a[O_H] && !af_method_fixed(c->integ.method);
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
