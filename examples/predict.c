/* predict.c -- theory's predictions from the installed library next to a
 * simulation (worked example; 'make installcheck' builds it with
 * pkg-config against the installed library and runs it).
 *
 *   cc predict.c $(pkg-config --cflags --libs attnflow) -o predict
 *
 * Theorem T4.1: from an orthonormal start (d >= n) with Q = K = V = I
 * every pairwise cosine equals one gamma(t), the solution of a scalar ODE
 * (af_t41_solve).  The n-token simulation's cos_min and cos_max must both
 * follow it.  Both are integrated with error control (rk8pd): the
 * simulation at rtol 1e-12, atol 1e-14, so each step errs by at most
 * about 1e-12 on each component of the unit vectors theta_j, and a
 * cosine, a product of two of them, by 2e-12; the scalar ODE at 1e-14.
 * The flow draws the tokens together, so it does not amplify earlier
 * errors; allowing five steps' worth to accumulate gives TOL = 1e-11
 * (measured: 2.1e-14 over the six schemes).  It also prints the initial
 * velocity (T4.1a) and the Post-LN closed form t(gamma) (T4.1d). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <attnflow.h>
#include <attnflow_theory.h>

#define TOL 1e-11

int main(void)
{
  const size_t n = 4, d = 4;
  const double beta = 2.0, times[] = {0, 0.5, 1, 2, 4};
  const size_t nt = sizeof times / sizeof times[0];
  double gamma[sizeof times / sizeof times[0]], worst = 0;
  int ok = 1;

  for (int s = 0; s < AF_SCHEME_COUNT; s++) {
    af_scheme_id id = (af_scheme_id) s;
    af_model m;
    af_model_init(&m, n, d, beta, id);
    af_t41_params p;
    af_t41_params_init(&p, n, beta, id);
    double v0 = NAN;
    int rc = af_t41_solve(gamma, NULL, NULL, times, nt, &p);
    if (rc == AF_OK)
      rc = af_t41_initial_velocity(&v0, &p);
    double *y = malloc(af_state_size(n, d) * sizeof *y);
    af_work *w = af_work_alloc(n, d);
    af_integ_opts o;
    af_integ_opts_init(&o);
    o.rtol = 1e-12;
    o.atol = 1e-14;
    if (y == NULL || w == NULL)
      rc = AF_ENOMEM;
    if (rc == AF_OK)
      rc = af_init_state(y, NULL, "orthonormal", n, d, 1.0, 1);
    printf("%-10s dgamma/dt(0+) = %.6f\n", af_scheme_get(id)->name, v0);
    for (size_t k = 1; k < nt && rc == AF_OK; k++) {
      double obs[AF_OBS_COUNT];
      rc = af_integrate(y, times + k - 1, 2, &m, &o, w, NULL, NULL, NULL);
      if (rc == AF_OK)
        rc = af_observe(obs, times[k], y, 0.9999, &m, w);
      if (rc != AF_OK)
        break;
      double e = fmax(fabs(obs[AF_OBS_cos_min] - gamma[k]),
                      fabs(obs[AF_OBS_cos_max] - gamma[k]));
      worst = fmax(worst, e);
      printf("  t = %-4g gamma: theory %.12f  simulation %.12f  |diff| %.1e\n",
             times[k], gamma[k], obs[AF_OBS_cos_mean], e);
    }
    af_work_free(w);
    free(y);
    if (rc != AF_OK) {
      fprintf(stderr, "predict: %s: %s\n", af_scheme_get(id)->name,
              af_strerror(rc));
      ok = 0;
    }
  }
  double t_half;
  int rc = af_t41_time_postln(&t_half, 0.5, n, beta);
  printf("post-ln reaches gamma = 0.5 at t = %.12f (closed form)\n", t_half);
  printf("largest |cosine - gamma| over schemes and times: %.1e (bound %.0e)\n",
         worst, TOL);
  return ok && rc == AF_OK && worst <= TOL ? 0 : 1;
}
