/* model.c -- model parameters, their validation, nGPT's alpha schedule,
 * and the weight sets Q, K, V (identity, from a file, or Kaiming-random
 * per layer). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "internal.h"

void af_model_init(af_model *m, size_t n, size_t d, double beta,
                   af_scheme_id scheme)
{
  if (m == NULL)
    return;
  memset(m, 0, sizeof *m);
  m->n = n;
  m->d = d;
  m->beta = beta;
  m->scheme = scheme;
  m->attn = AF_ATTN_SOFTMAX;
  m->alpha = 1.0;
  m->alpha_decay = 0.0;
  m->tau = 1.0;
  m->w = NULL;
}

int af_model_validate(const af_model *m)
{
  size_t nn, bytes;
  if (m == NULL || m->n < 1 || m->d < 1)
    return AF_EINVAL;
  /* The state (n d + n doubles) and the n x n attention matrix must have
   * sizes that size_t holds: no product below wraps. */
  if (af_state_size(m->n, m->d) == 0
      || !af_size_mul(&bytes, af_state_size(m->n, m->d), sizeof(double))
      || !af_size_mul(&nn, m->n, m->n)
      || !af_size_mul(&bytes, nn, sizeof(double)))
    return AF_EINVAL;
  if (!isfinite(m->beta) || !isfinite(m->alpha) || !isfinite(m->alpha_decay)
      || !isfinite(m->tau))
    return AF_ENONFINITE;
  if (m->beta < 0 || m->alpha <= 0 || m->alpha_decay < 0 || m->tau < 0)
    return AF_EINVAL;
  if (af_model_scheme(m) == NULL)
    return AF_EINVAL;
  if ((int) m->attn < 0 || m->attn >= AF_ATTN_COUNT)
    return AF_EINVAL;
  if (m->w != NULL) {
    if (m->w->d != m->d)
      return AF_EDIM;
    if (m->w->layers < 1 || !(m->w->layer_dt > 0) || !isfinite(m->w->layer_dt))
      return AF_EINVAL;
    size_t nm;
    if (m->w->heads > AF_WEIGHTS_HEADS_MAX
        || !af_size_mul(&nm, m->w->layers, af_weights_heads(m->w)))
      return AF_EINVAL;
  }
  return AF_OK;
}

int af_model_fits(const af_model *m, size_t n, size_t d)
{
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  return m->n != n || m->d != d ? AF_EDIM : AF_OK;
}

double af_model_alpha(const af_model *m, double t)
{
  if (m == NULL)
    return NAN;
  if (m->alpha_decay == 0.0)
    return m->alpha;
  return m->alpha * pow(1.0 + t, -m->alpha_decay);
}

/* int_0^inf alpha (1+t)^-p dt is finite exactly when p > 1. */
int af_model_alpha_integrable(const af_model *m)
{
  return m != NULL && m->alpha_decay > 1.0;
}

int af_model_set_user_scheme(af_model *m, const af_scheme *row)
{
  if (m == NULL || row == NULL || row->rates == NULL
      || row->id != AF_SCHEME_USER)
    return AF_EINVAL;
  m->scheme = AF_SCHEME_USER;
  m->user = row;
  return AF_OK;
}

const af_scheme *af_model_scheme(const af_model *m)
{
  if (m == NULL)
    return NULL;
  if (m->scheme == AF_SCHEME_USER)
    return (m->user != NULL && m->user->rates != NULL) ? m->user : NULL;
  return af_scheme_get(m->scheme);
}

/* ------------------------------------------------------------ weights */

af_weights *af_weights_alloc(size_t d, size_t layers, double layer_dt)
{
  return af_weights_alloc_heads(d, layers, 1, layer_dt);
}

af_weights *af_weights_alloc_heads(size_t d, size_t layers, size_t heads,
                                   double layer_dt)
{
  size_t bytes; /* one of the three pointer arrays (checked, not wrapped) */
  size_t dd, mbytes; /* one d x d matrix, allocated later (Kaiming, a file) */
  size_t nm;         /* matrices of each kind: layers * heads */
  if (d < 1 || layers < 1 || heads < 1 || heads > AF_WEIGHTS_HEADS_MAX
      || !(layer_dt > 0) || !isfinite(layer_dt)
      || !af_size_mul(&nm, layers, heads)
      || (heads > 1 && nm > AF_WEIGHTS_TRIPLES_MAX)
      || !af_size_mul(&bytes, nm, sizeof(double *))
      || !af_size_mul(&dd, d, d) || !af_size_mul(&mbytes, dd, sizeof(double)))
    return NULL;
  af_weights *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  w->d = d;
  w->layers = layers;
  w->heads = heads;
  w->layer_dt = layer_dt;
  w->Q = calloc(nm, sizeof *w->Q);
  w->K = calloc(nm, sizeof *w->K);
  w->V = calloc(nm, sizeof *w->V);
  if (w->Q == NULL || w->K == NULL || w->V == NULL) {
    af_weights_free(w);
    return NULL;
  }
  return w;
}

size_t af_weights_heads(const af_weights *w)
{
  return w == NULL || w->heads == 0 ? 1 : w->heads;
}

void af_weights_free(af_weights *w)
{
  if (w == NULL)
    return;
  /* (a failed allocation leaves the arrays NULL: nothing to walk) */
  size_t nm = w->layers * af_weights_heads(w); /* checked at allocation */
  for (size_t l = 0; w->Q && w->K && w->V && l < nm; l++) {
    free(w->Q[l]);
    free(w->K[l]);
    free(w->V[l]);
  }
  free(w->Q);
  free(w->K);
  free(w->V);
  free(w);
}

int af_weights_kaiming(af_weights *w, unsigned long seed)
{
  if (w == NULL)
    return AF_EINVAL;
  size_t dd, bytes;
  if (!af_size_mul(&dd, w->d, w->d) || !af_size_mul(&bytes, dd, sizeof(double)))
    return AF_ENOMEM;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (r == NULL)
    return AF_ENOMEM;
  gsl_rng_set(r, seed);
  double sd = 1.0 / sqrt((double) w->d);
  int rc = AF_OK;
  size_t nm = w->layers * af_weights_heads(w); /* set by set, head by head */
  for (size_t l = 0; l < nm && rc == AF_OK; l++) {
    double **mats[3] = {&w->Q[l], &w->K[l], &w->V[l]};
    for (int k = 0; k < 3; k++) {
      if (*mats[k] == NULL)
        *mats[k] = malloc(bytes);
      if (*mats[k] == NULL) {
        rc = AF_ENOMEM;
        break;
      }
      for (size_t i = 0; i < dd; i++)
        (*mats[k])[i] = gsl_ran_gaussian_ziggurat(r, sd);
    }
  }
  gsl_rng_free(r);
  w->seed = seed;
  w->kaiming = 1;
  return rc;
}

/* Longest line the readers accept: d numbers of up to 128 characters
 * each, and 64 KiB of slack for comments (a provenance block carries the
 * whole command line).  0 if it does not fit in size_t. */
size_t af_row_line_max(size_t d);
size_t af_row_line_max(size_t d)
{
  size_t r;
  if (!af_size_mul(&r, d, 128) || !af_size_add(&r, r, 65536))
    return 0;
  return r;
}

/* Next non-comment, non-blank line of f into *buf (af_read_line); 1 if
 * one was read, 0 at end of file, or an error status < 0 with
 * info->what set: -AF_EPARSE (NUL byte, line too long), -AF_EIO,
 * -AF_ENOMEM.  info->line counts physical lines. */
int af_next_data_line(char **buf, size_t *cap, size_t max, FILE *f,
                      af_read_info *info);
int af_next_data_line(char **buf, size_t *cap, size_t max, FILE *f,
                      af_read_info *info)
{
  size_t len;
  int nl;
  for (;;) {
    int g = af_read_line(buf, cap, &len, &nl, max, f);
    if (g == AF_LINE_EOF)
      return 0;
    info->line++;
    switch (g) {
    case AF_LINE_NUL:
      info->what = "NUL byte";
      return -AF_EPARSE;
    case AF_LINE_LONG:
      info->what = "line too long";
      return -AF_EPARSE;
    case AF_LINE_ERR:
      return -AF_EIO;
    case AF_LINE_NOMEM:
      return -AF_ENOMEM;
    }
    char *p = *buf;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '#' || *p == '\r' || *p == '\0')
      continue;
    return 1;
  }
}

/* Parse exactly count numbers separated by a comma (blanks around it
 * allowed) or by blanks.  An empty field (",,", a leading or trailing
 * comma) and any other character are AF_EPARSE; a wrong count is
 * AF_EPARSE with info->expected = count and info->found = the numbers of
 * the row. */
int af_parse_row(double *out, size_t count, const char *s,
                 af_read_info *info);
int af_parse_row(double *out, size_t count, const char *s,
                 af_read_info *info)
{
  const char *p = s;
  size_t k = 0;
  int comma = 1; /* a field is due (start of row, or after a comma) */
  int rc = AF_OK;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '\0' || *p == '\n' || *p == '\r') {
      if (comma && k > 0) {
        info->what = "empty field";
        return AF_EPARSE;
      }
      break;
    }
    if (*p == ',') {
      if (comma) {
        info->what = "empty field";
        return AF_EPARSE;
      }
      comma = 1;
      p++;
      continue;
    }
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || (*end != '\0' && *end != ',' && *end != ' '
                     && *end != '\t' && *end != '\n' && *end != '\r')) {
      info->what = "not a number";
      return AF_EPARSE;
    }
    if (!isfinite(v) && rc == AF_OK)
      rc = AF_ENONFINITE;
    if (k < count)
      out[k] = v;
    k++;
    comma = 0;
    p = end;
  }
  if (k != count) {
    info->what = "numbers in the row";
    info->expected = count;
    info->found = k;
    return AF_EPARSE;
  }
  return rc;
}

int af_weights_read(af_weights **wout, const char *path, size_t d, size_t *line)
{
  af_read_info info;
  int rc = af_weights_read_info(wout, &info, path, d);
  if (line)
    *line = info.line;
  return rc;
}

int af_weights_read_info(af_weights **wout, af_read_info *info,
                         const char *path, size_t d)
{
  af_read_info local;
  if (info == NULL)
    info = &local;
  memset(info, 0, sizeof *info);
  if (wout == NULL || path == NULL || d < 1)
    return AF_EINVAL;
  *wout = NULL;
  size_t dd, bytes, max = af_row_line_max(d);
  if (max == 0 || !af_size_mul(&dd, d, d)
      || !af_size_mul(&bytes, dd, sizeof(double)))
    return AF_ENOMEM;
  FILE *f;
  if (af_open_data(&f, path, info) != AF_OK)
    return AF_EIO;
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  char *buf = NULL;
  size_t cap = 0, rows = 0;
  int rc = w ? AF_OK : AF_ENOMEM;
  double **mats[3];
  if (rc == AF_OK) {
    mats[0] = &w->Q[0];
    mats[1] = &w->K[0];
    mats[2] = &w->V[0];
  }
  for (int k = 0; k < 3 && rc == AF_OK; k++) {
    *mats[k] = malloc(bytes);
    if (*mats[k] == NULL) {
      rc = AF_ENOMEM;
      break;
    }
    for (size_t i = 0; i < d && rc == AF_OK; i++) {
      int g = af_next_data_line(&buf, &cap, max, f, info);
      if (g < 0) {
        rc = -g;
        break;
      }
      if (g == 0) {
        rc = AF_EPARSE; /* too few rows */
        info->line++;
        info->what = "rows (Q, K, V: d rows of d numbers each)";
        info->expected = 3 * d;
        info->found = rows;
        break;
      }
      rc = af_parse_row(*mats[k] + i * d, d, buf, info);
      rows++;
    }
  }
  if (rc == AF_OK) {
    int g = af_next_data_line(&buf, &cap, max, f, info);
    if (g < 0)
      rc = -g;
    else if (g > 0) {
      rc = AF_EPARSE; /* extra rows */
      info->what = "rows (Q, K, V: d rows of d numbers each)";
      info->expected = 3 * d;
      info->found = rows + 1;
    }
  }
  if (ferror(f) && rc == AF_OK)
    rc = AF_EIO;
  fclose(f);
  free(buf);
  if (rc != AF_OK) {
    af_weights_free(w);
    return rc;
  }
  info->line = 0;
  *wout = w;
  return AF_OK;
}

/* The set in force at t. */
static size_t weights_set(const af_weights *w, double t)
{
  size_t l = 0;
  if (t > 0) {
    double q = floor(t / w->layer_dt);
    l = q >= (double) w->layers ? w->layers - 1 : (size_t) q;
  }
  return l;
}

void af_weights_at(const double **Q, const double **K, const double **V,
                   const af_weights *w, double t)
{
  af_weights_head_at(Q, K, V, w, t, 0);
}

void af_weights_head_at(const double **Q, const double **K, const double **V,
                        const af_weights *w, double t, size_t h)
{
  if (w == NULL) {
    *Q = *K = *V = NULL;
    return;
  }
  size_t i = weights_set(w, t) * af_weights_heads(w) + h;
  *Q = w->Q[i];
  *K = w->K[i];
  *V = w->V[i];
}
