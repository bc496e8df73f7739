/* mp_series.h -- the recurrences of truncated power series at the
 * working precision shared by the Taylor method (mp_taylor.c) and its
 * evaluator of scheme specs (mp_taylor_spec.c): a series is L mpfr_t
 * coefficients c[0..L-1] of c(t0 + h) = sum c_k h^k, and each function
 * gives coefficient k from the operands' coefficients 0..k (and the
 * result's 0..k-1).  Library-internal. */
#ifndef AF_MP_SERIES_H
#define AF_MP_SERIES_H

#include <stddef.h>
#include <mpfr.h>

#define AF_SER_RND MPFR_RNDN


/* r = sum_{l=lo}^{k-hi} a_l b_{k-l} (recursive, from l = lo). */
static inline void conv2(mpfr_ptr r, mpfr_t *a, mpfr_t *b, size_t k, size_t lo,
                  size_t hi, mpfr_ptr tmp)
{
  mpfr_set_zero(r, 1);
  for (size_t l = lo; l + hi <= k; l++) {
    mpfr_mul(tmp, a[l], b[k - l], AF_SER_RND);
    mpfr_add(r, r, tmp, AF_SER_RND);
  }
}

/* r = sum_{l=lo}^{k} a_l b_{k-l}. */
static inline void conv(mpfr_ptr r, mpfr_t *a, mpfr_t *b, size_t k, size_t lo,
                 mpfr_ptr tmp)
{
  conv2(r, a, b, k, lo, 0, tmp);
}

/* r += sum_{l=0}^k a_l a_{k-l}, by symmetry: 2 sum_{l < k/2} + middle. */
static inline void conv_sq_add(mpfr_ptr r, mpfr_t *a, size_t k, mpfr_ptr acc,
                        mpfr_ptr tmp)
{
  mpfr_set_zero(acc, 1);
  for (size_t l = 0; 2 * l < k; l++) {
    mpfr_mul(tmp, a[l], a[k - l], AF_SER_RND);
    mpfr_add(acc, acc, tmp, AF_SER_RND);
  }
  mpfr_mul_2ui(acc, acc, 1, AF_SER_RND);
  if (k % 2 == 0) {
    mpfr_sqr(tmp, a[k / 2], AF_SER_RND);
    mpfr_add(acc, acc, tmp, AF_SER_RND);
  }
  mpfr_add(r, r, acc, AF_SER_RND);
}

/* c_k of c = a / b (c_0..c_{k-1} set): (a_k - sum_{l=1}^k b_l c_{k-l}) / b_0. */
static inline void rec_div(mpfr_t *c, mpfr_t *a, mpfr_t *b, size_t k,
                    mpfr_ptr acc, mpfr_ptr tmp)
{
  if (k == 0) {
    mpfr_div(c[0], a[0], b[0], AF_SER_RND);
    return;
  }
  conv(acc, b, c, k, 1, tmp);
  mpfr_sub(acc, a[k], acc, AF_SER_RND);
  mpfr_div(c[k], acc, b[0], AF_SER_RND);
}

/* c_k of c = sqrt(a): (a_k - sum_{l=1}^{k-1} c_l c_{k-l}) / (2 c_0). */
static inline void rec_sqrt(mpfr_t *c, mpfr_t *a, size_t k, mpfr_ptr acc,
                     mpfr_ptr tmp)
{
  if (k == 0) {
    mpfr_sqrt(c[0], a[0], AF_SER_RND);
    return;
  }
  conv2(acc, c, c, k, 1, 1, tmp);
  mpfr_sub(acc, a[k], acc, AF_SER_RND);
  mpfr_div(acc, acc, c[0], AF_SER_RND);
  mpfr_div_2ui(c[k], acc, 1, AF_SER_RND);
}

/* c_k (k >= 1) of c = exp(u), given v_l = l u_l (l >= 1) in v:
 * c_k = (1 / k) sum_{l=1}^k v_l c_{k-l}. */
static inline void rec_exp(mpfr_t *c, mpfr_t *v, size_t k, mpfr_ptr acc,
                    mpfr_ptr tmp)
{
  conv(acc, v, c, k, 1, tmp);
  mpfr_div_ui(c[k], acc, k, AF_SER_RND);
}

/* c = (1 + t)^e / a0 as a series in t - t0 (c_0 given as (1+t0)^e / a0):
 * c_k = c_{k-1} (e - k + 1) / (k (1 + t0)). */
static inline void power_series(mpfr_t *c, size_t L, mpfr_srcptr e, mpfr_srcptr t0,
                         mpfr_ptr tmp, mpfr_ptr t1)
{
  mpfr_add_ui(t1, t0, 1, AF_SER_RND);
  for (size_t k = 1; k < L; k++) {
    mpfr_sub_ui(tmp, e, k - 1, AF_SER_RND);
    mpfr_mul(tmp, tmp, c[k - 1], AF_SER_RND);
    mpfr_div_ui(tmp, tmp, k, AF_SER_RND);
    mpfr_div(c[k], tmp, t1, AF_SER_RND);
  }
}

#endif
