#!/usr/bin/python3
"""bench_mp_mpmath.py -- peer of bench_mp: the benchmark case integrated by
mpmath's odefun (Taylor series; Debian python3-mpmath, run with
/usr/bin/python3).

    bench_mp_mpmath.py --init PATH --scheme post-ln|peri-ln [--n 32 --d 3
        --prec 256 --tol E --degree K --times LIST --cap SECONDS
        --out PATH --rhs0 PATH]

Vector field (theorems.md S0 with M2, M3; Q = K = V = I, softmax, beta = 1),
the same as bench_mp_odeint.cpp: for token j with x_j the direction part of
the state (|x_j| is a first integral, attnflow.h) and r_j the radius,
  th_j = x_j / |x_j|,  e_jk = exp(beta (<th_j, th_k> - 1))  (row maximum
  beta subtracted; e_jk = e_kj computed once),  A_j = sum_k e_jk th_k /
  sum_k e_jk,  c_j = <th_j, A_j>,  P_j = A_j - c_j th_j,
  dx_j/dt = |x_j| P_j / s_j,  dr_j/dt = rho_j,
with (s_j, rho_j) = (1, 0) for Post-LN and (r_j |A_j|, c_j / |A_j|) for
Peri-LN.  bench_mp.sh checks f(0, y0) against af_mp_rhs (--rhs0).

odefun(F, 0, y0, tol, degree): mpmath computes each Taylor expansion from
`degree` Euler steps of length tol at precision prec (1 + degree)
(mpmath/calculus/odes.py) and advances by half the radius where the last
coefficient reaches tol (at most 1/2).  mp.prec = --prec; tol and degree
are mpmath's defaults unless given.  The interpolant is evaluated at each
output time in turn; only that is timed (process CPU time and wall time).
--cap SECONDS: stop after the first output time reached when the CPU time
exceeds the cap (the run is then a lower bound on the time to T).
Output: the state-set format of bench_mp.c (110 significant digits).

--bound: do not integrate; print a lower bound on the CPU time odefun needs
to reach T (the last of --times), from its algorithm and measured costs.
Every step of odefun calls ode_taylor once, which evaluates F `degree`
times; the first call runs at prec (1 + degree) bits, later ones (made
from the interpolant, at workprec = prec + 40) at (prec + 40)(1 + degree)
bits; a step advances by at most 1/2 (radius = min(1, ...)/2), so reaching
T takes at least ceil(2 T) steps.  Neither count depends on tol, so the
bound holds at any accuracy.  The bound is degree (c1 + (ceil(2T) - 1) c2)
with c1, c2 the measured CPU times of one evaluation of F at the two
precisions on y0; it leaves out everything else odefun does (the Taylor
coefficients from the Euler points, polynomial evaluation).
"""
import math
import argparse
import sys
import time

import mpmath
from mpmath import mp


def make_field(n, d, peri):
    beta = mp.mpf(1)

    def F(t, y):
        th = [None] * (n * d)
        nx = [None] * n
        for j in range(n):
            xj = y[j * d:(j + 1) * d]
            nx[j] = mp.sqrt(mp.fsum(v * v for v in xj))
            for i in range(d):
                th[j * d + i] = xj[i] / nx[j]
        E = [[None] * n for _ in range(n)]
        for j in range(n):
            tj = th[j * d:(j + 1) * d]
            for k in range(j + 1):
                tk = th[k * d:(k + 1) * d]
                s = mp.fsum(tj[i] * tk[i] for i in range(d))
                E[j][k] = E[k][j] = mp.exp(beta * (s - 1))
        dy = [None] * (n * d + n)
        for j in range(n):
            row = E[j]
            Z = mp.fsum(row)
            A = [mp.fsum(row[k] * th[k * d + i] for k in range(n)) / Z
                 for i in range(d)]
            tj = th[j * d:(j + 1) * d]
            c = mp.fsum(tj[i] * A[i] for i in range(d))
            if peri:
                a = mp.sqrt(mp.fsum(v * v for v in A))
                sp, rho = y[n * d + j] * a, c / a
            else:
                sp, rho = mp.mpf(1), mp.mpf(0)
            f = nx[j] / sp
            for i in range(d):
                dy[j * d + i] = (A[i] - c * tj[i]) * f
            dy[n * d + j] = rho
        return dy
    return F


def read_init(path, n, d):
    y = [None] * (n * d + n)
    j = 0
    with open(path) as fh:
        for line in fh:
            if line.startswith('#') or not line.strip():
                continue
            v = [float.fromhex(s) for s in line.split()]  # exact doubles
            if len(v) != d + 1 or j >= n:
                sys.exit('bench_mp_mpmath: malformed init file')
            for i in range(d):
                y[j * d + i] = mp.mpf(v[i])
            y[n * d + j] = mp.mpf(v[d])
            j += 1
    if j != n:
        sys.exit('bench_mp_mpmath: wrong number of tokens in init file')
    return y


def write_record(fh, t, y):
    fh.write('t %.17g\n' % t)
    for v in y:
        fh.write(mpmath.nstr(v, 110, strip_zeros=False, min_fixed=1,
                             max_fixed=0) + '\n')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--init', required=True)
    p.add_argument('--scheme', choices=['post-ln', 'peri-ln'],
                   default='post-ln')
    p.add_argument('--n', type=int, default=32)
    p.add_argument('--d', type=int, default=3)
    p.add_argument('--prec', type=int, default=256)
    p.add_argument('--tol', type=float, default=None)
    p.add_argument('--degree', type=int, default=None)
    p.add_argument('--times', default='10')
    p.add_argument('--cap', type=float, default=0)
    p.add_argument('--out')
    p.add_argument('--rhs0')
    p.add_argument('--label', default='mpmath')
    p.add_argument('--bound', action='store_true')
    a = p.parse_args()
    mp.prec = a.prec
    n, d = a.n, a.d
    peri = a.scheme == 'peri-ln'
    y0 = read_init(a.init, n, d)
    F = make_field(n, d, peri)
    if a.rhs0:
        with open(a.rhs0, 'w') as fh:
            fh.write('# f(0, y0) by bench_mp_mpmath, %s, prec %d\n'
                     % (a.scheme, mp.prec))
            write_record(fh, 0.0, F(mp.mpf(0), y0))
        return
    times = [float(s) for s in a.times.split(',')]
    if a.bound:
        # mpmath's defaults (calculus/odes.py), at the user's precision.
        degree = a.degree or (3 + int(3 * mp.dps / 2.))
        T = times[-1]
        nsteps = math.ceil(2 * T)
        cost = []
        for bits in (a.prec * (1 + degree), (a.prec + 40) * (1 + degree)):
            mp.prec = bits
            c0 = time.process_time()
            F(mp.mpf(0), y0)
            cost.append(time.process_time() - c0)
            mp.prec = a.prec
        bound = degree * (cost[0] + (nsteps - 1) * cost[1])
        print('RESULT %s %s mpmath-odefun prec=%d degree=%d steps>=%d '
              'eval1=%.3f@%dbits eval2=%.3f@%dbits seconds>=%.1f t_end=%g '
              'bound=1' % (a.label, a.scheme, a.prec, degree, nsteps,
                           cost[0], a.prec * (1 + degree), cost[1],
                           (a.prec + 40) * (1 + degree), bound, T))
        return
    tol = mp.mpf(a.tol) if a.tol else None
    out = open(a.out, 'w') if a.out else None
    if out:
        out.write('# bench_mp_mpmath: odefun taylor, %s, prec %d, tol %s, '
                  'degree %s, mpmath %s backend %s\n'
                  % (a.scheme, mp.prec, a.tol, a.degree, mpmath.__version__,
                     mpmath.libmp.BACKEND))
    c0, w0 = time.process_time(), time.perf_counter()
    sol = mp.odefun(F, 0, y0, tol=tol, degree=a.degree)
    cpu = wall = 0.0
    t_end = 0.0
    for tk in times:
        y = sol(mp.mpf(tk))
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        t_end = tk
        if out:
            write_record(out, tk, y)
            out.flush()
        # Exclude the writing from the timing.
        c0 += time.process_time() - c0 - cpu
        w0 += time.perf_counter() - w0 - wall
        if a.cap > 0 and cpu > a.cap and tk != times[-1]:
            break
    if out:
        out.close()
    print('RESULT %s %s mpmath-odefun prec=%d tol=%s seconds=%.3f wall=%.3f '
          't_end=%g capped=%d' % (a.label, a.scheme, mp.prec,
                                  a.tol if a.tol else 'default', cpu, wall,
                                  t_end, 1 if t_end < times[-1] else 0))


if __name__ == '__main__':
    main()
