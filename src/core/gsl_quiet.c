/* gsl_quiet.c -- the GSL error handler around the library's own GSL calls.
 *
 * GSL reports an error by calling one process-wide handler, by default
 * one that prints and aborts (GSL manual, "Error handling").  The library
 * never aborts: around its GSL calls it turns the handler off and reads
 * the status codes GSL returns, then puts back the handler its caller had
 * set, so a host program's own handler is called again afterwards.
 *
 * The handler is one global of GSL, not per thread.  Calls that overlap
 * (runs of a sweep in OpenMP threads) share one section: the first to
 * enter saves the caller's handler and the last to leave restores it, so
 * no thread's integration ever runs with the aborting default in force.
 * While such a section is open, a GSL error raised by another thread of
 * the host program is not reported to its handler either (src/attnflow.h).
 */
#include <config.h>

#include <pthread.h>

#include <gsl/gsl_errno.h>

#include "internal.h"

static pthread_mutex_t af_gsl_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long af_gsl_depth;
static gsl_error_handler_t *af_gsl_saved;

void af_gsl_quiet_enter(void)
{
  pthread_mutex_lock(&af_gsl_lock);
  if (af_gsl_depth++ == 0)
    af_gsl_saved = gsl_set_error_handler_off();
  pthread_mutex_unlock(&af_gsl_lock);
}

void af_gsl_quiet_leave(void)
{
  pthread_mutex_lock(&af_gsl_lock);
  if (af_gsl_depth > 0 && --af_gsl_depth == 0) {
    gsl_set_error_handler(af_gsl_saved);
    af_gsl_saved = NULL;
  }
  pthread_mutex_unlock(&af_gsl_lock);
}
