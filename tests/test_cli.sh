#!/bin/sh
# test_cli.sh -- tests of the attnflow command line ("Command
# line", "Bad input").  Run by 'make check' with top_builddir and
# top_srcdir exported; by hand: top_builddir=BUILD sh tests/test_cli.sh.
#
# One line per case ("ok N - name" / "not ok N - name: why"), then
# "P passed, F failed"; exit status 0 only if nothing failed.  Every bad
# input must give its exit status (2 usage, 1 run-time), exactly one line
# on stderr, nothing on stdout, and no file in the output directory.

top_builddir=${top_builddir:-.}
AF="$top_builddir/attnflow"
if [ ! -x "$AF" ]; then
  echo "test_cli.sh: $AF not found (set top_builddir)" >&2
  exit 99
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-cli.XXXXXX") || exit 99
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
out="$tmp/o"   # output directory; must be empty after every bad input
in="$tmp/in"   # input files
mkdir "$out" "$in" || exit 99

. "$(dirname "$0")/cli_lib.sh"

BASE="run --scheme post-ln --n 4 --d 3 --beta 1"
HEADER="t,cos_mean,cos_min,cos_max,r_mean,r_min,r_max,var,energy,clusters,speed_mean,drift"

# ------------------------------------------------------------ help, version
check "attnflow --help" "$AF" --help
if grep -q '^Usage: attnflow' "$tmp/stdout" && grep -q '^  run ' "$tmp/stdout"; then
  ok "--help text lists the commands"
else
  notok "--help text lists the commands" "no Usage line or no run"
fi
check "attnflow run --help" "$AF" run --help
if grep -q -- '--save-state' "$tmp/stdout" && grep -q -- '--observables' "$tmp/stdout"; then
  ok "run --help lists the options"
else
  notok "run --help lists the options" "missing --save-state or --observables"
fi
check "attnflow --version" "$AF" --version
if grep -Eq '^attnflow [0-9][0-9.]* \(commit [^ )]+\)$' "$tmp/stdout"; then
  ok "--version format"
else
  notok "--version format" "got '$(cat "$tmp/stdout")'"
fi
check "attnflow schemes" "$AF" schemes
missing=
for s in post-ln pre-ln mix-ln peri-ln ngpt ln-scaling; do
  grep -q "^$s " "$tmp/stdout" || missing="$missing $s"
done
if [ -z "$missing" ]; then ok "schemes lists the six schemes"; else notok "schemes lists the six schemes" "missing:$missing"; fi
bad "no command" 2
bad "unknown command" 2 frobnicate
bad "unknown top-level option" 2 --frobnicate

# ------------------------------------------------------------ default run
f="$tmp/default.csv"
check "default run" "$AF" $BASE --out "$f"
if [ -s "$tmp/stdout" ] || [ -s "$tmp/stderr" ]; then
  notok "default run is quiet" "output on stdout/stderr"
else
  ok "default run is quiet"
fi
if head -n 1 "$f" | grep -q '^# attnflow: '; then
  ok "CSV starts with provenance"
else
  notok "CSV starts with provenance" "first line '$(head -n 1 "$f")'"
fi
missing=
for k in attnflow commit command scheme attention n d beta r0 alpha alpha_decay \
  tau init seed method h rtol atol kernel weights cluster_cos t_end times; do
  grep -q "^# $k: " "$f" || missing="$missing $k"
done
if [ -z "$missing" ]; then ok "provenance has every parameter"; else notok "provenance has every parameter" "missing:$missing"; fi
if grep -q '^# seed: 1$' "$f" && grep -q '^# method: rk8pd$' "$f" &&
  grep -q '^# init: uniform$' "$f" && grep -q '^# times: 0,10$' "$f"; then
  ok "provenance records the defaults"
else
  notok "provenance records the defaults" "seed/method/init/times"
fi
if [ "$(grep -v '^#' "$f" | head -n 1)" = "$HEADER" ]; then
  ok "header has the 12 observable names"
else
  notok "header has the 12 observable names" "got '$(grep -v '^#' "$f" | head -n 1)'"
fi
if [ "$(rows "$f" | wc -l)" -eq 2 ] &&
  [ "$(rows "$f" | awk -F, '{print NF}' | sort -u)" = 12 ] &&
  [ "$(rows "$f" | cut -d, -f1 | tr '\n' ' ')" = "0 10 " ]; then
  ok "2 rows of 12 fields at t = 0 and 10"
else
  notok "2 rows of 12 fields at t = 0 and 10" "$(rows "$f" | tr '\n' '|')"
fi
# 17 significant digits: cos_mean at t = 0 of a random start has them.
if rows "$f" | head -n 1 | cut -d, -f2 | grep -Eq '^-?0\.[0-9]{15,17}(e-?[0-9]+)?$|^-?[1-9]\.[0-9]{15,16}(e-?[0-9]+)?$'; then
  ok "values printed with 17 significant digits"
else
  notok "values printed with 17 significant digits" "$(rows "$f" | head -n 1 | cut -d, -f2)"
fi
# stdout is the default --out, with the same data.
check "run to stdout" "$AF" $BASE
if [ "$(rows "$tmp/stdout")" = "$(rows "$f")" ]; then ok "stdout equals --out file"; else notok "stdout equals --out file" "differ"; fi
# --opt=value form.
check "--opt=value form" "$AF" run --scheme=post-ln --n=4 --d=3 --beta=1 --out="$tmp/eq.csv"
if [ "$(rows "$tmp/eq.csv")" = "$(rows "$f")" ]; then ok "--opt=value equals --opt value"; else notok "--opt=value equals --opt value" "differ"; fi

# ------------------------------------------------------------ times
check "--times" "$AF" $BASE --times 0,0.5,1,2 --out "$tmp/times.csv"
if [ "$(rows "$tmp/times.csv" | cut -d, -f1 | tr '\n' ' ')" = "0 0.5 1 2 " ]; then
  ok "--times gives one row per time"
else
  notok "--times gives one row per time" "$(rows "$tmp/times.csv" | cut -d, -f1 | tr '\n' ' ')"
fi
# A first time > 0 still starts at t = 0 (0 is prepended, not printed):
# the rows equal those of --times 0,1,2 after the first, bit for bit.
check "--times starting after 0" "$AF" $BASE --times 1,2 --out "$tmp/times2.csv"
check "--times 0,1,2" "$AF" $BASE --times 0,1,2 --out "$tmp/times3.csv"
if [ "$(rows "$tmp/times2.csv" | cut -d, -f1 | tr '\n' ' ')" = "1 2 " ] &&
  [ "$(rows "$tmp/times2.csv")" = "$(rows "$tmp/times3.csv" | sed 1d)" ]; then
  ok "--times 1,2 starts at t = 0 and prints only 1, 2"
else
  notok "--times 1,2 starts at t = 0 and prints only 1, 2" "$(rows "$tmp/times2.csv" | tr '\n' '|')"
fi
check "--t-end" "$AF" $BASE --t-end 2 --out "$tmp/tend.csv"
check "--times 0,2" "$AF" $BASE --times 0,2 --out "$tmp/times4.csv"
if [ "$(rows "$tmp/tend.csv")" = "$(rows "$tmp/times4.csv")" ]; then
  ok "--t-end 2 equals --times 0,2"
else
  notok "--t-end 2 equals --times 0,2" "differ"
fi
bad "--t-end disagreeing with --times" 2 $BASE --t-end 3 --times 0,2 --out "$out/x.csv"

# ------------------------------------------------------------ jsonl
check "--format jsonl" "$AF" $BASE --format jsonl --out "$tmp/a.jsonl"
if [ "$(wc -l <"$tmp/a.jsonl")" -eq 3 ] &&
  head -n 1 "$tmp/a.jsonl" | grep -q '^{"provenance": {"attnflow": ' &&
  [ "$(sed 1d "$tmp/a.jsonl" | grep -c '^{"t": ')" -eq 2 ]; then
  ok "jsonl: provenance line and 2 rows"
else
  notok "jsonl: provenance line and 2 rows" "$(head -c 200 "$tmp/a.jsonl")"
fi
if command -v python3 >/dev/null 2>&1; then
  if python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
p = lines[0]["provenance"]
assert p["scheme"] == "post-ln" and p["n"] == 4 and p["beta"] == 1
assert list(lines[1].keys()) == sys.argv[2].split(",")
assert [r["t"] for r in lines[1:]] == [0, 10]
' "$tmp/a.jsonl" "$HEADER" 2>"$tmp/py.err"; then
    ok "jsonl parses as JSON with the observable fields"
  else
    notok "jsonl parses as JSON with the observable fields" "$(tail -n 1 "$tmp/py.err")"
  fi
else
  skip "jsonl parses as JSON" "no python3"
fi

# ------------------------------------------------------------ every scheme and method
for s in post-ln pre-ln mix-ln peri-ln ngpt ln-scaling sa usa causal; do
  check "scheme $s" "$AF" run --scheme "$s" --n 5 --d 3 --beta 1 --init gaussian --t-end 0.5 --out "$tmp/s.csv"
done
for m in rk8pd rkf45 rk4 rkck msadams layers; do
  check "method $m" "$AF" run --scheme pre-ln --n 5 --d 3 --beta 1 --method "$m" --h 0.05 --t-end 0.5 --out "$tmp/m.csv"
done
for i in uniform gaussian orthonormal cap:0.1 hemisphere; do
  check "init $i" "$AF" run --scheme post-ln --n 3 --d 4 --beta 1 --init "$i" --t-end 0.5 --out "$tmp/i.csv"
done
check "kaiming weights, direct kernel, extra options" "$AF" run --scheme ngpt --n 4 --d 3 --beta 1 \
  --weights kaiming --h 0.25 --t-end 1 --kernel direct --alpha 0.5 --seed 7 \
  --cluster-cos 0.999 --observables t,gap_mean,gap_max,clusters --max-steps 100000 --out "$tmp/k.csv"
if [ "$(grep -v '^#' "$tmp/k.csv" | head -n 1)" = "t,gap_mean,gap_max,clusters" ]; then
  ok "--observables selects the columns"
else
  notok "--observables selects the columns" "$(grep -v '^#' "$tmp/k.csv" | head -n 1)"
fi
"$AF" run --scheme ngpt --n 3 --d 3 --beta 1 --alpha-decay 2 --t-end 1 --out "$tmp/w.csv" 2>"$tmp/stderr"
if [ $? -eq 0 ] && grep -q '^attnflow: warning: .*integrable' "$tmp/stderr"; then
  ok "integrable alpha schedule warns and runs"
else
  notok "integrable alpha schedule warns and runs" "$(cat "$tmp/stderr")"
fi

# A weights file holding Q = K = V = I solves the same ODE as the default
# identity weights: both runs (rtol 1e-10, atol 1e-12, t <= 1, a
# non-stiff case) are within a few rtol of the exact solution, so they
# agree to 1e-8 on every observable (observed: ~1e-15).
printf '# Q\n1,0,0\n0,1,0\n0,0,1\n# K\n1,0,0\n0,1,0\n0,0,1\n# V\n1,0,0\n0,1,0\n0,0,1\n' >"$in/eye.txt"
check "--weights PATH" "$AF" run --scheme pre-ln --n 4 --d 3 --beta 1 --t-end 1 --weights "$in/eye.txt" --out "$tmp/w1.csv"
check "--weights identity" "$AF" run --scheme pre-ln --n 4 --d 3 --beta 1 --t-end 1 --weights identity --out "$tmp/w2.csv"
rows "$tmp/w1.csv" >"$tmp/w1.d"
rows "$tmp/w2.csv" >"$tmp/w2.d"
if awk -F, -v tol=1e-8 '
  NR == FNR { for (i = 1; i <= NF; i++) a[FNR, i] = $i; next }
  { for (i = 1; i <= NF; i++) { d = $i - a[FNR, i]; if (d < 0) d = -d
      if (d > tol) { bad = 1; print FNR, i, $i, a[FNR, i] } } n++ }
  END { exit (bad || n != 2) }' "$tmp/w1.d" "$tmp/w2.d" >"$tmp/awk.out"; then
  ok "identity weights file matches the default weights to 1e-8"
else
  notok "identity weights file matches the default weights" "$(tr '\n' '|' <"$tmp/awk.out")"
fi

# ------------------------------------------------------------ save-state round trip
# Pre-LN moves the radii, so the state file carries non-trivial r_j.
RT0="run --scheme pre-ln --n 4 --d 3 --beta 1 --seed 3"
RT="$RT0 --init gaussian"
check "--save-state" "$AF" $RT --t-end 1 --save-state "$tmp/state.csv" --out "$tmp/rt1.csv"
if [ "$(grep -v '^#' "$tmp/state.csv" | wc -l)" -eq 4 ] &&
  [ "$(grep -v '^#' "$tmp/state.csv" | awk -F, '{print NF}' | sort -u)" = 3 ] &&
  grep -q '^# state_t: 1$' "$tmp/state.csv"; then
  ok "state file: provenance and 4 rows of 3 numbers"
else
  notok "state file: provenance and 4 rows of 3 numbers" "$(head -c 300 "$tmp/state.csv")"
fi
check "--init file: reads the saved state" "$AF" $RT0 --init "file:$tmp/state.csv" --times 0 --out "$tmp/rt2.csv"
# Observables at t = 0 of the restart equal those at t = 1 of the first
# run up to the rounding of x = r theta/|theta| and back (a few ulps; the
# cosines are O(1), so 1e-14 absolute leaves a margin of ~10x).
grep -v '^#' "$tmp/rt1.csv" >"$tmp/rt1.d"
grep -v '^#' "$tmp/rt2.csv" >"$tmp/rt2.d"
if awk -F, -v tol=1e-14 '
  FNR == 1 { next }
  NR == FNR { if ($1 == "1") for (i = 2; i <= NF; i++) a[i] = $i; next }
  $1 == "0" {
    n++
    for (i = 2; i <= 9; i++) {
      d = $i - a[i]; if (d < 0) d = -d
      s = a[i] < 0 ? -a[i] : a[i]
      if (d > tol * (1 + s)) { bad = 1; print "column " i ": " $i " vs " a[i] }
    }
  }
  END { exit (bad || n != 1) }' "$tmp/rt1.d" "$tmp/rt2.d" >"$tmp/awk.out"; then
  ok "restart from the saved state continues the run (cos, r, var, energy to 1e-14)"
else
  notok "restart from the saved state continues the run" "$(tr '\n' '|' <"$tmp/awk.out")"
fi

# ------------------------------------------------------------ bad input
O="$out/x.csv"
bad "unknown scheme" 2 run --scheme foo-ln --n 4 --d 3 --beta 1 --out "$O"
bad "unknown method" 2 $BASE --method euler --out "$O"
bad "unknown option" 2 $BASE --frobnicate 1 --out "$O"
bad "abbreviated option" 2 run --sch post-ln --n 4 --d 3 --beta 1 --out "$O"
bad "missing value" 2 $BASE --out "$O" --seed
bad "missing --beta" 2 run --scheme post-ln --n 4 --d 3 --out "$O"
bad "stray argument" 2 $BASE extra --out "$O"
bad "n = 0" 2 run --scheme post-ln --n 0 --d 3 --beta 1 --out "$O"
bad "d = 0" 2 run --scheme post-ln --n 4 --d 0 --beta 1 --out "$O"
bad "n = -3" 2 run --scheme post-ln --n -3 --d 3 --beta 1 --out "$O"
bad "n = 4x" 2 run --scheme post-ln --n 4x --d 3 --beta 1 --out "$O"
bad "beta = nan" 2 run --scheme post-ln --n 4 --d 3 --beta nan --out "$O"
bad "beta = inf" 2 run --scheme post-ln --n 4 --d 3 --beta inf --out "$O"
bad "beta = -1" 2 run --scheme post-ln --n 4 --d 3 --beta -1 --out "$O"
bad "beta = 1e999" 2 run --scheme post-ln --n 4 --d 3 --beta 1e999 --out "$O"
bad "beta empty" 2 run --scheme post-ln --n 4 --d 3 --beta= --out "$O"
bad "orthonormal with n > d" 2 run --scheme post-ln --n 4 --d 3 --beta 1 --init orthonormal --out "$O"
bad "unknown init" 2 $BASE --init sphere --out "$O"
bad "cap:DELTA out of range" 2 $BASE --init cap:3 --out "$O"
bad "negative times" 2 $BASE --times -1,2 --out "$O"
bad "decreasing times" 2 $BASE --times 0,2,1 --out "$O"
bad "negative t-end" 2 $BASE --t-end -1 --out "$O"
bad "rtol = 0" 2 $BASE --rtol 0 --out "$O"
bad "h < 0" 2 $BASE --h -0.1 --out "$O"
bad "attention contradicts scheme" 2 run --scheme usa --attention softmax --n 4 --d 3 --beta 1 --out "$O"
bad "unknown format" 2 $BASE --format xml --out "$O"
bad "unknown observable" 2 $BASE --observables t,foo --out "$O"
bad "layers at a time off the grid" 2 $BASE --method layers --h 0.1 --times 0,0.05 --out "$O"

# Malformed init files (run-time failures, exit 1, with path:line).
printf '1,0,0\n0,1,0\n0,0\n1,1,1\n' >"$in/cols.csv"
printf '1,0,0\n0,nan,0\n0,0,1\n1,1,1\n' >"$in/nan.csv"
printf '1,0,0\n0,1,0\n0,0,0\n1,1,1\n' >"$in/zero.csv"
printf '# three rows only\n1,0,0\n0,1,0\n0,0,1\n' >"$in/short.csv"
bad "init file with wrong column count" 1 $BASE --init "file:$in/cols.csv" --out "$O"
bad "init file with NaN" 1 $BASE --init "file:$in/nan.csv" --out "$O"
bad "init file with a zero row" 1 $BASE --init "file:$in/zero.csv" --out "$O"
bad "init file with too few rows" 1 $BASE --init "file:$in/short.csv" --out "$O"
bad "missing init file" 1 $BASE --init "file:$in/none.csv" --out "$O"
bad "missing weights file" 1 $BASE --weights "$in/none.txt" --out "$O"
printf '1,0,0\n0,1\n' >"$in/badw.txt"
bad "malformed weights file" 1 $BASE --weights "$in/badw.txt" --out "$O"
"$AF" $BASE --init "file:$in/cols.csv" --out "$O" 2>"$tmp/stderr"
if grep -q 'cols.csv:3: ' "$tmp/stderr"; then ok "init file error names path:line"; else notok "init file error names path:line" "$(cat "$tmp/stderr")"; fi

# Zero attention (theorems.md S0): tokens (e1, -e1, -e1) at beta = ln 2 / 2 give
# A_1 = e1 (1 - 2 exp(-2 beta)) / Z = 0.
printf '1,0\n-1,0\n-1,0\n' >"$in/zeroattn.csv"
ZA="--n 3 --d 2 --beta 0.34657359027997264 --init file:$in/zeroattn.csv"
bad "zero attention under peri-ln" 1 run --scheme peri-ln $ZA --out "$O"
bad "zero attention under ngpt" 1 run --scheme ngpt $ZA --out "$O"
bad "zero attention, jsonl and --save-state" 1 run --scheme peri-ln $ZA --format jsonl --save-state "$out/s.csv" --out "$O"
bad "zero attention to stdout prints nothing" 1 run --scheme ngpt $ZA
check "same start runs under post-ln" "$AF" run --scheme post-ln $ZA --out "$tmp/za.csv"

# Unwritable output paths (run-time failures).
bad "output in a missing directory" 1 $BASE --out /nonexistent-dir/x.csv
: >"$tmp/plain"
bad "output under a regular file" 1 $BASE --out "$tmp/plain/x.csv"
bad "unwritable --save-state leaves no --out" 1 $BASE --save-state /nonexistent-dir/s.csv --out "$O"
bad "--out and --save-state the same file" 2 $BASE --save-state "$O" --out "$O"
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
  bad "output in a read-only directory" 1 $BASE --out "$tmp/ro/x.csv"
elif command -v setpriv >/dev/null 2>&1 &&
  setpriv --reuid=65534 --regid=65534 --clear-groups "$AF" --version >/dev/null 2>&1; then
  # root writes anywhere: drop to nobody to test the read-only directory.
  chmod 755 "$tmp"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$AF" $BASE --out "$tmp/ro/x.csv" \
    >"$tmp/stdout" 2>"$tmp/stderr"
  st=$?
  # A coverage build run as nobody cannot write its .gcda files; gcov's
  # "profiling:" complaints are not the command's output.
  if [ $st -eq 1 ] && [ "$(grep -vc '^profiling:' "$tmp/stderr")" -eq 1 ] && [ -z "$(ls -A "$tmp/ro")" ]; then
    ok "output in a read-only directory (as nobody; exit 1: $(cat "$tmp/stderr"))"
  else
    notok "output in a read-only directory" "exit $st, $(tr '\n' '|' <"$tmp/stderr") files: $(ls -A "$tmp/ro")"
  fi
  chmod 700 "$tmp"
else
  skip "output in a read-only directory" "running as root without setpriv"
fi

# ------------------------------------------------------------ special targets
# Only regular files are replaced through a temporary file and rename(2):
# /dev/null must stay a device, a named pipe a pipe (and get the rows),
# and a symbolic link a link to the new file.
"$AF" $BASE --out /dev/null --save-state "$tmp/dn-state.csv" 2>"$tmp/stderr"
st=$?
if [ $st -eq 0 ] && [ -c /dev/null ]; then
  ok "--out /dev/null writes to the device"
else
  notok "--out /dev/null" "exit $st; /dev/null is now: $(ls -l /dev/null)"
fi
if mkfifo "$tmp/fifo" 2>/dev/null; then
  cat "$tmp/fifo" >"$tmp/fifo.out" &
  reader=$!
  "$AF" $BASE --out "$tmp/fifo" 2>"$tmp/stderr"
  st=$?
  wait $reader
  if [ $st -eq 0 ] && [ -p "$tmp/fifo" ] && [ "$(rows "$tmp/fifo.out" | wc -l)" -gt 0 ]; then
    ok "--out to a named pipe ($(rows "$tmp/fifo.out" | wc -l) rows through it)"
  else
    notok "--out to a named pipe" "exit $st, pipe kept: $([ -p "$tmp/fifo" ] && echo yes || echo no)"
  fi
else
  skip "--out to a named pipe" "mkfifo failed"
fi
: >"$tmp/target.csv"
ln -s target.csv "$tmp/link.csv"
"$AF" $BASE --out "$tmp/link.csv" 2>"$tmp/stderr"
st=$?
if [ $st -eq 0 ] && [ -L "$tmp/link.csv" ] && [ "$(rows "$tmp/target.csv" | wc -l)" -gt 0 ]; then
  ok "--out through a symbolic link replaces the file it names"
else
  notok "--out through a symbolic link" "exit $st; $(ls -l "$tmp/link.csv" "$tmp/target.csv" | tr '\n' '|')"
fi

# ------------------------------------------------------------ BLAS, verify
# The level-3 products: AF_BLAS="" and an unloadable AF_BLAS both fall back
# to GSL's CBLAS (the same bits), the provenance names the library, and the
# default library agrees with GSL's to the rounding of the products
# (relative 1e-12 on O(1) coordinates after a few steps: n d eps ~ 4e-12 is
# the bound for one product, and the steps add a few of them).
BIG="run --scheme post-ln --n 256 --d 64 --beta 1 --t-end 0.05 --seed 3"
AF_BLAS= "$AF" $BIG --out "$tmp/bl1.csv" --save-state "$tmp/bs1.csv" 2>"$tmp/stderr" &&
  AF_BLAS=/nonexistent/libnoblas.so "$AF" $BIG --out "$tmp/bl2.csv" --save-state "$tmp/bs2.csv" 2>>"$tmp/stderr" &&
  "$AF" $BIG --out "$tmp/bl3.csv" --save-state "$tmp/bs3.csv" 2>>"$tmp/stderr"
st=$?
if [ $st -ne 0 ]; then
  notok "AF_BLAS choices" "exit $st ($(head -n 1 "$tmp/stderr"))"
elif [ "$(grep -v '^#' "$tmp/bs1.csv")" != "$(grep -v '^#' "$tmp/bs2.csv")" ]; then
  notok "AF_BLAS unloadable" "differs from AF_BLAS=\"\" (both should be GSL's CBLAS)"
elif ! grep -q '^# blas: GSL CBLAS' "$tmp/bl1.csv" || ! grep -q '^# blas: GSL CBLAS' "$tmp/bl2.csv"; then
  notok "AF_BLAS provenance" "$(grep '^# blas' "$tmp/bl1.csv" "$tmp/bl2.csv" | tr '\n' '|')"
else
  dev=$(paste -d, "$tmp/bs1.csv" "$tmp/bs3.csv" | grep -v '^#' | awk -F, '
    { h = NF / 2; for (i = 1; i <= h; i++) { e = $i - $(i + h); if (e < 0) e = -e; if (e > m) m = e } }
    END { printf "%.3g", m + 0 }')
  if awk -v m="$dev" 'BEGIN { exit !(m <= 1e-12) }'; then
    ok "AF_BLAS: GSL CBLAS bitwise for \"\" and unloadable; default ($(sed -n 's/^# blas: //p' "$tmp/bl3.csv")) within $dev"
  else
    notok "AF_BLAS default vs GSL CBLAS" "max difference $dev > 1e-12"
  fi
fi
AF_BLAS=/nonexistent "$AF" $BASE --out "$tmp/small.csv" 2>"$tmp/stderr"
if grep -q '^# blas: none' "$tmp/small.csv"; then
  ok "a small run loads no BLAS ($(sed -n 's/^# blas: //p' "$tmp/small.csv"))"
else
  notok "a small run loads no BLAS" "$(grep '^# blas' "$tmp/small.csv")"
fi

# 'attnflow verify' runs attnflow-verify from the same directory; a copy of
# attnflow alone (in an empty directory) says which program it looked for.
cp "$AF" "$tmp/attnflow-alone"
"$tmp/attnflow-alone" verify --help >"$tmp/stdout" 2>"$tmp/stderr"
st=$?
if [ -x "$top_builddir/attnflow-verify" ] && "$AF" verify --help 2>/dev/null | grep -q '^Usage: attnflow verify'; then
  ok "attnflow verify runs attnflow-verify"
else
  notok "attnflow verify runs attnflow-verify" "no usage from '$AF verify --help'"
fi
if [ $st -ne 0 ] && grep -q 'attnflow-verify' "$tmp/stderr"; then
  ok "attnflow without attnflow-verify (exit $st: $(head -n 1 "$tmp/stderr"))"
elif [ $st -ne 0 ]; then
  notok "attnflow without attnflow-verify" "exit $st without naming the program: $(head -n 1 "$tmp/stderr")"
else
  skip "attnflow without attnflow-verify" "an installed attnflow-verify was found"
fi

cli_summary
