/* cli_certify.c -- attnflow certify: a computer-assisted proof that one
 * start of the n-particle flow converges to one cluster under one scheme
 * (certified/certify.h, theory/theorems.md C-flow and C-close).  Linked
 * into attnflow-verify with the certified code (Arb); 'attnflow certify'
 * executes that program (main.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert.h"
#include "certify.h"
#include "cli.h"
#include "output.h"

static const char *const certify_help =
    "Usage: attnflow certify --scheme S|--scheme-def FILE --init file:PATH|SPEC\n"
    "                        [--n N --d D]\n"
    "                        [--seed S] [--beta B] [--weights PATH] [--r0 R]\n"
    "                        [--alpha A] [--alpha-decay P] [--tau T]\n"
    "                        [--t-max T] [--precision BITS] [--order K]\n"
    "                        [--init-radius EPS] [--times LIST]\n"
    "                        [--max-steps N] [--json PATH] [--no-wrap]\n"
    "                        [--max-radius R] [--property cap]\n"
    "                        [--merges COS [--merges-csv PATH]] [--max-step H]\n"
    "\n"
    "Tries to prove, in ball arithmetic (Arb), that the exact solution of the\n"
    "n-particle flow from the given start converges to one cluster: a\n"
    "validated Taylor integrator carries balls around the start until the\n"
    "hypotheses of a closing lemma are proven in the balls at a time T*:\n"
    "  P3h-hemisphere  every <theta_i, w> > 0 (Post-LN, LN-Scaling, nGPT, with\n"
    "                  Q^T K = I)\n"
    "  T4.3-cap        all cosines >= 1 - delta, delta < 1/(100 n^2 max(1, beta^2))\n"
    "                  (Pre-LN, Mix-LN after tau, Peri-LN, and any scheme with\n"
    "                  Q^T K != I, which needs |Q^T K| <= 1)\n"
    "  U-close         a spec'd scheme (--scheme-def) whose speed is G(ta, na,\n"
    "                  alpha), possibly times or divided by a factor of t:\n"
    "                  the hemisphere, G proven > 0 and bounded on ta in\n"
    "                  [-1, 1], na in [min <theta_i, w>/|w|, 1], and the factor\n"
    "                  of t proven to grow at most like t (Q^T K = I)\n"
    "(theory/theorems.md, C-close and U-close).\n"
    "\n"
    "Options:\n"
    "  --scheme S        post-ln, pre-ln, mix-ln, peri-ln, ngpt, ln-scaling\n"
    "  --scheme-def FILE in place of --scheme: a spec'd scheme (docs/schemes.md);\n"
    "                    its numbers are read from their text at --precision\n"
    "  --init SPEC       file:PATH (CSV, one unit vector per row; n and d from\n"
    "                    the file), angles:A1,A2,... (d = 2: (cos A, sin A)),\n"
    "                    or a start of 'attnflow run' (uniform, hemisphere,\n"
    "                    cap:DELTA, orthonormal, gaussian) with --n, --d, --seed;\n"
    "                    the exact start is each row divided by its norm\n"
    "  --beta B          inverse temperature (default 1)\n"
    "  --weights PATH    Q, K, V: text (3d rows of d numbers), .npy, .npz or\n"
    "                    .safetensors (docs/weights.md) with one layer and one\n"
    "                    head; V must be the identity\n"
    "  --r0 R            initial radius of every token (default 1)\n"
    "  --alpha A, --alpha-decay P   nGPT alpha(t) = A (1 + t)^-P (1, 0)\n"
    "  --tau T           Mix-LN switch time, exact (default 1)\n"
    "  --t-max T         horizon (default 64)\n"
    "  --precision BITS  working precision (default 64)\n"
    "  --order K         Taylor order (default ceil(BITS ln2 / 2))\n"
    "  --init-radius EPS certify every start within EPS of each coordinate\n"
    "  --times LIST      also record the balls at these times\n"
    "  --max-steps N     step budget (default 200000)\n"
    "  --json PATH       write the proof log (exact balls) as JSON\n"
    "  --max-radius R    give up once a ball radius exceeds R (default 1e-3;\n"
    "                    0.1 for a set of starts carried by Lohner's method)\n"
    "  --property cap    state the refutable property 'the flow enters the cap\n"
    "                    of T4.3 by t-max' (theorems.md C-refute): certified\n"
    "                    when the cap test holds by t-max, refuted when\n"
    "                    max 1 - cos > delta_max is proven at every t in\n"
    "                    [0, t-max] (the hemisphere test is not used)\n"
    "  --no-wrap         with --init-radius: carry the set as boxes, without\n"
    "                    Lohner's QR doubleton (for comparison)\n"
    "  --merges COS      also enclose the merge times of the staircase\n"
    "                    (theorems.md C-merge): a pair is merged once its\n"
    "                    cosine exceeds COS (e.g. 0.9999, figure c2); every\n"
    "                    merge into fewer clusters gets a proven interval\n"
    "                    [t_lo, t_hi]; the run goes on past T* until the last\n"
    "                    merge is enclosed or t-max\n"
    "  --merges-csv PATH write the merge intervals as CSV (figure c2)\n"
    "  --max-step H      no step longer than H (narrower merge intervals)\n"
    "\n"
    "A spec'd scheme whose speed reads r, or whose factor of t is not\n"
    "proven to grow at most like t, has no closing lemma: it is accepted\n"
    "with --property cap only, which then proves or refutes that the flow\n"
    "enters the cap by t-max (status certified, lemma 'cap-entered', is that\n"
    "finite-time statement, not convergence).  Refused: specs with scores or\n"
    "gain, tau or ifle.\n"
    "\n"
    "Prints the status: certified (T*, the lemma, its hypotheses as proven\n"
    "bounds), could-not-certify (why: horizon, width of the balls, near an\n"
    "equilibrium such as a saddle, no enclosure) or refuted.\n"
    "Exit status: 0 certified, 1 could-not-certify, refuted or a run-time\n"
    "error, 2 a usage error.\n";

enum { O_SCHEME, O_INIT, O_N, O_D, O_SEED, O_BETA, O_WEIGHTS, O_R0, O_ALPHA,
       O_DECAY, O_TAU, O_TMAX, O_PREC, O_ORDER, O_IRAD, O_TIMES, O_STEPS,
       O_JSON, O_HELP, O_NOWRAP, O_MAXRAD, O_PROP, O_SCHEMEDEF, O_MERGES,
       O_MCSV, O_HMAX, O_COUNT };

static const af_cli_opt certify_opts[] = {
    [O_SCHEME] = {"scheme", 1}, [O_INIT] = {"init", 1}, [O_N] = {"n", 1},
    [O_D] = {"d", 1}, [O_SEED] = {"seed", 1}, [O_BETA] = {"beta", 1},
    [O_WEIGHTS] = {"weights", 1}, [O_R0] = {"r0", 1}, [O_ALPHA] = {"alpha", 1},
    [O_DECAY] = {"alpha-decay", 1}, [O_TAU] = {"tau", 1},
    [O_TMAX] = {"t-max", 1}, [O_PREC] = {"precision", 1},
    [O_ORDER] = {"order", 1}, [O_IRAD] = {"init-radius", 1},
    [O_TIMES] = {"times", 1}, [O_STEPS] = {"max-steps", 1},
    [O_JSON] = {"json", 1}, [O_HELP] = {"help", 0},
    [O_NOWRAP] = {"no-wrap", 0}, [O_MAXRAD] = {"max-radius", 1},
    [O_PROP] = {"property", 1},
    [O_SCHEMEDEF] = {"scheme-def", 1},
    [O_MERGES] = {"merges", 1},
    [O_MCSV] = {"merges-csv", 1}, [O_HMAX] = {"max-step", 1},
    [O_COUNT] = {NULL, 0}};

/* n rows and d fields of a CSV start ('#' comments and blank lines
 * skipped); 0 after an error message. */
static int scan_file(size_t *n, size_t *d, const char *path)
{
  errno = 0;
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    af_cli_error("certify: --init file:%s: %s", path, strerror(errno));
    return 0;
  }
  char buf[8192];
  *n = 0;
  *d = 0;
  while (fgets(buf, sizeof buf, f)) {
    char *p = buf;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
      continue;
    if (*n == 0) {
      size_t k = 0;
      int in = 0;
      for (; *p; p++) {
        int sep = *p == ',' || *p == ' ' || *p == '\t' || *p == '\n'
                  || *p == '\r';
        if (!sep && !in)
          k++;
        in = !sep;
      }
      *d = k;
    }
    (*n)++;
  }
  fclose(f);
  if (*n == 0 || *d == 0) {
    af_cli_error("certify: --init file:%s: no rows of numbers", path);
    return 0;
  }
  return 1;
}

typedef struct {
  const af_certify_result *res;
  const af_certify_opts *o;
  const char *scheme, *init;
  double r0;
  af_prov *prov;
} json_ctx;

static int write_json(FILE *f, void *vctx)
{
  const json_ctx *c = vctx;
  const af_certify_result *r = c->res;
  int e = 0;
  e |= fprintf(f, "{\"provenance\": {") < 0;
  for (size_t i = 0; i < c->prov->n; i++) {
    e |= fprintf(f, "%s", i ? ", " : "") < 0;
    e |= af_out_json_string(f, c->prov->items[i].key) != AF_OK;
    e |= fprintf(f, ": ") < 0;
    e |= af_out_json_string(f, c->prov->items[i].value) != AF_OK;
  }
  e |= fprintf(f, "},\n \"status\": \"%s\", \"lemma\": \"%s\",\n",
               af_certify_status_name(r->status),
               af_close_lemma_name(r->lemma)) < 0;
  e |= fprintf(f, " \"reason\": ") < 0;
  e |= af_out_json_string(f, r->reason) != AF_OK;
  e |= fprintf(f, ",\n \"system\": {\"scheme\": \"%s\", \"n\": %zu, \"d\": %zu, "
               "\"beta\": %.17g, \"alpha\": %.17g, \"alpha_decay\": %.17g, "
               "\"tau\": %.17g, \"r0\": %.17g, \"qtk_norm_bound\": %.17g, "
               "\"init_radius\": %.17g, \"state\": \"theta_j (n x d row-major)%s\"},\n",
               c->scheme, c->o->n, c->o->d, c->o->beta, c->o->alpha,
               c->o->alpha_decay, c->o->tau, c->r0, r->qtk_norm,
               c->o->init_radius, r->dim > c->o->n * c->o->d ? " then r_j" : "") < 0;
  e |= fprintf(f, " \"t_star\": ") < 0;
  e |= af_out_json_double(f, r->status == AF_CERTIFY_CERTIFIED ? r->t_star : NAN) != AF_OK;
  e |= fprintf(f, ", \"t_end\": %.17g, \"hypothesis\": ", r->t_end) < 0;
  if (r->lemma == AF_CLOSE_HEMISPHERE) {
    e |= fprintf(f, "{\"min_dot_w_over_norm_lower_bound\": %.17g, \"w\": [", r->hyp) < 0;
    for (size_t k = 0; k < c->o->d && k < 16; k++)
      e |= fprintf(f, "%s%.17g", k ? ", " : "", r->w[k]) < 0;
    e |= fprintf(f, "]}") < 0;
  } else if (r->lemma == AF_CLOSE_SPEED) {
    e |= fprintf(f, "{\"min_dot_w_over_norm_lower_bound\": %.17g, "
                 "\"speed_lower_bound\": %.17g, \"speed_upper_bound\": %.17g, "
                 "\"time_factor_exponent_bound\": ", r->hyp, r->speed_lo,
                 r->speed_hi) < 0;
    e |= af_out_json_double(f, r->time_exp) != AF_OK;
    e |= fprintf(f, ", \"w\": [") < 0;
    for (size_t k = 0; k < c->o->d && k < 16; k++)
      e |= fprintf(f, "%s%.17g", k ? ", " : "", r->w[k]) < 0;
    e |= fprintf(f, "]}") < 0;
  } else if (r->lemma == AF_CLOSE_CAP || r->lemma == AF_CLOSE_CAP_ENTERED)
    e |= fprintf(f, "{\"max_one_minus_cos_upper_bound\": %.17g, \"delta_max\": %.17g}",
                 r->hyp, r->hyp_bound) < 0;
  else if (r->status == AF_CERTIFY_REFUTED)
    e |= fprintf(f, "{\"property\": \"cap entered by t_max\", "
                 "\"min_max_one_minus_cos_lower_bound\": %.17g, "
                 "\"delta_max_upper_bound\": %.17g}", r->hyp, r->hyp_bound) < 0;
  else
    e |= fprintf(f, "null") < 0;
  if (r->merge_lo) {
    size_t n = c->o->n;
    e |= fprintf(f, ",\n \"merges\": {\"cos_threshold\": %.17g, "
                 "\"definition\": \"pair (i, j) merged at the first t with 1 - "
                 "<theta_i, theta_j> < 1 - cos_threshold; merge k: the first t "
                 "at which the merged pairs join the tokens into at most n - 1 "
                 "- k clusters (theorems.md C-merge)\", \"events\": [",
                 c->o->merge_cos) < 0;
    for (size_t k = 0; k + 1 < n; k++) {
      e |= fprintf(f, "%s{\"clusters_from\": %zu, \"clusters_to\": %zu, "
                   "\"t_lo\": ", k ? ", " : "", n - k, n - 1 - k) < 0;
      e |= af_out_json_double(f, r->merge_lo[k]) != AF_OK;
      e |= fprintf(f, ", \"t_hi\": ") < 0;
      e |= af_out_json_double(f, r->merge_hi[k] < INFINITY ? r->merge_hi[k] : NAN) != AF_OK;
      e |= fprintf(f, "}") < 0;
    }
    e |= fprintf(f, "],\n  \"pairs\": [") < 0;
    size_t p = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++, p++) {
        e |= fprintf(f, "%s{\"i\": %zu, \"j\": %zu, \"t_lo\": ", p ? ", " : "",
                     i + 1, j + 1) < 0;
        e |= af_out_json_double(f, r->pair_lo[p]) != AF_OK;
        e |= fprintf(f, ", \"t_hi\": ") < 0;
        e |= af_out_json_double(f, r->pair_hi[p] < INFINITY ? r->pair_hi[p] : NAN) != AF_OK;
        e |= fprintf(f, ", \"stays_merged\": %s}", r->pair_stays[p] ? "true" : "false") < 0;
      }
    e |= fprintf(f, "], \"peak_radius\": %.17g}", r->peak_rad) < 0;
  }
  e |= fprintf(f, ",\n \"statistics\": {\"steps\": %lu, \"rejected\": %lu, "
               "\"order\": %u, \"precision\": %ld, \"start_radius\": %.17g, "
               "\"final_radius\": %.17g, \"field_max\": %.17g, "
               "\"cpu_seconds\": %.6g},\n \"balls\": [",
               r->steps, r->rejected, r->order, c->o->prec, r->start_rad,
               r->final_rad, r->field_max, r->cpu_seconds) < 0;
  for (size_t k = 0; k < r->nballs; k++) {
    e |= fprintf(f, "%s\n  {\"t\": %.17g, \"mid\": [", k ? "," : "",
                 r->ball_t[k]) < 0;
    for (size_t i = 0; i < r->dim; i++)
      e |= fprintf(f, "%s%.17g", i ? ", " : "", r->mid[k * r->dim + i]) < 0;
    e |= fprintf(f, "], \"rad\": [") < 0;
    for (size_t i = 0; i < r->dim; i++)
      e |= fprintf(f, "%s%.17g", i ? ", " : "", r->rad[k * r->dim + i]) < 0;
    e |= fprintf(f, "],\n   \"exact\": [") < 0;
    for (size_t i = 0; i < r->dim; i++) {
      e |= fprintf(f, "%s", i ? ", " : "") < 0;
      e |= af_out_json_string(f, r->dump[k * r->dim + i] ? r->dump[k * r->dim + i] : "") != AF_OK;
    }
    e |= fprintf(f, "]}") < 0;
  }
  e |= fprintf(f, "\n ]}\n") < 0;
  return e ? AF_EIO : AF_OK;
}

int af_cli_certify(int argc, char **argv)
{
  af_cli_parser p;
  af_cli_parser_init(&p, argc, argv, 1, "certify");
  const char *a[O_COUNT] = {0};
  int nowrap = 0;
  for (;;) {
    const char *v;
    int k = af_cli_next(&p, certify_opts, &v);
    if (k == -1)
      break;
    if (k == -2)
      return AF_EXIT_USAGE;
    if (k == O_HELP) {
      fputs(certify_help, stdout);
      return fflush(stdout) == 0 ? AF_EXIT_OK : AF_EXIT_FAIL;
    }
    if (k == O_NOWRAP)
      nowrap = 1;
    a[k] = v;
  }
  if ((a[O_SCHEME] != NULL) == (a[O_SCHEMEDEF] != NULL)) {
    af_cli_error("certify: give --scheme S or --scheme-def FILE (one of "
                 "them)");
    return AF_EXIT_USAGE;
  }
  if (!a[O_INIT]) {
    af_cli_error("certify: --init is required (try --help)");
    return AF_EXIT_USAGE;
  }
  af_scheme_id sc = AF_POST_LN;
  af_scheme_spec *spec = NULL;
  if (a[O_SCHEME] && af_scheme_lookup(&sc, a[O_SCHEME]) != AF_OK) {
    af_cli_error("certify: unknown scheme '%s' (try 'attnflow schemes')",
                 a[O_SCHEME]);
    return AF_EXIT_USAGE;
  }
  /* radii in the state: Pre-, Mix-, Peri-LN (a spec's state is checked by
   * af_certify, which knows whether its speed reads r) */
  int radii = !a[O_SCHEMEDEF] && (sc == AF_PRE_LN || sc == AF_MIX_LN
                                  || sc == AF_PERI_LN);
  size_t n = 0, d = 0;
  unsigned long seed = 1, steps = 0, prec = 64, order = 0;
  double beta = 1, r0 = 1, alpha = 1, decay = 0, tau = 1, tmax = 64, irad = 0;
  double maxrad = 0, mcos = 0, hmax = 0;
  double *times = NULL;
  size_t ntimes = 0;
  if ((a[O_N] && !af_cli_size(&n, "n", a[O_N]))
      || (a[O_D] && !af_cli_size(&d, "d", a[O_D]))
      || (a[O_SEED] && !af_cli_ulong(&seed, "seed", a[O_SEED]))
      || (a[O_BETA] && !af_cli_double(&beta, "beta", a[O_BETA]))
      || (a[O_R0] && !af_cli_double(&r0, "r0", a[O_R0]))
      || (a[O_ALPHA] && !af_cli_double(&alpha, "alpha", a[O_ALPHA]))
      || (a[O_DECAY] && !af_cli_double(&decay, "alpha-decay", a[O_DECAY]))
      || (a[O_TAU] && !af_cli_double(&tau, "tau", a[O_TAU]))
      || (a[O_TMAX] && !af_cli_double(&tmax, "t-max", a[O_TMAX]))
      || (a[O_PREC] && !af_cli_ulong(&prec, "precision", a[O_PREC]))
      || (a[O_ORDER] && !af_cli_ulong(&order, "order", a[O_ORDER]))
      || (a[O_IRAD] && !af_cli_double(&irad, "init-radius", a[O_IRAD]))
      || (a[O_MAXRAD] && !af_cli_double(&maxrad, "max-radius", a[O_MAXRAD]))
      || (a[O_STEPS] && !af_cli_ulong(&steps, "max-steps", a[O_STEPS]))
      || (a[O_MERGES] && !af_cli_double(&mcos, "merges", a[O_MERGES]))
      || (a[O_HMAX] && !af_cli_double(&hmax, "max-step", a[O_HMAX]))
      || (a[O_TIMES] && !af_cli_double_list(&times, &ntimes, "times", a[O_TIMES])))
    return AF_EXIT_USAGE;
  if (a[O_PROP] && strcmp(a[O_PROP], "cap") != 0) {
    af_cli_error("certify: --property '%s': the one refutable property "
                 "stated is 'cap' (the flow enters the cap of T4.3 by "
                 "t-max)", a[O_PROP]);
    free(times);
    return AF_EXIT_USAGE;
  }
  if (a[O_MERGES] && !(mcos > 0 && mcos < 1)) {
    af_cli_error("certify: --merges %s: the merge threshold is a cosine in "
                 "(0, 1), e.g. 0.9999", a[O_MERGES]);
    free(times);
    return AF_EXIT_USAGE;
  }
  if (a[O_MCSV] && !a[O_MERGES]) {
    af_cli_error("certify: --merges-csv needs --merges COS");
    free(times);
    return AF_EXIT_USAGE;
  }
  if (a[O_HMAX] && !(hmax > 0 && isfinite(hmax))) {
    af_cli_error("certify: --max-step %s: must be a finite step > 0",
                 a[O_HMAX]);
    free(times);
    return AF_EXIT_USAGE;
  }
  if (!af_cert_available()) {
    af_cli_error("certify: this build has no Arb (configure found none or was "
                 "given --without-arb): certify needs ball arithmetic");
    free(times);
    return AF_EXIT_FAIL;
  }
  if (prec > 4096 || order > 400) {
    af_cli_error("certify: --precision must be at most 4096 and --order at "
                 "most 400");
    free(times);
    return AF_EXIT_USAGE;
  }
  const char *init = a[O_INIT];
  double *ang = NULL;
  size_t nang = 0;
  if (strncmp(init, "angles:", 7) == 0) {
    if (!af_cli_double_list(&ang, &nang, "init angles", init + 7)) {
      free(times);
      return AF_EXIT_USAGE;
    }
    if ((a[O_N] && n != nang) || (a[O_D] && d != 2)) {
      af_cli_error("certify: --init angles: gives n = %zu tokens in d = 2, "
                   "not --n %zu --d %zu", nang, n, d);
      free(times);
      free(ang);
      return AF_EXIT_USAGE;
    }
    n = nang;
    d = 2;
  } else if (strncmp(init, "file:", 5) == 0) {
    size_t fn, fd;
    if (!scan_file(&fn, &fd, init + 5)) {
      free(times);
      return AF_EXIT_FAIL;
    }
    if ((a[O_N] && n != fn) || (a[O_D] && d != fd)) {
      af_cli_error("certify: --init %s has %zu rows of %zu numbers, not "
                   "--n %zu --d %zu", init, fn, fd, n, d);
      free(times);
      return AF_EXIT_USAGE;
    }
    n = fn;
    d = fd;
  } else if (!a[O_N] || !a[O_D]) {
    af_cli_error("certify: --init %s needs --n and --d", init);
    free(times);
    return AF_EXIT_USAGE;
  }
  if (n < 2 || d < 2 || n > AF_CERTIFY_DIM_MAX || d > AF_CERTIFY_DIM_MAX
      || n * (d + 1) > AF_CERTIFY_DIM_MAX) {
    size_t dim = n * d + (radii ? n : 0);
    if (n < 2 || d < 2 || dim > AF_CERTIFY_DIM_MAX) {
      af_cli_error("certify: n = %zu, d = %zu: this build certifies n >= 2, "
                   "d >= 2 and a state of at most %d numbers (n d, plus n "
                   "radii for Pre-, Mix-, Peri-LN; here %zu)",
                   n, d, AF_CERTIFY_DIM_MAX, dim);
      free(times);
      free(ang);
      return AF_EXIT_USAGE;
    }
  }
  if (a[O_SCHEMEDEF] && !af_cli_scheme_def(&spec, a[O_SCHEMEDEF])) {
    free(times);
    free(ang);
    return AF_EXIT_USAGE;
  }
  const af_scheme *urow = spec ? af_scheme_spec_row(spec) : NULL;
  const char *sname = urow ? urow->name : a[O_SCHEME];
  int ex = AF_EXIT_OK;
  size_t N = af_state_size(n, d);
  double *y = malloc(N * sizeof *y);
  double *Q = NULL, *K = NULL;
  af_weights *w = NULL;
  af_prov prov;
  af_prov_init(&prov);
  af_certify_result res;
  memset(&res, 0, sizeof res);
  if (y == NULL) {
    af_cli_error("certify: %s", af_strerror(AF_ENOMEM));
    ex = AF_EXIT_FAIL;
    goto done;
  }
  if (ang) {
    for (size_t j = 0; j < n; j++) {
      y[2 * j] = cos(ang[j]);
      y[2 * j + 1] = sin(ang[j]);
    }
  } else if (strncmp(init, "file:", 5) == 0) {
    af_read_info info;
    int rc = af_init_read_file_info(y, &info, init + 5, n, d);
    if (rc != AF_OK) {
      af_cli_error("certify: --init %s:%zu: %s%s%s", init, info.line,
                   af_strerror(rc), info.what ? ": " : "",
                   info.what ? info.what : "");
      ex = AF_EXIT_FAIL;
      goto done;
    }
    for (size_t j = 0; j < n; j++)
      if (!(fabs(y[n * d + j] - 1) <= 1e-12)) {
        af_cli_error("certify: --init %s: row %zu has norm %.17g: a start "
                     "must lie on the unit sphere (within 1e-12; radii are "
                     "given by --r0)", init, j + 1, y[n * d + j]);
        ex = AF_EXIT_USAGE;
        goto done;
      }
  } else {
    size_t line = 0;
    int rc = af_init_state(y, &line, init, n, d, NAN, seed);
    if (rc != AF_OK) {
      af_cli_error("certify: --init %s: %s", init, af_strerror(rc));
      ex = af_cli_exit_status(rc);
      goto done;
    }
  }
  for (size_t j = 0; j < n; j++)
    y[n * d + j] = r0;
  if (a[O_WEIGHTS]) {
    af_read_info info;
    errno = 0;
    int rc = af_cli_weights_read(&w, &info, a[O_WEIGHTS], d, 1.0);
    if (rc != AF_OK) {
      af_cli_error("certify: --weights %s:%zu: %s%s%s", a[O_WEIGHTS],
                   info.line, af_strerror(rc), info.what ? ": " : "",
                   info.what ? info.what : "");
      ex = AF_EXIT_FAIL;
      goto done;
    }
    if (w->layers != 1 || af_weights_heads(w) != 1) {
      af_cli_error("certify: --weights %s holds %zu layers of %zu heads: "
                   "the certified tape is one Q, K (one layer, one head)",
                   a[O_WEIGHTS], w->layers, af_weights_heads(w));
      ex = AF_EXIT_USAGE;
      goto done;
    }
    if (w->V[0])
      for (size_t i = 0; i < d * d; i++)
        if (w->V[0][i] != (i / d == i % d ? 1.0 : 0.0)) {
          af_cli_error("certify: --weights %s: V must be the identity (the "
                       "closing lemmas are stated for V = I)", a[O_WEIGHTS]);
          ex = AF_EXIT_USAGE;
          goto done;
        }
    Q = w->Q[0];
    K = w->K[0];
  }
  af_certify_opts o;
  af_certify_opts_init(&o, sc, n, d, beta);
  o.alpha = alpha;
  o.alpha_decay = decay;
  o.tau = tau;
  o.q = Q;
  o.k = K;
  o.t_max = tmax;
  o.prec = (long) prec;
  o.order = (unsigned) order;
  o.max_steps = steps;
  o.init_radius = irad;
  o.no_wrap = nowrap;
  o.max_rad = maxrad;
  o.property_cap = a[O_PROP] != NULL;
  o.merge_cos = mcos;
  o.h_max = hmax;
  o.user = urow;
  o.times = times;
  o.ntimes = ntimes;
  int rc = af_certify(&res, y, &o);
  if (rc != AF_OK) {
    af_cli_error("certify: %s", res.reason[0] ? res.reason : af_strerror(rc));
    ex = af_cli_exit_status(rc);
    goto done;
  }
  printf("status: %s\n", af_certify_status_name(res.status));
  printf("scheme: %s%s  n = %zu  d = %zu  beta = %g%s\n", sname,
         urow ? " (--scheme-def)" : "", n, d, beta,
         Q || K ? "  (Q^T K from --weights)" : "");
  if (res.status == AF_CERTIFY_CERTIFIED) {
    printf("T*: %.17g\n", res.t_star);
    if (res.lemma == AF_CLOSE_HEMISPHERE)
      printf("lemma: %s (theorems.md P3h): min_i <theta_i, w>/|w| >= %.6g > 0 "
             "proven in balls\n", af_close_lemma_name(res.lemma), res.hyp);
    else if (res.lemma == AF_CLOSE_SPEED && isnan(res.time_exp))
      printf("lemma: %s (theorems.md U-close): min_i <theta_i, w>/|w| >= "
             "%.6g > 0 proven in balls, and the speed lies in [%.6g, %.6g] "
             "on ta in [-1, 1], na in [%.6g, 1]\n",
             af_close_lemma_name(res.lemma), res.hyp, res.speed_lo,
             res.speed_hi, res.hyp);
    else if (res.lemma == AF_CLOSE_SPEED)
      printf("lemma: %s (theorems.md U-close): min_i <theta_i, w>/|w| >= "
             "%.6g > 0 proven in balls; the speed is Phi(t) G with G in "
             "[%.6g, %.6g] on ta in [-1, 1], na in [%.6g, 1] and "
             "0 < Phi(t) <= K (1 + t)^e, e <= %.6g, for t >= T*\n",
             af_close_lemma_name(res.lemma), res.hyp, res.speed_lo,
             res.speed_hi, res.hyp, res.time_exp);
    else if (res.lemma == AF_CLOSE_CAP_ENTERED)
      printf("property: the flow enters the cap by T* (theorems.md "
             "C-refute): max 1 - cos <= %.6g < delta_max = %.6g proven in "
             "balls; no lemma turns this into convergence for a spec\n",
             res.hyp, res.hyp_bound);
    else
      printf("lemma: %s (theorems.md T4.3): max 1 - cos <= %.6g < delta_max = "
             "1/(100 n^2 max(1, beta^2)) = %.6g, |Q^T K| <= %.6g, proven in "
             "balls\n", af_close_lemma_name(res.lemma), res.hyp, res.hyp_bound,
             res.qtk_norm);
  } else
    printf("reason: %s\n", res.reason);
  printf("final radius: %.3g (log2 %.1f) at t = %.17g; start radius %.3g\n",
         res.final_rad, res.final_rad > 0 ? log2(res.final_rad) : -INFINITY,
         res.t_end, res.start_rad);
  printf("steps: %lu (rejected %lu), order %u, %lu bits, %.2f s CPU\n",
         res.steps, res.rejected, res.order, prec, res.cpu_seconds);
  if (res.merge_lo) {
    printf("merges (a pair merged once cos > %.17g; theorems.md C-merge), "
           "peak radius %.3g:\n", mcos, res.peak_rad);
    for (size_t k = 0; k + 1 < n; k++) {
      if (res.merge_hi[k] < INFINITY)
        printf("  %zu -> %zu clusters: t in [%.10g, %.10g], width %.3g\n",
               n - k, n - 1 - k, res.merge_lo[k], res.merge_hi[k],
               res.merge_hi[k] - res.merge_lo[k]);
      else
        printf("  %zu -> %zu clusters: t >= %.10g (not enclosed by t = %.10g)"
               "\n", n - k, n - 1 - k, res.merge_lo[k], res.t_end);
    }
    int allstay = 1;
    for (size_t q = 0; q < res.npairs; q++)
      if (res.pair_hi[q] < INFINITY && !res.pair_stays[q])
        allstay = 0;
    printf("  every merged pair stays merged to t = %.10g: %s\n", res.t_end,
           allstay ? "proven" : "not proven for every pair");
  }
  if (a[O_MCSV] && res.merge_lo) {
    FILE *mf = fopen(a[O_MCSV], "w");
    int bad = mf == NULL;
    if (mf) {
      bad |= fprintf(mf, "# command: attnflow certify") < 0;
      for (int i = 1; i < argc; i++)
        bad |= fprintf(mf, " %s", argv[i]) < 0;
      bad |= fprintf(mf, "\n# merge k of the staircase (a pair merged once "
                     "cos > %.17g) lies in [t_lo, t_hi] (theorems.md C-merge); "
                     "%lu steps, %ld bits, order %u, peak radius %.3g, "
                     "%.1f s CPU\nclusters_from,clusters_to,t_lo,t_hi\n",
                     mcos, res.steps, (long) prec, res.order, res.peak_rad,
                     res.cpu_seconds) < 0;
      for (size_t k = 0; k + 1 < n; k++)
        bad |= fprintf(mf, "%zu,%zu,%.17g,%.17g\n", n - k, n - 1 - k,
                       res.merge_lo[k], res.merge_hi[k] < INFINITY
                       ? res.merge_hi[k] : NAN) < 0;
      bad |= fclose(mf) != 0;
    }
    if (bad) {
      af_cli_error("certify: cannot write %s", a[O_MCSV]);
      ex = AF_EXIT_FAIL;
      goto done;
    }
  }
  if (a[O_JSON]) {
    rc = af_prov_add_head(&prov, argc, argv);
    if (rc == AF_OK && urow)
      rc = af_prov_add_str(&prov, "scheme_def", a[O_SCHEMEDEF]);
    if (rc == AF_OK && urow)
      rc = af_prov_add_str(&prov, "scheme_def_speed", urow->speed_text);
    if (rc == AF_OK && urow)
      rc = af_prov_add_str(&prov, "scheme_def_radial", urow->radial_text);
    json_ctx jc = {&res, &o, sname, init, r0, &prov};
    if (rc == AF_OK)
      rc = af_write_atomic(a[O_JSON], write_json, &jc);
    if (rc != AF_OK) {
      af_cli_error("certify: cannot write %s: %s", a[O_JSON], af_strerror(rc));
      ex = AF_EXIT_FAIL;
      goto done;
    }
  }
  if (fflush(stdout) != 0)
    ex = AF_EXIT_FAIL;
  else if (res.status != AF_CERTIFY_CERTIFIED)
    ex = AF_EXIT_FAIL;
done:
  af_certify_result_free(&res);
  af_prov_clear(&prov);
  af_weights_free(w);
  af_scheme_spec_free(spec);
  free(y);
  free(times);
  free(ang);
  return ex;
}
