/* bench_lc_exact.c -- the exact long-context case at large n: one layer of
 * a scheme's map (af_layer_step, h = 1, layer 0, Q = K = V = I) on the
 * equiangular start th_i = sqrt(rho) e_0 + sqrt(1 - rho) e_i (d = n + 1,
 * every pairwise cosine rho) at beta = gamma log n, against the exact
 * finite-n cosine of theory/longctx.c (theorems.md LC, the formula
 * cos = (rho + (1 - rho)(2ab + (n - 2)b^2)) / (rho + (1 - rho)(a^2 +
 * (n - 1)b^2)) for the attention alone, and its per-scheme form).
 *
 * The claim LC/<scheme> does this at n = 100 (quick) and up to 1000
 * (full); n = 10^4 needs d = 10^4 + 1: a state of n d doubles (0.8 GB),
 * the output state (0.8 GB more) and the BLAS kernel's n x n scores
 * (0.8 GB), and about 3 n^2 d = 3e12 flops per layer (dsyrk for the
 * scores, a product with the weights).  Not part of 'make check'.
 *
 *   bench/bench_lc_exact [--n N] [--rho R] [--scheme S] [--gammas G1,G2,...]
 *
 * Defaults: n = 10000, rho = 0.5, post-ln, gamma = 1.8, 2, 2.2 (the
 * transition is at gamma = 1/(1 - rho) = 2).  Prints, per gamma, the exact
 * cosine, the largest relative error of the layer's cosine and of its gap
 * 1 - cos (computed as |u - v|^2 / 2 of the unit outputs) over the pairs
 * (i, i + 1), and the process CPU time of the layer; at the end the peak
 * resident memory (getrusage).  Run from a built tree, under nice, with
 * OPENBLAS_NUM_THREADS=1 on a shared machine. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../src/attnflow.h"
#include "../theory/longctx.h"

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

int main(int argc, char **argv)
{
  size_t n = 10000;
  double rho = 0.5, gam[16] = {1.8, 2.0, 2.2};
  size_t ng = 3;
  af_scheme_id sc = AF_POST_LN;
  for (int i = 1; i < argc; i++) {
    if (i + 1 >= argc) {
      fprintf(stderr, "bench_lc_exact: option '%s' needs a value\n", argv[i]);
      return 2;
    }
    const char *v = argv[++i];
    char *end;
    if (strcmp(argv[i - 1], "--n") == 0) {
      n = (size_t) strtoul(v, &end, 10);
      if (*end || n < 3 || n > 50000) {
        fprintf(stderr, "bench_lc_exact: --n must be an integer in 3..50000\n");
        return 2;
      }
    } else if (strcmp(argv[i - 1], "--rho") == 0) {
      rho = strtod(v, &end);
      if (*end || !(rho > 0 && rho < 1)) {
        fprintf(stderr, "bench_lc_exact: --rho must lie in (0, 1)\n");
        return 2;
      }
    } else if (strcmp(argv[i - 1], "--scheme") == 0) {
      const af_scheme *row = NULL;
      for (int s = 0; s < AF_SCHEME_COUNT; s++) {
        row = af_scheme_get((af_scheme_id) s);
        if (row && strcmp(row->name, v) == 0) {
          sc = (af_scheme_id) s;
          break;
        }
        row = NULL;
      }
      if (row == NULL) {
        fprintf(stderr, "bench_lc_exact: unknown scheme '%s'\n", v);
        return 2;
      }
    } else if (strcmp(argv[i - 1], "--gammas") == 0) {
      ng = 0;
      const char *p = v;
      while (*p && ng < 16) {
        gam[ng] = strtod(p, &end);
        if (end == p || !(gam[ng] > 0)) {
          fprintf(stderr, "bench_lc_exact: --gammas: positive numbers, "
                          "comma-separated\n");
          return 2;
        }
        ng++;
        p = *end == ',' ? end + 1 : end;
      }
      if (ng == 0 || *p) {
        fprintf(stderr, "bench_lc_exact: --gammas: at most 16 numbers\n");
        return 2;
      }
    } else {
      fprintf(stderr, "bench_lc_exact: unknown option '%s'\n", argv[i - 1]);
      return 2;
    }
  }
  size_t d = n + 1, N = af_state_size(n, d);
  double *y = calloc(N, sizeof *y), *yo = malloc(N * sizeof *yo);
  af_work *w = af_work_alloc(n, d);
  if (!(y && yo && w)) {
    fprintf(stderr, "bench_lc_exact: out of memory (state %zu doubles)\n", N);
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    y[i * d] = sqrt(rho);
    y[i * d + i + 1] = sqrt(1.0 - rho);
    y[n * d + i] = 1.0;
  }
  printf("# n=%zu d=%zu rho=%g scheme=%s, one layer h=1, beta = gamma log n\n",
         n, d, rho, af_scheme_get(sc)->name);
  printf("gamma,beta,exact_cos,max_rel_err_cos,max_rel_err_gap,cpu_s\n");
  double worst = 0;
  for (size_t ig = 0; ig < ng; ig++) {
    af_model m;
    af_model_init(&m, n, d, gam[ig] * log((double) n), sc);
    double t0 = cpu_seconds();
    int rc = af_layer_step(yo, y, 0, 1.0, &m, w);
    double t1 = cpu_seconds();
    if (rc != AF_OK) {
      fprintf(stderr, "bench_lc_exact: af_layer_step: %s\n", af_strerror(rc));
      return 1;
    }
    long double cx, gx;
    af_lc_cos(&cx, &gx, sc, (long double) (n - 1), rho, gam[ig], 1.0, 1.0);
    double e1w = 0, e2w = 0;
    for (size_t i = 0; i + 1 < n; i++) {
      const double *u = yo + i * d, *v = yo + (i + 1) * d;
      double nu = 0, nv = 0;
      for (size_t k = 0; k < d; k++) {
        nu += u[k] * u[k];
        nv += v[k] * v[k];
      }
      nu = sqrt(nu);
      nv = sqrt(nv);
      double gap = 0;
      for (size_t k = 0; k < d; k++) {
        double e = u[k] / nu - v[k] / nv;
        gap += e * e;
      }
      gap *= 0.5;
      e1w = fmax(e1w, fabs((1.0 - gap) - (double) cx) / (double) cx);
      e2w = fmax(e2w, fabs(gap - (double) gx) / (double) gx);
    }
    worst = fmax(worst, fmax(e1w, e2w));
    printf("%g,%.10g,%.15Lg,%.3g,%.3g,%.1f\n", gam[ig], m.beta, cx, e1w, e2w,
           t1 - t0);
    fflush(stdout);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("# largest relative error %.3g; peak RSS %.2f GiB\n", worst,
         (double) ru.ru_maxrss / (1024.0 * 1024.0));
  free(y);
  free(yo);
  af_work_free(w);
  return 0;
}
