/* vode.c -- validated Taylor integration of small ODE systems in Arb balls
 * (see cert.h for the method).
 *
 * The right-hand side is a straight-line program ("tape", vode_impl.h)
 * of operations: constants, the state variables, time, +, -, *, /, exp,
 * sqrt, log.  The tape grows as it is built and the integrator allocates
 * its series for the tape it is given: neither the length of the tape nor
 * the dimension of the state has a compiled-in limit.  Evaluating the tape on truncated Taylor series gives the
 * Taylor coefficients of the solution by the classical recurrences
 * (y_{k+1} = f_k / (k+1); products by convolution, quotients, exp and sqrt
 * by their recurrences; O(K^2) per node, convolutions with arb_dot).  Each
 * series optionally carries "tangents": its derivatives with respect to
 * the initial state, propagated by the same recurrences differentiated
 * (forward mode).  The tangents of the state are then the Taylor
 * coefficients of the variational equation Phi' = Df Phi, Phi(0) = I, so
 * one tape gives both the flow and its Jacobian.
 *
 * Soundness of one step (t, Y) -> (t + h, Y+), T = [t, t+h], H = [0, h]:
 *  - a-priori: (B_y, B_Phi) with (Y, I) + H (f, Df Phi)(T, B_y, B_Phi)
 *    contained in (B_y, B_Phi).  By Picard-Lindelof every solution from Y
 *    and its Jacobian stay in (B_y, B_Phi) on T.
 *  - Lagrange remainder: y(t+h) = sum_{k<=K} y_k(t) h^k + y_{K+1}(xi) h^{K+1}
 *    with xi in T and y(xi) in B_y, so y_{K+1} evaluated on (T, B_y) times
 *    h^{K+1} encloses the truncation error (same for Phi on (B_y, B_Phi)).
 *  - the flow phi_h is C^1 on Y, so for y0 in Y:
 *    phi_h(y0) in phi_h(mid Y) + J (y0 - mid Y), J enclosing Phi(h) over Y.
 *  - the naive enclosure sum y_k(Y) h^k + R is also valid; the result is
 *    their intersection.
 * Time t is an exact dyadic (arf), h a short dyadic, so t + h is exact.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vode_impl.h"

int af_cert_available(void)
{
#ifdef AF_HAVE_ARB
  return 1;
#else
  return 0;
#endif
}

void af_cert_sys_init(af_cert_sys *s, unsigned long n, double beta,
                      af_scheme_id scheme)
{
  memset(s, 0, sizeof *s);
  s->scheme = scheme;
  s->n = n;
  s->beta = beta;
  s->r0 = 1.0;
  s->alpha = 1.0;
  s->tau = 1.0;
}

void af_cert_opts_init(af_cert_opts *o, long prec)
{
  memset(o, 0, sizeof *o);
  o->prec = prec;
}

#ifdef AF_HAVE_ARB

enum { OP_CONST = AF_VOP_CONST, OP_VAR = AF_VOP_VAR, OP_TIME = AF_VOP_TIME,
       OP_ADD = AF_VOP_ADD, OP_SUB = AF_VOP_SUB, OP_MUL = AF_VOP_MUL,
       OP_DIV = AF_VOP_DIV, OP_EXP = AF_VOP_EXP, OP_SQRT = AF_VOP_SQRT,
       OP_LOG = AF_VOP_LOG };

typedef af_vnode node;
typedef af_vtape tape;

int af_vtape_init(af_vtape *tp, int dim)
{
  memset(tp, 0, sizeof *tp);
  tp->dim = dim;
  tp->cap = 64;
  tp->nd = malloc((size_t) tp->cap * sizeof *tp->nd);
  tp->cval = _arb_vec_init(tp->cap);
  tp->var = calloc((size_t) (dim > 0 ? dim : 1), sizeof *tp->var);
  tp->out = calloc((size_t) (dim > 0 ? dim : 1), sizeof *tp->out);
  if (dim < 1 || !tp->nd || !tp->var || !tp->out) {
    tp->oom = 1;
    return AF_ENOMEM;
  }
  return AF_OK;
}

void af_vtape_clear(af_vtape *tp)
{
  if (tp->cval)
    _arb_vec_clear(tp->cval, tp->cap);
  free(tp->nd);
  free(tp->var);
  free(tp->out);
  memset(tp, 0, sizeof *tp);
}

int af_vtape_push(af_vtape *tp, int op, int a, int b)
{
  if (tp->oom)
    return 0;
  if (tp->nn == tp->cap) {
    int nc = 2 * tp->cap;
    node *nd = realloc(tp->nd, (size_t) nc * sizeof *nd);
    if (nd == NULL) {
      tp->oom = 1;
      return 0;
    }
    tp->nd = nd;
    /* arb structs hold no pointers to themselves: they move by copy */
    arb_ptr cv = flint_realloc(tp->cval, (size_t) nc * sizeof(arb_struct));
    for (int i = tp->cap; i < nc; i++)
      arb_init(cv + i);
    tp->cval = cv;
    tp->cap = nc;
  }
  int i = tp->nn++;
  tp->nd[i].op = op;
  tp->nd[i].a = a;
  tp->nd[i].b = b;
  switch (op) {
  case OP_CONST: tp->nd[i].isconst = 1; break;
  case OP_VAR: case OP_TIME: tp->nd[i].isconst = 0; break;
  case OP_EXP: case OP_SQRT: case OP_LOG:
    tp->nd[i].isconst = tp->nd[a].isconst; break;
  default: tp->nd[i].isconst = tp->nd[a].isconst && tp->nd[b].isconst;
  }
  return i;
}

int af_vtape_const(af_vtape *tp, const arb_t v)
{
  int i = af_vtape_push(tp, OP_CONST, -1, -1);
  if (!tp->oom)
    arb_set(&tp->cval[i], v);
  return i;
}

int af_vtape_const_d(af_vtape *tp, double v)
{
  int i = af_vtape_push(tp, OP_CONST, -1, -1);
  if (!tp->oom)
    arb_set_d(&tp->cval[i], v); /* exact: a double is a dyadic number */
  return i;
}

int af_vtape_var(af_vtape *tp, int k)
{
  int i = af_vtape_push(tp, OP_VAR, k, -1);
  if (!tp->oom)
    tp->var[k] = i;
  return i;
}

#define tape_init af_vtape_init
#define tape_clear af_vtape_clear
#define push af_vtape_push
#define cst af_vtape_const
#define cst_d af_vtape_const_d
static int var(tape *tp, int k) { return af_vtape_var(tp, k); }

#define ADD(x, y) push(tp, OP_ADD, x, y)
#define SUB(x, y) push(tp, OP_SUB, x, y)
#define MUL(x, y) push(tp, OP_MUL, x, y)
#define DIV(x, y) push(tp, OP_DIV, x, y)
#define EXP(x) push(tp, OP_EXP, x, -1)
#define SQRT(x) push(tp, OP_SQRT, x, -1)

/* Tapes of the systems, in w = 1 - gamma (and r).  Derivations in
 * theory/t41.c: with E = e^{beta w}, D = E + n - 1, P = n - (n-1) w,
 *   F = 2 w P / D,  c = (E + (n-1)(1-w)) / D,
 *   a = sqrt(Q) / D,  Q = E^2 + 2(n-1)(1-w) E + (n-1)(1 + (n-2)(1-w)),
 * and w' = -F / s:
 *   Post-LN     w' = -2wP/D
 *   LN-Scaling  w' = -2wP/(D sqrt(t+1))
 *   Pre-LN      w' = -2wP/(D r),        r' = (E + (n-1)(1-w))/D
 *   Peri-LN     w' = -2wP/(r sqrt Q),   r' = (E + (n-1)(1-w))/sqrt Q
 *   nGPT        w' = -2 alpha wP/sqrt Q
 *   Mix-LN      Post-LN with r' = 0 (after = 0), Pre-LN (after = 1)
 *   USA (P1)    w' = -(2/n) e^beta e^{-beta w} w P.
 * phase: Mix-LN branch. */
static void build(tape *tp, const af_cert_sys *s, int after, long prec)
{
  af_scheme_id sc = s->scheme;
  int twod = !s->usa && (sc == AF_PRE_LN || sc == AF_MIX_LN || sc == AF_PERI_LN);
  tape_init(tp, twod ? 2 : 1);
  double nm1 = (double) (s->n - 1);
  int w = var(tp, 0);
  int r = twod ? var(tp, 1) : -1;
  int P = SUB(cst_d(tp, (double) s->n), MUL(cst_d(tp, nm1), w));
  int wP = MUL(w, P);
  if (s->usa) {
    arb_t c;
    arb_init(c);
    arb_set_d(c, s->beta);
    arb_exp(c, c, prec);
    arb_mul_si(c, c, -2, prec);
    arb_div_ui(c, c, s->n, prec);
    int Em = EXP(MUL(cst_d(tp, -s->beta), w));
    tp->out[0] = MUL(cst(tp, c), MUL(Em, wP));
    arb_clear(c);
    return;
  }
  int E = EXP(MUL(cst_d(tp, s->beta), w));
  int D = ADD(E, cst_d(tp, nm1));
  int m2wP = MUL(cst_d(tp, -2.0), wP);
  int omw = SUB(cst_d(tp, 1.0), w);
  int cnum = ADD(E, MUL(cst_d(tp, nm1), omw));
  int sqQ = -1;
  if (sc == AF_PERI_LN || sc == AF_NGPT) {
    int Q = ADD(ADD(MUL(E, E), MUL(MUL(cst_d(tp, 2.0 * nm1), omw), E)),
                MUL(cst_d(tp, nm1),
                    ADD(cst_d(tp, 1.0), MUL(cst_d(tp, nm1 - 1.0), omw))));
    sqQ = SQRT(Q);
  }
  switch (sc) {
  case AF_POST_LN:
    tp->out[0] = DIV(m2wP, D);
    break;
  case AF_LN_SCALING: {
    int tt = push(tp, OP_TIME, -1, -1);
    tp->out[0] = DIV(m2wP, MUL(D, SQRT(ADD(tt, cst_d(tp, 1.0)))));
    break;
  }
  case AF_MIX_LN:
    if (!after) {
      tp->out[0] = DIV(m2wP, D);
      tp->out[1] = cst_d(tp, 0.0);
      break;
    }
    tp->out[0] = DIV(m2wP, MUL(D, r)); /* Pre-LN after tau */
    tp->out[1] = DIV(cnum, D);
    break;
  case AF_PRE_LN:
    tp->out[0] = DIV(m2wP, MUL(D, r));
    tp->out[1] = DIV(cnum, D);
    break;
  case AF_PERI_LN:
    tp->out[0] = DIV(m2wP, MUL(r, sqQ));
    tp->out[1] = DIV(cnum, sqQ);
    break;
  case AF_NGPT:
    tp->out[0] = DIV(MUL(cst_d(tp, s->alpha), m2wP), sqQ);
    break;
  default:
    break;
  }
}

/* ---------------------------------------------------------------- series */

typedef struct {
  long prec;
  int K, S, dim; /* order, stride K + 2, dimension */
  int nn;        /* nodes allocated for */
  arb_ptr val;   /* nn x S */
  arb_ptr tan;   /* nn x dim x S */
  arb_ptr dd;    /* nn x S: k a_k for exp and log */
  arb_t tmp, tmp2;
} work;

#define V(W, i, k) ((W)->val + (i) * (W)->S + (k))
#define T(W, i, j, k) ((W)->tan + ((i) * (W)->dim + (j)) * (W)->S + (k))
#define DD(W, i, k) ((W)->dd + (i) * (W)->S + (k))

static void work_init(work *W, int nn, int dim, int K, long prec)
{
  W->prec = prec;
  W->K = K;
  W->S = K + 2;
  W->nn = nn;
  W->dim = dim;
  W->val = _arb_vec_init((slong) nn * W->S);
  W->tan = _arb_vec_init((slong) nn * dim * W->S);
  W->dd = _arb_vec_init((slong) nn * W->S);
  arb_init(W->tmp);
  arb_init(W->tmp2);
}

static void work_clear(work *W)
{
  _arb_vec_clear(W->val, (slong) W->nn * W->S);
  _arb_vec_clear(W->tan, (slong) W->nn * W->dim * W->S);
  _arb_vec_clear(W->dd, (slong) W->nn * W->S);
  arb_clear(W->tmp);
  arb_clear(W->tmp2);
}

/* dot product sum_{j=0}^{len-1} x[j] y[-j] (y walked backwards), with an
 * optional initial value and subtraction. */
static void dotr(arb_t res, const arb_t init, int sub, arb_srcptr x,
                 arb_srcptr y, long len, long prec)
{
  if (len <= 0) {
    if (init)
      arb_set(res, init);
    else
      arb_zero(res);
    return;
  }
  arb_dot(res, init, sub, x, 1, y, -1, len, prec);
}

/* Coefficient k of node i (values, and tangents if m > 0). */
static void coef(work *W, const tape *tp, int i, int k, int m,
                 arb_srcptr y0, arb_srcptr phi0, const arb_t t0)
{
  const node *nd = &tp->nd[i];
  long prec = W->prec;
  int a = nd->a, b = nd->b;
  arb_ptr v = V(W, i, k);
  if (nd->isconst && k > 0) {
    arb_zero(v);
    for (int j = 0; j < m; j++)
      arb_zero(T(W, i, j, k));
    return;
  }
  switch (nd->op) {
  case OP_CONST:
    arb_set(v, &tp->cval[i]);
    for (int j = 0; j < m; j++)
      arb_zero(T(W, i, j, k));
    break;
  case OP_TIME:
    if (k == 0)
      arb_set(v, t0);
    else if (k == 1)
      arb_one(v);
    else
      arb_zero(v);
    for (int j = 0; j < m; j++)
      arb_zero(T(W, i, j, k));
    break;
  case OP_VAR:
    if (k == 0) {
      arb_set(v, y0 + a);
      for (int j = 0; j < m; j++)
        arb_set(T(W, i, j, 0), phi0 + a * tp->dim + j);
    } else {
      int o = tp->out[a];
      arb_div_ui(v, V(W, o, k - 1), (ulong) k, prec);
      for (int j = 0; j < m; j++)
        arb_div_ui(T(W, i, j, k), T(W, o, j, k - 1), (ulong) k, prec);
    }
    break;
  case OP_ADD:
  case OP_SUB:
    if (nd->op == OP_ADD)
      arb_add(v, V(W, a, k), V(W, b, k), prec);
    else
      arb_sub(v, V(W, a, k), V(W, b, k), prec);
    for (int j = 0; j < m; j++) {
      if (nd->op == OP_ADD)
        arb_add(T(W, i, j, k), T(W, a, j, k), T(W, b, j, k), prec);
      else
        arb_sub(T(W, i, j, k), T(W, a, j, k), T(W, b, j, k), prec);
    }
    break;
  case OP_MUL:
    if (tp->nd[a].isconst || tp->nd[b].isconst) {
      int c = tp->nd[a].isconst ? a : b, x = c == a ? b : a;
      arb_mul(v, V(W, x, k), V(W, c, 0), prec);
      for (int j = 0; j < m; j++)
        arb_mul(T(W, i, j, k), T(W, x, j, k), V(W, c, 0), prec);
    } else {
      dotr(v, NULL, 0, V(W, a, 0), V(W, b, k), k + 1, prec);
      for (int j = 0; j < m; j++) {
        dotr(W->tmp, NULL, 0, T(W, a, j, 0), V(W, b, k), k + 1, prec);
        dotr(T(W, i, j, k), W->tmp, 0, V(W, a, 0), T(W, b, j, k), k + 1, prec);
      }
    }
    break;
  case OP_DIV:
    if (tp->nd[b].isconst) {
      arb_div(v, V(W, a, k), V(W, b, 0), prec);
      for (int j = 0; j < m; j++)
        arb_div(T(W, i, j, k), T(W, a, j, k), V(W, b, 0), prec);
    } else {
      /* c_k = (a_k - sum_{j<k} c_j b_{k-j}) / b_0 */
      dotr(W->tmp, V(W, a, k), 1, V(W, i, 0), V(W, b, k), k, prec);
      arb_div(v, W->tmp, V(W, b, 0), prec);
      /* c'_k = (a'_k - sum_{j<=k} c_j b'_{k-j} - sum_{j<k} c'_j b_{k-j}) / b_0 */
      for (int j = 0; j < m; j++) {
        dotr(W->tmp, T(W, a, j, k), 1, V(W, i, 0), T(W, b, j, k), k + 1, prec);
        dotr(W->tmp2, W->tmp, 1, T(W, i, j, 0), V(W, b, k), k, prec);
        arb_div(T(W, i, j, k), W->tmp2, V(W, b, 0), prec);
      }
    }
    break;
  case OP_EXP:
    if (k == 0)
      arb_exp(v, V(W, a, 0), prec);
    else {
      /* e_k = (1/k) sum_{j=1}^k j a_j e_{k-j} */
      arb_mul_ui(DD(W, i, k), V(W, a, k), (ulong) k, prec);
      dotr(W->tmp, NULL, 0, DD(W, i, 1), V(W, i, k - 1), k, prec);
      arb_div_ui(v, W->tmp, (ulong) k, prec);
    }
    /* e'_k = sum_{j<=k} e_j a'_{k-j} */
    for (int j = 0; j < m; j++)
      dotr(T(W, i, j, k), NULL, 0, V(W, i, 0), T(W, a, j, k), k + 1, prec);
    break;
  case OP_SQRT:
    if (k == 0)
      arb_sqrt(v, V(W, a, 0), prec);
    else {
      /* s_k = (a_k - sum_{j=1}^{k-1} s_j s_{k-j}) / (2 s_0) */
      dotr(W->tmp, V(W, a, k), 1, V(W, i, 1), V(W, i, k - 1), k - 1, prec);
      arb_div(v, W->tmp, V(W, i, 0), prec);
      arb_mul_2exp_si(v, v, -1);
    }
    /* s'_k = (a'_k / 2 - sum_{j=1}^k s_j s'_{k-j}) / s_0 */
    for (int j = 0; j < m; j++) {
      arb_mul_2exp_si(W->tmp2, T(W, a, j, k), -1);
      dotr(W->tmp, W->tmp2, 1, V(W, i, 1), T(W, i, j, k - 1), k, prec);
      arb_div(T(W, i, j, k), W->tmp, V(W, i, 0), prec);
    }
    break;
  case OP_LOG:
    /* l = log a: a l' = a', so l_k = (a_k - (1/k) sum_{j=1}^{k-1} j l_j
     * a_{k-j}) / a_0 */
    if (k == 0)
      arb_log(v, V(W, a, 0), prec);
    else {
      arb_zero(W->tmp);
      for (int j = 1; j < k; j++) {
        arb_mul_ui(W->tmp2, V(W, i, j), (ulong) j, prec);
        arb_addmul(W->tmp, W->tmp2, V(W, a, k - j), prec);
      }
      arb_div_ui(W->tmp, W->tmp, (ulong) k, prec);
      arb_sub(W->tmp, V(W, a, k), W->tmp, prec);
      arb_div(v, W->tmp, V(W, a, 0), prec);
    }
    /* l'_k = (a'_k - sum_{j=1}^k a_j l'_{k-j}) / a_0 */
    for (int j = 0; j < m; j++) {
      dotr(W->tmp, T(W, a, j, k), 1, V(W, a, 1), T(W, i, j, k - 1), k, prec);
      arb_div(T(W, i, j, k), W->tmp, V(W, a, 0), prec);
    }
    break;
  default:
    arb_indeterminate(v);
  }
}

/* Coefficients 0..K of every node at precision prec; tangents up to
 * order Kt if phi0 != NULL. */
static void tape_eval(work *W, const tape *tp, arb_srcptr y0, arb_srcptr phi0,
                      const arb_t t0, int K, int Kt, long prec)
{
  W->prec = prec;
  for (int k = 0; k <= K; k++) {
    int m = (phi0 && k <= Kt) ? tp->dim : 0;
    for (int i = 0; i < tp->nn; i++)
      coef(W, tp, i, k, m, y0, phi0, t0);
  }
}

/* sum_{k=0}^{K} c[k] h^k by Horner. */
static void horner(arb_t res, arb_srcptr c, int K, const arb_t h, long prec)
{
  arb_set(res, c + K);
  for (int k = K - 1; k >= 0; k--) {
    arb_mul(res, res, h, prec);
    arb_add(res, res, c + k, prec);
  }
}

/* ---------------------------------------------------------------- steps */

typedef struct {
  int dim, K, Kt; /* order of the values, of the tangents */
  long prec, plo; /* working precision; precision of the a-priori box,
                     the remainders and the Jacobian (they only need a
                     few correct bits: they multiply tiny quantities) */
  double fac;     /* step factor learnt from rejections */
  double hcap;    /* step cap learnt from failed a-priori enclosures */
  arb_ptr Y, mid, By, Bp, I, Cy, Cp, Ny, Np, R, RP, phim, naive, J, tmpv;
  arb_ptr cpt; /* point coefficients dim x (K+1), for the step size */
  arb_t T, H, h, hK;
  arf_t t;
  int drop_remainder;
  double h_fixed;
} stepper;

static void stepper_init(stepper *st, int dim, int K, long prec)
{
  st->dim = dim;
  st->K = K;
  st->Kt = K / 3 + 2 < K ? K / 3 + 2 : K;
  st->prec = prec;
  st->plo = prec < 96 ? prec : 96;
  st->fac = 0.7;
  st->hcap = INFINITY;
  arb_ptr *v[] = {&st->Y, &st->mid, &st->By, &st->Bp, &st->I, &st->Cy,
                  &st->Cp, &st->Ny, &st->Np, &st->R, &st->RP, &st->phim,
                  &st->naive, &st->J, &st->tmpv};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    *v[k] = _arb_vec_init((slong) dim * dim);
  st->cpt = _arb_vec_init((slong) dim * (K + 1));
  for (int i = 0; i < dim; i++)
    arb_one(st->I + i * dim + i);
  arb_init(st->T);
  arb_init(st->H);
  arb_init(st->h);
  arb_init(st->hK);
  arf_init(st->t);
}

static void stepper_clear(stepper *st)
{
  arb_ptr v[] = {st->Y, st->mid, st->By, st->Bp, st->I, st->Cy, st->Cp,
                 st->Ny, st->Np, st->R, st->RP, st->phim, st->naive, st->J,
                 st->tmpv};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    _arb_vec_clear(v[k], (slong) st->dim * st->dim);
  _arb_vec_clear(st->cpt, (slong) st->dim * (st->K + 1));
  arb_clear(st->T);
  arb_clear(st->H);
  arb_clear(st->h);
  arb_clear(st->hK);
  arf_clear(st->t);
}

/* (Ny, Np) = (Y, I) + H * (f, Df Phi)(T, By, Bp) at order 0. */
static void picard(stepper *st, work *W, const tape *tp)
{
  int d = tp->dim;
  tape_eval(W, tp, st->By, st->Bp, st->T, 0, 0, st->plo);
  for (int i = 0; i < d; i++) {
    arb_mul(st->Ny + i, V(W, tp->out[i], 0), st->H, st->plo);
    arb_add(st->Ny + i, st->Ny + i, st->Y + i, st->plo);
    for (int j = 0; j < d; j++) {
      arb_ptr p = st->Np + i * d + j;
      arb_mul(p, T(W, tp->out[i], j, 0), st->H, st->plo);
      arb_add(p, p, st->I + i * d + j, st->plo);
    }
  }
}

/* Inflate a ball: radius 2 rad + 2^-prec (1 + |mid|). */
static void inflate(arb_t x, long prec)
{
  mag_t e;
  mag_init(e);
  arb_get_mag(e, x);
  mag_mul_2exp_si(e, e, -prec);
  mag_add_ui_2exp_si(e, e, 1, -prec);
  mag_mul_2exp_si(arb_radref(x), arb_radref(x), 1);
  mag_add(arb_radref(x), arb_radref(x), e);
  mag_clear(e);
}

/* A-priori enclosure for the current h; 1 if found (in By, Bp). */
static int apriori(stepper *st, work *W, const tape *tp)
{
  int d = tp->dim;
  _arb_vec_set(st->By, st->Y, d);
  _arb_vec_set(st->Bp, st->I, d * d);
  picard(st, W, tp); /* first guess */
  for (int it = 0; it < 10; it++) {
    for (int i = 0; i < d; i++) {
      arb_set(st->By + i, st->Ny + i);
      inflate(st->By + i, st->plo);
    }
    for (int i = 0; i < d * d; i++) {
      arb_set(st->Bp + i, st->Np + i);
      inflate(st->Bp + i, st->plo);
    }
    picard(st, W, tp);
    int ok = 1;
    for (int i = 0; i < d && ok; i++)
      ok = arb_contains(st->By + i, st->Ny + i) && arb_is_finite(st->Ny + i);
    for (int i = 0; i < d * d && ok; i++)
      ok = arb_contains(st->Bp + i, st->Np + i) && arb_is_finite(st->Np + i);
    if (ok) {
      /* The image is contained in B, hence also encloses the solution. */
      _arb_vec_set(st->By, st->Ny, d);
      _arb_vec_set(st->Bp, st->Np, d * d);
      return 1;
    }
  }
  return 0;
}

/* Suggested next step (double) from the point coefficients. */
static double suggest(const stepper *st, double hmax)
{
  double lh = INFINITY;
  int K = st->K;
  for (int i = 0; i < st->dim; i++)
    for (int k = K - 1; k <= K; k++) {
      arb_srcptr c = st->cpt + i * (K + 1) + k;
      if (arf_is_zero(arb_midref(c)))
        continue;
      slong e = arf_abs_bound_lt_2exp_si(arb_midref(c));
      double l = ((double) (-st->prec) - (double) e) / (double) k;
      if (l < lh)
        lh = l;
    }
  if (!isfinite(lh))
    return hmax;
  return fmin(hmax, st->fac * exp2(lh));
}

/* Round h > 0 down to a dyadic with a 6-bit mantissa. */
static void short_dyadic(arf_t h, double hd)
{
  int e;
  frexp(hd, &e); /* hd = f 2^e, f in [0.5, 1) */
  double m = floor(ldexp(hd, 6 - e));
  if (m < 1)
    m = 1;
  arf_set_si_2exp_si(h, (slong) m, (slong) (e - 6));
}

/* One step towards tend; t advanced, Y replaced.  *hsug: step suggestion
 * (updated).  Returns AF_OK, AF_ENOPROGRESS, AF_EINVAL (soundness). */
static int step(stepper *st, work *W, const tape *tp, const arf_t tend,
                double *hsug, unsigned long *rejected)
{
  int d = tp->dim, K = st->K;
  long prec = st->prec;
  arf_t h, rem, t1;
  arf_init(h);
  arf_init(rem);
  arf_init(t1);
  int rc = AF_ENOPROGRESS;
  arf_sub(rem, tend, st->t, ARF_PREC_EXACT, ARF_RND_DOWN);
  double hd = fmin(st->h_fixed > 0 ? st->h_fixed : fmin(*hsug, st->hcap),
                   arf_get_d(rem, ARF_RND_DOWN));
  short_dyadic(h, hd);
  if (arf_cmp(h, rem) > 0 || hd >= arf_get_d(rem, ARF_RND_DOWN))
    arf_set(h, rem);
  for (int attempt = 0; attempt < 60; attempt++) {
    arf_add(t1, st->t, h, ARF_PREC_EXACT, ARF_RND_DOWN);
    arb_set_interval_arf(st->T, st->t, t1, prec);
    arf_t zero;
    arf_init(zero);
    arb_set_interval_arf(st->H, zero, h, prec);
    arf_clear(zero);
    arb_set_arf(st->h, h);
    if (!apriori(st, W, tp)) {
      /* learn the step the a-priori enclosure allows (the field's
       * Lipschitz bound over a box), probed upwards again below */
      st->hcap = 0.9 * arf_get_d(h, ARF_RND_DOWN);
      arf_mul_2exp_si(h, h, -1);
      (*rejected)++;
      continue;
    }
    /* remainder over (T, By, Bp) */
    int Kt = st->Kt;
    long plo = st->plo;
    tape_eval(W, tp, st->By, st->Bp, st->T, K, Kt, plo);
    arb_pow_ui(st->hK, st->h, (ulong) (K + 1), plo);
    for (int i = 0; i < d; i++) {
      int o = tp->out[i];
      arb_div_ui(st->R + i, V(W, o, K), (ulong) (K + 1), plo);
      arb_mul(st->R + i, st->R + i, st->hK, plo);
    }
    arb_pow_ui(st->hK, st->h, (ulong) (Kt + 1), plo);
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        arb_ptr p = st->RP + i * d + j;
        arb_div_ui(p, T(W, tp->out[i], j, Kt), (ulong) (Kt + 1), plo);
        arb_mul(p, p, st->hK, plo);
      }
    /* step too long for the remainder: halve (not for tiny steps) */
    int big = 0;
    for (int i = 0; i < d; i++) {
      mag_t mg;
      mag_init(mg);
      arb_get_mag(mg, st->R + i);
      if (!mag_is_finite(mg) || mag_cmp_2exp_si(mg, -prec + 6) > 0)
        big = 1;
      mag_clear(mg);
    }
    if (big && attempt < 40 && !st->drop_remainder && !(st->h_fixed > 0)) {
      arf_mul_2exp_si(h, h, -1);
      (*rejected)++;
      st->fac *= 0.7;
      continue;
    }
    if (attempt == 0 && st->fac < 0.7)
      st->fac *= 1.05;
    if (attempt == 0)
      st->hcap *= 1.1;
    if (st->drop_remainder) {
      _arb_vec_zero(st->R, d);
      _arb_vec_zero(st->RP, d * d);
    }
    /* point Taylor map at mid Y */
    for (int i = 0; i < d; i++)
      arb_get_mid_arb(st->mid + i, st->Y + i);
    /* time as a point for the point and Y passes */
    arb_set_arf(st->T, st->t);
    tape_eval(W, tp, st->mid, NULL, st->T, K, -1, prec);
    for (int i = 0; i < d; i++) {
      arb_ptr c = st->cpt + i * (K + 1);
      for (int k = 0; k <= K; k++)
        arb_set(c + k, V(W, tp->var[i], k));
      horner(st->phim + i, c, K, st->h, prec);
      arb_add(st->phim + i, st->phim + i, st->R + i, prec);
    }
    /* Jacobian over Y: tangents to order Kt at low precision */
    tape_eval(W, tp, st->Y, st->I, st->T, Kt, Kt, plo);
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) {
        arb_ptr p = st->J + i * d + j;
        horner(p, T(W, tp->var[i], j, 0), Kt, st->h, plo);
        arb_add(p, p, st->RP + i * d + j, plo);
      }
    /* naive Taylor map over Y */
    tape_eval(W, tp, st->Y, NULL, st->T, K, -1, prec);
    for (int i = 0; i < d; i++) {
      horner(st->naive + i, V(W, tp->var[i], 0), K, st->h, prec);
      arb_add(st->naive + i, st->naive + i, st->R + i, prec);
    }
    /* mean value form, intersected with the naive map */
    for (int i = 0; i < d; i++)
      arb_sub(st->tmpv + i, st->Y + i, st->mid + i, prec);
    rc = AF_OK;
    for (int i = 0; i < d; i++) {
      arb_dot(W->tmp, st->phim + i, 0, st->J + i * d, 1, st->tmpv, 1, d, prec);
      if (!arb_intersection(st->Y + i, W->tmp, st->naive + i, prec))
        rc = AF_EINVAL; /* soundness bug, never a result */
    }
    if (rc == AF_OK) {
      arf_set(st->t, t1);
      *hsug = suggest(st, 1e300);
    }
    break;
  }
  arf_clear(h);
  arf_clear(rem);
  arf_clear(t1);
  return rc;
}

static int sys_check(const af_cert_sys *s)
{
  if (s->n < 2 || !isfinite(s->beta) || s->beta < 0 || !isfinite(s->r0)
      || !(s->r0 > 0) || !isfinite(s->alpha) || !(s->alpha > 0)
      || !isfinite(s->tau) || s->tau < 0 || (int) s->scheme < 0
      || s->scheme >= AF_SCHEME_COUNT)
    return AF_EINVAL;
  return AF_OK;
}

int af_cert_solve(arb_ptr gamma, arb_ptr r, const double *times,
                  size_t ntimes, const af_cert_sys *s, const af_cert_opts *o,
                  af_cert_stats *stats)
{
  if (s == NULL || o == NULL || (ntimes > 0 && times == NULL)
      || sys_check(s) != AF_OK || o->prec < 32)
    return AF_EINVAL;
  for (size_t k = 0; k < ntimes; k++)
    if (!isfinite(times[k]) || times[k] < 0 || (k && times[k] < times[k - 1]))
      return AF_EINVAL;
  long prec = o->prec;
  int K = o->order ? (int) o->order : (int) ceil((double) prec * log(2.0) / 2.0);
  unsigned long maxsteps = o->max_steps ? o->max_steps : 100000UL;
  int mix = !s->usa && s->scheme == AF_MIX_LN;
  int after = mix && s->tau == 0;
  tape tp;
  int nmax = 0;
  if (mix) { /* the work space must hold the longer (Pre-LN) branch too */
    build(&tp, s, 1, prec);
    nmax = tp.nn;
    tape_clear(&tp);
  }
  build(&tp, s, after, prec);
  if (tp.oom) {
    tape_clear(&tp);
    return AF_ENOMEM;
  }
  work W;
  work_init(&W, tp.nn > nmax ? tp.nn : nmax, tp.dim, K, prec);
  stepper st;
  stepper_init(&st, tp.dim, K, prec);
  st.drop_remainder = o->drop_remainder;
  st.h_fixed = o->h_fixed;
  arb_one(st.Y); /* w(0) = 1 - gamma(0) = 1 */
  if (tp.dim == 2)
    arb_set_d(st.Y + 1, s->r0);
  arf_zero(st.t);
  unsigned long steps = 0, rejected = 0;
  double hsug = 1.0 / 16, maxrad = -INFINITY;
  int rc = AF_OK;
  arf_t tend, tau;
  arf_init(tend);
  arf_init(tau);
  arf_set_d(tau, s->tau);
  size_t k = 0;
  for (; k < ntimes && rc == AF_OK; k++) {
    arf_set_d(tend, times[k]);
    while (arf_cmp(st.t, tend) < 0 && rc == AF_OK) {
      if (mix && !after && arf_equal(st.t, tau)) {
        /* Mix-LN: exactly at tau, restart with the Pre-LN branch */
        after = 1;
        tape_clear(&tp);
        build(&tp, s, after, prec);
      }
      arf_srcptr target = (mix && !after && arf_cmp(tau, tend) < 0) ? tau : tend;
      if (steps + rejected >= maxsteps) {
        rc = AF_EMAXSTEPS;
        break;
      }
      rc = step(&st, &W, &tp, target, &hsug, &rejected);
      steps++;
    }
    if (rc != AF_OK)
      break;
    if (gamma) {
      arb_sub_si(gamma + k, st.Y, 1, prec);
      arb_neg(gamma + k, gamma + k);
      maxrad = fmax(maxrad, mag_get_d_log2_approx(arb_radref(gamma + k)));
    }
    if (r) {
      if (tp.dim == 2)
        arb_set(r + k, st.Y + 1);
      else
        arb_set_d(r + k, s->r0);
      if (!mag_is_zero(arb_radref(r + k)))
        maxrad = fmax(maxrad, mag_get_d_log2_approx(arb_radref(r + k)));
    }
  }
  for (; k < ntimes; k++) {
    if (gamma)
      arb_indeterminate(gamma + k);
    if (r)
      arb_indeterminate(r + k);
  }
  if (stats) {
    stats->steps = steps;
    stats->rejected = rejected;
    stats->order = (unsigned) K;
    stats->tmax_rad_log2 = maxrad;
  }
  arf_clear(tend);
  arf_clear(tau);
  stepper_clear(&st);
  work_clear(&W);
  tape_clear(&tp);
  return rc;
}

int af_cert_rhs(arb_t dgamma, arb_t dr, const arb_t t, const arb_t gamma,
                const arb_t r, int after, const af_cert_sys *s, long prec)
{
  if (sys_check(s) != AF_OK)
    return AF_EINVAL;
  tape tp;
  build(&tp, s, after, prec);
  if (tp.oom) {
    tape_clear(&tp);
    return AF_ENOMEM;
  }
  work W;
  work_init(&W, tp.nn, tp.dim, 0, prec);
  arb_struct y[2];
  arb_init(y);
  arb_init(y + 1);
  arb_sub_si(y, gamma, 1, prec);
  arb_neg(y, y);
  arb_set(y + 1, r);
  tape_eval(&W, &tp, y, NULL, t, 0, -1, prec);
  if (dgamma)
    arb_neg(dgamma, V(&W, tp.out[0], 0));
  if (dr) {
    if (tp.dim == 2)
      arb_set(dr, V(&W, tp.out[1], 0));
    else
      arb_zero(dr);
  }
  arb_clear(y);
  arb_clear(y + 1);
  work_clear(&W);
  tape_clear(&tp);
  return AF_OK;
}

/* ------------------------------------------------- tapes of other engines */

struct af_vode {
  const tape *tp;
  work W;
  stepper st;
};

af_vode *af_vode_alloc(const af_vtape *tp, int K, long prec)
{
  if (tp == NULL || tp->oom || tp->dim < 1 || K < 1 || prec < 32)
    return NULL;
  af_vode *v = malloc(sizeof *v);
  if (v == NULL)
    return NULL;
  v->tp = tp;
  work_init(&v->W, tp->nn, tp->dim, K, prec);
  stepper_init(&v->st, tp->dim, K, prec);
  arf_zero(v->st.t);
  return v;
}

void af_vode_free(af_vode *v)
{
  if (v == NULL)
    return;
  work_clear(&v->W);
  stepper_clear(&v->st);
  free(v);
}

int af_vode_set_tape(af_vode *v, const af_vtape *tp)
{
  if (tp == NULL || tp->oom || tp->dim != v->st.dim || tp->nn > v->W.nn)
    return AF_EINVAL;
  v->tp = tp;
  return AF_OK;
}

arb_ptr af_vode_state(af_vode *v) { return v->st.Y; }

void af_vode_get_time(arf_t t, const af_vode *v) { arf_set(t, v->st.t); }

void af_vode_set_test(af_vode *v, int drop_remainder, double h_fixed)
{
  v->st.drop_remainder = drop_remainder;
  v->st.h_fixed = h_fixed;
}

int af_vode_step(af_vode *v, const arf_t tend, double *hsug,
                 unsigned long *rejected)
{
  if (arf_cmp(v->st.t, tend) >= 0)
    return AF_EINVAL;
  return step(&v->st, &v->W, v->tp, tend, hsug, rejected);
}

void af_vode_field(arb_ptr out, af_vode *v, const arb_t t, arb_srcptr Y)
{
  tape_eval(&v->W, v->tp, Y, NULL, t, 0, -1, v->st.prec);
  for (int i = 0; i < v->tp->dim; i++)
    arb_set(out + i, V(&v->W, v->tp->out[i], 0));
}

void af_vode_last(const af_vode *v, arb_srcptr *mid, arb_srcptr *phim,
                  arb_srcptr *J)
{
  *mid = v->st.mid;
  *phim = v->st.phim;
  *J = v->st.J;
}

arb_srcptr af_vode_apriori(const af_vode *v) { return v->st.By; }

/* ---------------------------------------------------------------- proofs */

int af_cert_prove_gt0(af_prove_result *res, double *where,
                      unsigned long *boxes, af_cert_fn g, void *ctx,
                      double lo, double hi, unsigned long max_boxes,
                      long prec)
{
  if (!res || !g || !(lo <= hi) || !isfinite(lo) || !isfinite(hi))
    return AF_EINVAL;
  /* explicit stack of intervals [a, b] (exact doubles: midpoints of
   * doubles are exact until the spacing reaches the ulp, where the box
   * cannot be split and counts as undecided) */
  size_t cap = 256, top = 0;
  double *stk = malloc(2 * cap * sizeof *stk);
  if (stk == NULL)
    return AF_ENOMEM;
  stk[0] = lo;
  stk[1] = hi;
  top = 1;
  unsigned long nb = 0;
  arb_t x, y;
  arf_t al, bl;
  arb_init(x);
  arb_init(y);
  arf_init(al);
  arf_init(bl);
  int rc = AF_OK;
  *res = AF_PROVE_CERTIFIED;
  if (where)
    *where = NAN;
  while (top > 0) {
    double a = stk[2 * (top - 1)], b = stk[2 * (top - 1) + 1];
    top--;
    if (nb >= max_boxes) {
      *res = AF_PROVE_UNDECIDED;
      if (where)
        *where = 0.5 * (a + b);
      break;
    }
    nb++;
    arf_set_d(al, a);
    arf_set_d(bl, b);
    arb_set_interval_arf(x, al, bl, prec);
    if ((rc = g(y, x, ctx, prec)) != AF_OK)
      break;
    if (arb_is_positive(y))
      continue;
    /* the midpoint, an exact point */
    double c = a + 0.5 * (b - a);
    arb_set_d(x, c);
    if ((rc = g(y, x, ctx, prec)) != AF_OK)
      break;
    if (arb_is_negative(y) || arb_is_zero(y)) {
      *res = AF_PROVE_REFUTED;
      if (where)
        *where = c;
      break;
    }
    if (!(c > a && c < b)) {
      *res = AF_PROVE_UNDECIDED;
      if (where)
        *where = c;
      break;
    }
    if (top + 2 > cap) {
      double *ns = realloc(stk, 4 * cap * sizeof *ns);
      if (ns == NULL) {
        rc = AF_ENOMEM;
        break;
      }
      stk = ns;
      cap *= 2;
    }
    stk[2 * top] = c;
    stk[2 * top + 1] = b;
    stk[2 * top + 2] = a;
    stk[2 * top + 3] = c;
    top += 2;
  }
  if (boxes)
    *boxes = nb;
  arb_clear(x);
  arb_clear(y);
  arf_clear(al);
  arf_clear(bl);
  free(stk);
  return rc;
}

#endif /* AF_HAVE_ARB */
