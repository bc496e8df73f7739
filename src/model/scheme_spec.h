/* scheme_spec.h -- the layout of a spec'd scheme (scheme_spec.c) for the
 * library's own evaluators (scheme.c, layer_maps.c, the kernel template's
 * rates).  Library-internal; the public part is in attnflow.h. */
#ifndef AF_SCHEME_SPEC_H
#define AF_SCHEME_SPEC_H

#include "attnflow.h"
#include "expr.h"

struct af_scheme_spec {
  af_scheme row; /* first member: af_scheme_spec_of casts the row back */
  char name[AF_EXPR_NAME_MAX + 1];
  char title[65];
  char speed_text[AF_EXPR_TEXT_MAX + 1];
  char radial_text[AF_EXPR_TEXT_MAX + 1];
  char branch_text[AF_EXPR_TEXT_MAX + 1];
  af_expr_consts k;   /* every literal and parameter of the spec */
  af_expr_params par;
  af_expr speed, radial, branch;
  int layer;          /* AF_SPEC_LAYER_*                          */
  int has_branch;
  int scores;         /* AF_SPEC_SCORES_* (U3)                    */
  af_expr gain;       /* g(t), with has_gain                      */
  int has_gain;
  char gain_text[AF_EXPR_TEXT_MAX + 1];
};

/* s[j], rho[j] for rows j < n (af_scheme_rates_rows of a spec'd row). */
void af_scheme_spec_rates_rows(const af_scheme_spec *sp, double *s,
                               double *rho, size_t n, double t,
                               const double *r, const double *c,
                               const double *a, double alpha, double tau);

/* For the claims (proofs-numeric/claims_userscheme.c): the relative
 * error of the double evaluation of s at one point against MPFR at prec;
 * and, for a spec with a branch g, the largest relative deviation of
 * s from r g and of rho from c / g, all evaluated at prec (an identity of
 * the expressions shows as about 2^-prec). */
double af_scheme_spec_speed_rounding(const af_scheme_spec *sp,
                                     mpfr_prec_t prec, double t, double r,
                                     double c, double a, double alpha,
                                     double tau);
int af_scheme_spec_residual_check(double *dev, const af_scheme_spec *sp,
                                  double t, double r, double c, double a,
                                  double alpha, double tau, mpfr_prec_t prec);

#endif /* AF_SCHEME_SPEC_H */
