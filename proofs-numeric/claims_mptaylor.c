/* claims_mptaylor.c -- the Taylor series method mp-taylor (src/mp/mp_taylor.c)
 * against the two other MPFR methods and against its tolerance
 * (theorems.md N3t).
 *
 * N.taylor.agree: a third independent method checked as mp-gauss and
 *   mp-gbs check each other: Peri-LN (speed r_j |A_j|, rate c_j / |A_j|:
 *   the series of a square root and of two quotients enter), n = 4,
 *   d = 3, beta = 2, Gaussian start, t in [0, 2], 256 bits, tol 1e-40.
 *   mp-gauss's and mp-gbs's estimates are at least their errors (N3);
 *   mp-taylor's is within a factor 10 of its error (N.taylor.over), so
 *   two runs differ by at most 10 est_taylor + est_X:
 *     measured = max_X |y_taylor - y_X|_inf / (10 est_taylor + est_X) <= 1.
 * N.taylor.over: the estimate is honest and the tolerance is spent, not
 *   over-achieved: nGPT with alpha(t) = 1.5 (1+t)^(-1/2) (the time series
 *   of alpha enters), n = 4, d = 3, beta = 2, t in [0, 8], 256 bits, tol
 *   1e-40, against mp-gbs at 384 bits and tol 1e-64:
 *     measured = max(err_est / err, err / err_est, tol / err) <= 10.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "attnflow_mp.h"
#include "claims_mprun.h"
#include "verify.h"

#define MPT_N 4
#define MPT_D 3

static void claim_agree(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  af_claims_mp_level K = af_claims_mp_level_at(c);
  af_model m;
  af_v_model(&m, c, MPT_N, MPT_D, 2.0, AF_PERI_LN);
  size_t N = af_state_size(MPT_N, MPT_D);
  double *y0 = malloc(N * sizeof *y0);
  mpfr_t *yt = af_mp_vec_alloc(N, K.prec);
  mpfr_t *yx = af_mp_vec_alloc(N, K.prec);
  int rc = (y0 && yt && yx) ? AF_OK : AF_ENOMEM;
  if (rc == AF_OK)
    rc = af_init_state(y0, NULL, "gaussian", MPT_N, MPT_D, NAN, 5301);
  af_mp_stats st, sx[2];
  double q[2] = {0, 0}, dif[2] = {0, 0};
  if (rc == AF_OK)
    rc = af_claims_mp_run(yt, y0, K.prec, AF_MP_TAYLOR, K.tol, 2.0, &m, &st);
  const af_mp_method other[2] = {AF_MP_GBS, AF_MP_GAUSS};
  for (int k = 0; k < 2 && rc == AF_OK; k++) {
    /* The other methods without the model's faults: a fault in the
     * field shows as a disagreement. */
    af_model clean = m;
    clean.fault = 0;
    rc = af_claims_mp_run(yx, y0, K.prec, other[k], K.tol, 2.0, &clean,
                          &sx[k]);
    if (rc == AF_OK) {
      dif[k] = af_mp_vec_maxdiff(yt, yx, N);
      q[k] = dif[k] / (10 * st.err_est + sx[k].err_est);
    }
  }
  if (rc != AF_OK)
    af_v_error(r, rc, "N.taylor.agree");
  else {
    af_v_le(r, fmax(q[0], q[1]), af_v_tol(c, "N.taylor.agree"), 0.0);
    af_v_note(r, "peri-ln n=%d d=%d beta=2, T=2, %ld bits tol %g: mp-taylor "
              "order %u, %lu steps, est %.3g; vs mp-gbs %.3g (est %.3g), "
              "vs mp-gauss %.3g (est %.3g): differences over 10 est_taylor "
              "+ est_X %.3g, %.3g",
              MPT_N, MPT_D, (long) K.prec, K.tol, st.order, st.steps, st.err_est,
              dif[0], sx[0].err_est, dif[1], sx[1].err_est, q[0], q[1]);
  }
  free(y0);
  af_mp_vec_free(yt, yt ? N : 0);
  af_mp_vec_free(yx, yx ? N : 0);
}

static void claim_over(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  af_claims_mp_level K = af_claims_mp_level_at(c);
  af_model m;
  af_v_model(&m, c, MPT_N, MPT_D, 2.0, AF_NGPT);
  m.alpha = 1.5;
  m.alpha_decay = 0.5;
  af_mp_stats st, sr;
  double err = 0;
  int rc = af_claims_mp_error(&err, &st, &sr, &m, 5300, AF_MP_TAYLOR, K.prec,
                              K.tol, K.ref_prec, K.ref_tol, 8.0);
  if (rc != AF_OK)
    af_v_error(r, rc, "N.taylor.over");
  else {
    double q1 = err > 0 ? st.err_est / err : INFINITY;
    double q2 = st.err_est > 0 ? err / st.err_est : INFINITY;
    double q3 = err > 0 ? K.tol / err : INFINITY;
    af_v_le(r, fmax(q1, fmax(q2, q3)), af_v_tol(c, "N.taylor.over"), 0.0);
    af_v_note(r, "nGPT alpha(t)=1.5(1+t)^-1/2, n=%d d=%d beta=2, T=8, %ld "
              "bits tol %g: mp-taylor order %u, %lu steps; error %.3g (vs "
              "mp-gbs %ld bits tol %g, its estimate %.2g), err_est %.3g: "
              "err_est/error %.3g, error/err_est %.3g, tol/error %.3g",
              MPT_N, MPT_D, (long) K.prec, K.tol, st.order, st.steps, err,
              (long) K.ref_prec, K.ref_tol, sr.err_est, st.err_est, q1, q2, q3);
  }
}

const af_claim af_claims_mptaylor[] = {
  {"N.taylor.agree", "peri-ln", AF_V_PASS, "N.taylor.agree", claim_agree, 0,
   AF_FAULT_SPEED | AF_FAULT_RADIAL | AF_FAULT_ATTENTION,
   "mp-taylor agrees with mp-gbs and mp-gauss within their estimates"},
  {"N.taylor.over", "ngpt", AF_V_PASS, "N.taylor.over", claim_over, 0,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-taylor: error, estimate and tol within a factor 10 of each other"},
};

const size_t af_claims_mptaylor_count =
    sizeof af_claims_mptaylor / sizeof af_claims_mptaylor[0];
