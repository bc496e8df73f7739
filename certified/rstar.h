/* rstar.h -- the boundary r* = (e^beta + n - 1)/sqrt(e^{2 beta} + n - 1)
 * of T4.1a's initial-speed ordering of Peri-LN against Post-LN, proven
 * over a box of (n, beta, r0) in ball arithmetic (certified/rstar.c;
 * theorems.md, C-T4.1a-rstar).  Without Arb the prover returns
 * AF_EINVAL. */
#ifndef AF_RSTAR_H
#define AF_RSTAR_H

#include "cert.h"

typedef struct {
  double n_lo, n_hi;       /* n as a real parameter, n_lo >= 2       */
  double beta_lo, beta_hi; /* beta >= 0                              */
  double r0_lo, r0_hi;     /* r0 > 0                                 */
} af_rstar_domain;

typedef struct {
#ifdef AF_HAVE_ARB
  af_prove_result result;  /* certified / refuted / undecided        */
#else
  int result;
#endif
  unsigned long boxes;     /* boxes examined                         */
  unsigned long faster;    /* proven: Peri-LN faster, r0 < r*        */
  unsigned long slower;    /* proven: Peri-LN slower, r0 > r*        */
  unsigned long boundary;  /* thin boxes around r0 = r*: the identity */
  double direct_fraction;  /* volume proven without the identity      */
  double where[3];         /* (n, beta, r0) of a refuting box         */
} af_rstar_result;

/* which = 0: D = v_peri - v_post against q = r* - r0 (the theorem);
 * which = 1: D = v_peri - v_pre against the same q (false: must be
 * refuted).  At most max_boxes boxes.  AF_EINVAL for a bad domain or
 * without Arb, AF_ENOMEM. */
int af_cert_rstar_prove(af_rstar_result *res, const af_rstar_domain *dom,
                        int which, unsigned long max_boxes);

#endif
