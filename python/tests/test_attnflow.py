"""attnflow.run, attnflow.theory and attnflow.verify against the command
and the theory.  run() calls the same library functions with the same
arguments as 'attnflow run', so its numbers must equal the command's bit
for bit (the JSON Lines and the state file print %.17g, which round-trips
every double): every comparison with the command is exact."""
import math
import os
import subprocess

import numpy as np
import pytest

import attnflow
from attnflow import theory

CASES = [
    dict(scheme="pre-ln", n=5, d=3, beta=1.5, seed=3, times=[0, 1, 2.5]),
    dict(scheme="post-ln", n=4, d=4, beta=2, init="orthonormal", times=[0.5, 2]),
    dict(scheme="mix-ln", n=6, d=3, beta=1, tau=0.7, times=[0, 0.5, 1, 3]),
    dict(scheme="peri-ln", n=5, d=4, beta=1, r0=1.5, init="hemisphere", times=[0, 2]),
    dict(scheme="ngpt", n=5, d=3, beta=2, alpha=0.5, alpha_decay=0.5, times=[0, 1, 4]),
    dict(scheme="ln-scaling", n=4, d=3, beta=1, method="vern9", rtol=1e-12, atol=1e-14, times=[0, 3]),
    dict(scheme="usa", n=4, d=3, beta=0.5, kernel="direct", times=[0, 1]),
    dict(scheme="causal", n=4, d=3, beta=1, method="rk4", h=0.05, times=[0, 1]),
    dict(scheme="pre-ln", n=4, d=3, beta=1, method="layers", h=0.1, times=[0, 1, 2]),
    dict(scheme="pre-ln", n=4, d=3, beta=1, weights="kaiming", seed=5, t_end=1,
         observables=["t", "gap_mean", "gap_max", "clusters"]),
]


def cli_args(kw):
    args = []
    for k, v in kw.items():
        if isinstance(v, list):
            v = ",".join(map(str, v))
        args += ["--" + k.replace("_", "-"), str(v)]
    return args


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: kw["scheme"] + "-" + kw.get("method", "rk8pd"))
def test_run_equals_command(kw, cli_run):
    r = attnflow.run(**kw)
    cols, x = cli_run(*cli_args(kw))
    assert list(r) == list(cols)
    for k in cols:
        assert np.array_equal(r[k], cols[k]), k
    assert np.array_equal(r.x, x)
    n, d = kw["n"], kw["d"]
    assert r.state.shape == (n * d + n,) and r.theta.shape == (n, d) and r.r.shape == (n,)
    assert r.stats["t_reached"] == r["t"][-1]


def test_run_init_array_equals_file(cli_run, tmp_path):
    rng = np.random.default_rng(11)
    x0 = rng.standard_normal((5, 3))
    r = attnflow.run(scheme="pre-ln", n=5, d=3, beta=1, init=x0, times=[0, 1])
    f = tmp_path / "x0.csv"
    np.savetxt(f, x0, delimiter=",", fmt="%.17g")
    cols, x = cli_run("--scheme", "pre-ln", "--n", 5, "--d", 3, "--beta", 1,
                      "--init", "file:%s" % f, "--times", "0,1")
    for k in cols:
        assert np.array_equal(r[k], cols[k]), k
    assert np.array_equal(r.x, x)
    # At t = 0 the radii are the norms of the rows.
    r0 = attnflow.run(scheme="pre-ln", n=5, d=3, beta=1, init=x0, times=[0])
    assert np.array_equal(r0.r, np.sqrt(np.sum(x0 ** 2, axis=1)))


def test_run_errors():
    with pytest.raises(ValueError, match="unknown scheme"):
        attnflow.run(scheme="nope", n=2, d=2, beta=1)
    with pytest.raises(ValueError, match="beta"):
        attnflow.run(scheme="post-ln", n=2, d=2, beta=-1)
    with pytest.raises(ValueError, match="shape"):
        attnflow.run(scheme="post-ln", n=2, d=2, beta=1, init=np.ones((3, 2)))
    with pytest.raises(TypeError, match="--precision"):
        attnflow.run(scheme="post-ln", n=2, d=2, beta=1, precision=256)
    with pytest.raises(TypeError, match="unexpected keyword"):
        attnflow.run(scheme="post-ln", n=2, d=2, beta=1, betta=1)
    with pytest.raises(attnflow.Error) as e:
        attnflow.run(scheme="post-ln", n=4, d=3, beta=1, max_steps=1, t_end=10)
    assert e.value.name == "AF_EMAXSTEPS"
    with pytest.raises(attnflow.Error) as e:
        attnflow.run(scheme="post-ln", n=4, d=3, beta=1, init="orthonormal")
    assert e.value.name in ("AF_EINVAL", "AF_EDIM")


def test_user_scheme_equals_builtin():
    """Pre-LN written in Python (s = r, rho = c) is the library's Pre-LN
    bit for bit: the callback does no arithmetic."""
    pre = attnflow.UserScheme("pre-ln-py", lambda t, r, c, a, alpha, tau: (r, c))
    kw = dict(n=5, d=3, beta=1.5, seed=2, times=[0, 1, 3])
    a = attnflow.run(scheme=pre, **kw)
    b = attnflow.run(scheme="pre-ln", **kw)
    for k in b:
        assert np.array_equal(a[k], b[k]), k
    assert np.array_equal(a.state, b.state)


def test_user_scheme_errors_propagate():
    def rates(t, r, c, a, alpha, tau):
        raise ZeroDivisionError("inside the rates")
    with pytest.raises(ZeroDivisionError):
        attnflow.run(scheme=attnflow.UserScheme("bad", rates), n=3, d=3, beta=1)
    neg = attnflow.UserScheme("negative", lambda t, r, c, a, al, ta: (-1.0, 0.0))
    with pytest.raises(attnflow.Error) as e:
        attnflow.run(scheme=neg, n=3, d=3, beta=1)
    assert e.value.name == "AF_ESPEED"
    with pytest.raises(attnflow.Error):  # no layer map for a user scheme
        attnflow.run(scheme=neg, n=3, d=3, beta=1, method="layers", h=0.1, times=[0, 1])


@pytest.mark.parametrize("scheme", ["post-ln", "pre-ln", "mix-ln", "peri-ln", "ngpt", "ln-scaling"])
def test_theory_gamma_matches_simulation(scheme):
    """T4.1: every cosine of the orthonormal start follows gamma(t).  The
    bound is that of examples/predict.c: rk8pd at rtol 1e-12, atol 1e-14
    errs by ~1e-12 per step on each unit vector, 2e-12 on a cosine; the
    clustering flow does not amplify it; five steps' worth: 1e-11
    (measured 2.1e-14)."""
    t = [0.5, 1, 2, 4]
    r = attnflow.run(scheme=scheme, n=4, d=4, beta=2, init="orthonormal",
                     times=t, rtol=1e-12, atol=1e-14)
    g = theory.gamma(times=t, n=4, beta=2, scheme=scheme)
    assert np.max(np.abs(r["cos_min"] - g)) < 1e-11
    assert np.max(np.abs(r["cos_max"] - g)) < 1e-11


def test_theory_closed_forms():
    n, beta = 4, 2.0
    # T4.1a, Post-LN: 2 / (e^beta + n - 1), evaluated here independently.
    v = theory.initial_velocity(n=n, beta=beta, scheme="post-ln")
    assert abs(v - 2 / (math.exp(beta) + n - 1)) <= 4 * np.finfo(float).eps * v
    # T4.1d: t(gamma(t)) = t.  gamma(t) from the ODE at rtol 1e-14 is
    # accurate to ~1e-12 (steps x tolerance); dt/dgamma = 1/F(gamma) is
    # below 10 on [0, 2], so |t(gamma(t)) - t| < 1e-10.
    ts = np.array([0.25, 1.0, 2.0])
    g = theory.gamma(times=ts, n=n, beta=beta)
    back = np.array([theory.time_postln(x, n, beta) for x in g])
    assert np.max(np.abs(back - ts)) < 1e-10
    # T4.1c: K by integration and by its closed form agree to the
    # integration's tolerance (relative 1e-10 is a hundred times it).
    assert abs(theory.K(6, 2.0) / theory.K_closed(6, 2.0) - 1) < 1e-10
    assert theory.terminal_law("post-ln")["form"] == "exp"
    assert theory.lnscaling_time(3.0) == 2 * (math.sqrt(4.0) - 1)
    assert np.isnan(theory.F(0.5, 1, beta))  # n = 1: outside the domain


def test_verify_report():
    rep = attnflow.verify(level="quick", claim="T4.1a*")
    assert rep["exit_status"] == 0 and rep["level"] == "quick"
    assert len(rep["claims"]) >= 6
    for c in rep["claims"]:
        assert c["id"].startswith("T4.1a") and c["status"] == c["expected"]
    with pytest.raises(RuntimeError, match="exit status 2"):
        attnflow.verify(level="nope")


def test_library_exports_public_api_only():
    lib = attnflow._lib.lib
    for name in ("af_integrate", "af_rhs", "af_t41_solve", "af_mp_integrate",
                 "af_model_set_user_scheme"):
        assert hasattr(lib, name), name
    for name in ("af_scheme_rates_rows", "af_data_dir", "af_weights_at"):
        assert not hasattr(lib, name), name
    assert attnflow.version() == lib.af_version().decode()
    assert list(attnflow.schemes())[0] == "post-ln"
    assert attnflow.observables()[:2] == ["t", "cos_mean"]


def test_docs_python_example(capsys):
    """The worked example of docs/python.md runs and prints what the page
    shows: attnflow and SciPy's DOP853 both within 1e-12 of theory's gamma,
    the integrators' rtol on cosines |gamma| < 1 (the page: 9.3e-15 and
    1.1e-13)."""
    pytest.importorskip("scipy")
    page = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
    text = open(page).read()
    code = text.split("## Worked example")[1].split("```python\n")[1].split("```")[0]
    exec(compile(code, page, "exec"), {})
    out = capsys.readouterr().out
    vals = {l.split("=")[0].strip(): float(l.split("=")[1]) for l in out.splitlines()
            if l.startswith("max |")}
    assert vals["max |attnflow - theory|"] < 1e-12
    assert vals["max |scipy - theory|"] < 1e-12


def test_data_dir_from_environment(attnflow_bin, tmp_path):
    """ATTNFLOW_DATADIR overrides where verify finds data/reference: an
    empty directory leaves C-mpref without references (could-not-certify,
    the note naming it), a copy of the data certifies as the tree does."""
    import json
    import shutil
    src = os.path.join(os.path.dirname(__file__), "..", "..", "data", "reference")
    empty = tmp_path / "empty"
    empty.mkdir()
    copy = tmp_path / "copy"
    shutil.copytree(src, str(copy / "reference"))
    out = {}
    for name, d in (("empty", empty), ("copy", copy)):
        js = tmp_path / (name + ".json")
        env = dict(os.environ, ATTNFLOW_DATADIR=str(d))
        subprocess.run([attnflow_bin, "verify", "--claim", "C-mpref", "--json",
                        str(js)], env=env, stdout=subprocess.DEVNULL)
        out[name] = json.load(open(js))["claims"][0]
    assert out["empty"]["status"] == "could-not-certify"
    assert str(empty / "reference") in out["empty"]["note"]
    assert out["copy"]["status"] == "certified"
