/* util.c -- atomic file output, checked size arithmetic, checksums,
 * bounded line reading, and the removal of temporary files on a signal.
 *
 * af_write_atomic writes through a temporary file in the target's own
 * directory (so rename(2) is atomic on POSIX file systems), flushes and
 * fsyncs it, and renames it over the target only if everything succeeded:
 * a failed run, a full disk or an unwritable directory leaves the target
 * as it was and no temporary file behind.  The temporary file is
 * registered while it exists, so that af_tmp_cleanup (called from a
 * signal handler of the command) removes it.
 *
 * Only a regular file (or a new one) is replaced that way.  A target that
 * exists and is something else -- /dev/null, a terminal, a named pipe --
 * is written in place: renaming over it would replace the device or the
 * pipe by a regular file.  A target that is the file standard output
 * already writes to (--out /dev/stdout >> log) is written through
 * standard output, which keeps its append mode and the lines around it.
 * A symbolic link is followed, and the file it names is replaced, not the
 * link.
 *
 * A path that names one of this process's descriptors -- /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N, any link that leads through /proc/PID/fd/N
 * -- is written through that descriptor (a duplicate of it), whatever it
 * is open on: replacing the file behind it would drop what the shell
 * appended there before (--out /dev/stderr 2>> log).  A descriptor not
 * open for writing, or one of another process, is refused (AF_EIO,
 * errno EBADF or EPERM): there is no file we may replace.
 *
 * Temporary files left by a writer that was killed (SIGKILL gives no
 * chance to remove them) are removed by the next write to the same
 * target: a writer holds an exclusive flock(2) on its temporary file
 * while it exists, so a file "<target>.tmpXXXXXX" in the target's
 * directory that is a regular file of ours, at least AF_TMP_STALE_S
 * seconds old and lockable has no live writer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* ------------------------------------------------------------ names */

int af_name_index(const char *name, const char *const *names, size_t count,
                  size_t stride)
{
  if (name == NULL)
    return -1;
  const char *row = (const char *) names;
  for (size_t k = 0; k < count; k++, row += stride)
    if (strcmp(*(const char *const *) row, name) == 0)
      return (int) k;
  return -1;
}

/* ------------------------------------------------------------ sizes */

int af_size_mul(size_t *r, size_t a, size_t b)
{
  if (a != 0 && b > SIZE_MAX / a)
    return 0;
  *r = a * b;
  return 1;
}

int af_size_add(size_t *r, size_t a, size_t b)
{
  if (b > SIZE_MAX - a)
    return 0;
  *r = a + b;
  return 1;
}

size_t af_mem_physical(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t r;
  if (pages <= 0 || page <= 0
      || !af_size_mul(&r, (size_t) pages, (size_t) page))
    return 0;
  return r;
}

/* ------------------------------------------------------------ checksums */

uint64_t af_fnv1a64(uint64_t h, const void *p, size_t len)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < len; i++) {
    h ^= b[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

int af_write_checksummed(FILE *f, af_writer_fn writer, void *ctx,
                         const char *prefix)
{
  if (f == NULL || writer == NULL || prefix == NULL)
    return AF_EINVAL;
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (m == NULL)
    return AF_ENOMEM;
  int rc = writer(m, ctx);
  if (fclose(m) != 0 && rc == AF_OK)
    rc = AF_ENOMEM;
  if (rc == AF_OK) {
    uint64_t h = af_fnv1a64(AF_FNV1A64_INIT, buf, len);
    if (fwrite(buf, 1, len, f) != len
        || fprintf(f, "%s%016" PRIx64 "\n", prefix, h) < 0)
      rc = AF_EIO;
  }
  free(buf);
  return rc;
}

int af_checksum_line(uint64_t *h, const char *line, const char *prefix)
{
  size_t pl = strlen(prefix);
  if (strncmp(line, prefix, pl) != 0)
    return 0;
  const char *s = line + pl;
  uint64_t v = 0;
  size_t k = 0;
  for (; k < 16; k++) {
    int c = (unsigned char) s[k], dig;
    if (c >= '0' && c <= '9')
      dig = c - '0';
    else if (c >= 'a' && c <= 'f')
      dig = c - 'a' + 10;
    else
      return -1;
    v = (v << 4) | (uint64_t) dig;
  }
  if (s[k] != '\0')
    return -1;
  *h = v;
  return 1;
}

/* ------------------------------------------------------------ lines */

int af_read_line(char **buf, size_t *cap, size_t *len, int *nl, size_t max,
                 FILE *f)
{
  size_t k = 0;
  int c;
  *len = 0;
  *nl = 0;
  if (*buf == NULL || *cap == 0) {
    size_t want = max < 256 ? max + 1 : 256;
    char *b = realloc(*buf, want);
    if (b == NULL)
      return AF_LINE_NOMEM;
    *buf = b;
    *cap = want;
  }
  while ((c = getc_unlocked(f)) != EOF) {
    if (c == '\n') {
      *nl = 1;
      break;
    }
    if (c == '\0') {
      (*buf)[k] = '\0';
      *len = k;
      return AF_LINE_NUL;
    }
    if (k == max) {
      (*buf)[k] = '\0';
      *len = k;
      return AF_LINE_LONG;
    }
    if (k + 1 >= *cap) {
      size_t want = *cap > max / 2 ? max + 1 : 2 * *cap;
      char *b = realloc(*buf, want);
      if (b == NULL)
        return AF_LINE_NOMEM;
      *buf = b;
      *cap = want;
    }
    (*buf)[k++] = (char) c;
  }
  (*buf)[k] = '\0';
  *len = k;
  if (ferror(f))
    return AF_LINE_ERR;
  if (c == EOF && k == 0)
    return AF_LINE_EOF;
  return AF_LINE_OK;
}

int af_open_regular(FILE **f, const char *path)
{
  struct stat st;
  *f = NULL;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return AF_EIO;
  }
  *f = fopen(path, "r");
  return *f ? AF_OK : AF_EIO;
}

int af_open_data(FILE **f, const char *path, af_read_info *info)
{
  int rc = af_open_regular(f, path);
  if (rc != AF_OK && errno == EISDIR)
    info->what = "is a directory";
  return rc;
}

/* ------------------------------------------------------------ signals */

/* Temporary files being written: unlinked by af_tmp_cleanup (async-
 * signal-safe: it reads only these pointers and calls unlink).  A slot
 * is set after its string is complete and cleared before it is freed. */
#define AF_TMP_SLOTS 8
static char *volatile af_tmp_reg[AF_TMP_SLOTS];

static int af_tmp_register(char *path)
{
  for (int i = 0; i < AF_TMP_SLOTS; i++)
    if (af_tmp_reg[i] == NULL) {
      af_tmp_reg[i] = path;
      return i;
    }
  return -1;
}

static void af_tmp_unregister(int slot)
{
  if (slot >= 0)
    af_tmp_reg[slot] = NULL;
}

void af_tmp_cleanup(void)
{
  for (int i = 0; i < AF_TMP_SLOTS; i++) {
    char *p = af_tmp_reg[i];
    if (p != NULL)
      unlink(p);
  }
}

/* ------------------------------------------------------------ targets */

/* 1 if s (up to its end) is a decimal number without sign; *v its value
 * (at most LONG_MAX). */
static int af_path_num(const char *s, const char *end, long *v)
{
  long r = 0;
  if (s == end)
    return 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9' || r > (LONG_MAX - 9) / 10)
      return 0;
    r = 10 * r + (*s - '0');
  }
  *v = r;
  return 1;
}

/* 1 if the canonical path p is /proc/PID/fd/N or /proc/PID/task/TID/fd/N. */
static int af_path_proc_fd(const char *p, long *pid, int *fd)
{
  if (strncmp(p, "/proc/", 6) != 0)
    return 0;
  const char *a = p + 6, *b = strchr(a, '/');
  long v, n;
  if (b == NULL || !af_path_num(a, b, &v))
    return 0;
  if (strncmp(b, "/task/", 6) == 0) {
    const char *c = strchr(b + 6, '/');
    long tid;
    if (c == NULL || !af_path_num(b + 6, c, &tid))
      return 0;
    b = c;
  }
  if (strncmp(b, "/fd/", 4) != 0
      || !af_path_num(b + 4, b + strlen(b), &n) || n > INT_MAX)
    return 0;
  *pid = v;
  *fd = (int) n;
  return 1;
}

int af_path_descriptor(const char *path, long *pid, int *fd)
{
  if (path == NULL || *path == '\0')
    return 0;
  char *cur = strdup(path);
  int found = 0;
  /* One link at a time (40 as the kernel's limit): the directory part
   * canonical (realpath), the last component looked at before it is
   * followed, since following /proc/PID/fd/N leaves the descriptor. */
  for (int hop = 0; cur != NULL && hop < 40 && !found; hop++) {
    char *slash = strrchr(cur, '/');
    const char *base = slash ? slash + 1 : cur;
    if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
      break;
    char *dir;
    if (slash == NULL)
      dir = realpath(".", NULL);
    else if (slash == cur)
      dir = realpath("/", NULL);
    else {
      *slash = '\0';
      dir = realpath(cur, NULL);
      *slash = '/';
    }
    if (dir == NULL)
      break;
    size_t dl = strlen(dir), bl = strlen(base);
    char *full = malloc(dl + bl + 2);
    if (full == NULL) {
      free(dir);
      break;
    }
    memcpy(full, dir, dl);
    full[dl] = '/';
    memcpy(full + dl + 1 - (dl == 1), base, bl + 1); /* "/" + base */
    if (af_path_proc_fd(full, pid, fd)) {
      found = 1;
      free(dir);
      free(full);
      break;
    }
    struct stat st;
    char link[PATH_MAX];
    ssize_t ll;
    if (lstat(full, &st) != 0 || !S_ISLNK(st.st_mode)
        || (ll = readlink(full, link, sizeof link - 1)) <= 0) {
      free(dir);
      free(full);
      break;
    }
    link[ll] = '\0';
    free(cur);
    free(full);
    if (link[0] == '/') {
      cur = strdup(link);
    } else {
      cur = malloc(dl + (size_t) ll + 2);
      if (cur != NULL) {
        memcpy(cur, dir, dl);
        cur[dl] = '/';
        memcpy(cur + dl + 1, link, (size_t) ll + 1);
      }
    }
    free(dir);
  }
  free(cur);
  return found;
}

/* Write through descriptor fd (a duplicate: fd stays open; standard
 * output through stdout, so its buffered lines keep their order). */
static int af_write_fd(int fd, af_writer_fn writer, void *ctx)
{
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
    errno = EBADF;
    return AF_EIO;
  }
  FILE *f = stdout;
  if (fd != STDOUT_FILENO) {
    fflush(stdout);
    fflush(stderr);
    int d = dup(fd);
    f = d >= 0 ? fdopen(d, "w") : NULL; /* "w" on a descriptor: no truncation */
    if (f == NULL) {
      int e = errno;
      if (d >= 0)
        close(d);
      errno = e;
      return AF_EIO;
    }
  }
  int rc = writer(f, ctx), err = rc != AF_OK ? errno : 0;
  if (fflush(f) != 0 && rc == AF_OK) {
    rc = AF_EIO;
    err = errno;
  }
  if (f != stdout && fclose(f) != 0 && rc == AF_OK) {
    rc = AF_EIO;
    err = errno;
  }
  errno = err;
  return rc;
}

int af_write_target(const char *path)
{
  struct stat st;
  long pid;
  int fd;
  if (path == NULL || *path == '\0')
    return AF_TARGET_BAD;
  if (strcmp(path, "-") == 0)
    return AF_TARGET_FD;
  if (af_path_descriptor(path, &pid, &fd))
    return pid == (long) getpid() ? AF_TARGET_FD : AF_TARGET_FOREIGN;
  if (stat(path, &st) != 0)
    return AF_TARGET_NEW;
  if (S_ISDIR(st.st_mode))
    return AF_TARGET_DIR;
  return S_ISREG(st.st_mode) ? AF_TARGET_REGULAR : AF_TARGET_SPECIAL;
}

/* ------------------------------------------------------------ stale */

/* Remove the temporary files "<path>.tmpXXXXXX" that killed writers left
 * (the header says how they are told from live ones). */
static void af_tmp_sweep_stale(const char *path)
{
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dl = slash ? (size_t) (slash - path) : 0, bl = strlen(base);
  char *dir = malloc(dl + 2);
  if (dir == NULL)
    return;
  if (slash == NULL)
    strcpy(dir, ".");
  else if (dl == 0)
    strcpy(dir, "/");
  else {
    memcpy(dir, path, dl);
    dir[dl] = '\0';
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dp = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (dp == NULL) {
    if (dfd >= 0)
      close(dfd);
    free(dir);
    return;
  }
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    const char *nm = e->d_name;
    if (strlen(nm) != bl + 10 || strncmp(nm, base, bl) != 0
        || strncmp(nm + bl, ".tmp", 4) != 0)
      continue;
    int ours = 1;
    for (size_t k = bl + 4; k < bl + 10; k++) {
      char c = nm[k];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (c >= '0' && c <= '9')))
        ours = 0;
    }
    if (!ours)
      continue;
    int fd = openat(dirfd(dp), nm,
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
      continue;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()
        && st.st_mtime + AF_TMP_STALE_S <= now
        && flock(fd, LOCK_EX | LOCK_NB) == 0)
      unlinkat(dirfd(dp), nm, 0);
    close(fd); /* releases the lock */
  }
  closedir(dp);
  free(dir);
}

/* ------------------------------------------------------------ atomic */

int af_write_atomic(const char *path, af_writer_fn writer, void *ctx)
{
  if (path == NULL || writer == NULL || *path == '\0')
    return AF_EINVAL;
  struct stat st, out;
  long dpid;
  int dfd;
  if (strcmp(path, "-") != 0 && af_path_descriptor(path, &dpid, &dfd)) {
    if (dpid != (long) getpid()) {
      errno = EPERM;
      return AF_EIO;
    }
    return af_write_fd(dfd, writer, ctx);
  }
  int to_stdout = strcmp(path, "-") == 0;
  if (!to_stdout && stat(path, &st) == 0 && fstat(STDOUT_FILENO, &out) == 0
      && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
    to_stdout = 1; /* the file standard output writes to */
  if (to_stdout) {
    int rc = writer(stdout, ctx), err = rc != AF_OK ? errno : 0;
    if (fflush(stdout) != 0 && rc == AF_OK) {
      rc = AF_EIO;
      err = errno;
    }
    errno = err;
    return rc;
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      return AF_EIO;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL)
      return AF_EIO;
    int rc = writer(f, ctx), err = rc != AF_OK ? errno : 0;
    if (fflush(f) != 0 && rc == AF_OK) {
      rc = AF_EIO;
      err = errno;
    }
    if (fclose(f) != 0 && rc == AF_OK) {
      rc = AF_EIO;
      err = errno;
    }
    errno = err;
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
  /* The file must not exist unregistered for an instant: a signal
   * between mkstemp and the registration would leave it behind.  The
   * signals the command cleans up on wait until both are done. */
  sigset_t block, saved;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  int masked = sigprocmask(SIG_BLOCK, &block, &saved) == 0;
  af_tmp_sweep_stale(path);
  int fd = mkstemp(tmp), mkerr = errno;
  int slot = fd >= 0 ? af_tmp_register(tmp) : -1;
  if (fd >= 0)
    flock(fd, LOCK_EX | LOCK_NB); /* "a live writer" (header) */
  if (masked)
    sigprocmask(SIG_SETMASK, &saved, NULL);
  if (fd < 0) {
    free(tmp);
    free(real);
    errno = mkerr;
    return AF_EIO;
  }
  FILE *f = fdopen(fd, "w");
  if (f == NULL) {
    close(fd);
    unlink(tmp);
    af_tmp_unregister(slot);
    free(tmp);
    free(real);
    return AF_EIO;
  }
  /* err: the errno of the first failure (ENOSPC, EIO, ...), restored
   * for the caller's message after the cleanup calls. */
  int rc = writer(f, ctx), err = rc != AF_OK ? errno : 0;
  if (fflush(f) != 0 && rc == AF_OK) {
    rc = AF_EIO;
    err = errno;
  }
  if (rc == AF_OK && (ferror(f) || fsync(fileno(f)) != 0)) {
    rc = AF_EIO;
    err = errno;
  }
  if (fclose(f) != 0 && rc == AF_OK) {
    rc = AF_EIO;
    err = errno;
  }
  if (rc == AF_OK) {
    /* mkstemp creates mode 0600; give the result the usual 0666 & ~umask */
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(tmp, 0666 & ~mask) != 0 || rename(tmp, path) != 0) {
      rc = AF_EIO;
      err = errno;
    }
  }
  if (rc != AF_OK)
    unlink(tmp);
  af_tmp_unregister(slot);
  free(tmp);
  free(real);
  errno = err;
  return rc;
}
