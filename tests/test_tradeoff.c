/* test_tradeoff.c -- theory/tradeoff.c (theorems.md, "The trade-off over
 * the parameters"): the angle moved on the symmetric start against an
 * n-particle run, the front and dominance with ties on hand-made metrics,
 * the scalar and map sources against each other, and the errors for bad
 * input. */
#include <config.h>

#include "aftest.h"
#include "tradeoff.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cos of the angle moved = <th_j(t), th_j(0)> from an n-particle run
 * (orthonormal start, d = n, rtol 1e-12): the formula of tradeoff.c
 * applied to the run's own gamma agrees to 1e-10 (the run's accuracy). */
START_TEST(test_cos_moved_vs_run)
{
  const size_t n = 5, d = 5;
  af_model m;
  af_model_init(&m, n, d, 1.5, (af_scheme_id) _i);
  size_t line;
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  ck_assert_ptr_nonnull(y);
  AFT_OK(af_init_state(y, &line, "orthonormal", n, d, 1.0, 1));
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  double times[2] = {0, 1.5};
  AFT_OK(af_integrate(y, times, 2, &m, &o, w, NULL, NULL, NULL));
  double c = 0, g = 0, nrm;
  for (size_t j = 0; j < n; j++) {
    nrm = 0;
    for (size_t k = 0; k < d; k++)
      nrm += y[j * d + k] * y[j * d + k];
    c += y[j * d + j] / sqrt(nrm) / (double) n;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double dot = 0, ni = 0, nj = 0;
      for (size_t k = 0; k < d; k++) {
        dot += y[i * d + k] * y[j * d + k];
        ni += y[i * d + k] * y[i * d + k];
        nj += y[j * d + k] * y[j * d + k];
      }
      g += dot / sqrt(ni * nj) / (double) (n * (n - 1) / 2);
    }
  AFT_CLOSE("cos moved", af_tradeoff_cos_moved(g, n), c, 0, 1e-10);
  AFT_CLOSE("gamma 0", af_tradeoff_cos_moved(0, n), 1.0, 0, 4 * DBL_EPSILON);
  AFT_CLOSE("gamma 1", af_tradeoff_cos_moved(1, n), 1.0 / sqrt((double) n),
            0, 4 * DBL_EPSILON);
  ck_assert(isnan(af_tradeoff_cos_moved(1.5, n)));
  af_work_free(w);
  free(y);
}
END_TEST

START_TEST(test_front_by_hand)
{
  int of[4], dm[16];
  size_t near;
  /* a trade-off: nobody dominated */
  const double e1[3] = {1, 2, 3}, l1[3] = {3, 2, 1};
  AFT_OK(af_tradeoff_front(of, dm, &near, e1, l1, 3, 1e-9));
  ck_assert(of[0] && of[1] && of[2] && near == 0);
  for (int i = 0; i < 9; i++)
    ck_assert_int_eq(dm[i], 0);
  /* 1 better in both: dominates 0 */
  const double e2[2] = {1, 2}, l2[2] = {1, 2};
  AFT_OK(af_tradeoff_front(of, dm, &near, e2, l2, 2, 1e-9));
  ck_assert(!of[0] && of[1] && dm[1 * 2 + 0] && !dm[0 * 2 + 1]);
  /* equal early up to the tie, better late: dominates; exact copies: no */
  const double e3[3] = {1, 1 + 1e-12, 1}, l3[3] = {1, 2, 1};
  AFT_OK(af_tradeoff_front(of, dm, &near, e3, l3, 3, 1e-9));
  ck_assert(!of[0] && of[1] && !of[2] && dm[1 * 3 + 0] && !dm[0 * 3 + 2] &&
            !dm[2 * 3 + 0]);
  ck_assert_int_eq(near, 0);
  /* without the tie the 1e-12 lead in the early metric keeps 0 on the
   * front */
  AFT_OK(af_tradeoff_front(of, dm, &near, e3, l3, 3, 0));
  ck_assert(!of[0] && !of[2] && of[1]);
  const double e4[2] = {1, 1 + 1e-9}, l4[2] = {2, 1};
  AFT_OK(af_tradeoff_front(of, NULL, &near, e4, l4, 2, 1e-9));
  ck_assert_int_eq(near, 1); /* 1e-9 relative: in [1e-11, 1e-7] */
  const double bad[2] = {1, NAN};
  AFT_STATUS(af_tradeoff_front(of, NULL, NULL, bad, l4, 2, 1e-9), AF_EINVAL);
  AFT_STATUS(af_tradeoff_front(of, NULL, NULL, e4, l4, 7, 1e-9), AF_EINVAL);
}
END_TEST

/* The layer maps at step h converge to the scalar system (order 1):
 * at h = 2^-9 the metrics agree to 1e-2 relative, and halving h halves
 * the difference (ratio in [1.6, 2.4]). */
START_TEST(test_map_vs_scalar)
{
  af_scheme_id s = (af_scheme_id) _i;
  af_tradeoff_point pt = {4, 1.0, 2.0, 0.5, 1.0, 1.0, 4.0};
  double es, ls, e1, l1, e2, l2;
  AFT_OK(af_tradeoff_metrics(&es, &ls, s, &pt, AF_TRADEOFF_EARLY_GAMMA,
                             AF_TRADEOFF_SCALAR, 1.0));
  AFT_OK(af_tradeoff_metrics(&e1, &l1, s, &pt, AF_TRADEOFF_EARLY_GAMMA,
                             AF_TRADEOFF_MAP, ldexp(1.0, -8)));
  AFT_OK(af_tradeoff_metrics(&e2, &l2, s, &pt, AF_TRADEOFF_EARLY_GAMMA,
                             AF_TRADEOFF_MAP, ldexp(1.0, -9)));
  AFT_CLOSE("early map", e2, es, 1e-2, 0);
  AFT_CLOSE("late map", l2, ls, 1e-2, 0);
  double q = fabs(e1 - es) / fabs(e2 - es);
  ck_assert_msg(q > 1.6 && q < 2.4, "order-1 ratio %g", q);
  /* the angle metric is the angle of the gamma metric */
  double ea, la;
  AFT_OK(af_tradeoff_metrics(&ea, &la, s, &pt, AF_TRADEOFF_EARLY_ANGLE,
                             AF_TRADEOFF_SCALAR, 1.0));
  AFT_CLOSE("angle", cos(ea), af_tradeoff_cos_moved(es, 4), 1e-14, 0);
  ck_assert(la == ls);
}
END_TEST

START_TEST(test_bad_input)
{
  af_tradeoff_point pt = {4, 1.0, 1.0, 1.0, 1.0, 10.0, 10.0};
  const char *why = NULL;
  AFT_STATUS(af_tradeoff_point_check(&pt, &why), AF_EINVAL);
  ck_assert(strstr(why, "late depth") != NULL);
  pt.L = 20;
  AFT_OK(af_tradeoff_point_check(&pt, &why));
  pt.n = 1;
  AFT_STATUS(af_tradeoff_point_check(&pt, &why), AF_EINVAL);
  ck_assert(strstr(why, "n must") != NULL);
  pt.n = 4;
  double e, l;
  /* depths not whole numbers of layers of the map */
  pt.L0 = 1.5;
  AFT_STATUS(af_tradeoff_metrics(&e, &l, AF_POST_LN, &pt,
                                 AF_TRADEOFF_EARLY_GAMMA, AF_TRADEOFF_MAP, 1.0),
             AF_EINVAL);
  af_tradeoff_early m;
  AFT_STATUS(af_tradeoff_early_lookup(&m, "speed"), AF_EINVAL);
  AFT_OK(af_tradeoff_early_lookup(&m, "angle"));
  ck_assert_int_eq(m, AF_TRADEOFF_EARLY_ANGLE);
}
END_TEST

static Suite *tradeoff_suite(void)
{
  Suite *s = suite_create("tradeoff");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_cos_moved_vs_run, 0, AF_SCHEME_COUNT);
  tcase_add_test(tc, test_front_by_hand);
  tcase_add_loop_test(tc, test_map_vs_scalar, 0, AF_SCHEME_COUNT);
  tcase_add_test(tc, test_bad_input);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return aft_run(tradeoff_suite());
}
