/* bench_integrate.c -- CPU time of af_integrate alone, in process.
 *
 *   bench_integrate N D BETA PATH T RTOL ATOL [REPS]
 *
 * Post-LN, softmax, Q = K = V = I, rk8pd from the start file PATH (read as
 * 'attnflow run --init file:PATH' reads it) to time T, its first step by
 * the starting-step rule (h = 0) as 'attnflow run' chooses it without
 * --h, or H with the environment variable AF_H=H; prints the minimum
 * process CPU time over REPS runs (default 20), the number of evaluations
 * and the time per evaluation as key=value pairs.  The whole-process figure
 * of 'attnflow run' adds loading the shared libraries, parsing and output;
 * bench/bench_peers.sh prints both.  Not part of 'make check'.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attnflow.h"

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

int main(int argc, char **argv)
{
  if (argc != 8 && argc != 9) {
    fprintf(stderr, "usage: bench_integrate N D BETA PATH T RTOL ATOL [REPS]\n");
    return 2;
  }
  size_t n = strtoul(argv[1], NULL, 10), d = strtoul(argv[2], NULL, 10);
  double beta = strtod(argv[3], NULL), T = strtod(argv[5], NULL);
  int reps = argc == 9 ? atoi(argv[8]) : 20;
  if (n < 1 || d < 1 || !(T >= 0) || reps < 1) {
    fprintf(stderr, "bench_integrate: bad arguments\n");
    return 2;
  }
  size_t dim = af_state_size(n, d), line = 0;
  double *y0 = malloc(dim * sizeof *y0), *y = malloc(dim * sizeof *y);
  af_work *w = af_work_alloc(n, d);
  if (!y0 || !y || !w) {
    fprintf(stderr, "bench_integrate: out of memory\n");
    return 1;
  }
  int rc = af_init_read_file(y0, &line, argv[4], n, d);
  if (rc != AF_OK) {
    fprintf(stderr, "bench_integrate: %s: %s (line %zu)\n", argv[4],
            af_strerror(rc), line);
    return 1;
  }
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = strtod(argv[6], NULL);
  o.atol = strtod(argv[7], NULL);
  o.h = getenv("AF_H") ? strtod(getenv("AF_H"), NULL) : 0;
  double times[2] = {0, T}, best = 1e300;
  af_integ_stats st;
  for (int r = 0; r < reps; r++) {
    memcpy(y, y0, dim * sizeof *y);
    double t0 = cpu_seconds();
    rc = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st);
    double t = cpu_seconds() - t0;
    if (rc != AF_OK) {
      fprintf(stderr, "bench_integrate: %s\n", af_strerror(rc));
      return 1;
    }
    if (t < best)
      best = t;
  }
  printf("cpu=%.6g nevals=%lu steps=%lu per_eval=%.4g\n", best, st.nevals,
         st.steps, best / (double) st.nevals);
  af_work_free(w);
  free(y0);
  free(y);
  return 0;
}
