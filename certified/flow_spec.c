/* flow_spec.c -- a spec'd scheme (src/model/scheme_spec.c) on the tape of
 * the certified flow (flow_tape.c), and the speed test of its closing
 * lemma U-close (theorems.md U-close).
 *
 * The spec's bytecode (src/model/expr.h) is replayed onto the tape: every
 * literal and parameter becomes one constant node, the ball that Arb reads
 * from the text the user typed at the working precision (so the tape holds
 * exactly the problem typed, as the MPFR path does); t, r, ta, na and
 * alpha are the tape's nodes of the time, the token's radius, <theta_j,
 * A_j>, |A_j| and alpha(t).  The operations the tape lacks are written
 * with those it has, each an identity on the set where the tape's series
 * exist:
 *   -x = 0 - x;   x^k (k an exact integer, |k| <= 64) by repeated
 *   products (and 1 / x^|k|);   x^y = exp(y log x) otherwise (x > 0:
 *   where MPFR's pow is defined for a non-integer y);   |x| = sqrt(x x);
 *   tanh x = 1 - 2 / (exp(2x) + 1);   min, max = (x + y -+ |x - y|) / 2.
 * Where an identity needs its argument off a singular point (|x| at 0,
 * log at x <= 0) the ball of the series there is not finite, the step's
 * a-priori enclosure fails and certify says so: a failure, never a wrong
 * ball.  ifle (not continuous), tau (a switch) and the score options of
 * U3 are refused with a reason (af_flow_spec_refusal).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <string.h>

#include "flow.h"
#include "scheme_spec.h"

#ifdef AF_HAVE_ARB

const char *af_flow_spec_refusal(const af_scheme_spec *sp)
{
  if (af_scheme_spec_alters_attention(sp))
    return "its scores or gain change what attention sees (theorems.md U3): "
           "the certified tape is written for plain scores";
  const af_expr *e[2] = {&sp->speed, &sp->radial};
  for (int k = 0; k < 2; k++) {
    if (e[k]->vars & (1u << AF_EXPR_TAU))
      return "it reads tau (a switch in time): the certified tape has no "
             "restart for a spec";
    for (size_t i = 0; i < e[k]->nops; i++)
      if (e[k]->op[i] == AF_EXPR_OP_IFLE)
        return "it uses ifle, which is not continuous: the Taylor "
               "enclosure needs a field that is analytic along the path";
  }
  return NULL;
}

int af_flow_spec_reads(const af_scheme_spec *sp, int which, int var)
{
  const af_expr *e = which == 0 ? &sp->speed : &sp->radial;
  return (e->vars >> var) & 1u;
}

int af_flow_spec_consts(af_vtape *tp, int *cnode, const af_scheme_spec *sp,
                        long prec)
{
  arb_t x;
  arb_init(x);
  int rc = AF_OK;
  for (size_t i = 0; i < sp->k.n && rc == AF_OK; i++) {
    /* the literal as typed, enclosed at the working precision */
    if (arb_set_str(x, sp->k.text[i], prec) != 0)
      rc = AF_EINVAL; /* (the parser accepted it: cannot happen) */
    else
      cnode[i] = af_vtape_const(tp, x);
  }
  arb_clear(x);
  return rc;
}

/* x^k for an exact integer k, |k| <= 64, by binary powering. */
static int ipow(af_vtape *tp, int x, long k)
{
  long m = k < 0 ? -k : k;
  int acc = -1, sq = x;
  while (m) {
    if (m & 1)
      acc = acc < 0 ? sq : af_vtape_push(tp, AF_VOP_MUL, acc, sq);
    m >>= 1;
    if (m)
      sq = af_vtape_push(tp, AF_VOP_MUL, sq, sq);
  }
  if (acc < 0)
    acc = af_vtape_const_d(tp, 1.0);
  return k < 0 ? af_vtape_push(tp, AF_VOP_DIV, af_vtape_const_d(tp, 1.0), acc)
               : acc;
}

static int tabs(af_vtape *tp, int x)
{
  return af_vtape_push(tp, AF_VOP_SQRT, af_vtape_push(tp, AF_VOP_MUL, x, x),
                       -1);
}

/* The exact integer value of constant i in [-64, 64] (*k), or 0. */
static int const_int(long *k, const af_scheme_spec *sp, size_t i)
{
  arb_t x;
  arb_init(x);
  int ok = arb_set_str(x, sp->k.text[i], 128) == 0 && arb_is_int(x)
           && arf_cmpabs_2exp_si(arb_midref(x), 6) <= 0;
  if (ok)
    *k = arf_get_si(arb_midref(x), ARF_RND_NEAR);
  arb_clear(x);
  return ok;
}

int af_flow_spec_expr(af_vtape *tp, int *out, const af_scheme_spec *sp,
                      const af_expr *e, const int *cnode, const int *vars)
{
  int st[AF_EXPR_STACK_MAX];
  long cst[AF_EXPR_STACK_MAX]; /* constant index of the slot, or -1 */
  size_t p = 0;
  for (size_t i = 0; i < e->nops; i++) {
    int op = e->op[i], x, y;
    switch (op) {
    case AF_EXPR_OP_CONST:
      cst[p] = e->arg[i];
      st[p++] = cnode[e->arg[i]];
      continue;
    case AF_EXPR_OP_VAR:
      if (vars[e->arg[i]] < 0)
        return AF_EINVAL;
      cst[p] = -1;
      st[p++] = vars[e->arg[i]];
      continue;
    case AF_EXPR_OP_NEG:
      x = st[p - 1];
      st[p - 1] = af_vtape_push(tp, AF_VOP_SUB, af_vtape_const_d(tp, 0.0), x);
      break;
    case AF_EXPR_OP_EXP:
      st[p - 1] = af_vtape_push(tp, AF_VOP_EXP, st[p - 1], -1);
      break;
    case AF_EXPR_OP_LOG:
      st[p - 1] = af_vtape_push(tp, AF_VOP_LOG, st[p - 1], -1);
      break;
    case AF_EXPR_OP_SQRT:
      st[p - 1] = af_vtape_push(tp, AF_VOP_SQRT, st[p - 1], -1);
      break;
    case AF_EXPR_OP_ABS:
      st[p - 1] = tabs(tp, st[p - 1]);
      break;
    case AF_EXPR_OP_TANH: { /* 1 - 2 / (exp(2x) + 1) */
      int two = af_vtape_const_d(tp, 2.0), one = af_vtape_const_d(tp, 1.0);
      int ex = af_vtape_push(tp, AF_VOP_EXP,
                             af_vtape_push(tp, AF_VOP_MUL, two, st[p - 1]), -1);
      st[p - 1] = af_vtape_push(
        tp, AF_VOP_SUB, one,
        af_vtape_push(tp, AF_VOP_DIV, two, af_vtape_push(tp, AF_VOP_ADD, ex,
                                                         one)));
      break;
    }
    case AF_EXPR_OP_IFLE:
      return AF_EINVAL; /* refused before (af_flow_spec_refusal) */
    default: { /* binary */
      y = st[--p];
      long yc = cst[p];
      x = st[p - 1];
      long k;
      switch (op) {
      case AF_EXPR_OP_ADD: x = af_vtape_push(tp, AF_VOP_ADD, x, y); break;
      case AF_EXPR_OP_SUB: x = af_vtape_push(tp, AF_VOP_SUB, x, y); break;
      case AF_EXPR_OP_MUL: x = af_vtape_push(tp, AF_VOP_MUL, x, y); break;
      case AF_EXPR_OP_DIV: x = af_vtape_push(tp, AF_VOP_DIV, x, y); break;
      case AF_EXPR_OP_POW:
        if (yc >= 0 && const_int(&k, sp, (size_t) yc))
          x = ipow(tp, x, k);
        else
          x = af_vtape_push(tp, AF_VOP_EXP,
                            af_vtape_push(tp, AF_VOP_MUL, y,
                                          af_vtape_push(tp, AF_VOP_LOG, x, -1)),
                            -1);
        break;
      case AF_EXPR_OP_MIN:
      case AF_EXPR_OP_MAX: {
        int sum = af_vtape_push(tp, AF_VOP_ADD, x, y);
        int ad = tabs(tp, af_vtape_push(tp, AF_VOP_SUB, x, y));
        x = af_vtape_push(tp, AF_VOP_DIV,
                          af_vtape_push(tp, op == AF_EXPR_OP_MIN ? AF_VOP_SUB
                                                                 : AF_VOP_ADD,
                                        sum, ad),
                          af_vtape_const_d(tp, 2.0));
        break;
      }
      default:
        return AF_EINVAL;
      }
      st[p - 1] = x;
      break;
    }
    }
    cst[p - 1] = -1;
  }
  if (p != 1)
    return AF_EINVAL;
  *out = st[0];
  return tp->oom ? AF_ENOMEM : AF_OK;
}

/* ---- U-close: the speed over the box of the hemisphere ------------- */

/* The speed over one sub-box (balls c, a, alpha): 1 and st[0] its
 * enclosure if every singular operation is proven off its singular set. */
static int speed_ball(arb_ptr st, arb_srcptr k, const af_scheme_spec *sp,
                      size_t i0, size_t i1, const arb_t c, const arb_t a,
                      const arb_t alpha, long prec)
{
  const af_expr *e = &sp->speed;
  long cst[AF_EXPR_STACK_MAX];
  int good = 1;
  size_t p = 0;
  for (size_t i = i0; i <= i1 && good; i++) {
    int op = e->op[i];
    arb_ptr x = p ? st + p - 1 : st;
    switch (op) {
    case AF_EXPR_OP_CONST:
      cst[p] = e->arg[i];
      arb_set(st + p++, k + e->arg[i]);
      continue;
    case AF_EXPR_OP_VAR:
      cst[p] = -1;
      if (e->arg[i] == AF_EXPR_TA)
        arb_set(st + p++, c);
      else if (e->arg[i] == AF_EXPR_NA)
        arb_set(st + p++, a);
      else if (e->arg[i] == AF_EXPR_ALPHA)
        arb_set(st + p++, alpha);
      else
        good = 0; /* t, r, tau: not a speed U-close covers */
      continue;
    case AF_EXPR_OP_NEG: arb_neg(x, x); break;
    case AF_EXPR_OP_EXP: arb_exp(x, x, prec); break;
    case AF_EXPR_OP_LOG:
      good = arb_is_positive(x);
      arb_log(x, x, prec);
      break;
    case AF_EXPR_OP_SQRT:
      good = arb_is_positive(x);
      arb_sqrt(x, x, prec);
      break;
    case AF_EXPR_OP_ABS: arb_abs(x, x); break;
    case AF_EXPR_OP_TANH: arb_tanh(x, x, prec); break;
    case AF_EXPR_OP_IFLE: good = 0; break;
    default: { /* binary */
      arb_srcptr y = st + p - 1;
      long yc = cst[p - 1];
      x = st + p - 2;
      p--;
      long ki;
      switch (op) {
      case AF_EXPR_OP_ADD: arb_add(x, x, y, prec); break;
      case AF_EXPR_OP_SUB: arb_sub(x, x, y, prec); break;
      case AF_EXPR_OP_MUL: arb_mul(x, x, y, prec); break;
      case AF_EXPR_OP_DIV:
        good = !arb_contains_zero(y);
        arb_div(x, x, y, prec);
        break;
      case AF_EXPR_OP_POW:
        if (yc >= 0 && const_int(&ki, sp, (size_t) yc)) {
          if (ki < 0)
            good = !arb_contains_zero(x);
          arb_pow(x, x, y, prec); /* exact integer exponent */
        } else {
          good = arb_is_positive(x);
          arb_pow(x, x, y, prec);
        }
        break;
      case AF_EXPR_OP_MIN: arb_min(x, x, y, prec); break;
      case AF_EXPR_OP_MAX: arb_max(x, x, y, prec); break;
      default: good = 0; break;
      }
      break;
    }
    }
    cst[p - 1] = -1;
  }
  return good && p == 1 && arb_is_finite(st);
}

/* The speed's tree: in postfix order the subtree of operation i is the
 * range start[i] .. i; a0, a1 its first two operands' roots; reads the
 * variables it reads (bit AF_EXPR_*). */
typedef struct {
  int a0[AF_EXPR_OPS_MAX], a1[AF_EXPR_OPS_MAX], start[AF_EXPR_OPS_MAX];
  unsigned reads[AF_EXPR_OPS_MAX];
} stree;

static int build_tree(stree *tr, const af_expr *e)
{
  int st[AF_EXPR_STACK_MAX];
  size_t p = 0;
  for (size_t i = 0; i < e->nops; i++) {
    int op = e->op[i];
    size_t nin = op == AF_EXPR_OP_CONST || op == AF_EXPR_OP_VAR ? 0
                 : op == AF_EXPR_OP_IFLE ? 4
                 : (op == AF_EXPR_OP_NEG || op == AF_EXPR_OP_EXP
                    || op == AF_EXPR_OP_LOG || op == AF_EXPR_OP_SQRT
                    || op == AF_EXPR_OP_ABS || op == AF_EXPR_OP_TANH) ? 1 : 2;
    if (nin > p)
      return 0;
    tr->a0[i] = tr->a1[i] = -1;
    tr->start[i] = (int) i;
    tr->reads[i] = op == AF_EXPR_OP_VAR ? 1u << e->arg[i] : 0;
    for (size_t q = 0; q < nin; q++) {
      int r = st[p - nin + q];
      if (q == 0)
        tr->a0[i] = r;
      if (q == 1)
        tr->a1[i] = r;
      tr->reads[i] |= tr->reads[r];
      if (tr->start[r] < tr->start[i])
        tr->start[i] = tr->start[r];
    }
    p -= nin;
    st[p++] = (int) i;
  }
  return p == 1;
}

/* The speed as a product of factors (MUL and DIV nodes from the top
 * down), each a leaf that reads only time variables (t, and alpha when it
 * decays) -- a factor of Phi(t) -- or none -- a factor of G(ta, na,
 * alpha); constants go to G.  leaf[], inv[] (1: a divisor) of *nl. */
typedef struct {
  int n, leaf[AF_EXPR_OPS_MAX], inv[AF_EXPR_OPS_MAX], time[AF_EXPR_OPS_MAX];
} factors;

static int collect(factors *fs, const stree *tr, const af_expr *e, int i,
                   int inv, unsigned tv)
{
  if (tr->reads[i] & ((1u << AF_EXPR_R) | (1u << AF_EXPR_TAU)))
    return 0;
  int op = e->op[i];
  int tonly = (tr->reads[i] & ~tv) == 0, tfree = (tr->reads[i] & tv) == 0;
  if (!tonly && !tfree && (op == AF_EXPR_OP_MUL || op == AF_EXPR_OP_DIV))
    return collect(fs, tr, e, tr->a0[i], inv, tv)
           && collect(fs, tr, e, tr->a1[i], op == AF_EXPR_OP_DIV ? !inv : inv,
                      tv);
  if (!tonly && !tfree)
    return 0;
  fs->leaf[fs->n] = i;
  fs->inv[fs->n] = inv;
  fs->time[fs->n] = !tfree;
  fs->n++;
  return 1;
}

static int factorize(factors *fs, const stree *tr, const af_expr *e,
                     double decay)
{
  unsigned tv = (1u << AF_EXPR_T) | (decay != 0 ? 1u << AF_EXPR_ALPHA : 0);
  fs->n = 0;
  return collect(fs, tr, e, (int) e->nops - 1, 0, tv);
}

int af_flow_spec_time_split(const af_scheme_spec *sp, double decay)
{
  stree tr;
  factors fs;
  return build_tree(&tr, &sp->speed) && factorize(&fs, &tr, &sp->speed, decay);
}

/* Growth of the time-only subtree i on t >= tstar:
 *   c (1 + t)^q <= x(t) <= C (1 + t)^p   (the lower bound when *lo),
 * every node >= 0 (positive constants, t, alpha(t) = alpha (1 + t)^-decay,
 * sums, products, quotients by a node with a lower bound, square roots
 * and constant powers); 0 for any other node. */
typedef struct {
  arb_t C, p, c, q;
  int lo;
} growth_t;

static int growth(growth_t *o, const stree *tr, const af_scheme_spec *sp,
                  arb_srcptr k, int i, double tstar, double alpha,
                  double decay, long prec)
{
  const af_expr *e = &sp->speed;
  int op = e->op[i];
  if (tr->reads[i] == 0) { /* a constant: its value, > 0 */
    arb_ptr st = _arb_vec_init(AF_EXPR_STACK_MAX);
    arb_t z;
    arb_init(z);
    int ok = speed_ball(st, k, sp, (size_t) tr->start[i], (size_t) i, z, z, z,
                        prec) && arb_is_positive(st) && arb_is_finite(st);
    arb_set(o->C, st);
    arb_set(o->c, st);
    arb_zero(o->p);
    arb_zero(o->q);
    o->lo = 1;
    arb_clear(z);
    _arb_vec_clear(st, AF_EXPR_STACK_MAX);
    return ok;
  }
  if (op == AF_EXPR_OP_VAR && e->arg[i] == AF_EXPR_T) {
    arb_one(o->C); /* t <= 1 + t */
    arb_one(o->p);
    o->lo = tstar > 0; /* t >= tstar/(1 + tstar) (1 + t) */
    arb_set_d(o->c, tstar);
    arb_set_d(o->q, tstar);
    arb_add_ui(o->q, o->q, 1, prec);
    arb_div(o->c, o->c, o->q, prec);
    arb_one(o->q);
    return 1;
  }
  if (op == AF_EXPR_OP_VAR && e->arg[i] == AF_EXPR_ALPHA) {
    arb_set_d(o->C, alpha); /* alpha (1 + t)^-decay, exactly */
    arb_set(o->c, o->C);
    arb_set_d(o->p, -decay);
    arb_set(o->q, o->p);
    o->lo = alpha > 0;
    return o->lo;
  }
  growth_t A, B;
  arb_init(A.C); arb_init(A.p); arb_init(A.c); arb_init(A.q);
  arb_init(B.C); arb_init(B.p); arb_init(B.c); arb_init(B.q);
  int ok = tr->a0[i] >= 0
           && growth(&A, tr, sp, k, tr->a0[i], tstar, alpha, decay, prec);
  switch (ok ? op : -1) {
  case AF_EXPR_OP_ADD: /* each term >= 0: the sum is above either */
    ok = growth(&B, tr, sp, k, tr->a1[i], tstar, alpha, decay, prec);
    arb_add(o->C, A.C, B.C, prec);
    arb_max(o->p, A.p, B.p, prec);
    o->lo = A.lo || B.lo;
    if (A.lo && (!B.lo || arf_cmp(arb_midref(A.q), arb_midref(B.q)) >= 0)) {
      arb_set(o->c, A.c);
      arb_set(o->q, A.q);
    } else {
      arb_set(o->c, B.c);
      arb_set(o->q, B.q);
    }
    break;
  case AF_EXPR_OP_MUL:
    ok = growth(&B, tr, sp, k, tr->a1[i], tstar, alpha, decay, prec);
    arb_mul(o->C, A.C, B.C, prec);
    arb_add(o->p, A.p, B.p, prec);
    o->lo = A.lo && B.lo;
    arb_mul(o->c, A.c, B.c, prec);
    arb_add(o->q, A.q, B.q, prec);
    break;
  case AF_EXPR_OP_DIV:
    ok = growth(&B, tr, sp, k, tr->a1[i], tstar, alpha, decay, prec) && B.lo
         && arb_is_positive(B.c);
    arb_div(o->C, A.C, B.c, prec);
    arb_sub(o->p, A.p, B.q, prec);
    o->lo = A.lo;
    arb_div(o->c, A.c, B.C, prec);
    arb_sub(o->q, A.q, B.p, prec);
    break;
  case AF_EXPR_OP_SQRT:
    arb_sqrt(o->C, A.C, prec);
    arb_mul_2exp_si(o->p, A.p, -1);
    o->lo = A.lo;
    arb_sqrt(o->c, A.c, prec);
    arb_mul_2exp_si(o->q, A.q, -1);
    break;
  case AF_EXPR_OP_POW: { /* a constant exponent */
    int y = tr->a1[i];
    arb_ptr st = _arb_vec_init(AF_EXPR_STACK_MAX);
    arb_t z;
    arb_init(z);
    ok = tr->reads[y] == 0
         && speed_ball(st, k, sp, (size_t) tr->start[y], (size_t) y, z, z, z,
                       prec) && arb_is_finite(st);
    if (ok && arb_is_nonnegative(st)) {
      arb_pow(o->C, A.C, st, prec);
      arb_mul(o->p, A.p, st, prec);
      o->lo = A.lo;
      arb_pow(o->c, A.c, st, prec);
      arb_mul(o->q, A.q, st, prec);
    } else if (ok && arb_is_negative(st) && A.lo && arb_is_positive(A.c)) {
      arb_pow(o->C, A.c, st, prec);
      arb_mul(o->p, A.q, st, prec);
      o->lo = 1;
      arb_pow(o->c, A.C, st, prec);
      arb_mul(o->q, A.p, st, prec);
    } else
      ok = 0;
    arb_clear(z);
    _arb_vec_clear(st, AF_EXPR_STACK_MAX);
    break;
  }
  default:
    ok = 0;
    break;
  }
  if (ok && o->lo)
    o->lo = arb_is_positive(o->c);
  ok = ok && arb_is_finite(o->C) && arb_is_finite(o->p)
       && (!o->lo || (arb_is_finite(o->c) && arb_is_finite(o->q)));
  arb_clear(A.C); arb_clear(A.p); arb_clear(A.c); arb_clear(A.q);
  arb_clear(B.C); arb_clear(B.p); arb_clear(B.c); arb_clear(B.q);
  return ok;
}

/* The time factor Phi = prod of the time leaves (their inverses for
 * divisors) on [tstar, inf): 1 if Phi > 0 there and Phi <= K (1 + t)^e
 * with e <= 1 are proven (*pexp: the bound on e; NaN without a time
 * leaf).  A leaf x <= C (1 + t)^p, x >= c (1 + t)^q contributes p and
 * needs c > 0 (Phi > 0); a divisor contributes -q and needs c > 0. */
static int time_factor(double *pexp, const stree *tr, const factors *fs,
                       const af_scheme_spec *sp, arb_srcptr k, double alpha,
                       double decay, double tstar, long prec)
{
  growth_t F;
  arb_init(F.C); arb_init(F.p); arb_init(F.c); arb_init(F.q);
  arb_t e;
  arb_init(e);
  int good = 1, any = 0;
  for (int l = 0; l < fs->n && good; l++) {
    if (!fs->time[l])
      continue;
    any = 1;
    good = growth(&F, tr, sp, k, fs->leaf[l], tstar, alpha, decay, prec)
           && F.lo;
    if (fs->inv[l])
      arb_sub(e, e, F.q, prec);
    else
      arb_add(e, e, F.p, prec);
  }
  *pexp = NAN;
  if (good && any) {
    arf_t u;
    arf_init(u);
    arb_get_ubound_arf(u, e, prec);
    *pexp = arf_get_d(u, ARF_RND_UP);
    good = arf_cmp_si(u, 1) <= 0;
    arf_clear(u);
  }
  arb_clear(e);
  arb_clear(F.C); arb_clear(F.p); arb_clear(F.c); arb_clear(F.q);
  return good;
}

/* The spec's constants read at prec into k, its speed's tree and
 * factors, and the time factor's test on [tstar, inf): 1 if all hold. */
static int time_part(arb_ptr k, stree *tr, factors *fs, double *pexp,
                     const af_scheme_spec *sp, double alpha, double decay,
                     double tstar, long prec)
{
  int good = 1;
  for (size_t i = 0; i < sp->k.n; i++)
    if (arb_set_str(k + i, sp->k.text[i], prec) != 0)
      good = 0;
  *pexp = NAN;
  return good && build_tree(tr, &sp->speed)
         && factorize(fs, tr, &sp->speed, decay)
         && time_factor(pexp, tr, fs, sp, k, alpha, decay, tstar, prec);
}

int af_flow_spec_time_growth(double *pexp, const af_scheme_spec *sp,
                             double alpha, double decay, double tstar,
                             long prec)
{
  stree tr;
  factors fs;
  arb_ptr k = _arb_vec_init((slong) sp->k.n + 1);
  int good = time_part(k, &tr, &fs, pexp, sp, alpha, decay, tstar, prec);
  _arb_vec_clear(k, (slong) sp->k.n + 1);
  return good;
}

/* x = piece i of K of [x0, x1]: ends x0 + (x1 - x0) i / K rounded once to
 * a double, the same for the piece on either side; the outer ends exact. */
static void piece(arb_t x, arf_t lo, arf_t hi, double x0, double x1, int i,
                  int K, long prec)
{
  arf_set_d(lo, i ? x0 + (x1 - x0) * i / K : x0);
  arf_set_d(hi, i + 1 < K ? x0 + (x1 - x0) * (i + 1) / K : x1);
  arb_set_interval_arf(x, lo, hi, prec);
}

void af_flow_spec_speed_box(int *ok, double *slo, double *shi, double *pexp,
                            const af_scheme_spec *sp, double c0, double c1,
                            double a0, double a1, double alpha, double decay,
                            double tstar, long prec)
{
  arb_ptr st = _arb_vec_init(AF_EXPR_STACK_MAX);
  arb_ptr k = _arb_vec_init((slong) sp->k.n + 1);
  arb_t c, a, al;
  arf_t lo, hi, u;
  arb_init(c);
  arb_init(a);
  arb_init(al);
  arf_init(lo);
  arf_init(hi);
  arf_init(u);
  arb_set_d(al, alpha);
  *pexp = NAN;
  /* the factors of s = Phi(t) G and Phi's growth on [tstar, inf) */
  stree tr;
  factors fs;
  int good = c0 <= c1 && a0 <= a1
             && time_part(k, &tr, &fs, pexp, sp, alpha, decay, tstar, prec);
  double mn = INFINITY, mx = -INFINITY;
  /* G, the product of the other factors, over AF_SPEC_BOX_SPLIT^2
   * sub-boxes: adjacent ones share their end (the same double), the outer
   * ends are c0, c1, a0, a1 themselves, so they cover the box; each is
   * narrower, so ball arithmetic overestimates less.  Each factor is
   * proven positive (so divisors are nonzero and G > 0); G = 1 without
   * one. */
  const int K = AF_SPEC_BOX_SPLIT;
  arb_t gv;
  arb_init(gv);
  for (int i = 0; i < K && good; i++) {
    piece(c, lo, hi, c0, c1, i, K, prec);
    for (int j = 0; j < K && good; j++) {
      piece(a, lo, hi, a0, a1, j, K, prec);
      arb_one(gv);
      for (int l = 0; l < fs.n && good; l++) {
        if (fs.time[l])
          continue;
        good = speed_ball(st, k, sp, (size_t) tr.start[fs.leaf[l]],
                          (size_t) fs.leaf[l], c, a, al, prec)
               && arb_is_positive(st);
        if (fs.inv[l])
          arb_div(gv, gv, st, prec);
        else
          arb_mul(gv, gv, st, prec);
      }
      if (good) {
        arb_get_lbound_arf(u, gv, prec);
        mn = fmin(mn, arf_get_d(u, ARF_RND_DOWN));
        arb_get_ubound_arf(u, gv, prec);
        mx = fmax(mx, arf_get_d(u, ARF_RND_UP));
      }
    }
  }
  arb_clear(gv);
  *ok = good && isfinite(mx) && mn > 0;
  *slo = good ? mn : NAN;
  *shi = good ? mx : NAN;
  arf_clear(lo);
  arf_clear(hi);
  arf_clear(u);
  arb_clear(c);
  arb_clear(a);
  arb_clear(al);
  _arb_vec_clear(st, AF_EXPR_STACK_MAX);
  _arb_vec_clear(k, (slong) sp->k.n + 1);
}

#endif /* AF_HAVE_ARB */
