/* weights_named.h -- internal: what the weight readers share (not
 * installed).  weights_npy.c's .npy header parser (also used for each
 * entry of a .npz archive), the whole-file read with its bound, and the
 * assembly of af_weights from named tensors Q.l, K.l, V.l (the names of
 * .npz and safetensors files, docs/weights.md). */
#ifndef AF_WEIGHTS_NAMED_H
#define AF_WEIGHTS_NAMED_H

#include <stddef.h>

#include "attnflow.h"

#define AF_WEIGHTS_FILE_MAX ((size_t) 1 << 31) /* 2 GiB of weights */
#define AF_WEIGHTS_LAYERS_MAX 100000
#define AF_TENSOR_NAME_MAX 64

/* A .npy array's header: dtype ('<f4' if f4, else '<f8'), C order, shape
 * dims[0..rank) (rank <= AF_NPY_RANK_MAX), data from byte off on. */
#define AF_NPY_RANK_MAX 5
typedef struct {
  int f4;
  size_t rank, dims[AF_NPY_RANK_MAX];
  size_t off;
} af_npy_view;

/* Parse the magic, version, header length and header dict of the .npy
 * bytes buf[0..len) into *v; AF_EPARSE with a static reason in *what. */
int af_npy_head(af_npy_view *v, const char **what, const unsigned char *buf,
                size_t len);
/* The little-endian float32 (f4) or float64 at b, as a double (exact). */
double af_npy_get_le(const unsigned char *b, int f4);

/* The whole file at path into a new buffer *buf (free with free()) of *len
 * bytes: AF_EIO (errno kept) if unreadable, AF_EPARSE with *what set if
 * longer than AF_WEIGHTS_FILE_MAX, AF_ENOMEM. */
int af_weights_file_bytes(unsigned char **buf, size_t *len, const char **what,
                          const char *path);

/* One named tensor of a file: its name (NUL-terminated), dtype, shape and
 * raw little-endian data of exactly the shape's size. */
typedef struct {
  char name[AF_TENSOR_NAME_MAX];
  int f4;
  size_t rank, dims[AF_NPY_RANK_MAX];
  const unsigned char *data;
} af_named_tensor;

/* Weights from the tensors t[0..nt): each named Q.l, K.l or V.l (l = 0,
 * 1, ... in decimal, no leading zero) -- or all named Q.l.h, K.l.h, V.l.h
 * (head h, as l) -- of shape (d, d); L = 1 + the largest l, H = 1 + the
 * largest h, every (l, h) complete.  A failure writes its reason, naming the tensor,
 * into msg[0..cap): AF_EPARSE (a name), AF_EDIM (a shape, L), AF_ENONFINITE
 * (a weight), AF_ENOMEM. */
int af_weights_from_named(af_weights **w, char *msg, size_t cap,
                          const af_named_tensor *t, size_t nt, size_t d,
                          double layer_dt);

/* snprintf into msg[0..cap) if msg != NULL and cap > 0. */
void af_weights_msg(char *msg, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
