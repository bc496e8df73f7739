/* claims_proofs.c -- certified claims that are inequalities: ball
 * arithmetic (Arb, certified/cert.h af_cert_prove_gt0) proves a function
 * positive on a whole interval by bisection, or (C-order) compares
 * enclosures of two schemes on a grid.  The enclosures of T4.1, C-P1,
 * C-mpref and T4.1a are in claims_cert.c, whose statuses these share
 * (certified, could-not-certify, refuted) and whose two cases they use
 * (claims_cert.h).
 *
 *   C-F                  F(gamma) > 0 on (-1/(n-1), 1), zeros at the ends:
 *                        bisection in the middle, F' > 0 on [a, a + 1/64]
 *                        (a <= -1/(n-1) proven) and F' < 0 on [1 - 1/64, 1]
 *   C-T3.1r              symmetric configuration: dr/dt >= (e^b - n + 1)/(n e^b)
 *                        for Pre-LN (c(gamma)) and Peri-LN (c/a) for all
 *                        gamma and beta in [ln n, 8], n in {2,3,5,16,64,256}
 *   C-T4.1a-speed        Peri-LN's initial speed above Pre-LN's (r0 = 1):
 *                        (e^b + n - 1)/sqrt(e^{2b} + n - 1) > 1, in x = e^-b
 *                        on [2^-40, 1] (beta in [0, 27.7]), same n
 *   C-order              gamma of Post-LN above Pre-LN's on t in [1/4, 8]
 *                        (r0 = 1), both cases: enclosures on a graded grid
 *                        (cells t^2/16, at most 1/16) and monotonicity
 *                        (gamma increases: C-F, s > 0), so
 *                        lo(gamma_post(t_k)) > hi(gamma_pre(t_{k+1})) covers
 *                        [t_k, t_{k+1}]
 *
 * False variants (expected refuted): C-F-false (F > 0 on an interval
 * reaching 0.05 below -1/(n-1)), C-T3.1r-false (the bound times n^2),
 * C-speed-false (Pre-LN faster than Peri-LN), C-order-false (Pre-LN above
 * Post-LN).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stddef.h>

#include "verify.h"
#include "cert.h"
#include "claims_cert.h"

#ifdef AF_HAVE_ARB

/* ---------------------------------------------------------------- proofs */

typedef struct {
  unsigned long n;
  arb_t beta; /* a ball: a range of beta */
  int which;  /* function selector */
  int flip;   /* prove -g > 0 (false variants) */
  arb_t bound_fac;
} pctx;

/* F(gamma) (which 0) and F'(gamma) (which 1, 2 = -F'). */
static int fn_F(arb_t out, const arb_t x, void *vctx, long prec)
{
  pctx *p = vctx;
  unsigned long n = p->n;
  arb_t u, pp, q, Z, eb, t;
  arb_init(u);
  arb_init(pp);
  arb_init(q);
  arb_init(Z);
  arb_init(eb);
  arb_init(t);
  arb_mul(u, p->beta, x, prec);
  arb_exp(u, u, prec);
  arb_sub_si(pp, x, 1, prec);
  arb_neg(pp, pp);
  arb_mul_ui(q, x, n - 1, prec);
  arb_add_ui(q, q, 1, prec);
  arb_exp(eb, p->beta, prec);
  arb_mul_ui(Z, u, n - 1, prec);
  arb_add(Z, Z, eb, prec);
  if (p->which == 0) { /* F = 2 u p q / Z */
    arb_mul(out, u, pp, prec);
    arb_mul(out, out, q, prec);
    arb_div(out, out, Z, prec);
    arb_mul_2exp_si(out, out, 1);
  } else { /* F' = 2 u [beta p q e^b + ((n-1) p - q) Z] / Z^2 */
    arb_mul(t, pp, q, prec);
    arb_mul(t, t, p->beta, prec);
    arb_mul(t, t, eb, prec);
    arb_mul_ui(out, pp, n - 1, prec);
    arb_sub(out, out, q, prec);
    arb_mul(out, out, Z, prec);
    arb_add(out, out, t, prec);
    arb_mul(out, out, u, prec);
    arb_div(out, out, Z, prec);
    arb_div(out, out, Z, prec);
    arb_mul_2exp_si(out, out, 1);
    if (p->which == 2)
      arb_neg(out, out);
  }
  if (p->flip)
    arb_neg(out, out);
  arb_clear(u);
  arb_clear(pp);
  arb_clear(q);
  arb_clear(Z);
  arb_clear(eb);
  arb_clear(t);
  return AF_OK;
}

/* Combine proof outcomes: any refuted wins, then undecided. */
static void combine(af_prove_result *acc, af_prove_result r)
{
  if (r == AF_PROVE_REFUTED || *acc == AF_PROVE_REFUTED)
    *acc = AF_PROVE_REFUTED;
  else if (r == AF_PROVE_UNDECIDED)
    *acc = AF_PROVE_UNDECIDED;
}

#define PROOF_PREC 64
#define MAX_BOXES 200000UL

/* A proof in parts: their combined result and the boxes they took. */
typedef struct {
  af_prove_result acc;
  unsigned long boxes;
} proof;

/* One part: fn > 0 on [lo, hi] (MAX_BOXES, PROOF_PREC); its result,
 * *where (unless NULL) as af_cert_prove_gt0 gives it. */
static af_prove_result prove_part(proof *pf, double *where, af_cert_fn fn,
                                  void *ctx, double lo, double hi)
{
  af_prove_result res;
  unsigned long b;
  double w;
  af_cert_prove_gt0(&res, where ? where : &w, &b, fn, ctx, lo, hi, MAX_BOXES,
                    PROOF_PREC);
  combine(&pf->acc, res);
  pf->boxes += b;
  return res;
}

static void proof_result(af_vresult *r, af_prove_result res,
                         unsigned long boxes)
{
  r->measured = (double) boxes;
  r->predicted = NAN;
  r->tolerance = 0;
  r->margin = NAN;
  r->status = res == AF_PROVE_CERTIFIED ? AF_V_CERTIFIED
              : res == AF_PROVE_REFUTED ? AF_V_REFUTED
                                        : AF_V_NOCERT;
  af_v_note(r, "; %lu boxes", boxes);
}

/* largest double a <= -1/(n-1), proven */
static double left_end(unsigned long n)
{
  double a = -1.0 / (double) (n - 1);
  arb_t x;
  arb_init(x);
  for (;;) {
    arb_set_d(x, a);
    arb_mul_ui(x, x, n - 1, 128);
    arb_add_ui(x, x, 1, 128);
    if (arb_is_nonpositive(x))
      break;
    a = nextafter(a, -INFINITY);
  }
  arb_clear(x);
  return a;
}

/* arg 0: F > 0 on (-1/(n-1), 1); arg 1: false variant, F > 0 down to
 * 0.05 below -1/(n-1). */
static void claim_F(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  proof pf = {AF_PROVE_CERTIFIED, 0};
  double where;
  const double delta = 1.0 / 64;
  for (int ci = 0; ci < 2; ci++) {
    pctx p;
    p.n = ccases[ci].n;
    arb_init(p.beta);
    arb_init(p.bound_fac);
    arb_set_d(p.beta, ccases[ci].beta);
    p.flip = 0;
    double a = left_end(p.n);
    if (arg == 0) {
      p.which = 1; /* F' > 0 on [a, a + delta] */
      prove_part(&pf, &where, fn_F, &p, a, a + delta);
      p.which = 0; /* F > 0 in the middle */
      prove_part(&pf, &where, fn_F, &p, a + delta, 1 - delta);
      p.which = 2; /* F' < 0 on [1 - delta, 1] */
      prove_part(&pf, &where, fn_F, &p, 1 - delta, 1);
      /* the zeros: F(1) = 0 exactly, F(-1/(n-1)) contains 0 */
      arb_t x, y;
      arb_init(x);
      arb_init(y);
      p.which = 0;
      arb_one(x);
      fn_F(y, x, &p, 128);
      int z1 = arb_is_zero(y);
      arb_set_si(x, -1);
      arb_div_ui(x, x, p.n - 1, 128);
      fn_F(y, x, &p, 128);
      int z2 = arb_contains_zero(y);
      if (!(z1 && z2))
        combine(&pf.acc, AF_PROVE_UNDECIDED);
      arb_clear(x);
      arb_clear(y);
      af_v_note(r, "%sn=%lu beta=%g: F'>0 on [%.6g, %.6g], F>0 on [%.6g, %.6g], F'<0 on [%.6g, 1]",
                ci ? "; " : "", p.n, ccases[ci].beta, a, a + delta, a + delta,
                1 - delta, 1 - delta);
    } else {
      p.which = 0;
      af_prove_result res =
          prove_part(&pf, &where, fn_F, &p, a - 0.05, 1 - delta);
      af_v_note(r, "%sn=%lu: F>0 on [%.6g, %.6g]: %s at %.6g", ci ? "; " : "",
                p.n, a - 0.05, 1 - delta,
                res == AF_PROVE_REFUTED ? "refuted" : "not refuted", where);
    }
    arb_clear(p.beta);
    arb_clear(p.bound_fac);
  }
  proof_result(r, pf.acc, pf.boxes);
}

/* T3.1r at the symmetric configuration: which 0 Pre-LN c(gamma), 1 Peri-LN
 * c/a, minus bound_fac (1 - (n-1) e^{-beta}) / n. */
static int fn_t31r(arb_t out, const arb_t x, void *vctx, long prec)
{
  pctx *p = vctx;
  unsigned long n = p->n;
  arb_t w, E, num, Q, t, bnd;
  arb_init(w);
  arb_init(E);
  arb_init(num);
  arb_init(Q);
  arb_init(t);
  arb_init(bnd);
  arb_sub_si(w, x, 1, prec);
  arb_neg(w, w); /* w = 1 - gamma */
  arb_mul(E, p->beta, w, prec);
  arb_exp(E, E, prec); /* E = e^{beta w} */
  arb_mul_ui(num, x, n - 1, prec);
  arb_add(num, num, E, prec); /* E + (n-1)(1-w) */
  if (p->which == 0) { /* c = num / (E + n - 1) */
    arb_add_ui(t, E, n - 1, prec);
    arb_div(out, num, t, prec);
  } else { /* c/a = num / sqrt(E^2 + 2(n-1) g E + (n-1)(1 + (n-2) g)) */
    arb_mul(Q, E, E, prec);
    arb_mul(t, x, E, prec);
    arb_mul_ui(t, t, 2 * (n - 1), prec);
    arb_add(Q, Q, t, prec);
    arb_mul_ui(t, x, n - 2, prec);
    arb_add_ui(t, t, 1, prec);
    arb_mul_ui(t, t, n - 1, prec);
    arb_add(Q, Q, t, prec);
    arb_sqrt(Q, Q, prec);
    arb_div(out, num, Q, prec);
  }
  arb_neg(bnd, p->beta);
  arb_exp(bnd, bnd, prec);
  arb_mul_ui(bnd, bnd, n - 1, prec);
  arb_sub_ui(bnd, bnd, 1, prec);
  arb_neg(bnd, bnd);
  arb_div_ui(bnd, bnd, n, prec);
  arb_mul(bnd, bnd, p->bound_fac, prec);
  arb_sub(out, out, bnd, prec);
  arb_clear(w);
  arb_clear(E);
  arb_clear(num);
  arb_clear(Q);
  arb_clear(t);
  arb_clear(bnd);
  return AF_OK;
}

static const unsigned long t31r_n[] = {2, 3, 5, 16, 64, 256};
#define T31R_BMAX 8.0

/* Prove fn > 0 for gamma in [-1/(n-1), 1] and beta in [blo, bhi] by
 * bisection in beta around the 1-D prover in gamma. */
static af_prove_result prove_beta_range(unsigned long *boxes, pctx *p,
                                        af_cert_fn fn, double glo, double blo,
                                        double bhi)
{
  double stk[2 * 64];
  int top = 0;
  stk[0] = blo;
  stk[1] = bhi;
  top = 1;
  af_prove_result acc = AF_PROVE_CERTIFIED;
  unsigned long total = 0;
  arb_t gx, y;
  arb_init(gx);
  arb_init(y);
  while (top > 0 && acc == AF_PROVE_CERTIFIED) {
    top--;
    double a = stk[2 * top], b = stk[2 * top + 1];
    arf_t al, bl;
    arf_init(al);
    arf_init(bl);
    arf_set_d(al, a);
    arf_set_d(bl, b);
    arb_set_interval_arf(p->beta, al, bl, PROOF_PREC);
    arf_clear(al);
    arf_clear(bl);
    af_prove_result res;
    unsigned long nb;
    double where;
    af_cert_prove_gt0(&res, &where, &nb, fn, p, glo, 1.0, 4000, PROOF_PREC);
    total += nb;
    if (res == AF_PROVE_CERTIFIED) {
      /* the sliver [-1/(n-1), glo] as one ball */
      arb_set_si(gx, -1);
      arb_div_ui(gx, gx, p->n - 1, 128);
      arb_t e;
      arb_init(e);
      arb_set_d(e, glo);
      arb_union(gx, gx, e, 128);
      arb_clear(e);
      fn(y, gx, p, PROOF_PREC);
      if (arb_is_positive(y))
        continue;
      res = AF_PROVE_UNDECIDED;
    }
    if (res == AF_PROVE_REFUTED) {
      acc = res;
      break;
    }
    if (top + 2 > 64 || b - a < 1.0 / 4096) {
      acc = AF_PROVE_UNDECIDED;
      break;
    }
    double m = 0.5 * (a + b);
    stk[2 * top] = m;
    stk[2 * top + 1] = b;
    stk[2 * top + 2] = a;
    stk[2 * top + 3] = m;
    top += 2;
  }
  arb_clear(gx);
  arb_clear(y);
  *boxes += total;
  return acc;
}

/* arg 0: the bound; arg 1: false variant (bound times n^2). */
static void claim_t31r(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  af_prove_result acc = AF_PROVE_CERTIFIED;
  unsigned long boxes = 0;
  for (size_t i = 0; i < sizeof t31r_n / sizeof t31r_n[0]; i++) {
    pctx p;
    p.n = t31r_n[i];
    arb_init(p.beta);
    arb_init(p.bound_fac);
    arb_set_ui(p.bound_fac, arg ? p.n * p.n : 1);
    p.flip = 0;
    /* beta_min = ceil(16 ln n)/16 >= ln n, so n <= e^beta */
    double bmin = ceil(16.0 * log((double) p.n)) / 16.0;
    arb_t e;
    arb_init(e);
    arb_set_d(e, bmin);
    arb_exp(e, e, 128);
    arb_sub_ui(e, e, p.n, 128);
    if (!arb_is_nonnegative(e))
      bmin += 1.0 / 16;
    arb_clear(e);
    /* gamma in [glo, 1], glo the double just above -1/(n-1) */
    double glo = -1.0 / (double) (p.n - 1);
    glo = nextafter(left_end(p.n), 0.0);
    for (int which = 0; which < 2; which++) {
      p.which = which;
      af_prove_result res = prove_beta_range(&boxes, &p, fn_t31r, glo, bmin, T31R_BMAX);
      combine(&acc, res);
      if (res != AF_PROVE_CERTIFIED)
        af_v_note(r, "n=%lu %s: %s; ", p.n, which ? "peri-ln" : "pre-ln",
                  res == AF_PROVE_REFUTED ? "refuted" : "undecided");
    }
    arb_clear(p.beta);
    arb_clear(p.bound_fac);
  }
  af_v_note(r, "%sn in {2,3,5,16,64,256}, beta in [ceil(16 ln n)/16, %g], gamma in [-1/(n-1), 1], Pre-LN c and Peri-LN c/a",
            arg ? "bound x n^2: " : "", T31R_BMAX);
  proof_result(r, acc, boxes);
}

/* (1 + (n-1)x)/sqrt(1 + (n-1)x^2) - 1, x = e^-beta: Peri-LN over Pre-LN
 * initial speed minus 1 (flip: the false variant). */
static int fn_speed(arb_t out, const arb_t x, void *vctx, long prec)
{
  pctx *p = vctx;
  arb_t t;
  arb_init(t);
  arb_mul(t, x, x, prec);
  arb_mul_ui(t, t, p->n - 1, prec);
  arb_add_ui(t, t, 1, prec);
  arb_sqrt(t, t, prec);
  arb_mul_ui(out, x, p->n - 1, prec);
  arb_add_ui(out, out, 1, prec);
  arb_div(out, out, t, prec);
  arb_sub_ui(out, out, 1, prec);
  if (p->flip)
    arb_neg(out, out);
  arb_clear(t);
  return AF_OK;
}

static void claim_speed(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  proof pf = {AF_PROVE_CERTIFIED, 0};
  for (size_t i = 0; i < sizeof t31r_n / sizeof t31r_n[0]; i++) {
    pctx p;
    p.n = t31r_n[i];
    p.flip = arg;
    prove_part(&pf, NULL, fn_speed, &p, ldexp(1.0, -40), 1.0);
  }
  af_v_note(r, "%sPeri-LN / Pre-LN initial speed > 1 (r0 = 1): x = e^-beta in [2^-40, 1] (beta in [0, 27.7]), n in {2,3,5,16,64,256}",
            arg ? "false variant (Pre-LN faster): " : "");
  proof_result(r, pf.acc, pf.boxes);
}

/* ---------------------------------------------------------------- C-order */

/* Grid on [1/4, 8]: the two curves separate like t^2 near 0 (Pre-LN runs
 * at time ~ t - c t^2/2 of Post-LN), so the cell t_{k+1} - t_k must stay
 * below ~ c t^2 / 2: dyadic cells 2^floor(log2(t^2/16)), at most 1/16. */
#define ORDER_MAXNT 400

static size_t order_grid(double *times)
{
  size_t nt = 0;
  double t = 0.25;
  while (t < 8.0 && nt + 1 < ORDER_MAXNT) {
    times[nt++] = t;
    double dt = fmin(exp2(floor(log2(t * t / 16.0))), 1.0 / 16);
    t = fmin(t + dt, 8.0);
  }
  times[nt++] = t;
  return nt;
}
#define ORDER_PREC 128

static void claim_order(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  double times[ORDER_MAXNT];
  const size_t ORDER_NT = order_grid(times);
  arb_ptr gp = _arb_vec_init(ORDER_NT), gq = _arb_vec_init(ORDER_NT);
  af_prove_result acc = AF_PROVE_CERTIFIED;
  for (int ci = 0; ci < 2; ci++) {
    af_cert_sys s;
    af_cert_opts o;
    af_cert_opts_init(&o, ORDER_PREC);
    af_cert_sys_init(&s, ccases[ci].n, ccases[ci].beta, AF_POST_LN);
    s.r0 = 1.0;
    int rc = af_cert_solve(gp, NULL, times, ORDER_NT, &s, &o, NULL);
    s.scheme = AF_PRE_LN;
    if (rc == AF_OK)
      rc = af_cert_solve(gq, NULL, times, ORDER_NT, &s, &o, NULL);
    if (rc != AF_OK) {
      combine(&acc, AF_PROVE_UNDECIDED);
      af_v_note(r, "n=%lu: integrator: %s; ", s.n, af_strerror(rc));
      continue;
    }
    int ok = 1;
    long bad = -1;
    for (size_t i = 0; i < ORDER_NT; i++) {
      if (arg == 0) {
        /* gamma_post(t) >= gamma_post(t_i) > gamma_pre(t_{i+1}) >= gamma_pre(t) */
        if (i + 1 < ORDER_NT && !arb_gt(gp + i, gq + i + 1)) {
          ok = 0;
          bad = (long) i;
          break;
        }
      } else if (arb_lt(gq + i, gp + i)) { /* refutes gamma_pre >= gamma_post */
        bad = (long) i;
        break;
      }
    }
    if (arg == 0)
      combine(&acc, ok ? AF_PROVE_CERTIFIED : AF_PROVE_UNDECIDED);
    else
      combine(&acc, bad >= 0 ? AF_PROVE_REFUTED : AF_PROVE_UNDECIDED);
    af_v_note(r, "%sn=%lu beta=%g r0=1: %s", ci ? "; " : "", s.n, s.beta,
              bad < 0 ? "ordered on every grid cell"
                      : (arg ? "gamma_pre < gamma_post proven at t=" : "undecided at t="));
    if (bad >= 0)
      af_v_note(r, "%g", times[bad]);
  }
  af_v_note(r, "; t in [1/4, 8], %zu grid points (cells t^2/16 up to 1/16), %d bits; monotone by C-F",
            ORDER_NT, ORDER_PREC);
  proof_result(r, acc, (unsigned long) (2 * ORDER_NT));
  _arb_vec_clear(gp, ORDER_NT);
  _arb_vec_clear(gq, ORDER_NT);
}
#else /* no Arb */

static void claim_stub(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  (void) arg;
  af_v_nocert(r, "built without Arb");
}
#define claim_F claim_stub
#define claim_t31r claim_stub
#define claim_speed claim_stub
#define claim_order claim_stub

#endif

/* ---------------------------------------------------------------- table */

#define EXP_OK AF_V_CERT_EXPECTED
#ifdef AF_HAVE_ARB
#define EXP_NO AF_V_REFUTED
#else
#define EXP_NO AF_V_NOCERT
#endif

const af_claim af_claims_proofs[] = {
  {"C-F", "", EXP_OK, "C.proof", claim_F, 0, 0,
   "F(gamma) > 0 on (-1/(n-1), 1), zeros only at the ends (n=5 beta=1.5; n=256 beta=5)"},
  {"C-F-false", "", EXP_NO, "C.proof", claim_F, 1, 0,
   "deliberately false: F > 0 from 0.05 below -1/(n-1)"},
  {"C-T3.1r", "", EXP_OK, "C.proof", claim_t31r, 0, 0,
   "symmetric configuration: Pre-/Peri-LN dr/dt >= (e^b-n+1)/(n e^b), beta in [ln n, 8]"},
  {"C-T3.1r-false", "", EXP_NO, "C.proof", claim_t31r, 1, 0,
   "deliberately false: the T3.1r bound times n^2"},
  {"C-T4.1a-speed", "", EXP_OK, "C.proof", claim_speed, 0, 0,
   "Peri-LN initial speed above Pre-LN's (r0 = 1), all beta in [0, 27.7]"},
  {"C-speed-false", "", EXP_NO, "C.proof", claim_speed, 1, 0,
   "deliberately false: Pre-LN initial speed above Peri-LN's"},
  {"C-order", "", EXP_OK, "C.proof", claim_order, 0, 0,
   "gamma Post-LN > gamma Pre-LN on t in [1/4, 8] (r0 = 1; both cases)"},
  {"C-order-false", "", EXP_NO, "C.proof", claim_order, 1, 0,
   "deliberately false: gamma Pre-LN >= gamma Post-LN on [1/4, 8]"},
};
const size_t af_claims_proofs_count = sizeof af_claims_proofs / sizeof af_claims_proofs[0];
