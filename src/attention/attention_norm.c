/* attention_norm.c -- attention changed by normalization (theorems.md U3):
 * the kernel of a spec'd scheme whose spec sets `scores` or `gain`
 * (docs/schemes.md).  The score of the pair (j, k) is
 *
 *     beta g(t) u_j v_k <Q th_j, K th_k>
 *
 * with u_j = v_k = 1 (scores = plain), u_j = r_j, v_k = r_k (scores =
 * radii: attention sees the un-normalized tokens x = r th, normalization
 * after attention only), or u_j = 1 / |Q th_j|, v_k = 1 / |K th_k|
 * (scores = qknorm: queries and keys normalized before the score), and
 * g(t) the spec's gain (1 without one).  Softmax (row maximum
 * subtracted), causal and USA weights as M2 / M5; values V th_k as
 * always.  Plain loops over pairs in a fixed order (serial, O(n^2 d)); it
 * fills what the other kernels fill (A, P, c, a, amag, Z), so the rates,
 * the field S0 and the layer maps S7 read it unchanged.  The MPFR path
 * runs the same formulas at its working precision (attention_norm in
 * src/mp/mp_kernel_source.c); mp-taylor refuses such a spec. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "attention_norm.h"
#include "scheme_spec.h"

/* out = M x (M d x d row-major, NULL = identity). */
static void matvec(double *out, const double *M, const double *x, size_t d)
{
  if (M == NULL) {
    memcpy(out, x, d * sizeof *out);
    return;
  }
  for (size_t a = 0; a < d; a++)
    out[a] = af_dot(M + a * d, x, d);
}

/* sqrt of a sum of squares, 0 for a zero vector. */
static double vnorm(const double *x, size_t d)
{
  return sqrt(af_dot(x, x, d));
}

int af_attention_norm_fill(af_work *w, const af_model *m,
                           const af_scheme_spec *sp, const double *Q,
                           const double *K, const double *V, double t,
                           const double *r)
{
  size_t n = w->n, d = w->d, e = d + 2;
  int scores = sp->scores;
  double gain = 1.0;
  if (sp->has_gain) {
    const double vars[AF_EXPR_NVARS] = {t, 0, 0, 0, 0, 0};
    gain = af_expr_eval_d(&sp->gain, &sp->k, vars);
    if (!isfinite(gain))
      return AF_ENONFINITE;
  }
  double bg = m->beta * gain; /* beta g(t) */
  /* Queries (with u_j in column d) into Gx, keys (v_k) into Ax, values
   * into G with |V th_k| in gn. */
  for (size_t j = 0; j < n; j++) {
    const double *tj = w->th + j * d;
    double *qj = w->Gx + j * e, *kj = w->Ax + j * e, *gj = w->G + j * d;
    matvec(qj, Q, tj, d);
    matvec(kj, K, tj, d);
    matvec(gj, V, tj, d);
    w->gn[j] = vnorm(gj, d);
    double u = 1.0, v = 1.0;
    if (scores == AF_SPEC_SCORES_RADII) {
      u = r[j];
      v = r[j];
    } else if (scores == AF_SPEC_SCORES_QKNORM) {
      double nq = vnorm(qj, d), nk = vnorm(kj, d);
      if (!(nq > 0) || !(nk > 0))
        return AF_EZERONORM; /* a query or key of norm zero */
      u = 1.0 / nq;
      v = 1.0 / nk;
    }
    qj[d] = u;
    kj[d] = v;
  }
  double *row = w->ytmp; /* n exponents, then weights, of one row */
  for (size_t j = 0; j < n; j++) {
    const double *qj = w->Gx + j * e, *tj = w->th + j * d;
    size_t kend = m->attn == AF_ATTN_CAUSAL ? j + 1 : n;
    double mx = -INFINITY;
    for (size_t k = 0; k < kend; k++) {
      const double *kk = w->Ax + k * e;
      /* (beta g) (u_j v_k) <q_j, k_k>: radii 1 give beta g <q_j, k_k> */
      row[k] = bg * (qj[d] * kk[d]) * af_dot(qj, kk, d);
      if (row[k] > mx)
        mx = row[k];
    }
    if (!isfinite(mx))
      return AF_ENONFINITE;
    double z = 0;
    if (m->attn == AF_ATTN_USA) { /* exp(score) / n, nothing subtracted */
      for (size_t k = 0; k < kend; k++)
        row[k] = exp(row[k]);
      z = (double) n;
    } else
      for (size_t k = 0; k < kend; k++) {
        row[k] = exp(row[k] - mx);
        z += row[k];
      }
    w->Z[j] = z;
    double *Aj = w->A + j * d, *Pj = w->P + j * d, am = 0;
    for (size_t i = 0; i < d; i++)
      Aj[i] = 0;
    for (size_t k = 0; k < kend; k++) {
      const double *gk = w->G + k * d;
      for (size_t i = 0; i < d; i++)
        Aj[i] += row[k] * gk[i];
      am += row[k] * w->gn[k];
    }
    double iz = 1.0 / z;
    for (size_t i = 0; i < d; i++)
      Aj[i] *= iz;
    w->c[j] = af_dot(tj, Aj, d);
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - w->c[j] * tj[i];
    w->amag[j] = am * iz;
    w->a[j] = vnorm(Aj, d);
  }
  return AF_OK;
}
