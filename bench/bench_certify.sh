#!/usr/bin/env bash
# bench_certify.sh -- the batch study of 'attnflow certify': seeded uniform
# starts per (scheme, n, d) at beta = 1; share certified, median and worst
# CPU, median T*, worst final radius (docs/verification.md, "Certified
# n-particle flow").
#
#   bench/bench_certify.sh [--schemes LIST] [--n LIST] [--d LIST]
#                          [--seeds A-B] [--t-max T] [--cpu-limit S]
#                          [--out FILE.tsv]
#   bench/bench_certify.sh --summarize FILE.tsv...
#
# Defaults: all six schemes, n = 3,5,8, d = 2,3, seeds 1-20, t-max 1e7
# (the largest certify accepts: under Pre-LN T* reaches 2.9e6 at n = 3),
# 300 s of CPU per start (ulimit -t), one line per start in FILE.tsv
# (default bench_certify.tsv) and the summary table on standard output.
# Run it from a built tree, under nice on a shared machine.  --summarize
# prints the tables of TSV files written by earlier runs (runs split over
# several processes, e.g. one per n): per (scheme, n, d), then per (n, d)
# over the schemes (share certified, worst CPU).
set -u
export LC_ALL=C
schemes=post-ln,pre-ln,mix-ln,peri-ln,ngpt,ln-scaling
ns=3,5,8
ds=2,3
seeds=1-20
tmax=1e7
cpu=300
out=bench_certify.tsv
summary() {
awk -F'\t' '$1 != "scheme" {
  k = $1 " | " $2 " | " $3; keys[k] = 1; tot[k]++
  if ($5 == "certified") { ok[k]++; ts[k, ok[k]] = $6 + 0
    if ($7 + 0 > fr[k]) fr[k] = $7 + 0 }
  cpu[k, tot[k]] = $8 + 0 }
function med(a, k, m,   i, j, v, n, x) {
  n = 0; for (i = 1; i <= m; i++) x[++n] = a[k, i]
  for (i = 2; i <= n; i++) { v = x[i]; for (j = i - 1; j >= 1 && x[j] > v; j--) x[j + 1] = x[j]; x[j + 1] = v }
  return n ? (n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2) : -1 }
function mx(a, k, m,   i, v) { v = 0; for (i = 1; i <= m; i++) if (a[k, i] > v) v = a[k, i]; return v }
END {
  print "| scheme | n | d | certified | median CPU (s) | worst CPU (s) | median T* | worst final radius |"
  print "|---|---|---|---|---|---|---|---|"
  for (k in keys) printf "| %s | %d/%d | %.2f | %.2f | %s | %s |\n", k, ok[k], tot[k],
    med(cpu, k, tot[k]), mx(cpu, k, tot[k]), ok[k] ? sprintf("%.4g", med(ts, k, ok[k])) : "-",
    ok[k] ? sprintf("%.2g", fr[k]) : "-"
}' "$@" | { read -r h1; read -r h2; echo "$h1"; echo "$h2"; sort; }
echo
awk -F'\t' '$1 != "scheme" { k = $2 " | " $3; keys[k] = 1; tot[k]++; ok[k] += $5 == "certified"
  if ($8 + 0 > w[k]) w[k] = $8 + 0 }
END {
  print "| n | d | starts run | certified | share | worst CPU (s) |"
  print "|---|---|---|---|---|---|"
  for (k in keys) printf "| %s | %d | %d | %.0f %% | %.1f |\n", k, tot[k], ok[k], 100 * ok[k] / tot[k], w[k]
}' "$@" | { read -r h1; read -r h2; echo "$h1"; echo "$h2"; sort -n; }
}
if [ "${1-}" = --summarize ]; then
  shift
  [ $# -gt 0 ] || { echo "bench_certify.sh: --summarize needs TSV files" >&2; exit 2; }
  summary "$@"
  exit 0
fi
while [ $# -gt 0 ]; do
  case $1 in
  --schemes) schemes=$2; shift 2 ;;
  --n) ns=$2; shift 2 ;;
  --d) ds=$2; shift 2 ;;
  --seeds) seeds=$2; shift 2 ;;
  --t-max) tmax=$2; shift 2 ;;
  --cpu-limit) cpu=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "bench_certify.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
bin=${ATTNFLOW:-./attnflow}
if ! "$bin" certify --help > /dev/null 2>&1; then
  echo "bench_certify.sh: '$bin certify' does not run (set ATTNFLOW to a built attnflow)" >&2
  exit 2
fi
s0=${seeds%-*}
s1=${seeds#*-}
printf 'scheme\tn\td\tseed\tstatus\tt_star\tfinal_radius\tcpu_s\tlemma\n' > "$out"
for sc in ${schemes//,/ }; do
  for n in ${ns//,/ }; do
    for d in ${ds//,/ }; do
      for ((s = s0; s <= s1; s++)); do
        res=$( (ulimit -t "$cpu"; "$bin" certify --scheme "$sc" --init uniform \
               --n "$n" --d "$d" --seed "$s" --t-max "$tmax") 2>&1)
        st=$(printf '%s\n' "$res" | sed -n 's/^status: //p')
        [ -n "$st" ] || st=killed-or-error
        ts=$(printf '%s\n' "$res" | sed -n 's/^T\*: //p')
        fr=$(printf '%s\n' "$res" | sed -n 's/^final radius: \([^ ]*\).*/\1/p')
        cs=$(printf '%s\n' "$res" | sed -n 's/.* bits, \([0-9.]*\) s CPU/\1/p')
        lm=$(printf '%s\n' "$res" | sed -n 's/^lemma: \([^ ]*\).*/\1/p')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sc" "$n" "$d" "$s" "$st" \
          "${ts:--}" "${fr:--}" "${cs:-$cpu}" "${lm:--}" >> "$out"
      done
    done
  done
done
summary "$out"
