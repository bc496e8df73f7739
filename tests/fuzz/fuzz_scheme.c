/* fuzz_scheme.c -- libFuzzer harness of the scheme-spec reader
 * (af_scheme_spec_parse, --scheme-def FILE) and of the expression
 * evaluator behind it (src/model/expr.c).  The input is the spec's text.  A
 * parse that fails must return no spec and say where (a line within the
 * input, or 0); one that succeeds must give a user row that maps back to
 * its spec, and its expressions are evaluated at a few points in double
 * and in MPFR (64 bits), where they must not crash whatever they give. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scheme_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  af_scheme_spec *s = NULL;
  af_spec_error e;
  int rc = af_scheme_spec_parse(&s, &e, (const char *) data, size);
  if (rc != AF_OK) {
    if (s != NULL || e.line > size + 1 || memchr(e.what, '\0', sizeof e.what)
        == NULL)
      abort();
    return 0;
  }
  const af_scheme *row = af_scheme_spec_row(s);
  if (row == NULL || row->id != AF_SCHEME_USER || af_scheme_spec_of(row) != s
      || row->name == NULL || row->name[0] == '\0')
    abort();
  static const double pts[][6] = {{0, 1, 0.5, 0.7, 1, 1},
                                  {3.5, 0.25, -1, 1e-300, 0.5, INFINITY},
                                  {1e300, 1e-300, 0, 0, 1e-3, -INFINITY}};
  mpfr_t v[AF_EXPR_NVARS], out;
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    mpfr_init2(v[k], 64);
  mpfr_init2(out, 64);
  af_expr_mp *x = af_expr_mp_alloc(&s->k, 64);
  for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
    double sj, rj, g;
    af_scheme_spec_eval(&sj, &rj, &g, s, pts[p][0], pts[p][1], pts[p][2],
                        pts[p][3], pts[p][4], pts[p][5]);
    if (x != NULL) {
      mpfr_srcptr vp[AF_EXPR_NVARS];
      for (int k = 0; k < AF_EXPR_NVARS; k++) {
        mpfr_set_d(v[k], pts[p][k], MPFR_RNDN);
        vp[k] = v[k];
      }
      af_expr_eval_mp(out, &s->speed, x, vp);
      af_expr_eval_mp(out, &s->radial, x, vp);
      if (s->has_branch)
        af_expr_eval_mp(out, &s->branch, x, vp);
    }
  }
  af_expr_mp_free(x);
  for (int k = 0; k < AF_EXPR_NVARS; k++)
    mpfr_clear(v[k]);
  mpfr_clear(out);
  af_scheme_spec_free(s);
  return 0;
}
