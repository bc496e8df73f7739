#!/bin/sh
# test_pipelines.sh -- output reaches a pipe or a file as it is made:
# 'attnflow verify > log' killed before its end leaves the header and the
# rows of the claims already run (standard output is line-buffered and
# each row flushed); --progress on verify and figure writes whole lines to
# a standard error that is not a terminal; the rows of verify come out in
# the order the claims run, before the summary.
# Run by 'make check'; by hand: top_builddir=BUILD sh tests/test_pipelines.sh.
top_builddir=${top_builddir:-.}
AF="$top_builddir/attnflow"
[ -x "$AF" ] || { echo "test_pipelines.sh: $AF not found" >&2; exit 99; }
AF=$(cd "$(dirname "$AF")" && pwd)/attnflow
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-pipe.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
out="$tmp/o"
mkdir "$out" || exit 99
. "$(dirname "$0")/cli_lib.sh"

# A verify run stopped (SIGTERM) after 5 s: the quick level takes about
# 12 s of CPU, and its first claim 0.01 s; block buffering would leave the
# file empty.
timeout -s TERM 5 "$AF" verify --level quick > "$tmp/log" 2>/dev/null
st=$?
rows=$(grep -c -E '^T4\.1 +(post|pre)-ln' "$tmp/log")
if [ "$st" -eq 0 ]; then
  skip "verify killed mid-run" "the quick level finished within 5 s"
elif head -n 1 "$tmp/log" | grep -q '^attnflow .* verify --level quick' && [ "$rows" -ge 1 ]; then
  ok "verify killed after 5 s left the header and $rows first rows in the file"
else
  notok "verify > log" "after 5 s the file has $(wc -l < "$tmp/log") lines"
fi
# --progress off a terminal: one whole line per claim, rows on stdout.
"$AF" verify --claim 'T4.1a*' --progress > "$tmp/v.out" 2> "$tmp/v.err"
n=$(sed -n 's/^\([0-9]*\) claims: .*/\1/p' "$tmp/v.out")
p=$(grep -c '^verify: [0-9]* of [0-9]* claims done' "$tmp/v.err")
[ "${n:-0}" -ge 6 ] && [ "$p" = "$n" ] && ! grep -q "$(printf '\r')" "$tmp/v.err" \
  && ok "verify --progress: $p lines on stderr for $n rows" \
  || notok "verify --progress" "$n rows, $p progress lines"
tail -n 1 "$tmp/v.out" | grep -q '^[0-9]* claims: ' && ok "summary after the rows" \
  || notok "verify summary" "$(tail -n 1 "$tmp/v.out")"
"$AF" figure c2 --quick --progress --out "$tmp/c2.csv" 2> "$tmp/f.err"
grep -q '^figure c2: ' "$tmp/f.err" && ! grep -q "$(printf '\r')" "$tmp/f.err" \
  && ok "figure --progress: whole lines" || notok "figure --progress" "$(head -c 200 "$tmp/f.err")"
bad "verify --progress takes no value" 2 verify --progress=1
cli_summary
