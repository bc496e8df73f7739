/* rhs_ref.h -- what test_rhs.c and test_rhs_layers.c share: an
 * independent reference of the attention outputs and the vector field in
 * long double (64-bit significand, eps_ld = 2^-63 ~ 1.1e-19), exact to far
 * below double rounding for the sizes used, which follows theorems.md M2
 * literally (scores <Q th_j, K th_k>, values V th_k) and shares no code
 * with the library; and small helpers (rhs_ref.c).
 *
 * Tolerances.  One error model is used throughout (Higham 2002, §3.1,
 * §4.2): a dot product or sum of m terms carries a relative error of at
 * most m eps in the sum of the absolute values of its terms.  A score
 * <Q th_j, K th_k> thus errs by at most 2 d eps |Q th_j| |K th_k|, which
 * changes a weight exp(beta (s - max)) by a relative 4 d beta eps qk (two
 * scores), plus one rounding of exp; the normalizer adds n eps and the
 * weighted sum another n eps of sum_k w_jk |V th_k| =: amag_j.  Hence
 *     tolA_j = 4 (n + d + 4 d beta qk_j) eps amag_j                  (T1)
 * bounds the error of every component of A_j, with a safety factor of
 * about 4 over the first-order sum.  c_j, |A_j| and P A_j inherit at most
 * 2 tolA_j; dividing by the speed factor s_j (whose own relative error is
 * that of |A_j| for Peri-LN and nGPT) gives 3 tolA_j / s_j for d theta_j.
 */
#ifndef AF_TESTS_RHS_REF_H
#define AF_TESTS_RHS_REF_H

#include <float.h>
#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "attnflow.h"

#define EPS DBL_EPSILON

extern const char *const rr_kname[AF_KERNEL_COUNT]; /* kernel names */
extern const char *const rr_aname[AF_ATTN_COUNT];   /* attention names */

static inline const char *sname(int k)
{
  return af_scheme_get((af_scheme_id) k)->name;
}

/* The reference at one state: directions, A, its tangent part P, c, |A|,
 * the magnitudes behind the bound (T1), the rates and the field. */
typedef struct {
  size_t n, d;
  long double *th, *A, *P, *c, *a, *amag, *qk, *s, *rho, *dy;
  double *tolA;  /* (T1) per token */
} ref_t;

double *state_new(size_t n, size_t d);
int vec_close(const char *what, const double *got, const long double *want,
    size_t len, double tol);
ref_t *ref_new(size_t n, size_t d);
void ref_free(ref_t *R);
void matvec_l(long double *out, const double *M, const long double *x, size_t d);
void weights_at_t(const double **Q, const double **K, const double **V,
    const af_weights *w, double t);
void ref_eval(ref_t *R, double t, const double *y, const af_model *m);
double tol_dth(const ref_t *R, size_t j, const double *y);
double tol_dr(const ref_t *R, size_t j, const af_model *m);
int dy_matches(const char *what, const double *dy, const ref_t *R,
    const double *y, const af_model *m, double factor);
af_weights *explicit_weights(size_t d, double qscale, double kscale, double vscale);
af_work *work_new(size_t n, size_t d, af_kernel k);
void random_orthogonal(double *R, size_t d, gsl_rng *rng);
long double dotl(const long double *x, const long double *y, size_t d);

#endif
