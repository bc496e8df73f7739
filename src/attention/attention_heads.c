/* attention_heads.c -- several heads whose outputs are summed (af_weights
 * with heads > 1, docs/weights.md):
 *
 *   A_j = sum_h V_h sum_k softmax_k(beta <Q_h th_j, K_h th_k>) th_k,
 *
 * softmax, USA or causal per head.  The chosen double kernel (direct,
 * blas or tiled; under a spec that alters attention, U3, its kernel
 * attention_norm.c with the same scores option and gain for every head)
 * runs once per head with that head's Q, K, V on the same directions; after each run its outputs are added into an accumulator
 * (af_work's hsum, allocated at the first use):
 *
 *   A    = sum_h A^h                  (the attention outputs)
 *   P    = sum_h P^h                  (tangent parts: P_th is linear, and
 *                                      each kernel's own accurate P^h --
 *                                      the direct kernel's differences
 *                                      form at V = I -- is kept)
 *   c    = sum_h c^h = <th_j, A_j>    (linear too)
 *   amag = sum_h amag^h               (the rounding scale of a sum is the
 *                                      sum of the scales)
 *   a    = |A_j|                      (norm2 of the summed row: not
 *                                      linear, recomputed)
 *
 * Z and S (and the other scratch) keep the last head's values; no caller
 * reads them after attention_fill.  The heads are added in order
 * h = 0, 1, ..., so the result does not depend on threads.  One head
 * never comes here: attention_fill keeps its path (bit for bit). */
#include "attention_impl.h"

int attention_heads(af_work *w, const af_model *m, double tp,
                    attention_head_fn kernel, void *ctx)
{
  size_t n = w->n, d = w->d, nd = n * d, H = af_weights_heads(m->w);
  if (w->hsum == NULL) {
    size_t len; /* A, P (n d each), c, amag (n each); n d checked at alloc */
    if (!af_size_add(&len, nd, n) || !af_size_mul(&len, len, 2)
        || !af_size_mul(&len, len, sizeof(double)))
      return AF_ENOMEM;
    w->hsum = malloc(len);
    if (w->hsum == NULL)
      return AF_ENOMEM;
  }
  double *sA = w->hsum, *sP = sA + nd, *sc = sP + nd, *sm = sc + n;
  for (size_t h = 0; h < H; h++) {
    const double *Q, *K, *V;
    af_weights_head_at(&Q, &K, &V, m->w, tp, h);
    int rc = kernel(w, m, Q, K, V, ctx);
    if (rc != AF_OK)
      return rc;
    if (h == 0) {
      memcpy(sA, w->A, nd * sizeof(double));
      memcpy(sP, w->P, nd * sizeof(double));
      memcpy(sc, w->c, n * sizeof(double));
      memcpy(sm, w->amag, n * sizeof(double));
      continue;
    }
    for (size_t i = 0; i < nd; i++) {
      sA[i] += w->A[i];
      sP[i] += w->P[i];
    }
    for (size_t j = 0; j < n; j++) {
      sc[j] += w->c[j];
      sm[j] += w->amag[j];
    }
  }
  memcpy(w->A, sA, nd * sizeof(double));
  memcpy(w->P, sP, nd * sizeof(double));
  memcpy(w->c, sc, n * sizeof(double));
  memcpy(w->amag, sm, n * sizeof(double));
  for (size_t j = 0; j < n; j++)
    w->a[j] = norm2(w->A + j * d, d);
  return AF_OK;
}
