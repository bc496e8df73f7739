/* bench_tiled.c -- the tiled attention kernel (AF_KERNEL_TILED,
 * src/attention/attention_tiled.c): time of one attention evaluation, its fraction
 * of this core's roofline, and its agreement with the BLAS kernel.
 *
 * One af_attention (softmax, USA or causal; Q = K = V = I, or one set of
 * Kaiming weights) at --n, --d, --beta on the seeded uniform start
 * (af_init_state "uniform"), timed on the tiled kernel: process CPU time
 * and wall time of --reps calls, the minimum kept (the machine is
 * shared).  The roofline time of the tiled kernel's own work is
 *     t_roof = (2 n^2 d + 2 n^2 d) / R_flop + n^2 / R_exp
 * (scores and weighted sums, one exp per ordered pair; causal: half of
 * each), R_flop and R_exp the DGEMM peak and the vector-exp rate of one
 * core (--flop-rate, --exp-rate; defaults: the rates bench_roofline
 * measured on the machine of docs/performance.md with nothing else on
 * its core, 52.0 GFlop/s and 812 Mexp/s), and the fraction
 * reached per thread is t_roof / (CPU time).  With --compare (and n small
 * enough for an n x n matrix) the BLAS kernel is timed on the same input
 * (its second call: the first loads OpenBLAS) and the largest deviation |A_tiled - A_blas| / amag_j is printed.
 * --tiles ROWS,KEYS sets the tile sizes (default: the library's, 256,128).
 * With OMP_NUM_THREADS set, the run is repeated with 1 thread and the
 * outputs compared bit for bit.
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
#include "internal.h" /* af_work_set_tiles */

static double clock_of(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void usage(void)
{
  fprintf(stderr,
          "usage: bench_tiled [--n N] [--d D] [--beta B] "
          "[--attention softmax|usa|causal] [--weights identity|kaiming]\n"
          "                   [--tiles ROWS,KEYS] [--reps R] [--compare] [--flop-rate GF] "
          "[--exp-rate MEXP]\n");
}

int main(int argc, char **argv)
{
  size_t n = 4096, d = 64;
  double beta = 1.0, flop_rate = 52.0e9, exp_rate = 812e6;
  int reps = 3, compare = 0, kaiming = 0;
  size_t trows = 0, tkeys = 0;
  af_attn_kind attn = AF_ATTN_SOFTMAX;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--compare") == 0) {
      compare = 1;
      continue;
    }
    if (v == NULL) {
      usage();
      return 2;
    }
    i++;
    if (strcmp(a, "--n") == 0)
      n = strtoul(v, NULL, 10);
    else if (strcmp(a, "--d") == 0)
      d = strtoul(v, NULL, 10);
    else if (strcmp(a, "--beta") == 0)
      beta = strtod(v, NULL);
    else if (strcmp(a, "--reps") == 0)
      reps = atoi(v);
    else if (strcmp(a, "--flop-rate") == 0)
      flop_rate = strtod(v, NULL) * 1e9;
    else if (strcmp(a, "--exp-rate") == 0)
      exp_rate = strtod(v, NULL) * 1e6;
    else if (strcmp(a, "--attention") == 0)
      attn = strcmp(v, "usa") == 0      ? AF_ATTN_USA
             : strcmp(v, "causal") == 0 ? AF_ATTN_CAUSAL
                                        : AF_ATTN_SOFTMAX;
    else if (strcmp(a, "--tiles") == 0) {
      char *e;
      trows = strtoul(v, &e, 10);
      tkeys = *e == ',' ? strtoul(e + 1, NULL, 10) : 0;
    } else if (strcmp(a, "--weights") == 0)
      kaiming = strcmp(v, "kaiming") == 0;
    else {
      usage();
      return 2;
    }
  }
  if (n < 1 || d < 1 || reps < 1) {
    usage();
    return 2;
  }
  size_t nd = n * d, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *A = malloc(nd * sizeof *A),
         *A1 = malloc(nd * sizeof *A1), *am = malloc(n * sizeof *am);
  af_work *w = af_work_alloc(n, d);
  af_weights *wt = NULL;
  if (!y || !A || !A1 || !am || !w) {
    fprintf(stderr, "bench_tiled: out of memory\n");
    return 1;
  }
  af_model m;
  af_model_init(&m, n, d, beta, AF_POST_LN);
  m.attn = attn;
  if (kaiming) {
    wt = af_weights_alloc(d, 1, 1.0);
    if (wt == NULL || af_weights_kaiming(wt, 1) != AF_OK) {
      fprintf(stderr, "bench_tiled: weights\n");
      return 1;
    }
    m.w = wt;
  }
  int rc = af_init_state(y, NULL, "uniform", n, d, NAN, 20261203);
  if (rc == AF_OK)
    rc = af_work_set_kernel(w, AF_KERNEL_TILED);
  if (rc == AF_OK)
    rc = af_work_set_tiles(w, trows, tkeys);
  if (rc != AF_OK) {
    fprintf(stderr, "bench_tiled: %s\n", af_strerror(rc));
    return 1;
  }
  int threads = 1;
#ifdef _OPENMP
  if (getenv("OMP_NUM_THREADS") != NULL)
    threads = omp_get_max_threads();
#endif
  printf("# bench_tiled: attnflow %s (%s), n = %zu, d = %zu, beta = %g, "
         "attention %s, weights %s, threads %d\n",
         af_version(), af_commit(), n, d, beta,
         attn == AF_ATTN_USA ? "usa"
         : attn == AF_ATTN_CAUSAL ? "causal" : "softmax",
         kaiming ? "kaiming" : "identity", threads);
  printf("# work: %.3g GiB (tiled), %.3g GiB (blas)\n",
         (double) af_work_bytes(n, d, AF_KERNEL_TILED, threads) / 1073741824.0,
         (double) af_work_bytes(n, d, AF_KERNEL_BLAS, threads) / 1073741824.0);
  double best_cpu = INFINITY, best_wall = INFINITY;
  for (int r = 0; r < reps; r++) {
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_of(CLOCK_MONOTONIC);
    rc = af_attention(A, NULL, NULL, am, 0.0, y, &m, w);
    double c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_of(CLOCK_MONOTONIC);
    if (rc != AF_OK) {
      fprintf(stderr, "bench_tiled: af_attention: %s\n", af_strerror(rc));
      return 1;
    }
    best_cpu = fmin(best_cpu, c1 - c0);
    best_wall = fmin(best_wall, w1 - w0);
  }
  double pairs = (double) n * (double) n;
  if (attn == AF_ATTN_CAUSAL)
    pairs = 0.5 * (double) n * (double) (n + 1);
  double t_roof = 4.0 * pairs * (double) d / flop_rate + pairs / exp_rate;
  printf("tiled: cpu %.4g s, wall %.4g s, roofline %.4g s (%.4g GFlop/s, "
         "%.4g Mexp/s), fraction per thread %.3f\n",
         best_cpu, best_wall, t_roof, flop_rate / 1e9, exp_rate / 1e6,
         t_roof / best_cpu);
#ifdef _OPENMP
  if (threads > 1) {
    omp_set_num_threads(1);
    rc = af_attention(A1, NULL, NULL, NULL, 0.0, y, &m, w);
    omp_set_num_threads(threads);
    if (rc != AF_OK)
      return 1;
    printf("threads %d against 1: %s\n", threads,
           memcmp(A, A1, nd * sizeof *A) == 0 ? "same bits" : "DIFFERENT");
  }
#endif
  if (compare) {
    rc = af_work_set_kernel(w, AF_KERNEL_BLAS);
    if (rc == AF_OK) /* a first call: loads OpenBLAS, touches the n x n array */
      rc = af_attention(A1, NULL, NULL, NULL, 0.0, y, &m, w);
    double c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_of(CLOCK_MONOTONIC);
    if (rc == AF_OK)
      rc = af_attention(A1, NULL, NULL, NULL, 0.0, y, &m, w);
    double c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_of(CLOCK_MONOTONIC);
    if (rc != AF_OK) {
      fprintf(stderr, "bench_tiled: blas: %s\n", af_strerror(rc));
      return 1;
    }
    double dev = 0;
    for (size_t j = 0; j < n; j++)
      for (size_t i = 0; i < d; i++)
        dev = fmax(dev, fabs(A[j * d + i] - A1[j * d + i]) / am[j]);
    printf("blas:  cpu %.4g s, wall %.4g s (second call); tiled/blas cpu "
           "%.3f; max |A_tiled - A_blas| / amag = %.3g (%.3g u)\n",
           c1 - c0, w1 - w0, best_cpu / (c1 - c0), dev, dev / 1.1102230246251565e-16);
  }
  af_weights_free(wt);
  af_work_free(w);
  free(y);
  free(A);
  free(A1);
  free(am);
  return 0;
}
