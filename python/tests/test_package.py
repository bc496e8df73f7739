"""The package as a Python user meets it: its version (the library's and,
when installed by pip, its metadata), a namespace of public names only,
NumPy-style docstrings, trajectories as arrays, and convergence()."""
import inspect

import numpy as np
import pytest

import attnflow
from attnflow import theory


def test_version():
    assert attnflow.__version__ == attnflow.version()
    try:
        from importlib import metadata
        v = metadata.version("attnflow")
    except Exception:  # not installed by pip (source tree, make install)
        pytest.skip("attnflow not installed by pip: no metadata")
    assert v == attnflow.__version__


def test_namespace():
    names = dir(attnflow)
    for private in ("np", "os", "subprocess", "json", "math", "tempfile", "_lib"):
        assert private not in names
    for name in attnflow.__all__:
        assert hasattr(attnflow, name), name
    assert "__version__" in names
    assert "np" not in dir(theory)
    for name in theory.__all__:
        assert hasattr(theory, name), name


@pytest.mark.parametrize("name", ["run", "verify", "read_csv", "convergence",
                                  "schemes", "observables", "version",
                                  "Result", "UserScheme"])
def test_numpy_docstrings(name):
    doc = inspect.getdoc(getattr(attnflow, name))
    assert doc
    sections = [s for s in ("Parameters", "Returns", "Attributes")
                if s + "\n" + "-" * len(s) in doc]
    assert sections, "%s: no NumPy-style section" % name


def test_trajectory():
    """trajectory[k] is the state at times[k]: the same numbers, bit for
    bit, as a run that ends there (the integrator stops at every output
    time exactly)."""
    kw = dict(scheme="pre-ln", n=5, d=3, beta=1.5, seed=3, r0=1.2)
    r = attnflow.run(times=[0, 1, 2.5], **kw)
    assert r.trajectory.shape == (3, 5, 3)
    assert r.radii.shape == (3, 5)
    assert r.table.shape == (3, 12)
    assert np.array_equal(r.trajectory[-1], r.x)
    assert np.array_equal(r.table[:, 1], r["cos_mean"])
    r1 = attnflow.run(times=[0, 1], **kw)
    assert np.array_equal(r.trajectory[1], r1.x)
    assert np.allclose(r.radii[0], 1.2)
    # an output grid that does not start at 0 has no row for t = 0
    r2 = attnflow.run(times=[1, 2.5], **kw)
    assert np.array_equal(r2.trajectory, r.trajectory[1:])


def test_convergence():
    c = attnflow.convergence("pre-ln", 4, 3, 1, t_end=2,
                             methods=["rk4", "vern9", "msadams"],
                             steps=[2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64],
                             tols=[1e-6, 1e-8], reps=1, ref_tol=1e-25,
                             ref_precision=128)
    rows = c["rows"]
    assert abs(c["orders"]["rk4"] - 4) < 0.3
    assert "msadams" not in c["orders"]  # no fixed steps
    assert np.sum((rows["method"] == "vern9") & (rows["fixed"] == 0)) == 2
    assert np.sum((rows["method"] == "vern9") & (rows["fixed"] == 1)) == 11
    assert np.all(rows["err"] >= 0)
    assert "mp-gbs" in c["provenance"]["reference"]
    with pytest.raises(RuntimeError, match="unknown method"):
        attnflow.convergence("pre-ln", 4, 3, 1, methods=["rk45"])
