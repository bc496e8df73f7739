/* init.c -- seeded initial conditions (uniform, gaussian, orthonormal,
 * cap:DELTA, hemisphere, file:PATH).  Random draws use GSL's mt19937 with
 * the given seed, so a (spec, n, d, seed) quadruple names one state. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "internal.h"

/* model.c */
int af_parse_row(double *out, size_t count, const char *s,
                 af_read_info *info);
size_t af_row_line_max(size_t d);
int af_next_data_line(char **buf, size_t *cap, size_t max, FILE *f,
                      af_read_info *info);

/* Uniform direction on S^{d-1}: a normalized standard Gaussian vector
 * (redrawn in the probability-zero event of the zero vector). */
static void draw_direction(double *x, size_t d, gsl_rng *r, double *norm)
{
  double s;
  do {
    s = 0;
    for (size_t i = 0; i < d; i++) {
      x[i] = gsl_ran_gaussian_ziggurat(r, 1.0);
      s += x[i] * x[i];
    }
  } while (s == 0);
  s = sqrt(s);
  if (norm)
    *norm = s;
  for (size_t i = 0; i < d; i++)
    x[i] /= s;
}

/* cap:DELTA: every token within angle phi of a random centre c, with
 * cos(2 phi) = 1 - DELTA, so every pairwise angle is at most 2 phi and
 * every pairwise cosine at least 1 - DELTA.  Token j is
 * cos(psi) c + sin(psi) u with psi uniform in [0, phi] and u a uniform
 * unit vector orthogonal to c. */
static int draw_cap(double *y, size_t n, size_t d, double delta, gsl_rng *r)
{
  double *c = calloc(d, sizeof(double)), *u = calloc(d, sizeof(double));
  if (c == NULL || u == NULL) {
    free(c);
    free(u);
    return AF_ENOMEM;
  }
  double phi = 0.5 * acos(1.0 - delta);
  draw_direction(c, d, r, NULL);
  for (size_t j = 0; j < n; j++) {
    double *x = y + j * d;
    double psi = phi * gsl_rng_uniform(r);
    double q = 0;
    if (d > 1) {
      int tries = 0;
      do { /* tangent direction: project a random direction off c */
        draw_direction(u, d, r, NULL);
        double p = 0;
        for (size_t i = 0; i < d; i++)
          p += u[i] * c[i];
        q = 0;
        for (size_t i = 0; i < d; i++) {
          u[i] -= p * c[i];
          q += u[i] * u[i];
        }
      } while (q == 0 && ++tries < 100);
    }
    q = sqrt(q);
    for (size_t i = 0; i < d; i++)
      x[i] = cos(psi) * c[i] + (q > 0 ? sin(psi) * u[i] / q : 0.0);
    /* renormalize: cos and sin are rounded */
    double s = 0;
    for (size_t i = 0; i < d; i++)
      s += x[i] * x[i];
    s = sqrt(s);
    for (size_t i = 0; i < d; i++)
      x[i] /= s;
  }
  free(c);
  free(u);
  return AF_OK;
}

/* Norm of x (d entries): |x| = m |x/m| with m = max |x_i| where the
 * plain sum of squares would lose digits (below DBL_MIN / DBL_EPSILON,
 * where squares become subnormal, e.g. rows of norm 1e-160) or overflow
 * (rows of norm 1e200); the plain sum elsewhere, so that ordinary rows
 * keep their bits.  Writes the direction x / |x| into x.  AF_EZERONORM,
 * AF_ENONFINITE (only if |x| itself overflows). */
static int normalize_row(double *x, size_t d, double *norm)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += x[i] * x[i];
  if (isfinite(s) && s >= DBL_MIN / DBL_EPSILON) {
    s = sqrt(s);
    for (size_t i = 0; i < d; i++)
      x[i] /= s;
    *norm = s;
    return AF_OK;
  }
  double m = 0;
  for (size_t i = 0; i < d; i++)
    m = fmax(m, fabs(x[i]));
  if (m == 0)
    return AF_EZERONORM;
  if (!isfinite(m))
    return AF_ENONFINITE;
  double q = 0;
  for (size_t i = 0; i < d; i++) {
    x[i] /= m;
    q += x[i] * x[i];
  }
  q = sqrt(q); /* in [1, sqrt(d)] */
  for (size_t i = 0; i < d; i++)
    x[i] /= q;
  *norm = m * q;
  return isfinite(*norm) ? AF_OK : AF_ENONFINITE;
}

int af_init_read_file(double *y, size_t *line, const char *path, size_t n,
                      size_t d)
{
  af_read_info info;
  int rc = af_init_read_file_info(y, &info, path, n, d);
  if (line)
    *line = info.line;
  return rc;
}

int af_init_read_file_info(double *y, af_read_info *info, const char *path,
                           size_t n, size_t d)
{
  af_read_info local;
  if (info == NULL)
    info = &local;
  memset(info, 0, sizeof *info);
  if (y == NULL || path == NULL || n < 1 || d < 1)
    return AF_EINVAL;
  size_t nd, max = af_row_line_max(d);
  if (max == 0 || !af_size_mul(&nd, n, d))
    return AF_ENOMEM;
  FILE *f;
  if (af_open_data(&f, path, info) != AF_OK)
    return AF_EIO;
  char *buf = NULL;
  size_t cap = 0, rows = 0;
  int rc = AF_OK, g;
  while ((g = af_next_data_line(&buf, &cap, max, f, info)) > 0) {
    if (rows == n) {
      rc = AF_EDIM; /* more token rows than n */
      info->what = "token rows";
      info->expected = n;
      info->found = n + 1;
      break;
    }
    double *x = y + rows * d;
    rc = af_parse_row(x, d, buf, info);
    if (rc != AF_OK)
      break;
    rc = normalize_row(x, d, &y[nd + rows]);
    if (rc != AF_OK)
      break;
    rows++;
  }
  if (g < 0)
    rc = -g;
  if (rc == AF_OK && ferror(f))
    rc = AF_EIO;
  if (rc == AF_OK && rows < n) {
    rc = AF_EDIM; /* fewer token rows than n */
    info->line++;
    info->what = "token rows";
    info->expected = n;
    info->found = rows;
  }
  free(buf);
  fclose(f);
  if (rc == AF_OK)
    info->line = 0;
  return rc;
}

int af_init_state(double *y, size_t *line, const char *spec, size_t n,
                  size_t d, double r0, unsigned long seed)
{
  if (line)
    *line = 0;
  if (y == NULL || spec == NULL || n < 1 || d < 1)
    return AF_EINVAL;
  if (!isnan(r0) && !(isfinite(r0) && r0 > 0))
    return AF_EINVAL;
  double rad = isnan(r0) ? 1.0 : r0;
  if (strncmp(spec, "file:", 5) == 0) {
    int rc = af_init_read_file(y, line, spec + 5, n, d);
    if (rc == AF_OK && !isnan(r0))
      for (size_t j = 0; j < n; j++)
        y[n * d + j] = r0;
    return rc;
  }
  double delta = 0;
  enum { UNIFORM, GAUSSIAN, ORTHO, CAP, HEMI } kind;
  if (strcmp(spec, "uniform") == 0)
    kind = UNIFORM;
  else if (strcmp(spec, "gaussian") == 0)
    kind = GAUSSIAN;
  else if (strcmp(spec, "orthonormal") == 0)
    kind = ORTHO;
  else if (strcmp(spec, "hemisphere") == 0)
    kind = HEMI;
  else if (strncmp(spec, "cap:", 4) == 0) {
    char *end;
    errno = 0;
    delta = strtod(spec + 4, &end);
    if (end == spec + 4 || *end != '\0' || errno || !(delta >= 0)
        || !(delta <= 2))
      return AF_EINVAL;
    kind = CAP;
  } else
    return AF_EINVAL;
  if (kind == ORTHO && n > d)
    return AF_EDIM;
  size_t nd, bytes;
  if (!af_size_mul(&nd, n, d) || !af_size_mul(&bytes, nd, sizeof(double))
      || af_state_size(n, d) == 0)
    return AF_ENOMEM; /* no array of that size exists */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (r == NULL)
    return AF_ENOMEM;
  gsl_rng_set(r, seed);
  switch (kind) {
  case ORTHO:
    memset(y, 0, bytes);
    for (size_t j = 0; j < n; j++)
      y[j * d + j] = 1.0;
    break;
  case CAP:
    if (draw_cap(y, n, d, delta, r) != AF_OK) {
      gsl_rng_free(r);
      return AF_ENOMEM;
    }
    break;
  default:
    for (size_t j = 0; j < n; j++) {
      double *x = y + j * d, norm;
      draw_direction(x, d, r, &norm);
      if (kind == HEMI) {
        while (x[0] == 0)
          draw_direction(x, d, r, &norm);
        if (x[0] < 0)
          for (size_t i = 0; i < d; i++)
            x[i] = -x[i];
      }
      if (kind == GAUSSIAN && isnan(r0))
        y[n * d + j] = norm;
    }
  }
  if (kind != GAUSSIAN || !isnan(r0))
    for (size_t j = 0; j < n; j++)
      y[n * d + j] = rad;
  gsl_rng_free(r);
  return AF_OK;
}
