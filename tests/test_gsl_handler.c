/* test_gsl_handler.c -- the library leaves GSL's error handler as its
 * caller set it (src/core/gsl_quiet.c, src/attnflow.h "GSL's error handler").
 *
 * A host program installs a counting handler and provokes a GSL error of
 * its own (gsl_sf_log_e(-1): GSL_EDOM) before and after calls of the
 * library that use GSL internally: af_integrate (successful, stopped by
 * its step limit, and runs in several OpenMP threads at once), af_t41_solve
 * and af_t41_K_closed.  The host's handler must be the one in force after
 * each call and must be called exactly once per host error; the library's
 * own failures must come back as statuses, never reach the host's handler.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_log.h>

#include "aftest.h"
#include "theory.h"

static int host_calls;

static void host_handler(const char *reason, const char *file, int line,
                         int gsl_errno)
{
  (void) reason;
  (void) file;
  (void) line;
  (void) gsl_errno;
#ifdef _OPENMP
#pragma omp atomic
#endif
  host_calls++;
}

/* One host error through the host's own GSL call: the handler runs once. */
static void host_error_reaches_handler(void)
{
  int before = host_calls;
  gsl_sf_result r;
  int st = gsl_sf_log_e(-1.0, &r);
  ck_assert_int_eq(st, GSL_EDOM);
  ck_assert_int_eq(host_calls, before + 1);
  /* The handler in force is still the host's. */
  gsl_error_handler_t *cur = gsl_set_error_handler(host_handler);
  ck_assert_ptr_eq((void *) cur, (void *) host_handler);
}

static int run_case(unsigned long max_steps, af_scheme_id s)
{
  enum { N = 4, D = 3 };
  af_model m;
  af_model_init(&m, N, D, 1.0, s);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.max_steps = max_steps;
  af_work *w = af_work_alloc(N, D);
  ck_assert_ptr_nonnull(w);
  double y[(D + 1) * N];
  ck_assert_uint_ge(sizeof y / sizeof y[0], af_state_size(N, D));
  aft_random_state(y, N, D, aft_seed(29));
  const double times[] = {0.0, 1.0, 3.0};
  int rc = af_integrate(y, times, 3, &m, &o, w, NULL, NULL, NULL);
  af_work_free(w);
  return rc;
}

START_TEST(test_integrate_keeps_handler)
{
  host_calls = 0;
  gsl_set_error_handler(host_handler);
  host_error_reaches_handler();
  AFT_OK(run_case(0, AF_PRE_LN));
  ck_assert_int_eq(host_calls, 1); /* the run raised nothing in the host */
  host_error_reaches_handler();
  /* A run that fails inside GSL's driver (step limit): a status for the
   * caller, nothing for the host's handler, and the handler back. */
  AFT_STATUS(run_case(3, AF_POST_LN), AF_EMAXSTEPS);
  ck_assert_int_eq(host_calls, 2);
  host_error_reaches_handler();
  ck_assert_int_eq(host_calls, 3);
  gsl_set_error_handler(NULL);
}
END_TEST

START_TEST(test_threads_keep_handler)
{
  host_calls = 0;
  gsl_set_error_handler(host_handler);
  int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : bad) num_threads(4)
#endif
  for (int i = 0; i < 16; i++)
    bad += run_case(i % 2 ? 0 : 3, (af_scheme_id) (i % AF_SCHEME_COUNT))
           != (i % 2 ? AF_OK : AF_EMAXSTEPS);
  ck_assert_int_eq(bad, 0);
  ck_assert_int_eq(host_calls, 0);
  host_error_reaches_handler();
  ck_assert_int_eq(host_calls, 1);
  gsl_set_error_handler(NULL);
}
END_TEST

START_TEST(test_theory_keeps_handler)
{
  host_calls = 0;
  gsl_set_error_handler(host_handler);
  af_t41_params p;
  af_t41_params_init(&p, 6, 2.0, AF_POST_LN);
  const double times[] = {1.0, 5.0};
  double g[2];
  AFT_OK(af_t41_solve(g, NULL, NULL, times, 2, &p));
  double K;
  AFT_OK(af_t41_K_closed(&K, 6, 2.0));
  /* Ei(700) overflows in GSL: the library answers with a status. */
  AFT_STATUS(af_t41_K_closed(&K, 6, 700.0), AF_EOVERFLOW);
  ck_assert_int_eq(host_calls, 0);
  host_error_reaches_handler();
  ck_assert_int_eq(host_calls, 1);
  gsl_set_error_handler(NULL);
}
END_TEST

static Suite *handler_suite(void)
{
  Suite *s = suite_create("gsl_handler");
  TCase *tc = tcase_create("handler");
  tcase_add_test(tc, test_integrate_keeps_handler);
  tcase_add_test(tc, test_threads_keep_handler);
  tcase_add_test(tc, test_theory_keeps_handler);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return aft_run(handler_suite()); }
