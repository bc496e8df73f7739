/* claims_edges.c -- contracts at the edges of the model: directions off
 * the sphere (M6), the starts' radii (M1), the fixed-step count (N4), the
 * vector widths (N5), the T3.1r bound as printed, and nGPT's alpha as a
 * time scale in the certified system (C-T4.1-alpha; theorems.md).
 *
 * Each is an exact statement about what src/, theory/ or certified/
 * computes, so each compares bits or counts (or one rounding bound, or
 * balls that must overlap): a slip changes a component by far more than
 * nothing.  The cases are small (each floating-point claim runs in
 * milliseconds, the certified one in under a second).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow_mp.h"
#include "cert.h"
#include "cluster.h"
#include "internal.h" /* af_exp_block_isa: N5 forces each vector width */
#include "verify.h"

/* The field cases: the small path (n = 8, d = 2 and n = 12, d = 3) and
 * the BLAS path (n = 48, d = 8) under the default kernel, and each under
 * the direct kernel. */
typedef struct {
  size_t n, d;
} edge_size;
static const edge_size edge_sizes[] = {{8, 2}, {12, 3}, {48, 8}};
#define EDGE_NSIZES (sizeof edge_sizes / sizeof edge_sizes[0])
#define EDGE_T 0.75 /* the time of the fields (none depends on t) */

/* dy = the field of m at (EDGE_T, y) on kernel k. */
static int edge_field(double *dy, const double *y, const af_model *m,
                      af_kernel k)
{
  af_work *w = af_work_alloc(m->n, m->d);
  if (w == NULL)
    return AF_ENOMEM;
  int rc = af_work_set_kernel(w, k);
  if (rc == AF_OK)
    rc = af_rhs(dy, EDGE_T, y, m, w);
  af_work_free(w);
  return rc;
}

/* Number of components where a and b differ as bits (-0 and 0 differ). */
static size_t edge_ndiff(const double *a, const double *b, size_t len)
{
  size_t k = 0;
  for (size_t i = 0; i < len; i++)
    k += memcmp(a + i, b + i, sizeof *a) != 0;
  return k;
}

/* The model of the field cases: Gaussian start (radii |x_j|, not 1). */
static int edge_case(af_model *m, double *y, const af_vctx *c, size_t n,
                     size_t d, af_scheme_id s, unsigned long seed)
{
  af_v_model(m, c, n, d, 2.0, s);
  return af_init_state(y, NULL, "gaussian", n, d, NAN, seed);
}

/* ------------------------------------------------------------------ */
/* M6: the field scales with |theta_j|                                  */
/* ------------------------------------------------------------------ */

/* Row j's direction scaled by 2^e_j, e_j in {-2, ..., 2}: sums of squares
 * scale by 4^e_j and square roots by 2^e_j exactly, so theta/|theta| is
 * the same double and M6 says dtheta_j/dt scales by exactly 2^e_j and
 * dr/dt does not change. */
static int edge_scale_exp(size_t j)
{
  return (int) (j % 5) - 2;
}

static size_t m6_check(const double *dy, const double *dys, size_t n,
                       size_t d)
{
  size_t bad = 0;
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < d; i++) {
      double want = ldexp(dy[j * d + i], edge_scale_exp(j));
      bad += edge_ndiff(&want, dys + j * d + i, 1);
    }
  return bad + edge_ndiff(dy + n * d, dys + n * d, n);
}

static void edge_scale_state(double *ys, const double *y, size_t n, size_t d)
{
  size_t N = af_state_size(n, d);
  memcpy(ys, y, N * sizeof *ys);
  for (size_t j = 0; j < n; j++)
    for (size_t i = 0; i < d; i++)
      ys[j * d + i] = ldexp(y[j * d + i], edge_scale_exp(j));
}

/* The field cases one after another: for each size, the Gaussian state y
 * (seed + size index) and its model, then fn(x, m, y, kern, buf) for each
 * double kernel and, with mpfr set, once more with kern = AF_KERNEL_COUNT
 * at the smallest size; buf has room for three states. */
typedef int (*edge_fn)(void *x, const af_model *m, const double *y, int kern,
                       double *buf);

static int edge_each(const af_vctx *c, af_scheme_id s, unsigned long seed,
                     int mpfr, edge_fn fn, void *x)
{
  int rc = AF_OK;
  for (size_t k = 0; k < EDGE_NSIZES && rc == AF_OK; k++) {
    size_t n = edge_sizes[k].n, d = edge_sizes[k].d;
    size_t N = af_state_size(n, d);
    double *y = malloc(4 * N * sizeof *y);
    af_model m;
    rc = y ? edge_case(&m, y, c, n, d, s, seed + k) : AF_ENOMEM;
    int last = mpfr && k == 0 ? AF_KERNEL_COUNT : AF_KERNEL_COUNT - 1;
    for (int kern = 0; kern <= last && rc == AF_OK; kern++)
      rc = fn(x, &m, y, kern, y + N);
    free(y);
  }
  return rc;
}

#define M6_PREC 128

/* dy = the field at (EDGE_T, y) in MPFR at M6_PREC bits, rounded to
 * double (exact scalings of the same values stay exact). */
static int edge_field_mp(double *dy, const double *y, const af_model *m)
{
  size_t N = af_state_size(m->n, m->d);
  af_mp_work *mw = af_mp_work_alloc(m->n, m->d, M6_PREC);
  mpfr_t *my = af_mp_vec_alloc(N, M6_PREC), *mdy = af_mp_vec_alloc(N, M6_PREC);
  mpfr_t mt;
  mpfr_init2(mt, 53);
  mpfr_set_d(mt, EDGE_T, MPFR_RNDN);
  int rc = (mw && my && mdy) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK) {
    af_mp_vec_set_d(my, y, N);
    rc = af_mp_rhs(mdy, mt, my, m, mw);
  }
  if (rc == AF_OK)
    af_mp_vec_get_d(dy, mdy, N);
  mpfr_clear(mt);
  af_mp_vec_free(my, my ? N : 0);
  af_mp_vec_free(mdy, mdy ? N : 0);
  af_mp_work_free(mw);
  return rc;
}

typedef struct {
  size_t bad, total, fields;
} edge_count;

/* M6 on one case: the field of y and of y with rows scaled. */
static int m6_case(void *x, const af_model *m, const double *y, int kern,
                   double *buf)
{
  edge_count *e = x;
  size_t n = m->n, d = m->d, N = af_state_size(n, d);
  double *ys = buf, *dy = buf + N, *dys = buf + 2 * N;
  edge_scale_state(ys, y, n, d);
  int mp = kern == AF_KERNEL_COUNT;
  int rc = mp ? edge_field_mp(dy, y, m) : edge_field(dy, y, m, kern);
  if (rc == AF_OK)
    rc = mp ? edge_field_mp(dys, ys, m) : edge_field(dys, ys, m, kern);
  if (rc == AF_OK) {
    e->bad += m6_check(dy, dys, n, d);
    e->total += N;
    e->fields++;
  }
  return rc;
}

static void claim_m6(af_vresult *r, const af_vctx *c, int arg)
{
  edge_count e = {0, 0, 0};
  int rc = edge_each(c, (af_scheme_id) arg, 610, 1, m6_case, &e);
  if (rc != AF_OK) {
    af_v_error(r, rc, "M6");
    return;
  }
  af_v_abs(r, (double) e.bad, 0.0, af_v_tol(c, "M6.scale"));
  af_v_note(r, "Gaussian starts n,d = 8,2 12,3 48,8 (small and BLAS paths, "
            "direct kernel; MPFR %d bits at 8,2), beta=2, t=%g, row j scaled "
            "by 2^((j mod 5) - 2): %zu of %zu components differ from "
            "2^e dtheta_j/dt, dr/dt (%zu fields)", M6_PREC, EDGE_T, e.bad,
            e.total, e.fields);
}

/* ------------------------------------------------------------------ */
/* N5: every vector width gives the same bits                           */
/* ------------------------------------------------------------------ */

typedef struct {
  edge_count e;
  int have[3], nw; /* the widths this build and CPU run */
} widths_ctx;

/* N5 on one case: the field at each width against the first. */
static int widths_case(void *x, const af_model *m, const double *y, int kern,
                       double *buf)
{
  widths_ctx *w = x;
  size_t N = af_state_size(m->n, m->d);
  int rc = AF_OK;
  for (int i = 0; i < w->nw && rc == AF_OK; i++) {
    af_exp_block_isa(w->have[i]);
    rc = edge_field(buf + (i ? N : 0), y, m, kern);
    if (rc == AF_OK && i > 0) {
      w->e.bad += edge_ndiff(buf, buf + N, N);
      w->e.total += N;
    }
  }
  return rc;
}

static void claim_widths(af_vresult *r, const af_vctx *c, int arg)
{
  int keep = af_exp_block_isa(-1);
  widths_ctx w = {{0, 0, 0}, {0, 0, 0}, 0};
  for (int f = 0; f < 3; f++)
    if (af_exp_block_isa(f) == f)
      w.have[w.nw++] = f;
  int rc = edge_each(c, (af_scheme_id) arg, 620, 0, widths_case, &w);
  af_exp_block_isa(keep);
  if (rc != AF_OK) {
    af_v_error(r, rc, "N5");
    return;
  }
  af_v_abs(r, (double) w.e.bad, 0.0, af_v_tol(c, "N.widths"));
  af_v_note(r, "widths in this build and CPU:");
  for (int i = 0; i < w.nw; i++)
    af_v_note(r, " %d", 2 << w.have[i]);
  af_v_note(r, " lanes; Gaussian starts n,d = 8,2 12,3 48,8, both kernels, "
            "beta=2, t=%g: %zu of %zu components differ from the 2-lane "
            "field%s", EDGE_T, w.e.bad, w.e.total,
            w.nw < 2 ? " (one width only: nothing to compare on this CPU)"
                     : "");
}

/* ------------------------------------------------------------------ */
/* N4: fixed steps                                                      */
/* ------------------------------------------------------------------ */

/* Mix-LN, tau = 0.3, outputs at 0.5 and 1, h = 0.07: the pieces
 * [0, 0.3], [0.3, 0.5], [0.5, 1] take ceil(span / h) = 5, 3 and 8 steps
 * (16), each no longer than h; h divides none of them. */
#define FX_TAU 0.3
#define FX_H 0.07

static void claim_fixed(af_vresult *r, const af_vctx *c, int arg)
{
  af_method meth = (af_method) arg;
  const size_t n = 4, d = 3;
  double y[4 * 3 + 4];
  const double times[3] = {0.0, 0.5, 1.0};
  const double pieces[4] = {0.0, FX_TAU, 0.5, 1.0};
  af_model m;
  af_v_model(&m, c, n, d, 2.0, AF_MIX_LN);
  m.tau = FX_TAU;
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.method = meth;
  o.fixed = 1;
  o.h = FX_H;
  af_work *w = af_work_alloc(n, d);
  af_integ_stats st = {0, 0, 0};
  int rc = w ? af_init_state(y, NULL, "gaussian", n, d, NAN, 630)
             : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_integrate(y, times, 3, &m, &o, w, NULL, NULL, &st);
  af_work_free(w);
  if (rc != AF_OK) {
    af_v_error(r, rc, "N4");
    return;
  }
  unsigned long want = 0;
  for (int i = 0; i < 3; i++)
    want += (unsigned long) ceil((pieces[i + 1] - pieces[i]) / FX_H);
  af_v_abs(r, (double) st.steps, (double) want, af_v_tol(c, "N.fixed"));
  af_v_note(r, "%s fixed h=%g, Mix-LN tau=%g, outputs 0.5 and 1: %lu steps, "
            "ceil(span/h) over the pieces %lu", af_method_name(meth), FX_H,
            FX_TAU, st.steps, want);
}

/* ------------------------------------------------------------------ */
/* M1: the Gaussian start's radii                                       */
/* ------------------------------------------------------------------ */

/* "gaussian" with r0 given: the directions of the start without r0 (same
 * seed), every radius r0; without r0 the radii are |x_j(0)| (theorems.md
 * S0, defaults), so not all equal. */
static void claim_start(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = 16, d = 3, N = af_state_size(n, d);
  const double r0 = 2.5;
  double y[16 * 3 + 16], y0[16 * 3 + 16];
  int rc = af_init_state(y, NULL, "gaussian", n, d, r0, 640);
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "gaussian", n, d, NAN, 640);
  if (rc != AF_OK) {
    af_v_error(r, rc, "M1 start");
    return;
  }
  size_t bad = edge_ndiff(y, y0, n * d), equal = 0;
  for (size_t j = 0; j < n; j++) {
    bad += y[n * d + j] != r0;
    equal += y0[n * d + j] == y0[n * d];
  }
  bad += equal == n; /* |x_j| of Gaussian draws: never all equal */
  af_v_abs(r, (double) bad, 0.0, af_v_tol(c, "M1.start"));
  af_v_note(r, "gaussian n=%zu d=%zu seed 640, r0=%g: %zu of %zu checks "
            "fail (directions as without r0, radii r0; without r0 radii "
            "|x_j|, %zu of %zu equal to the first)", n, d, r0, bad, N + 1,
            equal, n);
}

/* ------------------------------------------------------------------ */
/* T3.1r: the bound as printed                                          */
/* ------------------------------------------------------------------ */

/* theory's af_cl_t31r_bound(n, beta) against (e^b - n + 1)/(n e^b) in
 * MPFR at 128 bits.  Rounding of theory's (1 - q)/n, q = (n-1) e^-b: exp
 * within 1u (glibc), the product u, the difference u, the division u; the
 * difference amplifies q's relative error by q/(1 - q):
 *   |err| <= (2 q (1 + u) + 1 - q) u / (1 - q) + u, relative. */
static void claim_t31r_formula(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  static const struct {
    size_t n;
    double beta;
  } cs[] = {{2, 1.0}, {7, 2.0}, {3, 8.0}, {64, 5.0}, {256, 8.0}};
  const double u = DBL_EPSILON / 2;
  mpfr_t e, x;
  mpfr_init2(e, 128);
  mpfr_init2(x, 128);
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    double b = cs[i].beta, nn = (double) cs[i].n;
    mpfr_set_d(e, b, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);          /* e^b */
    mpfr_sub_d(x, e, nn - 1.0, MPFR_RNDN); /* e^b - n + 1 */
    mpfr_mul_d(e, e, nn, MPFR_RNDN);    /* n e^b */
    mpfr_div(x, x, e, MPFR_RNDN);
    double exact = mpfr_get_d(x, MPFR_RNDN);
    double q = (nn - 1.0) * exp(-b);
    double bound = ((2 * q * (1 + u) + 1 - q) * u / (1 - q) + u) * fabs(exact);
    double dev = fabs(af_cl_t31r_bound(cs[i].n, b) - exact) / bound;
    if (!(dev <= worst)) {
      worst = dev;
      at = i;
    }
  }
  mpfr_clear(e);
  mpfr_clear(x);
  af_v_abs(r, worst, 0.0, af_v_tol(c, "T3.1r.formula"));
  af_v_note(r, "(n, beta) = (2,1) (7,2) (3,8) (64,5) (256,8): worst "
            "|theory - MPFR| / rounding bound %.3g at n=%zu beta=%g", worst,
            cs[at].n, cs[at].beta);
}

/* ------------------------------------------------------------------ */
/* C-T4.1-alpha: nGPT's constant alpha is a time scale                  */
/* ------------------------------------------------------------------ */

/* With alpha constant, S5's speed factor |A|/alpha makes the nGPT flow
 * with alpha the flow with alpha = 1 at time alpha t: the certified balls
 * of gamma(t) and r(t) at alpha = 3/2 and t = 1, 2, 4 must overlap those
 * of alpha = 1 at t = 3/2, 3, 6 (all exact), each of radius at most
 * C.radius.  Disjoint balls refute the integrator's use of alpha. */
#define CA_NT 3
static void claim_cert_alpha(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
#ifdef AF_HAVE_ARB
  const double alpha = 1.5, t1[CA_NT] = {1.0, 2.0, 4.0};
  double ta[CA_NT];
  for (int i = 0; i < CA_NT; i++)
    ta[i] = alpha * t1[i];
  af_cert_sys sa, s1;
  af_cert_sys_init(&sa, 5, 1.5, AF_NGPT);
  sa.alpha = alpha;
  af_cert_sys_init(&s1, 5, 1.5, AF_NGPT);
  af_cert_opts o;
  af_cert_opts_init(&o, 256);
  arb_ptr ga = _arb_vec_init(CA_NT), ra = _arb_vec_init(CA_NT);
  arb_ptr g1 = _arb_vec_init(CA_NT), r1 = _arb_vec_init(CA_NT);
  int rc = af_cert_solve(ga, ra, t1, CA_NT, &sa, &o, NULL);
  if (rc == AF_OK)
    rc = af_cert_solve(g1, r1, ta, CA_NT, &s1, &o, NULL);
  double maxrad = 0;
  int disjoint = 0;
  for (int i = 0; rc == AF_OK && i < CA_NT; i++) {
    arb_srcptr b[4] = {ga + i, ra + i, g1 + i, r1 + i};
    for (int k = 0; k < 4; k++)
      maxrad = fmax(maxrad, mag_get_d(arb_radref(b[k])));
    disjoint += !arb_overlaps(ga + i, g1 + i) || !arb_overlaps(ra + i, r1 + i);
  }
  _arb_vec_clear(ga, CA_NT);
  _arb_vec_clear(ra, CA_NT);
  _arb_vec_clear(g1, CA_NT);
  _arb_vec_clear(r1, CA_NT);
  if (rc != AF_OK) {
    af_v_nocert(r, "integrator: ");
    af_v_note(r, "%s", af_strerror(rc));
    return;
  }
  double tol = af_v_tol(c, "C.radius");
  r->measured = maxrad;
  r->predicted = 0;
  r->tolerance = tol;
  r->margin = (tol - maxrad) / tol;
  r->status = disjoint ? AF_V_REFUTED
              : maxrad <= tol ? AF_V_CERTIFIED : AF_V_NOCERT;
  af_v_note(r, "nGPT n=5 beta=1.5, 256 bits: alpha=1.5 at t = 1, 2, 4 "
            "against alpha=1 at 1.5, 3, 6: %d of %d pairs of balls "
            "disjoint, largest radius %.3g", disjoint, CA_NT, maxrad);
#else
  (void) c;
  af_v_nocert(r, "built without Arb");
#endif
}

/* Every claim here is expected to pass and no --inject-fault fault
 * breaks it (the faults keep each contract); each names its mutant in
 * theory/theorems.md. */
#define EDGE(id, sch, fn, arg, title) \
  {id, sch, AF_V_PASS, id, fn, arg, 0, title}

const af_claim af_claims_edges[] = {
  {"M6", "pre-ln", AF_V_PASS, "M6.scale", claim_m6, AF_PRE_LN, 0,
   "direction rows scaled by powers of 2: dtheta/dt scales, dr/dt does not (all paths)"},
  {"M6", "peri-ln", AF_V_PASS, "M6.scale", claim_m6, AF_PERI_LN, 0,
   "direction rows scaled by powers of 2: dtheta/dt scales, dr/dt does not (all paths)"},
  EDGE("N.widths", "peri-ln", claim_widths, AF_PERI_LN,
       "2-, 4- and 8-lane kernels give the same bits (small and BLAS paths)"),
  EDGE("N.fixed", "mix-ln", claim_fixed, AF_METHOD_RK4,
       "rk4: ceil(span/h) equal steps on each piece between outputs and tau"),
  EDGE("N.fixed", "mix-ln", claim_fixed, AF_METHOD_RK8PD,
       "rk8pd fixed: ceil(span/h) equal steps on each piece"),
  EDGE("M1.start", "", claim_start, 0,
       "gaussian start with r0: the same directions, every radius r0"),
  EDGE("T3.1r.formula", "", claim_t31r_formula, 0,
       "theory's T3.1r bound equals (e^b - n + 1)/(n e^b) to its rounding"),
  {"C-T4.1-alpha", "ngpt", AF_V_CERT_EXPECTED, "C.radius", claim_cert_alpha,
   0, 0, "balls of gamma(t), r(t) at alpha=1.5 overlap alpha=1's at 1.5 t (S5), n=5 beta=1.5"},
};

const size_t af_claims_edges_count =
    sizeof af_claims_edges / sizeof af_claims_edges[0];
