/* cli_memory.c -- the command's memory check: an estimate of what a
 * request allocates (a double, so that it cannot wrap) against the
 * machine's physical memory, with headroom.
 *
 * A request is admitted if it needs at most AF_CLI_MEM_SHARE (4/5) of
 * the physical memory: the rest is left to the system, its page cache
 * and the other processes, since a process that fills all of it is
 * killed by the kernel (or swaps for hours) instead of failing cleanly.
 * The refusal and the admission (af_cli_mem_note) state the estimate
 * and the limit, so the user sees what the request really needs.
 */
#include "config.h"

#include <stdio.h>

#include "cli.h"
#include "internal.h"

const char *af_cli_bytes(char *buf, size_t cap, double b) {
  static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = -1;
  double v = b;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    u++;
  }
  if (u < 0)
    snprintf(buf, cap, "%.0f bytes", b);
  else
    snprintf(buf, cap, "%.4g bytes (%.1f %s)", b, v, unit[u]);
  return buf;
}

double af_cli_mem_limit(void) {
  size_t phys = af_mem_physical();
  return phys == 0 ? 0 : AF_CLI_MEM_SHARE * (double)phys;
}

int af_cli_mem_fits(double bytes, const char *what) {
  double lim = af_cli_mem_limit();
  size_t phys = af_mem_physical();
  char b1[64], b2[64], b3[64];
  if (lim == 0 || bytes <= lim) return 1;
  af_cli_error("%s needs about %s of memory, more than the %s a request "
               "may take (%.0f%% of the %s of this machine; the rest is left "
               "to the system)",
               what, af_cli_bytes(b1, sizeof b1, bytes),
               af_cli_bytes(b2, sizeof b2, lim), 100 * AF_CLI_MEM_SHARE,
               af_cli_bytes(b3, sizeof b3, (double)phys));
  return 0;
}

void af_cli_mem_note(double bytes, const char *what) {
  double lim = af_cli_mem_limit();
  char b1[64], b2[64];
  if (lim == 0)
    fprintf(stderr, "attnflow: %s needs about %s of memory (this machine's "
            "size unknown)\n", what, af_cli_bytes(b1, sizeof b1, bytes));
  else
    fprintf(stderr, "attnflow: %s needs about %s of memory (limit %s, %.0f%% "
            "of this machine's)\n", what, af_cli_bytes(b1, sizeof b1, bytes),
            af_cli_bytes(b2, sizeof b2, lim), 100 * AF_CLI_MEM_SHARE);
  fflush(stderr);
}
