/* claims_s7.c -- the discrete layer maps (theorems.md S7): S7.map checks
 * one layer step of src/ against S7's formula (theory/s7.c) to its
 * rounding bound, and S7.sym the maps on the symmetric start as h -> 0
 * (equal to the scalar map, order 1 to the scalar ODE).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "s7.h"
#include "theory.h"
#include "verify.h"

#define U (DBL_EPSILON / 2)

/* ------------------------------------------------------------------ */
/* S7.map: one layer step of src/ against S7's formula (theory/)       */
/* ------------------------------------------------------------------ */

/* Random Gaussian states (radii from the norms), n = 5, d = 4, beta 1.5,
 * alpha 0.7 (1 + t)^-0.4, tau = 0.5, h = 0.25: layers 0..3 and 12 (l h
 * = 0, 0.25, 0.5 = tau, 0.75, 3), so Mix-LN's switch is checked at the
 * boundary (layer 2 is Pre-LN) and the time-dependent factors at
 * l h = 3.  Measured: the largest error over components and radii in
 * units of the rounding bound af_s7_rounding; the tolerance row S7.map
 * is a factor on it (both sides round). */
#define S7_N 5
#define S7_D 4
#define S7_BETA 1.5
#define S7_H 0.25
#define S7_SEEDS 3

static void fill_s7(af_s7_params *q, af_scheme_id s)
{
  q->scheme = s;
  q->beta = S7_BETA;
  q->alpha = 0.7;
  q->decay = 0.4;
  q->tau = 0.5;
}

static void claim_s7_map(af_vresult *r, const af_vctx *c, int arg)
{
  double fac = af_v_tol(c, "S7.map");
  af_scheme_id s = (af_scheme_id) arg;
  af_model m;
  af_v_model(&m, c, S7_N, S7_D, S7_BETA, s);
  m.alpha = 0.7;
  m.alpha_decay = 0.4;
  m.tau = 0.5;
  af_s7_params q;
  fill_s7(&q, s);
  size_t N = af_state_size(S7_N, S7_D), nd = S7_N * S7_D;
  double *y = malloc(N * sizeof *y), *ys = malloc(N * sizeof *ys),
         *yt = malloc(N * sizeof *yt);
  af_work *w = af_work_alloc(S7_N, S7_D);
  int st = (y && ys && yt && w) ? AF_OK : AF_ENOMEM;
  static const size_t layers[] = {0, 1, 2, 3, 12};
  double worst = 0, wabs = 0;
  size_t wl = 0;
  for (unsigned long seed = 1; seed <= S7_SEEDS && st == AF_OK; seed++)
    for (size_t li = 0; li < sizeof layers / sizeof layers[0]; li++) {
      size_t line;
      st = af_init_state(y, &line, "gaussian", S7_N, S7_D, NAN, seed);
      if (st == AF_OK)
        st = af_layer_step(ys, y, layers[li], S7_H, &m, w);
      if (st == AF_OK)
        st = af_s7_step(yt, y, S7_N, S7_D, layers[li], S7_H, &q);
      if (st != AF_OK)
        break;
      double rmax = 0;
      for (size_t j = 0; j < S7_N; j++)
        rmax = fmax(rmax, y[nd + j]);
      double edir, erad;
      af_s7_rounding(&edir, &erad, S7_N, S7_D, S7_BETA, S7_H, rmax, 0, &q);
      for (size_t i = 0; i < nd; i++) {
        double e = fabs(ys[i] - yt[i]) / edir;
        if (!(e <= worst)) {
          worst = e;
          wabs = fabs(ys[i] - yt[i]);
          wl = layers[li];
        }
      }
      for (size_t j = 0; j < S7_N; j++) {
        double e = fabs(ys[nd + j] - yt[nd + j]) / (erad * yt[nd + j]);
        if (!(e <= worst)) {
          worst = e;
          wabs = fabs(ys[nd + j] - yt[nd + j]);
          wl = layers[li];
        }
      }
    }
  if (st != AF_OK)
    af_v_error(r, st, "S7.map");
  else {
    af_v_le(r, worst, 0.0, fac);
    af_v_note(r, "gaussian n=%d d=%d beta=%g h=%g, %d seeds, layers "
              "0,1,2,3,12: worst %.3g rounding bounds (%.3g absolute, "
              "layer %zu)", S7_N, S7_D, S7_BETA, S7_H, S7_SEEDS, worst,
              wabs, wl);
  }
  free(y);
  free(ys);
  free(yt);
  af_work_free(w);
}

/* ------------------------------------------------------------------ */
/* S7.sym: the maps on the symmetric start as h -> 0                     */
/* ------------------------------------------------------------------ */

/* Orthonormal start n = d = 4, r0 = 1.5, beta 1, alpha 0.7 (1+t)^-0.3,
 * tau = 0.5, T = 2, h = 0.02, 0.01, 0.005.  Checks, each a FAIL if
 * violated: (1) at every layer of every h, the step of src/
 * (af_layer_step) from the n-particle state equals the scalar map
 * af_s7_sym_step from that state's mean gap and radius, to the step's
 * rounding bound (af_s7_rounding; a gap moves by <= 4 sqrt(d) edir) plus
 * twice the state's own asymmetry (measured); (2) the order of
 * e(h) = |gap(T) - gap_ODE(T)| + |r(T) - r_ODE(T)|/r_ODE against the
 * scalar ODE (af_t41_solve) is 1 within S7.order, from the last pair of
 * h; (3) the error constants e(h)/h of the n-particle map and of the
 * scalar map iterated alone are reported (they agree by (1)). */
#define SY_N 4
#define SY_T 2.0
#define SY_NH 3

static void claim_s7_sym(af_vresult *r, const af_vctx *c, int arg)
{
  double fac = af_v_tol(c, "S7.sym"), otol = af_v_tol(c, "S7.order");
  af_scheme_id s = (af_scheme_id) arg;
  af_model m;
  af_v_model(&m, c, SY_N, SY_N, 1.0, s);
  m.alpha = 0.7;
  m.alpha_decay = 0.3;
  m.tau = 0.5;
  af_s7_params q = {s, 1.0, 0.7, 0.3, 0.5};
  af_t41_params p;
  af_t41_params_init(&p, SY_N, 1.0, s);
  p.r0 = 1.5;
  p.alpha = 0.7;
  p.alpha_decay = 0.3;
  p.tau = 0.5;
  size_t N = af_state_size(SY_N, SY_N);
  double *y = malloc(N * sizeof *y);
  af_work *w = af_work_alloc(SY_N, SY_N);
  int st = (y && w) ? AF_OK : AF_ENOMEM;
  double times[2] = {0.0, SY_T}, g[2], rr[2];
  if (st == AF_OK)
    st = af_t41_solve(NULL, g, rr, times, 2, &p);
  double e[SY_NH], es[SY_NH], dev = 0, hs[SY_NH];
  for (size_t i = 0; i < SY_NH && st == AF_OK; i++) {
    double h = 0.02 / (double) (1u << i);
    hs[i] = h;
    size_t L = (size_t) nearbyint(SY_T / h), line;
    st = af_init_state(y, &line, "orthonormal", SY_N, SY_N, 1.5, 0);
    double ws = 1.0, rs = 1.5, gw = 1.0, rw = 1.5;
    for (size_t l = 0; l < L && st == AF_OK; l++) {
      /* the scalar map from the n-particle state's mean gap and radius */
      double wp, rp;
      st = af_s7_sym_step(&wp, &rp, gw, rw, SY_N, l, h, &q);
      if (st == AF_OK)
        st = af_s7_sym_step(&ws, &rs, ws, rs, SY_N, l, h, &q);
      double asym = 0, dg = 0, dr = 0;
      if (st == AF_OK) {
        /* asymmetry of the state the step starts from */
        for (size_t a = 0; a < SY_N; a++) {
          for (size_t b = a + 1; b < SY_N; b++) {
            double gp;
            af_v_pair_gap(&gp, y + a * SY_N, y + b * SY_N, SY_N);
            asym = fmax(asym, fabs(gp - gw));
          }
          asym = fmax(asym, fabs(y[SY_N * SY_N + a] - rw) / rw);
        }
        st = af_layer_step(y, y, l, h, &m, w);
      }
      if (st != AF_OK)
        break;
      gw = rw = 0;
      for (size_t a = 0; a < SY_N; a++) {
        for (size_t b = a + 1; b < SY_N; b++) {
          double gp;
          af_v_pair_gap(&gp, y + a * SY_N, y + b * SY_N, SY_N);
          dg = fmax(dg, fabs(gp - wp));
          gw += gp;
        }
        double ra = y[SY_N * SY_N + a];
        dr = fmax(dr, fabs(ra - rp) / rp);
        rw += ra;
      }
      gw /= (double) (SY_N * (SY_N - 1) / 2);
      rw /= (double) SY_N;
      double edir, erad;
      af_s7_rounding(&edir, &erad, SY_N, SY_N, 1.0, h, fmax(rw, 1.5), 0, &q);
      /* a gap |d th|^2/2 moves by <= |d th| 2 sqrt(d) edir <= 4 sqrt(d)
       * edir; the step carries the start's asymmetry at most doubled */
      double bound = 4.0 * sqrt((double) SY_N) * edir + erad + 2.0 * asym;
      double di = fmax(dg, dr) / bound;
      dev = isnan(di) ? INFINITY : fmax(dev, di);
    }
    if (st != AF_OK)
      break;
    e[i] = fabs(gw - g[1]) + fabs(rw - rr[1]) / rr[1];
    es[i] = fabs(ws - g[1]) + fabs(rs - rr[1]) / rr[1];
  }
  if (st != AF_OK) {
    af_v_error(r, st, "S7.sym");
    goto out;
  }
  double ph = log2(e[SY_NH - 2] / e[SY_NH - 1]);
  int ok_ord = fabs(ph - 1.0) <= otol;
  if (dev > fac || !ok_ord) {
    if (dev > fac)
      af_v_le(r, dev, 0.0, fac);
    else
      af_v_abs(r, ph, 1.0, otol);
    r->status = AF_V_FAIL;
  } else if (fabs(ph - 1.0) / otol > dev / fac)
    af_v_abs(r, ph, 1.0, otol);
  else
    af_v_le(r, dev, 0.0, fac);
  af_v_note(r, "orthonormal n=d=%d r0=1.5 T=%g: map vs scalar map %.3g "
            "rounding bounds; order %.3f (e=%.3g,%.3g,%.3g at h=%g..%g); "
            "error constants e/h: n-particle %.4g, scalar map %.4g",
            SY_N, SY_T, dev, ph, e[0], e[1], e[2], hs[0], hs[SY_NH - 1],
            e[SY_NH - 1] / hs[SY_NH - 1], es[SY_NH - 1] / hs[SY_NH - 1]);
out:
  free(y);
  af_work_free(w);
}

const af_claim af_claims_s7[] = {
  {"S7.map", "post-ln", AF_V_PASS, "S7.map", claim_s7_map, AF_POST_LN,
   F_S | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.map", "pre-ln", AF_V_PASS, "S7.map", claim_s7_map, AF_PRE_LN,
   F_S | F_R | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.map", "mix-ln", AF_V_PASS, "S7.map", claim_s7_map, AF_MIX_LN,
   F_S | F_R | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.map", "peri-ln", AF_V_PASS, "S7.map", claim_s7_map, AF_PERI_LN,
   F_S | F_R | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.map", "ngpt", AF_V_PASS, "S7.map", claim_s7_map, AF_NGPT,
   F_S | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.map", "ln-scaling", AF_V_PASS, "S7.map", claim_s7_map, AF_LN_SCALING,
   F_S | F_A, "one layer step = S7's formula (theory/s7.c)"},
  {"S7.sym", "post-ln", AF_V_PASS, "S7.sym", claim_s7_sym, AF_POST_LN,
   F_S | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
  {"S7.sym", "pre-ln", AF_V_PASS, "S7.sym", claim_s7_sym, AF_PRE_LN,
   F_S | F_R | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
  {"S7.sym", "mix-ln", AF_V_PASS, "S7.sym", claim_s7_sym, AF_MIX_LN,
   F_S | F_R | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
  {"S7.sym", "peri-ln", AF_V_PASS, "S7.sym", claim_s7_sym, AF_PERI_LN,
   F_S | F_R | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
  {"S7.sym", "ngpt", AF_V_PASS, "S7.sym", claim_s7_sym, AF_NGPT,
   F_S | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
  {"S7.sym", "ln-scaling", AF_V_PASS, "S7.sym", claim_s7_sym, AF_LN_SCALING,
   F_S | F_A, "symmetric start: map = scalar map; order 1 to the ODE"},
};
const size_t af_claims_s7_count =
    sizeof af_claims_s7 / sizeof af_claims_s7[0];
