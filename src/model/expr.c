/* expr.c -- the expression language of scheme specs (expr.h).
 *
 * Grammar (recursive descent, every level bounded by AF_EXPR_DEPTH_MAX):
 *
 *   expr    := term (('+' | '-') term)*          left-associative
 *   term    := unary (('*' | '/') unary)*        left-associative
 *   unary   := '-' unary | power
 *   power   := primary ('^' unary)?              right-associative: -x^2
 *                                                is -(x^2), 2^-1 is 0.5
 *   primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * NAME is a variable (t, r, ta = <theta, A>, na = |A|, alpha, tau), a
 * parameter of the spec, or a function: exp log sqrt abs tanh (one
 * argument), min max pow (two), ifle(x, y, a, b) = (x <= y ? a : b).
 * NUMBER is decimal: digits, an optional fraction, an optional exponent.
 *
 * The program is postfix code of the parse tree.  The double evaluator
 * rounds each operation once in the order of the tree, which is the order
 * a C compiler gives the same expression written in C (with
 * -ffp-contract=off): "r * na" is the product r * a of scheme.c, so a spec
 * that spells a built-in rate the way scheme.c computes it reproduces it
 * bit for bit.  The MPFR evaluator runs the same program with correctly
 * rounded operations at the working precision, its literals read from
 * their text at that precision (mpfr_set_str), never through a double. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "expr.h"

enum {
  OP_CONST = AF_EXPR_OP_CONST, OP_VAR = AF_EXPR_OP_VAR, OP_ADD = AF_EXPR_OP_ADD,
  OP_SUB = AF_EXPR_OP_SUB, OP_MUL = AF_EXPR_OP_MUL, OP_DIV = AF_EXPR_OP_DIV,
  OP_POW = AF_EXPR_OP_POW, OP_NEG = AF_EXPR_OP_NEG, OP_EXP = AF_EXPR_OP_EXP,
  OP_LOG = AF_EXPR_OP_LOG, OP_SQRT = AF_EXPR_OP_SQRT, OP_ABS = AF_EXPR_OP_ABS,
  OP_TANH = AF_EXPR_OP_TANH, OP_MIN = AF_EXPR_OP_MIN, OP_MAX = AF_EXPR_OP_MAX,
  OP_IFLE = AF_EXPR_OP_IFLE
};

static const struct {
  const char *name;
  unsigned char op, nargs;
} funcs[] = {
  {"exp", OP_EXP, 1},   {"log", OP_LOG, 1}, {"sqrt", OP_SQRT, 1},
  {"abs", OP_ABS, 1},   {"tanh", OP_TANH, 1}, {"min", OP_MIN, 2},
  {"max", OP_MAX, 2},   {"pow", OP_POW, 2}, {"ifle", OP_IFLE, 4},
};

static const char *const var_names[AF_EXPR_NVARS] = {
  "t", "r", "ta", "na", "alpha", "tau"};

typedef struct {
  const char *src, *p;
  af_expr *e;
  af_expr_consts *k;
  const af_expr_params *par;
  size_t depth, sp;
  const char *what, *at;
} parser;

size_t af_expr_number_len(const char *s)
{
  const char *p = s;
  size_t dig = 0;
  while (isdigit((unsigned char) *p)) {
    p++;
    dig++;
  }
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char) *p)) {
      p++;
      dig++;
    }
  }
  if (dig == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    if (*q == '+' || *q == '-')
      q++;
    if (!isdigit((unsigned char) *q))
      return 0; /* "1e" / "1e+": a malformed exponent is an error */
    while (isdigit((unsigned char) *q))
      q++;
    p = q;
  }
  return (size_t) (p - s);
}

static int fail(parser *ps, const char *at, const char *what)
{
  if (ps->what == NULL) {
    ps->what = what;
    ps->at = at;
  }
  return -1;
}

static void skip(parser *ps)
{
  while (*ps->p == ' ' || *ps->p == '\t')
    ps->p++;
}

/* Append one operation; pops and pushes as it says (stack tracked). */
static int emit(parser *ps, unsigned char op, unsigned char arg, size_t pops)
{
  af_expr *e = ps->e;
  if (e->nops >= AF_EXPR_OPS_MAX)
    return fail(ps, ps->p, "expression has too many operations");
  e->op[e->nops] = op;
  e->arg[e->nops] = arg;
  e->nops++;
  ps->sp = ps->sp - pops + 1;
  if (ps->sp > AF_EXPR_STACK_MAX)
    return fail(ps, ps->p, "expression nests too deeply");
  if (ps->sp > e->maxstack)
    e->maxstack = ps->sp;
  return 0;
}

static int parse_expr(parser *ps);

static int enter(parser *ps)
{
  if (++ps->depth > AF_EXPR_DEPTH_MAX)
    return fail(ps, ps->p, "expression nests too deeply");
  return 0;
}

static int parse_primary(parser *ps)
{
  skip(ps);
  const char *start = ps->p;
  size_t len = af_expr_number_len(ps->p);
  if (len > 0) {
    if (len > AF_EXPR_NUM_MAX)
      return fail(ps, start, "number too long");
    af_expr_consts *k = ps->k;
    if (k->n >= AF_EXPR_CONSTS_MAX)
      return fail(ps, start, "too many numbers in the spec");
    memcpy(k->text[k->n], start, len);
    k->text[k->n][len] = '\0';
    k->val[k->n] = strtod(k->text[k->n], NULL);
    if (!isfinite(k->val[k->n]))
      return fail(ps, start, "number out of the range of a double");
    ps->p += len;
    if (isalpha((unsigned char) *ps->p) || *ps->p == '_' || *ps->p == '.')
      return fail(ps, ps->p, "malformed number");
    if (emit(ps, OP_CONST, (unsigned char) k->n, 0))
      return -1;
    k->n++;
    return 0;
  }
  if (*ps->p == '(') {
    ps->p++;
    if (parse_expr(ps))
      return -1;
    skip(ps);
    if (*ps->p != ')')
      return fail(ps, ps->p, "expected ')'");
    ps->p++;
    return 0;
  }
  if (!(isalpha((unsigned char) *ps->p) || *ps->p == '_')) {
    if (*ps->p == '\0')
      return fail(ps, ps->p, "expression ends where an operand is expected");
    return fail(ps, ps->p, "expected a number, a name or '('");
  }
  while (isalnum((unsigned char) *ps->p) || *ps->p == '_')
    ps->p++;
  len = (size_t) (ps->p - start);
  if (len > AF_EXPR_NAME_MAX)
    return fail(ps, start, "name too long");
  char name[AF_EXPR_NAME_MAX + 1];
  memcpy(name, start, len);
  name[len] = '\0';
  skip(ps);
  if (*ps->p == '(') { /* a function call */
    size_t f;
    for (f = 0; f < sizeof funcs / sizeof funcs[0]; f++)
      if (strcmp(funcs[f].name, name) == 0)
        break;
    if (f == sizeof funcs / sizeof funcs[0])
      return fail(ps, start, "unknown function");
    ps->p++;
    for (unsigned a = 0; a < funcs[f].nargs; a++) {
      if (a > 0) {
        skip(ps);
        if (*ps->p != ',')
          return fail(ps, ps->p, *ps->p == ')' ? "too few arguments"
                                               : "expected ','");
        ps->p++;
      }
      if (parse_expr(ps))
        return -1;
    }
    skip(ps);
    if (*ps->p == ',')
      return fail(ps, ps->p, "too many arguments");
    if (*ps->p != ')')
      return fail(ps, ps->p, "expected ')'");
    ps->p++;
    return emit(ps, funcs[f].op, 0, funcs[f].nargs);
  }
  for (unsigned v = 0; v < AF_EXPR_NVARS; v++)
    if (strcmp(var_names[v], name) == 0) {
      ps->e->vars |= 1u << v;
      return emit(ps, OP_VAR, (unsigned char) v, 0);
    }
  for (size_t i = 0; ps->par != NULL && i < ps->par->n; i++)
    if (strcmp(ps->par->name[i], name) == 0)
      return emit(ps, OP_CONST, (unsigned char) ps->par->cidx[i], 0);
  for (size_t f = 0; f < sizeof funcs / sizeof funcs[0]; f++)
    if (strcmp(funcs[f].name, name) == 0)
      return fail(ps, start, "function used without '('");
  return fail(ps, start, "unknown name (not t r ta na alpha tau, nor a "
                         "param above)");
}

static int parse_unary(parser *ps);

static int parse_power(parser *ps)
{
  if (parse_primary(ps))
    return -1;
  skip(ps);
  if (*ps->p == '^') {
    ps->p++;
    if (parse_unary(ps))
      return -1;
    return emit(ps, OP_POW, 0, 2);
  }
  return 0;
}

static int parse_unary(parser *ps)
{
  if (enter(ps))
    return -1;
  skip(ps);
  int rc;
  if (*ps->p == '-') {
    ps->p++;
    rc = parse_unary(ps);
    if (rc == 0)
      rc = emit(ps, OP_NEG, 0, 1);
  } else if (*ps->p == '+') {
    rc = fail(ps, ps->p, "unary '+' is not accepted");
  } else {
    rc = parse_power(ps);
  }
  ps->depth--;
  return rc;
}

static int parse_term(parser *ps)
{
  if (parse_unary(ps))
    return -1;
  for (;;) {
    skip(ps);
    char c = *ps->p;
    if (c != '*' && c != '/')
      return 0;
    ps->p++;
    if (parse_unary(ps) || emit(ps, c == '*' ? OP_MUL : OP_DIV, 0, 2))
      return -1;
  }
}

static int parse_expr(parser *ps)
{
  if (enter(ps))
    return -1;
  int rc = parse_term(ps);
  while (rc == 0) {
    skip(ps);
    char c = *ps->p;
    if (c != '+' && c != '-')
      break;
    ps->p++;
    rc = parse_term(ps);
    if (rc == 0)
      rc = emit(ps, c == '+' ? OP_ADD : OP_SUB, 0, 2);
  }
  ps->depth--;
  return rc;
}

int af_expr_compile(af_expr *e, af_expr_consts *k, const af_expr_params *p,
                    const char *src, size_t *col, const char **what)
{
  if (e == NULL || k == NULL || src == NULL)
    return AF_EINVAL;
  memset(e, 0, sizeof *e);
  parser ps = {src, src, e, k, p, 0, 0, NULL, NULL};
  size_t k0 = k->n;
  if (strlen(src) > AF_EXPR_TEXT_MAX) {
    fail(&ps, src + AF_EXPR_TEXT_MAX, "expression too long");
  } else if (parse_expr(&ps) == 0) {
    skip(&ps);
    if (*ps.p != '\0')
      fail(&ps, ps.p, *ps.p == ')' ? "unbalanced ')'"
                                   : "unexpected character after the "
                                     "expression");
  }
  if (ps.what != NULL) {
    k->n = k0; /* the literals of a failed expression are dropped */
    if (col)
      *col = (size_t) (ps.at - src) + 1;
    if (what)
      *what = ps.what;
    memset(e, 0, sizeof *e);
    return AF_EPARSE;
  }
  e->constant = e->nops == 1 && e->op[0] == OP_CONST;
  return AF_OK;
}

double af_expr_eval_d(const af_expr *e, const af_expr_consts *k,
                      const double *vars)
{
  double st[AF_EXPR_STACK_MAX];
  size_t sp = 0;
  for (size_t i = 0; i < e->nops; i++) {
    double x, y;
    switch (e->op[i]) {
    case OP_CONST:
      st[sp++] = k->val[e->arg[i]];
      break;
    case OP_VAR:
      st[sp++] = vars[e->arg[i]];
      break;
    case OP_NEG:
      st[sp - 1] = -st[sp - 1];
      break;
    case OP_EXP:
      st[sp - 1] = exp(st[sp - 1]);
      break;
    case OP_LOG:
      st[sp - 1] = log(st[sp - 1]);
      break;
    case OP_SQRT:
      st[sp - 1] = sqrt(st[sp - 1]);
      break;
    case OP_ABS:
      st[sp - 1] = fabs(st[sp - 1]);
      break;
    case OP_TANH:
      st[sp - 1] = tanh(st[sp - 1]);
      break;
    case OP_IFLE: {
      sp -= 3;
      double cx = st[sp - 1], cy = st[sp], a = st[sp + 1], b = st[sp + 2];
      st[sp - 1] = cx <= cy ? a : b;
      break;
    }
    default: /* binary */
      y = st[--sp];
      x = st[sp - 1];
      switch (e->op[i]) {
      case OP_ADD: x = x + y; break;
      case OP_SUB: x = x - y; break;
      case OP_MUL: x = x * y; break;
      case OP_DIV: x = x / y; break;
      case OP_POW: x = pow(x, y); break;
      case OP_MIN: x = fmin(x, y); break;
      case OP_MAX: x = fmax(x, y); break;
      default: x = NAN; break;
      }
      st[sp - 1] = x;
      break;
    }
  }
  return sp == 1 ? st[0] : NAN;
}

/* ------------------------------------------------------------- MPFR */

struct af_expr_mp {
  mpfr_prec_t prec;
  size_t nconst;
  mpfr_t c[AF_EXPR_CONSTS_MAX];
  mpfr_t st[AF_EXPR_STACK_MAX];
};

af_expr_mp *af_expr_mp_alloc(const af_expr_consts *k, mpfr_prec_t prec)
{
  if (k == NULL || prec < MPFR_PREC_MIN || prec > MPFR_PREC_MAX)
    return NULL;
  af_expr_mp *x = malloc(sizeof *x);
  if (x == NULL)
    return NULL;
  x->prec = prec;
  x->nconst = k->n;
  for (size_t i = 0; i < k->n; i++) {
    mpfr_init2(x->c[i], prec);
    /* the literal as typed, correctly rounded at the working precision */
    if (mpfr_set_str(x->c[i], k->text[i], 10, MPFR_RNDN) != 0)
      mpfr_set_nan(x->c[i]); /* (the parser accepted it: cannot happen) */
  }
  for (size_t i = 0; i < AF_EXPR_STACK_MAX; i++)
    mpfr_init2(x->st[i], prec);
  return x;
}

void af_expr_mp_free(af_expr_mp *x)
{
  if (x == NULL)
    return;
  for (size_t i = 0; i < x->nconst; i++)
    mpfr_clear(x->c[i]);
  for (size_t i = 0; i < AF_EXPR_STACK_MAX; i++)
    mpfr_clear(x->st[i]);
  free(x);
}

mpfr_prec_t af_expr_mp_prec(const af_expr_mp *x) { return x->prec; }

void af_expr_eval_mp(mpfr_ptr out, const af_expr *e, af_expr_mp *x,
                     mpfr_srcptr const *vars)
{
  const mpfr_rnd_t R = MPFR_RNDN;
  mpfr_t *st = x->st;
  size_t sp = 0;
  for (size_t i = 0; i < e->nops; i++) {
    switch (e->op[i]) {
    case OP_CONST:
      mpfr_set(st[sp++], x->c[e->arg[i]], R);
      break;
    case OP_VAR:
      mpfr_set(st[sp++], vars[e->arg[i]], R);
      break;
    case OP_NEG:
      mpfr_neg(st[sp - 1], st[sp - 1], R);
      break;
    case OP_EXP:
      mpfr_exp(st[sp - 1], st[sp - 1], R);
      break;
    case OP_LOG:
      mpfr_log(st[sp - 1], st[sp - 1], R);
      break;
    case OP_SQRT:
      mpfr_sqrt(st[sp - 1], st[sp - 1], R);
      break;
    case OP_ABS:
      mpfr_abs(st[sp - 1], st[sp - 1], R);
      break;
    case OP_TANH:
      mpfr_tanh(st[sp - 1], st[sp - 1], R);
      break;
    case OP_IFLE:
      sp -= 3;
      mpfr_swap(st[sp - 1], mpfr_lessequal_p(st[sp - 1], st[sp]) ? st[sp + 1]
                                                                   : st[sp + 2]);
      break;
    default: {
      mpfr_ptr a = st[sp - 2];
      mpfr_srcptr b = st[sp - 1];
      sp--;
      switch (e->op[i]) {
      case OP_ADD: mpfr_add(a, a, b, R); break;
      case OP_SUB: mpfr_sub(a, a, b, R); break;
      case OP_MUL: mpfr_mul(a, a, b, R); break;
      case OP_DIV: mpfr_div(a, a, b, R); break;
      case OP_POW: mpfr_pow(a, a, b, R); break;
      case OP_MIN: mpfr_min(a, a, b, R); break;
      case OP_MAX: mpfr_max(a, a, b, R); break;
      default: mpfr_set_nan(a); break;
      }
      break;
    }
    }
  }
  if (sp == 1)
    mpfr_set(out, st[0], R);
  else
    mpfr_set_nan(out);
}
