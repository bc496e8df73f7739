/* cli_messages.c -- messages of the command that name a cause: the
 * suggestion for a misspelt name or option ("did you mean 'post-ln'?"),
 * and the plain cause of a file that could not be opened or written
 * ("cannot open 'x/y.csv': No such file or directory").
 *
 * A suggestion is the candidate nearest to the word in the optimal string
 * alignment distance (Levenshtein with adjacent transpositions), if that
 * distance is at most 1 + (length of the word) / 4 (one slip in a short
 * name, two in a long one), else a candidate of which the word is a
 * prefix of at least 3 characters; ties go to the first candidate.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Optimal string alignment distance between a[0..la) and b[0..lb). */
static size_t af_cli_osa(const char *a, size_t la, const char *b, size_t lb) {
  if (la > 64 || lb > 64) return (size_t)-1; /* no name is that long */
  size_t d[65][65];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[la][lb];
}

const char *af_cli_nearest(const char *word, size_t len,
                           const char *const *cands, size_t n) {
  const char *best = NULL, *prefix = NULL;
  size_t bd = 1 + len / 4 + 1; /* strictly less than this */
  for (size_t k = 0; k < n; k++) {
    if (cands[k] == NULL) continue;
    size_t lc = strlen(cands[k]);
    if (lc == len && strncmp(cands[k], word, len) == 0) continue;
    size_t dist = af_cli_osa(word, len, cands[k], lc);
    if (dist < bd) {
      bd = dist;
      best = cands[k];
    }
    if (prefix == NULL && len >= 3 && lc > len && strncmp(cands[k], word, len) == 0)
      prefix = cands[k];
  }
  return best ? best : prefix;
}

const char *af_cli_did_you_mean(char *buf, size_t cap, const char *dash,
                                const char *word, const char *const *cands,
                                size_t n) {
  const char *s = af_cli_nearest(word, strlen(word), cands, n);
  if (s == NULL || cap == 0) {
    if (cap) buf[0] = '\0';
    return cap ? buf : "";
  }
  snprintf(buf, cap, "; did you mean '%s%s'?", dash ? dash : "", s);
  return buf;
}

const char *af_cli_scheme_hint(char *buf, size_t cap, const char *word) {
  const char *c[AF_SCHEME_COUNT + 3];
  size_t n = 0;
  for (int k = 0; k < AF_SCHEME_COUNT; k++) {
    const af_scheme *s = af_scheme_get((af_scheme_id)k);
    if (s) c[n++] = s->name;
  }
  c[n++] = "sa";
  c[n++] = "usa";
  c[n++] = "causal";
  return af_cli_did_you_mean(buf, cap, NULL, word, c, n);
}

const char *af_cli_method_hint(char *buf, size_t cap, const char *word) {
  const char *c[AF_METHOD_COUNT];
  for (int k = 0; k < AF_METHOD_COUNT; k++) c[k] = af_method_name((af_method)k);
  return af_cli_did_you_mean(buf, cap, NULL, word, c, AF_METHOD_COUNT);
}

const char *af_cli_obs_hint(char *buf, size_t cap, const char *word) {
  const char *c[AF_OBS_COUNT];
  for (int k = 0; k < AF_OBS_COUNT; k++) c[k] = af_obs_name((af_obs_id)k);
  return af_cli_did_you_mean(buf, cap, NULL, word, c, AF_OBS_COUNT);
}

const char *af_cli_errno_text(int rc, int err) {
  return err != 0 ? strerror(err) : af_strerror(rc);
}
