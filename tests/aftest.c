/* aftest.c -- shared helpers of the Check unit tests (see aftest.h). */
#include "aftest.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long aft_seed(unsigned long dflt)
{
  const char *s = getenv("AF_TEST_SEED");
  if (s && *s)
    return strtoul(s, NULL, 10);
  return dflt;
}

unsigned long aft_reps(unsigned long base)
{
  const char *s = getenv("AF_TEST_MULTIPLIER");
  double k = (s && *s) ? atof(s) : 1.0;
  double r = k * (double) base;
  return r < 1.0 ? 1UL : (unsigned long) r;
}

int aft_expensive(void)
{
  const char *s = getenv("AF_CHECK_EXPENSIVE");
  return s && strcmp(s, "1") == 0;
}

int aft_close(const char *what, double got, double want, double rtol, double atol)
{
  double err = fabs(got - want);
  double tol = atol + rtol * fabs(want);
  if (err <= tol && isfinite(got) == isfinite(want))
    return 1;
  fprintf(stderr,
          "FAIL %s: got %.17g (%a) want %.17g (%a) |diff| %.3g > tol %.3g (rtol %.3g atol %.3g)\n",
          what, got, got, want, want, err, tol, rtol, atol);
  return 0;
}

int aft_ulps(const char *what, double got, double want, double ulps)
{
  double u = nextafter(fabs(want), INFINITY) - fabs(want);
  return aft_close(what, got, want, 0.0, ulps * u);
}

void aft_random_state(double *y, size_t n, size_t d, unsigned long seed)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  for (size_t j = 0; j < n; j++) {
    double s = 0;
    do {
      s = 0;
      for (size_t i = 0; i < d; i++) {
        y[j * d + i] = gsl_ran_gaussian(r, 1.0);
        s += y[j * d + i] * y[j * d + i];
      }
    } while (s == 0);
    s = sqrt(s);
    for (size_t i = 0; i < d; i++)
      y[j * d + i] /= s;
    y[n * d + j] = 0.5 + gsl_rng_uniform(r);
  }
  gsl_rng_free(r);
}

int aft_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  fprintf(stderr, "seed %lu (AF_TEST_SEED overrides)\n", aft_seed(0));
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf == 0 ? 0 : 1;
}
