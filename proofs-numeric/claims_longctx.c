/* claims_longctx.c -- the long-context transition of one attention layer
 * (theorems.md LC), and the large-d and large-beta rates T4.1.dn and
 * P1.rate (described above their functions).
 *
 * LC/<scheme>: n tokens th_i = sqrt(rho) e_0 + sqrt(1 - rho) e_i (d =
 * n + 1, all pairwise cosines rho = 1/2), beta = gamma log n with gamma
 * below, at and above 1/(1 - rho) = 2; one layer of the scheme's map
 * (af_layer_step, h = 1, layer 0; nGPT at alpha = 1 is the attention
 * output's direction, the survey's map) against the exact finite-n
 * cosine of theory/longctx.c.  measured = the largest relative error of
 * the cosine and of the gap 1 - cos (computed as |th_i - th_j|^2 / 2)
 * over the pairs (i, i + 1), the gammas and n = 100 (quick), 100, 316,
 * 1000 (full).  n = 10^4 would need d = 10^4 + 1: a state of 8e8 bytes
 * and 10^12 operations for the scores of one layer with the O(n^2 d)
 * kernels, beyond the budget of a claim.
 *
 * LC.rate: the three n -> infinity limits of the exact cosine (each
 * scheme) are approached at the predicted rate: the local slope of
 * log |cos_n - limit| against log n between n = 10^14 and 10^16 (long
 * double) against longctx.c's rate, at gamma = 1.2, 2, 2.8 (kappa = 0.4,
 * transition, -0.4).
 *
 * LC.rand and LC.rand.kernel: random starts at long context (theorems.md
 * LC.rand), described above claim_lc_rand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../theory/longctx.h"
#include "../theory/theory.h"
#include "verify.h"

#define LC_RHO 0.5

static const double lc_gammas[3] = {1.2, 2.0, 2.8};

static void claim_lc(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id sc = (af_scheme_id) arg;
  double tol = af_v_tol(c, "LC.cos");
  static const size_t ns_full[3] = {100, 316, 1000};
  size_t nn = c->level == AF_LEVEL_FULL ? 3 : 1;
  double worst = 0, wn = 0, wg = 0;
  double ex[3][3]; /* exact cosine per n, gamma (for the note) */
  int rc = AF_OK;
  for (size_t in = 0; in < nn && rc == AF_OK; in++) {
    size_t n = ns_full[in], d = n + 1, N = af_state_size(n, d);
    double *y = calloc(N, sizeof *y), *yo = malloc(N * sizeof *yo);
    af_work *w = af_work_alloc(n, d);
    if (!(y && yo && w))
      rc = AF_ENOMEM;
    for (size_t i = 0; rc == AF_OK && i < n; i++) {
      y[i * d] = sqrt(LC_RHO);
      y[i * d + i + 1] = sqrt(1.0 - LC_RHO);
      y[n * d + i] = 1.0;
    }
    for (size_t ig = 0; ig < 3 && rc == AF_OK; ig++) {
      double g = lc_gammas[ig];
      af_model m;
      af_v_model(&m, c, n, d, g * log((double) n), sc);
      rc = af_layer_step(yo, y, 0, 1.0, &m, w);
      if (rc != AF_OK)
        break;
      long double cx, gx;
      af_lc_cos(&cx, &gx, sc, (long double) (n - 1), LC_RHO, g, 1.0, 1.0);
      ex[in][ig] = (double) cx;
      for (size_t i = 0; i + 1 < n; i++) {
        double gap;
        af_v_pair_gap(&gap, yo + i * d, yo + (i + 1) * d, d);
        double e1 = fabs((1.0 - gap) - (double) cx) / (double) cx;
        double e2 = fabs(gap - (double) gx) / (double) gx;
        double e = fmax(e1, e2);
        if (!(e <= worst)) {
          worst = e;
          wn = (double) n;
          wg = g;
        }
      }
    }
    free(y);
    free(yo);
    af_work_free(w);
  }
  if (rc != AF_OK) {
    af_v_error(r, rc, "LC");
    return;
  }
  af_v_le(r, worst, tol, 0.0);
  af_v_note(r, "rho=0.5, beta=gamma log n, one layer h=1%s: max relative "
            "error of cos and 1-cos %.3g (n=%g gamma=%g); exact cos at n=%zu "
            "for gamma 1.2/2/2.8: %.6f %.6f %.6f",
            sc == AF_NGPT ? " (alpha=1: the attention output's direction)"
                          : "",
            worst, wn, wg, ns_full[nn - 1], ex[nn - 1][0], ex[nn - 1][1],
            ex[nn - 1][2]);
}

/* |cos_n - limit| at n = x + 1 (the gap itself where the limit is 1). */
static long double lc_dev(af_scheme_id sc, long double x, double g,
                          long double lim)
{
  long double cx, gx;
  af_lc_cos(&cx, &gx, sc, x, LC_RHO, g, 1.0, 1.0);
  return lim == 1.0L ? gx : fabsl(cx - lim);
}

static void claim_lc_rate(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  double tol = af_v_tol(c, "LC.rate");
  static const af_scheme_id scs[] = {AF_POST_LN, AF_PERI_LN, AF_NGPT,
                                     AF_LC_ATTN};
  static const char *names[] = {"post", "peri", "ngpt", "attn"};
  double worst = 0;
  char buf[200] = "";
  size_t len = 0;
  for (size_t s = 0; s < sizeof scs / sizeof scs[0]; s++) {
    len += (size_t) snprintf(buf + len, sizeof buf - len, "%s%s", s ? "; " : "",
                             names[s]);
    for (int reg = -1; reg <= 1; reg++) {
      double g = lc_gammas[reg + 1];
      long double lim = af_lc_limit(scs[s], reg, LC_RHO, 1.0, 1.0);
      long double d1 = lc_dev(scs[s], 1e14L, g, lim);
      long double d2 = lc_dev(scs[s], 1e16L, g, lim);
      double slope = (double) (-(logl(d2) - logl(d1)) / logl(100.0L));
      double pred = af_lc_rate(scs[s], reg, LC_RHO, g, 1.0);
      double e = fabs(slope - pred);
      if (!(e <= worst))
        worst = e;
      if (len < sizeof buf)
        len += (size_t) snprintf(buf + len, sizeof buf - len, " %.3f/%.2f",
                                 slope, pred);
    }
  }
  af_v_le(r, worst, tol, 0.0);
  af_v_note(r, "rho=0.5, gamma 1.2/2/2.8, limits %.4Lf %.4Lf %.4Lf (attn); "
            "fitted/predicted rates %s", af_lc_limit(AF_LC_ATTN, -1, LC_RHO, 1, 1),
            af_lc_limit(AF_LC_ATTN, 0, LC_RHO, 1, 1),
            af_lc_limit(AF_LC_ATTN, 1, LC_RHO, 1, 1), buf);
}

/* ------------------------------------------------------------ d >> n */


/* T4.1.dn: random starts at d >> n follow the symmetric solution gamma(t)
 * of T4.1: at d = 10 n ... 640 n the pairwise cosines of a uniform start
 * are O(1/sqrt d), and the flow depends smoothly on the start, so the
 * RMS deviation of the pairwise cosines from gamma(t) over pairs, starts
 * and the times 0.5, 1, 2, 4 shrinks like d^{-1/2}.  measured = |fitted
 * exponent - 1/2| (least squares of log RMS on log d). */
static void claim_dn(af_vresult *r, const af_vctx *c, int arg)
{
  af_scheme_id sc = (af_scheme_id) arg;
  int quick = c->level == AF_LEVEL_QUICK;
  static const size_t dq[2] = {40, 640}, df[4] = {40, 160, 640, 2560};
  const size_t *ds = quick ? dq : df, nd = quick ? 2 : 4;
  const size_t n = 4, seeds = quick ? 8 : 16;
  const double beta = 2.3, times[5] = {0, 0.5, 1, 2, 4};
  double g[5], gap[5], rr[5];
  af_t41_params p;
  af_t41_params_init(&p, n, beta, sc);
  int rc = af_t41_solve(g, gap, rr, times, 5, &p);
  double lx[4], ly[4], bias = 0, bsd = 0;
  af_integ_opts o;
  af_integ_opts_init(&o);
  for (size_t k = 0; k < nd && rc == AF_OK; k++) {
    size_t d = ds[k];
    double *y = malloc(af_state_size(n, d) * sizeof *y);
    double *obs = malloc(5 * AF_OBS_COUNT * sizeof *obs);
    if (!(y && obs))
      rc = AF_ENOMEM;
    double ss = 0, sm = 0;
    size_t cnt = 0;
    for (size_t s = 0; s < seeds && rc == AF_OK; s++) {
      rc = af_init_state(y, NULL, "uniform", n, d, 1.0,
                         af_sweep_seed(5100 + d, s));
      af_model m;
      af_v_model(&m, c, n, d, beta, sc);
      /* pair cosines at each output time, by hand (the observables give
       * mean and extremes only) */
      for (size_t i = 1; i < 5 && rc == AF_OK; i++) {
        rc = af_v_run(NULL, y, times + i - 1, 2, &m, &o, AF_KERNEL_DIRECT);
        for (size_t a = 0; rc == AF_OK && a < n; a++)
          for (size_t b = a + 1; b < n; b++) {
            double ab = 0, aa = 0, bb = 0;
            for (size_t q = 0; q < d; q++) {
              ab += y[a * d + q] * y[b * d + q];
              aa += y[a * d + q] * y[a * d + q];
              bb += y[b * d + q] * y[b * d + q];
            }
            double e = ab / sqrt(aa * bb) - g[i];
            ss += e * e;
            sm += e;
            cnt++;
          }
      }
    }
    free(y);
    free(obs);
    lx[k] = log((double) d);
    ly[k] = 0.5 * log(ss / (double) cnt);
    /* mean deviation at the largest d and its standard error (the 6
     * pairs and 4 times of a start are correlated: counted as one) */
    bias = sm / (double) cnt;
    bsd = sqrt(ss / (double) cnt / (double) seeds);
  }
  if (rc != AF_OK) {
    af_v_error(r, rc, "T4.1.dn");
    return;
  }
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (size_t k = 0; k < nd; k++) {
    mx += lx[k] / (double) nd;
    my += ly[k] / (double) nd;
  }
  for (size_t k = 0; k < nd; k++) {
    sxy += (lx[k] - mx) * (ly[k] - my);
    sxx += (lx[k] - mx) * (lx[k] - mx);
  }
  double slope = sxy / sxx;
  af_v_abs(r, -slope, 0.5, af_v_tol(c, "T4.1.dn"));
  af_v_note(r, "n=4 beta=2.3, %zu uniform starts per d, times 0.5..4: RMS "
            "|cos - gamma(t)| %.3g at d=%zu, %.3g at d=%zu; fitted exponent "
            "%.3f (predicted -1/2); mean deviation at d=%zu %.3g (standard "
            "error %.3g)", seeds, exp(ly[0]), ds[0],
            exp(ly[nd - 1]), ds[nd - 1], slope, ds[nd - 1], bias, bsd);
}

/* P1.rate: the USA rate.  From an orthonormal start the USA cosines obey
 * d(1 - g)/dt = -(2/n) e^{beta g}(1 - g)(1 + (n - 1) g) (P1), so the gap
 * decays at the local rate (2/n) e^{beta (1 - w)}(n - (n - 1) w), w = 1 - g,
 * which tends to 2 e^beta: the n-particle system's -d ln(gap)/dt between
 * t = 3 and 4 (gap 1e-9 .. 1e-13, DIRECT kernel, gap_max observable)
 * against 2 e^beta, relative. */
static void claim_usa_rate(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const size_t n = 4, d = 4;
  const double beta = 1.5, times[3] = {0, 3, 4};
  af_model m;
  af_v_model(&m, c, n, d, beta, AF_POST_LN);
  m.attn = AF_ATTN_USA;
  double y[4 * 4 + 4], obs[3 * AF_OBS_COUNT];
  int rc = af_init_state(y, NULL, "orthonormal", n, d, 1.0, 1);
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-13;
  o.atol = 1e-18;
  if (rc == AF_OK)
    rc = af_v_run(obs, y, times, 3, &m, &o, AF_KERNEL_DIRECT);
  if (rc != AF_OK) {
    af_v_error(r, rc, "P1.rate");
    return;
  }
  double g1 = obs[AF_OBS_COUNT + AF_OBS_gap_max];
  double g2 = obs[2 * AF_OBS_COUNT + AF_OBS_gap_max];
  double rate = (log(g1) - log(g2)) / (times[2] - times[1]);
  af_v_rel(r, rate, 2.0 * exp(beta), af_v_tol(c, "P1.rate"));
  af_v_note(r, "USA n=4 beta=1.5 orthonormal start: gap %.3g at t=3, %.3g at "
            "t=4, -d ln gap/dt %.10g vs 2 e^beta %.10g", g1, g2, rate,
            2.0 * exp(beta));
}

/* LC.rand: n uniform points of S^{d-1} (the library's seeded "uniform"
 * start, seed 1), Q = K = V = I, beta = gamma log n.  For m query tokens
 * (every (n/m)-th) the sum S_j = sum_{k != j} e^{beta c_jk} is formed here
 * (long double, from the cosines), and the mean of S_j / E[S_j] over the
 * queries is compared with 1: E[S_j] = (n - 1) M_d(beta) exactly
 * (theory/longctx_rand.c), and the mean's standard deviation is sd
 * sqrt((1 + (m - 1)/(n - 1)) / m), sd = af_lc_rand_relsd.  measured = the
 * largest |z| over the (d, gamma) points, bound 4 (LC.rand.z).
 * LC.rand.kernel: the same weights give <th_j, A_j> = sum_k w_jk c_jk;
 * the library's attention (tiled kernel, the O(n d)-memory one of long
 * context) must agree with this sum (LC.rand.kernel).
 * Quick: n = 2048, d = 64, m = 256, gamma = 0.8, 1.4 (the two sides of
 * the midpoint 1.07).  Full: n = 8192, d = 8, 64, 256, m = 512, gamma =
 * 0.6 ... 2.0 by 0.2 (the kernel at d = 64, gamma = 0.8 and 1.4 only). */
typedef struct {
  double zmax, kmax; /* largest |z|, largest relative kernel difference */
  double zat_d, zat_g, mid;
  double pq[2];      /* predicted self-weight at the first d, gamma 0.8/1.4 */
  int rc;
} lcr_out;

static void lc_rand_run(lcr_out *o, const af_vctx *c, int want_kernel)
{
  int full = c->level == AF_LEVEL_FULL;
  size_t n = full ? 8192 : 2048, m = full ? 512 : 256;
  static const size_t ds_full[3] = {64, 8, 256}, ds_quick[1] = {64};
  const size_t *ds = full ? ds_full : ds_quick;
  size_t nd = full ? 3 : 1;
  double gq[2] = {0.8, 1.4}, gf[8];
  for (int i = 0; i < 8; i++)
    gf[i] = 0.6 + 0.2 * i;
  const double *gam = full ? gf : gq;
  size_t ng = full ? 8 : 2;
  memset(o, 0, sizeof *o);
  o->rc = AF_OK;
  /* The kernel row needs d = 64 and the kernel's gammas only; the rest is
   * the z statistic of the other row. */
  if (want_kernel)
    nd = 1;
  for (size_t id = 0; id < nd && o->rc == AF_OK; id++) {
    size_t d = ds[id], N = af_state_size(n, d), line = 0;
    double *y = malloc(N * sizeof *y), *cj = malloc(n * sizeof *cj),
           *cl = malloc(2 * n * sizeof *cl);
    long double *S = malloc(ng * m * sizeof *S);
    af_work *w = af_work_alloc(n, d);
    if (!(y && cj && cl && S && w))
      o->rc = AF_ENOMEM;
    if (o->rc == AF_OK)
      o->rc = af_init_state(y, &line, "uniform", n, d, NAN, 1);
    if (o->rc == AF_OK)
      o->rc = af_work_set_kernel(w, AF_KERNEL_TILED);
    /* The library's <th_j, A_j> at gamma = 0.8 and 1.4 (d = 64 only: cost). */
    int kg[2] = {-1, -1};
    for (size_t g = 0; g < ng && o->rc == AF_OK; g++) {
      int at = fabs(gam[g] - 0.8) < 1e-9 ? 0 : fabs(gam[g] - 1.4) < 1e-9 ? 1 : -1;
      if (at < 0)
        continue;
      double beta = gam[g] * log((double) n);
      if (id == 0)
        o->pq[at] = af_lc_rand_selfweight((double) n, d, beta);
      if (!want_kernel || id != 0)
        continue;
      af_model mo;
      af_v_model(&mo, c, n, d, beta, AF_POST_LN);
      o->rc = af_attention(NULL, NULL, cl + (size_t) at * n, NULL, 0.0, y, &mo, w);
      kg[at] = (int) g;
    }
    for (size_t i = 0; i < m && o->rc == AF_OK; i++) {
      size_t j = i * (n / m);
      const double *x = y + j * d;
      for (size_t k = 0; k < n; k++) {
        double ck = 0;
        for (size_t a = 0; a < d; a++)
          ck += x[a] * y[k * d + a];
        cj[k] = ck;
      }
      for (size_t g = 0; g < ng; g++) {
        double beta = gam[g] * log((double) n);
        int kern = (int) g == kg[0] ? 0 : (int) g == kg[1] ? 1 : -1;
        if (want_kernel && kern < 0)
          continue;
        long double sum = 0, zc = 1.0L; /* k = j: weight e^0, c_jj = 1 */
        for (size_t k = 0; k < n; k++) {
          if (k == j)
            continue;
          double e = exp(beta * (cj[k] - 1.0));
          sum += e;
          if (kern >= 0)
            zc += (long double) e * cj[k];
        }
        S[g * m + i] = sum; /* S_j e^{-beta} */
        if (kern >= 0) {
          double lib = cl[(size_t) kern * n + j];
          double rel = fabs((double) (zc / (1.0L + sum)) - lib) / fabs(lib);
          if (!(rel <= o->kmax))
            o->kmax = rel;
        }
      }
    }
    for (size_t g = 0; g < ng && o->rc == AF_OK && !want_kernel; g++) {
      double beta = gam[g] * log((double) n);
      double lm = af_lc_rand_log_mgf(d, beta);
      double sd = af_lc_rand_relsd((double) n, d, beta);
      double ES = exp(log((double) n - 1.0) + lm - beta);
      long double mean = 0;
      for (size_t i = 0; i < m; i++)
        mean += S[g * m + i] / ES;
      mean /= (long double) m;
      double se = sd * sqrt((1.0 + (double) (m - 1) / (double) (n - 1)) / (double) m);
      double z = fabs((double) (mean - 1.0L)) / se;
      if (!(z <= o->zmax)) {
        o->zmax = z;
        o->zat_d = (double) d;
        o->zat_g = gam[g];
      }
    }
    if (id == 0)
      o->mid = af_lc_rand_midpoint((double) n, d);
    free(y);
    free(cj);
    free(cl);
    free(S);
    af_work_free(w);
  }
}

static void claim_lc_rand(af_vresult *r, const af_vctx *c, int arg)
{
  lcr_out o;
  lc_rand_run(&o, c, arg);
  if (o.rc != AF_OK) {
    af_v_error(r, o.rc, arg ? "LC.rand.kernel" : "LC.rand");
    return;
  }
  int full = c->level == AF_LEVEL_FULL;
  if (arg) {
    af_v_le(r, o.kmax, af_v_tol(c, "LC.rand.kernel"), 0.0);
    af_v_note(r, "uniform start seed 1, n=%d d=64, beta=gamma log n, gamma "
              "0.8/1.4, %d queries: max relative difference of <th_j, A_j> "
              "(tiled kernel) from the direct sum %.3g",
              full ? 8192 : 2048, full ? 512 : 256, o.kmax);
    return;
  }
  af_v_le(r, o.zmax, af_v_tol(c, "LC.rand.z"), 0.0);
  af_v_note(r, "uniform start seed 1, n=%d d=%s, %d queries, gamma %s: max "
            "|z| of mean S_j/E[S_j] - 1 %.3g (d=%g gamma=%.1f); predicted "
            "self-weight at d=64 %.4g (gamma 0.8), %.4g (1.4), midpoint "
            "gamma %.4f",
            full ? 8192 : 2048, full ? "64/8/256" : "64", full ? 512 : 256,
            full ? "0.6..2.0" : "0.8/1.4", o.zmax, o.zat_d, o.zat_g, o.pq[0],
            o.pq[1], o.mid);
}

const af_claim af_claims_longctx[] = {
  {"LC", "post-ln", AF_V_PASS, "LC.cos", claim_lc, AF_POST_LN, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"LC", "pre-ln", AF_V_PASS, "LC.cos", claim_lc, AF_PRE_LN, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"LC", "mix-ln", AF_V_PASS, "LC.cos", claim_lc, AF_MIX_LN, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"LC", "peri-ln", AF_V_PASS, "LC.cos", claim_lc, AF_PERI_LN, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"LC", "ngpt", AF_V_PASS, "LC.cos", claim_lc, AF_NGPT, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"LC", "ln-scaling", AF_V_PASS, "LC.cos", claim_lc, AF_LN_SCALING, F_A,
   "one layer at beta = gamma log n: cosine = exact finite-n formula"},
  {"T4.1.dn", "post-ln", AF_V_PASS, "T4.1.dn", claim_dn, AF_POST_LN, 0,
   "random starts at d >> n follow gamma(t), deviation ~ d^-1/2"},
  {"T4.1.dn", "peri-ln", AF_V_PASS, "T4.1.dn", claim_dn, AF_PERI_LN, 0,
   "random starts at d >> n follow gamma(t), deviation ~ d^-1/2"},
  {"P1.rate", "post-ln", AF_V_PASS, "P1.rate", claim_usa_rate, 0, F_A,
   "USA gap decays at the rate 2 e^beta"},
  {"LC.rate", "", AF_V_PASS, "LC.rate", claim_lc_rate, 0, 0,
   "the three n -> infinity limits approached at the predicted rates"},
  {"LC.rand", "", AF_V_PASS, "LC.rand.z", claim_lc_rand, 0, 0,
   "random starts: mean of S_j = (n - 1) M_d(beta), within 4 sd"},
  {"LC.rand.kernel", "", AF_V_PASS, "LC.rand.kernel", claim_lc_rand, 1, F_A,
   "random starts at beta = gamma log n: tiled kernel = direct softmax sum"},
};

const size_t af_claims_longctx_count =
    sizeof af_claims_longctx / sizeof af_claims_longctx[0];
