/* fuzz_ref.c -- libFuzzer harness of the reference-file reader
 * (af_mp_ref_read: exact MPFR states with a checksum line).  The first
 * byte chooses the count (1..8); the rest is the file, read at 64 bits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "attnflow_mp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  size_t len = 1 + data[0] % 8;
  FILE *f = fmemopen((void *) (data + 1), size - 1, "r");
  if (f == NULL)
    return 0;
  mpfr_t t;
  mpfr_init2(t, 64);
  mpfr_t *y = af_mp_vec_alloc(len, 64);
  size_t line;
  if (y != NULL) {
    if (af_mp_ref_read(t, y, len, &line, f) == AF_OK) {
      if (!mpfr_number_p(t))
        abort();
      for (size_t i = 0; i < len; i++)
        if (!mpfr_number_p(y[i]))
          abort();
    }
    af_mp_vec_free(y, len);
  }
  mpfr_clear(t);
  fclose(f);
  return 0;
}
