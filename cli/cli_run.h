/* cli_run.h -- configuration of `attnflow run`, shared by the double path
 * (cli_run.c) and the MPFR path (cli_run_mp.c).  Internal to the command.
 */
#ifndef AF_CLI_RUN_H
#define AF_CLI_RUN_H

#include <stddef.h>
#include <string.h>

#include "attnflow.h"
#include "attnflow_mp.h"
#include "cli.h"
#include "output.h"

/* Option indices of the table in cli_run_parse.c. */
enum {
  O_HELP, O_SCHEME, O_N, O_D, O_BETA, O_INIT, O_SEED, O_R0, O_ALPHA,
  O_ALPHA_DECAY, O_TAU, O_T_END, O_TIMES, O_METHOD, O_H, O_RTOL, O_ATOL,
  O_FORMAT, O_OUT, O_SAVE_STATE, O_ATTENTION, O_KERNEL, O_WEIGHTS,
  O_CLUSTER_COS, O_OBSERVABLES, O_MAX_STEPS, O_PRECISION, O_TOL, O_DIGITS,
  O_CHECKPOINT, O_CHECKPOINT_EVERY, O_RESUME, O_SCHEME_DEF, O_PROGRESS,
  O_COUNT
};

/* AF_FMT_HEX: CSV with exact MPFR values (--precision only). */
typedef enum { AF_FMT_CSV = 0, AF_FMT_JSONL, AF_FMT_HEX } af_format;

/* Bounds of --precision: 53 bits (a double's significand; below it the
 * MPFR run would be less accurate than the double path) to 100000 bits
 * (~30000 digits, far beyond any tolerance >= 1e-300 the integrators
 * accept). */
#define AF_RUN_PREC_MIN AF_PREC_CLI_MIN /* attnflow_limits.h */
#define AF_RUN_PREC_MAX AF_PREC_MAX

typedef struct {
  /* As given. */
  const char *arg[O_COUNT]; /* value of each option, NULL if absent */
  /* Parsed. */
  const char *scheme_name;
  af_scheme_id scheme;
  af_attn_kind attn;
  size_t n, d;
  double beta, r0, alpha, alpha_decay, tau, t_end, cluster_cos;
  unsigned long seed;
  double *times; /* requested output times */
  size_t ntimes;
  af_integ_opts integ;
  int h_auto;     /* no --h and an adaptive method: the integrator gets
                     integ.h = 0, the starting-step rule (attnflow.h);
                     integ.h keeps 0.01 for Kaiming weight sets        */
  af_kernel kernel;
  af_format format;
  const char *out, *save_state, *init, *weights;
  af_obs_id obs[AF_OBS_COUNT]; /* selected columns */
  const char *obs_names[AF_OBS_COUNT];
  size_t nobs;
  /* High precision (precision 0: the double path). */
  unsigned long precision;
  af_mp_opts mp;           /* method, tol, max_steps, h0                */
  unsigned long digits;    /* significant digits printed                */
  const char *checkpoint, *resume;
  double checkpoint_every; /* seconds                                   */
  af_scheme_spec *spec;    /* --scheme-def: the spec'd scheme (the
                              caller frees it)                         */
  int progress;            /* --progress: progress lines on stderr even
                              when it is not a terminal                */
} af_run_cfg;

/* 1 if PATH names a .npy file (by its suffix).  Inline, so that code
 * compiled without cli_run.c (the checkpoint fuzz harness includes
 * cli_run_mp.c alone) has it too. */
static inline int af_cli_is_npy(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcmp(path + n - 4, ".npy") == 0;
}
/* 1 if PATH ends in SUFFIX. */
static inline int af_cli_ends_with(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcmp(path + n - k, suffix) == 0;
}
/* 1 if PATH names a binary weights file the double path alone reads:
 * .npy, .npz or .safetensors (by its suffix). */
static inline int af_cli_is_binary_weights(const char *path) {
  return af_cli_is_npy(path) || af_cli_ends_with(path, ".npz") ||
         af_cli_ends_with(path, ".safetensors");
}

/* The option table of 'attnflow run' (indices O_*), shared with
 * 'attnflow sweep' (cli_sweep.c), which gives every run option to each
 * run of its grid. */
extern const af_cli_opt af_run_opts[];

/* Names of the attention kinds and kernels as --attention and --kernel
 * take them (cli_run_parse.c), indexed by af_attn_kind, af_kernel. */
extern const char *const af_attn_names[AF_ATTN_COUNT];
extern const char *const af_kernel_names[AF_KERNEL_COUNT];

/* Parse argv (argv[0] the command name) into c, zeroed by the caller;
 * c->times is malloc'ed (caller frees).  Returns AF_EXIT_OK,
 * AF_EXIT_USAGE after printing the error, or -1 after printing the help
 * (--help). */
int af_run_parse(af_run_cfg *c, int argc, char **argv);

/* The MPFR run (cli_run_mp.c): read the parameters, times and token
 * file as typed at c->precision bits (a generated start is the double
 * state y0, exact), integrate, write the output and the files of
 * --save-state and --checkpoint.  prov holds the parameters (the run
 * replaces the typed ones by their strings and appends its statistics).
 * Prints its errors; returns the exit status. */
int af_run_mp(const af_run_cfg *c, const af_model *m, const double *y0,
              af_prov *prov);

#endif /* AF_CLI_RUN_H */
