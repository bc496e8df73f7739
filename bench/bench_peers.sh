#!/bin/sh
# bench_peers.sh -- attnflow against its peers on identical work.
#
#   bench/bench_peers.sh [BUILDDIR]      (BUILDDIR holds attnflow and
#                                         bench/rhs_dump; default .)
#   CASES="32:3 256:64" T=15 BETA=1 RTOL=1e-10 ATOL=1e-12 SEED=1
#   REPS_PROC=20 REPS_PY=5  (repetitions; the minimum is kept)
#   AF_H=H  every attnflow run (and bench_integrate) starts with the step
#           H (--h H) instead of the starting-step rule, its default
#
# For each case n:d (Post-LN, softmax, Q = K = V = I, beta, horizon T):
#   1. one start, Gaussian rows normalized (peer_scipy.py make-init), read
#      by every program from the same file (attnflow: --init file:PATH);
#   2. the NumPy right-hand side against attnflow's f(y0) (bench/rhs_dump):
#      max abs difference <= 1e-13, else the script stops;
#   3. a tight reference: attnflow rk8pd at rtol 1e-13, atol 1e-15,
#      cross-checked by SciPy DOP853 at the same tolerances;
#   4. timed (minimum over repetitions, one thread each):
#        attnflow  the whole 'attnflow run' process (fork, exec, loading,
#                  reading the start, integrating, writing the observables
#                  to /dev/null), and af_integrate alone in process
#                  (bench/bench_integrate).  The final state whose error is
#                  reported comes from one more, untimed run of the same
#                  command with --save-state (the integration is
#                  deterministic: the same bits); the whole process with
#                  --save-state (a file written atomically: temporary file,
#                  fsync, rename) is timed on its own row
#        DOP853, RK45  solve_ivp alone (import and file reading excluded)
#        euler     the public h = 0.1 Euler-plus-renormalize loop alone
#      with the error of each final state against the reference
#      (max over tokens and components of |theta - theta_ref|);
#   5. attnflow at the accuracy each peer achieved (rk8pd; for DOP853 also
#      vern9, Verner's 9(8) pair): the loosest rtol of
#      1e-1, 5e-2, 2e-2, 1e-2, ..., 2e-13 (atol = rtol / 100) whose error is no
#      larger than the peer's, timed the same way.
# Ratios are peer time / attnflow time within this one run: wall clock
# (minimum) and CPU time (user + system; the machine may be shared, and CPU
# time is what a quiet machine would show as wall time).
set -eu

B=${1:-.}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
PEER="$PY $HERE/peer_scipy.py"
AF="$B/attnflow"
DUMP="$B/bench/rhs_dump"
INTEG="$B/bench/bench_integrate"
CASES=${CASES:-"32:3 256:64"}
T=${T:-15}
BETA=${BETA:-1}
RTOL=${RTOL:-1e-10}
ATOL=${ATOL:-1e-12}
SEED=${SEED:-1}
REPS_PROC=${REPS_PROC:-20}
REPS_PY=${REPS_PY:-5}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

for f in "$AF" "$DUMP" "$INTEG"; do
  [ -x "$f" ] || { echo "bench_peers.sh: $f missing (make attnflow bench/rhs_dump bench/bench_integrate)" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/bench_peers.XXXXXX")
trap 'rm -rf "$W"' EXIT

# key=value from a line of output
get() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

METHOD=rk8pd # attnflow's integrator in afrun and aftime
afrun() { # n d rtol atol out [extra...]
  n=$1 d=$2 rt=$3 at=$4 out=$5
  shift 5
  "$AF" run --scheme post-ln --method "$METHOD" --n "$n" --d "$d" --beta "$BETA" \
    --init "file:$W/init.csv" --t-end "$T" --rtol "$rt" --atol "$at" \
    --out /dev/null --save-state "$out" ${AF_H:+--h "$AF_H"} "$@"
}

aftime() { # n d rtol atol [extra...] -> "time=... cpu=... err=..."
  afrun "$1" "$2" "$3" "$4" "$W/af.csv"
  e=$(get err "$($PEER err --state "$W/af.csv" --ref "$W/ref.csv")")
  n=$1 d=$2 rt=$3 at=$4
  shift 4
  tm=$($PEER time-cmd --reps "$REPS_PROC" -- "$AF" run --scheme post-ln --method "$METHOD" \
    --n "$n" --d "$d" --beta "$BETA" --init "file:$W/init.csv" --t-end "$T" \
    --rtol "$rt" --atol "$at" --out /dev/null ${AF_H:+--h "$AF_H"} "$@")
  echo "$tm err=$e"
}

# Loosest rtol of the grid 1e-1, 5e-2, 2e-2, 1e-2, ..., 2e-13 (atol = rtol / 100)
# whose error is <= target; prints "rtol time=... cpu=... err=...".
match() { # n d target
  for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
    try_rtol "$1" "$2" "$3" "1e-$k" "1e-$((k + 2))" && return 0
    try_rtol "$1" "$2" "$3" "5e-$((k + 1))" "5e-$((k + 3))" && return 0
    try_rtol "$1" "$2" "$3" "2e-$((k + 1))" "2e-$((k + 3))" && return 0
  done
  echo "none time=nan cpu=nan err=nan"
}

try_rtol() { # n d target rtol atol: prints and succeeds if err <= target
    rt=$4 at=$5
    afrun "$1" "$2" "$rt" "$at" "$W/m.csv"
    e=$(get err "$($PEER err --state "$W/m.csv" --ref "$W/ref.csv")")
    if le "$e" "$3"; then
      echo "$rt $(aftime "$1" "$2" "$rt" "$at")"
      return 0
    fi
    return 1
}

echo "# bench_peers.sh: $("$AF" --version 2>/dev/null | head -1 || echo "attnflow ?")"
echo "# date $(date -u +%Y-%m-%dT%H:%M:%SZ); $(getconf _NPROCESSORS_ONLN) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $($PY -c 'import numpy, scipy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)')"
echo "# Post-LN softmax Q=K=V=I, beta=$BETA, T=$T, rtol=$RTOL atol=$ATOL, seed $SEED; OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1"
echo "# first step: ${AF_H:-the starting-step rule (no --h)}; $("$AF" run --scheme post-ln --beta 1 --n 256 --d 64 --t-end 0.001 --out - 2>/dev/null | sed -n 's/^# blas: /blas: /p')"
echo "# times: minimum over $REPS_PROC process runs (attnflow) / $REPS_PY solves (Python)"
echo
echo "| n | d | program | setting | wall s | CPU s | error vs ref | peer/attnflow wall | peer/attnflow CPU |"
echo "|---:|---:|---|---|---:|---:|---:|---:|---:|"
for c in $CASES; do
  n=${c%%:*}
  d=${c##*:}
  $PEER make-init --n "$n" --d "$d" --seed "$SEED" --out "$W/init.csv" >/dev/null
  "$DUMP" "$n" "$d" "$BETA" "$W/init.csv" >"$W/dump.csv"
  chk=$($PEER check-rhs --init "$W/init.csv" --beta "$BETA" --dump "$W/dump.csv") || {
    echo "bench_peers.sh: n=$n d=$d: NumPy field differs from attnflow's: $chk" >&2
    exit 1
  }
  afrun "$n" "$d" 1e-13 1e-15 "$W/ref.csv"
  refx=$($PEER solve --init "$W/init.csv" --beta "$BETA" --T "$T" --ref "$W/ref.csv" \
    --method DOP853 --rtol 1e-13 --atol 1e-15 --reps 1)
  echo "# n=$n d=$d: f(y0) check: $chk; reference rk8pd 1e-13 vs DOP853 1e-13: $(get err "$refx")"

  af=$(aftime "$n" "$d" "$RTOL" "$ATOL")
  afw=$(get time "$af")
  afc=$(get cpu "$af")
  echo "| $n | $d | attnflow run (whole process) | rk8pd rtol $RTOL | $afw | $afc | $(get err "$af") | 1 | 1 |"
  afs=$(aftime "$n" "$d" "$RTOL" "$ATOL" --save-state "$W/af2.csv")
  echo "| $n | $d | the same with --save-state (fsync'd file) | rk8pd rtol $RTOL | $(get time "$afs") | $(get cpu "$afs") | (same) | - | - |"
  li=$("$INTEG" "$n" "$d" "$BETA" "$W/init.csv" "$T" "$RTOL" "$ATOL" "$REPS_PROC")
  lic=$(get cpu "$li")
  echo "| $n | $d | attnflow library: af_integrate in process | rk8pd rtol $RTOL, $(get nevals "$li") evals | - | $lic | (same) | - | - |"
  for m in DOP853 RK45; do
    o=$($PEER solve --init "$W/init.csv" --beta "$BETA" --T "$T" --ref "$W/ref.csv" \
      --method $m --rtol "$RTOL" --atol "$ATOL" --reps "$REPS_PY")
    echo "| $n | $d | SciPy $m (solve only) | rtol $RTOL, $(get nfev "$o") evals | $(get time "$o") | $(get cpu "$o") | $(get err "$o") | $(ratio "$(get time "$o")" "$afw") | $(ratio "$(get cpu "$o")" "$afc") (library: $(ratio "$(get cpu "$o")" "$lic")) |"
    mt=$(match "$n" "$d" "$(get err "$o")")
    set -- $mt
    echo "| $n | $d | attnflow at $m's accuracy | rk8pd rtol $1 | $(get time "$mt") | $(get cpu "$mt") | $(get err "$mt") | $(ratio "$(get time "$o")" "$(get time "$mt")") | $(ratio "$(get cpu "$o")" "$(get cpu "$mt")") |"
    if [ $m = DOP853 ]; then # the same with Verner's 9(8) pair
      METHOD=vern9
      mt=$(match "$n" "$d" "$(get err "$o")")
      METHOD=rk8pd
      set -- $mt
      echo "| $n | $d | attnflow at $m's accuracy | vern9 rtol $1 | $(get time "$mt") | $(get cpu "$mt") | $(get err "$mt") | $(ratio "$(get time "$o")" "$(get time "$mt")") | $(ratio "$(get cpu "$o")" "$(get cpu "$mt")") |"
    fi
  done
  o=$($PEER euler --init "$W/init.csv" --beta "$BETA" --T "$T" --ref "$W/ref.csv" \
    --h 0.1 --reps "$REPS_PY")
  echo "| $n | $d | NumPy Euler + renormalize (loop only) | h = 0.1, $(get steps "$o") steps | $(get time "$o") | $(get cpu "$o") | $(get err "$o") | $(ratio "$(get time "$o")" "$afw") | $(ratio "$(get cpu "$o")" "$afc") |"
  mt=$(match "$n" "$d" "$(get err "$o")")
  set -- $mt
  echo "| $n | $d | attnflow at Euler's accuracy | rk8pd rtol $1 | $(get time "$mt") | $(get cpu "$mt") | $(get err "$mt") | $(ratio "$(get time "$o")" "$(get time "$mt")") | $(ratio "$(get cpu "$o")" "$(get cpu "$mt")") |"
done
