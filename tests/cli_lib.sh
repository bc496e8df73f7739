# cli_lib.sh -- shared by the command-line tests (test_cli.sh,
# test_mp_cli.sh), sourced after they set AF, tmp and out.
#
# One line per case ("ok N - name" / "not ok N - name: why"); the caller
# ends with cli_summary, whose status is 0 only if nothing failed.

npass=0
nfail=0
ncase=0
ok() { ncase=$((ncase + 1)); npass=$((npass + 1)); echo "ok $ncase - $1"; }
notok() { ncase=$((ncase + 1)); nfail=$((nfail + 1)); echo "not ok $ncase - $1: $2"; }
skip() { ncase=$((ncase + 1)); npass=$((npass + 1)); echo "ok $ncase - $1 # SKIP $2"; }

# check NAME COMMAND...: the command must exit 0.
check() {
  name=$1
  shift
  if "$@" >"$tmp/stdout" 2>"$tmp/stderr"; then
    ok "$name"
  else
    notok "$name" "exit $? ($(head -n 1 "$tmp/stderr"))"
  fi
}

# bad NAME STATUS ARGS...: attnflow ARGS must exit STATUS with exactly
# one line "attnflow: ..." on stderr, nothing on stdout, and leave the
# output directory $out empty.  With BAD_IN_OUT=1 the command runs inside
# $out (relative output names land there).
bad() {
  name=$1
  want=$2
  shift 2
  if [ "${BAD_IN_OUT:-0}" = 1 ]; then
    (cd "$out" && "$AF" "$@") >"$tmp/stdout" 2>"$tmp/stderr"
  else
    "$AF" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  fi
  st=$?
  nerr=$(wc -l <"$tmp/stderr")
  left=$(ls -A "$out")
  if [ "$st" -ne "$want" ]; then
    notok "$name" "exit status $st, wanted $want ($(head -n 1 "$tmp/stderr"))"
  elif [ "$nerr" -ne 1 ]; then
    notok "$name" "$nerr lines on stderr, wanted 1: $(tr '\n' '|' <"$tmp/stderr")"
  elif ! grep -q '^attnflow: ' "$tmp/stderr"; then
    notok "$name" "stderr does not start with 'attnflow: '"
  elif [ -s "$tmp/stdout" ]; then
    notok "$name" "output on stdout"
  elif [ -n "$left" ]; then
    notok "$name" "files left behind: $left"
  else
    ok "$name (exit $st: $(cat "$tmp/stderr"))"
  fi
  rm -rf "$out" && mkdir "$out"
}

# Data rows (not '#' lines, not the header) of a CSV file.
rows() { grep -v '^#' "$1" | sed 1d; }

cli_summary() {
  echo "$npass passed, $nfail failed"
  [ "$nfail" -eq 0 ]
}
