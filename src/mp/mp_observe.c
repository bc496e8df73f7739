/* mp_observe.c -- the observables of observe.c (AF_OBS_LIST) in MPFR.
 *
 * Same definitions and the same loop order as af_observe, every number
 * at the working precision (the precision of obs, y and the work):
 *   g_ij = |th_i - th_j|^2 / 2 = 1 - <th_i, th_j>, th = theta/|theta|,
 *   cos_* = 1 - g, gap_* = g (mean and extremes over pairs i < j),
 *   var = (1/n) sum_k |th_k - mean|^2 (centred form, theorems.md I3),
 *   energy = e^beta sum_{j,k} exp(-beta g_jk) / n^2 (beta the work's
 *     exact parameter if it has one, af_mp_work_set_params),
 *   speed_mean = (1/n) sum_j |P A_j| / s_j, taken from the field itself:
 *     the theta part of af_mp_rhs is |theta_j| P A_j / s_j, so
 *     |d theta_j/dt| / |theta_j| is the angular speed,
 *   drift = max_j | |theta_j| - 1 |, r_* over the radii,
 *   clusters = components of the graph 1 - g_ij > cluster_cos.
 * The field evaluation counts in the work's nevals; callers that report
 * an integrator's evaluations observe with a work of their own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "attnflow_mp.h"

#define RND MPFR_RNDN

static size_t uf_find(size_t *parent, size_t i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* r = sqrt(sum_{i<d} x_i^2), recursive summation. */
static void norm(mpfr_ptr r, mpfr_t *x, size_t d, mpfr_ptr tmp)
{
  mpfr_set_zero(r, 1);
  for (size_t i = 0; i < d; i++) {
    mpfr_sqr(tmp, x[i], RND);
    mpfr_add(r, r, tmp, RND);
  }
  mpfr_sqrt(r, r, RND);
}

int af_mp_observe(mpfr_t *obs, mpfr_srcptr t, mpfr_t *y, double cluster_cos,
                  const af_model *m, af_mp_work *w)
{
  if (obs == NULL || t == NULL || y == NULL || w == NULL
      || !isfinite(cluster_cos))
    return AF_EINVAL;
  int rc = af_model_validate(m);
  if (rc != AF_OK)
    return rc;
  size_t n = m->n, d = m->d, N = af_state_size(n, d);
  mpfr_prec_t P = mpfr_get_prec(y[0]);
  for (int k = 0; k < AF_OBS_COUNT; k++)
    if (mpfr_get_prec(obs[k]) != P)
      return AF_EINVAL;

  mpfr_t *th = af_mp_vec_alloc(n * d, P);
  mpfr_t *dy = af_mp_vec_alloc(N, P);
  size_t *parent = malloc(n * sizeof(size_t));
  mpfr_t q, tmp, g, gsum, gmin, gmax, esum, sp, nx, var, mean, drift, rsum;
  mpfr_inits2(P, q, tmp, g, gsum, gmin, gmax, esum, sp, nx, var, mean, drift,
              rsum, (mpfr_ptr) 0);
  if (th == NULL || dy == NULL || parent == NULL) {
    rc = AF_ENOMEM;
    goto done;
  }

  /* Speed from the field (also the error checks of af_speeds: zero
   * attention, zero norm, non-positive speed factor). */
  rc = af_mp_rhs(dy, t, y, m, w);
  if (rc != AF_OK)
    goto done;
  mpfr_set_zero(sp, 1);
  mpfr_set_zero(drift, 1);
  mpfr_set_zero(rsum, 1);
  mpfr_ptr rmin = obs[AF_OBS_r_min], rmax = obs[AF_OBS_r_max];
  for (size_t j = 0; j < n; j++) {
    norm(nx, y + j * d, d, tmp);
    if (mpfr_zero_p(nx) || !mpfr_number_p(nx)) {
      rc = mpfr_zero_p(nx) ? AF_EZERONORM : AF_ENONFINITE;
      goto done;
    }
    for (size_t i = 0; i < d; i++)
      mpfr_div(th[j * d + i], y[j * d + i], nx, RND);
    norm(q, dy + j * d, d, tmp);
    mpfr_div(q, q, nx, RND);
    mpfr_add(sp, sp, q, RND);
    mpfr_sub_ui(q, nx, 1, RND);
    mpfr_abs(q, q, RND);
    mpfr_max(drift, drift, q, RND);
    mpfr_srcptr r = y[n * d + j];
    mpfr_add(rsum, rsum, r, RND);
    if (j == 0) {
      mpfr_set(rmin, r, RND);
      mpfr_set(rmax, r, RND);
    } else {
      mpfr_min(rmin, rmin, r, RND);
      mpfr_max(rmax, rmax, r, RND);
    }
    parent[j] = j;
  }
  mpfr_div_ui(sp, sp, (unsigned long) n, RND);

  /* Pairs. */
  mpfr_set_zero(gsum, 1);
  mpfr_set_zero(gmax, 1);
  mpfr_set_inf(gmin, 1);
  mpfr_set_zero(esum, 1);
  /* beta: the work's exact parameter (af_mp_work_set_params), else the
   * model's double, exactly. */
  const af_mp_params *par = af_mp_work_params(w);
  if (par != NULL)
    mpfr_set(mean, par->beta, RND);
  else
    mpfr_set_d(mean, m->beta, RND);
  for (size_t i = 0; i < n; i++) {
    mpfr_add_ui(esum, esum, 1, RND); /* diagonal term exp(beta (1 - 1)) */
    for (size_t j = i + 1; j < n; j++) {
      af_mp_vec_dist2(q, th + i * d, th + j * d, d, tmp);
      mpfr_div_2ui(g, q, 1, RND);
      mpfr_add(gsum, gsum, g, RND);
      mpfr_min(gmin, gmin, g, RND);
      mpfr_max(gmax, gmax, g, RND);
      mpfr_mul(tmp, mean, g, RND);
      mpfr_neg(tmp, tmp, RND);
      mpfr_exp(tmp, tmp, RND);
      mpfr_mul_2ui(tmp, tmp, 1, RND);
      mpfr_add(esum, esum, tmp, RND);
      mpfr_ui_sub(tmp, 1, g, RND);
      if (mpfr_cmp_d(tmp, cluster_cos) > 0) {
        size_t ri = uf_find(parent, i), rj = uf_find(parent, j);
        if (ri != rj)
          parent[ri] = rj;
      }
    }
  }
  unsigned long clusters = 0;
  for (size_t j = 0; j < n; j++)
    clusters += uf_find(parent, j) == j;
  /* energy = e^beta esum / n^2 */
  mpfr_exp(tmp, mean, RND);
  mpfr_mul(esum, esum, tmp, RND);
  mpfr_div_ui(esum, esum, (unsigned long) n, RND);
  mpfr_div_ui(esum, esum, (unsigned long) n, RND);

  /* Centred variance. */
  mpfr_set_zero(var, 1);
  for (size_t k = 0; k < d; k++) {
    mpfr_set_zero(mean, 1);
    for (size_t j = 0; j < n; j++)
      mpfr_add(mean, mean, th[j * d + k], RND);
    mpfr_div_ui(mean, mean, (unsigned long) n, RND);
    for (size_t j = 0; j < n; j++) {
      mpfr_sub(tmp, th[j * d + k], mean, RND);
      mpfr_sqr(tmp, tmp, RND);
      mpfr_add(var, var, tmp, RND);
    }
  }
  mpfr_div_ui(var, var, (unsigned long) n, RND);

  if (n > 1) {
    /* n (n - 1) / 2 pairs: divide by n, n - 1, then halve (exact). */
    mpfr_div_ui(gsum, gsum, (unsigned long) n, RND);
    mpfr_div_ui(gsum, gsum, (unsigned long) (n - 1), RND);
    mpfr_mul_2ui(gsum, gsum, 1, RND);
  } else {
    mpfr_set_zero(gsum, 1);
    mpfr_set_zero(gmin, 1);
    mpfr_set_zero(gmax, 1);
  }
  mpfr_set(obs[AF_OBS_t], t, RND);
  mpfr_ui_sub(obs[AF_OBS_cos_mean], 1, gsum, RND);
  mpfr_ui_sub(obs[AF_OBS_cos_min], 1, gmax, RND);
  mpfr_ui_sub(obs[AF_OBS_cos_max], 1, gmin, RND);
  mpfr_div_ui(obs[AF_OBS_r_mean], rsum, (unsigned long) n, RND);
  mpfr_set(obs[AF_OBS_var], var, RND);
  mpfr_set(obs[AF_OBS_energy], esum, RND);
  mpfr_set_ui(obs[AF_OBS_clusters], clusters, RND);
  mpfr_set(obs[AF_OBS_speed_mean], sp, RND);
  mpfr_set(obs[AF_OBS_drift], drift, RND);
  mpfr_set(obs[AF_OBS_gap_mean], gsum, RND);
  mpfr_set(obs[AF_OBS_gap_max], gmax, RND);

done:
  mpfr_clears(q, tmp, g, gsum, gmin, gmax, esum, sp, nx, var, mean, drift,
              rsum, (mpfr_ptr) 0);
  free(parent);
  af_mp_vec_free(dy, N);
  af_mp_vec_free(th, n * d);
  return rc;
}
