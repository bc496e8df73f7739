#!/bin/sh
# test_python.sh -- the Python package (python/attnflow) under pytest,
# against the build tree: the library src/.libs/libattnflow.so.0 and the
# command ./attnflow.  Skipped (77) only when configure found no Python
# with NumPy or pytest is missing, or with --disable-shared; pytest's "no
# tests collected" (5) fails.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
PYTHON=${PYTHON:-python3}
if [ "$PYTHON" = : ] || ! "$PYTHON" -c 'import numpy, pytest' 2>/dev/null; then
  echo "SKIP: no Python with NumPy and pytest (Debian: python3-numpy python3-pytest)"
  exit 77
fi
lib="$top_builddir/src/.libs/libattnflow.so.0"
if [ ! -f "$lib" ]; then
  if [ "$(sed -n 's/^build_libtool_libs=//p' "$top_builddir/libtool" 2>/dev/null | head -n 1)" = no ]; then
    echo "SKIP: configured with --disable-shared: no libattnflow.so for ctypes"
    exit 77
  fi
  echo "not ok - $lib missing"
  exit 1
fi
ATTNFLOW_LIBRARY=$lib ATTNFLOW_BIN="$top_builddir/attnflow" \
PYTHONPATH="$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}" \
PYTHONDONTWRITEBYTECODE=1 \
  "$PYTHON" -m pytest -q -p no:cacheprovider "$top_srcdir/python/tests"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "not ok - pytest collected no tests"
  exit 1
fi
exit "$rc"
