#!/bin/sh
# test_hostile.sh -- hostile input and faults: sizes that overflow or
# exceed the machine, malformed and endless files, corrupted checkpoints,
# output paths that must not be replaced, signals, full disks, option
# abuse.  Every case asserts the exit status and a fragment of the one
# error line (or the correct result).  Run by 'make check' with
# top_builddir and top_srcdir exported.

top_builddir=${top_builddir:-.}
AF="$top_builddir/attnflow"
if [ ! -x "$AF" ]; then
  echo "test_hostile.sh: $AF not found (set top_builddir)" >&2
  exit 99
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-hostile.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
out="$tmp/o"   # output directory; must be empty after every bad input
in="$tmp/in"   # input files
mkdir "$out" "$in" || exit 99

. "$(dirname "$0")/cli_lib.sh"

B="run --scheme post-ln --n 4 --d 3 --beta 1 --t-end 1"

# hostile NAME STATUS FRAGMENT ARGS...: bad (cli_lib.sh: the status, one
# line "attnflow: ..." on stderr, nothing on stdout, no file left) and the
# line contains FRAGMENT.
hostile() {
  hname=$1
  hwant=$2
  hfrag=$3
  shift 3
  before=$nfail
  bad "$hname" "$hwant" "$@"
  if [ "$nfail" -eq "$before" ] && ! grep -qF -- "$hfrag" "$tmp/stderr"; then
    notok "$hname: message" "'$(cat "$tmp/stderr")' lacks '$hfrag'"
  fi
}

# ------------------------------------------------------------ sizes
hostile "n = 2^63: the state size would wrap" 1 "overflows" \
  run --scheme post-ln --n 9223372036854775808 --d 2 --beta 1
hostile "n d + n wraps to 0" 1 "overflows" \
  run --scheme post-ln --n 4611686018427387904 --d 3 --beta 1
hostile "d = 2^63 - 1: d + 1 fine, n (d + 1) wraps" 1 "overflows" \
  run --scheme post-ln --n 4 --d 9223372036854775807 --beta 1
hostile "n = 2^31: the n x n matrix exceeds any machine" 1 "more than the" \
  run --scheme post-ln --n 2147483648 --d 1 --beta 1
hostile "MPFR path: memory beyond the machine" 1 "more than the" \
  run --scheme post-ln --n 1000000 --d 3 --beta 1 --precision 1000
# The memory check counts what the chosen kernel's work space holds and
# admits at most 80% of the machine: at an n whose n x n matrix takes 90% of
# it (n = 53325 on 23.5 GiB; the n = 56000 of 23.4 GiB was admitted when
# the whole machine was the limit), the blas and direct kernels are refused
# and the message names the kernel and its work space; the default (tiled
# past 1 GiB) is admitted, and --progress says what it needs.
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kib" ]; then
  nbig=$(awk -v m="$mem_kib" 'BEGIN { printf "%d", sqrt(0.9 * m * 1024 / 8) }')
  for k in blas direct; do
    hostile "n = $nbig, --kernel $k: its n x n matrix is 90% of memory" 1 \
      "with the $k kernel (work space with its n x n matrix: " \
      run --scheme post-ln --n "$nbig" --d 3 --beta 1 --kernel $k
    grep -q "a request may take (80% of the" "$tmp/stderr" ||
      notok "n = $nbig, --kernel $k: the limit" "$(cat "$tmp/stderr")"
  done
  "$AF" run --scheme post-ln --n "$nbig" --d 3 --beta 1 --progress \
    --init "file:$tmp/none.csv" >"$tmp/stdout" 2>"$tmp/stderr"
  st=$?
  if [ "$st" -eq 1 ] &&
    head -n 1 "$tmp/stderr" | grep -q "^attnflow: n = $nbig, d = 3 with the tiled kernel (work space with its tiles: .*) needs about .* of memory (limit .*, 80% of this machine's)$" &&
    sed -n 2p "$tmp/stderr" | grep -q "none.csv"; then
    ok "n = $nbig, default kernel: tiled, admitted, its memory stated"
  else
    notok "n = $nbig, default kernel" "exit $st: $(tr '\n' '|' <"$tmp/stderr")"
  fi
else
  skip "the memory check at 90% of memory" "no /proc/meminfo"
fi
hostile "--weights kaiming --h 1e-12 fails fast" 1 "weight sets" \
  $B --weights kaiming --h 1e-12
hostile "rk4 step count beyond --max-steps" 2 "more than --max-steps" \
  $B --method rk4 --h 1e-12
hostile "layers step count beyond --max-steps" 2 "more than --max-steps 100" \
  $B --method layers --h 0.001 --max-steps 100

# ------------------------------------------------------------ init files
printf '1,0,0\0junk\n0,1,0\n0,0,1\n1,1,1\n' >"$in/nul.csv"
hostile "--init: a NUL byte in a row" 1 "nul.csv:1: malformed input: NUL byte" \
  $B --init "file:$in/nul.csv"
printf '1,,0,0\n0,1,0\n0,0,1\n1,1,1\n' >"$in/empty.csv"
hostile "--init: an empty field" 1 "empty.csv:1: malformed input: empty field" \
  $B --init "file:$in/empty.csv"
printf '1,0,0\n0,1,0\n,0,0,1\n1,1,1\n' >"$in/lead.csv"
hostile "--init: a leading comma" 1 "lead.csv:3: malformed input: empty field" \
  $B --init "file:$in/lead.csv"
printf '1,0,0\n0,1,0,5\n0,0,1\n1,1,1\n' >"$in/wide.csv"
hostile "--init: too many numbers, counts named" 1 \
  "wide.csv:2: malformed input: expected 3 numbers in the row, found 4" \
  $B --init "file:$in/wide.csv"
printf '1,0,0\n0,1,0\n0,0,1\n' >"$in/short.csv"
hostile "--init: too few rows, counts named" 1 "expected 4 token rows, found 3" \
  $B --init "file:$in/short.csv"
printf '1,0,0\n0,1,0\n0,0,1\n1,1,1\n2,2,2\n' >"$in/long.csv"
hostile "--init: too many rows, counts named" 1 "expected 4 token rows, found 5" \
  $B --init "file:$in/long.csv"
hostile "--init file:/dev/zero ends at once" 1 "/dev/zero:1: malformed input: NUL byte" \
  $B --init file:/dev/zero
hostile "--init of a directory" 1 "is a directory" $B --init "file:$in"
head -c 70000 /dev/zero | tr '\0' '1' >"$in/huge.csv"
hostile "--init: a line longer than any row" 1 "line too long" \
  $B --init "file:$in/huge.csv"
printf '1,0,0\n0,nan,0\n0,0,1\n1,1,1\n' >"$in/nan.csv"
hostile "--init: NaN" 1 "non-finite" $B --init "file:$in/nan.csv"
printf '0,0,0\n0,1,0\n0,0,1\n1,1,1\n' >"$in/zero.csv"
hostile "--init: a zero row" 1 "norm zero" $B --init "file:$in/zero.csv"

# Rows of tiny and huge finite norm are read exactly onto the sphere: at
# t = 0 the drift | |theta_j| - 1 | is a few rounding units (scaled
# norms), not 5.6e-6 (1e-160 squared is subnormal).
printf '1e-160,1e-160,0\n1e-200,0,0\n1e200,1e200,0\n0,0,1\n' >"$in/scale.csv"
if "$AF" run --scheme post-ln --n 4 --d 3 --beta 1 --init "file:$in/scale.csv" --times 0 --observables t,r_min,r_max,drift \
  --out "$tmp/scale.csv" 2>"$tmp/stderr"; then
  row=$(rows "$tmp/scale.csv")
  if echo "$row" | awk -F, '{ exit !($2 == 1e-200 && $3 > 1.41e200 && $3 < 1.42e200 && $4 < 1e-15) }'; then
    ok "rows of norm 1e-200, 1e-160 and 1e200 land on the sphere ($row)"
  else
    notok "rows of norm 1e-200, 1e-160 and 1e200" "row $row"
  fi
else
  notok "rows of norm 1e-200, 1e-160 and 1e200" "$(cat "$tmp/stderr")"
fi

# ------------------------------------------------------------ weights files
hostile "--weights of a directory" 1 "is a directory, not a file" $B --weights "$in"
printf '1,0,0\n0,1,0\n0,0,1\n1,0,0\n0,1,0\n0,0,1\n1,0,0\n0,1,0\n' >"$in/w8"
hostile "--weights: too few rows, counts named" 1 "expected 9 rows" $B --weights "$in/w8"
printf '1,0,0\n0,1,0\n0,0,1\n1,0,0\n0,1,0\n0,0,1\n1,0,0\n0,1,0\n0,0,1\n1,1,1\n' >"$in/w10"
hostile "--weights: too many rows, counts named" 1 "found 10" $B --weights "$in/w10"
printf '1,0,0\n0,1,0\n0,0\0,1\n' >"$in/wnul"
hostile "--weights: a NUL byte" 1 "NUL byte" $B --weights "$in/wnul"
hostile "--weights /dev/zero ends at once" 1 "NUL byte" $B --weights /dev/zero

# ------------------------------------------------------------ options
hostile "a duplicate option" 2 "--n given twice" $B --n 5
hostile "a duplicate option, --opt=VALUE form" 2 "--beta given twice" $B --beta=2
hostile "--rtol 10" 2 "--rtol must be in" $B --rtol 10
hostile "--rtol 1 (no accuracy)" 2 "--rtol must be in" $B --rtol 1
hostile "--rtol 1e-300 (below DBL_EPSILON)" 2 "--rtol must be in" $B --rtol 1e-300
hostile "--atol 1e300" 2 "--atol must be in (0, 1]" $B --atol 1e300
hostile "--atol inf" 2 "atol" $B --atol inf
hostile "--h 0" 2 "--h must be" $B --h 0

# ------------------------------------------------------------ checkpoints
CK="run --scheme post-ln --n 4 --d 3 --beta 1 --times 0.5,1 --precision 128 --tol 1e-30"
if "$AF" $CK --checkpoint "$tmp/ck" --out "$tmp/ck.csv" 2>"$tmp/stderr" &&
  tail -n 1 "$tmp/ck" | grep -q '^checksum fnv1a64 [0-9a-f]\{16\}$'; then
  ok "a checkpoint ends with its checksum line"
else
  notok "a checkpoint ends with its checksum line" "$(cat "$tmp/stderr")"
fi
cp "$tmp/ck" "$in/ck"
# One hex digit of every saved state line changed: each must fail.
nst=$(grep -c '^y ' "$in/ck")
caught=0
k=1
while [ "$k" -le "$nst" ]; do
  awk -v k="$k" '/^y / { if (++n == k) { c = substr($2, 6, 1); $0 = "y " substr($2, 1, 5) (c == "1" ? "2" : "1") substr($2, 7) } } { print }' \
    "$in/ck" >"$in/ck.bad"
  if ! cmp -s "$in/ck" "$in/ck.bad" &&
    ! "$AF" $CK --resume "$in/ck.bad" --out "$out/r.csv" 2>"$tmp/stderr" &&
    grep -q "checksum mismatch" "$tmp/stderr"; then
    caught=$((caught + 1))
  fi
  k=$((k + 1))
done
rm -f "$out"/*
if [ "$nst" -gt 0 ] && [ "$caught" -eq "$nst" ]; then
  ok "one changed hex digit in each of the $nst state lines: all refused"
else
  notok "changed state digits refused" "$caught of $nst"
fi
sed 's/^params scheme=post-ln/params scheme=post-lm/' "$in/ck" >"$in/ck.params"
hostile "a checkpoint with changed parameters" 1 "checksum mismatch" \
  $CK --resume "$in/ck.params"
head -n -1 "$in/ck" >"$in/ck.nosum"
hostile "a checkpoint without its checksum" 1 "no checksum line" \
  $CK --resume "$in/ck.nosum"
head -c $(($(wc -c <"$in/ck") / 2)) "$in/ck" >"$in/ck.trunc"
hostile "a truncated checkpoint" 1 "ck.trunc:" $CK --resume "$in/ck.trunc"
hostile "--resume /dev/zero ends at once" 1 "/dev/zero:1: malformed input" \
  $CK --resume /dev/zero
hostile "--resume of a directory" 1 "Is a directory" $CK --resume "$in"
if "$AF" $CK --resume "$in/ck" --out "$tmp/re.csv" 2>"$tmp/stderr" &&
  [ "$(rows "$tmp/re.csv")" = "$(rows "$tmp/ck.csv")" ]; then
  ok "the intact checkpoint resumes to the same rows"
else
  notok "the intact checkpoint resumes" "$(cat "$tmp/stderr")"
fi
# Plausibility after integrity: a state changed and its checksum
# recomputed (what a program writing checkpoints by hand could do) is
# checked against the run's invariants before any step.
# recheck KEY INDEX VALUE OUT: line INDEX (1-based) of those starting
# with "KEY " set to "KEY VALUE", the FNV-1a 64 checksum recomputed.
recheck() {
  python3 - "$in/ck" "$@" <<'PY'
import sys
src, key, idx, val, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
lines = open(src, "rb").read().split(b"\n")[:-2]  # without checksum, ''
k = 0
for i, l in enumerate(lines):
    if l.startswith(key.encode() + b" "):
        k += 1
        if k == idx:
            lines[i] = (key + " " + val).encode()
body = b"".join(l + b"\n" for l in lines)
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(out, "wb").write(body + b"checksum fnv1a64 %016x\n" % h)
PY
}
if command -v python3 >/dev/null 2>&1; then
  recheck y 1 "$(sed -n 's/^y //p' "$in/ck" | head -n 1)" "$in/ck.same"
  if "$AF" $CK --resume "$in/ck.same" --out "$tmp/same.csv" 2>"$tmp/stderr"; then
    ok "a recomputed checksum of an unchanged checkpoint resumes"
  else
    notok "recomputed checksum" "$(cat "$tmp/stderr")"
  fi
  recheck y 1 0x0p+0 "$in/ck.dir"
  hostile "a direction component set to 0: off the unit sphere" 1 \
    "off the unit sphere" $CK --resume "$in/ck.dir"
  recheck y 13 0x1p+1000000 "$in/ck.huge"
  hostile "a radius of 2^1000000" 1 "beyond the double range" \
    $CK --resume "$in/ck.huge"
  recheck y 14 -0x1p+0 "$in/ck.neg"
  hostile "a negative radius" 1 "radius -1 (not positive)" \
    $CK --resume "$in/ck.neg"
  recheck err_est 1 -0x1p+0 "$in/ck.est"
  hostile "err_est -1" 1 "error estimate -1 is negative" \
    $CK --resume "$in/ck.est"
  recheck t 1 0x1p+10 "$in/ck.time"
  hostile "a time past the run's end" 1 "outside the run" \
    $CK --resume "$in/ck.time"
else
  skip "plausibility of resumed states" "no python3"
fi

# ------------------------------------------------------------ output paths
echo "before" >"$tmp/log"
if "$AF" $B --out /dev/stdout >>"$tmp/log" 2>"$tmp/stderr" && echo "after" >>"$tmp/log" &&
  [ "$(head -n 1 "$tmp/log")" = before ] && [ "$(tail -n 1 "$tmp/log")" = after ] &&
  [ "$(grep -c '^[0-9]' "$tmp/log")" -eq 2 ]; then
  ok "--out /dev/stdout >> log appends, keeping the lines around it"
else
  notok "--out /dev/stdout >> log" "$(head -c 200 "$tmp/log" | tr '\n' '|')"
fi
echo "kept" >"$tmp/log2"
if "$AF" $B --out "$tmp/log2" >>"$tmp/log2" 2>"$tmp/stderr" &&
  [ "$(head -n 1 "$tmp/log2")" = kept ]; then
  ok "--out naming the file stdout appends to is written through"
else
  notok "--out = stdout's file" "$(head -n 2 "$tmp/log2" | tr '\n' '|')"
fi
if [ -e /dev/full ]; then
  hostile "--out /dev/full says the disk is full" 1 "No space left on device" \
    $B --out /dev/full
  hostile "--save-state /dev/full" 1 "No space left on device" \
    $B --save-state /dev/full --out "$out/r.csv"
  "$AF" $B >/dev/full 2>"$tmp/stderr"
  st=$?
  if [ "$st" -eq 1 ] && grep -q "No space left on device" "$tmp/stderr"; then
    ok "stdout on a full disk: exit 1, No space left on device"
  else
    notok "stdout on a full disk" "exit $st: $(cat "$tmp/stderr")"
  fi
  if "$AF" $CK --checkpoint /dev/full --out "$tmp/ckfull.csv" 2>"$tmp/stderr" &&
    grep -q "cannot write checkpoint '/dev/full'.*No space left on device" "$tmp/stderr" &&
    [ "$(rows "$tmp/ckfull.csv")" = "$(rows "$tmp/ck.csv")" ]; then
    ok "a checkpoint that cannot be written is reported; the result is written"
  else
    notok "a failed checkpoint write" "$(cat "$tmp/stderr")"
  fi
else
  skip "full-disk cases" "no /dev/full"
fi

# ------------------------------------------------------------ descriptors
# A path that names one of our descriptors is written through it: the
# lines the shell appended there before stay (nothing is replaced).
for opt in "--out" "--save-state" "--checkpoint"; do
  for path in /dev/stderr /dev/fd/2 /proc/self/fd/2; do
    [ -e "$path" ] || { skip "$opt $path 2>> log" "no $path"; continue; }
    echo "earlier line" >"$tmp/dlog"
    case $opt in
      --out) args="$B --out $path" ;;
      --save-state) args="$B --out $tmp/d.csv --save-state $path" ;;
      --checkpoint) args="$CK --out $tmp/d.csv --checkpoint $path" ;;
    esac
    # shellcheck disable=SC2086
    if "$AF" $args 2>>"$tmp/dlog" >/dev/null &&
      [ "$(head -n 1 "$tmp/dlog")" = "earlier line" ] &&
      [ "$(wc -l <"$tmp/dlog")" -gt 1 ]; then
      ok "$opt $path 2>> log keeps the log's earlier lines"
    else
      notok "$opt $path 2>> log" "$(head -c 200 "$tmp/dlog" | tr '\n' '|')"
    fi
  done
done
echo "earlier line" >"$tmp/dlog"
if "$AF" $B --out /dev/fd/3 3>>"$tmp/dlog" 2>"$tmp/stderr" &&
  [ "$(head -n 1 "$tmp/dlog")" = "earlier line" ] &&
  [ "$(grep -c "^[0-9]" "$tmp/dlog")" -eq 2 ]; then
  ok "--out /dev/fd/3 3>> log appends the result"
else
  notok "--out /dev/fd/3 3>> log" "$(head -c 200 "$tmp/dlog" | tr '\n' '|')"
fi
echo "earlier line" >"$tmp/dlog"
if "$AF" figure c2 --quick --out /dev/stderr 2>>"$tmp/dlog" &&
  [ "$(head -n 1 "$tmp/dlog")" = "earlier line" ]; then
  ok "figure --out /dev/stderr 2>> log keeps the log"
else
  notok "figure --out /dev/stderr 2>> log" "$(head -c 200 "$tmp/dlog" | tr '\n' '|')"
fi
hostile "--out /dev/stdin: a descriptor open only for reading" 2 \
  "names descriptor 0, which is open only for reading" $B --out /dev/stdin
hostile "--out /dev/fd/9: a descriptor not open" 2 \
  "names descriptor 9, which is not open" $B --out /dev/fd/9
hostile "--out /proc/1/fd/1: another process's descriptor" 2 \
  "is a descriptor of another process" $B --out /proc/1/fd/1
hostile "--save-state: a directory" 2 "is a directory" \
  $B --out "$out/r.csv" --save-state "$tmp"
SW="sweep --scheme post-ln --n 4 --d 3 --beta 1 --t-end 1 --seeds 1-2"
for path in /dev/full /dev/null /dev/stderr; do
  [ -e "$path" ] || continue
  [ -e "$path.journal" ] && : >"$tmp/had.$(basename "$path")"
  hostile "sweep --out $path: no journal beside a device" 2 \
    "is not a regular file" $SW --out "$path"
  if [ -e "$path.journal" ] && [ ! -e "$tmp/had.$(basename "$path")" ]; then
    notok "sweep --out $path" "left $path.journal"
  fi
done
mkfifo "$tmp/fifo" 2>/dev/null && {
  cat "$tmp/fifo" >"$tmp/fifo.out" &
  cpid=$!
  if "$AF" $B --out "$tmp/fifo" 2>"$tmp/stderr" && wait "$cpid" &&
    [ -p "$tmp/fifo" ] && [ "$(rows "$tmp/fifo.out" | wc -l)" -eq 2 ]; then
    ok "--out FIFO is written in place (the pipe stays a pipe)"
  else
    notok "--out FIFO" "$(cat "$tmp/stderr")"
  fi
}

hostile "sweep: a duplicate among 10^5 betas (sorted, not pairwise)" 2 \
  "0.5 listed twice" sweep --scheme post-ln --n 4 --d 3 --t-end 1 --seeds 1 \
  --beta "0:0.99999:0.00001,0.5" --out "$out/s.csv"

# ------------------------------------------------------------ grid bounds
# A grid's size is counted, and its memory estimated, before any value is
# expanded: 10^6 x 10^6 runs, 10^9 seeds and 10^9 betas are refused at
# once.  Under a 256 MiB address-space limit where the build allows one
# (sanitizers reserve terabytes of address space), which the expansion of
# 10^9 seeds (8 GB) would exceed.
AF_REAL=$AF
if (ulimit -v 262144 && "$AF" --version) >/dev/null 2>&1; then
  printf '#!/bin/sh\nulimit -v 262144 && exec "%s" "$@"\n' "$AF_REAL" \
    >"$tmp/af_lim" && chmod +x "$tmp/af_lim" && AF="$tmp/af_lim"
fi
G="sweep --scheme post-ln --n 4 --d 3 --t-end 1 --out $out/g.csv"
hostile "sweep: a grid of 10^6 x 10^6 runs, refused before expansion" 2 \
  "the grid has 1000000000000 runs (scheme 1 x n 1 x d 1 x beta 1000000 x seed 1000000), more than --max-runs 1000000" \
  $G --beta 0:999999:1 --seeds 0-999999
hostile "sweep: 10^9 seeds, refused before expansion" 2 \
  "more than --max-runs 1000000" $G --beta 1 --seeds 0-1000000000
hostile "sweep: 0:1:1e-9 (10^9 betas), refused before expansion" 2 \
  "more than --max-runs 1000000" $G --beta 0:1:1e-9 --seeds 1
hostile "sweep --max-runs below the grid" 2 \
  "the grid has 6 runs (scheme 1 x n 1 x d 1 x beta 3 x seed 2), more than --max-runs 5" \
  $G --beta 0:1:0.5 --seeds 1-2 --max-runs 5
hostile "sweep --max-runs 0" 2 "--max-runs must be in [1, 2147483647]" \
  $G --beta 1 --seeds 1 --max-runs 0
hostile "sweep --max-runs past the most a sweep numbers" 2 \
  "--max-runs must be in [1, 2147483647]" $G --beta 1 --seeds 1 \
  --max-runs 2147483648
# Raised to its most, a grid that fits the count but not the memory: 2^31 - 1
# runs of 3 values need 60 GiB for rank 0's table.  (Skipped on a machine
# with that much memory: there the grid would be admitted and run.)
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kib" ] && [ "$mem_kib" -lt 50000000 ]; then
  hostile "sweep --max-runs 2147483647: the table exceeds memory" 2 \
    "of memory, more than" $G --beta 1 --seeds 0-2147483646 \
    --max-runs 2147483647
else
  skip "sweep --max-runs 2147483647: the table exceeds memory" \
    "MemTotal unknown or above 50 GB"
fi
hostile "sweep: --n listed twice among many (sorted, not pairwise)" 2 \
  "--n: 7 listed twice" sweep --scheme post-ln --n "$(seq -s, 1 20000),7" \
  --d 3 --t-end 1 --beta 1 --seeds 1 --out "$out/g.csv"
AF=$AF_REAL

# ------------------------------------------------------------ leftovers
# A temporary file of a killed writer (SIGKILL: no handler runs) is
# removed by the next write to the same target; a name not of our
# pattern, and one a live writer holds (flock), are left alone.
: >"$tmp/k.csv.tmpAb3xZ9"
: >"$tmp/k.csv.tmpAb3xZ"
: >"$tmp/k.csv.tmpLIVE01"
touch -d '2000-01-01' "$tmp/k.csv.tmpAb3xZ9" "$tmp/k.csv.tmpAb3xZ" \
  "$tmp/k.csv.tmpLIVE01"
if command -v flock >/dev/null 2>&1; then
  flock "$tmp/k.csv.tmpLIVE01" sleep 30 &
  lpid=$!
  sleep 0.3
else
  lpid=
fi
if "$AF" $B --out "$tmp/k.csv" 2>"$tmp/stderr" &&
  [ ! -e "$tmp/k.csv.tmpAb3xZ9" ] && [ -e "$tmp/k.csv.tmpAb3xZ" ] &&
  { [ -z "$lpid" ] || [ -e "$tmp/k.csv.tmpLIVE01" ]; }; then
  ok "a killed run's temporary file is removed by the next run on the target"
else
  notok "stale temporary files" "$(ls "$tmp" | grep tmp | tr '\n' ' ')"
fi
[ -n "$lpid" ] && kill "$lpid" 2>/dev/null && wait "$lpid" 2>/dev/null
rm -f "$tmp"/k.csv*

# ------------------------------------------------------------ messages
# Values echoed in messages: control bytes and invalid UTF-8 escaped, a
# huge argument cut (one line, bounded).
hostile "ESC, newline and a bad byte are escaped" 2 'a\x1B[31mred\x0Ab\xFF' \
  $B --scheme "$(printf 'a\033[31mred\nb\377')"
big=$(head -c 120000 /dev/zero | tr '\0' x)
hostile "a 120 kB argument is cut in the message" 2 "bytes left out" \
  run --scheme "$big" --n 4 --d 3 --beta 1
if [ "$(wc -c <"$tmp/stderr")" -lt 1200 ]; then
  ok "the message of a 120 kB argument stays under 1200 bytes"
else
  notok "a 120 kB argument" "$(wc -c <"$tmp/stderr") bytes of message"
fi

# ------------------------------------------------------------ signals
# A run long enough to be killed (fixed steps: ~10^6 of them); the
# temporary file beside --out must be gone and --out never created.
LONG="run --scheme post-ln --n 4 --d 3 --beta 1 --t-end 10 --method rk4 --h 1e-5"
for sig in TERM HUP INT; do
  rm -rf "$out" && mkdir "$out"
  if [ "$sig" != TERM ]; then
    # A background job of a non-interactive shell ignores SIGINT, and a
    # test run under nohup ignores SIGHUP (and an ignored signal stays
    # ignored, as the command leaves it); a small Python launcher restores
    # the default.
    if command -v python3 >/dev/null 2>&1; then
      python3 -c 'import os, signal, sys
signal.signal(getattr(signal, "SIG" + sys.argv[1]), signal.SIG_DFL)
os.execv(sys.argv[2], sys.argv[2:])' "$sig" "$AF" $LONG --out "$out/r.csv" 2>/dev/null &
    else
      skip "SIG$sig" "no python3"
      continue
    fi
  else
    "$AF" $LONG --out "$out/r.csv" 2>/dev/null &
  fi
  pid=$!
  i=0
  while [ "$i" -lt 100 ] && [ -z "$(ls -A "$out")" ]; do
    sleep 0.05
    i=$((i + 1))
  done
  kill -"$sig" "$pid"
  wait "$pid"
  st=$?
  left=$(ls -A "$out")
  if [ "$st" -gt 128 ] && [ -z "$left" ]; then
    ok "SIG$sig: no temporary file left (exit $st)"
  else
    notok "SIG$sig" "exit $st, left: $left"
  fi
done

# ------------------------------------------------------------ long runs
# Rows reach standard output as their times are reached: the row of
# t = 0 is there while the run is still going; killed, it stays.
"$AF" $LONG --times 0,10 >"$tmp/stream.out" 2>/dev/null &
pid=$!
i=0
while [ "$i" -lt 200 ] && ! grep -q '^0,' "$tmp/stream.out"; do
  sleep 0.05
  i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null && grep -q '^0,' "$tmp/stream.out"; then
  ok "the row of t = 0 is on standard output while the run goes on"
else
  notok "rows streamed" "$(head -c 300 "$tmp/stream.out" | tr '\n' '|')"
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$AF" $B --times 0,0.5,1 --observables t,drift >"$tmp/s.csv" 2>"$tmp/stderr"
"$AF" $B --times 0,0.5,1 --observables t,drift --out "$tmp/f.csv" 2>>"$tmp/stderr"
if [ "$(rows "$tmp/s.csv" | grep -v '^#')" = "$(rows "$tmp/f.csv")" ] &&
  [ "$(tail -n 1 "$tmp/s.csv" | cut -c1-8)" = "# blas: " ] &&
  grep -q '^# steps: ' "$tmp/f.csv"; then
  ok "streamed rows equal the file's; the statistics follow them"
else
  notok "streamed rows" "$(tail -n 3 "$tmp/s.csv" | tr '\n' '|')"
fi
# Progress on a terminal (script(1) gives the run one), none otherwise.
if command -v script >/dev/null 2>&1 &&
  script -qec "true" /dev/null >/dev/null 2>&1; then
  # about 1 s and 2 s of CPU: progress lines start after 0.5 s
  for p in "--n 4 --t-end 3 --method rk4 --h 1e-5" \
    "--n 8 --t-end 5 --precision 160 --tol 1e-40 --method mp-gauss"; do
    script -qec "$AF run --scheme post-ln --d 3 --beta 1 $p --out $tmp/p.csv" \
      /dev/null >"$tmp/tty" 2>&1 </dev/null
    if grep -q 'steps, .* elapsed, about .* to go' "$tmp/tty"; then
      ok "progress on a terminal ($p)"
    else
      notok "progress on a terminal ($p)" "$(tr '\r' '|' <"$tmp/tty" | head -c 300)"
    fi
  done
else
  skip "progress on a terminal" "no script(1)"
fi
# --progress off a terminal: the memory line, then whole progress lines
# (at most one a second; the run takes 2-3 s), and the same rows on
# standard output as without it.
PR="run --scheme post-ln --n 4 --d 3 --beta 1 --t-end 8 --method rk4 --h 1e-5 --times 0,8"
"$AF" $PR >"$tmp/p0.csv" 2>"$tmp/p0.err"
"$AF" $PR --progress >"$tmp/p1.csv" 2>"$tmp/p1.err"
st=$?
if [ "$st" -eq 0 ] && [ ! -s "$tmp/p0.err" ] &&
  head -n 1 "$tmp/p1.err" | grep -q '^attnflow: n = 4, d = 3 with the blas kernel (work space with its n x n matrix: .*) needs about .* of memory' &&
  sed 1d "$tmp/p1.err" | grep -q '^attnflow: t = .* of 8 (.*%), .* steps, .* elapsed, about .* to go$' &&
  ! grep -q "$(printf '\r')" "$tmp/p1.err" &&
  [ "$(rows "$tmp/p0.csv" | grep -v '^#')" = "$(rows "$tmp/p1.csv" | grep -v '^#')" ]; then
  ok "run --progress off a terminal: memory, whole lines on stderr, stdout unchanged"
else
  notok "run --progress off a terminal" "exit $st: $(head -c 400 "$tmp/p1.err" | tr '\n\r' '||')"
fi
if [ ! -s "$tmp/stderr" ]; then
  ok "no progress when standard error is not a terminal"
else
  notok "no progress off a terminal" "$(head -c 200 "$tmp/stderr")"
fi

cli_summary
