/* claims_ident.h -- measurements behind the I1, I2, I3 and S7 claims of
 * claims_ident.c, exposed so that tests/test_claims_ident.c can show that
 * each claim fails on a wrong input (a claim that cannot fail is a
 * defect). */
#ifndef AF_CLAIMS_IDENT_H
#define AF_CLAIMS_IDENT_H

#include <stddef.h>

#include "attnflow.h"

/* I1: energy along a trajectory, sampled every dt on [0, T]. */
typedef struct {
  double inc;      /* (E(t_k+1) - E(t_k)) / E(t_k) at the tightest interval */
  double slack;    /* its slack (integrator and rounding bound)            */
  double t;        /* t_k of that interval                                 */
  double inc_min;  /* most negative relative increment over all intervals  */
  double s_min;    /* smallest speed factor met at the output times        */
  unsigned long steps_max; /* most integrator steps in one interval        */
  size_t intervals;
  double dt;       /* interval length used                                 */
} af_ci_energy;

/* Integrate y (state of m) from 0 to T in equal intervals of at most dt
 * (T/dt an integer; shortened to at most 1/L, L the Lipschitz bound at
 * t = 0, see claims_ident.c), one af_integrate call per interval so that
 * each interval's step count is known, and compare E = sum exp(beta <th_j, M th_k>) at the
 * ends of each interval.  M = Q^T K of the model's (constant) weights, or
 * the identity.  On return y holds the state at T. */
int af_ci_energy_run(af_ci_energy *res, double *y, const af_model *m,
                     double T, double dt, const af_integ_opts *o);

/* I3: largest absolute difference between the library's observables var
 * and (n-1)(1 - cos_mean)/n and the three forms of af_id_var_forms, at
 * the state y; *bound receives one form's rounding bound. */
int af_ci_var_discrepancy(double *disc, double *bound, const double *y,
                          const af_model *m, af_work *w);

/* S7: largest over tokens of |angle(theta, theta+) - atan2(h|w|,
 * 1 + h<theta, A>)| for the layer map of m (which should be Post-LN) at
 * layer `layer`, A from theory (M2); *bound receives the rounding
 * bound. */
int af_ci_geodesic(double *disc, double *bound, const double *y, size_t layer,
                   double h, const af_model *m, af_work *w);

/* S7: max over tokens of |theta_a - theta_b| and |r_a - r_b| / r_b. */
double af_ci_state_distance(const double *ya, const double *yb, size_t n,
                            size_t d);

#endif
