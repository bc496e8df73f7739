/* claims_certspec.h -- the checks 'attnflow verify --scheme-def' runs on
 * a spec'd scheme beyond the U2 rows: certify (claims_certspec.c,
 * theorems.md U-close) and the two MPFR methods (claims_spectaylor.c). */
#ifndef AF_CLAIMS_CERTSPEC_H
#define AF_CLAIMS_CERTSPEC_H

#include "verify.h"

/* af_certify on sp: from angles 0, 1.7, 3.6 (n = 3, d = 2, beta = 1, 64
 * bits) by U-close when its speed allows (expected certified), else the
 * property cap from angles 0, 0.5 (certified or refuted, both a
 * decision); every ball checked against the spec's MPFR path.  Status
 * certified (proof checked), refuted (a check failed), could-not-certify
 * (undecided), inconclusive (refused: the reason in the note), error. */
void af_certspec_on(af_vresult *r, const af_scheme_spec *sp);

/* verify --scheme-def (claims_spectaylor.c): sp on mp-taylor against
 * mp-gbs (n = d = 3, beta = 1.5, 128 bits, tol 1e-30, T = 1.5) within 10
 * times the two runs' error estimates; inconclusive when mp-taylor
 * refuses the spec (the reason in the note). */
void af_spectaylor_on(af_vresult *r, const af_vctx *c,
                      const af_scheme_spec *sp);

#endif
