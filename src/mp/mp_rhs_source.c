/* mp_rhs_source.c -- the vector field S0 of the kernel template: the rates
 * of the scheme table (rates, spec_rates, rates_fill) and the field rhs,
 * transcribing rates_fill and af_rhs of scheme.c / attention.c with every
 * floating operation in the same order.  Part of mp_kernel_source.c (its
 * macros, work and attention_fill), which #includes it; NOT compiled on its
 * own, nor included anywhere else.
 */

/* Rates of the scheme table S0 (scheme.c rows, theorems.md S0-S7):
 *   post-ln 1, 0 | pre-ln r, c | mix-ln post for t <= tau, pre after |
 *   peri-ln r a, c / a | ngpt a / alpha, 0 | ln-scaling sqrt(t + 1), 0. */
static void AF_FN(rates)(struct AF_WORK *w, af_scheme_id id, AF_SRC t,
                         AF_CONST AF_T *r, AF_CONST AF_T *c, AF_CONST AF_T *a,
                         double tau)
{
  if (id == AF_MIX_LN)
    id = AF_CMP_D(t, tau) <= 0 ? AF_POST_LN : AF_PRE_LN;
  switch (id) {
  case AF_PRE_LN:
    AF_SET(w->sj, *r);
    AF_SET(w->rj, *c);
    break;
  case AF_PERI_LN:
    AF_MUL(w->sj, *r, *a);
    AF_DIV(w->rj, *c, *a);
    break;
  case AF_NGPT:
    AF_DIV(w->sj, *a, w->alpha);
    AF_SET_UI(w->rj, 0);
    break;
  case AF_LN_SCALING:
    AF_ADD_D(w->tmp, t, 1.0);
    AF_SQRT(w->sj, w->tmp);
    AF_SET_UI(w->rj, 0);
    break;
  case AF_POST_LN:
  default:
    AF_SET_UI(w->sj, 1);
    AF_SET_UI(w->rj, 0);
    break;
  }
}

/* Rates of a spec'd scheme (theorems.md U1) into w->sj, w->rj. */
static int AF_FN(spec_rates)(struct AF_WORK *w, const af_scheme_spec *sp,
                             AF_SRC t, AF_CONST AF_T *r, AF_CONST AF_T *c,
                             AF_CONST AF_T *a, double tau)
{
#ifdef AF_SPEC_MP
  int rc = AF_FN(spec_consts)(w, sp);
  if (rc != AF_OK)
    return rc;
  AF_SET_D(w->tmp2, tau); /* a double, or +-inf: the side of the switch */
  mpfr_srcptr v[AF_EXPR_NVARS] = {t, *r, *c, *a, w->alpha, w->tmp2};
  af_expr_eval_mp(w->sj, &sp->speed, w->spec_x, v);
  af_expr_eval_mp(w->rj, &sp->radial, w->spec_x, v);
#else
  af_scheme_spec_eval(&w->sj, &w->rj, NULL, sp, t, *r, *c, *a, w->alpha,
                      tau);
#endif
  return AF_OK;
}

/* rates_fill of attention.c: w->s, w->rho. */
static int AF_FN(rates_fill)(struct AF_WORK *w, AF_SRC t, AF_CONST AF_T *y,
                             const af_model *m)
{
  const af_scheme *sc = af_model_scheme(m);
  const af_scheme_spec *spec = sc != NULL ? af_scheme_spec_of(sc) : NULL;
  if (sc == NULL || (m->scheme == AF_SCHEME_USER && spec == NULL))
    return AF_EINVAL; /* a callback scheme: double precision only */
#ifndef AF_SPEC_MP
  if (af_scheme_spec_alters_attention(spec))
    return AF_EINVAL; /* U3's scores and gain: attention_norm.c in double */
#endif
  size_t n = w->n, d = w->d;
  /* af_model_alpha: alpha (1 + t)^(-decay). */
#ifdef AF_PARAMS
  if (w->par != NULL) { /* the same with the exact values */
    if (AF_ISZERO(w->par->alpha_decay))
      AF_SET(w->alpha, w->par->alpha);
    else {
      AF_ADD_D(w->tmp, t, 1.0);
      AF_NEG(w->tmp2, w->par->alpha_decay);
      AF_POW(w->tmp, w->tmp, w->tmp2);
      AF_MUL(w->alpha, w->tmp, w->par->alpha);
    }
  } else
#endif
  if (m->alpha_decay == 0.0)
    AF_SET_D(w->alpha, m->alpha);
  else {
    AF_ADD_D(w->tmp, t, 1.0);
    AF_POW_D(w->tmp, w->tmp, -m->alpha_decay);
    AF_MUL_D(w->alpha, w->tmp, m->alpha);
  }
  double tau = m->tau;
#ifdef AF_PARAMS
  /* Mix-LN's side of the exact tau (rates: post-LN while t <= tau). */
  if (w->par != NULL)
    tau = AF_CMP(t, w->par->tau) <= 0 ? INFINITY : -INFINITY;
#endif
  if (w->seg_set)
    tau = (w->seg_lo >= m->tau) ? -INFINITY : INFINITY;
  for (size_t j = 0; j < n; j++) {
    if (sc->needs_anorm) {
      /* attention_vanishes: |A_j| <= n eps sum_k w_jk |V th_k|. */
      AF_EPS_N(w->tmp, n, w->prec);
      AF_MUL(w->tmp, w->tmp, w->amag[j]);
      if (AF_CMP(w->a[j], w->tmp) <= 0)
        return AF_EZEROATTN;
    }
    if (spec != NULL) {
      int rc = AF_FN(spec_rates)(w, spec, t, &y[n * d + j], &w->c[j],
                                 &w->a[j], tau);
      if (rc != AF_OK)
        return rc;
    } else
      AF_FN(rates)(w, m->scheme, t, &y[n * d + j], &w->c[j], &w->a[j], tau);
    if (m->fault & AF_FAULT_SPEED) { /* s (1 + 0.05 t) */
      AF_MULQ(w->tmp, t, 1, 20, 0.05);
      AF_D_ADD(w->tmp, 1.0, w->tmp);
      AF_MUL(w->sj, w->sj, w->tmp);
    }
    if (m->fault & AF_FAULT_RADIAL) /* rho 1.1 */
      AF_MULQ(w->rj, w->rj, 11, 10, 1.1);
    if (!AF_ISFINITE(w->sj) || !AF_ISFINITE(w->rj))
      return AF_ENONFINITE;
    if (!(AF_SGN(w->sj) > 0))
      return AF_ESPEED;
    AF_SET(w->s[j], w->sj);
    AF_SET(w->rho[j], w->rj);
  }
  return AF_OK;
}

/* The vector field dy = f(t, y) (af_rhs with AF_KERNEL_DIRECT).  dy must
 * not alias y. */
int AF_FN(rhs)(AF_T *dy, AF_SRC t, AF_CONST AF_T *y, const af_model *m,
               struct AF_WORK *w)
{
  if (w == NULL || y == NULL || dy == NULL || AF_SRC_BAD(t))
    return AF_EINVAL;
  int rc = AF_FN(attention_fill)(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  size_t n = w->n, d = w->d;
  rc = AF_FN(rates_fill)(w, t, y, m);
  if (rc != AF_OK)
    return rc;
  for (size_t j = 0; j < n; j++) {
    AF_UI_DIV(w->iz, 1, w->s[j]);
    AF_CONST AF_T *Pj = w->P + j * d;
    AF_CONST AF_T *x = y + j * d;
    AF_FN(norm2)(w, &w->nx, x, d);
    for (size_t i = 0; i < d; i++) {
      AF_MUL(w->tmp, Pj[i], w->iz);
      AF_MUL(dy[j * d + i], w->tmp, w->nx);
    }
    AF_SET(dy[n * d + j], w->rho[j]);
  }
  return AF_OK;
}
