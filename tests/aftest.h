/* aftest.h -- shared helpers of the Check unit tests.
 *
 * Comparators print one line per failure with both %.17g and %a (Check's
 * own float asserts are absolute-only).  Seeds are fixed by default and
 * overridable by AF_TEST_SEED; AF_TEST_MULTIPLIER scales loop counts;
 * expensive checks run only with AF_CHECK_EXPENSIVE=1.
 */
#ifndef AFTEST_H
#define AFTEST_H

#include <check.h>
#include <stddef.h>
#include "attnflow.h"

/* Seed for random cases: AF_TEST_SEED or the given default. */
unsigned long aft_seed(unsigned long dflt);
/* Loop count scaled by AF_TEST_MULTIPLIER (>= 1 result). */
unsigned long aft_reps(unsigned long base);
/* 1 if AF_CHECK_EXPENSIVE=1. */
int aft_expensive(void);

/* |got - want| <= atol + rtol |want|; prints a line on failure. */
int aft_close(const char *what, double got, double want, double rtol, double atol);
/* |got - want| <= ulps * ulp(want). */
int aft_ulps(const char *what, double got, double want, double ulps);

#define AFT_CLOSE(what, got, want, rtol, atol) \
  ck_assert_msg(aft_close((what), (got), (want), (rtol), (atol)), "%s not close", (what))
#define AFT_OK(expr) do { int aft_rc_ = (expr); \
  ck_assert_msg(aft_rc_ == AF_OK, "%s returned %s (%s)", #expr, af_status_name(aft_rc_), af_strerror(aft_rc_)); } while (0)
#define AFT_STATUS(expr, want) do { int aft_rc_ = (expr); \
  ck_assert_msg(aft_rc_ == (want), "%s returned %s, wanted %s", #expr, af_status_name(aft_rc_), af_status_name(want)); } while (0)

/* Random unit directions (n x d) and radii into y (layout of attnflow.h). */
void aft_random_state(double *y, size_t n, size_t d, unsigned long seed);

/* Run a suite and return the process exit status (0 = all passed). */
int aft_run(Suite *s);

#endif
