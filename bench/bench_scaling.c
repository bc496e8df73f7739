/* bench_scaling.c -- time per right-hand side against n and d.
 *
 * For each n of --n at d = --d-fixed, and each d of --d at n = --n-fixed,
 * times one af_rhs (Post-LN, softmax, Q = K = V = I, BLAS kernel) on a
 * seeded random state (directions uniform on the sphere) and prints CSV
 *
 *   sweep,n,d,seconds,ns_per_n2d
 *
 * then the least-squares slope of log(seconds) against log(n) over the
 * points with n >= --fit-from, and against log(d) over d >= --fit-from-d:
 * the flop count n (n + 1) d + 2 n^2 (d + 1) and the n (n + 1) / 2
 * exponentials predict 2 in n and, for d large enough that the products
 * dominate the exponentials, 1 in d.
 *
 * Timing: process CPU time (CLOCK_PROCESS_CPUTIME_ID: the machine may be
 * shared; for one thread it is the wall time of a quiet machine); a
 * measurement repeats the call until --min-time seconds have passed;
 * minimum of --reps measurements.  Run with
 * OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 for the single-core figures.
 * Not part of 'make check'.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attnflow.h"

#define MAX_LIST 32

/* Process CPU time: on a machine shared with other work it is what the
 * wall time of a quiet machine would be, for one thread (the wall time of
 * the 2-thread runs is measured separately). */
static double clock_of(clockid_t id)
{
  struct timespec t;
  clock_gettime(id, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static double now(void) { return clock_of(CLOCK_PROCESS_CPUTIME_ID); }


/* Seconds per af_rhs at (n, d): minimum over reps; 0 on failure. */
static double time_rhs(size_t n, size_t d, double beta, double min_time,
                       int reps)
{
  size_t dim = af_state_size(n, d);
  double *y = malloc(dim * sizeof *y), *dy = malloc(dim * sizeof *dy);
  af_work *w = af_work_alloc(n, d);
  double best = 0;
  if (y && dy && w) {
    size_t line;
    if (af_init_state(y, &line, "uniform", n, d, NAN,
                      20251022 + n * 131 + d) != AF_OK) {
      fprintf(stderr, "bench_scaling: af_init_state failed\n");
      exit(1);
    }
    af_model m;
    af_model_init(&m, n, d, beta, AF_POST_LN);
    best = INFINITY;
    for (int r = 0; r < reps && best > 0; r++) {
      unsigned long calls = 0;
      double t0 = now(), t;
      do {
        if (af_rhs(dy, 0.0, y, &m, w) != AF_OK) {
          best = 0;
          break;
        }
        calls++;
        t = now() - t0;
      } while (t < min_time);
      if (best > 0 && t / (double) calls < best)
        best = t / (double) calls;
    }
  }
  af_work_free(w);
  free(y);
  free(dy);
  return best;
}

static int parse_list(size_t *out, size_t *count, const char *s)
{
  *count = 0;
  while (*s) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v < 1 || *count == MAX_LIST)
      return -1;
    out[(*count)++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return -1;
  }
  return *count ? 0 : -1;
}

/* Least-squares slope of log t against log x over x >= from. */
static double fit_slope(const size_t *x, const double *t, size_t k,
                        size_t from, size_t *used)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (x[i] < from || !(t[i] > 0))
      continue;
    double lx = log((double) x[i]), ly = log(t[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    m++;
  }
  *used = m;
  if (m < 2)
    return NAN;
  return ((double) m * sxy - sx * sy) / ((double) m * sxx - sx * sx);
}

int main(int argc, char **argv)
{
  size_t ns[MAX_LIST], ds[MAX_LIST], nn = 0, nd = 0;
  parse_list(ns, &nn, "32,64,128,256,512,1024,2048,4096");
  parse_list(ds, &nd, "3,8,16,32,64,128,256,512");
  size_t n_fixed = 512, d_fixed = 64, fit_from = 512, fit_from_d = 64;
  double min_time = 0.2, beta = 1.0;
  int reps = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = v == NULL;
    if (!bad && strcmp(a, "--n") == 0)
      bad = parse_list(ns, &nn, v);
    else if (!bad && strcmp(a, "--d") == 0)
      bad = parse_list(ds, &nd, v);
    else if (!bad && strcmp(a, "--n-fixed") == 0)
      n_fixed = strtoul(v, NULL, 10);
    else if (!bad && strcmp(a, "--d-fixed") == 0)
      d_fixed = strtoul(v, NULL, 10);
    else if (!bad && strcmp(a, "--fit-from") == 0)
      fit_from = strtoul(v, NULL, 10);
    else if (!bad && strcmp(a, "--fit-from-d") == 0)
      fit_from_d = strtoul(v, NULL, 10);
    else if (!bad && strcmp(a, "--min-time") == 0)
      min_time = strtod(v, NULL);
    else if (!bad && strcmp(a, "--reps") == 0)
      reps = atoi(v);
    else if (!bad && strcmp(a, "--beta") == 0)
      beta = strtod(v, NULL);
    else
      bad = 1;
    if (bad) {
      fprintf(stderr,
              "usage: bench_scaling [--n LIST] [--d LIST] [--n-fixed N] "
              "[--d-fixed D] [--fit-from N] [--fit-from-d D] "
              "[--min-time SEC] [--reps R] [--beta B]\n");
      return 2;
    }
    i++;
  }
  if (n_fixed < 1 || d_fixed < 1 || reps < 1) {
    fprintf(stderr, "bench_scaling: bad arguments\n");
    return 2;
  }
  const char *ob = getenv("OPENBLAS_NUM_THREADS"),
             *om = getenv("OMP_NUM_THREADS");
  printf("# bench_scaling: attnflow %s, Post-LN softmax, beta %g, "
         "OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s, min of %d runs\n",
         PACKAGE_VERSION, beta, ob ? ob : "(unset)", om ? om : "(unset)",
         reps);
  printf("sweep,n,d,seconds,ns_per_n2d\n");
  double tn[MAX_LIST] = {0}, td[MAX_LIST] = {0};
  for (size_t i = 0; i < nn; i++) {
    tn[i] = time_rhs(ns[i], d_fixed, beta, min_time, reps);
    printf("n,%zu,%zu,%.6g,%.4g\n", ns[i], d_fixed, tn[i],
           tn[i] * 1e9 / ((double) ns[i] * (double) ns[i] * (double) d_fixed));
    fflush(stdout);
  }
  for (size_t i = 0; i < nd; i++) {
    td[i] = time_rhs(n_fixed, ds[i], beta, min_time, reps);
    printf("d,%zu,%zu,%.6g,%.4g\n", n_fixed, ds[i], td[i],
           td[i] * 1e9 / ((double) n_fixed * (double) n_fixed * (double) ds[i]));
    fflush(stdout);
  }
  size_t un, ud;
  double pn = fit_slope(ns, tn, nn, fit_from, &un);
  double pd = fit_slope(ds, td, nd, fit_from_d, &ud);
  printf("# fit: time ~ n^%.3f (d = %zu, %zu points n >= %zu)\n", pn, d_fixed,
         un, fit_from);
  printf("# fit: time ~ d^%.3f (n = %zu, %zu points d >= %zu)\n", pd, n_fixed,
         ud, fit_from_d);
  for (size_t i = 0; i < nn; i++)
    if (!(tn[i] > 0))
      return 1;
  for (size_t i = 0; i < nd; i++)
    if (!(td[i] > 0))
      return 1;
  return 0;
}
