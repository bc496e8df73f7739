#!/bin/sh
# bench_mp.sh -- the MPFR benchmark of issue 3 in one run: libattnflow's
# mp-gauss and mp-gbs against mpmath's odefun and Boost.Odeint's
# bulirsch_stoer, on n = 32, d = 3, beta = 1, T = 10, Post-LN and Peri-LN
# (Q = K = V = I, softmax), 256 bits, from bench/data/mp_n32d3.txt.
# See bench/README.md for what is measured; 'make bench-mp' runs it.
#
# Environment (all optional):
#   BUILDDIR   build directory holding bench/bench_mp   (default: .)
#   SRCDIR     source directory                          (default: script/..)
#   OUT        directory for states and logs             (default: BUILDDIR/bench-mp-out)
#   ODEINT     path of bench_mp_odeint; empty: peer skipped
#              (default: BUILDDIR/bench/bench_mp_odeint if present)
#   PYTHON     Python with mpmath                         (default: /usr/bin/python3)
#   CAP        CPU seconds after which the Boost.Odeint run stops at its
#              next output time (default 900; 0: run to T)
#   ODEINT_TOL_POST, ODEINT_TOL_PERI   eps_abs of bulirsch_stoer, tuned so
#              that its error at the time reached is <= 1e-60 (defaults below)
#   MPMATH     bound (default: lower bound from odefun's algorithm and the
#              measured cost of one evaluation) | full (run odefun with CAP)
#   MPMATH_TOL tol of odefun for MPMATH=full (default: mpmath's, ~eps)
#   SCHEMES    default "post-ln peri-ln"
#   REF_GAUSS  1 (default): the reference is checked against a second one by
#              mp-gauss at 512 bits, tol 1e-80 (about 15 min of CPU per
#              scheme); 0: skipped, and the only cross-check of the mp-gbs
#              reference is the err column of the 256-bit mp-gauss row
#
# The reference (512 bits, tol 1e-80, both of our methods, agreeing) is
# computed once into OUT and reused; delete OUT/ref_* to recompute it.
# Timings are process CPU seconds of the integration alone (wall seconds
# are logged too); every program runs single-threaded, back to back.
set -eu

BUILDDIR=${BUILDDIR:-.}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$BUILDDIR/bench-mp-out}
PYTHON=${PYTHON:-/usr/bin/python3}
CAP=${CAP:-900}
ODEINT_TOL_POST=${ODEINT_TOL_POST:-1e-58}
ODEINT_TOL_PERI=${ODEINT_TOL_PERI:-1e-58}
MPMATH=${MPMATH:-bound}
MPMATH_TOL=${MPMATH_TOL:-}
SCHEMES=${SCHEMES:-"post-ln peri-ln"}
REF_GAUSS=${REF_GAUSS:-1}
if [ -z "${ODEINT+set}" ]; then
  ODEINT=$BUILDDIR/bench/bench_mp_odeint
  [ -x "$ODEINT" ] || ODEINT=
fi
case "$ODEINT" in ""|/*) ;; *) ODEINT=$BUILDDIR/$ODEINT ;; esac
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

B=$BUILDDIR/bench/bench_mp
PEER_PY=$SRCDIR/bench/bench_mp_mpmath.py
INIT=$SRCDIR/bench/data/mp_n32d3.txt
TIMES=0.125,0.25,0.5,1,2,3,4,5,6,7,8,9,10
T=10
mkdir -p "$OUT"
LOG=$OUT/results.txt
: > "$LOG"

# value KEY LINE: the value of KEY=... in a RESULT line
value() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
say() { printf '%s\n' "$*" | tee -a "$LOG"; }

say "# bench_mp.sh $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "# commit $(cd "$SRCDIR" && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)," \
    "cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
say "# case: n=32 d=3 beta=1 T=$T Q=K=V=I softmax, init $INIT"

# ---------------------------------------------------------------- reference
REF_METHODS=mp-gbs
[ "$REF_GAUSS" = 0 ] || REF_METHODS="mp-gbs mp-gauss"
for s in $SCHEMES; do
  for m in $REF_METHODS; do
    f=$OUT/ref_${s}_${m}.txt
    if [ ! -s "$f" ]; then
      echo "computing reference $s $m (512 bits, tol 1e-80) ..." >&2
      "$B" run --init "$INIT" --scheme "$s" --method "$m" --prec 512 --tol 1e-80 \
        --times "$TIMES" --out "$f.tmp" --label "ref-$m" > "$OUT/ref_${s}_${m}.log"
      mv "$f.tmp" "$f"
    fi
  done
  if [ "$REF_GAUSS" = 0 ]; then
    say "# reference $s: 512-bit mp-gbs (tol 1e-80); second reference skipped (REF_GAUSS=0)"
    continue
  fi
  r=$("$B" compare --ref "$OUT/ref_${s}_mp-gbs.txt" --in "$OUT/ref_${s}_mp-gauss.txt" \
        --label "ref-agreement-$s" | grep '^RESULT')
  say "# reference $s: 512-bit mp-gbs vs mp-gauss (tol 1e-80) max difference at T: $(value err "$r")"
  # Agreement to 1e-70 is what lets the reference measure errors of 1e-60
  # to 1e-10 relative.
  awk -v e="$(value err "$r")" 'BEGIN { exit !(e + 0 <= 1e-70) }' || {
    say "FAIL: the two references of $s disagree"; exit 1; }
done

# ---------------------------------------------------------------- f(0, y0)
for s in $SCHEMES; do
  "$B" rhs0 --init "$INIT" --scheme "$s" --prec 512 --out "$OUT/f0_ours_$s.txt"
  "$PYTHON" "$PEER_PY" --init "$INIT" --scheme "$s" --rhs0 "$OUT/f0_mpmath_$s.txt"
  peers=mpmath
  if [ -n "$ODEINT" ]; then
    "$ODEINT" --init "$INIT" --scheme "$s" --rhs0 "$OUT/f0_odeint_$s.txt"
    peers="mpmath odeint"
  fi
  for p in $peers; do
    r=$("$B" compare --ref "$OUT/f0_ours_$s.txt" --in "$OUT/f0_${p}_$s.txt" --label f0 | grep '^RESULT')
    say "# f(0, y0) $s: $p vs af_mp_rhs (512 bits): max difference $(value err "$r")"
    awk -v e="$(value err "$r")" 'BEGIN { exit !(e + 0 <= 1e-70) }' || {
      say "FAIL: the $p vector field differs from af_mp_rhs"; exit 1; }
  done
done

# ---------------------------------------------------------------- timed runs
# One line per program: scheme program t_end cpu wall err note
ROWS=$OUT/rows.txt
: > "$ROWS"
for s in $SCHEMES; do
  ref=$OUT/ref_${s}_mp-gbs.txt
  for m in mp-gauss mp-gbs; do
    r=$("$B" run --init "$INIT" --scheme "$s" --method "$m" --prec 256 --tol 1e-60 \
          --T "$T" --ref "$ref" --out "$OUT/run_${s}_$m.txt" --label ours | grep '^RESULT')
    say "$r"
    echo "$s $m $(value t_end "$r") $(value seconds "$r") $(value wall "$r") $(value err "$r") -" >> "$ROWS"
  done
  if [ -n "$ODEINT" ]; then
    case $s in post-ln) tol=$ODEINT_TOL_POST ;; *) tol=$ODEINT_TOL_PERI ;; esac
    r=$("$ODEINT" --init "$INIT" --scheme "$s" --tol "$tol" --times "$TIMES" --cap "$CAP" \
          --out "$OUT/run_${s}_odeint.txt" | tee "$OUT/run_${s}_odeint.log" | grep '^RESULT')
    say "$r"
    c=$("$B" compare --ref "$ref" --in "$OUT/run_${s}_odeint.txt" --label odeint | grep '^RESULT')
    note=-
    [ "$(value capped "$r")" = 1 ] && note=capped
    echo "$s odeint-bs $(value t_end "$r") $(value seconds "$r") $(value wall "$r") $(value err "$c") $note" >> "$ROWS"
  fi
  if [ "$MPMATH" = full ]; then
    r=$("$PYTHON" "$PEER_PY" --init "$INIT" --scheme "$s" ${MPMATH_TOL:+--tol "$MPMATH_TOL"} \
          --times "$TIMES" --cap "$CAP" --out "$OUT/run_${s}_mpmath.txt" | grep '^RESULT')
    say "$r"
    c=$("$B" compare --ref "$ref" --in "$OUT/run_${s}_mpmath.txt" --label mpmath | grep '^RESULT')
    note=-
    [ "$(value capped "$r")" = 1 ] && note=capped
    echo "$s mpmath-odefun $(value t_end "$r") $(value seconds "$r") $(value wall "$r") $(value err "$c") $note" >> "$ROWS"
  else
    r=$("$PYTHON" "$PEER_PY" --init "$INIT" --scheme "$s" --times "$T" --bound | grep '^RESULT')
    say "$r"
    echo "$s mpmath-odefun $T $(value 'seconds>' "$r" | tr -d '=') - - bound" >> "$ROWS"
  fi
done

# ---------------------------------------------------------------- table
say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
say "CPU seconds of the integration (process CPU time); err = max |y - y_ref| at t_end"
say "against the 512-bit reference; ratio = peer time / ours.  capped: the peer stopped"
say "at t_end < T after CAP=$CAP s, so its time to T is larger (ratio is a lower bound);"
say "bound: lower bound on mpmath's time to T (not run; see bench/README.md)."
say "est_s: a capped run's CPU time extrapolated linearly in t to T (an estimate, not a"
say "measurement), and est/gbs that estimate over mp-gbs's time."
awk -v T="$T" '
  { sch[NR] = $1; prog[NR] = $2; tend[NR] = $3; cpu[NR] = $4; wall[NR] = $5; err[NR] = $6; note[NR] = $7
    if ($2 == "mp-gauss") g[$1] = $4
    if ($2 == "mp-gbs") b[$1] = $4 }
  END {
    printf "%-8s %-14s %6s %10s %10s %10s %-7s %12s %12s %10s %8s\n", "scheme", "program", "t_end", "cpu_s", "wall_s", "err", "note", "ratio/gauss", "ratio/gbs", "est_s", "est/gbs"
    for (i = 1; i <= NR; i++) {
      rg = "-"; rb = "-"
      if (prog[i] != "mp-gauss" && prog[i] != "mp-gbs" && cpu[i] != "-") {
        pre = (note[i] == "-") ? "" : ">="
        rg = sprintf("%s%.1f", pre, cpu[i] / g[sch[i]]); rb = sprintf("%s%.1f", pre, cpu[i] / b[sch[i]])
      }
      est = "-"; eb = "-"
      if (note[i] == "capped" && tend[i] > 0) {
        est = sprintf("%.0f", cpu[i] * T / tend[i]); eb = sprintf("%.0f", cpu[i] * T / tend[i] / b[sch[i]])
      }
      printf "%-8s %-14s %6s %10s %10s %10s %-7s %12s %12s %10s %8s\n", sch[i], prog[i], tend[i], cpu[i], wall[i], err[i], note[i], rg, rb, est, eb
    }
  }' "$ROWS" | tee -a "$LOG"
