/* mp_exp.c -- exp(x) correctly rounded to nearest, for the attention
 * weights of the MPFR path (theorems.md N.mpexp).
 *
 * The MPFR kernel spent about half of an evaluation in mpfr_exp (1.7 us
 * at 256 bits against 0.03 us for a multiplication, 'bench_mp exp';
 * af_mp_exp 0.55 us, docs/performance.md): mpfr_exp is written
 * for every precision and argument, while the scores here are -beta q/2,
 * negative and moderate, and the precisions at most a few hundred bits.
 * For such arguments af_mp_exp evaluates exp in fixed-point mpn
 * arithmetic with L = ceil(p/64) + 1 limbs (64 guard bits or more) by
 * table look-up (Tang's method, with several levels of tables):
 *
 *   y = -x = a + b1 2^-8 + b2 2^-16 + b3 2^-24 + b4 2^-32 + r,
 *   a = floor(y) < 1024, b_i < 256, 0 <= r < 2^-32,
 *   exp(x) = E0[a mod 32] E1[a div 32] F1[b1] F2[b2] F3[b3] F4[b4] exp(-r),
 *
 * E0[k] = exp(-k), E1[k] = exp(-32 k), F_i[k] = exp(-k 2^-8i), each
 * correctly rounded to 64 L bits by mpfr_exp once per L (a table of
 * 1088 entries, kept for the process), and exp(-r) = 1 - u_1 from the
 * Horner form of its Taylor series in fixed point,
 *
 *   u_{m+1} = 0,  u_k = (r - r u_{k+1}) / k  (k = m .. 1),
 *
 * with m the least number of terms whose tail r^(m+1)/(m+1)! is below
 * 2^-(64 L + 2).  Error, in units v = 2^-(64 L) relative: the bits of y
 * below 2^-(64 L) dropped (1 v), six table entries (1/2 v each), the
 * series (its tail 1/4 v, two truncations per term damped by r/k < 2^-32:
 * 2 v), six products truncated to L limbs after a shift of at most one
 * bit (2 v each): at most 18 v < 2^6 v.  The approximation is rounded to
 * the destination's precision only when mpfr_can_round shows that the
 * error 2^6 v cannot change the rounding (Ziv's test); otherwise, and
 * for every argument or precision outside the range above, mpfr_exp is
 * called.  Either way the result is exp(x) correctly rounded, the same
 * bits as mpfr_exp(r, x, MPFR_RNDN): the MPFR path's results do not
 * change, and tests/test_mp_exp.c compares the two bit for bit. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mp_kernel.h"

#define XL_MAX 17                 /* limbs: destination precision <= 1024 */
#define XA_MAX 1024               /* -x < XA_MAX                         */
#define XN_FRAC 4                 /* levels of 8 fractional bits         */
#define XN_ENT (32 + 32 + XN_FRAC * 256)
#define XERR_BITS 6               /* the error is below 2^6 v            */

#if GMP_NUMB_BITS != 64 || GMP_NAIL_BITS != 0
#error "mp_exp.c assumes 64-bit limbs without nails"
#endif

typedef struct {
  int L;            /* limbs of every entry                       */
  int terms;        /* m, terms of the series of exp(-r)          */
  mp_limb_t *mant;  /* XN_ENT x L limbs, most significant last    */
  long *ex;         /* exponents: entry = 0.mant 2^ex             */
} xtab;

static xtab *xcache[XL_MAX + 1];
static pthread_mutex_t xlock = PTHREAD_MUTEX_INITIALIZER;

static void xtab_free(xtab *t)
{
  if (t != NULL) {
    free(t->mant);
    free(t->ex);
    free(t);
  }
}

/* The tables at L limbs: entry k of E0 is exp(-k), of E1 exp(-32 k), of
 * F_i exp(-k 2^-8i), each mpfr_exp of an exact argument at 64 L bits. */
static xtab *xtab_build(int L)
{
  xtab *t = calloc(1, sizeof *t);
  if (t == NULL)
    return NULL;
  t->L = L;
  t->mant = malloc((size_t) XN_ENT * L * sizeof(mp_limb_t));
  t->ex = malloc((size_t) XN_ENT * sizeof(long));
  if (t->mant == NULL || t->ex == NULL) {
    xtab_free(t);
    return NULL;
  }
  mpfr_t v, a;
  mpfr_init2(v, 64 * (mpfr_prec_t) L);
  mpfr_init2(a, 64);
  for (int e = 0; e < XN_ENT; e++) {
    if (e < 32)
      mpfr_set_si(a, -e, MPFR_RNDN);
    else if (e < 64)
      mpfr_set_si(a, -32 * (e - 32), MPFR_RNDN);
    else {
      int lev = (e - 64) / 256 + 1, k = (e - 64) % 256;
      mpfr_set_si_2exp(a, -k, -8 * lev, MPFR_RNDN); /* exact */
    }
    mpfr_exp(v, a, MPFR_RNDN);
    memcpy(t->mant + (size_t) e * L, mpfr_custom_get_significand(v),
           (size_t) L * sizeof(mp_limb_t));
    t->ex[e] = (long) mpfr_get_exp(v);
  }
  mpfr_clear(v);
  mpfr_clear(a);
  /* Terms: the tail r^(m+1)/(m+1)! < 2^(-32(m+1)) / (m+1)! below
   * 2^-(64 L + 2). */
  double lg = 0; /* log2 (m+1)! */
  int m = 1;
  for (;; m++) {
    lg += __builtin_log2((double) (m + 1));
    if (32.0 * (m + 1) + lg >= 64.0 * L + 2)
      break;
  }
  t->terms = m;
  return t;
}

/* The tables at L limbs (built once, under the lock); NULL if out of
 * memory. */
static const xtab *xtab_get(int L)
{
  xtab *t = __atomic_load_n(&xcache[L], __ATOMIC_ACQUIRE);
  if (t != NULL)
    return t;
  pthread_mutex_lock(&xlock);
  t = xcache[L];
  if (t == NULL) {
    t = xtab_build(L);
    if (t != NULL)
      __atomic_store_n(&xcache[L], t, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&xlock);
  return t;
}

/* acc (L limbs, normalized, exponent *e) times table entry k: the top L
 * limbs of the product, normalized (truncated: < 2 units of its last
 * place).  prod: 2 L limbs of scratch. */
static void xmul(mp_limb_t *acc, long *e, const xtab *t, int k,
                 mp_limb_t *prod)
{
  int L = t->L;
  mpn_mul_n(prod, acc, t->mant + (size_t) k * L, L);
  long ex = *e + t->ex[k];
  if (!(prod[2 * L - 1] >> 63)) {
    mpn_lshift(prod + L - 1, prod + L - 1, L + 1, 1);
    ex -= 1;
  }
  memcpy(acc, prod + L, (size_t) L * sizeof(mp_limb_t));
  *e = ex;
}

/* The approximation of the header: exp(x) as 0.acc 2^ex, acc of L limbs
 * (the return value) with an error below 2^(ex - 64 L + XERR_BITS); 0 if
 * x or the precision p is outside the fast path (acc, ex untouched). */
static int xapprox(mp_limb_t *acc, long *ex_out, mpfr_srcptr x, mpfr_prec_t p)
{
  mpfr_prec_t px = mpfr_get_prec(x);
  if (!mpfr_regular_p(x) || mpfr_sgn(x) > 0 || p > 64 * (XL_MAX - 1)
      || mpfr_cmp_si(x, -XA_MAX) <= 0 || px > 64 * (XL_MAX + 2))
    return 0;
  int L = (int) ((p + 63) / 64) + 1;
  const xtab *t = xtab_get(L);
  if (t == NULL)
    return 0;
  /* y = -x in fixed point: Y[L] its integer part, Y[0..L-1] the bits
   * of its fraction (Y[L-1] the first 64), the rest dropped. */
  mp_limb_t B[2 * XL_MAX + 8], Y[XL_MAX + 1];
  int nx = (int) ((px + 63) / 64);
  const mp_limb_t *xm = mpfr_custom_get_significand(x);
  long E = (long) mpfr_get_exp(x); /* y = 0.xm 2^E, E <= 10 */
  long s = E - 64L * nx + 64L * L; /* y = xm 2^(s - 64 L) */
  memset(B, 0, sizeof B);
  if (s >= 0) {
    long q = s / 64;
    unsigned sh = (unsigned) (s % 64);
    if (sh)
      B[q + nx] = mpn_lshift(B + q, xm, nx, sh);
    else
      memcpy(B + q, xm, (size_t) nx * sizeof(mp_limb_t));
  } else {
    long q = (-s) / 64;
    unsigned sh = (unsigned) ((-s) % 64);
    if (q < nx) {
      if (sh)
        mpn_rshift(B, xm + q, nx - q, sh);
      else
        memcpy(B, xm + q, (size_t) (nx - q) * sizeof(mp_limb_t));
    }
  }
  memcpy(Y, B, (size_t) (L + 1) * sizeof(mp_limb_t));
  unsigned long a = Y[L]; /* < XA_MAX: -x < 1024 */
  mp_limb_t top = Y[L - 1];
  int bi[XN_FRAC];
  for (int i = 0; i < XN_FRAC; i++)
    bi[i] = (int) ((top >> (56 - 8 * i)) & 255);
  Y[L - 1] = top & 0xffffffffUL; /* r = Y[0..L-1] < 2^-32 */
  /* exp(-r) = 1 - u_1 by the Horner recurrence of the header. */
  mp_limb_t u[XL_MAX], tq[XL_MAX], prod[2 * XL_MAX];
  memset(u, 0, sizeof u);
  int rzero = mpn_zero_p(Y, L);
  if (!rzero)
    for (int k = t->terms; k >= 1; k--) {
      mpn_mul_n(prod, Y, u, L);               /* r u_{k+1}, 2 L limbs  */
      mpn_sub_n(tq, Y, prod + L, L);          /* r - r u_{k+1} >= 0    */
      mpn_divrem_1(u, 0, tq, L, (mp_limb_t) k); /* u_k                 */
    }
  long ex;
  if (rzero || mpn_zero_p(u, L)) { /* exp(-r) = 1 = 0.1 2^1 (to 2^-64L) */
    memset(acc, 0, (size_t) L * sizeof(mp_limb_t));
    acc[L - 1] = (mp_limb_t) 1 << 63;
    ex = 1;
  } else { /* 1 - u_1 in (1 - 2^-32, 1): 0.(2^64L - u) 2^0 */
    mpn_neg(acc, u, L);
    ex = 0;
  }
  if (a % 32)
    xmul(acc, &ex, t, (int) (a % 32), prod);
  if (a / 32)
    xmul(acc, &ex, t, 32 + (int) (a / 32), prod);
  for (int i = 0; i < XN_FRAC; i++)
    if (bi[i])
      xmul(acc, &ex, t, 64 + 256 * i + bi[i], prod);
  if (ex < mpfr_get_emin() || ex > mpfr_get_emax())
    return 0;
  *ex_out = ex;
  return L;
}

int af_mp_exp_approx(mpfr_ptr b, mpfr_srcptr x, mpfr_prec_t p)
{
  mp_limb_t acc[XL_MAX];
  long ex;
  int L = xapprox(acc, &ex, x, p);
  if (L == 0 || mpfr_get_prec(b) < 64 * (mpfr_prec_t) L)
    return 0;
  mpfr_t a;
  mpfr_custom_init_set(a, MPFR_REGULAR_KIND, (mpfr_exp_t) ex,
                       64 * (mpfr_prec_t) L, acc);
  mpfr_set(b, a, MPFR_RNDN); /* exact */
  return 64 * L - XERR_BITS;
}

void af_mp_exp(mpfr_ptr r, mpfr_srcptr x)
{
  mp_limb_t acc[XL_MAX];
  long ex;
  mpfr_prec_t p = mpfr_get_prec(r);
  int L = xapprox(acc, &ex, x, p);
  if (L > 0) {
    mpfr_t b;
    mpfr_custom_init_set(b, MPFR_REGULAR_KIND, (mpfr_exp_t) ex,
                         64 * (mpfr_prec_t) L, acc);
    if (mpfr_can_round(b, 64 * (mpfr_exp_t) L - XERR_BITS, MPFR_RNDN,
                       MPFR_RNDZ, p + 1)) {
      mpfr_set(r, b, MPFR_RNDN);
      return;
    }
  }
  mpfr_exp(r, x, MPFR_RNDN);
}
