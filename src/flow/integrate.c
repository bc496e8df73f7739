/* integrate.c -- time integration of the attention flow.
 *
 * Continuous methods use GSL's gsl_odeiv2 driver (Galassi et al., GSL
 * Reference Manual, "Ordinary Differential Equations"): rk8pd
 * (Prince-Dormand 8(9)), rkf45, rkck (Cash-Karp 4(5)), rk4 (classical,
 * fixed step), msadams (variable-order Adams, orders 1-12) and vern9
 * (Verner's 9(8) pair, src/flow/rkv98.c, a step type of our own), with the
 * standard control |err_i| <= atol + rtol |y_i|.  The discrete layer maps
 * of theorems.md S7 are the fixed-step method "layers".
 *
 * Directions are not renormalized between steps: the field's theta part
 * is orthogonal to theta, so |theta_j| is a first integral and its
 * deviation from 1 (observable "drift") measures the integrator's error on
 * it; every observable uses theta/|theta|.  This keeps the state untouched
 * by the driver, which matters for the multistep msadams.
 *
 * Breakpoints of a piecewise field (Mix-LN's tau, the boundaries of
 * per-layer weight sets) are hit exactly and the driver is reset there, so
 * no step straddles a jump (theorems.md S0: a straddling step loses the order).
 */
#include <float.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "internal.h"

static const struct {
  const char *name;
  int order;
  int fixed;
} af_methods[AF_METHOD_COUNT] = {
  {"rk8pd", 8, 0}, {"rkf45", 5, 0}, {"rk4", 4, 1},
  {"rkck", 5, 0},  {"msadams", 0, 0}, {"layers", 1, 1},
  {"vern9", 9, 0},
};

AF_DEFINE_NAME(af_method_name, af_method, af_methods, AF_METHOD_COUNT, .name)
AF_DEFINE_LOOKUP(af_method_lookup, af_method, af_methods, AF_METHOD_COUNT,
                 .name)

/* Order of the solution GSL propagates: rk8pd its 8th-order one, rkf45
 * and rkck their 5th-order ones (local extrapolation: weights 16/135 and
 * 37/378; GSL's rkf45_order/rkck_order return 5; measured in
 * tests/test_integrate.c); msadams varies its order (reported as 0). */
int af_method_order(af_method m)
{
  if ((int) m < 0 || m >= AF_METHOD_COUNT)
    return 0;
  return af_methods[m].order;
}

int af_method_fixed(af_method m)
{
  if ((int) m < 0 || m >= AF_METHOD_COUNT)
    return 0;
  return af_methods[m].fixed;
}

void af_integ_opts_init(af_integ_opts *o)
{
  if (o == NULL)
    return;
  memset(o, 0, sizeof *o);
  o->method = AF_METHOD_RK8PD;
  o->rtol = 1e-10;
  o->atol = 1e-12;
  o->h = AF_STEP_DEFAULT;
  o->max_steps = 0;
  o->fixed = 0;
}

/* The stop request of af_interrupt (attnflow.h). */
static volatile sig_atomic_t af_stop_request;

void af_interrupt(int on) { af_stop_request = on != 0; }

int af_interrupted(void) { return af_stop_request != 0; }

int af_integ_opts_check(const af_integ_opts *o)
{
  if (o == NULL || (int) o->method < 0 || o->method >= AF_METHOD_COUNT)
    return AF_EINVAL;
  int fixed = o->fixed || af_methods[o->method].fixed;
  if (!(isfinite(o->h) && o->h >= 0) || (fixed && !(o->h > 0)))
    return AF_EINVAL;
  /* rtol 0 (absolute control alone) is the library's one extension of
   * the command's range. */
  if (!fixed && !((o->rtol == 0 || (o->rtol >= AF_RTOL_MIN
                                    && o->rtol < AF_RTOL_MAX))
                  && o->atol > 0 && o->atol <= AF_ATOL_MAX))
    return AF_EINVAL;
  return AF_OK;
}

static const gsl_odeiv2_step_type *gsl_type(af_method m)
{
  switch (m) {
  case AF_METHOD_RK8PD: return gsl_odeiv2_step_rk8pd;
  case AF_METHOD_RKF45: return gsl_odeiv2_step_rkf45;
  case AF_METHOD_RK4: return gsl_odeiv2_step_rk4;
  case AF_METHOD_RKCK: return gsl_odeiv2_step_rkck;
  case AF_METHOD_MSADAMS: return gsl_odeiv2_step_msadams;
  case AF_METHOD_VERN9: return af_step_vern9;
  default: return NULL;
  }
}

typedef struct {
  const af_model *m;
  af_work *w;
  int status; /* af_status of the last failing right-hand side */
  /* progress display (o->progress): steps = st->steps + e->count - *counted */
  const af_integ_opts *o;
  const af_integ_stats *st;
  const gsl_odeiv2_evolve *e;
  const size_t *counted;
  unsigned long calls;
} gsl_ctx;

static int gsl_field(double t, const double y[], double dydt[], void *params)
{
  gsl_ctx *c = params;
  if (c->o->progress && c->e && (++c->calls & 255) == 0)
    c->o->progress(t, c->st->steps + (c->e->count - *c->counted),
                   c->o->progress_ctx);
  int rc = af_stop_request ? AF_ECANCELED : af_rhs(dydt, t, y, c->m, c->w);
  if (rc != AF_OK) {
    c->status = rc;
    return GSL_EBADFUNC; /* aborts the step; t and y are restored */
  }
  return GSL_SUCCESS;
}

/* First breakpoint of the field in (t0, t1) -- Mix-LN's tau, or a
 * boundary between weight sets -- or t1 if there is none. */
double af_next_breakpoint(const af_model *m, double t0, double t1)
{
  double next = t1;
  if (af_model_switches_at_tau(m) && m->tau > t0 && m->tau < next)
    next = m->tau;
  const af_weights *wt = m->w;
  if (wt != NULL && wt->layers > 1) {
    double l = floor(t0 / wt->layer_dt) + 1;
    while (l * wt->layer_dt <= t0)
      l++;
    if (l < (double) wt->layers && l * wt->layer_dt < next)
      next = l * wt->layer_dt;
  }
  return next;
}

/* Identifies the piece of the field around time tm (a piece's midpoint):
 * the weight set in force and Mix-LN's side of tau. */
static double piece_key(const af_model *m, double tm)
{
  double key = 0;
  if (m->w != NULL && m->w->layers > 1)
    key = fmin(floor(tm / m->w->layer_dt), (double) (m->w->layers - 1));
  return 2 * key + (af_model_switches_at_tau(m) && tm > m->tau);
}

static int map_gsl_status(int gs, const gsl_ctx *c)
{
  switch (gs) {
  case GSL_SUCCESS: return AF_OK;
  case GSL_EBADFUNC: return c->status != AF_OK ? c->status : AF_EGSL;
  case GSL_EMAXITER: return AF_EMAXSTEPS;
  case GSL_ENOPROG: return AF_ENOPROGRESS;
  case GSL_FAILURE: return AF_ENOPROGRESS; /* evolve: t + h == t */
  case GSL_ENOMEM: return AF_ENOMEM;
  default: return AF_EGSL;
  }
}

/* Number of equal steps of size at most h covering span. */
static unsigned long step_count(double span, double h)
{
  double k = ceil(span / h * (1.0 - 4 * DBL_EPSILON));
  return k < 1 ? 1UL : (unsigned long) k;
}

static int check_times(const double *times, size_t ntimes)
{
  if (times == NULL || ntimes == 0)
    return AF_EINVAL;
  for (size_t k = 0; k < ntimes; k++) {
    if (!isfinite(times[k]) || times[k] < 0)
      return AF_EINVAL;
    if (k > 0 && times[k] < times[k - 1])
      return AF_EINVAL;
  }
  return AF_OK;
}

/* Where the results of an integrator (layers or GSL) go: the state at
 * each output time to out, the statistics to st. */
typedef struct {
  const double *times;
  size_t ntimes;
  af_output_fn out;
  void *ctx;
  af_integ_stats *st;
} integ_outputs;

static int integrate_layers(double *y, const af_model *m,
                            const af_integ_opts *o, af_work *w,
                            const integ_outputs *to)
{
  double h = o->h;
  if (!(h > 0) || !isfinite(h))
    return AF_EINVAL;
  /* Output times must be layer boundaries: |t - l h| within a relative
   * 1e-9, far above the rounding of l*h and far below any step. */
  for (size_t k = 0; k < to->ntimes; k++) {
    double l = nearbyint(to->times[k] / h);
    if (fabs(to->times[k] - l * h) > 1e-9 * fmax(1.0, to->times[k]))
      return AF_EINVAL;
  }
  size_t layer = (size_t) nearbyint(to->times[0] / h);
  to->st->t_reached = to->times[0];
  unsigned long nmax = o->max_steps ? o->max_steps : 10000000UL;
  for (size_t k = 0; k < to->ntimes; k++) {
    size_t target = (size_t) nearbyint(to->times[k] / h);
    unsigned long taken = 0;
    while (layer < target) {
      if (taken++ >= nmax)
        return AF_EMAXSTEPS;
      if (af_stop_request)
        return AF_ECANCELED;
      int rc = af_layer_step(y, y, layer, h, m, w);
      if (rc != AF_OK)
        return rc;
      layer++;
      to->st->steps++;
      to->st->t_reached = (double) layer * h;
      if (o->progress)
        o->progress(to->st->t_reached, to->st->steps, o->progress_ctx);
    }
    to->st->t_reached = to->times[k];
    if (to->out) {
      int rc = to->out(to->times[k], y, to->ctx);
      if (rc != 0)
        return rc;
    }
  }
  return AF_OK;
}

/* The first step when the caller gives none (o->h == 0): Hairer's
 * starting-step rule (E. Hairer, S. P. Norsett, G. Wanner, Solving
 * Ordinary Differential Equations I, 2nd ed., Springer 1993, Sec. II.4,
 * "Starting step size"; subroutine HINIT of DOP853), in the weighted
 * norm |v| = sqrt(mean_i (v_i / s_i)^2), s_i = atol + rtol |y0_i|:
 *   h_a = 0.01 |y0| / |f0|                     (1e-6 if either is tiny),
 *   f1  = f(t0 + h_a, y0 + h_a f0),  d2 = |f1 - f0| / h_a,
 *   h_b = (0.01 / max(d2, |f0|))^(1/p)         (p the method's order),
 *   h0  = min(100 h_a, h_b, span).
 * It aims the first step's local error at about 1/100 of the tolerance;
 * the driver's control then grows the step (at most 5x a step).  Two
 * right-hand sides (counted in nevals); a failing one, or msadams (order
 * 0 here: it starts at order 1), leaves AF_STEP_DEFAULT, which then
 * meets the failure.  Measured (docs/performance.md, "The starting-step
 * rule, and five starts"): Post-LN, n = 256, d = 64, vern9 at rtol 5e-8,
 * 373 evaluations against 403 from the former first step 0.01. */
static double start_step(gsl_odeiv2_system *sys, const af_integ_opts *o,
                         const double *y0, double t0, double t1)
{
  size_t dim = sys->dimension;
  double span = t1 - t0, fallback = AF_STEP_DEFAULT;
  int p = af_methods[o->method].order;
  if (!(span > 0) || p <= 0) /* msadams: its own order-1 start */
    return fallback;
  double *f0 = malloc(3 * dim * sizeof(double));
  if (f0 == NULL)
    return fallback;
  double *y1 = f0 + dim, *f1 = y1 + dim;
  double h = fallback;
  if (sys->function(t0, y0, f0, sys->params) != GSL_SUCCESS)
    goto out;
  double dy = 0, df = 0;
  for (size_t i = 0; i < dim; i++) {
    double s = o->atol + o->rtol * fabs(y0[i]);
    dy += (y0[i] / s) * (y0[i] / s);
    df += (f0[i] / s) * (f0[i] / s);
  }
  dy = sqrt(dy / (double) dim);
  df = sqrt(df / (double) dim);
  double ha = (dy <= 1e-5 || df <= 1e-5) ? 1e-6 : 0.01 * dy / df;
  ha = fmin(ha, span);
  for (size_t i = 0; i < dim; i++)
    y1[i] = y0[i] + ha * f0[i];
  if (sys->function(t0 + ha, y1, f1, sys->params) != GSL_SUCCESS)
    goto out;
  double d2 = 0;
  for (size_t i = 0; i < dim; i++) {
    double s = o->atol + o->rtol * fabs(y0[i]);
    d2 += ((f1[i] - f0[i]) / s) * ((f1[i] - f0[i]) / s);
  }
  d2 = sqrt(d2 / (double) dim) / ha;
  double dmax = fmax(d2, df);
  double hb = dmax <= 1e-15 ? fmax(1e-6, ha * 1e-3)
                            : pow(0.01 / dmax, 1.0 / (double) p);
  h = fmin(fmin(100 * ha, hb), span);
  if (!(h > 0) || !isfinite(h))
    h = fallback;
out:
  free(f0);
  return h;
}

static int integrate_gsl(double *y, const af_model *m, const af_integ_opts *o,
                         af_work *w, const integ_outputs *to)
{
  size_t dim = af_state_size(m->n, m->d);
  int fixed = af_method_fixed(o->method) || o->fixed;
  if (fixed && o->method == AF_METHOD_MSADAMS)
    return AF_EINVAL; /* a multistep method has no fixed-step mode here */
  if (fixed && (!(o->h > 0) || !isfinite(o->h)))
    return AF_EINVAL;
  if (!fixed && (!(o->rtol >= 0) || !(o->atol >= 0) || !isfinite(o->rtol)
                 || !isfinite(o->atol) || (o->rtol == 0 && o->atol == 0)))
    return AF_EINVAL;
  size_t counted = 0; /* steps of drv->e->count already in st->steps */
  gsl_ctx c = {m, w, AF_OK, o, to->st, NULL, &counted, 0};
  gsl_odeiv2_system sys = {gsl_field, NULL, dim, &c};
  double h0 = (o->h > 0 && isfinite(o->h))
                  ? o->h
                  : start_step(&sys, o, y, to->times[0],
                               to->times[to->ntimes - 1]);
  /* Fixed steps never consult the control; give it valid tolerances. */
  double atol = fixed ? 1.0 : o->atol, rtol = fixed ? 1.0 : o->rtol;
  gsl_odeiv2_driver *drv =
      gsl_odeiv2_driver_alloc_y_new(&sys, gsl_type(o->method), h0, atol, rtol);
  if (drv == NULL)
    return AF_ENOMEM;
  c.e = drv->e;
  unsigned long nmax = o->max_steps ? o->max_steps : 10000000UL;
  gsl_odeiv2_driver_set_nmax(drv, nmax);
  double t = to->times[0];
  to->st->t_reached = t;
  int rc = AF_OK;
  double key = piece_key(m, t);
  for (size_t k = 0; k < to->ntimes && rc == AF_OK; k++) {
    double tk = to->times[k];
    unsigned long fixed_taken = 0;
    while (t < tk && rc == AF_OK) {
      double stop = af_next_breakpoint(m, t, tk);
      /* (t, stop) lies inside one piece of the field; its midpoint selects
       * Mix-LN's side of tau and the weight set (af_work_piece_time). */
      w->seg_set = 1;
      w->seg_lo = t;
      w->seg_hi = stop;
      double knew = piece_key(m, 0.5 * (t + stop));
      if (knew != key) {
        gsl_odeiv2_driver_reset(drv); /* restart after the jump */
        counted = 0;
        key = knew;
      }
      int gs;
      if (fixed) {
        unsigned long ns = step_count(stop - t, o->h);
        double hh = (stop - t) / (double) ns;
        /* Fixed steps without error control (control NULL): the driver's
         * own fixed-step call would still consult the control and could
         * reject a step.  The step limit applies per output interval. */
        gs = GSL_SUCCESS;
        for (unsigned long i = 0; i < ns && gs == GSL_SUCCESS; i++) {
          if (fixed_taken >= nmax) {
            gs = GSL_EMAXITER;
            break;
          }
          gs = gsl_odeiv2_evolve_apply_fixed_step(drv->e, NULL, drv->s, &sys,
                                                  &t, hh, y);
          fixed_taken++;
        }
        if (gs == GSL_SUCCESS)
          t = stop; /* exact: no accumulated rounding of t */
      } else
        gs = gsl_odeiv2_driver_apply(drv, &t, stop, y);
      to->st->steps += drv->e->count - counted;
      counted = drv->e->count;
      rc = map_gsl_status(gs, &c);
      to->st->t_reached = t;
    }
    if (rc == AF_OK && to->out) {
      w->seg_set = 0;
      int orc = to->out(tk, y, to->ctx);
      if (orc != 0)
        rc = orc;
    }
  }
  w->seg_set = 0;
  gsl_odeiv2_driver_free(drv);
  return rc;
}

int af_integrate(double *y, const double *times, size_t ntimes,
                 const af_model *m, const af_integ_opts *o, af_work *w,
                 af_output_fn out, void *ctx, af_integ_stats *stats)
{
  af_integ_stats local;
  af_integ_stats *st = stats ? stats : &local;
  memset(st, 0, sizeof *st);
  if (y == NULL || o == NULL || w == NULL)
    return AF_EINVAL;
  int rc = af_model_fits(m, w->n, w->d);
  if (rc != AF_OK)
    return rc;
  if (af_integ_opts_check(o) != AF_OK)
    return AF_EINVAL;
  rc = check_times(times, ntimes);
  if (rc != AF_OK)
    return rc;
  /* Reject a bad start before any output: a clear error, not a NaN run. */
  rc = af_work_directions(w, y);
  if (rc != AF_OK)
    return rc;
  unsigned long ev0 = w->nevals;
  integ_outputs to = {times, ntimes, out, ctx, st};
  if (o->method == AF_METHOD_LAYERS)
    rc = integrate_layers(y, m, o, w, &to);
  else {
    af_gsl_quiet_enter(); /* never abort; the caller's handler comes back */
    rc = integrate_gsl(y, m, o, w, &to);
    af_gsl_quiet_leave();
  }
  st->nevals = w->nevals - ev0;
  return rc;
}
