/* attnflow_limits.h -- the ranges every entry point accepts: one source
 * for the library (which returns AF_EINVAL outside them), the attnflow
 * command (which says so in its usage errors) and the Python package
 * (which reads them at import through af_limit_get and raises
 * ValueError naming the limit).
 *
 * Origins:
 *   rtol  [DBL_EPSILON, 1): below the rounding unit the step size
 *         shrinks without end; 1 or more asks for no accuracy at all.
 *   atol  (0, 1]: above 1 it exceeds every coordinate of a direction.
 *   cluster_cos [-1, 1]: a cosine.
 *   precision [AF_PREC_MIN, AF_PREC_MAX] bits for the library (MPFR's
 *         own minimum is 1; 2 keeps a sign and a bit of mantissa), from
 *         53 (a double) for the command; the maximum bounds the memory of
 *         one number (12.5 kB) and a step's cost.
 *   threads [0, AF_THREADS_MAX]: 0 is the OpenMP default; libgomp fails
 *         to create 10^5 threads.
 *   sweep runs: at most AF_SWEEP_MAX_RUNS (an int's range: run indices
 *         travel as MPI ints); by default at most
 *         AF_SWEEP_DEFAULT_MAX_RUNS (10^6 runs; at a hundred values a
 *         run, 0.8 GB of rows on rank 0), which --max-runs raises.
 *   mp tol [1e-300, 1]: the MPFR integrator's global tolerance.
 */
#ifndef ATTNFLOW_LIMITS_H
#define ATTNFLOW_LIMITS_H

#include <float.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AF_RTOL_MIN DBL_EPSILON     /* inclusive */
#define AF_RTOL_MAX 1.0             /* exclusive */
#define AF_ATOL_MAX 1.0             /* (0, AF_ATOL_MAX] */
#define AF_COS_MIN (-1.0)
#define AF_COS_MAX 1.0
#define AF_PREC_MIN 2               /* library; the command starts at 53 */
#define AF_PREC_CLI_MIN 53
#define AF_PREC_MAX 100000
#define AF_PREC_GUARD 1024          /* af_mp_vec_alloc: working precisions
                                       up to AF_PREC_MAX + this (guard bits
                                       of the tableaux, references) */
#define AF_THREADS_MAX 4096
#define AF_SWEEP_MAX_RUNS 2147483647UL
#define AF_SWEEP_DEFAULT_MAX_RUNS 1000000UL /* sweep --max-runs */
#define AF_MP_TOL_MIN 1e-300
#define AF_MP_TOL_MAX 1.0           /* inclusive */

/* *v = the limit called name ("rtol_min", "rtol_max", "atol_max",
 * "cluster_cos_min", "cluster_cos_max", "precision_min",
 * "precision_cli_min", "precision_max", "threads_max", "sweep_max_runs",
 * "mp_tol_min", "mp_tol_max", "sweep_default_max_runs"); AF_EINVAL if there is none. */
int af_limit_get(double *v, const char *name);
/* Name of limit k (0, 1, ...), NULL past the last. */
const char *af_limit_name(size_t k);

#ifdef __cplusplus
}
#endif
#endif /* ATTNFLOW_LIMITS_H */
