/* weights_npy.c -- per-layer Q, K, V from a NumPy .npy file, read
 * strictly (format: NumPy Enhancement Proposal 1, "A simple file format
 * for NumPy arrays", versions 1.0, 2.0 and 3.0).
 *
 * The file holds one array of float64 ('<f8') or float32 ('<f4'), C
 * order, of shape (3, d, d) -- one set Q, K, V -- or (L, 3, d, d) -- L
 * sets, set l in force on [l layer_dt, (l + 1) layer_dt) as in
 * af_weights -- or (L, H, 3, d, d) -- L sets of H heads, summed
 * (docs/weights.md).  Matrices are row-major: entry [l][0][a][b] is Q_ab of set
 * l, so (Q th)_a = sum_b Q_ab th_b (the convention of the text format).
 *
 * Checked, every failure AF_EPARSE (or AF_EDIM for a shape that does not
 * match d) with a static reason in info->what: the magic "\x93NUMPY", the
 * version (1, 2 or 3 major, 0 minor), the header length (at most 64 KiB,
 * inside the file), the header dict parsed as the Python literal NumPy
 * writes -- exactly the keys 'descr', 'fortran_order' and 'shape', each
 * once, a trailing comma allowed, blanks, then one newline -- the dtype,
 * C order, the shape (rank 3, 4 or 5, every extent >= 1, at most
 * AF_NPY_LAYERS_MAX sets, AF_WEIGHTS_HEADS_MAX heads, L H at most
 * AF_WEIGHTS_TRIPLES_MAX), the data size (products overflow-checked)
 * equal to the bytes left in the file, and every number finite. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "weights_named.h"

#define NPY_HEADER_MAX 65536
#define NPY_FILE_MAX AF_WEIGHTS_FILE_MAX
#define AF_NPY_LAYERS_MAX AF_WEIGHTS_LAYERS_MAX

typedef struct {
  const char *p, *end;
} cur;

static void blanks(cur *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
    c->p++;
}

static int lit(cur *c, const char *s)
{
  size_t n = strlen(s);
  if ((size_t) (c->end - c->p) < n || memcmp(c->p, s, n) != 0)
    return 0;
  c->p += n;
  return 1;
}

/* A quoted Python string (no escapes: NumPy's keys and dtypes need none)
 * into buf of cap bytes. */
static int qstr(cur *c, char *buf, size_t cap)
{
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return 0;
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || n + 1 >= cap)
      return 0;
    buf[n++] = *c->p++;
  }
  if (c->p >= c->end)
    return 0;
  c->p++;
  buf[n] = '\0';
  return 1;
}

/* The shape tuple: "(a, b, c)" with an optional trailing comma. */
static int shape_tuple(cur *c, size_t *dims, size_t *rank)
{
  if (!lit(c, "("))
    return 0;
  *rank = 0;
  for (;;) {
    blanks(c);
    if (lit(c, ")"))
      return 1;
    if (*rank == AF_NPY_RANK_MAX || c->p >= c->end || *c->p < '0' || *c->p > '9')
      return 0;
    size_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      size_t dig = (size_t) (*c->p++ - '0');
      if (v > (SIZE_MAX - dig) / 10)
        return 0;
      v = v * 10 + dig;
    }
    while (c->p < c->end && *c->p == 'L') /* Python 2's long suffix */
      c->p++;
    dims[(*rank)++] = v;
    blanks(c);
    if (lit(c, ","))
      continue;
    blanks(c);
    if (lit(c, ")"))
      return 1;
    return 0;
  }
}

/* Parse the header dict [p, p + len). */
static int header(const char *p, size_t len, int *f4, size_t *dims,
                  size_t *rank, const char **what)
{
  cur c = {p, p + len};
  int seen[3] = {0, 0, 0};
  blanks(&c);
  if (!lit(&c, "{")) {
    *what = "header: not a dict";
    return AF_EPARSE;
  }
  for (;;) {
    blanks(&c);
    if (lit(&c, "}"))
      break;
    char key[32], val[32];
    if (!qstr(&c, key, sizeof key)) {
      *what = "header: expected a quoted key";
      return AF_EPARSE;
    }
    blanks(&c);
    if (!lit(&c, ":")) {
      *what = "header: expected ':'";
      return AF_EPARSE;
    }
    blanks(&c);
    int k = strcmp(key, "descr") == 0 ? 0
          : strcmp(key, "fortran_order") == 0 ? 1
          : strcmp(key, "shape") == 0 ? 2 : -1;
    if (k < 0) {
      *what = "header: a key other than descr, fortran_order, shape";
      return AF_EPARSE;
    }
    if (seen[k]) {
      *what = "header: a key given twice";
      return AF_EPARSE;
    }
    seen[k] = 1;
    if (k == 0) {
      if (!qstr(&c, val, sizeof val)) {
        *what = "header: descr is not a string";
        return AF_EPARSE;
      }
      if (strcmp(val, "<f8") == 0)
        *f4 = 0;
      else if (strcmp(val, "<f4") == 0)
        *f4 = 1;
      else {
        *what = "dtype not '<f8' or '<f4' (little-endian float64/float32)";
        return AF_EPARSE;
      }
    } else if (k == 1) {
      if (lit(&c, "True")) {
        *what = "fortran_order True (C order only)";
        return AF_EPARSE;
      }
      if (!lit(&c, "False")) {
        *what = "header: fortran_order is not False";
        return AF_EPARSE;
      }
    } else if (!shape_tuple(&c, dims, rank)) {
      *what = "header: shape is not a tuple of at most 4 integers";
      return AF_EPARSE;
    }
    blanks(&c);
    if (lit(&c, ","))
      continue;
    blanks(&c);
    if (lit(&c, "}"))
      break;
    *what = "header: expected ',' or '}'";
    return AF_EPARSE;
  }
  if (!seen[0] || !seen[1] || !seen[2]) {
    *what = "header: descr, fortran_order or shape missing";
    return AF_EPARSE;
  }
  /* blanks (NumPy pads with spaces), then exactly one newline at the end */
  while (c.p < c.end && *c.p == ' ')
    c.p++;
  if (c.end - c.p != 1 || *c.p != '\n') {
    *what = "header: not ended by padding and one newline";
    return AF_EPARSE;
  }
  return AF_OK;
}

double af_npy_get_le(const unsigned char *b, int f4)
{
  if (f4) {
    uint32_t u = (uint32_t) b[0] | (uint32_t) b[1] << 8
               | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
    float x;
    memcpy(&x, &u, sizeof x);
    return (double) x;
  }
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--)
    u = u << 8 | b[i];
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

int af_npy_head(af_npy_view *v, const char **what, const unsigned char *buf,
                size_t len)
{
  if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
    *what = "not a .npy file (magic)";
    return AF_EPARSE;
  }
  unsigned major = buf[6], minor = buf[7];
  size_t hlen, off;
  if (major == 1) {
    hlen = (size_t) buf[8] | (size_t) buf[9] << 8;
    off = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) {
      *what = "truncated header length";
      return AF_EPARSE;
    }
    hlen = (size_t) buf[8] | (size_t) buf[9] << 8 | (size_t) buf[10] << 16
         | (size_t) buf[11] << 24;
    off = 12;
  } else {
    *what = "version not 1.0, 2.0 or 3.0";
    return AF_EPARSE;
  }
  if (minor != 0) {
    *what = "version not 1.0, 2.0 or 3.0";
    return AF_EPARSE;
  }
  if (hlen > NPY_HEADER_MAX || hlen > len - off) {
    *what = "header longer than 64 KiB or than the file";
    return AF_EPARSE;
  }
  for (size_t i = 0; i < hlen; i++)
    if (buf[off + i] == 0 || buf[off + i] > 0x7e) {
      *what = "header: NUL or non-ASCII byte";
      return AF_EPARSE;
    }
  int rc = header((const char *) buf + off, hlen, &v->f4, v->dims, &v->rank,
                  what);
  if (rc != AF_OK)
    return rc;
  v->off = off + hlen;
  return AF_OK;
}

int af_weights_parse_npy(af_weights **wout, const char **what,
                         const unsigned char *buf, size_t len, size_t d,
                         double layer_dt)
{
  const char *local;
  if (what == NULL)
    what = &local;
  *what = NULL;
  if (wout != NULL)
    *wout = NULL;
  if (wout == NULL || (buf == NULL && len > 0) || d < 1
      || !(layer_dt > 0) || !isfinite(layer_dt))
    return AF_EINVAL;
  *wout = NULL;
  af_npy_view v;
  int rc = af_npy_head(&v, what, buf, len);
  if (rc != AF_OK)
    return rc;
  int f4 = v.f4;
  size_t *dims = v.dims, rank = v.rank, off = v.off;
  size_t L = 1, H = 1, base = 0;
  if (rank == 4) {
    L = dims[0];
    base = 1;
  } else if (rank == 5) {
    L = dims[0];
    H = dims[1];
    base = 2;
  } else if (rank != 3) {
    *what = "shape not (3, d, d), (L, 3, d, d) or (L, H, 3, d, d)";
    return AF_EDIM;
  }
  if (L < 1 || L > AF_NPY_LAYERS_MAX) {
    *what = "number of layer sets L not in [1, 100000]";
    return AF_EDIM;
  }
  if (H < 1 || H > AF_WEIGHTS_HEADS_MAX) {
    *what = "number of heads H not in [1, 4096]";
    return AF_EDIM;
  }
  if (H > 1 && L * H > AF_WEIGHTS_TRIPLES_MAX) { /* both bounded: no wrap */
    *what = "L * H above 100000 triples Q, K, V";
    return AF_EDIM;
  }
  if (dims[base] != 3 || dims[base + 1] != d || dims[base + 2] != d) {
    *what = "shape not (3, d, d), (L, 3, d, d) or (L, H, 3, d, d) for the "
            "run's d";
    return AF_EDIM;
  }
  size_t dd, count, bytes, isz = f4 ? 4 : 8;
  if (!af_size_mul(&dd, d, d) || !af_size_mul(&count, dd, 3)
      || !af_size_mul(&count, count, L) || !af_size_mul(&count, count, H)
      || !af_size_mul(&bytes, count, isz) || bytes > NPY_FILE_MAX) {
    *what = "array larger than 2 GiB";
    return AF_EDIM;
  }
  if (len - off != bytes) {
    *what = len - off < bytes ? "data shorter than the shape says"
                              : "bytes after the data";
    return AF_EPARSE;
  }
  af_weights *w = af_weights_alloc_heads(d, L, H, layer_dt);
  if (w == NULL)
    return AF_ENOMEM;
  const unsigned char *p = buf + off;
  /* C order: [l][h][k] is triple l H + h, as af_weights indexes heads */
  for (size_t l = 0; l < L * H; l++) {
    double **mats[3] = {&w->Q[l], &w->K[l], &w->V[l]};
    for (int k = 0; k < 3; k++) {
      double *M = malloc(dd * sizeof *M);
      if (M == NULL) {
        af_weights_free(w);
        return AF_ENOMEM;
      }
      *mats[k] = M;
      for (size_t i = 0; i < dd; i++, p += isz) {
        M[i] = af_npy_get_le(p, f4);
        if (!isfinite(M[i])) {
          *what = "a weight is NaN or infinite";
          af_weights_free(w);
          return AF_ENONFINITE;
        }
      }
    }
  }
  *wout = w;
  return AF_OK;
}

int af_weights_read_npy(af_weights **wout, af_read_info *info,
                        const char *path, size_t d, double layer_dt)
{
  af_read_info local;
  if (info == NULL)
    info = &local;
  memset(info, 0, sizeof *info);
  if (wout != NULL)
    *wout = NULL;
  if (wout == NULL || path == NULL || d < 1 || !(layer_dt > 0)
      || !isfinite(layer_dt))
    return AF_EINVAL;
  *wout = NULL;
  unsigned char *buf;
  size_t len;
  int rc = af_weights_file_bytes(&buf, &len, &info->what, path);
  if (rc != AF_OK)
    return rc;
  int err = errno;
  rc = af_weights_parse_npy(wout, &info->what, buf, len, d, layer_dt);
  free(buf);
  errno = err;
  return rc;
}
