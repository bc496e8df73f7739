#!/bin/sh
# test_weights_npy.sh -- per-layer weights from a NumPy .npy file
# (src/model/weights_npy.c): files made by hand here (printf, no NumPy), read
# as the text format reads the same numbers (bit for bit), two layer sets
# switching at t = h (double and MPFR paths), and malformed files refused
# with their reason.
# Run by 'make check' with top_builddir exported.
NAME=test_weights_npy.sh TAG=npy
. "$(dirname "$0")/weights_lib.sh"

# float64 (little-endian) of 0, 1, 2; float32 of 0, 1, 2
Z8='\000\000\000\000\000\000\000\000'
O8='\000\000\000\000\000\000\360\077'
T8='\000\000\000\000\000\000\000\100'
Z4='\000\000\000\000'
O4='\000\000\200\077'
T4='\000\000\000\100'
# a .npy file: header dict (padded to 64 bytes with the 10-byte preamble),
# then the data given as printf escapes
npy() { # file, dict, data
  h="$2"
  len=$(( ${#h} + 1 ))
  pad=$(( (64 - (10 + len) % 64) % 64 ))
  hl=$(( len + pad ))
  {
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((hl % 256)))\\$(printf %03o $((hl / 256)))"
    printf '%s%*s\n' "$h" "$pad" ''
    printf "$3"
  } >"$1"
}
I8="$O8$Z8$Z8$O8" # the 2 x 2 identity
Q8="$T8$Z8$Z8$T8" # 2 I
I4="$O4$Z4$Z4$O4"
Q4="$T4$Z4$Z4$T4"
npy "$tmp/id.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2, 2), }" "$I8$I8$I8"
printf '1 0\n0 1\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/id.txt"
printf '2 0\n0 2\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/q2.txt"
# two sets (float32): Q = 2I for t < h, then identity
npy "$tmp/two.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 2, 2), }" "$Q4$I4$I4$I4$I4$I4"

R="run --scheme post-ln --n 4 --d 2 --beta 1 --init gaussian --h 0.5"
rows() { "$AF" $R "$@" 2>"$tmp/err" | grep -v '^#'; }
rows --weights "$tmp/id.npy" --t-end 1 >"$tmp/a"
rows --weights "$tmp/id.txt" --t-end 1 >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok ".npy (3,2,2) <f8 = the text file, bit for bit"
else bad ".npy = text" "$(head -c 300 "$tmp/err")"; fi
# up to t = h the first set alone acts (the states; speed_mean at t = h
# is the second set's)
rows --weights "$tmp/two.npy" --t-end 0.5 | cut -d, -f1-10 >"$tmp/a"
rows --weights "$tmp/q2.txt" --t-end 0.5 | cut -d, -f1-10 >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "two sets: the first until t = h"
else bad "two sets: the first until t = h" "$(head -c 300 "$tmp/err")"; fi
# after h the second one: the run differs from Q = 2I throughout
rows --weights "$tmp/two.npy" --t-end 1.5 | tail -n 1 >"$tmp/a"
rows --weights "$tmp/q2.txt" --t-end 1.5 | tail -n 1 >"$tmp/b"
if [ -s "$tmp/a" ] && ! cmp -s "$tmp/a" "$tmp/b"; then ok "two sets: the second after t = h"
else bad "two sets: the second after t = h" "same as one set"; fi
# sweep reads it too
if "$AF" sweep --scheme post-ln --n 4 --d 2 --beta 1 --seeds 1 --t-end 1 \
    --weights "$tmp/id.npy" --out "$tmp/sw.csv" >/dev/null 2>"$tmp/err"; then
  ok "sweep --weights FILE.npy"
else bad "sweep --weights FILE.npy" "$(cat "$tmp/err")"; fi

# the MPFR path reads the sets too (each double exact at the precision):
# up to t = h the first set alone acts, bit for bit as the text file of the
# same numbers; at t = 1.5 (the second set after h) cos_mean agrees with
# the double run (rk8pd at rtol = atol = 1e-13) within 1e-12
M="--precision 96 --tol 1e-20"
rows --weights "$tmp/two.npy" --t-end 0.5 $M | cut -d, -f1-10 >"$tmp/a"
rows --weights "$tmp/q2.txt" --t-end 0.5 $M | cut -d, -f1-10 >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then ok "MPFR: two sets, the first until t = h, bit for bit"
else bad "MPFR: two sets, the first until t = h" "$(head -c 300 "$tmp/err")"; fi
a=$(rows --weights "$tmp/two.npy" --t-end 1.5 $M | tail -n 1 | cut -d, -f2)
b=$(rows --weights "$tmp/two.npy" --t-end 1.5 --rtol 1e-13 --atol 1e-13 | tail -n 1 | cut -d, -f2)
c=$(rows --weights "$tmp/q2.txt" --t-end 1.5 $M | tail -n 1 | cut -d, -f2)
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$c" ] &&
   awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 1e-12 && d > -1e-12) }'; then
  ok "MPFR: two sets at t = 1.5 = double ($a, $b)"
else bad "MPFR: two sets at t = 1.5 = double" "$a vs $b (one set: $c): $(head -c 300 "$tmp/err")"; fi

refused() { # name, file, expected message part
  "$AF" $R --weights "$2" >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st -ne 0 ] && grep -qF -- "$3" "$tmp/err"; then ok "refused: $1"
  else bad "refused: $1" "status $st: $(cat "$tmp/err")"; fi
}
D="'fortran_order': False, 'shape': (3, 2, 2), }"
npy "$tmp/f.npy" "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2, 2), }" "$I8$I8$I8"
refused "Fortran order" "$tmp/f.npy" "C order only"
npy "$tmp/f.npy" "{'descr': '>f8', $D" "$I8$I8$I8"
refused "big-endian dtype" "$tmp/f.npy" "dtype not"
npy "$tmp/f.npy" "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3, 3), }" "$I8$I8$I8"
refused "shape for another d" "$tmp/f.npy" "for the run's d"
npy "$tmp/f.npy" "{'descr': '<f8', $D" "$I8$I8"
refused "data short" "$tmp/f.npy" "data shorter than the shape says"
npy "$tmp/f.npy" "{'descr': '<f8', $D" "$I8$I8$I8$Z8"
refused "bytes after the data" "$tmp/f.npy" "bytes after the data"
npy "$tmp/f.npy" "{'descr': '<f8', 'descr': '<f8', $D" "$I8$I8$I8"
refused "key twice" "$tmp/f.npy" "a key given twice"
printf 'NUMPY not really' >"$tmp/f.npy"
refused "magic" "$tmp/f.npy" "not a .npy file (magic)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
