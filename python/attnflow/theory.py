"""What the theory predicts (attnflow_theory.h, theorem T4.1 of the
paper): from an orthonormal start (d >= n) with Q = K = V = I and equal
radii r0, every pairwise cosine equals one gamma(t), the solution of a
scalar ODE per scheme.  Every function calls the installed libattnflow.

    from attnflow import theory
    theory.gamma(times=[1, 2, 5], n=4, beta=2, scheme="post-ln")
    theory.initial_velocity(n=4, beta=2, scheme="peri-ln")      # T4.1a
    theory.time_postln(0.5, n=4, beta=2)                         # T4.1d
    theory.K_closed(n=6, beta=2)                                 # T4.1c
    theory.terminal_law("ngpt")                                  # T4.1b
"""

import math

import numpy as np

from . import _lib
from . import _limits

__all__ = ["solve", "gamma", "initial_velocity", "terminal_law",
           "time_postln", "time_postln_gap", "preln_log_r", "lnscaling_time",
           "K", "K_closed", "Z", "F", "c", "a"]


def __dir__():
    """The public names only."""
    return sorted(__all__)


def _scheme_id(scheme):
    sid = _lib.c_int(0)
    if _lib.lib.af_scheme_lookup(sid, scheme.encode()) != 0:
        raise ValueError("scheme: unknown scheme %r" % (scheme,))
    return sid.value


def _n(n):
    """n as a size_t, never wrapped (2**64 + 3 is refused, not 3)."""
    return _limits.integer("n", n, 0, _limits.SIZE_MAX)


def _params(n, beta, scheme, r0, alpha, alpha_decay, tau, rtol, atol):
    p = _lib.T41Params()
    n = _n(n)
    if hasattr(scheme, "_row"):  # a UserScheme or SchemeSpec: its own rates
        _lib.lib.af_t41_params_init(p, n, float(beta), _lib.SCHEME_USER)
        p.user = _lib.ctypes.pointer(scheme._row)
        p._scheme = scheme  # kept alive with the parameters
    else:
        _lib.lib.af_t41_params_init(p, n, float(beta), _scheme_id(scheme))
    p.r0, p.alpha, p.alpha_decay, p.tau = r0, alpha, alpha_decay, tau
    if rtol is not None:
        p.rtol = rtol
    if atol is not None:
        p.atol = atol
    return p


def solve(times, n, beta, scheme="post-ln", r0=1.0, alpha=1.0,
          alpha_decay=0.0, tau=1.0, rtol=None, atol=None):
    """Solve the scalar ODEs of T4.1 from gamma(0) = 0, r(0) = r0.

    Parameters
    ----------
    times : array_like
        Finite, >= 0, non-decreasing.
    n : int
    beta : float
    scheme : str, UserScheme or SchemeSpec, optional
        A name, or a scheme of one's own (T4.1 holds for any per-token
        rates; a spec that reads tau switches there like Mix-LN).
    r0, alpha, alpha_decay, tau : float, optional
    rtol, atol : float, optional
        The integrator's (default 1e-14, 1e-16).

    Returns
    -------
    dict
        "t", "gamma", "gap" (1 - gamma to full relative accuracy, also far
        below the resolution of gamma) and "r": NumPy arrays.
    """
    t, tp = _lib.as_doubles(np.ravel(times))
    p = _params(n, beta, scheme, r0, alpha, alpha_decay, tau, rtol, atol)
    g, gp = _lib.as_doubles(np.empty(t.size))
    w, wp = _lib.as_doubles(np.empty(t.size))
    r, rp = _lib.as_doubles(np.empty(t.size))
    rc = _limits.call(_lib.lib.af_t41_solve, gp, wp, rp, tp, t.size, p)
    errors = getattr(scheme, "_errors", None)
    if errors:  # an exception raised by a UserScheme's rates: raised here
        e = errors[0]
        errors.clear()
        raise e
    _lib.check(rc, "af_t41_solve")
    return {"t": t, "gamma": g, "gap": w, "r": r}


def gamma(times, n, beta, scheme="post-ln", **kw):
    """gamma(t) at the times.

    Returns
    -------
    numpy.ndarray
        ``solve(times, n, beta, scheme, **kw)["gamma"]``.
    """
    return solve(times, n, beta, scheme, **kw)["gamma"]


def initial_velocity(n, beta, scheme="post-ln", r0=1.0, alpha=1.0,
                     alpha_decay=0.0, tau=1.0):
    """d gamma/dt at t = 0+ from the closed forms of T4.1a (a UserScheme or SchemeSpec:
    F(gamma0) / s from its rates).

    Returns
    -------
    float
    """
    p = _params(n, beta, scheme, r0, alpha, alpha_decay, tau, None, None)
    v = _lib.c_double()
    _lib.check(_lib.lib.af_t41_initial_velocity(_lib.ctypes.byref(v), p),
               "af_t41_initial_velocity")
    return v.value


def terminal_law(scheme):
    """T4.1b: how 1 - gamma decays as t -> infinity.

    Returns
    -------
    dict
        {"form", "exponent", "text"}; form is exp, power, exp-sqrt or
        exp-int-alpha.
    """
    law = _lib.T41Terminal()
    _lib.check(_lib.lib.af_t41_terminal_law(law, _scheme_id(scheme)),
               "af_t41_terminal_law")
    return {"form": law.form.decode(), "exponent": law.exponent,
            "text": law.text.decode()}


def _scalar(fn, what, *args):
    v = _lib.c_double()
    _lib.check(_limits.call(fn, _lib.ctypes.byref(v), *args), what)
    return v.value


def time_postln(gamma, n, beta):
    """T4.1d: the time Post-LN takes from gamma = 0 to gamma (closed form)."""
    return _scalar(_lib.lib.af_t41_time_postln, "af_t41_time_postln",
                   float(gamma), _n(n), float(beta))


def time_postln_gap(gap, n, beta):
    """time_postln as a function of the gap 1 - gamma."""
    return _scalar(_lib.lib.af_t41_time_postln_gap, "af_t41_time_postln_gap",
                   float(gap), _n(n), float(beta))


def preln_log_r(gamma, n, beta):
    """T4.1d: the Pre-LN invariant ln(r / r0) as a function of gamma."""
    return _scalar(_lib.lib.af_t41_preln_log_r, "af_t41_preln_log_r",
                   float(gamma), _n(n), float(beta))


def lnscaling_time(t):
    """I2: LN-Scaling at time t is Post-LN at 2 (sqrt(t + 1) - 1)."""
    return _lib.lib.af_t41_lnscaling_time(float(t))


def K(n, beta):
    """T4.1c: K(n, beta) = lim (1 - gamma)(r / r0)^2 (Pre-LN, Peri-LN), by
    integration."""
    return _scalar(_lib.lib.af_t41_K, "af_t41_K", _n(n), float(beta))


def K_closed(n, beta):
    """K(n, beta) from its closed form in Ei and E1."""
    return _scalar(_lib.lib.af_t41_K_closed, "af_t41_K_closed", _n(n),
                   float(beta))


def _vec(fn):
    def f(g, n, beta):
        m = _n(n)
        return np.vectorize(lambda x: fn(float(x), m, float(beta)),
                            otypes=[float])(g)
    return f


Z = _vec(_lib.lib.af_t41_Z)
Z.__doc__ = "Z(gamma) = e^beta + (n-1) e^(beta gamma) (NaN off the domain)."
F = _vec(_lib.lib.af_t41_F)
F.__doc__ = "F(gamma) = d gamma/dt under Post-LN."
c = _vec(_lib.lib.af_t41_c)
c.__doc__ = "c(gamma) = <theta_j, A_j>."
a = _vec(_lib.lib.af_t41_a)
a.__doc__ = "a(gamma) = |A_j|."

del math
