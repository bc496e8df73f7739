/* cli_run_mp.c -- `attnflow run --precision BITS`: the MPFR path of the
 * run command (attnflow_mp.h).
 *
 * Exact input: every number the user typed that defines the problem --
 * --beta, --alpha, --alpha-decay, --tau, --r0, --times, --t-end and the
 * rows of --init file:PATH and of a --weights file -- is read from its
 * string at BITS bits (af_mp_parse: decimal or hex, rounded once to
 * nearest), the rows are normalized at BITS bits (af_mp_init_read), and
 * the provenance records the strings as typed.  --h is read so too: the
 * boundaries l h of Kaiming weight sets are l times it (mp_integrate.c);
 * as the first step of the controller it is rounded to double (h0).
 * Generated starts (uniform, gaussian, ...) and Kaiming weights are the
 * double path's numbers, exact, as are the sets of a .npy weights file
 * (binary doubles, read by the double path's reader: each set acts for
 * the exact time --h, as Kaiming sets do).
 * af_mp_integrate_x (mp-gauss or mp-gbs) carries the state through the
 * exact output times (the t column is the typed time at BITS bits) and
 * af_mp_observe computes the same observables as the double path, all
 * at BITS bits.  Output: the columns of the double path, printed with
 * --digits significant digits (default 1 + ceil(BITS log10 2), the count
 * that reads back to the same BITS-bit number), or exactly in hex
 * (--format hex, MPFR's %Ra).  The run's own error estimate (the sum of
 * its local error estimates) is in the provenance as err_est, and for
 * mp-gbs the transported estimate of theorems.md N3g as err_global
 * (absent after a resume).
 *
 * Checkpoints (--checkpoint PATH): af_mp_integrate reports its state
 * after every accepted step; at most every --checkpoint-every seconds,
 * and when the run ends or fails, the state is written atomically
 * (af_write_atomic: temporary file, fsync, rename):
 *
 *   # attnflow checkpoint v3
 *   params <the parameters that define the run, one line>
 *   method, order, tol, precision, len, event, status, next_out,
 *   piece_lo, piece_hi, h, steps, rejected, nevals, err_est, t_reached,
 *   ncalls, nobs, columns, ctl_h, ctl_err (one "key value" line each;
 *                     doubles in C99 %a; columns: mp-gbs's rows for the
 *                     next step, new in v2; ctl_h, ctl_err: its step
 *                     control's memory of the last accepted step, new in
 *                     v3)
 *   t <%Ra>
 *   y <%Ra>           (len lines: the state)
 *   row <%Ra> ...     (the output rows already computed)
 *   end
 *   checksum fnv1a64 <16 hex digits: FNV-1a of every byte above>
 *
 * The reader is strict and bounded: lines no longer than the values of
 * the run's precision need, no NUL byte, nothing after the checksum; a
 * checksum that is missing or does not match is an error naming the
 * file.  A checkpoint that cannot be written (a full disk) is reported
 * once and the run goes on, so its output is still written.
 *
 * --resume PATH reads it back exactly and continues: the step sequence
 * depends only on (t, y, h), the piece of the field, and mp-gbs's rows
 * and step control memory (attnflow_mp.h), so the resumed run is
 * bit-identical to the uninterrupted one (rows,
 * statistics and error estimate).  Parameters that differ from the
 * checkpoint's are a usage error naming the first one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_run.h"
#include "internal.h"

#define RND MPFR_RNDN
#define CK_MAGIC "# attnflow checkpoint v3"
#define CK_CHECKSUM "checksum fnv1a64 "

/* Provenance keys that do not change the numbers of a run: they may
 * differ between a checkpoint and the run that resumes it. */
static const char *const af_mp_output_keys[] = {
    "attnflow", "commit", "command", "format", "digits", "out", "save_state",
    "checkpoint", "checkpoint_every", "resumed_from", "max_steps", NULL};

static int af_mp_is_output_key(const char *k) {
  for (const char *const *o = af_mp_output_keys; *o; o++)
    if (strcmp(*o, k) == 0) return 1;
  return 0;
}

/* The parameters that define the numbers of the run, "key=value; ...",
 * one line (control characters as \xHH).  Caller frees. */
static char *af_mp_params_line(const af_prov *p) {
  size_t len = 1;
  for (size_t i = 0; i < p->n; i++)
    len += strlen(p->items[i].key) + 4 * strlen(p->items[i].value) + 3;
  char *s = malloc(len), *q = s;
  if (s == NULL) return NULL;
  *q = '\0';
  for (size_t i = 0; i < p->n; i++) {
    if (af_mp_is_output_key(p->items[i].key)) continue;
    if (q != s) {
      memcpy(q, "; ", 2);
      q += 2;
    }
    q += sprintf(q, "%s=", p->items[i].key);
    for (const char *c = p->items[i].value; *c; c++) {
      unsigned char u = (unsigned char)*c;
      if (u < 0x20 || u == 0x7f)
        q += sprintf(q, "\\x%02X", u);
      else
        *q++ = (char)u;
    }
    *q = '\0';
  }
  return s;
}

/* First "key=value" item where two parameter strings differ, for the
 * message (written into buf). */
static void af_mp_params_diff(char *buf, size_t cap, const char *a,
                              const char *b) {
  while (*a && *b) {
    const char *ea = strstr(a, "; "), *eb = strstr(b, "; ");
    size_t la = ea ? (size_t)(ea - a) : strlen(a);
    size_t lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || memcmp(a, b, la) != 0) {
      snprintf(buf, cap, "checkpoint has '%.*s', this run '%.*s'", (int)la, a,
               (int)lb, b);
      return;
    }
    a += la + (ea ? 2 : 0);
    b += lb + (eb ? 2 : 0);
  }
  snprintf(buf, cap, "checkpoint has '%.60s', this run '%.60s'",
           *a ? a : "(end)", *b ? b : "(end)");
}

static double af_mp_now(void) { return af_out_clock(CLOCK_MONOTONIC); }

/* ------------------------------------------------------------ the run */

typedef struct {
  const af_run_cfg *c;
  const af_model *m;
  af_mp_work *w;       /* the integrator's work                           */
  af_mp_work *wobs;    /* the observables' (keeps nevals the integrator's) */
  mpfr_t *y;
  size_t N;
  mpfr_prec_t prec;
  mpfr_t *itimes;      /* exact integration times (0 prepended if skip)  */
  size_t nitimes, skip;
  mpfr_t *rows;        /* ntimes x nobs                                    */
  mpfr_t *obs;         /* AF_OBS_COUNT scratch                             */
  size_t ncalls;       /* output callbacks so far                          */
  af_mp_opts o;
  af_mp_stats stats;
  af_prov *prov;
  char *params;
  /* Checkpoints. */
  double last_ck;            /* monotonic time of the last one written */
  const af_mp_ckpt *ck;      /* state being written                    */
  mpfr_t *cky;
  const char *fail_path;     /* file that could not be written         */
  int fail_errno;
  int ck_warned;             /* a failed checkpoint was reported       */
  af_out_progress prog;      /* progress line (output.c)               */
  int stream;                /* rows streamed to stdout (output.h)     */
  size_t streamed, nprov;
  int stream_errno;          /* streaming failed: errno + 1            */
  int run_status, ran;
} af_mp_run;

static int af_mp_stream(af_mp_run *x);

static int af_mp_output(mpfr_srcptr t, mpfr_t *y, void *vctx) {
  af_mp_run *x = vctx;
  size_t k = x->ncalls++;
  if (k < x->skip) return AF_OK;
  k -= x->skip;
  if (k >= x->c->ntimes) return AF_EINVAL; /* more calls than times */
  int rc = af_mp_observe(x->obs, t, y, x->c->cluster_cos, x->m, x->wobs);
  if (rc != AF_OK) {
    x->ncalls--; /* this output is still to be made (checkpoints) */
    return rc;
  }
  for (size_t i = 0; i < x->c->nobs; i++)
    mpfr_set(x->rows[k * x->c->nobs + i], x->obs[x->c->obs[i]], RND);
  return x->stream ? af_mp_stream(x) : AF_OK;
}

/* Rows already computed: outputs called minus the prepended t = 0. */
static size_t af_mp_nrows(const af_mp_run *x) {
  return x->ncalls > x->skip ? x->ncalls - x->skip : 0;
}

static const char *const af_mp_event_names[] = {"step", "end", "fail"};

static int af_mp_ck_writer(FILE *f, void *vctx) {
  af_mp_run *x = vctx;
  const af_mp_ckpt *ck = x->ck;
  const af_mp_stats *s = &ck->stats;
  int bad = 0;
  bad |= fprintf(f, "%s\nparams %s\nmethod %s\norder %u\ntol %a\n", CK_MAGIC,
                 x->params, af_mp_method_name(ck->method), ck->order,
                 ck->tol) < 0;
  bad |= fprintf(f, "precision %ld\nlen %zu\nevent %s\nstatus %s\n",
                 (long)ck->prec, ck->len, af_mp_event_names[ck->event],
                 af_status_name(ck->status)) < 0;
  bad |= fprintf(f, "next_out %zu\npiece_lo %a\npiece_hi %a\nh %a\n",
                 ck->next_out, ck->piece_lo, ck->piece_hi, ck->h) < 0;
  bad |= fprintf(f, "steps %lu\nrejected %lu\nnevals %lu\nerr_est %a\n",
                 s->steps, s->rejected, s->nevals, s->err_est) < 0;
  bad |= fprintf(f, "t_reached %a\nncalls %zu\nnobs %zu\ncolumns %u\n",
                 s->t_reached, x->ncalls, x->c->nobs, ck->columns) < 0;
  bad |= fprintf(f, "ctl_h %a\nctl_err %a\n", ck->ctl_h, ck->ctl_err) < 0;
  bad |= mpfr_fprintf(f, "t %Ra\n", ck->t) < 0;
  for (size_t i = 0; i < x->N && !bad; i++)
    bad |= mpfr_fprintf(f, "y %Ra\n", x->cky[i]) < 0;
  size_t nr = af_mp_nrows(x);
  for (size_t k = 0; k < nr && !bad; k++) {
    bad |= fputs("row", f) < 0;
    for (size_t i = 0; i < x->c->nobs && !bad; i++)
      bad |= mpfr_fprintf(f, " %Ra", x->rows[k * x->c->nobs + i]) < 0;
    bad |= putc('\n', f) == EOF;
  }
  bad |= fputs("end\n", f) < 0;
  return bad ? AF_EIO : AF_OK;
}

/* The checkpoint and its checksum line. */
static int af_mp_ck_writer_sum(FILE *f, void *vctx) {
  return af_write_checksummed(f, af_mp_ck_writer, vctx, CK_CHECKSUM);
}

/* af_mp_integrate's checkpoint callback: save at most every
 * --checkpoint-every seconds, and always at the end or a failure. */
static int af_mp_checkpoint(const af_mp_ckpt *ck, mpfr_t *y, void *vctx) {
  af_mp_run *x = vctx;
  af_out_progress_show(&x->prog, ck->stats.t_reached, ck->stats.steps);
  if (x->c->checkpoint == NULL) return AF_OK; /* (called for the progress) */
  double t = af_mp_now();
  if (ck->event == AF_MP_CK_STEP && t - x->last_ck < x->c->checkpoint_every)
    return AF_OK;
  /* The output rows so far belong to the times before next_out. */
  if (x->ncalls != ck->next_out) return AF_EINVAL;
  x->ck = ck;
  x->cky = y;
  errno = 0;
  int rc = af_write_atomic(x->c->checkpoint, af_mp_ck_writer_sum, x);
  x->last_ck = af_mp_now();
  if (rc != AF_OK && ck->event != AF_MP_CK_FAIL) {
    /* (after a failure the run's own error is the one to report) A lost
     * checkpoint must not cost the run: report it, go on. */
    int err = errno;
    af_out_progress_end(&x->prog);
    if (!x->ck_warned || ck->event == AF_MP_CK_END)
      af_cli_warn("cannot write checkpoint '%s': %s%s%s; the run goes on",
                  x->c->checkpoint, af_strerror(rc), err ? ": " : "",
                  err ? strerror(err) : "");
    x->ck_warned = 1;
    return AF_OK;
  }
  return rc;
}

/* ------------------------------------------------------------ resume */

/* The checkpoint reader's line source: bounded lines (max bytes), the
 * running FNV-1a hash of the bytes read, the line number. */
typedef struct {
  FILE *f;
  char *buf;
  size_t cap, max, lno;
  uint64_t h;
} af_mp_rd;

/* Next line into r->buf (newline removed, hashed with it); 0 at EOF, for
 * a last line without its newline (a truncated file), a NUL byte or a
 * line longer than r->max. */
static int af_mp_line(af_mp_rd *r) {
  size_t l;
  int nl;
  int g = af_read_line(&r->buf, &r->cap, &l, &nl, r->max, r->f);
  if (g == AF_LINE_EOF) return 0;
  r->lno++;
  if (g != AF_LINE_OK || !nl) return 0;
  r->h = af_fnv1a64(r->h, r->buf, l);
  r->h = af_fnv1a64(r->h, "\n", 1);
  return 1;
}

/* "key value": the value of the line if it has that key, else NULL. */
static const char *af_mp_key(const char *line, const char *key) {
  size_t l = strlen(key);
  if (strncmp(line, key, l) != 0 || line[l] != ' ') return NULL;
  return line + l + 1;
}

static int af_mp_parse_ulong(unsigned long *v, const char *s) {
  char *end;
  if (s == NULL || !(*s >= '0' && *s <= '9')) return 0;
  errno = 0;
  *v = strtoul(s, &end, 10);
  return *end == '\0' && errno == 0;
}

static int af_mp_parse_double(double *v, const char *s) {
  char *end;
  if (s == NULL || *s == '\0') return 0;
  *v = strtod(s, &end);
  return *end == '\0' && isfinite(*v);
}

/* One exact MPFR value at the start of s; *end after it. */
static int af_mp_parse_mpfr(mpfr_ptr r, const char *s, const char **end) {
  char *e;
  if (s == NULL || *s == '\0' || *s == ' ') return 0;
  int inex = mpfr_strtofr(r, s, &e, 0, RND);
  if (e == s || inex != 0 || !mpfr_number_p(r)) return 0;
  *end = e;
  return 1;
}

/* Read the checkpoint file into ck (ck->t preallocated at the run's
 * precision), x->y, x->rows and x->ncalls.  AF_EPARSE with *line for a
 * malformed file, AF_EINVAL with msg for one of another run. */
static int af_mp_ck_read(af_mp_ckpt *ck, af_mp_run *x, FILE *f, size_t *line,
                         char *msg, size_t msgcap) {
  static const char *const keys[] = {
      "params", "method", "order", "tol", "precision", "len", "event",
      "status", "next_out", "piece_lo", "piece_hi", "h", "steps",
      "rejected", "nevals", "err_est", "t_reached", "ncalls", "nobs",
      "columns", "ctl_h", "ctl_err"};
  enum { NK = sizeof keys / sizeof keys[0] };
  /* Longest valid line: a row of nobs values of prec bits (%Ra: about
   * prec/4 hex digits and an exponent each), or the parameters. */
  af_mp_rd r = {f, NULL, 0, 0, 0, AF_FNV1A64_INIT};
  size_t per = (size_t)x->prec / 4 + 64, max;
  if (!af_size_mul(&max, x->c->nobs + 1, per) ||
      !af_size_add(&max, max, strlen(x->params) + 4096))
    return AF_ENOMEM;
  r.max = max;
  int rc = AF_EPARSE;
  const char *v;
  unsigned long u;
  uint64_t want, sum;
  int params_differ = 0, bad_sum = 0;
  *line = 0;
  msg[0] = '\0';
  if (!af_mp_line(&r) || strcmp(r.buf, CK_MAGIC) != 0) goto bad;
  /* The keys that are plain numbers, read into their fields. */
  double *const dv[NK] = {[3] = &ck->tol, [9] = &ck->piece_lo,
                          [10] = &ck->piece_hi, [11] = &ck->h,
                          [15] = &ck->stats.err_est,
                          [16] = &ck->stats.t_reached, [20] = &ck->ctl_h,
                          [21] = &ck->ctl_err};
  unsigned long *const uv[NK] = {[12] = &ck->stats.steps,
                                 [13] = &ck->stats.rejected,
                                 [14] = &ck->stats.nevals};
  for (int k = 0; k < NK; k++) {
    if (!af_mp_line(&r) || (v = af_mp_key(r.buf, keys[k])) == NULL)
      goto bad;
    if (dv[k] != NULL || uv[k] != NULL) {
      if (dv[k] != NULL ? !af_mp_parse_double(dv[k], v)
                        : !af_mp_parse_ulong(uv[k], v))
        goto bad;
      continue;
    }
    switch (k) {
    case 0:
      if (strcmp(v, x->params) != 0) { /* reported once the file is read */
        af_mp_params_diff(msg, msgcap, v, x->params);
        params_differ = 1;
      }
      break;
    case 1: {
      af_mp_method mm;
      if (af_mp_method_lookup(&mm, v) != AF_OK) goto bad;
      ck->method = mm;
      break;
    }
    case 2:
      if (!af_mp_parse_ulong(&u, v) || u > 1000) goto bad;
      ck->order = (unsigned)u;
      break;
    case 4:
      if (!af_mp_parse_ulong(&u, v)) goto bad;
      ck->prec = (mpfr_prec_t)u;
      break;
    case 5:
      if (!af_mp_parse_ulong(&u, v) || u != x->N) goto bad;
      ck->len = (size_t)u;
      break;
    case 6: {
      int e;
      for (e = 0; e < 3; e++)
        if (strcmp(v, af_mp_event_names[e]) == 0) break;
      if (e == 3) goto bad;
      ck->event = (af_mp_ck_event)e;
      break;
    }
    case 7: {
      int st;
      for (st = 0; st < AF_STATUS_COUNT; st++)
        if (strcmp(v, af_status_name(st)) == 0) break;
      if (st == AF_STATUS_COUNT) goto bad;
      ck->status = st;
      break;
    }
    case 8:
      if (!af_mp_parse_ulong(&u, v) || u > x->nitimes) goto bad;
      ck->next_out = (size_t)u;
      break;
    case 17:
      if (!af_mp_parse_ulong(&u, v) || u != ck->next_out) goto bad;
      x->ncalls = (size_t)u;
      break;
    case 18:
      if (!af_mp_parse_ulong(&u, v) || u != x->c->nobs) goto bad;
      break;
    case 19: /* checked against the run by af_mp_integrate */
      if (!af_mp_parse_ulong(&u, v) || u > AF_MP_GAUSS_MAX) goto bad;
      ck->columns = (unsigned)u;
      break;
    }
  }
  const char *e;
  if (!af_mp_line(&r) || (v = af_mp_key(r.buf, "t")) == NULL ||
      !af_mp_parse_mpfr(ck->t, v, &e) || *e != '\0')
    goto bad;
  for (size_t i = 0; i < x->N; i++)
    if (!af_mp_line(&r) || (v = af_mp_key(r.buf, "y")) == NULL ||
        !af_mp_parse_mpfr(x->y[i], v, &e) || *e != '\0')
      goto bad;
  size_t nr = af_mp_nrows(x), nobs = x->c->nobs;
  for (size_t k = 0; k < nr; k++) {
    if (!af_mp_line(&r) || (v = af_mp_key(r.buf, "row")) == NULL)
      goto bad;
    for (size_t i = 0; i < nobs; i++) {
      if (!af_mp_parse_mpfr(x->rows[k * nobs + i], v, &e)) goto bad;
      if (*e != (i + 1 < nobs ? ' ' : '\0')) goto bad;
      v = e + 1;
    }
  }
  if (!af_mp_line(&r) || strcmp(r.buf, "end") != 0) goto bad;
  /* The checksum of every byte above, then nothing. */
  sum = r.h;
  if (!af_mp_line(&r) || af_checksum_line(&want, r.buf, CK_CHECKSUM) != 1) {
    snprintf(msg, msgcap, "no checksum line after 'end'");
    bad_sum = 1;
    goto bad;
  }
  if (want != sum) {
    snprintf(msg, msgcap, "checksum mismatch: the file was changed or "
             "damaged");
    bad_sum = 1;
    goto bad;
  }
  size_t before = r.lno;
  if (af_mp_line(&r) || r.lno != before) goto bad; /* nothing after it */
  if (ferror(f)) {
    rc = AF_EIO;
    r.lno = 0;
    goto bad;
  }
  free(r.buf);
  if (params_differ) return AF_EINVAL; /* intact, but of another run */
  return AF_OK;
bad:
  if (params_differ && !bad_sum && rc == AF_EPARSE) {
    rc = AF_EINVAL; /* another run's checkpoint: its fields do not fit */
  } else {
    if (!bad_sum) msg[0] = '\0';
    if (rc == AF_EPARSE) *line = ferror(f) ? 0 : (r.lno ? r.lno : 1);
    if (rc == AF_EPARSE && ferror(f)) rc = AF_EIO;
  }
  free(r.buf);
  return rc;
}

/* Plausibility after integrity: a checkpoint whose checksum is right may
 * still hold a state no run of these parameters reaches (written by hand,
 * or by a program with the checksum recomputed).  Checked before any
 * step: the time, the estimate and the step finite and in range, every
 * radius positive and within the double range, and every direction of
 * the norm it had at the start (off0[j] = |theta_j| - 1 there: a start
 * generated in doubles is on the sphere to double rounding only) within
 * dev, the drift the run itself allows: 100 times its error estimate
 * plus its tolerance (relative to max(1, |y|_inf), the integrator's
 * norm), plus 2^(20 - prec) of rounding.  The integrators never
 * renormalize (attnflow.h): |theta_j| is a first integral, its change is
 * integration error, which the estimate bounds; the factor 100 is the
 * headroom of an estimate over the true error.  1 if plausible; else msg
 * says why. */
static double af_mp_dir_off(const af_mp_run *x, size_t j) {
  size_t d = x->m->d;
  mpfr_t s, q;
  mpfr_inits2(x->prec, s, q, (mpfr_ptr)0);
  mpfr_set_zero(s, 1);
  for (size_t i = 0; i < d; i++) {
    mpfr_sqr(q, x->y[j * d + i], RND);
    mpfr_add(s, s, q, RND);
  }
  mpfr_sqrt(s, s, RND);
  mpfr_sub_ui(s, s, 1, RND);
  double off = mpfr_get_d(s, RND);
  mpfr_clears(s, q, (mpfr_ptr)0);
  return off;
}

static int af_mp_ck_plausible(const af_mp_ckpt *ck, const af_mp_run *x,
                              const double *off0, char *msg, size_t cap) {
  size_t n = x->m->n, d = x->m->d;
  mpfr_srcptr tend = x->itimes[x->nitimes - 1];
  if (!(ck->stats.err_est >= 0)) {
    snprintf(msg, cap, "error estimate %g is negative", ck->stats.err_est);
    return 0;
  }
  if (!(ck->h > 0)) {
    snprintf(msg, cap, "next step %g is not positive", ck->h);
    return 0;
  }
  if (mpfr_sgn(ck->t) < 0 || mpfr_cmp(ck->t, tend) > 0 ||
      !(ck->stats.t_reached >= 0) ||
      !(ck->stats.t_reached <= mpfr_get_d(tend, MPFR_RNDU)) ||
      !(ck->piece_lo >= 0 && ck->piece_lo <= ck->piece_hi)) {
    mpfr_snprintf(msg, cap, "time %.6Rg is outside the run [0, %.6Rg]", ck->t,
                  tend);
    return 0;
  }
  double ymax = 1;
  for (size_t i = 0; i < x->N; i++) {
    double v = fabs(mpfr_get_d(x->y[i], MPFR_RNDA));
    if (!(v <= DBL_MAX)) {
      snprintf(msg, cap, "state component %zu is beyond the double range", i);
      return 0;
    }
    if (v > ymax) ymax = v;
  }
  double dev = 100 * ymax * (ck->stats.err_est + ck->tol) +
               ldexp(1.0, 20 - (int)x->prec);
  for (size_t j = 0; j < n; j++) {
    double r = mpfr_get_d(x->y[n * d + j], MPFR_RNDN);
    if (!(r > 0)) {
      snprintf(msg, cap, "token %zu has radius %g (not positive)", j + 1, r);
      return 0;
    }
  }
  for (size_t j = 0; j < n; j++) {
    double off = af_mp_dir_off(x, j);
    if (!(fabs(off - off0[j]) <= dev)) {
      snprintf(msg, cap, "token %zu's direction has norm 1 %+.3g, off the "
               "unit sphere (the run keeps it within %.3g of its start's "
               "1 %+.3g)", j + 1, off, dev, off0[j]);
      return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------ output */

static int af_mp_integrate_run(af_mp_run *x) {
  x->ran = 1;
  int rc = af_mp_integrate_x(x->y, x->itimes, x->nitimes, x->m, &x->o, x->w,
                             af_mp_output, x, &x->stats);
  if (rc == AF_OK && x->ncalls != x->nitimes) rc = AF_EINVAL;
  x->run_status = rc;
  return rc;
}

/* --save-state: the final state as an exact reference file. */
static int af_mp_save_cb(FILE *f, void *vctx) {
  af_mp_run *x = vctx;
  int rc = af_mp_integrate_run(x);
  if (rc != AF_OK) return rc;
  af_mp_ref_info info = {"attnflow run",
                         af_commit(),
                         af_mp_method_name(x->o.method),
                         x->params,
                         x->c->seed,
                         x->o.tol,
                         x->stats.err_est};
  return af_mp_ref_write(f, &info, x->itimes[x->nitimes - 1], x->y, x->N);
}

/* One value: decimal with digits significant digits, or exact hex. */
static int af_mp_value(FILE *f, const af_run_cfg *c, mpfr_srcptr v) {
  int r;
  if (!mpfr_number_p(v))
    r = fputs(c->format == AF_FMT_JSONL ? "null" : mpfr_nan_p(v) ? "nan"
              : mpfr_sgn(v) > 0 ? "inf" : "-inf", f);
  else if (c->format == AF_FMT_HEX)
    r = mpfr_fprintf(f, "%Ra", v);
  else
    r = mpfr_fprintf(f, "%.*Rg", (int)c->digits, v);
  return r < 0 ? AF_EIO : AF_OK;
}

/* The t column in decimal: the shortest decimal (at most digits
 * significant digits) that reads back to the same BITS-bit time, so a
 * typed 0.1 prints as 0.1 (the time is the BITS-bit number nearest
 * 1/10, which is what 0.1 reads back to).  Written in the notation the
 * double path's %.17g chooses (fixed for decimal exponents -4 to 16), so
 * t = 10 is "10" on both paths, not "1e+01". */
static int af_mp_time(FILE *f, const af_run_cfg *c, mpfr_srcptr v) {
  if (c->format == AF_FMT_HEX || !mpfr_number_p(v)) return af_mp_value(f, c, v);
  mpfr_t back;
  mpfr_init2(back, mpfr_get_prec(v));
  char *s = NULL;
  int dg;
  for (dg = 1; dg <= (int)c->digits; dg++) {
    if (s) mpfr_free_str(s);
    s = NULL;
    if (mpfr_asprintf(&s, "%.*Rg", dg, v) < 0) break;
    mpfr_strtofr(back, s, NULL, 10, RND);
    if (mpfr_equal_p(back, v)) break;
  }
  mpfr_clear(back);
  char *e = NULL;
  if (s && !mpfr_zero_p(v) && dg <= (int)c->digits &&
      mpfr_asprintf(&e, "%.*Re", dg - 1, v) >= 0) {
    const char *x = strchr(e, 'e');
    long ex = x ? strtol(x + 1, NULL, 10) : 0;
    if (ex >= -4 && ex < 17 && ex + 1 > dg) { /* %g would use an exponent */
      mpfr_free_str(s);
      s = NULL;
      if (mpfr_asprintf(&s, "%.*Rg", (int)ex + 1, v) < 0) s = NULL;
    }
  }
  if (e) mpfr_free_str(e);
  int r = s ? fputs(s, f) : EOF;
  if (s) mpfr_free_str(s);
  return r < 0 ? AF_EIO : AF_OK;
}

/* Provenance (and the CSV header) of the output. */
static int af_mp_write_head(FILE *f, const af_mp_run *x) {
  const af_run_cfg *c = x->c;
  if (c->format == AF_FMT_JSONL) return af_out_provenance_jsonl(f, x->prov);
  int rc = af_out_provenance_csv(f, x->prov);
  return rc == AF_OK ? af_out_csv_header(f, c->obs_names, c->nobs) : rc;
}

/* Output row k. */
static int af_mp_write_row(FILE *f, const af_mp_run *x, size_t k) {
  const af_run_cfg *c = x->c;
  size_t nobs = c->nobs;
  int rc = AF_OK, jsonl = c->format == AF_FMT_JSONL;
  if (jsonl && putc('{', f) == EOF) rc = AF_EIO;
  for (size_t i = 0; i < nobs && rc == AF_OK; i++) {
    if (i > 0 && fputs(jsonl ? ", " : ",", f) < 0) rc = AF_EIO;
    if (rc == AF_OK && jsonl) {
      rc = af_out_json_string(f, c->obs_names[i]);
      if (rc == AF_OK && fputs(": ", f) < 0) rc = AF_EIO;
    }
    if (rc == AF_OK)
      rc = (c->obs[i] == AF_OBS_t ? af_mp_time : af_mp_value)(
          f, c, x->rows[k * nobs + i]);
  }
  if (rc == AF_OK && fputs(jsonl ? "}\n" : "\n", f) < 0) rc = AF_EIO;
  return rc;
}

/* Stream the rows computed so far (after a resume: those of the
 * checkpoint too), the head first. */
static int af_mp_stream(af_mp_run *x) {
  int rc = AF_OK;
  af_out_progress_end(&x->prog); /* (one screen: the rows, then progress) */
  if (x->streamed == 0) rc = af_mp_write_head(stdout, x);
  for (size_t n = af_mp_nrows(x); x->streamed < n && rc == AF_OK; x->streamed++)
    rc = af_mp_write_row(stdout, x, x->streamed);
  if (rc == AF_OK && fflush(stdout) != 0) rc = AF_EIO;
  if (rc == AF_EIO) x->stream_errno = errno + 1;
  return rc;
}

static int af_mp_out_cb(FILE *f, void *vctx) {
  af_mp_run *x = vctx;
  const af_run_cfg *c = x->c;
  int rc;
  if (c->save_state) {
    errno = 0;
    rc = af_write_atomic(c->save_state, af_mp_save_cb, x);
    if (rc != AF_OK && !(x->ran && x->run_status != AF_OK) && !x->fail_path) {
      x->fail_path = c->save_state;
      x->fail_errno = errno;
    }
  } else {
    rc = af_mp_integrate_run(x);
  }
  if (rc != AF_OK) return rc;

  /* Statistics of the run, its own error estimate among them. */
  const af_mp_stats *s = &x->stats;
  rc = af_prov_add_ulong(x->prov, "order", s->order);
  if (rc == AF_OK) rc = af_prov_add_ulong(x->prov, "steps", s->steps);
  if (rc == AF_OK) rc = af_prov_add_ulong(x->prov, "rejected", s->rejected);
  if (rc == AF_OK) rc = af_prov_add_ulong(x->prov, "nevals", s->nevals);
  if (rc == AF_OK) rc = af_prov_add_double(x->prov, "err_est", s->err_est);
  /* The transported estimate (theorems.md N3g), where there is one. */
  if (rc == AF_OK && isfinite(s->err_global))
    rc = af_prov_add_double(x->prov, "err_global", s->err_global);
  if (rc != AF_OK) return rc;
  if (x->stream) { /* the rows are out (all, after a resume from the end):
                     the statistics follow them */
    rc = af_mp_stream(x);
    return rc == AF_OK ? af_out_prov_tail(f, x->prov, x->nprov,
                                          c->format == AF_FMT_JSONL)
                       : rc;
  }
  rc = af_mp_write_head(f, x);
  for (size_t k = 0; k < c->ntimes && rc == AF_OK; k++)
    rc = af_mp_write_row(f, x, k);
  return rc;
}

/* ------------------------------------------------------------ input */

/* 1 if s is a JSON number literal (else the provenance quotes it). */
static int af_mp_json_number(const char *s) {
  if (*s == '-') s++;
  if (*s == '0')
    s++;
  else if (*s >= '1' && *s <= '9')
    while (*s >= '0' && *s <= '9') s++;
  else
    return 0;
  if (*s == '.') {
    if (!(*++s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

/* Replace the provenance value of key by the string typed. */
static int af_mp_prov_typed(af_prov *p, const char *key, const char *typed) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->items[i].key, key) == 0) {
      char *v = strdup(typed);
      if (v == NULL) return AF_ENOMEM;
      free(p->items[i].value);
      p->items[i].value = v;
      p->items[i].kind = af_mp_json_number(v) ? AF_PROV_NUMBER : AF_PROV_STRING;
      return AF_OK;
    }
  return AF_EINVAL;
}

/* The parameters of the field as typed, at the run's precision, checked
 * against their bounds exactly (the double path checked the rounded
 * values); provenance as typed.  Prints its errors; an exit status. */
static int af_mp_read_params(af_mp_params *par, const af_run_cfg *c,
                             af_prov *prov) {
  static const struct {
    int opt;
    const char *name, *key;
    int positive; /* > 0, else >= 0 */
  } items[] = {{O_BETA, "beta", "beta", 0},
               {O_ALPHA, "alpha", "alpha", 1},
               {O_ALPHA_DECAY, "alpha-decay", "alpha_decay", 0},
               {O_TAU, "tau", "tau", 0},
               {O_R0, "r0", "r0", 1},
               {O_H, "h", "h", 1}};
  mpfr_ptr fields[] = {par->beta, par->alpha, par->alpha_decay, par->tau,
                       par->r0, par->layer_dt};
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
    const char *s = c->arg[items[i].opt];
    if (s == NULL) continue; /* the default, exact */
    const char *name = items[i].name;
    int rc = af_mp_parse(fields[i], s);
    if (rc != AF_OK) {
      af_cli_error("--%s '%s': not a number at %lu bits (%s)", name, s,
                   c->precision, af_strerror(rc));
      return AF_EXIT_USAGE;
    }
    int sg = mpfr_sgn(fields[i]);
    if (sg < 0 || (items[i].positive && sg == 0)) {
      af_cli_error("--%s must be %s 0 (got %s)", name,
                   items[i].positive ? ">" : ">=", s);
      return AF_EXIT_USAGE;
    }
    rc = af_mp_prov_typed(prov, items[i].key, s);
    if (rc != AF_OK) {
      af_cli_error("%s", af_strerror(rc));
      return AF_EXIT_FAIL;
    }
  }
  return AF_EXIT_OK;
}

/* The output times as typed, at the run's precision, with t = 0
 * prepended when the first is positive: *xt (*nxt numbers, the first
 * *skip not requested; c->ntimes + 1 allocated).  Prints its errors; an exit status. */
static int af_mp_read_times(mpfr_t **xt, size_t *nxt, size_t *skip,
                            const af_run_cfg *c, af_prov *prov) {
  const char *list = c->arg[O_TIMES], *tend = c->arg[O_T_END];
  mpfr_prec_t prec = (mpfr_prec_t)c->precision;
  mpfr_t *v = af_mp_vec_alloc(c->ntimes + 1, prec);
  char *buf = strdup(list ? list : tend ? tend : "10");
  int ex = AF_EXIT_USAGE, rc;
  if (v == NULL || buf == NULL) {
    af_cli_error("%s", af_strerror(AF_ENOMEM));
    ex = AF_EXIT_FAIL;
    goto done;
  }
  /* v[1..ntimes]: the requested times; v[0] = 0. */
  if (list == NULL) {
    rc = af_mp_parse(v[2], buf); /* times 0, t_end */
    if (rc != AF_OK || mpfr_sgn(v[2]) < 0) {
      af_cli_error("--t-end '%s': not a number >= 0 at %lu bits", buf,
                   c->precision);
      goto done;
    }
  } else {
    size_t k = 0;
    for (char *item = buf;; k++) {
      char *comma = strchr(item, ',');
      if (comma) *comma = '\0';
      if (k >= c->ntimes || af_mp_parse(v[k + 1], item) != AF_OK) {
        af_cli_error("--times: '%s' is not a number at %lu bits", item,
                     c->precision);
        goto done;
      }
      if (mpfr_sgn(v[k + 1]) < 0) {
        af_cli_error("--times: negative time %s", item);
        goto done;
      }
      if (k > 0 && mpfr_cmp(v[k + 1], v[k]) < 0) {
        af_cli_error("--times must be non-decreasing (%s after a larger time "
                     "at %lu bits)",
                     item, c->precision);
        goto done;
      }
      if (!comma) break;
      item = comma + 1;
    }
    if (k + 1 != c->ntimes) {
      af_cli_error("--times: %zu times, expected %zu", k + 1, c->ntimes);
      goto done;
    }
    if (tend) {
      mpfr_t te;
      mpfr_init2(te, prec);
      rc = af_mp_parse(te, tend);
      int same = rc == AF_OK && mpfr_equal_p(te, v[c->ntimes]);
      mpfr_clear(te);
      if (!same) {
        af_cli_error("--t-end %s disagrees with the last of --times at %lu "
                     "bits",
                     tend, c->precision);
        goto done;
      }
    }
  }
  /* Provenance: the list and the end as typed. */
  const char *last = list ? strrchr(list, ',') : NULL;
  last = last ? last + 1 : list ? list : tend;
  rc = AF_OK;
  if (last) rc = af_mp_prov_typed(prov, "t_end", last);
  if (rc == AF_OK && list) rc = af_mp_prov_typed(prov, "times", list);
  if (rc == AF_OK && !list && tend) {
    size_t l = strlen(tend) + 3;
    char *t = malloc(l);
    if (t == NULL) {
      rc = AF_ENOMEM;
    } else {
      snprintf(t, l, "0,%s", tend);
      rc = af_mp_prov_typed(prov, "times", t);
      free(t);
    }
  }
  if (rc != AF_OK) {
    af_cli_error("%s", af_strerror(rc));
    ex = AF_EXIT_FAIL;
    goto done;
  }
  /* v[0] = 0 prepended unless the first requested time is 0. */
  if (list == NULL) mpfr_set_zero(v[1], 1);
  *skip = mpfr_sgn(v[1]) > 0 ? 1 : 0;
  if (*skip == 0) /* v[0..ntimes-1] the requested times, v[ntimes] spare */
    for (size_t k = 0; k < c->ntimes; k++) mpfr_swap(v[k], v[k + 1]);
  *xt = v;
  *nxt = c->ntimes + *skip;
  v = NULL;
  ex = AF_EXIT_OK;
done:
  af_mp_vec_free(v, c->ntimes + 1);
  free(buf);
  return ex;
}

int af_run_mp(const af_run_cfg *c, const af_model *m, const double *y0,
              af_prov *prov) {
  af_mp_run x;
  memset(&x, 0, sizeof x);
  x.c = c;
  x.m = m;
  x.prec = (mpfr_prec_t)c->precision;
  x.N = af_state_size(c->n, c->d);
  x.prov = prov;
  x.o = c->mp;
  x.run_status = AF_OK;
  int ex = AF_EXIT_FAIL, rc;
  size_t nrows = c->ntimes * c->nobs;
  mpfr_t ckt;
  mpfr_init2(ckt, x.prec);
  af_mp_ckpt ck;
  memset(&ck, 0, sizeof ck);
  af_mp_params par;
  int par_set = af_mp_params_init(&par, m, x.prec) == AF_OK;
  x.w = af_mp_work_alloc(c->n, c->d, x.prec);
  x.wobs = af_mp_work_alloc(c->n, c->d, x.prec);
  x.y = af_mp_vec_alloc(x.N, x.prec);
  x.rows = af_mp_vec_alloc(nrows, x.prec);
  x.obs = af_mp_vec_alloc(AF_OBS_COUNT, x.prec);
  if (!x.w || !x.wobs || !x.y || !x.rows || !x.obs || !par_set) {
    af_cli_error("%s", af_strerror(AF_ENOMEM));
    goto done;
  }
  /* The numbers as typed (provenance too, before the checkpoint's
   * parameter line is made from it). */
  ex = af_mp_read_params(&par, c, prov);
  if (ex == AF_EXIT_OK)
    ex = af_mp_read_times(&x.itimes, &x.nitimes, &x.skip, c, prov);
  if (ex != AF_EXIT_OK) goto done;
  ex = AF_EXIT_FAIL;
  x.params = af_mp_params_line(prov);
  if (!x.params) {
    af_cli_error("%s", af_strerror(AF_ENOMEM));
    goto done;
  }
  /* Kaiming sets and the sets of a binary file (.npy, .npz, safetensors):
   * doubles (the double path's numbers, each exact in MPFR, used by the
   * kernel as they are); their time h is the typed --h when given, else
   * the default h, exact. */
  int binw = m->w != NULL && !m->w->kaiming
             && af_cli_is_binary_weights(c->weights);
  if (m->w != NULL && (m->w->kaiming || binw) && mpfr_nan_p(par.layer_dt))
    mpfr_set_d(par.layer_dt, m->w->layer_dt, RND);
  if (m->w != NULL && !m->w->kaiming && !binw) {
    /* A weights file: its Q, K, V as typed, at the working precision. */
    size_t line = 0;
    errno = 0;
    rc = af_mp_weights_read(&par, &line, c->weights, c->d, x.prec);
    if (rc != AF_OK) {
      if (line > 0)
        af_cli_error("--weights %s:%zu: %s (expected %zu rows of %zu numbers)",
                     c->weights, line, af_strerror(rc), 3 * c->d, c->d);
      else
        af_cli_error("--weights %s: %s (%s)", c->weights, af_strerror(rc),
                     strerror(errno));
      goto done;
    }
  }
  af_mp_work_set_params(x.w, &par);
  af_mp_work_set_params(x.wobs, &par);
  if (strncmp(c->init, "file:", 5) == 0) {
    /* The rows as typed, normalized at the working precision. */
    size_t line = 0;
    errno = 0;
    rc = af_mp_init_read(x.y, &line, c->init + 5, c->n, c->d);
    if (rc != AF_OK) {
      if (line > 0)
        af_cli_error("--init %s:%zu: %s (expected %zu rows of %zu numbers)",
                     c->init + 5, line, af_strerror(rc), c->n, c->d);
      else
        af_cli_error("--init %s: %s (%s)", c->init + 5, af_strerror(rc),
                     strerror(errno));
      goto done;
    }
  } else {
    af_mp_vec_set_d(x.y, y0, x.N); /* a generated start: its doubles */
  }
  if (!mpfr_nan_p(par.r0))
    for (size_t j = 0; j < c->n; j++)
      mpfr_set(x.y[c->n * c->d + j], par.r0, RND);

  if (c->resume) {
    FILE *f;
    if (af_open_regular(&f, c->resume) != AF_OK) {
      af_cli_error("--resume %s: %s (%s)", c->resume, af_strerror(AF_EIO),
                   strerror(errno));
      goto done;
    }
    char msg[512];
    size_t line = 0;
    /* The start's directions, for af_mp_ck_plausible. */
    double *off0 = malloc(c->n * sizeof *off0);
    if (off0 == NULL) {
      fclose(f);
      af_cli_error("--resume %s: %s", c->resume, af_strerror(AF_ENOMEM));
      goto done;
    }
    for (size_t j = 0; j < c->n; j++) off0[j] = af_mp_dir_off(&x, j);
    ck.t = ckt;
    rc = af_mp_ck_read(&ck, &x, f, &line, msg, sizeof msg);
    fclose(f);
    int plausible = rc != AF_OK || af_mp_ck_plausible(&ck, &x, off0, msg,
                                                       sizeof msg);
    free(off0);
    if (rc == AF_EINVAL) {
      af_cli_error("--resume %s: parameters differ from this run: %s",
                   c->resume, msg);
      ex = AF_EXIT_USAGE;
      goto done;
    }
    if (rc != AF_OK) {
      if (line > 0)
        af_cli_error("--resume %s:%zu: %s%s%s", c->resume, line,
                     af_strerror(rc), msg[0] ? ": " : "", msg);
      else
        af_cli_error("--resume %s: %s", c->resume, af_strerror(rc));
      goto done;
    }
    if (!plausible) {
      af_cli_error("--resume %s: implausible checkpoint: %s", c->resume, msg);
      goto done;
    }
    x.o.resume = &ck;
  }
  af_out_progress_init(&x.prog, mpfr_get_d(x.itimes[0], RND),
                       mpfr_get_d(x.itimes[x.nitimes - 1], RND));
  if (c->progress) af_out_progress_lines(&x.prog);
  x.stream = af_out_streams(c->out);
  x.nprov = prov->n;
  if (c->checkpoint || x.prog.on) {
    x.o.checkpoint = af_mp_checkpoint;
    x.o.checkpoint_ctx = &x;
    x.last_ck = af_mp_now();
  }

  errno = 0;
  rc = af_write_atomic(c->out, af_mp_out_cb, &x);
  int err = errno;
  af_out_progress_end(&x.prog);
  if (rc == AF_OK) {
    ex = AF_EXIT_OK;
  } else if (x.stream_errno) { /* standard output failed, not the run */
    af_cli_error("cannot write %s: %s (%s)",
                 strcmp(c->out, "-") ? c->out : "standard output",
                 af_strerror(AF_EIO), strerror(x.stream_errno - 1));
  } else if (x.fail_path && !(x.ran && x.run_status != AF_OK &&
                              x.fail_path != c->checkpoint)) {
    if (x.fail_errno != 0)
      af_cli_error("cannot write '%s': %s", x.fail_path,
                   strerror(x.fail_errno));
    else
      af_cli_error("cannot write '%s': %s", x.fail_path, af_strerror(AF_EIO));
  } else if (x.ran && x.run_status != AF_OK) {
    if (x.run_status == AF_EINVAL && c->resume)
      af_cli_error("--resume %s: the checkpoint does not fit this run (%s)",
                   c->resume, af_status_name(x.run_status));
    else
      af_cli_error("run failed at t = %.17g: %s (%s)", x.stats.t_reached,
                   af_strerror(x.run_status), af_status_name(x.run_status));
    ex = af_cli_exit_status(x.run_status);
  } else {
    if (err != 0)
      af_cli_error("cannot write '%s': %s", c->out, strerror(err));
    else
      af_cli_error("cannot write '%s': %s", c->out, af_strerror(rc));
  }

done:
  if (par_set) af_mp_params_clear(&par);
  af_mp_vec_free(x.itimes, c->ntimes + 1);
  free(x.params);
  af_mp_vec_free(x.obs, AF_OBS_COUNT);
  af_mp_vec_free(x.rows, nrows);
  af_mp_vec_free(x.y, x.N);
  af_mp_work_free(x.wobs);
  af_mp_work_free(x.w);
  mpfr_clear(ckt);
  return ex;
}
