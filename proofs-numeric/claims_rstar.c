/* claims_rstar.c -- T4.1a over continuous ranges (theorems.md,
 * C-T4.1a-rstar): the initial-speed ordering of Peri-LN against Post-LN
 * changes sign exactly on r0 = r*(n, beta) = (e^beta + n - 1) /
 * sqrt(e^{2 beta} + n - 1), proven on both sides for n in [2, 1024] (a
 * real parameter), beta in [0, 20], r0 in [1/16, 64] by bisection in ball
 * arithmetic (certified/rstar.c).
 *
 *   C-T4.1a-rstar       the theorem (certified)
 *   C-rstar-pre-false   deliberately false: the same boundary separates
 *                       Peri-LN from Pre-LN (it does not: v_peri / v_pre
 *                       = r* > 1 for every r0), must come out refuted
 *
 * Same level for quick and full: the proof is of the whole domain.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "verify.h"
#include "rstar.h"

#define RSTAR_MAX_BOXES 4000000UL

static const af_rstar_domain rstar_dom = {2.0, 1024.0, 0.0, 20.0, 0.0625,
                                          64.0};

static void claim_rstar(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
#ifdef AF_HAVE_ARB
  af_rstar_result res;
  int st = af_cert_rstar_prove(&res, &rstar_dom, arg, RSTAR_MAX_BOXES);
  if (st != AF_OK) {
    af_v_error(r, st, "C-T4.1a-rstar");
    return;
  }
  r->measured = (double) res.boxes;
  r->predicted = NAN;
  r->tolerance = 0;
  r->margin = NAN;
  r->status = res.result == AF_PROVE_CERTIFIED ? AF_V_CERTIFIED
              : res.result == AF_PROVE_REFUTED ? AF_V_REFUTED
                                               : AF_V_NOCERT;
  af_v_note(r, "%sn in [2,1024], beta in [0,20], r0 in [1/16,64]: %lu boxes "
               "faster (r0 < r*), %lu slower (r0 > r*), %lu boundary boxes "
               "(thinner than 2^-8 r0, by the identity D = 2(r* - r0)/(r0 P)); "
               "%.4f of the volume proven directly",
            arg ? "false variant (v_pre in place of v_post): " : "",
            res.faster, res.slower, res.boundary, res.direct_fraction);
  if (res.result == AF_PROVE_REFUTED)
    af_v_note(r, "; refuted at n=%.6g beta=%.6g r0=%.6g", res.where[0],
              res.where[1], res.where[2]);
#else
  (void) arg;
  af_v_nocert(r, "built without Arb");
#endif
}

#ifdef AF_HAVE_ARB
#define EXP_NO AF_V_REFUTED
#else
#define EXP_NO AF_V_NOCERT
#endif

const af_claim af_claims_rstar[] = {
  {"C-T4.1a-rstar", "", AF_V_CERT_EXPECTED, "C.proof", claim_rstar, 0, 0,
   "Peri-LN faster than Post-LN at t = 0 iff r0 < r*(n, beta), all n, beta"},
  {"C-rstar-pre-false", "", EXP_NO, "C.proof", claim_rstar, 1, 0,
   "deliberately false: r* also separates Peri-LN from Pre-LN"},
};
const size_t af_claims_rstar_count =
    sizeof af_claims_rstar / sizeof af_claims_rstar[0];
