/* expr.h -- the small expression language of scheme specs (expr.c):
 * recursive descent over numbers, the variables of a scheme's rates and
 * named parameters, compiled to a stack bytecode that is evaluated in
 * double (each operation rounded once, in the order of the parse tree:
 * left to right, as C evaluates the same expression) and in MPFR at the
 * working precision (every literal read from its text at that precision).
 * Library-internal. */
#ifndef AF_EXPR_H
#define AF_EXPR_H

#include <stddef.h>
#include <mpfr.h>

/* Bounds: an expression's text, its operations, constants of a spec,
 * nesting depth and stack, a name and a number's text. */
#define AF_EXPR_TEXT_MAX 512
#define AF_EXPR_OPS_MAX 128
#define AF_EXPR_CONSTS_MAX 64
#define AF_EXPR_DEPTH_MAX 32
#define AF_EXPR_STACK_MAX 32
#define AF_EXPR_NAME_MAX 32
#define AF_EXPR_NUM_MAX 64
#define AF_EXPR_PARAMS_MAX 16

/* The variables, in the order of the vars array of the evaluators. */
enum {
  AF_EXPR_T = 0, /* time t                               */
  AF_EXPR_R,     /* radius r_j                           */
  AF_EXPR_TA,    /* <theta_j, A_j>                       */
  AF_EXPR_NA,    /* |A_j|                                */
  AF_EXPR_ALPHA, /* alpha(t) of the model                */
  AF_EXPR_TAU,   /* Mix-LN switch tau (for t <= tau)     */
  AF_EXPR_NVARS
};

/* The bytecode: op[i] with arg[i] (the constant's index for CONST, the
 * variable for VAR); a stack machine, left operand below the right one.
 * Shared with the tape builder of the certified flow
 * (certified/flow_spec.c). */
enum {
  AF_EXPR_OP_CONST, AF_EXPR_OP_VAR, AF_EXPR_OP_ADD, AF_EXPR_OP_SUB,
  AF_EXPR_OP_MUL, AF_EXPR_OP_DIV, AF_EXPR_OP_POW, AF_EXPR_OP_NEG,
  AF_EXPR_OP_EXP, AF_EXPR_OP_LOG, AF_EXPR_OP_SQRT, AF_EXPR_OP_ABS,
  AF_EXPR_OP_TANH, AF_EXPR_OP_MIN, AF_EXPR_OP_MAX, AF_EXPR_OP_IFLE
};

/* Constants of a spec (literals and parameters): the value as a double
 * (strtod of the text, correctly rounded) and the text itself. */
typedef struct {
  size_t n;
  double val[AF_EXPR_CONSTS_MAX];
  char text[AF_EXPR_CONSTS_MAX][AF_EXPR_NUM_MAX + 1];
} af_expr_consts;

/* Named parameters: name -> constant index. */
typedef struct {
  size_t n;
  char name[AF_EXPR_PARAMS_MAX][AF_EXPR_NAME_MAX + 1];
  size_t cidx[AF_EXPR_PARAMS_MAX];
} af_expr_params;

typedef struct {
  size_t nops, maxstack;
  unsigned char op[AF_EXPR_OPS_MAX];
  unsigned char arg[AF_EXPR_OPS_MAX];
  unsigned vars;  /* bit k set: variable k is used */
  int constant;   /* the program is one literal     */
} af_expr;

/* Compile src (NUL-terminated, at most AF_EXPR_TEXT_MAX bytes) into e,
 * adding its literals to k.  AF_OK, or AF_EPARSE with *col the 1-based
 * column of the fault in src and *what a static description. */
int af_expr_compile(af_expr *e, af_expr_consts *k, const af_expr_params *p,
                    const char *src, size_t *col, const char **what);

/* Parse one number literal at s (digits [. digits] [e [+-] digits], or
 * . digits ...): its length, 0 if none.  Shared by the spec parser. */
size_t af_expr_number_len(const char *s);

/* Value of e in double for vars[AF_EXPR_NVARS]. */
double af_expr_eval_d(const af_expr *e, const af_expr_consts *k,
                      const double *vars);

/* MPFR evaluation: the constants of k at precision prec (read from their
 * text) and a stack.  NULL on failure. */
typedef struct af_expr_mp af_expr_mp;
af_expr_mp *af_expr_mp_alloc(const af_expr_consts *k, mpfr_prec_t prec);
void af_expr_mp_free(af_expr_mp *x);
mpfr_prec_t af_expr_mp_prec(const af_expr_mp *x);
/* out = e(vars) with every operation correctly rounded at the precision
 * of x (vars[k] may be NULL for a variable e does not use). */
void af_expr_eval_mp(mpfr_ptr out, const af_expr *e, af_expr_mp *x,
                     mpfr_srcptr const *vars);

#endif /* AF_EXPR_H */
