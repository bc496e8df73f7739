# weights_lib.sh -- the preamble of the weight-file tests (test_weights_npy.sh,
# test_weights_npz.sh, test_weights_heads.sh), sourced after they set
# NAME (their file name, for the messages) and TAG (of the temporary
# directory), and WANT_NUMPY=1 when they write files with NumPy.
#
# Sets AF (exit 99 if the command is not built; top_builddir exported by
# 'make check'), PY (a Python with NumPy, $PYTHON else Debian's
# /usr/bin/python3; skipped, 77, without one), tmp (a temporary directory
# removed on exit) and the counters pass, fail, k of ok NAME and
# bad NAME WHY: one line per case, "ok N - name" / "not ok N - name: why".
top_builddir=${top_builddir:-.}
AF="$(cd "$top_builddir" 2>/dev/null && pwd)/attnflow"
if [ ! -x "$AF" ]; then
  echo "$NAME: $AF not found (set top_builddir)" >&2
  exit 99
fi
if [ "${WANT_NUMPY:-0}" = 1 ]; then
  PY=
  for p in "${PYTHON:-}" /usr/bin/python3; do
    if [ -n "$p" ] && [ "$p" != : ] && "$p" -c 'import numpy' 2>/dev/null; then
      PY=$p
      break
    fi
  done
  if [ -z "$PY" ]; then
    echo "SKIP: no Python with NumPy (Debian: python3-numpy)"
    exit 77
  fi
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/af-$TAG.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 k=0
ok() { k=$((k + 1)); pass=$((pass + 1)); echo "ok $k - $1"; }
bad() { k=$((k + 1)); fail=$((fail + 1)); echo "not ok $k - $1: $2"; }
