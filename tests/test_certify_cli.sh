#!/bin/sh
# test_certify_cli.sh -- tests of `attnflow certify`: a certificate with
# its JSON proof log, a negative control, and one clear error per kind of
# bad input.  Run by 'make check' with top_builddir and top_srcdir
# exported; by hand: top_builddir=BUILD sh tests/test_certify_cli.sh.
# Without Arb only the message saying so is checked.

top_builddir=${top_builddir:-.}
AF="$(cd "$top_builddir" 2>/dev/null && pwd)/attnflow"
if [ ! -x "$AF" ]; then
  echo "test_certify_cli.sh: $AF not found (set top_builddir)" >&2
  exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-certify.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
out="$tmp/o"
mkdir "$out"
. "$(dirname "$0")/cli_lib.sh"

if ! "$AF" certify --scheme post-ln --init angles:0,1 --t-max 1 >"$tmp/s" 2>"$tmp/e" \
   && grep -q 'no Arb' "$tmp/e"; then
  ok "built without Arb: certify says it needs Arb"
  cli_summary
  exit $?
fi

check "help" "$AF" certify --help
check "post-ln, angles 0 2 4.2: certified" "$AF" certify --scheme post-ln \
  --init angles:0,2.0,4.2 --times 1,2 --json "$tmp/log.json"
if grep -q '^status: certified' "$tmp/stdout" && grep -q '^lemma: P3h-hemisphere' "$tmp/stdout"; then
  ok "status and lemma printed"
else
  notok "status and lemma printed" "$(tr '\n' '|' <"$tmp/stdout")"
fi
if /usr/bin/python3 -c "import json, sys
v = json.load(open(sys.argv[1]))
assert v['status'] == 'certified' and v['lemma'] == 'P3h-hemisphere', v['status']
assert [b['t'] for b in v['balls']][:2] == [1, 2] and len(v['balls']) == 3
assert all(len(b['exact']) == 6 and len(b['mid']) == 6 for b in v['balls'])
assert v['hypothesis']['min_dot_w_over_norm_lower_bound'] > 0
assert 'command' in v['provenance']" "$tmp/log.json" 2>"$tmp/py"; then
  ok "proof log: status, lemma, balls at 1, 2 and T*, exact strings, provenance"
else
  notok "proof log" "$(tail -n 1 "$tmp/py")"
fi
printf '1,0\n-1,0\n' >"$tmp/anti.csv"
if "$AF" certify --scheme post-ln --init "file:$tmp/anti.csv" --t-max 10 >"$tmp/stdout" 2>&1; then
  notok "antipodal pair: could-not-certify, exit 1" "exit 0"
elif grep -q '^status: could-not-certify' "$tmp/stdout" && grep -q 'equilibrium' "$tmp/stdout"; then
  ok "antipodal pair: could-not-certify, named as a stall near an equilibrium"
else
  notok "antipodal pair" "$(tr '\n' '|' <"$tmp/stdout")"
fi
if "$AF" certify --scheme pre-ln --init "file:$tmp/anti.csv" --property cap --t-max 4 >"$tmp/stdout" 2>&1; then
  notok "antipodal pair, --property cap: refuted, exit 1" "exit 0"
elif grep -q '^status: refuted' "$tmp/stdout" && grep -q 'does not enter the cap' "$tmp/stdout"; then
  ok "antipodal pair, --property cap: refuted (never enters the cap by t = 4)"
else
  notok "antipodal pair, --property cap" "$(tr '\n' '|' <"$tmp/stdout")"
fi
if "$AF" certify --scheme post-ln --init angles:0,1.7,3.6 --init-radius 1e-6 >"$tmp/stdout" 2>&1 \
   && grep -q '^status: certified' "$tmp/stdout"; then
  ok "set of starts (--init-radius 1e-6, Lohner doubleton): certified"
else
  notok "set of starts" "$(tr '\n' '|' <"$tmp/stdout")"
fi
if "$AF" certify --scheme post-ln --init angles:0,0.5 --merges 0.9999 --merges-csv "$tmp/m.csv" \
     --json "$tmp/m.json" >"$tmp/stdout" 2>&1 \
   && grep -q '^  2 -> 1 clusters: t in \[' "$tmp/stdout" \
   && grep -q '^2,1,' "$tmp/m.csv" && grep -q '"merges": {"cos_threshold"' "$tmp/m.json"; then
  ok "merge enclosure (--merges): the one merge of two tokens, CSV and proof log"
else
  notok "merge enclosure" "$(tr '\n' '|' <"$tmp/stdout")"
fi
bad "merge threshold outside (0, 1)" 2 certify --scheme post-ln --init angles:0,0.5 --merges 1.5
bad "--merges-csv without --merges" 2 certify --scheme post-ln --init angles:0,0.5 --merges-csv x.csv
bad "non-positive --max-step" 2 certify --scheme post-ln --init angles:0,0.5 --max-step 0
bad "unknown property" 2 certify --scheme post-ln --init angles:0,0.3 --property hemisphere
bad "negative max radius" 2 certify --scheme post-ln --init angles:0,0.3 --max-radius -1
printf '1,0\n0,1.5\n' >"$tmp/off.csv"
bad "start off the sphere" 2 certify --scheme post-ln --init "file:$tmp/off.csv"
bad "n and d beyond the build" 2 certify --scheme pre-ln --init uniform --n 40 --d 4
printf '2 0\n0 1\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/w.txt"
bad "|Q^T K| > 1" 2 certify --scheme pre-ln --init angles:0,0.3 --weights "$tmp/w.txt"
printf '1 0\n0 1\n1 0\n0 1\n2 0\n0 1\n' >"$tmp/v.txt"
bad "V not the identity" 2 certify --scheme pre-ln --init angles:0,0.3 --weights "$tmp/v.txt"
# the binary formats: one layer of Q = I/2, K = I, V = I as .npy (shape
# (1, 3, 2, 2)) certifies as its text form does, to the byte; two layers
# are refused
printf '0.5 0\n0 0.5\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/h.txt"
/usr/bin/python3 -c "import struct, sys
def npy(path, shape, vals):
    h = \"{'descr': '<f8', 'fortran_order': False, 'shape': %s, }\" % (shape,)
    h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
        f.write(struct.pack('<%dd' % len(vals), *vals))
one = [0.5, 0, 0, 0.5, 1, 0, 0, 1, 1, 0, 0, 1]
npy(sys.argv[1], (1, 3, 2, 2), one)
npy(sys.argv[2], (2, 3, 2, 2), one + one)
" "$tmp/h.npy" "$tmp/h2.npy"
"$AF" certify --scheme pre-ln --init angles:0,0.3 --weights "$tmp/h.txt" \
  | grep -v CPU >"$tmp/wt" 2>&1
"$AF" certify --scheme pre-ln --init angles:0,0.3 --weights "$tmp/h.npy" \
  | grep -v CPU >"$tmp/wn" 2>&1
if grep -q '^status: certified' "$tmp/wt" && cmp -s "$tmp/wt" "$tmp/wn"; then
  ok "weights from .npy: the text form's certificate, byte for byte"
else
  notok "weights from .npy" "$(tr '\n' '|' <"$tmp/wn")"
fi
bad "two layers of weights" 2 certify --scheme pre-ln --init angles:0,0.3 \
  --weights "$tmp/h2.npy"
bad "unreachable horizon" 2 certify --scheme pre-ln --init angles:0,0.3 --t-max 1e9
bad "Mix-LN horizon before tau" 2 certify --scheme mix-ln --init angles:0,0.3 --tau 4 --t-max 2
bad "unknown scheme" 2 certify --scheme rms --init angles:0,0.3
bad "missing --init" 2 certify --scheme post-ln
printf 'name = own\nspeed = 1\nradial = 0\nlayer = sphere\n' >"$tmp/own.scheme"
bad "both --scheme and --scheme-def" 2 certify --scheme post-ln \
  --scheme-def "$tmp/own.scheme" --init angles:0,0.3
# spec'd schemes (theorems.md U-close): a speed of ta, na closes by
# U-close; one that reads r or t only under --property cap
sd="$top_srcdir/data/schemes"
check "deepnorm spec: certified by U-close" "$AF" certify \
  --scheme-def "$sd/deepnorm.scheme" --init angles:0,1.7,3.6 --json "$tmp/spec.json"
if grep -q '^lemma: U-close' "$tmp/stdout" && grep -q '^T\*: 4.08' "$tmp/stdout"; then
  ok "deepnorm: lemma U-close at T* = 4.08 (twice Post-LN's 2.0)"
else
  notok "deepnorm: lemma U-close at T* = 4.08" "$(tr '\n' '|' <"$tmp/stdout")"
fi
if /usr/bin/python3 -c "import json, sys
v = json.load(open(sys.argv[1]))
assert v['lemma'] == 'U-close' and v['system']['scheme'] == 'deepnorm'
h = v['hypothesis']
assert h['speed_lower_bound'] == 2 and h['speed_upper_bound'] == 2, h
assert v['provenance']['scheme_def_speed'] == 'k'
" "$tmp/spec.json"; then
  ok "deepnorm proof log: lemma, speed bounds, the spec's speed in provenance"
else
  notok "deepnorm proof log" "$(head -c 400 "$tmp/spec.json")"
fi
bad "peri-damped without --property (no lemma for a speed reading r, t)" 2 \
  certify --scheme-def "$sd/peri-damped.scheme" --init angles:0,0.5
check "peri-damped: enters the cap by t-max 64" "$AF" certify \
  --scheme-def "$sd/peri-damped.scheme" --init angles:0,0.5 --property cap
if grep -q '^property: the flow enters the cap' "$tmp/stdout"; then
  ok "peri-damped: the property stated, not convergence"
else
  notok "peri-damped: the property stated" "$(tr '\n' '|' <"$tmp/stdout")"
fi
bad "mix-ln spec reads tau" 2 certify --scheme-def "$sd/mix-ln.scheme" \
  --init angles:0,0.3
bad "raw-scores spec changes the scores" 2 certify \
  --scheme-def "$sd/raw-scores.scheme" --init angles:0,0.3 --property cap
printf 'name = bad\nspeed = 1 +\nradial = 0\nlayer = sphere\n' >"$tmp/bad.scheme"
bad "spec with a syntax error" 2 certify --scheme-def "$tmp/bad.scheme" \
  --init angles:0,0.3
cli_summary
