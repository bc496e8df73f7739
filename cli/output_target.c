/* output_target.c -- what an output path of the command names, checked
 * before any work (af_out_target_check, output.h): descriptors of ours
 * and of other processes, devices, pipes, terminals, directories.  Apart
 * from output.c, whose writers print nothing themselves. */
#include <fcntl.h>
#include <string.h>

#include "cli.h"
#include "internal.h"
#include "output.h"

int af_out_target_check(const char *what, const char *path, const char *regular) {
  long pid;
  int fd;
  switch (af_write_target(path)) {
  case AF_TARGET_FOREIGN:
    af_cli_error("%s '%s' is a descriptor of another process: give the path "
                 "of a file", what, path);
    return 0;
  case AF_TARGET_FD:
    if (regular != NULL) break;
    if (strcmp(path, "-") != 0 && af_path_descriptor(path, &pid, &fd)) {
      int fl = fcntl(fd, F_GETFL);
      if (fl < 0) {
        af_cli_error("%s '%s' names descriptor %d, which is not open", what,
                     path, fd);
        return 0;
      }
      if ((fl & O_ACCMODE) == O_RDONLY) {
        af_cli_error("%s '%s' names descriptor %d, which is open only for "
                     "reading", what, path, fd);
        return 0;
      }
    }
    return 1;
  case AF_TARGET_SPECIAL:
    if (regular != NULL) break;
    return 1;
  case AF_TARGET_DIR:
    af_cli_error("%s '%s' is a directory, not a file", what, path);
    return 0;
  default:
    return 1;
  }
  af_cli_error("%s '%s' is not a regular file (a descriptor, device, pipe "
               "or terminal): %s", what, path, regular);
  return 0;
}
