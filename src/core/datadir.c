/* datadir.c -- the data directory at run time (contract in datadir.h).
 *
 * configure fixes bindir, pkglibexecdir and pkgdatadir; an install moved
 * elsewhere keeps their relative layout.  So if the running program sits
 * in a directory ending with the part of bindir (or pkglibexecdir) that
 * differs from pkgdatadir, the data is that directory with the differing
 * part replaced by pkgdatadir's.  The build-tree case compares the
 * program's directory (its libtool .libs/ stripped) with the build
 * directory. */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static char af_datadir_buf[PATH_MAX];
static int af_datadir_done;

/* 1 if dir/reference is a readable directory. */
static int has_reference(const char *dir)
{
  char p[PATH_MAX + 16];
  if (snprintf(p, sizeof p, "%s/reference", dir) >= (int) sizeof p)
    return 0;
  return access(p, R_OK | X_OK) == 0;
}

/* If exedir ends with the part of installed (bindir or pkglibexecdir)
 * that is not shared with data (e.g. pkgdatadir), write the moved data
 * directory into out and return 1. */
static int relocate(char *out, size_t size, const char *exedir,
                    const char *installed, const char *data)
{
  size_t c = 0, k = 0;
  /* Common leading directories of installed and data. */
  while (installed[k] != '\0' && installed[k] == data[k]) {
    if (installed[k] == '/')
      c = k;
    k++;
  }
  if (installed[k] == '\0' && (data[k] == '/' || data[k] == '\0'))
    c = k;
  const char *tail = installed + c; /* "/bin", "/libexec/attnflow" */
  size_t lt = strlen(tail), le = strlen(exedir);
  if (lt == 0 || le < lt || strcmp(exedir + le - lt, tail) != 0)
    return 0;
  int w = snprintf(out, size, "%.*s%s", (int) (le - lt), exedir, data + c);
  return w > 0 && (size_t) w < size;
}

/* Directory of the running program into dir; 0 if unknown. */
static int exe_dir(char *dir, size_t size)
{
  if (size < 2)
    return 0;
  ssize_t len = readlink("/proc/self/exe", dir, size - 1);
  if (len <= 0)
    return 0;
  dir[len] = '\0';
  char *slash = strrchr(dir, '/');
  if (slash == NULL)
    return 0;
  *slash = '\0';
  return 1;
}

int af_install_dir(char *out, size_t size, const char *dir)
{
  char exe[PATH_MAX];
  if (!exe_dir(exe, sizeof exe))
    return 0;
  return relocate(out, size, exe, AF_BINDIR, dir)
         || relocate(out, size, exe, AF_PKGLIBEXECDIR, dir);
}

const char *af_data_dir(void)
{
  if (af_datadir_done)
    return af_datadir_buf;
  af_datadir_done = 1;
  const char *env = getenv("ATTNFLOW_DATADIR");
  if (env != NULL && env[0] != '\0') {
    snprintf(af_datadir_buf, sizeof af_datadir_buf, "%s", env);
    return af_datadir_buf;
  }
  char exe[PATH_MAX];
  if (exe_dir(exe, sizeof exe)) {
    char dir[PATH_MAX], build[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", exe);
    size_t ld = strlen(dir);
    if (ld >= 6 && strcmp(dir + ld - 6, "/.libs") == 0)
      dir[ld - 6] = '\0';
    if (realpath(AF_ABS_BUILDDIR, build) != NULL && strcmp(dir, build) == 0
        && has_reference(AF_ABS_SRCDATADIR)) {
      snprintf(af_datadir_buf, sizeof af_datadir_buf, "%s", AF_ABS_SRCDATADIR);
      return af_datadir_buf;
    }
    if (af_install_dir(af_datadir_buf, sizeof af_datadir_buf, AF_PKGDATADIR)
        && has_reference(af_datadir_buf))
      return af_datadir_buf;
  }
  snprintf(af_datadir_buf, sizeof af_datadir_buf, "%s", AF_PKGDATADIR);
  return af_datadir_buf;
}
