/* user_scheme.c -- a normalization scheme of one's own through the public
 * API of libattnflow (worked example; 'make installcheck' builds it with
 * pkg-config against the installed library and runs it).
 *
 *   cc user_scheme.c $(pkg-config --cflags --libs attnflow) -o user_scheme
 *
 * A scheme is its speed factor s_j and radial rate rho_j (attnflow.h):
 *   d theta_j/dt = P_{theta_j} A_j / s_j,   d r_j/dt = rho_j.
 * Two rows are defined here:
 *   "pre-ln-again"  s = r, rho = c: Pre-LN written by the user.  The run
 *                   must equal the library's own Pre-LN bit for bit (the
 *                   callback does the same operations, none at all).
 *   "capped-pre-ln" s = r, rho = c (1 - r / R): Pre-LN whose radii grow
 *                   logistically and never reach R: r = R is a fixed
 *                   point of dr/dt, so a radius started below R stays
 *                   below it (uniqueness of solutions).
 * Exit status 0 if both checks hold, 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <attnflow.h>

#define CAP_R 2.0 /* R of capped-pre-ln */

static void rates_pre_again(double *s, double *rho, double t, double r,
                            double c, double a, double alpha, double tau)
{
  (void) t; (void) a; (void) alpha; (void) tau;
  *s = r;
  *rho = c;
}

static void rates_capped(double *s, double *rho, double t, double r,
                         double c, double a, double alpha, double tau)
{
  (void) t; (void) a; (void) alpha; (void) tau;
  *s = r;
  *rho = c * (1.0 - r / CAP_R);
}

static const af_scheme pre_again = {AF_SCHEME_USER, "pre-ln-again",
                                    "Pre-LN (user)", 0, 1, rates_pre_again,
                                    "r_j", "<theta_j, A_j>"};
static const af_scheme capped = {AF_SCHEME_USER, "capped-pre-ln",
                                 "capped Pre-LN", 0, 1, rates_capped, "r_j",
                                 "<theta_j, A_j> (1 - r_j / R)"};

/* Integrate n tokens from a seeded uniform start with radius r0 to the
 * times, observables of the last time into obs, final state into y. */
static int run(double *obs, double *y, const af_model *m, double r0,
               const double *times, size_t ntimes)
{
  af_integ_opts o;
  af_integ_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  af_work *w = af_work_alloc(m->n, m->d);
  if (w == NULL)
    return AF_ENOMEM;
  int rc = af_init_state(y, NULL, "uniform", m->n, m->d, r0, 7);
  if (rc == AF_OK)
    rc = af_integrate(y, times, ntimes, m, &o, w, NULL, NULL, NULL);
  if (rc == AF_OK)
    rc = af_observe(obs, times[ntimes - 1], y, 0.9999, m, w);
  af_work_free(w);
  return rc;
}

int main(void)
{
  const size_t n = 8, d = 3;
  const double beta = 1.0, times[] = {0, 1, 5, 20};
  const size_t nt = sizeof times / sizeof times[0];
  size_t len = af_state_size(n, d);
  double *y1 = malloc(len * sizeof *y1), *y2 = malloc(len * sizeof *y2);
  double o1[AF_OBS_COUNT], o2[AF_OBS_COUNT];
  int ok = 1;
  if (y1 == NULL || y2 == NULL)
    return 1;

  af_model builtin, user;
  af_model_init(&builtin, n, d, beta, AF_PRE_LN);
  af_model_init(&user, n, d, beta, AF_POST_LN);
  int rc = af_model_set_user_scheme(&user, &pre_again);
  if (rc == AF_OK)
    rc = run(o1, y1, &builtin, 1.0, times, nt);
  if (rc == AF_OK)
    rc = run(o2, y2, &user, 1.0, times, nt);
  if (rc != AF_OK) {
    fprintf(stderr, "user_scheme: %s\n", af_strerror(rc));
    return 1;
  }
  int same = memcmp(y1, y2, len * sizeof *y1) == 0;
  printf("%s vs built-in pre-ln at t = %g: cos_mean %.17g and %.17g, "
         "state %s\n", pre_again.name, times[nt - 1], o2[AF_OBS_cos_mean],
         o1[AF_OBS_cos_mean], same ? "bit-identical" : "DIFFERENT");
  ok &= same;

  af_model_init(&user, n, d, beta, AF_POST_LN);
  rc = af_model_set_user_scheme(&user, &capped);
  if (rc == AF_OK)
    rc = run(o2, y2, &user, 0.5, times, nt);
  if (rc != AF_OK) {
    fprintf(stderr, "user_scheme: %s\n", af_strerror(rc));
    return 1;
  }
  printf("%s (R = %g) at t = %g: r_min %.6f, r_max %.6f, cos_mean %.6f "
         "(built-in pre-ln from r0 = 1: r_max %.6f)\n", capped.name, CAP_R,
         times[nt - 1], o2[AF_OBS_r_min], o2[AF_OBS_r_max],
         o2[AF_OBS_cos_mean], o1[AF_OBS_r_max]);
  ok &= o2[AF_OBS_r_max] < CAP_R && o2[AF_OBS_r_min] > 0;

  /* The layer maps are defined per built-in scheme only. */
  af_work *w = af_work_alloc(n, d);
  rc = w ? af_layer_step(y2, y2, 0, 0.1, &user, w) : AF_ENOMEM;
  printf("layer map of a user scheme: %s\n", af_status_name(rc));
  ok &= rc == AF_EINVAL;
  af_work_free(w);
  free(y1);
  free(y2);
  return ok ? 0 : 1;
}
