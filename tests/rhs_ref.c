/* rhs_ref.c -- the long-double reference and helpers of the rhs tests
 * (rhs_ref.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "aftest.h"
#include "rhs_ref.h"

const char *const rr_kname[AF_KERNEL_COUNT] = {"blas", "direct",
                                                    "tiled"};
const char *const rr_aname[AF_ATTN_COUNT] = {"softmax", "usa", "causal"};


double *state_new(size_t n, size_t d)
{
  double *y = calloc(af_state_size(n, d), sizeof(double));
  ck_assert_ptr_nonnull(y);
  return y;
}

/* |got - want| <= tol for each of len entries; prints the first failure. */
int vec_close(const char *what, const double *got, const long double *want,
                     size_t len, double tol)
{
  for (size_t i = 0; i < len; i++)
    if (!aft_close(what, got[i], (double) want[i], 0, tol)) {
      fprintf(stderr, "  (entry %zu of %zu)\n", i, len);
      return 0;
    }
  return 1;
}

long double dotl(const long double *x, const long double *y, size_t d)
{
  long double s = 0;
  for (size_t i = 0; i < d; i++)
    s += x[i] * y[i];
  return s;
}

/* ================================================================ reference */


ref_t *ref_new(size_t n, size_t d)
{
  ref_t *R = calloc(1, sizeof *R);
  R->n = n;
  R->d = d;
  R->th = calloc(n * d, sizeof(long double));
  R->A = calloc(n * d, sizeof(long double));
  R->P = calloc(n * d, sizeof(long double));
  R->c = calloc(n, sizeof(long double));
  R->a = calloc(n, sizeof(long double));
  R->amag = calloc(n, sizeof(long double));
  R->qk = calloc(n, sizeof(long double));
  R->s = calloc(n, sizeof(long double));
  R->rho = calloc(n, sizeof(long double));
  R->dy = calloc(n * d + n, sizeof(long double));
  R->tolA = calloc(n, sizeof(double));
  ck_assert(R->th && R->A && R->P && R->c && R->a && R->amag && R->qk && R->s
            && R->rho && R->dy && R->tolA);
  return R;
}

void ref_free(ref_t *R)
{
  free(R->th); free(R->A); free(R->P); free(R->c); free(R->a); free(R->amag);
  free(R->qk); free(R->s); free(R->rho); free(R->dy); free(R->tolA);
  free(R);
}

/* out = M x (M row-major d x d; NULL = identity). */
void matvec_l(long double *out, const double *M, const long double *x, size_t d)
{
  for (size_t a = 0; a < d; a++) {
    if (M == NULL) {
      out[a] = x[a];
      continue;
    }
    long double s = 0;
    for (size_t b = 0; b < d; b++)
      s += (long double) M[a * d + b] * x[b];
    out[a] = s;
  }
}

/* Weight set in force at t: set l on [l dt, (l+1) dt), the last one after. */
void weights_at_t(const double **Q, const double **K, const double **V,
                         const af_weights *w, double t)
{
  *Q = *K = *V = NULL;
  if (w == NULL)
    return;
  size_t l = 0;
  if (t > 0) {
    double q = floor(t / w->layer_dt);
    l = q >= (double) w->layers ? w->layers - 1 : (size_t) q;
  }
  *Q = w->Q[l];
  *K = w->K[l];
  *V = w->V[l];
}

/* Attention (theorems.md M2, M5) of the directions of y at time t, the scheme's
 * rates (table S0) and the field dy = (|theta_j| P A_j / s_j, rho_j). */
void ref_eval(ref_t *R, double t, const double *y, const af_model *m)
{
  size_t n = R->n, d = R->d;
  long double *Qt = calloc(n * d, sizeof(long double));
  long double *Kt = calloc(n * d, sizeof(long double));
  long double *Vt = calloc(n * d, sizeof(long double));
  long double *wk = calloc(n, sizeof(long double));
  ck_assert(Qt && Kt && Vt && wk);
  const double *Q, *K, *V;
  weights_at_t(&Q, &K, &V, m->w, t);
  long double beta = m->beta;
  for (size_t j = 0; j < n; j++) {
    long double s = 0;
    for (size_t i = 0; i < d; i++)
      s += (long double) y[j * d + i] * y[j * d + i];
    s = sqrtl(s);
    for (size_t i = 0; i < d; i++)
      R->th[j * d + i] = y[j * d + i] / s;
  }
  for (size_t j = 0; j < n; j++) {
    matvec_l(Qt + j * d, Q, R->th + j * d, d);
    matvec_l(Kt + j * d, K, R->th + j * d, d);
    matvec_l(Vt + j * d, V, R->th + j * d, d);
  }
  long double kmax = 0;
  for (size_t k = 0; k < n; k++)
    kmax = fmaxl(kmax, sqrtl(dotl(Kt + k * d, Kt + k * d, d)));
  for (size_t j = 0; j < n; j++) {
    size_t kend = m->attn == AF_ATTN_CAUSAL ? j + 1 : n;
    long double mx = -INFINITY;
    for (size_t k = 0; k < kend; k++) {
      wk[k] = dotl(Qt + j * d, Kt + k * d, d);
      mx = fmaxl(mx, wk[k]);
    }
    long double z = 0;
    for (size_t k = 0; k < kend; k++) {
      /* USA: exp(beta s)/n directly (long double reaches e^11356). */
      wk[k] = m->attn == AF_ATTN_USA ? expl(beta * wk[k]) / (long double) n
                                     : expl(beta * (wk[k] - mx));
      z += wk[k];
    }
    if (m->attn != AF_ATTN_USA)
      for (size_t k = 0; k < kend; k++)
        wk[k] /= z;
    long double *Aj = R->A + j * d, *Pj = R->P + j * d;
    const long double *tj = R->th + j * d;
    long double am = 0;
    for (size_t i = 0; i < d; i++)
      Aj[i] = 0;
    for (size_t k = 0; k < kend; k++) {
      for (size_t i = 0; i < d; i++)
        Aj[i] += wk[k] * Vt[k * d + i];
      am += wk[k] * sqrtl(dotl(Vt + k * d, Vt + k * d, d));
    }
    R->amag[j] = am;
    R->qk[j] = sqrtl(dotl(Qt + j * d, Qt + j * d, d)) * kmax;
    R->c[j] = dotl(tj, Aj, d);
    R->a[j] = sqrtl(dotl(Aj, Aj, d));
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - R->c[j] * tj[i];
    R->tolA[j] = 4.0 * ((double) (n + d) + 4.0 * (double) d * m->beta * (double) R->qk[j])
                 * EPS * (double) am;
    /* Rates, table S0. */
    long double r = y[n * d + j], c = R->c[j], a = R->a[j], sj = 1, rj = 0;
    long double alpha = (long double) m->alpha * powl(1.0L + t, -(long double) m->alpha_decay);
    switch (m->scheme) {
    case AF_POST_LN: sj = 1; rj = 0; break;
    case AF_PRE_LN: sj = r; rj = c; break;
    case AF_MIX_LN: sj = t <= m->tau ? 1 : r; rj = t <= m->tau ? 0 : c; break;
    case AF_PERI_LN: sj = r * a; rj = c / a; break;
    case AF_NGPT: sj = a / alpha; rj = 0; break;
    case AF_LN_SCALING: sj = sqrtl(1.0L + t); rj = 0; break;
    default: ck_abort_msg("bad scheme");
    }
    R->s[j] = sj;
    R->rho[j] = rj;
    long double nx = 0;
    for (size_t i = 0; i < d; i++)
      nx += (long double) y[j * d + i] * y[j * d + i];
    nx = sqrtl(nx);
    for (size_t i = 0; i < d; i++)
      R->dy[j * d + i] = Pj[i] / sj * nx;
    R->dy[n * d + j] = rj;
  }
  free(Qt); free(Kt); free(Vt); free(wk);
}

/* Error bounds for d theta_j and dr_j derived from (T1) (file header). */
double tol_dth(const ref_t *R, size_t j, const double *y)
{
  long double nx = 0;
  for (size_t i = 0; i < R->d; i++)
    nx += (long double) y[j * R->d + i] * y[j * R->d + i];
  return 3.0 * R->tolA[j] / (double) R->s[j] * (double) sqrtl(nx);
}

double tol_dr(const ref_t *R, size_t j, const af_model *m)
{
  /* rho = c (2 tolA) or c / a (2 tolA / a + |c| tolA / a^2 <= 3 tolA / a). */
  if (m->scheme == AF_PERI_LN)
    return 3.0 * R->tolA[j] / (double) R->a[j];
  return 2.0 * R->tolA[j];
}

/* Compare af_rhs's dy with the reference, token by token. */
int dy_matches(const char *what, const double *dy, const ref_t *R,
                      const double *y, const af_model *m, double factor)
{
  size_t n = R->n, d = R->d;
  for (size_t j = 0; j < n; j++) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s dtheta_%zu", what, j);
    if (!vec_close(buf, dy + j * d, R->dy + j * d, d, factor * tol_dth(R, j, y)))
      return 0;
    snprintf(buf, sizeof buf, "%s dr_%zu", what, j);
    if (!aft_close(buf, dy[n * d + j], (double) R->dy[n * d + j], 0,
                   factor * tol_dr(R, j, m)))
      return 0;
  }
  return 1;
}

/* ================================================================ helpers */

/* Identity matrices stored explicitly (forces the general-weight paths). */
af_weights *explicit_weights(size_t d, double qscale, double kscale, double vscale)
{
  af_weights *w = af_weights_alloc(d, 1, 1.0);
  ck_assert_ptr_nonnull(w);
  double *M[3];
  double sc[3] = {qscale, kscale, vscale};
  for (int k = 0; k < 3; k++) {
    M[k] = calloc(d * d, sizeof(double));
    ck_assert_ptr_nonnull(M[k]);
    for (size_t i = 0; i < d; i++)
      M[k][i * d + i] = sc[k];
  }
  w->Q[0] = M[0];
  w->K[0] = M[1];
  w->V[0] = M[2];
  return w;
}

af_work *work_new(size_t n, size_t d, af_kernel k)
{
  af_work *w = af_work_alloc(n, d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_work_set_kernel(w, k));
  ck_assert_int_eq(af_work_kernel(w), k);
  return w;
}

/* Random orthogonal d x d matrix: Gram-Schmidt (twice, for orthogonality
 * to working precision) on a Gaussian matrix, i.e. the Q factor of its QR
 * decomposition. */
void random_orthogonal(double *R, size_t d, gsl_rng *rng)
{
  for (size_t i = 0; i < d * d; i++)
    R[i] = gsl_ran_gaussian(rng, 1.0);
  for (size_t c = 0; c < d; c++) {
    for (int pass = 0; pass < 2; pass++)
      for (size_t p = 0; p < c; p++) {
        double s = 0;
        for (size_t i = 0; i < d; i++)
          s += R[i * d + p] * R[i * d + c];
        for (size_t i = 0; i < d; i++)
          R[i * d + c] -= s * R[i * d + p];
      }
    double s = 0;
    for (size_t i = 0; i < d; i++)
      s += R[i * d + c] * R[i * d + c];
    s = sqrt(s);
    for (size_t i = 0; i < d; i++)
      R[i * d + c] /= s;
  }
}
