/* claims_staircase.c -- the certified staircase of case C2 (theorems.md
 * C-merge): af_certify with merge_cos = 0.9999 encloses every merge time
 * of the metastable start of figure C2 (Post-LN, n = 5, d = 2, beta = 4,
 * angles 0.062, 0.214, 1.819, 2.911, 3.188), and an independent MPFR run
 * of the same start puts each of its merges inside the interval.
 *
 *   C-staircase/post-ln
 *     quick: the mechanism on two tokens (Post-LN, beta = 1, angles 0,
 *       0.5: one merge, at t ~ 7; C2's first merge alone costs 2.5 s);
 *     full: C2's three early merges (t-max 8);
 *     full with AF_CHECK_EXPENSIVE=1: the whole staircase, the last merge
 *       after the two-cluster plateau at t ~ 330 (t-max 400; minutes).
 *   Certified if every merge reached is enclosed in [t_lo, t_hi] of width
 *   <= C.staircase.width AND the MPFR path (af_mp_integrate, GBS, 96
 *   bits, tol 1e-20) on a grid of step 1/256 over [t_lo - 1/16, t_hi +
 *   1/16] has more than the merge's cluster count at every grid time < t_lo
 *   and at most that count at every grid time > t_hi (single linkage at
 *   cos > 0.9999, in double, written here again: the figure's count).
 *   Refuted when the MPFR path contradicts an interval.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "verify.h"
#include "certify.h"
#include "attnflow_mp.h"

#define SC_N 5
#define SC_COS 0.9999
#define SC_DT (1.0 / 256)

#ifdef AF_HAVE_ARB

static const double sc_angles[SC_N] = {0.062, 0.214, 1.819, 2.911, 3.188};

/* Single-linkage clusters at cos > SC_COS of n <= SC_N unit vectors in
 * the plane. */
static int count_clusters(const double *th, int n)
{
  int par[SC_N];
  for (int i = 0; i < n; i++)
    par[i] = i;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (th[2 * i] * th[2 * j] + th[2 * i + 1] * th[2 * j + 1] > SC_COS) {
        int a = i, b = j;
        while (par[a] != a)
          a = par[a];
        while (par[b] != b)
          b = par[b];
        if (a != b)
          par[a] = b;
      }
  int c = 0;
  for (int i = 0; i < n; i++)
    c += par[i] == i;
  return c;
}

typedef struct {
  const double *t;
  int *count;
  size_t k;
  int n;
} sc_ctx;

static int sc_out(double t, mpfr_t *y, void *vctx)
{
  (void) t;
  sc_ctx *c = vctx;
  double th[2 * SC_N];
  for (int j = 0; j < c->n; j++) {
    double a = mpfr_get_d(y[2 * j], MPFR_RNDN),
           b = mpfr_get_d(y[2 * j + 1], MPFR_RNDN), nr = hypot(a, b);
    th[2 * j] = a / nr;
    th[2 * j + 1] = b / nr;
  }
  c->count[c->k++] = count_clusters(th, c->n);
  return 0;
}

static void claim_staircase(af_vresult *r, const af_vctx *c, int arg)
{
  (void) arg;
  const char *ex = getenv("AF_CHECK_EXPENSIVE");
  int quick = c->level == AF_LEVEL_QUICK;
  int whole = !quick && ex && strcmp(ex, "1") == 0;
  static const double pair_angles[2] = {0, 0.5};
  const double *ang = quick ? pair_angles : sc_angles;
  int n = quick ? 2 : SC_N;
  double beta = quick ? 1.0 : 4.0;
  double tmax = quick ? 16 : whole ? 400 : 8;
  double tol = af_v_tol(c, "C.staircase.width");
  double y[3 * SC_N];
  for (int j = 0; j < n; j++) {
    y[2 * j] = cos(ang[j]);
    y[2 * j + 1] = sin(ang[j]);
    y[2 * n + j] = 1;
  }
  af_certify_opts o;
  af_certify_opts_init(&o, AF_POST_LN, (size_t) n, 2, beta);
  o.t_max = tmax;
  o.order = 12; /* smaller steps than the default 23, narrower intervals */
  o.merge_cos = SC_COS;
  af_certify_result res;
  int rc = af_certify(&res, y, &o);
  r->tolerance = tol;
  r->predicted = 0;
  if (rc != AF_OK || res.merge_lo == NULL) {
    af_v_note(r, "error: %s", res.reason);
    r->status = AF_V_ERROR;
    af_certify_result_free(&res);
    return;
  }
  /* the merges reached by t-max: those with a finite t_hi */
  size_t nev = 0;
  double wmax = 0;
  while (nev + 1 < (size_t) n && res.merge_hi[nev] < INFINITY) {
    wmax = fmax(wmax, res.merge_hi[nev] - res.merge_lo[nev]);
    nev++;
  }
  size_t want = quick ? 1 : whole ? SC_N - 1 : 3;
  af_v_note(r, "%s, beta=%g, t<=%g: %lu steps, peak radius %.1g; merge "
            "[lo, hi], MPFR: ", quick ? "angles 0, 0.5" : "C2", beta, tmax,
            res.steps, res.peak_rad);
  /* the MPFR grid over every interval */
  size_t cap = 1, ng = 0;
  for (size_t k = 0; k < nev; k++)
    cap += (size_t) ((res.merge_hi[k] - res.merge_lo[k] + 0.25) / SC_DT) + 4;
  double *g = malloc(cap * sizeof *g);
  int *cnt = malloc(cap * sizeof *cnt);
  size_t *first = malloc((nev + 1) * sizeof *first);
  int err = g == NULL || cnt == NULL || first == NULL, bad = 0;
  if (!err) {
    g[ng++] = 0;
    for (size_t k = 0; k < nev; k++) {
      first[k] = ng;
      double a = fmax(g[ng - 1], ldexp(floor(ldexp(res.merge_lo[k] - 0.0625, 8)), -8));
      for (double t = a; t <= res.merge_hi[k] + 0.0625 && ng < cap; t += SC_DT)
        if (t > g[ng - 1])
          g[ng++] = t;
    }
    first[nev] = ng;
    af_model m;
    af_model_init(&m, (size_t) n, 2, beta, AF_POST_LN);
    size_t N = af_state_size((size_t) n, 2);
    af_mp_work *w = af_mp_work_alloc((size_t) n, 2, 96);
    mpfr_t *my = af_mp_vec_alloc(N, 96);
    if (w && my) {
      af_mp_vec_set_d(my, y, N);
      af_mp_opts mo;
      af_mp_opts_init(&mo);
      mo.method = AF_MP_GBS;
      mo.tol = 1e-20;
      af_mp_stats st;
      sc_ctx sc = {g, cnt, 0, n};
#ifdef _OPENMP
      int nthr = omp_get_max_threads();
      omp_set_num_threads(1);
#endif
      rc = af_mp_integrate(my, g, ng, &m, &mo, w, sc_out, &sc, &st);
#ifdef _OPENMP
      omp_set_num_threads(nthr);
#endif
      err = rc != AF_OK || sc.k != ng;
    } else
      err = 1;
    if (my)
      af_mp_vec_free(my, N);
    af_mp_work_free(w);
  }
  for (size_t k = 0; k < nev && !err; k++) {
    int target = n - 1 - (int) k;
    double tmp = NAN;
    int ok = 1;
    for (size_t i = first[k]; i < first[k + 1]; i++) {
      if (g[i] < res.merge_lo[k] && cnt[i] <= target)
        ok = 0;
      if (g[i] > res.merge_hi[k] && cnt[i] > target)
        ok = 0;
      if (isnan(tmp) && cnt[i] <= target)
        tmp = g[i];
    }
    if (isnan(tmp))
      ok = 0;
    bad |= !ok;
    af_v_note(r, "%d->%d [%.6g, %.6g] MPFR %.6g %s; ", target + 1, target,
              res.merge_lo[k], res.merge_hi[k], tmp, ok ? "in" : "OUT");
  }
  af_v_note(r, "%zu of %zu enclosed, width <= %.3g", nev, want, wmax);
  free(g);
  free(cnt);
  free(first);
  r->measured = wmax;
  r->margin = (tol - wmax) / tol;
  r->status = err ? AF_V_ERROR : bad ? AF_V_REFUTED
              : nev >= want && wmax <= tol ? AF_V_CERTIFIED : AF_V_NOCERT;
  af_certify_result_free(&res);
}

#else /* no Arb */

static void claim_staircase(af_vresult *r, const af_vctx *c, int arg)
{
  (void) c;
  (void) arg;
  af_v_nocert(r, "built without Arb");
}

#endif

const af_claim af_claims_staircase[] = {
  {"C-staircase", "post-ln", AF_V_CERT_EXPECTED, "C.staircase.width", claim_staircase, 0, 0, "certified: the merge times of figure C2's start (Post-LN, n=5, d=2, beta=4; cos > 0.9999) enclosed in intervals of width <= 1 (quick: the mechanism on two tokens, beta=1; full: three; AF_CHECK_EXPENSIVE=1: all four, the last at t ~ 330); the MPFR path merges inside each"},
};
const size_t af_claims_staircase_count = sizeof af_claims_staircase / sizeof af_claims_staircase[0];
