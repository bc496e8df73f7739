/* weights_npz.c -- per-layer Q, K, V from a NumPy .npz archive, read
 * strictly: a ZIP file (PKWARE, APPNOTE.TXT 6.3) as numpy.savez writes it
 * (stored entries) or numpy.savez_compressed (raw deflate, RFC 1951,
 * inflated with zlib), each entry NAME.npy one .npy array (weights_npy.c's
 * header parser) named by weights_named.c's rules: Q.l, K.l, V.l of shape
 * (d, d).
 *
 * Checked, each failure AF_EPARSE (AF_EDIM, AF_ENONFINITE from the
 * tensors) with a reason naming the entry: the end-of-central-directory
 * record (the last one, ending the file exactly: no archive comment, no
 * multi-disk or ZIP64 archive), the central directory inside the file and
 * directly before that record, at most AF_NPZ_ENTRIES entries; for each
 * entry its signature, flags (no encryption), method (0 stored or 8
 * deflate), name (printable ASCII ending in ".npy", not repeated), extra
 * fields (bounded; a ZIP64 field gives sizes only where the 32-bit field is
 * 0xffffffff), the local header (inside the file, the same name, method
 * and, unless bit 3 defers them to a data descriptor, CRC and sizes), the
 * data inside the file and before the central directory, entries not
 * overlapping, the uncompressed size no more than a (d, d) float64 array
 * with its largest header needs, stored sizes equal, the deflate stream
 * ending exactly at both stated sizes, and the CRC-32 of the uncompressed
 * bytes equal to the stored one.  Then each entry must be a .npy array of
 * '<f8' or '<f4', C order, whose data fill the entry exactly. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "internal.h"
#include "weights_named.h"

#define AF_NPZ_ENTRIES 300000 /* 3 AF_WEIGHTS_LAYERS_MAX */
#define NPY_HEAD_MAX (12 + 65536)

static uint32_t le16(const unsigned char *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
       | (uint32_t) p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
  return (uint64_t) le32(p) | (uint64_t) le32(p + 4) << 32;
}

typedef struct {
  char name[AF_TENSOR_NAME_MAX + 4]; /* with ".npy" */
  unsigned flags, method;
  uint32_t crc;
  uint64_t csize, usize, off; /* sizes, local header offset */
  uint64_t data, end;         /* the entry's data [data, end) */
  unsigned char *raw;         /* inflated bytes (deflate), else NULL */
} entry;

/* The extra fields ex[0..n): well formed (id, size, data within n); a
 * ZIP64 field (id 1) replaces, in order, those of *usize, *csize, *off
 * (off may be NULL: a local header has none) that are 0xffffffff.  0 with
 * *why on a defect. */
static int extras(const unsigned char *ex, size_t n, uint64_t *usize,
                  uint64_t *csize, uint64_t *off, const char **why)
{
  int z64 = 0;
  while (n > 0) {
    if (n < 4) {
      *why = "extra field truncated";
      return 0;
    }
    size_t id = le16(ex), sz = le16(ex + 2);
    if (sz > n - 4) {
      *why = "extra field longer than its header says";
      return 0;
    }
    if (id == 1) {
      if (z64++) {
        *why = "two ZIP64 extra fields";
        return 0;
      }
      uint64_t *f[3] = {usize, csize, off};
      size_t q = 0;
      for (int k = 0; k < 3; k++)
        if (f[k] != NULL && *f[k] == 0xffffffffu) {
          if (q + 8 > sz) {
            *why = "ZIP64 extra field too short for its sizes";
            return 0;
          }
          *f[k] = le64(ex + 4 + q);
          q += 8;
        }
      /* Python's zipfile writes both sizes in a local header's field even
       * when the 32-bit ones hold them: accepted if they agree. */
      if (off == NULL && q == 0 && sz >= 16
          && (le64(ex + 4) != *usize || le64(ex + 12) != *csize)) {
        *why = "ZIP64 sizes differ from the header's";
        return 0;
      }
    }
    ex += 4 + sz;
    n -= 4 + sz;
  }
  return 1;
}

static int fail(char *msg, size_t cap, const entry *e, const char *why,
                int rc)
{
  if (e != NULL)
    af_weights_msg(msg, cap, "entry '%s': %s", e->name, why);
  else
    af_weights_msg(msg, cap, "%s", why);
  return rc;
}

static int by_offset(const void *a, const void *b)
{
  const entry *x = *(const entry *const *) a, *y = *(const entry *const *) b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* The central directory: fill e[0..n) from cd[0..cdlen) of the archive
 * buf[0..len) whose directory starts at cdoff. */
static int central(entry *e, size_t n, const unsigned char *buf, size_t len,
                   size_t cdoff, size_t cdlen, size_t d, char *msg,
                   size_t cap)
{
  const unsigned char *p = buf + cdoff, *end = p + cdlen;
  size_t dd8 = d * d * 8; /* d <= 2^16 here: no overflow */
  for (size_t i = 0; i < n; i++) {
    entry *x = &e[i];
    const char *why = NULL;
    if (end - p < 46 || le32(p) != 0x02014b50u)
      return fail(msg, cap, NULL, i == 0 ? "central directory: no entry header"
                  : "central directory: an entry header truncated or its "
                    "signature wrong", AF_EPARSE);
    x->flags = le16(p + 8);
    x->method = le16(p + 10);
    x->crc = le32(p + 16);
    x->csize = le32(p + 20);
    x->usize = le32(p + 24);
    size_t nl = le16(p + 28), el = le16(p + 30), cl = le16(p + 32);
    unsigned disk = le16(p + 34);
    x->off = le32(p + 42);
    if ((size_t) (end - p - 46) < nl + el + cl)
      return fail(msg, cap, NULL, "central directory: a name, extra field "
                  "or comment runs past it", AF_EPARSE);
    if (nl == 0 || nl >= sizeof x->name)
      return fail(msg, cap, NULL, "central directory: an entry name empty or "
                  "longer than 67 bytes", AF_EPARSE);
    for (size_t k = 0; k < nl; k++) {
      unsigned char ch = p[46 + k];
      if (ch < 0x20 || ch > 0x7e)
        return fail(msg, cap, NULL, "central directory: an entry name with a "
                    "control or non-ASCII byte", AF_EPARSE);
      x->name[k] = (char) ch;
    }
    x->name[nl] = '\0';
    if (nl < 5 || strcmp(x->name + nl - 4, ".npy") != 0)
      return fail(msg, cap, x, "name does not end in .npy (not an array "
                  "numpy.savez writes)", AF_EPARSE);
    for (size_t j = 0; j < i; j++)
      if (strcmp(e[j].name, x->name) == 0)
        return fail(msg, cap, x, "name given twice", AF_EPARSE);
    if (x->flags & 0x0001u)
      return fail(msg, cap, x, "encrypted (not read)", AF_EPARSE);
    if (x->flags & ~(0x0008u | 0x0006u | 0x0800u))
      return fail(msg, cap, x, "general-purpose flags other than 1-3 and 11 "
                  "(patched data, strong encryption, masked header)",
                  AF_EPARSE);
    if (x->method != 0 && x->method != 8)
      return fail(msg, cap, x, "compression method not 0 (stored) or 8 "
                  "(deflate)", AF_EPARSE);
    if (disk != 0 && disk != 0xffffu)
      return fail(msg, cap, x, "on another disk (multi-disk archive)",
                  AF_EPARSE);
    if (!extras(p + 46 + nl, el, &x->usize, &x->csize, &x->off, &why))
      return fail(msg, cap, x, why, AF_EPARSE);
    if (x->usize > NPY_HEAD_MAX + dd8 || x->usize > AF_WEIGHTS_FILE_MAX)
      return fail(msg, cap, x, "uncompressed size larger than a (d, d) "
                  "float64 array with its largest header", AF_EDIM);
    if (x->method == 0 && x->csize != x->usize)
      return fail(msg, cap, x, "stored, but its sizes differ", AF_EPARSE);
    if (x->off > cdoff || cdoff - x->off < 30)
      return fail(msg, cap, x, "local header not before the central "
                  "directory", AF_EPARSE);
    /* the local header */
    const unsigned char *h = buf + x->off;
    size_t lnl = le16(h + 26), lel = le16(h + 28);
    if (le32(h) != 0x04034b50u)
      return fail(msg, cap, x, "local header signature wrong", AF_EPARSE);
    if (cdoff - x->off - 30 < lnl + lel)
      return fail(msg, cap, x, "local name or extra field runs into the "
                  "central directory", AF_EPARSE);
    if (lnl != nl || memcmp(h + 30, x->name, nl) != 0)
      return fail(msg, cap, x, "local header names another entry", AF_EPARSE);
    if (le16(h + 6) != x->flags || le16(h + 8) != x->method)
      return fail(msg, cap, x, "local header's flags or method differ from "
                  "the central directory's", AF_EPARSE);
    uint64_t lcs = le32(h + 18), lus = le32(h + 22);
    uint32_t lcrc = le32(h + 14);
    if (!extras(h + 30 + lnl, lel, &lus, &lcs, NULL, &why))
      return fail(msg, cap, x, why, AF_EPARSE);
    int deferred = (x->flags & 0x0008u) && lcrc == 0 && lcs == 0 && lus == 0;
    if (!deferred && (lcrc != x->crc || lcs != x->csize || lus != x->usize))
      return fail(msg, cap, x, "local header's CRC-32 or sizes differ from "
                  "the central directory's", AF_EPARSE);
    x->data = x->off + 30 + lnl + lel;
    if (x->csize > cdoff - x->data)
      return fail(msg, cap, x, "data run past the central directory "
                  "(truncated?)", AF_EPARSE);
    x->end = x->data + x->csize;
    p += 46 + nl + el + cl;
  }
  if (p != end)
    return fail(msg, cap, NULL, "central directory: bytes after its last "
                "entry", AF_EPARSE);
  (void) len;
  return AF_OK;
}

/* Inflate entry x's raw deflate data into x->raw (x->usize bytes). */
static int inflate_entry(entry *x, const unsigned char *buf, char *msg,
                         size_t cap)
{
  x->raw = malloc(x->usize > 0 ? x->usize : 1);
  if (x->raw == NULL)
    return AF_ENOMEM;
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK)
    return AF_ENOMEM;
  z.next_in = (unsigned char *) (uintptr_t) (buf + x->data);
  z.avail_in = (uInt) x->csize; /* both sizes are below 2^32 here */
  z.next_out = x->raw;
  z.avail_out = (uInt) x->usize;
  int zr = inflate(&z, Z_FINISH);
  uint64_t in = z.total_in, out = z.total_out;
  inflateEnd(&z);
  if (zr == Z_DATA_ERROR)
    return fail(msg, cap, x, "deflate data corrupt", AF_EPARSE);
  if (zr != Z_STREAM_END)
    return fail(msg, cap, x, out == x->usize ? "deflate data longer than "
                "the stated uncompressed size" : "deflate data truncated",
                AF_EPARSE);
  if (out != x->usize)
    return fail(msg, cap, x, "deflate data shorter than the stated "
                "uncompressed size", AF_EPARSE);
  if (in != x->csize)
    return fail(msg, cap, x, "bytes after the end of the deflate stream",
                AF_EPARSE);
  return AF_OK;
}

int af_weights_parse_npz(af_weights **wout, char *msg, size_t cap,
                         const unsigned char *buf, size_t len, size_t d,
                         double layer_dt)
{
  if (msg != NULL && cap > 0)
    msg[0] = '\0';
  if (wout != NULL)
    *wout = NULL;
  if (wout == NULL || (buf == NULL && len > 0) || d < 1 || d > 65536
      || !(layer_dt > 0) || !isfinite(layer_dt))
    return AF_EINVAL;
  /* The end-of-central-directory record: 22 bytes ending the file (an
   * archive comment is refused, so it is the last 22 bytes). */
  if (len < 22 || le32(buf + len - 22) != 0x06054b50u) {
    int zip = len >= 4 && le32(buf) == 0x04034b50u;
    return fail(msg, cap, NULL, zip ? "no end-of-central-directory record "
                "at the end of the file (truncated, or an archive comment)"
                : "not a ZIP archive (.npz)", AF_EPARSE);
  }
  const unsigned char *eo = buf + len - 22;
  size_t n = le16(eo + 10), cdlen = le32(eo + 12), cdoff = le32(eo + 16);
  if (le16(eo + 20) != 0)
    return fail(msg, cap, NULL, "archive comment (not written by NumPy)",
                AF_EPARSE);
  if (le16(eo + 4) != 0 || le16(eo + 6) != 0 || le16(eo + 8) != n)
    return fail(msg, cap, NULL, "multi-disk archive", AF_EPARSE);
  if (n == 0xffff || cdlen == 0xffffffffu || cdoff == 0xffffffffu)
    return fail(msg, cap, NULL, "ZIP64 archive (over 65535 entries or "
                "4 GiB): not read", AF_EPARSE);
  if (cdoff > len - 22 || cdlen != len - 22 - cdoff)
    return fail(msg, cap, NULL, "central directory not directly before the "
                "end record (truncated or bytes inserted)", AF_EPARSE);
  if (n == 0 || n > AF_NPZ_ENTRIES)
    return fail(msg, cap, NULL, n == 0 ? "no entries" : "more entries than "
                "3 x 100000 sets", AF_EPARSE);
  entry *e = calloc(n, sizeof *e);
  entry **s = calloc(n, sizeof *s);
  af_named_tensor *t = calloc(n, sizeof *t);
  int rc = (e && s && t) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = central(e, n, buf, len, cdoff, cdlen, d, msg, cap);
  if (rc == AF_OK) { /* entries in file order must not overlap */
    for (size_t i = 0; i < n; i++)
      s[i] = &e[i];
    qsort(s, n, sizeof *s, by_offset);
    if (s[0]->off != 0)
      rc = fail(msg, cap, s[0], "bytes before the first entry", AF_EPARSE);
    for (size_t i = 0; i < n && rc == AF_OK; i++) {
      const entry *x = s[i];
      uint64_t next = i + 1 < n ? s[i + 1]->off : cdoff;
      if (x->end > next) {
        rc = fail(msg, cap, s[i + 1], "overlaps the entry before it in the "
                  "file", AF_EPARSE);
        break;
      }
      uint64_t gap = next - x->end;
      if (!(x->flags & 0x0008u)) {
        if (gap != 0)
          rc = fail(msg, cap, x, "bytes between its data and the next "
                    "header", AF_EPARSE);
        continue;
      }
      /* bit 3: a data descriptor, signature optional, 32- or 64-bit
       * sizes: 12, 16, 20 or 24 bytes, its CRC-32 the central one */
      const unsigned char *dsc = buf + x->end;
      size_t sig = gap >= 4 && le32(dsc) == 0x08074b50u ? 4 : 0;
      if ((gap != 12 + sig && gap != 20 + sig) || le32(dsc + sig) != x->crc)
        rc = fail(msg, cap, x, "data descriptor malformed or its CRC-32 not "
                  "the central directory's", AF_EPARSE);
    }
  }
  for (size_t i = 0; i < n && rc == AF_OK; i++) {
    entry *x = &e[i];
    const unsigned char *u = buf + x->data;
    if (x->method == 8) {
      rc = inflate_entry(x, buf, msg, cap);
      u = x->raw;
    }
    if (rc != AF_OK)
      break;
    uint32_t c = (uint32_t) crc32(0L, Z_NULL, 0);
    for (uint64_t o = 0; o < x->usize;) { /* crc32 takes a uInt length */
      uInt k = (uInt) (x->usize - o > (1u << 30) ? (1u << 30) : x->usize - o);
      c = (uint32_t) crc32(c, u + o, k);
      o += k;
    }
    if (c != x->crc) {
      char why[96];
      snprintf(why, sizeof why, "CRC-32 mismatch (stored %08lx, data "
               "%08lx): the entry is corrupt", (unsigned long) x->crc,
               (unsigned long) c);
      rc = fail(msg, cap, x, why, AF_EPARSE);
      break;
    }
    af_npy_view v;
    const char *why = NULL;
    rc = af_npy_head(&v, &why, u, (size_t) x->usize);
    if (rc != AF_OK) {
      char b[160];
      snprintf(b, sizeof b, "as .npy: %s", why);
      rc = fail(msg, cap, x, b, rc);
      break;
    }
    size_t cnt = 1;
    for (size_t r = 0; r < v.rank; r++)
      if (!af_size_mul(&cnt, cnt, v.dims[r]))
        cnt = SIZE_MAX;
    size_t isz = v.f4 ? 4 : 8, body = (size_t) x->usize - v.off;
    if (cnt == SIZE_MAX || cnt > body / isz || cnt * isz != body) {
      rc = fail(msg, cap, x, cnt == SIZE_MAX || cnt > body / isz
                ? "as .npy: data shorter than the shape says"
                : "as .npy: bytes after the data", AF_EPARSE);
      break;
    }
    memcpy(t[i].name, x->name, strlen(x->name) - 4);
    t[i].name[strlen(x->name) - 4] = '\0';
    t[i].f4 = v.f4;
    t[i].rank = v.rank;
    memcpy(t[i].dims, v.dims, sizeof v.dims);
    t[i].data = u + v.off;
  }
  if (rc == AF_OK)
    rc = af_weights_from_named(wout, msg, cap, t, n, d, layer_dt);
  for (size_t i = 0; e != NULL && i < n; i++)
    free(e[i].raw);
  free(e);
  free(s);
  free(t);
  return rc;
}

int af_weights_read_npz(af_weights **wout, af_read_info *info, char *msg,
                        size_t cap, const char *path, size_t d,
                        double layer_dt)
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
  rc = af_weights_parse_npz(wout, msg, cap, buf, len, d, layer_dt);
  if (rc != AF_OK && msg != NULL && cap > 0 && msg[0] != '\0')
    info->what = msg;
  free(buf);
  errno = err;
  return rc;
}
