/* verify.c -- tolerance table, comparison helpers and the claim runner.
 * See verify.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

const char *af_vstatus_name(af_vstatus s)
{
  switch (s) {
  case AF_V_PASS: return "pass";
  case AF_V_FAIL: return "fail";
  case AF_V_INCONCLUSIVE: return "inconclusive";
  case AF_V_CERTIFIED: return "certified";
  case AF_V_NOCERT: return "could-not-certify";
  case AF_V_REFUTED: return "refuted";
  default: return "error";
  }
}

/* ------------------------------------------------------------ tolerances */

static int copy_field(char *dst, size_t cap, const char *s, size_t len)
{
  if (len >= cap)
    return AF_EPARSE;
  memcpy(dst, s, len);
  dst[len] = '\0';
  return AF_OK;
}

int af_tol_parse(af_tol_table *t, const char *text, size_t *line)
{
  t->rows = NULL;
  t->count = 0;
  if (line)
    *line = 0;
  size_t cap = 0, ln = 0;
  const char *p = text;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t) (eol - p) : strlen(p);
    ln++;
    if (len > 0 && p[0] != '#') {
      const char *f[5];
      size_t fl[5];
      size_t nf = 0;
      const char *q = p, *end = p + len;
      while (nf < 5) {
        const char *tab = memchr(q, '\t', (size_t) (end - q));
        f[nf] = q;
        fl[nf] = tab ? (size_t) (tab - q) : (size_t) (end - q);
        nf++;
        if (!tab)
          break;
        q = tab + 1;
        if (nf == 4) { /* origin: the rest of the line */
          f[4] = q;
          fl[4] = (size_t) (end - q);
          nf = 5;
        }
      }
      if (nf < 5 || fl[4] == 0) {
        af_tol_free(t);
        if (line)
          *line = ln;
        return AF_EPARSE;
      }
      if (t->count == cap) {
        cap = cap ? 2 * cap : 64;
        af_tol_row *nr = realloc(t->rows, cap * sizeof *nr);
        if (nr == NULL) {
          af_tol_free(t);
          return AF_ENOMEM;
        }
        t->rows = nr;
      }
      af_tol_row *r = &t->rows[t->count];
      char num[64];
      int rc = copy_field(r->key, sizeof r->key, f[0], fl[0]);
      if (rc == AF_OK)
        rc = copy_field(r->quantity, sizeof r->quantity, f[1], fl[1]);
      if (rc == AF_OK)
        rc = copy_field(r->kind, sizeof r->kind, f[2], fl[2]);
      if (rc == AF_OK)
        rc = copy_field(num, sizeof num, f[3], fl[3]);
      if (rc == AF_OK)
        rc = copy_field(r->origin, sizeof r->origin, f[4], fl[4]);
      if (rc == AF_OK) {
        char *e;
        errno = 0;
        r->value = strtod(num, &e);
        if (e == num || *e != '\0' || errno || !isfinite(r->value)
            || r->value < 0)
          rc = AF_EPARSE;
      }
      if (rc == AF_OK && af_tol_find(t, r->key) != NULL)
        rc = AF_EPARSE; /* duplicate key */
      if (rc != AF_OK) {
        af_tol_free(t);
        if (line)
          *line = ln;
        return rc;
      }
      t->count++;
    }
    p = eol ? eol + 1 : p + len;
  }
  return AF_OK;
}

int af_tol_read(af_tol_table *t, const char *path, size_t *line)
{
  t->rows = NULL;
  t->count = 0;
  if (line)
    *line = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return AF_EIO;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  int rc = buf ? AF_OK : AF_ENOMEM;
  while (rc == AF_OK) {
    if (len + 1024 > cap) {
      char *nb = realloc(buf, cap *= 2);
      if (nb == NULL) {
        rc = AF_ENOMEM;
        break;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0)
      break;
  }
  if (rc == AF_OK && ferror(f))
    rc = AF_EIO;
  fclose(f);
  if (rc == AF_OK) {
    buf[len] = '\0';
    rc = af_tol_parse(t, buf, line);
  }
  free(buf);
  return rc;
}

void af_tol_free(af_tol_table *t)
{
  free(t->rows);
  t->rows = NULL;
  t->count = 0;
}

const af_tol_row *af_tol_find(const af_tol_table *t, const char *key)
{
  for (size_t k = 0; k < t->count; k++)
    if (strcmp(t->rows[k].key, key) == 0)
      return &t->rows[k];
  return NULL;
}

double af_v_tol(const af_vctx *c, const char *key)
{
  const af_tol_row *r = af_tol_find(c->tol, key);
  return r ? r->value : NAN;
}

/* ------------------------------------------------------------ helpers */

void af_v_model(af_model *m, const af_vctx *c, size_t n, size_t d,
                double beta, af_scheme_id scheme)
{
  af_model_init(m, n, d, beta, scheme);
  m->fault = c->fault;
}

void af_v_pair_gap(double *gap, const double *a, const double *b, size_t d)
{
  double na = 0, nb = 0;
  for (size_t q = 0; q < d; q++) {
    na += a[q] * a[q];
    nb += b[q] * b[q];
  }
  na = sqrt(na);
  nb = sqrt(nb);
  double s = 0;
  for (size_t q = 0; q < d; q++) {
    double e = a[q] / na - b[q] / nb;
    s += e * e;
  }
  *gap = 0.5 * s;
}

static void set(af_vresult *r, double m, double p, double tol, int ok,
                double margin)
{
  r->measured = m;
  r->predicted = p;
  r->tolerance = tol;
  r->margin = margin;
  r->status = (ok && isfinite(m)) ? AF_V_PASS : AF_V_FAIL;
}

void af_v_abs(af_vresult *r, double m, double p, double tol)
{
  double err = fabs(m - p);
  set(r, m, p, tol, err <= tol, tol > 0 ? (tol - err) / tol : 0.0 - err);
}

void af_v_rel(af_vresult *r, double m, double p, double tol)
{
  double err = fabs(m - p), t = tol * fabs(p);
  set(r, m, p, tol, err <= t, t > 0 ? (t - err) / t : 0.0 - err);
}

void af_v_nocert(af_vresult *r, const char *why)
{
  r->status = AF_V_NOCERT;
  r->measured = r->predicted = r->tolerance = r->margin = NAN;
  af_v_note(r, "%s", why);
}

void af_v_unit_dirs(double *th, const double *y, size_t n, size_t d)
{
  for (size_t j = 0; j < n; j++) {
    double q = 0;
    for (size_t i = 0; i < d; i++)
      q += y[j * d + i] * y[j * d + i];
    q = sqrt(q);
    for (size_t i = 0; i < d; i++)
      th[j * d + i] = y[j * d + i] / q;
  }
}

void af_v_le(af_vresult *r, double m, double bound, double slack)
{
  double room = bound + slack - m;
  double scale = fabs(bound) + slack;
  set(r, m, bound, slack, room >= 0, scale > 0 ? room / scale : room);
}

void af_v_ge(af_vresult *r, double m, double bound, double slack)
{
  double room = m - (bound - slack);
  double scale = fabs(bound) + slack;
  set(r, m, bound, slack, room >= 0, scale > 0 ? room / scale : room);
}

void af_v_note(af_vresult *r, const char *fmt, ...)
{
  size_t len = strlen(r->note);
  if (len + 1 >= sizeof r->note)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->note + len, sizeof r->note - len, fmt, ap);
  va_end(ap);
}

void af_v_error(af_vresult *r, int code, const char *where)
{
  r->status = AF_V_ERROR;
  r->measured = r->predicted = r->tolerance = NAN;
  r->margin = NAN;
  af_v_note(r, "%s%s%s", where ? where : "", where ? ": " : "",
            af_strerror(code));
}

int af_v_ok(af_vresult *r, int code, const char *where)
{
  if (code == AF_OK)
    return 1;
  af_v_error(r, code, where);
  return 0;
}

typedef struct {
  double *obs;
  size_t k;
  const af_model *m;
  af_work *w;
} run_ctx;

static int collect(double t, const double *y, void *ctx)
{
  run_ctx *c = ctx;
  int rc = af_observe(c->obs + c->k * AF_OBS_COUNT, t, y, 0.9999, c->m, c->w);
  c->k++;
  return rc;
}

int af_v_integrate(double *obs, double *y, const double *times,
                   size_t ntimes, const af_model *m, const af_integ_opts *o,
                   af_work *w, af_integ_stats *stats)
{
  run_ctx c = {obs, 0, m, w};
  return af_integrate(y, times, ntimes, m, o, w, obs ? collect : NULL, &c,
                      stats);
}

int af_v_run(double *obs, double *y, const double *times, size_t ntimes,
             const af_model *m, const af_integ_opts *o, af_kernel kernel)
{
  af_work *w = af_work_alloc(m->n, m->d);
  if (w == NULL)
    return AF_ENOMEM;
  af_work_set_kernel(w, kernel);
  int rc = af_v_integrate(obs, y, times, ntimes, m, o, w, NULL);
  af_work_free(w);
  return rc;
}

/* ------------------------------------------------------------ runner */

static const struct {
  const af_claim *tab;
  const size_t *count;
} registry[] = {
  {af_claims_t41, &af_claims_t41_count},
  {af_claims_ident, &af_claims_ident_count},
  {af_claims_cluster, &af_claims_cluster_count},
  {af_claims_props, &af_claims_props_count},
  {af_claims_field, &af_claims_field_count},
  {af_claims_vern9, &af_claims_vern9_count},
  {af_claims_power, &af_claims_power_count},
  {af_claims_s7, &af_claims_s7_count},
  {af_claims_attnmodes, &af_claims_attnmodes_count},
  {af_claims_mp, &af_claims_mp_count},
  {af_claims_edges, &af_claims_edges_count},
  {af_claims_userscheme, &af_claims_userscheme_count},
  {af_claims_spectaylor, &af_claims_spectaylor_count},
  {af_claims_cert, &af_claims_cert_count},
  {af_claims_proofs, &af_claims_proofs_count},
  {af_claims_range, &af_claims_range_count},
  {af_claims_longctx, &af_claims_longctx_count},
  {af_claims_sweeps, &af_claims_sweeps_count},
  {af_claims_front, &af_claims_front_count},
  {af_claims_rstar, &af_claims_rstar_count},
  {af_claims_tiled, &af_claims_tiled_count},
  {af_claims_mptaylor, &af_claims_mptaylor_count},
  {af_claims_mpglobal, &af_claims_mpglobal_count},
  {af_claims_flow, &af_claims_flow_count},
  {af_claims_certspec, &af_claims_certspec_count},
  {af_claims_u3mp, &af_claims_u3mp_count},
  {af_claims_staircase, &af_claims_staircase_count},
};

size_t af_claims_all(const af_claim **out, size_t cap)
{
  size_t n = 0;
  for (size_t g = 0; g < sizeof registry / sizeof registry[0]; g++)
    for (size_t k = 0; k < *registry[g].count; k++) {
      if (out && n < cap)
        out[n] = &registry[g].tab[k];
      n++;
    }
  return n;
}

int af_claim_is_sanity(const af_claim *c)
{
  return c != NULL && c->title != NULL && strncmp(c->title, "sanity:", 7) == 0;
}

static int matches(const af_claim *c, const char *glob)
{
  if (glob == NULL || *glob == '\0')
    return 1;
  char full[128];
  snprintf(full, sizeof full, "%s/%s", c->id, c->scheme);
  return fnmatch(glob, c->id, 0) == 0 || fnmatch(glob, full, 0) == 0;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

size_t af_verify_run(af_vrecord *rec, size_t cap, const af_vctx *c,
                     const char *glob, FILE *progress)
{
  return af_verify_run_each(rec, cap, c, glob, progress, NULL, NULL);
}

int af_verify_selects(const af_claim *cl, const af_vctx *c, const char *glob)
{
  return matches(cl, glob) && !(c->broken_only && !(cl->breaks & c->fault));
}

size_t af_verify_run_each(af_vrecord *rec, size_t cap, const af_vctx *c,
                          const char *glob, FILE *progress,
                          void (*done)(const af_vrecord *r, void *ctx),
                          void *done_ctx)
{
  const af_claim *all[512];
  size_t total = af_claims_all(all, 512), n = 0;
  /* Mutation testing (tests/mutants/run.sh --fast): stop after the first
   * claim with an unexpected outcome, which already makes verify fail. */
  const char *stop = getenv("ATTNFLOW_VERIFY_STOP_FIRST");
  int stop_first = stop != NULL && strcmp(stop, "1") == 0;
  for (size_t k = 0; k < total && k < 512 && n < cap; k++) {
    const af_claim *cl = all[k];
    if (!matches(cl, glob))
      continue;
    if (c->broken_only && !(cl->breaks & c->fault))
      continue;
    af_vrecord *r = &rec[n++];
    memset(r, 0, sizeof *r);
    r->claim = cl;
    if (progress)
      fprintf(progress, "\r  running %-10s %-11s", cl->id, cl->scheme);
    double t0 = now();
    if (isnan(af_v_tol(c, cl->tol_key))) {
      r->res.status = AF_V_ERROR;
      snprintf(r->res.note, sizeof r->res.note,
               "no row '%s' in the tolerance table", cl->tol_key);
    } else {
      r->res.status = AF_V_ERROR;
      cl->fn(&r->res, c, cl->arg);
    }
    r->seconds = now() - t0;
    r->expected = c->broken_only ? AF_V_FAIL : cl->expected;
    r->ok = r->res.status == r->expected;
    if (progress)
      fprintf(progress, "\r%40s\r", "");
    if (done)
      done(r, done_ctx);
    if (stop_first && !r->ok)
      break;
  }
  if (progress)
    fprintf(progress, "\r%40s\r", "");
  return n;
}
