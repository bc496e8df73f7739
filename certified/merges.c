/* merges.c -- enclosures of the merge times of a staircase (theorems.md
 * C-merge): while af_certify carries the start in balls, every pair
 * (i, j) gets a proven interval for its first time below the threshold,
 * tau_ij = inf { t : 1 - <theta_i(t), theta_j(t)> < eta }:
 *  - lo: 1 - cos > eta is proven on the a-priori enclosure of every step
 *    of [0, lo] (Picard-Lindelof: the exact solution stays in it over
 *    the whole step, so no time in between is missed), so tau_ij >= lo;
 *  - hi: the first step end at which 1 - cos < eta is proven in the
 *    ball, so tau_ij <= hi.
 * The gap is |theta_i - theta_j|^2 / 2 (af_close_pair_gap), valid since
 * the exact directions are unit vectors.  The k-th merge of the
 * staircase, m_k = inf { t : the pairs with tau_ij <= t join the tokens
 * into at most n - 1 - k clusters }, then lies between the same time
 * computed from the lo's and from the hi's (Kruskal's union-find: the
 * component count is monotone in the edge set).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merges.h"

#ifdef AF_HAVE_ARB

int af_merge_track_init(af_merge_track *m, size_t n, size_t d,
                        double merge_cos)
{
  memset(m, 0, sizeof *m);
  if (!(merge_cos > 0 && merge_cos < 1))
    return AF_EINVAL;
  m->n = n;
  m->d = d;
  m->npairs = n * (n - 1) / 2;
  arb_init(m->eta);
  /* eta = 1 - merge_cos exactly (a double's difference from 1 is exact
   * in 64 + 53 bits) */
  arb_set_d(m->eta, merge_cos);
  arb_sub_ui(m->eta, m->eta, 1, 128);
  arb_neg(m->eta, m->eta);
  m->lo = calloc(m->npairs, sizeof *m->lo);
  m->hi = calloc(m->npairs, sizeof *m->hi);
  m->lofix = calloc(m->npairs, sizeof *m->lofix);
  m->stays = calloc(m->npairs, sizeof *m->stays);
  if (!m->lo || !m->hi || !m->lofix || !m->stays) {
    af_merge_track_clear(m);
    return AF_ENOMEM;
  }
  for (size_t p = 0; p < m->npairs; p++)
    m->hi[p] = INFINITY;
  return AF_OK;
}

void af_merge_track_clear(af_merge_track *m)
{
  if (m == NULL || m->lo == NULL)
    return;
  arb_clear(m->eta);
  free(m->lo);
  free(m->hi);
  free(m->lofix);
  free(m->stays);
  memset(m, 0, sizeof *m);
}

void af_merge_track_start(af_merge_track *m, arb_srcptr theta, long prec)
{
  arb_t g;
  arb_init(g);
  size_t p = 0;
  for (size_t i = 0; i < m->n; i++)
    for (size_t j = i + 1; j < m->n; j++, p++) {
      af_close_pair_gap(g, theta, i, j, m->d, prec);
      m->lo[p] = 0;
      m->lofix[p] = !arb_gt(g, m->eta);
      if (arb_lt(g, m->eta)) {
        m->hi[p] = 0;
        m->stays[p] = 1;
      }
    }
  arb_clear(g);
}

void af_merge_track_step(af_merge_track *m, arb_srcptr A, arb_srcptr Y,
                         double t1_down, double t1_up, long prec)
{
  arb_t g;
  arb_init(g);
  size_t p = 0;
  for (size_t i = 0; i < m->n; i++)
    for (size_t j = i + 1; j < m->n; j++, p++) {
      int had_hi = m->hi[p] < INFINITY;
      if (!m->lofix[p] || (had_hi && m->stays[p]))
        af_close_pair_gap(g, A, i, j, m->d, prec);
      if (!m->lofix[p]) {
        if (arb_gt(g, m->eta))
          m->lo[p] = t1_down; /* > eta on the whole step, and before */
        else
          m->lofix[p] = 1; /* lo stays the step's start */
      }
      if (had_hi) {
        if (m->stays[p] && !arb_lt(g, m->eta))
          m->stays[p] = 0;
      } else {
        af_close_pair_gap(g, Y, i, j, m->d, prec);
        if (arb_lt(g, m->eta)) {
          m->hi[p] = t1_up;
          m->stays[p] = 1;
        }
      }
    }
  arb_clear(g);
}

/* union-find with path halving */
static size_t uf_find(size_t *par, size_t x)
{
  while (par[x] != x) {
    par[x] = par[par[x]];
    x = par[x];
  }
  return x;
}

/* Kruskal: ev[k] = the value at which the components of the pairs sorted
 * by val drop to n - 1 - k (INFINITY if they never do). */
static void kruskal(double *ev, const double *val, size_t n, size_t np)
{
  size_t *ord = malloc(np * sizeof *ord), *par = malloc(n * sizeof *par);
  size_t *pi = malloc(np * sizeof *pi), *pj = malloc(np * sizeof *pj);
  for (size_t k = 0; k + 1 < n; k++)
    ev[k] = INFINITY;
  if (!ord || !par || !pi || !pj) {
    /* no memory: the events stay unknown (INFINITY), which is sound for
     * hi and, for lo, replaced by 0 below */
    for (size_t k = 0; k + 1 < n; k++)
      ev[k] = NAN;
    free(ord);
    free(par);
    free(pi);
    free(pj);
    return;
  }
  size_t p = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++, p++) {
      pi[p] = i;
      pj[p] = j;
      ord[p] = p;
    }
  for (size_t a = 1; a < np; a++) { /* insertion sort: np <= a few 1000 */
    size_t v = ord[a], b = a;
    for (; b > 0 && val[ord[b - 1]] > val[v]; b--)
      ord[b] = ord[b - 1];
    ord[b] = v;
  }
  for (size_t x = 0; x < n; x++)
    par[x] = x;
  size_t k = 0;
  for (size_t a = 0; a < np && k + 1 < n; a++) {
    size_t q = ord[a];
    if (!(val[q] < INFINITY))
      break;
    size_t ri = uf_find(par, pi[q]), rj = uf_find(par, pj[q]);
    if (ri != rj) {
      par[ri] = rj;
      ev[k++] = val[q];
    }
  }
  free(ord);
  free(par);
  free(pi);
  free(pj);
}

int af_merge_track_done(const af_merge_track *m)
{
  double *lo = malloc(m->n * sizeof *lo), *hi = malloc(m->n * sizeof *hi);
  int done = 0;
  if (lo && hi) {
    af_merge_events(lo, hi, m);
    done = hi[m->n - 2] < INFINITY;
  }
  free(lo);
  free(hi);
  return done;
}

void af_merge_events(double *lo, double *hi, const af_merge_track *m)
{
  kruskal(lo, m->lo, m->n, m->npairs);
  kruskal(hi, m->hi, m->n, m->npairs);
  for (size_t k = 0; k + 1 < m->n; k++) {
    if (isnan(lo[k]))
      lo[k] = 0;
    if (isnan(hi[k]))
      hi[k] = INFINITY;
  }
}

#endif /* AF_HAVE_ARB */
