/* rhs_dump.c -- print the Post-LN vector field f(y0) of attnflow for a
 * state file, so that a peer's right-hand side can be checked against the
 * library's (bench/peer_scipy.py).
 *
 *   rhs_dump N D BETA PATH
 *
 * reads PATH like 'attnflow run --init file:PATH' (one row x_j per token;
 * theta_j = x_j / |x_j|, r_j = |x_j|) and prints the direction part of
 * af_rhs, dtheta_j/dt, one row per token, %.17g, comma-separated.
 * Softmax attention, Q = K = V = I, BLAS kernel.  Not part of 'make check'.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "attnflow.h"

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: rhs_dump N D BETA PATH\n");
    return 2;
  }
  size_t n = strtoul(argv[1], NULL, 10), d = strtoul(argv[2], NULL, 10);
  double beta = strtod(argv[3], NULL);
  if (n < 1 || d < 1) {
    fprintf(stderr, "rhs_dump: bad N or D\n");
    return 2;
  }
  size_t dim = af_state_size(n, d), line = 0;
  double *y = malloc(dim * sizeof *y), *dy = malloc(dim * sizeof *dy);
  af_work *w = af_work_alloc(n, d);
  if (!y || !dy || !w) {
    fprintf(stderr, "rhs_dump: out of memory\n");
    return 1;
  }
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  int rc = af_init_read_file(y, &line, argv[4], n, d);
  if (rc == AF_OK)
    rc = af_rhs(dy, 0.0, y, &m, w);
  if (rc != AF_OK) {
    fprintf(stderr, "rhs_dump: %s (line %zu)\n", af_strerror(rc), line);
    return 1;
  }
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < d; i++)
      printf("%.17g%c", dy[j * d + i], i + 1 < d ? ',' : '\n');
  af_work_free(w);
  free(y);
  free(dy);
  return 0;
}
