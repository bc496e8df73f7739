/* main.c -- the attnflow command: dispatch table, the scheme listing and
 * the option and number parsing shared by the subcommands (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "cli.h"
#include "datadir.h"
#include "output.h"

static int af_cli_verify_exec(int argc, char **argv);

/* ------------------------------------------------------------ dispatch */

typedef struct {
  const char *name;
  const char *summary;
  int (*fn)(int argc, char **argv);
} af_cli_command;

/* One row per subcommand. */
static const af_cli_command af_commands[] = {
    {"run", "integrate the flow of one case and print its observables",
     af_cli_run},
    {"schemes", "list the normalization schemes (speed factor, radial rate)",
     af_cli_schemes},
    {"verify", "check every theorem numerically: PASS, FAIL or INCONCLUSIVE",
#ifdef AF_CLI_VERIFY
     af_cli_verify},
#else
     af_cli_verify_exec},
#endif
    {"figure", "write the data of a figure of docs/figures.md", af_cli_figure},
    {"sweep", "run a grid of runs (scheme, n, d, beta, seeds), on MPI ranks",
#ifdef AF_CLI_SWEEP
     af_cli_sweep},
#else
     af_cli_verify_exec}, /* executes attnflow-sweep */
#endif
    {"certify", "prove in ball arithmetic that one start converges to one cluster",
#ifdef AF_CLI_VERIFY
     af_cli_certify},
#else
     af_cli_verify_exec}, /* executes attnflow-verify */
#endif
    {"convergence", "observed orders and work-precision of the integrators on a case",
     af_cli_convergence},
};
#define AF_NCOMMANDS (sizeof af_commands / sizeof af_commands[0])

static void af_cli_usage(FILE *f) {
  fprintf(f,
          "Usage: attnflow COMMAND [OPTIONS]\n"
          "       attnflow --help | --version\n"
          "\n"
          "Tokens on the sphere moved by self-attention under the normalization\n"
          "schemes of \"Normalization in Attention Dynamics\" (arXiv:2510.22026).\n"
          "\n"
          "Commands:\n");
  for (size_t i = 0; i < AF_NCOMMANDS; i++)
    fprintf(f, "  %-10s %s\n", af_commands[i].name, af_commands[i].summary);
  fprintf(f,
          "\n"
          "Run 'attnflow help COMMAND' (or 'attnflow COMMAND --help', '-h') for\n"
          "the options of a command; 'man attnflow' for the manual.\n"
          "Exit status: 0 success, 1 run-time failure, 2 usage error.\n");
}

static int af_main_argc;
static char **af_main_argv;

char **af_cli_argv(int *argc) {
  *argc = af_main_argc;
  return af_main_argv;
}

int main(int argc, char **argv) {
  /* The command is the host program: its own GSL calls (claims, theory)
   * report by status, never abort (the library restores whatever handler
   * it finds, so this choice is the program's, as for any host). */
  gsl_set_error_handler_off();
  /* Rows and verdicts reach a pipe or a file as they are made, one line
   * at a time (attnflow verify > log), not in blocks at exit. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  af_main_argc = argc;
  af_main_argv = argv;
  if (argc < 2) {
    af_cli_error("missing command (try 'attnflow --help')");
    return AF_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  /* 'attnflow help CMD' is 'attnflow CMD --help'. */
  static char *help_argv[4];
  if (strcmp(cmd, "help") == 0 && argc == 3 && argv[2][0] != '-') {
    help_argv[0] = argv[0];
    help_argv[1] = argv[2];
    help_argv[2] = (char *)"--help";
    af_main_argc = argc = 3;
    af_main_argv = argv = help_argv;
    cmd = argv[1];
  } else if (strcmp(cmd, "help") == 0 && argc > 2) {
    af_cli_error("help: expected one command name (try 'attnflow --help')");
    return AF_EXIT_USAGE;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    af_cli_usage(stdout);
    return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }
  /* 'attnflow CMD -h' is 'attnflow CMD --help'. */
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0) argv[i] = (char *)"--help";
  if (strcmp(cmd, "--version") == 0) {
    printf("attnflow %s (commit %s)\n", af_version(), af_commit());
    return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }
  for (size_t i = 0; i < AF_NCOMMANDS; i++)
    if (strcmp(cmd, af_commands[i].name) == 0)
      return af_commands[i].fn(argc - 1, argv + 1);
  if (cmd[0] == '-')
    af_cli_error("unknown option '%s' (try 'attnflow --help')", cmd);
  else
  {
    const char *names[AF_NCOMMANDS];
    for (size_t i = 0; i < AF_NCOMMANDS; i++) names[i] = af_commands[i].name;
    char hint[80];
    af_cli_error("unknown command '%s' (try 'attnflow --help')%s", cmd,
                 af_cli_did_you_mean(hint, sizeof hint, NULL, cmd, names,
                                     AF_NCOMMANDS));
  }
  return AF_EXIT_USAGE;
}

/* ------------------------------------------------------------ verify */

/* 'attnflow verify' runs in the program attnflow-verify, built from the
 * same sources plus the claims (proofs-numeric/) and the certified code
 * (certified/, Arb and FLINT).  Keeping those out of this program keeps
 * Arb, FLINT, NTL and the C++ runtime out of every 'attnflow run': the
 * dynamic loader spends about 2 ms relocating them, several times the
 * whole integration of a small case (docs/performance.md).
 *
 * attnflow-verify is looked for next to this program (the build tree, or
 * an install where both sit in one directory), then in the package's
 * libexec directory relative to this program (an installation that was
 * moved, datadir.h), then where make install put it.  It receives the
 * command line unchanged. */
static int af_cli_verify_exec(int argc, char **argv) {
  (void)argc;
  /* 'attnflow sweep' likewise executes attnflow-sweep (MPI, cli_sweep.c). */
  char prog[32];
  snprintf(prog, sizeof prog, "attnflow-%s",
           strcmp(argv[0], "certify") == 0 ? "verify" : argv[0]);
  char self[4096], here[4096 + sizeof prog], moved[4096 + sizeof prog];
  const char *tried[3];
  int ntried = 0;
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k > 0) {
    self[k] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL) {
      slash[1] = '\0';
      snprintf(here, sizeof here, "%s%s", self, prog);
      tried[ntried++] = here;
    }
  }
  /* A moved installation: pkglibexecdir relative to this program. */
  if (af_install_dir(moved, sizeof moved - sizeof prog, AF_PKGLIBEXECDIR)) {
    strcat(moved, "/");
    strcat(moved, prog);
    tried[ntried++] = moved;
  }
  char lib[sizeof AF_PKGLIBEXECDIR + sizeof prog];
  snprintf(lib, sizeof lib, "%s/%s", AF_PKGLIBEXECDIR, prog);
  tried[ntried++] = lib;
  fflush(stdout);
  int err = ENOENT;
  for (int i = 0; i < ntried; i++) {
    execv(tried[i], af_main_argv);
    if (errno != ENOENT || err == ENOENT) err = errno;
  }
  af_cli_error("%s: cannot run %s%s%s: %s", argv[0], ntried ? tried[0] : prog,
               ntried > 1 ? " or " : "", ntried > 1 ? tried[ntried - 1] : "",
               strerror(err));
  return AF_EXIT_FAIL;
}

/* ------------------------------------------------------------ schemes */

/* Display width of a UTF-8 string: code points, not bytes. */
static int af_cli_width(const char *s) {
  int w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++;
  return w;
}

static void af_cli_cell(const char *s, int width) {
  fputs(s, stdout);
  for (int k = af_cli_width(s); k < width; k++) putchar(' ');
}

int af_cli_schemes(int argc, char **argv) {
  static const af_cli_opt opts[] = {{"help", 0}, {NULL, 0}};
  af_cli_parser p;
  const char *val;
  int o;
  af_cli_parser_init(&p, argc, argv, 1, "schemes");
  while ((o = af_cli_next(&p, opts, &val)) != -1) {
    if (o == -2) return AF_EXIT_USAGE;
    printf("Usage: attnflow schemes\n"
           "Print the normalization schemes (theorems.md S1-S6) as the library "
           "defines them:\nname, title, speed factor s_j(t), radial rate "
           "dr_j/dt.\n");
    return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }
  const char *head[4] = {"name", "title", "s_j(t)", "dr_j/dt"};
  int w[3];
  for (int c = 0; c < 3; c++) w[c] = af_cli_width(head[c]);
  for (int id = 0; id < AF_SCHEME_COUNT; id++) {
    const af_scheme *s = af_scheme_get((af_scheme_id)id);
    const char *cell[3] = {s->name, s->title, s->speed_text};
    for (int c = 0; c < 3; c++)
      if (af_cli_width(cell[c]) > w[c]) w[c] = af_cli_width(cell[c]);
  }
  for (int c = 0; c < 3; c++) {
    af_cli_cell(head[c], w[c] + 2);
  }
  printf("%s\n", head[3]);
  for (int id = 0; id < AF_SCHEME_COUNT; id++) {
    const af_scheme *s = af_scheme_get((af_scheme_id)id);
    af_cli_cell(s->name, w[0] + 2);
    af_cli_cell(s->title, w[1] + 2);
    af_cli_cell(s->speed_text, w[2] + 2);
    printf("%s\n", s->radial_text);
  }
  printf("\nPredecessor models (theorems.md M5), accepted by 'run --scheme':\n"
         "  sa      post-ln with softmax attention (SA)\n"
         "  usa     post-ln with unnormalized softmax attention (USA)\n"
         "  causal  post-ln with causal softmax attention (token k attends "
         "to j <= k)\n");
  return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
}

/* ------------------------------------------------------------ messages */

/* "<prefix><message>\n" on stderr. */
static void af_cli_vmsg(const char *prefix, const char *fmt, va_list ap) {
  /* escaped and cut by af_out_message (output.h) */
  va_list aq;
  va_copy(aq, ap);
  int len = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char *msg = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (msg != NULL) vsnprintf(msg, (size_t)len + 1, fmt, ap);
  if (msg == NULL) {
    fputs(prefix, stderr);
    fputs("out of memory writing a message\n", stderr);
    return;
  }
  af_out_message(stderr, prefix, msg);
  free(msg);
}

void af_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  af_cli_vmsg("attnflow: ", fmt, ap);
  va_end(ap);
}

void af_cli_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  af_cli_vmsg("attnflow: warning: ", fmt, ap);
  va_end(ap);
}

int af_cli_once(const void *item, const void *seen, size_t n, size_t size,
                int (*eq)(const void *, const void *), const char *fmt, ...) {
  const char *p = seen;
  for (size_t i = 0; i < n; i++, p += size)
    if (eq ? eq(p, item) : memcmp(p, item, size) == 0) {
      va_list ap;
      va_start(ap, fmt);
      af_cli_vmsg("attnflow: ", fmt, ap);
      va_end(ap);
      return 0;
    }
  return 1;
}

int af_cli_exit_status(int status) {
  if (status == AF_OK) return AF_EXIT_OK;
  if (status == AF_EINVAL || status == AF_EDIM) return AF_EXIT_USAGE;
  return AF_EXIT_FAIL;
}

/* ------------------------------------------------------------ options */

void af_cli_parser_init(af_cli_parser *p, int argc, char **argv, int first,
                        const char *command) {
  p->argc = argc;
  p->argv = argv;
  p->next = first;
  p->command = command;
}

int af_cli_next(af_cli_parser *p, const af_cli_opt *opts, const char **value) {
  *value = NULL;
  if (p->next >= p->argc) return -1;
  const char *arg = p->argv[p->next++];
  if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
    af_cli_error("%s: unexpected argument '%s' (try 'attnflow %s --help')",
                 p->command, arg, p->command);
    return -2;
  }
  const char *name = arg + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  for (int i = 0; opts[i].name != NULL; i++) {
    if (strlen(opts[i].name) != len || strncmp(opts[i].name, name, len) != 0)
      continue;
    if (!opts[i].takes_value) {
      if (eq) {
        af_cli_error("%s: option --%s takes no value", p->command,
                     opts[i].name);
        return -2;
      }
      return i;
    }
    if (eq) {
      *value = eq + 1;
    } else if (p->next < p->argc) {
      *value = p->argv[p->next++];
    } else {
      af_cli_error("%s: option --%s needs a value", p->command, opts[i].name);
      return -2;
    }
    return i;
  }
  /* The nearest option of the command, if one is near. */
  const char *names[256];
  size_t nn = 0;
  for (int i = 0; opts[i].name != NULL && nn < 256; i++)
    names[nn++] = opts[i].name;
  const char *near = af_cli_nearest(name, len, names, nn);
  af_cli_error("%s: unknown option '--%.*s' (try 'attnflow %s --help')%s%s%s",
               p->command, (int)len, name, p->command,
               near ? "; did you mean '--" : "", near ? near : "",
               near ? "'?" : "");
  return -2;
}

int af_cli_options(af_cli_parser *p, const af_cli_opt *opts, int help,
                   void (*help_fn)(void),
                   int (*take)(int o, const char *value, void *ctx),
                   void *ctx) {
  const char *val;
  int o;
  while ((o = af_cli_next(p, opts, &val)) != -1) {
    if (o == -2) return AF_EXIT_USAGE;
    if (o == help) {
      help_fn();
      return -1;
    }
    int rc = take(o, val, ctx);
    if (rc != AF_EXIT_OK) return rc;
  }
  return AF_EXIT_OK;
}

int af_cli_required(const char *command, const af_cli_opt *opts,
                    const char *const *given, const int *required,
                    size_t nrequired) {
  for (size_t i = 0; i < nrequired; i++)
    if (given[required[i]] == NULL) {
      af_cli_error("%s: missing required option --%s (try 'attnflow %s "
                   "--help')",
                   command, opts[required[i]].name, command);
      return 0;
    }
  return 1;
}

/* ------------------------------------------------------------ numbers */

int af_cli_double(double *v, const char *opt, const char *s) {
  char *end;
  if (*s == '\0' || isspace((unsigned char)*s)) {
    af_cli_error("--%s: '%s' is not a number", opt, s);
    return 0;
  }
  errno = 0;
  double x = strtod(s, &end);
  if (*end != '\0') {
    af_cli_error("--%s: '%s' is not a number", opt, s);
    return 0;
  }
  /* strtod signals overflow by +-HUGE_VAL with ERANGE; an underflow to a
   * subnormal or zero also sets ERANGE but is a faithful reading. */
  if (!isfinite(x)) {
    af_cli_error("--%s: '%s' is not a finite number", opt, s);
    return 0;
  }
  *v = x;
  return 1;
}

int af_cli_ulong(unsigned long *v, const char *opt, const char *s) {
  char *end;
  /* strtoul accepts blanks and a sign (and wraps "-1"): digits only. */
  if (!isdigit((unsigned char)*s)) {
    af_cli_error("--%s: '%s' is not a non-negative integer", opt, s);
    return 0;
  }
  errno = 0;
  unsigned long x = strtoul(s, &end, 10);
  if (*end != '\0') {
    af_cli_error("--%s: '%s' is not a non-negative integer", opt, s);
    return 0;
  }
  if (errno == ERANGE) {
    af_cli_error("--%s: '%s' is too large", opt, s);
    return 0;
  }
  *v = x;
  return 1;
}

int af_cli_size(size_t *v, const char *opt, const char *s) {
  unsigned long x;
  if (!af_cli_ulong(&x, opt, s)) return 0;
  if ((size_t)x != x) {
    af_cli_error("--%s: '%s' is too large", opt, s);
    return 0;
  }
  *v = (size_t)x;
  return 1;
}

int af_cli_double_list(double **v, size_t *k, const char *opt, const char *s) {
  size_t cap = 1;
  for (const char *c = s; *c; c++)
    if (*c == ',') cap++;
  double *a = malloc(cap * sizeof *a);
  char *buf = malloc(strlen(s) + 1);
  if (a == NULL || buf == NULL) {
    free(a);
    free(buf);
    af_cli_error("--%s: %s", opt, af_strerror(AF_ENOMEM));
    return 0;
  }
  strcpy(buf, s);
  size_t m = 0;
  char *item = buf;
  for (;;) {
    char *comma = strchr(item, ',');
    if (comma) *comma = '\0';
    if (!af_cli_double(&a[m], opt, item)) {
      free(a);
      free(buf);
      return 0;
    }
    m++;
    if (!comma) break;
    item = comma + 1;
  }
  free(buf);
  *v = a;
  *k = m;
  return 1;
}
