"""attnflow: tokens on the sphere moved by self-attention under the
normalization schemes of "Normalization in Attention Dynamics" (Karagodin,
Ge, Polyanskiy, Rigollet, NeurIPS 2025, arXiv:2510.22026), from Python.

    import attnflow
    r = attnflow.run(scheme="pre-ln", n=6, d=6, beta=2, init="orthonormal",
                     times=[0, 1, 5, 10])
    r["t"], r["cos_mean"], r.x          # NumPy arrays
    attnflow.theory.gamma(times=[1, 5, 10], n=6, beta=2, scheme="pre-ln")
    report = attnflow.verify(level="quick")

run() calls libattnflow.so through ctypes (the same library and the same
operations as 'attnflow run', so the numbers are bit-identical); verify()
runs the installed 'attnflow verify' and returns its JSON report.  See
docs/python.md.
"""

import ctypes
import json
import math
import os
import subprocess
import tempfile

import numpy as np

from . import _lib
from ._lib import Error
from . import theory
from ._version import __version__
from . import _limits

__all__ = ["run", "verify", "read_csv", "Result", "UserScheme", "Error",
           "theory", "schemes", "observables", "version", "convergence"]


def __dir__():
    """The public names only (not the modules the package imports)."""
    return sorted(__all__ + ["__version__"])


def version():
    """Version of the loaded libattnflow.

    Returns
    -------
    str
        For example "0.1.0"; equal to ``attnflow.__version__`` when the
        package and the library come from the same release.
    """
    return _lib.lib.af_version().decode()


def schemes():
    """The built-in normalization schemes.

    Returns
    -------
    dict
        ``{name: (title, speed factor, radial rate)}`` for post-ln, pre-ln,
        mix-ln, peri-ln, ngpt and ln-scaling, as ``attnflow schemes``.
    """
    out = {}
    for k in range(_lib.SCHEME_COUNT):
        row = _lib.lib.af_scheme_get(k).contents
        out[row.name.decode()] = (row.title.decode(), row.speed_text.decode(),
                                  row.radial_text.decode())
    return out


def observables():
    """Names of every observable.

    Returns
    -------
    list of str
        The default columns of ``attnflow run`` first (t, cos_mean, ...),
        then those given on request (gap_mean, gap_max).
    """
    return [_lib.lib.af_obs_name(k).decode() for k in range(_lib.OBS_COUNT)]


class UserScheme:
    """A normalization scheme of one's own (attnflow.h, AF_SCHEME_USER).

    Parameters
    ----------
    name : str
        Name recorded with the run.
    rates : callable
        ``rates(t, r, c, a, alpha, tau) -> (s, rho)``: the speed factor
        s > 0 and the radial rate rho of a token of radius r, with
        c = <theta_j, A_j> and a = |A_j|.
    needs_anorm : bool, optional
        The rates divide by a (tokens with |A_j| ~ 0 then fail).
    moves_radius : bool, optional
        rho may be non-zero.
    speed_text, radial_text : str, optional
        Formulas shown in listings.

    Notes
    -----
    Pass it as ``run(scheme=UserScheme(...))``.  Python is called once per
    token per evaluation: meant for small cases.  An exception raised by
    `rates` is raised again by `run` after the integration stops.
    """

    def __init__(self, name, rates, needs_anorm=False, moves_radius=True,
                 speed_text="", radial_text=""):
        _limits.text("UserScheme name", name)
        self.name = name
        self.rates = rates
        self._errors = []

        def cb(s, rho, t, r, c, a, alpha, tau):
            try:
                s[0], rho[0] = rates(t, r, c, a, alpha, tau)
            except BaseException as e:  # stops the run, raised after it
                self._errors.append(e)
                s[0], rho[0] = math.nan, math.nan

        self._cb = _lib.RATES_FN(cb)
        self._row = _lib.Scheme(_lib.SCHEME_USER, name.encode(), name.encode(),
                                int(bool(needs_anorm)), int(bool(moves_radius)),
                                self._cb, speed_text.encode(),
                                radial_text.encode())


class SchemeSpec(UserScheme):
    """A scheme from a spec (docs/schemes.md): the text of a spec file,
    or SchemeSpec.read(path).  Runs wherever a UserScheme does (run,
    theory.solve, theory.initial_velocity), evaluated inside the library
    (no Python call per token).  A bad spec raises ValueError naming the
    line and column."""

    def __init__(self, text):
        data = text.encode() if isinstance(text, str) else bytes(text)
        h, err = _lib.c_void_p(), _lib.SpecError()
        rc = _lib.lib.af_scheme_spec_parse(_lib.ctypes.byref(h), err, data,
                                           len(data))
        if rc != 0:
            raise ValueError("scheme spec: line %d, column %d: %s"
                             % (err.line, err.col, err.what.decode()))
        self._spec = h
        self._row = _lib.lib.af_scheme_spec_row(h).contents
        self.name = self._row.name.decode()
        self.rates = None
        self._errors = []

    @classmethod
    def read(cls, path):
        with open(path, "rb") as f:
            return cls(f.read(65537))

    def __del__(self):
        if getattr(self, "_spec", None):
            _lib.lib.af_scheme_spec_free(self._spec)
            self._spec = None


__all__.append("SchemeSpec")


class Result(dict):
    """Observables of a run: one NumPy array per name, in the order
    requested (``r["t"]``, ``r["cos_mean"]``, ...).

    Attributes
    ----------
    trajectory : numpy.ndarray, shape (len(times), n, d)
        The tokens x_j = r_j theta_j / |theta_j| at every output time.
    radii : numpy.ndarray, shape (len(times), n)
        The radii r_j at every output time.
    table : numpy.ndarray, shape (len(times), number of observables)
        The observables as one array, columns in the order of the keys.
    state : numpy.ndarray, shape (n*d + n,)
        The final state y (theta_j row by row, then the radii r_j).
    theta : numpy.ndarray, shape (n, d)
        The final theta_j (|theta_j| = 1 up to "drift").
    r : numpy.ndarray, shape (n,)
        The final radii.
    x : numpy.ndarray, shape (n, d)
        The final tokens r_j theta_j / |theta_j|, what
        ``attnflow run --save-state`` writes.
    stats : dict
        ``{"steps", "nevals", "t_reached"}`` of the integrator.
    params : dict
        The keyword arguments of the run.
    """

    def __repr__(self):
        return "Result(%s)" % ", ".join(
            "%s=array(%d)" % (k, len(v)) for k, v in self.items())


_COMMAND_ONLY = {
    "precision": "the MPFR path", "tol": "the MPFR path",
    "digits": "the MPFR path", "checkpoint": "the MPFR path",
    "checkpoint_every": "the MPFR path", "resume": "the MPFR path",
    "format": "files", "out": "files", "save_state": "files",
}


def _cstr(s):
    return s.encode() if isinstance(s, str) else bytes(s)


def _model(scheme, n, d, beta, alpha, alpha_decay, tau, attention):
    m = _lib.Model()
    attn = None
    if isinstance(scheme, UserScheme):
        _lib.lib.af_model_init(m, n, d, beta, 0)
        _lib.check(_lib.lib.af_model_set_user_scheme(m, scheme._row),
                   "scheme %s" % scheme.name)
    else:
        # sa, usa, causal: Post-LN with that attention (as 'attnflow run').
        fixed = {"sa": "softmax", "usa": "usa", "causal": "causal"}
        sid = _lib.c_int(0)
        if scheme in fixed:
            attn = fixed[scheme]
        elif _lib.lib.af_scheme_lookup(sid, _cstr(scheme)) != 0:
            raise ValueError("scheme: unknown scheme %r (%s, sa, usa, causal)"
                             % (scheme, ", ".join(schemes())))
        _lib.lib.af_model_init(m, n, d, beta, sid.value)
    if attention is not None:
        if attention not in _lib.ATTN:
            raise ValueError("attention: unknown kind %r (softmax, usa, causal)"
                             % (attention,))
        if attn is not None and attention != attn:
            raise ValueError("attention=%r contradicts scheme=%r"
                             % (attention, scheme))
        attn = attention
    m.attn = _lib.ATTN[attn or "softmax"]
    if alpha is not None:
        m.alpha = alpha
    if alpha_decay is not None:
        m.alpha_decay = alpha_decay
    if tau is not None:
        m.tau = tau
    return m


def run(scheme, n, d, beta, init="uniform", seed=1, r0=None, alpha=None,
        alpha_decay=None, tau=None, attention=None, weights="identity",
        kernel="blas", t_end=None, times=None, method="rk8pd", h=None,
        rtol=None, atol=None, max_steps=None, observables=None,
        cluster_cos=0.9999, **command_only):
    """Integrate one case, as ``attnflow run``.

    The keywords are the options of ``attnflow run --help`` (dashes become
    underscores), with the same defaults; the numbers are bit-identical to
    the command's.

    Parameters
    ----------
    scheme : str or UserScheme
        A name of ``attnflow schemes`` (post-ln, pre-ln, mix-ln, peri-ln,
        ngpt, ln-scaling), sa, usa, causal, or a UserScheme.
    n, d : int
        Number of tokens and dimension.
    beta : float
        Inverse temperature of the attention.
    init : str or array_like, optional
        A specification (uniform, gaussian, orthonormal, cap:DELTA,
        hemisphere, file:PATH) or an (n, d) array of tokens x_j
        (theta_j = x_j / |x_j|, r_j = |x_j|, as file:PATH).
    seed : int, optional
        Seed of a random start and of Kaiming weights.
    r0, alpha, alpha_decay, tau : float, optional
        Initial radius, nGPT's step and its decay, Mix-LN's switch time.
    attention : {"softmax", "usa", "causal"}, optional
    weights : str, optional
        "identity", "kaiming" or a path (3d rows of d numbers; a path
        ending in .npy: shape (3, d, d), (L, 3, d, d) or (L, H, 3, d, d),
        L sets of time h, H heads summed; .npz or .safetensors: arrays
        Q.l, K.l, V.l or Q.l.h, K.l.h, V.l.h; docs/weights.md).
    kernel : {"blas", "direct"}, optional
    t_end : float, optional
        Last time (default 10, or the last of `times`).
    times : array_like, optional
        Output times (default ``[0, t_end]``).
    method : str, optional
        rk8pd (default), rkf45, rk4, rkck, msadams, layers or vern9.
    h, rtol, atol : float, optional
        Fixed step (rk4, layers; default 0.01), and the time of a weight
        set; for the adaptive methods the first step (default: chosen by
        Hairer's starting-step rule, as 'attnflow run' without --h) and
        the tolerances.
    max_steps : int, optional
    observables : list of str or str, optional
        Names (a list or a comma-separated string); default the first
        twelve of `observables()`.
    cluster_cos : float, optional

    Returns
    -------
    Result
        One array per observable, and the trajectory (times x n x d).

    Raises
    ------
    ValueError
        An invalid argument (the command's limits).
    TypeError
        An option of the MPFR path or of files, which only the command has.
    attnflow.Error
        A failed integration, with the library's status.
    """
    for k in command_only:
        if k in _COMMAND_ONLY:
            raise TypeError("run(): %s= is an option of %s, which only the "
                            "command has: attnflow run --%s"
                            % (k, _COMMAND_ONLY[k], k.replace("_", "-")))
        raise TypeError("run() got an unexpected keyword argument %r" % k)
    params = dict(scheme=scheme if isinstance(scheme, str) else scheme.name,
                  n=n, d=d, beta=beta, init=init, seed=seed, r0=r0,
                  alpha=alpha, alpha_decay=alpha_decay, tau=tau,
                  attention=attention, weights=weights, kernel=kernel,
                  t_end=t_end, times=times, method=method, h=h, rtol=rtol,
                  atol=atol, max_steps=max_steps, observables=observables,
                  cluster_cos=cluster_cos)
    obs_names = observables.split(",") if isinstance(observables, str) \
        else list(observables or [])
    n, d, seed, max_steps = _limits.check_run(
        n, d, seed, max_steps, rtol, atol, h, cluster_cos,
        [("scheme", scheme if isinstance(scheme, str) else None),
         ("init", init if isinstance(init, str) else None),
         ("method", method), ("weights", weights), ("kernel", kernel)]
        + [("observables", o) for o in obs_names])
    if int(n) != n or n < 1 or int(d) != d or d < 1:
        raise ValueError("n and d must be integers >= 1 (got %r, %r)" % (n, d))
    n, d = int(n), int(d)
    if not (math.isfinite(beta) and beta >= 0):
        raise ValueError("beta must be finite and >= 0 (got %r)" % (beta,))
    if r0 is not None and not (math.isfinite(r0) and r0 > 0):
        raise ValueError("r0 must be finite and > 0 (got %r)" % (r0,))
    m = _model(scheme, n, d, float(beta), alpha, alpha_decay, tau, attention)

    # Times: the start is t = 0, as in the command.
    if times is None:
        t_end = 10.0 if t_end is None else float(t_end)
        times = [0.0, t_end]
    times = np.array(times, dtype=np.float64).ravel()
    if times.size == 0 or not np.all(np.isfinite(times)) or np.any(times < 0) \
            or np.any(np.diff(times) < 0):
        raise ValueError("times must be finite, >= 0 and non-decreasing")
    if t_end is not None and float(t_end) != times[-1]:
        raise ValueError("t_end=%r disagrees with the last of times (%r)"
                         % (t_end, times[-1]))
    t_end = float(times[-1])
    skip = 1 if times[0] > 0 else 0
    itimes = np.concatenate([[0.0], times]) if skip else times.copy()

    opts = _lib.IntegOpts()
    _lib.lib.af_integ_opts_init(opts)
    mid = _lib.c_int(0)
    if _lib.lib.af_method_lookup(mid, _cstr(method)) != 0:
        raise ValueError("method: unknown method %r (rk8pd, rkf45, rk4, rkck, "
                         "msadams, layers, vern9)" % (method,))
    opts.method = mid.value
    for name, val in (("h", h), ("rtol", rtol), ("atol", atol)):
        if val is not None:
            if not (math.isfinite(val) and val > 0):
                raise ValueError("%s must be finite and > 0 (got %r)" % (name, val))
            setattr(opts, name, val)
    if max_steps is not None:
        if int(max_steps) != max_steps or max_steps < 1:
            raise ValueError("max_steps must be an integer >= 1")
        opts.max_steps = int(max_steps)

    if observables is None:
        obs = list(range(_lib.OBS_DEFAULT_COUNT))
    else:
        names = observables.split(",") if isinstance(observables, str) \
            else list(observables)
        obs = []
        for nm in names:
            k = _lib.c_int(0)
            if _lib.lib.af_obs_lookup(k, _cstr(nm)) != 0:
                raise ValueError("observables: unknown observable %r" % (nm,))
            obs.append(k.value)
    if kernel not in _lib.KERNEL:
        raise ValueError("kernel: unknown kernel %r (blas, direct, tiled)"
                         % (kernel,))

    wts = None
    work = None
    tmp = None
    try:
        if weights == "kaiming":
            L = max(1, math.ceil(t_end / opts.h))
            wts = _lib.lib.af_weights_alloc(d, L, opts.h)
            if not wts:
                raise MemoryError("attnflow: weights")
            _lib.check(_lib.lib.af_weights_kaiming(wts, seed), "weights kaiming")
        elif weights != "identity" and str(weights).endswith(".npy"):
            # per-layer sets from a .npy file, each of time h (docs/weights.md)
            p = _lib.c_void_p()
            info = _lib.ReadInfo()
            st = _lib.lib.af_weights_read_npy(p, info, _cstr(weights), d,
                                              opts.h)
            if st != 0:
                why = info.what.decode() if info.what else ""
                raise Error(st, "weights %s%s" % (weights,
                                                  ": " + why if why else ""))
            wts = p.value
        elif weights != "identity" and str(weights).endswith(
                (".npz", ".safetensors")):
            # named arrays Q.l, K.l, V.l (Q.l.h, ... for heads), each set of
            # time h (docs/weights.md)
            p = _lib.c_void_p()
            info = _lib.ReadInfo()
            msg = ctypes.create_string_buffer(512)
            rd = (_lib.lib.af_weights_read_npz if str(weights).endswith(".npz")
                  else _lib.lib.af_weights_read_safetensors)
            st = rd(p, info, msg, len(msg), _cstr(weights), d, opts.h)
            if st != 0:
                why = msg.value.decode(errors="replace")
                raise Error(st, "weights %s%s" % (weights,
                                                  ": " + why if why else ""))
            wts = p.value
        elif weights != "identity":
            p = _lib.c_void_p()
            line = _lib.c_size_t(0)
            st = _lib.lib.af_weights_read(p, _cstr(weights), d, line)
            if st != 0:
                raise Error(st, "weights %s, line %d" % (weights, line.value))
            wts = p.value
        m.w = wts
        _lib.check(_lib.lib.af_model_validate(m), "model")

        work = _lib.lib.af_work_alloc(n, d)
        if not work:
            raise MemoryError("attnflow: work space")
        _lib.check(_lib.lib.af_work_set_kernel(work, _lib.KERNEL[kernel]),
                   "kernel")

        y = np.empty(_lib.lib.af_state_size(n, d), dtype=np.float64)
        yp = y.ctypes.data_as(_lib.DP)
        if isinstance(init, str):
            spec = init
        else:
            x0 = np.asarray(init, dtype=np.float64)
            if x0.shape != (n, d):
                raise ValueError("init: array of shape %s, wanted (n, d) = (%d, %d)"
                                 % (x0.shape, n, d))
            # Through the library's CSV reader: %.17g round-trips every
            # double, so the start is that of 'attnflow run --init file:'.
            fd, tmp = tempfile.mkstemp(suffix=".csv", prefix="attnflow-init-")
            with os.fdopen(fd, "w") as f:
                for row in x0:
                    f.write(",".join("%.17g" % v for v in row) + "\n")
            spec = "file:" + tmp
        line = _lib.c_size_t(0)
        st = _lib.lib.af_init_state(yp, line, _cstr(spec), n, d,
                                    math.nan if r0 is None else float(r0),
                                    seed)
        if st != 0:
            raise Error(st, "init %s%s" % (init if isinstance(init, str) else "array",
                                           ", line %d" % line.value if line.value else ""))

        rows = np.empty((times.size, len(obs)))
        traj = np.empty((times.size, y.size))  # the state at each time
        buf = np.empty(_lib.OBS_COUNT)
        bp = buf.ctypes.data_as(_lib.DP)
        state = {"calls": 0, "status": 0}

        def out(t, yy, ctx):
            k = state["calls"] - skip
            state["calls"] += 1
            if k < 0:
                return 0
            rc = _lib.lib.af_observe(bp, t, yy, cluster_cos, m, work)
            if rc != 0:
                return rc
            rows[k] = buf[obs]
            traj[k] = np.ctypeslib.as_array(yy, shape=(y.size,))
            return 0

        cb = _lib.OUTPUT_FN(out)
        stats = _lib.IntegStats()
        ip = itimes.ctypes.data_as(_lib.DP)
        opts.progress = _limits.POLL_ADDRESS
        if h is None and not _lib.lib.af_method_fixed(opts.method):
            opts.h = 0.0  # the starting-step rule; weights keep h = 0.01
        with _limits.interruptible():
            st = _lib.lib.af_integrate(yp, ip, itimes.size, m, opts, work, cb,
                                       None, stats)
        if isinstance(scheme, UserScheme) and scheme._errors:
            e = scheme._errors[0]
            scheme._errors.clear()
            raise e
        if st != 0:
            raise Error(st, "run failed at t = %.17g" % stats.t_reached)
    finally:
        if work:
            _lib.lib.af_work_free(work)
        if wts:
            _lib.lib.af_weights_free(wts)
        if tmp is not None:
            os.unlink(tmp)

    res = Result()
    for i, k in enumerate(obs):
        res[_lib.lib.af_obs_name(k).decode()] = rows[:, i].copy()
    res.state = y
    res.theta = y[:n * d].reshape(n, d)
    res.r = y[n * d:]
    res.x = res.r[:, None] * (res.theta / np.sqrt(np.sum(res.theta ** 2, axis=1))[:, None])
    th = traj[:, :n * d].reshape(times.size, n, d)
    res.radii = traj[:, n * d:].copy()
    res.trajectory = res.radii[:, :, None] * (
        th / np.sqrt(np.sum(th ** 2, axis=2))[:, :, None])
    res.table = rows.copy()
    res.stats = {"steps": stats.steps, "nevals": stats.nevals,
                 "t_reached": stats.t_reached}
    res.params = params
    return res


def _program():
    """Path of the attnflow command: ATTNFLOW_BIN, the installed one, the
    one in bin/ above this package (a moved installation), or the one on
    PATH."""
    env = os.environ.get("ATTNFLOW_BIN")
    if env:
        return env
    if _lib._config is not None:
        p = os.path.join(_lib._config.BINDIR, "attnflow")
        if os.path.exists(p):
            return p
    d = os.path.dirname(os.path.abspath(__file__))
    for _ in range(5):
        d = os.path.dirname(d)
        p = os.path.join(d, "bin", "attnflow")
        if os.path.exists(p):
            return p
    for bindir in _lib.pkgconfig_variable("bindir"):
        p = os.path.join(bindir, "attnflow")
        if os.path.exists(p):
            return p
    return "attnflow"


def verify(level="quick", claim=None, inject_fault=None, broken_only=False,
           tolerances=None):
    """Run ``attnflow verify`` and return its JSON report.

    Parameters
    ----------
    level : {"quick", "full"}, optional
    claim : str, optional
        Shell pattern of claim IDs (``--claim``).
    inject_fault : {"speed", "radial", "attention"}, optional
    broken_only : bool, optional
    tolerances : str, optional
        Path of another tolerance table.

    Returns
    -------
    dict
        The report (schema verify.schema.json, docs/formats.md):
        "version", "commit", "level", "fault", "provenance", and "claims",
        a list of {"id", "scheme", "status", "expected", "measured",
        "predicted", "tolerance", "margin", "seconds", "tolerance_key",
        "note"}; a claim holds when status == expected.  "exit_status" is
        the command's (0 when every claim has its expected outcome).

    Raises
    ------
    RuntimeError
        A usage error (exit status 2) or a report not written.
    KeyboardInterrupt
        Ctrl-C: the command is stopped (SIGINT, so that it removes its
        temporary files; SIGKILL if it has not ended 2 s later) and waited
        for before this is raised.
    """
    args = [_program(), "verify", "--level", level]
    if claim is not None:
        args += ["--claim", claim]
    if inject_fault is not None:
        args += ["--inject-fault", inject_fault]
    if broken_only:
        args.append("--broken-only")
    if tolerances is not None:
        args += ["--tolerances", tolerances]
    with tempfile.TemporaryDirectory(prefix="attnflow-verify-") as d:
        path = os.path.join(d, "report.json")
        p = _limits.run_command(args + ["--json", path])
        if p.returncode == 2 or not os.path.exists(path):
            raise RuntimeError("attnflow verify failed (exit status %d): %s"
                               % (p.returncode, p.stderr.strip()))
        with open(path) as f:
            report = json.load(f)
    report["exit_status"] = p.returncode
    return report


def read_csv(path):
    """Read a CSV file of ``attnflow run`` (or ``attnflow figure``).

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    Result
        One NumPy array per column; the provenance ("# key: value" lines)
        as the attribute ``.provenance`` (a dict).  The same numbers as
        ``numpy.genfromtxt((l for l in open(path) if l[0] != "#"),
        delimiter=",", names=True)`` column by column (docs/formats.md).
    """
    prov = {}
    with open(path) as f:
        lines = []
        for line in f:
            if line.startswith("#"):
                key, sep, val = line[1:].strip().partition(":")
                if sep:
                    prov[key.strip()] = val.strip()
            elif line.strip():
                lines.append(line)
    if not lines:
        raise ValueError("%s: no header row" % path)
    names = lines[0].strip().split(",")
    data = np.array([[float(v) for v in l.split(",")] for l in lines[1:]]
                    ).reshape(-1, len(names))
    res = Result((nm, data[:, i].copy()) for i, nm in enumerate(names))
    res.provenance = prov
    return res


def convergence(scheme, n, d, beta, t_end=10.0, methods=None, steps=None,
                tols=None, ref_tol=None, ref_precision=None, reps=None,
                plot=None, **case):
    """Observed orders and work-precision of the integrators on one case,
    as ``attnflow convergence`` (after DiffEqDevTools' test_convergence
    and WorkPrecisionSet).

    Parameters
    ----------
    scheme : str
        A name of ``attnflow schemes`` (or sa, usa, causal).
    n, d : int
    beta : float
    t_end : float, optional
        The time whose state is compared with the MPFR reference.
    methods : list of str, optional
        Default every method: rk8pd, vern9, rkf45, rkck, rk4, msadams,
        layers.
    steps : list of int, optional
        Numbers N of fixed steps h = t_end / N.
    tols : list of float, optional
        Tolerances rtol = atol of the adaptive runs.
    ref_tol, ref_precision : optional
        Tolerance and bits of the reference (mp-gbs, checked by mp-gauss).
    reps : int, optional
        CPU time: the least of `reps` repetitions.
    plot : str, optional
        Prefix of the diagram (PREFIX.gp, and with gnuplot PREFIX.png and
        PREFIX.svg).
    **case
        Other options of the case, as in `run` (init, seed, r0, alpha,
        alpha_decay, tau, attention, kernel, weights).

    Returns
    -------
    dict
        "rows": a dict of NumPy arrays, one per column (method as an
        array of str; fixed, N, h, tol, steps, nevals, time, err, order);
        "orders": {method: median observed order}; "provenance": a dict.

    Raises
    ------
    RuntimeError
        The command failed (its message).
    """
    args = [_program(), "convergence", "--scheme", str(scheme), "--n",
            str(int(n)), "--d", str(int(d)), "--beta", repr(float(beta)),
            "--t-end", repr(float(t_end))]

    def lst(v):
        return ",".join(repr(float(x)) if not isinstance(x, str) else x
                        for x in v)
    if methods is not None:
        args += ["--methods", methods if isinstance(methods, str)
                 else ",".join(methods)]
    if steps is not None:
        args += ["--steps", ",".join(str(int(x)) for x in steps)]
    if tols is not None:
        args += ["--tols", lst(tols)]
    for name, v in (("ref-tol", ref_tol), ("ref-precision", ref_precision),
                    ("reps", reps)):
        if v is not None:
            args += ["--" + name, str(v)]
    for k, v in case.items():
        args += ["--" + k.replace("_", "-"), str(v)]
    with tempfile.TemporaryDirectory(prefix="attnflow-convergence-") as tdir:
        path = os.path.join(tdir, "convergence.csv")
        args += ["--out", path]
        if plot is not None:
            args += ["--plot", os.path.abspath(plot)]
        p = subprocess.run(args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            raise RuntimeError("attnflow convergence failed (exit status %d): "
                               "%s" % (p.returncode, p.stderr.strip()))
        prov, body = {}, []
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    key, sep, val = line[1:].strip().partition(":")
                    if sep:
                        prov[key.strip()] = val.strip()
                elif line.strip():
                    body.append(line.strip().split(","))
    names = body[0]
    cols = {}
    for i, nm in enumerate(names):
        vals = [r[i] for r in body[1:]]
        cols[nm] = np.array(vals) if nm == "method" else \
            np.array([float(v) for v in vals])
    orders = {k[len("order_"):]: float(v.split()[0])
              for k, v in prov.items() if k.startswith("order_")}
    return {"rows": cols, "orders": orders, "provenance": prov}
