/* cli_verify.c -- attnflow verify: run the claims of proofs-numeric/ and
 * report measured, predicted, tolerance, margin, time and status. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "verify.h"
#include "cli_run.h"

static const char *const verify_help =
    "Usage: attnflow verify [--level quick|full] [--claim GLOB] [--json PATH]\n"
    "                       [--inject-fault speed|radial|attention]\n"
    "                       [--markdown PATH] [--broken-only] [--tolerances PATH]\n"
    "                       [--list] [--write-certified DIR] [--progress]\n"
    "       attnflow verify --scheme-def FILE [--level quick|full]\n"
    "\n"
    "Runs every claim of proofs-numeric/: one per theorem ID of the theory\n"
    "(and per scheme where the statement is per scheme).  Each claim runs the\n"
    "simulation, asks theory/ for the prediction and compares within a\n"
    "tolerance from data/tolerances.tsv whose row says where it comes from.\n"
    "\n"
    "Options:\n"
    "  --level quick|full   quick (default): every claim at small sizes;\n"
    "                       full: the paper-scale cases (n = 256, beta = 5, ...)\n"
    "  --claim GLOB         only claims whose ID or ID/scheme matches GLOB\n"
    "                       (shell pattern, e.g. 'T4.1*' or '*/peri-ln')\n"
    "  --json PATH          also write the results as JSON (atomically)\n"
    "  --markdown PATH      also write the report as a Markdown table (atomically;\n"
    "                       docs/verification.md is made this way)\n"
    "  --inject-fault KIND  perturb the model on purpose, to show the claims\n"
    "                       have power; KIND is one of\n"
    "                         speed      speed factor s_j times (1 + 0.05 t)\n"
    "                         radial     dr_j/dt times 1.1\n"
    "                         attention  scores with beta (1 + 0.05)\n"
    "                       claims whose statement the fault breaks must FAIL\n"
    "  --broken-only        with --inject-fault: run only the claims that the\n"
    "                       fault must break (their FAIL is then expected, and\n"
    "                       the exit status is 0 only if every one fails)\n"
    "  --tolerances PATH    read the tolerance table from PATH instead of the\n"
    "                       copy compiled in from data/tolerances.tsv\n"
    "  --list               list the claims and their tolerance rows, run nothing\n"
    "  --write-certified DIR  write the certified balls of the C-T4.1 claims\n"
    "                       (exact hex midpoint and radius, with provenance) into\n"
    "                       DIR (data/reference/certified/), then run nothing\n"
    "  --scheme-def FILE    run the scheme-generic claims (U2: T4.1 reduction,\n"
    "                       T4.1a, I1, P3, layer placement) on the scheme of a\n"
    "                       spec file (docs/schemes.md) and list what cannot be\n"
    "                       checked on it; exit status 0 if all pass\n"
    "  --progress           progress on stderr even when it is not a terminal\n"
    "                       (one line per finished claim); rows reach standard\n"
    "                       output, flushed, as each claim finishes\n"
    "\n"
    "Columns: ID, scheme, measured, predicted, tolerance, margin (fraction of\n"
    "the tolerance left; negative = outside), seconds, status, expected.\n"
    "Statuses: pass, fail, inconclusive, error; the certified claims (C-*,\n"
    "ball arithmetic with Arb) report certified, could-not-certify or refuted.\n"
    "Exit status: 0 if every claim has its expected outcome, 1 otherwise,\n"
    "2 for a usage error.\n";

typedef struct {
  const af_vrecord *rec;
  size_t n;
  const char *level;
  const char *fault;
  af_prov *prov;
} json_ctx;

static int write_json(FILE *f, void *vctx)
{
  json_ctx *c = vctx;
  int rc = AF_OK;
  if (fprintf(f, "{\"version\": ") < 0) return AF_EIO;
  if ((rc = af_out_json_string(f, af_version())) != AF_OK) return rc;
  if (fprintf(f, ", \"commit\": ") < 0) return AF_EIO;
  if ((rc = af_out_json_string(f, af_commit())) != AF_OK) return rc;
  if (fprintf(f, ", \"level\": ") < 0) return AF_EIO;
  if ((rc = af_out_json_string(f, c->level)) != AF_OK) return rc;
  if (fprintf(f, ", \"fault\": ") < 0) return AF_EIO;
  if ((rc = af_out_json_string(f, c->fault)) != AF_OK) return rc;
  if (fprintf(f, ", \"provenance\": {") < 0) return AF_EIO;
  for (size_t k = 0; k < c->prov->n; k++) {
    if (fprintf(f, "%s", k ? ", " : "") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, c->prov->items[k].key)) != AF_OK) return rc;
    if (fprintf(f, ": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, c->prov->items[k].value)) != AF_OK) return rc;
  }
  if (fprintf(f, "},\n \"claims\": [") < 0) return AF_EIO;
  for (size_t k = 0; k < c->n; k++) {
    const af_vrecord *r = &c->rec[k];
    if (fprintf(f, "%s\n  {\"id\": ", k ? "," : "") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, r->claim->id)) != AF_OK) return rc;
    if (fprintf(f, ", \"scheme\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, r->claim->scheme)) != AF_OK) return rc;
    if (fprintf(f, ", \"status\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, af_vstatus_name(r->res.status))) != AF_OK) return rc;
    if (fprintf(f, ", \"expected\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, af_vstatus_name(r->expected))) != AF_OK) return rc;
    if (fprintf(f, ", \"measured\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_double(f, r->res.measured)) != AF_OK) return rc;
    if (fprintf(f, ", \"predicted\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_double(f, r->res.predicted)) != AF_OK) return rc;
    if (fprintf(f, ", \"tolerance\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_double(f, r->res.tolerance)) != AF_OK) return rc;
    if (fprintf(f, ", \"margin\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_double(f, r->res.margin)) != AF_OK) return rc;
    if (fprintf(f, ", \"seconds\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_double(f, r->seconds)) != AF_OK) return rc;
    if (fprintf(f, ", \"tolerance_key\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, r->claim->tol_key)) != AF_OK) return rc;
    if (fprintf(f, ", \"note\": ") < 0) return AF_EIO;
    if ((rc = af_out_json_string(f, r->res.note)) != AF_OK) return rc;
    if (fprintf(f, "}") < 0) return AF_EIO;
  }
  if (fprintf(f, "\n]}\n") < 0) return AF_EIO;
  return AF_OK;
}

static int md_value(FILE *f, double v)
{
  return (isnan(v) ? fprintf(f, " - |") : fprintf(f, " %.6g |", v)) < 0 ? AF_EIO : AF_OK;
}

/* Markdown report: provenance, one table row per claim, notes. */
static int write_markdown(FILE *f, void *vctx)
{
  json_ctx *c = vctx;
  size_t counts[AF_V_STATUS_COUNT] = {0}, bad = 0, nsanity = 0;
  double secs = 0;
  for (size_t k = 0; k < c->n; k++) {
    counts[c->rec[k].res.status]++;
    nsanity += af_claim_is_sanity(c->rec[k].claim) != 0;
    bad += !c->rec[k].ok;
    secs += c->rec[k].seconds;
  }
  if (fprintf(f, "# Verification report\n\n"
                 "Generated by `attnflow verify` (do not edit by hand).\n\n") < 0)
    return AF_EIO;
  for (size_t k = 0; k < c->prov->n; k++)
    if (fprintf(f, "- %s: `%s`\n", c->prov->items[k].key, c->prov->items[k].value) < 0)
      return AF_EIO;
  if (fprintf(f, "- level: %s%s%s\n\n", c->level, *c->fault ? ", fault " : "", c->fault) < 0)
    return AF_EIO;
  if (fprintf(f, "%zu claims: %zu pass, %zu fail, %zu inconclusive, %zu error, "
                 "%zu certified, %zu could-not-certify, %zu refuted; "
                 "%zu with an unexpected outcome; %zu of the claims are sanity checks "
                 "(nothing is expected to break them); %.1f s of claim time.\n\n",
              c->n, counts[AF_V_PASS], counts[AF_V_FAIL], counts[AF_V_INCONCLUSIVE],
              counts[AF_V_ERROR], counts[AF_V_CERTIFIED], counts[AF_V_NOCERT],
              counts[AF_V_REFUTED], bad, nsanity, secs) < 0)
    return AF_EIO;
  if (fprintf(f, "| ID | scheme | measured | predicted | tolerance | margin | seconds | status | expected | tolerance row | note |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n") < 0)
    return AF_EIO;
  for (size_t k = 0; k < c->n; k++) {
    const af_vrecord *r = &c->rec[k];
    if (fprintf(f, "| %s | %s |", r->claim->id, *r->claim->scheme ? r->claim->scheme : "-") < 0)
      return AF_EIO;
    if (md_value(f, r->res.measured) || md_value(f, r->res.predicted)
        || md_value(f, r->res.tolerance) || md_value(f, r->res.margin))
      return AF_EIO;
    if (fprintf(f, " %.2f | %s | %s | `%s` | ", r->seconds,
                af_vstatus_name(r->res.status), af_vstatus_name(r->expected),
                r->claim->tol_key) < 0)
      return AF_EIO;
    for (const char *p = r->res.note; *p; p++)
      if (fputc(*p == '|' ? '/' : (*p == '\n' ? ' ' : *p), f) == EOF)
        return AF_EIO;
    if (fprintf(f, " |\n") < 0)
      return AF_EIO;
  }
  return AF_OK;
}

static void print_value(double v)
{
  if (isnan(v))
    printf(" %11s", "-");
  else
    printf(" %11.4g", v);
}

/* Rows as the claims finish: ID column width, rows written so far, the
 * number selected, and where --progress writes when stderr is not a
 * terminal (one line per claim; on a terminal, one line rewritten). */
typedef struct {
  int idw;
  size_t done, total;
  FILE *progress;
} verify_rows;

static void verify_row(const af_vrecord *r, void *vctx)
{
  verify_rows *v = vctx;
  int idw = v->idw;
  printf("%-*s %-11s", idw, r->claim->id,
         *r->claim->scheme ? r->claim->scheme : "-");
  print_value(r->res.measured);
  print_value(r->res.predicted);
  print_value(r->res.tolerance);
  print_value(r->res.margin);
  printf(" %8.2f %-13s %s%s\n", r->seconds, af_vstatus_name(r->res.status),
         af_vstatus_name(r->expected), r->ok ? "" : "   <-- UNEXPECTED");
  if (!r->ok || (r->res.status != AF_V_PASS && r->res.status != AF_V_CERTIFIED))
    printf("%*s %s\n", idw, "", r->res.note);
  fflush(stdout);
  v->done++;
  if (v->progress) {
    fprintf(v->progress, "verify: %zu of %zu claims done (%s %s, %.2f s)\n",
            v->done, v->total, r->claim->id,
            *r->claim->scheme ? r->claim->scheme : "-", r->seconds);
    fflush(v->progress);
  }
}

/* The report at path by writer (write_json or write_markdown) with the
 * provenance head of the command line; 0 after an error message. */
static int write_report(const char *path, af_writer_fn writer, json_ctx *jc,
                        int argc, char **argv)
{
  af_prov prov;
  af_prov_init(&prov);
  int rc = af_prov_add_head(&prov, argc, argv);
  jc->prov = &prov;
  errno = 0;
  if (rc == AF_OK)
    rc = af_write_atomic(path, writer, jc);
  int err = rc == AF_EIO ? errno : 0;
  jc->prov = NULL;
  af_prov_clear(&prov);
  if (rc != AF_OK) {
    af_cli_error("verify: cannot write '%s': %s", path,
                 af_cli_errno_text(rc, err));
    return 0;
  }
  return 1;
}

/* Index of v among words[0..n-1], -1 if it is none of them. */
static int af_verify_word(const char *v, const char *const *words, int n)
{
  for (int i = 0; i < n; i++)
    if (strcmp(v, words[i]) == 0)
      return i;
  return -1;
}

/* Where the value of the text option `name` goes (claim, json, markdown,
 * tolerances, write-certified), NULL if it is another option. */
static const char **af_verify_text_opt(const char *name, const char **glob,
                                       const char **json, const char **markdown,
                                       const char **tolpath,
                                       const char **certdir)
{
  const char *const names[] = {"claim", "json", "markdown", "tolerances",
                               "write-certified"};
  const char **dst[] = {glob, json, markdown, tolpath, certdir};
  int i = af_verify_word(name, names, 5);
  return i < 0 ? NULL : dst[i];
}

int af_cli_verify(int argc, char **argv)
{
  static const af_cli_opt opts[] = {
      {"level", 1}, {"claim", 1}, {"json", 1}, {"markdown", 1}, {"inject-fault", 1},
      {"tolerances", 1}, {"list", 0}, {"broken-only", 0}, {"help", 0},
      {"write-certified", 1}, {"progress", 0},
      {"scheme-def", 1},
      {NULL, 0}};
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, 1, "verify");
  const char *level = "quick", *glob = NULL, *json = NULL, *fault = "";
  const char *markdown = NULL;
  const char *tolpath = NULL, *certdir = NULL;
  int list = 0, progress_opt = 0;
  const char *scheme_def = NULL;
  af_vctx ctx = {AF_LEVEL_QUICK, 0, NULL, 0};
  for (;;) {
    const char *v;
    int k = af_cli_next(&p, opts, &v);
    if (k == -1)
      break;
    if (k == -2)
      return AF_EXIT_USAGE;
    const char *name = opts[k].name;
    const char **text = af_verify_text_opt(name, &glob, &json, &markdown,
                                           &tolpath, &certdir);
    int i;
    if (strcmp(name, "help") == 0) {
      fputs(verify_help, stdout);
      return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
    } else if (text != NULL)
      *text = v;
    else if (strcmp(name, "level") == 0) {
      static const char *const levels[] = {"quick", "full"};
      if ((i = af_verify_word(v, levels, 2)) < 0) {
        af_cli_error("verify: --level must be quick or full, not '%s'", v);
        return AF_EXIT_USAGE;
      }
      ctx.level = i == 0 ? AF_LEVEL_QUICK : AF_LEVEL_FULL;
      level = v;
    } else if (strcmp(name, "list") == 0)
      list = 1;
    else if (strcmp(name, "scheme-def") == 0)
      scheme_def = v;
    else if (strcmp(name, "progress") == 0)
      progress_opt = 1;
    else if (strcmp(name, "broken-only") == 0)
      ctx.broken_only = 1;
    else if (strcmp(name, "inject-fault") == 0) {
      static const char *const faults[] = {"speed", "radial", "attention"};
      static const unsigned fault_bits[] = {AF_FAULT_SPEED, AF_FAULT_RADIAL,
                                            AF_FAULT_ATTENTION};
      if ((i = af_verify_word(v, faults, 3)) < 0) {
        af_cli_error("verify: --inject-fault must be speed, radial or attention, not '%s'", v);
        return AF_EXIT_USAGE;
      }
      ctx.fault = fault_bits[i];
      fault = v;
    }
  }

  if (certdir) {
    char cmd[512];
    size_t len = 0;
    cmd[0] = '\0';
    for (int k = 0; k < argc && len + 2 < sizeof cmd; k++)
      len += (size_t) snprintf(cmd + len, sizeof cmd - len, "%s%s", k ? " " : "", argv[k]);
    int crc = af_cert_write_reference(certdir, cmd);
    if (crc != AF_OK) {
      af_cli_error("verify: --write-certified %s: %s", certdir, af_strerror(crc));
      return AF_EXIT_FAIL;
    }
    return AF_EXIT_OK;
  }
  if (ctx.broken_only && ctx.fault == 0) {
    af_cli_error("verify: --broken-only needs --inject-fault");
    return AF_EXIT_USAGE;
  }
  af_tol_table tol;
  size_t line = 0;
  int rc = tolpath ? af_tol_read(&tol, tolpath, &line)
                   : af_tol_parse(&tol, af_tolerances_tsv, &line);
  if (rc != AF_OK) {
    af_cli_error("verify: tolerance table %s:%zu: %s",
                 tolpath ? tolpath : "(built in)", line, af_strerror(rc));
    return AF_EXIT_FAIL;
  }
  ctx.tol = &tol;
  if (scheme_def != NULL) { /* the U2 claims on a spec'd scheme */
    af_scheme_spec *sp = NULL;
    if (!af_cli_scheme_def(&sp, scheme_def)) {
      af_tol_free(&tol);
      return AF_EXIT_USAGE;
    }
    printf("attnflow %s (commit %s) verify --level %s --scheme-def %s\n",
           af_version(), af_commit(), level, scheme_def);
    int nbad = af_verify_scheme_def(stdout, sp, &ctx);
    af_scheme_spec_free(sp);
    af_tol_free(&tol);
    return nbad == 0 && fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }

  const af_claim *all[512];
  size_t total = af_claims_all(all, 512);
  if (list) {
    for (size_t k = 0; k < total; k++) {
      const af_tol_row *r = af_tol_find(&tol, all[k]->tol_key);
      printf("%-10s %-11s %-13s %-24s %s\n", all[k]->id, all[k]->scheme,
             af_vstatus_name(all[k]->expected), all[k]->tol_key,
             all[k]->title);
      if (r == NULL)
        printf("           (missing tolerance row '%s')\n", all[k]->tol_key);
    }
    af_tol_free(&tol);
    return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
  }

  af_vrecord *rec = calloc(total ? total : 1, sizeof *rec);
  if (rec == NULL) {
    af_tol_free(&tol);
    af_cli_error("verify: out of memory");
    return AF_EXIT_FAIL;
  }
  /* The selection first: its widest ID sets the ID column, and the header
   * and every row are written (and flushed) as each claim finishes, so a
   * pipe or a file sees them at once (attnflow verify > log). */
  size_t nsel = 0;
  int idw = 10; /* ID column: as wide as the longest selected ID */
  for (size_t k = 0; k < total; k++)
    if (af_verify_selects(all[k], &ctx, glob)) {
      nsel++;
      if ((int) strlen(all[k]->id) > idw)
        idw = (int) strlen(all[k]->id);
    }
  if (nsel == 0) {
    af_cli_error("verify: no claim matches '%s'", glob ? glob : "");
    free(rec);
    af_tol_free(&tol);
    return AF_EXIT_USAGE;
  }
  int tty = isatty(fileno(stderr));
  printf("attnflow %s (commit %s) verify --level %s%s%s\n", af_version(),
         af_commit(), level, *fault ? " --inject-fault " : "", fault);
  printf("%-*s %-11s %11s %11s %11s %11s %8s %-13s %s\n", idw, "ID", "scheme",
         "measured", "predicted", "tolerance", "margin", "seconds", "status",
         "expected");
  fflush(stdout);
  verify_rows vr = {idw, 0, nsel, (progress_opt && !tty) ? stderr : NULL};
  size_t n = af_verify_run_each(rec, total, &ctx, glob, tty ? stderr : NULL,
                                verify_row, &vr);
  size_t bad = 0, nsanity = 0, counts[AF_V_STATUS_COUNT] = {0};
  double secs = 0;
  for (size_t k = 0; k < n; k++) {
    const af_vrecord *r = &rec[k];
    bad += !r->ok;
    counts[r->res.status]++;
    nsanity += af_claim_is_sanity(r->claim) != 0;
    secs += r->seconds;
  }
  /* Sanity checks (titles "sanity:") are counted apart: nothing is
   * expected to break them, so they are not claims with power. */
  printf("%zu claims: %zu pass, %zu fail, %zu inconclusive, %zu error, "
         "%zu certified, %zu could-not-certify, %zu refuted; "
         "%zu unexpected; %zu of them sanity checks; %.1f s\n",
         n, counts[AF_V_PASS], counts[AF_V_FAIL], counts[AF_V_INCONCLUSIVE],
         counts[AF_V_ERROR], counts[AF_V_CERTIFIED], counts[AF_V_NOCERT],
         counts[AF_V_REFUTED], bad, nsanity, secs);
  int status = bad ? AF_EXIT_FAIL : AF_EXIT_OK;
  if (fflush(stdout) != 0)
    status = AF_EXIT_FAIL;

  json_ctx jc = {rec, n, level, fault, NULL};
  if (json && !write_report(json, write_json, &jc, argc, argv))
    status = AF_EXIT_FAIL;
  if (markdown && !write_report(markdown, write_markdown, &jc, argc, argv))
    status = AF_EXIT_FAIL;
  free(rec);
  af_tol_free(&tol);
  return status;
}
