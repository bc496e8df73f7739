/* bench_rhs.c -- cost of one right-hand-side evaluation.
 *
 * For each (n, d) of a grid and each scheme asked for, on a seeded random
 * state (directions uniform on S^{d-1}, radii uniform in [1/2, 2]) with
 * Q = K = V = I and softmax attention, this times
 *
 *   blas    af_rhs with AF_KERNEL_BLAS   (level-3 products, one exp per pair)
 *   direct  af_rhs with AF_KERNEL_DIRECT (plain loops inside the library)
 *   plain   plain_rhs below: the triple loop a user would write (scores by
 *           a naive dot product, one exp per ordered pair, softmax with the
 *           row maximum subtracted, weighted sum, tangent projection),
 *           compiled in this file with the same flags as the library.
 *
 * The three results are compared first (max abs difference against a
 * first-order rounding-error bound, derived at check_agreement); a
 * disagreement stops the program before anything is timed.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC); one measurement calls the
 * evaluation until at least --min-time seconds (default 0.2) have passed
 * and divides by the number of calls; the three variants are measured
 * interleaved, 5 times each (3 when a single call exceeds 1 s), and the
 * median is kept.  Reported: ns per (n^2 d), i.e. per (pair x dimension),
 * and the ratios plain/blas, plain/direct of the medians of one run.
 *
 * Run with OPENBLAS_NUM_THREADS=1 ('make bench' sets it): the comparison
 * is single-core.  Not part of 'make check'.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attnflow.h"

#ifdef AF_HAVE_OPENBLAS
/* From OpenBLAS's cblas.h (not included: the library uses GSL's CBLAS
 * declarations, and the two headers clash). */
char *openblas_get_config(void);
char *openblas_get_corename(void);
int openblas_get_num_threads(void);
#endif

#define MAX_LIST 32
#define NREP_DEFAULT 5
#define NREP_SLOW 3
#define SLOW_CALL_SECONDS 1.0
#define BENCH_MISMATCH (-1) /* not an af_status: results disagree */

/* ------------------------------------------------------------------ */
/* Random state: splitmix64, self-contained so the seed alone fixes it. */
/* ------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Uniform in (0, 1): 53 random bits, offset by half a unit. */
static double rng_uniform(uint64_t *s)
{
  return ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
}

static double rng_normal(uint64_t *s)
{
  /* Box-Muller; the second variate is discarded (speed is irrelevant). */
  double u1 = rng_uniform(s), u2 = rng_uniform(s);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* theta_j = g/|g| with g standard Gaussian (uniform on the sphere),
 * r_j uniform in [1/2, 2] so that Pre-LN and Peri-LN divide by something. */
static void random_state(double *y, size_t n, size_t d, unsigned long seed)
{
  uint64_t s = (uint64_t)seed;
  for (size_t j = 0; j < n; j++) {
    double *th = y + j * d, nrm2;
    do {
      nrm2 = 0.0;
      for (size_t i = 0; i < d; i++) {
        th[i] = rng_normal(&s);
        nrm2 += th[i] * th[i];
      }
    } while (nrm2 == 0.0);
    double nrm = sqrt(nrm2);
    for (size_t i = 0; i < d; i++)
      th[i] /= nrm;
    y[n * d + j] = 0.5 + 1.5 * rng_uniform(&s);
  }
}

/* ------------------------------------------------------------------ */
/* The plain baseline.                                                  */
/* ------------------------------------------------------------------ */

typedef struct {
  double *th; /* n x d unit directions */
  double *e;  /* n: scores, then exponentials of one row */
  double *A;  /* d: attention output of one row */
  double *s;  /* n: speed factor of each row (kept for the error bound) */
  double *a;  /* n: |A_j| */
} plain_work;

/* dy = f(y) for Q = K = V = I, softmax, schemes Post-LN, Pre-LN, Peri-LN
 * (theory/theorems.md M2, M3, S0): the obvious code, row by row.  The weighted sum
 * runs k outer, i inner (contiguous rows): the cache-friendly order, so the
 * baseline is not handicapped by a strided loop. */
static int plain_rhs(double *dy, const double *y, size_t n, size_t d,
                     double beta, af_scheme_id scheme, plain_work *pw)
{
  double *th = pw->th, *e = pw->e, *A = pw->A;

  /* Directions theta/|theta| (the library's field depends on these only). */
  for (size_t j = 0; j < n; j++) {
    double nrm2 = 0.0;
    for (size_t i = 0; i < d; i++)
      nrm2 += y[j * d + i] * y[j * d + i];
    double nrm = sqrt(nrm2);
    for (size_t i = 0; i < d; i++)
      th[j * d + i] = y[j * d + i] / nrm;
  }

  for (size_t j = 0; j < n; j++) {
    const double *tj = th + j * d;
    double m = -HUGE_VAL;
    for (size_t k = 0; k < n; k++) {
      const double *tk = th + k * d;
      double dot = 0.0;
      for (size_t i = 0; i < d; i++)
        dot += tj[i] * tk[i];
      e[k] = beta * dot;
      if (e[k] > m)
        m = e[k];
    }
    double Z = 0.0;
    for (size_t k = 0; k < n; k++) {
      e[k] = exp(e[k] - m);
      Z += e[k];
    }
    for (size_t i = 0; i < d; i++)
      A[i] = 0.0;
    for (size_t k = 0; k < n; k++) {
      const double *tk = th + k * d;
      for (size_t i = 0; i < d; i++)
        A[i] += e[k] * tk[i];
    }
    double c = 0.0, a2 = 0.0;
    for (size_t i = 0; i < d; i++) {
      A[i] /= Z;
      c += tj[i] * A[i];
      a2 += A[i] * A[i];
    }
    double a = sqrt(a2), r = y[n * d + j], s, rho;
    switch (scheme) {
    case AF_POST_LN: s = 1.0; rho = 0.0; break;
    case AF_PRE_LN: s = r; rho = c; break;
    case AF_PERI_LN:
      if (a == 0.0)
        return AF_EZEROATTN;
      s = r * a; rho = c / a; break;
    default: return AF_EINVAL;
    }
    for (size_t i = 0; i < d; i++)
      dy[j * d + i] = (A[i] - c * tj[i]) / s;
    dy[n * d + j] = rho;
    pw->s[j] = s;
    pw->a[j] = a;
  }
  return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Agreement check.                                                     */
/* ------------------------------------------------------------------ */

/* Largest |got - want| and the largest ratio |got - want| / bound_j.
 *
 * Bound (first order in u = DBL_EPSILON/2, unit directions, Q=K=V=I):
 *   score beta<th_j,th_k>: dot product of length d of unit vectors, error
 *     <= d u sum|th_ji th_ki| <= d u, times beta;
 *   exp(s_k - m): two scores and the exp, relative 2 beta d u + u;
 *   w = e / Z: relative <= 2 (2 beta d u + u) + n u (sum of n terms);
 *   A = sum w th_k: sum of n terms of a convex combination, error
 *     <= 4 beta d u + 2 u + 2 n u;
 *   c = <th, A>, P A = A - c th: another d u + 2 u.
 * Total E = (4 beta d + 2 n + d + 4) u, rounded up to
 * (4 beta d + 2 n + 2 d + 8) u.  The theta part is divided by s_j (error
 * E / s_j); Peri-LN's radial part c/a has error <= E/a + E|c|/a^2 <= 2E/a.
 * Two implementations each within the bound differ by at most twice it,
 * so bound_j = 2 * 2 * E / min(s_j, a_j [Peri-LN], 1). */
static void check_agreement(double *maxdiff, double *ratio, const double *got,
                            const double *want, size_t n, size_t d,
                            double beta, af_scheme_id scheme,
                            const plain_work *pw)
{
  const double u = DBL_EPSILON / 2.0;
  const double E =
      (4.0 * beta * (double)d + 2.0 * (double)n + 2.0 * (double)d + 8.0) * u;
  double md = 0.0, mr = 0.0;
  for (size_t j = 0; j < n; j++) {
    double den = fmin(pw->s[j], 1.0);
    if (scheme == AF_PERI_LN)
      den = fmin(den, pw->a[j]);
    double bound = 4.0 * E / den, rowmax = 0.0;
    for (size_t i = 0; i <= d; i++) {
      /* i < d: theta part; i == d: the radial rate. */
      size_t idx = (i < d) ? j * d + i : n * d + j;
      double diff = fabs(got[idx] - want[idx]);
      if (!(diff <= rowmax)) /* also catches NaN, which fmax would drop */
        rowmax = isnan(diff) ? HUGE_VAL : diff;
    }
    md = fmax(md, rowmax);
    mr = fmax(mr, rowmax / bound);
  }
  *maxdiff = md;
  *ratio = mr;
}

/* ------------------------------------------------------------------ */
/* Timing.                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
  int which; /* 0 blas, 1 direct, 2 plain */
  double *dy;
  const double *y;
  const af_model *m;
  af_work *w;
  plain_work *pw;
} eval_ctx;

static int eval_once(eval_ctx *c)
{
  if (c->which == 2)
    return plain_rhs(c->dy, c->y, c->m->n, c->m->d, c->m->beta, c->m->scheme,
                     c->pw);
  return af_rhs(c->dy, 0.0, c->y, c->m, c->w);
}

static double clock_seconds(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

/* Wall seconds per call: calls until min_time has passed (at least one).
 * The process CPU time of the same calls goes to *cpu_per_call: on a
 * machine shared with other jobs wall > cpu, and their quotient says how
 * much of the core the measurement had. */
static int time_calls(double *per_call, double *cpu_per_call,
                      unsigned long *calls, eval_ctx *c, double min_time)
{
  unsigned long k = 0;
  double c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  double t0 = now_seconds(), el;
  do {
    int rc = eval_once(c);
    if (rc != AF_OK)
      return rc;
    k++;
    el = now_seconds() - t0;
  } while (el < min_time);
  *cpu_per_call = (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)k;
  *per_call = el / (double)k;
  *calls = k;
  return AF_OK;
}

static int cmp_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static double median(double *v, int k)
{
  qsort(v, (size_t)k, sizeof *v, cmp_double);
  return (k % 2) ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* ------------------------------------------------------------------ */
/* One grid point.                                                      */
/* ------------------------------------------------------------------ */

typedef struct {
  af_scheme_id scheme;
  size_t n, d;
  double sec[3];      /* median wall seconds per call: blas, direct, plain */
  double cpu[3];      /* median process CPU seconds per call              */
  unsigned long calls[3]; /* calls in the last measurement             */
  int nrep;
  double maxdiff[2], ratio[2]; /* blas, direct against plain */
} result;

static const char *variant_name[3] = {"blas", "direct", "plain"};

static int bench_point(result *res, af_scheme_id scheme, size_t n, size_t d,
                       double beta, unsigned long seed, double min_time)
{
  int rc = AF_OK;
  size_t sz = af_state_size(n, d);
  double *y = malloc(sz * sizeof *y);
  double *dy[3];
  for (int v = 0; v < 3; v++)
    dy[v] = malloc(sz * sizeof(double));
  plain_work pw = {malloc(n * d * sizeof(double)), malloc(n * sizeof(double)),
                   malloc(d * sizeof(double)), malloc(n * sizeof(double)),
                   malloc(n * sizeof(double))};
  af_work *w[2] = {af_work_alloc(n, d), af_work_alloc(n, d)};
  af_model m;
  eval_ctx ctx[3];

  if (!y || !dy[0] || !dy[1] || !dy[2] || !pw.th || !pw.e || !pw.A ||
      !pw.s || !pw.a || !w[0] || !w[1]) {
    rc = AF_ENOMEM;
    goto done;
  }
  random_state(y, n, d, seed);
  af_model_init(&m, n, d, beta, scheme);
  if ((rc = af_work_set_kernel(w[0], AF_KERNEL_BLAS)) != AF_OK ||
      (rc = af_work_set_kernel(w[1], AF_KERNEL_DIRECT)) != AF_OK)
    goto done;

  for (int v = 0; v < 3; v++) {
    ctx[v] = (eval_ctx){v, dy[v], y, &m, v < 2 ? w[v] : NULL, &pw};
    if ((rc = eval_once(&ctx[v])) != AF_OK) { /* also the warm-up */
      fprintf(stderr, "bench_rhs: %s n=%zu d=%zu: %s\n", variant_name[v], n,
              d, af_strerror(rc));
      goto done;
    }
  }
  res->scheme = scheme;
  res->n = n;
  res->d = d;
  for (int v = 0; v < 2; v++)
    check_agreement(&res->maxdiff[v], &res->ratio[v], dy[v], dy[2], n, d,
                    beta, scheme, &pw);
  if (res->ratio[0] > 1.0 || res->ratio[1] > 1.0) {
    fprintf(stderr,
            "bench_rhs: %s n=%zu d=%zu: results disagree beyond the rounding "
            "bound (max |blas-plain| = %.3g, %.3g x bound; max |direct-plain| "
            "= %.3g, %.3g x bound)\n",
            af_scheme_get(scheme)->name, n, d, res->maxdiff[0],
            res->ratio[0], res->maxdiff[1], res->ratio[1]);
    rc = BENCH_MISMATCH;
    goto done;
  }

  /* Fewer repetitions when one call is slow (the largest sizes). */
  double t0 = now_seconds();
  if ((rc = eval_once(&ctx[2])) != AF_OK)
    goto done;
  res->nrep = (now_seconds() - t0 > SLOW_CALL_SECONDS) ? NREP_SLOW
                                                       : NREP_DEFAULT;
  double samples[3][NREP_DEFAULT], csamples[3][NREP_DEFAULT];
  for (int r = 0; r < res->nrep; r++)
    for (int v = 0; v < 3; v++)
      if ((rc = time_calls(&samples[v][r], &csamples[v][r], &res->calls[v],
                           &ctx[v], min_time)) != AF_OK)
        goto done;
  for (int v = 0; v < 3; v++) {
    res->sec[v] = median(samples[v], res->nrep);
    res->cpu[v] = median(csamples[v], res->nrep);
  }

done:
  af_work_free(w[0]);
  af_work_free(w[1]);
  free(pw.th);
  free(pw.e);
  free(pw.A);
  free(pw.s);
  free(pw.a);
  for (int v = 0; v < 3; v++)
    free(dy[v]);
  free(y);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Provenance and output.                                               */
/* ------------------------------------------------------------------ */

/* "model name" of the first processor of /proc/cpuinfo, with its family,
 * model and stepping (a virtual machine may show a generic name only),
 * and the number of processors listed. */
static void cpu_model(char *buf, size_t len)
{
  char name[256] = "unknown", fam[32] = "?", mod[32] = "?", step[32] = "?";
  int nproc = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[1024];
    while (fgets(line, sizeof line, f)) {
      char *p = strchr(line, ':');
      if (!p)
        continue;
      char *v = p + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      v[strcspn(v, "\n")] = '\0';
      if (strncmp(line, "processor", 9) == 0)
        nproc++;
      if (nproc != 1)
        continue;
      if (strncmp(line, "model name", 10) == 0)
        snprintf(name, sizeof name, "%s", v);
      else if (strncmp(line, "cpu family", 10) == 0)
        snprintf(fam, sizeof fam, "%s", v);
      else if (strncmp(line, "model\t", 6) == 0)
        snprintf(mod, sizeof mod, "%s", v);
      else if (strncmp(line, "stepping", 8) == 0)
        snprintf(step, sizeof step, "%s", v);
    }
    fclose(f);
  }
  snprintf(buf, len, "%s (family %s, model %s, stepping %s; %d logical CPUs)",
           name, fam, mod, step, nproc);
}

/* First three fields of /proc/loadavg (1, 5, 15 minute load averages). */
static void load_average(char *buf, size_t len)
{
  double l1, l5, l15;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f && fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
    snprintf(buf, len, "%.2f %.2f %.2f", l1, l5, l15);
  else
    snprintf(buf, len, "unknown");
  if (f)
    fclose(f);
}

static void blas_description(char *buf, size_t len)
{
#ifdef AF_HAVE_OPENBLAS
  snprintf(buf, len, "OpenBLAS (%s; core %s; %d thread(s))",
           openblas_get_config(), openblas_get_corename(),
           openblas_get_num_threads());
#else
  snprintf(buf, len, "GSL reference CBLAS (libgslcblas)");
#endif
}

typedef struct {
  const result *res;
  size_t count;
  char **prov; /* provenance lines, NULL-terminated */
} csv_ctx;

static int write_csv(FILE *f, void *vctx)
{
  const csv_ctx *c = vctx;
  for (char **p = c->prov; *p; p++)
    fprintf(f, "# %s\n", *p);
  fprintf(f, "scheme,n,d,blas_ns,direct_ns,plain_ns,plain_over_blas,"
             "plain_over_direct,blas_s_per_call,direct_s_per_call,"
             "plain_s_per_call,blas_cpu_s_per_call,direct_cpu_s_per_call,"
             "plain_cpu_s_per_call,maxdiff_blas,maxdiff_direct,reps\n");
  for (size_t i = 0; i < c->count; i++) {
    const result *r = &c->res[i];
    double pd = (double)r->n * (double)r->n * (double)r->d * 1e-9;
    fprintf(f,
            "%s,%zu,%zu,%.4g,%.4g,%.4g,%.4g,%.4g,%.6g,%.6g,%.6g,%.6g,%.6g,"
            "%.6g,%.3g,%.3g,%d\n",
            af_scheme_get(r->scheme)->name, r->n, r->d, r->sec[0] / pd,
            r->sec[1] / pd, r->sec[2] / pd, r->sec[2] / r->sec[0],
            r->sec[2] / r->sec[1], r->sec[0], r->sec[1], r->sec[2],
            r->cpu[0], r->cpu[1], r->cpu[2], r->maxdiff[0], r->maxdiff[1],
            r->nrep);
  }
  return ferror(f) ? AF_EIO : AF_OK;
}

/* ------------------------------------------------------------------ */
/* Command line.                                                        */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
  fprintf(f,
          "usage: bench_rhs [--quick] [--n LIST] [--d LIST] [--schemes LIST]\n"
          "                 [--beta B] [--seed S] [--min-time SEC] [--csv PATH]\n"
          "  LIST is comma-separated, e.g. --n 32,128,512 --schemes post-ln,pre-ln,peri-ln\n"
          "  defaults: --n 32,128,512 --d 3,16,64,512 --schemes post-ln,pre-ln\n"
          "            --beta 1 --seed 20251022 --min-time 0.2\n"
          "  --quick: n 32,128, d 3,64, min-time 0.05\n"
          "  Run with OPENBLAS_NUM_THREADS=1.\n");
}

/* The items of the comma-separated list s, each by item(tok, out, k) into
 * slot k of out (0, or -1 for a bad item or k = MAX_LIST); *count of
 * them.  -1 for a bad or an empty list. */
static int parse_list(void *out, size_t *count, const char *s,
                      int (*item)(const char *tok, void *out, size_t k))
{
  char *copy = strdup(s), *save = NULL;
  if (!copy)
    return -1;
  *count = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    if (item(tok, out, *count) != 0) {
      free(copy);
      return -1;
    }
    ++*count;
  }
  free(copy);
  return *count ? 0 : -1;
}

static int size_item(const char *tok, void *out, size_t k)
{
  char *end;
  errno = 0;
  unsigned long v = strtoul(tok, &end, 10);
  if (errno || *end || v == 0 || k == MAX_LIST || tok[0] == '-')
    return -1;
  ((size_t *) out)[k] = (size_t) v;
  return 0;
}

static int scheme_item(const char *tok, void *out, size_t k)
{
  af_scheme_id id;
  if (af_scheme_lookup(&id, tok) != AF_OK ||
      (id != AF_POST_LN && id != AF_PRE_LN && id != AF_PERI_LN) ||
      k == MAX_LIST) {
    fprintf(stderr, "bench_rhs: scheme '%s' not benchmarked (post-ln, "
                    "pre-ln, peri-ln)\n", tok);
    return -1;
  }
  ((af_scheme_id *) out)[k] = id;
  return 0;
}

static int parse_double(double *out, const char *s)
{
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return (errno || *end || !isfinite(*out)) ? -1 : 0;
}

int main(int argc, char **argv)
{
  size_t ns[MAX_LIST] = {32, 128, 512}, nn = 3;
  size_t ds[MAX_LIST] = {3, 16, 64, 512}, nd = 4;
  af_scheme_id sch[MAX_LIST] = {AF_POST_LN, AF_PRE_LN};
  size_t nsch = 2;
  double beta = 1.0, min_time = 0.2;
  unsigned long seed = 20251022UL;
  const char *csv = NULL;
  int quick = 0, n_given = 0, d_given = 0, t_given = 0;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    int bad = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--quick")) {
      quick = 1;
    } else if (!v) {
      bad = 1;
    } else if (!strcmp(a, "--n")) {
      bad = parse_list(ns, &nn, v, size_item); n_given = 1; i++;
    } else if (!strcmp(a, "--d")) {
      bad = parse_list(ds, &nd, v, size_item); d_given = 1; i++;
    } else if (!strcmp(a, "--schemes")) {
      bad = parse_list(sch, &nsch, v, scheme_item); i++;
    } else if (!strcmp(a, "--beta")) {
      bad = parse_double(&beta, v) || beta < 0; i++;
    } else if (!strcmp(a, "--min-time")) {
      bad = parse_double(&min_time, v) || min_time < 0; t_given = 1; i++;
    } else if (!strcmp(a, "--seed")) {
      char *end;
      errno = 0;
      seed = strtoul(v, &end, 10);
      bad = errno || *end || v[0] == '-';
      i++;
    } else if (!strcmp(a, "--csv")) {
      csv = v; i++;
    } else {
      bad = 1;
    }
    if (bad) {
      fprintf(stderr, "bench_rhs: bad argument '%s'%s%s\n", a, v ? " " : "",
              v ? v : "");
      usage(stderr);
      return 2;
    }
  }
  if (quick) {
    if (!n_given) { ns[0] = 32; ns[1] = 128; nn = 2; }
    if (!d_given) { ds[0] = 3; ds[1] = 64; nd = 2; }
    if (!t_given) min_time = 0.05;
  }

  /* Provenance. */
  char cpu[256], blas[512], date[64], l_ver[128], l_blas[600], l_cpu[300],
      l_date[96], l_seed[96], l_thr[128], l_cc[160], l_setup[200], load[64],
      l_load0[128], l_load1[128] = "";
  cpu_model(cpu, sizeof cpu);
  blas_description(blas, sizeof blas);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  const char *thr = getenv("OPENBLAS_NUM_THREADS");
  snprintf(l_ver, sizeof l_ver, "attnflow %s, commit %s", af_version(),
           af_commit());
#ifdef AF_HAVE_OPENBLAS
  snprintf(l_blas, sizeof l_blas, "BLAS: %s (AF_HAVE_OPENBLAS=1)", blas);
#else
  snprintf(l_blas, sizeof l_blas, "BLAS: %s (AF_HAVE_OPENBLAS undefined)",
           blas);
#endif
  snprintf(l_cpu, sizeof l_cpu, "CPU: %s", cpu);
  snprintf(l_date, sizeof l_date, "date: %s", date);
  load_average(load, sizeof load);
  snprintf(l_load0, sizeof l_load0,
           "load average at start: %s (on %ld online CPUs)", load,
           sysconf(_SC_NPROCESSORS_ONLN));
  snprintf(l_seed, sizeof l_seed, "seed: %lu (splitmix64, bench_rhs.c)", seed);
  snprintf(l_thr, sizeof l_thr, "OPENBLAS_NUM_THREADS=%s",
           thr ? thr : "(unset)");
  snprintf(l_cc, sizeof l_cc, "compiler: %s%s", __VERSION__,
#ifdef __OPTIMIZE__
           " (optimizing)"
#else
           " (not optimizing: timings meaningless)"
#endif
  );
  snprintf(l_setup, sizeof l_setup,
           "setup: softmax, Q=K=V=I, beta=%g, theta uniform on the sphere, "
           "r uniform in [1/2,2]; min-time %g s, median of %d",
           beta, min_time, NREP_DEFAULT);
  char *prov[] = {l_ver, l_blas,  l_cpu,   l_date,  l_seed,
                  l_thr, l_cc,    l_setup, l_load0, NULL, NULL};
  for (char **p = prov; *p; p++)
    printf("# %s\n", *p);
  if (!thr || strcmp(thr, "1") != 0)
    printf("# WARNING: OPENBLAS_NUM_THREADS is not 1; the comparison is "
           "meant single-core\n");
  printf("# ns = wall nanoseconds per (n^2 d); pl/x = plain / x; diff = max "
         "|x - plain| over dy;\n# busy = largest wall/CPU of the three "
         "medians (1.00: the core was ours; more: shared with other jobs)\n");
  printf("%-8s %5s %4s %10s %10s %10s %8s %8s %9s %9s %5s\n", "scheme", "n",
         "d", "blas_ns", "direct_ns", "plain_ns", "pl/blas", "pl/dir",
         "diff_blas", "diff_dir", "busy");
  fflush(stdout);

  result *res = calloc(nsch * nn * nd, sizeof *res);
  size_t count = 0;
  int rc = res ? AF_OK : AF_ENOMEM;
  for (size_t s = 0; rc == AF_OK && s < nsch; s++)
    for (size_t i = 0; rc == AF_OK && i < nn; i++)
      for (size_t k = 0; rc == AF_OK && k < nd; k++) {
        result *r = &res[count];
        rc = bench_point(r, sch[s], ns[i], ds[k], beta, seed, min_time);
        if (rc != AF_OK)
          break;
        count++;
        double pd = (double)r->n * (double)r->n * (double)r->d * 1e-9;
        double busy = 0.0;
        for (int v = 0; v < 3; v++)
          busy = fmax(busy, r->sec[v] / r->cpu[v]);
        printf("%-8s %5zu %4zu %10.4g %10.4g %10.4g %8.3g %8.3g %9.2g %9.2g "
               "%5.2f\n",
               af_scheme_get(r->scheme)->name, r->n, r->d, r->sec[0] / pd,
               r->sec[1] / pd, r->sec[2] / pd, r->sec[2] / r->sec[0],
               r->sec[2] / r->sec[1], r->maxdiff[0], r->maxdiff[1], busy);
        fflush(stdout);
      }
  if (rc != AF_OK) {
    fprintf(stderr, "bench_rhs: stopped: %s\n",
            rc == BENCH_MISMATCH ? "results disagree" : af_strerror(rc));
    free(res);
    return 1;
  }
  load_average(load, sizeof load);
  snprintf(l_load1, sizeof l_load1, "load average at end: %s", load);
  printf("# %s\n", l_load1);
  prov[9] = l_load1;
  if (csv) {
    csv_ctx c = {res, count, prov};
    int wrc = af_write_atomic(csv, write_csv, &c);
    if (wrc != AF_OK) {
      fprintf(stderr, "bench_rhs: %s: %s\n", csv, af_strerror(wrc));
      free(res);
      return 1;
    }
  }
  free(res);
  return 0;
}
