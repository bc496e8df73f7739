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
};

/* s[j], rho[j] for rows j < n (af_scheme_rates_rows of a spec'd row). */
void af_scheme_spec_rates_rows(const af_scheme_spec *sp, double *s,
                               double *rho, size_t n, double t,
                               const double *r, const double *c,
                               const double *a, double alpha, double tau);

#endif /* AF_SCHEME_SPEC_H */
