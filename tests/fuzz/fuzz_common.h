/* fuzz_common.h -- shared by the libFuzzer harnesses of tests/fuzz/: the
 * readers that take a path get the input through one temporary file per
 * process, rewritten for every input. */
#ifndef AF_FUZZ_COMMON_H
#define AF_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Path of a file holding exactly data[0..size); NULL if it cannot be
 * written (the input is then skipped). */
static char af_fuzz_path[64];
static void af_fuzz_remove(void) { unlink(af_fuzz_path); }

static const char *af_fuzz_file(const uint8_t *data, size_t size)
{
  char *path = af_fuzz_path;
  if (path[0] == '\0') {
    /* memory-backed where there is such a directory: one write per input */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof af_fuzz_path, "%s/af_fuzz_%ld", dir,
             (long) getpid());
    atexit(af_fuzz_remove);
  }
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return NULL;
  size_t w = fwrite(data, 1, size, f);
  if (fclose(f) != 0 || w != size)
    return NULL;
  return path;
}

#endif
