/* rstar.c -- T4.1a over continuous ranges: where Peri-LN starts faster
 * than Post-LN (theorems.md, C-T4.1a-rstar), proven by bisection with
 * Arb ball arithmetic.
 *
 * Statement.  On the symmetric start the initial velocities (T4.1a) are
 *   v_post = 2/P,  v_pre = 2/(r0 P),  v_peri = 2/(r0 S),
 *   P = e^beta + n - 1,  S = sqrt(e^{2 beta} + n - 1),
 * so  D = v_peri - v_post = 2 (r* - r0) / (r0 P)  with  r* = P / S:
 * Peri-LN is faster than Post-LN exactly when r0 < r*(n, beta), slower
 * when r0 > r*.  (Against Pre-LN the ratio v_peri / v_pre = r* does not
 * depend on r0.)
 *
 * Method.  Boxes B = [n] x [beta] x [r0] of the domain are examined in
 * ball arithmetic at 64 bits, in x = e^-beta (eval_box):
 *   - D(B) (the difference of the two velocities, evaluated as such) and
 *     q(B) = r*(B) - r0 both > 0: Peri-LN faster on all of B (proven);
 *     both < 0: slower on all of B (proven);
 *   - D(B) of one strict sign and q(B) of the other, or the same at the
 *     midpoint of an undecided box: refuted;
 *   - the factored form 2 q / (r0 P) must overlap D(B) (the identity; a
 *     box where they are disjoint refutes it);
 *   - otherwise, if q(B) contains 0 and B is thinner in r0 than 2^-8 r0
 *     (relative), B is a boundary box: r0 P > 0 on B (checked) and the
 *     identity give sign D = sign(r* - r0) at every point of B, so the
 *     sign changes exactly on the surface r0 = r*(n, beta) and nowhere
 *     else;
 *   - else B is split in the dimension of largest relative width.
 * The result counts the boxes proven faster, slower and on the boundary
 * and the fraction of the domain's volume certified directly (without
 * the identity).  The variant against Pre-LN (which=1) uses v_pre in D:
 * it claims, falsely, that the same boundary separates Peri-LN from
 * Pre-LN, and must come out refuted.
 */
#include <config.h>

#include "cert.h"
#include "rstar.h"

#include <math.h>
#include <stdlib.h>

#ifdef AF_HAVE_ARB

typedef struct {
  double lo[3], hi[3];
} box3;

static void ball(arb_t x, double lo, double hi, long prec)
{
  arf_t a, b;
  arf_init(a);
  arf_init(b);
  arf_set_d(a, lo);
  arf_set_d(b, hi);
  arb_set_interval_arf(x, a, b, prec);
  arf_clear(a);
  arf_clear(b);
}

/* On a box, in x = e^-beta and m = n - 1 (P = e^beta p, S = e^beta s,
 * p = 1 + m x, s = sqrt(1 + m x^2): the common factor e^beta > 0 leaves
 * every sign alone and the two terms are no longer huge and close):
 *   D   = e^beta (v_peri - v_other) / 2 = 1/(r0 s) - 1/p      (Post-LN)
 *                                       = 1/(r0 s) - 1/(r0 p) (Pre-LN)
 *   q   = p/s - r0 = r* - r0
 *   fac = q / (r0 p)     (the identity D = fac for Post-LN)
 *   rP  = r0 p. */
static void eval_box(arb_t D, arb_t q, arb_t fac, arb_t rP, const box3 *b,
                     int which, long prec)
{
  arb_t m, x, r0, p, s, t;
  arb_init(m);
  arb_init(x);
  arb_init(r0);
  arb_init(p);
  arb_init(s);
  arb_init(t);
  ball(m, b->lo[0] - 1.0, b->hi[0] - 1.0, prec); /* exact: n <= 2^52 */
  ball(x, b->lo[1], b->hi[1], prec);
  arb_neg(x, x);
  arb_exp(x, x, prec);
  ball(r0, b->lo[2], b->hi[2], prec);
  arb_mul(p, m, x, prec);
  arb_add_ui(p, p, 1, prec);
  arb_mul(s, x, x, prec);
  arb_mul(s, s, m, prec);
  arb_add_ui(s, s, 1, prec);
  arb_sqrt(s, s, prec);
  arb_mul(t, r0, s, prec);
  arb_inv(D, t, prec);
  arb_mul(rP, r0, p, prec);
  if (which == 0)
    arb_inv(t, p, prec);
  else
    arb_inv(t, rP, prec);
  arb_sub(D, D, t, prec);
  arb_div(q, p, s, prec);
  arb_sub(q, q, r0, prec);
  arb_div(fac, q, rP, prec);
  arb_clear(m);
  arb_clear(x);
  arb_clear(r0);
  arb_clear(p);
  arb_clear(s);
  arb_clear(t);
}

static double vol(const box3 *b)
{
  return (b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) *
         (b->hi[2] - b->lo[2]);
}

int af_cert_rstar_prove(af_rstar_result *res, const af_rstar_domain *dom,
                        int which, unsigned long max_boxes)
{
  if (!res || !dom || which < 0 || which > 1 || !(dom->n_lo >= 2) ||
      !(dom->n_hi >= dom->n_lo) || !(dom->beta_lo >= 0) ||
      !(dom->beta_hi >= dom->beta_lo) || !(dom->r0_lo > 0) ||
      !(dom->r0_hi >= dom->r0_lo) || !isfinite(dom->n_hi) ||
      !isfinite(dom->beta_hi) || !isfinite(dom->r0_hi))
    return AF_EINVAL;
  const long prec = 64;
  size_t cap = 4096, top = 0;
  box3 *stk = malloc(cap * sizeof *stk);
  if (!stk)
    return AF_ENOMEM;
  *res = (af_rstar_result){AF_PROVE_CERTIFIED, 0, 0, 0, 0, 0.0, {0, 0, 0}};
  stk[top++] = (box3){{dom->n_lo, dom->beta_lo, dom->r0_lo},
                      {dom->n_hi, dom->beta_hi, dom->r0_hi}};
  double total = vol(&stk[0]), direct = 0;
  arb_t D, q, fac, rP;
  arb_init(D);
  arb_init(q);
  arb_init(fac);
  arb_init(rP);
  int st = AF_OK;
  while (top > 0) {
    box3 b = stk[--top];
    if (res->boxes++ >= max_boxes) {
      res->result = AF_PROVE_UNDECIDED;
      break;
    }
    eval_box(D, q, fac, rP, &b, which, prec);
    int dpos = arb_is_positive(D), dneg = arb_is_negative(D);
    int qpos = arb_is_positive(q), qneg = arb_is_negative(q);
    if ((dpos && qneg) || (dneg && qpos) ||
        (which == 0 && !arb_overlaps(D, fac))) {
      res->result = AF_PROVE_REFUTED;
      for (int k = 0; k < 3; k++)
        res->where[k] = 0.5 * (b.lo[k] + b.hi[k]);
      break;
    }
    if (dpos && qpos) {
      res->faster++;
      direct += vol(&b);
      continue;
    }
    if (dneg && qneg) {
      res->slower++;
      direct += vol(&b);
      continue;
    }
    if (which == 0 && !qpos && !qneg && arb_is_positive(rP) &&
        b.hi[2] - b.lo[2] <= ldexp(b.lo[2], -8)) {
      res->boundary++;
      continue;
    }
    /* an exact point (the midpoint) where the signs are proven to
     * disagree refutes the statement */
    box3 mid;
    for (int j = 0; j < 3; j++)
      mid.lo[j] = mid.hi[j] = 0.5 * (b.lo[j] + b.hi[j]);
    eval_box(D, q, fac, rP, &mid, which, prec);
    if ((arb_is_positive(D) && arb_is_negative(q)) ||
        (arb_is_negative(D) && arb_is_positive(q))) {
      res->result = AF_PROVE_REFUTED;
      for (int j = 0; j < 3; j++)
        res->where[j] = mid.lo[j];
      break;
    }
    /* split: r0 first where the box straddles r0 = r* (q contains 0),
     * else the widest dimension (relative for n - 1 and r0) */
    double wn = (b.hi[0] - b.lo[0]) / (b.lo[0] - 1.0),
           wb = b.hi[1] - b.lo[1], wr = (b.hi[2] - b.lo[2]) / b.lo[2];
    int k = !qpos && !qneg && wr > ldexp(1.0, -8) ? 2
            : wn >= wb && wn >= wr                 ? 0
            : wb >= wr                             ? 1
                                                   : 2;
    double m = 0.5 * (b.lo[k] + b.hi[k]);
    if (!(m > b.lo[k] && m < b.hi[k])) {
      res->result = AF_PROVE_UNDECIDED; /* cannot split further */
      for (int j = 0; j < 3; j++)
        res->where[j] = 0.5 * (b.lo[j] + b.hi[j]);
      break;
    }
    if (top + 2 > cap) {
      box3 *ns = realloc(stk, 2 * cap * sizeof *stk);
      if (!ns) {
        st = AF_ENOMEM;
        break;
      }
      stk = ns;
      cap *= 2;
    }
    box3 b1 = b, b2 = b;
    b1.hi[k] = m;
    b2.lo[k] = m;
    stk[top++] = b2;
    stk[top++] = b1;
  }
  res->direct_fraction = direct / total;
  arb_clear(D);
  arb_clear(q);
  arb_clear(fac);
  arb_clear(rP);
  free(stk);
  return st;
}

#else

int af_cert_rstar_prove(af_rstar_result *res, const af_rstar_domain *dom,
                        int which, unsigned long max_boxes)
{
  (void) res;
  (void) dom;
  (void) which;
  (void) max_boxes;
  return AF_EINVAL;
}

#endif
