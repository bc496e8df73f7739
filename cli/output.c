/* output.c -- provenance, CSV and JSON writers of the attnflow command,
 * and the progress line of long runs.  Contracts in output.h. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output.h"

/* ---------------------------------------------------------------- prov */

void af_prov_init(af_prov *p) {
  p->n = 0;
  p->cap = 0;
  p->items = NULL;
}

void af_prov_clear(af_prov *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->items[i].key);
    free(p->items[i].value);
  }
  free(p->items);
  af_prov_init(p);
}

static char *af_out_strdup(const char *s) {
  size_t len = strlen(s) + 1;
  char *c = malloc(len);
  if (c != NULL) memcpy(c, s, len);
  return c;
}

/* Append an entry taking a copy of key and ownership of value. */
static int af_prov_push(af_prov *p, const char *key, char *value,
                        af_prov_kind kind) {
  if (value == NULL) return AF_ENOMEM;
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 32;
    af_prov_item *it = realloc(p->items, cap * sizeof *it);
    if (it == NULL) {
      free(value);
      return AF_ENOMEM;
    }
    p->items = it;
    p->cap = cap;
  }
  char *k = af_out_strdup(key);
  if (k == NULL) {
    free(value);
    return AF_ENOMEM;
  }
  p->items[p->n].key = k;
  p->items[p->n].value = value;
  p->items[p->n].kind = kind;
  p->n++;
  return AF_OK;
}

int af_prov_add_str(af_prov *p, const char *key, const char *value) {
  return af_prov_push(p, key, af_out_strdup(value), AF_PROV_STRING);
}

/* vsnprintf into a fresh buffer. */
static char *af_out_vformat(const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int len = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (len < 0) return NULL;
  char *s = malloc((size_t)len + 1);
  if (s != NULL) vsnprintf(s, (size_t)len + 1, fmt, ap);
  return s;
}

static char *af_out_format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = af_out_vformat(fmt, ap);
  va_end(ap);
  return s;
}

int af_prov_add_fmt(af_prov *p, const char *key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = af_out_vformat(fmt, ap);
  va_end(ap);
  return af_prov_push(p, key, s, AF_PROV_STRING);
}

/* The shortest %.Ng (N = 1..17) that reads back as v: a number typed as
 * 1e-12 or 1.2 is echoed as typed, and still exactly.  Where %.17g would
 * write fixed notation (decimal exponent -4 to 16), N is raised to keep
 * it: 10, not 1e+01. */
int af_out_shortest_prec(double v) {
  char buf[40];
  int prec = 17;
  for (int k = 1; k < 17; k++) {
    snprintf(buf, sizeof buf, "%.*g", k, v);
    if (strtod(buf, NULL) == v) {
      prec = k;
      break;
    }
  }
  snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
  const char *e = strchr(buf, 'e');
  long ex = e ? strtol(e + 1, NULL, 10) : 0;
  if (v != 0 && ex >= -4 && ex < 17 && ex + 1 > prec) prec = (int)ex + 1;
  return prec;
}

int af_prov_add_double(af_prov *p, const char *key, double v) {
  if (isnan(v)) return af_prov_add_str(p, key, "nan");
  if (isinf(v)) return af_prov_add_str(p, key, v > 0 ? "inf" : "-inf");
  return af_prov_push(p, key, af_out_format("%.*g", af_out_shortest_prec(v), v),
                      AF_PROV_NUMBER);
}

int af_prov_add_ulong(af_prov *p, const char *key, unsigned long v) {
  return af_prov_push(p, key, af_out_format("%lu", v), AF_PROV_NUMBER);
}

int af_prov_add_integ(af_prov *p, const af_integ_opts *o, int h_auto) {
  int rc = af_prov_add_str(p, "method", af_method_name(o->method));
  if (rc == AF_OK) rc = af_prov_add_double(p, "h", o->h);
  if (rc == AF_OK && !af_method_fixed(o->method))
    rc = h_auto ? af_prov_add_str(p, "first_step", "auto")
                : af_prov_add_double(p, "first_step", o->h);
  if (rc == AF_OK) rc = af_prov_add_double(p, "rtol", o->rtol);
  if (rc == AF_OK) rc = af_prov_add_double(p, "atol", o->atol);
  if (rc == AF_OK)
    rc = af_prov_add_ulong(p, "max_steps",
                           o->max_steps ? o->max_steps : 10000000UL);
  return rc;
}

int af_prov_add_head(af_prov *p, int argc, char **argv) {
  int rc = af_prov_add_str(p, "attnflow", af_version());
  if (rc == AF_OK) rc = af_prov_add_str(p, "commit", af_commit());
  if (rc == AF_OK)
    rc = af_prov_push(p, "command", af_out_command_line(argc, argv),
                      AF_PROV_STRING);
  return rc;
}

/* ---------------------------------------------------------------- argv */

/* 1 if the argument needs no quoting in a POSIX shell. */
static int af_out_shell_safe(const char *s) {
  if (*s == '\0') return 0;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || strchr("-_./=:,+%@", c) != NULL))
      return 0;
  }
  return 1;
}

char *af_out_command_line(int argc, char **argv) {
  /* Worst case: every byte a quote, written as '\'' (4 bytes), plus two
   * quotes and a separator per argument. */
  size_t len = 1;
  for (int i = 0; i < argc; i++) len += 4 * strlen(argv[i]) + 3;
  char *s = malloc(len), *q = s;
  if (s == NULL) return NULL;
  for (int i = 0; i < argc; i++) {
    if (i > 0) *q++ = ' ';
    if (af_out_shell_safe(argv[i])) {
      size_t l = strlen(argv[i]);
      memcpy(q, argv[i], l);
      q += l;
      continue;
    }
    *q++ = '\'';
    for (const char *a = argv[i]; *a; a++) {
      if (*a == '\'') {
        memcpy(q, "'\\''", 4);
        q += 4;
      } else {
        *q++ = *a;
      }
    }
    *q++ = '\'';
  }
  *q = '\0';
  return s;
}

/* ---------------------------------------------------------------- CSV */

int af_out_provenance_csv(FILE *f, const af_prov *p) {
  for (size_t i = 0; i < p->n; i++) {
    if (fprintf(f, "# %s: ", p->items[i].key) < 0) return AF_EIO;
    for (const char *c = p->items[i].value; *c; c++) {
      unsigned char u = (unsigned char)*c;
      int r = (u < 0x20 || u == 0x7f) ? fprintf(f, "\\x%02X", u) : putc(u, f);
      if (r < 0) return AF_EIO;
    }
    if (putc('\n', f) == EOF) return AF_EIO;
  }
  return AF_OK;
}

int af_out_csv_header(FILE *f, const char *const *names, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (fprintf(f, "%s%s", i ? "," : "", names[i]) < 0) return AF_EIO;
  return putc('\n', f) == EOF ? AF_EIO : AF_OK;
}

int af_out_csv_row(FILE *f, const double *v, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (fprintf(f, "%s%.17g", i ? "," : "", v[i]) < 0) return AF_EIO;
  return putc('\n', f) == EOF ? AF_EIO : AF_OK;
}

/* ---------------------------------------------------------------- JSON */

int af_out_json_string(FILE *f, const char *s) {
  if (putc('"', f) == EOF) return AF_EIO;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    int r;
    switch (c) {
    case '"': r = fputs("\\\"", f); break;
    case '\\': r = fputs("\\\\", f); break;
    case '\n': r = fputs("\\n", f); break;
    case '\r': r = fputs("\\r", f); break;
    case '\t': r = fputs("\\t", f); break;
    case '\b': r = fputs("\\b", f); break;
    case '\f': r = fputs("\\f", f); break;
    default:
      /* Other control characters as \u00XX; bytes >= 0x80 pass through
       * (UTF-8 in, UTF-8 out). */
      r = c < 0x20 ? fprintf(f, "\\u%04x", c) : putc(c, f);
    }
    if (r < 0) return AF_EIO;
  }
  return putc('"', f) == EOF ? AF_EIO : AF_OK;
}

int af_out_json_double(FILE *f, double v) {
  int r = isfinite(v) ? fprintf(f, "%.17g", v) : fputs("null", f);
  return r < 0 ? AF_EIO : AF_OK;
}

int af_out_provenance_jsonl(FILE *f, const af_prov *p) {
  return af_out_object_jsonl(f, "provenance", p);
}

int af_out_object_jsonl(FILE *f, const char *name, const af_prov *p) {
  if (putc('{', f) == EOF || af_out_json_string(f, name) != AF_OK ||
      fputs(": {", f) < 0)
    return AF_EIO;
  for (size_t i = 0; i < p->n; i++) {
    if (i > 0 && fputs(", ", f) < 0) return AF_EIO;
    int rc = af_out_json_string(f, p->items[i].key);
    if (rc != AF_OK) return rc;
    if (fputs(": ", f) < 0) return AF_EIO;
    if (p->items[i].kind == AF_PROV_NUMBER) {
      if (fputs(p->items[i].value, f) < 0) return AF_EIO;
    } else {
      rc = af_out_json_string(f, p->items[i].value);
      if (rc != AF_OK) return rc;
    }
  }
  return fputs("}}\n", f) < 0 ? AF_EIO : AF_OK;
}

int af_out_jsonl_row(FILE *f, const char *const *names, const double *v,
                     size_t k) {
  if (putc('{', f) == EOF) return AF_EIO;
  for (size_t i = 0; i < k; i++) {
    if (i > 0 && fputs(", ", f) < 0) return AF_EIO;
    int rc = af_out_json_string(f, names[i]);
    if (rc == AF_OK && fputs(": ", f) < 0) rc = AF_EIO;
    if (rc == AF_OK) rc = af_out_json_double(f, v[i]);
    if (rc != AF_OK) return rc;
  }
  return fputs("}\n", f) < 0 ? AF_EIO : AF_OK;
}

/* ---------------------------------------------------------------- live */

double af_out_clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double af_out_now(void) { return af_out_clock(CLOCK_MONOTONIC); }

void af_out_progress_init(af_out_progress *p, double t0, double t_end) {
  p->on = isatty(STDERR_FILENO);
  p->lines = 0;
  p->shown = 0;
  p->t0 = t0;
  p->t_end = t_end;
  p->start = p->last = af_out_now();
}

/* Seconds as "12.3 s", "4.5 min", "6.7 h" or "8.9 days". */
static void af_out_duration(char *buf, size_t cap, double s) {
  if (!(s < 1e12))
    snprintf(buf, cap, "over 30000 years");
  else if (s < 120)
    snprintf(buf, cap, "%.1f s", s);
  else if (s < 7200)
    snprintf(buf, cap, "%.1f min", s / 60);
  else if (s < 172800)
    snprintf(buf, cap, "%.1f h", s / 3600);
  else
    snprintf(buf, cap, "%.3g days", s / 86400);
}

void af_out_progress_lines(af_out_progress *p) {
  if (p->on) return; /* a terminal: its line */
  p->on = 1;
  p->lines = 1;
}

void af_out_progress_show(af_out_progress *p, double t, unsigned long steps) {
  if (!p->on) return;
  double now = af_out_now();
  if (now - p->last < (p->lines ? AF_PROGRESS_LINES : AF_PROGRESS_EVERY))
    return;
  p->last = now;
  double span = p->t_end - p->t0, done = t - p->t0, el = now - p->start;
  char e1[48], e2[48] = "unknown";
  af_out_duration(e1, sizeof e1, el);
  if (done > 0 && span >= done) af_out_duration(e2, sizeof e2, el * (span - done) / done);
  fprintf(stderr, "%sattnflow: t = %.6g of %.6g (%.3g%%), %lu steps, %s "
          "elapsed, about %s to go%s",
          p->lines ? "" : "\r\033[K", t, p->t_end,
          span > 0 ? 100 * done / span : 100.0, steps, e1, e2,
          p->lines ? "\n" : "");
  fflush(stderr);
  p->shown = !p->lines; /* a line to erase */
}

void af_out_progress_end(af_out_progress *p) {
  if (p->on && p->shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->shown = 0;
}

void af_out_progress_fn(double t, unsigned long steps, void *ctx) {
  af_out_progress_show(ctx, t, steps);
}

int af_out_streams(const char *out) {
  struct stat st, so;
  if (strcmp(out, "-") == 0) return 1;
  return stat(out, &st) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
         st.st_dev == so.st_dev && st.st_ino == so.st_ino;
}

int af_out_prov_tail(FILE *f, const af_prov *p, size_t from, int jsonl) {
  af_prov tail = {p->n - from, p->n - from, p->items + from};
  if (from > p->n) return AF_EINVAL;
  return jsonl ? af_out_object_jsonl(f, "statistics", &tail)
               : af_out_provenance_csv(f, &tail);
}

/* ---------------------------------------------------------------- messages */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t af_out_utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t k;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) k = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) k = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) k = 4, min = 0x10000;
  else return 0;
  if (k > n) return 0;
  unsigned v = c & (0xFFu >> (k + 1));
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  return k;
}

/* Bytes [s, s + n) escaped: control bytes and invalid UTF-8 as \xHH. */
static void af_out_escaped(FILE *f, const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t k = af_out_utf8_len(s + i, n - i);
    if (k == 0 || (k == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
      fprintf(f, "\\x%02X", s[i]);
      i++;
    } else {
      fwrite(s + i, 1, k, f);
      i += k;
    }
  }
}

void af_out_message(FILE *f, const char *prefix, const char *msg) {
  const unsigned char *s = (const unsigned char *)msg;
  size_t n = strlen(msg);
  fputs(prefix, f);
  if (n <= AF_MSG_HEAD + AF_MSG_TAIL + 64) {
    af_out_escaped(f, s, n);
  } else {
    /* Cut on UTF-8 boundaries (never inside a sequence). */
    size_t a = AF_MSG_HEAD, b = n - AF_MSG_TAIL;
    while (a > 0 && (s[a] & 0xC0) == 0x80) a--;
    while (b < n && (s[b] & 0xC0) == 0x80) b++;
    af_out_escaped(f, s, a);
    fprintf(f, "[... %zu bytes left out ...]", b - a);
    af_out_escaped(f, s + b, n - b);
  }
  fputc('\n', f);
}
