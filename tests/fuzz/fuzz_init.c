/* fuzz_init.c -- libFuzzer harness of the token-file reader
 * (af_init_read_file_info, --init file:PATH).  The first two bytes choose
 * n and d (1..8); the rest is the file.  A read that succeeds must leave
 * unit directions and positive finite radii. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "attnflow.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  size_t n = 1 + data[0] % 8, d = 1 + data[1] % 8;
  const char *path = af_fuzz_file(data + 2, size - 2);
  if (path == NULL)
    return 0;
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  if (y == NULL)
    return 0;
  af_read_info info;
  if (af_init_read_file_info(y, &info, path, n, d) == AF_OK) {
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t i = 0; i < d; i++)
        s += y[j * d + i] * y[j * d + i];
      double r = y[n * d + j];
      /* |theta_j| = 1 up to d + 4 rounding units (normalize_row) */
      if (!(fabs(sqrt(s) - 1) <= 16 * 2.2204460492503131e-16) || !(r > 0)
          || !isfinite(r))
        abort();
    }
  }
  free(y);
  return 0;
}
