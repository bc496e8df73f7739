/* weights_named.c -- per-layer Q, K, V from named tensors: the part the
 * .npz (weights_npz.c) and safetensors (weights_safetensors.c) readers
 * share, and the bounded whole-file read of every binary weight reader.
 *
 * Names (docs/weights.md): "Q.l", "K.l", "V.l" for the set l = 0, 1, ...
 * (decimal, no leading zero, at most AF_WEIGHTS_LAYERS_MAX sets), each of
 * shape (d, d), row-major as af_weights: entry [a][b] is Q_ab, so
 * (Q th)_a = sum_b Q_ab th_b.  Every name of the file must be one of
 * these, given once (the container readers refuse a repeated name), and
 * every set 0..L-1 must be complete.  Each failure names the tensor or
 * the set and says why. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "weights_named.h"

void af_weights_msg(char *msg, size_t cap, const char *fmt, ...)
{
  if (msg == NULL || cap == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
}

int af_weights_file_bytes(unsigned char **out, size_t *outlen,
                          const char **what, const char *path)
{
  *out = NULL;
  *outlen = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return AF_EIO;
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  int rc = buf ? AF_OK : AF_ENOMEM;
  while (rc == AF_OK) {
    if (len == cap) {
      if (cap > AF_WEIGHTS_FILE_MAX) {
        *what = "file larger than 2 GiB";
        rc = AF_EPARSE;
        break;
      }
      unsigned char *nb = realloc(buf, 2 * cap);
      if (nb == NULL) {
        rc = AF_ENOMEM;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f))
        rc = AF_EIO;
      break;
    }
  }
  int err = errno;
  fclose(f);
  if (rc != AF_OK) {
    free(buf);
    errno = err;
    return rc;
  }
  *out = buf;
  *outlen = len;
  errno = err;
  return AF_OK;
}

/* "Q.l", "K.l", "V.l": the matrix (0, 1, 2) in *k and l in *l; 0 if the
 * name is not one of them. */
static int weight_name(const char *s, int *k, size_t *l)
{
  const char *ks = "QKV", *p = strchr(ks, s[0]);
  if (s[0] == '\0' || p == NULL || s[1] != '.')
    return 0;
  *k = (int) (p - ks);
  s += 2;
  if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
    return 0;
  size_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return 0;
    v = 10 * v + (size_t) (*s - '0');
    if (v >= AF_WEIGHTS_LAYERS_MAX)
      return 0;
  }
  *l = v;
  return 1;
}

int af_weights_from_named(af_weights **wout, char *msg, size_t cap,
                          const af_named_tensor *t, size_t nt, size_t d,
                          double layer_dt)
{
  *wout = NULL;
  size_t L = 0;
  for (size_t i = 0; i < nt; i++) {
    int k;
    size_t l;
    if (!weight_name(t[i].name, &k, &l)) {
      af_weights_msg(msg, cap, "tensor '%s': not a weight name (Q.l, K.l "
                     "or V.l with l = 0, 1, ... below %d)", t[i].name,
                     AF_WEIGHTS_LAYERS_MAX);
      return AF_EPARSE;
    }
    if (t[i].rank != 2 || t[i].dims[0] != d || t[i].dims[1] != d) {
      char sh[80] = "";
      size_t o = 0;
      for (size_t r = 0; r < t[i].rank && o < sizeof sh; r++)
        o += (size_t) snprintf(sh + o, sizeof sh - o, "%s%zu", r ? ", " : "",
                               t[i].dims[r]);
      af_weights_msg(msg, cap, "tensor '%s': shape (%s) is not (d, d) for "
                     "the run's d = %zu", t[i].name, sh, d);
      return AF_EDIM;
    }
    if (l + 1 > L)
      L = l + 1;
  }
  if (L == 0) {
    af_weights_msg(msg, cap, "no tensor Q.0, K.0, V.0 (no weights)");
    return AF_EDIM;
  }
  size_t dd;
  if (!af_size_mul(&dd, d, d) || dd > AF_WEIGHTS_FILE_MAX / sizeof(double)) {
    af_weights_msg(msg, cap, "d x d larger than 2 GiB");
    return AF_EDIM;
  }
  af_weights *w = af_weights_alloc(d, L, layer_dt);
  if (w == NULL)
    return AF_ENOMEM;
  for (size_t i = 0; i < nt; i++) {
    int k;
    size_t l;
    weight_name(t[i].name, &k, &l);
    double **slot = k == 0 ? &w->Q[l] : k == 1 ? &w->K[l] : &w->V[l];
    if (*slot != NULL) { /* the containers refuse repeats; kept strict */
      af_weights_msg(msg, cap, "tensor '%s': given twice", t[i].name);
      af_weights_free(w);
      return AF_EPARSE;
    }
    double *M = malloc(dd * sizeof *M);
    if (M == NULL) {
      af_weights_free(w);
      return AF_ENOMEM;
    }
    *slot = M;
    size_t isz = t[i].f4 ? 4 : 8;
    for (size_t j = 0; j < dd; j++) {
      M[j] = af_npy_get_le(t[i].data + j * isz, t[i].f4);
      if (!isfinite(M[j])) {
        af_weights_msg(msg, cap, "tensor '%s': entry [%zu][%zu] is NaN or "
                       "infinite", t[i].name, j / d, j % d);
        af_weights_free(w);
        return AF_ENONFINITE;
      }
    }
  }
  for (size_t l = 0; l < L; l++) {
    const double *m3[3] = {w->Q[l], w->K[l], w->V[l]};
    for (int k = 0; k < 3; k++)
      if (m3[k] == NULL) {
        af_weights_msg(msg, cap, "set %zu of %zu: tensor '%c.%zu' missing "
                       "(every set needs Q, K and V)", l, L, "QKV"[k], l);
        af_weights_free(w);
        return AF_EDIM;
      }
  }
  *wout = w;
  return AF_OK;
}
