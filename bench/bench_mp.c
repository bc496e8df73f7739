/* bench_mp.c -- the MPFR integrators of libattnflow on the benchmark case
 * (n = 32, d = 3, beta = 1, T = 10, Q = K = V = I, softmax),
 * and the shared file formats of the peers bench/bench_mp_mpmath.py and
 * bench/bench_mp_odeint.cpp.  Subcommands:
 *
 *   init    --out PATH [--n N --d D --seed S --spec SPEC]
 *           writes the initial state y(0) = af_init_state(SPEC, seed) as
 *           exact hex doubles (C99 %a): one line per token, d direction
 *           components then the radius; '#' lines are provenance.  Every
 *           program reads this file, so all start from the same doubles.
 *   run     --init PATH --scheme S --method M [--prec P --tol E --T T
 *           --times LIST --out PATH --ref PATH --label L]
 *           integrates with af_mp_integrate, timing only that call
 *           (process CPU time; wall time alongside), writes the states at the output times
 *           (--out, state-set format below) and, with --ref, the max
 *           absolute error at each time against a reference state set.
 *           Prints one result line "RESULT label seconds t_end err ..."
 *           read by bench_mp.sh.
 *   rhs0    --init PATH --scheme S [--prec P --out PATH]
 *           writes f(0, y0) (af_mp_rhs) as a state set with t = 0: the
 *           peers' vector fields are checked against it.
 *   compare --ref PATH --in PATH [--prec P --label L]
 *           max |in - ref| over all components, at each time of IN (which
 *           must be in REF); prints the errors and a RESULT line.
 *   local   --init PATH --scheme S --times T0,... --h H,... [--prec P
 *           --order K]
 *           mp-gbs's local estimate against its true local error: from
 *           the state at each T0 (a run at P + 144 bits, 30 rows, tol
 *           2^-(P-8), rounded to P bits) one step of length H (the H of
 *           the same position in --h) with K rows (default 20, the
 *           default at tol 1e-60), against the same step by that
 *           reference run; prints "LOCAL t0 h K error estimate ratio".
 *   exp     [--prec P]
 *           the kernel's exp (af_mp_exp, theorems.md N.mpexp) against
 *           mpfr_exp and mpfr_mul at P bits on 200 000 arguments spread
 *           over (-2, 0), the range of the scores -beta q/2 at beta = 1:
 *           the best of 5 passes each, in microseconds per call, and the
 *           number of results that differ (must be 0).
 *
 * State-set format (all programs write it): '#' comment lines, then
 * records "t VALUE" followed by one number per line for the N = n d + n
 * components of the state (layout of attnflow.h: directions row-major,
 * then radii), decimal with 110 significant digits.  Comparisons read the
 * numbers at --prec bits (default 512), so the 110 digits, not the
 * reading, limit them: 1e-110 relative, far below the 1e-60 measured.
 *
 * Not part of 'make check'; see bench/README.md.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attnflow.h"
#include "attnflow_mp.h"
#include "mp_kernel.h"

#define RND MPFR_RNDN
#define DIGITS 110
#define MAX_TIMES 64
#define LINE_MAX_LEN 4096

/* Process CPU time: the machine is shared, and wall time counts the
 * other processes too (wall time is printed alongside). */
static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void die(const char *what, int rc)
{
  fprintf(stderr, "bench_mp: %s: %s\n", what,
          rc ? af_strerror(rc) : strerror(errno));
  exit(2);
}

/* ------------------------------------------------------------------ */
/* Options (subcommand then --key value pairs).                         */
/* ------------------------------------------------------------------ */

typedef struct {
  size_t n, d;
  unsigned long seed;
  const char *spec, *init, *out, *ref, *in, *label;
  af_scheme_id scheme;
  af_mp_method method;
  mpfr_prec_t prec;
  double tol, T;
  double times[MAX_TIMES], hs[MAX_TIMES];
  size_t ntimes, nhs;
  unsigned order;
} opts;

static void usage(void)
{
  fputs("usage: bench_mp init --out PATH [--n N --d D --seed S --spec SPEC]\n"
        "       bench_mp run --init PATH --scheme S --method M [--prec P --tol E\n"
        "                --T T --times LIST --order K --out PATH --ref PATH --label L]\n"
        "       bench_mp rhs0 --init PATH --scheme S [--prec P --out PATH]\n"
        "       bench_mp compare --ref PATH --in PATH [--prec P --label L]\n"
        "       bench_mp local --init PATH --scheme S --times LIST --h LIST\n"
        "                [--prec P --order K]\n"
        "       bench_mp exp [--prec P]\n",
        stderr);
  exit(2);
}

static double parse_num(const char *s, const char *key)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0') {
    fprintf(stderr, "bench_mp: bad number for %s: %s\n", key, s);
    exit(2);
  }
  return v;
}

/* The options that store a text or a number in a field of opts. */
typedef enum { OPT_TEXT, OPT_SIZE, OPT_ULONG, OPT_UINT, OPT_PREC, OPT_DOUBLE } opt_kind;
typedef struct {
  const char *key;
  size_t off;
  opt_kind kind;
} bench_opt;

/* Option --FIELD stores its value in o->FIELD. */
#define OPT(field, kind) {"--" #field, offsetof(opts, field), kind}
static const bench_opt bench_opts[] = {
    OPT(n, OPT_SIZE), OPT(d, OPT_SIZE), OPT(seed, OPT_ULONG),
    OPT(prec, OPT_PREC), OPT(order, OPT_UINT), OPT(tol, OPT_DOUBLE),
    OPT(T, OPT_DOUBLE), OPT(spec, OPT_TEXT), OPT(init, OPT_TEXT),
    OPT(out, OPT_TEXT), OPT(ref, OPT_TEXT), OPT(in, OPT_TEXT),
    OPT(label, OPT_TEXT)};
#undef OPT

static const bench_opt *find_opt(const char *k)
{
  for (size_t i = 0; i < sizeof bench_opts / sizeof bench_opts[0]; i++)
    if (!strcmp(k, bench_opts[i].key))
      return &bench_opts[i];
  return NULL;
}

static void set_opt(opts *o, const bench_opt *b, const char *v)
{
  void *field = (char *) o + b->off;
  if (b->kind == OPT_TEXT) {
    *(const char **) field = v;
    return;
  }
  double x = parse_num(v, b->key);
  switch (b->kind) {
  case OPT_SIZE: *(size_t *) field = (size_t) x; break;
  case OPT_ULONG: *(unsigned long *) field = (unsigned long) x; break;
  case OPT_UINT: *(unsigned *) field = (unsigned) x; break;
  case OPT_PREC: *(mpfr_prec_t *) field = (mpfr_prec_t) x; break;
  default: *(double *) field = x; break;
  }
}

static void parse_opts(opts *o, int argc, char **argv)
{
  memset(o, 0, sizeof *o);
  o->n = 32;
  o->d = 3;
  o->seed = 20261129;
  o->spec = "gaussian";
  o->scheme = AF_POST_LN;
  o->method = AF_MP_GAUSS;
  o->prec = 256;
  o->tol = 1e-60;
  o->T = 10;
  o->label = "ours";
  for (int i = 2; i < argc; i += 2) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL)
      usage();
    const bench_opt *b = find_opt(k);
    if (b != NULL)
      set_opt(o, b, v);
    else if (!strcmp(k, "--scheme")) {
      if (af_scheme_lookup(&o->scheme, v) != AF_OK)
        die(v, AF_EINVAL);
    } else if (!strcmp(k, "--method")) {
      if (af_mp_method_lookup(&o->method, v) != AF_OK)
        die(v, AF_EINVAL);
    } else if (!strcmp(k, "--times") || !strcmp(k, "--h")) {
      double *list = k[2] == 't' ? o->times : o->hs;
      size_t *len = k[2] == 't' ? &o->ntimes : &o->nhs;
      char *s = strdup(v), *save = NULL;
      for (char *tok = strtok_r(s, ",", &save); tok;
           tok = strtok_r(NULL, ",", &save)) {
        if (*len >= MAX_TIMES)
          usage();
        list[(*len)++] = parse_num(tok, k);
      }
      free(s);
    } else
      usage();
  }
  if (o->prec < MPFR_PREC_MIN || o->prec > 1 << 20)
    usage();
}

/* ------------------------------------------------------------------ */
/* Files.                                                               */
/* ------------------------------------------------------------------ */

/* Read the init file: n lines of d + 1 hex (or decimal) doubles. */
static void read_init(double *y, size_t n, size_t d, const char *path)
{
  FILE *f = fopen(path, "r");
  if (f == NULL)
    die(path, 0);
  char line[LINE_MAX_LEN];
  size_t j = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (j >= n) {
      fprintf(stderr, "bench_mp: %s:%zu: more than %zu tokens\n", path,
              lineno, n);
      exit(2);
    }
    char *p = line;
    for (size_t i = 0; i <= d; i++) {
      char *end;
      double v = strtod(p, &end);
      if (end == p) {
        fprintf(stderr, "bench_mp: %s:%zu: expected %zu numbers\n", path,
                lineno, d + 1);
        exit(2);
      }
      if (i < d)
        y[j * d + i] = v;
      else
        y[n * d + j] = v;
      p = end;
    }
    j++;
  }
  fclose(f);
  if (j != n) {
    fprintf(stderr, "bench_mp: %s: %zu tokens, expected %zu\n", path, j, n);
    exit(2);
  }
}

static void write_record(FILE *f, double t, mpfr_t *y, size_t N)
{
  fprintf(f, "t %.17g\n", t);
  for (size_t i = 0; i < N; i++) {
    mpfr_out_str(f, 10, DIGITS, y[i], RND);
    fputc('\n', f);
  }
}

/* A state set: times and states read at precision prec. */
typedef struct {
  size_t N, count;
  double t[MAX_TIMES];
  mpfr_t *y[MAX_TIMES];
} stateset;

static void stateset_read(stateset *s, const char *path, mpfr_prec_t prec)
{
  FILE *f = fopen(path, "r");
  if (f == NULL)
    die(path, 0);
  memset(s, 0, sizeof *s);
  char line[LINE_MAX_LEN];
  size_t lineno = 0, i = 0;
  /* The first record fixes N. */
  size_t cap = 0;
  mpfr_t *cur = NULL;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (line[0] == 't' && line[1] == ' ') {
      if (cur != NULL && s->N == 0)
        s->N = i;
      if (cur != NULL && i != s->N)
        goto bad;
      if (s->count >= MAX_TIMES)
        goto bad;
      s->t[s->count] = strtod(line + 2, NULL);
      cap = s->N ? s->N : 4096;
      cur = af_mp_vec_alloc(cap, prec);
      s->y[s->count++] = cur;
      i = 0;
      continue;
    }
    if (cur == NULL || i >= cap)
      goto bad;
    line[strcspn(line, "\r\n")] = '\0';
    if (mpfr_set_str(cur[i], line, 10, RND) != 0)
      goto bad;
    i++;
  }
  if (cur != NULL && s->N == 0)
    s->N = i;
  if (cur == NULL || i != s->N)
    goto bad;
  fclose(f);
  return;
bad:
  fprintf(stderr, "bench_mp: %s:%zu: malformed state set\n", path, lineno);
  exit(2);
}

/* Max |a - b| over the set's N components, rounded up to a double. */
static double maxerr(mpfr_t *a, mpfr_t *b, size_t N)
{
  return af_mp_vec_maxdiff(a, b, N);
}

static int stateset_find(const stateset *s, double t)
{
  for (size_t k = 0; k < s->count; k++)
    if (fabs(s->t[k] - t) <= 1e-12 * (1 + fabs(t)))
      return (int) k;
  return -1;
}

/* ------------------------------------------------------------------ */
/* Subcommands.                                                         */
/* ------------------------------------------------------------------ */

static int cmd_init(const opts *o)
{
  if (o->out == NULL)
    usage();
  size_t N = af_state_size(o->n, o->d);
  double *y = malloc(N * sizeof(double));
  size_t line = 0;
  int rc = af_init_state(y, &line, o->spec, o->n, o->d, NAN, o->seed);
  if (rc != AF_OK)
    die("af_init_state", rc);
  FILE *f = fopen(o->out, "w");
  if (f == NULL)
    die(o->out, 0);
  fprintf(f, "# attnflow bench_mp initial state: af_init_state(\"%s\", n = %zu, "
             "d = %zu, r0 = NaN, seed = %lu)\n",
          o->spec, o->n, o->d, o->seed);
  fprintf(f, "# library %s, commit %s\n", af_version(), AF_COMMIT_STRING);
  fprintf(f, "# one line per token: theta_1 .. theta_d r, exact doubles in C99 "
             "hex (%%a)\n");
  for (size_t j = 0; j < o->n; j++) {
    for (size_t i = 0; i < o->d; i++)
      fprintf(f, "%a ", y[j * o->d + i]);
    fprintf(f, "%a\n", y[o->n * o->d + j]);
  }
  if (fclose(f) != 0)
    die(o->out, 0);
  free(y);
  return 0;
}

/* What run and rhs0 start from: the state y0 of o->init (required; N
 * entries, malloc'ed), the model of o (beta 1) and its MPFR work space. */
static double *start_state(const opts *o, size_t *N, af_model *m,
                           af_mp_work **w)
{
  if (o->init == NULL)
    usage();
  *N = af_state_size(o->n, o->d);
  double *y0 = malloc(*N * sizeof(double));
  read_init(y0, o->n, o->d, o->init);
  af_model_init(m, o->n, o->d, 1.0, o->scheme);
  *w = af_mp_work_alloc(o->n, o->d, o->prec);
  return y0;
}

typedef struct {
  FILE *f;
  size_t N;
  const stateset *ref;
  double err_last, t_last, err_max;
} run_ctx;

static int on_output(double t, mpfr_t *y, void *vctx)
{
  run_ctx *c = vctx;
  if (c->f)
    write_record(c->f, t, y, c->N);
  if (c->ref) {
    int k = stateset_find(c->ref, t);
    if (k >= 0) {
      double e = maxerr(y, c->ref->y[k], c->N);
      c->err_last = e;
      if (e > c->err_max)
        c->err_max = e;
    } else
      c->err_last = NAN;
  }
  c->t_last = t;
  return 0;
}

static int cmd_run(opts *o)
{
  size_t N;
  af_model m;
  af_mp_work *w;
  double *y0 = start_state(o, &N, &m, &w);
  mpfr_t *y = af_mp_vec_alloc(N, o->prec);
  if (w == NULL || y == NULL)
    die("alloc", AF_ENOMEM);
  af_mp_vec_set_d(y, y0, N);
  double times[MAX_TIMES + 1];
  size_t nt = 0;
  times[nt++] = 0.0;
  if (o->ntimes == 0)
    times[nt++] = o->T;
  for (size_t k = 0; k < o->ntimes; k++)
    times[nt++] = o->times[k];
  stateset ref;
  run_ctx c = {NULL, N, NULL, NAN, 0, 0};
  if (o->ref) {
    stateset_read(&ref, o->ref, o->prec > 512 ? o->prec : 512);
    if (ref.N != N)
      die("reference dimension", AF_EDIM);
    c.ref = &ref;
  }
  if (o->out) {
    c.f = fopen(o->out, "w");
    if (c.f == NULL)
      die(o->out, 0);
    fprintf(c.f, "# attnflow bench_mp run: %s, %s, prec %ld, tol %g, n %zu, "
                 "d %zu, beta 1, init %s; library %s commit %s\n",
            af_mp_method_name(o->method), af_scheme_get(o->scheme)->name,
            (long) o->prec, o->tol, o->n, o->d, o->init, af_version(),
            AF_COMMIT_STRING);
  }
  af_mp_opts mo;
  af_mp_opts_init(&mo);
  mo.method = o->method;
  mo.tol = o->tol;
  if (o->method == AF_MP_GAUSS)
    mo.stages = o->order;
  else if (o->method == AF_MP_TAYLOR)
    mo.order = o->order;
  else
    mo.columns = o->order;
  af_mp_stats st;
  double c0 = cpu_now(), w0 = wall_now();
  /* The output callback (one record per output time: N decimal
   * conversions and a comparison) runs inside the timed call; its cost is
   * below a millisecond, negligible against the integration. */
  int rc = af_mp_integrate(y, times, nt, &m, &mo, w, on_output, &c, &st);
  double secs = cpu_now() - c0, wall = wall_now() - w0;
  if (rc != AF_OK)
    die("af_mp_integrate", rc);
  if (c.f && fclose(c.f) != 0)
    die(o->out, 0);
  printf("RESULT %s %s %s prec=%ld tol=%.3g seconds=%.3f wall=%.3f t_end=%g "
         "err=%.3e "
         "err_max=%.3e err_est=%.3e steps=%lu rejected=%lu nevals=%lu "
         "order=%u err_global=%.3e\n",
         o->label, af_scheme_get(o->scheme)->name,
         af_mp_method_name(o->method), (long) o->prec, o->tol, secs,
         wall, c.t_last, c.err_last, c.err_max, st.err_est, st.steps, st.rejected,
         st.nevals, st.order, st.err_global);
  af_mp_vec_free(y, N);
  af_mp_work_free(w);
  free(y0);
  return 0;
}

static int cmd_rhs0(const opts *o)
{
  size_t N;
  af_model m;
  af_mp_work *w;
  double *y0 = start_state(o, &N, &m, &w);
  mpfr_t *y = af_mp_vec_alloc(N, o->prec), *dy = af_mp_vec_alloc(N, o->prec);
  mpfr_t t;
  mpfr_init2(t, o->prec);
  mpfr_set_zero(t, 1);
  af_mp_vec_set_d(y, y0, N);
  int rc = af_mp_rhs(dy, t, y, &m, w);
  if (rc != AF_OK)
    die("af_mp_rhs", rc);
  FILE *f = o->out ? fopen(o->out, "w") : stdout;
  if (f == NULL)
    die(o->out, 0);
  fprintf(f, "# f(0, y0) by af_mp_rhs, %s, prec %ld\n",
          af_scheme_get(o->scheme)->name, (long) o->prec);
  write_record(f, 0.0, dy, N);
  if (o->out && fclose(f) != 0)
    die(o->out, 0);
  mpfr_clear(t);
  af_mp_vec_free(y, N);
  af_mp_vec_free(dy, N);
  af_mp_work_free(w);
  free(y0);
  return 0;
}

static int cmd_compare(const opts *o)
{
  if (o->ref == NULL || o->in == NULL)
    usage();
  mpfr_prec_t p = o->prec > 512 ? o->prec : 512;
  stateset ref, in;
  stateset_read(&ref, o->ref, p);
  stateset_read(&in, o->in, p);
  if (ref.N != in.N)
    die("state sets of different dimension", AF_EDIM);
  double last = NAN, tl = NAN;
  for (size_t k = 0; k < in.count; k++) {
    int r = stateset_find(&ref, in.t[k]);
    if (r < 0) {
      fprintf(stderr, "bench_mp: t = %g not in %s\n", in.t[k], o->ref);
      exit(2);
    }
    last = maxerr(in.y[k], ref.y[r], in.N);
    tl = in.t[k];
    printf("# %s t=%g maxerr=%.3e\n", o->label, tl, last);
  }
  printf("RESULT %s t_end=%g err=%.3e\n", o->label, tl, last);
  return 0;
}

static int cmd_local(const opts *o)
{
  if (o->ntimes == 0 || o->nhs != o->ntimes)
    usage();
  size_t N;
  af_model m;
  af_mp_work *w;
  double *y0 = start_state(o, &N, &m, &w);
  mpfr_prec_t pr = o->prec + 144;
  af_mp_work *wr = af_mp_work_alloc(o->n, o->d, pr);
  mpfr_t *yr = af_mp_vec_alloc(N, pr), *ys = af_mp_vec_alloc(N, pr),
         *yb = af_mp_vec_alloc(N, o->prec);
  if (w == NULL || wr == NULL || yr == NULL || ys == NULL || yb == NULL)
    die("alloc", AF_ENOMEM);
  af_mp_opts ro; /* the reference: 30 rows, tol 2^-(P-8) */
  af_mp_opts_init(&ro);
  ro.columns = 30;
  ro.tol = ldexp(1.0, -(int) (o->prec - 8));
  unsigned K = o->order ? o->order : 20;
  for (size_t k = 0; k < o->ntimes; k++) {
    double t0 = o->times[k], h = o->hs[k];
    af_mp_vec_set_d(yr, y0, N);
    if (t0 > 0) {
      double ts[2] = {0, t0};
      int rc = af_mp_integrate(yr, ts, 2, &m, &ro, wr, NULL, NULL, NULL);
      if (rc != AF_OK)
        die("reference to t0", rc);
    }
    /* The step's start, at P bits, is the start of both steps. */
    for (size_t i = 0; i < N; i++) {
      mpfr_set(yb[i], yr[i], MPFR_RNDN);
      mpfr_set(ys[i], yb[i], MPFR_RNDN);
    }
    double ts[2] = {t0, t0 + h};
    af_mp_opts so; /* one step of h: first step 2 h, always accepted */
    af_mp_opts_init(&so);
    so.columns = K;
    so.tol = 1e-3;
    so.h0 = 2 * h;
    af_mp_stats st;
    int rc = af_mp_integrate(yb, ts, 2, &m, &so, w, NULL, NULL, &st);
    if (rc == AF_OK)
      rc = af_mp_integrate(ys, ts, 2, &m, &ro, wr, NULL, NULL, NULL);
    if (rc != AF_OK)
      die("step", rc);
    if (st.steps != 1)
      die("the step was not taken in one", AF_EINVAL);
    for (size_t i = 0; i < N; i++)
      mpfr_set(yr[i], yb[i], MPFR_RNDN); /* exact: P -> P + 144 bits */
    double err = af_mp_vec_maxdiff(yr, ys, N);
    printf("LOCAL t0=%g h=%g K=%u error=%.3e estimate=%.3e "
           "error/estimate=%.3g\n", t0, h, K, err, st.err_est,
           err / st.err_est);
  }
  af_mp_vec_free(yr, N);
  af_mp_vec_free(ys, N);
  af_mp_vec_free(yb, N);
  af_mp_work_free(wr);
  af_mp_work_free(w);
  free(y0);
  return 0;
}

#define EXP_CALLS 200000

static int cmd_exp(const opts *o)
{
  mpfr_t *x = af_mp_vec_alloc(EXP_CALLS, o->prec),
         *a = af_mp_vec_alloc(EXP_CALLS, o->prec),
         *b = af_mp_vec_alloc(EXP_CALLS, o->prec);
  if (x == NULL || a == NULL || b == NULL)
    die("alloc", AF_ENOMEM);
  for (size_t i = 0; i < EXP_CALLS; i++) { /* -2 (i + 1/2) / calls */
    mpfr_set_ui(x[i], 2 * i + 1, MPFR_RNDN);
    mpfr_div_si(x[i], x[i], -EXP_CALLS, MPFR_RNDN);
  }
  double best[3] = {INFINITY, INFINITY, INFINITY};
  for (int pass = 0; pass < 5; pass++)
    for (int f = 0; f < 3; f++) {
      double t = cpu_now();
      for (size_t i = 0; i < EXP_CALLS; i++) {
        if (f == 0)
          af_mp_exp(a[i], x[i]);
        else if (f == 1)
          mpfr_exp(b[i], x[i], MPFR_RNDN);
        else
          mpfr_mul(b[i], x[i], x[i], MPFR_RNDN);
      }
      t = cpu_now() - t;
      if (t < best[f])
        best[f] = t;
      if (f == 1) { /* b holds mpfr_exp's results until the product */
        size_t differ = 0;
        for (size_t i = 0; i < EXP_CALLS; i++)
          differ += !mpfr_equal_p(a[i], b[i]);
        if (differ)
          die("af_mp_exp differs from mpfr_exp", AF_EINVAL);
      }
    }
  printf("EXP prec=%ld calls=%d af_mp_exp_us=%.3f mpfr_exp_us=%.3f "
         "mpfr_mul_us=%.3f ratio=%.2f differ=0\n", (long) o->prec,
         EXP_CALLS, 1e6 * best[0] / EXP_CALLS, 1e6 * best[1] / EXP_CALLS,
         1e6 * best[2] / EXP_CALLS, best[1] / best[0]);
  af_mp_vec_free(x, EXP_CALLS);
  af_mp_vec_free(a, EXP_CALLS);
  af_mp_vec_free(b, EXP_CALLS);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    usage();
  opts o;
  parse_opts(&o, argc, argv);
  if (!strcmp(argv[1], "init"))
    return cmd_init(&o);
  if (!strcmp(argv[1], "run"))
    return cmd_run(&o);
  if (!strcmp(argv[1], "rhs0"))
    return cmd_rhs0(&o);
  if (!strcmp(argv[1], "compare"))
    return cmd_compare(&o);
  if (!strcmp(argv[1], "local"))
    return cmd_local(&o);
  if (!strcmp(argv[1], "exp"))
    return cmd_exp(&o);
  usage();
  return 2;
}
