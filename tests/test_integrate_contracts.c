/* test_integrate_contracts.c -- the contracts of af_integrate
 * (src/flow/integrate.c): every error code it can return, provoked on
 * purpose, with y and stats->t_reached as documented; output times and
 * callbacks; drift bounded by a derived multiple of the tolerance; and
 * reproducibility (the same run twice is bit-identical).  The orders of
 * convergence, Mix-LN, the weight sets and vern9 are in test_integrate.c.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"
#include "internal.h"
#include "integrate_util.h"

static int all_finite(const double *a, size_t k)
{
  for (size_t i = 0; i < k; i++)
    if (!isfinite(a[i]))
      return 0;
  return 1;
}

/* ------------------------------------------------------------ contracts */

struct rec {
  size_t calls;
  double t[16];
  double y[16][NT * DT + NT];
  size_t stop_at; /* return code `code` at this call (1-based), 0: never */
  int code;
  size_t k;       /* state size if not that of (NT, DT) */
};

static int record(double t, const double *y, void *ctx)
{
  struct rec *r = ctx;
  if (r->calls < 16) {
    r->t[r->calls] = t;
    memcpy(r->y[r->calls], y, (r->k ? r->k : ssize(NT, DT)) * sizeof *y);
  }
  r->calls++;
  return (r->stop_at && r->calls == r->stop_at) ? r->code : 0;
}

static int integrate_rec(double *y, const double *times, size_t nt, const af_model *m,
                         const af_integ_opts *o, struct rec *r, af_integ_stats *st)
{
  af_work *w = af_work_alloc(m->n, m->d);
  int rc = af_integrate(y, times, nt, m, o, w, record, r, st);
  af_work_free(w);
  return rc;
}

static const af_method ALL_METHODS[] = {AF_METHOD_RK8PD, AF_METHOD_RKF45, AF_METHOD_RK4,
                                        AF_METHOD_RKCK,  AF_METHOD_MSADAMS, AF_METHOD_LAYERS};

/* The callback gets exactly the requested times, repeated times included,
 * and the state at a repeated time is the same. */
START_TEST(test_output_times)
{
  af_method meth = ALL_METHODS[_i];
  size_t k = ssize(NT, DT);
  af_model m;
  model_for(&m, NT, DT, AF_PRE_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0.05, 0);
  const double times[] = {0.0, 0.1, 0.25, 0.25, 0.3, 1.0, 1.0};
  const size_t nt = sizeof times / sizeof times[0];
  double *y0 = new_state(NT, DT), *y = new_state(NT, DT);
  start_state(y0, NT, DT);
  memcpy(y, y0, k * sizeof *y);
  struct rec r = {0};
  af_integ_stats st;
  AFT_OK(integrate_rec(y, times, nt, &m, &o, &r, &st));
  ck_assert_uint_eq(r.calls, nt);
  for (size_t i = 0; i < nt; i++)
    ck_assert_msg(r.t[i] == times[i], "%s: output %zu at %.17g, asked %.17g",
                  af_method_name(meth), i, r.t[i], times[i]);
  ck_assert(memcmp(r.y[0], y0, k * sizeof *y) == 0);
  ck_assert(memcmp(r.y[2], r.y[3], k * sizeof *y) == 0);
  ck_assert(memcmp(r.y[5], r.y[6], k * sizeof *y) == 0);
  ck_assert(memcmp(r.y[6], y, k * sizeof *y) == 0);
  ck_assert(st.t_reached == 1.0);
  ck_assert_uint_gt(st.steps, 0);
  ck_assert_uint_gt(st.nevals, 0);
  /* The states at the output times are those of a run to each time (to
   * the accuracy of the method: 100 rtol for adaptive methods, the
   * method's error at h for fixed ones, bounded here by 1e-3). */
  for (size_t i = 1; i < nt; i++) {
    double *z = new_state(NT, DT);
    AFT_OK(run(z, y0, 0, times[i], &m, &o, NULL));
    double dd = max_diff(z, r.y[i], k);
    ck_assert_msg(dd <= (af_method_fixed(meth) ? 1e-3 : 100 * o.rtol * 2),
                  "%s: state at output %zu differs from a direct run by %.3g",
                  af_method_name(meth), i, dd);
    free(z);
  }
  /* ntimes = 1 at t = 0: one call with the untouched state. */
  memset(&r, 0, sizeof r);
  memcpy(y, y0, k * sizeof *y);
  AFT_OK(integrate_rec(y, times, 1, &m, &o, &r, &st));
  ck_assert_uint_eq(r.calls, 1);
  ck_assert(r.t[0] == 0.0);
  ck_assert(memcmp(y, y0, k * sizeof *y) == 0);
  ck_assert_uint_eq(st.steps, 0);
  ck_assert(st.t_reached == 0.0);
  /* A start later than 0 (LN-Scaling depends on t): the first output is
   * the untouched start, and the result differs from the run from 0. */
  model_for(&m, NT, DT, AF_LN_SCALING, AF_ATTN_SOFTMAX);
  const double late[] = {0.5, 1.0};
  memset(&r, 0, sizeof r);
  memcpy(y, y0, k * sizeof *y);
  AFT_OK(integrate_rec(y, late, 2, &m, &o, &r, &st));
  ck_assert_uint_eq(r.calls, 2);
  ck_assert(memcmp(r.y[0], y0, k * sizeof *y) == 0);
  double *z = new_state(NT, DT);
  AFT_OK(run(z, y0, 0, 0.5, &m, &o, NULL));
  ck_assert(max_diff(z, y, k) > 1e-3);
  free(z);
  free(y0);
  free(y);
}
END_TEST

/* A non-zero callback return stops the run and is passed back. */
START_TEST(test_callback_stop)
{
  af_method meth = ALL_METHODS[_i];
  size_t k = ssize(NT, DT);
  af_model m;
  model_for(&m, NT, DT, AF_POST_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0.05, 0);
  const double times[] = {0.0, 0.2, 0.5, 1.0};
  double *y = new_state(NT, DT);
  start_state(y, NT, DT);
  struct rec r = {0};
  r.stop_at = 2;
  r.code = 4242;
  af_integ_stats st;
  AFT_STATUS(integrate_rec(y, times, 4, &m, &o, &r, &st), 4242);
  ck_assert_uint_eq(r.calls, 2);
  ck_assert(st.t_reached == 0.2);
  ck_assert(memcmp(y, r.y[1], k * sizeof *y) == 0);
  /* Negative codes too (a callback may return anything non-zero). */
  memset(&r, 0, sizeof r);
  r.stop_at = 1;
  r.code = -1;
  AFT_STATUS(integrate_rec(y, times, 4, &m, &o, &r, &st), -1);
  ck_assert_uint_eq(r.calls, 1);
  free(y);
}
END_TEST

START_TEST(test_bad_arguments)
{
  af_model m;
  model_for(&m, NT, DT, AF_POST_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, AF_METHOD_RK8PD, 0.01, 0);
  double *y0 = new_state(NT, DT), *y = new_state(NT, DT);
  size_t k = ssize(NT, DT);
  start_state(y0, NT, DT);
  af_work *w = af_work_alloc(NT, DT);
  af_integ_stats st;
  const double dec[] = {0.0, 0.5, 0.4}, neg[] = {-0.1, 0.5}, nan_[] = {0.0, NAN},
               inf_[] = {0.0, INFINITY}, ok[] = {0.0, 0.5};
  struct {
    const double *t;
    size_t nt;
  } bad[] = {{dec, 3}, {neg, 2}, {nan_, 2}, {inf_, 2}, {ok, 0}, {NULL, 2}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    for (size_t j = 0; j < sizeof ALL_METHODS / sizeof ALL_METHODS[0]; j++) {
      o.method = ALL_METHODS[j];
      memcpy(y, y0, k * sizeof *y);
      int rc = af_integrate(y, bad[i].t, bad[i].nt, &m, &o, w, NULL, NULL, &st);
      ck_assert_msg(rc == AF_EINVAL, "times case %zu, %s: %s", i, af_method_name(o.method),
                    af_status_name(rc));
      ck_assert(memcmp(y, y0, k * sizeof *y) == 0);
    }
  o.method = AF_METHOD_RK8PD;
  /* NULL pointers, unknown method, invalid model, work of another size. */
  AFT_STATUS(af_integrate(NULL, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  AFT_STATUS(af_integrate(y, ok, 2, &m, NULL, w, NULL, NULL, &st), AF_EINVAL);
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, NULL, NULL, NULL, &st), AF_EINVAL);
  AFT_STATUS(af_integrate(y, ok, 2, NULL, &o, w, NULL, NULL, &st), AF_EINVAL);
  o.method = AF_METHOD_COUNT;
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, NULL), AF_EINVAL);
  o.method = AF_METHOD_RK8PD;
  af_model mb = m;
  mb.beta = NAN;
  AFT_STATUS(af_integrate(y, ok, 2, &mb, &o, w, NULL, NULL, &st), AF_ENONFINITE);
  mb = m;
  mb.beta = -1;
  AFT_STATUS(af_integrate(y, ok, 2, &mb, &o, w, NULL, NULL, &st), AF_EINVAL);
  af_work *w2 = af_work_alloc(NT + 1, DT);
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w2, NULL, NULL, &st), AF_EDIM);
  af_work_free(w2);
  af_weights *wt = af_weights_alloc(DT + 1, 1, 1.0);
  mb = m;
  mb.w = wt;
  AFT_STATUS(af_integrate(y, ok, 2, &mb, &o, w, NULL, NULL, &st), AF_EDIM);
  af_weights_free(wt);
  /* Tolerances of adaptive methods; steps of fixed ones. */
  const double badtol[][2] = {{-1e-6, 1e-9}, {1e-6, -1e-9}, {0, 0}, {NAN, 1e-9}, {1e-6, INFINITY}};
  for (size_t i = 0; i < sizeof badtol / sizeof badtol[0]; i++) {
    o.rtol = badtol[i][0];
    o.atol = badtol[i][1];
    AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  }
  o.rtol = 0; /* pure absolute control is valid */
  o.atol = 1e-9;
  AFT_OK(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st));
  memcpy(y, y0, k * sizeof *y);
  const af_method fixed_meths[] = {AF_METHOD_RK4, AF_METHOD_LAYERS};
  const double badh[] = {0.0, -0.1, NAN, INFINITY};
  for (size_t j = 0; j < 2; j++)
    for (size_t i = 0; i < 4; i++) {
      opts(&o, fixed_meths[j], badh[i], 0);
      AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
    }
  opts(&o, AF_METHOD_RK8PD, 0.0, 1); /* fixed rk8pd without a step */
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  opts(&o, AF_METHOD_MSADAMS, 0.01, 1); /* multistep: no fixed mode */
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  /* Layers: output times must be multiples of h. */
  opts(&o, AF_METHOD_LAYERS, 0.1, 0);
  const double offgrid[] = {0.0, 0.55}, offstart[] = {0.05, 0.5};
  AFT_STATUS(af_integrate(y, offgrid, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  AFT_STATUS(af_integrate(y, offstart, 2, &m, &o, w, NULL, NULL, &st), AF_EINVAL);
  ck_assert(memcmp(y, y0, k * sizeof *y) == 0);
  /* ... within rounding: 0.3 / 0.1 = 2.9999999999999996 is layer 3. */
  const double ongrid[] = {0.2, 0.3, 0.7};
  AFT_OK(af_integrate(y, ongrid, 3, &m, &o, w, NULL, NULL, &st));
  ck_assert_uint_eq(st.steps, 5);
  /* Bad start states: a zero token, a NaN. */
  memcpy(y, y0, k * sizeof *y);
  opts(&o, AF_METHOD_RK8PD, 0.01, 0);
  y[DT] = y[DT + 1] = y[DT + 2] = 0;
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_EZERONORM);
  y[DT] = NAN;
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_ENONFINITE);
  memcpy(y, y0, k * sizeof *y);
  y[NT * DT] = INFINITY;
  AFT_STATUS(af_integrate(y, ok, 2, &m, &o, w, NULL, NULL, &st), AF_ENONFINITE);
  af_work_free(w);
  free(y0);
  free(y);
}
END_TEST

/* Peri-LN and nGPT at a zero-attention start (theorems.md S0): tokens (1,0),
 * (-1,0), (-1,0), n = 3, d = 2, beta = ln(2)/2 give A_1 = 0.  The run stops
 * at once with AF_EZEROATTN and y is the initial state. */
START_TEST(test_zero_attention)
{
  const af_scheme_id schemes[] = {AF_PERI_LN, AF_NGPT};
  af_method meth = ALL_METHODS[_i % 6];
  af_model m;
  af_model_init(&m, 3, 2, log(2.0) / 2, schemes[_i / 6]);
  double y0[9] = {1, 0, -1, 0, -1, 0, 1, 1, 1}, y[9];
  memcpy(y, y0, sizeof y);
  af_integ_opts o;
  opts(&o, meth, 0.1, 0);
  af_work *w = af_work_alloc(3, 2);
  af_integ_stats st;
  const double times[] = {0.0, 1.0};
  struct rec r = {0};
  r.k = 9;
  AFT_STATUS(af_integrate(y, times, 2, &m, &o, w, record, &r, &st), AF_EZEROATTN);
  ck_assert_msg(memcmp(y, y0, sizeof y) == 0, "%s: y changed by a failed run",
                af_method_name(meth));
  ck_assert(st.t_reached == 0.0);
  ck_assert_uint_eq(st.steps, 0);
  ck_assert_uint_eq(r.calls, 1); /* the output at t = 0 happened */
  /* Post-LN does not divide by |A|: the same start runs (and the token
   * at A = 0 stays put while the others move). */
  m.scheme = AF_POST_LN;
  AFT_OK(af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st));
  af_work_free(w);
}
END_TEST

/* A right-hand-side failure in the middle of a run.  Pre-LN, beta = 0,
 * n = 3, d = 2: token 1 at e1 with radius 0.01, tokens 2, 3 at -e1.  Then
 * A_j = mean_k theta_k = -e1/3 for every j, all directions are stationary
 * (A parallel to theta), and r_1(t) = 0.01 - t/3 reaches 0 at t = 0.03,
 * where Pre-LN's speed factor s_1 = r_1 stops being positive and the field
 * is undefined.  The run must stop with AF_ESPEED, y must be the state at
 * stats->t_reached (r_1 = 0.01 - t_reached/3: the field is constant, so
 * every Runge-Kutta method reproduces it to rounding), t_reached < 0.03. */
START_TEST(test_rhs_failure_midrun)
{
  const af_method meths[] = {AF_METHOD_RK8PD, AF_METHOD_RKF45, AF_METHOD_RK4, AF_METHOD_RKCK,
                             AF_METHOD_MSADAMS};
  af_method meth = meths[_i];
  af_model m;
  af_model_init(&m, 3, 2, 0.0, AF_PRE_LN);
  double y0[9] = {1, 0, -1, 0, -1, 0, 0.01, 1, 1}, y[9];
  memcpy(y, y0, sizeof y);
  af_integ_opts o;
  opts(&o, meth, 0.004, 0);
  af_work *w = af_work_alloc(3, 2);
  af_integ_stats st;
  const double times[] = {0.0, 1.0};
  int rc = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st);
  fprintf(stderr, "radius through 0, %s: %s at t_reached %.17g, r_1 %.3g\n", af_method_name(meth),
          af_status_name(rc), st.t_reached, y[6]);
  ck_assert_msg(rc == AF_ESPEED, "%s: %s, wanted AF_ESPEED", af_method_name(meth),
                af_status_name(rc));
  ck_assert(all_finite(y, 9));
  ck_assert_msg(st.t_reached >= 0 && st.t_reached < 0.03, "t_reached %.17g", st.t_reached);
  /* Directions untouched (the field's theta part is exactly 0). */
  ck_assert(memcmp(y, y0, 6 * sizeof *y) == 0);
  /* Radii: r_1 = 0.01 - t/3, r_2 = r_3 = 1 + t/3, to rounding over the
   * steps taken (a few eps of 1 per step). */
  double tol = 8.0 * (double) (st.steps + 1) * EPS;
  AFT_CLOSE("r_1 at t_reached", y[6], 0.01 - st.t_reached / 3, 0, tol);
  AFT_CLOSE("r_2 at t_reached", y[7], 1 + st.t_reached / 3, 0, tol);
  ck_assert(y[6] > 0);
  af_work_free(w);
}
END_TEST

/* max_steps: a tiny budget ends the run with AF_EMAXSTEPS before the
 * target, with a finite y that is the state at stats->t_reached. */
START_TEST(test_max_steps)
{
  af_method meth = ALL_METHODS[_i];
  af_model m;
  model_for(&m, NT, DT, AF_PRE_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0.01, 0);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  o.max_steps = 3;
  size_t k = ssize(NT, DT);
  double *y0 = new_state(NT, DT), *y = new_state(NT, DT), *z = new_state(NT, DT);
  start_state(y0, NT, DT);
  memcpy(y, y0, k * sizeof *y);
  af_work *w = af_work_alloc(NT, DT);
  af_integ_stats st;
  const double times[] = {0.0, 1.0};
  int rc = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st);
  ck_assert_msg(rc == AF_EMAXSTEPS, "%s max_steps 3 over 100 steps: %s", af_method_name(meth),
                af_status_name(rc));
  ck_assert_msg(st.t_reached < 1.0, "t_reached %.17g", st.t_reached);
  ck_assert(all_finite(y, k));
  /* y is the state at t_reached: compare with a run to t_reached. */
  if (st.t_reached > 0) {
    o.max_steps = 0;
    AFT_OK(run(z, y0, 0, st.t_reached, &m, &o, NULL));
    double dd = max_diff(y, z, k);
    ck_assert_msg(dd <= (af_method_fixed(meth) ? 1e-6 : 100 * o.rtol), "%s: y is not the state at "
                  "t_reached %.17g (diff %.3g)", af_method_name(meth), st.t_reached, dd);
  } else
    ck_assert(memcmp(y, y0, k * sizeof *y) == 0);
  /* The budget is per output interval: with ten output intervals, a
   * budget equal to the largest count of one interval suffices although
   * it is smaller than the total. */
  double many[11];
  for (int i = 0; i <= 10; i++)
    many[i] = 0.1 * i;
  opts(&o, meth, 0.05, 0);
  o.rtol = 1e-8;
  o.atol = 1e-10;
  unsigned long most = 0, total = 0;
  memcpy(y, y0, k * sizeof *y);
  for (int i = 0; i < 10; i++) {
    AFT_OK(af_integrate(y, many + i, 2, &m, &o, w, NULL, NULL, &st));
    most = st.steps > most ? st.steps : most;
    total += st.steps;
  }
  ck_assert_uint_gt(total, most);
  o.max_steps = most;
  memcpy(y, y0, k * sizeof *y);
  rc = af_integrate(y, many, 11, &m, &o, w, NULL, NULL, &st);
  ck_assert_msg(rc == AF_OK, "%s: budget %lu per interval, %lu steps in all: %s",
                af_method_name(meth), most, total, af_status_name(rc));
  af_work_free(w);
  free(y0);
  free(y);
  free(z);
}
END_TEST

/* A tolerance below what double precision can deliver, far from t = 0:
 * the step size shrinks until t + h == t (at t = 1e6, h < 6e-11) and GSL's
 * evolve gives up (GSL_FAILURE).  The header's code for "step size
 * underflow: no progress" is AF_ENOPROGRESS; the state is finite.  (Near
 * t = 0 the same tolerance does not fail but creeps: t + h != t for tiny
 * h, and steps of h ~ 1e-280 are accepted with a zero error estimate.) */
START_TEST(test_no_progress)
{
  af_model m;
  model_for(&m, NT, DT, AF_POST_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, AF_METHOD_RKF45, 0.01, 0);
  o.rtol = 0;
  o.atol = 1e-300;
  size_t k = ssize(NT, DT);
  double *y0 = new_state(NT, DT), *y = new_state(NT, DT);
  start_state(y0, NT, DT);
  memcpy(y, y0, k * sizeof *y);
  af_work *w = af_work_alloc(NT, DT);
  af_integ_stats st;
  const double times[] = {1e6, 1e6 + 1.0};
  int rc = af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st);
  fprintf(stderr, "atol 1e-300: %s after %lu steps, t_reached %.3g\n", af_status_name(rc),
          st.steps, st.t_reached);
  ck_assert_msg(rc == AF_ENOPROGRESS, "unattainable tolerance returned %s", af_status_name(rc));
  ck_assert(st.t_reached < times[1]);
  ck_assert(all_finite(y, k));
  af_work_free(w);
  free(y0);
  free(y);
}
END_TEST

/* Fixed steps are fixed: a coarse step is taken whatever GSL's error
 * estimate says.  Post-LN's field is bounded (|P A| <= max_k |th_k| = 1),
 * so one step of h = 100 from a random start is finite; it is useless as
 * an approximation, but it is what a fixed-step method promises. */
START_TEST(test_fixed_coarse)
{
  const af_method meths[] = {AF_METHOD_RK8PD, AF_METHOD_RKF45, AF_METHOD_RK4, AF_METHOD_RKCK};
  af_model m;
  model_for(&m, NT, DT, AF_POST_LN, AF_ATTN_SOFTMAX);
  m.beta = 5;
  af_integ_opts o;
  opts(&o, meths[_i], 100.0, 1);
  double *y = new_state(NT, DT);
  start_state(y, NT, DT);
  af_integ_stats st;
  double *z = new_state(NT, DT);
  int rc = run(z, y, 0, 100.0, &m, &o, &st);
  ck_assert_msg(rc == AF_OK, "%s, one fixed step h = 100: %s", af_method_name(meths[_i]),
                af_status_name(rc));
  ck_assert_uint_eq(st.steps, 1);
  ck_assert(all_finite(z, ssize(NT, DT)));
  free(y);
  free(z);
}
END_TEST

/* Drift: |theta_j| is a first integral of the field (attnflow.h), so an
 * adaptive run changes it only through accepted local errors.  Each step's
 * error estimate is held to atol + rtol |y_i| <= atol + rtol per
 * component of a unit vector, so |theta_j| moves by at most
 * sqrt(d) (atol + rtol) per step (the propagated higher-order solution is
 * more accurate than the estimate), plus a few eps of rounding per step:
 * drift <= steps (sqrt(d) (atol + rtol) + 4 d eps). */
START_TEST(test_drift)
{
  const double tols[] = {1e-6, 1e-10};
  af_method meth = ALL_METHODS[_i / 2];
  double rtol = tols[_i % 2];
  if (meth == AF_METHOD_RK4 || meth == AF_METHOD_LAYERS)
    meth = AF_METHOD_RKCK; /* fixed-step methods have no tolerance */
  af_model m;
  model_for(&m, NT, DT, AF_PERI_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0, 0);
  o.rtol = rtol;
  o.atol = rtol / 100;
  double *y = new_state(NT, DT);
  start_state(y, NT, DT);
  af_work *w = af_work_alloc(NT, DT);
  af_integ_stats st;
  const double times[] = {0.0, 5.0};
  AFT_OK(af_integrate(y, times, 2, &m, &o, w, NULL, NULL, &st));
  double obs[AF_OBS_COUNT];
  AFT_OK(af_observe(obs, 5.0, y, 0.999, &m, w));
  double bound = (double) st.steps * (sqrt((double) DT) * (o.atol + o.rtol) + 4 * DT * EPS);
  fprintf(stderr, "drift %-8s rtol %.0e: %.3g after %lu steps, bound %.3g\n", af_method_name(meth),
          rtol, obs[AF_OBS_drift], st.steps, bound);
  ck_assert_msg(obs[AF_OBS_drift] <= bound, "drift %.17g > bound %.17g", obs[AF_OBS_drift], bound);
  /* The observable measures the deviation of |theta_j| from 1. */
  double q = 0;
  for (size_t i = 0; i < DT; i++)
    q += y[i] * y[i];
  ck_assert(obs[AF_OBS_drift] >= fabs(sqrt(q) - 1.0));
  af_work_free(w);
  free(y);
}
END_TEST

/* ------------------------------------------------------------ reproducibility */

START_TEST(test_reproducible)
{
  af_method meth = ALL_METHODS[_i];
  size_t k = ssize(NT, DT);
  af_model m;
  model_for(&m, NT, DT, AF_MIX_LN, AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0.05, 0);
  double *y0 = new_state(NT, DT), *a = new_state(NT, DT), *b = new_state(NT, DT);
  start_state(y0, NT, DT);
  af_integ_stats sa, sb;
  AFT_OK(run(a, y0, 0, T_END, &m, &o, &sa));
  AFT_OK(run(b, y0, 0, T_END, &m, &o, &sb));
  ck_assert_msg(memcmp(a, b, k * sizeof *a) == 0, "%s: two runs differ", af_method_name(meth));
  ck_assert_uint_eq(sa.steps, sb.steps);
  ck_assert_uint_eq(sa.nevals, sb.nevals);
  /* ... and a different start gives a different result (the check can
   * fail). */
  y0[0] *= 1 + 1e-9;
  AFT_OK(run(b, y0, 0, T_END, &m, &o, &sb));
  ck_assert(memcmp(a, b, k * sizeof *a) != 0);
  free(y0);
  free(a);
  free(b);
}
END_TEST

/* h = 0: the first step by Hairer's starting-step rule (attnflow.h,
 * integrate.c), recomputed here from its formula with af_rhs; the run
 * with h = 0 must be the run that starts from that step, bit for bit,
 * with the rule's two right-hand sides more.  msadams keeps 0.01.  Cases
 * alternate Post-LN and Pre-LN (whose state carries the radii) and a
 * tight and a loose tolerance, so the rule's step is far from 0.01. */
static const af_method START_METHODS[] = {AF_METHOD_RK8PD, AF_METHOD_RKF45,
                                          AF_METHOD_RKCK, AF_METHOD_VERN9,
                                          AF_METHOD_MSADAMS};

static double rule_step(const double *y0, const af_model *m,
                        const af_integ_opts *o, double span)
{
  size_t k = ssize(m->n, m->d);
  double *f0 = new_state(m->n, m->d), *y1 = new_state(m->n, m->d),
         *f1 = new_state(m->n, m->d);
  af_work *w = af_work_alloc(m->n, m->d);
  ck_assert_ptr_nonnull(w);
  AFT_OK(af_work_directions(w, y0));
  AFT_OK(af_rhs(f0, 0.0, y0, m, w));
  double dy = 0, df = 0, d2 = 0;
  for (size_t i = 0; i < k; i++) {
    double sc = o->atol + o->rtol * fabs(y0[i]);
    dy += (y0[i] / sc) * (y0[i] / sc);
    df += (f0[i] / sc) * (f0[i] / sc);
  }
  dy = sqrt(dy / (double) k);
  df = sqrt(df / (double) k);
  double ha = (dy <= 1e-5 || df <= 1e-5) ? 1e-6 : 0.01 * dy / df;
  ha = fmin(ha, span);
  for (size_t i = 0; i < k; i++)
    y1[i] = y0[i] + ha * f0[i];
  AFT_OK(af_rhs(f1, ha, y1, m, w));
  for (size_t i = 0; i < k; i++) {
    double sc = o->atol + o->rtol * fabs(y0[i]);
    d2 += ((f1[i] - f0[i]) / sc) * ((f1[i] - f0[i]) / sc);
  }
  d2 = sqrt(d2 / (double) k) / ha;
  double p = af_method_order(o->method);
  double hb = pow(0.01 / fmax(d2, df), 1.0 / p);
  af_work_free(w);
  free(f0);
  free(y1);
  free(f1);
  return fmin(fmin(100 * ha, hb), span);
}

START_TEST(test_start_step)
{
  af_method meth = START_METHODS[_i % 5];
  size_t k = ssize(NT, DT);
  af_model m;
  model_for(&m, NT, DT, (_i / 5) % 2 ? AF_PRE_LN : AF_POST_LN,
            AF_ATTN_SOFTMAX);
  af_integ_opts o;
  opts(&o, meth, 0, 0);
  if (_i >= 10) {
    o.rtol = 1e-5;
    o.atol = 1e-7;
  }
  double *y0 = new_state(NT, DT), *a = new_state(NT, DT),
         *b = new_state(NT, DT);
  start_state(y0, NT, DT);
  af_integ_stats sa, sb;
  AFT_OK(run(a, y0, 0, T_END, &m, &o, &sa));
  double h = meth == AF_METHOD_MSADAMS ? 0.01 : rule_step(y0, &m, &o, T_END);
  ck_assert_msg((h > 0 && fabs(h / 0.01 - 1) > 0.2) || meth == AF_METHOD_MSADAMS,
                "%s: the rule's step %g is too near 0.01 to tell", af_method_name(meth), h);
  o.h = h;
  AFT_OK(run(b, y0, 0, T_END, &m, &o, &sb));
  ck_assert_msg(memcmp(a, b, k * sizeof *a) == 0,
                "%s, case %d: h = 0 is not the run from h = %.17g", af_method_name(meth), _i, h);
  ck_assert_uint_eq(sa.steps, sb.steps);
  ck_assert_uint_eq(sa.nevals, sb.nevals + (meth == AF_METHOD_MSADAMS ? 0 : 2));
  /* ... and the check can fail: a first step 1 % off changes the run. */
  if (meth != AF_METHOD_MSADAMS) {
    o.h = h * 1.01;
    AFT_OK(run(b, y0, 0, T_END, &m, &o, &sb));
    ck_assert(memcmp(a, b, k * sizeof *a) != 0);
  }
  free(y0);
  free(a);
  free(b);
}
END_TEST

static Suite *integrate_contracts_suite(void)
{
  Suite *s = suite_create("integrate_contracts");
  TCase *tk = tcase_create("contracts");
  tcase_set_timeout(tk, 30);
  tcase_add_loop_test(tk, test_output_times, 0, 6);
  tcase_add_loop_test(tk, test_callback_stop, 0, 6);
  tcase_add_test(tk, test_bad_arguments);
  tcase_add_loop_test(tk, test_zero_attention, 0, 12);
  tcase_add_loop_test(tk, test_max_steps, 0, 6);
  tcase_add_loop_test(tk, test_rhs_failure_midrun, 0, 5);
  tcase_add_test(tk, test_no_progress);
  tcase_add_loop_test(tk, test_fixed_coarse, 0, 4);
  tcase_add_loop_test(tk, test_drift, 0, 12);
  tcase_add_loop_test(tk, test_reproducible, 0, 6);
  tcase_add_loop_test(tk, test_start_step, 0, 15);
  suite_add_tcase(s, tk);
  return s;
}

int main(void) { return aft_run(integrate_contracts_suite()); }
