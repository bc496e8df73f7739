/* bench_roofline.c -- the machine's limits and how close one right-hand
 * side gets to them.
 *
 * Measures, on one core (run with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1;
 * the program warns otherwise):
 *
 *   1. accuracy of the library's vector exp (af_exp_block, both vector
 *      widths) and of libm's exp against MPFR's exp at 128 bits, in ulps of
 *      the double result, on --exp-samples arguments: half uniform in
 *      [-2 beta_max, 0] with beta_max = 20 (the exponents beta (S - 1) of
 *      the attention weights), half uniform in [-708, 708]; and whether the
 *      two vector widths agree bit for bit;
 *   2. exp throughput: af_exp_block and a loop of libm exp over 4096
 *      arguments in [-2, 0] (in cache);
 *   3. DGEMM rate: C = A B, square 2048 (the BLAS peak on this core), and
 *      the rates of the products of one evaluation at (n, d): dsyrk n x d
 *      and dsymm n x n times n x (d + 1) (what the kernel calls), and dgemm
 *      of the same shape (the alternative on a mirrored matrix);
 *   4. one af_rhs (Post-LN, softmax, Q = K = V = I) at --n, --d on a seeded
 *      random state, and its roofline time
 *          t_roof = (n (n + 1) d + 2 n^2 (d + 1)) / R_dgemm
 *                   + n (n + 1) / 2 / R_exp,
 *      the flops of dsyrk and dsymm at the square-DGEMM rate plus the
 *      exponentials at the vector exp rate; the fraction reached is
 *      t_roof / t_rhs;
 *   5. af_rhs with 1 and 2 OpenMP threads and with either exp width:
 *      time, and whether dy is the same bits.
 *
 * Timing: process CPU time (CLOCK_PROCESS_CPUTIME_ID) for the one-thread
 * figures, wall time (CLOCK_MONOTONIC) for the 2-thread comparison and
 * also printed for the one-thread af_rhs; one measurement repeats the call
 * until --min-time seconds have passed; the minimum over --reps
 * measurements is kept (the machine is shared; the minimum is the least
 * disturbed run).
 * Not part of 'make check'.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_cblas.h>
#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "attnflow.h"
#include "internal.h"

#ifdef AF_HAVE_OPENBLAS
char *openblas_get_corename(void);
int openblas_get_num_threads(void);
#endif

static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s)
{
  return (double) (rng_next(s) >> 11) * 0x1.0p-53;
}

/* Process CPU time: on a machine shared with other work it is what the
 * wall time of a quiet machine would be, for one thread (the wall time of
 * the 2-thread runs is measured separately). */
static double clock_of(clockid_t id)
{
  struct timespec t;
  clock_gettime(id, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}


typedef void (*job_fn)(void *);

/* Minimum over reps of the time per call, each measurement >= min_time. */
static double time_job_on(clockid_t id, job_fn f, void *ctx, double min_time,
                          int reps)
{
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    unsigned long calls = 0;
    double t0 = clock_of(id), t;
    do {
      f(ctx);
      calls++;
      t = clock_of(id) - t0;
    } while (t < min_time);
    if (t / (double) calls < best)
      best = t / (double) calls;
  }
  return best;
}

static double time_job(job_fn f, void *ctx, double min_time, int reps)
{
  return time_job_on(CLOCK_PROCESS_CPUTIME_ID, f, ctx, min_time, reps);
}

/* ------------------------------------------------------------ exp */

/* |y - exp(x)| in ulps of the double nearest exp(x), exp(x) by MPFR at
 * 128 bits. */
static double ulp_error(double y, double x, mpfr_t e)
{
  mpfr_set_d(e, x, MPFR_RNDN);
  mpfr_exp(e, e, MPFR_RNDN);
  double ref = mpfr_get_d(e, MPFR_RNDN);
  if (ref == 0 || !isfinite(ref))
    return y == ref ? 0 : INFINITY;
  int ex;
  frexp(ref, &ex);
  double ulp = ldexp(1.0, ex - 53);
  if (ref < 0x1p-1022)
    ulp = 0x1p-1074;
  mpfr_sub_d(e, e, y, MPFR_RNDN);
  return fabs(mpfr_get_d(e, MPFR_RNDN)) / ulp;
}

typedef struct {
  double max_v2, max_v4, max_libm; /* ulps */
  double mean_v2, mean_libm;
  unsigned long differ; /* v2 and v4 not the same bits */
  size_t count;
} exp_acc;

static void exp_accuracy(exp_acc *res, size_t count, double lo, double hi,
                         uint64_t seed)
{
  const size_t blk = 4096;
  double *x = malloc(blk * sizeof *x), *y2 = malloc(blk * sizeof *x),
         *y4 = malloc(blk * sizeof *x);
  mpfr_t e;
  mpfr_init2(e, 128);
  uint64_t s = seed;
  int isa0 = af_exp_block_isa(-1); /* restored below: the af_rhs timings
                                    * must run at the starting width */
  memset(res, 0, sizeof *res);
  for (size_t done = 0; done < count; done += blk) {
    size_t m = count - done < blk ? count - done : blk;
    for (size_t i = 0; i < m; i++)
      x[i] = lo + (hi - lo) * rng_uniform(&s);
    af_exp_block_isa(0);
    af_exp_block(y2, x, m);
    af_exp_block_isa(1);
    af_exp_block(y4, x, m);
    for (size_t i = 0; i < m; i++) {
      if (memcmp(&y2[i], &y4[i], sizeof(double)) != 0)
        res->differ++;
      double u2 = ulp_error(y2[i], x[i], e), u4 = ulp_error(y4[i], x[i], e),
             ul = ulp_error(exp(x[i]), x[i], e);
      res->max_v2 = fmax(res->max_v2, u2);
      res->max_v4 = fmax(res->max_v4, u4);
      res->max_libm = fmax(res->max_libm, ul);
      res->mean_v2 += u2;
      res->mean_libm += ul;
    }
  }
  res->count = count;
  res->mean_v2 /= (double) count;
  res->mean_libm /= (double) count;
  af_exp_block_isa(isa0);
  mpfr_clear(e);
  free(x);
  free(y2);
  free(y4);
}

typedef struct {
  double *x, *y;
  size_t len;
} exp_ctx;

static void job_vexp(void *p)
{
  exp_ctx *c = p;
  af_exp_block(c->y, c->x, c->len);
}

static void job_libm(void *p)
{
  exp_ctx *c = p;
  for (size_t i = 0; i < c->len; i++)
    c->y[i] = exp(c->x[i]);
}

/* ------------------------------------------------------------ BLAS */

typedef struct {
  size_t m, k, e;
  double *a, *b, *c;
} blas_ctx;

static void job_dgemm(void *p)
{
  blas_ctx *c = p;
  int m = (int) c->m;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, c->a,
              m, c->b, m, 0.0, c->c, m);
}

static void job_dsyrk(void *p)
{
  blas_ctx *c = p;
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) c->m, (int) c->k,
              1.0, c->a, (int) c->k, 0.0, c->c, (int) c->m);
}

static void job_dgemm_e(void *p)
{
  blas_ctx *c = p;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) c->m,
              (int) c->e, (int) c->m, 1.0, c->c, (int) c->m, c->a, (int) c->e,
              0.0, c->b, (int) c->e);
}

static void job_dsymm(void *p)
{
  blas_ctx *c = p;
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, (int) c->m, (int) c->e,
              1.0, c->c, (int) c->m, c->a, (int) c->e, 0.0, c->b, (int) c->e);
}

/* ------------------------------------------------------------ rhs */

typedef struct {
  double *dy, *y;
  af_model m;
  af_work *w;
  int rc;
} rhs_ctx;

static void job_rhs(void *p)
{
  rhs_ctx *c = p;
  int rc = af_rhs(c->dy, 0.0, c->y, &c->m, c->w);
  if (rc != AF_OK)
    c->rc = rc;
}

static void set_threads(int k)
{
#ifdef _OPENMP
  omp_set_num_threads(k);
#else
  (void) k;
#endif
}

int main(int argc, char **argv)
{
  size_t n = 1024, d = 64, samples = 2000000;
  double min_time = 0.2, beta = 1.0;
  int reps = 5;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--n") == 0)
      n = strtoul(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--d") == 0)
      d = strtoul(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--beta") == 0)
      beta = strtod(argv[++i], NULL);
    else if (i + 1 < argc && strcmp(argv[i], "--exp-samples") == 0)
      samples = strtoul(argv[++i], NULL, 10);
    else if (i + 1 < argc && strcmp(argv[i], "--min-time") == 0)
      min_time = strtod(argv[++i], NULL);
    else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
      reps = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: bench_roofline [--n N] [--d D] [--beta B] "
              "[--exp-samples K] [--min-time SEC] [--reps R]\n");
      return 2;
    }
  }
  if (n < 2 || d < 1 || reps < 1 || !(min_time >= 0)) {
    fprintf(stderr, "bench_roofline: bad arguments\n");
    return 2;
  }
  const char *ob = getenv("OPENBLAS_NUM_THREADS"),
             *om = getenv("OMP_NUM_THREADS");
  printf("# bench_roofline: attnflow %s, n = %zu, d = %zu, beta = %g\n",
         PACKAGE_VERSION, n, d, beta);
#ifdef AF_HAVE_OPENBLAS
  printf("# BLAS: OpenBLAS core %s, %d thread(s)\n", openblas_get_corename(),
         openblas_get_num_threads());
#else
  printf("# BLAS: not OpenBLAS (GSL CBLAS or other)\n");
#endif
  printf("# OPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s; exp vector width in "
         "use: %d lanes\n",
         ob ? ob : "(unset)", om ? om : "(unset)",
         2 << af_exp_block_isa(-1));
  if (!ob || strcmp(ob, "1") != 0 || !om || strcmp(om, "1") != 0)
    fprintf(stderr, "bench_roofline: warning: set OPENBLAS_NUM_THREADS=1 "
                    "OMP_NUM_THREADS=1 for single-core figures\n");

  /* 1. exp accuracy. */
  exp_acc acc[2];
  double lo[2] = {-40.0, -708.0}, hi[2] = {0.0, 708.0};
  printf("\n## exp accuracy against MPFR (ulps of the double result)\n\n");
  printf("| arguments | samples | af_exp_block max | mean | libm exp max | "
         "mean | 2-lane vs 4-lane differ |\n|---|---:|---:|---:|---:|---:|"
         "---:|\n");
  for (int r = 0; r < 2; r++) {
    exp_accuracy(&acc[r], samples / 2, lo[r], hi[r], 20251022 + r);
    printf("| [%g, %g] | %zu | %.3f (4-lane %.3f) | %.3f | %.3f | %.3f | "
           "%lu |\n",
           lo[r], hi[r], acc[r].count, acc[r].max_v2, acc[r].max_v4,
           acc[r].mean_v2, acc[r].max_libm, acc[r].mean_libm,
           acc[r].differ);
  }

  /* 2. exp rate. */
  exp_ctx ec = {malloc(4096 * sizeof(double)), malloc(4096 * sizeof(double)),
                4096};
  for (size_t i = 0; i < ec.len; i++)
    ec.x[i] = -2.0 * (double) i / (double) ec.len;
  double t_vexp = time_job(job_vexp, &ec, min_time, reps) / (double) ec.len;
  double t_libm = time_job(job_libm, &ec, min_time, reps) / (double) ec.len;

  /* 3. BLAS rates. */
  size_t g = 2048;
  blas_ctx bc = {g, 0, 0, malloc(g * g * sizeof(double)),
                 malloc(g * g * sizeof(double)),
                 malloc(g * g * sizeof(double))};
  uint64_t s = 7;
  for (size_t i = 0; i < g * g; i++) {
    bc.a[i] = rng_uniform(&s) - 0.5;
    bc.b[i] = rng_uniform(&s) - 0.5;
    bc.c[i] = 0;
  }
  double t_gemm = time_job(job_dgemm, &bc, min_time, reps);
  double r_gemm = 2.0 * (double) g * (double) g * (double) g / t_gemm;
  size_t e = d + 1;
  blas_ctx sc = {n, d, e, malloc(n * e * sizeof(double)),
                 malloc(n * e * sizeof(double)),
                 malloc(n * n * sizeof(double))};
  for (size_t i = 0; i < n * e; i++)
    sc.a[i] = rng_uniform(&s);
  for (size_t i = 0; i < n * n; i++)
    sc.c[i] = rng_uniform(&s);
  double t_syrk = time_job(job_dsyrk, &sc, min_time, reps);
  double t_symm = time_job(job_dsymm, &sc, min_time, reps);
  double t_gemm_e = time_job(job_dgemm_e, &sc, min_time, reps);
  double f_syrk = (double) n * (double) (n + 1) * (double) d;
  double f_symm = 2.0 * (double) n * (double) n * (double) e;

  printf("\n## rates (one core, minimum over %d runs)\n\n", reps);
  printf("| quantity | value |\n|---|---:|\n");
  printf("| DGEMM 2048^3 | %.2f GFlop/s |\n", r_gemm * 1e-9);
  printf("| dsyrk n=%zu, k=%zu (lower) | %.2f GFlop/s (%.0f us) |\n", n, d,
         f_syrk / t_syrk * 1e-9, t_syrk * 1e6);
  printf("| dsymm %zu x %zu times %zu x %zu (the kernel's product) | %.2f "
         "GFlop/s (%.0f us) |\n",
         n,
         n, n, e, f_symm / t_symm * 1e-9, t_symm * 1e6);
  printf("| dgemm %zu x %zu times %zu x %zu (same product, full matrix) | "
         "%.2f "
         "GFlop/s (%.0f us) |\n",
         n, n, n, e, f_symm / t_gemm_e * 1e-9, t_gemm_e * 1e6);
  printf("| af_exp_block (%d lanes) | %.3f ns/exp (%.0f Mexp/s) |\n",
         2 << af_exp_block_isa(-1), t_vexp * 1e9, 1e-6 / t_vexp);
  printf("| libm exp | %.3f ns/exp (%.0f Mexp/s) |\n", t_libm * 1e9,
         1e-6 / t_libm);

  /* 4. one right-hand side. */
  rhs_ctx rc;
  memset(&rc, 0, sizeof rc);
  size_t dim = af_state_size(n, d);
  rc.y = malloc(dim * sizeof(double));
  rc.dy = malloc(dim * sizeof(double));
  double *dy1 = malloc(dim * sizeof(double));
  size_t line;
  af_model_init(&rc.m, n, d, beta, AF_POST_LN);
  rc.w = af_work_alloc(n, d);
  if (!rc.y || !rc.dy || !dy1 || !rc.w
      || af_init_state(rc.y, &line, "uniform", n, d, NAN, 20251022) != AF_OK) {
    fprintf(stderr, "bench_roofline: out of memory or af_init_state failed\n");
    return 1;
  }
  set_threads(1);
  double t_rhs = time_job(job_rhs, &rc, min_time, reps);
  double t_rhs_wall =
      time_job_on(CLOCK_MONOTONIC, job_rhs, &rc, min_time, reps);
  memcpy(dy1, rc.dy, dim * sizeof(double));
  double nexp = (double) n * (double) (n + 1) / 2.0;
  double t_roof = (f_syrk + f_symm) / r_gemm + nexp * t_vexp;
  double t_roof_libm = (f_syrk + f_symm) / r_gemm + nexp * t_libm;
  printf("\n## one af_rhs (Post-LN, softmax, Q = K = V = I), n = %zu, "
         "d = %zu, 1 thread\n\n",
         n, d);
  printf("| quantity | value |\n|---|---:|\n");
  printf("| flops (dsyrk + dsymm) | %.3g |\n", f_syrk + f_symm);
  printf("| exponentials | %.0f |\n", nexp);
  printf("| roofline time: flops / DGEMM rate + exps / vector-exp rate | "
         "%.0f us |\n",
         t_roof * 1e6);
  printf("| (same with libm exp) | %.0f us |\n", t_roof_libm * 1e6);
  printf("| measured af_rhs (CPU time) | %.0f us |\n", t_rhs * 1e6);
  printf("| (wall time, 1 thread) | %.0f us |\n", t_rhs_wall * 1e6);
  printf("| **fraction of the roofline reached** | **%.2f** |\n",
         t_roof / t_rhs);
  printf("| measured dsyrk + exps + dsymm alone | %.0f us |\n",
         (t_syrk + t_symm + nexp * t_vexp) * 1e6);
  printf("| effective rate (flops / time) | %.1f GFlop/s |\n",
         (f_syrk + f_symm) / t_rhs * 1e-9);

  /* 5. threads and exp width. */
  int same_threads = -1, same_isa = -1;
  double t_rhs2 = NAN;
#ifdef _OPENMP
  set_threads(2);
  t_rhs2 = time_job_on(CLOCK_MONOTONIC, job_rhs, &rc, min_time, reps);
  same_threads = memcmp(dy1, rc.dy, dim * sizeof(double)) == 0;
  set_threads(1);
#endif
  int isa = af_exp_block_isa(-1);
  int isa_other = af_exp_block_isa(isa ? 0 : 1);
  job_rhs(&rc);
  same_isa = memcmp(dy1, rc.dy, dim * sizeof(double)) == 0;
  af_exp_block_isa(isa);
  printf("\n## threads and exp width\n\n| quantity | value |\n|---|---:|\n");
  printf("| af_rhs, 2 OpenMP threads (wall) | %.0f us (1-thread wall / "
         "2-thread wall = %.2f) |\n",
         t_rhs2 * 1e6, t_rhs_wall / t_rhs2);
  printf("| dy bitwise equal, 1 vs 2 threads | %s |\n",
         same_threads < 0 ? "n/a (no OpenMP)" : same_threads ? "yes" : "NO");
  printf("| dy bitwise equal, %d-lane vs %d-lane exp | %s |\n", 2 << isa,
         2 << isa_other, same_isa ? "yes" : "NO");
  if (rc.rc != AF_OK) {
    fprintf(stderr, "bench_roofline: af_rhs failed: %s\n",
            af_strerror(rc.rc));
    return 1;
  }
  af_work_free(rc.w);
  free(rc.y);
  free(rc.dy);
  free(dy1);
  free(sc.a);
  free(sc.b);
  free(sc.c);
  free(bc.a);
  free(bc.b);
  free(bc.c);
  free(ec.x);
  free(ec.y);
  return 0;
}
