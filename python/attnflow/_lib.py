"""ctypes binding of libattnflow: finding and loading the shared library,
the C structures the package passes, and the prototypes it calls.

The library is looked for, first match wins:
  1. the file named by the environment variable ATTNFLOW_LIBRARY;
  2. the libdir configure recorded in _config.py at installation;
  3. beside a moved installation: lib/ in the directories above this
     package (<prefix>/lib/pythonX.Y/site-packages/attnflow);
  4. pkg-config's libdir of attnflow.pc (as installed, then relative to
     the .pc file found: --define-prefix), for a package installed by pip
     apart from the library (pip install ./python into a virtual
     environment; PKG_CONFIG_PATH names a prefix pkg-config does not
     search);
  5. the dynamic loader's own search (LD_LIBRARY_PATH, ld.so.cache).
The structures mirror src/attnflow.h and theory/theory.h (installed as
attnflow_theory.h) field by field; the package's tests compare runs with
the attnflow command bit for bit, which a mismatch would break.
"""

import ctypes
import os
import subprocess
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int,
                    c_size_t, c_uint, c_ulong, c_void_p)

SONAME = "libattnflow.so.0"

try:
    from . import _config
except ImportError:  # the source tree: no installation paths
    _config = None


def pkgconfig_variable(name):
    """The variable `name` of attnflow.pc as pkg-config reports it, then
    with --define-prefix (relative to where the .pc file is); [] if
    pkg-config or attnflow.pc is missing."""
    out = []
    for extra in ([], ["--define-prefix"]):
        try:
            p = subprocess.run(["pkg-config"] + extra + ["--variable=" + name,
                                                         "attnflow"],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL,
                               universal_newlines=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return out
        v = p.stdout.strip()
        if p.returncode == 0 and v and v not in out:
            out.append(v)
    return out


def _candidates():
    env = os.environ.get("ATTNFLOW_LIBRARY")
    if env:
        yield env
        return
    if _config is not None:
        yield os.path.join(_config.LIBDIR, SONAME)
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(5):
        d = os.path.dirname(d)
        yield os.path.join(d, "lib", SONAME)
        yield os.path.join(d, SONAME)
    for libdir in pkgconfig_variable("libdir"):
        yield os.path.join(libdir, SONAME)
    yield SONAME


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("attnflow: cannot load %s; tried: %s (install the C "
                      "library first, make install; then set PKG_CONFIG_PATH "
                      "to its lib/pkgconfig, or ATTNFLOW_LIBRARY to the file)"
                      % (SONAME, ", ".join(tried)))


lib, path = _load()

RATES_FN = CFUNCTYPE(None, POINTER(c_double), POINTER(c_double), c_double,
                     c_double, c_double, c_double, c_double, c_double)
OUTPUT_FN = CFUNCTYPE(c_int, c_double, POINTER(c_double), c_void_p)


class Scheme(Structure):
    """af_scheme: one row of the scheme table."""
    _fields_ = [("id", c_int), ("name", c_char_p), ("title", c_char_p),
                ("needs_anorm", c_int), ("moves_radius", c_int),
                ("rates", RATES_FN), ("speed_text", c_char_p),
                ("radial_text", c_char_p)]


class Model(Structure):
    """af_model."""
    _fields_ = [("n", c_size_t), ("d", c_size_t), ("beta", c_double),
                ("scheme", c_int), ("attn", c_int), ("alpha", c_double),
                ("alpha_decay", c_double), ("tau", c_double),
                ("w", c_void_p), ("fault", c_uint), ("user", POINTER(Scheme))]


class IntegOpts(Structure):
    """af_integ_opts."""
    _fields_ = [("method", c_int), ("rtol", c_double), ("atol", c_double),
                ("h", c_double), ("max_steps", c_ulong), ("fixed", c_int),
                ("progress", c_void_p), ("progress_ctx", c_void_p)]


class IntegStats(Structure):
    """af_integ_stats."""
    _fields_ = [("steps", c_ulong), ("nevals", c_ulong),
                ("t_reached", c_double)]


class T41Params(Structure):
    """af_t41_params (attnflow_theory.h)."""
    _fields_ = [("n", c_size_t), ("beta", c_double), ("scheme", c_int),
                ("r0", c_double), ("alpha", c_double),
                ("alpha_decay", c_double), ("tau", c_double),
                ("gap0", c_double), ("var", c_int),
                ("rtol", c_double), ("atol", c_double),
                ("max_steps", c_ulong), ("user", POINTER(Scheme))]


class T41Terminal(Structure):
    """af_t41_terminal."""
    _fields_ = [("scheme", c_int), ("form", c_char_p), ("exponent", c_double),
                ("text", c_char_p)]


DP = POINTER(c_double)
_PROTOS = {
    "af_strerror": (c_char_p, [c_int]),
    "af_status_name": (c_char_p, [c_int]),
    "af_version": (c_char_p, []),
    "af_commit": (c_char_p, []),
    "af_scheme_get": (POINTER(Scheme), [c_int]),
    "af_scheme_lookup": (c_int, [POINTER(c_int), c_char_p]),
    "af_model_init": (None, [POINTER(Model), c_size_t, c_size_t, c_double, c_int]),
    "af_model_validate": (c_int, [POINTER(Model)]),
    "af_model_set_user_scheme": (c_int, [POINTER(Model), POINTER(Scheme)]),
    "af_weights_alloc": (c_void_p, [c_size_t, c_size_t, c_double]),
    "af_weights_free": (None, [c_void_p]),
    "af_weights_kaiming": (c_int, [c_void_p, c_ulong]),
    "af_weights_read": (c_int, [POINTER(c_void_p), c_char_p, c_size_t,
                                POINTER(c_size_t)]),
    "af_state_size": (c_size_t, [c_size_t, c_size_t]),
    "af_work_alloc": (c_void_p, [c_size_t, c_size_t]),
    "af_work_free": (None, [c_void_p]),
    "af_work_set_kernel": (c_int, [c_void_p, c_int]),
    "af_init_state": (c_int, [DP, POINTER(c_size_t), c_char_p, c_size_t,
                              c_size_t, c_double, c_ulong]),
    "af_obs_name": (c_char_p, [c_int]),
    "af_obs_lookup": (c_int, [POINTER(c_int), c_char_p]),
    "af_observe": (c_int, [DP, c_double, DP, c_double, POINTER(Model), c_void_p]),
    "af_method_lookup": (c_int, [POINTER(c_int), c_char_p]),
    "af_method_fixed": (c_int, [c_int]),
    "af_integ_opts_init": (None, [POINTER(IntegOpts)]),
    "af_integrate": (c_int, [DP, DP, c_size_t, POINTER(Model),
                             POINTER(IntegOpts), c_void_p, OUTPUT_FN, c_void_p,
                             POINTER(IntegStats)]),
    "af_rhs": (c_int, [DP, c_double, DP, POINTER(Model), c_void_p]),
    "af_t41_params_init": (None, [POINTER(T41Params), c_size_t, c_double, c_int]),
    "af_t41_solve": (c_int, [DP, DP, DP, DP, c_size_t, POINTER(T41Params)]),
    "af_t41_initial_velocity": (c_int, [DP, POINTER(T41Params)]),
    "af_t41_terminal_law": (c_int, [POINTER(T41Terminal), c_int]),
    "af_t41_time_postln": (c_int, [DP, c_double, c_size_t, c_double]),
    "af_t41_time_postln_gap": (c_int, [DP, c_double, c_size_t, c_double]),
    "af_t41_preln_log_r": (c_int, [DP, c_double, c_size_t, c_double]),
    "af_t41_lnscaling_time": (c_double, [c_double]),
    "af_t41_K": (c_int, [DP, c_size_t, c_double]),
    "af_t41_K_closed": (c_int, [DP, c_size_t, c_double]),
    "af_t41_Z": (c_double, [c_double, c_size_t, c_double]),
    "af_t41_F": (c_double, [c_double, c_size_t, c_double]),
    "af_t41_c": (c_double, [c_double, c_size_t, c_double]),
    "af_t41_a": (c_double, [c_double, c_size_t, c_double]),
}
for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


class SpecError(Structure):
    """af_spec_error: where and why a scheme spec was refused."""
    _fields_ = [("line", c_size_t), ("col", c_size_t),
                ("what", ctypes.c_char * 128)]


# Schemes from a spec (attnflow.h, af_scheme_spec_*).
for _name, (_res, _args) in {
        "af_scheme_spec_parse": (c_int, [POINTER(c_void_p), POINTER(SpecError),
                                         c_char_p, c_size_t]),
        "af_scheme_spec_free": (None, [c_void_p]),
        "af_scheme_spec_row": (POINTER(Scheme), [c_void_p]),
        "af_scheme_spec_layer": (c_int, [c_void_p]),
}.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


class ReadInfo(Structure):
    """af_read_info: where and why a file read failed."""
    _fields_ = [("line", c_size_t), ("expected", c_size_t),
                ("found", c_size_t), ("what", c_char_p)]


# Per-layer weights from a .npy file (attnflow.h, af_weights_read_npy).
lib.af_weights_read_npy.restype = c_int
lib.af_weights_read_npy.argtypes = [POINTER(c_void_p), POINTER(ReadInfo),
                                    c_char_p, c_size_t, c_double]
# Named arrays Q.l, K.l, V.l (or Q.l.h, ... with heads) from a .npz archive
# or a safetensors file (af_weights_read_npz, af_weights_read_safetensors):
# the reason of a refusal is written into the buffer msg[0..cap).
for _name in ("af_weights_read_npz", "af_weights_read_safetensors"):
    _f = getattr(lib, _name)
    _f.restype = c_int
    _f.argtypes = [POINTER(c_void_p), POINTER(ReadInfo), c_char_p, c_size_t,
                   c_char_p, c_size_t, c_double]

# Counts of the enums (attnflow.h); checked against the library's tables.
SCHEME_COUNT = 6
SCHEME_USER = SCHEME_COUNT
OBS_COUNT = 14
OBS_DEFAULT_COUNT = 12
ATTN = {"softmax": 0, "usa": 1, "causal": 2}
KERNEL = {"blas": 0, "direct": 1, "tiled": 2}
METHOD_LAYERS = 5


class Error(RuntimeError):
    """A library call failed: .status is the af_status code, .name its
    symbol (AF_EINVAL, ...)."""

    def __init__(self, status, what=""):
        self.status = status
        self.name = lib.af_status_name(status).decode()
        msg = lib.af_strerror(status).decode()
        super().__init__("%s%s (%s)" % (what + ": " if what else "", msg,
                                        self.name))


def check(status, what=""):
    """Raise Error unless status is AF_OK."""
    if status != 0:
        raise Error(status, what)


def as_doubles(a):
    """A C-contiguous float64 copy of a and a pointer to it."""
    import numpy as np
    a = np.ascontiguousarray(a, dtype=np.float64)
    return a, a.ctypes.data_as(DP)
