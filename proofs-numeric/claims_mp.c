/* claims_mp.c -- the MPFR integrators keep their promise (theorems.md N3).
 *
 * af_mp_integrate promises a global error within the requested tol (max
 * norm relative to max(1, |y|_inf)) and reports err_est, the sum of its
 * accepted steps' local estimates.  Each local estimate is held below
 * tol h / (length of the run) (error per unit step), so the sum over a
 * run is at most tol; and each estimate is the error of a lower-order
 * result than the one kept (mp-gbs: the last two entries of the
 * extrapolation table; mp-gauss: the step against two half steps), so
 * it bounds the local error of the kept result.  Both are checked, for
 * each method, on a field that depends on time (nGPT with alpha(t) =
 * 1.5 (1+t)^(-1/2)), where the stage times enter the result:
 *
 *   measured = max(err / err_est, err_est / tol) <= 1,
 *
 * err = max |y - y_ref| at t = 8 against mp-gbs at 384 bits, tol 1e-64
 * (its own error is below 1e-64, 1e-24 of the tol examined).  The other
 * claims reach the MPFR path through mp-gbs at tight tolerances only;
 * mp-gauss, the step control's tolerance per unit step and the stage
 * times of a time-dependent field are reached here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "attnflow_mp.h"
#include "claims_mprun.h"
#include "verify.h"

#define MPC_N 4
#define MPC_D 3
#define MPC_PREC 256
#define MPC_TOL 1e-40
#define MPC_T 8.0
#define MPC_REF_PREC 384
#define MPC_REF_TOL 1e-64

static void claim_mp(af_vresult *r, const af_vctx *c, int arg)
{
  af_mp_method meth = (af_mp_method) arg;
  double fac = af_v_tol(c, "N.mp");
  if (isnan(fac)) {
    r->status = AF_V_ERROR;
    af_v_note(r, "no row 'N.mp' in the tolerance table");
    return;
  }
  af_model m;
  af_v_model(&m, c, MPC_N, MPC_D, 2.0, AF_NGPT);
  m.alpha = 1.5;
  m.alpha_decay = 0.5;
  af_mp_stats st, sr;
  double err = 0;
  int rc = af_claims_mp_error(&err, &st, &sr, &m, 5300, meth, MPC_PREC,
                              MPC_TOL, MPC_REF_PREC, MPC_REF_TOL, MPC_T);
  if (rc != AF_OK) {
    af_v_error(r, rc, "N.mp");
  } else {
    double q1 = st.err_est > 0 ? err / st.err_est : INFINITY;
    double q2 = st.err_est / MPC_TOL;
    af_v_le(r, fmax(q1, q2), fac, 0.0);
    af_v_note(r, "nGPT alpha(t)=1.5(1+t)^-1/2, n=%d d=%d beta=2, gaussian "
              "start, T=%g, %d bits tol %g: %s order %u, %lu steps; error "
              "%.3g (vs mp-gbs %d bits tol %g, its estimate %.2g), "
              "err_est %.3g: error/err_est %.3g, err_est/tol %.3g",
              MPC_N, MPC_D, MPC_T, MPC_PREC, MPC_TOL, af_mp_method_name(meth),
              st.order, st.steps, err, MPC_REF_PREC, MPC_REF_TOL,
              sr.err_est, st.err_est, q1, q2);
  }
}

const af_claim af_claims_mp[] = {
  {"N.mp", "ngpt", AF_V_PASS, "N.mp", claim_mp, AF_MP_GBS,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-gbs: error <= its estimate <= tol, time-dependent field"},
  {"N.mp", "ngpt", AF_V_PASS, "N.mp", claim_mp, AF_MP_GAUSS,
   AF_FAULT_SPEED | AF_FAULT_ATTENTION,
   "mp-gauss: error <= its estimate <= tol, time-dependent field"},
};

const size_t af_claims_mp_count = sizeof af_claims_mp / sizeof af_claims_mp[0];
