"""Computer-assisted proofs that one start converges to one cluster
(af_certify, attnflow_certify.h; 'attnflow certify', docs/certify.md).

    from attnflow import certify
    r = certify.certify([[1, 0], [-0.416, 0.909], [-0.490, -0.872]], "post-ln")
    r["status"], r["lemma"], r["t_star"]

The start is an n x d array of unit rows (each row is divided by its norm
exactly, in balls; a row off the sphere by more than 1e-12 is an error).
Returns a dict: status ("certified", "could-not-certify", "refuted"),
lemma, t_star, reason, final_radius, steps, cpu_seconds, and the balls
(times, midpoints, radii) at the requested times reached and at the end.
A library error (bad input, a build without Arb) raises ValueError with
the library's reason.
"""

import ctypes
import math
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_long, c_size_t, c_uint, c_ulong)

import numpy as np

from . import _lib

__all__ = ["certify"]

DP = POINTER(c_double)


class CertifyOpts(Structure):
    """af_certify_opts."""
    _fields_ = [("scheme", c_int), ("n", c_size_t), ("d", c_size_t),
                ("beta", c_double), ("alpha", c_double),
                ("alpha_decay", c_double), ("tau", c_double),
                ("q", DP), ("k", DP), ("t_max", c_double), ("prec", c_long),
                ("order", c_uint), ("max_steps", c_ulong),
                ("init_radius", c_double), ("max_rad", c_double),
                ("times", DP), ("ntimes", c_size_t),
                ("drop_remainder", c_int), ("h_fixed", c_double),
                ("no_wrap", c_int), ("property_cap", c_int),
                ("merge_cos", c_double), ("h_max", c_double),
                ("user", POINTER(_lib.Scheme))]


class CertifyResult(Structure):
    """af_certify_result."""
    _fields_ = [("status", c_int), ("lemma", c_int), ("t_star", c_double),
                ("t_end", c_double), ("hyp", c_double),
                ("hyp_bound", c_double), ("qtk_norm", c_double),
                ("start_rad", c_double), ("final_rad", c_double),
                ("field_max", c_double), ("steps", c_ulong),
                ("rejected", c_ulong), ("cpu_seconds", c_double),
                ("order", c_uint), ("reason", c_char * 320),
                ("dim", c_size_t), ("nballs", c_size_t), ("ball_t", DP),
                ("mid", DP), ("rad", DP), ("dump", POINTER(c_char_p)),
                ("w", c_double * 16), ("npairs", c_size_t),
                ("pair_lo", DP), ("pair_hi", DP), ("pair_stays", POINTER(c_int)),
                ("merge_lo", DP), ("merge_hi", DP), ("peak_rad", c_double),
                ("speed_lo", c_double), ("speed_hi", c_double),
                ("time_exp", c_double)]


_lib.lib.af_certify_opts_init.restype = None
_lib.lib.af_certify_opts_init.argtypes = [POINTER(CertifyOpts), c_int,
                                          c_size_t, c_size_t, c_double]
_lib.lib.af_certify.restype = c_int
_lib.lib.af_certify.argtypes = [POINTER(CertifyResult), DP,
                                POINTER(CertifyOpts)]
_lib.lib.af_certify_result_free.restype = None
_lib.lib.af_certify_result_free.argtypes = [POINTER(CertifyResult)]
_lib.lib.af_certify_status_name.restype = c_char_p
_lib.lib.af_certify_status_name.argtypes = [c_int]
_lib.lib.af_close_lemma_name.restype = c_char_p
_lib.lib.af_close_lemma_name.argtypes = [c_int]


def certify(start, scheme, beta=1.0, r0=1.0, alpha=1.0, alpha_decay=0.0,
            tau=1.0, t_max=64.0, precision=64, init_radius=0.0, times=(),
            wrap=True, property_cap=False, max_radius=0.0, merge_cos=0.0,
            max_step=0.0):
    """Try to certify that the flow from start converges to one cluster.

    init_radius > 0 certifies the set of starts within it (carried by
    Lohner's QR doubleton unless wrap=False); property_cap=True decides
    the refutable property 'the flow enters the cap of T4.3 by t_max'
    (status 'certified' or 'refuted', theorems.md C-refute); merge_cos in
    (0, 1) also encloses the merge times of the staircase (theorems.md
    C-merge): "merges" is a list of (clusters_from, clusters_to, t_lo,
    t_hi), t_hi = inf when not enclosed by the end of the run.

    scheme is a built-in's name or a SchemeSpec (theorems.md U-close): a
    spec whose speed is G(ta, na, alpha), possibly times or divided by a
    factor of t growing at most like t, is closed by lemma "U-close"
    ("speed_bounds": G's proven bounds on the box; "time_exponent": the
    bound e on the factor's growth (1 + t)^e, None without one); one whose
    speed reads r, or whose factor of t outgrows t, is accepted only with
    property_cap=True (lemma "cap-entered": the cap is entered, a
    finite-time statement); otherwise ValueError says why."""
    th = np.ascontiguousarray(start, dtype=np.float64)
    if th.ndim != 2:
        raise ValueError("start: an n x d array of unit rows")
    n, d = th.shape
    sid = c_int(0)
    spec = scheme if hasattr(scheme, "_spec") else None
    if spec is None and hasattr(scheme, "_row"):
        raise ValueError("scheme: a UserScheme callback cannot be certified "
                         "(nothing to tape); give a SchemeSpec")
    if spec is None and _lib.lib.af_scheme_lookup(sid, scheme.encode()) != 0:
        raise ValueError("scheme: unknown scheme %r" % (scheme,))
    y = np.concatenate([th.ravel(), np.full(n, float(r0))])
    tt = np.ascontiguousarray(times, dtype=np.float64)
    o = CertifyOpts()
    _lib.lib.af_certify_opts_init(o, sid.value, n, d, float(beta))
    o.alpha, o.alpha_decay, o.tau = alpha, alpha_decay, tau
    o.t_max, o.prec, o.init_radius = t_max, int(precision), init_radius
    o.no_wrap, o.property_cap = int(not wrap), int(bool(property_cap))
    o.max_rad = max_radius
    o.merge_cos, o.h_max = merge_cos, max_step
    if spec is not None:
        o.user = ctypes.pointer(spec._row)
    o.times = tt.ctypes.data_as(DP) if tt.size else None
    o.ntimes = tt.size
    r = CertifyResult()
    rc = _lib.lib.af_certify(r, y.ctypes.data_as(DP), o)
    try:
        if rc != 0:
            raise ValueError(r.reason.decode() or
                             _lib.lib.af_strerror(rc).decode())
        nb, dim = r.nballs, r.dim
        out = {
            "status": _lib.lib.af_certify_status_name(r.status).decode(),
            "lemma": _lib.lib.af_close_lemma_name(r.lemma).decode(),
            "t_star": r.t_star if r.status == 0 else None,
            "t_end": r.t_end, "reason": r.reason.decode(),
            "hypothesis": r.hyp, "hypothesis_bound": r.hyp_bound,
            "final_radius": r.final_rad, "steps": r.steps,
            "cpu_seconds": r.cpu_seconds,
            "times": np.ctypeslib.as_array(r.ball_t, (nb,)).copy(),
            "mid": np.ctypeslib.as_array(r.mid, (nb, dim)).copy(),
            "rad": np.ctypeslib.as_array(r.rad, (nb, dim)).copy(),
        }
        if r.lemma == 3:  # AF_CLOSE_SPEED
            out["speed_bounds"] = (r.speed_lo, r.speed_hi)
            out["time_exponent"] = (None if math.isnan(r.time_exp)
                                    else r.time_exp)
        if r.merge_lo:
            out["merges"] = [(n - k, n - 1 - k, r.merge_lo[k], r.merge_hi[k])
                             for k in range(n - 1)]
            out["peak_radius"] = r.peak_rad
    finally:
        _lib.lib.af_certify_result_free(r)
    return out
