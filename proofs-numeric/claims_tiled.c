/* claims_tiled.c -- the tiled attention kernel equals the BLAS and the
 * direct kernels to a derived rounding bound (theorems.md N.tiled), for
 * softmax, USA and causal attention.
 *
 * The tiled kernel (src/attention/attention_tiled.c) computes the attention of M2,
 * M5 by an online softmax over tiles of keys: a running maximum m_j per
 * row, the sums rescaled by exp(beta (m_old - m_new)) when a tile raises
 * it.  Each claim evaluates af_attention on the tiled kernel and on the
 * BLAS and direct kernels of the same directions, and compares A_j, c_j,
 * a_j and P_j = P_{th_j} A_j row by row.
 *
 * Cases (one attention mode per claim):
 *   1. Q = K = V = I, uniform start, n = 200, d = 16, beta = 1, tiles of
 *      8 rows and 16 keys (13 tiles: 25 blocks);
 *   2. one set of Kaiming weights (af_weights_kaiming, seed 7), n = 77,
 *      d = 5, beta = 2, tiles 4 x 8;
 *   3. the running maximum at work: Q = 2 I, K = V = I, n = 100 tokens
 *      on a great circle at angles 0.003 k, d = 3, beta = 800 (USA:
 *      beta = 20, whose normalizer n e^{-2 beta} would underflow at 800),
 *      tiles 4 x 8: the scores 2 cos(0.003 (j - k)) of row j rise tile
 *      after tile up to k = j, so every row's maximum changes at almost
 *      every tile, and exp(beta s) alone would overflow (e^1600);
 *   full level, also: 4. Q = K = V = I and 5. Kaiming weights (seed 7)
 *      at n = 4096, d = 64, beta = 1, the default tiles (256 x 128).
 *
 * Rounding bound (first order, u = 2^-53; theorems.md N.tiled).  The
 * kernels share the directions th_j (af_work_directions) and differ in
 * the rounding of the same formulas.  Let mu = || |Q|^T |K| ||_F, which
 * bounds ||M||_2 for M = Q^T K and the rounding scale of M (1 for
 * Q = K = I: the scores lie in [-mu, mu]), nu = ||V||_F
 * (0 for V = I: the values are then the directions, exact), T the number
 * of key tiles, amag_j = sum_k w_jk |V th_k| (USA: its weights).  In one
 * kernel a score errs by at most 2 d u mu (q_j = M^T th_j, then a sum of
 * d products), the exponent beta (s - m) by 2 beta mu u (d + 2) more (the
 * subtraction and the product, |s - m| <= 2 mu), the exp by 2u (1 ulp):
 * every weight by a relative eps_w = 2 beta mu u (d + 2) + 2u; the tiled
 * kernel's up to T rescalings add T (4 beta mu + 3) u (the factor's
 * exponent, its exp, the product).  A ratio of sums moves by at most
 * 2 eps_w amag_j; the weighted sum of n terms adds (n + 1) u amag_j, the
 * normalizer n u amag_j, the division 2u amag_j (USA: n e^{-beta m} with
 * beta mu u + 3u instead of the normalizer's sum); the values V th_k err
 * by d u nu.  The difference of two kernels is at most the sum of their
 * bounds:
 *   tau_j = u [amag_j (4n + 14 + 8 beta mu (d + 2) + T (8 beta mu + 6))
 *              + 2 d nu].
 * c_j = <th_j, A_j> and a_j = |A_j| add a dot product of d terms in each
 * kernel: tau_j + 2 (d + 2) u amag_j; P_j = A_j - c_j th_j (the direct
 * kernel forms it from differences, within the same bound) adds |dc_j|
 * and two roundings: 2 tau_j + 2 (d + 4) u amag_j.  The claim reports the
 * worst ratio of a deviation (2-norm) to its bound over all rows, cases,
 * outputs and both reference kernels; the tolerance row N.tiled holds the
 * factor (1) on the bound.  The bound is a worst case (every rounding of
 * a sum of n terms in the same direction); the deviations seen are about
 * 1e-2 of it, and the rescaling omitted (mutant tiled-no-rescale) gives
 * deviations of order 1 of amag_j, about 10^13 bounds.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* af_work_set_tiles, the work's amag */
#include "verify.h"

#define U (DBL_EPSILON / 2)

typedef struct {
  size_t n, d, rows, keys;
  double beta;
  int weights; /* 0 identity, 1 Kaiming (seed 7), 2 Q = 2 I on a circle */
  int full;    /* full level only */
} tl_case;

static const tl_case tl_cases[] = {
  {200, 16, 8, 16, 1.0, 0, 0},
  {77, 5, 4, 8, 2.0, 1, 0},
  {100, 3, 4, 8, 800.0, 2, 0},
  {4096, 64, 0, 0, 1.0, 0, 1},
  {4096, 64, 0, 0, 1.0, 1, 1},
};

static double frob(const double *M, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d * d; i++)
    s += M[i] * M[i];
  return sqrt(s);
}

static double vnorm_diff(const double *x, const double *y, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += (x[i] - y[i]) * (x[i] - y[i]);
  return sqrt(s);
}

/* Outputs of one kernel: A, P (n x d), c, a, amag (n). */
typedef struct {
  double *A, *P, *c, *a, *amag;
} tl_out;

static int tl_eval(tl_out *o, af_work *w, af_kernel k, const double *y,
                   const af_model *m)
{
  int rc = af_work_set_kernel(w, k);
  if (rc == AF_OK)
    rc = af_attention(o->A, o->P, o->c, o->a, 0.0, y, m, w);
  if (rc == AF_OK)
    memcpy(o->amag, w->amag, w->n * sizeof(double));
  return rc;
}

/* Worst ratio deviation / bound of the tiled outputs t against r. */
static double tl_worst(const tl_out *t, const tl_out *r, size_t n, size_t d,
                       double beta, double mu, double nu, double ntiles)
{
  double worst = 0;
  for (size_t j = 0; j < n; j++) {
    double am = fmax(t->amag[j], r->amag[j]);
    double tau = U * (am * (4.0 * (double) n + 14.0
                            + 8.0 * beta * mu * ((double) d + 2.0)
                            + ntiles * (8.0 * beta * mu + 6.0))
                      + 2.0 * (double) d * nu);
    double dA = vnorm_diff(t->A + j * d, r->A + j * d, d) / tau;
    double tc = tau + 2.0 * ((double) d + 2.0) * U * am;
    double dc = fabs(t->c[j] - r->c[j]) / tc;
    double da = fabs(t->a[j] - r->a[j]) / tc;
    double dP = vnorm_diff(t->P + j * d, r->P + j * d, d)
                / (2.0 * tau + 2.0 * ((double) d + 4.0) * U * am);
    double e = fmax(fmax(dA, dc), fmax(da, dP));
    if (!(e <= worst))
      worst = e; /* NaN sticks */
  }
  return worst;
}

static void claim_tiled(af_vresult *r, const af_vctx *c, int arg)
{
  af_attn_kind attn = (af_attn_kind) arg;
  double fac = af_v_tol(c, "N.tiled");
  double worst = 0;
  size_t wcase = 0;
  int st = AF_OK, ncases = 0;
  for (size_t q = 0; q < sizeof tl_cases / sizeof tl_cases[0]; q++) {
    const tl_case *k = &tl_cases[q];
    if (k->full && c->level != AF_LEVEL_FULL)
      continue;
    size_t n = k->n, d = k->d, N = af_state_size(n, d);
    double beta = k->beta;
    if (k->weights == 2 && attn == AF_ATTN_USA)
      beta = 20.0;
    af_model m;
    af_v_model(&m, c, n, d, beta, AF_POST_LN);
    m.attn = attn;
    double *y = malloc(N * sizeof *y), *buf = malloc(3 * (2 * n * d + 3 * n)
                                                     * sizeof *buf);
    double *two = malloc(d * d * sizeof *two);
    af_work *w = af_work_alloc(n, d);
    af_weights *wt = NULL;
    if (!y || !buf || !two || !w)
      st = AF_ENOMEM;
    tl_out o[3];
    for (int e = 0; e < 3 && buf; e++) {
      double *b = buf + (size_t) e * (2 * n * d + 3 * n);
      o[e].A = b;
      o[e].P = b + n * d;
      o[e].c = b + 2 * n * d;
      o[e].a = o[e].c + n;
      o[e].amag = o[e].a + n;
    }
    double mu = 1.0, nu = 0.0;
    if (st == AF_OK && k->weights == 0)
      st = af_init_state(y, NULL, "uniform", n, d, 1.0, 11 + q);
    if (st == AF_OK && k->weights == 1) {
      st = af_init_state(y, NULL, "uniform", n, d, 1.0, 11 + q);
      wt = af_weights_alloc(d, 1, 1.0);
      if (st == AF_OK)
        st = wt ? af_weights_kaiming(wt, 7) : AF_ENOMEM;
      if (st == AF_OK) { /* mu = || |Q|^T |K| ||_F >= ||M||_2, nu = ||V||_F */
        for (size_t a = 0; a < d; a++)
          for (size_t b = 0; b < d; b++) {
            double s = 0;
            for (size_t i = 0; i < d; i++)
              s += fabs(wt->Q[0][i * d + a]) * fabs(wt->K[0][i * d + b]);
            two[a * d + b] = s;
          }
        mu = frob(two, d);
        nu = frob(wt->V[0], d);
      }
    }
    if (st == AF_OK && k->weights == 2) {
      for (size_t j = 0; j < n; j++) {
        double *x = y + j * d;
        memset(x, 0, d * sizeof *x);
        x[0] = cos(0.003 * (double) j);
        x[1] = sin(0.003 * (double) j);
        y[n * d + j] = 1.0;
      }
      wt = af_weights_alloc(d, 1, 1.0);
      if (wt == NULL)
        st = AF_ENOMEM;
      else {
        memset(two, 0, d * d * sizeof *two);
        for (size_t i = 0; i < d; i++)
          two[i * d + i] = 2.0;
        wt->Q[0] = two; /* borrowed: detached before af_weights_free */
        mu = frob(two, d);
      }
    }
    m.w = wt;
    if (st == AF_OK)
      st = af_work_set_tiles(w, k->rows, k->keys);
    if (st == AF_OK)
      st = tl_eval(&o[0], w, AF_KERNEL_TILED, y, &m);
    for (int e = 1; e < 3 && st == AF_OK; e++) {
      st = tl_eval(&o[e], w, e == 1 ? AF_KERNEL_BLAS : AF_KERNEL_DIRECT, y,
                   &m);
      if (st != AF_OK)
        break;
      double ntiles = ceil((double) n / (double) w->tile_keys);
      double dev = tl_worst(&o[0], &o[e], n, d, beta, mu, nu, ntiles);
      if (!(dev <= worst)) {
        worst = dev;
        wcase = q + 1;
      }
    }
    ncases++;
    if (wt != NULL && k->weights == 2)
      wt->Q[0] = NULL;
    af_weights_free(wt);
    af_work_free(w);
    free(two);
    free(y);
    free(buf);
    if (st != AF_OK)
      break;
  }
  static const char *const names[AF_ATTN_COUNT] = {"softmax", "USA",
                                                   "causal"};
  if (st != AF_OK) {
    af_v_error(r, st, "N.tiled");
    return;
  }
  af_v_abs(r, worst, 0.0, fac);
  af_v_note(r, "%s attention, %d cases (identity n=200 d=16; Kaiming n=77 "
            "d=5; Q=2I beta=800 on a circle%s): tiled against BLAS and "
            "direct, worst deviation of A, c, a, P %.3g of the derived "
            "bound tau_j (case %zu)", names[attn], ncases,
            c->level == AF_LEVEL_FULL ? "; n=4096 d=64 identity and Kaiming"
                                      : "",
            worst, wcase);
}

const af_claim af_claims_tiled[] = {
  {"N.tiled.softmax", "", AF_V_PASS, "N.tiled", claim_tiled,
   AF_ATTN_SOFTMAX, 0, "tiled kernel (online softmax) equals the BLAS and "
   "direct kernels to the derived rounding bound, softmax"},
  {"N.tiled.usa", "", AF_V_PASS, "N.tiled", claim_tiled, AF_ATTN_USA, 0,
   "tiled kernel equals the BLAS and direct kernels to the derived "
   "rounding bound, USA"},
  {"N.tiled.causal", "", AF_V_PASS, "N.tiled", claim_tiled, AF_ATTN_CAUSAL,
   0, "tiled kernel equals the BLAS and direct kernels to the derived "
   "rounding bound, causal"},
};

const size_t af_claims_tiled_count =
    sizeof af_claims_tiled / sizeof af_claims_tiled[0];
