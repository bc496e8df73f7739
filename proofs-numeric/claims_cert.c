/* claims_cert.c -- certified claims: ball arithmetic (Arb, certified/)
 * turns the T4.1 predictions and the theory's inequalities into
 * computer-assisted proofs (theory/theorems.md, "Certified claims").
 *
 * Statuses: certified (proven), could-not-certify (integrator or bisection
 * budget exhausted, independent check inconclusive, or built without Arb:
 * never a silent pass), refuted (ball arithmetic proves the opposite).
 * Each ID "C-<theorem>" certifies the theorem's statement for the cases
 * named; "-false" variants are deliberately false statements that must come
 * out refuted (their expected status), showing the proofs have power.
 *
 *   C-T4.1/<scheme>      n = 5, beta = 1.5, r0 = 1: balls of gamma(t), r(t)
 *   C-T4.1-256/<scheme>  n = 256, beta = 5 (the paper's headline case)
 *        at t = 1, 2, 4, 8 by the validated Taylor integrator at 256 bits,
 *        radii <= 2^-200 (row C.radius), then checked independently:
 *        - Post-LN, LN-Scaling (time change I2) and Mix-LN on [0, tau]: the
 *          closed form T4.1d in Arb (arb_hypgeom_ei): t(lo) < T < t(hi)
 *          proves gamma(T) in [lo, hi] with nothing in common with the
 *          integrator;
 *        - nGPT (alpha = 1), Pre-LN and Peri-LN (r0 = 1): the same test with
 *          t(gamma) from rigorous quadrature (acb_calc_integrate) of the
 *          separable form (r = e^Phi(gamma) along the solution, T4.1d/c;
 *          certified/closed.c);
 *        - Pre-LN, Peri-LN (T4.1c) and Mix-LN after tau: the T4.1d invariant
 *          ln(r/r0) = Phi(gamma) (resp. Phi(gamma(t)) - Phi(gamma(tau))),
 *          a necessary condition, as overlapping balls;
 *        - n = 5, every scheme: the MPFR path (af_mp_integrate, Gragg-
 *          Bulirsch-Stoer, 128 bits, tol 1e-25) on the n-particle system from the
 *          orthonormal start, overlap |mid - ref| <= rad + eps_ref (row
 *          C.mpfr_ref), so those references become certified too;
 *        Mix-LN after tau has the invariant only (its time map would need
 *        gamma(tau) as a ball); at n = 5 it is also checked against MPFR.
 *   C-mpref              the MPFR reference files data/reference/NAME.ref that are
 *                        T4.1 cases (orthonormal start): their stored gamma
 *                        and r_1 at t_end lie within 10 max(err_est, tol) of
 *                        the certified balls, i.e. the references are
 *                        certified to their stated accuracy (proven error
 *                        |ref - mid| + rad reported)
 *   C-P1                 the USA equation of P1 at n = 5, beta = 1.5, with the
 *                        closed form derived in certified/closed.c and MPFR
 *   C-T4.1a/<scheme>     dgamma/dt(0) of the scalar system, of the n-particle
 *                        field at n = 5 (built from the vectors in Arb) and
 *                        the closed forms T4.1a: overlapping balls of radius
 *                        <= 2^-240, both cases
 *
 * The inequality proofs C-F, C-T3.1r, C-T4.1a-speed and C-order (with
 * their false variants) are in claims_proofs.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"
#include "cert.h"
#include "attnflow_mp.h"
#include "datadir.h"
#include "claims_cert.h"

#ifdef AF_HAVE_ARB

#define CERT_PREC 256
#define CERT_NT 4
static const double cert_times[CERT_NT] = {1.0, 2.0, 4.0, 8.0};

static const char *const sname[AF_SCHEME_COUNT] = {
    "post-ln", "pre-ln", "mix-ln", "peri-ln", "ngpt", "ln-scaling"};

/* log2 of a ball's radius (-inf for an exact ball). */
static double lrad(const arb_t x)
{
  return mag_is_zero(arb_radref(x)) ? -INFINITY
                                    : mag_get_d_log2_approx(arb_radref(x));
}

/* Result of an enclosure claim from the largest radius and the verdict. */
static void enclosure_result(af_vresult *r, double maxrad, double tolrad,
                             int refuted, int undecided)
{
  r->measured = maxrad;
  r->predicted = 0;
  r->tolerance = tolrad;
  r->margin = tolrad > 0 ? (tolrad - maxrad) / tolrad : NAN;
  if (refuted)
    r->status = AF_V_REFUTED;
  else if (undecided || !(maxrad <= tolrad))
    r->status = AF_V_NOCERT;
  else
    r->status = AF_V_CERTIFIED;
}

/* ---------------------------------------------------------------- MPFR */

typedef struct {
  arb_ptr g, r;
  size_t n, d, k;
} mp_out;

static int mp_collect(double t, mpfr_t *y, void *vctx)
{
  (void) t;
  mp_out *o = vctx;
  if (o->k > 0 && o->k <= CERT_NT) {
    mpfr_prec_t p = mpfr_get_prec(y[0]);
    mpfr_t s, q;
    mpfr_init2(s, p + 32);
    mpfr_init2(q, p + 32);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    for (size_t j = 0; j < o->d; j++) {
      mpfr_mul(q, y[j], y[o->d + j], MPFR_RNDN);
      mpfr_add(s, s, q, MPFR_RNDN);
    }
    arf_set_mpfr(arb_midref(o->g + o->k - 1), s);
    mag_zero(arb_radref(o->g + o->k - 1));
    arf_set_mpfr(arb_midref(o->r + o->k - 1), y[o->n * o->d]);
    mag_zero(arb_radref(o->r + o->k - 1));
    mpfr_clear(s);
    mpfr_clear(q);
  }
  o->k++;
  return 0;
}

/* The MPFR reference: Gragg-Bulirsch-Stoer at 128 bits, tol 1e-25 (about
 * 0.15 s of CPU per scheme at n = 5; Gauss-Legendre at 256 bits and 1e-40
 * costs 10 times more and would take the certified set past its budget). */
#define MPFR_PREC 128

/* gamma = <theta_1, theta_2> and r_1 at cert_times from the n-particle
 * system (n = d, orthonormal start, radius r0) by the MPFR path; *eps the
 * allowance eps_ref = fac max(err_est, tol). */
static int mpfr_reference(arb_ptr g, arb_ptr r, double *eps, size_t n,
                          double beta, double r0, af_scheme_id sc, int usa,
                          double fac)
{
  const double tol = 1e-25;
  size_t d = n, N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y);
  if (y == NULL)
    return AF_ENOMEM;
  size_t line;
  int rc = af_init_state(y, &line, "orthonormal", n, d, r0, 0);
  af_model m;
  af_model_init(&m, n, d, beta, sc);
  if (usa)
    m.attn = AF_ATTN_USA;
  af_mp_work *w = af_mp_work_alloc(n, d, MPFR_PREC);
  mpfr_t *my = af_mp_vec_alloc(N, MPFR_PREC);
  if (rc == AF_OK && (w == NULL || my == NULL))
    rc = AF_ENOMEM;
  if (rc == AF_OK) {
    af_mp_vec_set_d(my, y, N);
    af_mp_opts o;
    af_mp_opts_init(&o);
    o.method = AF_MP_GBS;
    o.tol = tol;
    double times[CERT_NT + 1] = {0.0};
    memcpy(times + 1, cert_times, sizeof cert_times);
    mp_out out = {g, r, n, d, 0};
    af_mp_stats st;
    rc = af_mp_integrate(my, times, CERT_NT + 1, &m, &o, w, mp_collect, &out,
                         &st);
    *eps = fac * fmax(st.err_est, tol);
  }
  if (my)
    af_mp_vec_free(my, N);
  af_mp_work_free(w);
  free(y);
  return rc;
}

/* |mid(x) - ref| <= rad(x) + eps, ref exact. */
static int overlap_eps(const arb_t x, const arb_t ref, double eps)
{
  arb_t e;
  arb_init(e);
  arb_set(e, ref);
  mag_set_d(arb_radref(e), eps); /* rounded up */
  int ok = arb_overlaps(x, e);
  arb_clear(e);
  return ok;
}

/* ---------------------------------------------------------------- C-T4.1 */

/* arg = scheme + 16 case; scheme 15 = USA (P1). */
static void claim_enclose(af_vresult *r, const af_vctx *c, int arg)
{
  const ccase *k = &ccases[arg / 16];
  int usa = arg % 16 == 15;
  af_scheme_id sc = usa ? AF_POST_LN : (af_scheme_id) (arg % 16);
  double tolrad = af_v_tol(c, "C.radius"), fac = af_v_tol(c, "C.mpfr_ref");
  af_cert_sys s;
  af_cert_sys_init(&s, k->n, k->beta, sc);
  s.usa = usa;
  s.r0 = k->r0;
  af_cert_opts o;
  af_cert_opts_init(&o, CERT_PREC);
  af_cert_stats st;
  arb_ptr g = _arb_vec_init(CERT_NT), rr = _arb_vec_init(CERT_NT);
  arb_ptr gm = _arb_vec_init(CERT_NT), rm = _arb_vec_init(CERT_NT);
  arb_t T, a, b;
  arb_init(T);
  arb_init(a);
  arb_init(b);
  long cp = 2 * CERT_PREC;
  int rc = af_cert_solve(g, rr, cert_times, CERT_NT, &s, &o, &st);
  af_v_note(r, "n=%lu beta=%g r0=%g, %ld bits, order %u, %lu steps (%lu rejected); ",
            k->n, k->beta, k->r0, (long) CERT_PREC, st.order, st.steps,
            st.rejected);
  if (rc != AF_OK) {
    af_v_nocert(r, "integrator: ");
    af_v_note(r, "%s", af_strerror(rc));
    goto out;
  }
  double maxrad = 0;
  for (int i = 0; i < CERT_NT; i++)
    maxrad = fmax(maxrad, fmax(exp2(lrad(g + i)), exp2(lrad(rr + i))));
  int refuted = 0, undecided = 0, nclosed = 0, nclosed_ok = 0, ninv = 0;
  /* closed form T4.1d (Post-LN, LN-Scaling, Mix-LN up to tau) or P1 */
  for (int i = 0; i < CERT_NT; i++) {
    int use = usa || sc != AF_MIX_LN || cert_times[i] <= s.tau;
    if (!use || ((sc == AF_PRE_LN || sc == AF_PERI_LN) && k->r0 != 1.0)
        || (sc == AF_NGPT && s.alpha != 1.0))
      continue;
    int quad = !usa && (sc == AF_PRE_LN || sc == AF_PERI_LN || sc == AF_NGPT);
    arb_set_d(T, cert_times[i]);
    if (sc == AF_LN_SCALING && !usa) { /* u = 2 (sqrt(t+1) - 1) */
      arb_add_ui(T, T, 1, cp);
      arb_sqrt(T, T, cp);
      arb_sub_ui(T, T, 1, cp);
      arb_mul_2exp_si(T, T, 1);
    }
    int v;
    if (quad) /* quadrature of the separable form: 320 bits resolve t to
               * ~2^-300, far below the 2^-230 a ball of radius 2^-245
               * spans in t */
      af_cert_check_quad(&v, g + i, T, sc, k->n, k->beta, CERT_PREC + 64);
    else
      af_cert_check_tmap(&v, g + i, T, usa ? af_cert_usa_time : af_cert_postln_time,
                         k->n, k->beta, cp);
    refuted |= v < 0;
    undecided |= v == 0;
    nclosed_ok += v == 1;
    nclosed++;
  }
  /* invariant ln(r/r0) = Phi(gamma) (Pre-LN, Peri-LN, Mix-LN after tau) */
  if (!usa && (sc == AF_PRE_LN || sc == AF_PERI_LN || sc == AF_MIX_LN)) {
    arb_t phitau;
    arb_init(phitau);
    for (int i = 0; i < CERT_NT; i++) {
      if (sc == AF_MIX_LN && cert_times[i] <= s.tau) {
        if (cert_times[i] == s.tau)
          af_cert_preln_logr(phitau, g + i, k->n, k->beta, cp);
        continue;
      }
      af_cert_preln_logr(a, g + i, k->n, k->beta, cp);
      if (sc == AF_MIX_LN)
        arb_sub(a, a, phitau, cp);
      arb_set_d(b, k->r0);
      arb_div(b, rr + i, b, cp);
      arb_log(b, b, cp);
      if (!arb_overlaps(a, b))
        refuted = 1;
      ninv++;
    }
    arb_clear(phitau);
  }
  af_v_note(r, "max radius 2^%.1f; closed form/quadrature certifies %d/%d balls, invariant checked at %d times%s",
            log2(maxrad), nclosed_ok, nclosed, ninv, refuted ? "; CONTRADICTED" : "");
  /* MPFR n-particle reference at n = 5 */
  if (k->n <= 8) {
    double eps = NAN;
    int mrc = mpfr_reference(gm, rm, &eps, k->n, k->beta, k->r0, sc, usa, fac);
    if (mrc != AF_OK) {
      undecided = 1;
      af_v_note(r, "; MPFR reference: %s", af_strerror(mrc));
    } else {
      int ok = 1;
      for (int i = 0; i < CERT_NT; i++)
        ok &= overlap_eps(g + i, gm + i, eps) && overlap_eps(rr + i, rm + i, eps);
      af_v_note(r, "; MPFR n-particle (eps_ref %.2g): %s", eps,
                ok ? "overlaps" : "DISAGREES");
      undecided |= !ok;
    }
  }
  enclosure_result(r, maxrad, tolrad, refuted, undecided);
out:
  _arb_vec_clear(g, CERT_NT);
  _arb_vec_clear(rr, CERT_NT);
  _arb_vec_clear(gm, CERT_NT);
  _arb_vec_clear(rm, CERT_NT);
  arb_clear(T);
  arb_clear(a);
  arb_clear(b);
}

/* ---------------------------------------------------------------- C-T4.1a */

/* dgamma/dt(0) of the n-particle field from theta_k = e_k, radius r0,
 * built from the definitions M2, M3, S-table (tokens 0 and 1 only). */
static void nparticle_velocity(arb_t v, unsigned long n, double beta,
                               double r0, double alpha, af_scheme_id sc,
                               long prec)
{
  arb_ptr A = _arb_vec_init(2 * n), dth = _arb_vec_init(2 * n);
  arb_t eb, Z, nrm, sfac, c;
  arb_init(eb);
  arb_init(Z);
  arb_init(nrm);
  arb_init(sfac);
  arb_init(c);
  arb_set_d(eb, beta);
  arb_exp(eb, eb, prec); /* exp(beta <e_i, e_i>); exp(0) = 1 otherwise */
  for (unsigned long i = 0; i < 2; i++) {
    arb_ptr Ai = A + i * n, di = dth + i * n;
    arb_add_ui(Z, eb, n - 1, prec);
    for (unsigned long k = 0; k < n; k++) {
      if (k == i)
        arb_div(Ai + k, eb, Z, prec);
      else
        arb_inv(Ai + k, Z, prec);
    }
    arb_dot(nrm, NULL, 0, Ai, 1, Ai, 1, (slong) n, prec);
    arb_sqrt(nrm, nrm, prec);
    arb_set(c, Ai + i); /* <theta_i, A_i> */
    switch (sc) {
    case AF_PRE_LN: arb_set_d(sfac, r0); break;
    case AF_PERI_LN: /* s = r |A| */
      arb_set_d(sfac, r0);
      arb_mul(sfac, sfac, nrm, prec);
      break;
    case AF_NGPT: /* s = |A| / alpha */
      arb_set_d(sfac, alpha);
      arb_div(sfac, nrm, sfac, prec);
      break;
    default: /* Post-LN, Mix-LN at t = 0 <= tau, LN-Scaling sqrt(0 + 1) */
      arb_one(sfac);
    }
    for (unsigned long k = 0; k < n; k++) {
      arb_set(di + k, Ai + k);
      if (k == i)
        arb_sub(di + k, di + k, c, prec); /* tangent projection */
      arb_div(di + k, di + k, sfac, prec);
    }
  }
  /* d/dt <theta_0, theta_1> = <dtheta_0, e_1> + <e_0, dtheta_1> */
  arb_add(v, dth + 1, dth + n, prec);
  _arb_vec_clear(A, 2 * n);
  _arb_vec_clear(dth, 2 * n);
  arb_clear(eb);
  arb_clear(Z);
  arb_clear(nrm);
  arb_clear(sfac);
  arb_clear(c);
}

/* T4.1a closed forms. */
static void closed_velocity(arb_t v, unsigned long n, double beta, double r0,
                            double alpha, af_scheme_id sc, long prec)
{
  arb_t e, x;
  arb_init(e);
  arb_init(x);
  arb_set_d(e, beta);
  if (sc == AF_PERI_LN || sc == AF_NGPT) {
    arb_mul_2exp_si(e, e, 1);
    arb_exp(e, e, prec);
    arb_add_ui(e, e, n - 1, prec);
    arb_sqrt(e, e, prec); /* sqrt(e^{2b} + n - 1) */
  } else {
    arb_exp(e, e, prec);
    arb_add_ui(e, e, n - 1, prec); /* e^b + n - 1 */
  }
  if (sc == AF_PRE_LN || sc == AF_PERI_LN) {
    arb_set_d(x, r0);
    arb_mul(e, e, x, prec);
  }
  arb_set_ui(v, 2);
  if (sc == AF_NGPT) {
    arb_set_d(x, alpha);
    arb_mul(v, v, x, prec);
  }
  arb_div(v, v, e, prec);
  arb_clear(e);
  arb_clear(x);
}

static void claim_velocity(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id sc = (af_scheme_id) arg;
  double tolrad = af_v_tol(c, "C.radius");
  arb_t vs, vn, vc, t0, g0, r0b;
  arb_init(vs);
  arb_init(vn);
  arb_init(vc);
  arb_init(t0);
  arb_init(g0);
  arb_init(r0b);
  double maxrad = 0;
  int refuted = 0;
  for (int ci = 0; ci < 2; ci++) {
    const ccase *k = &ccases[ci];
    af_cert_sys s;
    af_cert_sys_init(&s, k->n, k->beta, sc);
    s.r0 = k->r0;
    arb_set_d(r0b, k->r0);
    af_cert_rhs(vs, NULL, t0, g0, r0b, s.tau == 0, &s, CERT_PREC);
    nparticle_velocity(vn, k->n, k->beta, k->r0, s.alpha, sc, CERT_PREC);
    closed_velocity(vc, k->n, k->beta, k->r0, s.alpha, sc, CERT_PREC);
    int ok = arb_overlaps(vs, vc) && arb_overlaps(vn, vc) && arb_overlaps(vs, vn);
    refuted |= !ok;
    maxrad = fmax(maxrad, exp2(fmax(lrad(vs), fmax(lrad(vn), lrad(vc)))));
    af_v_note(r, "%sn=%lu beta=%g: ", ci ? "; " : "", k->n, k->beta);
    char *str = arb_get_str(vc, 20, 0);
    af_v_note(r, "%s %s", str, ok ? "(system, n-particle, closed form overlap)" : "DISJOINT");
    flint_free(str);
  }
  /* 2^-240: the three balls are computed at 256 bits in a few dozen
   * operations; a wider ball means a lost cancellation, not a proof. */
  enclosure_result(r, maxrad, tolrad * ldexp(1.0, -40), refuted, 0);
  arb_clear(vs);
  arb_clear(vn);
  arb_clear(vc);
  arb_clear(t0);
  arb_clear(g0);
  arb_clear(r0b);
}

/* ---------------------------------------------------------------- C-mpref */

/* Value of key in a "k=v; k=v" params line into buf (NULL if absent). */
static const char *ref_param(char *buf, size_t cap, const char *params,
                             const char *key)
{
  size_t kl = strlen(key);
  const char *p = params;
  while (p && *p) {
    if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
      const char *v = p + kl + 1, *e = strstr(v, "; ");
      size_t l = e ? (size_t) (e - v) : strcspn(v, "\n");
      if (l >= cap)
        return NULL;
      memcpy(buf, v, l);
      buf[l] = '\0';
      return buf;
    }
    p = strstr(p, "; ");
    if (p)
      p += 2;
  }
  return NULL;
}

/* One MPFR reference file (data/reference/NAME.ref, attnflow_mp.h format):
 * if it is a T4.1 case (orthonormal start, d >= n, softmax, identity
 * weights, constant alpha), certify its gamma = <theta_1, theta_2> and
 * r_1 at t_end: *err receives the proven bound on the reference's error,
 * |ref - mid| + rad of the certified ball; *eps the allowance
 * fac max(err_est, tol) of its header.  *used = 0 if not a T4.1 case. */
int af_cert_mpref_file(int *used, double *err, double *eps, const char *path,
                       double fac)
{
  *used = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return AF_EIO;
  char line[4096], params[4096] = "", b[256];
  double tol = NAN, est = NAN;
  while (fgets(line, sizeof line, f) && line[0] == '#') {
    if (strncmp(line, "# params: ", 10) == 0)
      snprintf(params, sizeof params, "%s", line + 10);
    else if (strncmp(line, "# tolerance: ", 13) == 0)
      tol = strtod(line + 13, NULL);
    else if (strncmp(line, "# err_est: ", 11) == 0)
      est = strtod(line + 11, NULL);
  }
  const char *v;
  af_scheme_id sc;
  unsigned long n = (v = ref_param(b, sizeof b, params, "n")) ? strtoul(v, NULL, 10) : 0;
  unsigned long d = (v = ref_param(b, sizeof b, params, "d")) ? strtoul(v, NULL, 10) : 0;
  int ok = n >= 2 && d >= n && isfinite(tol) && isfinite(est)
           && (v = ref_param(b, sizeof b, params, "init")) && strcmp(v, "orthonormal") == 0
           && (v = ref_param(b, sizeof b, params, "attention")) && strcmp(v, "softmax") == 0
           && (v = ref_param(b, sizeof b, params, "weights")) && strcmp(v, "identity") == 0
           && (v = ref_param(b, sizeof b, params, "alpha_decay")) && strtod(v, NULL) == 0
           && (v = ref_param(b, sizeof b, params, "scheme")) && af_scheme_lookup(&sc, v) == AF_OK
           && ref_param(b, sizeof b, params, "r0") && strtod(b, NULL) > 0;
  if (!ok) {
    fclose(f);
    return AF_OK;
  }
  af_cert_sys s;
  af_cert_sys_init(&s, n, strtod(ref_param(b, sizeof b, params, "beta"), NULL), sc);
  s.r0 = strtod(ref_param(b, sizeof b, params, "r0"), NULL);
  s.alpha = strtod(ref_param(b, sizeof b, params, "alpha"), NULL);
  s.tau = strtod(ref_param(b, sizeof b, params, "tau"), NULL);
  long prec = (long) strtol(ref_param(b, sizeof b, params, "precision"), NULL, 10);
  size_t N = af_state_size(n, d);
  mpfr_t t;
  mpfr_t *y = af_mp_vec_alloc(N, prec > 0 ? prec : 256);
  mpfr_init2(t, prec > 0 ? prec : 256);
  rewind(f);
  size_t ln = 0;
  int rc = y ? af_mp_ref_read(t, y, N, &ln, f) : AF_ENOMEM;
  fclose(f);
  if (rc == AF_OK) {
    double te = mpfr_get_d(t, MPFR_RNDN);
    arb_t g, r, x, e;
    arb_init(g);
    arb_init(r);
    arb_init(x);
    arb_init(e);
    af_cert_opts o;
    af_cert_opts_init(&o, CERT_PREC);
    if (mpfr_cmp_d(t, te) != 0)
      rc = AF_EPARSE; /* t_end must be a double (it is a dyadic) */
    else
      rc = af_cert_solve(g, r, &te, 1, &s, &o, NULL);
    if (rc == AF_OK) {
      /* gamma_ref = <theta_1, theta_2> in ball arithmetic from the exact
       * stored values */
      arb_zero(x);
      for (size_t j = 0; j < d; j++) {
        arb_t u, w;
        arb_init(u);
        arb_init(w);
        arf_set_mpfr(arb_midref(u), y[j]);
        arf_set_mpfr(arb_midref(w), y[d + j]);
        arb_addmul(x, u, w, 4 * CERT_PREC);
        arb_clear(u);
        arb_clear(w);
      }
      /* proven error bound of the reference: |ref - mid| + rad */
      double eg, er;
      arb_sub(e, x, g, 4 * CERT_PREC);
      arb_get_abs_ubound_arf(arb_midref(x), e, 53);
      eg = arf_get_d(arb_midref(x), ARF_RND_UP);
      arf_set_mpfr(arb_midref(x), y[n * d]);
      mag_zero(arb_radref(x));
      arb_sub(e, x, r, 4 * CERT_PREC);
      arb_get_abs_ubound_arf(arb_midref(x), e, 53);
      er = arf_get_d(arb_midref(x), ARF_RND_UP);
      *err = fmax(eg, er);
      *eps = fac * fmax(est, tol);
      *used = 1;
    }
    arb_clear(g);
    arb_clear(r);
    arb_clear(x);
    arb_clear(e);
  }
  mpfr_clear(t);
  if (y)
    af_mp_vec_free(y, N);
  return rc;
}

static int name_cmp(const void *a, const void *b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Every T4.1 case among data/reference/NAME.ref: the stored MPFR state's
 * gamma and r against the certified balls. */
static void claim_mpref(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double fac = af_v_tol(c, "C.mpfr_ref");
  char dir[4096 - 512]; /* room for "/NAME" in path[4096] below */
  snprintf(dir, sizeof dir, "%s/reference", af_data_dir());
  DIR *dp = opendir(dir);
  if (dp == NULL) {
    char why[4200];
    snprintf(why, sizeof why, "no reference directory %s", dir);
    af_v_nocert(r, why);
    return;
  }
  char *names[128];
  size_t nn = 0;
  struct dirent *de;
  while ((de = readdir(dp)) != NULL && nn < 128) {
    size_t l = strlen(de->d_name);
    if (l > 4 && strcmp(de->d_name + l - 4, ".ref") == 0)
      names[nn++] = strdup(de->d_name);
  }
  closedir(dp);
  qsort(names, nn, sizeof names[0], name_cmp);
  size_t used = 0, bad = 0;
  double worst = 0, worst_ratio = 0;
  int rc = AF_OK;
  for (size_t k = 0; k < nn; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    int u = 0;
    double err = NAN, eps = NAN;
    int frc = names[k] ? af_cert_mpref_file(&u, &err, &eps, path, fac) : AF_ENOMEM;
    if (frc != AF_OK && rc == AF_OK) {
      rc = frc;
      af_v_note(r, "%s: %s; ", names[k], af_strerror(frc));
    }
    if (u) {
      used++;
      worst = fmax(worst, err);
      worst_ratio = fmax(worst_ratio, err / eps);
      if (!(err <= eps)) {
        bad++;
        af_v_note(r, "%s: error %.3g > %.3g; ", names[k], err, eps);
      }
    }
    free(names[k]);
  }
  af_v_note(r, "%zu T4.1 references of %zu files certified to their stated accuracy: "
            "proven |ref - exact| <= %.3g (largest, over gamma and r; allowance "
            "10 max(err_est, tol))", used - bad, nn, worst);
  r->measured = worst;
  r->predicted = 0;
  r->tolerance = worst_ratio > 0 ? worst / worst_ratio : NAN;
  r->margin = 1 - worst_ratio;
  if (rc != AF_OK || used == 0 || bad > 0)
    r->status = AF_V_NOCERT;
  else
    r->status = AF_V_CERTIFIED;
}

/* ---------------------------------------------------------------- reference */

int af_cert_write_reference(const char *dir, const char *cmdline)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/t41_balls.tsv", dir);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (f == NULL)
    return AF_EIO;
  int rc = AF_OK;
  fprintf(f, "# Certified balls of gamma(t) and r(t), T4.1 symmetric start (gamma(0) = 0,\n"
             "# r(0) = r0) for the six schemes, and the USA equation of P1 (system usa).\n"
             "# generator: attnflow %s\n# commit: %s\n"
             "# method: validated Taylor integrator certified/vode.c (Picard a-priori\n"
             "#   enclosure, Lagrange remainder, mean-value form), %d bits, order auto\n"
             "# ball: arb_dump_str / arb_load_str (hex mantissa and exponent of the\n"
             "#   midpoint and of the radius: exact); approx: 30 digits, for reading\n"
             "# columns: n beta r0 system t quantity ball approx\n",
          cmdline ? cmdline : "-", af_commit(), CERT_PREC);
  for (int ci = 0; ci < 2 && rc == AF_OK; ci++) {
    const ccase *k = &ccases[ci];
    for (int sc = 0; sc <= AF_SCHEME_COUNT && rc == AF_OK; sc++) {
      int usa = sc == AF_SCHEME_COUNT;
      if (usa && ci > 0)
        continue;
      af_cert_sys s;
      af_cert_sys_init(&s, k->n, k->beta, usa ? AF_POST_LN : (af_scheme_id) sc);
      s.usa = usa;
      s.r0 = k->r0;
      af_cert_opts o;
      af_cert_opts_init(&o, CERT_PREC);
      arb_ptr g = _arb_vec_init(CERT_NT), rr = _arb_vec_init(CERT_NT);
      rc = af_cert_solve(g, rr, cert_times, CERT_NT, &s, &o, NULL);
      for (int i = 0; i < CERT_NT && rc == AF_OK; i++)
        for (int q = 0; q < 2; q++) {
          arb_srcptr x = q ? rr + i : g + i;
          char *d = arb_dump_str(x);
          char *a = arb_get_str(x, 30, 0);
          fprintf(f, "%lu\t%.17g\t%.17g\t%s\t%.17g\t%s\t%s\t%s\n", k->n, k->beta,
                  k->r0, usa ? "usa" : sname[sc], cert_times[i],
                  q ? "r" : "gamma", d, a);
          flint_free(d);
          flint_free(a);
        }
      _arb_vec_clear(g, CERT_NT);
      _arb_vec_clear(rr, CERT_NT);
    }
  }
  if (fclose(f) != 0 && rc == AF_OK)
    rc = AF_EIO;
  if (rc == AF_OK && rename(tmp, path) != 0)
    rc = AF_EIO;
  if (rc != AF_OK)
    remove(tmp);
  return rc;
}

#else /* no Arb */

static void claim_stub(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  (void) arg;
  af_v_nocert(r, "built without Arb");
}
#define claim_enclose claim_stub
#define claim_velocity claim_stub
#define claim_mpref claim_stub

int af_cert_write_reference(const char *dir, const char *cmdline)
{
  (void) dir;
  (void) cmdline;
  return AF_EINVAL;
}

int af_cert_mpref_file(int *used, double *err, double *eps, const char *path,
                       double fac)
{
  (void) path;
  (void) fac;
  *used = 0;
  *err = *eps = NAN;
  return AF_EINVAL;
}

#endif

/* ---------------------------------------------------------------- table */

#define EXP_OK AF_V_CERT_EXPECTED
#ifdef AF_HAVE_ARB
#define EXP_NO AF_V_REFUTED
#else
#define EXP_NO AF_V_NOCERT
#endif

#define ENC(id, name, sc, cs, title) \
  {id, name, EXP_OK, "C.radius", claim_enclose, (sc) + 16 * (cs), 0, title}
#define VEL(name, sc) \
  {"C-T4.1a", name, EXP_OK, "C.radius", claim_velocity, sc, 0, \
   "dgamma/dt(0): system, n-particle field and closed form overlap (radius <= 2^-240)"}

const af_claim af_claims_cert[] = {
  ENC("C-T4.1", "post-ln", AF_POST_LN, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; T4.1d closed form, MPFR"),
  ENC("C-T4.1", "pre-ln", AF_PRE_LN, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; quadrature, T4.1d invariant, MPFR"),
  ENC("C-T4.1", "mix-ln", AF_MIX_LN, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; closed form to tau, invariant, MPFR"),
  ENC("C-T4.1", "peri-ln", AF_PERI_LN, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; quadrature, T4.1c invariant, MPFR"),
  ENC("C-T4.1", "ngpt", AF_NGPT, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; quadrature, MPFR"),
  ENC("C-T4.1", "ln-scaling", AF_LN_SCALING, 0, "balls of gamma(t), r(t), n=5 beta=1.5, t<=8, radius <= 2^-200; closed form via I2, MPFR"),
  ENC("C-T4.1-256", "post-ln", AF_POST_LN, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; T4.1d closed form"),
  ENC("C-T4.1-256", "pre-ln", AF_PRE_LN, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; quadrature, T4.1d invariant"),
  ENC("C-T4.1-256", "mix-ln", AF_MIX_LN, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; closed form to tau, invariant"),
  ENC("C-T4.1-256", "peri-ln", AF_PERI_LN, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; quadrature, T4.1c invariant"),
  ENC("C-T4.1-256", "ngpt", AF_NGPT, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; quadrature of a/F"),
  ENC("C-T4.1-256", "ln-scaling", AF_LN_SCALING, 1, "balls of gamma(t), r(t), n=256 beta=5, t<=8, radius <= 2^-200; closed form via I2"),
  ENC("C-P1", "", 15, 0, "USA equation: balls of gamma(t), n=5 beta=1.5, radius <= 2^-200; closed form (Ei), MPFR"),
  {"C-mpref", "", EXP_OK, "C.mpfr_ref", claim_mpref, 0, 0,
   "the MPFR references of data/reference (T4.1 cases) lie within their stated accuracy of the balls"},
  VEL("post-ln", AF_POST_LN),
  VEL("pre-ln", AF_PRE_LN),
  VEL("mix-ln", AF_MIX_LN),
  VEL("peri-ln", AF_PERI_LN),
  VEL("ngpt", AF_NGPT),
  VEL("ln-scaling", AF_LN_SCALING),
};
const size_t af_claims_cert_count = sizeof af_claims_cert / sizeof af_claims_cert[0];
