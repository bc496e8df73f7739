/* scheme_spec.c -- a normalization scheme from a spec (theorems.md U1):
 * its speed factor s, radial rate rho and, for the layer map, where
 * normalization sits, written as expressions (expr.c) in a small
 * key = value file, read strictly:
 *
 *   # a depth-damped Peri-LN
 *   name   = peri-damped
 *   title  = Peri-LN damped by sqrt(t + 1)
 *   param  k = 1
 *   speed  = r * (na * sqrt(t + k))
 *   radial = ta / (na * sqrt(t + k))
 *   layer  = residual
 *   branch = na * sqrt(t + k)
 *
 * Keys: name (required; [a-z0-9][a-z0-9_-]*), title, speed and radial
 * (required), layer (required: sphere | residual | mix | none), branch
 * (required by residual and mix, refused otherwise), and any number of
 * "param NAME = NUMBER" lines (at most AF_EXPR_PARAMS_MAX) declaring a
 * parameter before the expressions that use it.  '#' starts a comment.
 * Every key at most once; lines at most 1024 bytes, the file at most
 * 64 KiB; no NUL byte.  An error names its line and column.
 *
 * The discrete layer map of a spec'd scheme (theorems.md U1):
 *   sphere    theta+ = N(theta + (h / s) A),  r+ = r + h rho
 *   residual  x+ = r theta + h A / g  (g = branch),  r+ = |x+|
 *   mix       sphere while l h < tau, residual after
 * which are S7's Post-LN / LN-Scaling and Pre-LN / Peri-LN maps for the
 * spec'd copies of those schemes, operation for operation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "expr.h"
#include "scheme_spec.h"

#define SPEC_FILE_MAX 65536
#define SPEC_LINE_MAX 1024

/* The row's callback: a spec's rates need the spec, which the callback's
 * arguments do not carry; the library recognises the row by this
 * function (af_scheme_spec_of) and evaluates the spec itself.  Called on
 * its own it gives NaN (AF_ENONFINITE in a run). */
static void spec_rates_cb(double *s, double *rho, double t, double r,
                          double c, double a, double alpha, double tau)
{
  (void) t; (void) r; (void) c; (void) a; (void) alpha; (void) tau;
  *s = NAN;
  *rho = NAN;
}

const af_scheme_spec *af_scheme_spec_of(const af_scheme *row)
{
  if (row == NULL || row->id != AF_SCHEME_USER || row->rates != spec_rates_cb)
    return NULL;
  return (const af_scheme_spec *) row; /* the row is the first member */
}

const af_scheme *af_scheme_spec_row(const af_scheme_spec *s)
{
  return s == NULL ? NULL : &s->row;
}

void af_scheme_spec_free(af_scheme_spec *s) { free(s); }

int af_scheme_spec_layer(const af_scheme_spec *s)
{
  return s == NULL ? AF_SPEC_LAYER_NONE : s->layer;
}

int af_scheme_spec_scores(const af_scheme_spec *s)
{
  return s == NULL ? AF_SPEC_SCORES_PLAIN : s->scores;
}

int af_scheme_spec_alters_attention(const af_scheme_spec *s)
{
  return s != NULL && (s->scores != AF_SPEC_SCORES_PLAIN || s->has_gain);
}

unsigned af_scheme_spec_vars(const af_scheme_spec *s)
{
  return s == NULL ? 0 : s->speed.vars | s->radial.vars | s->branch.vars;
}

int af_scheme_spec_eval(double *s, double *rho, double *g,
                        const af_scheme_spec *sp, double t, double r,
                        double c, double a, double alpha, double tau)
{
  if (sp == NULL)
    return AF_EINVAL;
  /* A point off the domain: every output NaN (as an evaluation there
   * would give), and said so.  tau may be +-infinity (no switch). */
  if (!isfinite(t) || !isfinite(r) || !isfinite(c) || !isfinite(a)
      || !isfinite(alpha) || isnan(tau)) {
    if (s)
      *s = NAN;
    if (rho)
      *rho = NAN;
    if (g)
      *g = NAN;
    return AF_ENONFINITE;
  }
  const double v[AF_EXPR_NVARS] = {t, r, c, a, alpha, tau};
  if (s)
    *s = af_expr_eval_d(&sp->speed, &sp->k, v);
  if (rho)
    *rho = af_expr_eval_d(&sp->radial, &sp->k, v);
  if (g)
    *g = sp->has_branch ? af_expr_eval_d(&sp->branch, &sp->k, v) : NAN;
  return AF_OK;
}

void af_scheme_spec_rates_rows(const af_scheme_spec *sp, double *s,
                               double *rho, size_t n, double t,
                               const double *r, const double *c,
                               const double *a, double alpha, double tau)
{
  double v[AF_EXPR_NVARS] = {t, 0, 0, 0, alpha, tau};
  for (size_t j = 0; j < n; j++) {
    v[AF_EXPR_R] = r[j];
    v[AF_EXPR_TA] = c[j];
    v[AF_EXPR_NA] = a[j];
    s[j] = af_expr_eval_d(&sp->speed, &sp->k, v);
    rho[j] = af_expr_eval_d(&sp->radial, &sp->k, v);
  }
}

int af_model_switches_at_tau(const af_model *m)
{
  if (m->scheme == AF_MIX_LN)
    return 1;
  const af_scheme_spec *sp =
      m->scheme == AF_SCHEME_USER ? af_scheme_spec_of(m->user) : NULL;
  return sp != NULL && (af_scheme_spec_vars(sp) & (1u << AF_EXPR_TAU));
}

/* ------------------------------------------------------------ parser */

typedef struct {
  af_spec_error *err;
  size_t line;
} ctx;

static int perr(ctx *c, size_t col, const char *fmt, const char *arg)
{
  if (c->err != NULL) {
    c->err->line = c->line;
    c->err->col = col;
    snprintf(c->err->what, sizeof c->err->what, fmt, arg ? arg : "");
  }
  return AF_EPARSE;
}

static int is_reserved(const char *name)
{
  static const char *const words[] = {
      "t", "r", "ta", "na", "alpha", "tau", "exp", "log", "sqrt", "abs",
      "tanh", "min", "max", "pow", "ifle", "param"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(words[i], name) == 0)
      return 1;
  return 0;
}

/* The value of a key: from p, blanks trimmed at both ends, into buf of
 * size cap; 0 if it is too long. */
static int take_value(char *buf, size_t cap, const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  size_t len = strlen(p);
  while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
    len--;
  if (len + 1 > cap)
    return 0;
  memcpy(buf, p, len);
  buf[len] = '\0';
  return 1;
}

static int compile(ctx *c, af_expr *e, af_scheme_spec *s, const char *val,
                   size_t vcol, const char *key)
{
  if (*val == '\0')
    return perr(c, vcol, "%s: empty expression", key);
  size_t col = 0;
  const char *what = NULL;
  if (af_expr_compile(e, &s->k, &s->par, val, &col, &what) != AF_OK) {
    char msg[120];
    snprintf(msg, sizeof msg, "%s: %s", key, what);
    return perr(c, vcol + col - 1, "%s", msg);
  }
  return AF_OK;
}

static int parse_param(ctx *c, af_scheme_spec *s, char *p, size_t col0)
{
  /* p: after "param", at least one blank already skipped */
  char *start = p;
  if (!(isalpha((unsigned char) *p) || *p == '_'))
    return perr(c, col0, "param: expected a name%s", NULL);
  while (isalnum((unsigned char) *p) || *p == '_')
    p++;
  size_t len = (size_t) (p - start);
  char name[AF_EXPR_NAME_MAX + 1];
  if (len > AF_EXPR_NAME_MAX)
    return perr(c, col0, "param: name too long (at most 32 characters)%s",
                NULL);
  memcpy(name, start, len);
  name[len] = '\0';
  if (is_reserved(name))
    return perr(c, col0, "param: '%s' is a variable or function name",
                name);
  for (size_t i = 0; i < s->par.n; i++)
    if (strcmp(s->par.name[i], name) == 0)
      return perr(c, col0, "param: '%s' declared twice", name);
  if (s->par.n >= AF_EXPR_PARAMS_MAX)
    return perr(c, col0, "param: more than 16 parameters%s", NULL);
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '=')
    return perr(c, col0 + (size_t) (p - start), "param: expected '='%s",
                NULL);
  p++;
  while (*p == ' ' || *p == '\t')
    p++;
  size_t vcol = col0 + (size_t) (p - start);
  char *num = p;
  if (*p == '-')
    p++;
  size_t nl = af_expr_number_len(p);
  if (nl == 0)
    return perr(c, vcol, "param %s: expected a number", name);
  p += nl;
  size_t tot = (size_t) (p - num);
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '\0')
    return perr(c, col0 + (size_t) (p - start),
                "param %s: unexpected text after the number", name);
  if (tot > AF_EXPR_NUM_MAX)
    return perr(c, vcol, "param %s: number too long", name);
  if (s->k.n >= AF_EXPR_CONSTS_MAX)
    return perr(c, vcol, "param %s: too many numbers in the spec", name);
  memcpy(s->k.text[s->k.n], num, tot);
  s->k.text[s->k.n][tot] = '\0';
  s->k.val[s->k.n] = strtod(s->k.text[s->k.n], NULL);
  if (!isfinite(s->k.val[s->k.n]))
    return perr(c, vcol, "param %s: out of the range of a double", name);
  strcpy(s->par.name[s->par.n], name);
  s->par.cidx[s->par.n] = s->k.n;
  s->par.n++;
  s->k.n++;
  return AF_OK;
}

enum { K_NAME, K_TITLE, K_SPEED, K_RADIAL, K_LAYER, K_BRANCH, K_SCORES,
       K_GAIN, K_COUNT };
static const char *const keys[K_COUNT] = {"name",   "title", "speed",
                                          "radial", "layer", "branch",
                                          "scores", "gain"};

/* One line (NUL-terminated, comment already cut). */
static int parse_line(ctx *c, af_scheme_spec *s, char *line, int *seen)
{
  char *p = line;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p == '\0')
    return AF_OK;
  char *kstart = p;
  while (isalnum((unsigned char) *p) || *p == '_')
    p++;
  size_t klen = (size_t) (p - kstart);
  size_t kcol = (size_t) (kstart - line) + 1;
  if (klen == 5 && strncmp(kstart, "param", 5) == 0
      && (*p == ' ' || *p == '\t')) {
    while (*p == ' ' || *p == '\t')
      p++;
    return parse_param(c, s, p, (size_t) (p - line) + 1);
  }
  int k;
  for (k = 0; k < K_COUNT; k++)
    if (strlen(keys[k]) == klen && strncmp(keys[k], kstart, klen) == 0)
      break;
  if (klen == 0)
    return perr(c, kcol, "expected a key (name, title, speed, radial, "
                         "layer, branch, scores, gain, param)%s", NULL);
  if (k == K_COUNT) {
    char key[40];
    snprintf(key, sizeof key, "%.*s", (int) (klen > 32 ? 32 : klen), kstart);
    return perr(c, kcol, "unknown key '%s' (name, title, speed, radial, "
                         "layer, branch, scores, gain, param)", key);
  }
  if (seen[k])
    return perr(c, kcol, "key '%s' given twice", keys[k]);
  seen[k] = 1;
  while (*p == ' ' || *p == '\t')
    p++;
  if (*p != '=')
    return perr(c, (size_t) (p - line) + 1, "%s: expected '='", keys[k]);
  p++;
  while (*p == ' ' || *p == '\t')
    p++;
  size_t vcol = (size_t) (p - line) + 1;
  char val[SPEC_LINE_MAX + 1];
  if (!take_value(val, sizeof val, p))
    return perr(c, vcol, "%s: value too long", keys[k]);
  switch (k) {
  case K_NAME: {
    size_t n = strlen(val);
    if (n == 0 || n > AF_EXPR_NAME_MAX)
      return perr(c, vcol, "name: 1 to 32 characters%s", NULL);
    for (size_t i = 0; i < n; i++) {
      unsigned char ch = (unsigned char) val[i];
      if (!(islower(ch) || isdigit(ch) || (i > 0 && (ch == '-' || ch == '_'))))
        return perr(c, vcol + i, "name: only a-z, 0-9, '-' and '_' (a "
                                 "letter or digit first)%s", NULL);
    }
    strcpy(s->name, val);
    return AF_OK;
  }
  case K_TITLE: {
    size_t n = strlen(val);
    if (n == 0 || n > 64)
      return perr(c, vcol, "title: 1 to 64 characters%s", NULL);
    for (size_t i = 0; i < n; i++)
      if (!isprint((unsigned char) val[i]))
        return perr(c, vcol + i, "title: printable ASCII only%s", NULL);
    strcpy(s->title, val);
    return AF_OK;
  }
  case K_LAYER:
    if (strcmp(val, "none") == 0)
      s->layer = AF_SPEC_LAYER_NONE;
    else if (strcmp(val, "sphere") == 0)
      s->layer = AF_SPEC_LAYER_SPHERE;
    else if (strcmp(val, "residual") == 0)
      s->layer = AF_SPEC_LAYER_RESIDUAL;
    else if (strcmp(val, "mix") == 0)
      s->layer = AF_SPEC_LAYER_MIX;
    else
      return perr(c, vcol, "layer: expected sphere, residual, mix or none%s",
                  NULL);
    return AF_OK;
  case K_SCORES:
    if (strcmp(val, "plain") == 0)
      s->scores = AF_SPEC_SCORES_PLAIN;
    else if (strcmp(val, "radii") == 0)
      s->scores = AF_SPEC_SCORES_RADII;
    else if (strcmp(val, "qknorm") == 0)
      s->scores = AF_SPEC_SCORES_QKNORM;
    else
      return perr(c, vcol, "scores: expected plain, radii or qknorm%s",
                  NULL);
    return AF_OK;
  case K_GAIN: {
    if (strlen(val) > AF_EXPR_TEXT_MAX)
      return perr(c, vcol + AF_EXPR_TEXT_MAX,
                  "%s: expression too long (at most 512 characters)",
                  keys[k]);
    int rc = compile(c, &s->gain, s, val, vcol, keys[k]);
    if (rc != AF_OK)
      return rc;
    if (s->gain.vars & ~(1u << AF_EXPR_T))
      return perr(c, vcol, "gain: an expression of t and the params only "
                           "(one gain for every pair)%s", NULL);
    strcpy(s->gain_text, val);
    s->has_gain = 1;
    return AF_OK;
  }
  default: {
    af_expr *e = k == K_SPEED ? &s->speed
               : k == K_RADIAL ? &s->radial : &s->branch;
    char *dst = k == K_SPEED ? s->speed_text
              : k == K_RADIAL ? s->radial_text : s->branch_text;
    if (strlen(val) > AF_EXPR_TEXT_MAX)
      return perr(c, vcol + AF_EXPR_TEXT_MAX,
                  "%s: expression too long (at most 512 characters)",
                  keys[k]);
    int rc = compile(c, e, s, val, vcol, keys[k]);
    if (rc != AF_OK)
      return rc;
    strcpy(dst, val);
    if (k == K_BRANCH)
      s->has_branch = 1;
    return AF_OK;
  }
  }
}

int af_scheme_spec_parse(af_scheme_spec **out, af_spec_error *err,
                         const char *text, size_t len)
{
  if (err != NULL)
    memset(err, 0, sizeof *err);
  if (out != NULL)
    *out = NULL;
  if (out == NULL || (text == NULL && len > 0))
    return AF_EINVAL;
  ctx c = {err, 0};
  if (len > SPEC_FILE_MAX)
    return perr(&c, 0, "spec longer than 64 KiB%s", NULL);
  af_scheme_spec *s = calloc(1, sizeof *s);
  if (s == NULL)
    return AF_ENOMEM;
  int seen[K_COUNT] = {0};
  char line[SPEC_LINE_MAX + 2];
  size_t i = 0;
  int rc = AF_OK;
  while (i < len && rc == AF_OK) {
    c.line++;
    size_t j = i;
    while (j < len && text[j] != '\n' && text[j] != '\0')
      j++;
    if (j < len && text[j] == '\0') {
      rc = perr(&c, j - i + 1, "NUL byte%s", NULL);
      break;
    }
    size_t ll = j - i;
    if (ll > 0 && text[i + ll - 1] == '\r')
      ll--; /* CR LF line ends */
    if (ll > SPEC_LINE_MAX) {
      rc = perr(&c, SPEC_LINE_MAX + 1, "line longer than 1024 bytes%s", NULL);
      break;
    }
    memcpy(line, text + i, ll);
    line[ll] = '\0';
    for (size_t q = 0; q < ll; q++) {
      unsigned char ch = (unsigned char) line[q];
      if (ch == '#') {
        line[q] = '\0';
        break;
      }
      if (ch != '\t' && (ch < 0x20 || ch > 0x7e)) {
        rc = perr(&c, q + 1, "control or non-ASCII byte%s", NULL);
        break;
      }
    }
    if (rc == AF_OK)
      rc = parse_line(&c, s, line, seen);
    i = j + 1;
  }
  if (rc == AF_OK) {
    c.line = 0; /* whole-file conditions */
    static const int req[] = {K_NAME, K_SPEED, K_RADIAL, K_LAYER};
    for (size_t q = 0; q < sizeof req / sizeof req[0] && rc == AF_OK; q++)
      if (!seen[req[q]])
        rc = perr(&c, 0, "missing key '%s'", keys[req[q]]);
    int wants = s->layer == AF_SPEC_LAYER_RESIDUAL
             || s->layer == AF_SPEC_LAYER_MIX;
    if (rc == AF_OK && wants && !s->has_branch)
      rc = perr(&c, 0, "layer = residual or mix needs 'branch' (x+ = x + h A "
                       "/ branch)%s", NULL);
    if (rc == AF_OK && !wants && s->has_branch)
      rc = perr(&c, 0, "'branch' is used only by layer = residual or mix%s",
                NULL);
  }
  if (rc != AF_OK) {
    free(s);
    return rc;
  }
  if (!seen[K_TITLE])
    strcpy(s->title, s->name);
  unsigned vars = af_scheme_spec_vars(s);
  s->row.id = AF_SCHEME_USER;
  s->row.name = s->name;
  s->row.title = s->title;
  s->row.needs_anorm = (vars & (1u << AF_EXPR_NA)) != 0;
  s->row.moves_radius = !(s->radial.constant && s->k.val[s->radial.arg[0]] == 0);
  s->row.rates = spec_rates_cb;
  s->row.speed_text = s->speed_text;
  s->row.radial_text = s->radial_text;
  *out = s;
  return AF_OK;
}

int af_scheme_spec_read(af_scheme_spec **out, af_spec_error *err,
                        const char *path)
{
  if (err != NULL)
    memset(err, 0, sizeof *err);
  if (out != NULL)
    *out = NULL;
  if (out == NULL || path == NULL)
    return AF_EINVAL;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    if (err != NULL)
      snprintf(err->what, sizeof err->what, "cannot open: %s",
               strerror(errno));
    return AF_EIO;
  }
  char *buf = malloc(SPEC_FILE_MAX + 1);
  if (buf == NULL) {
    fclose(f);
    return AF_ENOMEM;
  }
  size_t len = fread(buf, 1, SPEC_FILE_MAX + 1, f);
  int bad = ferror(f);
  fclose(f);
  int rc;
  if (bad) {
    if (err != NULL)
      snprintf(err->what, sizeof err->what, "read error (a directory?)");
    rc = AF_EIO;
  } else {
    rc = af_scheme_spec_parse(out, err, buf, len);
  }
  free(buf);
  return rc;
}

/* ------------------------------------------------ checks for claims */

/* vars at prec from the doubles (exact). */
static void set_vars(mpfr_t *v, mpfr_prec_t prec, const double *x)
{
  for (int k = 0; k < AF_EXPR_NVARS; k++) {
    mpfr_init2(v[k], prec);
    mpfr_set_d(v[k], x[k], MPFR_RNDN);
  }
}

double af_scheme_spec_speed_rounding(const af_scheme_spec *sp,
                                     mpfr_prec_t prec, double t, double r,
                                     double c, double a, double alpha,
                                     double tau)
{
  const double x[AF_EXPR_NVARS] = {t, r, c, a, alpha, tau};
  double sd = af_expr_eval_d(&sp->speed, &sp->k, x);
  af_expr_mp *ev = af_expr_mp_alloc(&sp->k, prec);
  if (ev == NULL)
    return NAN;
  mpfr_t v[AF_EXPR_NVARS], s;
  set_vars(v, prec, x);
  mpfr_init2(s, prec);
  mpfr_srcptr vp[AF_EXPR_NVARS];
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    vp[k] = v[k];
  af_expr_eval_mp(s, &sp->speed, ev, vp);
  double sm = mpfr_get_d(s, MPFR_RNDN);
  mpfr_sub_d(s, s, sd, MPFR_RNDN);
  double err = fabs(mpfr_get_d(s, MPFR_RNDN)) / fabs(sm);
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    mpfr_clear(v[k]);
  mpfr_clear(s);
  af_expr_mp_free(ev);
  return err;
}

int af_scheme_spec_residual_check(double *dev, const af_scheme_spec *sp,
                                  double t, double r, double c, double a,
                                  double alpha, double tau, mpfr_prec_t prec)
{
  if (dev == NULL || sp == NULL || !sp->has_branch)
    return AF_EINVAL;
  const double x[AF_EXPR_NVARS] = {t, r, c, a, alpha, tau};
  af_expr_mp *ev = af_expr_mp_alloc(&sp->k, prec);
  if (ev == NULL)
    return AF_ENOMEM;
  mpfr_t v[AF_EXPR_NVARS], s, rho, g, q;
  set_vars(v, prec, x);
  mpfr_inits2(prec, s, rho, g, q, (mpfr_ptr) 0);
  mpfr_srcptr vp[AF_EXPR_NVARS];
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    vp[k] = v[k];
  af_expr_eval_mp(s, &sp->speed, ev, vp);
  af_expr_eval_mp(rho, &sp->radial, ev, vp);
  af_expr_eval_mp(g, &sp->branch, ev, vp);
  /* |s - r g| / |s| */
  mpfr_mul(q, v[AF_EXPR_R], g, MPFR_RNDN);
  mpfr_sub(q, s, q, MPFR_RNDN);
  mpfr_div(q, q, s, MPFR_RNDN);
  double d1 = fabs(mpfr_get_d(q, MPFR_RNDN));
  /* |rho - c/g| / max(|rho|, |c/g|) (0 if both are 0) */
  mpfr_div(g, v[AF_EXPR_TA], g, MPFR_RNDN);
  mpfr_sub(q, rho, g, MPFR_RNDN);
  double sc = fmax(fabs(mpfr_get_d(rho, MPFR_RNDN)),
                   fabs(mpfr_get_d(g, MPFR_RNDN)));
  double d2 = mpfr_zero_p(q) ? 0 : fabs(mpfr_get_d(q, MPFR_RNDN)) / sc;
  *dev = isnan(d1) || isnan(d2) ? INFINITY : fmax(d1, d2);
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    mpfr_clear(v[k]);
  mpfr_clears(s, rho, g, q, (mpfr_ptr) 0);
  af_expr_mp_free(ev);
  return AF_OK;
}
