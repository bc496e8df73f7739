/* rkv98.c -- Verner's "most efficient" explicit Runge-Kutta 9(8) pair as a
 * gsl_odeiv2 step type.
 *
 * J. H. Verner, "Explicit Runge-Kutta pairs with lower stage-order",
 * Numerical Algorithms 65 (2014) 555-577, and the coefficients Verner
 * published with it (the pair called Vern9 in Julia's OrdinaryDiffEq).
 * Sixteen stages: stages 1-15 give the 9th-order solution that is
 * propagated (local extrapolation, as rk8pd does with its 8th-order one);
 * stage 16 only enters the embedded 8th-order solution, whose difference
 * from the 9th-order one is the error estimate (local error O(h^9), so
 * order() returns 9 for GSL's step-size control, the convention of
 * rk8pd, rkf45 and rkck).  The pair is not FSAL in its 16-stage form; as
 * in rk8pd, the derivative at the new point is evaluated only when the
 * caller asks for dydt_out, and the evolve framework reuses it as the
 * next step's first stage (can_use_dydt_in), so an accepted step costs 16
 * evaluations against rk8pd's 13.
 *
 * The coefficients are Verner's 40-digit decimals, rounded to double by
 * the compiler; with them the rows sum to the nodes and all 486 order
 * conditions up to order 9 hold for B (the 200 up to order 8 for B + E)
 * to 1e-39.  tests/test_integrate.c checks the order 9 of the propagated
 * solution and the order of the error estimate.
 */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "internal.h"

enum { S = 16 };

static const double C[S] = {
  0.0,
  0.03462,
  0.09702435063878044594828361677100617517633,
  0.1455365259581706689224254251565092627645,
  0.561,
  0.2290079115904850126662751771814700052182,
  0.5449920884095149873337248228185299947818,
  0.645,
  0.48375,
  0.06757,
  0.25,
  0.6590650618730998549405331618649220295334,
  0.8206,
  0.9012,
  1.0,
  1.0,
};

/* A[i][j], j < i; the zero columns 2-5 (1-based) of rows 6-16 and 2-3 of
 * rows 4-5 are the pair's lower stage order structure. */
static const double A[S][S - 1] = {
  {0},
  {0.03462},
  {-0.0389335438857287327017042687229284478532,
   0.1359578945245091786499878854939346230295},
  {0.03638413148954266723060635628912731569111, 0.0,
   0.1091523944686280016918190688673819470733},
  {2.025763914393969636805657604282571047511, 0.0,
   -7.638023836496292020387602153091964592952,
   6.173259922102322383581944548809393545442},
  {0.05112275589406060872792270881648288397197, 0.0, 0.0,
   0.1770823794555021537929910813839068684087,
   0.00080277624092225014536138698108025283759},
  {0.1316006357975216279279871693164256985334, 0.0, 0.0,
   -0.2957276252669636417685183174672273730699,
   0.0878137803564295237421124704053886667082,
   0.6213052975225274774321435005639430026100},
  {0.07166666666666666666666666666666666666667, 0.0, 0.0, 0.0, 0.0,
   0.3305533578915319409260346730051472207728,
   0.2427799754418013924072986603281861125606},
  {0.071806640625, 0.0, 0.0, 0.0, 0.0,
   0.3294380283228177160744825466257672816401,
   0.1165190029271822839255174533742327183599,
   -0.034013671875},
  {0.04836757646340646986611287718844085773549, 0.0, 0.0, 0.0, 0.0,
   0.03928989925676163974333190042057047002852,
   0.1054740945890344608263649267140088017604,
   -0.02143865284648312665982642293830533996214,
   -0.1041229174627194437759832813847147895623},
  {-0.02664561487201478635337289243849737340534, 0.0, 0.0, 0.0, 0.0,
   0.03333333333333333333333333333333333333333,
   -0.1631072244872467239162704487554706387141,
   0.03396081684127761199487954930015522928244,
   0.1572319413814626097110769806810024118077,
   0.2152267478031879552303534778794770376960},
  {0.03689009248708622334786359863227633989718, 0.0, 0.0, 0.0, 0.0,
   -0.1465181576725542928653609891758501156785,
   0.2242577768172024345345469822625833796001,
   0.02294405717066072637090897902753790803034,
   -0.0035850052905728761357394424889330334334,
   0.08669223316444385506869203619044453906053,
   0.4383840651968337846196219974168630120572},
  {-0.4866012215113340846662212357570395295088, 0.0, 0.0, 0.0, 0.0,
   -6.304602650282852990657772792012007122988,
   -0.281245618289472564778284183790118418111,
   -2.679019236219849057687906597489223155566,
   0.518815663924157511565311164615012522024,
   1.365353187603341710683633635235238678626,
   5.885091088503946585721274891680604830712,
   2.802808786272062889819965117517532194812},
  {0.4185367457753471441471025246471931649633, 0.0, 0.0, 0.0, 0.0,
   6.724547581906459363100870806514855026676,
   -0.425444280164611790606983409697113064616,
   3.343279153001265577811816947557982637749,
   0.617081663117537759528421117507709784737,
   -0.929966123939932833937749523988800852013,
   -6.099948804751010722472962837945508844846,
   -3.002206187889399044804158084895173690015,
   0.2553202529443445472336424602988558373637},
  {-0.779374086122884664644623040843840506343, 0.0, 0.0, 0.0, 0.0,
   -13.93734253810777678786523664804936051203,
   1.252048853379357320949735183924200895136,
   -14.69150040801686878191527989293072091588,
   -0.494705058533141685655191992136962873577,
   2.242974909146236657906984549543692874755,
   13.36789380382864375813864978592679139881,
   14.39665048665068644512236935340272139005,
   -0.7975813331776800379127866056663258667437,
   0.4409353709534277758753793068298041158235},
  {2.058051337466886442151242368989994043993, 0.0, 0.0, 0.0, 0.0,
   22.35793772796803295519317565842520212899,
   0.90949810997556332745009198137971890783,
   35.89110098240264104710550686568482456493,
   -3.442515027624453437985000403608480262211,
   -4.865481358036368826566013387928704014496,
   -18.90980381354342625688427480879773032857,
   -34.26354448030451782929251177395134170515,
   1.264756521695642578827783499806516664686, 0.0, 0.0},
};

/* 9th-order weights (stage 16 unused). */
static const double B[S] = {
  0.01461197685842315252051541915018784713459, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
  -0.3915211862331339089410228267288242030810,
  0.2310932500289506415909675644868993669908,
  0.1274766769992852382560589467488989175618,
  0.2246434176204157731566981937082069688984,
  0.5684352689748512932705226972873692126743,
  0.05825871557215827200814768021863420902155,
  0.1364317403482215641609022744494239843327,
  0.03057013983082797397721005067920369646664,
  0.0,
};

/* 8th-order weights minus 9th-order weights: the error estimate. */
static const double E[S] = {
  0.005357988290444578334669665030800840430050, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
  2.583020491182463963471769926039661727945,
  -0.1425225315468662612826303441690357783613,
  -0.01342065351268867600756328623975571429440,
  0.02867296291409493339975957974875822883630,
  -2.624999655215792304429522291883350513167,
  0.2825509643291537215078618092038201722614,
  -0.1364317403482215641609022744494239843327,
  -0.03057013983082797397721005067920369646664,
  0.04834231373823958314376726739772871714902,
};

typedef struct {
  double *k[S];
  double *ytmp;
} rkv98_state;

static void rkv98_free(void *vs)
{
  rkv98_state *st = vs;
  if (st == NULL)
    return;
  for (int i = 0; i < S; i++)
    free(st->k[i]);
  free(st->ytmp);
  free(st);
}

static void *rkv98_alloc(size_t dim)
{
  rkv98_state *st = calloc(1, sizeof *st);
  if (st == NULL)
    return NULL;
  int ok = 1;
  for (int i = 0; i < S; i++)
    ok &= (st->k[i] = malloc(dim * sizeof(double))) != NULL;
  ok &= (st->ytmp = malloc(dim * sizeof(double))) != NULL;
  if (!ok) {
    rkv98_free(st);
    return NULL;
  }
  return st;
}

/* y is left untouched unless the whole step, including dydt_out,
 * succeeds: a failing right-hand side aborts with y as on entry. */
static int rkv98_apply(void *vs, size_t dim, double t, double h, double y[],
                       double yerr[], const double dydt_in[], double dydt_out[],
                       const gsl_odeiv2_system *sys)
{
  rkv98_state *st = vs;
  double *const *k = st->k;
  double *ytmp = st->ytmp;
  int s;

  if (dydt_in != NULL)
    memcpy(k[0], dydt_in, dim * sizeof(double));
  else if ((s = GSL_ODEIV_FN_EVAL(sys, t, y, k[0])) != GSL_SUCCESS)
    return s;

  for (int i = 1; i < S; i++) {
    memcpy(ytmp, y, dim * sizeof(double));
    for (int j = 0; j < i; j++) {
      double a = h * A[i][j];
      if (a == 0.0)
        continue;
      const double *kj = k[j];
      for (size_t l = 0; l < dim; l++)
        ytmp[l] += a * kj[l];
    }
    if ((s = GSL_ODEIV_FN_EVAL(sys, t + C[i] * h, ytmp, k[i])) != GSL_SUCCESS)
      return s;
  }

  memcpy(ytmp, y, dim * sizeof(double));
  memset(yerr, 0, dim * sizeof(double));
  for (int j = 0; j < S; j++) {
    double b = h * B[j], e = h * E[j];
    const double *kj = k[j];
    if (b != 0.0)
      for (size_t l = 0; l < dim; l++)
        ytmp[l] += b * kj[l];
    if (e != 0.0)
      for (size_t l = 0; l < dim; l++)
        yerr[l] += e * kj[l];
  }

  if (dydt_out != NULL
      && (s = GSL_ODEIV_FN_EVAL(sys, t + h, ytmp, dydt_out)) != GSL_SUCCESS)
    return s;
  memcpy(y, ytmp, dim * sizeof(double));
  return GSL_SUCCESS;
}

static int rkv98_set_driver(void *vs, const gsl_odeiv2_driver *d)
{
  (void) vs;
  (void) d;
  return GSL_SUCCESS;
}

static int rkv98_reset(void *vs, size_t dim)
{
  (void) vs;
  (void) dim;
  return GSL_SUCCESS; /* no state carried between steps */
}

static unsigned int rkv98_order(void *vs)
{
  (void) vs;
  return 9;
}

static const gsl_odeiv2_step_type rkv98_type = {
  "vern9", 1, /* can use dydt_in */
  1,          /* gives exact dydt_out */
  &rkv98_alloc, &rkv98_apply, &rkv98_set_driver, &rkv98_reset, &rkv98_order,
  &rkv98_free,
};

const gsl_odeiv2_step_type *af_step_vern9 = &rkv98_type;
