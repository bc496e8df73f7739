#!/bin/sh
# test_sweep.sh -- tests of 'attnflow sweep' (cli/cli_sweep.c): the grid
# example of the README (a header and 96 rows in grid-key order), each row
# equal to the same 'attnflow run --seed', rows bit-identical for 1 and 2
# threads and, when configure built MPI, under 'mpirun -n 2' with 1 and 2
# threads per rank; a sweep killed and run again ends with the same file
# bit for bit and computes only what its journal lacks; bad grids give one
# clear error.  Run by 'make check' (top_builddir, top_srcdir, MPIRUN and
# AF_MPI exported); by hand: top_builddir=BUILD sh tests/test_sweep.sh.

top_builddir=${top_builddir:-.}
AF="$top_builddir/attnflow"
if [ ! -x "$AF" ] || [ ! -x "$top_builddir/attnflow-sweep" ]; then
  echo "test_sweep.sh: $AF or attnflow-sweep not found (set top_builddir)" >&2
  exit 99
fi
AF=$(cd "$(dirname "$AF")" && pwd)/attnflow

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-sweep.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
out="$tmp/o"   # output directory; must be empty after every bad input
mkdir "$out" || exit 99

. "$(dirname "$0")/cli_lib.sh"

# Data lines (header and rows) of a sweep CSV: what must not depend on the
# number of ranks and threads (the provenance records them).
data() { grep -v '^#' "$1"; }

# ------------------------------------------------------------ the example
EX="--scheme post-ln --n 32 --d 2 --beta 0.5,1,2,4 --seeds 1-12 --init uniform --t-end 30 --times 10,30"
check "sweep --help" "$AF" sweep --help
if grep -q -- '--seeds' "$tmp/stdout" && grep -q 'mpirun' "$tmp/stdout"; then
  ok "sweep --help names the grid and MPI"
else
  notok "sweep --help names the grid and MPI" "no --seeds or mpirun in the text"
fi
check "the example sweep (2 threads)" "$AF" sweep $EX --threads 2 --out "$tmp/t2.csv"
if [ -s "$tmp/stderr" ]; then
  notok "a sweep is silent when stderr is not a terminal" "$(head -n 1 "$tmp/stderr")"
else
  ok "a sweep is silent when stderr is not a terminal"
fi
nrows=$(data "$tmp/t2.csv" | sed 1d | wc -l)
head=$(data "$tmp/t2.csv" | head -n 1)
want_head="scheme,n,d,beta,seed,t,cos_mean,cos_min,cos_max,r_mean,r_min,r_max,var,energy,clusters,speed_mean,drift"
if [ "$nrows" -eq 96 ] && [ "$head" = "$want_head" ]; then
  ok "the example writes the header and 96 rows"
else
  notok "the example writes the header and 96 rows" "$nrows rows, header '$head'"
fi
# Grid-key order: beta outer, seed inner, t innermost.
for b in 0.5 1 2 4; do for s in 1 2 3 4 5 6 7 8 9 10 11 12; do for t in 10 30; do
  echo "post-ln,32,2,$b,$s,$t"
done; done; done >"$tmp/keys"
if data "$tmp/t2.csv" | sed 1d | cut -d, -f1-6 | cmp -s - "$tmp/keys"; then
  ok "rows in grid-key order (scheme, n, d, beta, seed, t)"
else
  notok "rows in grid-key order (scheme, n, d, beta, seed, t)" "keys differ"
fi
if grep -q '^# ranks: 1$' "$tmp/t2.csv" && grep -q '^# threads: 2$' "$tmp/t2.csv" &&
   grep -q '^# grid_seeds: 1-12$' "$tmp/t2.csv" && grep -q '^# grid_beta: 0.5,1,2,4$' "$tmp/t2.csv"; then
  ok "provenance: grid, ranks, threads"
else
  notok "provenance: grid, ranks, threads" "$(grep -c '^#' "$tmp/t2.csv") lines, no ranks/threads/grid"
fi

# Each run is the same 'attnflow run' (same start seed, same integrator).
same_as_run=1
for bs in "0.5 1" "2 7" "4 12"; do
  set -- $bs
  "$AF" run --scheme post-ln --n 32 --d 2 --beta "$1" --seed "$2" --init uniform \
    --t-end 30 --times 10,30 | grep -v '^#' | sed 1d >"$tmp/run"
  grep "^post-ln,32,2,$1,$2," "$tmp/t2.csv" | cut -d, -f6- >"$tmp/sw"
  cmp -s "$tmp/run" "$tmp/sw" || same_as_run=0
done
if [ "$same_as_run" = 1 ]; then
  ok "a row of the sweep is 'attnflow run --seed' bit for bit"
else
  notok "a row of the sweep is 'attnflow run --seed' bit for bit" "rows differ"
fi

# Run options reach every run: Kaiming weights (drawn from each run's
# seed), the layer maps, nGPT's alpha, a column selection.
RO="--n 5 --d 4 --beta 1.5 --weights kaiming --method layers --h 0.1 --t-end 2 --times 1,2 --observables t,energy,gap_max --alpha 0.7"
check "sweep with run options" "$AF" sweep --scheme pre-ln,ngpt --seeds 3,9 $RO --out "$tmp/ro.csv"
for sc in pre-ln ngpt; do for s in 3 9; do
  "$AF" run --scheme $sc --seed $s $RO | grep -v '^#' | sed 1d | sed "s/^/$sc,5,4,1.5,$s,/"
done; done >"$tmp/ro.run"
if data "$tmp/ro.csv" | sed 1d | cmp -s - "$tmp/ro.run" &&
   [ "$(data "$tmp/ro.csv" | head -n 1)" = "scheme,n,d,beta,seed,t,energy,gap_max" ]; then
  ok "run options apply to each run (kaiming, layers, alpha, observables)"
else
  notok "run options apply to each run (kaiming, layers, alpha, observables)" "rows differ"
fi

check "the example with 1 thread" "$AF" sweep $EX --threads 1 --out "$tmp/t1.csv"
data "$tmp/t2.csv" >"$tmp/t2.csv.data"
if data "$tmp/t1.csv" | cmp -s - "$tmp/t2.csv.data"; then
  ok "rows bit-identical with 1 and 2 threads"
else
  notok "rows bit-identical with 1 and 2 threads" "rows differ"
fi
if [ ! -e "$tmp/t1.csv.journal" ] && [ ! -e "$tmp/t2.csv.journal" ]; then
  ok "a finished sweep removes its journal"
else
  notok "a finished sweep removes its journal" "journal left behind"
fi

# Progress: nothing on stderr by default (it is not a terminal here); the
# progress and a closing count with --progress.
check "the example with --progress" "$AF" sweep $EX --threads 1 --progress --out "$tmp/p.csv"
if tr '\r' '\n' <"$tmp/stderr" | grep -q '^sweep: [0-9]*/48 runs ([0-9]*%)' &&
   grep -q 'sweep: 48 runs computed in .* (rank 0: 48), 0 resumed' "$tmp/stderr"; then
  ok "--progress reports on stderr"
else
  notok "--progress reports on stderr" "$(tr '\r' '|' <"$tmp/stderr" | head -c 300)"
fi

# ------------------------------------------------------------ MPI
if [ "${AF_MPI:-no}" = yes ] && [ -n "${MPIRUN:-}" ]; then
  # As root in CI: Open MPI refuses root without these.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
  MPI="$MPIRUN --oversubscribe --allow-run-as-root"
  for th in 1 2; do
    check "mpirun -n 2, $th thread(s) per rank" env OMP_NUM_THREADS=$th $MPI -n 2 \
      "$AF" sweep $EX --out "$tmp/m2_$th.csv"
    if data "$tmp/m2_$th.csv" | cmp -s - "$tmp/t2.csv.data" &&
       grep -q '^# ranks: 2$' "$tmp/m2_$th.csv"; then
      ok "mpirun -n 2, $th thread(s): rows bit-identical to one rank"
    else
      notok "mpirun -n 2, $th thread(s): rows bit-identical to one rank" \
        "rows differ or no '# ranks: 2'"
    fi
  done
  # Every rank parses the grid; rank 0 alone reports it.
  (cd "$out" && $MPI -n 2 "$AF" sweep $EX --beta 2:1:1 --out s.csv) >"$tmp/stdout" 2>"$tmp/stderr"
  if grep -c '^attnflow: ' "$tmp/stderr" | grep -qx 1 && [ -z "$(ls -A "$out")" ]; then
    ok "mpirun -n 2: a bad grid is reported once, no file"
  else
    notok "mpirun -n 2: a bad grid is reported once, no file" "$(tr '\n' '|' <"$tmp/stderr")"
  fi
  rm -rf "$out" && mkdir "$out"
else
  skip "mpirun -n 2" "configure built attnflow-sweep without MPI"
fi

# ------------------------------------------------------------ kill, resume
# 160 runs; the reference is uninterrupted, then the same command is
# killed (SIGKILL) after a few runs and run again in the same place.
# --max-steps 40 makes 15 of the runs fail (AF_EMAXSTEPS): their rows
# and statuses must survive the journal too.
KG="--scheme post-ln,pre-ln --n 48 --d 3 --beta 1,4 --seeds 1-40 --t-end 20 --times 5,20 --threads 1 --max-steps 40"
mkdir "$tmp/k" || exit 99
(cd "$tmp/k" && "$AF" sweep $KG --out k.csv) 2>"$tmp/stderr"
st=$?
mv "$tmp/k/k.csv" "$tmp/ref.csv"
if [ "$st" -eq 1 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] &&
   grep -q 'sweep: 15 of 160 runs failed .* the first: scheme post-ln n 48 d 3 beta 1 seed 6: .*AF_EMAXSTEPS' "$tmp/stderr" &&
   [ "$(grep -c ',nan,' "$tmp/ref.csv")" -ge 15 ] && grep -q '^# failed_runs: 15$' "$tmp/ref.csv"; then
  ok "failed runs: file written, nan rows, exit 1, the first named"
else
  notok "failed runs: file written, nan rows, exit 1, the first named" "exit $st: $(head -n 1 "$tmp/stderr")"
fi
(cd "$tmp/k" && exec "$AF" sweep $KG --out k.csv) 2>/dev/null &
pid=$!
n=0
while kill -0 "$pid" 2>/dev/null; do
  n=$(cat "$tmp/k/k.csv.journal" 2>/dev/null | wc -l)
  [ "$n" -ge 6 ] && break
  sleep 0.02
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
n=$(($(wc -l <"$tmp/k/k.csv.journal") - 1))
if [ "$n" -ge 5 ] && [ "$n" -lt 160 ] && [ ! -e "$tmp/k/k.csv" ]; then
  ok "killed after $n of 160 runs: journal kept, no CSV"
else
  notok "killed after some runs: journal kept, no CSV" "$n runs journaled, CSV present: $(ls "$tmp/k")"
fi
# A torn last line (the kill during a write) is dropped and redone.
printf '7 0 0x1.8p+1 0x1' >>"$tmp/k/k.csv.journal"
cp "$tmp/k/k.csv.journal" "$tmp/journal.saved"
(cd "$tmp/k" && "$AF" sweep $KG --out k.csv) 2>"$tmp/stderr"
if cmp -s "$tmp/k/k.csv" "$tmp/ref.csv"; then
  ok "resumed sweep ends with the uninterrupted file, bit for bit"
else
  notok "resumed sweep ends with the uninterrupted file, bit for bit" "files differ"
fi
if grep -q "resuming from 'k.csv.journal': $n of 160 runs done" "$tmp/stderr"; then
  ok "resume reads the $n journaled runs, drops the torn line"
else
  notok "resume reads the journaled runs" "$(tr '\n' '|' <"$tmp/stderr")"
fi
# Only the missing runs are computed: a journaled row altered (with a
# valid checksum) must reach the CSV unchanged, so it was not recomputed.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$tmp/journal.saved" "$tmp/k/k.csv.journal" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
head, first = lines[0], lines[1].split(' ')
first[2] = '0x1.8p+1'                       # first value of the row: 3
body = ' '.join(first[:-1])
h = 0xcbf29ce484222325
for c in body.encode():
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
open(sys.argv[2], 'w').write(head + '\n' + body + ' %016x\n' % h)
EOF
  r=$(sed -n 2p "$tmp/k/k.csv.journal" | cut -d' ' -f1)
  (cd "$tmp/k" && "$AF" sweep $KG --out k.csv) 2>/dev/null
  # Run r: scheme (r / 80), beta ((r / 40) % 2), seed (r % 40) + 1.
  sc=$(echo "post-ln pre-ln" | cut -d' ' -f$((r / 80 + 1)))
  be=$(echo "1 4" | cut -d' ' -f$((r / 40 % 2 + 1)))
  line=$(grep "^$sc,48,3,$be,$((r % 40 + 1)),5," "$tmp/k/k.csv")
  if [ "$(echo "$line" | cut -d, -f7)" = 3 ] &&
     [ "$(data "$tmp/k/k.csv" | grep -vc "^$sc,48,3,$be,$((r % 40 + 1)),5,")" = \
       "$(data "$tmp/ref.csv" | grep -vc "^$sc,48,3,$be,$((r % 40 + 1)),5,")" ]; then
    ok "a journaled run is taken from the journal, not recomputed"
  else
    notok "a journaled run is taken from the journal, not recomputed" "row: $line"
  fi
else
  skip "a journaled run is taken from the journal" "no python3 to rewrite a checksum"
fi
# A journal of another sweep is refused, not mixed in.
cp "$tmp/journal.saved" "$tmp/k/k.csv.journal"
(cd "$tmp/k" && "$AF" sweep $(echo "$KG" | sed "s/--beta 1,4/--beta 1,5/") --out k.csv) >"$tmp/stdout" 2>"$tmp/stderr"
st=$?
if [ "$st" -eq 1 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q 'another sweep' "$tmp/stderr"; then
  ok "a journal of another sweep is refused ($(cat "$tmp/stderr"))"
else
  notok "a journal of another sweep is refused" "exit $st: $(tr '\n' '|' <"$tmp/stderr")"
fi

# ------------------------------------------------------------ bad grids
G="--scheme post-ln --n 4 --d 3 --beta 1 --seeds 1-2 --t-end 1"
BAD_IN_OUT=1
bad "empty --beta" 2 sweep $G --beta "" --out s.csv
bad "empty item in --seeds" 2 sweep $G --seeds 1,,2 --out s.csv
bad "reversed --seeds range" 2 sweep $G --seeds 5-1 --out s.csv
bad "reversed --beta range" 2 sweep $G --beta 2:1:0.5 --out s.csv
bad "zero --beta step" 2 sweep $G --beta 0:1:0 --out s.csv
bad "malformed --beta range" 2 sweep $G --beta 0:1 --out s.csv
bad "negative beta" 2 sweep $G --beta 0.5,-1 --out s.csv
bad "beta listed twice" 2 sweep $G --beta 1,0:2:1 --out s.csv
bad "seed listed twice" 2 sweep $G --seeds 1-3,2 --out s.csv
bad "huge --seeds range" 2 sweep $G --seeds 0-4294967295 --out s.csv
bad "huge --beta range" 2 sweep $G --beta 0:1:1e-12 --out s.csv
bad "huge grid (product of the axes)" 2 sweep $G --seeds 1-100000 --beta 0:1:0.00001 --out s.csv
bad "unknown scheme" 2 sweep $G --scheme post-ln,nope --out s.csv
bad "n = 0" 2 sweep $G --n 4,0 --out s.csv
bad "missing --seeds" 2 sweep --scheme post-ln --n 4 --d 3 --beta 1 --out s.csv
bad "missing --out" 2 sweep $G
bad "--out -" 2 sweep $G --out -
bad "--seed is an axis" 2 sweep $G --seed 3 --out s.csv
bad "--precision refused" 2 sweep $G --precision 256 --out s.csv
bad "a run option checked by run's parser" 2 sweep $G --rtol -1 --out s.csv
bad "orthonormal start with n > d" 2 sweep $G --n 2,4 --init orthonormal --out s.csv
bad "unknown option" 2 sweep $G --bogus 1 --out s.csv
bad "a run option given twice" 2 sweep $G --t-end 1 --t-end 2 --out s.csv
bad "a sweep option given twice" 2 sweep $G --out a.csv --out s.csv
bad "missing --init file" 1 sweep $G --init file:nowhere.csv --out s.csv
BAD_IN_OUT=0

cli_summary
