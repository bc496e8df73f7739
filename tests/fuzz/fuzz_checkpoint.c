/* fuzz_checkpoint.c -- libFuzzer harness of the checkpoint reader of
 * `attnflow run --precision` (af_mp_ck_read, --resume PATH), compiled
 * together with its source file so that the static reader is reachable.
 * The run it is checked against: n = 2, d = 2 (6 state values), 64
 * bits, 3 output times, 2 columns, and the parameter line AF_FUZZ_PARAMS
 * (the seed corpus carries checkpoints of exactly this run).
 *
 * The checksum of the input is recomputed first (the line after the last
 * "end" line is replaced by the right one), so that mutated contents get
 * past the integrity check to the plausibility check of a resumed state
 * and, when it passes, to af_mp_integrate_x resuming from it (at most 64
 * steps). */
#include "../../cli/cli_run_mp.c"

#define AF_FUZZ_PARAMS "scheme=post-ln; n=2; d=2; fuzz=1"

/* The command's message functions (main.c), silent here. */
void af_cli_error(const char *fmt, ...) { (void) fmt; }
void af_cli_warn(const char *fmt, ...) { (void) fmt; }
int af_cli_exit_status(int status) { return status == AF_OK ? 0 : 1; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  /* The bytes up to the last "end\n" and their right checksum line. */
  char *buf = malloc(size + 64);
  if (buf == NULL)
    return 0;
  memcpy(buf, data, size);
  size_t len = size;
  for (size_t k = size; k-- > 0;)
    if (k + 4 <= size && memcmp(buf + k, "end\n", 4) == 0
        && (k == 0 || buf[k - 1] == '\n')) {
      uint64_t h = af_fnv1a64(AF_FNV1A64_INIT, buf, k + 4);
      len = k + 4 + (size_t) snprintf(buf + k + 4, 60, "%s%016llx\n",
                                      CK_CHECKSUM, (unsigned long long) h);
      break;
    }
  FILE *f = fmemopen(buf, len, "r");
  if (f == NULL) {
    free(buf);
    return 0;
  }
  static const double td[3] = {0, 0.5, 1};
  af_run_cfg c;
  memset(&c, 0, sizeof c);
  c.n = 2;
  c.d = 2;
  c.ntimes = 3;
  c.nobs = 2;
  c.precision = 64;
  af_mp_run x;
  memset(&x, 0, sizeof x);
  x.c = &c;
  x.prec = 64;
  x.N = af_state_size(c.n, c.d);
  x.itimes = af_mp_vec_alloc(3, x.prec);
  if (x.itimes != NULL)
    af_mp_vec_set_d(x.itimes, td, 3);
  x.nitimes = 3;
  x.params = (char *) AF_FUZZ_PARAMS;
  x.y = af_mp_vec_alloc(x.N, x.prec);
  x.rows = af_mp_vec_alloc(c.ntimes * c.nobs, x.prec);
  af_mp_ckpt ck;
  memset(&ck, 0, sizeof ck);
  mpfr_t t;
  mpfr_init2(t, x.prec);
  ck.t = t;
  char msg[512];
  size_t line;
  af_model m;
  af_model_init(&m, c.n, c.d, 1.0, AF_POST_LN);
  x.m = &m;
  if (x.y && x.rows && x.itimes) {
    /* A start on the sphere, as the run's own would be. */
    static const double y0[6] = {1, 0, 0.6, 0.8, 1, 1};
    af_mp_vec_set_d(x.y, y0, 6);
    double off0[2] = {af_mp_dir_off(&x, 0), af_mp_dir_off(&x, 1)};
    int rc = af_mp_ck_read(&ck, &x, f, &line, msg, sizeof msg);
    if (rc == AF_OK && (x.ncalls > x.nitimes || !mpfr_number_p(t)))
      abort();
    if (rc == AF_OK && af_mp_ck_plausible(&ck, &x, off0, msg, sizeof msg)) {
      af_mp_work *w = af_mp_work_alloc(c.n, c.d, x.prec);
      af_mp_opts o;
      af_mp_opts_init(&o);
      o.method = ck.method;
      o.tol = ck.tol;
      if (ck.method == AF_MP_GAUSS)
        o.stages = ck.order / 2;
      else
        o.columns = ck.order / 2;
      o.max_steps = ck.stats.steps + ck.stats.rejected + 64;
      o.resume = &ck;
      af_mp_stats st;
      if (w != NULL && ck.order >= 2 && ck.order <= 24) /* bounded work */
        (void) af_mp_integrate_x(x.y, x.itimes, x.nitimes, &m, &o, w, NULL,
                                 NULL, &st);
      af_mp_work_free(w);
    }
  }
  mpfr_clear(t);
  af_mp_vec_free(x.rows, c.ntimes * c.nobs);
  af_mp_vec_free(x.y, x.N);
  af_mp_vec_free(x.itimes, 3);
  fclose(f);
  free(buf);
  return 0;
}
