/* weights_safetensors.c -- per-layer Q, K, V from a safetensors file,
 * read strictly (format: huggingface/safetensors, "Format": an 8-byte
 * little-endian header length N, N bytes of a JSON object (RFC 8259),
 * then the byte buffer the tensors' data_offsets index).
 *
 * The JSON parser reads exactly the subset the format uses: one object
 * whose members are tensors, name -> {"dtype": STRING, "shape": [INT,
 * ...], "data_offsets": [INT, INT]} (each key once, no other key), and at
 * most one "__metadata__" -> {STRING: STRING, ...}; strings with the JSON
 * escapes (a \u escape is kept as '?' in a name), integers without sign,
 * fraction, exponent or leading zero, overflow-checked; blanks between
 * tokens; trailing spaces after the object (the format pads with them).
 * Checked, each failure AF_EPARSE (AF_EDIM, AF_ENONFINITE from the
 * tensors) with a reason naming the tensor: N at most 100 MB (the
 * format's own bound) and inside the file, no control byte inside a
 * string (bytes above 0x7f are taken as they are), dtype F64 or F32, rank at most 4, every name once,
 * begin <= end, end - begin the shape's byte count, and the tensors'
 * ranges, in order of begin, starting at 0, each beginning where the one
 * before ends (no overlap, no gap) and the last ending at the end of the
 * file.  Then names and shapes are weights_named.c's: Q.l, K.l, V.l of
 * shape (d, d). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "weights_named.h"

#define ST_HEADER_MAX 100000000u /* the format's bound on N */
#define ST_TENSORS_MAX 300000    /* 3 AF_WEIGHTS_LAYERS_MAX */

typedef struct {
  const unsigned char *p, *end, *start;
  char *msg;
  size_t cap;
} js;

typedef struct {
  af_named_tensor t;
  uint64_t begin, end;
} st_tensor;

static int jfail(js *j, const char *what)
{
  af_weights_msg(j->msg, j->cap, "header byte %zu: %s",
                 (size_t) (j->p - j->start), what);
  return AF_EPARSE;
}

static void ws(js *j)
{
  while (j->p < j->end
         && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

static int ch(js *j, char c)
{
  ws(j);
  if (j->p < j->end && *j->p == (unsigned char) c) {
    j->p++;
    return 1;
  }
  return 0;
}

static int hexd(unsigned char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
      || (c >= 'A' && c <= 'F');
}

/* A JSON string into buf[0..cap) (buf NULL: checked and skipped);
 * AF_EPARSE if malformed or longer than cap - 1. */
static int jstr(js *j, char *buf, size_t cap)
{
  ws(j);
  if (j->p >= j->end || *j->p != '"')
    return jfail(j, "expected a string");
  j->p++;
  size_t n = 0;
  for (;;) {
    if (j->p >= j->end)
      return jfail(j, "string not closed");
    unsigned char c = *j->p++;
    if (c == '"')
      break;
    if (c < 0x20)
      return jfail(j, "control byte in a string");
    if (c == '\\') {
      if (j->p >= j->end)
        return jfail(j, "string not closed");
      unsigned char e = *j->p++;
      const char *esc = strchr("\"\\/bfnrt", e);
      if (e == 'u') {
        if (j->end - j->p < 4 || !hexd(j->p[0]) || !hexd(j->p[1])
            || !hexd(j->p[2]) || !hexd(j->p[3]))
          return jfail(j, "\\u not followed by 4 hex digits");
        j->p += 4;
        c = '?';
      } else if (e != 0 && esc != NULL)
        c = (unsigned char) "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"];
      else
        return jfail(j, "unknown escape in a string");
    }
    if (buf != NULL) {
      if (n + 1 >= cap)
        return jfail(j, "name longer than 63 bytes");
      buf[n++] = (char) c;
    }
  }
  if (buf != NULL)
    buf[n] = '\0';
  return AF_OK;
}

/* A JSON integer >= 0 that fits in 64 bits. */
static int jint(js *j, uint64_t *v)
{
  ws(j);
  if (j->p >= j->end || *j->p < '0' || *j->p > '9')
    return jfail(j, "expected an integer >= 0");
  if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' && j->p[1] <= '9')
    return jfail(j, "integer with a leading zero");
  uint64_t x = 0;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
    uint64_t dig = (uint64_t) (*j->p++ - '0');
    if (x > (UINT64_MAX - dig) / 10)
      return jfail(j, "integer too large");
    x = 10 * x + dig;
  }
  if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
    return jfail(j, "not an integer (fraction or exponent)");
  *v = x;
  return AF_OK;
}

/* "__metadata__"'s value: an object of strings. */
static int metadata(js *j)
{
  if (!ch(j, '{'))
    return jfail(j, "__metadata__ is not an object");
  if (ch(j, '}'))
    return AF_OK;
  do {
    if (jstr(j, NULL, 0) != AF_OK)
      return AF_EPARSE;
    if (!ch(j, ':'))
      return jfail(j, "expected ':'");
    if (jstr(j, NULL, 0) != AF_OK)
      return jfail(j, "__metadata__ value is not a string");
  } while (ch(j, ','));
  if (!ch(j, '}'))
    return jfail(j, "expected ',' or '}' in __metadata__");
  return AF_OK;
}

/* A tensor's value {"dtype": .., "shape": [..], "data_offsets": [a, b]}. */
static int tensor(js *j, st_tensor *x)
{
  int seen[3] = {0, 0, 0};
  if (!ch(j, '{'))
    return jfail(j, "a tensor's value is not an object");
  do {
    char key[32], val[16];
    if (jstr(j, key, sizeof key) != AF_OK)
      return AF_EPARSE;
    if (!ch(j, ':'))
      return jfail(j, "expected ':'");
    int k = strcmp(key, "dtype") == 0 ? 0
          : strcmp(key, "shape") == 0 ? 1
          : strcmp(key, "data_offsets") == 0 ? 2 : -1;
    if (k < 0)
      return jfail(j, "a tensor key other than dtype, shape, data_offsets");
    if (seen[k]++)
      return jfail(j, "a tensor key given twice");
    if (k == 0) {
      if (jstr(j, val, sizeof val) != AF_OK)
        return AF_EPARSE;
      if (strcmp(val, "F64") == 0)
        x->t.f4 = 0;
      else if (strcmp(val, "F32") == 0)
        x->t.f4 = 1;
      else
        return jfail(j, "dtype not F64 or F32");
    } else if (k == 1) {
      if (!ch(j, '['))
        return jfail(j, "shape is not an array");
      x->t.rank = 0;
      if (!ch(j, ']')) {
        do {
          uint64_t v;
          if (x->t.rank == 4)
            return jfail(j, "shape of rank above 4");
          if (jint(j, &v) != AF_OK)
            return AF_EPARSE;
          if (v > SIZE_MAX)
            return jfail(j, "extent too large");
          x->t.dims[x->t.rank++] = (size_t) v;
        } while (ch(j, ','));
        if (!ch(j, ']'))
          return jfail(j, "expected ',' or ']' in shape");
      }
    } else {
      if (!ch(j, '[') || jint(j, &x->begin) != AF_OK || !ch(j, ',')
          || jint(j, &x->end) != AF_OK || !ch(j, ']'))
        return jfail(j, "data_offsets is not [begin, end]");
    }
  } while (ch(j, ','));
  if (!ch(j, '}'))
    return jfail(j, "expected ',' or '}' in a tensor");
  if (!seen[0] || !seen[1] || !seen[2])
    return jfail(j, "a tensor without dtype, shape or data_offsets");
  return AF_OK;
}

static int by_begin(const void *a, const void *b)
{
  const st_tensor *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int af_weights_parse_safetensors(af_weights **wout, char *msg, size_t cap,
                                 const unsigned char *buf, size_t len,
                                 size_t d, double layer_dt)
{
  if (msg != NULL && cap > 0)
    msg[0] = '\0';
  if (wout != NULL)
    *wout = NULL;
  if (wout == NULL || (buf == NULL && len > 0) || d < 1
      || !(layer_dt > 0) || !isfinite(layer_dt))
    return AF_EINVAL;
  if (len < 8) {
    af_weights_msg(msg, cap, "shorter than the 8-byte header length");
    return AF_EPARSE;
  }
  uint64_t hn = 0;
  for (int i = 7; i >= 0; i--)
    hn = hn << 8 | buf[i];
  if (hn > ST_HEADER_MAX || hn > len - 8) {
    af_weights_msg(msg, cap, "header length %llu larger than %s",
                   (unsigned long long) hn, hn > ST_HEADER_MAX
                   ? "100 MB (the format's bound)" : "the file (truncated?)");
    return AF_EPARSE;
  }
  if (hn < 2 || buf[8] != '{') {
    af_weights_msg(msg, cap, "header is not a JSON object (not a "
                   "safetensors file?)");
    return AF_EPARSE;
  }
  js j = {buf + 8, buf + 8 + hn, buf + 8, msg, cap};
  size_t ncap = 16, nt = 0;
  st_tensor *ts = malloc(ncap * sizeof *ts);
  int rc = ts ? AF_OK : AF_ENOMEM, meta = 0;
  if (rc == AF_OK && !ch(&j, '{'))
    rc = jfail(&j, "expected '{'");
  if (rc == AF_OK && !ch(&j, '}')) {
    do {
      char name[AF_TENSOR_NAME_MAX];
      if ((rc = jstr(&j, name, sizeof name)) != AF_OK)
        break;
      if (!ch(&j, ':')) {
        rc = jfail(&j, "expected ':'");
        break;
      }
      if (strcmp(name, "__metadata__") == 0) {
        if (meta++) {
          rc = jfail(&j, "__metadata__ given twice");
          break;
        }
        if ((rc = metadata(&j)) != AF_OK)
          break;
        continue;
      }
      for (size_t i = 0; i < nt && rc == AF_OK; i++)
        if (strcmp(ts[i].t.name, name) == 0) {
          af_weights_msg(msg, cap, "tensor '%s': given twice", name);
          rc = AF_EPARSE;
        }
      if (rc != AF_OK)
        break;
      if (nt == ST_TENSORS_MAX) {
        rc = jfail(&j, "more tensors than 3 x 100000 sets");
        break;
      }
      if (nt == ncap) {
        st_tensor *nb = realloc(ts, 2 * ncap * sizeof *ts);
        if (nb == NULL) {
          rc = AF_ENOMEM;
          break;
        }
        ts = nb;
        ncap *= 2;
      }
      memset(&ts[nt], 0, sizeof ts[nt]);
      memcpy(ts[nt].t.name, name, sizeof name);
      if ((rc = tensor(&j, &ts[nt])) != AF_OK) {
        char where[200];
        snprintf(where, sizeof where, "tensor '%s': %s", name,
                 msg != NULL ? msg : "");
        af_weights_msg(msg, cap, "%s", where);
        break;
      }
      nt++;
    } while (ch(&j, ','));
    if (rc == AF_OK && !ch(&j, '}'))
      rc = jfail(&j, "expected ',' or '}'");
  }
  if (rc == AF_OK) {
    while (j.p < j.end && *j.p == ' ')
      j.p++;
    if (j.p != j.end)
      rc = jfail(&j, "bytes after the header's object other than spaces");
  }
  /* sizes, then the ranges in order: from 0, no gap, no overlap, to the
   * end of the file */
  uint64_t blen = len - 8 - hn;
  for (size_t i = 0; i < nt && rc == AF_OK; i++) {
    st_tensor *x = &ts[i];
    size_t cnt = 1;
    for (size_t r = 0; r < x->t.rank; r++)
      if (!af_size_mul(&cnt, cnt, x->t.dims[r]))
        cnt = SIZE_MAX;
    if (x->begin > x->end || x->end > blen) {
      af_weights_msg(msg, cap, "tensor '%s': data_offsets [%llu, %llu] %s "
                     "(buffer of %llu bytes)", x->t.name,
                     (unsigned long long) x->begin,
                     (unsigned long long) x->end, x->begin > x->end
                     ? "end before begin" : "past the end of the file",
                     (unsigned long long) blen);
      rc = AF_EPARSE;
    } else if (cnt == SIZE_MAX || cnt > SIZE_MAX / 8
               || x->end - x->begin != (uint64_t) cnt * (x->t.f4 ? 4 : 8)) {
      af_weights_msg(msg, cap, "tensor '%s': data_offsets span %llu bytes, "
                     "not what its shape and dtype need", x->t.name,
                     (unsigned long long) (x->end - x->begin));
      rc = AF_EPARSE;
    } else
      x->t.data = buf + 8 + hn + x->begin;
  }
  if (rc == AF_OK) {
    qsort(ts, nt, sizeof *ts, by_begin);
    uint64_t at = 0;
    for (size_t i = 0; i < nt && rc == AF_OK; i++) {
      if (ts[i].begin != at) {
        if (ts[i].begin < at)
          af_weights_msg(msg, cap, "tensor '%s': data_offsets [%llu, %llu] "
                         "overlap the tensor '%s' ending at %llu",
                         ts[i].t.name, (unsigned long long) ts[i].begin,
                         (unsigned long long) ts[i].end, ts[i - 1].t.name,
                         (unsigned long long) at);
        else
          af_weights_msg(msg, cap, "tensor '%s': %llu unused bytes before "
                         "its data_offsets", ts[i].t.name,
                         (unsigned long long) (ts[i].begin - at));
        rc = AF_EPARSE;
      }
      at = ts[i].end;
    }
    if (rc == AF_OK && at != blen) {
      af_weights_msg(msg, cap, "%llu bytes after the last tensor's data "
                     "(the data must cover the buffer)",
                     (unsigned long long) (blen - at));
      rc = AF_EPARSE;
    }
  }
  if (rc == AF_OK) {
    af_named_tensor *t = malloc((nt > 0 ? nt : 1) * sizeof *t);
    if (t == NULL)
      rc = AF_ENOMEM;
    for (size_t i = 0; t != NULL && i < nt; i++)
      t[i] = ts[i].t;
    if (t != NULL)
      rc = af_weights_from_named(wout, msg, cap, t, nt, d, layer_dt);
    free(t);
  }
  free(ts);
  return rc;
}

int af_weights_read_safetensors(af_weights **wout, af_read_info *info,
                                char *msg, size_t cap, const char *path,
                                size_t d, double layer_dt)
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
  unsigned char *buf;
  size_t len;
  int rc = af_weights_file_bytes(&buf, &len, &info->what, path);
  if (rc != AF_OK)
    return rc;
  int err = errno;
  rc = af_weights_parse_safetensors(wout, msg, cap, buf, len, d, layer_dt);
  if (rc != AF_OK && msg != NULL && cap > 0 && msg[0] != '\0')
    info->what = msg;
  free(buf);
  errno = err;
  return rc;
}
