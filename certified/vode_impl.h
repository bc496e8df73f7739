/* vode_impl.h -- the tape and the one-step integrator of vode.c, for the
 * other engines of certified/ (the n-particle field of flow_tape.c).  Not
 * installed.  Method and soundness argument: cert.h and vode.c.
 *
 * A tape is a straight-line program of nodes (constants, state variables,
 * time, +, -, *, /, exp, sqrt, log) whose outputs out[i] are the
 * components of the right-hand side f(t, y).  Its length and its state
 * dimension are only limited by memory: the node array grows as nodes are
 * pushed, and the integrator allocates its series (tape length x (K + 2)
 * values, x dim tangents) and its dim x dim Jacobians for the tape it is
 * given.
 */
#ifndef AF_VODE_IMPL_H
#define AF_VODE_IMPL_H

#include "cert.h"

#ifdef AF_HAVE_ARB

enum { AF_VOP_CONST, AF_VOP_VAR, AF_VOP_TIME, AF_VOP_ADD, AF_VOP_SUB,
       AF_VOP_MUL, AF_VOP_DIV, AF_VOP_EXP, AF_VOP_SQRT, AF_VOP_LOG };

typedef struct {
  int op, a, b;
  int isconst; /* the series is constant (only coefficient 0) */
} af_vnode;

typedef struct {
  int nn, cap, dim;
  af_vnode *nd;
  arb_ptr cval; /* cap values of AF_VOP_CONST nodes */
  int *var;     /* node of state variable i (dim) */
  int *out;     /* node of component i of f (dim) */
  int oom;      /* an allocation failed: the tape is unusable */
} af_vtape;

/* AF_OK or AF_ENOMEM (dim >= 1). */
int af_vtape_init(af_vtape *tp, int dim);
void af_vtape_clear(af_vtape *tp);
/* Push a node; its index (0 and tp->oom set if memory ran out). */
int af_vtape_push(af_vtape *tp, int op, int a, int b);
int af_vtape_const(af_vtape *tp, const arb_t v);
int af_vtape_const_d(af_vtape *tp, double v); /* exact */
int af_vtape_var(af_vtape *tp, int k);

/* The integrator on one tape (or on tapes of the same dimension and at
 * most the length of the first, af_vode_set_tape). */
typedef struct af_vode af_vode;

/* NULL if out of memory.  K: Taylor order; prec: working precision. */
af_vode *af_vode_alloc(const af_vtape *tp, int K, long prec);
void af_vode_free(af_vode *v);
/* Switch to another tape of the same dim and nn <= the first's
 * (Mix-LN at tau); AF_EINVAL otherwise. */
int af_vode_set_tape(af_vode *v, const af_vtape *tp);
/* The state (dim balls; set it before the first step) and the time (an
 * exact dyadic, 0 at allocation). */
arb_ptr af_vode_state(af_vode *v);
void af_vode_get_time(arf_t t, const af_vode *v);
/* TEST ONLY switches (cert.h: af_cert_opts). */
void af_vode_set_test(af_vode *v, int drop_remainder, double h_fixed);
/* One validated step from the current time towards tend (never beyond;
 * tend is reached exactly by the last step).  *hsug: the suggested step
 * (in/out, start with a small positive value), *rejected counts rejected
 * attempts.  AF_OK, AF_ENOPROGRESS (no a-priori enclosure even for tiny
 * steps), AF_EINVAL (empty mean-value/naive intersection: a soundness
 * bug, never a result). */
int af_vode_step(af_vode *v, const arf_t tend, double *hsug,
                 unsigned long *rejected);
/* f(t, Y) in balls at order 0 (out: dim balls). */
void af_vode_field(arb_ptr out, af_vode *v, const arb_t t, arb_srcptr Y);

/* The last accepted step's midpoint mid Y (dim balls, exact points),
 * point image phi(mid) with its remainder (dim balls) and the enclosure J
 * of the flow's Jacobian over the whole state it started from (dim x dim,
 * row-major): what Lohner's method (lohner.c) carries a set with.  Valid
 * until the next step. */
void af_vode_last(const af_vode *v, arb_srcptr *mid, arb_srcptr *phim,
                  arb_srcptr *J);
/* The last accepted step's a-priori enclosure (dim balls): every
 * solution from the state the step started from stays in it over the
 * whole step [t, t + h] (Picard-Lindelof).  Valid until the next step. */
arb_srcptr af_vode_apriori(const af_vode *v);

#endif /* AF_HAVE_ARB */
#endif /* AF_VODE_IMPL_H */
