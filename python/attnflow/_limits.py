"""The command's limits for the Python package, read from the library
(attnflow_limits.h through af_limit_get: one source for the library, the
command and Python), the checks run() makes with them before any work,
and the Ctrl-C handling of long calls.

Every check raises ValueError naming the argument and the limit:
integers must fit their C type exactly (no wrapping: seed=2**64+1 is
refused, not taken as 1), strings must have no NUL character (C would
cut them there), tolerances and cosines must lie in the command's ranges.
"""

import contextlib
import ctypes
import math
import operator
import signal
import subprocess
import threading

from . import _lib

_lib.lib.af_limit_get.restype = ctypes.c_int
_lib.lib.af_limit_get.argtypes = [ctypes.POINTER(ctypes.c_double),
                                  ctypes.c_char_p]
_lib.lib.af_limit_name.restype = ctypes.c_char_p
_lib.lib.af_limit_name.argtypes = [ctypes.c_size_t]
_lib.lib.af_interrupt.restype = None
_lib.lib.af_interrupt.argtypes = [ctypes.c_int]
_lib.lib.af_interrupted.restype = ctypes.c_int
_lib.lib.af_interrupted.argtypes = []


def _read_limits():
    out = {}
    k = 0
    while True:
        name = _lib.lib.af_limit_name(k)
        if name is None:
            return out
        v = ctypes.c_double()
        _lib.check(_lib.lib.af_limit_get(v, name), "limit %s" % name.decode())
        out[name.decode()] = v.value
        k += 1


LIMITS = _read_limits()
"""The library's limits by name (rtol_min, rtol_max, atol_max, ...)."""

SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1
ULONG_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_ulong)) - 1


def integer(name, v, lo, hi):
    """v as an int in [lo, hi]: an int, or a float equal to one; never
    wrapped into a C type."""
    if isinstance(v, bool):
        raise ValueError("%s must be an integer, not a bool (got %r)" % (name, v))
    try:
        i = operator.index(v)
    except TypeError:
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ValueError("%s must be an integer (got %r)" % (name, v)) from None
        if not (math.isfinite(f) and f == int(f)):
            raise ValueError("%s must be an integer (got %r)" % (name, v)) from None
        i = int(f)
    if not lo <= i <= hi:
        raise ValueError("%s must be in [%d, %d] (got %r)" % (name, lo, hi, v))
    return i


def number(name, v, lo, hi, lo_open=False, hi_open=False, what=""):
    """v as a float in the range; what names the limit's origin."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number (got %r)" % (name, v)) from None
    ok = (f > lo if lo_open else f >= lo) and (f < hi if hi_open else f <= hi)
    if not ok:
        raise ValueError("%s must be in %s%.17g, %.17g%s%s (got %r)"
                         % (name, "(" if lo_open else "[", lo, hi,
                            ")" if hi_open else "]",
                            "; " + what if what else "", v))
    return f


def text(name, s):
    """s (str or bytes) without a NUL character, as bytes for C."""
    if isinstance(s, str):
        b = s.encode()
    elif isinstance(s, (bytes, bytearray)):
        b = bytes(s)
    else:
        raise ValueError("%s must be a string (got %r)" % (name, s))
    if b"\0" in b:
        raise ValueError("%s must not contain a NUL character (got %r)"
                         % (name, s))
    return b


def check_run(n, d, seed, max_steps, rtol, atol, h, cluster_cos, strings):
    """The checks of run() before any work; returns (n, d, seed,
    max_steps) as ints."""
    L = LIMITS
    n = integer("n", n, 1, SIZE_MAX)
    d = integer("d", d, 1, SIZE_MAX)
    seed = integer("seed", seed, 0, ULONG_MAX)
    if max_steps is not None:
        max_steps = integer("max_steps", max_steps, 1, ULONG_MAX)
    if rtol is not None:
        number("rtol", rtol, L["rtol_min"], L["rtol_max"], hi_open=True,
               what="DBL_EPSILON to 1, as 'attnflow run --rtol'")
    if atol is not None:
        number("atol", atol, 0, L["atol_max"], lo_open=True,
               what="as 'attnflow run --atol'")
    if h is not None:
        number("h", h, 0, math.inf, lo_open=True)
        if not math.isfinite(float(h)):
            raise ValueError("h must be finite (got %r)" % (h,))
    number("cluster_cos", cluster_cos, L["cluster_cos_min"],
           L["cluster_cos_max"], what="a cosine")
    for name, s in strings:
        if s is not None:
            text(name, s)
    return n, d, seed, max_steps


@contextlib.contextmanager
def interruptible():
    """Ctrl-C during a long library call: SIGINT asks the library to stop
    (af_interrupt), the call returns AF_ECANCELED, and KeyboardInterrupt
    is raised when it has.  The Python handler runs when the library calls
    back into Python (the output and progress callbacks of run(), every
    256 right-hand sides at most), so the run stops within that many
    evaluations.  Outside the main thread the handler cannot be installed
    and Ctrl-C keeps its default."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit = []

    def handler(signum, frame):
        hit.append(signum)
        _lib.lib.af_interrupt(1)

    old = signal.signal(signal.SIGINT, handler)
    _lib.lib.af_interrupt(0)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        _lib.lib.af_interrupt(0)
    if hit:
        raise KeyboardInterrupt


def call(fn, *args):
    """fn(*args), a library call that never calls back into Python by
    itself (the theory functions), with Ctrl-C honoured: in the main
    thread the call runs in a worker thread while the main thread waits in
    Python, so the SIGINT handler of interruptible() runs at once, asks the
    library to stop (af_interrupt: the T4.1 integrators return
    AF_ECANCELED at their next step) and KeyboardInterrupt is raised when
    the call has returned.  ctypes releases the GIL for the call.  Outside
    the main thread: a plain call."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    out = []

    def work():
        try:
            out.append((fn(*args), None))
        except BaseException as e:  # raised again in the caller's thread
            out.append((None, e))

    worker = threading.Thread(target=work, name="attnflow-call", daemon=True)
    with interruptible():
        worker.start()
        while worker.is_alive():
            worker.join(0.05)
    rc, exc = out[0]
    if exc is not None:
        raise exc
    return rc


def run_command(args, grace=2.0):
    """subprocess.run(args) with its output captured as text, stopped
    cleanly by Ctrl-C: on KeyboardInterrupt the command receives SIGINT
    (its handlers remove its temporary files), then SIGKILL if it has not
    ended after grace seconds; it is always waited for (no orphan keeps
    computing), and the KeyboardInterrupt is raised again."""
    with subprocess.Popen(args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE,
                          universal_newlines=True) as p:
        try:
            out, err = p.communicate()
        except BaseException:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(grace)
                except subprocess.TimeoutExpired:
                    p.kill()
            p.wait()
            raise
    return subprocess.CompletedProcess(args, p.returncode, out, err)


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_ulong,
                               ctypes.c_void_p)


def _poll(t, steps, ctx):
    """Progress callback of run(): nothing to show; calling into Python
    is what lets a pending SIGINT handler run."""


POLL = PROGRESS_FN(_poll)
POLL_ADDRESS = ctypes.cast(POLL, ctypes.c_void_p).value
