#!/bin/sh
# test_scheme_def.sh -- schemes from a spec on the command line:
# 'attnflow run --scheme-def FILE' on every path (the double flow, the
# layer map, the MPFR flow) against the built-in scheme it copies, bad
# specs refused with their line and column, and 'verify --scheme-def'.
# Run by 'make check' with top_builddir and top_srcdir exported.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
AF="$(cd "$top_builddir" 2>/dev/null && pwd)/attnflow"
S="$top_srcdir/data/schemes"
if [ ! -x "$AF" ]; then
  echo "test_scheme_def.sh: $AF not found (set top_builddir)" >&2
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/af-scheme.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 k=0
ok() { k=$((k + 1)); pass=$((pass + 1)); echo "ok $k - $1"; }
bad() { k=$((k + 1)); fail=$((fail + 1)); echo "not ok $k - $1: $2"; }

# rows of a run without the provenance and statistics lines
rows() { "$AF" run "$@" 2>"$tmp/err" | grep -v '^#'; }

C="--n 5 --d 4 --beta 1.5 --init gaussian --t-end 2 --tau 0.7"
for s in post-ln pre-ln mix-ln peri-ln ngpt ln-scaling; do
  for m in rk8pd layers; do
    [ "$s/$m" = ngpt/layers ] && continue # not a spec placement
    rows --scheme "$s" $C --method $m --h 0.05 >"$tmp/a"
    rows --scheme-def "$S/$s.scheme" $C --method $m --h 0.05 >"$tmp/b"
    if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "$s $m bit for bit"
    else bad "$s $m bit for bit" "$(head -c 300 "$tmp/err")"; fi
  done
done
M="--n 3 --d 3 --beta 1.5 --t-end 1.5 --tau 0.7 --precision 96 --tol 1e-20 --digits 24"
for s in mix-ln peri-ln; do
  rows --scheme "$s" $M >"$tmp/a"
  rows --scheme-def "$S/$s.scheme" $M >"$tmp/b"
  if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "$s MPFR bit for bit"
  else bad "$s MPFR bit for bit" "$(head -c 300 "$tmp/err")"; fi
done
# the examples run on every path
for s in peri-damped deepnorm; do
  for opt in "--method rk8pd" "--method layers --h 0.05" "--precision 80 --tol 1e-15"; do
    if rows --scheme-def "$S/$s.scheme" --n 4 --d 3 --beta 1 --t-end 1 $opt \
        >"$tmp/a" && [ "$(wc -l <"$tmp/a")" -ge 3 ]; then ok "$s $opt"
    else bad "$s $opt" "$(head -c 300 "$tmp/err")"; fi
  done
done

# bad specs: exit status 2 and the place named
check_err() { # name, spec text, expected message part
  printf '%b' "$2" >"$tmp/bad.scheme"
  "$AF" run --scheme-def "$tmp/bad.scheme" --n 2 --d 2 --beta 1 \
    >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st -eq 2 ] && grep -qF -- "$3" "$tmp/err"; then ok "refused: $1"
  else bad "refused: $1" "status $st: $(cat "$tmp/err")"; fi
}
check_err "unfinished sum" 'name = x\nspeed = r +\nradial = 0\nlayer = sphere\n' 'line 2, column 12'
check_err "unknown name" 'name = x\nspeed = q\n' 'line 2, column 9: speed: unknown name'
check_err "unknown function" 'name = x\nspeed = sin(t)\n' 'unknown function'
check_err "unknown key" 'name = x\nsped = 1\n' "unknown key 'sped'"
check_err "key twice" 'name = x\nname = y\n' "key 'name' given twice"
check_err "missing layer" 'name = x\nspeed = 1\nradial = 0\n' "missing key 'layer'"
check_err "residual without branch" 'name = x\nspeed = r\nradial = ta\nlayer = residual\n' "needs 'branch'"
check_err "deep nesting" "name = x\nspeed = $(printf '(%.0s' $(seq 40))1$(printf ')%.0s' $(seq 40))\n" 'nests too deeply'
check_err "param clash" 'name = x\nparam na = 1\n' "is a variable or function name"
check_err "NUL byte" 'name = x\000\n' 'NUL byte'
if "$AF" run --scheme-def "$S/pre-ln.scheme" --scheme pre-ln --n 2 --d 2 \
    --beta 1 >/dev/null 2>"$tmp/err"; then bad "both --scheme and --scheme-def" "accepted"
else ok "both --scheme and --scheme-def refused"; fi
# a spec with layer = none has no layer map
printf 'name = x\nspeed = 2\nradial = 0\nlayer = none\n' >"$tmp/none.scheme"
if "$AF" run --scheme-def "$tmp/none.scheme" --n 2 --d 2 --beta 1 \
    --method layers --t-end 1 --h 0.5 >/dev/null 2>&1; then
  bad "layer = none refuses the layer map" "accepted"
else ok "layer = none refuses the layer map"; fi

# sweep --scheme-def: a spec'd scheme is a point of the grid, named by its
# spec, and its rows are those of the built-in it copies, bit for bit
if "$AF" sweep --scheme post-ln --scheme-def "$S/post-ln.scheme,$S/peri-damped.scheme" \
    --n 4 --d 3 --beta 1,2 --seeds 1-2 --t-end 1 --out "$tmp/sw.csv" \
    >/dev/null 2>"$tmp/err" &&
   grep '^post-ln,' "$tmp/sw.csv" | cut -d, -f2- >"$tmp/a" &&
   grep '^post-ln-spec,' "$tmp/sw.csv" | cut -d, -f2- >"$tmp/b" &&
   [ "$(wc -l <"$tmp/a")" -eq 8 ] && cmp -s "$tmp/a" "$tmp/b" &&
   [ "$(grep -c '^peri-damped,' "$tmp/sw.csv")" -eq 8 ] &&
   grep -q '^# scheme_def_peri-damped: fnv1a64=' "$tmp/sw.csv"; then
  ok "sweep --scheme-def: the spec'd post-ln bit for bit, peri-damped named"
else bad "sweep --scheme-def" "$(head -c 300 "$tmp/err")"; fi
# one run of the sweep is 'run --scheme-def' with its seed
rows --scheme-def "$S/peri-damped.scheme" --n 4 --d 3 --beta 2 --seed 2 \
  --t-end 1 | tail -n +2 | sed 's/^/peri-damped,4,3,2,2,/' >"$tmp/a"
grep '^peri-damped,4,3,2,2,' "$tmp/sw.csv" >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
  ok "sweep --scheme-def: a run equals 'run --scheme-def'"
else bad "sweep --scheme-def: a run equals 'run --scheme-def'" "differs"; fi
cp "$S/post-ln.scheme" "$tmp/copy.scheme"
if "$AF" sweep --scheme-def "$S/post-ln.scheme,$tmp/copy.scheme" --n 2 --d 2 \
    --beta 1 --seeds 1 --out "$tmp/sw2.csv" >/dev/null 2>"$tmp/err"; then
  bad "sweep: two specs of one name refused" "accepted"
elif grep -q "already a scheme of the grid" "$tmp/err"; then
  ok "sweep: two specs of one name refused"
else bad "sweep: two specs of one name refused" "$(cat "$tmp/err")"; fi

# scores and gain (U3): QK-norm with gain 2 and identity weights is
# Post-LN at beta 2 (to the integrator's tolerance: the kernels differ);
# radii scores run on the flow and the layer map; MPFR refuses them
Q="--n 5 --d 3 --init gaussian --t-end 2"
a=$(rows --scheme post-ln --beta 2 $Q | tail -n 1 | cut -d, -f2)
b=$(rows --scheme-def "$S/qknorm-post.scheme" --beta 1 $Q | tail -n 1 | cut -d, -f2)
if [ -n "$a" ] && [ -n "$b" ] &&
   awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-9 && d > -1e-9) }'; then
  ok "qknorm gain 2 = post-ln at beta 2 ($a, $b)"
else bad "qknorm gain 2 = post-ln at beta 2" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
for opt in "--method rk8pd" "--method layers --h 0.1"; do
  if rows --scheme-def "$S/raw-scores.scheme" --beta 1 $Q $opt >"$tmp/a" &&
     [ "$(wc -l <"$tmp/a")" -ge 3 ]; then ok "raw-scores $opt"
  else bad "raw-scores $opt" "$(head -c 300 "$tmp/err")"; fi
done
# the MPFR path runs scores and gain (U3.mp): its cos_mean is the double
# run's (rk8pd at rtol = atol = 1e-13) within 1e-12 (measured about 3e-16)
for sch in raw-scores qknorm-post; do
  a=$(rows --scheme-def "$S/$sch.scheme" --beta 1 $Q --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2)
  b=$(rows --scheme-def "$S/$sch.scheme" --beta 1 $Q --precision 96 --tol 1e-20 | tail -n 1 | cut -d, -f2)
  if [ -n "$a" ] && [ -n "$b" ] &&
     awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-12 && d > -1e-12) }'; then
    ok "$sch: MPFR = double ($a, $b)"
  else bad "$sch: MPFR = double" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
done
if "$AF" run --scheme-def "$S/raw-scores.scheme" --n 3 --d 3 --beta 1 \
    --precision 80 --method mp-taylor >/dev/null 2>"$tmp/err"; then
  bad "mp-taylor refuses a spec with scores" "accepted"
elif grep -q "the Taylor recursion is written for plain scores" "$tmp/err"; then
  ok "mp-taylor refuses a spec with scores, with the reason"
else bad "mp-taylor refuses a spec with scores" "$(cat "$tmp/err")"; fi
printf 'name = k\nspeed = max(na, 1/2)\nradial = 0\nlayer = sphere\n' >"$tmp/kink.scheme"
if "$AF" run --scheme-def "$tmp/kink.scheme" --n 3 --d 3 --beta 1 \
    --precision 80 --method mp-taylor >/dev/null 2>"$tmp/err"; then
  bad "mp-taylor refuses max" "accepted"
elif grep -q "not analytic" "$tmp/err"; then
  ok "mp-taylor refuses max (a kink), with the reason"
else bad "mp-taylor refuses max" "$(cat "$tmp/err")"; fi
# mp-taylor runs a plain spec: peri-damped within the tolerance of mp-gbs
a=$(rows --scheme-def "$S/peri-damped.scheme" --beta 1 $Q --precision 128 --tol 1e-30 --digits 40 --method mp-taylor | tail -n 1 | cut -d, -f2)
b=$(rows --scheme-def "$S/peri-damped.scheme" --beta 1 $Q --precision 128 --tol 1e-30 --digits 40 --method mp-gbs | tail -n 1 | cut -d, -f2)
if [ -n "$a" ] && [ -n "$b" ] &&
   awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-14 && d > -1e-14) }'; then
  ok "peri-damped on mp-taylor = mp-gbs ($a, $b; awk compares doubles)"
else bad "peri-damped on mp-taylor" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
check_err "bad scores" 'name = x\nscores = norm\n' 'line 2, column 10: scores: expected plain, radii or qknorm'
check_err "gain reads r" 'name = x\ngain = r * 2\n' 'gain: an expression of t and the params only'

# verify --scheme-def
if "$AF" verify --scheme-def "$S/peri-damped.scheme" >"$tmp/v" 2>&1 &&
   grep -q '^U2.T4.1 .* pass' "$tmp/v" && grep -q 'not checked' "$tmp/v"; then
  ok "verify --scheme-def peri-damped"
else bad "verify --scheme-def peri-damped" "$(tail -n 12 "$tmp/v")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
