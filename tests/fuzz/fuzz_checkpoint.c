/* fuzz_checkpoint.c -- libFuzzer harness of the checkpoint reader of
 * `attnflow run --precision` (af_mp_ck_read, --resume PATH), compiled
 * together with its source file so that the static reader is reachable.
 * The run it is checked against: n = 2, d = 2 (6 state values), 64
 * bits, 3 output times, 2 columns, and the parameter line AF_FUZZ_PARAMS
 * (the seed corpus carries checkpoints of exactly this run). */
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
  FILE *f = fmemopen((void *) data, size, "r");
  if (f == NULL)
    return 0;
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
  if (x.y && x.rows && x.itimes) {
    int rc = af_mp_ck_read(&ck, &x, f, &line, msg, sizeof msg);
    if (rc == AF_OK && (x.ncalls > x.nitimes || !mpfr_number_p(t)))
      abort();
  }
  mpfr_clear(t);
  af_mp_vec_free(x.rows, c.ntimes * c.nobs);
  af_mp_vec_free(x.y, x.N);
  af_mp_vec_free(x.itimes, 3);
  fclose(f);
  return 0;
}
