/* flow_tape.c -- the n-particle field of attention dynamics as a tape for
 * the validated Taylor integrator (vode.c, vode_impl.h).
 *
 * Cartesian state (directions theta_j, and radii r_j for the schemes whose
 * radii move), theorems.md M2, M3 and S0:
 *   E_jk = exp(beta (<theta_j, M theta_k> - 1)),  M = Q^T K (V = I),
 *   Z_j = sum_k E_jk,   A_j = sum_k E_jk theta_k / Z_j,
 *   c_j = <theta_j, A_j>,   P A_j = A_j - c_j theta_j,
 *   d theta_j/dt = P A_j / s_j,   d r_j/dt = rho_j,
 * with (s_j, rho_j) = (1, 0) Post-LN, (r_j, c_j) Pre-LN, Post-LN then
 * Pre-LN at tau for Mix-LN, (r_j |A_j|, c_j / |A_j|) Peri-LN,
 * (|A_j| / alpha(t), 0) nGPT with alpha(t) = alpha (1 + t)^-decay (exp of
 * a logarithm node), (sqrt(t + 1), 0) LN-Scaling (a time node).
 * With M = I the exponentials are symmetric and E_jj = 1 on the sphere:
 * one exponential per pair.  The tangent form v - <theta, v> theta makes
 * |theta_j| a first integral of the taped field, so it agrees with the
 * flow of the sphere on the set the exact start lies in.
 * A spec'd scheme (s->spec) puts its own speed and radial rate in place of
 * the switch over the built-ins (flow_spec.c), with radii in the state
 * when its speed reads r.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdlib.h>

#include "flow.h"
#include "scheme_spec.h"

#ifdef AF_HAVE_ARB

int af_flow_has_radii(af_scheme_id s)
{
  return s == AF_PRE_LN || s == AF_MIX_LN || s == AF_PERI_LN;
}

int af_flow_sys_has_radii(const af_flow_sys *s)
{
  if (s->spec)
    return af_flow_spec_reads(s->spec, 0, AF_EXPR_R);
  return af_flow_has_radii(s->scheme);
}

size_t af_flow_dim(const af_flow_sys *s)
{
  return s->n * s->d + (af_flow_sys_has_radii(s) ? s->n : 0);
}

#define ADD(x, y) af_vtape_push(tp, AF_VOP_ADD, x, y)
#define SUB(x, y) af_vtape_push(tp, AF_VOP_SUB, x, y)
#define MUL(x, y) af_vtape_push(tp, AF_VOP_MUL, x, y)
#define DIV(x, y) af_vtape_push(tp, AF_VOP_DIV, x, y)
#define EXP(x) af_vtape_push(tp, AF_VOP_EXP, x, -1)
#define SQRT(x) af_vtape_push(tp, AF_VOP_SQRT, x, -1)
#define LOG(x) af_vtape_push(tp, AF_VOP_LOG, x, -1)
#define CST(v) af_vtape_const_d(tp, v)

int af_flow_tape(af_vtape *tp, const af_flow_sys *s, int after, long prec)
{
  size_t n = s->n, d = s->d;
  if (n < 1 || d < 1 || !(s->beta >= 0)
      || (s->spec == NULL
          && ((int) s->scheme < 0 || s->scheme >= AF_SCHEME_COUNT))
      || (s->spec && af_flow_spec_refusal(s->spec)))
    return AF_EINVAL;
  const af_scheme_spec *sp = s->spec;
  int radii = af_flow_sys_has_radii(s);
  int rc = af_vtape_init(tp, (int) af_flow_dim(s));
  if (rc != AF_OK)
    return rc;
  int *th = malloc(n * d * sizeof *th), *u = malloc(n * d * sizeof *u);
  int *E = malloc(n * n * sizeof *E), *A = malloc(d * sizeof *A);
  int *cnode = malloc((sp ? sp->k.n : 0) * sizeof *cnode + 1);
  if (!th || !u || !E || !A || !cnode) {
    free(th); free(u); free(E); free(A); free(cnode);
    return AF_ENOMEM;
  }
  for (size_t i = 0; i < n * d; i++)
    th[i] = af_vtape_var(tp, (int) i);
  int rvar0 = radii ? (int) (n * d) : -1;
  if (radii)
    for (size_t j = 0; j < n; j++)
      af_vtape_var(tp, rvar0 + (int) j);
  /* u_k = M theta_k */
  for (size_t k = 0; k < n; k++)
    for (size_t c = 0; c < d; c++) {
      if (s->M == NULL) {
        u[k * d + c] = th[k * d + c];
        continue;
      }
      int acc = -1;
      for (size_t e = 0; e < d; e++) {
        int term = MUL(af_vtape_const(tp, s->M + c * d + e), th[k * d + e]);
        acc = acc < 0 ? term : ADD(acc, term);
      }
      u[k * d + c] = acc;
    }
  int bet = CST(s->beta), one = CST(1.0);
  for (size_t j = 0; j < n; j++)
    for (size_t k = 0; k < n; k++) {
      if (s->M == NULL && k < j) {
        E[j * n + k] = E[k * n + j];
        continue;
      }
      if (s->M == NULL && k == j) {
        E[j * n + k] = one;
        continue;
      }
      int dot = -1;
      for (size_t c = 0; c < d; c++) {
        int p = MUL(th[j * d + c], u[k * d + c]);
        dot = dot < 0 ? p : ADD(dot, p);
      }
      E[j * n + k] = EXP(MUL(bet, SUB(dot, one)));
    }
  int alph = -1, tnode = -1;
  int spec_alpha = sp && (af_flow_spec_reads(sp, 0, AF_EXPR_ALPHA)
                          || (radii && af_flow_spec_reads(sp, 1,
                                                          AF_EXPR_ALPHA)));
  int spec_t = sp && (af_flow_spec_reads(sp, 0, AF_EXPR_T)
                      || (radii && af_flow_spec_reads(sp, 1, AF_EXPR_T)));
  if (sp) {
    rc = af_flow_spec_consts(tp, cnode, sp, prec);
    if (rc != AF_OK) {
      free(th); free(u); free(E); free(A); free(cnode);
      return rc;
    }
    if (spec_t)
      tnode = af_vtape_push(tp, AF_VOP_TIME, -1, -1);
  }
  if ((!sp && s->scheme == AF_NGPT) || spec_alpha) {
    alph = CST(s->alpha);
    if (s->alpha_decay != 0) {
      if (tnode < 0)
        tnode = af_vtape_push(tp, AF_VOP_TIME, -1, -1);
      alph = MUL(alph, EXP(MUL(CST(-s->alpha_decay), LOG(ADD(tnode, one)))));
    }
  }
  int lnsc = -1;
  if (!sp && s->scheme == AF_LN_SCALING) {
    tnode = af_vtape_push(tp, AF_VOP_TIME, -1, -1);
    lnsc = SQRT(ADD(tnode, one));
  }
  for (size_t j = 0; j < n; j++) {
    int Z = E[j * n];
    for (size_t k = 1; k < n; k++)
      Z = ADD(Z, E[j * n + k]);
    int cj = -1, a2 = -1;
    for (size_t c = 0; c < d; c++) {
      int num = MUL(E[j * n], th[c]);
      for (size_t k = 1; k < n; k++)
        num = ADD(num, MUL(E[j * n + k], th[k * d + c]));
      A[c] = DIV(num, Z);
      int p = MUL(th[j * d + c], A[c]);
      cj = cj < 0 ? p : ADD(cj, p);
      int q = MUL(A[c], A[c]);
      a2 = a2 < 0 ? q : ADD(a2, q);
    }
    int rj = radii ? tp->var[rvar0 + (int) j] : -1;
    int den = -1; /* speed factor s_j (-1: 1), and the radial rate */
    int rho = -1;
    if (sp) {
      /* the spec's rates (flow_spec.c): the nodes of t, r, ta, na, alpha */
      int na = af_flow_spec_reads(sp, 0, AF_EXPR_NA)
               || (radii && af_flow_spec_reads(sp, 1, AF_EXPR_NA))
               ? SQRT(a2) : -1;
      int vars[AF_EXPR_NVARS] = {tnode, rj, cj, na, alph, -1};
      rc = af_flow_spec_expr(tp, &den, sp, &sp->speed, cnode, vars);
      if (rc == AF_OK && radii)
        rc = af_flow_spec_expr(tp, &rho, sp, &sp->radial, cnode, vars);
      if (rc != AF_OK) {
        free(th); free(u); free(E); free(A); free(cnode);
        return rc;
      }
    } else
    switch (s->scheme) {
    case AF_POST_LN:
      break;
    case AF_MIX_LN:
      if (!after) {
        rho = CST(0.0);
        break;
      }
      den = rj; /* Pre-LN after tau */
      rho = cj;
      break;
    case AF_PRE_LN:
      den = rj;
      rho = cj;
      break;
    case AF_PERI_LN: {
      int aj = SQRT(a2);
      den = MUL(rj, aj);
      rho = DIV(cj, aj);
      break;
    }
    case AF_NGPT:
      den = DIV(SQRT(a2), alph);
      break;
    case AF_LN_SCALING:
      den = lnsc;
      break;
    default:
      break;
    }
    for (size_t c = 0; c < d; c++) {
      int pa = SUB(A[c], MUL(cj, th[j * d + c]));
      tp->out[j * d + c] = den < 0 ? pa : DIV(pa, den);
    }
    if (radii)
      tp->out[rvar0 + (int) j] = rho;
  }
  free(th); free(u); free(E); free(A); free(cnode);
  return tp->oom ? AF_ENOMEM : AF_OK;
}

#endif /* AF_HAVE_ARB */
