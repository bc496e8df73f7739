/* fuzz_archive.c -- libFuzzer harness of the .npz and safetensors weight
 * readers (af_weights_parse_npz, af_weights_parse_safetensors; --weights
 * PATH.npz / PATH.safetensors).  The first byte chooses d (1 + its low 3
 * bits) and the mode (its bits 3-4):
 *   0  the rest is a .npz file, as it is;
 *   1  the rest is a safetensors file, as it is;
 *   2  the rest is a list of entries (name length, name, 2-byte data
 *      length, method byte, data), which the harness writes as a ZIP
 *      archive with correct CRC-32s and offsets (deflating where the
 *      method byte is odd), so that inputs reach the .npy parsing and the
 *      tensor assembly behind the checksums;
 *   3  as 2, then the bytes of the rest's last 4 bytes flip one byte of
 *      the archive (at an offset they choose).
 * A read that succeeds must hold L sets of 3 d x d finite matrices and an
 * empty message; a failed one no weights and a non-empty message. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "attnflow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put16(unsigned char *p, unsigned v)
{
  p[0] = (unsigned char) v;
  p[1] = (unsigned char) (v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
  put16(p, v & 0xffffu);
  put16(p + 2, v >> 16);
}

/* A ZIP archive of the entries described by in[0..n) into *out. */
static size_t zip_of(unsigned char **out, const uint8_t *in, size_t n)
{
  size_t cap = 3 * n + 4096, len = 0, cdl = 0, ne = 0;
  unsigned char *z = malloc(cap), *cd = malloc(cap);
  if (z == NULL || cd == NULL) {
    free(z);
    free(cd);
    *out = NULL;
    return 0;
  }
  while (n >= 4 && ne < 32) {
    size_t nl = in[0] % 16;
    if (n < 1 + nl + 3)
      break;
    const uint8_t *name = in + 1;
    size_t dl = (size_t) in[1 + nl] | (size_t) in[2 + nl] << 8;
    unsigned method = in[3 + nl] & 1 ? 8 : 0;
    in += 4 + nl;
    n -= 4 + nl;
    if (dl > n)
      dl = n;
    unsigned char comp[3 * 8192 + 64];
    uLongf cl = sizeof comp;
    const unsigned char *cdat = in;
    if (method == 8) {
      z_stream s;
      memset(&s, 0, sizeof s);
      if (deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        break;
      s.next_in = (unsigned char *) (uintptr_t) in;
      s.avail_in = (uInt) dl;
      s.next_out = comp;
      s.avail_out = (uInt) sizeof comp;
      int r = deflate(&s, Z_FINISH);
      cl = s.total_out;
      deflateEnd(&s);
      if (r != Z_STREAM_END)
        break;
      cdat = comp;
    } else
      cl = dl;
    uint32_t crc = (uint32_t) crc32(crc32(0L, Z_NULL, 0), in, (uInt) dl);
    if (len + 30 + nl + cl > cap || cdl + 46 + nl > cap)
      break;
    unsigned char *h = z + len;
    memset(h, 0, 30);
    put32(h, 0x04034b50u);
    put16(h + 4, 20);
    put16(h + 8, method);
    put32(h + 14, crc);
    put32(h + 18, (uint32_t) cl);
    put32(h + 22, (uint32_t) dl);
    put16(h + 26, (unsigned) nl);
    memcpy(h + 30, name, nl);
    memcpy(h + 30 + nl, cdat, cl);
    unsigned char *c = cd + cdl;
    memset(c, 0, 46);
    put32(c, 0x02014b50u);
    put16(c + 4, 20);
    put16(c + 6, 20);
    put16(c + 10, method);
    put32(c + 16, crc);
    put32(c + 20, (uint32_t) cl);
    put32(c + 24, (uint32_t) dl);
    put16(c + 28, (unsigned) nl);
    put32(c + 42, (uint32_t) len);
    memcpy(c + 46, name, nl);
    len += 30 + nl + cl;
    cdl += 46 + nl;
    ne++;
    in += dl;
    n -= dl;
  }
  unsigned char *all = malloc(len + cdl + 22);
  if (all != NULL) {
    memcpy(all, z, len);
    memcpy(all + len, cd, cdl);
    unsigned char *e = all + len + cdl;
    memset(e, 0, 22);
    put32(e, 0x06054b50u);
    put16(e + 8, (unsigned) ne);
    put16(e + 10, (unsigned) ne);
    put32(e + 12, (uint32_t) cdl);
    put32(e + 16, (uint32_t) len);
  }
  free(z);
  free(cd);
  *out = all;
  return all != NULL ? len + cdl + 22 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t d = 1 + (data[0] & 7);
  int mode = (data[0] >> 3) & 3;
  const uint8_t *in = data + 1;
  size_t n = size - 1;
  unsigned char *own = NULL;
  if (mode >= 2) {
    size_t body = n;
    if (mode == 3 && n >= 4)
      body = n - 4;
    size_t zl = zip_of(&own, in, body);
    if (own == NULL)
      return 0;
    if (mode == 3 && n >= 4 && zl > 0) {
      size_t at = ((size_t) in[body] | (size_t) in[body + 1] << 8) % zl;
      own[at] ^= (unsigned char) (in[body + 2] | 1);
    }
    in = own;
    n = zl;
  }
  af_weights *w = NULL;
  char msg[256];
  int rc = mode == 1 ? af_weights_parse_safetensors(&w, msg, sizeof msg, in,
                                                    n, d, 0.5)
                     : af_weights_parse_npz(&w, msg, sizeof msg, in, n, d,
                                            0.5);
  if (rc == AF_OK) {
    if (w == NULL || w->d != d || w->layers < 1 || msg[0] != '\0')
      abort();
    for (size_t l = 0; l < w->layers; l++) {
      const double *m[3] = {w->Q[l], w->K[l], w->V[l]};
      for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < d * d; i++)
          if (m[k] == NULL || !isfinite(m[k][i]))
            abort();
    }
    af_weights_free(w);
  } else if (w != NULL || (rc != AF_ENOMEM && msg[0] == '\0')) {
    abort();
  }
  free(own);
  return 0;
}
