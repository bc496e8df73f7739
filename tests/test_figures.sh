#!/bin/sh
# test_figures.sh -- every figure of docs/figures.md can still be computed
# (a tiny version of each figure's pipeline, so none can rot), and the
# captions of docs/figures.md agree with the committed data.  Runs 'attnflow figure NAME --quick' into a temporary
# directory and checks the CSV: provenance lines (version, commit,
# command, figure, seed, a method), a header line, at least two data rows
# with the header's number of fields, and no failure; the caption written
# with the data is the caption written from the CSV (--from), so a caption
# is a function of the data alone.  Then the captions of docs/figures.md:
# the block between "<!-- caption NAME -->" and "<!-- /caption NAME -->"
# must be exactly what 'attnflow figure NAME --from' writes from the
# committed docs/figures/NAME.csv, so no number in it can go stale.
# gnuplot is not run (make figures does that).  Run by 'make check' with
# top_builddir and top_srcdir exported; by hand: top_builddir=BUILD
# top_srcdir=SRC sh tests/test_figures.sh.
#
# One line per case ("ok N - name" / "not ok N - name: why"), then
# "P passed, F failed"; exit status 0 only if nothing failed.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
AF="$top_builddir/attnflow"
if [ ! -x "$AF" ]; then
  echo "test_figures.sh: $AF not found (set top_builddir)" >&2
  exit 99
fi
OPENBLAS_NUM_THREADS=1
export OPENBLAS_NUM_THREADS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-fig.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

npass=0
nfail=0
ncase=0
ok() { ncase=$((ncase + 1)); npass=$((npass + 1)); echo "ok $ncase - $1"; }
notok() { ncase=$((ncase + 1)); nfail=$((nfail + 1)); echo "not ok $ncase - $1: $2"; }

# The list the command knows must be the list tested here.
figs=$("$AF" figure --list | cut -f 1 | tr '\n' ' ')
want="f1 c1 c1traj c2 c3 c4 f2 c5 conv tradeoff lc tmerge "
if [ "$figs" = "$want" ]; then
  ok "figure --list names $want"
else
  notok "figure --list" "got '$figs'"
fi

for f in $figs; do
  csv="$tmp/$f.csv"
  if ! "$AF" figure "$f" --quick --out "$csv" --caption "$tmp/$f.cap" \
    >"$tmp/stdout" 2>"$tmp/stderr"; then
    notok "figure $f --quick" "exit $? ($(head -n 1 "$tmp/stderr"))"
    continue
  fi
  if [ -s "$tmp/stdout" ] || [ -s "$tmp/stderr" ]; then
    notok "figure $f --quick" "unexpected output on stdout/stderr"
    continue
  fi
  why=""
  for key in attnflow commit command figure seed; do
    grep -q "^# $key: " "$csv" || why="$why no '# $key:' line;"
  done
  grep -q '^# [a-z_]*method: ' "$csv" || why="$why no method line;"
  header=$(grep -v '^#' "$csv" | head -n 1)
  case $header in
    [a-z]*,*) ;;
    *) why="$why bad header '$header';" ;;
  esac
  nf=$(echo "$header" | awk -F, '{print NF}')
  rows=$(grep -v '^#' "$csv" | tail -n +2 | awk -F, -v nf="$nf" \
    'NF == nf && $1 ~ /^-?[0-9]/ {k++} END {print k + 0}')
  all=$(grep -v '^#' "$csv" | tail -n +2 | wc -l)
  [ "$rows" -ge 2 ] || why="$why only $rows data rows;"
  [ "$rows" -eq "$all" ] || why="$why $((all - rows)) malformed rows;"
  if ! "$AF" figure "$f" --from "$csv" --caption "$tmp/$f.cap2" 2>"$tmp/stderr"; then
    why="$why --from failed ($(head -n 1 "$tmp/stderr"));"
  elif [ ! -s "$tmp/$f.cap" ] || ! cmp -s "$tmp/$f.cap" "$tmp/$f.cap2"; then
    why="$why caption from the CSV differs from the caption of the run;"
  fi
  if [ -z "$why" ]; then
    ok "figure $f --quick: provenance, header, $rows rows of $nf fields, caption"
  else
    notok "figure $f --quick" "$why"
  fi
done

# The phase-diagram sweeps run in parallel (OpenMP, one run per thread)
# and must not depend on the number of threads: the data rows of c3
# --quick with 1 and with 3 threads are identical (provenance lines carry
# wall times, so they are left out of the comparison).
for th in 1 3; do
  OMP_NUM_THREADS=$th "$AF" figure c3 --quick --out "$tmp/c3_$th.csv" 2>"$tmp/stderr" ||
    echo "exit $? with $th threads: $(head -n 1 "$tmp/stderr")" >>"$tmp/threads.err"
  grep -v '^#' "$tmp/c3_$th.csv" >"$tmp/c3_$th.rows" 2>/dev/null
done
if [ ! -s "$tmp/threads.err" ] && [ -s "$tmp/c3_1.rows" ] &&
  cmp -s "$tmp/c3_1.rows" "$tmp/c3_3.rows"; then
  ok "figure c3 --quick: identical data with 1 and 3 OpenMP threads"
else
  notok "figure c3 --quick threads" "data differ or failed ($(cat "$tmp/threads.err" 2>/dev/null))"
fi

# The committed captions agree with the committed data.
md="$top_srcdir/docs/figures.md"
for f in $figs; do
  data="$top_srcdir/docs/figures/$f.csv"
  awk -v b="<!-- caption $f -->" -v e="<!-- /caption $f -->" \
    '$0 == e { on = 0 } on { print } $0 == b { on = 1; seen++ }
     END { exit seen == 1 ? 0 : 1 }' "$md" >"$tmp/$f.md" ||
    { notok "caption $f" "no single caption block in docs/figures.md"; continue; }
  if ! "$AF" figure "$f" --from "$data" --caption "$tmp/$f.want" 2>"$tmp/stderr"; then
    notok "caption $f" "$(head -n 1 "$tmp/stderr")"
  elif cmp -s "$tmp/$f.md" "$tmp/$f.want"; then
    ok "caption $f in docs/figures.md agrees with docs/figures/$f.csv"
  else
    notok "caption $f" "docs/figures.md differs from the data (make figures AF_FIGURES=$f)"
  fi
done

# Errors: one line on stderr, the given exit status, no file written.
#   want_error STATUS WHAT ARGS...
want_error() {
  want=$1 what=$2
  shift 2
  "$AF" figure "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  st=$?
  if [ "$st" -eq "$want" ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] &&
    [ ! -e "$tmp/x.csv" ] && [ ! -e "$tmp/x.cap" ]; then
    ok "figure $*: $what"
  else
    notok "figure $*" "exit $st, stderr $(wc -l <"$tmp/stderr") lines"
  fi
}
# A caption from the data of another figure (a column is missing) or from
# a file that does not exist: run-time errors (exit 1).
want_error 1 "run-time error" c2 --from "$tmp/c5.csv" --caption "$tmp/x.cap"
want_error 1 "run-time error" c2 --from "$tmp/nosuch.csv" --caption "$tmp/x.cap"
# Usage errors (exit 2): unknown figure, missing name, no starts.
want_error 2 "usage error" nosuch --out "$tmp/x.csv"
want_error 2 "usage error" --out "$tmp/x.csv"
want_error 2 "usage error" c3 --systems 0 --out "$tmp/x.csv"
# The tradeoff figure: an empty grid, an unknown metric, the early depth
# beyond the horizon, its options given to another figure.
want_error 2 "usage error (empty grid)" tradeoff --n "" --out "$tmp/x.csv"
want_error 2 "usage error (unknown metric)" tradeoff --metric speed --out "$tmp/x.csv"
want_error 2 "usage error (depth beyond horizon)" tradeoff --depths 12,10 --out "$tmp/x.csv"
want_error 2 "usage error (option of another figure)" f2 --metric angle --out "$tmp/x.csv"

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
