/* claims_mpglobal.c -- mp-gbs's transported global error estimate
 * (src/mp/mp_globerr.c; theorems.md N3g).
 *
 * N.mp.global: err_global, the step's local error vectors carried to the
 *   end by the flow's linearization, is within a factor 10 of the true
 *   error either way, where err_est (the sum of the local estimates, a
 *   bound, N3) is far above it:
 *     measured = max(err_global / err, err / err_global) <= 10,
 *   err against mp-gbs at 128 more bits and 20 or more digits more
 *   (af_claims_mp_level_at: quick level 128 bits and tol 1e-25, full
 *   level 256 bits and tol 1e-40).  Three cases: the time-dependent
 *   nGPT field of N.mp (n = 4, d = 3, beta = 2, alpha(t) = 1.5
 *   (1+t)^(-1/2), t in [0, 8]); and Post-LN tokens that cluster (n = 12,
 *   d = 3, Gaussian start, t in [0, 30]) at beta = 1.5 and beta = 2,
 *   where the flow damps the early local errors.  At the quick level
 *   (measured 2.0, 1.7, 4.6) both Post-LN rows see the d_k summed
 *   without the transport (mutant globerr-no-transport: 27.8 and 25.4),
 *   and the beta = 2 row a doubled J v (globerr-jacobian-double: 15.9;
 *   over [0, 20] it gave 4.2, which is why the runs go to 30).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "attnflow_mp.h"
#include "claims_mprun.h"
#include "verify.h"

#define MPG_D 3

static void claim_global(af_vresult *r, const af_vctx *c, int arg)
{
  af_claims_mp_level K = af_claims_mp_level_at(c);
  af_model m;
  size_t n;
  double T;
  unsigned long seed;
  if (arg == 0) {
    n = 4;
    T = 8.0;
    seed = 5300;
    af_v_model(&m, c, n, MPG_D, 2.0, AF_NGPT);
    m.alpha = 1.5;
    m.alpha_decay = 0.5;
  } else { /* arg 1: beta = 1.5, arg 2: beta = 2 */
    n = 12;
    T = 30.0;
    seed = 5310;
    af_v_model(&m, c, n, MPG_D, arg == 1 ? 1.5 : 2.0, AF_POST_LN);
  }
  af_mp_stats st, sr;
  double err = 0;
  int rc = af_claims_mp_error(&err, &st, &sr, &m, seed, AF_MP_GBS, K.prec,
                              K.tol, K.ref_prec, K.ref_tol, T);
  if (rc != AF_OK)
    af_v_error(r, rc, "N.mp.global");
  else {
    double g = st.err_global;
    double q = (err > 0 && g > 0) ? fmax(g / err, err / g) : INFINITY;
    af_v_le(r, q, af_v_tol(c, "N.mp.global"), 0.0);
    af_v_note(r, "%s n=%zu d=%d beta=%g, gaussian start, T=%g, %ld bits tol "
              "%g: mp-gbs order %u, %lu steps; error %.3g (vs %ld bits tol "
              "%g), err_global %.3g (%.3g of the error), err_est %.3g (%.3g "
              "of the error)",
              arg == 0 ? "nGPT alpha(t)=1.5(1+t)^-1/2" : "post-ln", n, MPG_D,
              m.beta, T, (long) K.prec, K.tol, st.order, st.steps, err,
              (long) K.ref_prec, K.ref_tol, g, g / err, st.err_est,
              st.err_est / err);
  }
}

const af_claim af_claims_mpglobal[] = {
  {"N.mp.global", "ngpt", AF_V_PASS, "N.mp.global", claim_global, 0,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-gbs: transported global estimate within 10x of the error"},
  {"N.mp.global", "post-ln", AF_V_PASS, "N.mp.global", claim_global, 1,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-gbs: transported estimate within 10x, clustering, beta 1.5"},
  {"N.mp.global", "post-ln", AF_V_PASS, "N.mp.global", claim_global, 2,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-gbs: transported estimate within 10x, clustering, beta 2"},
};

const size_t af_claims_mpglobal_count =
    sizeof af_claims_mpglobal / sizeof af_claims_mpglobal[0];
