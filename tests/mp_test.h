/* mp_test.h -- what the MPFR tests test_mp.c and test_mp_files.c share. */
#ifndef AF_MP_TEST_H
#define AF_MP_TEST_H

#include <math.h>
#include <string.h>

#define RND MPFR_RNDN

/* Bitwise equality of two doubles (NaN payloads aside, both NaN = equal). */
static inline int same_bits(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

#endif
