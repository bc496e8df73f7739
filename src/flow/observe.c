/* observe.c -- observables of a state (names in AF_OBS_LIST).
 *
 * Pair quantities are formed from differences of unit directions:
 * g_ij = |th_i - th_j|^2 / 2 = 1 - <th_i, th_j>, which keeps its relative
 * accuracy as tokens merge (theorems.md N1); cosines are 1 - g_ij.  The
 * variance uses the centred form (1/n) sum |th_k - mean|^2 (theorems.md I3).
 * Loops run in a fixed order, so results do not depend on threads.
 * Above AF_OBS_TILED_MIN tokens the pair loop is that of observe_pairs.c
 * (tiled, threaded, O(n d) memory; theorems.md N.obs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const af_obs_names[AF_OBS_COUNT] = {
#define AF_X_OBS(name) #name,
  AF_OBS_LIST(AF_X_OBS)
#undef AF_X_OBS
};

AF_DEFINE_NAME(af_obs_name, af_obs_id, af_obs_names, AF_OBS_COUNT, )
AF_DEFINE_LOOKUP(af_obs_lookup, af_obs_id, af_obs_names, AF_OBS_COUNT, )

static size_t uf_find(size_t *parent, size_t i)
{
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/* observe.c's pair loop, one thread, in the order i < j. */
int af_obs_pairs_serial(af_obs_pairs *out, const double *th, size_t n,
                        size_t d, double beta, double cluster_cos)
{
  size_t *parent = malloc(n * sizeof(size_t));
  if (parent == NULL)
    return AF_ENOMEM;
  for (size_t j = 0; j < n; j++)
    parent[j] = j;
  double gsum = 0, gmin = INFINITY, gmax = 0, esum = 0;
  for (size_t i = 0; i < n; i++) {
    esum += 1.0; /* diagonal term exp(beta (1 - 1)) */
    for (size_t j = i + 1; j < n; j++) {
      const double *a = th + i * d, *b = th + j * d;
      double q = 0;
      for (size_t k = 0; k < d; k++) {
        double diff = a[k] - b[k];
        q += diff * diff;
      }
      double g = 0.5 * q;
      gsum += g;
      gmin = fmin(gmin, g);
      gmax = fmax(gmax, g);
      esum += 2.0 * exp(-beta * g);
      if (1.0 - g > cluster_cos) {
        size_t ri = uf_find(parent, i), rj = uf_find(parent, j);
        if (ri != rj)
          parent[ri] = rj;
      }
    }
  }
  size_t clusters = 0;
  for (size_t j = 0; j < n; j++)
    clusters += uf_find(parent, j) == j;
  free(parent);
  out->gsum = gsum;
  out->gmin = gmin;
  out->gmax = gmax;
  out->esum = esum;
  out->clusters = clusters;
  return AF_OK;
}

int af_observe(double *obs, double t, const double *y, double cluster_cos,
               const af_model *m, af_work *w)
{
  if (obs == NULL || y == NULL || w == NULL
      || !(cluster_cos >= AF_COS_MIN && cluster_cos <= AF_COS_MAX))
    return AF_EINVAL;
  int rc = af_model_fits(m, w->n, w->d);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;

  /* Speeds first: af_speeds overwrites w->th with the same directions. */
  double *s = malloc(n * sizeof(double));
  if (s == NULL)
    return AF_ENOMEM;
  rc = af_speeds(s, NULL, t, y, m, w);
  if (rc != AF_OK) {
    free(s);
    return rc;
  }
  double speed = 0;
  for (size_t j = 0; j < n; j++) {
    const double *Pj = w->P + j * d;
    double q = 0;
    for (size_t i = 0; i < d; i++)
      q += Pj[i] * Pj[i];
    speed += sqrt(q) / s[j];
  }
  speed /= (double) n;

  const double *th = w->th;
  double drift = 0, rsum = 0, rmin = INFINITY, rmax = -INFINITY;
  for (size_t j = 0; j < n; j++) {
    const double *x = y + j * d;
    double q = 0;
    for (size_t i = 0; i < d; i++)
      q += x[i] * x[i];
    drift = fmax(drift, fabs(sqrt(q) - 1.0));
    double r = y[n * d + j];
    rsum += r;
    rmin = fmin(rmin, r);
    rmax = fmax(rmax, r);
  }

  af_obs_pairs pr;
  rc = n > AF_OBS_TILED_MIN
           ? af_obs_pairs_tiled(&pr, th, n, d, m->beta, cluster_cos)
           : af_obs_pairs_serial(&pr, th, n, d, m->beta, cluster_cos);
  if (rc != AF_OK) {
    free(s);
    return rc;
  }
  double gsum = pr.gsum, gmin = pr.gmin, gmax = pr.gmax, esum = pr.esum;
  size_t clusters = pr.clusters;
  double eb = exp(m->beta);

  double var = 0;
  for (size_t k = 0; k < d; k++) {
    double mean = 0;
    for (size_t j = 0; j < n; j++)
      mean += th[j * d + k];
    mean /= (double) n;
    for (size_t j = 0; j < n; j++) {
      double diff = th[j * d + k] - mean;
      var += diff * diff;
    }
  }
  var /= (double) n;

  double npairs = 0.5 * (double) n * (double) (n - 1);
  double gmean = n > 1 ? gsum / npairs : 0.0;
  if (n == 1)
    gmin = gmax = 0.0;
  obs[AF_OBS_t] = t;
  obs[AF_OBS_cos_mean] = 1.0 - gmean;
  obs[AF_OBS_cos_min] = 1.0 - gmax;
  obs[AF_OBS_cos_max] = 1.0 - gmin;
  obs[AF_OBS_r_mean] = rsum / (double) n;
  obs[AF_OBS_r_min] = rmin;
  obs[AF_OBS_r_max] = rmax;
  obs[AF_OBS_var] = var;
  /* sum_{j,k} exp(beta <th_j, th_k>) / n^2 = e^beta sum exp(-beta g) / n^2 */
  obs[AF_OBS_energy] = eb * (esum / ((double) n * (double) n));
  obs[AF_OBS_clusters] = (double) clusters;
  obs[AF_OBS_speed_mean] = speed;
  obs[AF_OBS_drift] = drift;
  obs[AF_OBS_gap_mean] = gmean;
  obs[AF_OBS_gap_max] = gmax;
  free(s);
  return AF_OK;
}
