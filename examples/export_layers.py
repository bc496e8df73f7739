#!/usr/bin/env python3
"""Write the attention weights of a small model's layers as one .npy file
that 'attnflow run --weights FILE.npy' reads (docs/weights.md).

The model here is made up and deterministic (no download, no NumPy
needed): L layers of single-head attention in d dimensions, each with
W_q, W_k, W_v (d x d, acting as y = W x) and a LayerNorm gain g (d
numbers) in front of attention.  The mapping to attnflow's Q, K, V:

    Q = W_q diag(g),  K = W_k diag(g),  V = W_v diag(g)

and beta = d / sqrt(d_head) for LayerNorm's output of norm sqrt(d) and
the 1/sqrt(d_head) of scaled dot-product attention (here d_head = d).
A model with NumPy at hand writes the same file with
numpy.save(path, np.stack([np.stack([Q, K, V]) for each layer])).

    python3 examples/export_layers.py layers.npy
    attnflow run --scheme pre-ln --n 8 --d 4 --beta 2 --weights layers.npy --h 0.5
"""
import math
import struct
import sys


def npy_bytes(shape, values):
    """A version 1.0 .npy file of little-endian float64 in C order."""
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    head = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % dims
    pad = (64 - (10 + len(head) + 1) % 64) % 64
    head = head + " " * pad + "\n"
    out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode()
    return out + struct.pack("<%dd" % len(values), *values)


def layer(l, d):
    """W_q, W_k, W_v (row-major lists) and the gain of layer l."""
    def mat(phase, scale):
        return [scale * math.cos(phase + 0.7 * i + 1.3 * j + 0.4 * l)
                + (1.0 if i == j else 0.0) for i in range(d) for j in range(d)]
    gain = [1.0 + 0.1 * math.sin(l + k) for k in range(d)]
    return mat(0.0, 0.2), mat(1.0, 0.2), mat(2.0, 0.1), gain


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "layers.npy"
    L, d = 2, 4
    values = []
    for l in range(L):
        wq, wk, wv, g = layer(l, d)
        for w in (wq, wk, wv):  # W diag(g): column b scaled by g_b
            values += [w[a * d + b] * g[b] for a in range(d) for b in range(d)]
    with open(path, "wb") as f:
        f.write(npy_bytes((L, 3, d, d), values))
    print("%s: %d layers of Q, K, V for d = %d, beta = d / sqrt(d_head) = %g"
          % (path, L, d, d / math.sqrt(d)))


if __name__ == "__main__":
    main()
