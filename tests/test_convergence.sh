#!/bin/sh
# test_convergence.sh -- 'attnflow convergence' (cli/cli_convergence.c):
# on a small Pre-LN case the fitted orders of the fixed-step methods are
# their nominal orders (rk4 4, rkf45 and rkck 5, the layer maps 1, within
# 0.3: the median of the observed orders over errors in [1e-13, 1e-2] is
# not moved by the pre-asymptotic and the rounding ends), vern9 and every adaptive method have rows,
# the MPFR reference agrees with its independent check, the rows reach a
# pipe before the run ends, and bad options give one clear error.
# Run by 'make check'; by hand: top_builddir=BUILD sh tests/test_convergence.sh.
top_builddir=${top_builddir:-.}
AF="$top_builddir/attnflow"
[ -x "$AF" ] || { echo "test_convergence.sh: $AF not found" >&2; exit 99; }
AF=$(cd "$(dirname "$AF")" && pwd)/attnflow
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-conv.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
out="$tmp/o"
mkdir "$out" || exit 99
. "$(dirname "$0")/cli_lib.sh"

case_args="--scheme pre-ln --n 4 --d 3 --beta 1 --t-end 2 --reps 1 --ref-tol 1e-25 --ref-precision 128"
check "convergence runs" "$AF" convergence $case_args --steps 2,3,4,6,8,12,16,24,32,48,64,96,128,192,256 \
  --tols 1e-4,1e-6,1e-8,1e-10 --out "$tmp/c.csv"
order() { sed -n "s/^# order_$1: \\([-0-9.naN]*\\) .*/\\1/p" "$tmp/c.csv"; }
for mo in rk4:4 rkf45:5 rkck:5 layers:1; do
  m=${mo%%:*}; p=${mo#*:}; got=$(order "$m")
  if awk -v g="$got" -v p="$p" 'BEGIN { exit !(g != "nan" && g - p < 0.3 && p - g < 0.3) }'; then
    ok "fitted order of $m is $got (nominal $p)"
  else
    notok "fitted order of $m" "$got, nominal $p"
  fi
done
for m in rk8pd vern9 rkf45 rkck msadams; do
  n=$(grep -c "^$m,0," "$tmp/c.csv")
  [ "$n" = 4 ] && ok "$m: 4 adaptive rows" || notok "$m adaptive rows" "$n, wanted 4"
done
n=$(grep -c "^vern9,1," "$tmp/c.csv")
[ "$n" = 15 ] && ok "vern9: 15 fixed-step rows" || notok "vern9 fixed rows" "$n"
grep -q '^msadams,1,' "$tmp/c.csv" && notok "msadams" "has fixed-step rows" || ok "msadams: no fixed-step rows"
chk=$(sed -n 's/^# reference_check: max |mp-gauss - mp-gbs| = \([^ ]*\) .*/\1/p' "$tmp/c.csv")
awk -v c="$chk" 'BEGIN { exit !(c + 0 < 1e-22) }' && ok "reference checked by mp-gauss ($chk)" \
  || notok "reference check" "'$chk'"
# Streaming: the header and the first row are in a pipe while the run goes on.
"$AF" convergence $case_args --methods layers,rk4 --steps 2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536 \
  --tols 1e-4 2>/dev/null | { head -n 30 | grep -c '^layers,1,' > "$tmp/nrows"; }
[ "$(cat "$tmp/nrows")" -ge 1 ] && ok "rows reach a pipe as they are made" || notok "streaming" "no row"
bad "unknown method" 2 convergence $case_args --methods rk45
bad "refused run option" 2 convergence $case_args --times 1,2
bad "steps not integers" 2 convergence $case_args --steps 2.5
bad "tolerance out of range" 2 convergence $case_args --tols 1e-20
bad "plot needs a file" 2 convergence $case_args --plot "$out/p"
cli_summary
