#!/usr/bin/python3
"""peer_scipy.py -- the peers of attnflow's double path.

What a user would write instead of attnflow, on the same work:

  solve   SciPy solve_ivp (DOP853 or RK45) with a NumPy right-hand side for
          Post-LN with softmax attention, Q = K = V = I -- the same field as
          attnflow's (theory/theorems.md S0, M2): for theta_j = x_j / |x_j|,
              A_j = sum_k softmax_k(beta <theta_j, theta_k>) theta_k,
              dx_j/dt = |x_j| (A_j - <theta_j, A_j> theta_j);
  euler   the public Euler-plus-renormalize step (the public demo's):
              X <- normalize_rows(X + h softmax(beta X X^T) X),  h = 0.1.

Helpers for bench/bench_peers.sh: time-cmd (wall and CPU time of a whole
process, e.g. 'attnflow run'), make-init (a seeded Gaussian start,
normalized rows, one token per line), check-rhs (the NumPy field against
attnflow's f(y0) printed by bench/rhs_dump: max abs difference, must be
<= 1e-13), err (error of a state file against a reference).

Every timing covers the solve (or the Euler loop) only, imports and file
reading excluded: perf_counter around the call, minimum over --reps runs.
The error of a final state is max_j max_i |theta_j,i - theta_ref_j,i| with
both states normalized row by row.  Run with OPENBLAS_NUM_THREADS=1
OMP_NUM_THREADS=1 (bench_peers.sh sets them) for one thread.
Output: one line of key=value pairs.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp


def read_state(path, n=None, d=None):
    rows = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            rows.append([float(v) for v in s.split(",")])
    x = np.array(rows, dtype=float)
    if n is not None and x.shape != (n, d):
        sys.exit("peer_scipy: %s has shape %s, expected (%d, %d)"
                 % (path, x.shape, n, d))
    return x


def normalize(x):
    return x / np.sqrt(np.einsum("ij,ij->i", x, x))[:, None]


def post_ln_field(beta, n, d):
    """dx/dt for the flattened state x (n*d): the NumPy right-hand side."""
    def f(t, y):
        x = y.reshape(n, d)
        nx = np.sqrt(np.einsum("ij,ij->i", x, x))
        th = x / nx[:, None]
        s = th @ th.T
        e = np.exp(beta * (s - s.max(axis=1)[:, None]))  # softmax, max off
        a = (e @ th) / e.sum(axis=1)[:, None]
        c = np.einsum("ij,ij->i", th, a)
        return ((a - c[:, None] * th) * nx[:, None]).ravel()
    return f


def euler_renormalize(x0, beta, h, steps):
    """The public step: X <- normalize_rows(X + h W(X) X), W row softmax."""
    x = x0.copy()
    for _ in range(steps):
        s = beta * (x @ x.T)
        e = np.exp(s - s.max(axis=1)[:, None])
        w = e / e.sum(axis=1)[:, None]
        x = x + h * (w @ x)
        x = x / np.linalg.norm(x, axis=1)[:, None]
    return x


def state_error(x, ref):
    return float(np.max(np.abs(normalize(x) - normalize(ref))))


def cmd_make_init(a):
    rng = np.random.default_rng(a.seed)
    x = normalize(rng.standard_normal((a.n, a.d)))
    with open(a.out, "w") as f:
        f.write("# peer_scipy make-init: n=%d d=%d seed=%d, Gaussian rows "
                "normalized\n" % (a.n, a.d, a.seed))
        for row in x:
            f.write(",".join("%.17g" % v for v in row) + "\n")
    print("init=%s" % a.out)


def cmd_check_rhs(a):
    x0 = normalize(read_state(a.init))
    n, d = x0.shape
    ours = read_state(a.dump, n, d)
    mine = post_ln_field(a.beta, n, d)(0.0, x0.ravel()).reshape(n, d)
    diff = float(np.max(np.abs(mine - ours)))
    ok = diff <= 1e-13
    print("rhs_maxdiff=%.3g rhs_max=%.3g ok=%d" %
          (diff, float(np.max(np.abs(ours))), ok))
    return 0 if ok else 1


def cmd_solve(a):
    x0 = normalize(read_state(a.init))
    n, d = x0.shape
    f = post_ln_field(a.beta, n, d)
    best, cpu, sol = float("inf"), float("inf"), None
    for _ in range(a.reps):
        c0, t0 = time.process_time(), time.perf_counter()
        sol = solve_ivp(f, (0.0, a.T), x0.ravel(), method=a.method,
                        rtol=a.rtol, atol=a.atol)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    if sol.status != 0:
        sys.exit("peer_scipy: solve_ivp failed: %s" % sol.message)
    x = sol.y[:, -1].reshape(n, d)
    err = state_error(x, read_state(a.ref, n, d)) if a.ref else float("nan")
    if a.save:
        with open(a.save, "w") as fo:
            for row in normalize(x):
                fo.write(",".join("%.17g" % v for v in row) + "\n")
    print("method=%s rtol=%g atol=%g time=%.6g cpu=%.6g err=%.3g nfev=%d "
          "steps=%d" % (a.method, a.rtol, a.atol, best, cpu, err, sol.nfev,
                        len(sol.t) - 1))


def cmd_euler(a):
    x0 = normalize(read_state(a.init))
    n, d = x0.shape
    steps = int(round(a.T / a.h))
    if abs(steps * a.h - a.T) > 1e-9 * a.T:
        sys.exit("peer_scipy: T is not a multiple of h")
    best, cpu, x = float("inf"), float("inf"), None
    for _ in range(a.reps):
        c0, t0 = time.process_time(), time.perf_counter()
        x = euler_renormalize(x0, a.beta, a.h, steps)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    err = state_error(x, read_state(a.ref, n, d)) if a.ref else float("nan")
    print("method=euler h=%g time=%.6g cpu=%.6g err=%.3g steps=%d" %
          (a.h, best, cpu, err, steps))


def cmd_err(a):
    ref = read_state(a.ref)
    x = read_state(a.state, *ref.shape)
    print("err=%.3g" % state_error(x, ref))


def cmd_time_cmd(a):
    """Wall and CPU time (user + system) of a whole process, minimum over
    --reps runs (fork and exec included)."""
    cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
    wall, cpu = float("inf"), float("inf")
    for _ in range(a.reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        t = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = min(wall, t)
        cpu = min(cpu, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    print("time=%.6g cpu=%.6g" % (wall, cpu))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("make-init")
    q.add_argument("--n", type=int, required=True)
    q.add_argument("--d", type=int, required=True)
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--out", required=True)
    q = sub.add_parser("check-rhs")
    q.add_argument("--init", required=True)
    q.add_argument("--beta", type=float, default=1.0)
    q.add_argument("--dump", required=True)
    for name in ("solve", "euler"):
        q = sub.add_parser(name)
        q.add_argument("--init", required=True)
        q.add_argument("--beta", type=float, default=1.0)
        q.add_argument("--T", type=float, required=True)
        q.add_argument("--ref", default=None)
        q.add_argument("--reps", type=int, default=3)
        if name == "solve":
            q.add_argument("--method", default="DOP853",
                           choices=["DOP853", "RK45"])
            q.add_argument("--rtol", type=float, default=1e-10)
            q.add_argument("--atol", type=float, default=1e-12)
            q.add_argument("--save", default=None)
        else:
            q.add_argument("--h", type=float, default=0.1)
    q = sub.add_parser("time-cmd")
    q.add_argument("--reps", type=int, default=10)
    q.add_argument("command", nargs=argparse.REMAINDER)
    q = sub.add_parser("err")
    q.add_argument("--state", required=True)
    q.add_argument("--ref", required=True)
    a = p.parse_args()
    rc = {"make-init": cmd_make_init, "check-rhs": cmd_check_rhs,
          "solve": cmd_solve, "euler": cmd_euler, "err": cmd_err,
          "time-cmd": cmd_time_cmd}[a.cmd](a)
    sys.exit(rc or 0)


if __name__ == "__main__":
    main()
