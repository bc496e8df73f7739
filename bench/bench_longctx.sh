#!/usr/bin/env bash
# bench_longctx.sh -- long context on a random start: one layer (h = 1) of
# the layer maps S7 at n = 10^5 tokens, d = 64, directions uniform on the
# sphere (seeded), through 'attnflow run' with the tiled kernel and the
# tiled pair observables (theorems.md N.tiled, N.obs).  Reports the wall
# and CPU time and the peak resident memory (/usr/bin/time -v), the
# observables at t = 0 and t = 1, and a consistency check of the O(n^2)
# pair sum against an O(n d) identity: for unit directions with mean m,
#     sum_{i<j} (1 - <th_i, th_j>) = N - (n^2 |m|^2 - n) / 2,
#     var = 1 - |m|^2, so gap_mean = 1 - (n (1 - var) - 1) / (n - 1),
# N = n (n - 1) / 2: the deviation of gap_mean from the right-hand side,
# relative, against (N + 4 n d) u (the two sums' worst-case rounding).
#
#   bench/bench_longctx.sh [--n N] [--d D] [--beta B] [--scheme S]
#                          [--seed S] [--threads T] [--out FILE.csv]
#
# Defaults: n = 100000, d = 64, beta = 1, post-ln, seed 1, 2 threads,
# bench_longctx.csv.  About 12 min of CPU at the defaults on the machine
# of docs/performance.md (three attention evaluations, the layer's and
# the speeds of the two outputs', and two pair loops).  Run it from a
# built tree, under nice on a shared machine.
set -u
export LC_ALL=C
n=100000
d=64
beta=1
scheme=post-ln
seed=1
threads=2
out=bench_longctx.csv
while [ $# -gt 0 ]; do
  case $1 in
  --n) n=$2; shift 2 ;;
  --d) d=$2; shift 2 ;;
  --beta) beta=$2; shift 2 ;;
  --scheme) scheme=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --threads) threads=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  *) echo "bench_longctx.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
af=${ATTNFLOW:-./attnflow}
[ -x "$af" ] || { echo "bench_longctx.sh: no '$af' (run from a built tree or set ATTNFLOW)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_longctx.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
tlog=$(mktemp) || exit 1
trap 'rm -f "$tlog"' EXIT
OMP_NUM_THREADS=$threads /usr/bin/time -v "$af" run --scheme "$scheme" \
  --n "$n" --d "$d" --beta "$beta" --seed "$seed" --init uniform \
  --method layers --h 1 --t-end 1 \
  --observables t,cos_mean,cos_min,cos_max,var,energy,clusters,speed_mean,gap_mean,gap_max \
  --out "$out" 2> "$tlog" || { cat "$tlog" >&2; exit 1; }
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tlog")
user=$(sed -n 's/.*User time (seconds): //p' "$tlog")
sys=$(sed -n 's/.*System time (seconds): //p' "$tlog")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tlog")
echo "# attnflow run --scheme $scheme --n $n --d $d --beta $beta --seed $seed --method layers --h 1 --t-end 1 (OMP_NUM_THREADS=$threads)"
echo "# wall $wall, CPU ${user} s user + ${sys} s system, peak RSS $((rss / 1024)) MiB"
grep -v '^#' "$out"
awk -F, -v n="$n" -v d="$d" '
  /^#/ || $1 == "t" { next }
  {
    var = $5; gm = $9
    rhs = 1 - (n * (1 - var) - 1) / (n - 1)
    N = n * (n - 1) / 2; u = 2^-53
    dev = (gm - rhs) / rhs; if (dev < 0) dev = -dev
    printf "t = %s: gap_mean %.17g, O(n d) identity %.17g, relative deviation %.3g (bound %.3g)\n",
      $1, gm, rhs, dev, (N + 4 * n * d) * u
  }' "$out"
