/* mp_ref.c -- reference files: one MPFR state in exact hexadecimal.
 *
 * Layout (one item per line; '#' lines are the provenance header):
 *
 *   # attnflow reference v1
 *   # generator: <text>
 *   # commit: <text>
 *   # method: <text>
 *   # precision: <bits>
 *   # tolerance: <%.6e>
 *   # err_est: <%.6e>
 *   # params: <text>
 *   # seed: <unsigned>
 *   # count: <len>
 *   t <value>
 *   <value>            (len lines)
 *   # checksum: fnv1a64 <16 hex digits>
 *
 * The last line is the FNV-1a hash (util.c) of every byte before it,
 * header and values: a file whose parameters or numbers changed in any
 * one byte, or that lost its last lines, fails to read.
 * Values are printed with mpfr's %Ra (hexadecimal mantissa, binary
 * exponent, every digit of the significand: exact) and read back with
 * mpfr_strtofr in base 0, which must consume the whole field and be exact
 * at the reader's precision.  Any deviation (a NUL byte, a line longer
 * than 64 KiB, a checksum that is missing or does not match) is
 * AF_EPARSE with its line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "attnflow_mp.h"

#define REF_MAGIC "# attnflow reference v1"
#define REF_CHECKSUM "# checksum: fnv1a64 "

static const char *nz(const char *s) { return (s && *s) ? s : "-"; }

/* Text fields must stay on one line. */
static int one_line(const char *s)
{
  return s == NULL || strpbrk(s, "\r\n") == NULL;
}

typedef struct {
  const af_mp_ref_info *info;
  mpfr_srcptr t;
  mpfr_t *y;
  size_t len;
} ref_ctx;

static int ref_body(FILE *f, void *vctx)
{
  const ref_ctx *x = vctx;
  const af_mp_ref_info *info = x->info;
  int bad = 0;
  bad |= fprintf(f, "%s\n# generator: %s\n# commit: %s\n# method: %s\n",
                 REF_MAGIC, nz(info->generator), nz(info->commit),
                 nz(info->method)) < 0;
  bad |= fprintf(f, "# precision: %ld\n# tolerance: %.6e\n# err_est: %.6e\n",
                 (long) mpfr_get_prec(x->y[0]), info->tol, info->err_est) < 0;
  bad |= fprintf(f, "# params: %s\n# seed: %lu\n# count: %zu\n",
                 nz(info->params), info->seed, x->len) < 0;
  bad |= mpfr_fprintf(f, "t %Ra\n", x->t) < 0;
  for (size_t i = 0; i < x->len && !bad; i++)
    bad |= mpfr_fprintf(f, "%Ra\n", x->y[i]) < 0;
  return bad ? AF_EIO : AF_OK;
}

int af_mp_ref_write(FILE *f, const af_mp_ref_info *info, mpfr_srcptr t,
                    mpfr_t *y, size_t len)
{
  if (f == NULL || info == NULL || t == NULL || y == NULL || len == 0)
    return AF_EINVAL;
  if (!one_line(info->generator) || !one_line(info->commit)
      || !one_line(info->method) || !one_line(info->params))
    return AF_EINVAL;
  if (!mpfr_number_p(t))
    return AF_ENONFINITE;
  for (size_t i = 0; i < len; i++)
    if (!mpfr_number_p(y[i]))
      return AF_ENONFINITE;
  ref_ctx x = {info, t, y, len};
  return af_write_checksummed(f, ref_body, &x, REF_CHECKSUM);
}

/* Parse one exact value filling the whole of s (leading and trailing
 * blanks allowed). */
static int parse_value(mpfr_ptr x, const char *s)
{
  while (isspace((unsigned char) *s))
    s++;
  if (*s == '\0')
    return AF_EPARSE;
  char *end;
  int inex = mpfr_strtofr(x, s, &end, 0, MPFR_RNDN);
  if (end == s)
    return AF_EPARSE;
  while (isspace((unsigned char) *end))
    end++;
  if (*end != '\0' || inex != 0 || !mpfr_number_p(x))
    return AF_EPARSE;
  return AF_OK;
}

int af_mp_ref_read(mpfr_t t, mpfr_t *y, size_t len, size_t *line, FILE *f)
{
  size_t lno_local;
  size_t *lno = line ? line : &lno_local;
  *lno = 0;
  if (f == NULL || t == NULL || y == NULL || len == 0)
    return AF_EINVAL;
  /* A value of p bits prints as about p/4 hex digits: 64 KiB lines cover
   * precisions up to ~250000 bits. */
  const size_t max = 65535;
  char *buf = NULL;
  size_t cap = 0, l;
  size_t n = 0, count = 0;
  int have_count = 0, have_t = 0, have_sum = 0, rc = AF_OK, nl;
  uint64_t h = AF_FNV1A64_INIT, want;
  size_t cur = 0;
  for (;;) {
    int g = af_read_line(&buf, &cap, &l, &nl, max, f);
    cur++;
    if (g == AF_LINE_EOF)
      break;
    if (g != AF_LINE_OK || !nl || have_sum) {
      /* NUL, too long, unterminated last line, or data after the sum */
      rc = g == AF_LINE_ERR ? AF_EIO : g == AF_LINE_NOMEM ? AF_ENOMEM
                                                           : AF_EPARSE;
      break;
    }
    int k = af_checksum_line(&want, buf, REF_CHECKSUM);
    if (k != 0) {
      if (k < 0 || want != h) {
        rc = AF_EPARSE;
        break;
      }
      have_sum = 1;
      continue;
    }
    h = af_fnv1a64(h, buf, l);
    h = af_fnv1a64(h, "\n", 1);
    if (l > 0 && buf[l - 1] == '\r')
      buf[--l] = '\0';
    if (cur == 1) {
      if (strcmp(buf, REF_MAGIC) != 0) {
        rc = AF_EPARSE;
        break;
      }
      continue;
    }
    if (buf[0] == '#') {
      if (strncmp(buf, "# count:", 8) == 0) {
        char *end;
        unsigned long long v = strtoull(buf + 8, &end, 10);
        while (isspace((unsigned char) *end))
          end++;
        if (*end != '\0' || end == buf + 8 || v != (unsigned long long) len) {
          rc = AF_EPARSE;
          break;
        }
        count = (size_t) v;
        have_count = 1;
      }
      continue;
    }
    if (!have_count) { /* data before the header is complete */
      rc = AF_EPARSE;
      break;
    }
    if (!have_t) {
      if (buf[0] != 't' || !isspace((unsigned char) buf[1])
          || parse_value(t, buf + 1) != AF_OK) {
        rc = AF_EPARSE;
        break;
      }
      have_t = 1;
      continue;
    }
    if (n >= count || parse_value(y[n], buf) != AF_OK) {
      rc = AF_EPARSE;
      break;
    }
    n++;
  }
  if (rc == AF_OK && ferror(f))
    rc = AF_EIO;
  else if (rc == AF_OK && (!have_count || !have_t || n != count || !have_sum))
    rc = AF_EPARSE; /* truncated: the line after the last one read */
  if (rc != AF_OK)
    *lno = cur;
  free(buf);
  return rc;
}
