/* scheme.c -- the six normalization schemes as rows of one table.
 *
 * Spec S0 (theorems.md S0-S7): every scheme is d theta/dt = P A / s,
 * dr/dt = rho.  A row gives s and rho from the token's radius r,
 * c = <theta, A>, a = |A|, the time t, nGPT's alpha(t) and Mix-LN's tau.
 * The discrete maps S7 live in layer_maps.c (af_layer_step) and are keyed
 * by the same id.  Adding a scheme means one rates function, one row, and
 * one case in af_layer_step.
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "scheme_spec.h"

static void rates_post(double *s, double *rho, double t, double r, double c,
                       double a, double alpha, double tau)
{
  (void) t; (void) r; (void) c; (void) a; (void) alpha; (void) tau;
  *s = 1.0;
  *rho = 0.0;
}

static void rates_pre(double *s, double *rho, double t, double r, double c,
                      double a, double alpha, double tau)
{
  (void) t; (void) a; (void) alpha; (void) tau;
  *s = r;
  *rho = c;
}

/* Mix-LN: Post-LN on [0, tau], Pre-LN after.  The integrators stop exactly
 * at tau and restart, so the value at t == tau itself is the Post-LN one
 * (the interval [0, tau] is closed on the Post-LN side, as in theorems.md S3). */
static void rates_mix(double *s, double *rho, double t, double r, double c,
                      double a, double alpha, double tau)
{
  if (t <= tau)
    rates_post(s, rho, t, r, c, a, alpha, tau);
  else
    rates_pre(s, rho, t, r, c, a, alpha, tau);
}

static void rates_peri(double *s, double *rho, double t, double r, double c,
                       double a, double alpha, double tau)
{
  (void) t; (void) alpha; (void) tau;
  *s = r * a;
  *rho = c / a;
}

static void rates_ngpt(double *s, double *rho, double t, double r, double c,
                       double a, double alpha, double tau)
{
  (void) t; (void) r; (void) c; (void) tau;
  *s = a / alpha;
  *rho = 0.0;
}

static void rates_lnscaling(double *s, double *rho, double t, double r,
                            double c, double a, double alpha, double tau)
{
  (void) r; (void) c; (void) a; (void) alpha; (void) tau;
  *s = sqrt(t + 1.0);
  *rho = 0.0;
}

static const af_scheme af_schemes[AF_SCHEME_COUNT] = {
  {AF_POST_LN, "post-ln", "Post-LN", 0, 0, rates_post, "1", "0"},
  {AF_PRE_LN, "pre-ln", "Pre-LN", 0, 1, rates_pre, "r_j", "<theta_j, A_j>"},
  {AF_MIX_LN, "mix-ln", "Mix-LN", 0, 1, rates_mix,
   "1 for t <= tau, r_j after", "0 for t <= tau, <theta_j, A_j> after"},
  {AF_PERI_LN, "peri-ln", "Peri-LN", 1, 1, rates_peri, "r_j |A_j|",
   "<theta_j, A_j> / |A_j|"},
  {AF_NGPT, "ngpt", "nGPT", 1, 0, rates_ngpt, "|A_j| / alpha(t)", "0"},
  {AF_LN_SCALING, "ln-scaling", "LN-Scaling", 0, 0, rates_lnscaling,
   "sqrt(t + 1)", "0"},
};

/* The rates of every row in one call: the table's functions called
 * directly (inlined, so the loops over rows run without an indirect call
 * per token and vectorize where the formula allows), the same operations
 * as one call per row. */
#define RATES_ROWS(F)                                                        \
  for (size_t j = 0; j < n; j++)                                             \
    F(s + j, rho + j, t, r[j], c[j], a[j], alpha, tau)

void af_scheme_rates_rows(const af_scheme *sc, double *s, double *rho,
                          size_t n, double t, const double *r,
                          const double *c, const double *a, double alpha,
                          double tau)
{
  switch (sc->id) {
  case AF_POST_LN:
    RATES_ROWS(rates_post);
    break;
  case AF_PRE_LN:
    RATES_ROWS(rates_pre);
    break;
  case AF_MIX_LN:
    RATES_ROWS(rates_mix);
    break;
  case AF_PERI_LN:
    RATES_ROWS(rates_peri);
    break;
  case AF_NGPT:
    RATES_ROWS(rates_ngpt);
    break;
  case AF_LN_SCALING:
    RATES_ROWS(rates_lnscaling);
    break;
  default: {
    const af_scheme_spec *sp = af_scheme_spec_of(sc);
    if (sp != NULL) /* a spec'd row: its expressions (scheme_spec.c) */
      af_scheme_spec_rates_rows(sp, s, rho, n, t, r, c, a, alpha, tau);
    else
      RATES_ROWS(sc->rates);
    break;
  }
  }
}

const af_scheme *af_scheme_get(af_scheme_id id)
{
  if ((int) id < 0 || id >= AF_SCHEME_COUNT)
    return NULL;
  return &af_schemes[id];
}

/* (the rows are in the order of their ids: row k is scheme k) */
AF_DEFINE_LOOKUP(af_scheme_lookup, af_scheme_id, af_schemes, AF_SCHEME_COUNT,
                 .name)
