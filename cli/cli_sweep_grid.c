/* cli_sweep_grid.c -- the grid of `attnflow sweep` (cli_sweep.c): each
 * axis's list read item by item (af_sweep_split), counted first without
 * being stored (pass 1, so a grid is refused by its size or its memory
 * before anything proportional to it is allocated: af_sweep_check_size,
 * af_sweep_check_table), then its values stored (pass 2) and checked for
 * repeats by sorting.
 */

#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_run.h"
#include "cli_sweep_grid.h"
#include "internal.h"
#include "output.h"

/* A list item "x" into *v; 0 after a usage error. */
static int af_sweep_push(void **v, size_t *k, size_t *cap, size_t size) {
  if (*k < *cap) return 1;
  size_t c = *cap ? 2 * *cap : 8;
  void *p = realloc(*v, c * size);
  if (p == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  *v = p;
  *cap = c;
  return 1;
}

/* Append the item of `size` bytes to the array *v of *k items. */
static int af_sweep_append(void **v, size_t *k, size_t *cap, const void *item,
                           size_t size) {
  if (!af_sweep_push(v, k, cap, size)) return 0;
  memcpy((char *)*v + *k * size, item, size);
  ++*k;
  return 1;
}

/* Split a comma-separated list in place; calls f on each item. */
int af_sweep_split(const char *opt, const char *s, af_sweep_item_fn f,
                          void *ctx) {
  if (s[0] == '\0') {
    af_cli_error("--%s: empty list", opt);
    return 0;
  }
  char *buf = malloc(strlen(s) + 1);
  if (buf == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  strcpy(buf, s);
  int ok = 1;
  for (char *item = buf; ok;) {
    char *comma = strchr(item, ',');
    if (comma) *comma = '\0';
    if (item[0] == '\0') {
      af_cli_error("--%s: empty item in '%s'", opt, s);
      ok = 0;
    } else {
      ok = f(ctx, item);
    }
    if (!comma) break;
    item = comma + 1;
  }
  free(buf);
  return ok;
}

static int af_sweep_too_many(const char *opt, double count) {
  af_cli_error("--%s: %.17g values: the grid is limited to %lu runs", opt,
               count, AF_SWEEP_MAX_RUNS);
  return 0;
}

static int af_sweep_same_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(const char *const *)b) == 0;
}

static int af_sweep_same_double(const void *a, const void *b) {
  return *(const double *)a == *(const double *)b;
}

int af_sweep_scheme_item(void *vctx, const char *item) {
  af_sweep_lc *x = vctx;
  af_sweep *g = x->g;
  /* duplicates: af_sweep_names_distinct, once the axis is complete */
  if (x->count) {
    x->nval += 1;
    return 1;
  }
  if (!af_sweep_push((void **)&g->schemes, &g->nscheme, &x->cap,
                     sizeof *g->schemes))
    return 0;
  g->schemes[g->nscheme] = malloc(strlen(item) + 1);
  if (g->schemes[g->nscheme] == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  strcpy(g->schemes[g->nscheme++], item);
  return 1;
}

int af_sweep_size_item(void *vctx, const char *item) {
  af_sweep_sc *x = vctx;
  size_t val;
  if (!af_cli_size(&val, x->opt, item)) return 0;
  /* duplicates: af_sweep_sizes_distinct, once the axis is complete */
  if (x->lc.count) {
    x->lc.nval += 1;
    return 1;
  }
  return af_sweep_append((void **)x->v, x->k, &x->lc.cap, &val, sizeof val);
}

static int af_sweep_beta_add(af_sweep_lc *x, double b) {
  af_sweep *g = x->g;
  if (!(b >= 0)) {
    af_cli_error("--beta: %.17g is negative (beta >= 0)", b);
    return 0;
  }
  /* duplicates: af_sweep_betas_distinct, once the axis is complete */
  if (x->count) {
    if (x->nval == 0) g->beta0 = b;
    x->nval += 1;
    return 1;
  }
  return af_sweep_append((void **)&g->betas, &g->nbeta, &x->cap, &b, sizeof b);
}

/* "B" or "START:STOP:STEP": START + k STEP for k = 0, 1, ... while it does
 * not pass STOP.  The count is floor((STOP - START) / STEP) with the
 * quotient allowed 4 ulps of rounding up (STOP - START and the division
 * each round once), so that 0:1:0.1 includes 1. */
int af_sweep_beta_item(void *vctx, const char *item) {
  af_sweep_lc *x = vctx;
  const char *c1 = strchr(item, ':');
  if (c1 == NULL) {
    double b;
    return af_cli_double(&b, "beta", item) && af_sweep_beta_add(x, b);
  }
  const char *c2 = strchr(c1 + 1, ':');
  if (c2 == NULL || strchr(c2 + 1, ':') != NULL) {
    af_cli_error("--beta: '%s' is not START:STOP:STEP", item);
    return 0;
  }
  char part[3][128];
  const char *from[3] = {item, c1 + 1, c2 + 1};
  size_t len[3] = {(size_t)(c1 - item), (size_t)(c2 - c1 - 1), strlen(c2 + 1)};
  double v[3];
  for (int i = 0; i < 3; i++) {
    if (len[i] >= sizeof part[i]) {
      af_cli_error("--beta: '%s' is not START:STOP:STEP", item);
      return 0;
    }
    memcpy(part[i], from[i], len[i]);
    part[i][len[i]] = '\0';
    if (!af_cli_double(&v[i], "beta", part[i])) return 0;
  }
  if (!(v[2] > 0)) {
    af_cli_error("--beta %s: the step must be > 0", item);
    return 0;
  }
  if (v[1] < v[0]) {
    af_cli_error("--beta %s: reversed range (STOP < START)", item);
    return 0;
  }
  double q = (v[1] - v[0]) / v[2];
  double k = floor(q * (1 + 4 * DBL_EPSILON));
  if (!(k + 1 <= (double)AF_SWEEP_MAX_RUNS))
    return af_sweep_too_many("beta", k + 1);
  if (x->count) { /* START >= 0 and STEP > 0: every value is >= 0 */
    if (!af_sweep_beta_add(x, v[0])) return 0;
    x->nval += k;
    return 1;
  }
  for (double i = 0; i <= k; i++)
    if (!af_sweep_beta_add(x, v[0] + i * v[2])) return 0;
  return 1;
}

static int af_sweep_seed_add(af_sweep_lc *x, unsigned long s) {
  af_sweep *g = x->g;
  if (x->count) {
    if (x->nval == 0) g->seed0 = s;
    x->nval += 1;
    return 1;
  }
  return af_sweep_append((void **)&g->seeds, &g->nseed, &x->cap, &s, sizeof s);
}

/* "S" or "A-B" (A <= B). */
int af_sweep_seed_item(void *vctx, const char *item) {
  af_sweep_lc *x = vctx;
  const char *dash = strchr(item, '-');
  unsigned long a, b;
  if (dash == NULL) return af_cli_ulong(&a, "seeds", item) && af_sweep_seed_add(x, a);
  char lo[32];
  size_t len = (size_t)(dash - item);
  if (len == 0 || len >= sizeof lo) {
    af_cli_error("--seeds: '%s' is not a seed or a range A-B", item);
    return 0;
  }
  memcpy(lo, item, len);
  lo[len] = '\0';
  if (!af_cli_ulong(&a, "seeds", lo) || !af_cli_ulong(&b, "seeds", dash + 1))
    return 0;
  if (b < a) {
    af_cli_error("--seeds %s: reversed range (%lu > %lu)", item, a, b);
    return 0;
  }
  if (b - a >= AF_SWEEP_MAX_RUNS)
    return af_sweep_too_many("seeds", (double)(b - a) + 1);
  if (x->count) {
    if (x->nval == 0) x->g->seed0 = a;
    x->nval += (double)(b - a) + 1;
    return 1;
  }
  for (unsigned long s = a;; s++) {
    if (!af_sweep_seed_add(x, s)) return 0;
    if (s == b) break;
  }
  return 1;
}

/* Seeds may come in any order but not twice: sort a copy and compare. */
static int af_sweep_cmp_ulong(const void *a, const void *b) {
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return x < y ? -1 : x > y;
}

int af_sweep_seeds_distinct(const af_sweep *g) {
  unsigned long *c = malloc(g->nseed * sizeof *c);
  if (c == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  memcpy(c, g->seeds, g->nseed * sizeof *c);
  qsort(c, g->nseed, sizeof *c, af_sweep_cmp_ulong);
  for (size_t i = 1; i < g->nseed; i++)
    if (c[i] == c[i - 1]) {
      af_cli_error("--seeds: %lu listed twice", c[i]);
      free(c);
      return 0;
    }
  free(c);
  return 1;
}

/* Betas likewise, sorted as numbers (0 and -0 are the same beta):
 * O(N log N), where a check per value against all before it took 13.5 s
 * for 10^5 values. */
static int af_sweep_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int af_sweep_betas_distinct(const af_sweep *g) {
  double *c = malloc((g->nbeta ? g->nbeta : 1) * sizeof *c);
  if (c == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  memcpy(c, g->betas, g->nbeta * sizeof *c);
  qsort(c, g->nbeta, sizeof *c, af_sweep_cmp_double);
  for (size_t i = 1; i < g->nbeta; i++)
    if (af_sweep_same_double(&c[i], &c[i - 1])) {
      af_cli_error("--beta: %.17g listed twice", c[i]);
      free(c);
      return 0;
    }
  free(c);
  return 1;
}

/* Token counts, dimensions and scheme names likewise (a check per value
 * against all before it is quadratic in the length of the list). */
static int af_sweep_cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

int af_sweep_sizes_distinct(const char *opt, const size_t *v,
                                   size_t n) {
  size_t *c = malloc((n ? n : 1) * sizeof *c);
  if (c == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  memcpy(c, v, n * sizeof *c);
  qsort(c, n, sizeof *c, af_sweep_cmp_size);
  for (size_t i = 1; i < n; i++)
    if (c[i] == c[i - 1]) {
      af_cli_error("--%s: %zu listed twice", opt, c[i]);
      free(c);
      return 0;
    }
  free(c);
  return 1;
}

static int af_sweep_cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names g->schemes[lo, hi) (one option's list) all differ; 'opt' names
 * the option in the message. */
int af_sweep_names_distinct(const af_sweep *g, size_t lo, size_t hi,
                                   const char *opt) {
  size_t k = hi - lo;
  char **c = malloc((k ? k : 1) * sizeof *c);
  if (c == NULL) {
    af_cli_error("sweep: %s", af_strerror(AF_ENOMEM));
    return 0;
  }
  memcpy(c, g->schemes + lo, k * sizeof *c);
  qsort(c, k, sizeof *c, af_sweep_cmp_name);
  for (size_t i = 1; i < k; i++)
    if (af_sweep_same_name(&c[i], &c[i - 1])) {
      af_cli_error("%s: '%s' listed twice", opt, c[i]);
      free(c);
      return 0;
    }
  free(c);
  return 1;
}

void af_sweep_free(af_sweep *g) {
  for (size_t i = 0; i < g->nscheme; i++) {
    free(g->schemes[i]);
    if (g->defpath) free(g->defpath[i]);
  }
  free(g->schemes);
  free(g->defpath);
  free(g->ns);
  free(g->ds);
  free(g->betas);
  free(g->seeds);
  for (size_t c = 0; c < g->ncomb; c++) {
    free(g->cfg[c].times);
    af_scheme_spec_free(g->cfg[c].spec);
    if (g->wfile) af_weights_free(g->wfile[c]);
  }
  free(g->cfg);
  free(g->wfile);
}

/* Bytes of rank 0's table for one run of rowlen values: the row, its
 * status, its 'have' flag and its place in the list of runs to do
 * (af_sweep_main). */
static double af_sweep_run_bytes(double rowlen) {
  return rowlen * sizeof(double) + sizeof(int) + 1 + sizeof(size_t);
}

/* The grid's size and memory from the counts of its axes (scheme, n, d,
 * beta, seed), before any value is expanded.  The product is taken in
 * doubles (exact below 2^53, +inf rather than a wrap above).  The memory
 * counted: each axis's values (the array grown by doubling, at most twice
 * the values, and the sorted copy that finds duplicates), one parsed run
 * configuration per (scheme, n, d), and rank 0's table of rows at its
 * smallest (one time, one observable: 3 values a run).  namelen is the
 * length of the --scheme list (the names' bytes).  1 if admitted; else
 * the message says which bound, the counts and the estimate. */
int af_sweep_check_size(const double axes[5], size_t namelen,
                               unsigned long max_runs) {
  static const char *const name[5] = {"scheme", "n", "d", "beta", "seed"};
  double runs = 1;
  for (int i = 0; i < 5; i++) runs *= axes[i];
  char shape[200];
  snprintf(shape, sizeof shape,
           "%s %.17g x %s %.17g x %s %.17g x %s %.17g x %s %.17g", name[0],
           axes[0], name[1], axes[1], name[2], axes[2], name[3], axes[3],
           name[4], axes[4]);
  if (!(runs <= (double)max_runs)) {
    af_cli_error("sweep: the grid has %.17g runs (%s), more than --max-runs "
                 "%lu%s",
                 runs, shape, max_runs,
                 max_runs < AF_SWEEP_MAX_RUNS
                     ? "; a larger --max-runs admits more"
                     : ", the most a sweep can number");
    return 0;
  }
  double ptr = sizeof(char *), comb = axes[0] * axes[1] * axes[2];
  double bytes = 3 * axes[0] * ptr + 2 * (double)namelen +
                 3 * (axes[1] + axes[2]) * sizeof(size_t) +
                 3 * axes[3] * sizeof(double) +
                 3 * axes[4] * sizeof(unsigned long) +
                 comb * (sizeof(af_run_cfg) + sizeof(af_weights *)) +
                 runs * af_sweep_run_bytes(3);
  char what[260];
  snprintf(what, sizeof what, "sweep: the grid of %.17g runs (%s)", runs,
           shape);
  return af_cli_mem_fits(bytes, what);
}

/* Rank 0's table of rows, now that a row's length is known, and the
 * beta and seed axes still to be expanded: refused before either is
 * allocated if they cannot fit in memory.  The estimate is the table's
 * size itself (af_sweep_main allocates nruns rows of rowlen values). */
int af_sweep_check_table(const af_sweep *g) {
  char what[200];
  snprintf(what, sizeof what,
           "sweep: the table of %zu runs of %zu values each on rank 0",
           g->nruns, g->rowlen);
  /* Each value: its array grown by doubling, the sorted copy, and its
   * text in the provenance (af_sweep_provenance: 32 and 24 bytes). */
  double axes = g->naxis[3] * (3 * sizeof(double) + 32) +
                g->naxis[4] * (3 * sizeof(unsigned long) + 24);
  return af_cli_mem_fits(
      (double)g->nruns * af_sweep_run_bytes((double)g->rowlen) + axes, what);
}
