"""Schemes from a spec (attnflow.SchemeSpec, docs/schemes.md): the spec'd
copy of a built-in runs bit for bit like it, theory.solve accepts spec'd
and callback schemes, and a bad spec names its line and column."""
import os

import numpy as np
import pytest

import attnflow as af
from attnflow import theory

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMES = os.path.join(HERE, "..", "..", "data", "schemes")


def spec(name):
    return af.SchemeSpec.read(os.path.join(SCHEMES, name + ".scheme"))


@pytest.mark.parametrize("name", ["pre-ln", "peri-ln", "mix-ln"])
def test_spec_copy_runs_bit_for_bit(name):
    a = af.run(spec(name), 5, 4, 1.5, init="gaussian", t_end=2)
    b = af.run(name, 5, 4, 1.5, init="gaussian", t_end=2)
    assert np.array_equal(a.state, b.state)


def test_theory_solve_takes_a_spec():
    a = theory.solve([0.5, 2, 6], 4, 1.0, scheme=spec("peri-ln"), r0=1.5)
    b = theory.solve([0.5, 2, 6], 4, 1.0, scheme="peri-ln", r0=1.5)
    assert np.array_equal(a["gamma"], b["gamma"])
    assert np.array_equal(a["r"], b["r"])
    v = theory.initial_velocity(4, 1.0, scheme=spec("peri-ln"), r0=1.5)
    assert v == pytest.approx(theory.initial_velocity(4, 1.0, "peri-ln",
                                                      r0=1.5), rel=1e-14)


def test_theory_solve_takes_a_callback_scheme():
    us = af.UserScheme(
        "damped", lambda t, r, c, a, al, tau: (r * (a * (t + 1) ** 0.5),
                                               c / (a * (t + 1) ** 0.5)),
        needs_anorm=True)
    a = theory.solve([1, 3], 4, 1.0, scheme=us, r0=1.5)
    b = theory.solve([1, 3], 4, 1.0, scheme=spec("peri-damped"), r0=1.5)
    assert a["gamma"] == pytest.approx(b["gamma"], rel=1e-13)
    # the symmetric reduction: the n-particle run follows the scalar ODE
    r = af.run(spec("peri-damped"), 4, 4, 1.0, init="orthonormal", r0=1.5,
               times=[0, 1, 3], rtol=1e-12, atol=1e-14)
    assert r["cos_mean"][1:] == pytest.approx(b["gamma"], abs=1e-10)


@pytest.mark.parametrize("text,where", [
    ("name = x\nspeed = r +\n", "line 2, column 12"),
    ("name = x\nspeed = r\nradial = foo\n", "line 3, column 10"),
    ("name = x\nspeed = 1\nradial = 0\n", "missing key 'layer'"),
])
def test_bad_spec_names_the_place(text, where):
    with pytest.raises(ValueError, match=where):
        af.SchemeSpec(text)


def _npy_f8(shape, values):
    """A version 1.0 .npy file of little-endian float64 (made by hand)."""
    import struct
    head = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(s) for s in shape))
    pad = (64 - (10 + len(head) + 1) % 64) % 64
    head = head + " " * pad + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head))
            + head.encode() + struct.pack("<%dd" % len(values), *values))


def test_weights_npy_reads_as_the_text_format(tmp_path):
    npy = tmp_path / "w.npy"
    npy.write_bytes(_npy_f8((3, 2, 2), [2.0, 0.0, 0.0, 2.0] + [1.0, 0.0, 0.0, 1.0] * 2))
    txt = tmp_path / "w.txt"
    txt.write_text("2 0\n0 2\n1 0\n0 1\n1 0\n0 1\n")
    a = af.run("post-ln", 4, 2, 1.0, init="gaussian", t_end=1, weights=str(npy))
    b = af.run("post-ln", 4, 2, 1.0, init="gaussian", t_end=1, weights=str(txt))
    assert np.array_equal(a.state, b.state)
    with pytest.raises(af.Error, match="for the run's d"):
        af.run("post-ln", 4, 3, 1.0, t_end=1, weights=str(npy))


def test_weights_npz_and_safetensors_read_as_the_text_format(tmp_path):
    """.npz (numpy.savez) and safetensors weights give the text format's
    bits; two heads that split V give the one-head run; a foreign name is
    refused with the reader's reason."""
    import json
    import struct
    Q = np.array([[2.0, 0.0], [0.0, 2.0]])
    eye = np.eye(2)
    txt = tmp_path / "w.txt"
    txt.write_text("2 0\n0 2\n1 0\n0 1\n1 0\n0 1\n")
    npz = tmp_path / "w.npz"
    np.savez(npz, **{"Q.0": Q, "K.0": eye, "V.0": eye})
    hdr = {}
    blob = b""
    for name, a in (("Q.0", Q), ("K.0", eye), ("V.0", eye)):
        b = a.astype("<f8").tobytes()
        hdr[name] = {"dtype": "F64", "shape": [2, 2],
                     "data_offsets": [len(blob), len(blob) + len(b)]}
        blob += b
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    st = tmp_path / "w.safetensors"
    st.write_bytes(struct.pack("<Q", len(h)) + h + blob)
    kw = dict(init="gaussian", t_end=1)
    ref = af.run("post-ln", 4, 2, 1.0, weights=str(txt), **kw)
    for path in (npz, st):
        got = af.run("post-ln", 4, 2, 1.0, weights=str(path), **kw)
        assert np.array_equal(got.state, ref.state)
    # two heads: V = 0.25 I + 0.75 I (exact in binary), same Q, K
    heads = tmp_path / "h.npz"
    np.savez(heads, **{"Q.0.0": Q, "K.0.0": eye, "V.0.0": 0.25 * eye,
                       "Q.0.1": Q, "K.0.1": eye, "V.0.1": 0.75 * eye})
    # A given first step: the starting-step rule reads f(y0) and a second
    # field value, whose ulps differ between the two, and the runs then
    # take other steps and differ by their discretization errors (measured
    # 1.1e-13, each run's error 3e-13).
    two = af.run("post-ln", 4, 2, 1.0, weights=str(heads), kernel="direct",
                 h=0.01, **kw)
    one = af.run("post-ln", 4, 2, 1.0, weights=str(txt), kernel="direct",
                 h=0.01, **kw)
    # The fields differ by a few ulps per evaluation (0.25 A + 0.75 A rounds
    # differently from A), carried through the steps to t = 1 with the same
    # step choices: measured 1.4e-14 on |y| <= 1.7; 1e-13 is about 250 ulps.
    assert np.max(np.abs(two.state - one.state)) < 1e-13
    bad = tmp_path / "bad.npz"
    np.savez(bad, **{"Q.0": Q, "K.0": eye, "V.0": eye, "W.0": eye})
    with pytest.raises(af.Error, match="W.0"):
        af.run("post-ln", 4, 2, 1.0, weights=str(bad), **kw)
