/* fuzz_npy.c -- libFuzzer harness of the .npy weights reader
 * (af_weights_parse_npy, --weights PATH.npy).  The first byte chooses d
 * (1..8); the rest is the file.  A read that succeeds must hold L sets of
 * 3 d x d finite matrices, and a failed one no weights. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "attnflow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t d = 1 + data[0] % 8;
  af_weights *w = NULL;
  const char *what = NULL;
  if (af_weights_parse_npy(&w, &what, data + 1, size - 1, d, 0.5) == AF_OK) {
    if (w == NULL || w->d != d || w->layers < 1)
      abort();
    for (size_t l = 0; l < w->layers; l++) {
      const double *m[3] = {w->Q[l], w->K[l], w->V[l]};
      for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < d * d; i++)
          if (m[k] == NULL || !isfinite(m[k][i]))
            abort();
    }
    af_weights_free(w);
  } else if (w != NULL) {
    abort();
  }
  return 0;
}
