/* mp_globerr.c -- the first-order global error estimate of an MPFR run
 * (theorems.md N3g).
 *
 * A one-step method's global error after steps k = 0..K-1 is, to first
 * order in the local errors e_k, e = sum_k Phi(T, t_{k+1}) e_k with Phi
 * the flow's linearization (the error transport of HNW I §II.3, "Lady
 * Windermere's fan"; Lang and Verwer, SIAM J. Sci. Comput.
 * 29 (2007) 1460-1475, drive the same transport by local estimates).
 * This file carries g_{k+1} = Phi(t_{k+1}, t_k) g_k + d_k, where d_k is
 * the step's signed local error vector (the difference whose norm is the
 * step's estimate), in double: g is an estimate, not a bound, and 16
 * significant digits of a vector of size 1e-60 are more than it needs.
 *
 * Phi(t + h, t) g solves v' = J(s, z(s)) v along z' = f(s, z), z(t) = y_k
 * rounded to double: classical RK4 on (z, v) with AF_GLOB_SUB substeps,
 * J v by the central difference |v| (f(z + eps u) - f(z - eps u)) /
 * (2 eps), u = v/|v|_inf, eps = 2^-17 (the cube root of the double
 * epsilon: truncation eps^2 and rounding u/eps balance at about 1e-10
 * relative).  The field is the double instance of the MPFR kernel's
 * template (mp_kernel_double.c), on the same piece of a piecewise field.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mp_globerr.h"
#include "mp_kernel.h"

/* RK4 substeps per step: the steps of a high-order MPFR method are
 * O(1/L) long; 8 substeps leave a relative error of about (h L / 8)^4 /
 * 120 in the transported vector, below 1e-5 for h L <= 1. */
#define AF_GLOB_SUB 8
#define AF_GLOB_EPS 0x1p-17

struct af_mp_glob {
  size_t N;
  af_work_generic_d *w;
  double *g;                  /* the estimate, N                      */
  double *z, *v, *zs, *vs;    /* RK4 state and stage arguments        */
  double *kz, *kv, *az, *av;  /* stage slopes and their sums          */
  double *zp, *zm, *fp, *fm;  /* central difference                    */
};

af_mp_glob *af_mp_glob_alloc(const af_model *m)
{
  size_t N = af_state_size(m->n, m->d);
  af_mp_glob *G = calloc(1, sizeof *G);
  if (G == NULL)
    return NULL;
  G->N = N;
  G->w = af_work_alloc_generic_d(m->n, m->d, 53);
  double **arr[] = {&G->g, &G->z, &G->v, &G->zs, &G->vs, &G->kz, &G->kv,
                    &G->az, &G->av, &G->zp, &G->zm, &G->fp, &G->fm};
  int ok = G->w != NULL;
  for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
    if ((*arr[i] = calloc(N ? N : 1, sizeof(double))) == NULL)
      ok = 0;
  if (!ok) {
    af_mp_glob_free(G);
    return NULL;
  }
  return G;
}

void af_mp_glob_free(af_mp_glob *G)
{
  if (G == NULL)
    return;
  af_work_free_generic_d(G->w);
  double *arr[] = {G->g, G->z, G->v, G->zs, G->vs, G->kz, G->kv,
                   G->az, G->av, G->zp, G->zm, G->fp, G->fm};
  for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
    free(arr[i]);
  free(G);
}

void af_mp_glob_set_piece(af_mp_glob *G, int set, double lo, double hi)
{
  af_work_set_piece_generic_d(G->w, set, lo, hi);
}

void af_mp_glob_reset(af_mp_glob *G)
{
  memset(G->g, 0, G->N * sizeof(double));
}

void af_mp_glob_get(double *g, const af_mp_glob *G)
{
  memcpy(g, G->g, G->N * sizeof(double));
}

void af_mp_glob_set(af_mp_glob *G, const double *g)
{
  memcpy(G->g, g, G->N * sizeof(double));
}

double af_mp_glob_norm(const af_mp_glob *G)
{
  double mx = 0;
  for (size_t i = 0; i < G->N; i++)
    if (fabs(G->g[i]) > mx)
      mx = fabs(G->g[i]);
  return mx;
}

/* kz = f(t, z), kv = J(t, z) v. */
static int slopes(af_mp_glob *G, double t, const double *z, const double *v,
                  const af_model *m)
{
  size_t N = G->N;
  int rc = af_rhs_generic_d(G->kz, t, z, m, G->w);
  if (rc != AF_OK)
    return rc;
  double vn = 0;
  for (size_t i = 0; i < N; i++)
    if (fabs(v[i]) > vn)
      vn = fabs(v[i]);
  if (vn == 0) {
    memset(G->kv, 0, N * sizeof(double));
    return AF_OK;
  }
  for (size_t i = 0; i < N; i++) {
    double u = v[i] / vn;
    G->zp[i] = z[i] + AF_GLOB_EPS * u;
    G->zm[i] = z[i] - AF_GLOB_EPS * u;
  }
  if ((rc = af_rhs_generic_d(G->fp, t, G->zp, m, G->w)) != AF_OK
      || (rc = af_rhs_generic_d(G->fm, t, G->zm, m, G->w)) != AF_OK)
    return rc;
  double s = vn / (2 * AF_GLOB_EPS);
  for (size_t i = 0; i < N; i++)
    G->kv[i] = (G->fp[i] - G->fm[i]) * s;
  return AF_OK;
}

int af_mp_glob_step(af_mp_glob *G, double t, double h, const double *y,
                    const double *d, const af_model *m)
{
  size_t N = G->N;
  memcpy(G->z, y, N * sizeof(double));
  memcpy(G->v, G->g, N * sizeof(double));
  double hs = h / AF_GLOB_SUB;
  static const double a[4] = {0, 0.5, 0.5, 1}, b[4] = {1, 2, 2, 1};
  for (int sub = 0; sub < AF_GLOB_SUB; sub++) {
    double ts = t + sub * hs;
    memset(G->az, 0, N * sizeof(double));
    memset(G->av, 0, N * sizeof(double));
    for (int st = 0; st < 4; st++) {
      const double *zz = G->z, *vv = G->v;
      if (st > 0) {
        for (size_t i = 0; i < N; i++) {
          G->zs[i] = G->z[i] + a[st] * hs * G->kz[i];
          G->vs[i] = G->v[i] + a[st] * hs * G->kv[i];
        }
        zz = G->zs;
        vv = G->vs;
      }
      int rc = slopes(G, ts + a[st] * hs, zz, vv, m);
      if (rc != AF_OK)
        return rc;
      for (size_t i = 0; i < N; i++) {
        G->az[i] += b[st] * G->kz[i];
        G->av[i] += b[st] * G->kv[i];
      }
    }
    for (size_t i = 0; i < N; i++) {
      G->z[i] += hs / 6 * G->az[i];
      G->v[i] += hs / 6 * G->av[i];
    }
  }
  for (size_t i = 0; i < N; i++)
    G->g[i] = G->v[i] + d[i];
  return AF_OK;
}
