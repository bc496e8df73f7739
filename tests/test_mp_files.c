/* test_mp_files.c -- what the MPFR integrators write for a later run:
 * checkpoints (a run resumed from any one ends bit-identical to the
 * uninterrupted run) and reference files (af_mp_ref_write / read round
 * trip, and what the reader refuses) (attnflow_mp.h).  The kernels,
 * tableaux, integrators and observables are tested in test_mp.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aftest.h"
#include "attnflow_mp.h"
#include "mp_test.h"

/* ------------------------------------------------------------ checkpoints */

/* Deep copies of the checkpoints a run reports (y and t included). */
typedef struct {
  size_t count, cap, N;
  af_mp_ckpt *ck;
  mpfr_t *t;   /* count */
  mpfr_t **y;  /* count x N */
  int stop_at; /* return AF_EIO at this STEP report (-1: never) */
  int ends, fails;
} ck_log;

static int ck_log_fn(const af_mp_ckpt *ck, mpfr_t *y, void *ctx)
{
  ck_log *L = ctx;
  ck_assert(ck->len == L->N);
  if (ck->event == AF_MP_CK_END)
    L->ends++;
  if (ck->event == AF_MP_CK_FAIL)
    L->fails++;
  if (L->count == L->cap) {
    L->cap = L->cap ? 2 * L->cap : 64;
    L->ck = realloc(L->ck, L->cap * sizeof *L->ck);
    L->t = realloc(L->t, L->cap * sizeof *L->t);
    L->y = realloc(L->y, L->cap * sizeof *L->y);
  }
  size_t k = L->count++;
  L->ck[k] = *ck;
  mpfr_init2(L->t[k], mpfr_get_prec(ck->t));
  mpfr_set(L->t[k], ck->t, RND);
  L->ck[k].t = L->t[k];
  L->y[k] = af_mp_vec_alloc(L->N, ck->prec);
  af_mp_vec_set(L->y[k], y, L->N);
  if (ck->event == AF_MP_CK_STEP && L->stop_at >= 0 && (int) k == L->stop_at)
    return AF_EIO;
  return AF_OK;
}

static void ck_log_free(ck_log *L)
{
  for (size_t k = 0; k < L->count; k++) {
    mpfr_clear(L->t[k]);
    af_mp_vec_free(L->y[k], L->N);
  }
  free(L->ck);
  free(L->t);
  free(L->y);
}

/* Output log: the times and states passed to the output callback. */
typedef struct {
  size_t count, N;
  double t[16];
  mpfr_t *y[16];
} out_log;

static int out_log_fn(double t, mpfr_t *y, void *ctx)
{
  out_log *L = ctx;
  ck_assert(L->count < 16);
  L->t[L->count] = t;
  L->y[L->count] = af_mp_vec_alloc(L->N, mpfr_get_prec(y[0]));
  af_mp_vec_set(L->y[L->count], y, L->N);
  L->count++;
  return AF_OK;
}

static void out_log_free(out_log *L)
{
  for (size_t k = 0; k < L->count; k++)
    af_mp_vec_free(L->y[k], L->N);
}

START_TEST(test_checkpoint_resume)
{
  /* A run resumed from any checkpoint it reported ends bit-identical to
   * the uninterrupted run: state, outputs, steps, rejected steps,
   * evaluations and error estimate.  Mix-LN (a breakpoint at tau) with
   * several output times, both methods; resumed from a checkpoint in the
   * first piece, one at the end of a piece, and the last one. */
  const size_t n = 4, d = 3, N = n * d + n;
  const mpfr_prec_t P = 192;
  double y0[16];
  aft_random_state(y0, n, d, aft_seed(42));
  af_model m;
  af_model_init(&m, n, d, 2.0, AF_MIX_LN);
  m.tau = 0.7;
  const double times[4] = {0, 0.5, 1.0, 1.5};
  for (int meth = 0; meth < AF_MP_METHOD_COUNT; meth++) {
    af_mp_work *w = af_mp_work_alloc(n, d, P);
    af_mp_opts o;
    af_mp_opts_init(&o);
    ck_assert_ptr_null(o.checkpoint);
    ck_assert_ptr_null(o.resume);
    o.method = (af_mp_method) meth;
    o.tol = 1e-40;
    ck_log L = {0, 0, N, NULL, NULL, NULL, -1, 0, 0};
    o.checkpoint = ck_log_fn;
    o.checkpoint_ctx = &L;
    out_log A = {0, N, {0}, {NULL}};
    mpfr_t *ya = af_mp_vec_alloc(N, P);
    af_mp_vec_set_d(ya, y0, N);
    af_mp_stats sa;
    AFT_OK(af_mp_integrate(ya, times, 4, &m, &o, w, out_log_fn, &A, &sa));
    ck_assert_uint_eq(L.ends, 1);
    ck_assert_uint_eq(L.fails, 0);
    ck_assert_uint_eq(L.count, sa.steps + 1); /* every accepted step, and the end */
    ck_assert_uint_eq(A.count, 4);
    /* The one that ends a piece at tau = 0.7. */
    size_t at_tau = 0;
    for (size_t k = 0; k < L.count; k++)
      if (L.ck[k].piece_hi == m.tau && mpfr_cmp_d(L.ck[k].t, m.tau) == 0)
        at_tau = k;
    ck_assert(at_tau > 0);
    size_t picks[4] = {1, at_tau, L.count - 2, L.count - 1};
    for (int pi = 0; pi < 4; pi++) {
      const af_mp_ckpt *ck = &L.ck[picks[pi]];
      mpfr_t *yb = af_mp_vec_alloc(N, P);
      af_mp_vec_set(yb, L.y[picks[pi]], N);
      af_mp_opts ob = o;
      ob.checkpoint = NULL;
      ob.resume = ck;
      out_log B = {0, N, {0}, {NULL}};
      af_mp_stats sb;
      af_mp_work *w2 = af_mp_work_alloc(n, d, P); /* a fresh process */
      AFT_OK(af_mp_integrate(yb, times, 4, &m, &ob, w2, out_log_fn, &B, &sb));
      for (size_t i = 0; i < N; i++)
        ck_assert_msg(mpfr_equal_p(ya[i], yb[i]), "%s pick %d: y[%zu] differs",
                      af_mp_method_name(o.method), pi, i);
      ck_assert_uint_eq(sb.steps, sa.steps);
      ck_assert_uint_eq(sb.rejected, sa.rejected);
      ck_assert_uint_eq(sb.nevals, sa.nevals);
      ck_assert(same_bits(sb.err_est, sa.err_est));
      ck_assert(same_bits(sb.t_reached, sa.t_reached));
      /* Outputs from next_out on, equal to the uninterrupted ones. */
      ck_assert_uint_eq(B.count, 4 - ck->next_out);
      for (size_t k = 0; k < B.count; k++) {
        ck_assert(same_bits(B.t[k], A.t[ck->next_out + k]));
        for (size_t i = 0; i < N; i++)
          ck_assert(mpfr_equal_p(B.y[k][i], A.y[ck->next_out + k][i]));
      }
      out_log_free(&B);
      af_mp_work_free(w2);
      af_mp_vec_free(yb, N);
    }
    fprintf(stderr, "%s: %zu checkpoints, resumed from 4 of them bit-identically\n",
            af_mp_method_name(o.method), L.count);
    /* Mismatched resumes: AF_EINVAL, y untouched. */
    {
      mpfr_t *yb = af_mp_vec_alloc(N, P);
      af_mp_vec_set(yb, L.y[1], N);
      af_mp_opts ob = o;
      ob.checkpoint = NULL;
      ob.resume = &L.ck[1];
      ob.tol = 1e-41;
      AFT_STATUS(af_mp_integrate(yb, times, 4, &m, &ob, w, NULL, NULL, NULL), AF_EINVAL);
      ob.tol = o.tol;
      ob.method = (af_mp_method) (1 - meth);
      AFT_STATUS(af_mp_integrate(yb, times, 4, &m, &ob, w, NULL, NULL, NULL), AF_EINVAL);
      ob.method = o.method;
      af_mp_ckpt bad = L.ck[1];
      bad.next_out = 5;
      ob.resume = &bad;
      AFT_STATUS(af_mp_integrate(yb, times, 4, &m, &ob, w, NULL, NULL, NULL), AF_EINVAL);
      bad = L.ck[1];
      bad.piece_hi = 1.0; /* not the piece the run takes (tau = 0.7) */
      AFT_STATUS(af_mp_integrate(yb, times, 4, &m, &ob, w, NULL, NULL, NULL), AF_EINVAL);
      mpfr_t *y3 = af_mp_vec_alloc(N, P + 64);
      af_mp_vec_set(y3, L.y[1], N);
      ob.resume = &L.ck[1];
      AFT_STATUS(af_mp_integrate(y3, times, 4, &m, &ob, w, NULL, NULL, NULL), AF_EINVAL);
      af_mp_vec_free(y3, N);
      for (size_t i = 0; i < N; i++)
        ck_assert(mpfr_equal_p(yb[i], L.y[1][i]));
      af_mp_vec_free(yb, N);
    }
    /* A callback's non-zero return stops the run with that status and a
     * FAIL report; resuming from the last STEP report finishes the run
     * identically. */
    {
      ck_log S = {0, 0, N, NULL, NULL, NULL, 3, 0, 0};
      af_mp_opts os = o;
      os.checkpoint_ctx = &S;
      mpfr_t *yc = af_mp_vec_alloc(N, P);
      af_mp_vec_set_d(yc, y0, N);
      AFT_STATUS(af_mp_integrate(yc, times, 4, &m, &os, w, NULL, NULL, NULL), AF_EIO);
      ck_assert_uint_eq(S.count, 4); /* stopped at the fourth; no FAIL report after a callback error */
      ck_assert_uint_eq(S.fails, 0);
      af_mp_opts ob = o;
      ob.checkpoint = NULL;
      ob.resume = &S.ck[3];
      af_mp_vec_set(yc, S.y[3], N);
      AFT_OK(af_mp_integrate(yc, times, 4, &m, &ob, w, NULL, NULL, NULL));
      for (size_t i = 0; i < N; i++)
        ck_assert(mpfr_equal_p(ya[i], yc[i]));
      af_mp_vec_free(yc, N);
      ck_log_free(&S);
    }
    /* A failing run reports FAIL with the state of its last accepted step. */
    {
      ck_log F = {0, 0, N, NULL, NULL, NULL, -1, 0, 0};
      af_mp_opts of = o;
      of.checkpoint_ctx = &F;
      of.max_steps = 5;
      mpfr_t *yc = af_mp_vec_alloc(N, P);
      af_mp_vec_set_d(yc, y0, N);
      af_mp_stats sf;
      AFT_STATUS(af_mp_integrate(yc, times, 4, &m, &of, w, NULL, NULL, &sf), AF_EMAXSTEPS);
      ck_assert_uint_eq(F.fails, 1);
      const af_mp_ckpt *last = &F.ck[F.count - 1];
      ck_assert_int_eq(last->event, AF_MP_CK_FAIL);
      ck_assert_int_eq(last->status, AF_EMAXSTEPS);
      for (size_t i = 0; i < N; i++)
        ck_assert(mpfr_equal_p(F.y[F.count - 1][i], yc[i]));
      /* ... and raising the step limit, it resumes to the same end. */
      af_mp_opts ob = o;
      ob.checkpoint = NULL;
      ob.resume = last;
      AFT_OK(af_mp_integrate(yc, times, 4, &m, &ob, w, NULL, NULL, NULL));
      for (size_t i = 0; i < N; i++)
        ck_assert(mpfr_equal_p(ya[i], yc[i]));
      af_mp_vec_free(yc, N);
      ck_log_free(&F);
    }
    out_log_free(&A);
    ck_log_free(&L);
    af_mp_vec_free(ya, N);
    af_mp_work_free(w);
  }
}
END_TEST

/* ------------------------------------------------------------ reference files */

static char *ref_text(mpfr_t t, mpfr_t *y, size_t len)
{
  af_mp_ref_info info = {"test_mp", af_commit(), "mp-gauss", "n=2 d=2", 7, 1e-60, 2e-62};
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  AFT_OK(af_mp_ref_write(f, &info, t, y, len));
  long sz = ftell(f);
  ck_assert(sz > 0);
  rewind(f);
  char *buf = malloc((size_t) sz + 1);
  ck_assert_uint_eq(fread(buf, 1, (size_t) sz, f), (size_t) sz);
  buf[sz] = '\0';
  fclose(f);
  return buf;
}

static int ref_parse(const char *text, mpfr_t t, mpfr_t *y, size_t len, size_t *line)
{
  FILE *f = fmemopen((void *) text, strlen(text), "r");
  int rc = af_mp_ref_read(t, y, len, line, f);
  fclose(f);
  return rc;
}

START_TEST(test_ref_roundtrip)
{
  const size_t len = 5;
  const mpfr_prec_t P = 300;
  mpfr_t *y = af_mp_vec_alloc(len, P), *z = af_mp_vec_alloc(len, P);
  mpfr_t t, u;
  mpfr_inits2(P, t, u, (mpfr_ptr) 0);
  mpfr_const_pi(t, RND);
  for (size_t i = 0; i < len; i++) {
    mpfr_set_ui(y[i], (unsigned long) i + 1, RND);
    mpfr_sqrt(y[i], y[i], RND);
    if (i % 2)
      mpfr_neg(y[i], y[i], RND);
  }
  mpfr_set_zero(y[2], -1);
  mpfr_mul_2si(y[3], y[3], -2000, RND); /* outside the double range */
  char *text = ref_text(t, y, len);
  size_t line = 99;
  AFT_OK(ref_parse(text, u, z, len, &line));
  ck_assert_uint_eq(line, 0);
  ck_assert(mpfr_equal_p(t, u));
  for (size_t i = 0; i < len; i++)
    ck_assert_msg(mpfr_equal_p(y[i], z[i]) && mpfr_signbit(y[i]) == mpfr_signbit(z[i]),
                  "value %zu not exact", i);
  ck_assert_ptr_nonnull(strstr(text, "# precision: 300\n"));
  ck_assert_ptr_nonnull(strstr(text, "# method: mp-gauss\n"));
  /* Malformed files: AF_EPARSE with the line.  Header is 10 lines, t on
   * line 11, values on lines 12..16. */
  struct {
    const char *from, *to; /* replace first occurrence */
    size_t line;
  } bad[] = {
    {"# attnflow reference v1", "# attnflow reference v2", 1},
    {"# count: 5", "# count: 4", 10},
    {"# count: 5", "# count: x", 10},
    {"\nt 0x", "\nt 0y", 11},
    {"\nt 0x", "\ntt 0x", 11},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char *s = malloc(strlen(text) + 64);
    const char *p = strstr(text, bad[k].from);
    ck_assert_ptr_nonnull(p);
    size_t pre = (size_t) (p - text);
    memcpy(s, text, pre);
    strcpy(s + pre, bad[k].to);
    strcat(s, p + strlen(bad[k].from));
    AFT_STATUS(ref_parse(s, u, z, len, &line), AF_EPARSE);
    ck_assert_msg(line == bad[k].line, "case %zu: line %zu, wanted %zu", k, line, bad[k].line);
    free(s);
  }
  /* A garbled value on line 13, trailing junk on line 12. */
  {
    char *s = strdup(text);
    char *l = s;
    for (int k = 1; k < 13; k++)
      l = strchr(l, '\n') + 1;
    l[0] = 'z';
    AFT_STATUS(ref_parse(s, u, z, len, &line), AF_EPARSE);
    ck_assert_uint_eq(line, 13);
    free(s);
  }
  {
    char *s = malloc(strlen(text) + 8);
    char *l = strdup(text);
    char *p = l;
    for (int k = 1; k < 12; k++)
      p = strchr(p, '\n') + 1;
    char *e = strchr(p, '\n');
    *e = '\0';
    sprintf(s, "%s junk\n%s", l, e + 1);
    AFT_STATUS(ref_parse(s, u, z, len, &line), AF_EPARSE);
    ck_assert_uint_eq(line, 12);
    free(s);
    free(l);
  }
  /* Truncated: the line after the last one. */
  {
    char *s = strdup(text);
    char *p = s;
    for (int k = 1; k < 15; k++)
      p = strchr(p, '\n') + 1;
    *p = '\0'; /* lines 1..14 */
    AFT_STATUS(ref_parse(s, u, z, len, &line), AF_EPARSE);
    ck_assert_uint_eq(line, 15);
    free(s);
  }
  /* Not representable at a lower precision: rejected, not rounded. */
  mpfr_t *z2 = af_mp_vec_alloc(len, 100);
  mpfr_t u2;
  mpfr_init2(u2, 100);
  AFT_STATUS(ref_parse(text, u2, z2, len, &line), AF_EPARSE);
  ck_assert_uint_eq(line, 11);
  mpfr_clear(u2);
  af_mp_vec_free(z2, len);
  free(text);
  mpfr_clears(t, u, (mpfr_ptr) 0);
  af_mp_vec_free(y, len);
  af_mp_vec_free(z, len);
}
END_TEST

START_TEST(test_checkpoint_resume_memory)
{
  /* mp-gbs's predictive step factor (gbs_predict) reads the last accepted
   * step's length and estimate, which a checkpoint carries (ctl_h,
   * ctl_err): clustering Post-LN tokens, where the estimate grows from step
   * to step and the predictive factor decides steps, resumed from every
   * checkpoint, end bit-identical to the uninterrupted run.  A resume that
   * drops the memory ends elsewhere (checked here by zeroing ctl_h in a
   * copy of the checkpoint). */
  const size_t n = 6, d = 3, N = n * d + n;
  const mpfr_prec_t P = 128;
  double y0[32];
  aft_random_state(y0, n, d, aft_seed(7));
  af_model m;
  af_model_init(&m, n, d, 2.0, AF_POST_LN);
  const double times[2] = {0, 5.0};
  af_mp_work *w = af_mp_work_alloc(n, d, P);
  af_mp_opts o;
  af_mp_opts_init(&o);
  o.method = AF_MP_GBS;
  o.tol = 1e-25;
  ck_log L = {0, 0, N, NULL, NULL, NULL, -1, 0, 0};
  o.checkpoint = ck_log_fn;
  o.checkpoint_ctx = &L;
  mpfr_t *ya = af_mp_vec_alloc(N, P);
  af_mp_vec_set_d(ya, y0, N);
  af_mp_stats sa;
  AFT_OK(af_mp_integrate(ya, times, 2, &m, &o, w, NULL, NULL, &sa));
  ck_assert_uint_eq(L.count, sa.steps + 1);
  size_t with_memory = 0, differ = 0;
  for (size_t k = 0; k + 1 < L.count; k++) {
    const af_mp_ckpt *ck = &L.ck[k];
    ck_assert(ck->ctl_h >= 0 && ck->ctl_err >= 0);
    for (int drop = 0; drop <= (ck->ctl_h > 0); drop++) {
      af_mp_ckpt c2 = *ck;
      if (drop)
        c2.ctl_h = 0;
      mpfr_t *yb = af_mp_vec_alloc(N, P);
      af_mp_vec_set(yb, L.y[k], N);
      af_mp_opts ob = o;
      ob.checkpoint = NULL;
      ob.resume = &c2;
      af_mp_stats sb;
      af_mp_work *w2 = af_mp_work_alloc(n, d, P);
      AFT_OK(af_mp_integrate(yb, times, 2, &m, &ob, w2, NULL, NULL, &sb));
      int same = sb.steps == sa.steps && sb.nevals == sa.nevals
                 && same_bits(sb.err_est, sa.err_est);
      for (size_t i = 0; i < N; i++)
        same = same && mpfr_equal_p(ya[i], yb[i]);
      if (!drop)
        ck_assert_msg(same, "checkpoint %zu: the resumed run differs", k);
      else {
        with_memory++;
        differ += !same;
      }
      af_mp_work_free(w2);
      af_mp_vec_free(yb, N);
    }
  }
  fprintf(stderr, "mp-gbs memory: %zu checkpoints, %zu with a memory; "
          "dropping it changed the run from %zu of them\n", L.count,
          with_memory, differ);
  ck_assert_uint_gt(differ, 0);
  ck_log_free(&L);
  af_mp_vec_free(ya, N);
  af_mp_work_free(w);
}
END_TEST

static Suite *mp_files_suite(void)
{
  Suite *s = suite_create("mp_files");
  TCase *ck = tcase_create("checkpoint");
  tcase_set_timeout(ck, 120);
  tcase_add_test(ck, test_checkpoint_resume);
  tcase_add_test(ck, test_checkpoint_resume_memory);
  suite_add_tcase(s, ck);
  TCase *rf = tcase_create("reference");
  tcase_add_test(rf, test_ref_roundtrip);
  suite_add_tcase(s, rf);
  return s;
}

int main(void) { return aft_run(mp_files_suite()); }
