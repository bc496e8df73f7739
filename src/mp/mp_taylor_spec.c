/* mp_taylor_spec.c -- a spec'd scheme's rates as Taylor series for
 * mp-taylor (mp_taylor.c): the spec's bytecode (src/model/expr.h) is
 * replayed at every order k, each operation giving coefficient k of its
 * series from its operands' coefficients 0..k (mp_series.h and below),
 * every literal read from its text at the working precision as the other
 * MPFR methods do.  Per token, each operation keeps its value series and
 * up to two auxiliary ones:
 *   exp:   c = exp(u)   k c_k = sum_{l=1}^k (l u_l) c_{k-l}
 *   log:   c = log(u)   c_k = (u_k - (1/k) sum_{l=1}^{k-1} (l c_l) u_{k-l}) / u_0
 *   tanh:  c = tanh(u)  k c_k = k u_k - sum_{l=1}^k (l u_l) q_{k-l}, q = c^2
 *   x^e (e constant):   c_k = sum_{l=0}^{k-1} (e (k-l) - l) x_{k-l} c_l / (k x_0)
 *                       (e = 2: the square, exact at x_0 = 0)
 *   x^y otherwise:      exp(y log x)
 * and sqrt, products and quotients as mp_taylor.c's field.  t is t0 + h,
 * alpha(t) = alpha (1 + t)^-decay as the built-in nGPT's series; ifle
 * compares t with tau, which is constant on a piece (the integrators stop
 * at tau; inside a piece tau is +-inf, the side of the switch), so the
 * branch is chosen once per piece.  abs, min and max are refused: a
 * Taylor step whose error is estimated from the last coefficients does
 * not see a kink inside it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "expr.h"
#include "scheme_spec.h"
#include "mp_series.h"
#include "mp_taylor_spec.h"
#include "attnflow_mp.h"

#define R AF_SER_RND
#define NSER 3 /* value and two auxiliary series per operation */

enum { TAG_OTHER, TAG_CONST, TAG_T, TAG_TAU };

typedef struct {
  const af_expr *e;
  size_t off;           /* first operation's index in the token's block */
  int arg[AF_EXPR_OPS_MAX][4]; /* operand operations (-1: none)       */
  int isconst[AF_EXPR_OPS_MAX];
} prog;

struct af_tay_spec {
  const af_scheme_spec *sp;
  size_t n, L, nops;
  mpfr_prec_t prec;
  prog pg[2];           /* speed, radial */
  mpfr_t *K;            /* the spec's constants                    */
  mpfr_t *T, *AL;       /* t and alpha(t) series (L each)          */
  mpfr_t *S;            /* n x nops x NSER x L                      */
  double tau_side;
};

/* Operands and tags of e by a dry run of its stack; 0 if refused. */
static int analyse(prog *pg, const af_expr *e, const char **why)
{
  int st[AF_EXPR_STACK_MAX], tag[AF_EXPR_STACK_MAX];
  size_t p = 0;
  pg->e = e;
  for (size_t i = 0; i < e->nops; i++) {
    int op = e->op[i];
    for (int q = 0; q < 4; q++)
      pg->arg[i][q] = -1;
    int nin = op == AF_EXPR_OP_CONST || op == AF_EXPR_OP_VAR ? 0
              : op == AF_EXPR_OP_IFLE ? 4
              : (op == AF_EXPR_OP_ADD || op == AF_EXPR_OP_SUB
                 || op == AF_EXPR_OP_MUL || op == AF_EXPR_OP_DIV
                 || op == AF_EXPR_OP_POW || op == AF_EXPR_OP_MIN
                 || op == AF_EXPR_OP_MAX) ? 2 : 1;
    if ((size_t) nin > p)
      return 0;
    int t[4] = {TAG_OTHER, TAG_OTHER, TAG_OTHER, TAG_OTHER};
    for (int q = 0; q < nin; q++) {
      pg->arg[i][q] = st[p - (size_t) nin + (size_t) q];
      t[q] = tag[p - (size_t) nin + (size_t) q];
    }
    p -= (size_t) nin;
    int out = TAG_OTHER;
    switch (op) {
    case AF_EXPR_OP_CONST: out = TAG_CONST; break;
    case AF_EXPR_OP_VAR:
      out = e->arg[i] == AF_EXPR_T ? TAG_T
            : e->arg[i] == AF_EXPR_TAU ? TAG_TAU : TAG_OTHER;
      break;
    case AF_EXPR_OP_ABS: case AF_EXPR_OP_MIN: case AF_EXPR_OP_MAX:
      *why = "abs, min and max are not analytic: a Taylor step whose error "
             "is estimated from its last coefficients would not see the "
             "kink; use mp-gbs or mp-gauss";
      return 0;
    case AF_EXPR_OP_IFLE: {
      int x = t[0], y = t[1];
      int ok = (x == TAG_TAU || y == TAG_TAU)
               && x != TAG_OTHER && y != TAG_OTHER;
      if (!ok) {
        *why = "ifle compares something other than t with tau (a switch "
               "inside a Taylor step); use mp-gbs or mp-gauss";
        return 0;
      }
      out = t[2] == TAG_CONST && t[3] == TAG_CONST ? TAG_CONST : TAG_OTHER;
      break;
    }
    default: {
      int allc = 1;
      for (int q = 0; q < nin; q++)
        allc &= t[q] == TAG_CONST;
      for (int q = 0; q < nin; q++)
        if (t[q] == TAG_TAU) {
          *why = "it reads tau outside a comparison ifle(t, tau, ...); "
                 "use mp-gbs or mp-gauss";
          return 0;
        }
      out = allc ? TAG_CONST : TAG_OTHER;
      break;
    }
    }
    pg->isconst[i] = out == TAG_CONST;
    st[p] = (int) i;
    tag[p++] = out;
  }
  if (p != 1 || tag[0] == TAG_TAU) {
    *why = "tau is the whole expression";
    return 0;
  }
  return 1;
}

const char *af_tay_spec_refusal(const af_scheme_spec *sp)
{
  if (af_scheme_spec_alters_attention(sp))
    return "its scores or gain change what attention sees (U3): the Taylor "
           "recursion is written for plain scores; use mp-gbs or mp-gauss";
  prog pg;
  const char *why = "not a valid program";
  if (!analyse(&pg, &sp->speed, &why) || !analyse(&pg, &sp->radial, &why))
    return why;
  return NULL;
}

const char *af_mp_taylor_spec_refusal(const af_scheme_spec *sp)
{
  return sp == NULL ? "no spec" : af_tay_spec_refusal(sp);
}

int af_tay_spec_reads_na(const af_scheme_spec *sp)
{
  return ((sp->speed.vars | sp->radial.vars) >> AF_EXPR_NA) & 1u;
}

const af_scheme_spec *af_tay_spec_of(const af_tay_spec *x)
{
  return x->sp;
}

void af_tay_spec_free(af_tay_spec *x)
{
  if (x == NULL)
    return;
  af_mp_vec_free(x->K, x->sp->k.n + 1);
  af_mp_vec_free(x->T, x->L);
  af_mp_vec_free(x->AL, x->L);
  af_mp_vec_free(x->S, x->n * x->nops * NSER * x->L);
  free(x);
}

af_tay_spec *af_tay_spec_alloc(const af_scheme_spec *sp, size_t n, size_t L,
                               mpfr_prec_t prec)
{
  if (sp == NULL || af_tay_spec_refusal(sp) != NULL)
    return NULL;
  af_tay_spec *x = calloc(1, sizeof *x);
  if (x == NULL)
    return NULL;
  const char *why;
  analyse(&x->pg[0], &sp->speed, &why);
  analyse(&x->pg[1], &sp->radial, &why);
  x->pg[0].off = 0;
  x->pg[1].off = sp->speed.nops;
  x->sp = sp;
  x->n = n;
  x->L = L;
  x->prec = prec;
  x->nops = sp->speed.nops + sp->radial.nops;
  size_t tot;
  if (!af_size_mul(&tot, n, x->nops * NSER) || !af_size_mul(&tot, tot, L)) {
    free(x);
    return NULL;
  }
  x->K = af_mp_vec_alloc(sp->k.n + 1, prec);
  x->T = af_mp_vec_alloc(L, prec);
  x->AL = af_mp_vec_alloc(L, prec);
  x->S = af_mp_vec_alloc(tot, prec);
  if (!x->K || !x->T || !x->AL || !x->S) {
    af_tay_spec_free(x);
    return NULL;
  }
  for (size_t i = 0; i < sp->k.n; i++)
    if (mpfr_set_str(x->K[i], sp->k.text[i], 10, R) != 0)
      mpfr_set_nan(x->K[i]); /* (the parser accepted it: cannot happen) */
  return x;
}

void af_tay_spec_piece(af_tay_spec *x, mpfr_srcptr t0, mpfr_srcptr alpha,
                       mpfr_srcptr decay, double tau_side)
{
  size_t L = x->L;
  for (size_t k = 0; k < L; k++)
    mpfr_set_zero(x->T[k], 1);
  mpfr_set(x->T[0], t0, R);
  if (L > 1)
    mpfr_set_ui(x->T[1], 1, R);
  /* alpha (1 + t)^-decay: c_0 exact up to rounding, then c_k as nGPT's */
  mpfr_t e, t1, tmp;
  mpfr_inits2(x->prec, e, t1, tmp, (mpfr_ptr) 0);
  mpfr_neg(e, decay, R);
  mpfr_add_ui(t1, t0, 1, R);
  mpfr_pow(tmp, t1, e, R);
  mpfr_mul(x->AL[0], tmp, alpha, R);
  power_series(x->AL, L, e, t0, tmp, t1);
  mpfr_clears(e, t1, tmp, (mpfr_ptr) 0);
  x->tau_side = tau_side;
}

/* Series q (aux a) of operation i of token j. */
static mpfr_t *ser(af_tay_spec *x, size_t j, size_t i, int a)
{
  return x->S + ((j * x->nops + i) * NSER + (size_t) a) * x->L;
}

/* c_k (k >= 1) of c = exp(a): (1/k) sum_{l=1}^k (l a_l) c_{k-l}, each
 * l a_l rounded once (as rec_exp on a stored series of l a_l). */
static void ser_exp(mpfr_t *c, mpfr_t *a, size_t k, mpfr_ptr acc,
                    mpfr_ptr tmp)
{
  mpfr_set_zero(acc, 1);
  for (size_t l = 1; l <= k; l++) {
    mpfr_mul_ui(tmp, a[l], (unsigned long) l, R);
    mpfr_mul(tmp, tmp, c[k - l], R);
    mpfr_add(acc, acc, tmp, R);
  }
  mpfr_div_ui(c[k], acc, (unsigned long) k, R);
}

/* c_k (k >= 1) of c = log(a):
 * (a_k - (1/k) sum_{l=1}^{k-1} (l c_l) a_{k-l}) / a_0. */
static void ser_log(mpfr_t *c, mpfr_t *a, size_t k, mpfr_ptr acc,
                    mpfr_ptr tmp)
{
  mpfr_set_zero(acc, 1);
  for (size_t l = 1; l < k; l++) {
    mpfr_mul_ui(tmp, c[l], (unsigned long) l, R);
    mpfr_mul(tmp, tmp, a[k - l], R);
    mpfr_add(acc, acc, tmp, R);
  }
  mpfr_div_ui(acc, acc, (unsigned long) k, R);
  mpfr_sub(acc, a[k], acc, R);
  mpfr_div(c[k], acc, a[0], R);
}

static void run(af_tay_spec *x, const prog *pg, size_t j, size_t k,
                mpfr_t *r, mpfr_t *c, mpfr_t *a, mpfr_ptr acc, mpfr_ptr tmp)
{
  const af_expr *e = pg->e;
  for (size_t i = 0; i < e->nops; i++) {
    size_t me = pg->off + i;
    mpfr_t *v = ser(x, j, me, 0), *u = ser(x, j, me, 1), *w = ser(x, j, me, 2);
    mpfr_t *A = pg->arg[i][0] >= 0 ? ser(x, j, pg->off + (size_t) pg->arg[i][0], 0)
                                   : NULL;
    mpfr_t *B = pg->arg[i][1] >= 0 ? ser(x, j, pg->off + (size_t) pg->arg[i][1], 0)
                                   : NULL;
    switch (e->op[i]) {
    case AF_EXPR_OP_CONST:
      if (k == 0)
        mpfr_set(v[0], x->K[e->arg[i]], R);
      else
        mpfr_set_zero(v[k], 1);
      break;
    case AF_EXPR_OP_VAR: {
      mpfr_t *src = NULL;
      switch (e->arg[i]) {
      case AF_EXPR_T: src = x->T; break;
      case AF_EXPR_R: src = r; break;
      case AF_EXPR_TA: src = c; break;
      case AF_EXPR_NA: src = a; break;
      case AF_EXPR_ALPHA: src = x->AL; break;
      default: break; /* tau: only compared (ifle) */
      }
      if (src)
        mpfr_set(v[k], src[k], R);
      else if (k == 0)
        mpfr_set_d(v[0], x->tau_side, R);
      else
        mpfr_set_zero(v[k], 1);
      break;
    }
    case AF_EXPR_OP_ADD: mpfr_add(v[k], A[k], B[k], R); break;
    case AF_EXPR_OP_SUB: mpfr_sub(v[k], A[k], B[k], R); break;
    case AF_EXPR_OP_NEG: mpfr_neg(v[k], A[k], R); break;
    case AF_EXPR_OP_MUL: conv(v[k], A, B, k, 0, tmp); break;
    case AF_EXPR_OP_DIV: rec_div(v, A, B, k, acc, tmp); break;
    case AF_EXPR_OP_SQRT: rec_sqrt(v, A, k, acc, tmp); break;
    case AF_EXPR_OP_EXP:
      if (k == 0)
        mpfr_exp(v[0], A[0], R);
      else
        ser_exp(v, A, k, acc, tmp);
      break;
    case AF_EXPR_OP_LOG:
      if (k == 0)
        mpfr_log(v[0], A[0], R);
      else
        ser_log(v, A, k, acc, tmp);
      break;
    case AF_EXPR_OP_TANH:
      mpfr_mul_ui(u[k], A[k], (unsigned long) k, R); /* u_l = l A_l */
      if (k == 0)
        mpfr_tanh(v[0], A[0], R);
      else {
        conv(acc, u, w, k, 1, tmp); /* sum_{l=1}^k (l A_l) q_{k-l} */
        mpfr_sub(acc, u[k], acc, R);
        mpfr_div_ui(v[k], acc, (unsigned long) k, R);
      }
      mpfr_set_zero(w[k], 1); /* q = v^2 */
      conv_sq_add(w[k], v, k, acc, tmp);
      break;
    case AF_EXPR_OP_POW:
      if (pg->isconst[pg->arg[i][1]]) {
        mpfr_srcptr ex = B[0];
        if (mpfr_cmp_ui(ex, 2) == 0) {
          mpfr_set_zero(v[k], 1);
          conv_sq_add(v[k], A, k, acc, tmp);
        } else if (k == 0)
          mpfr_pow(v[0], A[0], ex, R);
        else {
          /* sum_{l=0}^{k-1} (e (k - l) - l) A_{k-l} v_l / (k A_0) */
          mpfr_set_zero(acc, 1);
          for (size_t l = 0; l < k; l++) {
            mpfr_mul_ui(tmp, ex, (unsigned long) (k - l), R);
            mpfr_sub_ui(tmp, tmp, (unsigned long) l, R);
            mpfr_mul(tmp, tmp, A[k - l], R);
            mpfr_mul(tmp, tmp, v[l], R);
            mpfr_add(acc, acc, tmp, R);
          }
          mpfr_div_ui(acc, acc, (unsigned long) k, R);
          mpfr_div(v[k], acc, A[0], R);
        }
      } else {
        /* exp(y log x): u = log x, w = y log x */
        if (k == 0)
          mpfr_log(u[0], A[0], R);
        else
          ser_log(u, A, k, acc, tmp);
        conv(w[k], B, u, k, 0, tmp);
        if (k == 0)
          mpfr_exp(v[0], w[0], R);
        else
          ser_exp(v, w, k, acc, tmp);
      }
      break;
    case AF_EXPR_OP_IFLE: {
      /* the comparison's operands are t, tau or constants: decided by
       * their order-0 values, the same on the whole piece */
      mpfr_t *X = ser(x, j, pg->off + (size_t) pg->arg[i][0], 0);
      mpfr_t *Y = ser(x, j, pg->off + (size_t) pg->arg[i][1], 0);
      int pick = mpfr_lessequal_p(X[0], Y[0]) ? 2 : 3;
      mpfr_set(v[k], ser(x, j, pg->off + (size_t) pg->arg[i][pick], 0)[k], R);
      break;
    }
    default: /* refused at allocation */
      mpfr_set_nan(v[k]);
      break;
    }
  }
}

void af_tay_spec_coef(af_tay_spec *x, size_t j, size_t k, mpfr_t *r,
                      mpfr_t *c, mpfr_t *a, mpfr_ptr s, mpfr_ptr rho,
                      mpfr_ptr acc, mpfr_ptr tmp)
{
  run(x, &x->pg[0], j, k, r, c, a, acc, tmp);
  run(x, &x->pg[1], j, k, r, c, a, acc, tmp);
  mpfr_set(s, ser(x, j, x->pg[0].off + x->pg[0].e->nops - 1, 0)[k], R);
  mpfr_set(rho, ser(x, j, x->pg[1].off + x->pg[1].e->nops - 1, 0)[k], R);
}
