"""Hostile input to the Python package: what the command refuses, run()
refuses too (limits read from the library, ValueError naming the limit),
integers are never wrapped into C types, strings with NUL are refused,
an exception raised in a UserScheme callback (KeyboardInterrupt and
SystemExit included) stops the run and propagates, and Ctrl-C stops a
long run, a long theory solve and verify() with KeyboardInterrupt."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import attnflow
from attnflow import _limits, theory

BASE = dict(scheme="post-ln", n=4, d=3, beta=1.0, times=[0, 1])


def run(**kw):
    args = dict(BASE)
    args.update(kw)
    return attnflow.run(**args)


def test_limits_come_from_the_library():
    L = _limits.LIMITS
    assert L["rtol_min"] == 2.0 ** -52
    assert L["rtol_max"] == 1.0
    assert L["atol_max"] == 1.0
    assert (L["cluster_cos_min"], L["cluster_cos_max"]) == (-1.0, 1.0)
    assert L["precision_cli_min"] == 53


@pytest.mark.parametrize("kw, fragment", [
    (dict(seed=2 ** 64 + 1), "seed must be in [0, 18446744073709551615]"),
    (dict(seed=-1), "seed must be in"),
    (dict(seed=True), "not a bool"),
    (dict(max_steps=2 ** 64 + 5), "max_steps must be in [1,"),
    (dict(max_steps=0), "max_steps must be in [1,"),
    (dict(n=2 ** 64), "n must be in [1,"),
    (dict(n=2.5), "n must be an integer"),
    (dict(rtol=10), "rtol must be in [2.2204460492503131e-16, 1)"),
    (dict(rtol=1e-17), "rtol must be in"),
    (dict(rtol=float("nan")), "rtol must be in"),
    (dict(atol=1e300), "atol must be in (0, 1]"),
    (dict(atol=0), "atol must be in (0, 1]"),
    (dict(cluster_cos=5), "cluster_cos must be in [-1, 1]"),
    (dict(cluster_cos=float("nan")), "cluster_cos must be in"),
    (dict(h=float("inf")), "h must be finite"),
    (dict(scheme="post\0ln"), "scheme must not contain a NUL"),
    (dict(init="uniform\0x"), "init must not contain a NUL"),
    (dict(method="rk4\0"), "method must not contain a NUL"),
    (dict(weights="identity\0"), "weights must not contain a NUL"),
    (dict(observables=["drift\0"]), "observables must not contain a NUL"),
])
def test_refused_like_the_command(kw, fragment):
    with pytest.raises(ValueError) as e:
        run(**kw)
    assert fragment in str(e.value)


def test_the_largest_seed_is_its_own_run():
    a = run(seed=2 ** 64 - 1, init="uniform")
    b = run(seed=1, init="uniform")
    assert not (a.state == b.state).all()


def test_user_scheme_name_with_nul():
    with pytest.raises(ValueError, match="NUL"):
        attnflow.UserScheme("a\0b", lambda t, r, c, a, al, tau: (1.0, 0.0))


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, ZeroDivisionError])
def test_callback_exceptions_propagate_and_stop_the_run(exc):
    calls = []

    def rates(t, r, c, a, alpha, tau):
        calls.append(t)
        if len(calls) == 50:
            raise exc()
        return 1.0, 0.0

    sch = attnflow.UserScheme("mine", rates)
    with pytest.raises(exc):
        run(scheme=sch, times=[0, 100])
    # The run stopped at the failing evaluation: a handful more calls at
    # most (the other tokens of that right-hand side), not the whole run.
    assert len(calls) < 50 + BASE["n"]


def test_ctrl_c_stops_a_long_run():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers need the main thread")

    def interrupt():
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        # About a minute of work uninterrupted.
        run(n=64, d=8, times=[0, 1e9], rtol=1e-13, atol=1e-15,
            max_steps=10 ** 9)
    assert time.monotonic() - t0 < 10
    # The request is cleared: the next run completes.
    assert run()["t"][-1] == 1.0


def _interrupt_after(seconds):
    def interrupt():
        time.sleep(seconds)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()


# A T4.1 solve of about 20 s uninterrupted (here): a spec whose speed costs
# 80 operations an evaluation, reported at 10^6 times.  No Python callback
# runs during it, so only the worker-thread wait of _limits.call lets
# Ctrl-C in.
SLOW_SPEC = ("name = slow\nspeed = 1 + 0 * " + "*".join(["tanh(t)"] * 40)
             + "\nradial = 0\nlayer = sphere\n")


def test_ctrl_c_stops_a_long_theory_solve():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers need the main thread")
    sp = attnflow.SchemeSpec(SLOW_SPEC)
    times = np.linspace(0, 1e3, 10 ** 6)
    _interrupt_after(0.5)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        theory.solve(times, 4, 1.0, sp)
    assert time.monotonic() - t0 < 8
    # The request is cleared: the next call completes.
    assert theory.solve([0, 1], 4, 1.0, sp)["gap"][-1] < 1


def test_theory_integers_are_not_wrapped():
    with pytest.raises(ValueError, match="n must be in"):
        theory.K(2 ** 64 + 6, 2.0)
    with pytest.raises(ValueError, match="n must be in"):
        theory.solve([0, 1], 2 ** 64 + 4, 1.0)
    with pytest.raises(ValueError, match="n must be in"):
        theory.time_postln(0.5, -3, 1.0)
    with pytest.raises(attnflow.Error):
        theory.solve([0, 1], 4, 1.0, rtol=10)  # the library's range


def test_user_scheme_errors_propagate_from_theory():
    def rates(t, r, c, a, alpha, tau):
        raise ZeroDivisionError("in rates")

    with pytest.raises(ZeroDivisionError, match="in rates"):
        theory.solve([0, 1], 4, 1.0, attnflow.UserScheme("bad", rates))


def _children():
    """Process ids whose parent is this process (from /proc)."""
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == me:
                out.append(int(d))
    return out


def test_ctrl_c_stops_verify_and_its_command():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers need the main thread")
    if not os.path.isdir("/proc"):
        pytest.skip("no /proc")
    _interrupt_after(1.0)
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        attnflow.verify(level="full")  # minutes uninterrupted
    assert time.monotonic() - t0 < 6
    assert _children() == []  # the command was waited for
