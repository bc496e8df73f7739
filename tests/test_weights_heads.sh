#!/bin/sh
# test_weights_heads.sh -- weight files with several attention heads per
# set (docs/weights.md): .npz and safetensors names Q.l.h, K.l.h, V.l.h and
# the .npy shape (L, H, 3, d, d).  Checks: the three formats give the same
# run, bit for bit, on each kernel and on two sets of two heads; head 1
# matters (the run differs from head 0 alone); two heads with the same Q, K
# and V_0 + V_1 = V follow the one-head run; the layer maps run on heads;
# refused with their messages: names of 2 and 3 parts mixed, a missing
# head, a bad head index (leading zero, not a number), a .npy with H = 0,
# and, under a spec that alters attention (U3), the same sums.
# The MPFR path sums the heads: at 128 bits it agrees with the double run,
# V_0 + V_1 = V follows the one-head MPFR run to 1e-30, and the run is bit
# for bit the same when repeated and on 1 or 2 threads.  Needs a Python with
# NumPy ($PYTHON, else Debian's /usr/bin/python3); skipped (77) without one.
# Run by 'make check' with top_builddir exported.
top_srcdir=${top_srcdir:-.}
NAME=test_weights_heads.sh TAG=heads WANT_NUMPY=1
. "$(dirname "$0")/weights_lib.sh"

cd "$tmp" || exit 99
"$PY" - <<'PYEOF' || { echo "not ok - writing the files failed"; exit 1; }
import json, struct
import numpy as np

d = 3
r = np.random.default_rng(5)
W = r.normal(0, 1 / np.sqrt(d), (2, 2, 3, d, d))  # (L, H, 3, d, d)
one = {"%s.0.%d" % ("QKV"[k], h): W[0, h, k] for h in range(2) for k in range(3)}
np.savez("h2.npz", **one)
np.save("h2.npy", W[:1])
both = {"%s.%d.%d" % ("QKV"[k], l, h): W[l, h, k]
        for l in range(2) for h in range(2) for k in range(3)}
np.savez_compressed("l2h2.npz", **both)
np.save("l2h2.npy", W)
np.savez("head0.npz", **{"%s.0" % "QKV"[k]: W[0, 0, k] for k in range(3)})


def st(path, arrays):
    hdr, data = {}, b""
    for k, a in arrays.items():
        raw = np.ascontiguousarray(a, dtype="<f8").tobytes()
        hdr[k] = {"dtype": "F64", "shape": list(a.shape),
                  "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)


st("h2.safetensors", one)
# the same Q, K in both heads and V_0 + V_1 = V exactly (dyadic entries)
q = np.round(1024 * W[0, 0, 0]) / 1024
kk = np.round(1024 * W[0, 0, 1]) / 1024
v = np.round(1024 * W[0, 0, 2]) / 1024
v0 = np.round(1024 * W[0, 1, 2]) / 1024
np.savez("split1.npz", **{"Q.0": q, "K.0": kk, "V.0": v})
np.savez("split2.npz", **{"Q.0.0": q, "K.0.0": kk, "V.0.0": v0,
                          "Q.0.1": q, "K.0.1": kk, "V.0.1": v - v0})
np.savez("mixed.npz", **{"Q.0": q, "K.0": kk, "V.0": v, "Q.0.1": q,
                         "K.0.1": kk, "V.0.1": v})
np.savez("missing.npz", **{"Q.0.0": q, "K.0.0": kk, "V.0.0": v,
                           "Q.0.1": q, "K.0.1": kk})
np.savez("lead0.npz", **{"Q.0.0": q, "K.0.0": kk, "V.0.0": v,
                         "Q.0.01": q, "K.0.01": kk, "V.0.01": v})
np.savez("notnum.npz", **{"Q.0.0": q, "K.0.0": kk, "V.0.0": v,
                          "Q.0.x": q})
np.save("h0.npy", np.zeros((1, 0, 3, d, d)))
PYEOF
cd - >/dev/null || exit 99

R="run --scheme pre-ln --n 6 --d 3 --beta 1.5 --init gaussian --h 0.5"
rows() { "$AF" $R "$@" 2>"$tmp/err" | grep -v '^#'; }
for kern in direct blas tiled; do
  rows --kernel $kern --weights "$tmp/h2.npy" --t-end 1 >"$tmp/b"
  for f in h2.npz h2.safetensors; do
    rows --kernel $kern --weights "$tmp/$f" --t-end 1 >"$tmp/a"
    if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
      ok "$f = h2.npy ($kern), bit for bit"
    else bad "$f = h2.npy ($kern)" "$(head -c 300 "$tmp/err")"; fi
  done
done
rows --weights "$tmp/l2h2.npy" --t-end 1.5 >"$tmp/b"
rows --weights "$tmp/l2h2.npz" --t-end 1.5 >"$tmp/a"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
  ok "two sets of two heads: .npz = .npy, bit for bit"
else bad "two sets of two heads" "$(head -c 300 "$tmp/err")"; fi
# (the columns after the tenth report the integration, which stops at the
# set boundary only when there is one)
rows --weights "$tmp/l2h2.npz" --t-end 0.5 | cut -d, -f1-10 >"$tmp/a"
rows --weights "$tmp/h2.npz" --t-end 0.5 | cut -d, -f1-10 >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
  ok "two sets of two heads: the first set until t = h"
else bad "two sets: first set until t = h" "$(head -c 300 "$tmp/err")"; fi
rows --weights "$tmp/head0.npz" --t-end 1 | tail -n 1 >"$tmp/a"
rows --weights "$tmp/h2.npz" --t-end 1 | tail -n 1 >"$tmp/b"
if [ -s "$tmp/a" ] && [ -s "$tmp/b" ] && ! cmp -s "$tmp/a" "$tmp/b"; then
  ok "head 1 acts (two heads differ from head 0 alone)"
else bad "head 1 acts" "same rows as head 0 alone"; fi
# two heads with V_0 + V_1 = V: the one-head run (to the integrator's
# tolerance rtol 1e-10 times a few: the fields differ by rounding only)
a=$(rows --weights "$tmp/split1.npz" --t-end 2 | tail -n 1 | cut -d, -f2-3)
b=$(rows --weights "$tmp/split2.npz" --t-end 2 | tail -n 1 | cut -d, -f2-3)
if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN {
     split(a, x, ","); split(b, y, ",");
     for (i = 1; i <= 2; i++) { e = x[i] - y[i]; if (e > 1e-9 || e < -1e-9) exit 1 }
     exit 0 }'; then
  ok "V_0 + V_1 = V: two heads follow one head ($a vs $b)"
else bad "V_0 + V_1 = V" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
if rows --weights "$tmp/h2.npz" --method layers --t-end 1 >"$tmp/a" &&
   [ "$(wc -l <"$tmp/a")" -ge 2 ]; then ok "layer maps (S7) on two heads"
else bad "layer maps on two heads" "$(head -c 300 "$tmp/err")"; fi

# the MPFR path sums the heads too (mp-gbs, mp-gauss; mp_kernel_source.c).
# Columns 2-3 of the last row, compared in decimal by Python (the MPFR rows
# carry more digits than a double): |a - b| <= tol.
near() { # a b tol
  "$PY" -c 'import sys
from decimal import Decimal as D, getcontext
getcontext().prec = 80
a, b = sys.argv[1].split(","), sys.argv[2].split(",")
sys.exit(not (len(a) == len(b) == 2 and
              all(abs(D(x) - D(y)) <= D(sys.argv[3]) for x, y in zip(a, b))))' "$1" "$2" "$3"
}
# 128 bits at --tol 1e-30 against the double run at rtol = atol = 1e-13:
# the double run's own error at t = 1.5 is below 1e-12 (as in
# test_weights_npy.sh), so the two agree within 1e-12; head 0 alone is
# farther away than that.
M="--precision 128 --tol 1e-30"
a=$(rows --weights "$tmp/h2.npz" --t-end 1.5 $M | tail -n 1 | cut -d, -f2-3)
b=$(rows --weights "$tmp/h2.npz" --t-end 1.5 --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2-3)
c=$(rows --weights "$tmp/head0.npz" --t-end 1.5 $M | tail -n 1 | cut -d, -f2-3)
if [ -n "$a" ] && [ -n "$b" ] && [ -n "$c" ] && near "$a" "$b" 1e-12 &&
   ! near "$a" "$c" 1e-6; then
  ok "MPFR: two heads at t = 1.5 = double within 1e-12 ($a vs $b)"
else bad "MPFR: two heads = double" "$a vs $b (head 0: $c): $(head -c 300 "$tmp/err")"; fi
for meth in mp-gbs mp-gauss mp-taylor; do
  a=$(rows --weights "$tmp/split1.npz" --t-end 2 $M --method $meth | tail -n 1 | cut -d, -f2-3)
  b=$(rows --weights "$tmp/split2.npz" --t-end 2 $M --method $meth | tail -n 1 | cut -d, -f2-3)
  if [ -n "$a" ] && [ -n "$b" ] && near "$a" "$b" 1e-30; then
    ok "MPFR ($meth): V_0 + V_1 = V, two heads follow one head within 1e-30"
  else bad "MPFR ($meth): V_0 + V_1 = V" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
done
# mp-taylor sums the heads by its own series (mp_taylor.c): two heads and
# two sets of them against mp-gbs at 128 bits, tol 1e-30, within 1e-28
# (measured about 1e-30: each run lands near its tolerance)
for f in h2.npz l2h2.npz; do
  a=$(rows --weights "$tmp/$f" --t-end 1.5 $M --method mp-taylor | tail -n 1 | cut -d, -f2-3)
  b=$(rows --weights "$tmp/$f" --t-end 1.5 $M --method mp-gbs | tail -n 1 | cut -d, -f2-3)
  if [ -n "$a" ] && [ -n "$b" ] && near "$a" "$b" 1e-28; then
    ok "MPFR: $f on mp-taylor = mp-gbs within 1e-28 ($a)"
  else bad "MPFR: $f on mp-taylor" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
done
# bit for bit when repeated, and for 1 or 2 threads (mp-gbs's rows run on
# OpenMP's threads, each with its own work and accumulators)
M="--precision 128 --tol 1e-25"
OMP_NUM_THREADS=2 rows --weights "$tmp/l2h2.npz" --t-end 1.5 $M >"$tmp/a"
OMP_NUM_THREADS=2 rows --weights "$tmp/l2h2.npz" --t-end 1.5 $M >"$tmp/b"
OMP_NUM_THREADS=1 rows --weights "$tmp/l2h2.npz" --t-end 1.5 $M >"$tmp/c"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/a" "$tmp/c"; then
  ok "MPFR: two sets of two heads, bit for bit repeated and on 1 or 2 threads"
else bad "MPFR: bit for bit" "$(head -c 300 "$tmp/err")"; fi
OMP_NUM_THREADS=2 rows --weights "$tmp/l2h2.npz" --t-end 1.5 $M --method mp-taylor >"$tmp/a"
OMP_NUM_THREADS=1 rows --weights "$tmp/l2h2.npz" --t-end 1.5 $M --method mp-taylor >"$tmp/c"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/c"; then
  ok "mp-taylor: two sets of two heads, bit for bit on 1 or 2 threads"
else bad "mp-taylor: bit for bit on threads" "$(head -c 300 "$tmp/err")"; fi

refused() { # message part, file, options...
  msg=$1 f=$2
  shift 2
  case "$*" in
  *--scheme-def*) set -- $(echo "$R" | sed 's/--scheme pre-ln//') "$@" ;;
  *) set -- $R "$@" ;;
  esac
  "$AF" "$@" --t-end 0.5 --weights "$tmp/$f" >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st -ne 0 ] && grep -qF -- "$msg" "$tmp/err"; then
    ok "refused: $f ($(sed 's/.*: \([^:]*: [^:]*\)$/\1/' "$tmp/err" | head -c 140))"
  else bad "refused: $f" "status $st: $(cat "$tmp/err")"; fi
}
refused "names of 3 parts mixed with names of 2 parts" mixed.npz
refused "tensor 'V.0.1' missing" missing.npz
refused "tensor 'Q.0.01': not a weight name" lead0.npz
refused "tensor 'Q.0.x': not a weight name" notnum.npz
refused "number of heads H not in [1, 4096]" h0.npy
S="$top_srcdir/data/schemes"
# a spec that alters attention (U3) runs its kernel once per head: with
# the same Q, K and V_0 + V_1 = V the two heads follow the one-head run
# (double within 1e-12 at t = 1; MPFR, 128 bits, within 1e-30), and two
# heads agree between the double and the MPFR path within 1e-12
urows() { "$AF" run --n 6 --d 3 --beta 1.5 --init gaussian --h 0.5 "$@" 2>"$tmp/err" | grep -v '^#'; }
for sch in qknorm-post raw-scores; do
  U="--scheme-def $S/$sch.scheme --t-end 1"
  a=$(urows $U --weights "$tmp/split1.npz" --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2-3)
  b=$(urows $U --weights "$tmp/split2.npz" --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2-3)
  if [ -n "$a" ] && [ -n "$b" ] && near "$a" "$b" 1e-12; then
    ok "$sch (U3), double: V_0 + V_1 = V, two heads follow one head ($a)"
  else bad "$sch (U3), double: two heads" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
  a=$(urows $U --weights "$tmp/split1.npz" --precision 128 --tol 1e-30 | tail -n 1 | cut -d, -f2-3)
  b=$(urows $U --weights "$tmp/split2.npz" --precision 128 --tol 1e-30 | tail -n 1 | cut -d, -f2-3)
  if [ -n "$a" ] && [ -n "$b" ] && near "$a" "$b" 1e-30; then
    ok "$sch (U3), MPFR: V_0 + V_1 = V, two heads follow one head within 1e-30"
  else bad "$sch (U3), MPFR: two heads" "$a vs $b: $(head -c 300 "$tmp/err")"; fi
  a=$(urows $U --weights "$tmp/h2.npz" --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2-3)
  b=$(urows $U --weights "$tmp/h2.npz" --precision 128 --tol 1e-30 | tail -n 1 | cut -d, -f2-3)
  c=$(urows $U --weights "$tmp/head0.npz" --precision 128 --tol 1e-30 | tail -n 1 | cut -d, -f2-3)
  if [ -n "$a" ] && [ -n "$b" ] && near "$a" "$b" 1e-12 && ! near "$b" "$c" 1e-6; then
    ok "$sch (U3): two heads, double = MPFR within 1e-12, head 1 acts ($b)"
  else bad "$sch (U3): two heads, double = MPFR" "$a vs $b (head 0: $c): $(head -c 300 "$tmp/err")"; fi
done

# examples/export_layers.py --heads 2 writes the same two-head weights in
# the three formats
ex="$top_srcdir/examples/export_layers.py"
if [ -f "$ex" ]; then
  for f in h.npy h.npz h.safetensors; do
    "$PY" "$ex" "$tmp/$f" --heads 2 >/dev/null &&
      "$AF" run --scheme pre-ln --n 8 --d 4 --beta 2 --weights "$tmp/$f" \
        --h 0.5 --t-end 2 --init gaussian 2>"$tmp/err" | grep -v '^#' >"$tmp/$f.csv"
  done
  "$PY" "$ex" "$tmp/one.npy" >/dev/null &&
    "$AF" run --scheme pre-ln --n 8 --d 4 --beta 2 --weights "$tmp/one.npy" \
      --h 0.5 --t-end 2 --init gaussian 2>/dev/null | grep -v '^#' >"$tmp/one.csv"
  if [ -s "$tmp/h.npy.csv" ] && cmp -s "$tmp/h.npy.csv" "$tmp/h.npz.csv" &&
     cmp -s "$tmp/h.npy.csv" "$tmp/h.safetensors.csv" &&
     ! cmp -s "$tmp/h.npy.csv" "$tmp/one.csv"; then
    ok "export_layers.py --heads 2: .npy, .npz and safetensors give the same run"
  else bad "export_layers.py --heads 2" "$(head -c 300 "$tmp/err")"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
