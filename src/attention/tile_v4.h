/* tile_v4.h -- register tiles of 4 rows by 8 columns on vectors of 4
 * doubles (GCC's vector extension: AVX2 where a function is compiled for
 * it, pairs of SSE2 registers otherwise), shared by the tiled attention
 * kernel (attention_tiled.c) and the tiled pair observables
 * (observe_pairs.c).  A tile is t[2 r + h]: row r < 4, columns 4 h ..
 * 4 h + 3.  Every operation is one IEEE operation per lane, no fused
 * multiply-add (the build has -ffp-contract=off): the same bits at every
 * vector width. */
#ifndef AF_TILE_V4_H
#define AF_TILE_V4_H

#include <string.h>

typedef double af_tv4 __attribute__((vector_size(32)));

/* Unaligned loads and stores of 4 doubles (macros: a function returning
 * a 32-byte vector would change the ABI where AVX is not enabled). */
#define LOAD4(v, p) memcpy(&(v), (p), sizeof(af_tv4))
#define STORE4(p, v) memcpy((p), &(v), sizeof(af_tv4))

/* The loops of the macros unrolled (_Pragma), so that t stays in
 * registers. */

/* t = rows p, p + ld, p + 2 ld, p + 3 ld, 8 columns each. */
#define TILE_LOAD(t, p, ld)                                                  \
  do {                                                                       \
    _Pragma("GCC unroll 4") for (int tr_ = 0; tr_ < 4; tr_++) {                                      \
      LOAD4((t)[2 * tr_], (p) + tr_ * (ld));                                 \
      LOAD4((t)[2 * tr_ + 1], (p) + tr_ * (ld) + 4);                         \
    }                                                                        \
  } while (0)

/* Rows p, p + ld, p + 2 ld, p + 3 ld = t. */
#define TILE_STORE(p, ld, t)                                                 \
  do {                                                                       \
    _Pragma("GCC unroll 4") for (int tr_ = 0; tr_ < 4; tr_++) {                                      \
      STORE4((p) + tr_ * (ld), (t)[2 * tr_]);                                \
      STORE4((p) + tr_ * (ld) + 4, (t)[2 * tr_ + 1]);                        \
    }                                                                        \
  } while (0)

/* t[2 r + h] += x[r] * v_h (x: 4 doubles). */
#define TILE_ADD_PRODUCTS(t, x, v0, v1)                                      \
  do {                                                                       \
    _Pragma("GCC unroll 4") for (int tr_ = 0; tr_ < 4; tr_++) {                                      \
      (t)[2 * tr_] += (x)[tr_] * (v0);                                       \
      (t)[2 * tr_ + 1] += (x)[tr_] * (v1);                                   \
    }                                                                        \
  } while (0)

/* t[2 r + h] += (x[r] - v_h)^2 (x: 4 doubles). */
#define TILE_ADD_SQDIFF(t, x, v0, v1)                                        \
  do {                                                                       \
    _Pragma("GCC unroll 4") for (int tr_ = 0; tr_ < 4; tr_++) {              \
      af_tv4 d0_ = (x)[tr_] - (v0), d1_ = (x)[tr_] - (v1);                   \
      (t)[2 * tr_] += d0_ * d0_;                                             \
      (t)[2 * tr_ + 1] += d1_ * d1_;                                         \
    }                                                                        \
  } while (0)

/* S[r][k] = the recursive sum over i = 0..d-1 of ACC's terms of q_r[i]
 * and kt[i][k], for rows r < nrow (a multiple of 4) and keys k < nkey (a
 * multiple of 8); q rows of d doubles, kt rows of ldk, S rows of lds; ACC
 * is TILE_ADD_PRODUCTS (scores) or TILE_ADD_SQDIFF (squared distances).
 * Keys outer: the 8 columns of kt (8 d doubles) stay in L1 while the rows
 * pass. */
#define TILE_ROWS_BY_KEYS(S, lds, q, kt, ldk, d, nrow, nkey, ACC)            \
  do {                                                                       \
    for (size_t tk_ = 0; tk_ < (nkey); tk_ += 8)                             \
      for (size_t tr0_ = 0; tr0_ < (nrow); tr0_ += 4) {                      \
        const double *q0_ = (q) + tr0_ * (d);                                \
        af_tv4 s_[8] = {{0, 0, 0, 0}}; /* all zero */                        \
        const double *kp_ = (kt) + tk_;                                      \
        for (size_t ti_ = 0; ti_ < (d); ti_++, kp_ += (ldk)) {               \
          af_tv4 k0_, k1_;                                                   \
          LOAD4(k0_, kp_);                                                   \
          LOAD4(k1_, kp_ + 4);                                               \
          const double x_[4] = {q0_[ti_], q0_[(d) + ti_],                    \
                                q0_[2 * (d) + ti_], q0_[3 * (d) + ti_]};     \
          ACC(s_, x_, k0_, k1_);                                             \
        }                                                                    \
        TILE_STORE((S) + tr0_ * (lds) + tk_, (lds), s_);                     \
      }                                                                      \
  } while (0)

#endif
