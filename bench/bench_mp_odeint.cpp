// bench_mp_odeint.cpp -- peer of bench_mp: the benchmark case integrated by
// Boost.Odeint's bulirsch_stoer (controlled Bulirsch-Stoer extrapolation,
// at most 8 rows, order <= 16) on std::vector<boost::multiprecision::
// mpfr_float>.
//
//   bench_mp_odeint --init PATH --scheme SCHEME [--n 32 --d 3
//       --digits10 77 --tol 1e-58 --times LIST --cap SECONDS --out PATH
//       --rhs0 PATH --start STATES --t0 T0]
//
// Vector field (theorems.md S0 with M2, M3; Q = K = V = I, softmax, beta = 1),
// written as a user of Odeint would write it: for token j with x_j the
// direction part of the state (|x_j| is a first integral, attnflow.h) and
// r_j the radius,
//   th_j = x_j / |x_j|,  e_jk = exp(beta (<th_j, th_k> - 1))  (row maximum
//   beta subtracted; e_jk = e_kj computed once),  A_j = sum_k e_jk th_k /
//   sum_k e_jk,  c_j = <th_j, A_j>,  P_j = A_j - c_j th_j,
//   dx_j/dt = |x_j| P_j / s_j,  dr_j/dt = rho_j,
// with the speed s_j and radial rate rho_j of theorems.md S0 at the
// defaults of af_model_init (alpha = 1, tau = 1):
//   post-ln (1, 0), pre-ln (r_j, c_j), peri-ln (r_j |A_j|, c_j / |A_j|),
//   mix-ln (1, 0) for t <= tau and (r_j, c_j) after, ngpt (|A_j|, 0),
//   ln-scaling (sqrt(t + 1), 0).
// Mix-LN's field jumps at tau, which must therefore be one of the output
// times: the intervals up to tau take the first piece, those from tau on
// the second (as attnflow's integrators stop and restart at tau).
// bench_mp.sh checks f(0, y0) against af_mp_rhs (--rhs0).
//
// Error control: odeint's default error checker with eps_abs = --tol,
// eps_rel = 0 (the state is O(1)); integrate_adaptive from one output
// time to the next, carrying the step.  Only the integration is timed
// (process CPU time; wall time alongside).  --cap: stop after the first
// output time reached when the CPU time exceeds the cap (the run is then
// a lower bound on the time to the last output time).
// --start STATES --t0 T0: start at t = T0 from the state of time T0 in a
// state-set file (the reference, rounded to the working precision) instead
// of the init file: the cost of a late window of the run, measured alone.
// Output: the state-set format of bench_mp.c (110 significant digits).
#include <mpfr.h>

#include <boost/multiprecision/mpfr.hpp>
#include <boost/numeric/odeint.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using real = boost::multiprecision::mpfr_float;
using state = std::vector<real>;
namespace odeint = boost::numeric::odeint;

// A multiprecision number has a value_type of its own, which sends
// odeint's extract_value_type into a recursion (Boost 1.74): the scalar
// type of the state is the number itself.
namespace boost {
namespace numeric {
namespace odeint {
namespace detail {
template <> struct extract_value_type<real, void> {
  typedef real type;
};
} // namespace detail
} // namespace odeint
} // namespace numeric
} // namespace boost

static double now(clockid_t clk)
{
  timespec ts;
  clock_gettime(clk, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

enum scheme { POST, PRE, MIX, PERI, NGPT, LNS };
static const char *const scheme_names[] = {"post-ln", "pre-ln", "mix-ln",
                                           "peri-ln", "ngpt", "ln-scaling"};

struct field {
  size_t n, d;
  scheme sch;
  bool after_tau; // Mix-LN: the interval being integrated starts at >= tau
  real beta;
  unsigned long *nevals;
  // scratch
  mutable std::vector<real> th, E, A, nx;
  field(size_t n_, size_t d_, scheme sch_, unsigned long *ne)
      : n(n_), d(d_), sch(sch_), after_tau(false), beta(1), nevals(ne),
        th(n_ * d_), E(n_ * n_), A(d_), nx(n_)
  {
  }
  void operator()(const state &y, state &dy, const real &t) const
  {
    ++*nevals;
    for (size_t j = 0; j < n; j++) {
      real s = 0;
      for (size_t i = 0; i < d; i++)
        s += y[j * d + i] * y[j * d + i];
      nx[j] = sqrt(s);
      for (size_t i = 0; i < d; i++)
        th[j * d + i] = y[j * d + i] / nx[j];
    }
    for (size_t j = 0; j < n; j++)
      for (size_t k = 0; k <= j; k++) {
        real s = 0;
        for (size_t i = 0; i < d; i++)
          s += th[j * d + i] * th[k * d + i];
        E[j * n + k] = exp(beta * (s - 1));
        E[k * n + j] = E[j * n + k];
      }
    for (size_t j = 0; j < n; j++) {
      real Z = 0;
      for (size_t i = 0; i < d; i++)
        A[i] = 0;
      for (size_t k = 0; k < n; k++) {
        Z += E[j * n + k];
        for (size_t i = 0; i < d; i++)
          A[i] += E[j * n + k] * th[k * d + i];
      }
      real c = 0, a2 = 0;
      for (size_t i = 0; i < d; i++) {
        A[i] /= Z;
        c += th[j * d + i] * A[i];
        a2 += A[i] * A[i];
      }
      real sp = 1, rho = 0;
      if (sch == PERI) {
        real a = sqrt(a2);
        sp = y[n * d + j] * a;
        rho = c / a;
      } else if (sch == PRE || (sch == MIX && after_tau)) {
        sp = y[n * d + j];
        rho = c;
      } else if (sch == NGPT)
        sp = sqrt(a2);
      else if (sch == LNS)
        sp = sqrt(t + 1);
      real f = nx[j] / sp;
      for (size_t i = 0; i < d; i++)
        dy[j * d + i] = (A[i] - c * th[j * d + i]) * f;
      dy[n * d + j] = rho;
    }
  }
};

static void die(const std::string &msg)
{
  std::fprintf(stderr, "bench_mp_odeint: %s\n", msg.c_str());
  std::exit(2);
}

static void read_init(state &y, size_t n, size_t d, const char *path)
{
  FILE *f = std::fopen(path, "r");
  if (!f)
    die(std::string("cannot open ") + path);
  char line[4096];
  size_t j = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    if (j >= n)
      die("too many tokens in init file");
    char *p = line;
    for (size_t i = 0; i <= d; i++) {
      char *end;
      double v = std::strtod(p, &end); // exact: hex doubles
      if (end == p)
        die("malformed init line");
      (i < d ? y[j * d + i] : y[n * d + j]) = v;
      p = end;
    }
    j++;
  }
  std::fclose(f);
  if (j != n)
    die("wrong number of tokens in init file");
}

// The record of time t0 of a state-set file (bench_mp.c format).
static void read_start(state &y, const char *path, double t0)
{
  FILE *f = std::fopen(path, "r");
  if (!f)
    die(std::string("cannot open ") + path);
  char line[4096];
  bool in = false;
  size_t i = 0;
  while (std::fgets(line, sizeof line, f) && i < y.size()) {
    if (line[0] == '#')
      continue;
    if (line[0] == 't' && line[1] == ' ') {
      in = std::fabs(std::strtod(line + 2, nullptr) - t0) <= 1e-12 * (1 + t0);
      continue;
    }
    if (in) {
      line[std::strcspn(line, "\r\n")] = '\0';
      y[i++] = real(line);
    }
  }
  std::fclose(f);
  if (i != y.size())
    die("no complete record of --t0 in --start file");
}

static void write_record(FILE *f, double t, const state &y)
{
  std::fprintf(f, "t %.17g\n", t);
  for (const real &v : y) {
    mpfr_out_str(f, 10, 110, v.backend().data(), MPFR_RNDN);
    std::fputc('\n', f);
  }
}

int main(int argc, char **argv)
{
  size_t n = 32, d = 3;
  unsigned digits10 = 77; // Boost rounds up to 257 bits (printed)
  double tol = 1e-58, cap = 0;
  const char *init = nullptr, *out = nullptr, *rhs0 = nullptr;
  const char *start = nullptr;
  double t0 = 0;
  const char *label = "odeint";
  scheme sch = POST;
  std::vector<double> times;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    const char *v = argv[i + 1];
    if (k == "--n")
      n = std::strtoul(v, nullptr, 10);
    else if (k == "--d")
      d = std::strtoul(v, nullptr, 10);
    else if (k == "--digits10")
      digits10 = std::strtoul(v, nullptr, 10);
    else if (k == "--tol")
      tol = std::strtod(v, nullptr);
    else if (k == "--cap")
      cap = std::strtod(v, nullptr);
    else if (k == "--init")
      init = v;
    else if (k == "--out")
      out = v;
    else if (k == "--rhs0")
      rhs0 = v;
    else if (k == "--start")
      start = v;
    else if (k == "--t0")
      t0 = std::strtod(v, nullptr);
    else if (k == "--label")
      label = v;
    else if (k == "--scheme") {
      size_t m = 0;
      while (m < 6 && std::strcmp(v, scheme_names[m]))
        m++;
      if (m == 6)
        die(std::string("unknown scheme ") + v + " (post-ln, pre-ln, mix-ln, "
            "peri-ln, ngpt, ln-scaling)");
      sch = scheme(m);
    } else if (k == "--times") {
      std::string s = v;
      size_t pos = 0;
      while (pos <= s.size()) {
        size_t e = s.find(',', pos);
        if (e == std::string::npos)
          e = s.size();
        times.push_back(std::strtod(s.substr(pos, e - pos).c_str(), nullptr));
        pos = e + 1;
      }
    } else
      die("unknown option " + k);
  }
  if (!init)
    die("--init PATH is required");
  if (times.empty())
    times.push_back(10.0);
  real::default_precision(digits10);
  size_t N = n * d + n;
  state y(N);
  read_init(y, n, d, init);
  if (start)
    read_start(y, start, t0);
  long bits = long(mpfr_get_prec(y[0].backend().data()));
  unsigned long nevals = 0;
  const double tau = 1.0; // af_model_init's
  if (sch == MIX && !rhs0 && t0 < tau && times.back() > tau) {
    bool found = false;
    for (double tk : times)
      found = found || tk == tau;
    if (!found)
      die("mix-ln: tau = 1 must be one of the --times");
  }
  field f(n, d, sch, &nevals);
  const char *sname = scheme_names[sch];
  if (rhs0) {
    state dy(N);
    f(y, dy, real(0));
    FILE *o = std::fopen(rhs0, "w");
    if (!o)
      die("cannot write --rhs0 file");
    std::fprintf(o, "# f(0, y0) by bench_mp_odeint, %s, %ld bits\n",
                 sname, bits);
    write_record(o, 0.0, dy);
    std::fclose(o);
    return 0;
  }
  FILE *o = nullptr;
  if (out) {
    o = std::fopen(out, "w");
    if (!o)
      die("cannot write --out file");
    std::fprintf(o, "# bench_mp_odeint: bulirsch_stoer, %s, %ld bits, "
                    "eps_abs %g, eps_rel 0\n",
                 sname, bits, tol);
  }
  odeint::bulirsch_stoer<state, real> stepper(real(tol), real(0));
  real t = t0, dt = real(times.back() - t0) / 8;
  // Process CPU time (the machine is shared); wall time alongside.
  double t_end = t0, c0 = now(CLOCK_PROCESS_CPUTIME_ID);
  double w0 = now(CLOCK_MONOTONIC), elapsed = 0, wall = 0, io = 0;
  size_t steps = 0;
  for (double tk : times) {
    f.after_tau = sch == MIX && double(t) >= tau;
    steps += odeint::integrate_adaptive(stepper, f, y, t, real(tk), dt);
    t = tk;
    t_end = tk;
    double t1 = now(CLOCK_PROCESS_CPUTIME_ID);
    if (o)
      write_record(o, tk, y);
    io += now(CLOCK_PROCESS_CPUTIME_ID) - t1;
    elapsed = now(CLOCK_PROCESS_CPUTIME_ID) - c0 - io;
    wall = now(CLOCK_MONOTONIC) - w0;
    std::printf("# t=%g steps=%zu nevals=%lu seconds=%.3f\n", tk, steps,
                nevals, elapsed);
    std::fflush(stdout);
    if (cap > 0 && elapsed > cap && tk != times.back())
      break;
  }
  if (o)
    std::fclose(o);
  std::printf("RESULT %s %s odeint-bs prec=%ld tol=%.3g seconds=%.3f "
              "wall=%.3f t_end=%g steps=%zu nevals=%lu capped=%d\n",
              label, sname, bits, tol, elapsed, wall, t_end,
              steps, nevals, t_end < times.back() ? 1 : 0);
  return 0;
}
