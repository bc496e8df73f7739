/* weights_named.c -- per-layer Q, K, V from named tensors: the part the
 * .npz (weights_npz.c) and safetensors (weights_safetensors.c) readers
 * share, and the bounded whole-file read of every binary weight reader.
 *
 * Names (docs/weights.md): "Q.l", "K.l", "V.l" for the set l = 0, 1, ...
 * (decimal, no leading zero, at most AF_WEIGHTS_LAYERS_MAX sets), or
 * "Q.l.h", "K.l.h", "V.l.h" for head h = 0, 1, ... of set l (below
 * AF_WEIGHTS_HEADS_MAX, L H at most AF_WEIGHTS_TRIPLES_MAX; a file uses
 * one of the two forms for all its names, every (l, h) complete), each of
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

/* A decimal index without leading zero, below lim, at *s up to '.' or the
 * end: its value in *v and the character after it; NULL if none. */
static const char *index_part(const char *s, size_t lim, size_t *v)
{
  if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
    return NULL;
  size_t x = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    x = 10 * x + (size_t) (*s - '0');
    if (x >= lim)
      return NULL;
  }
  *v = x;
  return s;
}

/* "Q.l", "K.l", "V.l" (2 parts) or "Q.l.h", "K.l.h", "V.l.h" (3 parts,
 * head h): the matrix (0, 1, 2) in *k, l in *l, h in *h (0 for 2 parts);
 * returns the number of parts, 0 if the name is not one of them. */
static int weight_name(const char *s, int *k, size_t *l, size_t *h)
{
  const char *ks = "QKV", *p = strchr(ks, s[0]);
  if (s[0] == '\0' || p == NULL || s[1] != '.')
    return 0;
  *k = (int) (p - ks);
  s = index_part(s + 2, AF_WEIGHTS_LAYERS_MAX, l);
  if (s == NULL)
    return 0;
  *h = 0;
  if (*s == '\0')
    return 2;
  if (*s != '.')
    return 0;
  s = index_part(s + 1, AF_WEIGHTS_HEADS_MAX, h);
  return s != NULL && *s == '\0' ? 3 : 0;
}

int af_weights_from_named(af_weights **wout, char *msg, size_t cap,
                          const af_named_tensor *t, size_t nt, size_t d,
                          double layer_dt)
{
  *wout = NULL;
  size_t L = 0, H = 0;
  int parts = 0; /* of the first name: every name has as many */
  for (size_t i = 0; i < nt; i++) {
    int k, np;
    size_t l, h;
    if (!(np = weight_name(t[i].name, &k, &l, &h))) {
      af_weights_msg(msg, cap, "tensor '%s': not a weight name (Q.l, K.l "
                     "or V.l with l = 0, 1, ... below %d, or Q.l.h, K.l.h, "
                     "V.l.h with head h below %d)", t[i].name,
                     AF_WEIGHTS_LAYERS_MAX, AF_WEIGHTS_HEADS_MAX);
      return AF_EPARSE;
    }
    if (parts == 0)
      parts = np;
    else if (np != parts) {
      af_weights_msg(msg, cap, "tensor '%s': names of %d parts mixed with "
                     "names of %d parts (a file names all its tensors "
                     "Q.l, K.l, V.l or all Q.l.h, K.l.h, V.l.h)",
                     t[i].name, np, parts);
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
    if (h + 1 > H)
      H = h + 1;
  }
  if (L == 0) {
    af_weights_msg(msg, cap, "no tensor Q.0, K.0, V.0 (no weights)");
    return AF_EDIM;
  }
  if (H > 1 && L * H > AF_WEIGHTS_TRIPLES_MAX) { /* both bounded: no wrap */
    af_weights_msg(msg, cap, "%zu sets of %zu heads: more than %d triples "
                   "Q, K, V", L, H, AF_WEIGHTS_TRIPLES_MAX);
    return AF_EDIM;
  }
  size_t dd;
  if (!af_size_mul(&dd, d, d) || dd > AF_WEIGHTS_FILE_MAX / sizeof(double)) {
    af_weights_msg(msg, cap, "d x d larger than 2 GiB");
    return AF_EDIM;
  }
  af_weights *w = af_weights_alloc_heads(d, L, H, layer_dt);
  if (w == NULL)
    return AF_ENOMEM;
  for (size_t i = 0; i < nt; i++) {
    int k;
    size_t l, h;
    weight_name(t[i].name, &k, &l, &h);
    size_t x = l * H + h;
    double **slot = k == 0 ? &w->Q[x] : k == 1 ? &w->K[x] : &w->V[x];
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
  for (size_t x = 0; x < L * H; x++) {
    const double *m3[3] = {w->Q[x], w->K[x], w->V[x]};
    size_t l = x / H, h = x % H;
    for (int k = 0; k < 3; k++)
      if (m3[k] == NULL) {
        if (parts == 2)
          af_weights_msg(msg, cap, "set %zu of %zu: tensor '%c.%zu' missing "
                         "(every set needs Q, K and V)", l, L, "QKV"[k], l);
        else
          af_weights_msg(msg, cap, "set %zu of %zu, head %zu of %zu: tensor "
                         "'%c.%zu.%zu' missing (every set needs Q, K and V "
                         "of every head)", l, L, h, H, "QKV"[k], l, h);
        af_weights_free(w);
        return AF_EDIM;
      }
  }
  *wout = w;
  return AF_OK;
}
