#!/bin/sh
# run.sh -- build the libFuzzer harnesses of tests/fuzz/ (one per reader:
# token files, weights files (text, .npy, and .npz and safetensors in one
# harness, fuzz_archive), reference files,
# checkpoints, scheme specs; and one of the public C API, arguments
# decoded from the input) against the library's sources with clang
# -fsanitize=fuzzer,address,undefined, and run each for a bounded time
# from its committed seed corpus.
#
#   sh tests/fuzz/run.sh [SECONDS]     (default 60 per harness)
#
# Needs a configured tree (config.h; top_builddir, default .), clang with
# the libFuzzer runtime (Debian: clang, and libclang-rt-N-dev where the
# runtime is packaged apart), GSL, MPFR, GMP and zlib.  New inputs are written
# to a scratch directory, never into the committed corpus.  Exit status
# 0 only if every harness ran its time without a crash or a sanitizer
# report (a crashing input is kept in the scratch directory and named).
set -eu
secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${top_builddir:-$top}" && pwd)
CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null 2>&1; then
  echo "run.sh: $CC not found (apt-get install clang)" >&2
  exit 1
fi
if [ ! -f "$build/config.h" ]; then
  echo "run.sh: no config.h in $build: configure first" >&2
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/af-fuzz.XXXXXX")
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-g -O1 -ffp-contract=off -DHAVE_CONFIG_H -I$build -I$top/src -I$top/src/core -I$top/src/model -I$top/src/attention -I$top/src/flow -I$top/src/mp"
LIBS="-lgsl -lgslcblas -lmpfr -lgmp -lz -lm -ldl"
# The library's sources as Makefile.am lists them (src_libafcore_la_SOURCES,
# .c files only), so a new source file cannot be missed here, but for
# src/core/datadir.c, which needs the build's paths (-DAF_DATADIR...) and no
# harness calls; and the command's output code, which the checkpoint
# harness uses.
LIBSRC="$(sed -n '/^src_libafcore_la_SOURCES/,/[^\\]$/p' "$top/Makefile.am" |
  grep -o 'src/[A-Za-z0-9_/]*\.c' | sed 's/\.c$//' | grep -v '^src/core/datadir$') cli/output"
[ -n "$(printf '%s' "$LIBSRC" | grep src/core/status)" ] ||
  { echo "fuzz: no library sources found in $top/Makefile.am" >&2; exit 1; }

echo "fuzz: building the library with $CC ($SAN)"
objs=""
for s in $LIBSRC; do
  o="$work/$(printf %s "$s" | tr / _).o"
  $CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$top/$s.c" -o "$o"
  objs="$objs $o"
done

status=0
for h in init weights ref checkpoint scheme api npy archive; do
  src="$here/fuzz_$h.c"
  bin="$work/fuzz_$h"
  extra=""
  # the checkpoint harness compiles cli/cli_run_mp.c itself
  [ "$h" = checkpoint ] && extra="-Wno-unused-function"
  $CC $CFLAGS $SAN -fsanitize=fuzzer $extra "$src" $objs $LIBS -o "$bin"
  mkdir -p "$work/corpus_$h"
  echo "fuzz: $h for $secs s"
  if (cd "$work" && "$bin" -max_total_time="$secs" -max_len=8192 \
       -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
       "$work/corpus_$h" "$here/corpus/$h" >"$work/$h.log" 2>&1); then
    grep -E '^stat::number_of_executed_units|^Done' "$work/$h.log" | tr '\n' ' '
    echo
  else
    echo "fuzz: $h FAILED; log and crashing input in $work:" >&2
    tail -n 30 "$work/$h.log" >&2
    keep=1
    status=1
  fi
done
exit $status
