/* status.c -- error codes and messages (generated from AF_STATUS_LIST),
 * version and commit strings. */
#include "internal.h"

static const char *const af_msgs[] = {
#define AF_X_MSG(code, msg) msg,
  AF_STATUS_LIST(AF_X_MSG)
#undef AF_X_MSG
};

static const char *const af_names[] = {
#define AF_X_NAME(code, msg) #code,
  AF_STATUS_LIST(AF_X_NAME)
#undef AF_X_NAME
};

const char *af_strerror(int status)
{
  if (status < 0 || status >= AF_STATUS_COUNT)
    return "unknown status code";
  return af_msgs[status];
}

const char *af_status_name(int status)
{
  if (status < 0 || status >= AF_STATUS_COUNT)
    return "AF_UNKNOWN";
  return af_names[status];
}

const char *af_version(void) { return PACKAGE_VERSION; }

#ifndef AF_COMMIT_STRING
#define AF_COMMIT_STRING "unknown"
#endif
const char *af_commit(void) { return AF_COMMIT_STRING; }
