/* datadir.h -- where the installed data of attnflow (data/reference, the
 * certified balls) and programs are found at run time (datadir.c). */
#ifndef AF_DATADIR_H
#define AF_DATADIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The data directory (holding reference/ and reference/certified/), never
 * NULL, resolved once per process, first match wins:
 *   1. the environment variable ATTNFLOW_DATADIR, if set and not empty;
 *   2. the source tree's data/, when the program runs from the build tree;
 *   3. the installed pkgdatadir relative to the running program
 *      (/proc/self/exe in bindir or pkglibexecdir), so that a moved
 *      install still finds its data;
 *   4. the pkgdatadir configure was given (also when it does not exist:
 *      the caller's error message then names it). */
const char *af_data_dir(void);

/* The installation directory dir (as configure set it: AF_PKGDATADIR,
 * AF_PKGLIBEXECDIR, ...) as seen from the running program when the
 * installation has moved: the program's directory with the end it shares
 * with bindir (or pkglibexecdir) replaced by dir's.  Writes it into out
 * and returns 1; 0 if the program is not in such a directory (the result
 * need not exist: the caller checks). */
int af_install_dir(char *out, size_t size, const char *dir);

#ifdef __cplusplus
}
#endif
#endif /* AF_DATADIR_H */
