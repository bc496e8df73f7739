#!/bin/sh
# bench_mp.sh -- the MPFR benchmark in one run: libattnflow's MPFR
# method METHOD (default mp-gbs) against Boost.Odeint's bulirsch_stoer built
# two ways -- stock (at most 8 extrapolation rows, a static const m_k_max
# in boost/numeric/odeint/stepper/bulirsch_stoer.hpp) and with the cap
# raised to 16 rows (order 32) from a copy of that header made here, in a
# temporary include directory, at build time -- on n = 32, d = 3, beta = 1,
# Q = K = V = I, softmax, 256 bits, tol 1e-60, from several starts: the
# bench start bench/data/mp_n32d3.txt and random Gaussian rows (normalized
# by af_init_state) of the same size.  Every error is measured against a
# reference at higher precision and tighter tolerance.  See bench/README.md;
# 'make bench-mp' runs it.
#
# Environment (all optional):
#   BUILDDIR   build directory holding bench/bench_mp   (default: .)
#   SRCDIR     source directory                          (default: script/..)
#   OUT        directory for states, logs, peer builds   (default: BUILDDIR/bench-mp-out)
#   T          end time                                  (default 10)
#   SCHEMES    default "post-ln"; "all": the six schemes
#   SEEDS      seeds of the Gaussian starts   (default "1 2"; empty: none)
#   METHOD     our method (default mp-gbs, the library's default and the fastest at
#              matched accuracy: docs/performance.md)
#   METHODS    several of our methods, each timed on every start (default:
#              METHOD); the ratios are the peer's time over each method's.
#              An entry METHOD@TOL runs that method at tolerance TOL instead
#              of 1e-60 (matched accuracy: mp-gbs@1e-58 lands near where
#              mp-taylor at 1e-60 lands)
#   REF_METHOD method of the reference (default mp-gbs; the check run,
#              REF_CHECK, uses the other of mp-taylor and mp-gbs)
#   BENCH_START 1 (default): also the bench start; 0: only the Gaussian
#              ones (two runs of this script with different OUT can then
#              share the starts between them)
#   THREADS    OMP_NUM_THREADS of our runs               (default 2)
#   CAP        CPU seconds after which a peer run stops at its next output
#              time (default 0: run to T); a capped peer's ratio is a lower
#              bound
#   STOCK      1 (default): also time the stock peer; 0: only the raised cap
#   ODEINT_TOL eps_abs of bulirsch_stoer (default 1e-58, tuned earlier for
#              error <= 1e-60 on the bench start; measured at T = 10 with
#              the raised cap: 5.1e-60, docs/performance.md)
#   REF_PREC, REF_TOL   the reference run (default 512 bits, 1e-80)
#   REF_CHECK  1 (default): the reference is checked against a second run
#              at REF_PREC + 128 bits, tol REF_TOL 1e-10 (agreement <= 1e-70
#              required); 0: skipped (the reference's own err_est is logged)
#   PEER_JOBS  peer runs at once (default 1).  Every run of ours (and every
#              reference) is done first, for all starts, and the peers after
#              them, so ours see the machine as it was at the start; with 2 on
#              a 2-core machine each peer (one thread) has a core of its own,
#              so its wall time is its CPU time, and nothing else should run
#   CXX, CXXFLAGS       compiler of the peer (default g++, -O2)
#
# The reference of each start is computed once into OUT and reused (delete
# OUT/ref_* to recompute).  The machine may be shared: each program's
# process CPU time and wall time are both recorded, ours and the peers run
# in this one run (ours first), and the load average is printed at start,
# between ours and the peers, and at the end.  Our runs use THREADS threads (the rows of the extrapolation
# table in parallel; results are bit-identical for any thread count), the
# peer one; CPU time sums over threads.
set -eu

BUILDDIR=${BUILDDIR:-.}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=${OUT:-$BUILDDIR/bench-mp-out}
T=${T:-10}
SCHEMES=${SCHEMES:-post-ln}
[ "$SCHEMES" != all ] || SCHEMES="post-ln pre-ln mix-ln peri-ln ngpt ln-scaling"
METHOD=${METHOD:-mp-gbs}
METHODS=${METHODS:-$METHOD}
REF_METHOD=${REF_METHOD:-mp-gbs}
if [ "$REF_METHOD" = mp-gbs ]; then CHK_METHOD=mp-taylor; else CHK_METHOD=mp-gbs; fi
SEEDS=${SEEDS-"1 2"}
BENCH_START=${BENCH_START:-1}
THREADS=${THREADS:-2}
CAP=${CAP:-0}
STOCK=${STOCK:-1}
ODEINT_TOL=${ODEINT_TOL:-1e-58}
REF_PREC=${REF_PREC:-512}
REF_TOL=${REF_TOL:-1e-80}
REF_CHECK=${REF_CHECK:-1}
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:--O2}
export OPENBLAS_NUM_THREADS=1

B=$BUILDDIR/bench/bench_mp
mkdir -p "$OUT"
# Output times of the peers and the reference: T/80, T/40, T/20, T/10,
# 2T/10, ..., T (a capped peer stops at one of them).
TIMES=$(awk -v T="$T" 'BEGIN { s = sprintf("%.17g,%.17g,%.17g", T / 80, T / 40, T / 20)
  for (k = 1; k <= 10; k++) s = s "," sprintf("%.17g", T * k / 10); print s }')
LOG=$OUT/results.txt
: > "$LOG"
value() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
say() { printf '%s\n' "$*" | tee -a "$LOG"; }

# ---------------------------------------------------------------- peers
# Both peers from bench/bench_mp_odeint.cpp with the same compiler and
# flags; the raised one finds the edited header first on its include path.
HDR=boost/numeric/odeint/stepper/bulirsch_stoer.hpp
SYS_HDR=$(echo '#include <boost/numeric/odeint.hpp>' \
  | $CXX $CXXFLAGS -x c++ -M - 2>/dev/null | tr ' \\' '\n\n' | grep "/$HDR\$" | head -1)
[ -n "$SYS_HDR" ] || { echo "bench_mp.sh: $HDR not found (Boost.Odeint)" >&2; exit 1; }
INC=$(mktemp -d "${TMPDIR:-/tmp}/bench_mp_inc.XXXXXX")
trap 'rm -rf "$INC"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$INC/$(dirname "$HDR")"
sed 's/\(m_k_max *= *\)8;/\116;/' "$SYS_HDR" > "$INC/$HDR"
grep -q 'm_k_max = 16;' "$INC/$HDR" || {
  echo "bench_mp.sh: m_k_max = 8 not found in $SYS_HDR" >&2; exit 1; }
PEER_JOBS=${PEER_JOBS:-1}
PEER_SRC=$SRCDIR/bench/bench_mp_odeint.cpp
# (Kept in OUT and rebuilt only when the source is newer.)
[ "$STOCK" = 0 ] || [ "$OUT/odeint_cap8" -nt "$PEER_SRC" ] ||
  $CXX $CXXFLAGS -o "$OUT/odeint_cap8" "$PEER_SRC" -lmpfr -lgmp
[ "$OUT/odeint_cap16" -nt "$PEER_SRC" ] ||
  $CXX $CXXFLAGS -I"$INC" -o "$OUT/odeint_cap16" "$PEER_SRC" -lmpfr -lgmp
PEERS=cap16
[ "$STOCK" = 0 ] || PEERS="cap16 cap8"

say "# bench_mp.sh $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
say "# commit $(cd "$SRCDIR" && git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)," \
    "cpu $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores"
say "# peers: $CXX $CXXFLAGS, Boost header $SYS_HDR (cap8: as shipped; cap16: m_k_max = 16)"
say "# case: n=32 d=3 beta=1 T=$T Q=K=V=I softmax 256 bits tol 1e-60; ours" \
    "OMP_NUM_THREADS=$THREADS, peers 1 thread (eps_abs $ODEINT_TOL)"
say "# ours: $METHODS; reference: $REF_METHOD $REF_PREC bits tol $REF_TOL (check: $CHK_METHOD)"
say "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- starts
STARTS=
if [ "$BENCH_START" != 0 ]; then
  STARTS=bench
  cp "$SRCDIR/bench/data/mp_n32d3.txt" "$OUT/start_bench.txt"
fi
for s in $SEEDS; do
  "$B" init --out "$OUT/start_gauss$s.txt" --n 32 --d 3 --seed "$s" --spec gaussian
  STARTS="$STARTS gauss$s"
done

# ---------------------------------------------------------------- runs
ROWS=$OUT/rows.txt
: > "$ROWS"
for sch in $SCHEMES; do
  for st in $STARTS; do
    init=$OUT/start_$st.txt
    ref=$OUT/ref_${sch}_${st}_T$T.txt
    if [ ! -s "$ref" ]; then
      echo "computing reference $sch $st ..." >&2
      OMP_NUM_THREADS=$THREADS "$B" run --init "$init" --scheme "$sch" --method "$REF_METHOD" \
        --prec "$REF_PREC" --tol "$REF_TOL" --times "$TIMES" --out "$ref.tmp" --label ref \
        > "$ref.log"
      mv "$ref.tmp" "$ref"
    fi
    # Independent check of the reference: the same at REF_PREC + 128 bits,
    # tol REF_TOL * 1e-10, must agree to 1e-70 (what lets it measure 1e-60).
    say "# reference $sch $st: $(grep '^RESULT' "$ref.log" | tr ' ' '\n' | grep -E '^(seconds|err_est|steps|nevals)=' | tr '\n' ' ')"
    chk=$OUT/refchk_${sch}_${st}_T$T.txt
    if [ "$REF_CHECK" = 0 ]; then
      say "# reference $sch $st: second run skipped (REF_CHECK=0)"
    elif [ ! -s "$chk" ]; then
      OMP_NUM_THREADS=$THREADS "$B" run --init "$init" --scheme "$sch" --method "$CHK_METHOD" \
        --prec $((REF_PREC + 128)) --tol "$(awk -v t="$REF_TOL" 'BEGIN { printf "%g", t * 1e-10 }')" \
        --T "$T" --out "$chk.tmp" --label refchk > "$chk.log"
      mv "$chk.tmp" "$chk"
    fi
    if [ "$REF_CHECK" != 0 ]; then
      r=$("$B" compare --ref "$ref" --in "$chk" --label refchk | grep '^RESULT')
      say "# reference $sch $st: agreement with the check run $(value err "$r")"
      awk -v e="$(value err "$r")" 'BEGIN { exit !(e + 0 <= 1e-70) }' || {
        say "FAIL: reference $sch $st not confirmed"; exit 1; }
    fi

    # The peer's vector field is ours: f(0, y0) at 512 bits to 1e-70.
    "$B" rhs0 --init "$init" --scheme "$sch" --prec 512 --out "$OUT/f0_ours_${sch}_$st.txt"
    "$OUT/odeint_cap16" --init "$init" --scheme "$sch" --rhs0 "$OUT/f0_odeint_${sch}_$st.txt"
    r=$("$B" compare --ref "$OUT/f0_ours_${sch}_$st.txt" --in "$OUT/f0_odeint_${sch}_$st.txt" \
          --label f0 | grep '^RESULT')
    say "# f(0, y0) $sch $st: odeint vs af_mp_rhs (512 bits): max difference $(value err "$r")"
    awk -v e="$(value err "$r")" 'BEGIN { exit !(e + 0 <= 1e-70) }' || {
      say "FAIL: the peer's vector field differs from af_mp_rhs"; exit 1; }

    for mt in $METHODS; do
      mth=${mt%@*}; tol=1e-60
      [ "$mth" = "$mt" ] || tol=${mt#*@}
      r=$(OMP_NUM_THREADS=$THREADS "$B" run --init "$init" --scheme "$sch" --method "$mth" \
            --prec 256 --tol "$tol" --T "$T" --ref "$ref" --out "$OUT/run_${sch}_${st}_$mt.txt" \
            --label "$mt" | grep '^RESULT')
      say "$r"
      echo "$sch $st $mt $(value t_end "$r") $(value seconds "$r") $(value wall "$r")" \
           "$(value err "$r") $(value nevals "$r") -" >> "$ROWS"
    done
  done
done

# ---------------------------------------------------------------- peers
say "# load average before the peers: $(cut -d' ' -f1-3 /proc/loadavg)"
# One peer run: its row into $5 (joined into ROWS in the order of the runs).
peer_run() {
  r=$(OMP_NUM_THREADS=1 "$OUT/odeint_$3" --init "$OUT/start_$2.txt" --scheme "$1" \
        --tol "$ODEINT_TOL" --times "$TIMES" --cap "$CAP" --out "$OUT/run_$1_$2_$3.txt" \
        | tee "$OUT/run_$1_$2_$3.log" | grep '^RESULT')
  c=$("$B" compare --ref "$4" --in "$OUT/run_$1_$2_$3.txt" --label "$3" | grep '^RESULT')
  note=-
  [ "$(value capped "$r")" = 1 ] && note=capped
  { echo "$r"
    echo "$1 $2 odeint-$3 $(value t_end "$r") $(value seconds "$r") $(value wall "$r")" \
         "$(value err "$c") $(value nevals "$r") $note"; } > "$5"
}
JOBS=
for sch in $SCHEMES; do
  for st in $STARTS; do
    for p in $PEERS; do
      peer_run "$sch" "$st" "$p" "$OUT/ref_${sch}_${st}_T$T.txt" "$OUT/row_${sch}_${st}_$p" &
      JOBS="$JOBS $OUT/row_${sch}_${st}_$p"
      if [ "$(echo $JOBS | wc -w)" -ge "$PEER_JOBS" ]; then
        wait
        for j in $JOBS; do
          say "$(head -1 "$j")"; tail -n +2 "$j" >> "$ROWS"; rm -f "$j"
        done
        JOBS=
      fi
    done
  done
done
wait
for j in $JOBS; do
  say "$(head -1 "$j")"; tail -n +2 "$j" >> "$ROWS"; rm -f "$j"
done

# ---------------------------------------------------------------- table
say "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
say "cpu_s: process CPU seconds (all threads); wall_s: wall seconds; err: max |y - y_ref|"
say "at t_end; wall x, cpu x (on our rows): the odeint-cap16 peer's time over this"
say "method's on the same start.  capped: the peer stopped at t_end < T after CAP s,"
say "so the ratios against it are lower bounds (>=)."
awk '
  { sch[NR] = $1; st[NR] = $2; prog[NR] = $3; tend[NR] = $4; cpu[NR] = $5
    wall[NR] = $6; err[NR] = $7; ev[NR] = $8; note[NR] = $9
    if ($3 == "odeint-cap16") { pc[$1 " " $2] = $5; pw[$1 " " $2] = $6; pn[$1 " " $2] = $9 } }
  END {
    printf "%-8s %-7s %-14s %6s %9s %9s %10s %8s %-7s %8s %8s\n", "scheme", "start", "program", "t_end", "cpu_s", "wall_s", "err", "nevals", "note", "wall x", "cpu x"
    for (i = 1; i <= NR; i++) {
      k = sch[i] " " st[i]; rw = "-"; rc = "-"
      if (prog[i] !~ /^odeint-/ && (k in pc)) {
        pre = (pn[k] == "-") ? "" : ">="
        rw = sprintf("%s%.2f", pre, pw[k] / wall[i]); rc = sprintf("%s%.2f", pre, pc[k] / cpu[i])
      }
      printf "%-8s %-7s %-14s %6s %9s %9s %10s %8s %-7s %8s %8s\n", sch[i], st[i], prog[i], tend[i], cpu[i], wall[i], err[i], ev[i], note[i], rw, rc
    }
  }' "$ROWS" | tee -a "$LOG"
# Spread of the ratios over the starts and schemes, per method of ours
# (against the cap16 peer): the worst start (least wall ratio), the
# median and the best, and the method's worst error.
say ""
awk '
  $3 == "odeint-cap16" { pc[$1 " " $2] = $5; pw[$1 " " $2] = $6; if ($9 != "-") pcap[$1 " " $2] = 1 }
  $3 !~ /^odeint-/ { m = $3; nr++; meth[nr] = m; key[nr] = $1 " " $2; oc[nr] = $5; ow[nr] = $6; oe[nr] = $7 + 0 }
  function sort(a, p, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
      if (a[p, j] < a[p, i]) { t = a[p, i]; a[p, i] = a[p, j]; a[p, j] = t } }
  END {
    for (i = 1; i <= nr; i++) {
      m = meth[i]; k = key[i]
      if (oe[i] > emax[m]) { emax[m] = oe[i]; ewho[m] = k }
      if (!(k in pc)) continue
      n[m]++; w[m, n[m]] = pw[k] / ow[i]; c[m, n[m]] = pc[k] / oc[i]; who[m, n[m]] = k
      if (k in pcap) capped[m] = 1
    }
    printf "%-14s %5s %22s %22s\n", "ours", "runs", "wall x: min/med/max", "cpu x: min/med/max"
    for (m in emax) {
      q = n[m]
      if (q == 0) { printf "%-14s %5d (no odeint-cap16 run)  largest error %.3g (%s)\n", m, 0, emax[m], ewho[m]; continue }
      worst = who[m, 1]; wmin = w[m, 1]
      for (i = 2; i <= q; i++) if (w[m, i] < wmin) { wmin = w[m, i]; worst = who[m, i] }
      sort(w, m, q); sort(c, m, q)
      printf "%-14s %5d %8.2f/%5.2f/%6.2f %8.2f/%5.2f/%6.2f  worst start (wall): %s%s; largest error %.3g (%s)\n", m, q,
        w[m, 1], w[m, int((q + 1) / 2)], w[m, q], c[m, 1], c[m, int((q + 1) / 2)], c[m, q],
        worst, capped[m] ? " (some capped: lower bounds)" : "", emax[m], ewho[m]
    }
  }' "$ROWS" | tee -a "$LOG"
