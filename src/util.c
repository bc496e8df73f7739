/* util.c -- atomic file output.
 *
 * af_write_atomic writes through a temporary file in the target's own
 * directory (so rename(2) is atomic on POSIX file systems), flushes and
 * fsyncs it, and renames it over the target only if everything succeeded:
 * a failed run, a full disk or an unwritable directory leaves the target
 * as it was and no temporary file behind.
 *
 * Only a regular file (or a new one) is replaced that way.  A target that
 * exists and is something else -- /dev/null, a terminal, a named pipe --
 * is written in place: renaming over it would replace the device or the
 * pipe by a regular file.  A symbolic link is followed, and the file it
 * names is replaced, not the link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int af_write_atomic(const char *path, af_writer_fn writer, void *ctx)
{
  if (path == NULL || writer == NULL || *path == '\0')
    return AF_EINVAL;
  if (strcmp(path, "-") == 0) {
    int rc = writer(stdout, ctx);
    if (fflush(stdout) != 0 && rc == AF_OK)
      rc = AF_EIO;
    return rc;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      return AF_EIO;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
      return AF_EIO;
    int rc = writer(f, ctx);
    if (fflush(f) != 0 && rc == AF_OK)
      rc = AF_EIO;
    if (fclose(f) != 0 && rc == AF_OK)
      rc = AF_EIO;
    return rc;
  }
  char *real = NULL;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    real = realpath(path, NULL); /* the link's target exists (stat above) */
    if (real != NULL)
      path = real;
  }
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (tmp == NULL) {
    free(real);
    return AF_ENOMEM;
  }
  /* temporary name beside the target: "<path>.tmpXXXXXX" */
  memcpy(tmp, path, len);
  memcpy(tmp + len, ".tmpXXXXXX", 11);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(tmp);
    free(real);
    return AF_EIO;
  }
  FILE *f = fdopen(fd, "w");
  if (f == NULL) {
    close(fd);
    unlink(tmp);
    free(tmp);
    free(real);
    return AF_EIO;
  }
  int rc = writer(f, ctx);
  if (fflush(f) != 0 && rc == AF_OK)
    rc = AF_EIO;
  if (rc == AF_OK && (ferror(f) || fsync(fileno(f)) != 0))
    rc = AF_EIO;
  if (fclose(f) != 0 && rc == AF_OK)
    rc = AF_EIO;
  if (rc == AF_OK) {
    /* mkstemp creates mode 0600; give the result the usual 0666 & ~umask */
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(tmp, 0666 & ~mask) != 0 || rename(tmp, path) != 0)
      rc = AF_EIO;
  }
  if (rc != AF_OK)
    unlink(tmp);
  free(tmp);
  free(real);
  return rc;
}
