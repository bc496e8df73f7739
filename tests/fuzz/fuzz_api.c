/* fuzz_api.c -- libFuzzer harness of the public C API (attnflow.h,
 * attnflow_mp.h): the input is decoded into one call and its arguments
 * -- sizes (among them 0, SIZE_MAX and products that wrap), doubles
 * (among them NaN, infinities, huge and negative values), precisions,
 * thread counts, names with odd bytes, NULL pointers -- and the call must
 * return without a crash or a sanitizer report.  Buffers passed with a
 * size are always of that size (a caller that lies about a length is
 * outside any contract); large sizes go with NULL, which must be refused.
 * Work is bounded: at most 16 tokens in 8 dimensions, 1000 steps. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attnflow.h"
#include "attnflow_mp.h"

typedef struct {
  const uint8_t *p;
  size_t n;
} af_fz;

static unsigned af_fz_byte(af_fz *z)
{
  if (z->n == 0)
    return 0;
  z->n--;
  return *z->p++;
}

static size_t af_fz_size(af_fz *z)
{
  static const size_t special[] = {0, 1, 2, 3, 7, 16, SIZE_MAX,
                                   SIZE_MAX / 2 + 1,
                                   ((size_t) 1 << (sizeof(size_t) * 4)) + 1};
  unsigned b = af_fz_byte(z);
  if (b < 64)
    return special[b % (sizeof special / sizeof special[0])];
  return b - 64;
}

static double af_fz_double(af_fz *z)
{
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-300,
                                   1e300, DBL_MAX, 2.2250738585072014e-308};
  unsigned b = af_fz_byte(z);
  if (b < 9)
    return special[b];
  if (b == 9)
    return NAN;
  if (b == 10)
    return INFINITY;
  if (b == 11)
    return -INFINITY;
  uint64_t u = 0;
  for (int i = 0; i < 8; i++)
    u = (u << 8) | af_fz_byte(z);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* A NUL-terminated string of up to 31 input bytes. */
static void af_fz_str(af_fz *z, char *s)
{
  size_t len = af_fz_byte(z) % 32;
  for (size_t i = 0; i < len; i++)
    s[i] = (char) af_fz_byte(z);
  s[len] = '\0';
}

static int af_fz_task(double *row, size_t r, void *ctx)
{
  (void) ctx;
  row[0] = (double) r;
  return AF_OK;
}

static void af_fz_model(af_fz *z, af_model *m, size_t n, size_t d)
{
  af_model_init(m, n, d, af_fz_double(z), (af_scheme_id) (af_fz_byte(z) % 8));
  m->attn = (af_attn_kind) (af_fz_byte(z) % 4);
  if (af_fz_byte(z) & 1)
    m->alpha = af_fz_double(z);
  if (af_fz_byte(z) & 1)
    m->alpha_decay = af_fz_double(z);
  if (af_fz_byte(z) & 1)
    m->tau = af_fz_double(z);
}

/* A refused huge allocation is an answer (NULL, AF_ENOMEM), not a
 * crash: AddressSanitizer returns NULL as the C library would. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  af_fz z = {data, size};
  char name[32];
  unsigned op = af_fz_byte(&z);
  size_t n = af_fz_size(&z), d = af_fz_size(&z);
  /* Small cases get real buffers; large ones only NULL. */
  int small = n >= 1 && n <= 16 && d >= 1 && d <= 8;
  size_t N = small ? af_state_size(n, d) : 0;
  double *y = small ? calloc(N, sizeof *y) : NULL;
  double *dy = small ? calloc(N, sizeof *dy) : NULL;
  if (y != NULL)
    for (size_t i = 0; i < N; i++)
      y[i] = af_fz_double(&z);
  af_model m;
  af_fz_model(&z, &m, n, d);
  switch (op % 15) {
  case 0: {
    af_scheme_id id;
    af_obs_id ob;
    af_method me;
    af_mp_method mm;
    af_fz_str(&z, name);
    (void) af_scheme_lookup(&id, name);
    (void) af_obs_lookup(&ob, name);
    (void) af_method_lookup(&me, name);
    (void) af_mp_method_lookup(&mm, name);
    (void) af_strerror((int) af_fz_byte(&z) - 128);
    break;
  }
  case 1:
    (void) af_model_validate(&m);
    (void) af_model_alpha(&m, af_fz_double(&z));
    (void) af_state_size(n, d);
    break;
  case 2: {
    af_work *w = af_work_alloc(n, d);
    if (w != NULL && y != NULL) {
      (void) af_work_set_kernel(w, (af_kernel) (af_fz_byte(&z) % 3));
      (void) af_rhs(dy, af_fz_double(&z), y, &m, w);
      (void) af_speeds(NULL, NULL, af_fz_double(&z), y, &m, w);
    }
    af_work_free(w);
    break;
  }
  case 3: {
    af_work *w = af_work_alloc(n, d);
    double obs[AF_OBS_COUNT];
    if (w != NULL && y != NULL)
      (void) af_observe(obs, 0, y, af_fz_double(&z), &m, w);
    af_work_free(w);
    break;
  }
  case 4: {
    double f;
    (void) af_pairs_above(&f, y, y ? n : n + 1, d, af_fz_double(&z));
    break;
  }
  case 5: {
    size_t line;
    af_fz_str(&z, name);
    if (strncmp(name, "file:", 5) != 0) /* no paths of the input */
      (void) af_init_state(y, &line, name, n, d, af_fz_double(&z),
                           (unsigned long) af_fz_size(&z));
    break;
  }
  case 6: {
    af_weights *w = af_weights_alloc(d, af_fz_size(&z), af_fz_double(&z));
    if (w != NULL && d <= 8 && w->layers <= 16)
      (void) af_weights_kaiming(w, af_fz_byte(&z));
    af_weights_free(w);
    break;
  }
  case 7: {
    af_integ_opts o;
    af_integ_opts_init(&o);
    o.method = (af_method) (af_fz_byte(&z) % 9);
    o.rtol = af_fz_double(&z);
    o.atol = af_fz_double(&z);
    o.h = af_fz_double(&z);
    o.fixed = af_fz_byte(&z) & 1;
    o.max_steps = 1 + af_fz_byte(&z) * 4; /* bounded work */
    double times[3] = {0, af_fz_double(&z), af_fz_double(&z)};
    af_work *w = af_work_alloc(n, d);
    if (af_integ_opts_check(&o) == AF_OK && w != NULL && y != NULL
        && (o.method != AF_METHOD_LAYERS && !o.fixed && o.method != AF_METHOD_RK4))
      (void) af_integrate(y, times, 3, &m, &o, w, NULL, NULL, NULL);
    else
      (void) af_integrate(NULL, times, 3, &m, &o, w, NULL, NULL, NULL);
    af_work_free(w);
    break;
  }
  case 8: {
    double rows[4];
    int st[4];
    int nth = (int) (int16_t) (af_fz_byte(&z) << 8 | af_fz_byte(&z));
    if (nth > 4)
      nth = nth > 8 ? 100000 : nth; /* far too many, or a few */
    (void) af_sweep_exec(rows, st, n <= 4 ? n : 4, 1, af_fz_task, NULL, NULL,
                         nth, NULL, NULL);
    break;
  }
  case 9: {
    mpfr_prec_t prec = (mpfr_prec_t) (int32_t) (af_fz_byte(&z) << 24
                                                | af_fz_byte(&z) << 16
                                                | af_fz_byte(&z) << 8
                                                | af_fz_byte(&z));
    if (prec > 4096 && prec <= AF_PREC_MAX)
      prec = 4096; /* bounded memory */
    mpfr_t *v = af_mp_vec_alloc(small ? N : 0, prec);
    af_mp_vec_set_d(v, y, small && v ? N : 0);
    af_mp_vec_free(v, small ? N : 0);
    af_mp_work *w = af_mp_work_alloc(n, d, prec);
    af_mp_work_free(w);
    break;
  }
  case 10: {
    mpfr_t r;
    mpfr_init2(r, 64);
    af_fz_str(&z, name);
    (void) af_mp_parse(r, name);
    mpfr_clear(r);
    break;
  }
  case 11: {
    unsigned s = af_fz_byte(&z) % 40;
    mpfr_t *A = af_mp_vec_alloc(s * s, 64), *b = af_mp_vec_alloc(s, 64),
           *c = af_mp_vec_alloc(s, 64);
    (void) af_mp_gauss_tableau(A, b, c, s);
    af_mp_vec_free(A, s * s);
    af_mp_vec_free(b, s);
    af_mp_vec_free(c, s);
    unsigned long num, den;
    af_mp_gbs_ratio(&num, &den, af_fz_byte(&z), af_fz_byte(&z));
    break;
  }
  case 12: {
    af_mp_params p;
    size_t ps = af_fz_size(&z); /* 0, small, or huge (SIZE_MAX / 2) */
    mpfr_prec_t prec = ps > 4096 ? (mpfr_prec_t) (ps >> 1)
                                 : (mpfr_prec_t) ps * 64 - 128;
    if (af_mp_params_init(&p, &m, prec) == AF_OK)
      af_mp_params_clear(&p);
    break;
  }
  case 13: {
    /* The kernel chooser, the work estimate (any kernel number, any
     * thread count) and a spec evaluated at any point. */
    af_kernel k = af_kernel_auto(n, d);
    if (k != AF_KERNEL_BLAS && k != AF_KERNEL_TILED)
      abort();
    (void) af_work_bytes(n, d, (af_kernel) ((int) af_fz_byte(&z) % 5 - 1),
                         (int) (af_fz_byte(&z) << 16) - (1 << 23));
    static const char spec[] = "name = fz\nparam k = 2\n"
                               "speed = r * (na + k) / (1 + t)\n"
                               "radial = ta / (na + k)\nlayer = residual\n"
                               "branch = sqrt(1 + abs(alpha - tau))\n";
    af_scheme_spec *sp = NULL;
    if (af_scheme_spec_parse(&sp, NULL, spec, sizeof spec - 1) == AF_OK) {
      double s, rho, g, v[6];
      for (int i = 0; i < 6; i++)
        v[i] = af_fz_double(&z);
      (void) af_scheme_spec_eval(af_fz_byte(&z) & 1 ? &s : NULL, &rho, &g,
                                 sp, v[0], v[1], v[2], v[3], v[4], v[5]);
      (void) af_scheme_spec_row(sp);
      (void) af_scheme_spec_vars(sp);
      af_scheme_spec_free(sp);
    }
    break;
  }
  default: {
    double v;
    af_fz_str(&z, name);
    (void) af_limit_get(&v, name);
    (void) af_limit_name(af_fz_size(&z));
    break;
  }
  }
  free(y);
  free(dy);
  return 0;
}
