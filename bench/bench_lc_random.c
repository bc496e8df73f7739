/* bench_lc_random.c -- long context on random starts: the distribution of
 * the self-weight p_j = e^beta / Z_j over the tokens of a seeded uniform
 * start (n points of S^{d-1}, the library's "uniform" start), Q = K = V =
 * I, beta = gamma log n, against theorems.md LC.rand: E[S_j] = (n - 1)
 * M_d(beta) exactly, S_j = Z_j - e^beta, with relative standard deviation
 * sd = sqrt((M_d(2 beta)/M_d(beta)^2 - 1)/(n - 1)).
 *
 * For m query tokens drawn without replacement (seeded), each Z_j is summed
 * exactly over all n keys (O(m n d) for the cosines, O(m n) exponentials a
 * gamma), so a sample of the distribution at n = 10^5 costs seconds and no
 * n x n memory.  Per gamma it prints the predicted self-weight p(E S) and
 * midpoint, the sample's mean of S_j / E[S_j] with its z-score against
 * sd sqrt((1 + (m-1)/(n-1))/m) (|z| <= 4 is the check), the sample's relative standard
 * deviation of S_j against sd, and the 10 %, 50 % and 90 % quantiles of
 * p_j and the share of tokens with p_j > 1/2.  For the first --outputs
 * queries it forms A_j (O(n d) a gamma) and prints how far one layer moves
 * the token, 1 - cos(th_j, out_j), for the attention output alone, Post-LN
 * (th + A) and Peri-LN (th + A/|A|), against af_lc_rand_attn's mean.
 * First it checks its own sums against the library at --check-n tokens:
 * af_attention (c_j = <th_j, A_j> from the same weights) and af_layer_step
 * (the Post-LN and Peri-LN output directions).  Not part of 'make check'.
 *
 *   bench/bench_lc_random [--n N] [--d D] [--m M] [--seed S]
 *                         [--gammas G1,G2,...] [--check-n N] [--outputs M]
 *
 * Defaults: n = 100000, d = 64, m = 2000, seed 1, gamma = 0.6 ... 2.0 by
 * 0.1, check-n 4096, outputs 200.  Exit status 1 if a z-score exceeds 4 or
 * the check against the library exceeds 1e-12. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../src/attnflow.h"
#include "../theory/longctx.h"

#define NG_MAX 64

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* m distinct indices of 0..n-1 (partial Fisher-Yates), sorted. */
static size_t *draw_queries(size_t n, size_t m, unsigned long seed)
{
  size_t *p = malloc(n * sizeof *p), *q = malloc(m * sizeof *q);
  if (!p || !q) {
    free(p);
    free(q);
    return NULL;
  }
  for (size_t i = 0; i < n; i++)
    p[i] = i;
  uint64_t s = 0x5eedULL ^ (uint64_t) seed;
  for (size_t i = 0; i < m; i++) {
    size_t k = i + (size_t) (splitmix(&s) % (uint64_t) (n - i));
    size_t t = p[i];
    p[i] = p[k];
    p[k] = t;
  }
  memcpy(q, p, m * sizeof *q);
  free(p);
  for (size_t i = 1; i < m; i++) /* insertion sort: m is small */
    for (size_t j = i; j > 0 && q[j - 1] > q[j]; j--) {
      size_t t = q[j];
      q[j] = q[j - 1];
      q[j - 1] = t;
    }
  return q;
}

/* Cosines c[k] = <th_j, th_k> for all k. */
static void cosines(double *c, const double *y, size_t n, size_t d, size_t j)
{
  const double *x = y + j * d;
  for (size_t k = 0; k < n; k++) {
    const double *z = y + k * d;
    double s = 0;
    for (size_t i = 0; i < d; i++)
      s += x[i] * z[i];
    c[k] = s;
  }
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double quantile(const double *sorted, size_t m, double q)
{
  double pos = q * (double) (m - 1);
  size_t i = (size_t) pos;
  if (i + 1 >= m)
    return sorted[m - 1];
  return sorted[i] + (pos - (double) i) * (sorted[i + 1] - sorted[i]);
}

/* 1 - cos of the directions of u and v (d-vectors), as |u/|u| - v/|v||^2 / 2:
 * no cancellation for nearly parallel vectors. */
static double gap_of(const double *u, const double *v, size_t d)
{
  double nu = 0, nv = 0, s = 0;
  for (size_t i = 0; i < d; i++) {
    nu += u[i] * u[i];
    nv += v[i] * v[i];
  }
  nu = sqrt(nu);
  nv = sqrt(nv);
  for (size_t i = 0; i < d; i++) {
    double e = u[i] / nu - v[i] / nv;
    s += e * e;
  }
  return 0.5 * s;
}

/* The attention output A = sum_k w_k th_k of query j at beta (c: its
 * cosines), and the layer-0 outputs of theorems.md S7 with h = 1 and radii
 * 1: out[0] = A (the attention alone), out[1] = th_j + A (Post-, Pre-,
 * Mix-LN, LN-Scaling), out[2] = th_j + A/|A| (Peri-LN). */
static void outputs_of(double *out, long double *acc, const double *y,
                       const double *c, size_t n, size_t d, size_t j,
                       double beta)
{
  long double z = 0;
  for (size_t a = 0; a < d; a++)
    acc[a] = 0;
  for (size_t k = 0; k < n; k++) {
    double e = k == j ? 1.0 : exp(beta * (c[k] - 1.0));
    z += e;
    const double *x = y + k * d;
    for (size_t a = 0; a < d; a++)
      acc[a] += (long double) e * x[a];
  }
  double na = 0;
  for (size_t a = 0; a < d; a++) {
    out[a] = (double) (acc[a] / z);
    na += out[a] * out[a];
  }
  na = sqrt(na);
  const double *th = y + j * d;
  for (size_t a = 0; a < d; a++) {
    out[d + a] = th[a] + out[a];
    out[2 * d + a] = th[a] + out[a] / na;
  }
}

/* The bench's own sum against af_attention at n tokens: c_j = <th_j, A_j>
 * = sum_k w_jk c_jk with w_jk = e^{beta c_jk} / Z_j.  Returns the largest
 * relative difference over 64 queries and three betas, or -1. */
static double check_library(size_t n, size_t d, unsigned long seed)
{
  size_t N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *cl = malloc(n * sizeof *cl),
         *c = malloc(n * sizeof *c);
  af_work *w = af_work_alloc(n, d);
  size_t line = 0, *q = draw_queries(n, 64, seed + 1);
  double worst = -1;
  if (!y || !cl || !c || !w || !q
      || af_init_state(y, &line, "uniform", n, d, NAN, seed) != AF_OK)
    goto out;
  worst = 0;
  const double gam[3] = {0.8, 1.2, 2.0};
  for (int g = 0; g < 3; g++) {
    double beta = gam[g] * log((double) n);
    af_model m;
    af_model_init(&m, n, d, beta, AF_POST_LN);
    if (af_attention(NULL, NULL, cl, NULL, 0.0, y, &m, w) != AF_OK) {
      worst = -1;
      goto out;
    }
    for (size_t i = 0; i < 64; i++) {
      size_t j = q[i];
      cosines(c, y, n, d, j);
      long double z = 0, zc = 0;
      for (size_t k = 0; k < n; k++) {
        long double e = expl((long double) beta * ((long double) c[k] - 1.0L));
        z += e;
        zc += e * c[k];
      }
      double mine = (double) (zc / z);
      double rel = fabs(mine - cl[j]) / fabs(cl[j]);
      if (rel > worst)
        worst = rel;
    }
  }
  /* The layer maps: af_layer_step (h = 1, layer 0) against outputs_of. */
  double *yo = malloc(N * sizeof *yo), *out = malloc(3 * d * sizeof *out);
  long double *acc = malloc(d * sizeof *acc);
  static const af_scheme_id sc[2] = {AF_POST_LN, AF_PERI_LN};
  for (int s = 0; s < 2 && yo && out && acc && worst >= 0; s++) {
    double beta = 1.2 * log((double) n);
    af_model m;
    af_model_init(&m, n, d, beta, sc[s]);
    if (af_layer_step(yo, y, 0, 1.0, &m, w) != AF_OK) {
      worst = -1;
      break;
    }
    for (size_t i = 0; i < 64; i++) {
      size_t j = q[i];
      cosines(c, y, n, d, j);
      outputs_of(out, acc, y, c, n, d, j, beta);
      /* |u - v| of the unit outputs, relative to their gap from th_j */
      double g = gap_of(out + (size_t) (s + 1) * d, y + j * d, d);
      double e = sqrt(2.0 * gap_of(out + (size_t) (s + 1) * d, yo + j * d, d));
      if (e / sqrt(2.0 * g) > worst)
        worst = e / sqrt(2.0 * g);
    }
  }
  if (!(yo && out && acc))
    worst = -1;
  free(yo);
  free(out);
  free(acc);
out:
  free(y);
  free(cl);
  free(c);
  free(q);
  af_work_free(w);
  return worst;
}

int main(int argc, char **argv)
{
  size_t n = 100000, d = 64, m = 2000, check_n = 4096, mo = 200;
  unsigned long seed = 1;
  double gam[NG_MAX];
  size_t ng = 0;
  for (double g = 0.6; g < 2.05; g += 0.1)
    gam[ng++] = g;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf("usage: bench_lc_random [--n N] [--d D] [--m M] [--seed S] "
             "[--gammas G1,G2,...] [--check-n N] [--outputs M]\n");
      return 0;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "bench_lc_random: option '%s' needs a value\n", argv[i]);
      return 2;
    }
    const char *o = argv[i], *v = argv[++i];
    char *end;
    unsigned long long u = 0;
    if (strcmp(o, "--gammas") == 0) {
      ng = 0;
      const char *p = v;
      while (*p && ng < NG_MAX) {
        gam[ng] = strtod(p, &end);
        if (end == p || !(gam[ng] > 0 && gam[ng] <= 20)) {
          fprintf(stderr, "bench_lc_random: --gammas: numbers in (0, 20], "
                          "comma-separated\n");
          return 2;
        }
        ng++;
        p = *end == ',' ? end + 1 : end;
      }
      if (ng == 0 || *p) {
        fprintf(stderr, "bench_lc_random: --gammas: 1 to %d numbers\n", NG_MAX);
        return 2;
      }
      continue;
    }
    u = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-') {
      fprintf(stderr, "bench_lc_random: %s needs a non-negative integer\n", o);
      return 2;
    }
    if (strcmp(o, "--n") == 0 && u >= 16 && u <= 2000000)
      n = (size_t) u;
    else if (strcmp(o, "--d") == 0 && u >= 2 && u <= 4096)
      d = (size_t) u;
    else if (strcmp(o, "--m") == 0 && u >= 10 && u <= 1000000)
      m = (size_t) u;
    else if (strcmp(o, "--seed") == 0)
      seed = (unsigned long) u;
    else if (strcmp(o, "--check-n") == 0 && u <= 20000)
      check_n = (size_t) u;
    else if (strcmp(o, "--outputs") == 0 && u <= 1000000)
      mo = (size_t) u;
    else {
      fprintf(stderr, "bench_lc_random: unknown option or value out of range: "
                      "%s %s (n 16..2e6, d 2..4096, m 10..1e6, check-n <= 20000)\n",
              o, v);
      return 2;
    }
  }
  if (m > n)
    m = n;
  int bad = 0;
  if (check_n >= 64) {
    double t0 = cpu_seconds();
    double e = check_library(check_n, d, seed);
    printf("# check against af_attention at n=%zu d=%zu (64 queries, gamma 0.8, "
           "1.2, 2; <th_j, A_j>) and af_layer_step (post-ln, peri-ln, gamma "
           "1.2; the output direction, relative to its move): max relative "
           "difference %.3g (%.2f s CPU)\n",
           check_n, d, e, cpu_seconds() - t0);
    if (!(e >= 0 && e <= 1e-12))
      bad = 1;
  }
  size_t N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y), *c = malloc(n * sizeof *c);
  double *S = malloc(ng * m * sizeof *S), *p = malloc(m * sizeof *p);
  size_t line = 0, *q = draw_queries(n, m, seed + 1);
  if (mo > m)
    mo = m;
  double *G = malloc((ng * mo * 3 + 1) * sizeof *G), *out = malloc(3 * d * sizeof *out);
  long double *acc = malloc(d * sizeof *acc);
  if (!y || !c || !S || !p || !q || !G || !out || !acc) {
    fprintf(stderr, "bench_lc_random: out of memory (n=%zu d=%zu)\n", n, d);
    return 1;
  }
  int rc = af_init_state(y, &line, "uniform", n, d, NAN, seed);
  if (rc != AF_OK) {
    fprintf(stderr, "bench_lc_random: af_init_state: %s\n", af_strerror(rc));
    return 1;
  }
  double t0 = cpu_seconds();
  /* S_j e^{-beta} = sum_{k != j} e^{beta (c_jk - 1)}: every term <= 1. */
  for (size_t i = 0; i < m; i++) {
    size_t j = q[i];
    cosines(c, y, n, d, j);
    for (size_t g = 0; g < ng; g++) {
      double beta = gam[g] * log((double) n);
      long double s = 0;
      for (size_t k = 0; k < n; k++)
        if (k != j)
          s += exp(beta * (c[k] - 1.0));
      S[g * m + i] = (double) s;
      if (i < mo) {
        outputs_of(out, acc, y, c, n, d, j, beta);
        for (int k = 0; k < 3; k++)
          G[(g * mo + i) * 3 + k] = gap_of(out + (size_t) k * d, y + j * d, d);
      }
    }
  }
  double mid = af_lc_rand_midpoint((double) n, d);
  printf("# n=%zu d=%zu uniform start seed %lu, %zu query tokens (seed %lu), "
         "Q = K = V = I, beta = gamma log n\n",
         n, d, seed, m, seed + 1);
  printf("# predicted midpoint (self-weight 1/2 at the mean of S_j): gamma = %.6f\n",
         mid);
  printf("gamma,beta,p_pred,sd_pred,mean_S_over_E,z,sd_sample,p_q10,p_q50,p_q90,"
         "share_p_gt_half\n");
  for (size_t g = 0; g < ng; g++) {
    double beta = gam[g] * log((double) n);
    double lm = af_lc_rand_log_mgf(d, beta);
    double sd = af_lc_rand_relsd((double) n, d, beta);
    /* E[S_j] e^{-beta} = (n - 1) M_d(beta) e^{-beta}. */
    double ES = exp(log((double) n - 1.0) + lm - beta);
    double mean = 0, m2 = 0;
    size_t half = 0;
    for (size_t i = 0; i < m; i++) {
      double r = S[g * m + i] / ES;
      mean += r;
      m2 += r * r;
      p[i] = 1.0 / (1.0 + S[g * m + i]);
      half += p[i] > 0.5;
    }
    mean /= (double) m;
    double var = m2 / (double) m - mean * mean;
    double sds = sqrt(var > 0 ? var * (double) m / (double) (m - 1) : 0);
    /* Var(mean) = Var(S_j)/m (1 + (m-1)/(n-1)): two queries share one
     * term, e^{beta c_ij} (Cov(S_i, S_j) = Var(e^{beta c}) = Var(S_j)/(n-1);
     * the terms through a third token are uncorrelated, LC.rand). */
    double z = (mean - 1.0)
               / (sd * sqrt((1.0 + (double) (m - 1) / (double) (n - 1)) / (double) m));
    if (!(fabs(z) <= 4))
      bad = 1;
    qsort(p, m, sizeof *p, cmp_double);
    printf("%.2f,%.6g,%.6g,%.4g,%.6f,%.2f,%.4g,%.6g,%.6g,%.6g,%.4f\n", gam[g], beta,
           af_lc_rand_selfweight((double) n, d, beta), sd, mean, z, sds,
           quantile(p, m, 0.1), quantile(p, m, 0.5), quantile(p, m, 0.9),
           (double) half / (double) m);
  }
  if (mo > 0) {
    printf("# one layer's move 1 - cos(th_j, out_j) of the first %zu queries: the "
           "attention output alone, Post-LN (th + A: also Pre-, Mix-LN, "
           "LN-Scaling at layer 0), Peri-LN (th + A/|A|); predicted from "
           "<th_j, A_j> and |A_j - <th_j, A_j> th_j> at their means (LC.rand)\n",
           mo);
    printf("gamma,par_pred,perp_pred,attn_pred,attn_mean,attn_q10,attn_q50,"
           "attn_q90,post_pred,post_mean,post_q50,peri_pred,peri_mean,peri_q50\n");
    double *v = malloc(mo * sizeof *v);
    for (size_t g = 0; v && g < ng; g++) {
      double beta = gam[g] * log((double) n), par = NAN, perp = NAN;
      af_lc_rand_attn(&par, &perp, (double) n, d, beta);
      double a = hypot(par, perp);
      double pr[3] = {1.0 - par / a, 1.0 - (1.0 + par) / hypot(1.0 + par, perp),
                      1.0 - (1.0 + par / a) / hypot(1.0 + par / a, perp / a)};
      double qs[3][3], mean[3] = {0, 0, 0};
      for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < mo; i++) {
          v[i] = G[(g * mo + i) * 3 + k];
          mean[k] += v[i] / (double) mo;
        }
        qsort(v, mo, sizeof *v, cmp_double);
        qs[k][0] = quantile(v, mo, 0.1);
        qs[k][1] = quantile(v, mo, 0.5);
        qs[k][2] = quantile(v, mo, 0.9);
      }
      printf("%.2f,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g\n",
             gam[g], par, perp, pr[0], mean[0], qs[0][0], qs[0][1], qs[0][2], pr[1],
             mean[1], qs[1][1], pr[2], mean[2], qs[2][1]);
    }
    free(v);
  }
  double t2 = cpu_seconds();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("# %.1f s CPU for the sums (outputs included), peak resident %.2f GiB%s\n", t2 - t0,
         (double) ru.ru_maxrss / (1024.0 * 1024.0), bad ? "; CHECK FAILED" : "");
  free(y);
  free(c);
  free(S);
  free(p);
  free(q);
  free(G);
  free(out);
  free(acc);
  return bad;
}
