#!/usr/bin/env python3
"""test_mp_mpmath.py -- `attnflow run --precision` against an independent
reference written in Python with mpmath, computed from the decimals as
typed.  Run by 'make check' (top_builddir exported); by hand:
top_builddir=BUILD python3 tests/test_mp_mpmath.py.

The case: Post-LN, identity weights, n = 3 tokens in d = 3 given as
decimal rows, beta = 1.2, 256 bits, --tol 1e-60.  The reference solves
the same flow on the sphere,

    th_j' = A_j - <th_j, A_j> th_j,
    A_j = sum_k exp(beta <th_j, th_k>) th_k / sum_k exp(beta <th_j, th_k>),

from th_j(0) = row_j / |row_j| (the rows read by mpmath at 400 bits), by
a Taylor method: the series coefficients of every quantity come from the
usual recurrences for products, exp and quotients (no finite
differences, no code shared with attnflow).  attnflow integrates x_j with
x_j' = |x_j| P_j and |x_j(0)| = 1 up to 2^-256; |x_j| is constant along
the exact flow, so x_j / |x_j| solves the equation above and the
comparison is of the same solution.

Tolerances (derivation): the run's target is a global error of 1e-60
(max norm); its own error estimate err_est is printed and must be below
1e-60.  The observables energy (<= e^beta) and var (<= 1) are smooth
functions of the directions with derivatives below 2 beta e^beta < 8 and
4 respectively, so they may differ from the reference by up to 8e-60;
the state by 1e-60.  The rounding of the initial rows at 256 bits
(2^-256 ~ 1e-77) is far below.  The run's own estimate err_est, if it is
honest, also bounds the state's error: checked too.  The reference checks
itself: with steps of 1/40, its series of order 40 and of order 48 must
agree to 1e-70 (the terms decrease geometrically, so the order-48 result
is nearer still), ten digits below the tolerances above.  Measured: the
orders differ by 2.5e-77; attnflow's state is within 3e-74 at t = 1
(err_est 8.5e-62) and 9e-78 at t = 0.1.

Output: "ok N - name" / "not ok N - name: why" per case, then a summary;
exit status 0 only if nothing failed.
"""
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

try:
    from mpmath import mp, mpf, exp, sqrt
except ImportError:  # python3-mpmath (README): without it, skip
    print("ok 1 - mpmath reference # SKIP python3-mpmath not installed")
    sys.exit(0)

mp.prec = 400
BUILD = os.environ.get("top_builddir", ".")
AF = os.path.join(os.path.abspath(BUILD), "attnflow")
ROWS = ["0.3, 0.4, 1.2", "-0.7,0.1,0.25", "0.2,-0.9,0.05"]
N, D = 3, 3
TOL = mpf("1e-60")

ncase = nfail = 0


def report(name, good, why=""):
    global ncase, nfail
    ncase += 1
    if good:
        print("ok %d - %s%s" % (ncase, name, " (%s)" % why if why else ""))
    else:
        nfail += 1
        print("not ok %d - %s: %s" % (ncase, name, why))


# ------------------------------------------------------------ reference

def conv(a, b, k):
    """Coefficient k of the product of series a and b."""
    return sum(a[m] * b[k - m] for m in range(k + 1))


def taylor_step(th, beta, h, K):
    """th (n lists of d numbers) after a step h, series to order K."""
    S = [[[th[j][i]] for i in range(D)] for j in range(N)]  # S[j][i][k]
    pairs = [(j, l) for j in range(N) for l in range(N)]
    G = {p: [] for p in pairs}
    E = {p: [] for p in pairs}
    Z = [[] for _ in range(N)]
    A = [[[] for _ in range(D)] for _ in range(N)]
    Nv = [[[] for _ in range(D)] for _ in range(N)]
    c = [[] for _ in range(N)]
    for k in range(K):
        for (j, l) in pairs:
            G[(j, l)].append(sum(conv(S[j][i], S[l][i], k) for i in range(D)))
            g, e = G[(j, l)], E[(j, l)]
            if k == 0:
                e.append(exp(beta * g[0]))
            else:
                e.append(beta * sum(m * g[m] * e[k - m]
                                    for m in range(1, k + 1)) / k)
        for j in range(N):
            Z[j].append(sum(E[(j, l)][k] for l in range(N)))
            for i in range(D):
                Nv[j][i].append(sum(conv(E[(j, l)], S[l][i], k)
                                    for l in range(N)))
                a = A[j][i]
                a.append((Nv[j][i][k] - sum(Z[j][m] * a[k - m]
                                            for m in range(1, k + 1)))
                         / Z[j][0])
            c[j].append(sum(conv(S[j][i], A[j][i], k) for i in range(D)))
        for j in range(N):
            for i in range(D):
                f = A[j][i][k] - conv(c[j], S[j][i], k)
                S[j][i].append(f / (k + 1))
    out = []
    for j in range(N):
        row = []
        for i in range(D):
            v = mpf(0)
            for a in reversed(S[j][i]):
                v = v * h + a
            row.append(v)
        out.append(row)
    return out


def reference(beta, times, steps_per_unit, K):
    """Directions at each of times (increasing Fractions)."""
    th = []
    for r in ROWS:
        x = [mpf(v.strip()) for v in r.split(",")]
        s = sqrt(sum(v * v for v in x))
        th.append([v / s for v in x])
    t = Fraction(0)
    res = []
    for T in times:
        while t < T:
            h = min(Fraction(1, steps_per_unit), T - t)
            th = taylor_step(th, beta, mpf(h.numerator) / h.denominator, K)
            t += h
        res.append([row[:] for row in th])
    return res


def energy(th, beta):
    s = mpf(0)
    for i in range(N):
        for j in range(N):
            g = 1 - sum(th[i][k] * th[j][k] for k in range(D))
            s += exp(-beta * g)
    return exp(beta) * s / N**2


def var(th):
    mean = [sum(th[j][k] for j in range(N)) / N for k in range(D)]
    return sum(sum((th[j][k] - mean[k])**2 for k in range(D))
               for j in range(N)) / N


def maxdiff(a, b):
    return max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))


# ------------------------------------------------------------ attnflow

def hexval(s):
    """An MPFR %Ra number (0x1.8p+1), exactly."""
    s = s.strip()
    sign = -1 if s.startswith("-") else 1
    s = s.lstrip("+-")
    assert s[:2].lower() == "0x", s
    mant, _, ex = s[2:].partition("p")
    whole, _, frac = mant.partition(".")
    m = int(whole + frac, 16)
    e = int(ex or "0") - 4 * len(frac)
    return mpf((sign * m, e))


def run(args, workdir):
    init = os.path.join(workdir, "rows.csv")
    with open(init, "w") as f:
        f.write("# three tokens, decimal\n" + "\n".join(ROWS) + "\n")
    cmd = [AF, "run", "--scheme", "post-ln", "--n", str(N), "--d", str(D),
           "--init", "file:" + init, "--precision", "256", "--tol", "1e-60",
           "--observables", "t,energy,var"] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                                 p.stderr.strip()))
    prov, rows = {}, []
    for line in p.stdout.splitlines():
        if line.startswith("# "):
            k, _, v = line[2:].partition(": ")
            prov[k] = v
        elif not line.startswith("t,"):
            rows.append(line.split(","))
    return prov, rows


def read_state(path):
    """t and the directions x_j / |x_j| of a --save-state file."""
    t, y = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            if line.startswith("t "):
                t = hexval(line[2:])
            elif line.strip():
                y.append(hexval(line))
    th = []
    for j in range(N):
        x = y[j * D:(j + 1) * D]
        s = sqrt(sum(v * v for v in x))
        th.append([v / s for v in x])
    return t, th


def main():
    beta = mpf("1.2")
    times = [Fraction(1, 10), Fraction(1)]
    ref = reference(beta, times, 40, 48)
    ref2 = reference(beta, times, 40, 40)
    d = max(maxdiff(a, b) for a, b in zip(ref, ref2))
    report("the reference converges (orders 40 and 48 agree to 1e-70)",
           d < mpf("1e-70"), "differ by %s" % mp.nstr(d, 3))

    with tempfile.TemporaryDirectory() as wd:
        st = os.path.join(wd, "state")
        prov, rows = run(["--beta", "1.2", "--times", "0.1,1",
                          "--save-state", st], wd)
        report("provenance has beta and times as typed",
               prov.get("beta") == "1.2" and prov.get("times") == "0.1,1",
               "beta %r times %r" % (prov.get("beta"), prov.get("times")))
        report("t column is the requested times", [r[0] for r in rows] ==
               ["0.1", "1"], repr([r[0] for r in rows]))
        err_est = float(prov.get("err_est", "1"))
        report("the run's own estimate is within --tol", err_est <= 1e-60,
               "err_est %g" % err_est)
        for k, T in enumerate(times):
            e, v = mpf(rows[k][1]), mpf(rows[k][2])
            de = abs(e - energy(ref[k], beta))
            dv = abs(v - var(ref[k]))
            report("energy at t = %s within 8e-60 of the reference" % T,
                   de <= 8 * TOL, "differs by %s" % mp.nstr(de, 3))
            report("var at t = %s within 4e-60 of the reference" % T,
                   dv <= 4 * TOL, "differs by %s" % mp.nstr(dv, 3))
        t1, th1 = read_state(st)
        dth = maxdiff(th1, ref[1])
        report("state at t = 1 within 1e-60 of the reference",
               t1 == 1 and dth <= TOL, "t %s, differs by %s" %
               (mp.nstr(t1, 20), mp.nstr(dth, 3)))
        report("state at t = 1 within the run's own err_est",
               dth <= err_est, "differs by %s, err_est %g" %
               (mp.nstr(dth, 3), err_est))

        # --times 0.1: the state at the 256-bit number nearest 1/10.
        st01 = os.path.join(wd, "state01")
        prov, rows = run(["--beta", "1.2", "--times", "0.1",
                          "--save-state", st01], wd)
        t01, th01 = read_state(st01)
        near = Fraction(1, 10) - Fraction(t01.man) * Fraction(2)**t01.exp \
            if t01.exp < 0 else None
        report("--times 0.1: the state's time is 0.1 to 256 bits",
               near is not None and abs(near) <= Fraction(1, 10) / 2**256,
               "t = %s" % mp.nstr(t01, 40))
        dth = maxdiff(th01, ref[0])
        report("--times 0.1: the state within 1e-60 of the reference at 0.1",
               dth <= TOL, "differs by %s" % mp.nstr(dth, 3))
        report("--times 0.1: t column reads 0.1", rows[0][0] == "0.1",
               repr(rows[0][0]))

        # beta typed with 32 digits: its own problem, 4.4e-17 away.
        b2 = "1.1999999999999999555910790149937"
        prov2, rows2 = run(["--beta", b2, "--times", "0.1,1"], wd)
        e1, e2 = mpf(rows[0][1]), mpf(rows2[0][1])
        de = abs(e2 - energy(ref[0], beta))
        report("beta %s is not beta 1.2 (energy differs by > 1e-18)" % b2,
               prov2.get("beta") == b2 and de > mpf("1e-18"),
               "differs by %s" % mp.nstr(de, 3))
        report("beta 1.2 and the 1.2 reference agree where %s does not" % b2,
               abs(e1 - energy(ref[0], beta)) <= 8 * TOL,
               "differs by %s" % mp.nstr(abs(e1 - energy(ref[0], beta)), 3))

    print("%d passed, %d failed" % (ncase - nfail, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
