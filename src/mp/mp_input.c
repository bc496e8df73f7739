/* mp_input.c -- exact input for the MPFR path (attnflow_mp.h): numbers
 * read from the strings the user typed at the working precision, and the
 * parameters of the field and the token file of an initial state made
 * from them, never through a double.
 *
 * A number is read by mpfr_strtofr (base 0: decimal, or hex with a 0x
 * prefix and a binary exponent p), rounded once to nearest at the
 * precision of its destination; the whole string must be the number.
 * Token files follow the rules of the double reader (init.c): one row
 * per token, fields separated by commas, blanks or tabs, '#' comments;
 * here no field may be empty (two commas in a row), and NUL bytes and
 * lines longer than AF_MP_LINE_MAX are malformed input.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow_mp.h"
#include "internal.h"

#define RND MPFR_RNDN

int af_mp_params_init(af_mp_params *p, const af_model *m, mpfr_prec_t prec)
{
  if (p == NULL || m == NULL || prec < AF_PREC_MIN || prec > AF_PREC_MAX)
    return AF_EINVAL;
  mpfr_inits2(prec, p->beta, p->alpha, p->alpha_decay, p->tau, p->r0,
              p->layer_dt, (mpfr_ptr) 0);
  mpfr_set_d(p->beta, m->beta, RND);
  mpfr_set_d(p->alpha, m->alpha, RND);
  mpfr_set_d(p->alpha_decay, m->alpha_decay, RND);
  mpfr_set_d(p->tau, m->tau, RND);
  mpfr_set_nan(p->r0);
  mpfr_set_nan(p->layer_dt);
  p->wq = p->wk = p->wv = NULL;
  p->wd = 0;
  return AF_OK;
}

/* Free the exact weight set of p (none: nothing). */
static void weights_free(af_mp_params *p)
{
  size_t dd = p->wd * p->wd;
  af_mp_vec_free(p->wq, dd);
  af_mp_vec_free(p->wk, dd);
  af_mp_vec_free(p->wv, dd);
  p->wq = p->wk = p->wv = NULL;
  p->wd = 0;
}

void af_mp_params_clear(af_mp_params *p)
{
  if (p == NULL)
    return;
  weights_free(p);
  mpfr_clears(p->beta, p->alpha, p->alpha_decay, p->tau, p->r0, p->layer_dt,
              (mpfr_ptr) 0);
}

/* 1 if c is a character of a number's text (digits, signs, point,
 * exponent, hex prefix and digits): what mpfr_strtofr may consume. */
static int num_char(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
         || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-'
         || c == '@';
}

int af_mp_parse(mpfr_ptr r, const char *s)
{
  if (r == NULL || s == NULL)
    return AF_EINVAL;
  /* mpfr_strtofr skips leading blanks: refuse them (strict). */
  if (!num_char(s[0]))
    return AF_EPARSE;
  char *end;
  mpfr_strtofr(r, s, &end, 0, RND);
  if (end == s || *end != '\0')
    return AF_EPARSE;
  if (!mpfr_number_p(r))
    return AF_ENONFINITE;
  return AF_OK;
}

/* One row: d numbers of s (a line without its newline) into x; AF_EDIM
 * for too few or too many, AF_EPARSE for an empty field or a bad number. */
static int parse_row(mpfr_t *x, size_t d, char *s)
{
  size_t k = 0;
  char *p = s;
  int sep = 1; /* at the start, or just after a comma */
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0' || *p == '\r')
      break;
    if (*p == ',') {
      if (sep)
        return AF_EPARSE; /* empty field */
      sep = 1;
      p++;
      continue;
    }
    if (k == d)
      return AF_EDIM;
    char *e = p;
    while (num_char(*e))
      e++;
    if (e == p)
      return AF_EPARSE;
    char c = *e;
    *e = '\0';
    int rc = af_mp_parse(x[k], p);
    *e = c;
    if (rc != AF_OK)
      return rc;
    if (c != '\0' && c != ',' && c != ' ' && c != '\t' && c != '\r')
      return AF_EPARSE;
    k++;
    sep = 0;
    p = e;
  }
  if (sep && k > 0)
    return AF_EPARSE; /* a trailing comma: an empty last field */
  if (*p == '\r' && p[1] != '\0')
    return AF_EPARSE;
  return k == d ? AF_OK : AF_EDIM;
}

/* The next line of f into buf (cap = AF_MP_LINE_MAX + 1 bytes), its
 * newline removed: 1, or 0 at the end of the file, or -1 for a line
 * longer than AF_MP_LINE_MAX or one holding a NUL byte (the rest of a
 * long line is not read: memory stays bounded). */
static int read_line(char *buf, FILE *f)
{
  size_t len = 0;
  int ch;
  while ((ch = getc(f)) != EOF) {
    if (len + 1 >= AF_MP_LINE_MAX || ch == '\0')
      return -1;
    if (ch == '\n')
      break;
    buf[len++] = (char) ch;
  }
  buf[len] = '\0';
  return ch == EOF && len == 0 ? 0 : 1;
}

/* The next line of f that holds data into buf: 1 with *row at its first
 * non-blank, 0 at the end of the file, -1 for a line read_line refuses.
 * Blank lines and comments ('#' after blanks) are passed over; *ln counts
 * every line read. */
static int data_line(char **row, char *buf, FILE *f, size_t *ln)
{
  int got;
  while ((got = read_line(buf, f)) != 0) {
    ++*ln;
    if (got < 0)
      return -1;
    char *p = buf;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '#' || *p == '\0' || (*p == '\r' && p[1] == '\0'))
      continue;
    *row = p;
    return 1;
  }
  return 0;
}

int af_mp_init_read(mpfr_t *y, size_t *line, const char *path, size_t n,
                    size_t d)
{
  if (line)
    *line = 0;
  if (y == NULL || path == NULL || n < 1 || d < 1 || af_state_size(n, d) == 0
      || af_state_size(n, d) > SIZE_MAX / sizeof(mpfr_t))
    return AF_EINVAL; /* n d would wrap: the rows would be written wild */
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return AF_EIO;
  mpfr_t s, tmp;
  mpfr_prec_t prec = mpfr_get_prec(y[0]);
  mpfr_inits2(prec, s, tmp, (mpfr_ptr) 0);
  char *buf = malloc(AF_MP_LINE_MAX + 1);
  size_t ln = 0, rows = 0;
  int rc = buf ? AF_OK : AF_ENOMEM, got;
  char *p;
  while (rc == AF_OK && (got = data_line(&p, buf, f, &ln)) != 0) {
    if (got < 0) {
      rc = AF_EPARSE; /* too long, or a NUL byte */
      break;
    }
    if (rows == n) {
      rc = AF_EDIM; /* more token rows than n */
      break;
    }
    mpfr_t *x = y + rows * d;
    rc = parse_row(x, d, p);
    if (rc != AF_OK)
      break;
    mpfr_set_zero(s, 1);
    for (size_t i = 0; i < d; i++) {
      mpfr_sqr(tmp, x[i], RND);
      mpfr_add(s, s, tmp, RND);
    }
    if (mpfr_zero_p(s)) {
      rc = AF_EZERONORM;
      break;
    }
    mpfr_sqrt(s, s, RND);
    for (size_t i = 0; i < d; i++)
      mpfr_div(x[i], x[i], s, RND);
    mpfr_set(y[n * d + rows], s, RND);
    rows++;
  }
  if (rc == AF_OK && ferror(f))
    rc = AF_EIO;
  if (rc == AF_OK && rows < n) {
    rc = AF_EDIM; /* fewer token rows than n */
    ln++;
  }
  free(buf);
  fclose(f);
  mpfr_clears(s, tmp, (mpfr_ptr) 0);
  if (rc != AF_OK && rc != AF_EIO && rc != AF_ENOMEM && line)
    *line = ln;
  return rc;
}

int af_mp_weights_read(af_mp_params *p, size_t *line, const char *path,
                       size_t d, mpfr_prec_t prec)
{
  if (line)
    *line = 0;
  size_t dd;
  if (p == NULL || path == NULL || d < 1 || !af_size_mul(&dd, d, d)
      || dd > SIZE_MAX / sizeof(mpfr_t) || prec < AF_PREC_MIN
      || prec > AF_PREC_MAX)
    return AF_EINVAL;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return AF_EIO;
  mpfr_t *m[3] = {af_mp_vec_alloc(dd, prec), af_mp_vec_alloc(dd, prec),
                  af_mp_vec_alloc(dd, prec)};
  char *buf = malloc(AF_MP_LINE_MAX + 1);
  size_t ln = 0, rows = 0;
  int rc = buf && m[0] && m[1] && m[2] ? AF_OK : AF_ENOMEM, got;
  char *q;
  while (rc == AF_OK && (got = data_line(&q, buf, f, &ln)) != 0) {
    if (got < 0) {
      rc = AF_EPARSE; /* too long, or a NUL byte */
      break;
    }
    if (rows == 3 * d) {
      rc = AF_EDIM; /* more rows than Q, K, V */
      break;
    }
    /* Row i of Q, K or V: elements [i d, i d + d) of the matrix. */
    rc = parse_row(m[rows / d] + (rows % d) * d, d, q);
    rows++;
  }
  if (rc == AF_OK && ferror(f))
    rc = AF_EIO;
  if (rc == AF_OK && rows < 3 * d) {
    rc = AF_EDIM; /* too few rows */
    ln++;
  }
  free(buf);
  fclose(f);
  if (rc != AF_OK) {
    for (int k = 0; k < 3; k++)
      af_mp_vec_free(m[k], dd);
    if (rc != AF_EIO && rc != AF_ENOMEM && line)
      *line = ln;
    return rc;
  }
  weights_free(p);
  p->wq = m[0];
  p->wk = m[1];
  p->wv = m[2];
  p->wd = d;
  return AF_OK;
}
