#!/usr/bin/env python3
"""Write the attention weights of a small model's layers as a .npy file,
a .npz archive or a safetensors file (chosen by the path's suffix) that
'attnflow run --weights FILE' reads (docs/weights.md).

The model here is made up and deterministic (no download, no NumPy
needed): L layers of single-head attention in d dimensions, each with
W_q, W_k, W_v (d x d, acting as y = W x) and a LayerNorm gain g (d
numbers) in front of attention.  The mapping to attnflow's Q, K, V:

    Q = W_q diag(g),  K = W_k diag(g),  V = W_v diag(g)

and beta = d / sqrt(d_head) for LayerNorm's output of norm sqrt(d) and
the 1/sqrt(d_head) of scaled dot-product attention (here d_head = d).
A model with NumPy at hand writes the same files with
numpy.save(path, np.stack([np.stack([Q, K, V]) for each layer])) (.npy)
or numpy.savez(path, **{"Q.0": Q0, "K.0": K0, "V.0": V0, "Q.1": ...})
(.npz, numpy.savez_compressed too); the safetensors file is written here
by hand (no safetensors package): an 8-byte little-endian header length,
a JSON header name -> {"dtype", "shape", "data_offsets"}, then the data.

    python3 examples/export_layers.py layers.npy      (or layers.npz,
    python3 examples/export_layers.py layers.safetensors)
    attnflow run --scheme pre-ln --n 8 --d 4 --beta 2 --weights layers.npy --h 0.5

With --heads H (after the path) each layer has H heads whose outputs are
summed (docs/weights.md, "Several heads"): head h's W_q, W_k, W_v are the
matrices above with their phases shifted by 0.5 h, and its V is scaled by
1/H (a concatenation W_o [head_0; ...] is this sum with V_h = W_o[:, block
h] W_v,h).  The files then hold the shape (L, H, 3, d, d) (.npy) or the
names Q.l.h, K.l.h, V.l.h (.npz, safetensors).
"""
import io
import json
import math
import struct
import sys
import zipfile


def npy_bytes(shape, values):
    """A version 1.0 .npy file of little-endian float64 in C order."""
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % dims
    pad = (64 - (10 + len(head) + 1) % 64) % 64
    head = head + " " * pad + "\n"
    out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode()
    return out + struct.pack("<%dd" % len(values), *values)


def npz_bytes(tensors, d):
    """A .npz archive (as numpy.savez writes: a ZIP of stored NAME.npy
    entries) of the named d x d matrices."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, values in tensors:
            z.writestr(name + ".npy", npy_bytes((d, d), values))
    return out.getvalue()


def safetensors_bytes(tensors, d):
    """A safetensors file of the named d x d matrices (F64): the header
    length (8 bytes, little-endian), the JSON header padded with spaces to
    a multiple of 8, then the tensors' bytes back to back."""
    header, data = {}, b""
    for name, values in tensors:
        raw = struct.pack("<%dd" % len(values), *values)
        header[name] = {"dtype": "F64", "shape": [d, d],
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"source": "examples/export_layers.py"}
    head = json.dumps(header).encode()
    head += b" " * ((8 - len(head) % 8) % 8)
    return struct.pack("<Q", len(head)) + head + data


def layer(l, d, shift=0.0):
    """W_q, W_k, W_v (row-major lists) and the gain of layer l (head
    phases shifted by shift)."""
    def mat(phase, scale):
        return [scale * math.cos(phase + shift + 0.7 * i + 1.3 * j + 0.4 * l)
                + (1.0 if i == j else 0.0) for i in range(d) for j in range(d)]
    gain = [1.0 + 0.1 * math.sin(l + k) for k in range(d)]
    return mat(0.0, 0.2), mat(1.0, 0.2), mat(2.0, 0.1), gain


def main():
    args = sys.argv[1:]
    H = 1
    if "--heads" in args:
        i = args.index("--heads")
        H = int(args[i + 1])
        if H < 1:
            sys.exit("--heads: at least 1")
        del args[i:i + 2]
    path = args[0] if args else "layers.npy"
    L, d = 2, 4
    values, tensors = [], []
    for l in range(L):
        for h in range(H):
            wq, wk, wv, g = layer(l, d, 0.5 * h)
            for name, w in (("Q", wq), ("K", wk), ("V", wv)):
                # W diag(g): column b scaled by g_b (V of H heads: / H)
                s = 1.0 / H if name == "V" and H > 1 else 1.0
                m = [w[a * d + b] * g[b] * s for a in range(d)
                     for b in range(d)]
                values += m
                tensors.append(("%s.%d" % (name, l) if H == 1
                                else "%s.%d.%d" % (name, l, h), m))
    if path.endswith(".npz"):
        out = npz_bytes(tensors, d)
    elif path.endswith(".safetensors"):
        out = safetensors_bytes(tensors, d)
    else:
        out = npy_bytes((L, 3, d, d) if H == 1 else (L, H, 3, d, d), values)
    with open(path, "wb") as f:
        f.write(out)
    print("%s: %d layers of %s for d = %d, beta = d / sqrt(d_head) = %g"
          % (path, L, "Q, K, V" if H == 1 else "%d heads Q, K, V" % H, d,
             d / math.sqrt(d)))


if __name__ == "__main__":
    main()
