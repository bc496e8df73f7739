/* output.h -- provenance, CSV and JSON writing shared by the subcommands
 * of the attnflow command (run, verify, figure, ...).
 *
 * Every output file of attnflow starts with its provenance: the version
 * and commit of the library, the command line, and every parameter of
 * the run including defaults.  In CSV the provenance is a block of
 * comment lines "# key: value"; in JSON Lines it is the first line,
 * {"provenance": {"key": value, ...}}.  Numbers are written with 17
 * significant digits (%.17g), which round-trips every double.
 *
 * These functions only write to the FILE they are given and return
 * AF_EIO if a write fails (AF_ENOMEM if an allocation fails); they never
 * print diagnostics.  Write through af_write_atomic so that a failed
 * write leaves no partial file.
 */
#ifndef AF_OUTPUT_H
#define AF_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "attnflow.h"

/* One provenance entry; numbers are unquoted in JSON. */
typedef enum { AF_PROV_STRING = 0, AF_PROV_NUMBER } af_prov_kind;

typedef struct {
  char *key;
  char *value;       /* text as written in CSV (and in JSON if a string) */
  af_prov_kind kind; /* AF_PROV_NUMBER: value is a finite number literal */
} af_prov_item;

/* Ordered list of key/value pairs.  Value type: init, add, clear. */
typedef struct {
  size_t n, cap;
  af_prov_item *items;
} af_prov;

void af_prov_init(af_prov *p);
void af_prov_clear(af_prov *p);
/* Append key = value (a copy of the text).  AF_ENOMEM on failure. */
int af_prov_add_str(af_prov *p, const char *key, const char *value);
/* Append key = printf(fmt, ...) as a string. */
int af_prov_add_fmt(af_prov *p, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Append a double as the shortest %g that reads back to it (1e-12 for a
 * typed 1e-12, not 9.9999999999999998e-13); a non-finite value becomes
 * the string "nan"/"inf"/"-inf" (JSON has no literal for it). */
int af_prov_add_double(af_prov *p, const char *key, double v);
/* Digits of that shortest %g of v (1 to 17). */
int af_out_shortest_prec(double v);
/* Append an unsigned integer. */
int af_prov_add_ulong(af_prov *p, const char *key, unsigned long v);
/* Append the double integrator's options: method, h, first_step
 * (adaptive methods: "auto" when h_auto, the starting-step rule, else h),
 * rtol, atol and max_steps (0 there is the library's default of 10^7,
 * attnflow.h). */
int af_prov_add_integ(af_prov *p, const af_integ_opts *o, int h_auto);
/* Append the standard head: attnflow (version), commit, command (argv
 * joined with POSIX shell quoting). */
int af_prov_add_head(af_prov *p, int argc, char **argv);

/* Seconds on the clock id: CLOCK_MONOTONIC for wall time,
 * CLOCK_THREAD_CPUTIME_ID or CLOCK_PROCESS_CPUTIME_ID for CPU time. */
double af_out_clock(clockid_t id);

/* Command line argv[0..argc-1] as one string, each argument quoted for a
 * POSIX shell where needed.  Caller frees.  NULL if out of memory. */
char *af_out_command_line(int argc, char **argv);

/* "# key: value" per entry; control characters in values are written as
 * \xHH so each entry stays one line. */
int af_out_provenance_csv(FILE *f, const af_prov *p);
/* {"provenance": {...}} and a newline. */
int af_out_provenance_jsonl(FILE *f, const af_prov *p);
/* {"name": {...}} and a newline. */
int af_out_object_jsonl(FILE *f, const char *name, const af_prov *p);

/* s as a JSON string literal (with the quotes). */
int af_out_json_string(FILE *f, const char *s);
/* A double as a JSON value: %.17g if finite, else null. */
int af_out_json_double(FILE *f, double v);

/* CSV header "name1,name2,...". */
int af_out_csv_header(FILE *f, const char *const *names, size_t k);
/* CSV row of k doubles, %.17g each. */
int af_out_csv_row(FILE *f, const double *v, size_t k);
/* JSON object {"name1": v1, ...} and a newline. */
int af_out_jsonl_row(FILE *f, const char *const *names, const double *v,
                     size_t k);

/* ------------------------------------------------------------ live */

/* Progress of a long run on standard error, for the double and the MPFR
 * paths alike: one line, rewritten in place ("\r"), with the time
 * reached, the steps, the time elapsed and an estimate of the rest (the
 * remaining span at the rate so far).  Shown only when standard error is
 * a terminal, at most every AF_PROGRESS_EVERY seconds, and only once the
 * run has lasted that long; af_out_progress_end erases it. */
#define AF_PROGRESS_EVERY 0.5
typedef struct {
  int on;                  /* standard error is a terminal, or lines */
  int lines;               /* whole lines, at most one a second (--progress
                              when standard error is not a terminal) */
  int shown;               /* a progress line is on the screen */
  double t0, t_end;        /* span of the run */
  double start, last;      /* monotonic seconds */
} af_out_progress;

void af_out_progress_init(af_out_progress *p, double t0, double t_end);
/* --progress: if standard error is not a terminal, show whole lines
 * ("attnflow: t = ...\n") at most every AF_PROGRESS_LINES seconds
 * instead of nothing; a terminal keeps its redrawn line. */
#define AF_PROGRESS_LINES 1.0
void af_out_progress_lines(af_out_progress *p);
void af_out_progress_show(af_out_progress *p, double t, unsigned long steps);
/* Erase the line (before a message, at the end).  Idempotent. */
void af_out_progress_end(af_out_progress *p);
/* af_integ_opts.progress for the double path: ctx is an af_out_progress. */
void af_out_progress_fn(double t, unsigned long steps, void *ctx);

/* Streaming of rows: an output that goes to standard output (out "-",
 * or the very file standard output writes to, which af_write_atomic
 * writes through) gets its provenance and header before the first row
 * and each row, flushed, as soon as its time is reached; the statistics
 * of the run, known only at its end, follow the last row (CSV: more
 * "# key: value" lines; JSON Lines: a last line {"statistics": {...}}).
 * An output file is still written atomically when the run ends, the
 * statistics in its provenance.  af_out_streams: 1 if out streams. */
int af_out_streams(const char *out);
/* The entries p->items[from..] as that trailer. */
int af_out_prov_tail(FILE *f, const af_prov *p, size_t from, int jsonl);

/* ------------------------------------------------------------ messages */

/* prefix, then msg with its control bytes (ESC, newline, ...) and its
 * invalid UTF-8 written as \xHH, then a newline; a message longer than
 * AF_MSG_HEAD + AF_MSG_TAIL bytes (a huge argument echoed) keeps its
 * head and tail and says how many bytes were left out.  Every message of
 * af_cli_error and af_cli_warn goes through it. */
#define AF_MSG_HEAD 480
#define AF_MSG_TAIL 240
void af_out_message(FILE *f, const char *prefix, const char *msg);

/* ------------------------------------------------------------ targets */

/* Check an output path before any work (what: "--out", "--save-state",
 * ...): refuse a directory, a descriptor of another process and one of
 * ours not open for writing; with regular non-NULL (the reason, e.g. "a
 * sweep keeps its journal beside its output") refuse anything but a
 * regular or a new file.  Prints the error and returns 0; 1 if fine.
 * af_write_atomic then writes a descriptor through itself and a device,
 * FIFO or terminal in place (util.c). */
int af_out_target_check(const char *what, const char *path, const char *regular);

#endif /* AF_OUTPUT_H */
