/* cli.h -- the attnflow command: subcommands and the helpers they share.
 *
 * Only this layer prints and sets exit statuses (house style).  Each
 * subcommand is a function af_cli_<name>(argc, argv) called with argv[0]
 * = the subcommand name and returning the process exit status; main.c
 * dispatches through one table, so a new subcommand is one prototype
 * here and one row there.
 *
 * Exit statuses: 0 success, 1 run-time failure (integration failure, zero
 * attention, unreadable/unwritable or malformed file), 2 usage error (bad
 * option, bad value, unknown name, inconsistent arguments).  Every error
 * is one line on stderr, "attnflow: <message>".
 */
#ifndef AF_CLI_H
#define AF_CLI_H

#include <stddef.h>

#include "attnflow.h"

enum { AF_EXIT_OK = 0, AF_EXIT_FAIL = 1, AF_EXIT_USAGE = 2 };

/* ------------------------------------------------------------ commands */

/* attnflow run: integrate one case and print observables (cli_run.c). */
int af_cli_run(int argc, char **argv);
/* attnflow schemes: the scheme table (main.c). */
int af_cli_schemes(int argc, char **argv);
/* attnflow verify: run the claims of proofs-numeric/ (cli_verify.c).  It
 * is linked only into the program attnflow-verify, with the claims and the
 * certified (Arb) code; 'attnflow verify' executes that program (main.c). */
int af_cli_verify(int argc, char **argv);
/* attnflow figure: data of the figures of docs/figures.md (figure.c). */
int af_cli_figure(int argc, char **argv);

/* attnflow sweep: a grid of runs, on MPI ranks when started by mpirun
 * or srun (cli_sweep.c).  Linked only into the program attnflow-sweep,
 * built with MPI; 'attnflow sweep' executes that program (main.c). */
int af_cli_sweep(int argc, char **argv);

/* attnflow certify: a computer-assisted proof that one start converges to
 * one cluster (cli_certify.c, certified/certify.h).  Linked only into
 * attnflow-verify, with the certified code; 'attnflow certify' executes
 * that program (main.c). */
int af_cli_certify(int argc, char **argv);

/* attnflow convergence: observed orders and work-precision of the
 * integrators on a case of one's own (cli_convergence.c). */
int af_cli_convergence(int argc, char **argv);

/* The whole command line as main received it (for provenance). */
char **af_cli_argv(int *argc);

/* ------------------------------------------------------------ messages */

/* "attnflow: <message>\n" on stderr. */
void af_cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "attnflow: warning: <message>\n" on stderr. */
void af_cli_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A value of a list option given once: returns 1 if no one of the n
 * values at seen (size bytes each) equals *item (by eq; NULL: the same
 * bytes), else prints the error fmt, ... ("--OPT: VALUE listed twice")
 * and returns 0. */
int af_cli_once(const void *item, const void *seen, size_t n, size_t size,
                int (*eq)(const void *, const void *), const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Exit status for a library status: usage (2) for AF_EINVAL and AF_EDIM
 * (the arguments were wrong), failure (1) for everything else. */
int af_cli_exit_status(int status);

/* ------------------------------------------------------------ options */

/* One long option: "--name" alone (takes_value 0) or "--name VALUE" /
 * "--name=VALUE" (takes_value 1).  Abbreviations are not accepted. */
typedef struct {
  const char *name; /* without the leading "--" */
  int takes_value;
} af_cli_opt;

typedef struct {
  int argc;
  char **argv;
  int next;             /* next argv index to read */
  const char *command;  /* subcommand name, for messages */
} af_cli_parser;

void af_cli_parser_init(af_cli_parser *p, int argc, char **argv, int first,
                        const char *command);
/* Next option: its index in opts (a table ended by a NULL name) and its
 * value (NULL for a flag).  Returns -1 at the end of argv and -2 after
 * printing a usage error (unknown option, missing value, value given to
 * a flag, stray argument). */
int af_cli_next(af_cli_parser *p, const af_cli_opt *opts, const char **value);

/* Every option of p: take(o, value, ctx) for each (value NULL for a
 * flag), in the order given; the option of index `help` prints help_fn()
 * instead.  Returns AF_EXIT_OK at the end of argv, -1 after the help,
 * AF_EXIT_USAGE after af_cli_next's error, or take's status when it is
 * not AF_EXIT_OK (take prints its own error). */
int af_cli_options(af_cli_parser *p, const af_cli_opt *opts, int help,
                   void (*help_fn)(void),
                   int (*take)(int o, const char *value, void *ctx),
                   void *ctx);
/* Returns 1 if given[required[i]] is set for every i (option indices of
 * opts), else prints "COMMAND: missing required option --NAME (try
 * 'attnflow COMMAND --help')" for the first one missing and returns 0. */
int af_cli_required(const char *command, const af_cli_opt *opts,
                    const char *const *given, const int *required,
                    size_t nrequired);

/* Strict number parsing: the whole string must be consumed, no leading
 * blanks, finite results only.  Each prints a usage error naming the
 * option and returns 0 on failure, 1 on success. */
int af_cli_double(double *v, const char *opt, const char *s);
/* Decimal digits only (no sign), no overflow. */
int af_cli_ulong(unsigned long *v, const char *opt, const char *s);
int af_cli_size(size_t *v, const char *opt, const char *s);
/* Comma-separated list of doubles; *v is malloc'ed (caller frees). */
int af_cli_double_list(double **v, size_t *k, const char *opt, const char *s);

/* ------------------------------------------------------------ causes */
/* (cli_messages.c) The candidate nearest to word[0..len) (a misspelling
 * or a prefix of at least 3 characters), NULL if none is near. */
const char *af_cli_nearest(const char *word, size_t len,
                           const char *const *cands, size_t n);
/* "; did you mean 'DASHcand'?" in buf for the nearest of cands, "" if
 * none; returns buf. */
const char *af_cli_did_you_mean(char *buf, size_t cap, const char *dash,
                                const char *word, const char *const *cands,
                                size_t n);
/* The same for a scheme (and sa, usa, causal), a method, an observable. */
const char *af_cli_scheme_hint(char *buf, size_t cap, const char *word);
/* Read --scheme-def PATH into *spec, printing the error with its line
 * and column; 1 on success (cli_run.c; shared by run, verify and
 * certify). */
int af_cli_scheme_def(af_scheme_spec **spec, const char *path);
/* Read a --weights PATH: a .npy file (af_weights_read_npy, its sets of
 * time h each), a .npz or .safetensors file (af_weights_read_npz,
 * af_weights_read_safetensors; info->what then points at a static
 * message naming the entry) or the text format (af_weights_read_info). */
int af_cli_weights_read(af_weights **w, af_read_info *info, const char *path,
                        size_t d, double h);
const char *af_cli_method_hint(char *buf, size_t cap, const char *word);
const char *af_cli_obs_hint(char *buf, size_t cap, const char *word);
/* The cause of a failed file operation: strerror(err) if err is set,
 * else af_strerror(rc). */
const char *af_cli_errno_text(int rc, int err);

/* ------------------------------------------------------------ memory */
/* (cli_memory.c) Share of the physical memory a request may take. */
#define AF_CLI_MEM_SHARE 0.8
/* Bytes as "123456789 bytes (117.7 MiB)" in buf; returns buf. */
const char *af_cli_bytes(char *buf, size_t cap, double b);
/* AF_CLI_MEM_SHARE of the physical memory in bytes, 0 if unknown. */
double af_cli_mem_limit(void);
/* 1 if a request of `bytes` (what names it) fits under
 * af_cli_mem_limit() or the machine's size is unknown; else prints why
 * (the estimate, the limit, the machine's memory) and returns 0. */
int af_cli_mem_fits(double bytes, const char *what);
/* "attnflow: WHAT needs about B of memory (limit L)" on stderr: what an
 * admitted request takes (run --progress). */
void af_cli_mem_note(double bytes, const char *what);

#endif /* AF_CLI_H */
