"""attnflow.certify (af_certify through ctypes)."""

import math

import numpy as np
import pytest

from attnflow import certify as C


def _run(*args, **kw):
    try:
        return C.certify(*args, **kw)
    except ValueError as e:
        if "Arb" in str(e):
            pytest.skip("built without Arb")
        raise


def _angles(a):
    return np.array([[math.cos(x), math.sin(x)] for x in a])


def test_certified_and_balls():
    r = _run(_angles([0, 2.0, 4.2]), "post-ln", times=[1, 2])
    assert r["status"] == "certified" and r["lemma"] == "P3h-hemisphere"
    assert 6 < r["t_star"] < 7
    assert list(r["times"][:2]) == [1, 2] and r["mid"].shape == (3, 6)
    assert (r["rad"] < 1e-12).all()


def test_antipodal_not_certified():
    r = _run(np.array([[1.0, 0.0], [-1.0, 0.0]]), "pre-ln", t_max=10)
    assert r["status"] == "could-not-certify" and "equilibrium" in r["reason"]


def test_off_sphere_is_an_error():
    with pytest.raises(ValueError, match="unit sphere|Arb"):
        C.certify(np.array([[1.0, 0.0], [0.0, 1.5]]), "post-ln")


def test_antipodal_cap_refuted():
    # the exact antipodal pair is stationary: it never enters the cap
    r = _run(np.array([[1.0, 0.0], [-1.0, 0.0]]), "pre-ln", t_max=4,
             property_cap=True)
    assert r["status"] == "refuted" and r["hypothesis"] > 0.0025


def test_set_of_starts_wrapped_tighter():
    kw = dict(init_radius=1e-6, t_max=64)
    a = _run(_angles([0, 1.7, 3.6]), "post-ln", **kw)
    b = _run(_angles([0, 1.7, 3.6]), "post-ln", wrap=False, **kw)
    assert a["status"] == b["status"] == "certified"
    assert a["final_radius"] < b["final_radius"]


def test_merge_enclosure_two_tokens():
    # theorems.md C-merge: the one merge of two tokens at cos > 0.9999
    r = _run(_angles([0, 0.5]), "post-ln", t_max=16, merge_cos=0.9999)
    (f, t, lo, hi), = r["merges"]
    assert (f, t) == (2, 1) and 3 < lo <= hi < 4 and hi - lo < 1


def _spec(name):
    import os
    from attnflow import SchemeSpec
    here = os.path.dirname(os.path.abspath(__file__))
    return SchemeSpec.read(os.path.join(here, "..", "..", "data", "schemes",
                                        name + ".scheme"))


def test_spec_closed_by_u_close():
    # theorems.md U-close: deepnorm (s = 2) from a start in no open
    # half-circle; the CLI gives the same T* (tests/test_certify_cli.sh)
    r = _run(_angles([0, 1.7, 3.6]), _spec("deepnorm"))
    assert r["status"] == "certified" and r["lemma"] == "U-close"
    assert 4.0 < r["t_star"] < 4.2 and r["speed_bounds"] == (2.0, 2.0)


def test_spec_time_factor_u_close():
    # LN-Scaling's copy: s = sqrt(t + 1), a time factor with e = 1/2, at
    # the built-in's T*
    r = _run(_angles([0, 1.7, 3.6]), _spec("ln-scaling"))
    b = _run(_angles([0, 1.7, 3.6]), "ln-scaling")
    assert r["lemma"] == "U-close" and r["time_exponent"] == 0.5
    assert r["t_star"] == b["t_star"]


def test_spec_reading_r_needs_the_property():
    with pytest.raises(ValueError, match="U-close|Arb"):
        C.certify(_angles([0, 0.5]), _spec("peri-damped"))
    r = _run(_angles([0, 0.5]), _spec("peri-damped"), property_cap=True)
    assert r["status"] == "certified" and r["lemma"] == "cap-entered"


def test_callback_scheme_refused():
    from attnflow import UserScheme
    u = UserScheme("cb", lambda t, r, c, a, al, tau: (1.0, 0.0))
    with pytest.raises(ValueError, match="SchemeSpec"):
        C.certify(_angles([0, 1.7, 3.6]), u)
