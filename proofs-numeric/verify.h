/* verify.h -- claims: one per theorem ID of theory/theorems.md (and
 * per scheme where the statement is per scheme).
 *
 * A claim sets up its case, runs the simulation (src/), asks theory/ for
 * the prediction, and compares within a tolerance taken from
 * data/tolerances.tsv, whose row says where the value comes from.  It
 * returns PASS, FAIL or INCONCLUSIVE (never a silent pass); the runner
 * compares that with the claim's expected outcome.  Claims never print.
 */
#ifndef AF_VERIFY_H
#define AF_VERIFY_H

#include <stddef.h>
#include <stdio.h>

#include "attnflow.h"

typedef enum {
  AF_V_PASS = 0,
  AF_V_FAIL,
  AF_V_INCONCLUSIVE,
  AF_V_ERROR, /* the claim could not run (library error): never expected */
  /* Certified claims (ball arithmetic, proofs-numeric/claims_cert.c,
     claims_proofs.c): */
  AF_V_CERTIFIED,  /* proven: the exact value lies in the ball / the
                      inequality holds on the whole interval              */
  AF_V_NOCERT,     /* could-not-certify: budget exhausted, no a-priori
                      enclosure, independent check inconclusive, or built
                      without Arb (never a silent pass)                   */
  AF_V_REFUTED,    /* interval evaluation proves the opposite           */
  AF_V_STATUS_COUNT
} af_vstatus;

/* "pass", "fail", "inconclusive", "error", "certified",
 * "could-not-certify", "refuted". */
const char *af_vstatus_name(af_vstatus s);

typedef enum { AF_LEVEL_QUICK = 0, AF_LEVEL_FULL } af_level;

/* One row of data/tolerances.tsv. */
typedef struct {
  char key[48];       /* e.g. "T4.1.cos_mean"                       */
  char quantity[96];  /* what is compared                            */
  char kind[16];      /* abs | rel | slack | order | ratio            */
  double value;
  char origin[400];   /* where the value comes from                  */
} af_tol_row;

typedef struct {
  af_tol_row *rows;
  size_t count;
} af_tol_table;

/* Parse a tolerance table from text (TSV: key, quantity, kind, value,
 * origin; '#' comments).  *line receives the line of an error. */
int af_tol_parse(af_tol_table *t, const char *text, size_t *line);
int af_tol_read(af_tol_table *t, const char *path, size_t *line);
void af_tol_free(af_tol_table *t);
const af_tol_row *af_tol_find(const af_tol_table *t, const char *key);
/* The table compiled into the binary from data/tolerances.tsv. */
extern const char af_tolerances_tsv[];

/* What every claim receives. */
typedef struct {
  af_level level;
  unsigned fault;            /* AF_FAULT_* bits to inject into every model */
  const af_tol_table *tol;
  int broken_only;           /* runner: only claims with breaks & fault    */
} af_vctx;

/* What a claim reports. */
typedef struct {
  af_vstatus status;
  double measured, predicted, tolerance;
  double margin;  /* > 0: inside the tolerance by this fraction of it   */
  char note[320]; /* case, numbers, reason for INCONCLUSIVE or ERROR    */
} af_vresult;

typedef void (*af_claim_fn)(af_vresult *r, const af_vctx *c, int arg);

typedef struct {
  const char *id;       /* theorem ID: "T4.1", "I2", "S7", ...          */
  const char *scheme;   /* command-line scheme name or "" (no scheme)   */
  af_vstatus expected;  /* normally AF_V_PASS                           */
  const char *tol_key;  /* row of the tolerance table                   */
  af_claim_fn fn;
  int arg;              /* passed to fn (e.g. an af_scheme_id)           */
  unsigned breaks;      /* AF_FAULT_* bits under which the claim must
                           come out FAIL (its power, checked by a test)  */
  const char *title;    /* one line: what is claimed; "sanity: ..." marks
                           a sanity check (af_claim_is_sanity)           */
} af_claim;

/* 1 if the claim is a sanity check, not a claim with power: no realistic
 * change to src/ can make it fail, so it is counted apart (its title
 * starts with "sanity:"). */
int af_claim_is_sanity(const af_claim *c);

/* Short names of the faults for the breaks column of the tables. */
#define F_S AF_FAULT_SPEED
#define F_R AF_FAULT_RADIAL
#define F_A AF_FAULT_ATTENTION

/* Each claims file defines one table and its length. */
#define AF_CLAIM_TABLE(name) \
  extern const af_claim name[]; \
  extern const size_t name##_count;
AF_CLAIM_TABLE(af_claims_t41)
AF_CLAIM_TABLE(af_claims_ident)
AF_CLAIM_TABLE(af_claims_cluster)
AF_CLAIM_TABLE(af_claims_props)
AF_CLAIM_TABLE(af_claims_cert)
AF_CLAIM_TABLE(af_claims_proofs)
AF_CLAIM_TABLE(af_claims_field)
AF_CLAIM_TABLE(af_claims_vern9)
AF_CLAIM_TABLE(af_claims_power)
AF_CLAIM_TABLE(af_claims_s7)
AF_CLAIM_TABLE(af_claims_attnmodes)
AF_CLAIM_TABLE(af_claims_mp)
AF_CLAIM_TABLE(af_claims_edges)
AF_CLAIM_TABLE(af_claims_range)
AF_CLAIM_TABLE(af_claims_longctx)
AF_CLAIM_TABLE(af_claims_sweeps)
AF_CLAIM_TABLE(af_claims_front)
AF_CLAIM_TABLE(af_claims_rstar)
AF_CLAIM_TABLE(af_claims_tiled)
AF_CLAIM_TABLE(af_claims_mptaylor)
AF_CLAIM_TABLE(af_claims_mpglobal)
AF_CLAIM_TABLE(af_claims_userscheme)
AF_CLAIM_TABLE(af_claims_spectaylor)

/* verify --scheme-def: the scheme-generic claims of claims_userscheme.c
 * (U2.*) on the spec'd scheme sp, a table of results and the list of
 * what cannot be checked written to out; returns how many did not come
 * out as expected. */
int af_verify_scheme_def(FILE *out, const af_scheme_spec *sp,
                         const af_vctx *c);
AF_CLAIM_TABLE(af_claims_flow)
AF_CLAIM_TABLE(af_claims_certspec)
AF_CLAIM_TABLE(af_claims_u3mp)
AF_CLAIM_TABLE(af_claims_staircase)

/* Expected status of a certified claim in this build: certified with Arb,
 * could-not-certify without. */
#ifdef AF_HAVE_ARB
#define AF_V_CERT_EXPECTED AF_V_CERTIFIED
#else
#define AF_V_CERT_EXPECTED AF_V_NOCERT
#endif

/* Write the certified balls of the C-T4.1 claims (exact mid and radius,
 * hex, with provenance) into directory dir (data/reference/certified/).
 * cmdline: the generating command, recorded in the headers.
 * AF_EINVAL without Arb. */
int af_cert_write_reference(const char *dir, const char *cmdline);

/* Certify one MPFR reference file (attnflow_mp.h format) if it is a T4.1
 * case (orthonormal start, d >= n, softmax, identity weights): *used = 1,
 * *err the proven bound |ref - exact| of its gamma and r_1 at t_end
 * (|ref - mid| + rad of the certified ball), *eps = fac max(err_est, tol)
 * of its header; claim C-mpref requires err <= eps.  *used = 0 for other
 * cases.  AF_EINVAL without Arb. */
int af_cert_mpref_file(int *used, double *err, double *eps, const char *path,
                       double fac);

/* ---- helpers for claim functions ---------------------------------- */

/* Tolerance value of key (NaN if missing: the runner rejects such claims
 * before running anything). */
double af_v_tol(const af_vctx *c, const char *key);

/* Model with the context's faults applied. */
void af_v_model(af_model *m, const af_vctx *c, size_t n, size_t d,
                double beta, af_scheme_id scheme);
/* *gap = |a/|a| - b/|b||^2 / 2 = 1 - <a/|a|, b/|b|> for two d-vectors,
 * computed from the difference of the directions (no cancellation near
 * a merge; theorems.md N1). */
void af_v_pair_gap(double *gap, const double *a, const double *b, size_t d);

/* |measured - predicted| <= tol: PASS, else FAIL; sets all fields. */
void af_v_abs(af_vresult *r, double measured, double predicted, double tol);
/* |measured - predicted| <= tol |predicted|. */
void af_v_rel(af_vresult *r, double measured, double predicted, double tol);
/* th = y_j / |y_j| for each of the n tokens of y (d numbers each). */
void af_v_unit_dirs(double *th, const double *y, size_t n, size_t d);
/* measured <= bound + slack (one-sided). */
void af_v_le(af_vresult *r, double measured, double bound, double slack);
/* measured >= bound - slack (one-sided). */
void af_v_ge(af_vresult *r, double measured, double bound, double slack);
/* Could not certify (certified claims): status NOCERT, values NaN, the
 * reason in the note. */
void af_v_nocert(af_vresult *r, const char *why);
/* Library error: status ERROR with the message. */
void af_v_error(af_vresult *r, int af_status_code, const char *where);
/* 1 if code is AF_OK, else af_v_error(r, code, where) and 0. */
int af_v_ok(af_vresult *r, int af_status_code, const char *where);
/* Append printf-style text to r->note. */
void af_v_note(af_vresult *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Integrate y over the given times with work w (its kernel as set)
 * collecting observables obs[k][...] (AF_OBS_COUNT per time, row-major;
 * obs NULL: none); stats may be NULL. */
int af_v_integrate(double *obs, double *y, const double *times,
                   size_t ntimes, const af_model *m, const af_integ_opts *o,
                   af_work *w, af_integ_stats *stats);
/* The same with a work of its own using kernel; convenience for claims. */
int af_v_run(double *obs, double *y, const double *times, size_t ntimes,
             const af_model *m, const af_integ_opts *o, af_kernel kernel);

/* ---- runner --------------------------------------------------------- */

typedef struct {
  const af_claim *claim;
  af_vresult res;
  double seconds;
  af_vstatus expected; /* claim->expected, or FAIL under --broken-only */
  int ok;              /* res.status == expected */
} af_vrecord;

/* All claims in registry order. */
size_t af_claims_all(const af_claim **out, size_t cap);

/* Run the claims whose "ID" or "ID/scheme" matches glob (NULL = all);
 * records receive one entry per claim run (capacity cap).  Returns the
 * number run. */
size_t af_verify_run(af_vrecord *rec, size_t cap, const af_vctx *c,
                     const char *glob, FILE *progress);

/* The claims af_verify_run would run, without running them: 1 if claim
 * cl is selected by glob (and by --broken-only's fault, if set). */
int af_verify_selects(const af_claim *cl, const af_vctx *c, const char *glob);
/* af_verify_run calling done(record, ctx) as each claim finishes, so that
 * its row can be written at once (NULL: none). */
size_t af_verify_run_each(af_vrecord *rec, size_t cap, const af_vctx *c,
                          const char *glob, FILE *progress,
                          void (*done)(const af_vrecord *r, void *ctx),
                          void *done_ctx);

/* The six rows of a claim stated for every scheme (expected PASS), one
 * per scheme with the scheme's id as the claim's argument. */
#define AF_V_PER_SCHEME(id, key, fn, breaks, title)                         \
  {id, "post-ln", AF_V_PASS, key, fn, AF_POST_LN, breaks, title},           \
  {id, "pre-ln", AF_V_PASS, key, fn, AF_PRE_LN, breaks, title},             \
  {id, "mix-ln", AF_V_PASS, key, fn, AF_MIX_LN, breaks, title},             \
  {id, "peri-ln", AF_V_PASS, key, fn, AF_PERI_LN, breaks, title},           \
  {id, "ngpt", AF_V_PASS, key, fn, AF_NGPT, breaks, title},                 \
  {id, "ln-scaling", AF_V_PASS, key, fn, AF_LN_SCALING, breaks, title}

#endif
