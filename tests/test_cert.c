/* test_cert.c -- certified/ (validated Taylor integrator, closed forms,
 * bisection prover) and the certified claims of proofs-numeric/claims_cert.c.
 *
 *  - negative controls: each deliberately false inequality comes out
 *    refuted (and each true one certified); an integrator with its
 *    remainder term removed is caught by the independent closed form T4.1d;
 *    a certified ball shifted by four radii is refuted by the closed form;
 *  - the reference replay: data/reference/certified/t41_balls.tsv (written
 *    by `attnflow verify --write-certified`) is read back exactly; the balls
 *    are reproduced by the integrator, and the double path (theory/t41.c)
 *    and the MPFR path (n-particle, n = 5) land inside them within their
 *    own error allowances;
 *  - built without Arb: every certified claim reports could-not-certify.
 */
#include <config.h>

#include "aftest.h"
#include "cert.h"
#include "theory.h"
#include "verify.h"
#include "attnflow_mp.h"
#include "internal.h" /* af_fnv1a64: re-sign a deliberately changed reference */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Run the claim id (first with that id and scheme) and return its status. */
static af_vstatus run_claim(const char *id, const char *scheme, af_vresult *res)
{
  af_tol_table tol;
  size_t line;
  ck_assert_int_eq(af_tol_parse(&tol, af_tolerances_tsv, &line), AF_OK);
  af_vctx ctx = {AF_LEVEL_QUICK, 0, &tol, 0};
  const af_claim *all[512];
  size_t n = af_claims_all(all, 512);
  af_vstatus st = AF_V_ERROR;
  for (size_t k = 0; k < n; k++)
    if (strcmp(all[k]->id, id) == 0 && strcmp(all[k]->scheme, scheme) == 0) {
      memset(res, 0, sizeof *res);
      res->status = AF_V_ERROR;
      all[k]->fn(res, &ctx, all[k]->arg);
      st = res->status;
      break;
    }
  af_tol_free(&tol);
  return st;
}

#ifndef AF_HAVE_ARB

START_TEST(test_without_arb)
{
  ck_assert_int_eq(af_cert_available(), 0);
  const af_claim *all[512];
  size_t n = af_claims_all(all, 512), seen = 0;
  for (size_t k = 0; k < n; k++)
    if (strncmp(all[k]->id, "C-", 2) == 0) {
      af_vresult r;
      ck_assert_int_eq(run_claim(all[k]->id, all[k]->scheme, &r), AF_V_NOCERT);
      ck_assert_ptr_nonnull(strstr(r.note, "built without Arb"));
      ck_assert_int_eq(all[k]->expected, AF_V_NOCERT);
      seen++;
    }
  ck_assert_uint_gt(seen, 20);
}
END_TEST

static Suite *cert_suite(void)
{
  Suite *s = suite_create("cert");
  TCase *tc = tcase_create("noarb");
  tcase_add_test(tc, test_without_arb);
  suite_add_tcase(s, tc);
  return s;
}

#else /* AF_HAVE_ARB */

#define PREC 256

/* ---------------------------------------------------------------- proofs */

START_TEST(test_false_variants_refuted)
{
  /* Every deliberately false inequality: refuted (proven false at a
   * point); its true counterpart: certified. */
  static const char *const pairs[][2] = {
      {"C-F", "C-F-false"},
      {"C-T3.1r", "C-T3.1r-false"},
      {"C-T4.1a-speed", "C-speed-false"},
      {"C-order", "C-order-false"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    af_vresult r;
    af_vstatus st = run_claim(pairs[k][0], "", &r);
    ck_assert_msg(st == AF_V_CERTIFIED, "%s: %s (%s)", pairs[k][0],
                  af_vstatus_name(st), r.note);
    st = run_claim(pairs[k][1], "", &r);
    ck_assert_msg(st == AF_V_REFUTED, "%s: %s (%s)", pairs[k][1],
                  af_vstatus_name(st), r.note);
  }
}
END_TEST

/* g(x) = x^2 - 1/4 (zeros at +-1/2) for the prover itself. */
static int fn_sq(arb_t out, const arb_t x, void *ctx, long prec)
{
  (void) ctx;
  arb_mul(out, x, x, prec);
  arb_t q;
  arb_init(q);
  arb_set_d(q, 0.25);
  arb_sub(out, out, q, prec);
  arb_clear(q);
  return AF_OK;
}

START_TEST(test_prover)
{
  af_prove_result res;
  double where;
  unsigned long boxes;
  /* x^2 > 1/4 on [0.6, 3]: certified */
  AFT_OK(af_cert_prove_gt0(&res, &where, &boxes, fn_sq, NULL, 0.6, 3.0, 10000, 64));
  ck_assert_int_eq(res, AF_PROVE_CERTIFIED);
  /* on [0.4, 3]: refuted at a point below 1/2 */
  AFT_OK(af_cert_prove_gt0(&res, &where, &boxes, fn_sq, NULL, 0.4, 3.0, 10000, 64));
  ck_assert_int_eq(res, AF_PROVE_REFUTED);
  ck_assert(where < 0.5);
  /* on [0.5, 3]: g(0.5) = 0, so "g > 0" is false there; bisection
   * reaches the point 0.5 itself (the midpoint of a box one ulp wide) */
  AFT_OK(af_cert_prove_gt0(&res, &where, &boxes, fn_sq, NULL, 0.5, 3.0, 100000, 64));
  ck_assert_int_eq(res, AF_PROVE_REFUTED);
  ck_assert(where == 0.5);
  /* a zero just outside the interval exhausts a small budget: undecided,
   * never certified */
  AFT_OK(af_cert_prove_gt0(&res, &where, &boxes, fn_sq, NULL, 0.5000001, 3.0, 20, 64));
  ck_assert_int_eq(res, AF_PROVE_UNDECIDED);
  ck_assert_uint_eq(boxes, 20);
  AFT_STATUS(af_cert_prove_gt0(&res, &where, &boxes, fn_sq, NULL, 1.0, 0.0, 10, 64), AF_EINVAL);
}
END_TEST

/* ---------------------------------------------------------------- integrator */

static const double times4[4] = {1.0, 2.0, 4.0, 8.0};

/* Closed-form verdicts (T4.1d) for Post-LN balls at times4. */
static void verdicts(int *v, arb_srcptr g, unsigned long n, double beta)
{
  arb_t T;
  arb_init(T);
  for (int i = 0; i < 4; i++) {
    arb_set_d(T, times4[i]);
    AFT_OK(af_cert_check_tmap(v + i, g + i, T, af_cert_postln_time, n, beta, 2 * PREC));
  }
  arb_clear(T);
}

START_TEST(test_remainder_removed_is_caught)
{
  /* A coarse integrator (order 12, fixed steps 1/2): with its remainder
   * it is sound and the closed form certifies every ball; with the
   * remainder removed (test-only switch) its balls miss the truncation
   * error and the closed form proves them wrong. */
  af_cert_sys s;
  af_cert_sys_init(&s, 5, 1.5, AF_POST_LN);
  af_cert_opts o;
  af_cert_opts_init(&o, PREC);
  o.order = 12;
  o.h_fixed = 0.5;
  arb_ptr g = _arb_vec_init(4);
  int v[4];
  AFT_OK(af_cert_solve(g, NULL, times4, 4, &s, &o, NULL));
  verdicts(v, g, s.n, s.beta);
  for (int i = 0; i < 4; i++)
    ck_assert_msg(v[i] == 1, "sound coarse run not certified at t=%g", times4[i]);
  o.drop_remainder = 1;
  int rc = af_cert_solve(g, NULL, times4, 4, &s, &o, NULL);
  int caught = rc != AF_OK;
  if (!caught) {
    verdicts(v, g, s.n, s.beta);
    for (int i = 0; i < 4; i++)
      caught |= v[i] != 1;
    fprintf(stderr, "remainder removed: closed-form verdicts %d %d %d %d (-1 = refuted)\n",
            v[0], v[1], v[2], v[3]);
  }
  ck_assert_msg(caught, "integrator without remainder not caught");
  _arb_vec_clear(g, 4);
}
END_TEST

START_TEST(test_shifted_ball_is_caught)
{
  /* Certified balls at 256 bits, each shifted by 4 radii: refuted by the
   * closed form (Post-LN n = 5 and n = 256, P1 USA; all four times) or by
   * the quadrature (nGPT n = 256, Pre-LN and Peri-LN n = 5; at t = 2, to
   * keep the test short). */
  struct { unsigned long n; double beta; int usa; af_scheme_id sc; af_cert_tmap tm; int quad; } cs[] = {
      {5, 1.5, 0, AF_POST_LN, af_cert_postln_time, 0},
      {256, 5.0, 0, AF_POST_LN, af_cert_postln_time, 0},
      {5, 1.5, 1, AF_POST_LN, af_cert_usa_time, 0},
      {256, 5.0, 0, AF_NGPT, af_cert_ngpt_time, 1},
      {5, 1.5, 0, AF_PRE_LN, af_cert_preln_time, 1},
      {5, 1.5, 0, AF_PERI_LN, af_cert_periln_time, 1}};
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
    af_cert_sys s;
    af_cert_sys_init(&s, cs[c].n, cs[c].beta, cs[c].sc);
    s.usa = cs[c].usa;
    af_cert_opts o;
    af_cert_opts_init(&o, PREC);
    arb_ptr g = _arb_vec_init(4);
    AFT_OK(af_cert_solve(g, NULL, times4, 4, &s, &o, NULL));
    af_cert_tmap tm = cs[c].tm;
    long qp = cs[c].quad ? PREC + 64 : 2 * PREC;
    arb_t T, x, sh;
    arb_init(T);
    arb_init(x);
    arb_init(sh);
    for (int i = cs[c].quad ? 1 : 0; i < (cs[c].quad ? 2 : 4); i++) {
      int v;
      arb_set_d(T, times4[i]);
      if (cs[c].quad) /* both quadrature paths: full time maps and the claims' */
        AFT_OK(af_cert_check_quad(&v, g + i, T, s.scheme, s.n, s.beta, qp));
      else
        AFT_OK(af_cert_check_tmap(&v, g + i, T, tm, s.n, s.beta, qp));
      ck_assert_msg(v == 1, "case %zu t=%g: not certified", c, times4[i]);
      AFT_OK(af_cert_check_tmap(&v, g + i, T, tm, s.n, s.beta, qp));
      ck_assert_msg(v == 1, "case %zu t=%g: not certified", c, times4[i]);
      for (int sign = -1; sign <= 1; sign += 2) {
        arf_set_mag(arb_midref(sh), arb_radref(g + i));
        mag_zero(arb_radref(sh));
        arb_mul_si(sh, sh, 4 * sign, PREC);
        arb_add(x, g + i, sh, 2 * PREC);
        mag_set(arb_radref(x), arb_radref(g + i));
        if (cs[c].quad)
          AFT_OK(af_cert_check_quad(&v, x, T, s.scheme, s.n, s.beta, qp));
        else
          AFT_OK(af_cert_check_tmap(&v, x, T, tm, s.n, s.beta, qp));
        ck_assert_msg(v == -1, "case %zu t=%g shift %+d radii: verdict %d", c,
                      times4[i], 4 * sign, v);
      }
    }
    arb_clear(T);
    arb_clear(x);
    arb_clear(sh);
    _arb_vec_clear(g, 4);
  }
}
END_TEST

START_TEST(test_errors)
{
  af_cert_sys s;
  af_cert_sys_init(&s, 5, 1.5, AF_PRE_LN);
  af_cert_opts o;
  af_cert_opts_init(&o, PREC);
  arb_ptr g = _arb_vec_init(2);
  double bad[2] = {2.0, 1.0};
  AFT_STATUS(af_cert_solve(g, NULL, bad, 2, &s, &o, NULL), AF_EINVAL);
  s.n = 1;
  AFT_STATUS(af_cert_solve(g, NULL, times4, 2, &s, &o, NULL), AF_EINVAL);
  s.n = 5;
  o.max_steps = 3; /* budget exhausted: could not certify, outputs [+-inf] */
  AFT_STATUS(af_cert_solve(g, NULL, times4, 2, &s, &o, NULL), AF_EMAXSTEPS);
  ck_assert(!arb_is_finite(g + 1));
  _arb_vec_clear(g, 2);
}
END_TEST

START_TEST(test_perturbed_mpfr_reference_is_caught)
{
  /* A copy of a stored MPFR reference with one hex digit of its first
   * direction component changed: 46 digits after the point (a change of
   * ~1e-56, far above its stated 1e-60) must fail C-mpref's test; 62
   * digits after the point (~1e-75) must still pass (the test is not
   * trivially failing). */
  const char *src = AF_DATADIR "/reference/t41_postln_n4d4_b2_t2.ref";
  FILE *f = fopen(src, "r");
  if (f == NULL) {
    fprintf(stderr, "no %s: skipped\n", src);
    return;
  }
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  /* the first value line after the time line "t ..." */
  char *tline = strstr(text, "\nt ");
  ck_assert_ptr_nonnull(tline);
  char *vline = strchr(tline + 1, '\n') + 1;
  char *dot = strchr(vline, '.');
  ck_assert_ptr_nonnull(dot);
  const int digits[2] = {46, 62};
  for (int k = 0; k < 2; k++) {
    static char copy[1 << 16];
    memcpy(copy, text, len + 1);
    char *c = copy + (dot - text) + digits[k];
    ck_assert(strchr("0123456789abcdef", *c) != NULL);
    *c = *c == '8' ? '0' : '8';
    /* a deliberate change: the checksum line made to match it, so that
     * the numbers, not the checksum, are what is tested here */
    char *sum = strstr(copy, "\n# checksum: fnv1a64 ");
    ck_assert_ptr_nonnull(sum);
    sum += 1;
    char hex[17];
    snprintf(hex, sizeof hex, "%016" PRIx64,
             af_fnv1a64(AF_FNV1A64_INIT, copy, (size_t)(sum - copy)));
    memcpy(sum + strlen("# checksum: fnv1a64 "), hex, 16);
    char path[] = "/tmp/af-cert-refXXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *g = fdopen(fd, "w");
    fputs(copy, g);
    fclose(g);
    int used;
    double err, eps;
    AFT_OK(af_cert_mpref_file(&used, &err, &eps, path, 10.0));
    remove(path);
    ck_assert_int_eq(used, 1);
    fprintf(stderr, "reference digit %d changed: proven error %.3g, allowance %.3g\n",
            digits[k], err, eps);
    if (k == 0)
      ck_assert_msg(!(err <= eps), "perturbation not caught: %g <= %g", err, eps);
    else
      ck_assert_msg(err <= eps, "tiny perturbation rejected: %g > %g", err, eps);
  }
}
END_TEST

/* ---------------------------------------------------------------- replay */

/* The double path (theory/t41.c, rk8pd at its default rtol 1e-14, atol
 * 1e-16, in the log-gap variable): allowance for |double - mid|.  Origin:
 * the per-step error control bounds each local error by 1e-14 |y| and the
 * runs take < 100 steps to t = 8 on a flow that contracts (F'(1) = -2), so
 * the global error stays below 100 x 1e-14 = 1e-12; measured below. */
#define DOUBLE_ALLOW 1e-12

typedef struct {
  unsigned long n;
  double beta, r0, t;
  char sys[16], q[8];
  arb_t ball;
} ref_row;

static size_t read_rows(ref_row *rows, size_t cap, const char *path)
{
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  char line[1024];
  size_t n = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    ck_assert(n < cap);
    ref_row *r = &rows[n];
    char *fld[8];
    char *p = line;
    for (int k = 0; k < 8; k++) {
      fld[k] = p;
      p = strchr(p, '\t');
      if (k < 7) {
        ck_assert_msg(p != NULL, "row %zu: too few fields", n);
        *p++ = '\0';
      }
    }
    r->n = strtoul(fld[0], NULL, 10);
    r->beta = strtod(fld[1], NULL);
    r->r0 = strtod(fld[2], NULL);
    snprintf(r->sys, sizeof r->sys, "%s", fld[3]);
    r->t = strtod(fld[4], NULL);
    snprintf(r->q, sizeof r->q, "%s", fld[5]);
    arb_init(r->ball);
    ck_assert_msg(arb_load_str(r->ball, fld[6]) == 0, "row %zu: bad ball", n);
    n++;
  }
  fclose(f);
  return n;
}

/* MPFR n-particle (n = d = 5, orthonormal start, GBS 128 bits, tol 1e-25)
 * at times4: gamma and r of token 1, and the allowance 10 max(err, tol)
 * (data/tolerances.tsv row C.mpfr_ref). */
typedef struct {
  double g[4], r[4];
  mpfr_t mg[4], mr[4];
  size_t k;
} mp_ctx;

static int mp_out(double t, mpfr_t *y, void *vctx)
{
  (void) t;
  mp_ctx *c = vctx;
  if (c->k >= 1 && c->k <= 4) {
    mpfr_set_ui(c->mg[c->k - 1], 0, MPFR_RNDN);
    for (int j = 0; j < 5; j++)
      mpfr_fma(c->mg[c->k - 1], y[j], y[5 + j], c->mg[c->k - 1], MPFR_RNDN);
    mpfr_set(c->mr[c->k - 1], y[25], MPFR_RNDN);
  }
  c->k++;
  return 0;
}

START_TEST(test_reference_replay)
{
  static ref_row rows[256];
  size_t nr = read_rows(rows, 256, AF_DATADIR "/reference/certified/t41_balls.tsv");
  ck_assert_uint_ge(nr, 2 * 6 * 4 * 2 + 8);
  double worst_double = 0, worst_mp = 0;
  size_t ndouble = 0, nmp = 0, nequal = 0;
  for (size_t i = 0; i < nr; i += 8) {
    /* a block: one system, gamma and r at the four times */
    ref_row *b = &rows[i];
    int usa = strcmp(b->sys, "usa") == 0;
    af_scheme_id sc = AF_POST_LN;
    if (!usa)
      AFT_OK(af_scheme_lookup(&sc, b->sys));
    for (int k = 0; k < 8; k++) {
      ck_assert(rows[i + k].n == b->n && strcmp(rows[i + k].sys, b->sys) == 0);
      ck_assert(rows[i + k].t == times4[k / 2]);
      /* the target: radius <= 2^-200 */
      ck_assert(mag_cmp_2exp_si(arb_radref(rows[i + k].ball), -200) <= 0);
    }
    /* 1. replay: the integrator reproduces the balls */
    af_cert_sys s;
    af_cert_sys_init(&s, b->n, b->beta, sc);
    s.usa = usa;
    s.r0 = b->r0;
    af_cert_opts o;
    af_cert_opts_init(&o, PREC);
    arb_ptr g = _arb_vec_init(4), r = _arb_vec_init(4);
    AFT_OK(af_cert_solve(g, r, times4, 4, &s, &o, NULL));
    for (int k = 0; k < 4; k++) {
      ck_assert(arb_overlaps(g + k, rows[i + 2 * k].ball));
      ck_assert(arb_overlaps(r + k, rows[i + 2 * k + 1].ball));
      nequal += arb_equal(g + k, rows[i + 2 * k].ball) + arb_equal(r + k, rows[i + 2 * k + 1].ball);
    }
    _arb_vec_clear(g, 4);
    _arb_vec_clear(r, 4);
    /* 2. the double path lands inside, within its allowance */
    if (!usa) {
      af_t41_params p;
      af_t41_params_init(&p, b->n, b->beta, sc);
      p.r0 = b->r0;
      double gd[4], rd[4];
      AFT_OK(af_t41_solve(gd, NULL, rd, times4, 4, &p));
      for (int k = 0; k < 4; k++)
        for (int q = 0; q < 2; q++) {
          arb_srcptr ball = rows[i + 2 * k + q].ball;
          double e = fabs((q ? rd[k] : gd[k]) - arf_get_d(arb_midref(ball), ARF_RND_NEAR));
          worst_double = fmax(worst_double, e);
          ck_assert_msg(e <= DOUBLE_ALLOW, "%s n=%lu t=%g %s: double off by %g",
                        b->sys, b->n, times4[k], q ? "r" : "gamma", e);
          ndouble++;
        }
    }
    /* 3. the MPFR path (n-particle, n = 5) lands inside */
    if (b->n == 5) {
      size_t N = af_state_size(5, 5);
      double y0[30];
      size_t line;
      AFT_OK(af_init_state(y0, &line, "orthonormal", 5, 5, b->r0, 0));
      af_model m;
      af_model_init(&m, 5, 5, b->beta, sc);
      if (usa)
        m.attn = AF_ATTN_USA;
      af_mp_work *w = af_mp_work_alloc(5, 5, 128);
      mpfr_t *y = af_mp_vec_alloc(N, 128);
      af_mp_vec_set_d(y, y0, N);
      af_mp_opts mo;
      af_mp_opts_init(&mo);
      mo.method = AF_MP_GBS;
      mo.tol = 1e-25;
      mp_ctx c;
      c.k = 0;
      for (int k = 0; k < 4; k++) {
        mpfr_init2(c.mg[k], 160);
        mpfr_init2(c.mr[k], 160);
      }
      double tt[5] = {0, 1, 2, 4, 8};
      af_mp_stats st;
      AFT_OK(af_mp_integrate(y, tt, 5, &m, &mo, w, mp_out, &c, &st));
      double eps = 10 * fmax(st.err_est, mo.tol);
      arb_t x;
      arb_init(x);
      for (int k = 0; k < 4; k++)
        for (int q = 0; q < 2; q++) {
          arb_srcptr ball = rows[i + 2 * k + q].ball;
          arf_set_mpfr(arb_midref(x), q ? c.mr[k] : c.mg[k]);
          mag_zero(arb_radref(x));
          arb_sub(x, x, ball, PREC);
          double e = arf_get_d(arb_midref(x), ARF_RND_NEAR);
          worst_mp = fmax(worst_mp, fabs(e));
          mag_set_d(arb_radref(x), eps);
          ck_assert_msg(arb_contains_zero(x), "%s t=%g %s: MPFR off by %g (eps %g)",
                        b->sys, times4[k], q ? "r" : "gamma", e, eps);
          nmp++;
        }
      arb_clear(x);
      for (int k = 0; k < 4; k++) {
        mpfr_clear(c.mg[k]);
        mpfr_clear(c.mr[k]);
      }
      af_mp_vec_free(y, N);
      af_mp_work_free(w);
    }
  }
  fprintf(stderr, "replay: %zu rows, %zu bit-identical on replay; double path: %zu values, "
          "worst |double - mid| = %.3g (allowance %.0e); MPFR: %zu values, worst %.3g\n",
          nr, nequal, ndouble, worst_double, DOUBLE_ALLOW, nmp, worst_mp);
  for (size_t i = 0; i < nr; i++)
    arb_clear(rows[i].ball);
}
END_TEST

static Suite *cert_suite(void)
{
  Suite *s = suite_create("cert");
  TCase *tc = tcase_create("proofs");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_prover);
  tcase_add_test(tc, test_false_variants_refuted);
  suite_add_tcase(s, tc);
  tc = tcase_create("integrator");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_remainder_removed_is_caught);
  tcase_add_test(tc, test_shifted_ball_is_caught);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  tc = tcase_create("replay");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_reference_replay);
  tcase_add_test(tc, test_perturbed_mpfr_reference_is_caught);
  suite_add_tcase(s, tc);
  return s;
}

#endif /* AF_HAVE_ARB */

int main(void)
{
  return aft_run(cert_suite());
}
