/* s7.h -- the discrete layer maps S7 written again from theorems.md, and
 * their reduction on the symmetric start (libaftheory).
 *
 * Independence: af_s7_step computes the attention with af_id_attention
 * (theory/ident.c, M2 with Q = K = V = I) and applies theorems.md's formula
 * of each map; nothing calls src/'s af_layer_step or its scheme table.
 * af_s7_sym_step is the same map on an equiangular configuration (all
 * pairwise gaps w, all radii r), in closed form.
 *
 * Conventions as in attnflow.h: prefix af_s7_, outputs first, af_status
 * codes, nothing prints.
 */
#ifndef AF_S7_H
#define AF_S7_H

#include <stddef.h>
#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of a map: scheme, beta, alpha (alpha_l = alpha (1 + l h)^
 * -decay), tau (Mix-LN: layer l is Post-LN if l h < tau). */
typedef struct {
  af_scheme_id scheme;
  double beta, alpha, decay, tau;
} af_s7_params;

/* One layer l of step h from the state y (layout of attnflow.h: n x d
 * directions, then n radii; directions need not be unit: theta = x/|x|).
 * Spec S7:
 *   Post-LN   theta+ = N(theta + h A),            r+ = r
 *   Pre-LN    x+ = x + h A
 *   Mix-LN    Post-LN if l h < tau, else Pre-LN
 *   Peri-LN   x+ = x + h N(A)
 *   nGPT      theta+ = N(theta + alpha_l h (N(A) - theta)), r+ = r
 *   LN-Scal.  theta+ = N(theta + h A / sqrt(l h + 1)), r+ = r.
 * y_out must not alias y_in.  AF_EZEROATTN if |A_j| = 0 where divided. */
int af_s7_step(double *y_out, const double *y_in, size_t n, size_t d,
               size_t layer, double h, const af_s7_params *p);

/* Bound of the rounding error of a layer step (af_layer_step or
 * af_s7_step) per direction component (*edir) and relative per radius
 * (*erad), for a state with radii <= rmax, |A_j| >= amin (schemes that
 * divide by it), see s7.c. */
void af_s7_rounding(double *edir, double *erad, size_t n, size_t d,
                    double beta, double h, double rmax, double amin,
                    const af_s7_params *p);

/* The map on the symmetric start: n tokens with common gap w = 1 - gamma
 * and radius r go to common (w+, r+):  v_i - v_j = kappa (th_i - th_j),
 * w+ = kappa^2 w / |v|^2, with A = ((1-E) th + E S)/D, E = e^{-beta w},
 * D = 1 + (n-1) E, S = sum th (s7.c). */
int af_s7_sym_step(double *w_out, double *r_out, double w, double r, size_t n,
                   size_t layer, double h, const af_s7_params *p);

#ifdef __cplusplus
}
#endif
#endif /* AF_S7_H */
