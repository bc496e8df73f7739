/* mp_taylor.c -- the Taylor series method mp-taylor on the MPFR path.
 *
 * Method (Jorba and Zou, "A software package for the numerical integration
 * of ODEs by means of high-order Taylor methods", Experimental Mathematics
 * 14 (2005) 99-117; Moore, Interval Analysis, 1966, ch. 11): at (t0, y0)
 * the Taylor coefficients y_[k] = y^(k)(t0)/k! of the solution are found
 * order by order from y_[k+1] = f_[k] / (k + 1), where f_[k], the k-th
 * coefficient of f(t, y(t)), is computed by automatic differentiation: the
 * field is written as a sequence of sums, products, quotients, square
 * roots and exponentials of series, each of which has a recurrence giving
 * its coefficient k from the coefficients 0..k of its operands (and 0..k-1
 * of itself):
 *   c = a b        c_k = sum_{l=0}^k a_l b_{k-l}
 *   c = a / b      c_k = (a_k - sum_{l=1}^k b_l c_{k-l}) / b_0
 *   c = sqrt(a)    c_k = (a_k - sum_{l=1}^{k-1} c_l c_{k-l}) / (2 c_0)
 *   c = exp(u)     c_k = (1/k) sum_{l=1}^k l u_l c_{k-l}
 *   c = (1+t)^e    c_k = c_{k-1} (e - k + 1) / (k (1 + t0))
 * The field is theorems.md's S0 as src/mp/mp_kernel_source.c evaluates it:
 * th_j = x_j/|x_j|; attention weights exp(beta (S_jk - m_j)) / Z_j (the
 * row maximum m_j a constant: its order-0 value); A_j = sum_k w_jk V th_k;
 * c_j = <th_j, A_j>; P_j = A_j - c_j th_j; x_j' = |x_j| P_j / s_j and
 * r_j' = rho_j with the speed factor s_j and radial rate rho_j of the
 * scheme (S0-S6).  With identity Q, K, V under softmax the pairs are
 * symmetric (mp_kernel_source.c, attention_pairs): D = th_k - th_j,
 * q = |D|^2, e = exp(-beta q / 2) once per unordered pair, and
 * P_j = Praw_j / Z_j + (R_j / 2 Z_j) th_j, c_j = 1 - R_j / (2 Z_j).
 *
 * Order and step (Jorba-Zou): order p from the digits asked (default
 * p = ceil(1.15 D) + 2 with D = -log10 tol: the cost of a step grows as p^2
 * -- the convolutions --, its length as rho tol^(1/p), and p^2 / tol^(1/p)
 * is least at p = ln(1/tol)/2 = 1.15 D); the radius of convergence is
 * estimated from the last two coefficients, rho = min_{j = p-1, p}
 * |y_[j]|^(-1/j), and the neglected tail is modelled as geometric,
 * E(h) = max(1, |y|) x^(p+1) / (1 - x) with x = h / rho.  The step is
 * the largest h with E(h) <= tol h / span (the error per unit step of
 * mp_integrate.c, never below its rounding floor), x <= 1/2, cut to end
 * exactly on the piece's end (output times, Mix-LN's tau, weight-set
 * boundaries).  E(h) is the step's error estimate; no step is rejected.
 *
 * Determinism: each order is computed in three phases (tokens, pairs or
 * rows, tokens; the first merged into the last of the order before)
 * split over OpenMP threads; every number is produced by one
 * thread from the previous phases in a fixed order of operations, so the
 * bits do not depend on the thread count.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "attnflow_mp.h"
#include "mp_kernel.h"
#include "mp_taylor.h"
#include "mp_series.h"
#include "mp_taylor_spec.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#define RND MPFR_RNDN
#define TS_SCR 3 /* scratch scalars per thread */

struct af_mp_taylor {
  size_t n, d, N, L;   /* L = p + 1 coefficients per series */
  unsigned p;
  mpfr_prec_t prec;
  int nthr;
  size_t npairs;
  /* Series, each L numbers, quantity q at [q L]. */
  mpfr_t *X;               /* state: N series                        */
  mpfr_t *N2, *NN, *TH;    /* |x_j|^2, |x_j|, th_j (n, n, n d)      */
  mpfr_t *TT, *G;          /* general: th_j M, V th_j (n d each)     */
  mpfr_t *PD, *PQ, *PE;    /* symmetric pairs: D (d), k u_k, e       */
  mpfr_t *PED;             /* their current-order e D (d)            */
  mpfr_t *SS, *EE;         /* general: scores, exponentials (n n)    */
  mpfr_t *Z, *IZ, *PR, *RAD, *PT, *P, *C, *A, *A2, *AN;
  mpfr_t *SR, *SP, *GI, *RHO; /* speed (raw, faulted), N/s, rho       */
  mpfr_t *AL, *SQ;         /* (1+t)^decay / alpha, sqrt(1 + t)       */
  mpfr_t *M, *V;           /* d x d score matrix and values           */
  mpfr_t *mrow, *amag;     /* row maxima, order-0 sum w |V th|       */
  mpfr_t *scr;             /* nthr x TS_SCR                          */
  mpfr_t beta, hb;         /* beta, -beta/2                          */
  int *bad;                /* per token: order-0 status              */
  af_tay_spec *spec;       /* a spec'd scheme's rates (mp_taylor_spec.c) */
  /* Heads 1 .. Hcap - 1 of a model with several (head 0 uses the arrays
   * above): M, V, TT, G, SS, EE, Z, IZ, PR, mrow, amag of each, at the
   * strides of head 0's. */
  size_t Hcap;
  mpfr_t *xM, *xV, *xTT, *xG, *xSS, *xEE, *xZ, *xIZ, *xPR, *xmrow, *xamag;
};

/* Head h's arrays (head 0: the arrays of one head). */
typedef struct {
  mpfr_t *M, *V, *TT, *G, *SS, *EE, *Z, *IZ, *PR, *mrow, *amag;
} tay_head;

static void head_of(tay_head *hd, const af_mp_taylor *tc, size_t h)
{
  size_t n = tc->n, d = tc->d, L = tc->L, nd = n * d;
  if (h == 0) {
    *hd = (tay_head){tc->M, tc->V, tc->TT, tc->G, tc->SS, tc->EE, tc->Z,
                     tc->IZ, tc->PR, tc->mrow, tc->amag};
    return;
  }
  h--;
  *hd = (tay_head){tc->xM + h * d * d, tc->xV + h * d * d,
                   tc->xTT + h * nd * L, tc->xG + h * nd * L,
                   tc->xSS + h * n * n * L, tc->xEE + h * n * n * L,
                   tc->xZ + h * n * L, tc->xIZ + h * n * L,
                   tc->xPR + h * nd * L, tc->xmrow + h * n, tc->xamag + h * n};
}

/* Free the arrays of heads 1 .. Hcap - 1. */
static void free_heads(af_mp_taylor *tc)
{
  size_t n = tc->n, d = tc->d, L = tc->L, nd = n * d, x = tc->Hcap - 1;
  if (tc->Hcap < 2)
    return;
  af_mp_vec_free(tc->xM, tc->xM ? x * d * d : 0);
  af_mp_vec_free(tc->xV, tc->xV ? x * d * d : 0);
  af_mp_vec_free(tc->xTT, tc->xTT ? x * nd * L : 0);
  af_mp_vec_free(tc->xG, tc->xG ? x * nd * L : 0);
  af_mp_vec_free(tc->xSS, tc->xSS ? x * n * n * L : 0);
  af_mp_vec_free(tc->xEE, tc->xEE ? x * n * n * L : 0);
  af_mp_vec_free(tc->xZ, tc->xZ ? x * n * L : 0);
  af_mp_vec_free(tc->xIZ, tc->xIZ ? x * n * L : 0);
  af_mp_vec_free(tc->xPR, tc->xPR ? x * nd * L : 0);
  af_mp_vec_free(tc->xmrow, tc->xmrow ? x * n : 0);
  af_mp_vec_free(tc->xamag, tc->xamag ? x * n : 0);
  tc->xM = tc->xV = tc->xTT = tc->xG = tc->xSS = tc->xEE = NULL;
  tc->xZ = tc->xIZ = tc->xPR = tc->xmrow = tc->xamag = NULL;
  tc->Hcap = 1;
}

static void vfree(mpfr_t *v, size_t len) { af_mp_vec_free(v, len); }

void af_mp_taylor_free(af_mp_taylor *tc)
{
  if (tc == NULL)
    return;
  size_t n = tc->n, d = tc->d, L = tc->L, nd = n * d, np = tc->npairs;
  vfree(tc->X, tc->N * L);
  vfree(tc->N2, n * L);
  vfree(tc->NN, n * L);
  vfree(tc->TH, nd * L);
  vfree(tc->TT, tc->TT ? nd * L : 0);
  vfree(tc->G, tc->G ? nd * L : 0);
  vfree(tc->PD, tc->PD ? np * d * L : 0);
  vfree(tc->PQ, tc->PQ ? np * L : 0);
  vfree(tc->PE, tc->PE ? np * L : 0);
  vfree(tc->PED, tc->PED ? np * d : 0);
  vfree(tc->SS, tc->SS ? n * n * L : 0);
  vfree(tc->EE, tc->EE ? n * n * L : 0);
  vfree(tc->Z, n * L);
  vfree(tc->IZ, n * L);
  vfree(tc->PR, nd * L);
  vfree(tc->RAD, n * L);
  vfree(tc->PT, nd * L);
  vfree(tc->P, nd * L);
  vfree(tc->C, n * L);
  vfree(tc->A, nd * L);
  vfree(tc->A2, n * L);
  vfree(tc->AN, n * L);
  vfree(tc->SR, n * L);
  vfree(tc->SP, n * L);
  vfree(tc->GI, n * L);
  vfree(tc->RHO, n * L);
  vfree(tc->AL, L);
  vfree(tc->SQ, L);
  vfree(tc->M, d * d);
  vfree(tc->V, d * d);
  vfree(tc->mrow, n);
  vfree(tc->amag, n);
  vfree(tc->scr, (size_t) tc->nthr * TS_SCR);
  af_tay_spec_free(tc->spec);
  free_heads(tc);
  if (tc->bad != NULL) {
    mpfr_clears(tc->beta, tc->hb, (mpfr_ptr) 0);
    free(tc->bad);
  }
  free(tc);
}

af_mp_taylor *af_mp_taylor_alloc(size_t n, size_t d, unsigned p,
                                 mpfr_prec_t prec, int nthr)
{
  size_t L = (size_t) p + 1, nd, nn, np, tmp;
  if (n < 1 || d < 1 || p < 2 || nthr < 1 || !af_size_mul(&nd, n, d)
      || !af_size_mul(&nn, n, n) || !af_size_mul(&tmp, nn, L)
      || !af_size_mul(&tmp, nd + n, L))
    return NULL;
  np = n * (n - 1) / 2;
  af_mp_taylor *tc = calloc(1, sizeof *tc);
  if (tc == NULL)
    return NULL;
  tc->n = n;
  tc->d = d;
  tc->N = nd + n;
  tc->L = L;
  tc->p = p;
  tc->prec = prec;
  tc->nthr = nthr;
  tc->npairs = np;
  tc->Hcap = 1;
  tc->bad = calloc(n, sizeof *tc->bad);
  if (tc->bad == NULL) {
    free(tc);
    return NULL;
  }
  mpfr_inits2(prec, tc->beta, tc->hb, (mpfr_ptr) 0);
  /* The general kernel's and the symmetric pairs' series are allocated
   * on first use (af_mp_taylor_step): one of the two is needed. */
  tc->X = af_mp_vec_alloc(tc->N * L, prec);
  tc->N2 = af_mp_vec_alloc(n * L, prec);
  tc->NN = af_mp_vec_alloc(n * L, prec);
  tc->TH = af_mp_vec_alloc(nd * L, prec);
  tc->Z = af_mp_vec_alloc(n * L, prec);
  tc->IZ = af_mp_vec_alloc(n * L, prec);
  tc->PR = af_mp_vec_alloc(nd * L, prec);
  tc->RAD = af_mp_vec_alloc(n * L, prec);
  tc->PT = af_mp_vec_alloc(nd * L, prec);
  tc->P = af_mp_vec_alloc(nd * L, prec);
  tc->C = af_mp_vec_alloc(n * L, prec);
  tc->A = af_mp_vec_alloc(nd * L, prec);
  tc->A2 = af_mp_vec_alloc(n * L, prec);
  tc->AN = af_mp_vec_alloc(n * L, prec);
  tc->SR = af_mp_vec_alloc(n * L, prec);
  tc->SP = af_mp_vec_alloc(n * L, prec);
  tc->GI = af_mp_vec_alloc(n * L, prec);
  tc->RHO = af_mp_vec_alloc(n * L, prec);
  tc->AL = af_mp_vec_alloc(L, prec);
  tc->SQ = af_mp_vec_alloc(L, prec);
  tc->M = af_mp_vec_alloc(d * d, prec);
  tc->V = af_mp_vec_alloc(d * d, prec);
  tc->mrow = af_mp_vec_alloc(n, prec);
  tc->amag = af_mp_vec_alloc(n, prec);
  tc->scr = af_mp_vec_alloc((size_t) nthr * TS_SCR, prec);
  if (!tc->X || !tc->N2 || !tc->NN || !tc->TH || !tc->Z || !tc->IZ
      || !tc->PR || !tc->RAD || !tc->PT || !tc->P || !tc->C
      || !tc->A || !tc->A2 || !tc->AN || !tc->SR || !tc->SP || !tc->GI
      || !tc->RHO || !tc->AL || !tc->SQ || !tc->M || !tc->V || !tc->mrow
      || !tc->amag || !tc->scr) {
    af_mp_taylor_free(tc);
    return NULL;
  }
  return tc;
}

unsigned af_mp_taylor_default_order(double tol)
{
  double digits = -log10(tol);
  double p = ceil(1.15 * digits) + 2;
  if (p < 8)
    p = 8;
  if (p > AF_MP_TAYLOR_MAX)
    p = AF_MP_TAYLOR_MAX;
  return (unsigned) p;
}

/* ---------------------------------------------------------- phases */

typedef struct {
  const af_model *m;
  af_scheme_id scheme;  /* Mix-LN resolved to its piece's scheme */
  int sym;              /* symmetric pairs (identity, softmax)    */
  int ident;            /* M = I (scores th_j . th_k)             */
  int hasv;             /* values V th_k (else th_k)              */
  int needs_a;          /* the scheme uses |A_j|                  */
  int needs_anorm;      /* attention_vanishes check               */
  mpfr_srcptr t0;
  const af_scheme_spec *spec; /* a spec'd scheme (rates from tc->spec) */
  size_t H;             /* heads, summed (general kernel when H > 1) */
} tay_case;

/* Phase 1, token j at order k: |x_j|^2, |x_j|, th_j (and th_j M, V th_j). */
static void phase_tokens(af_mp_taylor *tc, const tay_case *cs, size_t j,
                         size_t k, mpfr_t *sc)
{
  size_t d = tc->d, L = tc->L, N0 = tc->n * d;
  mpfr_ptr acc = sc[0], tmp = sc[1], acc2 = sc[2];
  mpfr_t *n2 = tc->N2 + j * L, *nn = tc->NN + j * L;
  mpfr_set_zero(n2[k], 1);
  for (size_t i = 0; i < d; i++)
    conv_sq_add(n2[k], tc->X + (j * d + i) * L, k, acc2, tmp);
  rec_sqrt(nn, n2, k, acc, tmp);
  for (size_t i = 0; i < d; i++)
    rec_div(tc->TH + (j * d + i) * L, tc->X + (j * d + i) * L, nn, k, acc,
            tmp);
  if (k == 0 && (!mpfr_number_p(nn[0]) || !mpfr_number_p(tc->X[(N0 + j) * L])))
    tc->bad[j] = AF_ENONFINITE;
  else if (k == 0 && mpfr_zero_p(nn[0]))
    tc->bad[j] = AF_EZERONORM;
  for (size_t h = 0; h < cs->H; h++) {
    tay_head hd;
    head_of(&hd, tc, h);
    if (!cs->ident)
      for (size_t b = 0; b < d; b++) {
        mpfr_ptr r = hd.TT[(j * d + b) * L + k];
        mpfr_set_zero(r, 1);
        for (size_t a = 0; a < d; a++) {
          mpfr_mul(tmp, tc->TH[(j * d + a) * L + k], hd.M[a * d + b], RND);
          mpfr_add(r, r, tmp, RND);
        }
      }
    if (cs->hasv) {
      for (size_t a = 0; a < d; a++) {
        mpfr_ptr r = hd.G[(j * d + a) * L + k];
        mpfr_set_zero(r, 1);
        for (size_t b = 0; b < d; b++) {
          mpfr_mul(tmp, hd.V[a * d + b], tc->TH[(j * d + b) * L + k], RND);
          mpfr_add(r, r, tmp, RND);
        }
      }
    }
  }
}

/* Phase 2 (symmetric), the pair (j, l), l < j, index pi: D = th_l - th_j,
 * q = |D|^2, e = exp(u) with u = -beta q / 2, kept as v_k = k u_k (the
 * exponential's recurrence), and e D at order k. */
static void phase_pair(af_mp_taylor *tc, size_t pi, size_t j, size_t l,
                       size_t k, mpfr_t *sc)
{
  size_t d = tc->d, L = tc->L;
  mpfr_ptr acc = sc[0], tmp = sc[1], acc2 = sc[2];
  mpfr_t *D = tc->PD + pi * d * L, *q = tc->PQ + pi * L, *e = tc->PE + pi * L;
  for (size_t i = 0; i < d; i++)
    mpfr_sub(D[i * L + k], tc->TH[(l * d + i) * L + k],
             tc->TH[(j * d + i) * L + k], RND);
  mpfr_set_zero(q[k], 1);
  for (size_t i = 0; i < d; i++)
    conv_sq_add(q[k], D + i * L, k, acc2, tmp);
  mpfr_mul(q[k], q[k], tc->hb, RND);
  if (k == 0)
    mpfr_exp(e[0], q[0], RND);
  else {
    mpfr_mul_ui(q[k], q[k], k, RND);
    rec_exp(e, q, k, acc, tmp);
  }
  for (size_t i = 0; i < d; i++)
    conv(tc->PED[pi * d + i], e, D + i * L, k, 0, tmp);
}

/* Phase 2 (general), row j at order k: scores S_jl = <th_j M, th_l>,
 * E_jl = exp(beta (S_jl - m_j)), Z_j (softmax, causal) and the row sums
 * sum_l E_jl G_l into PR (G = V th, or th). */
static void phase_row_head(af_mp_taylor *tc, const tay_case *cs,
                           const tay_head *hd, size_t j, size_t k, mpfr_t *sc)
{
  size_t n = tc->n, d = tc->d, L = tc->L;
  mpfr_ptr acc = sc[0], tmp = sc[1], acc2 = sc[2];
  int causal = cs->m->attn == AF_ATTN_CAUSAL;
  size_t lend = causal ? j + 1 : n;
  mpfr_t *Tj = (cs->ident ? tc->TH : hd->TT) + j * d * L;
  mpfr_t *Gb = cs->hasv ? hd->G : tc->TH;
  for (size_t l = 0; l < lend; l++) {
    mpfr_t *s = hd->SS + (j * n + l) * L;
    mpfr_set_zero(s[k], 1);
    for (size_t i = 0; i < d; i++) {
      conv(acc, Tj + i * L, tc->TH + (l * d + i) * L, k, 0, tmp);
      mpfr_add(s[k], s[k], acc, RND);
    }
    if (k > 0) { /* v_k = k beta S_k for the exponential */
      mpfr_mul(s[k], s[k], tc->beta, RND);
      mpfr_mul_ui(s[k], s[k], k, RND);
    }
  }
  if (k == 0) {
    mpfr_set(hd->mrow[j], hd->SS[(j * n) * L], RND);
    for (size_t l = 1; l < lend; l++)
      if (mpfr_cmp(hd->SS[(j * n + l) * L], hd->mrow[j]) > 0)
        mpfr_set(hd->mrow[j], hd->SS[(j * n + l) * L], RND);
    if (!mpfr_number_p(hd->mrow[j]))
      tc->bad[j] = AF_ENONFINITE;
  }
  mpfr_t *z = hd->Z + j * L;
  mpfr_set_zero(z[k], 1);
  for (size_t i = 0; i < d; i++)
    mpfr_set_zero(hd->PR[(j * d + i) * L + k], 1);
  if (k == 0)
    mpfr_set_zero(hd->amag[j], 1);
  for (size_t l = 0; l < lend; l++) {
    mpfr_t *s = hd->SS + (j * n + l) * L, *e = hd->EE + (j * n + l) * L;
    if (k == 0) {
      mpfr_sub(tmp, s[0], hd->mrow[j], RND);
      mpfr_mul(tmp, tmp, tc->beta, RND);
      mpfr_exp(e[0], tmp, RND);
    } else
      rec_exp(e, s, k, acc, tmp);
    mpfr_add(z[k], z[k], e[k], RND);
    for (size_t i = 0; i < d; i++) {
      conv(acc2, e, Gb + (l * d + i) * L, k, 0, tmp);
      mpfr_add(hd->PR[(j * d + i) * L + k], hd->PR[(j * d + i) * L + k], acc2,
               RND);
    }
    if (k == 0) { /* amag: sum_l E_jl |G_l| (|th_l| = 1 without V) */
      if (cs->hasv) {
        mpfr_set_zero(acc, 1);
        for (size_t i = 0; i < d; i++) {
          mpfr_sqr(tmp, Gb[(l * d + i) * L], RND);
          mpfr_add(acc, acc, tmp, RND);
        }
        mpfr_sqrt(acc, acc, RND);
        mpfr_mul(acc, acc, e[0], RND);
      } else
        mpfr_set(acc, e[0], RND);
      mpfr_add(hd->amag[j], hd->amag[j], acc, RND);
    }
  }
  if (cs->m->attn == AF_ATTN_USA) {
    /* w_jl = exp(beta S_jl) / n = E_jl / (n exp(-beta m_j)): a constant. */
    if (k == 0) {
      mpfr_mul(tmp, tc->beta, hd->mrow[j], RND);
      mpfr_neg(tmp, tmp, RND);
      mpfr_exp(tmp, tmp, RND);
      if (mpfr_zero_p(tmp) || !mpfr_number_p(tmp))
        tc->bad[j] = AF_EOVERFLOW;
      mpfr_mul_ui(z[0], tmp, n, RND);
    } else
      mpfr_set_zero(z[k], 1);
  }
}

/* Phase 2 (general kernel), row j at order k: every head's scores,
 * exponentials, Z and raw sums, in head order. */
static void phase_row(af_mp_taylor *tc, const tay_case *cs, size_t j,
                      size_t k, mpfr_t *sc)
{
  for (size_t h = 0; h < cs->H; h++) {
    tay_head hd;
    head_of(&hd, tc, h);
    phase_row_head(tc, cs, &hd, j, k, sc);
  }
}

/* Phase 3, token j at order k: the attention outputs, the scheme's rates
 * and the next coefficient of the state. */
static void phase_field(af_mp_taylor *tc, const tay_case *cs, size_t j,
                        size_t k, mpfr_t *sc)
{
  size_t n = tc->n, d = tc->d, L = tc->L, N0 = n * d;
  mpfr_ptr acc = sc[0], tmp = sc[1], acc2 = sc[2];
  mpfr_t *z = tc->Z + j * L, *iz = tc->IZ + j * L, *c = tc->C + j * L;
  mpfr_t *th = tc->TH + j * d * L, *P = tc->P + j * d * L;
  mpfr_t *A = tc->A + j * d * L, *PR = tc->PR + j * d * L;
  if (cs->sym) {
    /* Z_j = 1 + sum e, Praw_j = sum +-e D, pairs in order. */
    mpfr_set_ui(z[k], k == 0, RND);
    for (size_t i = 0; i < d; i++)
      mpfr_set_zero(PR[i * L + k], 1);
    for (size_t l = 0; l < n; l++) {
      if (l == j)
        continue;
      size_t pi = j > l ? j * (j - 1) / 2 + l : l * (l - 1) / 2 + j;
      mpfr_add(z[k], z[k], tc->PE[pi * L + k], RND);
      for (size_t i = 0; i < d; i++)
        if (j > l)
          mpfr_add(PR[i * L + k], PR[i * L + k], tc->PED[pi * d + i], RND);
        else
          mpfr_sub(PR[i * L + k], PR[i * L + k], tc->PED[pi * d + i], RND);
    }
  }
  /* iz = 1 / Z, for every head. */
  for (size_t h = 0; h < cs->H; h++) {
    tay_head hd;
    head_of(&hd, tc, h);
    mpfr_t *zh = hd.Z + j * L, *izh = hd.IZ + j * L;
    if (k == 0)
      mpfr_ui_div(izh[0], 1, zh[0], RND);
    else {
      conv(acc, zh, izh, k, 1, tmp);
      mpfr_mul(acc, acc, izh[0], RND);
      mpfr_neg(izh[k], acc, RND);
    }
  }
  if (cs->sym) {
    /* PT = Praw / Z; radial = sum_l w_jl |D_jl|^2 / 2 = 1 - <th_j, A_j>
     * = -<th_j, PT_j> (|th_j| = 1, A_j = th_j + PT_j): per token, where
     * mp_kernel_source.c sums e q over the pairs. */
    mpfr_t *rad = tc->RAD + j * L, *pt0 = tc->PT + j * d * L;
    mpfr_set_zero(rad[k], 1);
    for (size_t i = 0; i < d; i++) {
      conv(pt0[i * L + k], PR + i * L, iz, k, 0, tmp);
      conv(acc, th + i * L, pt0 + i * L, k, 0, tmp);
      mpfr_sub(rad[k], rad[k], acc, RND);
    }
    for (size_t i = 0; i < d; i++) {
      mpfr_t *pt = pt0 + i * L;
      conv(acc, rad, th + i * L, k, 0, tmp);
      mpfr_add(P[i * L + k], pt[k], acc, RND);
      mpfr_add(A[i * L + k], th[i * L + k], pt[k], RND);
    }
    mpfr_ui_sub(tmp, k == 0, rad[k], RND);
    mpfr_set(c[k], tmp, RND);
    if (k == 0)
      mpfr_set_ui(tc->amag[j], 1, RND);
  } else {
    for (size_t i = 0; i < d; i++)
      conv(A[i * L + k], PR + i * L, iz, k, 0, tmp);
    for (size_t h = 1; h < cs->H; h++) { /* the heads' sum, in head order */
      tay_head hd;
      head_of(&hd, tc, h);
      for (size_t i = 0; i < d; i++) {
        conv(acc, hd.PR + (j * d + i) * L, hd.IZ + j * L, k, 0, tmp);
        mpfr_add(A[i * L + k], A[i * L + k], acc, RND);
      }
    }
    mpfr_set_zero(c[k], 1);
    for (size_t i = 0; i < d; i++) {
      conv(acc, th + i * L, A + i * L, k, 0, tmp);
      mpfr_add(c[k], c[k], acc, RND);
    }
    for (size_t i = 0; i < d; i++) {
      conv(acc, c, th + i * L, k, 0, tmp);
      mpfr_sub(P[i * L + k], A[i * L + k], acc, RND);
    }
    if (k == 0) {
      mpfr_mul(tc->amag[j], tc->amag[j], iz[0], RND);
      for (size_t h = 1; h < cs->H; h++) {
        tay_head hd;
        head_of(&hd, tc, h);
        mpfr_mul(tmp, hd.amag[j], hd.IZ[j * L], RND);
        mpfr_add(tc->amag[j], tc->amag[j], tmp, RND);
      }
    }
  }
  mpfr_t *an = tc->AN + j * L;
  if (cs->needs_a) {
    mpfr_t *a2 = tc->A2 + j * L;
    mpfr_set_zero(a2[k], 1);
    for (size_t i = 0; i < d; i++)
      conv_sq_add(a2[k], A + i * L, k, acc2, tmp);
    rec_sqrt(an, a2, k, acc, tmp);
    if (k == 0 && cs->needs_anorm) {
      /* attention_vanishes: |A_j| <= n eps amag_j (mp_kernel_source.c). */
      mpfr_set_ui(tmp, n, RND);
      mpfr_mul_2si(tmp, tmp, 1 - (long) tc->prec, RND);
      mpfr_mul(tmp, tmp, tc->amag[j], RND);
      if (mpfr_cmp(an[0], tmp) <= 0 && !tc->bad[j])
        tc->bad[j] = AF_EZEROATTN;
    }
  }
  /* Speed factor s (SR, then SP with the fault) and rate rho. */
  mpfr_t *sr = tc->SR + j * L, *sp = tc->SP + j * L, *rho = tc->RHO + j * L;
  mpfr_t *rr = tc->X + (N0 + j) * L;
  if (cs->spec)
    af_tay_spec_coef(tc->spec, j, k, rr, c, an, sr[k], rho[k], acc, tmp);
  else
  switch (cs->scheme) {
  case AF_PRE_LN:
    mpfr_set(sr[k], rr[k], RND);
    mpfr_set(rho[k], c[k], RND);
    break;
  case AF_PERI_LN:
    conv(sr[k], rr, an, k, 0, tmp);
    rec_div(rho, c, an, k, acc, tmp);
    break;
  case AF_NGPT:
    conv(sr[k], an, tc->AL, k, 0, tmp);
    mpfr_set_zero(rho[k], 1);
    break;
  case AF_LN_SCALING:
    mpfr_set(sr[k], tc->SQ[k], RND);
    mpfr_set_zero(rho[k], 1);
    break;
  case AF_POST_LN:
  default:
    mpfr_set_ui(sr[k], k == 0, RND);
    mpfr_set_zero(rho[k], 1);
    break;
  }
  if (cs->m->fault & AF_FAULT_SPEED) { /* s (1 + t/20) */
    mpfr_div_ui(tmp, cs->t0, 20, RND);
    mpfr_add_ui(tmp, tmp, 1, RND);
    mpfr_mul(sp[k], sr[k], tmp, RND);
    if (k > 0) {
      mpfr_div_ui(tmp, sr[k - 1], 20, RND);
      mpfr_add(sp[k], sp[k], tmp, RND);
    }
  } else
    mpfr_set(sp[k], sr[k], RND);
  if (cs->m->fault & AF_FAULT_RADIAL) { /* rho 1.1 */
    mpfr_mul_ui(rho[k], rho[k], 11, RND);
    mpfr_div_ui(rho[k], rho[k], 10, RND);
  }
  if (k == 0 && !tc->bad[j]) {
    if (!mpfr_number_p(sp[0]) || !mpfr_number_p(rho[0]))
      tc->bad[j] = AF_ENONFINITE;
    else if (!(mpfr_sgn(sp[0]) > 0))
      tc->bad[j] = AF_ESPEED;
  }
  /* g = |x_j| / s; x_j' = g P_j, r_j' = rho_j. */
  mpfr_t *g = tc->GI + j * L;
  rec_div(g, tc->NN + j * L, sp, k, acc, tmp);
  for (size_t i = 0; i < d; i++) {
    conv(acc, P + i * L, g, k, 0, tmp);
    mpfr_div_ui(tc->X[(j * d + i) * L + k + 1], acc, k + 1, RND);
  }
  mpfr_div_ui(rr[k + 1], rho[k], k + 1, RND);
}

/* ---------------------------------------------------------- one step */

/* Allocate the symmetric pairs' or the general kernel's series. */
static int ensure_arrays(af_mp_taylor *tc, const tay_case *cs)
{
  size_t n = tc->n, d = tc->d, L = tc->L, np = tc->npairs, nd = n * d;
  mpfr_prec_t prec = tc->prec;
  if (cs->sym && tc->PD == NULL) {
    size_t bytes;
    if (!af_size_mul(&bytes, np * (d + 2), L * sizeof(mpfr_t)))
      return AF_ENOMEM;
    tc->PD = af_mp_vec_alloc(np * d * L, prec);
    tc->PQ = af_mp_vec_alloc(np * L, prec);
    tc->PE = af_mp_vec_alloc(np * L, prec);
    tc->PED = af_mp_vec_alloc(np * d, prec);
    if (!tc->PD || !tc->PQ || !tc->PE || !tc->PED)
      return AF_ENOMEM;
  }
  if (!cs->sym && tc->SS == NULL) {
    tc->SS = af_mp_vec_alloc(n * n * L, prec);
    tc->EE = af_mp_vec_alloc(n * n * L, prec);
    tc->TT = af_mp_vec_alloc(nd * L, prec);
    tc->G = af_mp_vec_alloc(nd * L, prec);
    if (!tc->SS || !tc->EE || !tc->TT || !tc->G)
      return AF_ENOMEM;
  }
  return AF_OK;
}

/* The arrays of heads 1 .. H - 1 (at least H heads). */
static int ensure_heads(af_mp_taylor *tc, size_t H)
{
  size_t n = tc->n, d = tc->d, L = tc->L, nd = n * d, x = H - 1, bytes;
  mpfr_prec_t prec = tc->prec;
  if (H <= tc->Hcap)
    return AF_OK;
  free_heads(tc);
  if (!af_size_mul(&bytes, x, (2 * n * n + 3 * nd + 2 * n) * L + 2 * d * d + 2 * n)
      || !af_size_mul(&bytes, bytes, sizeof(mpfr_t)))
    return AF_ENOMEM;
  tc->Hcap = H;
  tc->xM = af_mp_vec_alloc(x * d * d, prec);
  tc->xV = af_mp_vec_alloc(x * d * d, prec);
  tc->xTT = af_mp_vec_alloc(x * nd * L, prec);
  tc->xG = af_mp_vec_alloc(x * nd * L, prec);
  tc->xSS = af_mp_vec_alloc(x * n * n * L, prec);
  tc->xEE = af_mp_vec_alloc(x * n * n * L, prec);
  tc->xZ = af_mp_vec_alloc(x * n * L, prec);
  tc->xIZ = af_mp_vec_alloc(x * n * L, prec);
  tc->xPR = af_mp_vec_alloc(x * nd * L, prec);
  tc->xmrow = af_mp_vec_alloc(x * n, prec);
  tc->xamag = af_mp_vec_alloc(x * n, prec);
  if (!tc->xM || !tc->xV || !tc->xTT || !tc->xG || !tc->xSS || !tc->xEE
      || !tc->xZ || !tc->xIZ || !tc->xPR || !tc->xmrow || !tc->xamag) {
    free_heads(tc);
    return AF_ENOMEM;
  }
  return AF_OK;
}

/* The weights of the piece, the exact parameters and the scheme. */
/* One head's score matrix M = Q^T K from the doubles (fill_m; Q or K
 * NULL: the other alone; both NULL: the identity, for a head among
 * several) and its values Vm = V (fill_v; V NULL: the identity). */
static void set_head(mpfr_t *M, mpfr_t *Vm, const double *Q, const double *K,
                     const double *V, size_t d, mpfr_ptr tmp, int fill_m,
                     int fill_v)
{
  if (fill_m)
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++) {
        mpfr_ptr r = M[a * d + b];
        if (Q == NULL && K == NULL)
          mpfr_set_ui(r, a == b, RND);
        else if (Q == NULL)
          mpfr_set_d(r, K[a * d + b], RND);
        else if (K == NULL)
          mpfr_set_d(r, Q[b * d + a], RND);
        else {
          mpfr_set_zero(r, 1);
          for (size_t k = 0; k < d; k++) {
            mpfr_set_d(tmp, Q[k * d + a], RND);
            mpfr_mul_d(tmp, tmp, K[k * d + b], RND);
            mpfr_add(r, r, tmp, RND);
          }
        }
      }
  if (fill_v)
    for (size_t i = 0; i < d * d; i++) {
      if (V == NULL)
        mpfr_set_ui(Vm[i], i / d == i % d, RND);
      else
        mpfr_set_d(Vm[i], V[i], RND);
    }
}

static int setup_case(af_mp_taylor *tc, tay_case *cs, const af_model *m,
                      const af_mp_params *par, mpfr_srcptr t0, double lo,
                      double hi)
{
  size_t d = tc->d;
  const af_scheme_spec *spec =
    m->scheme == AF_SCHEME_USER ? af_scheme_spec_of(m->user) : NULL;
  const af_scheme *sc = spec ? m->user : af_scheme_get(m->scheme);
  if (sc == NULL || (spec && af_tay_spec_refusal(spec) != NULL))
    return AF_EINVAL; /* a callback row, or a spec mp-taylor refuses */
  memset(cs, 0, sizeof *cs);
  cs->spec = spec;
  cs->m = m;
  cs->t0 = t0;
  cs->scheme = m->scheme;
  if (m->scheme == AF_MIX_LN) /* the piece's side of tau (rates_fill) */
    cs->scheme = lo >= m->tau ? AF_PRE_LN : AF_POST_LN;
  cs->needs_a = spec ? af_tay_spec_reads_na(spec)
                     : cs->scheme == AF_PERI_LN || cs->scheme == AF_NGPT;
  cs->needs_anorm = sc->needs_anorm;
  if (par != NULL)
    mpfr_set(tc->beta, par->beta, RND);
  else
    mpfr_set_d(tc->beta, m->beta, RND);
  if (m->fault & AF_FAULT_ATTENTION) {
    mpfr_mul_ui(tc->beta, tc->beta, 21, RND);
    mpfr_div_ui(tc->beta, tc->beta, 20, RND);
  }
  mpfr_div_2ui(tc->hb, tc->beta, 1, RND);
  mpfr_neg(tc->hb, tc->hb, RND);
  /* Heads are summed (attention_heads.c, mp_kernel_source.c): each has
   * its score matrix M_h = Q_h^T K_h and values V_h, and the general
   * kernel's series run once per head. */
  size_t H = m->w ? af_weights_heads(m->w) : 1;
  if (H < 1)
    H = 1;
  cs->H = H;
  double tm = 0.5 * (lo + hi);
  const double *Q, *K, *V;
  af_weights_head_at(&Q, &K, &V, m->w, tm, 0);
  int exact = par != NULL && par->wq != NULL;
  if (exact && (m->w == NULL || m->w->layers != 1 || H > 1 || Q == NULL
                || K == NULL || V == NULL || par->wd != d))
    return AF_EINVAL;
  cs->ident = H == 1 && !exact && Q == NULL && K == NULL;
  cs->hasv = H > 1 || exact || V != NULL;
  cs->sym = cs->ident && !cs->hasv && m->attn == AF_ATTN_SOFTMAX;
  if (H > 1 && ensure_heads(tc, H) != AF_OK)
    return AF_ENOMEM;
  if (exact) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++) {
        mpfr_ptr r = tc->M[a * d + b];
        mpfr_set_zero(r, 1);
        for (size_t k = 0; k < d; k++) {
          mpfr_mul(tc->scr[0], par->wq[k * d + a], par->wk[k * d + b], RND);
          mpfr_add(r, r, tc->scr[0], RND);
        }
      }
    for (size_t i = 0; i < d * d; i++)
      mpfr_set(tc->V[i], par->wv[i], RND);
  } else
    for (size_t h = 0; h < H; h++) {
      tay_head hd;
      head_of(&hd, tc, h);
      if (h > 0)
        af_weights_head_at(&Q, &K, &V, m->w, tm, h);
      set_head(hd.M, hd.V, Q, K, V, d, tc->scr[0], !cs->ident, cs->hasv);
    }
  mpfr_ptr tmp = tc->scr[0], t1 = tc->scr[1];
  if (cs->scheme == AF_NGPT) {
    /* 1 / alpha(t) = (1 + t)^decay / alpha. */
    mpfr_ptr e = tc->scr[2];
    if (par != NULL) {
      mpfr_set(e, par->alpha_decay, RND);
      mpfr_add_ui(t1, t0, 1, RND);
      mpfr_pow(tmp, t1, e, RND);
      mpfr_div(tc->AL[0], tmp, par->alpha, RND);
    } else {
      mpfr_set_d(e, m->alpha_decay, RND);
      mpfr_add_ui(t1, t0, 1, RND);
      mpfr_pow(tmp, t1, e, RND);
      mpfr_div_d(tc->AL[0], tmp, m->alpha, RND);
    }
    power_series(tc->AL, tc->L, e, t0, tmp, t1);
  }
  if (spec) {
    /* the spec's series of t and alpha(t) on this piece, and tau's side
     * (the MPFR kernel's: +inf before the switch, -inf after) */
    if (tc->spec != NULL && af_tay_spec_of(tc->spec) != spec) {
      af_tay_spec_free(tc->spec);
      tc->spec = NULL;
    }
    if (tc->spec == NULL)
      tc->spec = af_tay_spec_alloc(spec, tc->n, tc->L, tc->prec);
    if (tc->spec == NULL)
      return AF_ENOMEM;
    mpfr_ptr al = tc->scr[2];
    if (par != NULL) {
      mpfr_set(al, par->alpha, RND);
      mpfr_set(t1, par->alpha_decay, RND);
    } else {
      mpfr_set_d(al, m->alpha, RND);
      mpfr_set_d(t1, m->alpha_decay, RND);
    }
    af_tay_spec_piece(tc->spec, t0, al, t1, lo >= m->tau ? -INFINITY
                                                          : INFINITY);
  }
  if (cs->scheme == AF_LN_SCALING) {
    mpfr_ptr e = tc->scr[2];
    mpfr_set_d(e, 0.5, RND);
    mpfr_add_ui(t1, t0, 1, RND);
    mpfr_sqrt(tc->SQ[0], t1, RND);
    power_series(tc->SQ, tc->L, e, t0, tmp, t1);
  }
  return ensure_arrays(tc, cs);
}

/* The Taylor coefficients of the solution through (t0, y0), 0..p. */
static int coefficients(af_mp_taylor *tc, const tay_case *cs, mpfr_t *y0)
{
  size_t n = tc->n, N = tc->N, L = tc->L, np = tc->npairs;
  unsigned p = tc->p;
  for (size_t l = 0; l < N; l++)
    mpfr_set(tc->X[l * L], y0[l], RND);
  memset(tc->bad, 0, n * sizeof *tc->bad);
  int nthr = tc->nthr;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthr) if (nthr > 1)
#endif
  {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    mpfr_t *sc = tc->scr + (size_t) me * TS_SCR;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
    for (size_t j = 0; j < n; j++)
      phase_tokens(tc, cs, j, 0, sc);
    for (size_t k = 0; k < p; k++) {
      if (cs->sym) {
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t pi = 0; pi < np; pi++) {
          /* pi = j (j - 1) / 2 + l, l < j */
          size_t j = (size_t) ((1.0 + sqrt(1.0 + 8.0 * (double) pi)) / 2.0);
          while (j * (j - 1) / 2 > pi)
            j--;
          while ((j + 1) * j / 2 <= pi)
            j++;
          phase_pair(tc, pi, j, pi - j * (j - 1) / 2, k, sc);
        }
      } else {
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t j = 0; j < n; j++)
          phase_row(tc, cs, j, k, sc);
      }
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
      for (size_t j = 0; j < n; j++) {
        phase_field(tc, cs, j, k, sc);
        /* Token j's next order needs only its own coefficients: no
         * barrier between the two phases. */
        if (k + 1 < p)
          phase_tokens(tc, cs, j, k + 1, sc);
      }
    }
  }
  for (size_t j = 0; j < n; j++)
    if (tc->bad[j])
      return tc->bad[j];
  return AF_OK;
}

/* log of max_l |X_l[k]| (natural), -inf if all are zero. */
static double log_norm(const af_mp_taylor *tc, size_t k)
{
  double best = -INFINITY;
  for (size_t l = 0; l < tc->N; l++) {
    mpfr_srcptr v = tc->X[l * tc->L + k];
    if (mpfr_zero_p(v))
      continue;
    long e;
    double mant = mpfr_get_d_2exp(&e, v, RND);
    double lv = log(fabs(mant)) + (double) e * M_LN2;
    if (lv > best)
      best = lv;
  }
  return best;
}

/* x in (0, 1/2] with x^q / (1 - x) = c (fixed point from x^q = c). */
static double solve_x(double lc, double q)
{
  double x = exp(lc / q);
  for (int it = 0; it < 8 && x < 0.5; it++)
    x = exp((lc + log1p(-x)) / q);
  return x > 0.5 ? 0.5 : x;
}

int af_mp_taylor_step(mpfr_t *y1, mpfr_ptr h, double *err, int *last,
                      mpfr_t *y0, mpfr_srcptr t0, mpfr_srcptr rem,
                      double tol_rate, double noise, double lo, double hi,
                      const af_model *m, const af_mp_params *par,
                      af_mp_taylor *tc)
{
  tay_case cs;
  int rc = setup_case(tc, &cs, m, par, t0, lo, hi);
  if (rc != AF_OK)
    return rc;
  rc = coefficients(tc, &cs, y0);
  if (rc != AF_OK)
    return rc;
  size_t N = tc->N, L = tc->L;
  unsigned p = tc->p;
  double scale = 1.0;
  for (size_t l = 0; l < N; l++) {
    double v = fabs(mpfr_get_d(y0[l], MPFR_RNDA));
    if (v > scale)
      scale = v;
  }
  /* Radius of convergence from the last two coefficients (relative). */
  double ls = log(scale);
  double l1 = log_norm(tc, p - 1) - ls, l2 = log_norm(tc, p) - ls;
  double lrho = INFINITY;
  if (l1 > -INFINITY)
    lrho = -l1 / (double) (p - 1);
  if (l2 > -INFINITY && -l2 / (double) p < lrho)
    lrho = -l2 / (double) p;
  double hrem = mpfr_get_d(rem, RND);
  double x, hd;
  if (lrho == INFINITY || !isfinite(lrho)) {
    hd = hrem; /* a polynomial solution (e.g. a fixed point) */
    x = 0;
  } else {
    double rho = exp(lrho);
    /* E(h) / scale = x^(p+1) / (1 - x) <= max(tol_rate rho x, noise). */
    double x1 = tol_rate > 0 ? solve_x(log(tol_rate) + lrho, (double) p)
                             : 0;
    double x2 = solve_x(log(noise), (double) p + 1);
    x = x1 > x2 ? x1 : x2;
    hd = x * rho;
  }
  *last = 0;
  if (!(hd < hrem)) {
    mpfr_set(h, rem, RND);
    *last = 1;
    if (x > 0)
      x *= hrem / hd;
  } else
    mpfr_set_d(h, hd, RND);
  *err = x > 0 ? scale * exp((double) (p + 1) * log(x) - log1p(-x)) : 0;
  /* Horner: y1 = sum_k X[k] h^k. */
  for (size_t l = 0; l < N; l++) {
    mpfr_t *c = tc->X + l * L;
    mpfr_set(y1[l], c[p], RND);
    for (size_t k = p; k-- > 0;) {
      mpfr_mul(y1[l], y1[l], h, RND);
      mpfr_add(y1[l], y1[l], c[k], RND);
    }
  }
  return AF_OK;
}

unsigned af_mp_taylor_order(const af_mp_taylor *tc) { return tc->p; }
