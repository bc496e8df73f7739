/* t41_mp.c -- the T4.1 scalar ODE and K(n, beta) at MPFR precision.
 *
 * System (derivations in t41.c): with w = 1 - gamma = e^u,
 *     du/dt = -G(w) / s(t, r, w),      dr/dt = rho(t, r, w),
 *     G = 2 (n - (n-1) w) / (e^{b w} + n - 1),
 *     c = 1 - (n-1) w / (e^{b w} + n - 1),
 *     a = sqrt(1 + 2(n-1)(1-w) E + (n-1) E^2 (1 + (n-2)(1-w))) / (1 + (n-1) E),
 *     E = e^{-b w},
 * and s, rho from the theorems.md S1-S6 (written out again below, as in
 * t41.c's rates(), so neither src/model/scheme.c nor the double code is used).
 *
 * Integrator: Gragg-Bulirsch-Stoer (Hairer, Norsett, Wanner, Solving
 * ODEs I, section II.9): modified midpoint rule with n_k = 2k substeps,
 * Aitken-Neville extrapolation in h^2 with the integer ratios
 * n_{k-j}^2 / (n_k^2 - n_{k-j}^2).  It is written here again (not
 * src/mp/mp_integrate.c) so the scalar reference shares no integrator code
 * with the n-particle runs it is compared with.  Rows: ROWS (order 2 ROWS);
 * local error estimate |T_{K,K} - T_{K,K-1}|, an O(h^{2K-1}) quantity;
 * controller h_new = h min(4, max(1/5, 0.9 (tol_loc/err)^(1/(2K-1)))).
 * The step control arithmetic is in double (it decides step sizes only).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "t41_mp.h"

#define RND MPFR_RNDN
/* GBS rows: order 2 ROWS.  Measured at 256 bits, tol 1e-45, n = 4,
 * beta = 2 (outputs every 2 time units to t = 72 / every octave to
 * 2^24): 10 rows took 408 / 1374 steps (~100 evaluations each), 16 rows
 * 76 / 170 steps (~250 each) for Post-LN / Pre-LN. */
#define ROWS 16
#define DIM 2

typedef struct {
  const af_t41_params *p;
  int after;          /* Mix-LN branch of the current segment */
  mpfr_prec_t prec;
  mpfr_t w, e, E, g, c, a, s, rho, q, nm1, b, t1, t2;
} rhs_ctx;

static void rhs_init(rhs_ctx *x, const af_t41_params *p, mpfr_prec_t prec)
{
  x->p = p;
  x->after = 0;
  x->prec = prec;
  mpfr_inits2(prec, x->w, x->e, x->E, x->g, x->c, x->a, x->s, x->rho, x->q,
              x->nm1, x->b, x->t1, x->t2, (mpfr_ptr) 0);
  mpfr_set_ui(x->nm1, (unsigned long) (p->n - 1), RND);
  mpfr_set_d(x->b, p->beta, RND);
}

static void rhs_clear(rhs_ctx *x)
{
  mpfr_clears(x->w, x->e, x->E, x->g, x->c, x->a, x->s, x->rho, x->q, x->nm1,
              x->b, x->t1, x->t2, (mpfr_ptr) 0);
}

/* a(w) into x->a (needs x->w, x->E). */
static void rhs_a(rhs_ctx *x)
{
  /* q = 1 + 2(n-1)(1-w)E + (n-1)E^2(1 + (n-2)(1-w)) */
  mpfr_ui_sub(x->t1, 1, x->w, RND);               /* 1 - w */
  mpfr_mul(x->q, x->t1, x->E, RND);
  mpfr_mul(x->q, x->q, x->nm1, RND);
  mpfr_mul_2ui(x->q, x->q, 1, RND);
  mpfr_sub_ui(x->t2, x->nm1, 1, RND);             /* n - 2 */
  mpfr_mul(x->t2, x->t2, x->t1, RND);
  mpfr_add_ui(x->t2, x->t2, 1, RND);
  mpfr_mul(x->t2, x->t2, x->E, RND);
  mpfr_mul(x->t2, x->t2, x->E, RND);
  mpfr_mul(x->t2, x->t2, x->nm1, RND);
  mpfr_add(x->q, x->q, x->t2, RND);
  mpfr_add_ui(x->q, x->q, 1, RND);
  if (mpfr_sgn(x->q) < 0) /* rounding where A vanishes */
    mpfr_set_zero(x->q, 1);
  mpfr_sqrt(x->q, x->q, RND);
  mpfr_mul(x->t1, x->nm1, x->E, RND);
  mpfr_add_ui(x->t1, x->t1, 1, RND);
  mpfr_div(x->a, x->q, x->t1, RND);
}

/* dy = f(t, y), y = (u, r). */
static int rhs(mpfr_t *dy, mpfr_srcptr t, mpfr_t *y, rhs_ctx *x)
{
  const af_t41_params *p = x->p;
  mpfr_exp(x->w, y[0], RND);                      /* w = e^u */
  mpfr_mul(x->e, x->b, x->w, RND);
  mpfr_exp(x->e, x->e, RND);                      /* e^{b w} */
  mpfr_ui_div(x->E, 1, x->e, RND);                /* e^{-b w} */
  mpfr_add(x->t1, x->e, x->nm1, RND);             /* e^{bw} + n - 1 */
  /* G = 2 (n - (n-1) w) / (e^{bw} + n - 1) */
  mpfr_mul(x->g, x->nm1, x->w, RND);
  mpfr_ui_sub(x->g, (unsigned long) p->n, x->g, RND);
  mpfr_mul_2ui(x->g, x->g, 1, RND);
  mpfr_div(x->g, x->g, x->t1, RND);
  /* c = 1 - (n-1) w / (e^{bw} + n - 1) */
  mpfr_mul(x->c, x->nm1, x->w, RND);
  mpfr_div(x->c, x->c, x->t1, RND);
  mpfr_ui_sub(x->c, 1, x->c, RND);
  switch (p->scheme) {
  case AF_POST_LN: /* S1: s = 1, dr/dt = 0 */
    mpfr_set_ui(x->s, 1, RND);
    mpfr_set_zero(x->rho, 1);
    break;
  case AF_PRE_LN: /* S2: s = r, dr/dt = c */
    mpfr_set(x->s, y[1], RND);
    mpfr_set(x->rho, x->c, RND);
    break;
  case AF_MIX_LN: /* S3: Post-LN for t <= tau, Pre-LN after */
    if (x->after) {
      mpfr_set(x->s, y[1], RND);
      mpfr_set(x->rho, x->c, RND);
    } else {
      mpfr_set_ui(x->s, 1, RND);
      mpfr_set_zero(x->rho, 1);
    }
    break;
  case AF_PERI_LN: /* S4: s = r a, dr/dt = c / a */
    rhs_a(x);
    if (!(mpfr_sgn(x->a) > 0))
      return AF_EZEROATTN;
    mpfr_mul(x->s, y[1], x->a, RND);
    mpfr_div(x->rho, x->c, x->a, RND);
    break;
  case AF_NGPT: /* S5: s = a / alpha(t), alpha(t) = alpha (1+t)^-q */
    rhs_a(x);
    if (!(mpfr_sgn(x->a) > 0))
      return AF_EZEROATTN;
    mpfr_set_d(x->t1, p->alpha, RND);
    if (p->alpha_decay != 0) {
      mpfr_add_ui(x->t2, t, 1, RND);
      mpfr_set_d(x->q, -p->alpha_decay, RND);
      mpfr_pow(x->t2, x->t2, x->q, RND);
      mpfr_mul(x->t1, x->t1, x->t2, RND);
    }
    mpfr_div(x->s, x->a, x->t1, RND);
    mpfr_set_zero(x->rho, 1);
    break;
  case AF_LN_SCALING: /* S6: s = sqrt(t + 1), dr/dt = 0 */
    mpfr_add_ui(x->s, t, 1, RND);
    mpfr_sqrt(x->s, x->s, RND);
    mpfr_set_zero(x->rho, 1);
    break;
  default:
    return AF_EINVAL;
  }
  if (!(mpfr_sgn(x->s) > 0))
    return AF_ENONFINITE;
  mpfr_div(dy[0], x->g, x->s, RND);
  mpfr_neg(dy[0], dy[0], RND);
  mpfr_set(dy[1], x->rho, RND);
  if (!mpfr_number_p(dy[0]) || !mpfr_number_p(dy[1]))
    return AF_ENONFINITE;
  return AF_OK;
}

typedef struct {
  rhs_ctx x;
  mpfr_t T[2][ROWS][DIM]; /* two rows of the extrapolation table */
  mpfr_t z0[DIM], z1[DIM], z2[DIM], f0[DIM], f[DIM];
  mpfr_t ts, hh, tmp, tn, hm;
} gbs;

static void gbs_init(gbs *g, const af_t41_params *p, mpfr_prec_t prec)
{
  rhs_init(&g->x, p, prec);
  for (int a = 0; a < 2; a++)
    for (int k = 0; k < ROWS; k++)
      for (int i = 0; i < DIM; i++)
        mpfr_init2(g->T[a][k][i], prec);
  for (int i = 0; i < DIM; i++)
    mpfr_inits2(prec, g->z0[i], g->z1[i], g->z2[i], g->f0[i], g->f[i],
                (mpfr_ptr) 0);
  mpfr_inits2(prec, g->ts, g->hh, g->tmp, g->tn, g->hm, (mpfr_ptr) 0);
}

static void gbs_clear(gbs *g)
{
  rhs_clear(&g->x);
  for (int a = 0; a < 2; a++)
    for (int k = 0; k < ROWS; k++)
      for (int i = 0; i < DIM; i++)
        mpfr_clear(g->T[a][k][i]);
  for (int i = 0; i < DIM; i++)
    mpfr_clears(g->z0[i], g->z1[i], g->z2[i], g->f0[i], g->f[i], (mpfr_ptr) 0);
  mpfr_clears(g->ts, g->hh, g->tmp, g->tn, g->hm, (mpfr_ptr) 0);
}

/* One GBS step of length H from (t0, y): the result T_{K,K} in out,
 * *err = |T_{K,K} - T_{K,K-1}| in the norm of the header. */
static int gbs_step(mpfr_t *out, double *err, mpfr_srcptr t0, mpfr_t *y,
                    mpfr_srcptr H, gbs *g)
{
  int rc = rhs(g->f0, t0, y, &g->x);
  if (rc != AF_OK)
    return rc;
  int cur = 0;
  for (unsigned k = 1; k <= ROWS; k++) {
    unsigned long nk = 2UL * k;
    mpfr_div_ui(g->hh, H, nk, RND);
    mpfr_mul_2ui(g->hm, g->hh, 1, RND);
    for (int i = 0; i < DIM; i++) {
      mpfr_set(g->z0[i], y[i], RND);
      mpfr_mul(g->tmp, g->hh, g->f0[i], RND);
      mpfr_add(g->z1[i], y[i], g->tmp, RND);
    }
    for (unsigned long q = 1; q < nk; q++) {
      mpfr_mul_ui(g->ts, g->hh, q, RND);
      mpfr_add(g->ts, t0, g->ts, RND);
      rc = rhs(g->f, g->ts, g->z1, &g->x);
      if (rc != AF_OK)
        return rc;
      for (int i = 0; i < DIM; i++) {
        mpfr_mul(g->tmp, g->hm, g->f[i], RND);
        mpfr_add(g->z2[i], g->z0[i], g->tmp, RND);
        mpfr_swap(g->z0[i], g->z1[i]);
        mpfr_swap(g->z1[i], g->z2[i]);
      }
    }
    /* z1 = y_{nk}: the plain midpoint value (no smoothing step). */
    int prv = cur ^ 1;
    for (int i = 0; i < DIM; i++)
      mpfr_set(g->T[cur][0][i], g->z1[i], RND);
    for (unsigned j = 1; j < k; j++) {
      unsigned long nl = 2UL * (k - j);
      unsigned long num = nl * nl, den = nk * nk - nl * nl;
      for (int i = 0; i < DIM; i++) {
        mpfr_sub(g->tmp, g->T[cur][j - 1][i], g->T[prv][j - 1][i], RND);
        mpfr_mul_ui(g->tmp, g->tmp, num, RND);
        mpfr_div_ui(g->tmp, g->tmp, den, RND);
        mpfr_add(g->T[cur][j][i], g->T[cur][j - 1][i], g->tmp, RND);
      }
    }
    cur ^= 1;
  }
  int last = cur ^ 1;
  double scale = fmax(1.0, fabs(mpfr_get_d(g->T[last][ROWS - 1][1], RND)));
  double e0, e1;
  mpfr_sub(g->tmp, g->T[last][ROWS - 1][0], g->T[last][ROWS - 2][0], RND);
  e0 = fabs(mpfr_get_d(g->tmp, MPFR_RNDA));
  mpfr_sub(g->tmp, g->T[last][ROWS - 1][1], g->T[last][ROWS - 2][1], RND);
  e1 = fabs(mpfr_get_d(g->tmp, MPFR_RNDA)) / scale;
  *err = fmax(e0, e1);
  for (int i = 0; i < DIM; i++)
    mpfr_set(out[i], g->T[last][ROWS - 1][i], RND);
  if (!isfinite(*err))
    return AF_ENONFINITE;
  return AF_OK;
}

/* Advance (t, y) to t1 exactly; the step hd is carried. */
static int advance(mpfr_t t, mpfr_t *y, double t1, double *hd, double tol,
                   double span, unsigned long *steps, unsigned long maxsteps,
                   gbs *g, mpfr_t *ynew)
{
  const double q = 2.0 * ROWS - 1.0;
  mpfr_t tend, h;
  mpfr_inits2(g->x.prec, tend, h, (mpfr_ptr) 0);
  mpfr_set_d(tend, t1, RND);
  int rc = AF_OK;
  unsigned long tried = 0;
  while (mpfr_cmp(t, tend) < 0) {
    if (*steps + tried >= maxsteps) {
      rc = AF_EMAXSTEPS;
      break;
    }
    int last = 0;
    mpfr_sub(h, tend, t, RND);
    if (*hd < mpfr_get_d(h, RND))
      mpfr_set_d(h, *hd, RND);
    else
      last = 1;
    double hcur = mpfr_get_d(h, RND), err;
    rc = gbs_step(ynew, &err, t, y, h, g);
    if (rc != AF_OK)
      break;
    double tl = tol * hcur / span;
    double fac = err > 0 ? 0.9 * pow(tl / err, 1.0 / q) : 4.0;
    fac = fmin(4.0, fmax(0.2, fac));
    if (err <= tl) {
      for (int i = 0; i < DIM; i++)
        mpfr_set(y[i], ynew[i], RND);
      if (last)
        mpfr_set(t, tend, RND);
      else
        mpfr_add(t, t, h, RND);
      (*steps)++;
      if (!last || hcur * fac > *hd)
        *hd = hcur * fac;
    } else {
      tried++;
      *hd = hcur * fac;
      if (!(*hd > 0) || mpfr_get_d(t, RND) + *hd == mpfr_get_d(t, RND)) {
        rc = AF_ENOPROGRESS;
        break;
      }
    }
  }
  mpfr_clears(tend, h, (mpfr_ptr) 0);
  return rc;
}

int af_t41_solve_mp(mpfr_t *u, mpfr_t *r, unsigned long *steps,
                    const double *times, size_t ntimes,
                    const af_t41_params *p, double tol)
{
  int st = af_t41_params_validate(p);
  if (st != AF_OK)
    return st;
  if (!u || (ntimes > 0 && !times) || !(tol >= 1e-300) || !(tol <= 1e-3))
    return AF_EINVAL;
  st = af_t41_times_check(times, ntimes);
  if (st != AF_OK)
    return st;
  if (ntimes == 0)
    return AF_OK;
  mpfr_prec_t prec = mpfr_get_prec(u[0]);
  gbs *g = malloc(sizeof *g);
  if (!g)
    return AF_ENOMEM;
  gbs_init(g, p, prec);
  mpfr_t t, y[DIM], yn[DIM];
  mpfr_init2(t, prec);
  for (int i = 0; i < DIM; i++)
    mpfr_inits2(prec, y[i], yn[i], (mpfr_ptr) 0);
  mpfr_set_zero(t, 1);
  mpfr_set_zero(y[0], 1);  /* gamma(0) = 0: u = ln 1 = 0 */
  mpfr_set_d(y[1], p->r0, RND);
  unsigned long ns = 0, maxsteps = p->max_steps ? p->max_steps : 1000000UL;
  int mix = p->scheme == AF_MIX_LN;
  g->x.after = mix && p->tau == 0;
  double hd = 1e-2, tprev = 0.0;
  for (size_t k = 0; k < ntimes && st == AF_OK; k++) {
    double t1 = times[k];
    double span = t1 > tprev ? t1 - tprev : 1.0;
    if (mix && !g->x.after && t1 > p->tau) {
      st = advance(t, y, p->tau, &hd, tol, span, &ns, maxsteps, g, yn);
      if (st != AF_OK)
        break;
      g->x.after = 1;
    }
    st = advance(t, y, t1, &hd, tol, span, &ns, maxsteps, g, yn);
    if (st != AF_OK)
      break;
    mpfr_set(u[k], y[0], RND);
    if (r)
      mpfr_set(r[k], y[1], RND);
    tprev = t1;
  }
  if (steps)
    *steps = ns;
  mpfr_clear(t);
  for (int i = 0; i < DIM; i++)
    mpfr_clears(y[i], yn[i], (mpfr_ptr) 0);
  gbs_clear(g);
  free(g);
  return st;
}

int af_t41_lnK_mp(mpfr_t lnK, size_t n, double beta)
{
  int st = af_t41_K_args(lnK != NULL, n, beta);
  if (st != AF_OK)
    return st;
  if (beta == 0) {
    mpfr_set_zero(lnK, 1); /* K = 1 (T4.1d at beta = 0) */
    return AF_OK;
  }
  mpfr_prec_t wp = mpfr_get_prec(lnK) + 64;
  mpfr_t b, x, s, t;
  mpfr_inits2(wp, b, x, s, t, (mpfr_ptr) 0);
  mpfr_set_d(b, beta, RND);
  /* Ei(b) - gamma_E - ln b */
  mpfr_eint(s, b, RND);
  mpfr_const_euler(t, RND);
  mpfr_sub(s, s, t, RND);
  mpfr_log(t, b, RND);
  mpfr_sub(s, s, t, RND);
  /* + e^b E1s(b/(n-1)) = -e^b e^{b/(n-1)} Ei(-b/(n-1)) = -e^{bn/(n-1)} Ei(-b/(n-1)) */
  mpfr_div_ui(x, b, (unsigned long) (n - 1), RND);
  mpfr_neg(x, x, RND);
  mpfr_eint(t, x, RND);
  mpfr_mul_ui(x, b, (unsigned long) n, RND);
  mpfr_div_ui(x, x, (unsigned long) (n - 1), RND);
  mpfr_exp(x, x, RND);
  mpfr_mul(t, t, x, RND);
  mpfr_sub(s, s, t, RND);
  /* - E1s(bn/(n-1)) = + e^{bn/(n-1)} Ei(-bn/(n-1)) (x = e^{bn/(n-1)}) */
  mpfr_mul_ui(t, b, (unsigned long) n, RND);
  mpfr_div_ui(t, t, (unsigned long) (n - 1), RND);
  mpfr_neg(t, t, RND);
  mpfr_eint(t, t, RND);
  mpfr_mul(t, t, x, RND);
  mpfr_add(s, s, t, RND);
  /* - ln n, / n */
  mpfr_set_ui(t, (unsigned long) n, RND);
  mpfr_log(t, t, RND);
  mpfr_sub(s, s, t, RND);
  mpfr_div_ui(s, s, (unsigned long) n, RND);
  int ok = mpfr_number_p(s);
  mpfr_set(lnK, s, RND);
  mpfr_clears(b, x, s, t, (mpfr_ptr) 0);
  return ok ? AF_OK : AF_ENONFINITE;
}
