/* test_mp_exp.c -- unit tests of af_mp_exp (src/mp/mp_exp.c; theorems.md
 * N.mpexp): exp correctly rounded to nearest by tables and a short series
 * in fixed point, checked by Ziv's test, else mpfr_exp.
 *
 * - the same bits as mpfr_exp(r, x, MPFR_RNDN) on random arguments of
 *   every kind the kernel meets (scores -beta q/2 in (-2, 0), large
 *   negative ones up to and past -1024, tiny ones down to 2^-400,
 *   integers and short dyadic fractions, which leave r = 0 or some table
 *   index 0), positive ones (the mpfr_exp path) and special values, at
 *   destination precisions 2 .. 1100 (across every limb count and past
 *   the fast path's 1024 bits) and argument precisions below, equal to
 *   and above the destination's, also with r the argument itself;
 * - the approximation before rounding within its stated error
 *   2^(EXP(b) - err), against mpfr_exp at 1300 bits (the bound the
 *   rounding test relies on: a table entry, a series term or a product
 *   wrong by more than a few units of 2^-(64 L) fails here, even where
 *   the rounded result would still come out right), and the fast path
 *   taken wherever the header says it is;
 * - the tables built by two threads at once: the same bits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "aftest.h"
#include "mp_kernel.h"

static const mpfr_prec_t precs[] = {2,   24,  53,  63,  64,  65,  100, 113,
                                    127, 128, 129, 192, 200, 255, 256, 257,
                                    320, 384, 400, 512, 640, 960, 1000, 1023,
                                    1024, 1025, 1100};
#define NPRECS (sizeof precs / sizeof precs[0])

/* Argument i of a sequence of kinds, from the uniform u in [0, 1). */
static void make_arg(mpfr_ptr x, mpfr_srcptr u, unsigned i)
{
  switch (i % 7) {
  case 0: /* scores of the kernel: (-2, 0) */
    mpfr_mul_si(x, u, -2, MPFR_RNDN);
    break;
  case 1: /* past the table range -1024 */
    mpfr_mul_si(x, u, -1030, MPFR_RNDN);
    break;
  case 2: /* tiny: -u 2^-k, k < 400 */
    mpfr_mul_2si(x, u, -(long) (i % 400), MPFR_RNDN);
    mpfr_neg(x, x, MPFR_RNDN);
    break;
  case 3: /* integers 0 .. -1099 */
    mpfr_set_si(x, -(long) (i % 1100), MPFR_RNDN);
    break;
  case 4: /* short dyadic fractions: table indices 0, r = 0 */
    mpfr_mul_si(x, u, -20, MPFR_RNDN);
    mpfr_round(x, x);
    mpfr_div_2ui(x, x, i % 40, MPFR_RNDN);
    break;
  case 5: /* both signs: (-1, 2) */
    mpfr_mul_si(x, u, 3, MPFR_RNDN);
    mpfr_sub_ui(x, x, 1, MPFR_RNDN);
    break;
  default: /* just above -1024 */
    mpfr_mul_2si(x, u, -12, MPFR_RNDN);
    mpfr_sub_ui(x, x, 1024, MPFR_RNDN);
    mpfr_add_d(x, x, 0.5, MPFR_RNDN);
    break;
  }
}

START_TEST(test_exp_bits)
{
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, aft_seed(4217));
  unsigned long reps = aft_reps(600);
  unsigned long bad = 0, total = 0;
  for (size_t ip = 0; ip < NPRECS; ip++) {
    mpfr_prec_t p = precs[ip];
    for (int kx = 0; kx < 4; kx++) {
      mpfr_prec_t px = kx == 0 ? p : kx == 1 ? 2 * p + 3 : kx == 2 ? 53 : 1200;
      mpfr_t u, x, a, b, c;
      mpfr_init2(u, px);
      mpfr_init2(x, px);
      mpfr_inits2(p, a, b, (mpfr_ptr) 0);
      mpfr_init2(c, px);
      for (unsigned i = 0; i < reps; i++) {
        mpfr_urandomb(u, st);
        make_arg(x, u, i);
        af_mp_exp(a, x);
        mpfr_exp(b, x, MPFR_RNDN);
        total++;
        if (!mpfr_equal_p(a, b)) {
          if (bad++ < 5)
            mpfr_fprintf(stderr, "prec %ld, argument prec %ld: x = %Ra: "
                         "af_mp_exp %Ra, mpfr_exp %Ra\n", (long) p, (long) px,
                         x, a, b);
        }
        if (px == p && i % 7 == 0) { /* r aliasing x */
          mpfr_set(c, x, MPFR_RNDN);
          af_mp_exp(c, c);
          ck_assert_msg(mpfr_equal_p(c, b), "aliased: prec %ld", (long) p);
        }
      }
      mpfr_clears(u, x, a, b, c, (mpfr_ptr) 0);
    }
  }
  /* Special values and the ends of the range. */
  static const double sp[] = {0.0, -0.0, 1.0, -1.0, -1023.75, -1024.0,
                              -1024.5, 700.0, -2e-300, INFINITY, -INFINITY,
                              NAN};
  mpfr_t x, a, b;
  mpfr_init2(x, 256);
  mpfr_inits2(256, a, b, (mpfr_ptr) 0);
  for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++) {
    mpfr_set_d(x, sp[k], MPFR_RNDN);
    af_mp_exp(a, x);
    mpfr_exp(b, x, MPFR_RNDN);
    ck_assert_msg(mpfr_equal_p(a, b) || (mpfr_nan_p(a) && mpfr_nan_p(b)),
                  "x = %g", sp[k]);
    total++;
  }
  mpfr_clears(x, a, b, (mpfr_ptr) 0);
  gmp_randclear(st);
  fprintf(stderr, "af_mp_exp: %lu of %lu results differ from mpfr_exp\n",
          bad, total);
  ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_exp_error_bound)
{
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, aft_seed(977));
  unsigned long reps = aft_reps(300);
  double worst = 0; /* max |b - exp(x)| / 2^(EXP(b) - err) */
  unsigned long taken = 0, total = 0;
  mpfr_t b, ref, d;
  mpfr_init2(b, 1088);
  mpfr_init2(ref, 1300);
  mpfr_init2(d, 1300);
  for (size_t ip = 0; ip < NPRECS; ip++) {
    mpfr_prec_t p = precs[ip];
    mpfr_t u, x;
    mpfr_init2(u, p);
    mpfr_init2(x, p);
    for (unsigned i = 0; i < reps; i++) {
      mpfr_urandomb(u, st);
      make_arg(x, u, i);
      int err = af_mp_exp_approx(b, x, p);
      /* The fast path: -1024 < x < 0 and p <= 1024, nothing else. */
      int inside = mpfr_regular_p(x) && mpfr_sgn(x) < 0
                   && mpfr_cmp_si(x, -1024) > 0 && p <= 1024;
      ck_assert_msg((err > 0) == inside, "prec %ld: fast path %s", (long) p,
                    err > 0 ? "taken outside its range" : "not taken");
      total++;
      if (err <= 0)
        continue;
      taken++;
      mpfr_exp(ref, x, MPFR_RNDN);
      mpfr_sub(d, b, ref, MPFR_RNDN);
      mpfr_abs(d, d, MPFR_RNDN);
      mpfr_mul_2si(d, d, err - (long) mpfr_get_exp(b), MPFR_RNDN);
      double q = mpfr_get_d(d, MPFR_RNDU);
      if (q > worst)
        worst = q;
      ck_assert_msg(q < 1.0, "prec %ld: error %.3g of its bound", (long) p, q);
    }
    mpfr_clears(u, x, (mpfr_ptr) 0);
  }
  fprintf(stderr, "af_mp_exp_approx: fast path on %lu of %lu arguments; "
          "largest error %.3g of the bound 2^(EXP - err)\n",
          taken, total, worst);
  ck_assert_uint_gt(taken, total / 2);
  mpfr_clears(b, ref, d, (mpfr_ptr) 0);
  gmp_randclear(st);
}
END_TEST

START_TEST(test_exp_threads)
{
  /* A precision no other test uses (9 limbs of table): both threads ask
   * for its tables at once. */
  const mpfr_prec_t p = 500;
  int nbad = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(2) reduction(+ : nbad)
#endif
  {
    mpfr_t x, a, b;
    mpfr_init2(x, p);
    mpfr_inits2(p, a, b, (mpfr_ptr) 0);
    for (int i = 1; i <= 200; i++) {
      mpfr_set_si(x, -i, MPFR_RNDN);
      mpfr_div_ui(x, x, 7, MPFR_RNDN);
      af_mp_exp(a, x);
      mpfr_exp(b, x, MPFR_RNDN);
      nbad += !mpfr_equal_p(a, b);
    }
    mpfr_clears(x, a, b, (mpfr_ptr) 0);
  }
  ck_assert_int_eq(nbad, 0);
}
END_TEST

static Suite *mp_exp_suite(void)
{
  Suite *s = suite_create("mp_exp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_exp_threads);
  tcase_add_test(tc, test_exp_bits);
  tcase_add_test(tc, test_exp_error_bound);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return aft_run(mp_exp_suite());
}
