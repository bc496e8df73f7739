/* attention.c -- attention (spec M2, M5), the vector field S0 and the
 * discrete layer maps S7.
 *
 * Two kernels compute the same quantities:
 *
 *  - AF_KERNEL_BLAS: scores by a level-3 product (dsyrk when Q = K = I, so
 *    the score matrix is symmetric and exp is evaluated once per pair),
 *    weighted sums by dgemm.  The tangent part is A_j - <th_j, A_j> th_j,
 *    which carries an absolute rounding error ~ eps |A_j|: when tokens
 *    cluster to within delta, its relative error grows like eps/delta.
 *
 *  - AF_KERNEL_DIRECT: plain loops over pairs in a fixed order.  With V = I
 *    the exponent and the tangent part are formed from the differences
 *    D_jk = th_k - th_j of unit vectors:
 *        beta (<th_j, th_k> - 1) = -beta |D_jk|^2 / 2,
 *        P_{th_j} th_k = D_jk + (|D_jk|^2 / 2) th_j,
 *    so P_{th_j} A_j keeps its relative accuracy as tokens merge (the
 *    residual error is radial and leaves the directions alone).  This is
 *    the kernel for long horizons and terminal rates (spec §6.8).
 *
 * Softmax weights always subtract the row maximum (never overflow, any
 * beta); with Q = K = I that maximum is beta at k = j (spec M2).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>

#include "internal.h"

/* ------------------------------------------------------------ helpers */

static double dot(const double *x, const double *y, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += x[i] * y[i];
  return s;
}

/* Euclidean norm without spurious overflow or underflow: the plain sum of
 * squares when it is safely inside the normal range (the usual case),
 * else the sum of squares of x / max|x_i| (LAPACK dnrm2's idea). */
static double norm2(const double *x, size_t d)
{
  double s = dot(x, x, d);
  if (isfinite(s) && s >= DBL_MIN / DBL_EPSILON)
    return sqrt(s);
  double mx = 0;
  for (size_t i = 0; i < d; i++) {
    double a = fabs(x[i]);
    if (isnan(a))
      return a;
    if (a > mx)
      mx = a;
  }
  if (mx == 0 || !isfinite(mx))
    return mx;
  double q = 0;
  for (size_t i = 0; i < d; i++) {
    double v = x[i] / mx;
    q += v * v;
  }
  return mx * sqrt(q);
}

af_work *af_work_alloc(size_t n, size_t d)
{
  if (n < 1 || d < 1)
    return NULL;
  af_work *w = calloc(1, sizeof *w);
  if (w == NULL)
    return NULL;
  w->n = n;
  w->d = d;
  w->kernel = AF_KERNEL_BLAS;
  size_t nd = n * d;
  w->th = malloc(nd * sizeof(double));
  w->T = malloc(nd * sizeof(double));
  w->G = malloc(nd * sizeof(double));
  w->S = malloc(n * n * sizeof(double));
  w->A = malloc(nd * sizeof(double));
  w->P = malloc(nd * sizeof(double));
  w->c = malloc(n * sizeof(double));
  w->a = malloc(n * sizeof(double));
  w->Z = malloc(n * sizeof(double));
  w->amag = malloc(n * sizeof(double));
  w->gn = malloc(n * sizeof(double));
  w->ytmp = malloc((nd + n) * sizeof(double));
  w->dtmp = malloc(d * d * sizeof(double));
  if (!w->th || !w->T || !w->G || !w->S || !w->A || !w->P || !w->c || !w->a
      || !w->Z || !w->amag || !w->gn || !w->ytmp || !w->dtmp) {
    af_work_free(w);
    return NULL;
  }
  return w;
}

void af_work_free(af_work *w)
{
  if (w == NULL)
    return;
  free(w->th);
  free(w->T);
  free(w->G);
  free(w->S);
  free(w->A);
  free(w->P);
  free(w->c);
  free(w->a);
  free(w->Z);
  free(w->amag);
  free(w->gn);
  free(w->ytmp);
  free(w->dtmp);
  free(w);
}

int af_work_set_kernel(af_work *w, af_kernel k)
{
  if (w == NULL || (int) k < 0 || k >= AF_KERNEL_COUNT)
    return AF_EINVAL;
  w->kernel = k;
  return AF_OK;
}

af_kernel af_work_kernel(const af_work *w) { return w->kernel; }
unsigned long af_work_nevals(const af_work *w) { return w->nevals; }

size_t af_state_size(size_t n, size_t d) { return n * d + n; }

double af_work_piece_time(const af_work *w, double t)
{
  if (w->seg_set)
    return 0.5 * (w->seg_lo + w->seg_hi);
  return t;
}

int af_work_directions(af_work *w, const double *y)
{
  size_t n = w->n, d = w->d;
  for (size_t j = 0; j < n; j++) {
    const double *x = y + j * d;
    double s = norm2(x, d);
    if (!isfinite(s) || !isfinite(y[n * d + j]))
      return AF_ENONFINITE;
    if (s == 0)
      return AF_EZERONORM;
    for (size_t i = 0; i < d; i++)
      w->th[j * d + i] = x[i] / s;
  }
  return AF_OK;
}

/* G = rows V th_k (or th when V is the identity), and gn[k] = |G_k|. */
static void value_rows(af_work *w, const double *V)
{
  size_t n = w->n, d = w->d;
  if (V == NULL) {
    memcpy(w->G, w->th, n * d * sizeof(double));
    for (size_t k = 0; k < n; k++)
      w->gn[k] = 1.0;
    return;
  }
  /* G = th V^T */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) d,
              (int) d, 1.0, w->th, (int) d, V, (int) d, 0.0, w->G, (int) d);
  for (size_t k = 0; k < n; k++)
    w->gn[k] = sqrt(dot(w->G + k * d, w->G + k * d, d));
}

/* M = Q^T K into w->dtmp (Q or K may be NULL = identity). */
static void score_matrix(af_work *w, const double *Q, const double *K)
{
  size_t d = w->d;
  if (Q == NULL)
    memcpy(w->dtmp, K, d * d * sizeof(double));
  else if (K == NULL) {
    for (size_t a = 0; a < d; a++)
      for (size_t b = 0; b < d; b++)
        w->dtmp[a * d + b] = Q[b * d + a];
  } else
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int) d, (int) d,
                (int) d, 1.0, Q, (int) d, K, (int) d, 0.0, w->dtmp, (int) d);
}

/* Turn raw scores S_jk = <Q th_j, K th_k> (rows k > j ignored under the
 * causal mask) into unnormalized weights E_jk and normalizers Z_j with
 * w_jk = E_jk / Z_j.  Softmax and causal: E_jk = exp(beta (S_jk - m_j)),
 * m_j the row maximum.  USA: w_jk = exp(beta S_jk) / n, written as
 * E_jk = exp(beta (S_jk - m_j)), Z_j = n exp(-beta m_j). */
static int weights_general(af_work *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  for (size_t j = 0; j < n; j++) {
    double *row = w->S + j * n;
    size_t kend = causal ? j + 1 : n;
    double mx = -INFINITY;
    for (size_t k = 0; k < kend; k++)
      if (row[k] > mx)
        mx = row[k];
    if (!isfinite(mx))
      return AF_ENONFINITE;
    double z = 0;
    for (size_t k = 0; k < kend; k++) {
      row[k] = exp(m->beta * (row[k] - mx));
      z += row[k];
    }
    for (size_t k = kend; k < n; k++)
      row[k] = 0.0;
    if (m->attn == AF_ATTN_USA) {
      double e = exp(-m->beta * mx);
      if (e == 0.0 || !isfinite(e))
        return AF_EOVERFLOW;
      z = (double) n * e;
    }
    w->Z[j] = z;
  }
  return AF_OK;
}

/* Identity Q, K: exponent beta (S_jk - 1) <= 0 (max at k = j), symmetric,
 * so exp is evaluated once per unordered pair (lower triangle), mirrored
 * unless the mask is causal. */
static int weights_identity(af_work *w, const af_model *m)
{
  size_t n = w->n;
  int causal = m->attn == AF_ATTN_CAUSAL;
  double usa_z = 0;
  if (m->attn == AF_ATTN_USA) {
    double e = exp(-m->beta);
    if (e == 0.0)
      return AF_EOVERFLOW;
    usa_z = (double) n * e;
  }
  for (size_t j = 0; j < n; j++) {
    double *row = w->S + j * n;
    for (size_t k = 0; k < j; k++) {
      double e = exp(m->beta * (row[k] - 1.0));
      row[k] = e;
      w->S[k * n + j] = causal ? 0.0 : e;
    }
    row[j] = exp(m->beta * (row[j] - 1.0));
  }
  for (size_t j = 0; j < n; j++) {
    if (m->attn == AF_ATTN_USA) {
      w->Z[j] = usa_z;
      continue;
    }
    const double *row = w->S + j * n;
    double z = 0;
    for (size_t k = 0; k < n; k++)
      z += row[k];
    w->Z[j] = z;
  }
  return AF_OK;
}

/* ------------------------------------------------------------ kernels */

static int attention_blas(af_work *w, const af_model *m, const double *Q,
                          const double *K, const double *V)
{
  size_t n = w->n, d = w->d;
  int rc;
  int ident = (Q == NULL && K == NULL);
  if (ident) {
    /* Lower triangle of th th^T; weights_identity reads k <= j only. */
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int) n, (int) d,
                1.0, w->th, (int) d, 0.0, w->S, (int) n);
    rc = weights_identity(w, m);
  } else {
    score_matrix(w, Q, K);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) n, (int) d,
                (int) d, 1.0, w->th, (int) d, w->dtmp, (int) d, 0.0, w->T,
                (int) d);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int) n, (int) n,
                (int) d, 1.0, w->T, (int) d, w->th, (int) d, 0.0, w->S,
                (int) n);
    rc = weights_general(w, m);
  }
  if (rc != AF_OK)
    return rc;
  value_rows(w, V);
  /* A = E G, then row j divided by Z_j. */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) n, (int) d,
              (int) n, 1.0, w->S, (int) n, w->G, (int) d, 0.0, w->A, (int) d);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, (int) n, (int) n, 1.0, w->S,
              (int) n, w->gn, 1, 0.0, w->amag, 1);
  for (size_t j = 0; j < n; j++) {
    double iz = 1.0 / w->Z[j];
    double *Aj = w->A + j * d, *Pj = w->P + j * d;
    const double *tj = w->th + j * d;
    for (size_t i = 0; i < d; i++)
      Aj[i] *= iz;
    w->amag[j] *= iz;
    double c = dot(tj, Aj, d);
    w->c[j] = c;
    w->a[j] = norm2(Aj, d);
    for (size_t i = 0; i < d; i++)
      Pj[i] = Aj[i] - c * tj[i];
  }
  return AF_OK;
}

static int attention_direct(af_work *w, const af_model *m, const double *Q,
                            const double *K, const double *V)
{
  size_t n = w->n, d = w->d;
  int rc;
  int ident = (Q == NULL && K == NULL);
  /* Scores into S (exponents for the identity case). */
  if (ident) {
    for (size_t j = 0; j < n; j++) {
      const double *tj = w->th + j * d;
      w->S[j * n + j] = 1.0;
      for (size_t k = 0; k < j; k++) {
        const double *tk = w->th + k * d;
        double q = 0;
        for (size_t i = 0; i < d; i++) {
          double diff = tk[i] - tj[i];
          q += diff * diff;
        }
        /* 1 - |D|^2/2 = <th_j, th_k> for unit vectors, formed so that
         * weights_identity's S - 1 is exactly -|D|^2/2. */
        double s = 1.0 - 0.5 * q;
        w->S[j * n + k] = s;
        w->S[k * n + j] = s;
      }
    }
    /* weights_identity computes exp(beta (S - 1)).  S = fl(1 - q/2) is
     * within eps/2 of 1 - q/2 and S - 1 is then exact (Sterbenz, S in
     * [1/2, 2] for pairs within 90 degrees), so each weight carries a
     * relative error of at most beta eps / 2 + one rounding of exp. */
    rc = weights_identity(w, m);
  } else {
    score_matrix(w, Q, K);
    for (size_t j = 0; j < n; j++) {
      const double *tj = w->th + j * d;
      double *Tj = w->T + j * d;
      for (size_t b = 0; b < d; b++) {
        double s = 0;
        for (size_t a = 0; a < d; a++)
          s += tj[a] * w->dtmp[a * d + b];
        Tj[b] = s;
      }
    }
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k < n; k++)
        w->S[j * n + k] = dot(w->T + j * d, w->th + k * d, d);
    rc = weights_general(w, m);
  }
  if (rc != AF_OK)
    return rc;
  if (V != NULL) {
    for (size_t k = 0; k < n; k++) {
      double *Gk = w->G + k * d;
      const double *tk = w->th + k * d;
      for (size_t a = 0; a < d; a++)
        Gk[a] = dot(V + a * d, tk, d);
      w->gn[k] = sqrt(dot(Gk, Gk, d));
    }
  }
  for (size_t j = 0; j < n; j++) {
    const double *tj = w->th + j * d;
    const double *row = w->S + j * n;
    double *Aj = w->A + j * d, *Pj = w->P + j * d;
    double iz = 1.0 / w->Z[j];
    for (size_t i = 0; i < d; i++) {
      Aj[i] = 0;
      Pj[i] = 0;
    }
    double am = 0;
    if (V == NULL) {
      double radial = 0; /* sum_k w_jk |D_jk|^2 / 2 */
      for (size_t k = 0; k < n; k++) {
        double e = row[k];
        if (e == 0.0)
          continue;
        const double *tk = w->th + k * d;
        double q = 0;
        for (size_t i = 0; i < d; i++) {
          double diff = tk[i] - tj[i];
          Pj[i] += e * diff;
          Aj[i] += e * tk[i];
          q += diff * diff;
        }
        radial += e * 0.5 * q;
        am += e;
      }
      radial *= iz;
      for (size_t i = 0; i < d; i++) {
        Aj[i] *= iz;
        Pj[i] = Pj[i] * iz + radial * tj[i];
      }
      /* c = sum_k w_jk <th_j, th_k> = sum_k w_jk - radial; sum_k w_jk = 1
       * under softmax, e^beta-weighted under USA. */
      w->c[j] = am * iz - radial;
    } else {
      for (size_t k = 0; k < n; k++) {
        double e = row[k];
        if (e == 0.0)
          continue;
        const double *Gk = w->G + k * d;
        for (size_t i = 0; i < d; i++)
          Aj[i] += e * Gk[i];
        am += e * w->gn[k];
      }
      for (size_t i = 0; i < d; i++)
        Aj[i] *= iz;
      double c = dot(tj, Aj, d);
      w->c[j] = c;
      for (size_t i = 0; i < d; i++)
        Pj[i] = Aj[i] - c * tj[i];
    }
    w->amag[j] = am * iz;
    w->a[j] = norm2(Aj, d);
  }
  return AF_OK;
}

/* Fill w->A, w->P, w->c, w->a, w->amag for the directions of y. */
static int attention_fill(af_work *w, double t, const double *y,
                          const af_model *m)
{
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  if (m->n != w->n || m->d != w->d)
    return AF_EDIM;
  rc = af_work_directions(w, y);
  if (rc != AF_OK)
    return rc;
  af_model faulty;
  if (m->fault & AF_FAULT_ATTENTION) { /* documented in attnflow.h */
    faulty = *m;
    faulty.beta *= 1.05;
    m = &faulty;
  }
  const double *Q, *K, *V;
  af_weights_at(&Q, &K, &V, m->w, af_work_piece_time(w, t));
  rc = (w->kernel == AF_KERNEL_DIRECT) ? attention_direct(w, m, Q, K, V)
                                       : attention_blas(w, m, Q, K, V);
  if (rc != AF_OK)
    return rc;
  w->nevals++;
  /* The directions are finite here, so a non-finite output under the
   * unnormalized USA weights (up to e^beta) is an overflow. */
  for (size_t j = 0; j < w->n; j++)
    if (!isfinite(w->a[j]) || !isfinite(w->c[j]))
      return m->attn == AF_ATTN_USA ? AF_EOVERFLOW : AF_ENONFINITE;
  return AF_OK;
}

int af_attention(double *A, double *pt, double *c, double *a, double t,
                 const double *y, const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t nd = w->n * w->d;
  if (A)
    memcpy(A, w->A, nd * sizeof(double));
  if (pt)
    memcpy(pt, w->P, nd * sizeof(double));
  if (c)
    memcpy(c, w->c, w->n * sizeof(double));
  if (a)
    memcpy(a, w->a, w->n * sizeof(double));
  return AF_OK;
}

/* |A_j| is indistinguishable from zero when it lies within the rounding
 * error bound of its own computation: a sum of n terms of total magnitude
 * sum_k w_jk |V th_k| carries an error of at most about n eps times that
 * magnitude (recursive summation, Higham 2002, §4.2). */
static int attention_vanishes(const af_work *w, size_t j)
{
  return w->a[j] <= (double) w->n * DBL_EPSILON * w->amag[j];
}

/* Scheme rates for every token from the filled work arrays. */
static int rates_fill(double *s, double *rho, double t, const double *y,
                      const af_model *m, af_work *w)
{
  const af_scheme *sc = af_scheme_get(m->scheme);
  size_t n = w->n, d = w->d;
  double alpha = af_model_alpha(m, t);
  /* Mix-LN's side of tau comes from the piece being integrated, so that a
   * stage evaluated exactly at tau after the restart is a Pre-LN stage. */
  double tau = m->tau;
  if (w->seg_set)
    tau = (w->seg_lo >= m->tau) ? -INFINITY : INFINITY;
  for (size_t j = 0; j < n; j++) {
    if (sc->needs_anorm && attention_vanishes(w, j))
      return AF_EZEROATTN;
    double sj, rj;
    sc->rates(&sj, &rj, t, y[n * d + j], w->c[j], w->a[j], alpha, tau);
    if (m->fault & AF_FAULT_SPEED)
      sj *= 1.0 + 0.05 * t;
    if (m->fault & AF_FAULT_RADIAL)
      rj *= 1.1;
    if (!isfinite(sj) || !isfinite(rj))
      return AF_ENONFINITE;
    if (!(sj > 0))
      return AF_ESPEED;
    s[j] = sj;
    rho[j] = rj;
  }
  return AF_OK;
}

int af_speeds(double *s, double *rho, double t, const double *y,
              const af_model *m, af_work *w)
{
  if (w == NULL || y == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  double *ss = w->ytmp, *rr = w->ytmp + w->n;
  rc = rates_fill(ss, rr, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  if (s)
    memcpy(s, ss, w->n * sizeof(double));
  if (rho)
    memcpy(rho, rr, w->n * sizeof(double));
  return AF_OK;
}

int af_rhs(double *dy, double t, const double *y, const af_model *m,
           af_work *w)
{
  if (w == NULL || y == NULL || dy == NULL)
    return AF_EINVAL;
  int rc = attention_fill(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  double *s = w->ytmp, *rho = w->ytmp + n;
  rc = rates_fill(s, rho, t, y, m, w);
  if (rc != AF_OK)
    return rc;
  for (size_t j = 0; j < n; j++) {
    double is = 1.0 / s[j];
    const double *Pj = w->P + j * d;
    /* The state's theta_j may have drifted off the sphere; the field is a
     * function of theta/|theta|, and scaling by |theta_j| keeps
     * d theta/dt tangent to the sphere of radius |theta_j| with the
     * same angular velocity. */
    const double *x = y + j * d;
    double nx = norm2(x, d);
    for (size_t i = 0; i < d; i++)
      dy[j * d + i] = Pj[i] * is * nx;
    dy[n * d + j] = rho[j];
  }
  return AF_OK;
}

/* ------------------------------------------------------------ layer maps */

/* y_out direction = v/|v|; AF_EZERONORM if v = 0. */
static int set_direction(double *out, const double *v, size_t d)
{
  double s = sqrt(dot(v, v, d));
  if (!isfinite(s))
    return AF_ENONFINITE;
  if (s == 0)
    return AF_EZERONORM;
  for (size_t i = 0; i < d; i++)
    out[i] = v[i] / s;
  return AF_OK;
}

int af_layer_step(double *y_out, const double *y_in, size_t layer, double h,
                  const af_model *m, af_work *w)
{
  if (w == NULL || y_in == NULL || y_out == NULL || !(h > 0) || !isfinite(h))
    return AF_EINVAL;
  double t = (double) layer * h;
  /* The weight set of layer l is selected from the middle of its step. */
  int seg_saved = w->seg_set;
  double lo = w->seg_lo, hi = w->seg_hi;
  w->seg_set = 1;
  w->seg_lo = t;
  w->seg_hi = t + h;
  int rc = attention_fill(w, t, y_in, m);
  w->seg_set = seg_saved;
  w->seg_lo = lo;
  w->seg_hi = hi;
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  af_scheme_id sc = m->scheme;
  if (sc == AF_MIX_LN)
    sc = (t < m->tau) ? AF_POST_LN : AF_PRE_LN; /* spec S7: l h < tau */
  const af_scheme *row = af_scheme_get(sc);
  double alpha = af_model_alpha(m, t);
  double *v = w->T; /* scratch n x d (free after attention_fill) */
  double *rnew = w->ytmp;
  for (size_t j = 0; j < n; j++) {
    if (row->needs_anorm && attention_vanishes(w, j))
      return AF_EZEROATTN;
    const double *tj = w->th + j * d, *Aj = w->A + j * d;
    double r = y_in[n * d + j], a = w->a[j];
    double *vj = v + j * d;
    rnew[j] = r;
    switch (sc) {
    case AF_POST_LN: /* theta+ = N(theta + h A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + h * Aj[i];
      break;
    case AF_PRE_LN: /* x+ = x + h A */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i];
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_PERI_LN: /* x+ = x + h N(A) */
      for (size_t i = 0; i < d; i++)
        vj[i] = r * tj[i] + h * Aj[i] / a;
      rnew[j] = sqrt(dot(vj, vj, d));
      break;
    case AF_NGPT: /* theta+ = N(theta + alpha h (N(A) - theta)) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + alpha * h * (Aj[i] / a - tj[i]);
      break;
    case AF_LN_SCALING: { /* theta+ = N(theta + h A / sqrt(l h + 1)) */
      double f = h / sqrt(t + 1.0);
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + f * Aj[i];
      break;
    }
    default:
      return AF_EINVAL;
    }
    if (m->fault & AF_FAULT_RADIAL)
      rnew[j] = r + 1.1 * (rnew[j] - r);
    if (m->fault & AF_FAULT_SPEED) /* the step's angle, as s (1 + 0.05 t) */
      for (size_t i = 0; i < d; i++)
        vj[i] = tj[i] + (vj[i] / (row->moves_radius ? r : 1.0) - tj[i])
                            / (1.0 + 0.05 * t);
    if (!isfinite(rnew[j]))
      return AF_ENONFINITE;
  }
  /* Write only after every token succeeded: y_out may alias y_in. */
  double *tmp = w->P;
  for (size_t j = 0; j < n; j++) {
    rc = set_direction(tmp + j * d, v + j * d, d);
    if (rc != AF_OK)
      return rc;
    if (rnew[j] == 0)
      return AF_EZERONORM;
  }
  memcpy(y_out, tmp, n * d * sizeof(double));
  memcpy(y_out + n * d, rnew, n * sizeof(double));
  return AF_OK;
}
