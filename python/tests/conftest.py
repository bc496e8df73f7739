"""Shared fixtures of the Python package's tests: the attnflow command
they compare with (ATTNFLOW_BIN, set by tests/test_python.sh)."""
import json
import os
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="session")
def attnflow_bin():
    return os.environ.get("ATTNFLOW_BIN", "attnflow")


@pytest.fixture
def cli_run(attnflow_bin, tmp_path):
    """cli_run(*args) -> (rows dict of arrays, state array or None): runs
    'attnflow run ARGS --format jsonl --save-state FILE'."""
    def run(*args):
        state = tmp_path / "state.csv"
        p = subprocess.run([attnflow_bin, "run", *map(str, args), "--format",
                            "jsonl", "--save-state", str(state)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        assert p.returncode == 0, p.stderr
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        assert "provenance" in lines[0]
        # rows, then (stdout is streamed) the run's statistics last
        assert "statistics" in lines[-1]
        rows = lines[1:-1]
        cols = {k: np.array([r[k] for r in rows], dtype=float) for k in rows[0]}
        x = np.loadtxt(state, delimiter=",", comments="#", ndmin=2)
        return cols, x
    return run
