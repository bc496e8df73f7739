#!/bin/sh
# test_weights_npz.sh -- per-layer weights from NumPy .npz archives and
# safetensors files (src/model/weights_npz.c, weights_safetensors.c):
# files written by numpy.savez, numpy.savez_compressed and a safetensors
# header written by hand, read as the text format reads the same numbers
# (bit for bit); two sets switching at t = h; and hostile files (truncated,
# a bad CRC-32, overlapping entries or offsets, a huge header length, ...)
# each refused with its reason.  Needs a Python with NumPy ($PYTHON, else
# Debian's /usr/bin/python3); skipped (77) without one.
# Run by 'make check' with top_builddir exported.
NAME=test_weights_npz.sh TAG=npz WANT_NUMPY=1
. "$(dirname "$0")/weights_lib.sh"

# Every file of the test, written in $tmp.
cd "$tmp" || exit 99
"$PY" - <<'PYEOF' || { echo "not ok - writing the files failed"; exit 1; }
import json, struct, zlib
import numpy as np

I = np.eye(2)
np.savez("id.npz", **{"Q.0": I, "K.0": I, "V.0": I})
np.savez_compressed("idc.npz", **{"Q.0": I, "K.0": I.astype(np.float32),
                                  "V.0": I})
np.savez("two.npz", **{"Q.0": 2 * I, "K.0": I, "V.0": I,
                       "Q.1": I, "K.1": I, "V.1": I})
np.savez("two_c.npz", **{"Q.0": 2 * I, "K.0": I, "V.0": I})


def npy(a):
    """The .npy bytes numpy.save writes for a."""
    import io
    b = io.BytesIO()
    np.save(b, a)
    return b.getvalue()


def zipw(path, entries, comment=b"", flags=0, at=None, cd_usize=None):
    """A ZIP archive of (name, bytes, method) entries, written by hand so
    that offsets, CRCs and sizes can be set wrong on purpose: at[i] moves
    entry i's local header to another offset of the file (its bytes are
    then laid out by the caller)."""
    out, cd = b"", b""
    for i, (name, data, method) in enumerate(entries):
        comp = data if method == 0 else zlib.compress(data)[2:-4]
        crc = zlib.crc32(data)
        off = len(out) if at is None else at[i]
        us = len(data) if cd_usize is None else cd_usize
        loc = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, flags, method, 0, 0,
                          crc, len(comp), len(data), len(name), 0)
        if at is None:
            out += loc + name + comp
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, flags,
                          method, 0, 0, crc, len(comp), us, len(name), 0, 0,
                          0, 0, 0, off) + name
    return out, cd, comment


def finish(path, out, cd, comment=b""):
    eocd = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, cd.count(b"PK\x01\x02"),
                       cd.count(b"PK\x01\x02"), len(cd), len(out),
                       len(comment))
    open(path, "wb").write(out + cd + eocd + comment)


def npz(path, arrays, **kw):
    ents = [(n.encode() + b".npy", npy(a), 0) for n, a in arrays.items()]
    out, cd, c = zipw(path, ents, **kw)
    finish(path, out, cd, c)


good = {"Q.0": I, "K.0": I, "V.0": I}
npz("hand.npz", good)  # the hand writer agrees with NumPy's reader
assert (np.load("hand.npz")["Q.0"] == I).all()
raw = open("id.npz", "rb").read()
open("trunc.npz", "wb").write(raw[:-10])
b = bytearray(raw)
b[b.index(b"\x93NUMPY") + 130] ^= 1  # a data byte of the first entry
open("crc.npz", "wb").write(bytes(b))
b = bytearray(open("idc.npz", "rb").read())
b[60] ^= 0x55  # inside the first entry's deflate stream
open("inflate.npz", "wb").write(bytes(b))
npz("missing.npz", {"Q.0": I, "K.0": I, "V.0": I, "Q.1": I, "K.1": I})
npz("name.npz", {"Q.0": I, "K.0": I, "V.0": I, "W.0": I})
npz("shape.npz", {"Q.0": np.eye(3), "K.0": I, "V.0": I})
npz("nan.npz", {"Q.0": np.array([[1, 0], [0, np.nan]]), "K.0": I, "V.0": I})
npz("bigend.npz", {"Q.0": I.astype(">f8"), "K.0": I, "V.0": I})
npz("comment.npz", good, comment=b"hi")
npz("encrypted.npz", good, flags=1)
npz("huge.npz", good, cd_usize=0x7fffffff)
ents = [(b"Q.0.npy", npy(I), 0), (b"Q.0.npy", npy(I), 0)]
out, cd, c = zipw("twice.npz", ents)
finish("twice.npz", out, cd)
# overlap: the second entry's local header and data lie inside the first
# entry's data (which is its own valid bytes, CRC-32 included)
inner_name = b"K.0.npy"
inner = npy(I)
inner_loc = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0,
                        zlib.crc32(inner), len(inner), len(inner),
                        len(inner_name), 0) + inner_name + inner
outer_name = b"Q.0.npy"
outer = npy(I)[:0] + inner_loc  # the first entry's data: the second entry
out, cd, _ = zipw("overlap.npz", [(outer_name, outer, 0),
                                  (inner_name, inner, 0)],
                  at=[0, 30 + len(outer_name)])
out = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0,
                  zlib.crc32(outer), len(outer), len(outer),
                  len(outer_name), 0) + outer_name + outer
finish("overlap.npz", out, cd)


def st(path, arrays, dtype="F64", meta=True, hlen=None, cut=0, extra=b"",
       offsets=None, header=None):
    """A safetensors file written by hand (no safetensors package): 8-byte
    little-endian header length, JSON header padded with spaces, data."""
    hdr, data, off = {}, b"", 0
    for i, (k, a) in enumerate(arrays.items()):
        raw = np.ascontiguousarray(a, dtype="<f8" if dtype != "F32"
                                   else "<f4").tobytes()
        o = [off, off + len(raw)] if offsets is None else offsets[i]
        hdr[k] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": o}
        off += len(raw)
        data += raw
    if meta:
        hdr["__metadata__"] = {"format": "np", "note": "caf\u00e9 \"q\""}
    h = header if header is not None else json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    n = len(h) if hlen is None else hlen
    out = struct.pack("<Q", n) + h + data + extra
    open(path, "wb").write(out[:len(out) - cut])


st("id.safetensors", good)
st("id32.safetensors", good, dtype="F32", meta=False)
st("two.safetensors", {"Q.0": 2 * I, "K.0": I, "V.0": I,
                       "Q.1": I, "K.1": I, "V.1": I})
st("hugehdr.safetensors", good, hlen=1 << 40)
st("longhdr.safetensors", good, hlen=100000)
st("trunc.safetensors", good, cut=8)
st("overlap.safetensors", good, offsets=[[0, 32], [24, 56], [56, 88]])
st("gap.safetensors", good, offsets=[[0, 32], [40, 72], [72, 104]],
   extra=b"\0" * 8)
st("tail.safetensors", good, extra=b"\0" * 8)
st("bf16.safetensors", good, dtype="BF16")
st("span.safetensors", good, offsets=[[0, 32], [32, 64], [64, 88]])
st("json.safetensors", good,
   header=b'{"Q.0": {"dtype": "F64", "shape": [2, 2], '
          b'"data_offsets": [0, 32]},}')
st("dup.safetensors", good,
   header=b'{"Q.0": {"dtype": "F64", "shape": [2, 2], '
          b'"data_offsets": [0, 32]}, "Q.0": {"dtype": "F64", '
          b'"shape": [2, 2], "data_offsets": [32, 64]}, "V.0": {"dtype": '
          b'"F64", "shape": [2, 2], "data_offsets": [64, 96]}}')
st("key.safetensors", good,
   header=b'{"Q.0": {"dtype": "F64", "shape": [2, 2], "offsets": [0, 32]}}')
PYEOF
cd - >/dev/null || exit 99
printf '1 0\n0 1\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/id.txt"
printf '2 0\n0 2\n1 0\n0 1\n1 0\n0 1\n' >"$tmp/q2.txt"

R="run --scheme post-ln --n 4 --d 2 --beta 1 --init gaussian --h 0.5"
rows() { "$AF" $R "$@" 2>"$tmp/err" | grep -v '^#'; }
rows --weights "$tmp/id.txt" --t-end 1 >"$tmp/b"
for f in id.npz idc.npz hand.npz id.safetensors id32.safetensors; do
  rows --weights "$tmp/$f" --t-end 1 >"$tmp/a"
  if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
    ok "$f = the text file, bit for bit"
  else bad "$f = text" "$(head -c 300 "$tmp/err")"; fi
done
for f in two.npz two.safetensors; do
  rows --weights "$tmp/$f" --t-end 0.5 | cut -d, -f1-10 >"$tmp/a"
  rows --weights "$tmp/q2.txt" --t-end 0.5 | cut -d, -f1-10 >"$tmp/b"
  if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
    ok "$f: the first set until t = h"
  else bad "$f: the first set until t = h" "$(head -c 300 "$tmp/err")"; fi
  rows --weights "$tmp/$f" --t-end 1.5 | tail -n 1 >"$tmp/a"
  rows --weights "$tmp/q2.txt" --t-end 1.5 | tail -n 1 >"$tmp/b"
  if [ -s "$tmp/a" ] && ! cmp -s "$tmp/a" "$tmp/b"; then
    ok "$f: the second set after t = h"
  else bad "$f: the second set after t = h" "same as one set"; fi
done
if "$AF" sweep --scheme post-ln --n 4 --d 2 --beta 1 --seeds 1 --t-end 1 \
    --weights "$tmp/idc.npz" --out "$tmp/sw.csv" >/dev/null 2>"$tmp/err"; then
  ok "sweep --weights FILE.npz"
else bad "sweep --weights FILE.npz" "$(cat "$tmp/err")"; fi

refused() { # file, expected message part
  "$AF" $R --weights "$tmp/$1" >/dev/null 2>"$tmp/err"
  st=$?
  if [ $st -ne 0 ] && grep -qF -- "$2" "$tmp/err"; then
    ok "refused: $1 ($(sed 's/.*: \([^:]*: [^:]*\)$/\1/' "$tmp/err" | head -c 120))"
  else bad "refused: $1" "status $st: $(cat "$tmp/err")"; fi
}
refused trunc.npz "no end-of-central-directory record"
refused crc.npz "entry 'Q.0.npy': CRC-32 mismatch"
refused inflate.npz "entry 'Q.0.npy': "
refused overlap.npz "entry 'K.0.npy': overlaps the entry before it"
refused missing.npz "tensor 'V.1' missing"
refused name.npz "tensor 'W.0': not a weight name"
refused shape.npz "tensor 'Q.0': shape (3, 3) is not (d, d)"
refused nan.npz "tensor 'Q.0': entry [1][1] is NaN or infinite"
refused bigend.npz "entry 'Q.0.npy': as .npy: dtype not"
refused comment.npz "archive comment"
refused encrypted.npz "entry 'Q.0.npy': encrypted"
refused huge.npz "uncompressed size larger than a (d, d) float64 array"
refused twice.npz "entry 'Q.0.npy': name given twice"
refused hugehdr.safetensors "header length 1099511627776 larger than 100 MB"
refused longhdr.safetensors "header length 100000 larger than the file"
refused trunc.safetensors "tensor 'V.0': data_offsets [64, 96] past the end of the file"
refused overlap.safetensors "tensor 'K.0': data_offsets [24, 56] overlap the tensor 'Q.0'"
refused gap.safetensors "tensor 'K.0': 8 unused bytes before its data_offsets"
refused tail.safetensors "8 bytes after the last tensor's data"
refused bf16.safetensors "tensor 'Q.0': header byte"
refused span.safetensors "tensor 'V.0': data_offsets span 24 bytes"
refused json.safetensors "expected a string"
refused dup.safetensors "tensor 'Q.0': given twice"
refused key.safetensors "a tensor key other than dtype, shape, data_offsets"
grep -q "dtype not F64 or F32" "$tmp/err" 2>/dev/null || true
"$AF" $R --weights "$tmp/bf16.safetensors" >/dev/null 2>"$tmp/err"
if grep -qF "dtype not F64 or F32" "$tmp/err"; then ok "BF16 named as the dtype refused"
else bad "BF16 named" "$(cat "$tmp/err")"; fi
# the MPFR path reads the binary formats too (doubles, exact at any
# precision): up to t = h the first set (Q = 2I) gives the bits of the text
# file of the same numbers, and not those of the identity
rows --weights "$tmp/q2.txt" --precision 64 --t-end 0.5 | cut -d, -f1-10 >"$tmp/mb"
rows --precision 64 --t-end 0.5 | cut -d, -f1-10 >"$tmp/mi"
for f in two.npz two.safetensors; do
  rows --weights "$tmp/$f" --precision 64 --t-end 0.5 | cut -d, -f1-10 >"$tmp/ma"
  if [ -s "$tmp/ma" ] && cmp -s "$tmp/ma" "$tmp/mb" && ! cmp -s "$tmp/ma" "$tmp/mi"; then
    ok "MPFR reads $f: the text file's bits up to t = h"
  else bad "MPFR reads $f" "$(head -c 300 "$tmp/err")"; fi
done

# examples/export_layers.py writes the same weights in the three formats
ex="${top_srcdir:-.}/examples/export_layers.py"
if [ -f "$ex" ]; then
  for f in layers.npy layers.npz layers.safetensors; do
    "$PY" "$ex" "$tmp/$f" >/dev/null &&
      "$AF" run --scheme pre-ln --n 8 --d 4 --beta 2 --weights "$tmp/$f" \
        --h 0.5 --t-end 2 --init gaussian 2>"$tmp/err" | grep -v '^#' >"$tmp/$f.csv"
  done
  if [ -s "$tmp/layers.npy.csv" ] && cmp -s "$tmp/layers.npy.csv" "$tmp/layers.npz.csv" &&
     cmp -s "$tmp/layers.npy.csv" "$tmp/layers.safetensors.csv"; then
    ok "export_layers.py: .npy, .npz and safetensors give the same run"
  else bad "export_layers.py: three formats" "$(head -c 300 "$tmp/err")"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
