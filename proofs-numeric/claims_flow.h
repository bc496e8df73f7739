/* claims_flow.h -- the independent check of a certified n-particle
 * enclosure (claims_flow.c), shared with tests/test_certify.c. */
#ifndef AF_CLAIMS_FLOW_H
#define AF_CLAIMS_FLOW_H

#include "certify.h"

/* The MPFR path (af_mp_integrate, Gragg-Bulirsch-Stoer at 128 bits, tol
 * 1e-25) from the same start y (src/ layout, radii r0) at every time of
 * res's records: each direction ball must contain theta_j / |theta_j| of
 * the MPFR state (the MPFR path keeps |theta_j| of the double start, M6)
 * and each radius ball r_j, within eps = 10 max(err_est, tol):
 * |mid - ref| <= rad + eps.  *ok = 1 if all do; *excess: the largest
 * |mid - ref| - rad over all components (negative when inside);
 * *gap_ref: the largest 1 - <theta_i, theta_j> of the MPFR path at the
 * last record, *hemi_ref: min_i <theta_i, s>/|s| there, s = sum_i
 * theta_i (both from MPFR, for an independent look at the closing
 * hypotheses).  The balls compared are the exact ones of res->dump.
 * Identity weights.  AF_OK or a library error.  Only with Arb. */
int af_flow_mpfr_check(int *ok, double *excess, double *eps, double *gap_ref,
                       double *hemi_ref, const af_certify_result *res,
                       const double *y, const af_certify_opts *o);

#endif
