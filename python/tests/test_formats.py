"""The documented formats (docs/formats.md): the one-call readers of the
CSV for NumPy and pandas, and the JSON Schemas of 'run --format jsonl' and
'verify --json' against real outputs."""
import json
import os
import subprocess

import numpy as np
import pytest

import attnflow

SCHEMAS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "schemas")
ARGS = ["--scheme", "peri-ln", "--n", "5", "--d", "3", "--beta", "1.5",
        "--times", "0,0.5,2", "--observables", "t,cos_mean,r_max,clusters,gap_max"]


def command(attnflow_bin, *args):
    p = subprocess.run([attnflow_bin, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture
def csv_and_jsonl(attnflow_bin, tmp_path):
    path = tmp_path / "run.csv"
    command(attnflow_bin, "run", *ARGS, "--out", str(path))
    rows = [json.loads(l) for l in
            command(attnflow_bin, "run", *ARGS, "--format", "jsonl").splitlines()]
    # Streamed to stdout: provenance, rows, then the run's statistics.
    assert "statistics" in rows[-1]
    return str(path), rows[:-1]


def test_csv_numpy_one_call(csv_and_jsonl):
    path, rows = csv_and_jsonl
    # docs/formats.md, NumPy:
    a = np.genfromtxt((l for l in open(path) if not l.startswith("#")),
                      delimiter=",", names=True)
    assert a.dtype.names == tuple(rows[1])
    for k in a.dtype.names:
        assert np.array_equal(a[k], [r[k] for r in rows[1:]]), k


def test_csv_pandas_one_call(csv_and_jsonl):
    pd = pytest.importorskip("pandas")
    path, rows = csv_and_jsonl
    # docs/formats.md, pandas:
    df = pd.read_csv(path, comment="#", float_precision="round_trip")
    assert list(df.columns) == list(rows[1])
    for k in df.columns:
        assert np.array_equal(df[k].to_numpy(), [r[k] for r in rows[1:]]), k


def test_csv_read_csv(csv_and_jsonl):
    path, rows = csv_and_jsonl
    r = attnflow.read_csv(path)
    assert list(r) == list(rows[1])
    for k in r:
        assert np.array_equal(r[k], [x[k] for x in rows[1:]]), k
    assert r.provenance["scheme"] == "peri-ln" and r.provenance["n"] == "5"
    assert r.provenance["times"] == "0,0.5,2"


def schema(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


def test_jsonl_schema(csv_and_jsonl, attnflow_bin):
    js = pytest.importorskip("jsonschema")
    _, rows = csv_and_jsonl
    s = schema("run-jsonl.schema.json")
    for r in rows:
        js.validate(r, s)
    full = [json.loads(l) for l in command(
        attnflow_bin, "run", "--scheme", "ngpt", "--n", "4", "--d", "3",
        "--beta", "1", "--observables", ",".join(attnflow.observables()),
        "--format", "jsonl").splitlines()]
    for r in full:
        js.validate(r, s)
    # The schema has power: a misspelt observable or a string value fails.
    with pytest.raises(js.ValidationError):
        js.validate({"t": 0, "cos_maen": 1}, s)
    with pytest.raises(js.ValidationError):
        js.validate({"t": "0"}, s)


def test_verify_schema(attnflow_bin, tmp_path):
    js = pytest.importorskip("jsonschema")
    path = tmp_path / "r.json"
    subprocess.run([attnflow_bin, "verify", "--claim", "T4.1a*", "--json",
                    str(path)], stdout=subprocess.DEVNULL, check=True)
    rep = json.load(open(path))
    s = schema("verify.schema.json")
    js.validate(rep, s)
    rep["claims"][0]["status"] = "passed"
    with pytest.raises(js.ValidationError):
        js.validate(rep, s)
