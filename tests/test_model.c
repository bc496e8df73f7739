/* test_model.c -- unit tests of the model layer: status codes, the scheme
 * table (theorems.md S0-S6), model defaults and validation, nGPT's alpha
 * schedule, weight sets (identity, Kaiming, file), integration methods.
 *
 * Every expected value is worked out by hand from theorems.md S0-S7 (table S0)
 * or from the contract in attnflow.h; none is copied from the library.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aftest.h"

/* ------------------------------------------------------------ status */

START_TEST(test_status_strings)
{
  /* Every code has its own non-empty message and its symbolic name. */
  static const char *const names[] = {
    "AF_OK", "AF_EINVAL", "AF_ENOMEM", "AF_ENONFINITE", "AF_EZERONORM",
    "AF_EZEROATTN", "AF_EDIM", "AF_EPARSE", "AF_EIO", "AF_EMAXSTEPS",
    "AF_ENOPROGRESS", "AF_EGSL", "AF_EOVERFLOW", "AF_ESPEED",
    "AF_ECANCELED"};
  ck_assert_int_eq((int) (sizeof names / sizeof names[0]), AF_STATUS_COUNT);
  for (int k = 0; k < AF_STATUS_COUNT; k++) {
    ck_assert_str_eq(af_status_name(k), names[k]);
    const char *msg = af_strerror(k);
    ck_assert_ptr_nonnull(msg);
    ck_assert_int_gt((int) strlen(msg), 0);
    for (int l = 0; l < k; l++)
      ck_assert_msg(strcmp(af_strerror(l), msg) != 0,
                    "codes %d and %d share the message '%s'", l, k, msg);
  }
  ck_assert_str_eq(af_strerror(AF_OK), "success");
  /* Out of range, on both sides: never NULL, never a real code's text. */
  const int bad[] = {-1, AF_STATUS_COUNT, AF_STATUS_COUNT + 100, -1000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_ptr_nonnull(af_strerror(bad[i]));
    ck_assert_ptr_nonnull(af_status_name(bad[i]));
    for (int k = 0; k < AF_STATUS_COUNT; k++) {
      ck_assert_str_ne(af_status_name(bad[i]), af_status_name(k));
      ck_assert_str_ne(af_strerror(bad[i]), af_strerror(k));
    }
  }
}
END_TEST

START_TEST(test_version)
{
  ck_assert_ptr_nonnull(af_version());
  ck_assert_str_eq(af_version(), PACKAGE_VERSION);
  ck_assert_ptr_nonnull(af_commit());
  ck_assert_int_gt((int) strlen(af_commit()), 0);
}
END_TEST

/* ------------------------------------------------------------ schemes */

static const char *const scheme_names[AF_SCHEME_COUNT] = {
  "post-ln", "pre-ln", "mix-ln", "peri-ln", "ngpt", "ln-scaling"};
static const char *const scheme_titles[AF_SCHEME_COUNT] = {
  "Post-LN", "Pre-LN", "Mix-LN", "Peri-LN", "nGPT", "LN-Scaling"};

START_TEST(test_scheme_lookup)
{
  for (int k = 0; k < AF_SCHEME_COUNT; k++) {
    af_scheme_id id = (af_scheme_id) -1;
    AFT_OK(af_scheme_lookup(&id, scheme_names[k]));
    ck_assert_int_eq(id, k);
  }
  af_scheme_id id = AF_NGPT;
  const char *bad[] = {"", "Post-LN", "postln", "post-ln ", "gpt", "pre"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    AFT_STATUS(af_scheme_lookup(&id, bad[i]), AF_EINVAL);
    ck_assert_int_eq(id, AF_NGPT); /* untouched on failure */
  }
  AFT_STATUS(af_scheme_lookup(&id, NULL), AF_EINVAL);
}
END_TEST

START_TEST(test_scheme_table)
{
  for (int k = 0; k < AF_SCHEME_COUNT; k++) {
    const af_scheme *s = af_scheme_get((af_scheme_id) k);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->id, k);
    ck_assert_str_eq(s->name, scheme_names[k]);
    ck_assert_str_eq(s->title, scheme_titles[k]);
    ck_assert_ptr_nonnull(s->rates);
    ck_assert_ptr_nonnull(s->speed_text);
    ck_assert_ptr_nonnull(s->radial_text);
    ck_assert_int_gt((int) strlen(s->speed_text), 0);
    ck_assert_int_gt((int) strlen(s->radial_text), 0);
    /* S4, S5 divide by |A|; S2, S3, S4 have a radial rate (table S0). */
    int anorm = (k == AF_PERI_LN || k == AF_NGPT);
    int moves = (k == AF_PRE_LN || k == AF_MIX_LN || k == AF_PERI_LN);
    ck_assert_int_eq(s->needs_anorm != 0, anorm);
    ck_assert_int_eq(s->moves_radius != 0, moves);
  }
  ck_assert_ptr_null(af_scheme_get(AF_SCHEME_COUNT));
  ck_assert_ptr_null(af_scheme_get((af_scheme_id) -1));
}
END_TEST

/* Rates of each scheme at sample points against table S0, by hand.  The
 * rates are one multiplication, division or sqrt each, all correctly
 * rounded in IEEE arithmetic, so the comparison is to 1 ulp. */
START_TEST(test_scheme_rates)
{
  struct { double t, r, c, a, alpha, tau; } pts[] = {
    {0.0, 1.0, 0.5, 0.75, 1.0, 1.0},
    {0.5, 2.5, -0.25, 0.3, 0.2, 1.0},
    {1.0, 0.7, 0.9, 1.3, 3.0, 1.0},   /* t == tau: Mix-LN still Post-LN */
    {1.5, 3.0, 0.125, 0.5, 0.5, 1.0}, /* t > tau: Mix-LN is Pre-LN      */
    {7.0, 1.25, -0.6, 2.0, 0.1, 10.0},
  };
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double t = pts[i].t, r = pts[i].r, c = pts[i].c, a = pts[i].a;
    double al = pts[i].alpha, tau = pts[i].tau;
    double want_s[AF_SCHEME_COUNT], want_rho[AF_SCHEME_COUNT];
    want_s[AF_POST_LN] = 1.0;          want_rho[AF_POST_LN] = 0.0;
    want_s[AF_PRE_LN] = r;             want_rho[AF_PRE_LN] = c;
    want_s[AF_MIX_LN] = t <= tau ? 1.0 : r;
    want_rho[AF_MIX_LN] = t <= tau ? 0.0 : c;
    want_s[AF_PERI_LN] = r * a;        want_rho[AF_PERI_LN] = c / a;
    want_s[AF_NGPT] = a / al;          want_rho[AF_NGPT] = 0.0;
    want_s[AF_LN_SCALING] = sqrt(t + 1.0); want_rho[AF_LN_SCALING] = 0.0;
    for (int k = 0; k < AF_SCHEME_COUNT; k++) {
      double s = NAN, rho = NAN;
      af_scheme_get((af_scheme_id) k)->rates(&s, &rho, t, r, c, a, al, tau);
      char what[96];
      snprintf(what, sizeof what, "%s s at point %zu", scheme_names[k], i);
      ck_assert_msg(aft_ulps(what, s, want_s[k], 1.0), "%s", what);
      snprintf(what, sizeof what, "%s rho at point %zu", scheme_names[k], i);
      ck_assert_msg(aft_ulps(what, rho, want_rho[k], 1.0), "%s", what);
      ck_assert_msg(s > 0, "speed factor of %s not positive", scheme_names[k]);
    }
  }
}
END_TEST

/* ------------------------------------------------------------ model */

START_TEST(test_model_init)
{
  af_model m;
  memset(&m, 0xAB, sizeof m);
  af_model_init(&m, 7, 3, 2.5, AF_PERI_LN);
  ck_assert_uint_eq(m.n, 7);
  ck_assert_uint_eq(m.d, 3);
  ck_assert(m.beta == 2.5);
  ck_assert_int_eq(m.scheme, AF_PERI_LN);
  ck_assert_int_eq(m.attn, AF_ATTN_SOFTMAX);
  ck_assert(m.alpha == 1.0);
  ck_assert(m.alpha_decay == 0.0);
  ck_assert(m.tau == 1.0);
  ck_assert_ptr_null(m.w);
  ck_assert_uint_eq(m.fault, 0);
  AFT_OK(af_model_validate(&m));
}
END_TEST

START_TEST(test_model_validate)
{
  af_model m0, m;
  af_model_init(&m0, 4, 3, 1.0, AF_POST_LN);
  AFT_OK(af_model_validate(&m0));
  AFT_STATUS(af_model_validate(NULL), AF_EINVAL);

#define BAD(field, value, code) do { m = m0; m.field = (value); \
    AFT_STATUS(af_model_validate(&m), (code)); } while (0)
  BAD(n, 0, AF_EINVAL);
  BAD(d, 0, AF_EINVAL);
  BAD(beta, NAN, AF_ENONFINITE);
  BAD(beta, INFINITY, AF_ENONFINITE);
  BAD(beta, -INFINITY, AF_ENONFINITE);
  BAD(beta, -1e-300, AF_EINVAL);
  BAD(beta, -2.0, AF_EINVAL);
  BAD(scheme, AF_SCHEME_COUNT, AF_EINVAL);
  BAD(scheme, (af_scheme_id) -1, AF_EINVAL);
  BAD(attn, AF_ATTN_COUNT, AF_EINVAL);
  BAD(attn, (af_attn_kind) -1, AF_EINVAL);
  BAD(alpha, NAN, AF_ENONFINITE);
  BAD(alpha, INFINITY, AF_ENONFINITE);
  BAD(alpha, 0.0, AF_EINVAL);
  BAD(alpha, -0.5, AF_EINVAL);
  BAD(alpha_decay, -0.1, AF_EINVAL);
  BAD(alpha_decay, NAN, AF_ENONFINITE);
  BAD(tau, -1.0, AF_EINVAL);
  BAD(tau, NAN, AF_ENONFINITE);
#undef BAD
  /* Limits that are allowed. */
  m = m0; m.beta = 0.0; AFT_OK(af_model_validate(&m));
  m = m0; m.tau = 0.0; AFT_OK(af_model_validate(&m));
  m = m0; m.n = 1; m.d = 1; AFT_OK(af_model_validate(&m));
  m = m0; m.alpha_decay = 2.0; AFT_OK(af_model_validate(&m));
  for (int k = 0; k < AF_SCHEME_COUNT; k++)
    for (int a = 0; a < AF_ATTN_COUNT; a++) {
      m = m0; m.scheme = (af_scheme_id) k; m.attn = (af_attn_kind) a;
      AFT_OK(af_model_validate(&m));
    }

  /* Weights: right d accepted, wrong d rejected with AF_EDIM. */
  af_weights *w = af_weights_alloc(3, 2, 0.5);
  ck_assert_ptr_nonnull(w);
  m = m0; m.w = w; AFT_OK(af_model_validate(&m));
  af_weights *w2 = af_weights_alloc(2, 1, 1.0);
  ck_assert_ptr_nonnull(w2);
  m = m0; m.w = w2; AFT_STATUS(af_model_validate(&m), AF_EDIM);
  af_weights_free(w2);
  /* A weight struct corrupted after allocation is caught too. */
  w->layer_dt = 0.0;
  m = m0; m.w = w; AFT_STATUS(af_model_validate(&m), AF_EINVAL);
  w->layer_dt = NAN;
  AFT_STATUS(af_model_validate(&m), AF_EINVAL);
  w->layer_dt = 0.5;
  w->layers = 0;
  AFT_STATUS(af_model_validate(&m), AF_EINVAL);
  w->layers = 2;
  AFT_OK(af_model_validate(&m));
  af_weights_free(w);
}
END_TEST

START_TEST(test_model_alpha)
{
  af_model m;
  af_model_init(&m, 2, 2, 1.0, AF_NGPT);
  /* Constant schedule. */
  for (double t = 0; t < 10; t += 1.25)
    ck_assert(af_model_alpha(&m, t) == 1.0);
  ck_assert_int_eq(af_model_alpha_integrable(&m), 0);
  /* alpha (1+t)^-p: pow is within 1 ulp in glibc, then one product. */
  m.alpha = 0.3;
  m.alpha_decay = 0.5;
  AFT_CLOSE("alpha(3), p=1/2", af_model_alpha(&m, 3.0), 0.15, 2 * DBL_EPSILON, 0);
  AFT_CLOSE("alpha(0), p=1/2", af_model_alpha(&m, 0.0), 0.3, 2 * DBL_EPSILON, 0);
  ck_assert_int_eq(af_model_alpha_integrable(&m), 0);
  m.alpha_decay = 1.0; /* 1/(1+t): log divergent, not integrable */
  AFT_CLOSE("alpha(4), p=1", af_model_alpha(&m, 4.0), 0.06, 2 * DBL_EPSILON, 0);
  ck_assert_int_eq(af_model_alpha_integrable(&m), 0);
  m.alpha_decay = 2.0;
  AFT_CLOSE("alpha(1), p=2", af_model_alpha(&m, 1.0), 0.075, 2 * DBL_EPSILON, 0);
  ck_assert_int_eq(af_model_alpha_integrable(&m), 1);
  m.alpha_decay = nextafter(1.0, 2.0);
  ck_assert_int_eq(af_model_alpha_integrable(&m), 1);
}
END_TEST

/* ------------------------------------------------------------ weights */

START_TEST(test_weights_alloc)
{
  af_weights_free(NULL); /* no-op */
  af_weights *w = af_weights_alloc(5, 3, 0.25);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(w->d, 5);
  ck_assert_uint_eq(w->layers, 3);
  ck_assert(w->layer_dt == 0.25);
  ck_assert_int_eq(w->kaiming, 0);
  ck_assert_uint_eq(w->seed, 0);
  for (size_t l = 0; l < 3; l++) {
    ck_assert_ptr_null(w->Q[l]);
    ck_assert_ptr_null(w->K[l]);
    ck_assert_ptr_null(w->V[l]);
  }
  af_weights_free(w);
  ck_assert_ptr_null(af_weights_alloc(0, 1, 1.0));
  ck_assert_ptr_null(af_weights_alloc(3, 0, 1.0));
  ck_assert_ptr_null(af_weights_alloc(3, 1, 0.0));
  ck_assert_ptr_null(af_weights_alloc(3, 1, -1.0));
  ck_assert_ptr_null(af_weights_alloc(3, 1, NAN));
  ck_assert_ptr_null(af_weights_alloc(3, 1, INFINITY));
  AFT_STATUS(af_weights_kaiming(NULL, 1), AF_EINVAL);
}
END_TEST

START_TEST(test_weights_kaiming)
{
  const size_t d = 64, L = 2, dd = d * d;
  unsigned long seed = aft_seed(20251029);
  af_weights *w1 = af_weights_alloc(d, L, 1.0);
  af_weights *w2 = af_weights_alloc(d, L, 1.0);
  af_weights *w3 = af_weights_alloc(d, L, 1.0);
  ck_assert(w1 && w2 && w3);
  AFT_OK(af_weights_kaiming(w1, seed));
  AFT_OK(af_weights_kaiming(w2, seed));
  AFT_OK(af_weights_kaiming(w3, seed + 1));
  ck_assert_int_eq(w1->kaiming, 1);
  ck_assert_uint_eq(w1->seed, seed);
  ck_assert_uint_eq(w3->seed, seed + 1);
  /* Deterministic for a seed, different for another seed, independent
   * matrices within a set and across layers. */
  for (size_t l = 0; l < L; l++) {
    ck_assert(w1->Q[l] && w1->K[l] && w1->V[l]);
    ck_assert(memcmp(w1->Q[l], w2->Q[l], dd * sizeof(double)) == 0);
    ck_assert(memcmp(w1->K[l], w2->K[l], dd * sizeof(double)) == 0);
    ck_assert(memcmp(w1->V[l], w2->V[l], dd * sizeof(double)) == 0);
    ck_assert(memcmp(w1->Q[l], w3->Q[l], dd * sizeof(double)) != 0);
    ck_assert(memcmp(w1->Q[l], w1->K[l], dd * sizeof(double)) != 0);
    ck_assert(memcmp(w1->K[l], w1->V[l], dd * sizeof(double)) != 0);
  }
  ck_assert(memcmp(w1->Q[0], w1->Q[1], dd * sizeof(double)) != 0);
  /* Redrawing into already allocated matrices reproduces the draw. */
  AFT_OK(af_weights_kaiming(w3, seed));
  ck_assert(memcmp(w1->V[1], w3->V[1], dd * sizeof(double)) == 0);

  /* Entries N(0, 1/d): with N = 3 L d^2 samples, the mean of x^2 has
   * mean 1/d and standard deviation sqrt(2/N)/d; the sample mean has
   * mean 0 and standard deviation 1/sqrt(N d).  A 6-sigma band fails a
   * correct generator with probability about 2e-9. */
  double N = (double) (3 * L * dd), s1 = 0, s2 = 0;
  for (size_t l = 0; l < L; l++) {
    const double *m[3] = {w1->Q[l], w1->K[l], w1->V[l]};
    for (int k = 0; k < 3; k++)
      for (size_t i = 0; i < dd; i++) {
        ck_assert(isfinite(m[k][i]));
        s1 += m[k][i];
        s2 += m[k][i] * m[k][i];
      }
  }
  double var = s2 / N, mean = s1 / N;
  AFT_CLOSE("kaiming E[x^2] * d", var * (double) d, 1.0, 6.0 * sqrt(2.0 / N), 0);
  AFT_CLOSE("kaiming mean * sqrt(d)", mean * sqrt((double) d), 0.0, 0, 6.0 / sqrt(N));
  af_weights_free(w1);
  af_weights_free(w2);
  af_weights_free(w3);
}
END_TEST

/* Write text to a fresh temporary file; returns its path (static). */
static const char *write_temp(const char *text)
{
  static char path[64];
  strcpy(path, "/tmp/aft_model_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

START_TEST(test_weights_read)
{
  size_t line = 99;
  af_weights *w = NULL;
  /* d = 2: Q, K, V with comments, blank lines, commas and blanks. */
  const char *good =
    "# Q\n"
    "1 2\n"
    "3, 4\n"
    "\n"
    "  # K\n"
    "0.5\t-0.25\n"
    "1e-3 ,2E2\n"
    "# V\n"
    "-1 0\n"
    "0 -1"; /* no newline at end of file */
  const char *p = write_temp(good);
  AFT_OK(af_weights_read(&w, p, 2, &line));
  unlink(p);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(line, 0);
  ck_assert_uint_eq(w->d, 2);
  ck_assert_uint_eq(w->layers, 1);
  ck_assert(w->layer_dt > 0);
  const double Q[] = {1, 2, 3, 4}, K[] = {0.5, -0.25, 1e-3, 2e2}, V[] = {-1, 0, 0, -1};
  for (int i = 0; i < 4; i++) {
    ck_assert(w->Q[0][i] == Q[i]);
    ck_assert(w->K[0][i] == K[i]);
    ck_assert(w->V[0][i] == V[i]);
  }
  af_model m;
  af_model_init(&m, 3, 2, 1.0, AF_POST_LN);
  m.w = w;
  AFT_OK(af_model_validate(&m));
  af_weights_free(w);

  /* Errors, with the physical line of the fault. */
  struct { const char *text; size_t d; int code; size_t line; } bad[] = {
    {"1 2\n3 4\n5 6 7\n1 2\n3 4\n5 6\n", 2, AF_EPARSE, 3},  /* 3 columns   */
    {"1 2\n3\n5 6\n1 2\n3 4\n5 6\n", 2, AF_EPARSE, 2},      /* 1 column    */
    {"# c\n1 2\n3 4\n5 6\nnan 1\n3 4\n5 6\n", 2, AF_ENONFINITE, 5}, /* NaN */
    {"1 2\n3 4\n5 6\n1 2\n3 inf\n5 6\n", 2, AF_ENONFINITE, 5},
    {"1 2\n3 4\n5 6\n1 x\n3 4\n5 6\n", 2, AF_EPARSE, 4},    /* garbage     */
    {"1 2\n3 4\n5 6\n1 2x\n3 4\n5 6\n", 2, AF_EPARSE, 4},   /* trailing    */
    {"1 2\n3 4\n5 6\n1 2\n", 2, AF_EPARSE, 5},              /* rows missing */
    {"", 2, AF_EPARSE, 1},                                  /* empty       */
    {"1 2\n3 4\n5 6\n1 2\n3 4\n5 6\n7 8\n", 2, AF_EPARSE, 7}, /* extra row */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    p = write_temp(bad[i].text);
    w = (af_weights *) &line; /* must be reset to NULL */
    line = 0;
    int rc = af_weights_read(&w, p, bad[i].d, &line);
    unlink(p);
    ck_assert_msg(rc == bad[i].code, "case %zu: got %s want %s", i,
                  af_status_name(rc), af_status_name(bad[i].code));
    ck_assert_msg(line == bad[i].line, "case %zu: line %zu want %zu", i, line,
                  bad[i].line);
    ck_assert_ptr_null(w);
  }
  AFT_STATUS(af_weights_read(&w, "/nonexistent/dir/weights.txt", 2, &line), AF_EIO);
  AFT_STATUS(af_weights_read(&w, NULL, 2, &line), AF_EINVAL);
  AFT_STATUS(af_weights_read(NULL, "x", 2, &line), AF_EINVAL);
  AFT_STATUS(af_weights_read(&w, "x", 0, &line), AF_EINVAL);
}
END_TEST

/* ------------------------------------------------------------ methods */

START_TEST(test_methods)
{
  static const char *const names[AF_METHOD_COUNT] = {
    "rk8pd", "rkf45", "rk4", "rkck", "msadams", "layers", "vern9"};
  for (int k = 0; k < AF_METHOD_COUNT; k++) {
    af_method m = (af_method) -1;
    ck_assert_str_eq(af_method_name((af_method) k), names[k]);
    AFT_OK(af_method_lookup(&m, names[k]));
    ck_assert_int_eq(m, k);
    /* msadams varies its order and reports 0 (integrate.c). */
    if (k != AF_METHOD_MSADAMS)
      ck_assert_int_ge(af_method_order((af_method) k), 1);
  }
  af_method m = AF_METHOD_RK4;
  AFT_STATUS(af_method_lookup(&m, "euler"), AF_EINVAL);
  AFT_STATUS(af_method_lookup(&m, "RK4"), AF_EINVAL);
  AFT_STATUS(af_method_lookup(&m, ""), AF_EINVAL);
  AFT_STATUS(af_method_lookup(&m, NULL), AF_EINVAL);
  ck_assert_int_eq(m, AF_METHOD_RK4);
  ck_assert_ptr_null(af_method_name(AF_METHOD_COUNT));
  ck_assert_ptr_null(af_method_name((af_method) -1));
  ck_assert_int_eq(af_method_order(AF_METHOD_RK8PD), 8);
  /* GSL's rkf45 and rkck advance with their 5th-order solutions (weights
   * 16/135 and 37/378 in GSL's rkf45.c, rkck.c; *_order() return 5). */
  ck_assert_int_eq(af_method_order(AF_METHOD_RKF45), 5);
  ck_assert_int_eq(af_method_order(AF_METHOD_RKCK), 5);
  ck_assert_int_eq(af_method_order(AF_METHOD_MSADAMS), 0);
  ck_assert_int_eq(af_method_order(AF_METHOD_COUNT), 0);
  ck_assert_int_eq(af_method_fixed(AF_METHOD_COUNT), 0);
  ck_assert_int_eq(af_method_order(AF_METHOD_RK4), 4);
  ck_assert_int_eq(af_method_order(AF_METHOD_LAYERS), 1);
  for (int k = 0; k < AF_METHOD_COUNT; k++)
    ck_assert_int_eq(af_method_fixed((af_method) k),
                     k == AF_METHOD_RK4 || k == AF_METHOD_LAYERS);
  af_integ_opts o;
  memset(&o, 0xAB, sizeof o);
  af_integ_opts_init(&o);
  ck_assert_int_eq(o.method, AF_METHOD_RK8PD);
  ck_assert(o.rtol == 1e-10);
  ck_assert(o.atol == 1e-12);
  ck_assert(o.h == 0.01);
  ck_assert_uint_eq(o.max_steps, 0);
}
END_TEST

static Suite *model_suite(void)
{
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("status");
  tcase_add_test(tc, test_status_strings);
  tcase_add_test(tc, test_version);
  suite_add_tcase(s, tc);
  tc = tcase_create("scheme");
  tcase_add_test(tc, test_scheme_lookup);
  tcase_add_test(tc, test_scheme_table);
  tcase_add_test(tc, test_scheme_rates);
  suite_add_tcase(s, tc);
  tc = tcase_create("model");
  tcase_add_test(tc, test_model_init);
  tcase_add_test(tc, test_model_validate);
  tcase_add_test(tc, test_model_alpha);
  suite_add_tcase(s, tc);
  tc = tcase_create("weights");
  tcase_add_test(tc, test_weights_alloc);
  tcase_add_test(tc, test_weights_kaiming);
  tcase_add_test(tc, test_weights_read);
  suite_add_tcase(s, tc);
  tc = tcase_create("methods");
  tcase_add_test(tc, test_methods);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(model_suite()); }
