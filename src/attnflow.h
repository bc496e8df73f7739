/* attnflow.h -- public interface of libattnflow.
 *
 * Tokens x_j = r_j theta_j in R^d moved by self-attention, under the six
 * normalization schemes of Karagodin, Ge, Polyanskiy, Rigollet,
 * "Normalization in Attention Dynamics" (arXiv:2510.22026), theorems.md S0:
 *
 *     d theta_j/dt = P_{theta_j} A_j / s_j(t),     d r_j/dt = rho_j(t),
 *
 * with A_j the attention output (theorems.md M2), P the tangent projection (M3),
 * s_j the scheme's speed factor and rho_j its radial rate.  The library
 * simulates; it knows nothing of theorems (those live in theory/).
 *
 * Conventions (house style): prefix af_, outputs first, then inputs, then the
 * context; every function that can fail returns an af_status; nothing in
 * the library prints or exits.
 */
#ifndef ATTNFLOW_H
#define ATTNFLOW_H

#include <stddef.h>
#include <stdio.h>

#include "attnflow_limits.h" /* the ranges of every entry point */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Errors: one list generates the enum and the messages (X-macro).    */
/* ------------------------------------------------------------------ */

#define AF_STATUS_LIST(X)                                                      \
  X(AF_OK, "success")                                                          \
  X(AF_EINVAL, "invalid argument")                                             \
  X(AF_ENOMEM, "out of memory")                                                \
  X(AF_ENONFINITE, "non-finite value (NaN or infinity)")                       \
  X(AF_EZERONORM, "token of norm zero has no direction")                       \
  X(AF_EZEROATTN, "attention vector of norm zero: Peri-LN and nGPT are singular here") \
  X(AF_EDIM, "dimension mismatch")                                             \
  X(AF_EPARSE, "malformed input")                                              \
  X(AF_EIO, "input/output error")                                              \
  X(AF_EMAXSTEPS, "integrator exceeded the maximum number of steps")           \
  X(AF_ENOPROGRESS, "integrator step size underflow: no progress")             \
  X(AF_EGSL, "integrator failure")                                             \
  X(AF_EOVERFLOW, "overflow in exp: beta too large for unnormalized attention") \
  X(AF_ESPEED, "speed factor not positive: a token's radius reached zero") \
  X(AF_ECANCELED, "stopped on request (af_interrupt)")

typedef enum {
#define AF_X_ENUM(code, msg) code,
  AF_STATUS_LIST(AF_X_ENUM)
#undef AF_X_ENUM
  AF_STATUS_COUNT
} af_status;

/* Human-readable message of a status code (never NULL). */
const char *af_strerror(int status);
/* Symbolic name of a status code ("AF_EINVAL"), never NULL. */
const char *af_status_name(int status);

/* How errors reach the caller: every function returns an af_status code
 * (or says in its contract how it reports one); the library never prints,
 * exits or aborts.  GSL's error handler: around its own GSL calls
 * (af_integrate, the T4.1 predictions of attnflow_theory.h) the library
 * turns GSL's process-wide handler off, reads GSL's status codes and maps
 * them to AF_E* codes, then restores the handler the caller had set
 * (gsl_set_error_handler), so a host program's handler keeps being called
 * for the host's own GSL errors, and never for the library's.  The
 * handler is one global of GSL: while a call of the library is running
 * (in any thread), a GSL error raised by another thread of the host is
 * not reported to the host's handler.  Callbacks the library calls (output,
 * progress, user schemes) run with the handler off. */

/* Version string of the library, e.g. "0.1.0". */
const char *af_version(void);
/* Commit the library was built from ("unknown" outside a checkout). */
const char *af_commit(void);
/* The CBLAS library of the level-3 products: a file name such as
 * "libopenblas.so.0 (core Haswell)" (OpenBLAS: with the kernel set it
 * chose, openblas_get_corename), or GSL's CBLAS; NULL while this process has computed
 * no product with it (small cases are computed in-house).  It is loaded at
 * the first product; the environment variable AF_BLAS, read then, names
 * another library to load ("" = GSL's CBLAS). */
const char *af_blas_library(void);

/* ------------------------------------------------------------------ */
/* Schemes (theorems.md S0-S7) as rows of one table.                         */
/* ------------------------------------------------------------------ */

typedef enum {
  AF_POST_LN = 0, /* S1: s = 1,            dr/dt = 0             */
  AF_PRE_LN,      /* S2: s = r,            dr/dt = <theta, A>    */
  AF_MIX_LN,      /* S3: Post-LN for t <= tau, Pre-LN after      */
  AF_PERI_LN,     /* S4: s = r |A|,        dr/dt = <theta,A>/|A| */
  AF_NGPT,        /* S5: s = |A| / alpha,  dr/dt = 0             */
  AF_LN_SCALING,  /* S6: s = sqrt(t + 1),  dr/dt = 0             */
  AF_SCHEME_COUNT
} af_scheme_id;

/* Attention variants (theorems.md M2, M5). */
typedef enum {
  AF_ATTN_SOFTMAX = 0, /* w_jk = exp(beta <Q th_j, K th_k>) / Z_j            */
  AF_ATTN_USA,         /* unnormalized: w_jk = exp(beta <th_j, th_k>) / n     */
  AF_ATTN_CAUSAL,      /* softmax restricted to k <= j                        */
  AF_ATTN_COUNT
} af_attn_kind;

/* Per-token rates of a scheme at one instant.
 * Inputs: t, the token's radius r, c = <theta, A>, a = |A|, alpha(t).
 * Outputs: speed factor s > 0 and radial rate rho. */
typedef void (*af_rates_fn)(double *s, double *rho, double t, double r,
                            double c, double a, double alpha, double tau);

typedef struct {
  af_scheme_id id;
  const char *name;        /* command-line name: "post-ln", ...           */
  const char *title;       /* "Post-LN", ...                              */
  int needs_anorm;         /* divides by |A_j| (Peri-LN, nGPT)            */
  int moves_radius;        /* dr/dt may be non-zero                        */
  af_rates_fn rates;       /* speed factor and radial rate                 */
  const char *speed_text;  /* s_j(t) as printed in theorems.md, S1-S6      */
  const char *radial_text; /* dr_j/dt as printed in theorems.md, S1-S6     */
} af_scheme;

/* Row of the table for a scheme id (NULL if out of range). */
const af_scheme *af_scheme_get(af_scheme_id id);
/* Look a scheme up by command-line name; AF_EINVAL if unknown. */
int af_scheme_lookup(af_scheme_id *id, const char *name);

/* A scheme of one's own: an af_scheme row with id AF_SCHEME_USER, a name
 * and title, needs_anorm (1 if the rates divide by a = |A_j|: a token
 * whose |A_j| is indistinguishable from 0 then fails with AF_EZEROATTN),
 * moves_radius, and the callback rates(s, rho, t, r, c, a, alpha, tau)
 * giving the speed factor s > 0 (AF_ESPEED otherwise) and the radial rate
 * rho of a token of radius r with c = <theta_j, A_j>, a = |A_j| at time t
 * (alpha = alpha(t) of the model, tau its Mix-LN time).  Installed in a
 * model by af_model_set_user_scheme; the double-precision integrators
 * (af_rhs, af_integrate) use it; the layer maps and the MPFR path return
 * AF_EINVAL. */
#define AF_SCHEME_USER ((af_scheme_id) AF_SCHEME_COUNT)

/* A scheme from a spec (theorems.md U1; format in docs/schemes.md): the
 * speed factor s and radial rate rho as expressions of t, r, ta = <theta,
 * A>, na = |A|, alpha, tau and named parameters, and where normalization
 * sits for the layer map (layer = sphere | residual | mix | none, with
 * branch g for residual: x+ = x + h A / g).  Its row (af_scheme_spec_row)
 * is a user row that every path evaluates: the double flow and layer map
 * in double (each operation rounded once, in the order written), the MPFR
 * path at working precision with every number read from its text.  Its
 * rates callback alone gives NaN: the row must be used through a model. */
typedef struct af_scheme_spec af_scheme_spec;
typedef struct {
  size_t line, col; /* 1-based; 0 if the fault is not at one place */
  char what[128];   /* what is wrong and why                        */
} af_spec_error;
enum {
  AF_SPEC_LAYER_NONE = 0, /* no layer map: af_layer_step gives AF_EINVAL  */
  AF_SPEC_LAYER_SPHERE,   /* theta+ = N(theta + (h/s) A), r+ = r + h rho */
  AF_SPEC_LAYER_RESIDUAL, /* x+ = x + h A / g, r+ = |x+|                  */
  AF_SPEC_LAYER_MIX       /* sphere while l h < tau, residual after      */
};
/* Parse a spec from text[0..len) (at most 64 KiB); AF_EPARSE with the
 * line, column and reason in *err (may be NULL). */
int af_scheme_spec_parse(af_scheme_spec **s, af_spec_error *err,
                         const char *text, size_t len);
/* The same from a file (AF_EIO if it cannot be read). */
int af_scheme_spec_read(af_scheme_spec **s, af_spec_error *err,
                        const char *path);
void af_scheme_spec_free(af_scheme_spec *s);
/* The row to give af_model_set_user_scheme (owned by s). */
const af_scheme *af_scheme_spec_row(const af_scheme_spec *s);
/* The spec of a row made by af_scheme_spec_row, NULL for any other. */
const af_scheme_spec *af_scheme_spec_of(const af_scheme *row);
/* AF_SPEC_LAYER_* of s. */
int af_scheme_spec_layer(const af_scheme_spec *s);
/* Bit k set if an expression of s reads variable k (t, r, ta, na, alpha,
 * tau in this order: bit 3 = na, bit 5 = tau). */
unsigned af_scheme_spec_vars(const af_scheme_spec *s);
/* The spec's s, rho and branch g (NaN without one) at one point; any
 * output may be NULL.  AF_ENONFINITE (outputs NaN) if t, r, c, a or alpha
 * is not finite or tau is NaN (tau = +-infinity: no switch). */
int af_scheme_spec_eval(double *s, double *rho, double *g,
                        const af_scheme_spec *sp, double t, double r,
                        double c, double a, double alpha, double tau);
/* Normalization that changes attention (theorems.md U3): the spec keys
 * `scores` (plain | radii | qknorm) and `gain` (an expression of t).  The
 * score of (j, k) is beta g(t) u_j v_k <Q th_j, K th_k> with u = v = 1
 * (plain), u_j = r_j, v_k = r_k (radii), u_j = 1/|Q th_j|, v_k =
 * 1/|K th_k| (qknorm).  af_scheme_spec_scores gives AF_SPEC_SCORES_* of s;
 * af_scheme_spec_alters_attention is 1 if s sets scores other than plain
 * or a gain (the double flow and layer maps then use their own kernel,
 * the MPFR field (af_mp_rhs: mp-gbs, mp-gauss) the same formulas at its
 * precision; mp-taylor and T4.1's scalar system refuse the spec with
 * AF_EINVAL). */
enum {
  AF_SPEC_SCORES_PLAIN = 0,
  AF_SPEC_SCORES_RADII,
  AF_SPEC_SCORES_QKNORM
};
int af_scheme_spec_scores(const af_scheme_spec *s);
int af_scheme_spec_alters_attention(const af_scheme_spec *s);

/* ------------------------------------------------------------------ */
/* Weights Q, K, V.                                                     */
/* ------------------------------------------------------------------ */

/* A list of L weight sets; set l acts on t in [l*layer_dt, (l+1)*layer_dt)
 * (the last one on [ (L-1)*layer_dt, infinity)).  Each matrix is d x d,
 * row-major; a NULL matrix means the identity.
 *
 * Heads (docs/weights.md): a set holds H >= 1 heads (Q_h, K_h, V_h), the
 * matrices of head h of set l at index l*heads + h of Q, K, V (so with
 * H = 1 index l, the layout before heads existed).  The attention of H
 * heads is the sum of the heads' outputs,
 *   A_j = sum_h V_h sum_k softmax_k(beta <Q_h th_j, K_h th_k>) th_k
 * (softmax, USA or causal per head); concatenation with an output matrix
 * W_o is this sum with V_h = W_o[:, block h] W_v,h.  The double field
 * (af_attention, af_rhs, the layer maps; kernels direct, blas, tiled)
 * sums the heads; the MPFR field, mp-taylor and a scheme spec that
 * alters attention (U3) refuse H > 1 with AF_EINVAL (certify reads the
 * text format: one head).
 * ABI: `heads` was appended after `kaiming`; a struct filled by hand
 * without it (heads = 0) is read as one head. */
typedef struct {
  size_t d;
  size_t layers;    /* L >= 1 */
  double layer_dt;  /* time one set is in force (the layer step h)   */
  double **Q, **K, **V; /* arrays of L*heads pointers (may be NULL)   */
  unsigned long seed;   /* seed used by af_weights_kaiming, else 0    */
  int kaiming;          /* 1 if drawn by af_weights_kaiming            */
  size_t heads;         /* H >= 1 heads per set (0 is read as 1)       */
} af_weights;

/* At most this many heads per set, and L * H at most this many matrix
 * triples (the readers' bound on sets). */
#define AF_WEIGHTS_HEADS_MAX 4096
#define AF_WEIGHTS_TRIPLES_MAX 100000

/* L identity sets of one head (all matrices NULL).  Free with
 * af_weights_free. */
af_weights *af_weights_alloc(size_t d, size_t layers, double layer_dt);
/* L identity sets of H heads each: NULL unless 1 <= H <=
 * AF_WEIGHTS_HEADS_MAX and, for H > 1, L * H <= AF_WEIGHTS_TRIPLES_MAX
 * (H = 1 is af_weights_alloc). */
af_weights *af_weights_alloc_heads(size_t d, size_t layers, size_t heads,
                                   double layer_dt);
/* The head count of w: 1 for NULL or heads = 0, else w->heads. */
size_t af_weights_heads(const af_weights *w);
/* Fill every set (every head) with independent Kaiming-normal matrices:
 * entries N(0, 1/d) (fan-in d, gain 1), from a seeded mt19937 stream
 * (set by set, head by head, Q, K, V: one head draws as before). */
int af_weights_kaiming(af_weights *w, unsigned long seed);
void af_weights_free(af_weights *w);
/* Read one Q,K,V set from a text file: 3d rows of d numbers (Q, then K,
 * then V), '#' comments allowed.  *line receives the line of an error. */
int af_weights_read(af_weights **w, const char *path, size_t d, size_t *line);

/* Where and why a file read failed (af_weights_read_info,
 * af_init_read_file_info): the line (0 if none), the count expected there
 * and the count found (numbers in a row, or rows; 0 and 0 if no count is
 * at fault), and a static description of the defect (NULL if the status
 * says it all), e.g. "NUL byte", "empty field", "is a directory". */
typedef struct {
  size_t line;
  size_t expected, found;
  const char *what;
} af_read_info;
/* af_weights_read with the detail of a failure in *info (may be NULL). */
int af_weights_read_info(af_weights **w, af_read_info *info,
                         const char *path, size_t d);
/* Per-layer weights from a NumPy .npy file (weights_npy.c): one array of
 * '<f8' or '<f4', C order, shape (3, d, d) (one set Q, K, V) or
 * (L, 3, d, d) (L sets, set l in force on [l layer_dt, (l+1) layer_dt))
 * or (L, H, 3, d, d) (L sets of H heads, af_weights' heads);
 * entry [l][0][a][b] is Q_ab of set l ([l][h][0][a][b]: of head h).
 * Read strictly: AF_EPARSE or
 * AF_EDIM (a shape not matching d) with the reason in info->what,
 * AF_ENONFINITE for a NaN or infinite weight, AF_EIO if unreadable.
 * af_weights_parse_npy: the same from the bytes buf[0..len). */
int af_weights_read_npy(af_weights **w, af_read_info *info, const char *path,
                        size_t d, double layer_dt);
int af_weights_parse_npy(af_weights **w, const char **what,
                         const unsigned char *buf, size_t len, size_t d,
                         double layer_dt);
/* Per-layer weights from a NumPy .npz archive (weights_npz.c: numpy.savez,
 * stored, or numpy.savez_compressed, deflate) or a safetensors file
 * (weights_safetensors.c), read strictly: tensors named Q.l, K.l, V.l
 * (l = 0, 1, ..., every set complete) -- or all named Q.l.h, K.l.h, V.l.h
 * (head h of set l, every (l, h) complete; mixing 2- and 3-part names is
 * refused) -- each (d, d), '<f8'/'<f4' (F64/F32),
 * row-major as af_weights; set l in force on [l layer_dt, (l+1) layer_dt)
 * (docs/weights.md).  A failure writes its reason, naming the entry or
 * tensor, into msg[0..cap) (msg may be NULL) and, from the file readers,
 * points info->what at it: AF_EPARSE (container, CRC-32, name), AF_EDIM
 * (a shape, a missing tensor), AF_ENONFINITE, AF_EIO, AF_ENOMEM.  The
 * af_weights_parse_* forms read the bytes buf[0..len). */
int af_weights_read_npz(af_weights **w, af_read_info *info, char *msg,
                        size_t cap, const char *path, size_t d,
                        double layer_dt);
int af_weights_parse_npz(af_weights **w, char *msg, size_t cap,
                         const unsigned char *buf, size_t len, size_t d,
                         double layer_dt);
int af_weights_read_safetensors(af_weights **w, af_read_info *info,
                                char *msg, size_t cap, const char *path,
                                size_t d, double layer_dt);
int af_weights_parse_safetensors(af_weights **w, char *msg, size_t cap,
                                 const unsigned char *buf, size_t len,
                                 size_t d, double layer_dt);

/* ------------------------------------------------------------------ */
/* The model: everything that defines the vector field.                 */
/* ------------------------------------------------------------------ */

typedef struct {
  size_t n, d;         /* tokens, dimension (>= 1)                       */
  double beta;         /* inverse temperature, finite, >= 0              */
  af_scheme_id scheme; /* S1..S6                                         */
  af_attn_kind attn;   /* softmax, USA or causal                         */
  double alpha;        /* nGPT step alpha(t) = alpha * (1+t)^(-alpha_decay) */
  double alpha_decay;  /* >= 0; > 1 violates int alpha = infinity       */
  double tau;          /* Mix-LN switch time (>= 0)                      */
  const af_weights *w; /* NULL: Q = K = V = I                            */
  unsigned fault;      /* AF_FAULT_* bits: deliberate model errors that
                          show the verification claims have power; 0 in
                          every normal run                              */
  const af_scheme *user; /* scheme == AF_SCHEME_USER: its row (referenced,
                          not copied); else NULL                        */
} af_model;

/* Deliberate faults (attnflow verify --inject-fault): each perturbs one
 * part of the model by a documented, smooth amount.
 *   SPEED:     s_j multiplied by (1 + 0.05 t)
 *   RADIAL:    dr_j/dt multiplied by 1.1 (and the layer maps' radius
 *              update scaled the same way)
 *   ATTENTION: scores use beta (1 + 0.05) instead of beta */
#define AF_FAULT_SPEED 1u
#define AF_FAULT_RADIAL 2u
#define AF_FAULT_ATTENTION 4u

/* Defaults: post-ln, softmax, beta = 1, alpha = 1, decay 0, tau = 1. */
void af_model_init(af_model *m, size_t n, size_t d, double beta,
                   af_scheme_id scheme);
/* Check every field; AF_EINVAL / AF_ENONFINITE / AF_EDIM with no side
 * effect.  Called by every entry point that takes a model. */
int af_model_validate(const af_model *m);
/* Make m use the user-defined scheme row (see AF_SCHEME_USER): AF_EINVAL,
 * m unchanged, if row is NULL, has no rates callback or another id. */
int af_model_set_user_scheme(af_model *m, const af_scheme *row);
/* The scheme row m uses: the table's, or the user-defined one; NULL if
 * the scheme is out of range. */
const af_scheme *af_model_scheme(const af_model *m);
/* alpha(t) of nGPT. */
double af_model_alpha(const af_model *m, double t);
/* 1 if the alpha schedule violates int_0^inf alpha = infinity. */
int af_model_alpha_integrable(const af_model *m);

/* ------------------------------------------------------------------ */
/* State layout and the vector field.                                   */
/* ------------------------------------------------------------------ */

/* The state is one array y of af_state_size(n, d) = n*d + n doubles:
 * y[j*d .. j*d+d-1] = theta_j (row-major n x d), y[n*d + j] = r_j.
 * Off the unit sphere the theta part of the field at theta_j is |theta_j|
 * times the sphere's field at theta_j/|theta_j|: orthogonal to theta_j,
 * with the same angular velocity.  So |theta_j| is a first integral and
 * theta_j/|theta_j| follows the flow exactly: the integrators never
 * renormalize, and the deviation of |theta_j| from 1 (observable
 * "drift") measures their error on that invariant. */
size_t af_state_size(size_t n, size_t d); /* 0 if it overflows size_t */

/* Kernels for the attention products. */
typedef enum {
  AF_KERNEL_BLAS = 0, /* level-3 BLAS products, one exp per pair if symmetric */
  AF_KERNEL_DIRECT,   /* plain loops; tangent part from differences
                         theta_k - theta_j (accurate when tokens cluster)   */
  AF_KERNEL_TILED,    /* tiles of keys, online (running-max) softmax:
                         O(n d) memory, no n x n matrix                    */
  AF_KERNEL_COUNT
} af_kernel;

typedef struct af_work af_work; /* scratch for n, d; opaque */

af_work *af_work_alloc(size_t n, size_t d);
void af_work_free(af_work *w);
/* Kernel used by af_rhs and friends (default af_kernel_auto(n, d)).
 * Choosing AF_KERNEL_BLAS or AF_KERNEL_DIRECT on a work allocated without
 * the n x n matrix allocates it now (AF_ENOMEM if that fails). */
int af_work_set_kernel(af_work *w, af_kernel k);
af_kernel af_work_kernel(const af_work *w);
/* Number of right-hand-side evaluations since allocation. */
unsigned long af_work_nevals(const af_work *w);
/* The kernel af_work_alloc(n, d) starts with: AF_KERNEL_BLAS when the
 * n x n matrix of doubles fits AF_KERNEL_NN_BUDGET bytes, AF_KERNEL_TILED
 * otherwise (its work then holds no n x n array). */
#define AF_KERNEL_NN_BUDGET ((size_t) 1 << 30)
af_kernel af_kernel_auto(size_t n, size_t d);
/* Bytes of an af_work of n tokens in dimension d running kernel k (its
 * arrays and the kernel's scratch; the tiled kernel's per-thread scratch
 * counted for threads threads, 0 counted as 1); 0 if that overflows
 * size_t, for an unknown kernel and for threads outside
 * [0, AF_THREADS_MAX].  Weights of several heads add 2 (n d + n) doubles
 * (the sums of attention_heads.c, allocated at their first evaluation),
 * not counted here. */
size_t af_work_bytes(size_t n, size_t d, af_kernel k, int threads);

/* Attention outputs at time t for the directions of y:
 * A (n x d, may be NULL), c[j] = <th_j, A_j>, a[j] = |A_j|, and
 * pt (n x d, may be NULL) = P_{th_j} A_j.  The arrays c, a may be NULL.
 * Errors: AF_EZERONORM (a token of norm zero), AF_ENONFINITE,
 * AF_EOVERFLOW (USA at huge beta). */
int af_attention(double *A, double *pt, double *c, double *a, double t,
                 const double *y, const af_model *m, af_work *w);

/* The vector field: dy = f(t, y).  Error AF_EZEROATTN if a scheme that
 * divides by |A_j| meets |A_j| indistinguishable from 0 (|A_j| within the
 * rounding error bound n * eps * sum_k w_jk |V th_k| of its computation). */
int af_rhs(double *dy, double t, const double *y, const af_model *m,
           af_work *w);

/* Speed factors s[j] and radial rates rho[j] at (t, y) (any may be NULL). */
int af_speeds(double *s, double *rho, double t, const double *y,
              const af_model *m, af_work *w);

/* One layer of the discrete map S7 with step h from time t = l*h:
 * y_out may equal y_in. */
int af_layer_step(double *y_out, const double *y_in, size_t layer, double h,
                  const af_model *m, af_work *w);

/* ------------------------------------------------------------------ */
/* Initial conditions.                                                  */
/* ------------------------------------------------------------------ */

/* Fill y from a specification string:
 *   "uniform"      theta uniform on S^{d-1}, r = r0 (default 1)
 *   "gaussian"     x standard Gaussian, r = |x| (r0 ignored unless given)
 *   "orthonormal"  theta_j = e_j (needs d >= n), r = r0
 *   "cap:DELTA"    all pairwise cosines >= 1 - DELTA, 0 <= DELTA <= 2
 *   "hemisphere"   uniform on the half sphere {x_1 > 0}
 *   "file:PATH"    CSV, one row per token: theta = row/|row|, r = |row|
 * r0: radius for sphere starts (NaN: 1; for gaussian NaN keeps norms, a
 * value sets every radius).  Errors carry the offending line in *line
 * (0 if not a file error). */
int af_init_state(double *y, size_t *line, const char *spec, size_t n,
                  size_t d, double r0, unsigned long seed);

/* Read a CSV token file into y (n rows of d numbers). */
int af_init_read_file(double *y, size_t *line, const char *path, size_t n,
                      size_t d);
/* The same with the detail of a failure in *info (may be NULL).  Rows
 * are strict: numbers separated by a comma and/or blanks, no empty field,
 * no NUL byte, at most 65536 + 128 d bytes per line.  A row's norm is
 * computed with scaling, so rows of tiny or huge finite norm (1e-200,
 * 1e200) are read exactly onto the sphere. */
int af_init_read_file_info(double *y, af_read_info *info, const char *path,
                           size_t n, size_t d);

/* ------------------------------------------------------------------ */
/* Observables.                                                         */
/* ------------------------------------------------------------------ */

#define AF_OBS_LIST(X)                                                         \
  X(t)                                                                         \
  X(cos_mean)                                                                  \
  X(cos_min)                                                                   \
  X(cos_max)                                                                   \
  X(r_mean)                                                                    \
  X(r_min)                                                                     \
  X(r_max)                                                                     \
  X(var)                                                                       \
  X(energy)                                                                    \
  X(clusters)                                                                  \
  X(speed_mean)                                                                \
  X(drift)                                                                     \
  X(gap_mean)                                                                  \
  X(gap_max)

typedef enum {
#define AF_X_OBS(name) AF_OBS_##name,
  AF_OBS_LIST(AF_X_OBS)
#undef AF_X_OBS
  AF_OBS_COUNT
} af_obs_id;

/* The first AF_OBS_DEFAULT_COUNT observables are the default columns. */
#define AF_OBS_DEFAULT_COUNT (AF_OBS_drift + 1)

const char *af_obs_name(af_obs_id id);
int af_obs_lookup(af_obs_id *id, const char *name);

/* gap_mean / gap_max: mean and max over i<j of |th_i - th_j|^2 / 2, which
 * equals 1 - <th_i, th_j> but keeps its relative accuracy as tokens
 * merge (theorems.md N1).  All cosine observables use th = theta/|theta|. */
int af_observe(double *obs, double t, const double *y, double cluster_cos,
               const af_model *m, af_work *w);

/* ------------------------------------------------------------------ */
/* Integration.                                                         */
/* ------------------------------------------------------------------ */

typedef enum {
  AF_METHOD_RK8PD = 0,
  AF_METHOD_RKF45,
  AF_METHOD_RK4,
  AF_METHOD_RKCK,
  AF_METHOD_MSADAMS,
  AF_METHOD_LAYERS, /* the discrete maps S7, step h */
  AF_METHOD_VERN9,  /* Verner's efficient 9(8) pair (src/flow/rkv98.c) */
  AF_METHOD_COUNT
} af_method;

const char *af_method_name(af_method m);
int af_method_lookup(af_method *m, const char *name);
/* Classical order of the method (layers: 1). */
int af_method_order(af_method m);
/* 1 if the method takes fixed steps of --h (rk4, layers). */
int af_method_fixed(af_method m);

typedef struct {
  af_method method;
  double rtol, atol;   /* adaptive methods: error <= atol + rtol |y|       */
  double h;            /* fixed-step methods: step (<= h, equal steps
                          per interval); adaptive: first step; 0: rk8pd,
                          rkf45, rkck and vern9 choose it by Hairer's
                          starting-step rule (two right-hand sides,
                          integrate.c), msadams starts from 0.01.
                          af_integ_opts_init sets 0.01; 'attnflow run'
                          and Python's run() pass 0 when no step is
                          given to an adaptive method               */
  unsigned long max_steps; /* per output interval; 0 = 10^7              */
  int fixed;           /* 1: one-step GSL methods (rk8pd, rkf45, rkck)
                          take fixed steps of h too, for order studies;
                          rk4 and layers are always fixed               */
  /* Optional: called now and then during the run (every 256 right-hand
   * sides, every layer) with the time being worked on and the accepted
   * steps so far, for a progress display; NULL: none.  It must not touch
   * the run. */
  void (*progress)(double t, unsigned long steps, void *ctx);
  void *progress_ctx;
} af_integ_opts;

void af_integ_opts_init(af_integ_opts *o); /* rk8pd, 1e-10, 1e-12, h 0.01 */

typedef struct {
  unsigned long steps;    /* accepted steps (layers: layers applied) */
  unsigned long nevals;   /* right-hand-side evaluations              */
  double t_reached;       /* last time reached                        */
} af_integ_stats;

/* Called at each output time with the state there; a non-zero return
 * stops the run and is passed back by af_integrate. */
typedef int (*af_output_fn)(double t, const double *y, void *ctx);

/* Integrate y from times[0] to times[k] for each k in order (times must be
 * non-decreasing, finite, >= 0), calling out(times[k], y, ctx) at each.
 * Breakpoints of the field (Mix-LN's tau, weight-set boundaries) are hit
 * exactly and the integrator restarted there.  For AF_METHOD_LAYERS the
 * output times must be multiples of h (within 1e-9 relative) and the map
 * of layer l = round(t/h) is applied.
 * On failure y holds the state at stats->t_reached and the status says
 * why (AF_EMAXSTEPS, AF_ENOPROGRESS, a right-hand-side error, ...). */
int af_integrate(double *y, const double *times, size_t ntimes,
                 const af_model *m, const af_integ_opts *o, af_work *w,
                 af_output_fn out, void *ctx, af_integ_stats *stats);

/* ------------------------------------------------------------------ */
/* Sweeps: many independent runs over a grid of beta (src/flow/sweep.c).    */
/* ------------------------------------------------------------------ */

/* Seed of start k of a sweep with base seed `base` (splitmix64 of both;
 * never 0).  A function of (base, k) only: results do not depend on the
 * number of threads or the order in which runs finish. */
unsigned long af_sweep_seed(unsigned long base, size_t k);

/* Fraction of pairs i < j of the n tokens of y (directions normalized)
 * with cosine > cos_threshold; 0 if n = 1.  AF_EZERONORM, AF_ENONFINITE. */
int af_pairs_above(double *frac, const double *y, size_t n, size_t d,
                   double cos_threshold);

typedef struct {
  af_model model;        /* template; beta is replaced by betas[b]       */
  const double *betas;   /* nbeta values                                 */
  size_t nbeta;
  size_t nsys;           /* independent starts per beta (the same for
                            every beta: start k uses af_sweep_seed(seed,k)) */
  const char *init;      /* af_init_state spec (default "uniform")       */
  double r0;             /* af_init_state r0 (default 1)                 */
  unsigned long seed;    /* base seed (default 1)                        */
  const double *times;   /* output times, as af_integrate                */
  size_t ntimes;
  af_integ_opts opts;    /* integrator (default af_integ_opts_init)      */
  double cos_threshold;  /* default 0.999                                */
  int nthreads;          /* OpenMP threads; 0 = the OpenMP default       */
} af_sweep_spec;

/* Defaults above; model, betas and times are referenced, not copied. */
void af_sweep_spec_init(af_sweep_spec *s, const af_model *model,
                        const double *betas, size_t nbeta, size_t nsys,
                        const double *times, size_t ntimes);

/* Called after each finished run (from one thread at a time). */
typedef void (*af_sweep_progress_fn)(size_t done, size_t total, void *ctx);

/* Run the nbeta * nsys systems of s, in parallel with OpenMP (one run per
 * thread, each with its own af_work).  Run r = b * nsys + k (beta index
 * b, start k) writes frac[r * ntimes + i] = af_pairs_above at times[i],
 * NaN from the point where it failed on.  status (nbeta * nsys, may be
 * NULL) receives each run's af_status; nevals (may be NULL) the total
 * right-hand-side evaluations.  Returns AF_EINVAL / AF_ENOMEM / a model
 * error before any run; then AF_OK if status is given, else the status of
 * the failed run of lowest index (AF_OK if none).  Bit-identical results
 * for every number of threads. */
int af_sweep_pairs(double *frac, int *status, unsigned long *nevals,
                   const af_sweep_spec *s, af_sweep_progress_fn progress,
                   void *ctx);

/* The engine under af_sweep_pairs and 'attnflow sweep': runs handed out
 * one at a time (a work queue), computed by OpenMP threads, each run's
 * result a row of rowlen doubles.  The queue decides which run comes next
 * and where a result goes, so the same engine serves one process (the
 * default queue: runs 0..nruns-1 into an array) and a program that hands
 * runs to other processes (MPI, in the attnflow command).
 *
 * task(row, r, ctx) computes run r into row (rowlen doubles) and returns
 * its af_status; it is called concurrently from several threads. */
typedef int (*af_sweep_task_fn)(double *row, size_t r, void *ctx);

typedef struct {
  /* Next run to compute: 1 and *r, or 0 when no run is left for this
   * thread, or minus an af_status (-AF_EIO, ...) to stop every thread
   * with that status. */
  int (*next)(size_t *r, void *ctx);
  /* The row and status of run r, finished by this process.  AF_OK, or an
   * af_status that stops every thread. */
  int (*done)(size_t r, const double *row, int status, void *ctx);
  /* NULL, or run by one extra thread beside the computing ones until it
   * returns (AF_OK or an error); for a queue fed by other processes. */
  int (*serve)(void *ctx);
  void *ctx;
} af_sweep_queue;

/* next and done are called inside '#pragma omp critical(af_sweep_queue)'
 * (one thread at a time); a serve function that touches the queue's
 * state takes the same critical section.  Threads: nthreads, 0 = the
 * OpenMP default (one without OpenMP), plus one if serve is set.
 * progress (may be NULL) is called after each done.  If q is NULL the
 * default queue hands out runs 0..nruns-1 and stores row r at
 * rows[r * rowlen] and its status at status[r] (both non-NULL), and
 * progress counts to nruns; with a queue, rows, status and nruns are not
 * used (progress receives done = runs finished here, total = 0).
 * Returns AF_EINVAL / AF_ENOMEM before any run, else the first error of
 * next, done or serve (AF_OK if none): a failed run is not an error of
 * the engine, its status goes to done.  The rows do not depend on the
 * number of threads as long as task(r) depends on r alone. */
int af_sweep_exec(double *rows, int *status, size_t nruns, size_t rowlen,
                  af_sweep_task_fn task, void *task_ctx,
                  const af_sweep_queue *q, int nthreads,
                  af_sweep_progress_fn progress, void *progress_ctx);

/* One run of 'attnflow sweep': the observables of 'attnflow run' at each
 * output time, with the same model, start and integrator. */
typedef struct {
  af_model model;          /* complete, weights included (see kaiming)   */
  const char *init;        /* af_init_state spec                         */
  double r0;               /* af_init_state r0 (NaN: its default)        */
  unsigned long seed;      /* start (and Kaiming weights) seed           */
  const double *times;     /* output times (>= 0, non-decreasing); the
                              integration starts at t = 0                */
  size_t ntimes;
  af_integ_opts opts;
  af_kernel kernel;
  double cluster_cos;      /* af_observe threshold                       */
  const af_obs_id *obs;    /* nobs observables, in column order          */
  size_t nobs;
  int kaiming;             /* 1: model.w is replaced by Kaiming weights,
                              max(1, ceil(t_end / opts.h)) sets of time
                              opts.h (0.01 when opts.h is 0, the
                              starting-step rule), drawn with
                              af_weights_kaiming(seed) as 'attnflow run
                              --weights kaiming' does                    */
} af_sweep_obs_spec;

/* rows[i * nobs + k] = observable obs[k] at times[i] (NaN from a failure
 * on); stats (may be NULL) receives the integrator's statistics.  Returns
 * the run's status: AF_OK, an error of the start, weights or integration
 * (AF_EINVAL for a bad spec). */
int af_sweep_observe(double *rows, af_integ_stats *stats,
                     const af_sweep_obs_spec *s);

/* ------------------------------------------------------------------ */
/* Small utilities.                                                     */
/* ------------------------------------------------------------------ */

/* Write a file atomically: the callback writes into a temporary file in
 * the same directory, which is renamed over path only if the callback
 * returns AF_OK and every write and the close succeeded; otherwise the
 * temporary file is removed and path is untouched. path "-" = stdout. */
typedef int (*af_writer_fn)(FILE *f, void *ctx);
int af_write_atomic(const char *path, af_writer_fn writer, void *ctx);

/* AF_OK if the options lie in the ranges of attnflow_limits.h (method
 * known, rtol in [AF_RTOL_MIN, AF_RTOL_MAX) or 0 (absolute control
 * alone, which the command does not offer), atol in (0, AF_ATOL_MAX],
 * h finite and >= 0, and > 0 for a fixed-step method); AF_EINVAL
 * otherwise.  af_integrate, af_sweep_pairs and af_sweep_observe call it. */
int af_integ_opts_check(const af_integ_opts *o);

/* Stop every run of this process: af_interrupt(1) makes af_integrate,
 * af_mp_integrate and the sweeps return AF_ECANCELED at their next right-
 * hand side or step (async-signal-safe: a SIGINT handler may call it);
 * af_interrupt(0) clears the request.  af_interrupted: the request. */
void af_interrupt(int on);
int af_interrupted(void);

#ifdef __cplusplus
}
#endif
#endif /* ATTNFLOW_H */
