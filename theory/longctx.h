/* longctx.h -- one attention layer on an equiangular input at long
 * context, exactly for every n (theorems.md LC; libaftheory).
 *
 * n unit vectors with all pairwise cosines rho in (0, 1), beta = gamma
 * log n, Q = K = V = I.  Softmax weights a = e^beta / Z on the token
 * itself and b = e^{beta rho} / Z on each other one, a + (n - 1) b = 1.
 * Each scheme's layer (theorems.md S7, step h, layer 0, radii 1) maps
 * th_i to a multiple of p th_i + q sum_{k != i} th_k, and the output
 * cosine is, with P = p + (n - 1) q,
 *
 *   cos = (rho P^2 + (1 - rho)(2 p q + (n - 2) q^2))
 *         / (rho P^2 + (1 - rho)(p^2 + (n - 1) q^2)),
 *   1 - cos = (1 - rho)(p - q)^2 / (rho P^2 + (1 - rho)(p^2 + (n-1) q^2)).
 *
 * Attention alone (p, q) = (a, b) gives the survey's formula.  Nothing
 * here calls src/ (af_layer_step) or theory/s7.c.
 * Conventions as in attnflow.h: prefix af_lc_, outputs first.
 */
#ifndef AF_LONGCTX_H
#define AF_LONGCTX_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The map whose cosine is computed: a scheme of S7 (layer 0, step h,
 * nGPT's alpha), or AF_LC_ATTN for the attention output A_i alone. */
#define AF_LC_ATTN ((af_scheme_id) AF_SCHEME_COUNT)

/* Weights a, b of the equiangular softmax at beta (n >= 2, x = n - 1 real
 * so that n -> infinity can be followed past size_t): a = 1/(1 + x E),
 * b = E a with E = e^{-beta (1 - rho)}. */
void af_lc_weights(long double *a, long double *b, long double x,
                   long double rho, long double beta);

/* Coefficients (p, q) of scheme's layer 0 with step h (alpha for nGPT). */
void af_lc_pq(long double *p, long double *q, af_scheme_id scheme,
              long double x, long double rho, long double beta, double h,
              double alpha);

/* Output cosine and gap 1 - cos of the layer at n = x + 1 tokens. */
void af_lc_cos(long double *cos, long double *gap, af_scheme_id scheme,
               long double x, long double rho, long double gamma, double h,
               double alpha);

/* The n -> infinity limit of the output cosine in the regime of gamma
 * against 1/(1 - rho) (below, at, above), from the limits a -> 0, 1/2, 1
 * and (n - 1) b -> 1 - a: attention alone 1, 4 rho/(1 + 3 rho), rho. */
long double af_lc_limit(af_scheme_id scheme, int regime, long double rho,
                        double h, double alpha);

/* Predicted rate k of |cos_n - limit| ~ C n^{-k} (see longctx.c); for
 * nGPT, alpha stands for alpha h (the step of layer 0). */
double af_lc_rate(af_scheme_id scheme, int regime, double rho, double gamma,
                  double alpha);

/* Random starts (longctx_rand.c, theorems.md LC.rand): n independent
 * uniform points of S^{d-1} (d >= 2), Q = K = V = I.
 * af_lc_rand_log_mgf: log M_d(beta), M_d(beta) = E e^{beta c} for c one
 *   coordinate of a uniform point, = Gamma(d/2) (2/beta)^{d/2-1}
 *   I_{d/2-1}(beta); NaN for d < 2 or beta < 0.
 * af_lc_rand_selfweight: e^beta / (e^beta + (n - 1) M_d(beta)), a token's
 *   self-weight with S_j = sum_{k != j} e^{beta c_jk} at its mean.
 * af_lc_rand_relsd: the relative standard deviation of S_j,
 *   sqrt((M_d(2 beta) / M_d(beta)^2 - 1) / (n - 1)).
 * af_lc_rand_midpoint: the gamma (beta = gamma log n) at which that
 *   self-weight is 1/2; INFINITY if none below gamma = 20. */
double af_lc_rand_log_mgf(size_t d, double beta);
double af_lc_rand_selfweight(double n, size_t d, double beta);
double af_lc_rand_relsd(double n, size_t d, double beta);
double af_lc_rand_midpoint(double n, size_t d);
/* M_d'(beta)/M_d(beta) = E[c e^{beta c}]/M and M_d''/M_d = E[c^2 e^{beta c}]
 * /M (series of positive terms); 0, or -1 for d < 2 or beta outside
 * (0, 700]. */
int af_lc_rand_moments(double *m1, double *m2, size_t d, double beta);
/* The attention output A_j = sum_k w_jk th_k of a random start split
 * along th_j and across it, each sum at its mean: *par = <th_j, A_j> =
 * (e^beta + (n - 1) M') / Z, *perp = |A_j - par th_j| = sqrt((n - 1)
 * (M(2 beta) - M''(2 beta))) / Z, Z = e^beta + (n - 1) M (LC.rand). */
int af_lc_rand_attn(double *par, double *perp, double n, size_t d,
                    double beta);

#ifdef __cplusplus
}
#endif
#endif
