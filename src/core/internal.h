/* internal.h -- declarations shared by the library's sources (and by the
 * command built beside it: checked sizes, checksums, bounded lines). */
#ifndef AF_INTERNAL_H
#define AF_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "attnflow.h"

/* Scratch of af_work: every buffer sized for (n, d) once, so a
 * right-hand-side evaluation never allocates. */
struct af_work {
  size_t n, d;
  af_kernel kernel;
  unsigned long nevals;
  double *th;   /* n x d  unit directions                          */
  double *T;    /* n x d  th M (M = Q^T K), or th V^T               */
  double *G;    /* n x d  V th rows                                 */
  double *S;    /* n x n  scores, then weights (NULL: tiled only)    */
  double *A;    /* n x d  attention outputs                          */
  double *P;    /* n x d  tangent parts P_th A                       */
  double *c;    /* n      <th_j, A_j>                                */
  double *a;    /* n      |A_j|                                      */
  double *Z;    /* n      softmax normalizers (max subtracted)       */
  double *amag; /* n      sum_k w_jk |V th_k| (rounding scale of A_j) */
  double *ytmp; /* state-sized scratch for the layer maps and rhs    */
  double *dtmp; /* d x d  scratch (M = Q^T K)                        */
  double *gn;   /* n      |V th_k|                                   */
  double *xn;   /* n      |x_j| of the state (af_work_directions)     */
  double *Gx;   /* n x (d+2)  [V th_k, 1, |V th_k|]: BLAS value rows   */
  double *Ax;   /* n x (d+2)  E Gx: sums, normalizer, |A_j| scale      */
  /* AF_KERNEL_DIRECT: the kernel template's double instance over the
   * arrays above (mp_kernel.h, af_work_bind_generic_d). */
  struct af_work_generic_d *direct;
  /* AF_KERNEL_TILED (attention_tiled.c): tile sizes (rows of a block,
   * keys of a tile) and its scratch, allocated at its first evaluation;
   * S is NULL while no kernel that needs it was chosen. */
  size_t tile_rows, tile_keys;
  double *tl_buf;     /* packed queries, keys, values, |V th_k|        */
  size_t tl_buf_len;  /* doubles of tl_buf                             */
  double *tl_slots;   /* per-thread scratch                            */
  size_t tl_nslots, tl_slot_len;
  /* Piece of a piecewise-defined field being integrated (set by
   * af_integrate): Mix-LN's side of tau and the weight set in force are
   * chosen from the piece, not from t, so a stage evaluated exactly at a
   * breakpoint uses the piece's own definition. */
  int seg_set;
  double seg_lo, seg_hi;
  /* Several heads (attention_heads.c): the sums of A, P (n d each), c
   * and amag (n each), allocated at the first evaluation with heads. */
  double *hsum;
};

/* sum_i x[i] y[i] as four partial sums combined as (s0 + s1) + (s2 + s3):
 * a fixed order (deterministic), the same first-order error bound as one
 * running sum, and four independent add chains instead of one
 * latency-bound chain.  The one dot product of both double kernels
 * (attention*.c, and the template's double instance, mp_kernel_double.c),
 * so that their sums agree bit for bit. */
static inline __attribute__((always_inline)) double
af_dot(const double *x, const double *y, size_t d)
{
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < d; i++)
    s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/* Tile sizes of AF_KERNEL_TILED (rows of a block, a multiple of 4; keys
 * of a tile, a multiple of 8); 0 keeps a size.  AF_EINVAL otherwise.  For
 * tests and claims: the results change only by rounding
 * (attention_tiled.c). */
int af_work_set_tiles(af_work *w, size_t rows, size_t keys);

/* Time that selects the piece of the field (weight set, Mix-LN side). */
double af_work_piece_time(const af_work *w, double t);

/* sc->rates for rows j < n: s[j], rho[j] from t, r[j], c[j], a[j], alpha
 * and tau, the same values as one call per row (scheme.c). */
void af_scheme_rates_rows(const af_scheme *sc, double *s, double *rho,
                          size_t n, double t, const double *r,
                          const double *c, const double *a, double alpha,
                          double tau);

/* Weight set in force at time t (NULL pointers mean identity). */
void af_weights_at(const double **Q, const double **K, const double **V,
                   const af_weights *w, double t);
/* Head h (< af_weights_heads(w)) of the set in force at t; af_weights_at
 * is head 0, which only a one-head caller may take for the whole set. */
void af_weights_head_at(const double **Q, const double **K, const double **V,
                        const af_weights *w, double t, size_t h);

/* Normalize the directions of y into w->th and their norms into w->xn;
 * AF_EZERONORM/AF_ENONFINITE. */
int af_work_directions(af_work *w, const double *y);

/* Fill w->A, w->P, w->c, w->a, w->amag for the directions of y at t, row
 * by row, as af_attention does (attention.c, for the layer maps). */
int af_work_attention(af_work *w, double t, const double *y,
                      const af_model *m);
/* Whether |A_j| of the last fill is indistinguishable from zero (within
 * the rounding error bound of its own computation; attention.c). */
int af_work_attention_vanishes(const af_work *w, size_t j);

/* y[i] = exp(x[i]) for i < len (y may equal x); plain double arithmetic,
 * vectorizable, the same bits on every machine (see attention_exp.c). */
void af_exp_block(double *y, const double *x, size_t len);
/* Vector width of af_exp_block and of the kernel's small path: force = 0
 * (2 lanes, SSE2), 1 (4 lanes, AVX2), 2 (8 lanes, AVX-512F) or -1 (keep;
 * on first use, the widest the CPU runs).  A width the CPU or the build
 * lacks falls back to the widest available.  Returns the one in use.  All
 * give the same bits. */
int af_exp_block_isa(int force);

/* af_model_validate(m), then AF_EDIM unless m is of n tokens in
 * dimension d (those of a work space; model.c). */
int af_model_fits(const af_model *m, size_t n, size_t d);

/* First breakpoint of the field in (t0, t1) -- Mix-LN's tau, or a
 * boundary between weight sets -- or t1 if there is none (integrate.c;
 * used by the double and the MPFR integrators). */
double af_next_breakpoint(const af_model *m, double t0, double t1);
/* 1 if the field of m switches at m->tau: Mix-LN, or a spec'd scheme
 * whose expressions read tau (scheme_spec.c). */
int af_model_switches_at_tau(const af_model *m);

/* Verner's efficient 9(8) Runge-Kutta pair as a GSL step type (rkv98.c;
 * method "vern9"). */
#include <gsl/gsl_odeiv2.h>
extern const gsl_odeiv2_step_type *af_step_vern9;

/* The CBLAS functions the kernel calls, bound at the first call of
 * af_blas() (blas.c): the library configure chose, loaded then, or GSL's
 * reference CBLAS.  Thread-safe. */
#include <gsl/gsl_cblas.h>
typedef struct {
  void (*dgemm)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE,
                int, int, int, double, const double *, int, const double *,
                int, double, double *, int);
  void (*dsymm)(enum CBLAS_ORDER, enum CBLAS_SIDE, enum CBLAS_UPLO, int, int,
                double, const double *, int, const double *, int, double,
                double *, int);
  void (*dsyrk)(enum CBLAS_ORDER, enum CBLAS_UPLO, enum CBLAS_TRANSPOSE, int,
                int, double, const double *, int, double, double *, int);
  void (*dtrmm)(enum CBLAS_ORDER, enum CBLAS_SIDE, enum CBLAS_UPLO,
                enum CBLAS_TRANSPOSE, enum CBLAS_DIAG, int, int, double,
                const double *, int, double *, int);
  void (*dgemv)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, int, int, double,
                const double *, int, const double *, int, double, double *,
                int);
  const char *name; /* the library file, or GSL's CBLAS */
} af_blas_fns;
const af_blas_fns *af_blas(void);

/* The step of af_integ_opts_init: fixed-step methods, the time of a
 * Kaiming weight set when opts.h is 0 (sweep.c), and the first step the
 * starting-step rule falls back to (integrate.c). */
#define AF_STEP_DEFAULT 0.01

/* ------------------------------------------------------------ util.c */

/* Checked size arithmetic: *r = a * b (a + b) and 1, or 0 if the result
 * does not fit in size_t (*r untouched).  Every size computed from user
 * input goes through these. */
int af_size_mul(size_t *r, size_t a, size_t b);
int af_size_add(size_t *r, size_t a, size_t b);
/* The name tables (schemes, methods, observables, MPFR methods) have one
 * lookup: the index k < count of the entry whose name is name, or -1 if
 * none is (or name is NULL).  names points to the first entry's name,
 * the next ones stride bytes apart: an array of strings, or the name
 * member of the first row of a table of structs. */
int af_name_index(const char *name, const char *const *names, size_t count,
                  size_t stride);
/* Define the name and lookup functions of an enumeration with a name
 * table: const char *NAME_FN(TYPE v), the name of v (NULL out of range),
 * and int LOOKUP_FN(TYPE *v, const char *name), *v the value named name
 * (AF_EINVAL if there is none).  The table has COUNT rows indexed by the
 * value; MEMBER selects a row's name (.name), empty for an array of
 * strings. */
#define AF_DEFINE_NAME(name_fn, type, table, count, member)                   \
  const char *name_fn(type v)                                                 \
  {                                                                           \
    if ((int) v < 0 || v >= (count))                                          \
      return NULL;                                                            \
    return (table)[v] member;                                                 \
  }
#define AF_DEFINE_LOOKUP(lookup_fn, type, table, count, member)               \
  int lookup_fn(type *v, const char *name)                                    \
  {                                                                           \
    int k = v == NULL ? -1                                                    \
                      : af_name_index(name, &(table)[0] member, (count),      \
                                      sizeof (table)[0]);                     \
    if (k < 0)                                                                \
      return AF_EINVAL;                                                       \
    *v = (type) k;                                                            \
    return AF_OK;                                                             \
  }
/* Bytes of physical memory (sysconf), 0 if unknown. */
size_t af_mem_physical(void);

/* FNV-1a, 64 bits: h updated with len bytes of p.  Start from
 * AF_FNV1A64_INIT.  Each step is a bijection of the state, so changing
 * any one byte of a text always changes its hash. */
#include <stdint.h>
#define AF_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
uint64_t af_fnv1a64(uint64_t h, const void *p, size_t len);
/* Run writer into memory, then write its text to f followed by the line
 * prefix + 16 lowercase hex digits of the text's FNV-1a hash. */
int af_write_checksummed(FILE *f, af_writer_fn writer, void *ctx,
                         const char *prefix);
/* line = prefix + 16 hex digits: 1 and *h; -1 if it starts with prefix
 * but the digits are malformed; 0 if it does not start with prefix. */
int af_checksum_line(uint64_t *h, const char *line, const char *prefix);

/* af_read_line: one line of f into *buf (realloc'ed; at most max bytes
 * before the newline, which is removed; *nl = 1 if there was one). */
enum {
  AF_LINE_OK = 0, /* a line (possibly the last, unterminated: *nl = 0) */
  AF_LINE_EOF,    /* end of file, nothing read                          */
  AF_LINE_NUL,    /* a NUL byte (reading stopped there)                 */
  AF_LINE_LONG,   /* more than max bytes (reading stopped there)        */
  AF_LINE_ERR,    /* read error (errno)                                 */
  AF_LINE_NOMEM
};
int af_read_line(char **buf, size_t *cap, size_t *len, int *nl, size_t max,
                 FILE *f);
/* fopen(path, "r"), refusing a directory (AF_EIO with errno EISDIR). */
int af_open_regular(FILE **f, const char *path);
/* af_open_regular for a data file read with its af_read_info: info->what
 * = "is a directory" when path is one. */
int af_open_data(FILE **f, const char *path, af_read_info *info);

/* What an output path names (af_write_target):
 *   AF_TARGET_NEW      nothing yet: a file is created;
 *   AF_TARGET_REGULAR  a regular file, replaced atomically;
 *   AF_TARGET_FD       one of our descriptors ("-", /dev/stderr,
 *                      /dev/fd/N, /proc/self/fd/N): written through it;
 *   AF_TARGET_FOREIGN  a descriptor of another process: refused;
 *   AF_TARGET_SPECIAL  a device, FIFO, terminal or socket: written in place;
 *   AF_TARGET_DIR      a directory: refused;
 *   AF_TARGET_BAD      NULL or empty. */
enum {
  AF_TARGET_NEW = 0,
  AF_TARGET_REGULAR,
  AF_TARGET_FD,
  AF_TARGET_FOREIGN,
  AF_TARGET_SPECIAL,
  AF_TARGET_DIR,
  AF_TARGET_BAD
};
int af_write_target(const char *path);
/* 1 if path, its symbolic links followed one at a time, reaches
 * /proc/PID/fd/N (so /dev/fd/N, /dev/stderr, /proc/self/fd/N): *pid and
 * *fd set.  0 if it names no descriptor. */
int af_path_descriptor(const char *path, long *pid, int *fd);
/* A temporary file of af_write_atomic this many seconds old and unlocked
 * is a killed writer's leftover (util.c). */
#define AF_TMP_STALE_S 2

/* Remove the temporary files af_write_atomic is writing.  Async-signal-
 * safe: for a handler of SIGINT, SIGTERM, SIGHUP. */
void af_tmp_cleanup(void);

/* Around the library's own GSL calls (src/core/gsl_quiet.c): enter turns GSL's
 * error handler off, the matching leave restores the caller's handler
 * (nested and concurrent sections share one save). */
void af_gsl_quiet_enter(void);
void af_gsl_quiet_leave(void);

/* The pair observables of af_observe: over i < j of g_ij = |th_i - th_j|^2
 * / 2, their sum, minimum (inf for n = 1) and maximum, the energy sum
 * n + 2 sum exp(-beta g_ij), and the single-linkage clusters at
 * 1 - g_ij > cluster_cos.  obs_pairs_serial is observe.c's loop (one
 * thread, libm's exp); obs_pairs_tiled (observe_pairs.c) the same in
 * tiles, threaded, O(n d) memory, the same g_ij bits and clusters, the
 * sums in another order; af_observe takes it from n > AF_OBS_TILED_MIN. */
typedef struct {
  double gsum, gmin, gmax, esum;
  size_t clusters;
} af_obs_pairs;
#define AF_OBS_TILED_MIN 4096
int af_obs_pairs_serial(af_obs_pairs *out, const double *th, size_t n,
                        size_t d, double beta, double cluster_cos);
int af_obs_pairs_tiled(af_obs_pairs *out, const double *th, size_t n,
                       size_t d, double beta, double cluster_cos);
/* Doubles of scratch obs_pairs_tiled takes at (n, d) with nslots threads
 * (0 if a size overflows). */
size_t af_obs_pairs_doubles(size_t n, size_t d, size_t nslots);

#endif
