/* claims_cert.h -- the two cases of the certified claims (claims_cert.c,
 * claims_proofs.c): n = 5, beta = 1.5 and the paper's headline case
 * n = 256, beta = 5, both from r0 = 1. */
#ifndef AF_CLAIMS_CERT_H
#define AF_CLAIMS_CERT_H

typedef struct {
  unsigned long n;
  double beta, r0;
} ccase;
static const ccase ccases[2] = {{5, 1.5, 1.0}, {256, 5.0, 1.0}};

#endif
