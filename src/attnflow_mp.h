/* attnflow_mp.h -- multi-precision (MPFR) references for libattnflow.
 *
 * The vector field is the same source as the double DIRECT kernel
 * (mp_kernel_source.c compiled for mpfr_t), integrated by two independent
 * high-order methods with error control:
 *
 *   mp-gauss  implicit Gauss-Legendre collocation, s stages, order 2s
 *             (Hairer, Norsett, Wanner, Solving ODEs I, §II.7); nodes by
 *             Newton on P_s at working precision; step control by step
 *             doubling (Richardson).
 *   mp-gbs    Gragg-Bulirsch-Stoer extrapolation of the modified midpoint
 *             rule, step sequence n_k = 2k, polynomial extrapolation in
 *             h^2 with exact integer ratios (HNW I, §II.9).
 *
 * MPFR conventions: precision is explicit (af_mp_work_alloc, the state
 * vector's own precision); outputs first; every function returns an
 * af_status; rounding is to nearest throughout, so runs are bit-identical.
 * A state vector is an array of mpfr_t of length af_state_size(n, d), all
 * at the precision of the work.
 */
#ifndef ATTNFLOW_MP_H
#define ATTNFLOW_MP_H

#include <stdio.h>
#include <gmp.h>
#include <mpfr.h>

#include "attnflow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- vectors */

/* len numbers of precision prec, set to 0; NULL if out of memory. */
mpfr_t *af_mp_vec_alloc(size_t len, mpfr_prec_t prec);
void af_mp_vec_free(mpfr_t *v, size_t len);
void af_mp_vec_set_d(mpfr_t *v, const double *x, size_t len);
void af_mp_vec_get_d(double *x, mpfr_t *v, size_t len);
void af_mp_vec_set(mpfr_t *dst, mpfr_t *src, size_t len);
/* max_i |a_i - b_i| rounded up to a double. */
double af_mp_vec_maxdiff(mpfr_t *a, mpfr_t *b, size_t len);
/* r = sum_i (a_i - b_i)^2 at r's precision: each operation rounded to
 * nearest, summed in order from i = 0 from +0; tmp is scratch (of the
 * precision of a). */
void af_mp_vec_dist2(mpfr_t r, mpfr_t *a, mpfr_t *b, size_t len, mpfr_t tmp);

/* ---------------------------------------------------------- field */

typedef struct af_mp_work af_mp_work; /* scratch for n, d, prec; opaque */

af_mp_work *af_mp_work_alloc(size_t n, size_t d, mpfr_prec_t prec);
void af_mp_work_free(af_mp_work *w);
unsigned long af_mp_work_nevals(const af_mp_work *w);
/* Piece of a piecewise field being integrated (as af_work's seg_*):
 * set = 0 selects the piece from t. */
void af_mp_work_set_piece(af_mp_work *w, int set, double lo, double hi);

/* dy = f(t, y) at the work's precision (af_rhs with AF_KERNEL_DIRECT;
 * the model's fault bits are honoured the same way, with the factors
 * 1.05, 1 + 0.05 t, 1.1 as exact rationals).  dy must not alias y. */
int af_mp_rhs(mpfr_t *dy, mpfr_srcptr t, mpfr_t *y, const af_model *m,
              af_mp_work *w);
/* af_attention at the work's precision (any output may be NULL). */
int af_mp_attention(mpfr_t *A, mpfr_t *pt, mpfr_t *c, mpfr_t *a,
                    mpfr_srcptr t, mpfr_t *y, const af_model *m,
                    af_mp_work *w);

/* ---------------------------------------------------------- exact input */

/* The real parameters of the field at working precision, read from the
 * strings the user typed (af_mp_parse) instead of the model's doubles.
 * Value type: af_mp_params_init, then set the fields, af_mp_params_clear.
 * The model's doubles still select the scheme, validate the model and
 * place the breakpoints; they must be these values rounded to double. */
typedef struct {
  mpfr_t beta;        /* inverse temperature, >= 0                        */
  mpfr_t alpha;       /* nGPT alpha(t) = alpha (1 + t)^(-alpha_decay)     */
  mpfr_t alpha_decay; /* >= 0                                             */
  mpfr_t tau;         /* Mix-LN switch time, >= 0                         */
  mpfr_t r0;          /* radius of every token; NaN: not given (the
                         start's own radii)                              */
  mpfr_t layer_dt;    /* time one weight set is in force (--h of Kaiming
                         weights): the set boundaries l h are this value
                         times l, rounded once; NaN: the model's double  */
  mpfr_t *wq, *wk, *wv; /* one weight set read exactly (af_mp_weights_read,
                         d x d each, row-major as af_weights), used in
                         place of the model's single set; NULL: the
                         model's doubles                                 */
  size_t wd;          /* d of wq, wk, wv                                   */
} af_mp_params;

/* Fields at precision prec, set exactly to m's doubles (r0 and layer_dt
 * NaN, no exact weights). */
int af_mp_params_init(af_mp_params *p, const af_model *m, mpfr_prec_t prec);
void af_mp_params_clear(af_mp_params *p);

/* r = the number written in s (decimal, or hex with 0x and a binary
 * exponent p), rounded once to nearest at the precision of r.  Strict:
 * the whole string is the number (no blanks), finite.  AF_EPARSE if not,
 * AF_ENONFINITE for inf or nan. */
int af_mp_parse(mpfr_ptr r, const char *s);

/* Evaluate the field of w with p's values (referenced, not copied: p
 * must outlive its use) in place of the model's beta, alpha,
 * alpha_decay and tau; NULL: the model's doubles again. */
void af_mp_work_set_params(af_mp_work *w, const af_mp_params *p);
const af_mp_params *af_mp_work_params(const af_mp_work *w);

/* Longest line af_mp_init_read accepts, in bytes (newline included). */
#define AF_MP_LINE_MAX 65536

/* Initial state from a token file at the precision of y: n rows of d
 * numbers (separated by commas, blanks or tabs; '#' comment lines and
 * blank lines skipped), each read by af_mp_parse; theta_j = x_j / |x_j|
 * and r_j = |x_j| computed at the precision of y.  Errors set *line:
 * AF_EPARSE (a field that is not a number, an empty field, a NUL byte, a
 * line longer than AF_MP_LINE_MAX), AF_EDIM (a row without d numbers, or
 * not n rows: *line is the line after the last), AF_ENONFINITE,
 * AF_EZERONORM, AF_EIO (*line 0: unreadable). */
int af_mp_init_read(mpfr_t *y, size_t *line, const char *path, size_t n,
                    size_t d);

/* One weight set from a weights file at precision prec into p (wq, wk,
 * wv, replacing any before): 3d rows of d numbers, Q then K then V (the
 * format of af_weights_read), separated by commas, blanks or tabs, '#'
 * lines and blank lines skipped, each number read by af_mp_parse.
 * Errors set *line as af_mp_init_read does (AF_EPARSE, AF_EDIM,
 * AF_ENONFINITE, AF_EIO with *line 0, AF_ENOMEM). */
int af_mp_weights_read(af_mp_params *p, size_t *line, const char *path,
                       size_t d, mpfr_prec_t prec);

/* ---------------------------------------------------------- tableaux */

/* Gauss-Legendre collocation with s stages (1 <= s <= AF_MP_GAUSS_MAX):
 * c (s), b (s), A (s x s row-major), initialized by the caller; computed
 * with 32 guard bits over the precision of c[0] and rounded. */
#define AF_MP_GAUSS_MAX 32
int af_mp_gauss_tableau(mpfr_t *A, mpfr_t *b, mpfr_t *c, unsigned s);

/* GBS step sequence n_k = 2k (k >= 1) and the Aitken-Neville factor of
 * extrapolation column j in row k (1 <= j < k):
 *   T_{k,j+1} = T_{k,j} + (T_{k,j} - T_{k-1,j}) * num / den,
 *   num = n_{k-j}^2, den = n_k^2 - n_{k-j}^2. */
unsigned long af_mp_gbs_seq(unsigned k);
void af_mp_gbs_ratio(unsigned long *num, unsigned long *den, unsigned k,
                     unsigned j);

/* ---------------------------------------------------------- integration */

typedef enum {
  AF_MP_GAUSS = 0,
  AF_MP_GBS,
  AF_MP_TAYLOR, /* Taylor series, coefficients by automatic
                   differentiation, Jorba-Zou order and step (mp_taylor.c) */
  AF_MP_METHOD_COUNT
} af_mp_method;

/* Highest order of mp-taylor (af_mp_opts.order). */
#define AF_MP_TAYLOR_MAX 400

const char *af_mp_method_name(af_mp_method m); /* "mp-gauss", "mp-gbs",
                                                  "mp-taylor" */
int af_mp_method_lookup(af_mp_method *m, const char *name);
/* Why mp-taylor cannot run the spec'd scheme sp (a sentence: scores or a
 * gain, abs, min, max, an ifle that compares anything but t with tau),
 * NULL if it can: its speed and radial rate are then Taylor series of
 * the spec's expressions (theorems.md U1). */
const char *af_mp_taylor_spec_refusal(const af_scheme_spec *sp);

typedef struct {
  unsigned long steps;    /* accepted steps                               */
  unsigned long rejected; /* rejected steps                               */
  unsigned long nevals;   /* right-hand-side evaluations                  */
  double err_est;         /* the run's own global error estimate: the sum
                             of its local error estimates (max norm)      */
  double t_reached;
  unsigned order;         /* order of the method used (mp-gbs with order
                             selection: the starting order, 2K)           */
  double err_global;      /* mp-gauss, mp-gbs: the global error estimate of
                             theorems.md N3g, |g|_inf with g the local
                             error vectors transported by the flow's
                             linearization (in double); within a factor 10
                             of the true error on the cases measured,
                             where err_est, a bound, is up to 180x above.
                             NaN for mp-taylor (its err_est is already a
                             two-sided model, N3t), after a resume (g is
                             not checkpointed) and where the double field
                             fails                                          */
} af_mp_stats;

/* Checkpoints: everything af_mp_integrate needs to continue a run so
 * that the rest of it is bit-identical to the uninterrupted run.  The
 * step sequence depends only on (t, y, h), the piece being integrated
 * and, for mp-gbs, the rows of the next step and the step control's
 * memory of the last accepted step (no stage values are carried between
 * steps), and the counters make the statistics continue too. */
typedef enum {
  AF_MP_CK_STEP = 0, /* after an accepted step                            */
  AF_MP_CK_END,      /* the run completed (next_out = ntimes)             */
  AF_MP_CK_FAIL      /* the run stopped with status; y is the state after
                        the last accepted step                            */
} af_mp_ck_event;

typedef struct {
  af_mp_ck_event event;
  int status;          /* AF_OK, or why the run stopped (AF_MP_CK_FAIL)   */
  /* Identity of the run, checked on resume. */
  af_mp_method method;
  unsigned order;      /* 2s (Gauss), 2K (GBS) or p (Taylor), as resolved */
  double tol;
  size_t len;          /* af_state_size(n, d)                             */
  mpfr_prec_t prec;    /* precision of y                                  */
  /* Where the run is. */
  size_t next_out;     /* index of the first output time not yet passed
                          to the output callback                          */
  double piece_lo, piece_hi; /* piece of the field being integrated       */
  mpfr_ptr t;          /* exact time of y (precision prec); owned by the
                          caller when resuming, by the run in a callback  */
  double h;            /* step the controller tries next                  */
  unsigned columns;    /* mp-gbs: the rows of the table the next step
                          takes (order selection); 0 for the others       */
  double ctl_h, ctl_err; /* mp-gbs: the step control's memory, the last
                          accepted step's length (0: none) and its
                          estimate over its local tolerance; 0 for the
                          others                                          */
  af_mp_stats stats;   /* counters so far                                 */
} af_mp_ckpt;

/* Called with the run's state (y is the caller's state vector); a
 * non-zero return stops the run and is passed back by af_mp_integrate. */
typedef int (*af_mp_checkpoint_fn)(const af_mp_ckpt *ck, mpfr_t *y,
                                   void *ctx);

typedef struct {
  af_mp_method method;
  double tol;      /* requested global error (max norm, relative to
                      max(1, |y|_inf)), > 0, >= 1e-300                     */
  unsigned stages; /* mp-gauss: s (order 2s); 0 = chosen from tol          */
  unsigned columns;/* mp-gbs: rows k of the table (order 2k), fixed; 0 =
                      chosen: K from tol (one row per 3 digits), then
                      order selection by work per unit step in [3, K + 2]
                      (theorems.md N3)                                     */
  double h0;       /* first step; 0 = 1/8 of the first interval           */
  unsigned long max_steps; /* accepted + rejected, per run; 0 = 10^6      */
  /* Checkpointing (off by default): checkpoint is called after every
   * accepted step (the callback decides whether to save, e.g. by wall
   * clock), and once more when the run ends or fails. */
  af_mp_checkpoint_fn checkpoint;
  void *checkpoint_ctx;
  /* Resume (NULL by default): continue the run described by *resume,
   * with y holding its state.  The times, model and options must be those
   * of the interrupted run (method, order, tol, length and precision are
   * checked: AF_EINVAL); the output callback is called only for times
   * from resume->next_out on.  stats continue from resume->stats. */
  const af_mp_ckpt *resume;
  /* mp-taylor: order p (2 < p <= AF_MP_TAYLOR_MAX); 0 = chosen from tol.
   * Its steps are never rejected, and nevals counts one per coefficient
   * order computed (p per step). */
  unsigned order;
} af_mp_opts;

void af_mp_opts_init(af_mp_opts *o); /* mp-gbs, tol 1e-60, auto, no
                                        checkpoint, no resume */

typedef int (*af_mp_output_fn)(double t, mpfr_t *y, void *ctx);
typedef int (*af_mp_output_x_fn)(mpfr_srcptr t, mpfr_t *y, void *ctx);

/* Integrate y (precision of w) from times[0] to each times[k] (finite,
 * >= 0, non-decreasing) and call out(times[k], y) there.  Every step
 * ends on the exact MPFR time: the output times are hit exactly, and so
 * are Mix-LN's tau (the exact value of af_mp_work_set_params, else the
 * model's double) and the weight-set boundaries l h (h the exact
 * layer_dt of af_mp_work_set_params, else the model's double l h), where
 * the method restarts.  Step control works in double (the pieces of the
 * field are found from the times rounded to double).  On failure y holds the state
 * at stats->t_reached. */
int af_mp_integrate_x(mpfr_t *y, mpfr_t *times, size_t ntimes,
                      const af_model *m, const af_mp_opts *o, af_mp_work *w,
                      af_mp_output_x_fn out, void *ctx, af_mp_stats *stats);

/* af_mp_integrate_x with double times (exact MPFR numbers at the
 * precision of y) and a callback given the time as the double times[k]. */
int af_mp_integrate(mpfr_t *y, const double *times, size_t ntimes,
                    const af_model *m, const af_mp_opts *o, af_mp_work *w,
                    af_mp_output_fn out, void *ctx, af_mp_stats *stats);

/* ---------------------------------------------------------- observables */

/* The observables of af_observe (AF_OBS_LIST) at the precision of obs,
 * which must hold AF_OBS_COUNT numbers (all at one precision, that of y
 * and w).  Same definitions as af_observe: pair quantities from
 * g_ij = |th_i - th_j|^2 / 2 (th = theta/|theta|), the centred variance,
 * energy e^beta sum exp(-beta g) / n^2; speed_mean is the mean of
 * |d theta_j/dt| / |theta_j| = |P A_j| / s_j from af_mp_rhs; clusters
 * compares 1 - g_ij with cluster_cos at working precision.  Every number
 * is computed in MPFR (none passes through a double). */
int af_mp_observe(mpfr_t *obs, mpfr_srcptr t, mpfr_t *y, double cluster_cos,
                  const af_model *m, af_mp_work *w);

/* ---------------------------------------------------------- reference files */

/* Provenance of a reference file (strings may be NULL: written "-"). */
typedef struct {
  const char *generator, *commit, *method, *params;
  unsigned long seed;
  double tol, err_est;
} af_mp_ref_info;

/* Write one state (t, y of length len at precision prec) in exact hex
 * (mpfr_get_str base 16) with a '#' provenance header.  f open for
 * writing. */
int af_mp_ref_write(FILE *f, const af_mp_ref_info *info, mpfr_srcptr t,
                    mpfr_t *y, size_t len);
/* Read a file written by af_mp_ref_write into t and y (len values, set
 * exactly: AF_EPARSE if a value needs more than the precision of y[0]);
 * *line receives the line of a parse error (0 otherwise). */
int af_mp_ref_read(mpfr_t t, mpfr_t *y, size_t len, size_t *line, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* ATTNFLOW_MP_H */
