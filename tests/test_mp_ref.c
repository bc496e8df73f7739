/* test_mp_ref.c -- replay of the reference files data/reference/NAME.ref
 * (written by `make references`, attnflow_mp.h format).
 *
 * For every NAME.ref (mp-gauss) and its twin NAME.gbs.ref (mp-gbs):
 *   - both read back exactly at their precision (af_mp_ref_read), and
 *     their headers state the method, 256 bits, tol 1e-60 and an error
 *     estimate within the tolerance;
 *   - the two independent methods agree to 1e-60;
 *   - the double path (rk8pd, rtol 1e-13, atol 1e-15, direct kernel) from
 *     the same start lands within the tolerance row mp.ref_double of
 *     data/tolerances.tsv: N (atol + rtol max(1, |y|)) sqrt(d + 1), N the
 *     double run's steps (local-error bound summed, no growth: the flows
 *     here contract; see that row);
 *   - a cheap one (t_end <= 2: < 1 s at 256 bits) is rerun with the
 *     file's own method and settings and must reproduce it bit for bit;
 *     the longer ones only with AF_CHECK_EXPENSIVE=1.
 * The case is rebuilt from the file's "# params:" line (key=value; ...),
 * the start file of init=file:PATH is looked up in data/reference/.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"
#include "attnflow_mp.h"

#define RND MPFR_RNDN
#define REFDIR AF_DATADIR "/reference"

/* Value (4th column) of a row of data/tolerances.tsv; NaN if absent. */
static double tolerance(const char *key)
{
  FILE *f = fopen(AF_DATADIR "/tolerances.tsv", "r");
  if (f == NULL)
    return NAN;
  char line[4096];
  double v = NAN;
  size_t kl = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, kl) == 0 && line[kl] == '\t') {
      char *p = line;
      for (int col = 0; col < 3 && p; col++) {
        p = strchr(p, '\t');
        if (p)
          p++;
      }
      if (p)
        v = strtod(p, NULL);
      break;
    }
  fclose(f);
  return v;
}

/* Value of key in a "k=v; k=v" line, copied into buf; NULL if absent. */
static const char *param(char *buf, size_t cap, const char *params, const char *key)
{
  size_t kl = strlen(key);
  const char *p = params;
  while (p && *p) {
    if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
      const char *v = p + kl + 1, *e = strstr(v, "; ");
      size_t l = e ? (size_t) (e - v) : strlen(v);
      if (l >= cap)
        return NULL;
      memcpy(buf, v, l);
      buf[l] = '\0';
      return buf;
    }
    p = strstr(p, "; ");
    if (p)
      p += 2;
  }
  return NULL;
}

static double param_d(const char *params, const char *key)
{
  char b[256];
  const char *v = param(b, sizeof b, params, key);
  ck_assert_msg(v != NULL, "params: no %s", key);
  return strtod(v, NULL);
}

/* One header line's value ("# key: value"), copied. */
static char *header(const char *path, const char *key)
{
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char line[4096];
  char *out = NULL;
  size_t kl = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (line[0] != '#')
      break;
    if (strncmp(line + 2, key, kl) == 0 && line[2 + kl] == ':') {
      char *v = line + 2 + kl + 2;
      v[strcspn(v, "\n")] = '\0';
      out = strdup(v);
      break;
    }
  }
  fclose(f);
  ck_assert_msg(out != NULL, "%s: no '# %s:' line", path, key);
  return out;
}

typedef struct {
  af_model m;
  double *y0;    /* start (double, as the command built it) */
  char file[1200]; /* a token file start (read at working precision by
                      the MPFR path), else "" */
  double *times; /* the command's integration times */
  size_t ntimes;
  mpfr_prec_t prec;
  af_mp_opts o;
  double t_end;
} ref_case;

/* Rebuild the case from a reference file's params line. */
static void case_from(ref_case *c, const char *path)
{
  char *params = header(path, "params");
  char b[1024];
  ck_assert_str_eq(param(b, sizeof b, params, "weights"), "identity");
  ck_assert_str_eq(param(b, sizeof b, params, "attention"), "softmax");
  size_t n = (size_t) param_d(params, "n"), d = (size_t) param_d(params, "d");
  af_scheme_id sc;
  AFT_OK(af_scheme_lookup(&sc, param(b, sizeof b, params, "scheme")));
  af_model_init(&c->m, n, d, param_d(params, "beta"), sc);
  c->m.alpha = param_d(params, "alpha");
  c->m.alpha_decay = param_d(params, "alpha_decay");
  c->m.tau = param_d(params, "tau");
  const char *r0s = param(b, sizeof b, params, "r0");
  double r0 = (strcmp(r0s, "norms") == 0 || strcmp(r0s, "file") == 0) ? NAN : strtod(r0s, NULL);
  unsigned long seed = (unsigned long) param_d(params, "seed");
  c->y0 = malloc(af_state_size(n, d) * sizeof(double));
  const char *init = param(b, sizeof b, params, "init");
  char spec[1200];
  if (strncmp(init, "file:", 5) == 0)
    snprintf(spec, sizeof spec, "file:%s/%s", REFDIR, init + 5);
  else
    snprintf(spec, sizeof spec, "%s", init);
  size_t line = 0;
  AFT_OK(af_init_state(c->y0, &line, spec, n, d, r0, seed));
  snprintf(c->file, sizeof c->file, "%s", strncmp(spec, "file:", 5) == 0 ? spec + 5 : "");
  /* times: the command prepends 0 when the first output is later. */
  const char *ts = param(b, sizeof b, params, "times");
  c->times = malloc((strlen(ts) + 2) * sizeof(double));
  c->ntimes = 0;
  char *end;
  double first = strtod(ts, NULL);
  if (first > 0)
    c->times[c->ntimes++] = 0;
  for (const char *p = ts;; p = end + 1) {
    c->times[c->ntimes++] = strtod(p, &end);
    if (*end != ',')
      break;
  }
  c->t_end = c->times[c->ntimes - 1];
  ck_assert(c->t_end == param_d(params, "t_end"));
  c->prec = (mpfr_prec_t) param_d(params, "precision");
  af_mp_opts_init(&c->o);
  AFT_OK(af_mp_method_lookup(&c->o.method, param(b, sizeof b, params, "method")));
  c->o.tol = param_d(params, "tol");
  c->o.h0 = param_d(params, "h0");
  free(params);
}

static void case_free(ref_case *c)
{
  free(c->y0);
  free(c->times);
}

/* Read a reference state (exact) at precision prec. */
static mpfr_t *read_ref(mpfr_t t, const char *path, size_t N, mpfr_prec_t prec)
{
  mpfr_t *y = af_mp_vec_alloc(N, prec);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  size_t line = 0;
  int rc = af_mp_ref_read(t, y, N, &line, f);
  fclose(f);
  ck_assert_msg(rc == AF_OK, "%s:%zu: %s", path, line, af_strerror(rc));
  return y;
}

static int cmp_name(const void *a, const void *b)
{
  return strcmp((const char *) a, (const char *) b);
}

/* Names NAME of data/reference/NAME.ref (not *.gbs.ref), sorted. */
static size_t ref_names(char names[][256], size_t cap)
{
  DIR *dir = opendir(REFDIR);
  if (dir == NULL) /* test_reference_set then fails */
    return 0;
  size_t k = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL && k < cap) {
    size_t l = strlen(e->d_name);
    if (l <= 4 || l >= 250 || strcmp(e->d_name + l - 4, ".ref") != 0
        || (l > 8 && strcmp(e->d_name + l - 8, ".gbs.ref") == 0))
      continue;
    memcpy(names[k], e->d_name, l - 4);
    names[k][l - 4] = '\0';
    k++;
  }
  closedir(dir);
  qsort(names, k, sizeof names[0], cmp_name);
  return k;
}

#define MAXREF 64
static char names[MAXREF][256];
static size_t nnames;

START_TEST(test_replay)
{
  const char *name = names[_i];
  char pg[600], pb[600];
  snprintf(pg, sizeof pg, "%s/%s.ref", REFDIR, name);
  snprintf(pb, sizeof pb, "%s/%s.gbs.ref", REFDIR, name);
  ref_case c;
  case_from(&c, pg);
  size_t N = af_state_size(c.m.n, c.m.d);
  mpfr_prec_t P = c.prec;
  ck_assert_int_eq(P, 256);
  ck_assert(c.o.tol == 1e-60);
  char *meth = header(pg, "method"), *methb = header(pb, "method");
  ck_assert_str_eq(meth, "mp-gauss");
  ck_assert_str_eq(methb, "mp-gbs");
  char *eg = header(pg, "err_est"), *eb = header(pb, "err_est");
  double err_g = strtod(eg, NULL), err_b = strtod(eb, NULL);
  ck_assert(err_g <= c.o.tol && err_b <= c.o.tol);
  mpfr_t tg, tb;
  mpfr_inits2(P, tg, tb, (mpfr_ptr) 0);
  mpfr_t *yg = read_ref(tg, pg, N, P), *yb = read_ref(tb, pb, N, P);
  ck_assert(mpfr_cmp_d(tg, c.t_end) == 0 && mpfr_equal_p(tg, tb));

  /* The two methods. */
  double dgb = af_mp_vec_maxdiff(yg, yb, N);

  /* The double path. */
  af_work *w = af_work_alloc(c.m.n, c.m.d);
  AFT_OK(af_work_set_kernel(w, AF_KERNEL_DIRECT));
  double *y = malloc(N * sizeof(double));
  memcpy(y, c.y0, N * sizeof(double));
  af_integ_opts io;
  af_integ_opts_init(&io);
  io.method = AF_METHOD_RK8PD;
  io.rtol = 1e-13;
  io.atol = 1e-15;
  af_integ_stats ist;
  AFT_OK(af_integrate(y, c.times, c.ntimes, &c.m, &io, w, NULL, NULL, &ist));
  mpfr_t *yd = af_mp_vec_alloc(N, P);
  af_mp_vec_set_d(yd, y, N);
  double dd = af_mp_vec_maxdiff(yd, yg, N);
  double ymax = 1;
  for (size_t i = 0; i < N; i++)
    ymax = fmax(ymax, fabs(y[i]));
  /* Row mp.ref_double: growth allowance G on the summed local-error
   * bound of the double run. */
  double G = tolerance("mp.ref_double");
  ck_assert_msg(G > 0, "data/tolerances.tsv: no row mp.ref_double");
  double tol_d = G * (double) ist.steps * (io.atol + io.rtol * ymax)
                 * sqrt((double) c.m.d + 1);

  /* A rerun of the file's own settings. */
  int rerun = c.t_end <= 2 || aft_expensive();
  int same = -1;
  if (rerun) {
    af_mp_work *mw = af_mp_work_alloc(c.m.n, c.m.d, P);
    mpfr_t *yr = af_mp_vec_alloc(N, P);
    if (c.file[0] != '\0') { /* the rows as written (the command's reader) */
      size_t line = 0;
      AFT_OK(af_mp_init_read(yr, &line, c.file, c.m.n, c.m.d));
    } else {
      af_mp_vec_set_d(yr, c.y0, N);
    }
    af_mp_stats st;
    AFT_OK(af_mp_integrate(yr, c.times, c.ntimes, &c.m, &c.o, mw, NULL, NULL, &st));
    same = 1;
    for (size_t i = 0; i < N; i++)
      same &= mpfr_equal_p(yr[i], yg[i]);
    char buf[32];
    snprintf(buf, sizeof buf, "%.6e", st.err_est);
    ck_assert_str_eq(buf, eg); /* the header's estimate, as printed */
    af_mp_vec_free(yr, N);
    af_mp_work_free(mw);
  }
  fprintf(stderr,
          "%s: |gauss-gbs| %.3g; est %.3g / %.3g; double rk8pd %lu steps: %.3g (tol %.3g); "
          "rerun %s\n",
          name, dgb, err_g, err_b, ist.steps, dd, tol_d,
          same < 0 ? "skipped (long; AF_CHECK_EXPENSIVE=1)" : same ? "bit-identical" : "DIFFERS");
  ck_assert_msg(dgb <= 1e-60, "%s: methods differ by %g", name, dgb);
  ck_assert_msg(dd <= tol_d, "%s: double path off by %g > %g", name, dd, tol_d);
  ck_assert_msg(same != 0, "%s: rerun not bit-identical", name);
  free(meth);
  free(methb);
  free(eg);
  free(eb);
  free(y);
  af_mp_vec_free(yd, N);
  af_mp_vec_free(yg, N);
  af_mp_vec_free(yb, N);
  mpfr_clears(tg, tb, (mpfr_ptr) 0);
  af_work_free(w);
  case_free(&c);
}
END_TEST

START_TEST(test_reference_set)
{
  /* The set of references is there (a missing file would silently shrink
   * the replay otherwise). */
  static const char *const want[] = {
    "t41_postln_n4d4_b2_t2", "t41_preln_n4d4_b2_t2", "preln_n4d3_b2_t2",
    "periln_n4d3_b2_t2",     "postln_n6d6_b2_t2",    "postln_n6d6_b2_t5",
    "postln_n6d6_b2_t10"};
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    int found = 0;
    for (size_t j = 0; j < nnames; j++)
      found |= strcmp(names[j], want[k]) == 0;
    ck_assert_msg(found, "data/reference/%s.ref missing", want[k]);
  }
}
END_TEST

int main(void)
{
  nnames = ref_names(names, MAXREF);
  Suite *s = suite_create("mp_ref");
  TCase *tc = tcase_create("replay");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_reference_set);
  tcase_add_loop_test(tc, test_replay, 0, (int) nnames);
  suite_add_tcase(s, tc);
  return aft_run(s);
}
