/* lohner.c -- wrapping control for set-valued starts of the validated
 * integrator (vode.c): Lohner's QR method in the doubleton form
 *
 *     X_k = { c_k + A_k r + B_k s : r in R0, s in S_k },
 *
 * R. J. Lohner, "Enclosing the solutions of ordinary initial and boundary
 * value problems", in Computer Arithmetic (Kaucher, Kulisch, Ullrich
 * eds.), Teubner 1987; the doubleton (an exact initial box R0 carried by
 * a point matrix A, a QR-wrapped error box S) as in Wilczak and Zgliczynski,
 * "C^r-Lohner algorithm", Schedae Informaticae 20 (2011).
 *
 * R0 = Y0 - c0 is the box of starts (its centre at 0), A0 = B0 = I, S0 = 0.
 * One step of vode.c from the ball vector Y_k (an enclosure of X_k) gives
 * m = mid Y_k, a ball P containing phi(m) (point Taylor map + Lagrange
 * remainder) and a ball matrix J containing D phi(y) for every y in Y_k.
 * By the mean-value theorem, for x = c + A r + B s in X_k,
 *
 *     phi(x) in P + J (c - m) + (J A) r + (J B) s.
 *
 * The update: A+ = mid(J A) (a point matrix); z = P + J (c - m) +
 * (J A - A+) R0 (a ball vector), c+ = mid z; M = J B, B+ = the Q factor
 * of a QR decomposition of mid M (Gram-Schmidt in double, columns taken
 * by decreasing length |M_:j| rad S_j, Lohner's ordering), inverted in
 * balls (B+^-1 encloses the exact inverse of the point matrix B+); S+ =
 * (B+^-1 M) S + B+^-1 (z - c+).  Every term is a ball enclosure, so phi(X_k)
 * is contained in X_{k+1}; the box c+ + A+ R0 + B+ S+ (evaluated in balls) is
 * intersected with the step's own mean-value enclosure (both contain the
 * solutions; an empty intersection is a soundness bug).
 *
 * Why it helps: the first-order part A r is carried as a linear map of
 * the exact initial box, so a ball of starts is not re-boxed at every
 * step (the wrapping effect); the only boxes are second-order (|R0|^2)
 * and rounding terms, which the QR frame keeps from wrapping in turn.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lohner.h"

#ifdef AF_HAVE_ARB

#if defined(HAVE_ARB_H)
#include <arb_mat.h>
#else
#include <flint/arb_mat.h>
#endif

struct af_lohner {
  slong dim;
  long prec;
  arb_mat_t A, B, Binv, M, JA, E, JM; /* dim x dim */
  arb_mat_t c, r0, s, z, t1, t2;     /* dim x 1 */
  double *q, *w;                      /* dim x dim, dim doubles: QR */
  slong *perm;
};

af_lohner *af_lohner_alloc(int dim, long prec)
{
  if (dim < 1)
    return NULL;
  af_lohner *L = calloc(1, sizeof *L);
  if (L == NULL)
    return NULL;
  slong n = dim;
  L->dim = n;
  L->prec = prec;
  L->q = malloc((size_t) (n * n) * sizeof *L->q);
  L->w = malloc((size_t) n * sizeof *L->w);
  L->perm = malloc((size_t) n * sizeof *L->perm);
  if (!L->q || !L->w || !L->perm) {
    free(L->q);
    free(L->w);
    free(L->perm);
    free(L);
    return NULL;
  }
  arb_mat_init(L->A, n, n);
  arb_mat_init(L->B, n, n);
  arb_mat_init(L->Binv, n, n);
  arb_mat_init(L->M, n, n);
  arb_mat_init(L->JA, n, n);
  arb_mat_init(L->E, n, n);
  arb_mat_init(L->JM, n, n);
  arb_mat_init(L->c, n, 1);
  arb_mat_init(L->r0, n, 1);
  arb_mat_init(L->s, n, 1);
  arb_mat_init(L->z, n, 1);
  arb_mat_init(L->t1, n, 1);
  arb_mat_init(L->t2, n, 1);
  return L;
}

void af_lohner_free(af_lohner *L)
{
  if (L == NULL)
    return;
  arb_mat_clear(L->A);
  arb_mat_clear(L->B);
  arb_mat_clear(L->Binv);
  arb_mat_clear(L->M);
  arb_mat_clear(L->JA);
  arb_mat_clear(L->E);
  arb_mat_clear(L->JM);
  arb_mat_clear(L->c);
  arb_mat_clear(L->r0);
  arb_mat_clear(L->s);
  arb_mat_clear(L->z);
  arb_mat_clear(L->t1);
  arb_mat_clear(L->t2);
  free(L->q);
  free(L->w);
  free(L->perm);
  free(L);
}

void af_lohner_init(af_lohner *L, arb_srcptr Y)
{
  slong n = L->dim;
  arb_mat_one(L->A);
  arb_mat_one(L->B);
  arb_mat_zero(L->s);
  for (slong i = 0; i < n; i++) {
    arb_get_mid_arb(arb_mat_entry(L->c, i, 0), Y + i);
    arb_sub(arb_mat_entry(L->r0, i, 0), Y + i, arb_mat_entry(L->c, i, 0),
            L->prec);
  }
}

/* Q factor of the point matrix mid(M) (columns permuted by decreasing
 * |M_:j| rad S_j), by modified Gram-Schmidt twice in double, into B.
 * A column that vanishes numerically is replaced by a unit vector; the
 * result need not be orthogonal for soundness (B^-1 is enclosed in balls),
 * only well conditioned.  Returns 0 if B's inverse cannot be enclosed. */
static int qr_frame(af_lohner *L)
{
  slong n = L->dim;
  double *q = L->q, *w = L->w;
  for (slong j = 0; j < n; j++) {
    double len = 0;
    for (slong i = 0; i < n; i++) {
      double v = arf_get_d(arb_midref(arb_mat_entry(L->M, i, j)), ARF_RND_NEAR);
      q[i * n + j] = v;
      len += v * v;
    }
    double sr = mag_get_d(arb_radref(arb_mat_entry(L->s, j, 0)));
    w[j] = sqrt(len) * sr + 1e-300 * sqrt(len);
    L->perm[j] = j;
  }
  /* order of the columns: decreasing weight (insertion sort) */
  for (slong a = 1; a < n; a++) {
    slong p = L->perm[a];
    slong b = a - 1;
    for (; b >= 0 && w[L->perm[b]] < w[p]; b--)
      L->perm[b + 1] = L->perm[b];
    L->perm[b + 1] = p;
  }
  /* Gram-Schmidt on the permuted columns, written into B's columns 0.. */
  for (slong k = 0; k < n; k++) {
    slong j = L->perm[k];
    double *col = w; /* reuse w as the working column */
    for (slong i = 0; i < n; i++)
      col[i] = q[i * n + j];
    for (int pass = 0; pass < 2; pass++)
      for (slong l = 0; l < k; l++) {
        double dt = 0;
        for (slong i = 0; i < n; i++)
          dt += col[i] * arf_get_d(arb_midref(arb_mat_entry(L->B, i, l)),
                                   ARF_RND_NEAR);
        for (slong i = 0; i < n; i++)
          col[i] -= dt * arf_get_d(arb_midref(arb_mat_entry(L->B, i, l)),
                                   ARF_RND_NEAR);
      }
    double nr = 0;
    for (slong i = 0; i < n; i++)
      nr += col[i] * col[i];
    nr = sqrt(nr);
    if (!(nr > 1e-200) || !isfinite(nr)) {
      /* degenerate: the unit vector least represented so far */
      slong best = 0;
      double bv = INFINITY;
      for (slong i = 0; i < n; i++) {
        double s2 = 0;
        for (slong l = 0; l < k; l++) {
          double e = arf_get_d(arb_midref(arb_mat_entry(L->B, i, l)),
                               ARF_RND_NEAR);
          s2 += e * e;
        }
        if (s2 < bv) {
          bv = s2;
          best = i;
        }
      }
      for (slong i = 0; i < n; i++)
        col[i] = i == best;
      nr = 1;
    }
    for (slong i = 0; i < n; i++)
      arb_set_d(arb_mat_entry(L->B, i, k), col[i] / nr);
  }
  return arb_mat_inv(L->Binv, L->B, L->prec);
}

int af_lohner_update(af_lohner *L, arb_ptr Y, arb_srcptr mid,
                     arb_srcptr phim, arb_srcptr J)
{
  slong n = L->dim;
  long prec = L->prec;
  /* Jm: J as a matrix (copied: J is the integrator's) */
  for (slong i = 0; i < n; i++)
    for (slong j = 0; j < n; j++)
      arb_set(arb_mat_entry(L->JM, i, j), J + i * n + j);
  /* A+ = mid(J A), E = J A - A+ */
  arb_mat_mul(L->JA, L->JM, L->A, prec);
  arb_mat_get_mid(L->A, L->JA);
  arb_mat_sub(L->E, L->JA, L->A, prec);
  /* z = P + J (c - m) + E R0 */
  for (slong i = 0; i < n; i++)
    arb_sub(arb_mat_entry(L->t1, i, 0), arb_mat_entry(L->c, i, 0), mid + i,
            prec);
  arb_mat_mul(L->z, L->JM, L->t1, prec);
  arb_mat_mul(L->t2, L->E, L->r0, prec);
  arb_mat_add(L->z, L->z, L->t2, prec);
  for (slong i = 0; i < n; i++)
    arb_add(arb_mat_entry(L->z, i, 0), arb_mat_entry(L->z, i, 0), phim + i,
            prec);
  /* c+ = mid z, z - c+ a ball around 0 */
  arb_mat_get_mid(L->c, L->z);
  arb_mat_sub(L->z, L->z, L->c, prec);
  /* M = J B; the new frame B+ and its inverse */
  arb_mat_mul(L->M, L->JM, L->B, prec);
  if (!qr_frame(L)) {
    /* no enclosure of the inverse: carry the error as a plain box */
    arb_mat_one(L->B);
    arb_mat_one(L->Binv);
  }
  /* S+ = (B+^-1 M) S + B+^-1 (z - c+) */
  arb_mat_mul(L->E, L->Binv, L->M, prec);
  arb_mat_mul(L->t1, L->E, L->s, prec);
  arb_mat_mul(L->t2, L->Binv, L->z, prec);
  arb_mat_add(L->s, L->t1, L->t2, prec);
  /* S is a box around 0: keep its centre at 0 (the midpoint is folded
   * into the radius, so the set can only grow) */
  for (slong i = 0; i < n; i++) {
    arb_ptr e = arb_mat_entry(L->s, i, 0);
    mag_t m;
    mag_init(m);
    arb_get_mag(m, e);
    arb_zero(e);
    mag_set(arb_radref(e), m);
    mag_clear(m);
  }
  /* the box of the set, intersected with the step's enclosure */
  arb_mat_mul(L->t1, L->A, L->r0, prec);
  arb_mat_mul(L->t2, L->B, L->s, prec);
  int rc = AF_OK;
  arb_t x;
  arb_init(x);
  for (slong i = 0; i < n; i++) {
    arb_add(x, arb_mat_entry(L->c, i, 0), arb_mat_entry(L->t1, i, 0), prec);
    arb_add(x, x, arb_mat_entry(L->t2, i, 0), prec);
    if (!arb_intersection(Y + i, Y + i, x, prec))
      rc = AF_EINVAL; /* soundness bug, never a result */
  }
  arb_clear(x);
  return rc;
}

#endif /* AF_HAVE_ARB */

