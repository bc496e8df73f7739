/* fuzz_weights.c -- libFuzzer harness of the weights-file reader
 * (af_weights_read_info, --weights PATH).  The first byte chooses d
 * (1..8); the rest is the file.  A read that succeeds must hold 3 d x d
 * finite matrices. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "attnflow.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t d = 1 + data[0] % 8;
  const char *path = af_fuzz_file(data + 1, size - 1);
  if (path == NULL)
    return 0;
  af_weights *w = NULL;
  af_read_info info;
  if (af_weights_read_info(&w, &info, path, d) == AF_OK) {
    if (w == NULL || w->d != d || w->layers != 1)
      abort();
    const double *m[3] = {w->Q[0], w->K[0], w->V[0]};
    for (int k = 0; k < 3; k++)
      for (size_t i = 0; i < d * d; i++)
        if (!isfinite(m[k][i]))
          abort();
    af_weights_free(w);
  } else if (w != NULL) {
    abort(); /* a failed read returns no weights */
  }
  return 0;
}
