"""The theory functions of the Python package take real parameters: every
one of them is exercised here at a non-integer value (beta, r0, alpha,
tau, gamma, t) against a formula written independently in this file or
against another library function that receives the same value by another
path, so a parameter rounded or truncated to an integer on its way to the
library shows up (theorems.md T4.1a, T4.1c, T4.1d, I2)."""
import math

import numpy as np
import pytest

from attnflow import theory

EPS = np.finfo(float).eps
N, BETA, R0, ALPHA, TAU = 5, 1.37, 1.6, 0.55, 0.37


@pytest.mark.parametrize("scheme,expect", [
    ("post-ln", lambda: 2 / (math.exp(BETA) + N - 1)),
    ("pre-ln", lambda: 2 / (R0 * (math.exp(BETA) + N - 1))),
    ("mix-ln", lambda: 2 / (math.exp(BETA) + N - 1)),  # Post-LN on [0, tau]
    ("peri-ln", lambda: 2 / (R0 * math.sqrt(math.exp(2 * BETA) + N - 1))),
    ("ngpt", lambda: 2 * ALPHA / math.sqrt(math.exp(2 * BETA) + N - 1)),
    ("ln-scaling", lambda: 2 / (math.exp(BETA) + N - 1)),
])
def test_initial_velocity_real_parameters(scheme, expect):
    """T4.1a at beta = 1.37, r0 = 1.6, alpha = 0.55, tau = 0.37: the
    closed forms agree to a few roundings (exp, sqrt, sums: 8 eps)."""
    v = theory.initial_velocity(n=N, beta=BETA, scheme=scheme, r0=R0,
                                alpha=ALPHA, tau=TAU)
    e = expect()
    assert abs(v - e) <= 8 * EPS * e, (scheme, v, e)


def _t_postln_quadrature(g, n, beta, m=4000):
    """T4.1d's t(gamma) = int_0^gamma dg / F(g), F of theorems.md T4.1,
    by composite Simpson (error ~ (g/m)^4 max|f''''| < 1e-13 here)."""
    x = np.linspace(0.0, g, 2 * m + 1)
    z = math.exp(beta) + (n - 1) * np.exp(beta * x)
    f = z / (2 * np.exp(beta * x) * (1 - x) * (1 + (n - 1) * x))
    h = g / (2 * m)
    return h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())


def test_postln_time_and_gamma_real_beta():
    """At beta = 1.37 the closed form t(gamma) matches the quadrature of
    1/F (1e-10: Simpson's error and the Ei evaluations), and gamma(t) from
    the ODE inverts it to the integrator's tolerance (1e-10, see
    test_attnflow.test_theory_closed_forms)."""
    for g in (0.2, 0.55, 0.8):
        assert abs(theory.time_postln(g, N, BETA)
                   - _t_postln_quadrature(g, N, BETA)) < 1e-10
        # the gap form at the same point
        assert abs(theory.time_postln_gap(1 - g, N, BETA)
                   - theory.time_postln(g, N, BETA)) < 1e-12
    ts = np.array([0.3, 1.1, 2.7])
    gs = theory.gamma(times=ts, n=N, beta=BETA)
    back = np.array([theory.time_postln(x, N, BETA) for x in gs])
    assert np.max(np.abs(back - ts)) < 1e-10


def test_mixln_real_tau():
    """Mix-LN is Post-LN on [0, tau] (I2): at t = 0.3 < tau = 0.37 its
    gamma equals Post-LN's (to the integrators' tolerance, 1e-12), while
    Pre-LN with r0 = 1.6 (what tau = 0 would give) differs by far more."""
    t = [0.3]
    mix = theory.gamma(times=t, n=N, beta=BETA, scheme="mix-ln", r0=R0, tau=TAU)
    post = theory.gamma(times=t, n=N, beta=BETA, scheme="post-ln")
    pre = theory.gamma(times=t, n=N, beta=BETA, scheme="pre-ln", r0=R0)
    assert abs(mix[0] - post[0]) < 1e-12
    assert abs(pre[0] - post[0]) > 1e-3


def test_preln_invariant_real_parameters():
    """T4.1d's Pre-LN invariant ln(r/r0)(gamma) at beta = 1.37 against the
    radius of the Pre-LN ODE with r0 = 1.6 (integrator tolerance: 1e-10)."""
    ts = [0.5, 2.0]
    s = theory.solve(times=ts, n=N, beta=BETA, scheme="pre-ln", r0=R0)
    for g, r in zip(s["gamma"], s["r"]):
        assert abs(theory.preln_log_r(g, N, BETA) - math.log(r / R0)) < 1e-10


def test_K_and_time_change_real_parameters():
    """T4.1c at beta = 2.3: K by integration and by its closed form (1e-10
    relative, test_attnflow); I2 at t = 2.5: 2 (sqrt(3.5) - 1)."""
    assert abs(theory.K(6, 2.3) / theory.K_closed(6, 2.3) - 1) < 1e-10
    assert abs(theory.lnscaling_time(2.5) - 2 * (math.sqrt(3.5) - 1)) <= 4 * EPS
