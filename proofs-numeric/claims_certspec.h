/* claims_certspec.h -- certify on a spec'd scheme for 'attnflow verify
 * --scheme-def' (claims_certspec.c, theorems.md U-close). */
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

#endif
