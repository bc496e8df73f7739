/* test_api_hostile.c -- every public function of attnflow.h and
 * attnflow_mp.h called with hostile arguments: NULL pointers, zero and
 * huge sizes (products that overflow size_t), NaN and infinite numbers,
 * precisions outside [AF_PREC_MIN, AF_PREC_MAX], thread counts outside
 * [0, AF_THREADS_MAX], tolerances outside the command's ranges
 * (attnflow_limits.h).  A function that returns a status must return an
 * error code (never AF_OK, never crash); an allocator must return NULL;
 * a void function must return without touching anything.  CI runs this
 * program under AddressSanitizer and UndefinedBehaviorSanitizer
 * (check-unit), which turns a wild write into a failure.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"
#include "attnflow_limits.h"
#include "attnflow_mp.h"
#include "certify.h"
#include "theory.h"

/* An error code: not AF_OK, and one of the list. */
#define BAD(expr)                                                           \
  do {                                                                      \
    int bad_rc_ = (expr);                                                   \
    ck_assert_msg(bad_rc_ > AF_OK && bad_rc_ < AF_STATUS_COUNT,             \
                  "%s returned %s, wanted an error", #expr,                 \
                  af_status_name(bad_rc_));                                 \
  } while (0)

static const double NaN_ = NAN;
#define HUGE_N ((size_t)SIZE_MAX)
#define HALF_N (((size_t)1 << (sizeof(size_t) * 4)) + 1) /* squared: wraps */

/* A valid small model, the base that one bad field at a time spoils. */
static void good_model(af_model *m) { af_model_init(m, 3, 2, 1.0, AF_POST_LN); }

START_TEST(test_strings_and_tables)
{
  ck_assert_ptr_nonnull(af_strerror(-1));
  ck_assert_ptr_nonnull(af_strerror(1 << 30));
  ck_assert_ptr_nonnull(af_status_name(-7));
  ck_assert_ptr_nonnull(af_version());
  ck_assert_ptr_nonnull(af_commit());
  ck_assert_ptr_null(af_scheme_get((af_scheme_id)-1));
  ck_assert_ptr_null(af_scheme_get((af_scheme_id)1000));
  af_scheme_id id;
  BAD(af_scheme_lookup(NULL, "post-ln"));
  BAD(af_scheme_lookup(&id, NULL));
  BAD(af_scheme_lookup(&id, ""));
  BAD(af_obs_lookup(NULL, "drift"));
  af_obs_id ob;
  BAD(af_obs_lookup(&ob, NULL));
  ck_assert_ptr_null(af_obs_name((af_obs_id)-1));
  ck_assert_ptr_null(af_obs_name((af_obs_id)9999));
  af_method me;
  BAD(af_method_lookup(NULL, "rk4"));
  BAD(af_method_lookup(&me, NULL));
  ck_assert_ptr_null(af_method_name((af_method)-3));
  ck_assert_int_le(af_method_order((af_method)999), 0);
  ck_assert_int_eq(af_method_fixed((af_method)999), 0);
  af_mp_method mm;
  BAD(af_mp_method_lookup(NULL, "mp-gbs"));
  BAD(af_mp_method_lookup(&mm, NULL));
  ck_assert_ptr_null(af_mp_method_name((af_mp_method)77));
}
END_TEST

START_TEST(test_limits_one_source)
{
  double v;
  ck_assert_int_eq(af_limit_get(&v, "rtol_min"), AF_OK);
  ck_assert(v == AF_RTOL_MIN);
  ck_assert_int_eq(af_limit_get(&v, "rtol_max"), AF_OK);
  ck_assert(v == AF_RTOL_MAX);
  ck_assert_int_eq(af_limit_get(&v, "precision_max"), AF_OK);
  ck_assert(v == AF_PREC_MAX);
  BAD(af_limit_get(&v, "no such limit"));
  BAD(af_limit_get(NULL, "rtol_min"));
  BAD(af_limit_get(&v, NULL));
  for (size_t k = 0; af_limit_name(k) != NULL; k++)
    ck_assert_int_eq(af_limit_get(&v, af_limit_name(k)), AF_OK);
  ck_assert_ptr_null(af_limit_name(HUGE_N));
}
END_TEST

START_TEST(test_model_and_options)
{
  af_model_init(NULL, 3, 2, 1.0, AF_POST_LN); /* no crash */
  BAD(af_model_validate(NULL));
  af_model m;
  good_model(&m);
  AFT_OK(af_model_validate(&m));
  m.n = 0;
  BAD(af_model_validate(&m));
  good_model(&m);
  m.n = HALF_N;
  m.d = HALF_N;
  BAD(af_model_validate(&m));
  good_model(&m);
  m.beta = NaN_;
  BAD(af_model_validate(&m));
  m.beta = -1;
  BAD(af_model_validate(&m));
  good_model(&m);
  m.scheme = (af_scheme_id)1234;
  BAD(af_model_validate(&m));
  ck_assert_ptr_null(af_model_scheme(&m));
  ck_assert_ptr_null(af_model_scheme(NULL));
  BAD(af_model_set_user_scheme(NULL, af_scheme_get(AF_POST_LN)));
  good_model(&m);
  BAD(af_model_set_user_scheme(&m, NULL));
  ck_assert(isnan(af_model_alpha(NULL, 1.0)));
  (void)af_model_alpha(&m, NaN_);
  ck_assert_int_eq(af_model_alpha_integrable(NULL), 0);
  ck_assert(af_state_size(HUGE_N, 2) == 0);
  ck_assert(af_state_size(HALF_N, HALF_N) == 0);

  af_integ_opts_init(NULL); /* no crash */
  af_integ_opts o;
  af_integ_opts_init(&o);
  AFT_OK(af_integ_opts_check(&o));
  BAD(af_integ_opts_check(NULL));
  o.rtol = 10;
  BAD(af_integ_opts_check(&o));
  o.rtol = NaN_;
  BAD(af_integ_opts_check(&o));
  o.rtol = 1e-17; /* below the rounding unit (0 alone is allowed) */
  BAD(af_integ_opts_check(&o));
  af_integ_opts_init(&o);
  o.atol = 1e300;
  BAD(af_integ_opts_check(&o));
  o.atol = -1;
  BAD(af_integ_opts_check(&o));
  af_integ_opts_init(&o);
  o.h = NaN_;
  BAD(af_integ_opts_check(&o));
  af_integ_opts_init(&o);
  o.method = (af_method)99;
  BAD(af_integ_opts_check(&o));

  /* af_integrate refuses the command's out-of-range tolerances too. */
  af_integ_opts_init(&o);
  o.rtol = 10;
  good_model(&m);
  af_work *w = af_work_alloc(3, 2);
  ck_assert_ptr_nonnull(w);
  double y[9], times[2] = {0, 1};
  AFT_OK(af_init_state(y, NULL, "uniform", 3, 2, NaN_, 1));
  BAD(af_integrate(y, times, 2, &m, &o, w, NULL, NULL, NULL));
  af_integ_opts_init(&o);
  BAD(af_integrate(NULL, times, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_integrate(y, NULL, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_integrate(y, times, 2, NULL, &o, w, NULL, NULL, NULL));
  BAD(af_integrate(y, times, 2, &m, NULL, w, NULL, NULL, NULL));
  BAD(af_integrate(y, times, 2, &m, &o, NULL, NULL, NULL, NULL));
  double tn[2] = {0, NAN};
  BAD(af_integrate(y, tn, 2, &m, &o, w, NULL, NULL, NULL));
  double ti[2] = {0, INFINITY};
  BAD(af_integrate(y, ti, 2, &m, &o, w, NULL, NULL, NULL));
  /* A work of another size than the model. */
  af_model m2;
  af_model_init(&m2, 5, 2, 1.0, AF_POST_LN);
  BAD(af_integrate(y, times, 2, &m2, &o, w, NULL, NULL, NULL));
  af_work_free(w);
}
END_TEST

START_TEST(test_work_and_field)
{
  ck_assert_ptr_null(af_work_alloc(0, 2));
  ck_assert_ptr_null(af_work_alloc(2, 0));
  ck_assert_ptr_null(af_work_alloc(HUGE_N, 2));
  ck_assert_ptr_null(af_work_alloc(HALF_N, HALF_N));
  ck_assert_ptr_null(af_work_alloc(HALF_N, 1));
  af_work_free(NULL);
  BAD(af_work_set_kernel(NULL, AF_KERNEL_DIRECT));
  ck_assert_int_eq(af_work_nevals(NULL), 0);
  (void)af_work_kernel(NULL);
  af_work *w = af_work_alloc(3, 2);
  ck_assert_ptr_nonnull(w);
  BAD(af_work_set_kernel(w, (af_kernel)42));
  af_model m;
  good_model(&m);
  double y[9], dy[9], c[3], a[3], s[3], rho[3];
  AFT_OK(af_init_state(y, NULL, "uniform", 3, 2, NaN_, 1));
  BAD(af_rhs(NULL, 0, y, &m, w));
  BAD(af_rhs(dy, 0, NULL, &m, w));
  BAD(af_rhs(dy, 0, y, NULL, w));
  BAD(af_rhs(dy, 0, y, &m, NULL));
  BAD(af_rhs(dy, NaN_, y, &m, w));
  BAD(af_attention(NULL, NULL, c, a, 0, NULL, &m, w));
  BAD(af_attention(NULL, NULL, c, a, 0, y, NULL, w));
  BAD(af_attention(NULL, NULL, c, a, 0, y, &m, NULL));
  BAD(af_speeds(s, rho, 0, NULL, &m, w));
  BAD(af_speeds(s, rho, 0, y, NULL, w));
  BAD(af_speeds(s, rho, 0, y, &m, NULL));
  BAD(af_layer_step(NULL, y, 0, 0.1, &m, w));
  BAD(af_layer_step(dy, NULL, 0, 0.1, &m, w));
  BAD(af_layer_step(dy, y, 0, NaN_, &m, w));
  BAD(af_layer_step(dy, y, 0, -1, &m, w));
  BAD(af_layer_step(dy, y, 0, 0.1, NULL, w));
  BAD(af_layer_step(dy, y, 0, 0.1, &m, NULL));
  double yn[9];
  memcpy(yn, y, sizeof yn);
  yn[0] = NaN_;
  BAD(af_rhs(dy, 0, yn, &m, w));
  double obs[AF_OBS_COUNT];
  BAD(af_observe(NULL, 0, y, 0.9, &m, w));
  BAD(af_observe(obs, 0, NULL, 0.9, &m, w));
  BAD(af_observe(obs, 0, y, NaN_, &m, w));
  BAD(af_observe(obs, 0, y, 5, &m, w));
  BAD(af_observe(obs, 0, y, 0.9, NULL, w));
  BAD(af_observe(obs, 0, y, 0.9, &m, NULL));
  double f;
  BAD(af_pairs_above(NULL, y, 3, 2, 0.9));
  BAD(af_pairs_above(&f, NULL, 3, 2, 0.9));
  BAD(af_pairs_above(&f, y, HALF_N, HALF_N, 0.9));
  BAD(af_pairs_above(&f, y, 3, 2, NaN_));
  af_work_free(w);
}
END_TEST

START_TEST(test_weights_and_init)
{
  ck_assert_ptr_null(af_weights_alloc(0, 1, 0.1));
  ck_assert_ptr_null(af_weights_alloc(2, 0, 0.1));
  ck_assert_ptr_null(af_weights_alloc(HUGE_N, 1, 0.1));
  ck_assert_ptr_null(af_weights_alloc(2, HUGE_N, 0.1));
  ck_assert_ptr_null(af_weights_alloc(HALF_N, HALF_N, 0.1));
  ck_assert_ptr_null(af_weights_alloc(2, 1, NaN_));
  af_weights_free(NULL);
  BAD(af_weights_kaiming(NULL, 1));
  af_weights *w = NULL;
  size_t line = 0;
  BAD(af_weights_read(NULL, "x", 2, &line));
  BAD(af_weights_read(&w, NULL, 2, &line));
  BAD(af_weights_read(&w, "/dev/null", 0, &line));
  BAD(af_weights_read(&w, "/dev/null", HUGE_N, &line));
  BAD(af_weights_read(&w, "/dev/null", HALF_N, NULL));
  BAD(af_weights_read_info(&w, NULL, NULL, 2));
  ck_assert_ptr_null(w);

  double y[9];
  BAD(af_init_state(NULL, &line, "uniform", 3, 2, NaN_, 1));
  BAD(af_init_state(y, &line, NULL, 3, 2, NaN_, 1));
  BAD(af_init_state(y, &line, "uniform", 0, 2, NaN_, 1));
  BAD(af_init_state(y, &line, "uniform", 3, 0, NaN_, 1));
  BAD(af_init_state(y, &line, "uniform", HUGE_N, 2, NaN_, 1));
  BAD(af_init_state(y, &line, "uniform", HALF_N, HALF_N, NaN_, 1));
  BAD(af_init_state(y, &line, "uniform", 3, 2, -1, 1));
  BAD(af_init_state(y, &line, "uniform", 3, 2, INFINITY, 1));
  BAD(af_init_state(y, &line, "cap:nan", 3, 2, NaN_, 1));
  BAD(af_init_state(y, NULL, "no such start", 3, 2, NaN_, 1));
  BAD(af_init_read_file(NULL, &line, "/dev/null", 3, 2));
  BAD(af_init_read_file(y, &line, NULL, 3, 2));
  BAD(af_init_read_file(y, &line, "/dev/null", HUGE_N, 2));
  BAD(af_init_read_file(y, &line, "/dev/null", HALF_N, HALF_N));
  BAD(af_init_read_file_info(y, NULL, "/dev/null", 0, 2));
}
END_TEST

static int task_ok(double *row, size_t r, void *ctx)
{
  (void)ctx;
  row[0] = (double)r;
  return AF_OK;
}

START_TEST(test_sweeps)
{
  af_sweep_spec_init(NULL, NULL, NULL, 0, 0, NULL, 0); /* no crash */
  af_model m;
  good_model(&m);
  double betas[1] = {1}, times[2] = {0, 0.5}, frac[2];
  int status[1];
  af_sweep_spec s;
  af_sweep_spec_init(&s, &m, betas, 1, 1, times, 2);
  BAD(af_sweep_pairs(NULL, status, NULL, &s, NULL, NULL));
  BAD(af_sweep_pairs(frac, status, NULL, NULL, NULL, NULL));
  af_sweep_spec bad = s;
  bad.nthreads = 100000;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));
  bad = s;
  bad.nthreads = -1;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));
  bad = s;
  bad.nbeta = HALF_N;
  bad.nsys = HALF_N;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));
  bad = s;
  bad.opts.rtol = 10;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));
  bad = s;
  bad.cos_threshold = NaN_;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));
  bad = s;
  bad.betas = NULL;
  BAD(af_sweep_pairs(frac, status, NULL, &bad, NULL, NULL));

  double rows[4];
  int st[4];
  BAD(af_sweep_exec(rows, st, 4, 1, task_ok, NULL, NULL, 100000, NULL, NULL));
  BAD(af_sweep_exec(rows, st, 4, 1, task_ok, NULL, NULL, -5, NULL, NULL));
  BAD(af_sweep_exec(rows, st, 4, 1, NULL, NULL, NULL, 1, NULL, NULL));
  BAD(af_sweep_exec(NULL, st, 4, 1, task_ok, NULL, NULL, 1, NULL, NULL));
  BAD(af_sweep_exec(rows, NULL, 4, 1, task_ok, NULL, NULL, 1, NULL, NULL));
  BAD(af_sweep_exec(rows, st, HALF_N, HALF_N, task_ok, NULL, NULL, 1, NULL,
                    NULL));
  BAD(af_sweep_exec(rows, st, 4, 0, task_ok, NULL, NULL, 1, NULL, NULL));
  af_sweep_queue q = {NULL, NULL, NULL, NULL};
  BAD(af_sweep_exec(rows, st, 4, 1, task_ok, NULL, &q, 1, NULL, NULL));

  af_sweep_obs_spec os;
  memset(&os, 0, sizeof os);
  BAD(af_sweep_observe(NULL, NULL, &os));
  BAD(af_sweep_observe(rows, NULL, NULL));
  BAD(af_sweep_observe(rows, NULL, &os));
  ck_assert(af_sweep_seed(ULONG_MAX, HUGE_N) != 0);
}
END_TEST

static int writer_ok(FILE *f, void *ctx)
{
  (void)ctx;
  return fputs("x\n", f) < 0 ? AF_EIO : AF_OK;
}

START_TEST(test_write_atomic)
{
  BAD(af_write_atomic(NULL, writer_ok, NULL));
  BAD(af_write_atomic("", writer_ok, NULL));
  BAD(af_write_atomic("-", NULL, NULL));
  BAD(af_write_atomic("/proc/1/fd/1", writer_ok, NULL));
  BAD(af_write_atomic("/dev/fd/987", writer_ok, NULL));
}
END_TEST

START_TEST(test_mp_vectors)
{
  ck_assert_ptr_null(af_mp_vec_alloc(4, 0));
  ck_assert_ptr_null(af_mp_vec_alloc(4, -5));
  ck_assert_ptr_null(
      af_mp_vec_alloc(4, (mpfr_prec_t)AF_PREC_MAX + AF_PREC_GUARD + 1));
  ck_assert_ptr_null(af_mp_vec_alloc(HUGE_N, 64));
  ck_assert_ptr_null(af_mp_vec_alloc(HUGE_N / 2, 64));
  af_mp_vec_free(NULL, 5);
  af_mp_vec_set_d(NULL, NULL, 5);
  af_mp_vec_get_d(NULL, NULL, 5);
  af_mp_vec_set(NULL, NULL, 5);
  ck_assert(isnan(af_mp_vec_maxdiff(NULL, NULL, 5)));
  af_mp_vec_dist2(NULL, NULL, NULL, 5, NULL);
  ck_assert_ptr_null(af_mp_work_alloc(3, 2, 0));
  ck_assert_ptr_null(af_mp_work_alloc(3, 2, (mpfr_prec_t)AF_PREC_MAX + 1));
  ck_assert_ptr_null(af_mp_work_alloc(0, 2, 64));
  ck_assert_ptr_null(af_mp_work_alloc(HUGE_N, 2, 64));
  ck_assert_ptr_null(af_mp_work_alloc(HALF_N, HALF_N, 64));
  af_mp_work_free(NULL);
  ck_assert_int_eq(af_mp_work_nevals(NULL), 0);
  af_mp_work_set_piece(NULL, 0, 0, 1);
  af_mp_work_set_params(NULL, NULL);
  ck_assert_ptr_null(af_mp_work_params(NULL));

  af_model m;
  good_model(&m);
  af_mp_params p;
  BAD(af_mp_params_init(NULL, &m, 64));
  BAD(af_mp_params_init(&p, NULL, 64));
  BAD(af_mp_params_init(&p, &m, 0));
  BAD(af_mp_params_init(&p, &m, (mpfr_prec_t)AF_PREC_MAX + 1));
  af_mp_params_clear(NULL);
  mpfr_t r;
  mpfr_init2(r, 64);
  BAD(af_mp_parse(NULL, "1"));
  BAD(af_mp_parse(r, NULL));
  BAD(af_mp_parse(r, ""));
  mpfr_clear(r);

  size_t line = 0;
  BAD(af_mp_init_read(NULL, &line, "/dev/null", 3, 2));
  mpfr_t *y = af_mp_vec_alloc(9, 64);
  ck_assert_ptr_nonnull(y);
  BAD(af_mp_init_read(y, &line, NULL, 3, 2));
  BAD(af_mp_init_read(y, &line, "/dev/null", HUGE_N, 2));
  BAD(af_mp_init_read(y, &line, "/dev/null", HALF_N, HALF_N));
  BAD(af_mp_init_read(y, &line, "/dev/null", 0, 2));
  BAD(af_mp_weights_read(NULL, &line, "/dev/null", 2, 64));
  BAD(af_mp_weights_read(&p, &line, NULL, 2, 64));
  BAD(af_mp_weights_read(&p, &line, "/dev/null", HUGE_N, 64));
  BAD(af_mp_weights_read(&p, &line, "/dev/null", 2, 0));

  BAD(af_mp_gauss_tableau(NULL, NULL, NULL, 2));
  mpfr_t *A = af_mp_vec_alloc(4, 64), *b = af_mp_vec_alloc(2, 64),
         *c = af_mp_vec_alloc(2, 64);
  BAD(af_mp_gauss_tableau(A, b, c, 0));
  BAD(af_mp_gauss_tableau(A, b, c, AF_MP_GAUSS_MAX + 1));
  af_mp_vec_free(A, 4);
  af_mp_vec_free(b, 2);
  af_mp_vec_free(c, 2);
  (void)af_mp_gbs_seq(0);
  (void)af_mp_gbs_seq(1u << 30);
  unsigned long num, den;
  af_mp_gbs_ratio(NULL, NULL, 3, 1);
  af_mp_gbs_ratio(&num, &den, 1u << 30, 1u << 29);

  af_mp_opts_init(NULL);
  af_mp_opts o;
  af_mp_opts_init(&o);
  af_mp_work *w = af_mp_work_alloc(3, 2, 64);
  ck_assert_ptr_nonnull(w);
  double times[2] = {0, 0.5};
  BAD(af_mp_integrate(NULL, times, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_mp_integrate(y, NULL, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_mp_integrate(y, times, 2, NULL, &o, w, NULL, NULL, NULL));
  BAD(af_mp_integrate(y, times, 2, &m, NULL, w, NULL, NULL, NULL));
  BAD(af_mp_integrate(y, times, 2, &m, &o, NULL, NULL, NULL, NULL));
  af_mp_opts ob = o;
  ob.tol = NaN_;
  BAD(af_mp_integrate(y, times, 2, &m, &ob, w, NULL, NULL, NULL));
  ob = o;
  ob.tol = 10;
  BAD(af_mp_integrate(y, times, 2, &m, &ob, w, NULL, NULL, NULL));
  ob = o;
  ob.method = (af_mp_method)9;
  BAD(af_mp_integrate(y, times, 2, &m, &ob, w, NULL, NULL, NULL));
  double tn[2] = {0, NAN};
  BAD(af_mp_integrate(y, tn, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_mp_integrate_x(y, NULL, 2, &m, &o, w, NULL, NULL, NULL));
  BAD(af_mp_rhs(NULL, NULL, y, &m, w));
  BAD(af_mp_rhs(y, NULL, NULL, &m, w));
  BAD(af_mp_attention(NULL, NULL, NULL, NULL, NULL, NULL, &m, w));
  mpfr_t *obs = af_mp_vec_alloc(AF_OBS_COUNT, 64);
  BAD(af_mp_observe(NULL, NULL, y, 0.9, &m, w));
  BAD(af_mp_observe(obs, NULL, NULL, 0.9, &m, w));
  BAD(af_mp_observe(obs, NULL, y, 0.9, NULL, w));
  BAD(af_mp_observe(obs, NULL, y, 0.9, &m, NULL));
  af_mp_vec_free(obs, AF_OBS_COUNT);

  af_mp_ref_info info;
  memset(&info, 0, sizeof info);
  mpfr_t t;
  mpfr_init2(t, 64);
  mpfr_set_zero(t, 1);
  BAD(af_mp_ref_write(NULL, &info, t, y, 9));
  BAD(af_mp_ref_write(stdout, NULL, t, y, 9));
  BAD(af_mp_ref_write(stdout, &info, NULL, y, 9));
  BAD(af_mp_ref_write(stdout, &info, t, NULL, 9));
  BAD(af_mp_ref_read(t, y, 9, &line, NULL));
  BAD(af_mp_ref_read(NULL, y, 9, &line, stdin));
  BAD(af_mp_ref_read(t, NULL, 9, &line, stdin));
  mpfr_clear(t);
  af_mp_work_free(w);
  af_mp_vec_free(y, 9);
}
END_TEST

/* The kernel chooser and the work-size estimate: any size gives a known
 * kernel; a size whose work overflows, an unknown kernel or a thread
 * count outside [0, AF_THREADS_MAX] gives 0 bytes. */
START_TEST(test_kernel_choice)
{
  const size_t sizes[] = {0, 1, 2, HALF_N, HUGE_N};
  for (size_t i = 0; i < 5; i++)
    for (size_t j = 0; j < 5; j++) {
      af_kernel k = af_kernel_auto(sizes[i], sizes[j]);
      ck_assert(k == AF_KERNEL_BLAS || k == AF_KERNEL_TILED);
    }
  ck_assert_uint_eq(af_work_bytes(0, 3, AF_KERNEL_BLAS, 1), 0);
  ck_assert_uint_eq(af_work_bytes(3, 0, AF_KERNEL_TILED, 1), 0);
  ck_assert_uint_eq(af_work_bytes(HUGE_N, 3, AF_KERNEL_TILED, 1), 0);
  ck_assert_uint_eq(af_work_bytes(3, HUGE_N, AF_KERNEL_TILED, 1), 0);
  ck_assert_uint_eq(af_work_bytes(HALF_N, 1, AF_KERNEL_BLAS, 1), 0);
  ck_assert_uint_eq(af_work_bytes(HALF_N, 1, AF_KERNEL_DIRECT, 1), 0);
  ck_assert_uint_eq(af_work_bytes(3, 2, (af_kernel)99, 1), 0);
  ck_assert_uint_eq(af_work_bytes(3, 2, (af_kernel)-1, 1), 0);
  ck_assert_uint_eq(af_work_bytes(3, 2, AF_KERNEL_TILED, -5), 0);
  ck_assert_uint_eq(af_work_bytes(3, 2, AF_KERNEL_TILED, AF_THREADS_MAX + 1),
                    0);
  ck_assert_uint_eq(af_work_bytes(1000, 64, AF_KERNEL_TILED, 2147483647), 0);
  ck_assert_uint_gt(af_work_bytes(3, 2, AF_KERNEL_TILED, 0), 0);
  ck_assert_uint_gt(af_work_bytes(3, 2, AF_KERNEL_BLAS, AF_THREADS_MAX), 0);
  /* The tiled kernel's scratch for many threads must not wrap. */
  ck_assert_uint_eq(af_work_bytes(HUGE_N / 16, 1, AF_KERNEL_TILED,
                                  AF_THREADS_MAX),
                    0);
}
END_TEST

/* Scheme specs: NULL everywhere, lengths past the text, NUL bytes, a
 * missing file, NaN and infinite evaluation points. */
/* The .npy weights reader and the spec's attention keys (weights_npy.c,
 * scheme_spec.c): pointers, sizes, step and truncated or lying headers. */
START_TEST(test_npy_and_spec_keys)
{
  /* a valid (3, 1, 1) '<f8' header for d = 1, then three doubles */
  static const char hdr[] =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1, 1), }";
  unsigned char buf[256];
  size_t hl = sizeof hdr - 1, pad = 64 - (10 + hl + 1) % 64;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)((hl + pad + 1) & 0xff);
  buf[9] = (unsigned char)((hl + pad + 1) >> 8);
  memcpy(buf + 10, hdr, hl);
  memset(buf + 10 + hl, ' ', pad);
  buf[10 + hl + pad] = '\n';
  size_t len = 10 + hl + pad + 1;
  const double one[3] = {1, 2, 3};
  memcpy(buf + len, one, sizeof one);
  len += sizeof one;
  af_weights *w = (af_weights *)1;
  const char *what = NULL;
  /* the well-formed file reads (so the refusals below are the arguments') */
  ck_assert_int_eq(af_weights_parse_npy(&w, &what, buf, len, 1, 0.1), AF_OK);
  af_weights_free(w);
  w = (af_weights *)1;
  BAD(af_weights_parse_npy(NULL, &what, buf, len, 1, 0.1));
  BAD(af_weights_parse_npy(&w, &what, NULL, 5, 1, 0.1));
  ck_assert_ptr_null(w);
  BAD(af_weights_parse_npy(&w, NULL, buf, len, 0, 0.1));
  BAD(af_weights_parse_npy(&w, &what, buf, len, HUGE_N, 0.1));
  BAD(af_weights_parse_npy(&w, &what, buf, len, HALF_N, 0.1));
  BAD(af_weights_parse_npy(&w, &what, buf, len, 2, 0.1)); /* shape vs d */
  BAD(af_weights_parse_npy(&w, &what, buf, len, 1, NaN_));
  BAD(af_weights_parse_npy(&w, &what, buf, len, 1, -1));
  BAD(af_weights_parse_npy(&w, &what, buf, len, 1, INFINITY));
  for (size_t cut = 0; cut < len; cut++) /* every truncation refused */
    BAD(af_weights_parse_npy(&w, &what, buf, cut, 1, 0.1));
  ck_assert_ptr_null(w);
  af_read_info info;
  BAD(af_weights_read_npy(NULL, &info, "/dev/null", 1, 0.1));
  BAD(af_weights_read_npy(&w, &info, NULL, 1, 0.1));
  BAD(af_weights_read_npy(&w, &info, "/dev/null", 0, 0.1));
  BAD(af_weights_read_npy(&w, &info, "/dev/null", 1, NaN_));
  BAD(af_weights_read_npy(&w, NULL, "/dev/null", 1, 0.1));
  BAD(af_weights_read_npy(&w, &info, "/", 1, 0.1));
  BAD(af_weights_read_npy(&w, &info, "/nonexistent/w.npy", 1, 0.1));
  ck_assert_ptr_null(w);

  ck_assert_int_eq(af_scheme_spec_scores(NULL), AF_SPEC_SCORES_PLAIN);
  ck_assert_int_eq(af_scheme_spec_alters_attention(NULL), 0);
}
END_TEST

START_TEST(test_scheme_spec)
{
  static const char good[] =
      "name = h1\nspeed = 1\nradial = 0\nlayer = sphere\n";
  af_scheme_spec *sp = (af_scheme_spec *)1;
  af_spec_error err;
  BAD(af_scheme_spec_parse(NULL, &err, good, sizeof good - 1));
  BAD(af_scheme_spec_parse(&sp, &err, NULL, 5));
  ck_assert_ptr_null(sp);
  BAD(af_scheme_spec_parse(&sp, NULL, NULL, 5));
  BAD(af_scheme_spec_parse(&sp, &err, good, HUGE_N));
  ck_assert_ptr_null(sp);
  BAD(af_scheme_spec_parse(&sp, &err, "", 0));
  ck_assert_ptr_null(sp);
  BAD(af_scheme_spec_parse(&sp, &err, "speed = 1\0radial = 0\n", 21));
  ck_assert_ptr_null(sp);
  BAD(af_scheme_spec_parse(&sp, &err, "speed = 0/0\nradial = 0\n", 23));
  ck_assert_ptr_null(sp);
  char *longline = malloc(70000);
  ck_assert_ptr_nonnull(longline);
  memset(longline, 'x', 70000);
  BAD(af_scheme_spec_parse(&sp, &err, longline, 70000));
  BAD(af_scheme_spec_parse(&sp, &err, longline, 5000));
  free(longline);
  BAD(af_scheme_spec_read(NULL, &err, "x"));
  BAD(af_scheme_spec_read(&sp, &err, NULL));
  BAD(af_scheme_spec_read(&sp, NULL, "/nonexistent/spec.txt"));
  BAD(af_scheme_spec_read(&sp, &err, "/"));
  ck_assert_ptr_null(sp);
  af_scheme_spec_free(NULL);
  ck_assert_ptr_null(af_scheme_spec_row(NULL));
  ck_assert_ptr_null(af_scheme_spec_of(NULL));
  ck_assert_ptr_null(af_scheme_spec_of(af_scheme_get(AF_POST_LN)));
  ck_assert_int_eq(af_scheme_spec_layer(NULL), AF_SPEC_LAYER_NONE);
  ck_assert_uint_eq(af_scheme_spec_vars(NULL), 0);
  double v, rho, g;
  BAD(af_scheme_spec_eval(&v, &rho, &g, NULL, 0, 1, 1, 1, 1, 1));
  ck_assert_int_eq(af_scheme_spec_parse(&sp, &err, good, sizeof good - 1),
                   AF_OK);
  ck_assert_int_eq(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, 1, 1, 1, 1),
                   AF_OK);
  ck_assert(v == 1 && rho == 0);
  ck_assert_int_eq(af_scheme_spec_eval(NULL, NULL, NULL, sp, 0, 1, 1, 1, 1, 1),
                   AF_OK);
  const double bad[3] = {NaN_, INFINITY, -INFINITY};
  for (int i = 0; i < 3; i++) {
    BAD(af_scheme_spec_eval(&v, &rho, &g, sp, bad[i], 1, 1, 1, 1, 1));
    BAD(af_scheme_spec_eval(&v, &rho, &g, sp, 0, bad[i], 1, 1, 1, 1));
    BAD(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, bad[i], 1, 1, 1));
    BAD(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, 1, bad[i], 1, 1));
    BAD(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, 1, 1, bad[i], 1));
  }
  BAD(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, 1, 1, 1, NaN_));
  /* tau = +-infinity is how a row without a switch is evaluated. */
  ck_assert_int_eq(af_scheme_spec_eval(&v, &rho, &g, sp, 0, 1, 1, 1, 1,
                                       INFINITY),
                   AF_OK);
  af_model m;
  good_model(&m);
  ck_assert_int_eq(af_model_set_user_scheme(&m, af_scheme_spec_row(sp)),
                   AF_OK);
  ck_assert_ptr_eq(af_scheme_spec_of(m.user), sp);
  af_scheme_spec_free(sp);
}
END_TEST

/* af_certify: NULL result, start and options; sizes past the build's
 * limit and ones whose products wrap; every number NaN, infinite or out
 * of range; output times that lie. */
static void certify_bad(const af_certify_opts *o, const double *y)
{
  af_certify_result res;
  BAD(af_certify(&res, y, o));
  ck_assert(res.reason[0] != '\0');
  af_certify_result_free(&res);
}

START_TEST(test_certify_args)
{
  ck_assert_ptr_nonnull(af_certify_status_name((af_certify_status)-1));
  ck_assert_ptr_nonnull(af_certify_status_name((af_certify_status)99));
  ck_assert_ptr_nonnull(af_close_lemma_name((af_close_lemma)-4));
  af_certify_opts_init(NULL, AF_POST_LN, 2, 2, 1);
  af_certify_result_free(NULL);
  af_certify_opts o, b;
  af_certify_opts_init(&o, AF_POST_LN, 2, 2, 1.0);
  o.t_max = 1;
  o.max_steps = 3;
  double y[6] = {1, 0, 0, 1, 1, 1};
  af_certify_result res;
  BAD(af_certify(NULL, y, &o));
  certify_bad(NULL, y);
  certify_bad(&o, NULL);
  const size_t sizes[] = {0, 1, 161, HALF_N, HUGE_N};
  for (int i = 0; i < 5; i++) {
    b = o;
    b.n = sizes[i];
    certify_bad(&b, y);
    b = o;
    b.d = sizes[i];
    certify_bad(&b, y);
  }
  b = o;
  b.n = HALF_N;
  b.d = HALF_N; /* n d wraps to a small number */
  certify_bad(&b, y);
  b = o;
  b.scheme = (af_scheme_id)-1;
  certify_bad(&b, y);
  b.scheme = AF_SCHEME_USER;
  certify_bad(&b, y);
  b.scheme = (af_scheme_id)1000;
  certify_bad(&b, y);
  const double nonfinite[3] = {NaN_, INFINITY, -INFINITY};
  for (int i = 0; i < 3; i++) {
    double x = nonfinite[i];
    b = o;
    b.beta = x;
    certify_bad(&b, y);
    b = o;
    b.t_max = x;
    certify_bad(&b, y);
    b = o;
    b.init_radius = x;
    certify_bad(&b, y);
    b = o;
    b.max_rad = x;
    certify_bad(&b, y);
    b = o;
    b.h_fixed = x;
    certify_bad(&b, y);
    af_certify_opts_init(&b, AF_NGPT, 2, 2, 1.0);
    b.alpha = x;
    certify_bad(&b, y);
    b.alpha = 1;
    b.alpha_decay = x;
    certify_bad(&b, y);
    af_certify_opts_init(&b, AF_MIX_LN, 2, 2, 1.0);
    b.tau = x;
    certify_bad(&b, y);
    double yb[6] = {1, 0, 0, 1, 1, 1};
    yb[1] = x;
    certify_bad(&o, yb);
    af_certify_opts_init(&b, AF_PRE_LN, 2, 2, 1.0);
    yb[1] = 0;
    yb[4] = x;
    certify_bad(&b, yb);
    double q[4] = {1, 0, 0, x};
    b = o;
    b.q = q;
    certify_bad(&b, y);
    b = o;
    b.k = q;
    certify_bad(&b, y);
    double tt[2] = {0, x};
    b = o;
    b.times = tt;
    b.ntimes = 2;
    certify_bad(&b, y);
  }
  b = o;
  b.beta = -1;
  certify_bad(&b, y);
  b = o;
  b.t_max = 0;
  certify_bad(&b, y);
  b = o;
  b.t_max = 1e300;
  certify_bad(&b, y);
  const long precs[] = {0, -1, 31, 4097, 1L << 40};
  for (int i = 0; i < 5; i++) {
    b = o;
    b.prec = precs[i];
    certify_bad(&b, y);
  }
  b = o;
  b.order = 1u << 31; /* a negative int */
  certify_bad(&b, y);
  b = o;
  b.order = 100000;
  certify_bad(&b, y);
  b = o;
  b.max_rad = -1;
  certify_bad(&b, y);
  b = o;
  b.h_fixed = -1;
  certify_bad(&b, y);
  b = o;
  b.init_radius = -1;
  certify_bad(&b, y);
  b = o;
  b.ntimes = 2; /* times NULL */
  certify_bad(&b, y);
  double tt[2] = {0.5, 0.25};
  b.times = tt; /* descending */
  certify_bad(&b, y);
  tt[1] = 2; /* past t_max */
  certify_bad(&b, y);
  b.ntimes = HUGE_N; /* nballs = ntimes + 1 wraps; checked before reading */
  certify_bad(&b, y);
  double off[4] = {1, 0, 0, 0}; /* a token of norm 0 */
  certify_bad(&o, off);
  /* A valid request still runs (to its step limit or a result). */
  b = o;
  int rc = af_certify(&res, y, &b);
  ck_assert_msg(rc == AF_OK || rc == AF_EINVAL, "%s: %s", af_status_name(rc),
                res.reason);
  af_certify_result_free(&res);
}
END_TEST

/* theory.h: NULL outputs and parameters, NaN and infinite numbers, sizes
 * at the ends of size_t, tolerances outside the library's ranges. */
START_TEST(test_theory_args)
{
  const double nonfinite[3] = {NaN_, INFINITY, -INFINITY};
  const size_t sizes[] = {0, 1, HUGE_N};
  for (int i = 0; i < 3; i++) {
    ck_assert(isnan(af_t41_Z(0.5, 4, nonfinite[i])));
    ck_assert(isnan(af_t41_F(0.5, sizes[i] == HUGE_N ? 1 : sizes[i], 1)));
    ck_assert(isnan(af_t41_c(0.5, 3, -1)));
    ck_assert(isnan(af_t41_a(0.5, 0, 1)));
    ck_assert(isnan(af_t41_F_w(0.5, 3, nonfinite[i])));
    ck_assert(isnan(af_t41_G_w(0.5, 1, 1)));
    ck_assert(isnan(af_t41_c_w(0.5, 3, nonfinite[i])));
    ck_assert(isnan(af_t41_a_w(0.5, 3, nonfinite[i])));
    ck_assert(isnan(af_t41_F(nonfinite[i], 3, 1)) ||
              isinf(af_t41_F(nonfinite[i], 3, 1)));
  }
  af_t41_params_init(NULL, 3, 1, AF_POST_LN);
  ck_assert(isnan(af_t41_alpha(NULL, 0)));
  BAD(af_t41_params_validate(NULL));
  af_t41_params p, q;
  af_t41_params_init(&p, 3, 1.0, AF_POST_LN);
  ck_assert_int_eq(af_t41_params_validate(&p), AF_OK);
  af_model m;
  good_model(&m);
  BAD(af_t41_params_from_model(NULL, &m, 1));
  BAD(af_t41_params_from_model(&p, NULL, 1));
  af_model_init(&m, 3, 3, 1.0, AF_POST_LN);
  for (int i = 0; i < 3; i++) BAD(af_t41_params_from_model(&q, &m, nonfinite[i]));
  BAD(af_t41_params_from_model(&q, &m, 0));
  /* One bad field at a time. */
  for (int i = 0; i < 3; i++) {
    double x = nonfinite[i];
    q = p; q.beta = x; BAD(af_t41_params_validate(&q));
    q = p; q.r0 = x; BAD(af_t41_params_validate(&q));
    q = p; q.alpha = x; BAD(af_t41_params_validate(&q));
    q = p; q.alpha_decay = x; BAD(af_t41_params_validate(&q));
    q = p; q.tau = x; BAD(af_t41_params_validate(&q));
    q = p; q.gap0 = x; BAD(af_t41_params_validate(&q));
    q = p; q.rtol = x; BAD(af_t41_params_validate(&q));
    q = p; q.atol = x; BAD(af_t41_params_validate(&q));
  }
  q = p; q.n = 1; BAD(af_t41_params_validate(&q));
  q = p; q.n = HUGE_N; q.gap0 = 1.5; BAD(af_t41_params_validate(&q));
  q = p; q.scheme = (af_scheme_id)-1; BAD(af_t41_params_validate(&q));
  q = p; q.scheme = (af_scheme_id)77; BAD(af_t41_params_validate(&q));
  q = p; q.scheme = AF_SCHEME_USER; BAD(af_t41_params_validate(&q));
  q = p; q.var = (af_t41_var)9; BAD(af_t41_params_validate(&q));
  q = p; q.rtol = 10; BAD(af_t41_params_validate(&q));
  q = p; q.rtol = 1e-300; BAD(af_t41_params_validate(&q));
  q = p; q.atol = 1e300; BAD(af_t41_params_validate(&q));
  q = p; q.rtol = -1; BAD(af_t41_params_validate(&q));
  q = p; q.gap0 = 0; BAD(af_t41_params_validate(&q));
  q = p; q.gap0 = 2; BAD(af_t41_params_validate(&q));
  double s, rho, v;
  BAD(af_t41_rates(NULL, &rho, 0, 1, 0.5, 0, &p));
  BAD(af_t41_rates(&s, NULL, 0, 1, 0.5, 0, &p));
  BAD(af_t41_rates(&s, &rho, 0, 1, 0.5, 0, NULL));
  for (int i = 0; i < 3; i++) {
    BAD(af_t41_rates(&s, &rho, nonfinite[i], 1, 0.5, 0, &p));
    BAD(af_t41_rates(&s, &rho, 0, nonfinite[i], 0.5, 0, &p));
    BAD(af_t41_rates(&s, &rho, 0, 1, nonfinite[i], 0, &p));
  }
  BAD(af_t41_initial_velocity(NULL, &p));
  BAD(af_t41_initial_velocity(&v, NULL));
  double times[3] = {0, 1, 2}, g3[3], w3[3], r3[3];
  unsigned long steps;
  BAD(af_t41_solve(g3, w3, r3, NULL, 3, &p));
  BAD(af_t41_solve(g3, w3, r3, times, 3, NULL));
  BAD(af_t41_solve_ex(g3, w3, r3, &steps, NULL, HUGE_N, &p));
  for (int i = 0; i < 3; i++) {
    double tb[3] = {0, nonfinite[i], 2};
    BAD(af_t41_solve(g3, w3, r3, tb, 3, &p));
  }
  double tdesc[3] = {0, 2, 1}, tneg[3] = {-1, 0, 1};
  BAD(af_t41_solve(g3, w3, r3, tdesc, 3, &p));
  BAD(af_t41_solve(g3, w3, r3, tneg, 3, &p));
  ck_assert_int_eq(af_t41_solve(NULL, NULL, NULL, times, 3, &p), AF_OK);
  af_t41_terminal law;
  BAD(af_t41_terminal_law(NULL, AF_POST_LN));
  BAD(af_t41_terminal_law(&law, (af_scheme_id)-1));
  BAD(af_t41_terminal_law(&law, AF_SCHEME_USER));
  double t;
  BAD(af_t41_time_postln(NULL, 0.5, 3, 1));
  BAD(af_t41_time_postln_gap(NULL, 0.5, 3, 1));
  BAD(af_t41_preln_log_r(NULL, 0.5, 3, 1));
  BAD(af_t41_preln_log_r_gap(NULL, 0.5, 3, 1));
  BAD(af_t41_K(NULL, 3, 1));
  BAD(af_t41_K_closed(NULL, 3, 1));
  for (int i = 0; i < 3; i++) {
    double x = nonfinite[i];
    BAD(af_t41_time_postln(&t, x, 3, 1));
    BAD(af_t41_time_postln(&t, 0.5, 3, x));
    BAD(af_t41_time_postln_gap(&t, x, 3, 1));
    BAD(af_t41_preln_log_r(&t, x, 3, 1));
    BAD(af_t41_preln_log_r(&t, 0.5, 3, x));
    BAD(af_t41_preln_log_r_gap(&t, 0.5, 3, x));
    BAD(af_t41_K(&t, 3, x));
    BAD(af_t41_K_closed(&t, 3, x));
    ck_assert(isnan(af_t41_lnscaling_time(x)) || x > 0);
  }
  for (int i = 0; i < 2; i++) {
    BAD(af_t41_time_postln(&t, 0.5, sizes[i], 1));
    BAD(af_t41_K(&t, sizes[i], 1));
    BAD(af_t41_K_closed(&t, sizes[i], 1));
  }
  BAD(af_t41_time_postln(&t, 2, 3, 1));  /* gamma > 1 */
  BAD(af_t41_time_postln(&t, -1, 3, 1)); /* below -1/(n-1) */
  BAD(af_t41_time_postln_gap(&t, -0.5, 3, 1));
  BAD(af_t41_K(&t, 3, -1));
  BAD(af_t41_K(&t, 3, 1e6)); /* overflows */
  ck_assert(isnan(af_t41_lnscaling_time(-2)));
}
END_TEST

static Suite *api_hostile_suite(void)
{
  Suite *s = suite_create("api_hostile");
  TCase *tc = tcase_create("hostile");
  tcase_add_test(tc, test_strings_and_tables);
  tcase_add_test(tc, test_limits_one_source);
  tcase_add_test(tc, test_model_and_options);
  tcase_add_test(tc, test_work_and_field);
  tcase_add_test(tc, test_weights_and_init);
  tcase_add_test(tc, test_sweeps);
  tcase_add_test(tc, test_write_atomic);
  tcase_add_test(tc, test_mp_vectors);
  tcase_add_test(tc, test_kernel_choice);
  tcase_add_test(tc, test_scheme_spec);
  tcase_add_test(tc, test_npy_and_spec_keys);
  tcase_add_test(tc, test_certify_args);
  tcase_add_test(tc, test_theory_args);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(api_hostile_suite()); }
