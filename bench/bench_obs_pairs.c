/* bench_obs_pairs.c -- the pair observables of af_observe (theorems.md
 * N.obs): observe.c's serial pair loop (af_obs_pairs_serial, libm's exp,
 * one thread) against the tiled loop of src/flow/observe_pairs.c
 * (af_obs_pairs_tiled: register tiles, the vector exp, OpenMP over row
 * blocks) on the same directions.
 *
 * Directions: af_init_state "uniform" at --n, --d, --seed.  The vector
 * exp's width is chosen first (af_exp_block_isa), as af_work_alloc does
 * in every run that reaches af_observe.  Each path is
 * called --reps times, the minimum process CPU time and wall time kept
 * (the machine may be shared: CPU time and ratios taken in one run are
 * the meaningful numbers).  The tiled path runs with the threads of
 * OMP_NUM_THREADS (unset: one), and with OMP_NUM_THREADS set also once
 * on one thread, its results compared bit for bit.  Prints the times,
 * ns per pair, the ratio serial / tiled in CPU time, and the two results
 * (the extremes and cluster counts must agree exactly, the sums to the
 * rounding bound of N.obs; checked by tests/test_obs_pairs.c, printed
 * here only so that the run shows both computed the same thing).
 *
 *   bench_obs_pairs [--n N] [--d D] [--beta B] [--cluster-cos C]
 *                   [--seed S] [--reps R]
 *
 * Not part of 'make check'. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "attnflow.h"
#include "internal.h" /* af_obs_pairs_serial, af_obs_pairs_tiled */

static double clock_of(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

typedef int (*pairs_fn)(af_obs_pairs *, const double *, size_t, size_t,
                        double, double);

/* Minimum CPU and wall time of reps calls of f; the last result in *out. */
static int timed(double *cpu, double *wall, af_obs_pairs *out, pairs_fn f,
                 const double *th, size_t n, size_t d, double beta,
                 double cc, int reps)
{
  *cpu = *wall = INFINITY;
  for (int r = 0; r < reps; r++) {
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID),
           w0 = clock_of(CLOCK_MONOTONIC);
    int rc = f(out, th, n, d, beta, cc);
    double c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID),
           w1 = clock_of(CLOCK_MONOTONIC);
    if (rc != AF_OK)
      return rc;
    if (c1 - c0 < *cpu)
      *cpu = c1 - c0;
    if (w1 - w0 < *wall)
      *wall = w1 - w0;
  }
  return AF_OK;
}

static void show(const char *what, const af_obs_pairs *p)
{
  printf("  %-8s gsum %.17g  gmin %.17g  gmax %.17g  esum %.17g  clusters %zu\n",
         what, p->gsum, p->gmin, p->gmax, p->esum, p->clusters);
}

static int same_bits(const af_obs_pairs *a, const af_obs_pairs *b)
{
  return memcmp(&a->gsum, &b->gsum, sizeof(double)) == 0
         && memcmp(&a->gmin, &b->gmin, sizeof(double)) == 0
         && memcmp(&a->gmax, &b->gmax, sizeof(double)) == 0
         && memcmp(&a->esum, &b->esum, sizeof(double)) == 0
         && a->clusters == b->clusters;
}

int main(int argc, char **argv)
{
  size_t n = 4096, d = 64;
  double beta = 1.0, cc = 0.9999;
  unsigned long seed = 20261129;
  int reps = 3;
  for (int i = 1; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) {
      fprintf(stderr, "bench_obs_pairs: %s needs a value\n", k);
      return 2;
    }
    char *end;
    if (!strcmp(k, "--n"))
      n = strtoul(v, &end, 10);
    else if (!strcmp(k, "--d"))
      d = strtoul(v, &end, 10);
    else if (!strcmp(k, "--beta"))
      beta = strtod(v, &end);
    else if (!strcmp(k, "--cluster-cos"))
      cc = strtod(v, &end);
    else if (!strcmp(k, "--seed"))
      seed = strtoul(v, &end, 10);
    else if (!strcmp(k, "--reps"))
      reps = (int) strtol(v, &end, 10);
    else {
      fprintf(stderr, "usage: bench_obs_pairs [--n N] [--d D] [--beta B] "
                      "[--cluster-cos C] [--seed S] [--reps R]\n");
      return 2;
    }
    if (end == v || *end != '\0') {
      fprintf(stderr, "bench_obs_pairs: bad value for %s: %s\n", k, v);
      return 2;
    }
  }
  if (n < 2 || d < 1 || reps < 1) {
    fprintf(stderr, "bench_obs_pairs: need n >= 2, d >= 1, reps >= 1\n");
    return 2;
  }
  double *y = malloc((n * d + n) * sizeof *y);
  if (y == NULL) {
    fprintf(stderr, "bench_obs_pairs: out of memory\n");
    return 1;
  }
  int rc = af_init_state(y, NULL, "uniform", n, d, NAN, seed);
  if (rc != AF_OK) {
    fprintf(stderr, "bench_obs_pairs: af_init_state: %s\n", af_strerror(rc));
    return 1;
  }
  const double *th = y; /* directions, row-major n x d */
  /* The vector exp's width, as af_work_alloc sets it before any run of
   * af_observe (unset, the tiled loop would take the 2-lane fallback). */
  int isa = af_exp_block_isa(-1);
  int threads = 1;
#ifdef _OPENMP
  threads = getenv("OMP_NUM_THREADS") ? omp_get_max_threads() : 1;
#endif
  double npairs = 0.5 * (double) n * (double) (n - 1);
  af_obs_pairs ps, pt, p1;
  double cs, ws, ct, wt;
  if ((rc = timed(&cs, &ws, &ps, af_obs_pairs_serial, th, n, d, beta, cc,
                  reps)) != AF_OK
      || (rc = timed(&ct, &wt, &pt, af_obs_pairs_tiled, th, n, d, beta, cc,
                     reps)) != AF_OK) {
    fprintf(stderr, "bench_obs_pairs: %s\n", af_strerror(rc));
    return 1;
  }
  printf("n = %zu, d = %zu, beta = %g, cluster_cos = %g, seed %lu, "
         "min of %d calls, vector exp of %d lanes, load average ",
         n, d, beta, cc, seed, reps, 2 << isa);
  FILE *la = fopen("/proc/loadavg", "r");
  char buf[64] = "?";
  if (la != NULL) {
    if (fgets(buf, sizeof buf, la) == NULL)
      strcpy(buf, "?\n");
    fclose(la);
  }
  printf("%s", buf);
  printf("serial (1 thread):  CPU %.4f s  wall %.4f s  %.2f ns/pair\n", cs, ws,
         1e9 * cs / npairs);
  printf("tiled (%d thread%s): CPU %.4f s  wall %.4f s  %.2f ns/pair\n",
         threads, threads == 1 ? "" : "s", ct, wt, 1e9 * ct / npairs);
  printf("serial / tiled: %.2f in CPU time, %.2f in wall time\n", cs / ct,
         ws / wt);
  show("serial", &ps);
  show("tiled", &pt);
#ifdef _OPENMP
  if (threads > 1) {
    double c1, w1;
    omp_set_num_threads(1);
    if ((rc = timed(&c1, &w1, &p1, af_obs_pairs_tiled, th, n, d, beta, cc,
                    reps)) != AF_OK) {
      fprintf(stderr, "bench_obs_pairs: %s\n", af_strerror(rc));
      return 1;
    }
    printf("tiled (1 thread):   CPU %.4f s  wall %.4f s; %d threads against "
           "1: %s\n",
           c1, w1, threads, same_bits(&pt, &p1) ? "the same bits" : "DIFFER");
    if (!same_bits(&pt, &p1))
      return 1;
  }
#endif
  free(y);
  return 0;
}
