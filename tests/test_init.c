/* test_init.c -- unit tests of the initial conditions (af_init_state,
 * af_init_read_file) and of af_write_atomic (src/model/init.c, src/core/util.c).
 *
 * Kinds: contracts of every init spec (unit norms, radii, the cap's cosine
 * bound, the hemisphere, orthonormal frames), statistical properties of the
 * random starts with bounds derived below, determinism in the seed, every
 * error code of the file reader and of the spec parser provoked on purpose
 * (with the offending line), and the atomicity of af_write_atomic.
 *
 * Rounding budget used throughout: a direction is x/|x| computed in double;
 * |x| carries a relative error of at most (d/2 + 1) eps (sum of d squares,
 * sqrt), the division one more eps, so | |theta| - 1 | <= (d + 4) eps is a
 * safe bound (Higham, Accuracy and Stability, ch. 3).  Cosines <th_i, th_j>
 * of two such vectors are within (2d + 8) eps of the exact value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aftest.h"
#include "attnflow_mp.h"

#define EPS DBL_EPSILON

/* Bound on | |theta| - 1 | for a direction normalized in double. */
static double norm_tol(size_t d) { return ((double) d + 4.0) * EPS; }

static double *new_state(size_t n, size_t d)
{
  double *y = malloc(af_state_size(n, d) * sizeof *y);
  ck_assert_ptr_nonnull(y);
  return y;
}

static double dot(const double *a, const double *b, size_t d)
{
  double s = 0;
  for (size_t i = 0; i < d; i++)
    s += a[i] * b[i];
  return s;
}

/* Every direction has unit norm within norm_tol(d). */
static void check_unit(const double *y, size_t n, size_t d, const char *spec)
{
  for (size_t j = 0; j < n; j++) {
    double nr = sqrt(dot(y + j * d, y + j * d, d));
    char what[128];
    snprintf(what, sizeof what, "%s |theta_%zu|", spec, j);
    AFT_CLOSE(what, nr, 1.0, 0.0, norm_tol(d));
  }
}

/* Mean direction m = (1/n) sum theta_j and second moments
 * M2 = (1/n) sum theta_j theta_j^T of the first two coordinates. */
static void moments(double *mean, double *m11, const double *y, size_t n,
                    size_t d)
{
  for (size_t i = 0; i < d; i++)
    mean[i] = 0;
  *m11 = 0;
  for (size_t j = 0; j < n; j++) {
    for (size_t i = 0; i < d; i++)
      mean[i] += y[j * d + i];
    *m11 += y[j * d] * y[j * d];
  }
  for (size_t i = 0; i < d; i++)
    mean[i] /= (double) n;
  *m11 /= (double) n;
}

/* Statistical bounds for theta uniform on S^{d-1}, n independent tokens.
 * Each coordinate theta_i has mean 0 and variance 1/d, so by the CLT
 * sqrt(n d) * mean_i is close to N(0,1); |z| <= 6 fails with probability
 * 2e-9 per coordinate.  theta_1^2 has mean 1/d and variance
 * E theta_1^4 - 1/d^2 = 3/(d(d+2)) - 1/d^2; its sample mean is within 6
 * standard deviations of 1/d except with probability ~2e-9.  The seeds are
 * fixed, so these are deterministic checks; the bounds say how surprising
 * a failure would be for a correct sampler. */
#define ZMAX 6.0
static void check_uniform_stats(const double *y, size_t n, size_t d,
                                const char *spec)
{
  double mean[16], m11;
  ck_assert(d <= 16);
  moments(mean, &m11, y, n, d);
  double sd_mean = sqrt(1.0 / ((double) d * (double) n));
  for (size_t i = 0; i < d; i++) {
    char what[128];
    snprintf(what, sizeof what, "%s mean coordinate %zu", spec, i);
    AFT_CLOSE(what, mean[i], 0.0, 0.0, ZMAX * sd_mean);
  }
  double dd = (double) d;
  double var11 = 3.0 / (dd * (dd + 2.0)) - 1.0 / (dd * dd);
  char what[128];
  snprintf(what, sizeof what, "%s mean theta_1^2", spec);
  AFT_CLOSE(what, m11, 1.0 / dd, 0.0, ZMAX * sqrt(var11 / (double) n));
}

/* ------------------------------------------------------------ uniform */

START_TEST(test_uniform)
{
  const size_t n = 2000, d = 3;
  double *y = new_state(n, d);
  size_t line = 99;
  AFT_OK(af_init_state(y, &line, "uniform", n, d, NAN, aft_seed(11)));
  ck_assert_uint_eq(line, 0);
  char label[64];
  snprintf(label, sizeof label, "uniform seed %lu", aft_seed(11));
  check_unit(y, n, d, label);
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(y[n * d + j] == 1.0, "uniform r_%zu = %.17g, want 1 (r0 NaN)", j,
                  y[n * d + j]);
  check_uniform_stats(y, n, d, label);
  /* r0 given: every radius equals it exactly. */
  AFT_OK(af_init_state(y, &line, "uniform", n, d, 2.5, aft_seed(11)));
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(y[n * d + j] == 2.5, "uniform r0=2.5: r_%zu = %.17g", j, y[n * d + j]);
  free(y);
}
END_TEST

/* The statistical check is able to fail: a hemisphere start (not uniform)
 * has mean first coordinate 1/2 on S^2 and must be rejected. */
START_TEST(test_uniform_stats_can_fail)
{
  const size_t n = 2000, d = 3;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "hemisphere", n, d, NAN, aft_seed(11)));
  double mean[3], m11;
  moments(mean, &m11, y, n, d);
  double sd_mean = sqrt(1.0 / ((double) d * (double) n));
  ck_assert_msg(fabs(mean[0]) > ZMAX * sd_mean,
                "uniform test would accept a hemisphere sample: mean_1 = %.17g", mean[0]);
  free(y);
}
END_TEST

/* ------------------------------------------------------------ gaussian */

START_TEST(test_gaussian)
{
  const size_t n = 2000, d = 4;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "gaussian", n, d, NAN, aft_seed(12)));
  char label[64];
  snprintf(label, sizeof label, "gaussian seed %lu", aft_seed(12));
  check_unit(y, n, d, label);
  check_uniform_stats(y, n, d, label);
  /* r = |x| with x ~ N(0, I_d): r^2 ~ chi^2_d, mean d, variance 2d; the
   * sample mean of n values is within 6 sd = 6 sqrt(2d/n) of d. */
  double s = 0;
  int distinct = 0;
  for (size_t j = 0; j < n; j++) {
    ck_assert_msg(y[n * d + j] > 0 && isfinite(y[n * d + j]), "gaussian r_%zu = %.17g", j,
                  y[n * d + j]);
    s += y[n * d + j] * y[n * d + j];
    if (j > 0 && y[n * d + j] != y[n * d + j - 1])
      distinct++;
  }
  ck_assert_msg(distinct > 0, "gaussian radii are all equal: r0 NaN must keep the norms");
  AFT_CLOSE(label, s / (double) n, (double) d, 0.0,
            ZMAX * sqrt(2.0 * (double) d / (double) n));
  /* The directions must not depend on r0; r0 overrides every radius. */
  double *y2 = new_state(n, d);
  AFT_OK(af_init_state(y2, NULL, "gaussian", n, d, 3.0, aft_seed(12)));
  ck_assert_msg(memcmp(y, y2, n * d * sizeof *y) == 0,
                "gaussian directions changed when r0 was given");
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(y2[n * d + j] == 3.0, "gaussian r0=3: r_%zu = %.17g", j, y2[n * d + j]);
  free(y2);
  free(y);
}
END_TEST

/* ------------------------------------------------------------ orthonormal */

START_TEST(test_orthonormal)
{
  const size_t n = 3, d = 5;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "orthonormal", n, d, NAN, 1));
  for (size_t j = 0; j < n; j++) {
    for (size_t i = 0; i < d; i++)
      ck_assert_msg(y[j * d + i] == (i == j ? 1.0 : 0.0), "orthonormal theta_%zu[%zu] = %.17g",
                    j, i, y[j * d + i]);
    ck_assert_msg(y[n * d + j] == 1.0, "orthonormal r_%zu = %.17g", j, y[n * d + j]);
  }
  AFT_OK(af_init_state(y, NULL, "orthonormal", n, d, 0.75, 1));
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(y[n * d + j] == 0.75, "orthonormal r0: r_%zu = %.17g", j, y[n * d + j]);
  /* n = d is allowed (the T4.1 start with d = n). */
  double *z = new_state(4, 4);
  AFT_OK(af_init_state(z, NULL, "orthonormal", 4, 4, NAN, 1));
  free(z);
  /* n > d: no orthonormal family; the header only says "needs d >= n". */
  double *w = new_state(4, 3);
  size_t line = 7;
  int rc = af_init_state(w, &line, "orthonormal", 4, 3, NAN, 1);
  ck_assert_msg(rc == AF_EDIM || rc == AF_EINVAL, "orthonormal n > d returned %s",
                af_status_name(rc));
  ck_assert_uint_eq(line, 0);
  free(w);
  free(y);
}
END_TEST

/* ------------------------------------------------------------ cap */

static double min_cos(const double *y, size_t n, size_t d)
{
  double m = 2;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double c = dot(y + i * d, y + j * d, d);
      if (c < m)
        m = c;
    }
  return m;
}

START_TEST(test_cap)
{
  const size_t n = 50, d = 3;
  double *y = new_state(n, d);
  const double deltas[] = {2.0, 1.0, 0.5, 0.1, 1e-3, 1e-8};
  for (size_t k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
    char spec[64];
    snprintf(spec, sizeof spec, "cap:%.17g", deltas[k]);
    AFT_OK(af_init_state(y, NULL, spec, n, d, NAN, aft_seed(13) + k));
    fprintf(stderr, "%s seed %lu: min cosine %.17g\n", spec, aft_seed(13) + k, min_cos(y, n, d));
    check_unit(y, n, d, spec);
    double mc = min_cos(y, n, d);
    /* Contract: cosines >= 1 - DELTA, up to the rounding of the cosines. */
    ck_assert_msg(mc >= 1.0 - deltas[k] - (2.0 * d + 8.0) * EPS,
                  "%s: min cosine %.17g (%a) < 1 - DELTA", spec, mc, mc);
    /* Not degenerate: for DELTA > 0 the tokens are not all one point. */
    ck_assert_msg(mc < 1.0, "%s: all tokens coincide", spec);
    for (size_t j = 0; j < n; j++)
      ck_assert(y[n * d + j] == 1.0);
  }
  /* DELTA = 0: all cosines >= 1, i.e. every token at the same point. */
  AFT_OK(af_init_state(y, NULL, "cap:0", n, d, NAN, aft_seed(13)));
  AFT_CLOSE("cap:0 min cosine", min_cos(y, n, d), 1.0, 0.0, (2.0 * d + 8.0) * EPS);
  free(y);
}
END_TEST

/* d = 1: the sphere S^0 = {-1, 1}; uniform picks both signs, a cap of
 * DELTA < 2 is one point, hemisphere is +1. */
START_TEST(test_dim_one)
{
  const size_t n = 64, d = 1;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "uniform", n, d, NAN, aft_seed(15)));
  int plus = 0;
  for (size_t j = 0; j < n; j++) {
    ck_assert(y[j] == 1.0 || y[j] == -1.0);
    plus += y[j] > 0;
  }
  /* Binomial(64, 1/2): 0 or 64 plus signs has probability 1e-19. */
  ck_assert(plus > 0 && plus < (int) n);
  AFT_OK(af_init_state(y, NULL, "cap:0.5", n, d, NAN, aft_seed(15)));
  for (size_t j = 1; j < n; j++)
    ck_assert(y[j] == y[0] && fabs(y[j]) == 1.0);
  AFT_OK(af_init_state(y, NULL, "hemisphere", n, d, NAN, aft_seed(15)));
  for (size_t j = 0; j < n; j++)
    ck_assert(y[j] == 1.0);
  free(y);
}
END_TEST

/* The cap check can fail: a uniform start violates cap:0.1. */
START_TEST(test_cap_check_can_fail)
{
  const size_t n = 50, d = 3;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "uniform", n, d, NAN, aft_seed(13)));
  ck_assert(min_cos(y, n, d) < 1.0 - 0.1);
  free(y);
}
END_TEST

START_TEST(test_cap_invalid)
{
  const size_t n = 4, d = 3;
  double *y = new_state(n, d);
  const char *bad[] = {"cap:-0.1", "cap:2.5", "cap:", "cap", "cap:abc", "cap:0.1x",
                       "cap:nan", "cap:inf", "cap: ", "cap:-inf", "cap:1e400"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    size_t line = 5;
    int rc = af_init_state(y, &line, bad[k], n, d, NAN, 1);
    ck_assert_msg(rc == AF_EINVAL, "spec '%s' returned %s, wanted AF_EINVAL", bad[k],
                  af_status_name(rc));
    ck_assert_uint_eq(line, 0);
  }
  free(y);
}
END_TEST

/* ------------------------------------------------------------ hemisphere */

START_TEST(test_hemisphere)
{
  const size_t n = 2000, d = 3;
  double *y = new_state(n, d);
  AFT_OK(af_init_state(y, NULL, "hemisphere", n, d, NAN, aft_seed(14)));
  fprintf(stderr, "hemisphere seed %lu\n", aft_seed(14));
  check_unit(y, n, d, "hemisphere");
  for (size_t j = 0; j < n; j++) {
    ck_assert_msg(y[j * d] > 0, "hemisphere theta_%zu[0] = %.17g", j, y[j * d]);
    ck_assert(y[n * d + j] == 1.0);
  }
  /* Uniform on the half sphere: |theta_1| of a uniform point on S^2 is
   * uniform on [0,1] (Archimedes), mean 1/2, variance 1/12; the other
   * coordinates have mean 0 and variance 1/3. */
  double mean[3], m11;
  moments(mean, &m11, y, n, d);
  AFT_CLOSE("hemisphere mean theta_1", mean[0], 0.5, 0.0, ZMAX * sqrt(1.0 / 12.0 / (double) n));
  AFT_CLOSE("hemisphere mean theta_2", mean[1], 0.0, 0.0, ZMAX * sqrt(1.0 / 3.0 / (double) n));
  AFT_CLOSE("hemisphere mean theta_3", mean[2], 0.0, 0.0, ZMAX * sqrt(1.0 / 3.0 / (double) n));
  free(y);
}
END_TEST

/* ------------------------------------------------------------ seeds */

START_TEST(test_seeds)
{
  const size_t n = 6, d = 3, sz = af_state_size(n, d);
  const char *specs[] = {"uniform", "gaussian", "cap:0.5", "hemisphere"};
  double *a = new_state(n, d), *b = new_state(n, d);
  for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
    AFT_OK(af_init_state(a, NULL, specs[k], n, d, NAN, 1234));
    AFT_OK(af_init_state(b, NULL, specs[k], n, d, NAN, 1234));
    ck_assert_msg(memcmp(a, b, sz * sizeof *a) == 0, "%s: same seed, different states",
                  specs[k]);
    AFT_OK(af_init_state(b, NULL, specs[k], n, d, NAN, 1235));
    ck_assert_msg(memcmp(a, b, n * d * sizeof *a) != 0, "%s: seeds 1234 and 1235 agree",
                  specs[k]);
  }
  free(a);
  free(b);
}
END_TEST

START_TEST(test_unknown_spec)
{
  const size_t n = 3, d = 3;
  double *y = new_state(n, d);
  const char *bad[] = {"", "Uniform", "uniformx", "sphere", "file", "orthonormal:2",
                       "gaussian:1", "hemisphere2"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    size_t line = 3;
    int rc = af_init_state(y, &line, bad[k], n, d, NAN, 1);
    ck_assert_msg(rc == AF_EINVAL, "spec '%s' returned %s, wanted AF_EINVAL", bad[k],
                  af_status_name(rc));
    ck_assert_uint_eq(line, 0);
  }
  AFT_STATUS(af_init_state(y, NULL, NULL, n, d, NAN, 1), AF_EINVAL);
  AFT_STATUS(af_init_state(y, NULL, "uniform", 0, d, NAN, 1), AF_EINVAL);
  AFT_STATUS(af_init_state(y, NULL, "uniform", n, 0, NAN, 1), AF_EINVAL);
  /* A radius must be positive and finite when given. */
  AFT_STATUS(af_init_state(y, NULL, "uniform", n, d, -1.0, 1), AF_EINVAL);
  AFT_STATUS(af_init_state(y, NULL, "uniform", n, d, 0.0, 1), AF_EINVAL);
  int rc = af_init_state(y, NULL, "uniform", n, d, INFINITY, 1);
  ck_assert_msg(rc == AF_EINVAL || rc == AF_ENONFINITE, "r0 = inf returned %s",
                af_status_name(rc));
  free(y);
}
END_TEST

/* ------------------------------------------------------------ files */

static char tmpdir[256];

static void make_tmpdir(void)
{
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/af_test_init_XXXXXX", base && *base ? base : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
  DIR *dir = opendir(tmpdir);
  if (dir) {
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char p[600];
      snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
      unlink(p);
    }
    closedir(dir);
  }
  rmdir(tmpdir);
}

/* Write text into a fresh file of tmpdir (mkstemp); returns its path. */
static char *write_temp(const char *text)
{
  char *path = malloc(600);
  ck_assert_ptr_nonnull(path);
  snprintf(path, 600, "%s/tokens_XXXXXX", tmpdir);
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  size_t len = strlen(text);
  ck_assert_int_eq(write(fd, text, len), (ssize_t) len);
  ck_assert_int_eq(close(fd), 0);
  return path;
}

/* Read `text` as n x d tokens: status, and the reported line. */
static int read_text(double *y, size_t *line, const char *text, size_t n, size_t d)
{
  char *path = write_temp(text);
  *line = 12345;
  int rc = af_init_read_file(y, line, path, n, d);
  /* The same through the spec string. */
  char spec[700];
  snprintf(spec, sizeof spec, "file:%s", path);
  size_t line2 = 54321;
  double *y2 = new_state(n, d);
  int rc2 = af_init_state(y2, &line2, spec, n, d, NAN, 1);
  ck_assert_msg(rc2 == rc && line2 == *line,
                "af_init_state(file:) gave %s line %zu, af_init_read_file %s line %zu",
                af_status_name(rc2), line2, af_status_name(rc), *line);
  if (rc == AF_OK)
    ck_assert(memcmp(y, y2, af_state_size(n, d) * sizeof *y) == 0);
  free(y2);
  unlink(path);
  free(path);
  return rc;
}

START_TEST(test_file_good)
{
  make_tmpdir();
  const size_t n = 3, d = 2;
  double *y = new_state(n, d);
  size_t line;
  const char *text = "# tokens for a test\n"
                     "\n"
                     "3,4\n"
                     "  # indented comment\n"
                     "-0.5, 0\n"
                     "\n"
                     "1e-3,-1e-3\n";
  AFT_OK(read_text(y, &line, text, n, d));
  ck_assert_uint_eq(line, 0);
  /* theta = row/|row|, r = |row|: (3,4) -> (0.6, 0.8), r 5 (exact in
   * double up to the rounding of the quotients). */
  AFT_CLOSE("file theta_0[0]", y[0], 0.6, 2 * EPS, 0);
  AFT_CLOSE("file theta_0[1]", y[1], 0.8, 2 * EPS, 0);
  AFT_CLOSE("file r_0", y[n * d + 0], 5.0, 2 * EPS, 0);
  ck_assert(y[2] == -1.0 && y[3] == 0.0);
  AFT_CLOSE("file r_1", y[n * d + 1], 0.5, 0, 0);
  AFT_CLOSE("file theta_2[0]", y[4], sqrt(0.5), 4 * EPS, 0);
  AFT_CLOSE("file theta_2[1]", y[5], -sqrt(0.5), 4 * EPS, 0);
  AFT_CLOSE("file r_2", y[n * d + 2], 1e-3 * sqrt(2.0), 4 * EPS, 0);
  /* No trailing newline; CRLF line ends; blanks and tabs as separators. */
  AFT_OK(read_text(y, &line, "1,0\n0,1\n0,-2", n, d));
  AFT_CLOSE("file r_2 (no final newline)", y[n * d + 2], 2.0, 0, 0);
  AFT_OK(read_text(y, &line, "1,0\r\n\r\n0,1\r\n0,-2\r\n", n, d));
  AFT_CLOSE("file r_2 (CRLF)", y[n * d + 2], 2.0, 0, 0);
  AFT_OK(read_text(y, &line, "1 0\n0\t1\n0 ,-2\n", n, d));
  AFT_CLOSE("file r_2 (blanks)", y[n * d + 2], 2.0, 0, 0);
  /* r0 given: directions from the file, every radius r0. */
  char *path = write_temp("3,4\n0,1\n0,-2\n");
  char spec[700];
  snprintf(spec, sizeof spec, "file:%s", path);
  AFT_OK(af_init_state(y, &line, spec, n, d, 0.25, 1));
  AFT_CLOSE("file r0: theta_0[0]", y[0], 0.6, 2 * EPS, 0);
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(y[n * d + j] == 0.25, "file r0: r_%zu = %.17g", j, y[n * d + j]);
  unlink(path);
  free(path);
  free(y);
  remove_tmpdir();
}
END_TEST

START_TEST(test_file_errors)
{
  make_tmpdir();
  const size_t n = 3, d = 2;
  double *y = new_state(n, d);
  size_t line;
  /* Wrong column count: too few and too many, line counted from 1
   * including comments and blank lines. */
  AFT_STATUS(read_text(y, &line, "# c\n1,0\n\n0\n1,1\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(line, 4);
  AFT_STATUS(read_text(y, &line, "1,0\n0,1,2\n1,1\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(line, 2);
  /* Not a number. */
  AFT_STATUS(read_text(y, &line, "1,0\n0,1\n1,x\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(line, 3);
  AFT_STATUS(read_text(y, &line, "1,0\n0,1\n1,2junk\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(line, 3);
  /* Non-finite entries. */
  int rc = read_text(y, &line, "1,0\nnan,1\n1,1\n", n, d);
  ck_assert_msg(rc == AF_ENONFINITE || rc == AF_EPARSE, "NaN entry returned %s",
                af_status_name(rc));
  ck_assert_uint_eq(line, 2);
  rc = read_text(y, &line, "1,0\n0,1\n1,inf\n", n, d);
  ck_assert_msg(rc == AF_ENONFINITE || rc == AF_EPARSE, "inf entry returned %s",
                af_status_name(rc));
  ck_assert_uint_eq(line, 3);
  /* Zero row: no direction. */
  AFT_STATUS(read_text(y, &line, "1,0\n\n0,0\n1,1\n", n, d), AF_EZERONORM);
  ck_assert_uint_eq(line, 3);
  /* Row count (too few: the line after the last one). */
  AFT_STATUS(read_text(y, &line, "1,0\n0,1\n", n, d), AF_EDIM);
  ck_assert_uint_eq(line, 3);
  AFT_STATUS(read_text(y, &line, "1,0\n0,1\n1,1\n2,2\n", n, d), AF_EDIM);
  ck_assert_uint_eq(line, 4);
  AFT_STATUS(read_text(y, &line, "", n, d), AF_EDIM);
  AFT_STATUS(read_text(y, &line, "# only a comment\n\n", n, d), AF_EDIM);
  /* Missing file. */
  char path[600];
  snprintf(path, sizeof path, "%s/does-not-exist.csv", tmpdir);
  line = 9;
  AFT_STATUS(af_init_read_file(y, &line, path, n, d), AF_EIO);
  ck_assert_uint_eq(line, 0);
  char spec[700];
  snprintf(spec, sizeof spec, "file:%s", path);
  AFT_STATUS(af_init_state(y, &line, spec, n, d, NAN, 1), AF_EIO);
  AFT_STATUS(af_init_read_file(NULL, &line, path, n, d), AF_EINVAL);
  AFT_STATUS(af_init_read_file(y, &line, NULL, n, d), AF_EINVAL);
  AFT_STATUS(af_init_read_file(y, NULL, path, 0, d), AF_EINVAL);
  AFT_STATUS(af_init_read_file(y, NULL, path, n, 0), AF_EINVAL);
  /* A directory is not a token file. */
  rc = af_init_read_file(y, &line, tmpdir, n, d);
  ck_assert_msg(rc == AF_EIO || rc == AF_EPARSE, "reading a directory returned %s",
                af_status_name(rc));
  free(y);
  remove_tmpdir();
}
END_TEST

/* Read len bytes (NUL bytes allowed) as n x d tokens with the detail. */
static int read_bytes(double *y, af_read_info *info, const char *text,
                      size_t len, size_t n, size_t d)
{
  char path[600];
  snprintf(path, sizeof path, "%s/bytes_XXXXXX", tmpdir);
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, len), (ssize_t) len);
  ck_assert_int_eq(close(fd), 0);
  int rc = af_init_read_file_info(y, info, path, n, d);
  unlink(path);
  return rc;
}

#define READ_STR(y, info, text, n, d)                                         \
  read_bytes(y, info, text, sizeof(text) - 1, n, d)

/* Strict rows: the defect and the counts expected are named. */
START_TEST(test_file_hostile)
{
  make_tmpdir();
  const size_t n = 3, d = 2;
  double *y = new_state(n, d);
  af_read_info in;
  /* A NUL byte ends nothing silently: "1,0\0junk" is not "1,0". */
  AFT_STATUS(READ_STR(y, &in, "0,1\n1,0\0junk\n1,1\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(in.line, 2);
  ck_assert_str_eq(in.what, "NUL byte");
  /* Empty fields: doubled, leading and trailing commas. */
  AFT_STATUS(READ_STR(y, &in, "1,,0\n0,1\n1,1\n", n, d), AF_EPARSE);
  ck_assert_str_eq(in.what, "empty field");
  ck_assert_uint_eq(in.line, 1);
  AFT_STATUS(READ_STR(y, &in, "1,0\n,0,1\n1,1\n", n, d), AF_EPARSE);
  ck_assert_str_eq(in.what, "empty field");
  ck_assert_uint_eq(in.line, 2);
  AFT_STATUS(READ_STR(y, &in, "1,0\n0,1\n1,1,\n", n, d), AF_EPARSE);
  ck_assert_str_eq(in.what, "empty field");
  ck_assert_uint_eq(in.line, 3);
  AFT_STATUS(READ_STR(y, &in, "1, ,0\n0,1\n1,1\n", n, d), AF_EPARSE);
  ck_assert_str_eq(in.what, "empty field");
  /* Counts: numbers in a row and rows, expected and found. */
  AFT_STATUS(READ_STR(y, &in, "1,0\n0,1,2,3\n1,1\n", n, d), AF_EPARSE);
  ck_assert_uint_eq(in.line, 2);
  ck_assert_uint_eq(in.expected, 2);
  ck_assert_uint_eq(in.found, 4);
  AFT_STATUS(READ_STR(y, &in, "1,0\n0,1\n", n, d), AF_EDIM);
  ck_assert_uint_eq(in.expected, 3);
  ck_assert_uint_eq(in.found, 2);
  ck_assert_str_eq(in.what, "token rows");
  AFT_STATUS(READ_STR(y, &in, "1,0\n0,1\n1,1\n2,2\n", n, d), AF_EDIM);
  ck_assert_uint_eq(in.line, 4);
  ck_assert_uint_eq(in.expected, 3);
  ck_assert_uint_eq(in.found, 4);
  /* A line longer than any row (65536 + 128 d bytes): bounded read. */
  size_t big = 65536 + 128 * d + 10;
  char *text = malloc(big + 1);
  ck_assert_ptr_nonnull(text);
  memset(text, '1', big);
  text[big] = '\0';
  AFT_STATUS(read_bytes(y, &in, text, big, n, d), AF_EPARSE);
  ck_assert_str_eq(in.what, "line too long");
  free(text);
  /* A directory is named as one. */
  AFT_STATUS(af_init_read_file_info(y, &in, tmpdir, n, d), AF_EIO);
  ck_assert_str_eq(in.what, "is a directory");
  /* Tiny and huge finite rows: scaled, so exactly onto the sphere.
   * Each component is (x_i/m) / q with x_i/m exact here and q =
   * sqrt(sum (x_i/m)^2) rounded once: relative error <= 2 eps per
   * component, so | |theta| - 1 | <= 2 eps, and the test's own norm
   * adds < 2 eps: bound 4 eps. */
  AFT_OK(READ_STR(y, &in, "1e-160,1e-160\n1e200,1e200\n1e-200,0\n", n, d));
  for (size_t j = 0; j < n; j++) {
    double s = hypot(y[j * d], y[j * d + 1]);
    AFT_CLOSE("|theta_j| of a scaled row", s, 1.0, 0, 4 * EPS);
  }
  AFT_CLOSE("r of 1e-160,1e-160", y[n * d], sqrt(2.0) * 1e-160, 2 * EPS, 0);
  AFT_CLOSE("r of 1e200,1e200", y[n * d + 1], sqrt(2.0) * 1e200, 2 * EPS, 0);
  ck_assert(y[4] == 1.0 && y[5] == 0.0 && y[n * d + 2] == 1e-200);
  /* Rows whose norm itself overflows are non-finite. */
  AFT_STATUS(READ_STR(y, &in, "1,0\n1.5e308,1.5e308\n1,1\n", n, d), AF_ENONFINITE);
  ck_assert_uint_eq(in.line, 2);
  free(y);
  remove_tmpdir();
}
END_TEST

/* Weights files: the rows expected (3d) and found, NUL, directories. */
START_TEST(test_weights_hostile)
{
  make_tmpdir();
  af_weights *w = NULL;
  af_read_info in;
  char *p = write_temp("1,0\n0,1\n1,0\n0,1\n1,0\n");
  AFT_STATUS(af_weights_read_info(&w, &in, p, 2), AF_EPARSE);
  ck_assert_ptr_null(w);
  ck_assert_uint_eq(in.expected, 6);
  ck_assert_uint_eq(in.found, 5);
  unlink(p);
  free(p);
  p = write_temp("1,0\n0,1\n1,0\n0,1\n1,0\n0,1\n1,1\n");
  AFT_STATUS(af_weights_read_info(&w, &in, p, 2), AF_EPARSE);
  ck_assert_uint_eq(in.line, 7);
  ck_assert_uint_eq(in.found, 7);
  unlink(p);
  free(p);
  p = write_temp("1,0\n0,1\n1,0\n0,1\n1,0\n0,1\n");
  AFT_OK(af_weights_read_info(&w, &in, p, 2));
  ck_assert_uint_eq(in.line, 0);
  af_weights_free(w);
  unlink(p);
  free(p);
  AFT_STATUS(af_weights_read_info(&w, &in, tmpdir, 2), AF_EIO);
  ck_assert_str_eq(in.what, "is a directory");
  /* A size whose d x d matrix does not fit in memory is refused, not
   * wrapped. */
  ck_assert_ptr_null(af_weights_alloc(2, SIZE_MAX / 2, 1.0));
  remove_tmpdir();
}
END_TEST

/* Sizes that overflow size_t are refused, never wrapped. */
START_TEST(test_size_overflow)
{
  ck_assert_uint_eq(af_state_size((size_t) 1 << 63, 2), 0);
  ck_assert_uint_eq(af_state_size(SIZE_MAX, 1), 0);
  ck_assert_uint_eq(af_state_size(4, 3), 16);
  ck_assert_ptr_null(af_work_alloc((size_t) 1 << 40, 1 << 20));
  ck_assert_ptr_null(af_work_alloc((size_t) 1 << 33, 2));
  double y[4];
  size_t line;
  ck_assert_int_eq(af_init_state(y, &line, "uniform", (size_t) 1 << 62, 8,
                                 NAN, 1),
                   AF_ENOMEM);
}
END_TEST

/* Reference files carry a checksum over header and values: every
 * single-byte change of the file, anywhere, and the loss of its last
 * line are refused (FNV-1a maps each byte through a bijection of its
 * state, so no one-byte change keeps the hash). */
START_TEST(test_ref_checksum)
{
  const size_t len = 3;
  mpfr_t t, u;
  mpfr_inits2(64, t, u, (mpfr_ptr) 0);
  mpfr_t *y = af_mp_vec_alloc(len, 64), *z = af_mp_vec_alloc(len, 64);
  ck_assert_ptr_nonnull(y);
  ck_assert_ptr_nonnull(z);
  mpfr_set_d(t, 2.0, MPFR_RNDN);
  for (size_t i = 0; i < len; i++)
    mpfr_set_d(y[i], 1.0 / (double) (i + 3), MPFR_RNDN);
  af_mp_ref_info info = {"test_init", "c0ffee", "mp-gauss", "n=1 d=2", 1,
                         1e-15, 1e-17};
  char *text = NULL;
  size_t tlen = 0;
  FILE *m = open_memstream(&text, &tlen);
  ck_assert_ptr_nonnull(m);
  AFT_OK(af_mp_ref_write(m, &info, t, y, len));
  ck_assert_int_eq(fclose(m), 0);
  ck_assert_ptr_nonnull(strstr(text, "\n# checksum: fnv1a64 "));
  size_t line;
  FILE *f = fmemopen(text, tlen, "r");
  AFT_OK(af_mp_ref_read(u, z, len, &line, f));
  fclose(f);
  ck_assert(mpfr_equal_p(t, u));
  size_t refused = 0;
  for (size_t i = 0; i < tlen; i++) {
    char keep = text[i];
    text[i] = keep == '5' ? '6' : keep == '\n' ? ' ' : (char) (keep ^ 1);
    f = fmemopen(text, tlen, "r");
    if (af_mp_ref_read(u, z, len, &line, f) != AF_OK)
      refused++;
    fclose(f);
    text[i] = keep;
  }
  ck_assert_uint_eq(refused, tlen);
  /* without its checksum line */
  char *last = strstr(text, "# checksum: ");
  f = fmemopen(text, (size_t) (last - text), "r");
  AFT_STATUS(af_mp_ref_read(u, z, len, &line, f), AF_EPARSE);
  fclose(f);
  free(text);
  af_mp_vec_free(y, len);
  af_mp_vec_free(z, len);
  mpfr_clears(t, u, (mpfr_ptr) 0);
}
END_TEST

/* ------------------------------------------------------------ af_write_atomic */

struct wctx {
  const char *text;
  int ret;      /* status the writer returns          */
  int poison;   /* 1: set the stream's error indicator */
};

static int writer(FILE *f, void *ctx)
{
  struct wctx *c = ctx;
  fputs(c->text, f);
  if (c->poison)
    (void) fgetc(f); /* reading a write-only stream sets ferror(f) */
  return c->ret;
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return NULL;
  char *buf = calloc(1, 4096);
  ck_assert_ptr_nonnull(buf);
  size_t k = fread(buf, 1, 4095, f);
  buf[k] = 0;
  fclose(f);
  return buf;
}

/* Names in tmpdir other than . and .. */
static int count_entries(void)
{
  DIR *dir = opendir(tmpdir);
  ck_assert_ptr_nonnull(dir);
  int k = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      k++;
  closedir(dir);
  return k;
}

START_TEST(test_write_atomic)
{
  make_tmpdir();
  char path[600];
  snprintf(path, sizeof path, "%s/out.txt", tmpdir);
  struct wctx c = {"first\n", AF_OK, 0};
  AFT_OK(af_write_atomic(path, writer, &c));
  char *s = slurp(path);
  ck_assert_str_eq(s, "first\n");
  free(s);
  ck_assert_int_eq(count_entries(), 1);
  /* Replace. */
  c.text = "second version\n";
  AFT_OK(af_write_atomic(path, writer, &c));
  s = slurp(path);
  ck_assert_str_eq(s, "second version\n");
  free(s);
  ck_assert_int_eq(count_entries(), 1);
  /* Writer fails: its code comes back, the old file stays, no temp file. */
  c.text = "partial";
  c.ret = AF_ENONFINITE;
  AFT_STATUS(af_write_atomic(path, writer, &c), AF_ENONFINITE);
  s = slurp(path);
  ck_assert_str_eq(s, "second version\n");
  free(s);
  ck_assert_int_eq(count_entries(), 1);
  /* Writer returns AF_OK but a write failed (stream error flag). */
  c.ret = AF_OK;
  c.poison = 1;
  AFT_STATUS(af_write_atomic(path, writer, &c), AF_EIO);
  s = slurp(path);
  ck_assert_str_eq(s, "second version\n");
  free(s);
  ck_assert_int_eq(count_entries(), 1);
  /* A failing first write creates nothing. */
  char path2[600];
  snprintf(path2, sizeof path2, "%s/never.txt", tmpdir);
  c.poison = 0;
  c.ret = AF_EIO;
  AFT_STATUS(af_write_atomic(path2, writer, &c), AF_EIO);
  ck_assert_int_eq(access(path2, F_OK), -1);
  ck_assert_int_eq(count_entries(), 1);
  /* Directory that does not exist / is a file: AF_EIO. */
  char bad[700];
  snprintf(bad, sizeof bad, "%s/no-such-dir/out.txt", tmpdir);
  c.ret = AF_OK;
  AFT_STATUS(af_write_atomic(bad, writer, &c), AF_EIO);
  snprintf(bad, sizeof bad, "%s/out.txt/sub.txt", tmpdir);
  AFT_STATUS(af_write_atomic(bad, writer, &c), AF_EIO);
  ck_assert_int_eq(count_entries(), 1);
  /* A directory without write permission (meaningless as root, who
   * bypasses permissions: checked only when not root). */
  if (geteuid() != 0) {
    char ro[650];
    snprintf(ro, sizeof ro, "%s/ro", tmpdir);
    ck_assert_int_eq(mkdir(ro, 0500), 0);
    snprintf(bad, sizeof bad, "%s/out.txt", ro);
    AFT_STATUS(af_write_atomic(bad, writer, &c), AF_EIO);
    rmdir(ro);
  }
  /* The target is a directory: rename fails, the temporary file goes. */
  char sub[650];
  snprintf(sub, sizeof sub, "%s/subdir", tmpdir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  AFT_STATUS(af_write_atomic(sub, writer, &c), AF_EIO);
  ck_assert_int_eq(count_entries(), 2);
  rmdir(sub);
  /* Invalid arguments. */
  AFT_STATUS(af_write_atomic(NULL, writer, &c), AF_EINVAL);
  AFT_STATUS(af_write_atomic(path, NULL, &c), AF_EINVAL);
  AFT_STATUS(af_write_atomic("", writer, &c), AF_EINVAL);
  remove_tmpdir();
}
END_TEST

/* A write that fails for real (file size limit, as on a full disk): the
 * flush fails, AF_EIO, the old file stays, no temporary file.  Runs in its
 * own process under Check's fork mode; the limit is restored anyway. */
struct bigctx {
  size_t bytes;
};

static int big_writer(FILE *f, void *ctx)
{
  struct bigctx *b = ctx;
  for (size_t i = 0; i < b->bytes; i++)
    fputc('x', f);
  return AF_OK;
}

START_TEST(test_write_atomic_efbig)
{
  make_tmpdir();
  char path[600];
  snprintf(path, sizeof path, "%s/out.txt", tmpdir);
  struct wctx c = {"old\n", AF_OK, 0};
  AFT_OK(af_write_atomic(path, writer, &c));
  struct rlimit old, lim;
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
  lim = old;
  lim.rlim_cur = 4096;
  void (*prev)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of a signal */
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
  struct bigctx b = {1 << 16};
  int rc = af_write_atomic(path, big_writer, &b);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, prev);
  AFT_STATUS(rc, AF_EIO);
  char *s = slurp(path);
  ck_assert_str_eq(s, "old\n");
  free(s);
  ck_assert_int_eq(count_entries(), 1);
  remove_tmpdir();
}
END_TEST

/* stdout that cannot be written (/dev/full): AF_EIO from "-". */
START_TEST(test_write_stdout_full)
{
  int full = open("/dev/full", O_WRONLY);
  if (full < 0)
    return; /* no /dev/full: nothing to check here */
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(full, STDOUT_FILENO), 0);
  struct wctx c = {"to /dev/full\n", AF_OK, 0};
  int rc = af_write_atomic("-", writer, &c);
  clearerr(stdout);
  ck_assert_int_ge(dup2(saved, STDOUT_FILENO), 0);
  close(saved);
  close(full);
  AFT_STATUS(rc, AF_EIO);
}
END_TEST

/* Path "-" writes to stdout (not closed). */
START_TEST(test_write_stdout)
{
  struct wctx c = {"# af_write_atomic to stdout\n", AF_OK, 0};
  AFT_OK(af_write_atomic("-", writer, &c));
  ck_assert_int_ne(fflush(stdout), EOF);
  c.ret = AF_EPARSE;
  AFT_STATUS(af_write_atomic("-", writer, &c), AF_EPARSE);
}
END_TEST

static Suite *init_suite(void)
{
  Suite *s = suite_create("init");
  TCase *tc = tcase_create("specs");
  tcase_add_test(tc, test_uniform);
  tcase_add_test(tc, test_uniform_stats_can_fail);
  tcase_add_test(tc, test_gaussian);
  tcase_add_test(tc, test_orthonormal);
  tcase_add_test(tc, test_cap);
  tcase_add_test(tc, test_cap_check_can_fail);
  tcase_add_test(tc, test_dim_one);
  tcase_add_test(tc, test_cap_invalid);
  tcase_add_test(tc, test_hemisphere);
  tcase_add_test(tc, test_seeds);
  tcase_add_test(tc, test_unknown_spec);
  suite_add_tcase(s, tc);
  TCase *tf = tcase_create("files");
  tcase_add_test(tf, test_file_good);
  tcase_add_test(tf, test_file_errors);
  tcase_add_test(tf, test_file_hostile);
  tcase_add_test(tf, test_weights_hostile);
  tcase_add_test(tf, test_size_overflow);
  tcase_add_test(tf, test_ref_checksum);
  tcase_add_test(tf, test_write_atomic);
  tcase_add_test(tf, test_write_stdout);
  tcase_add_test(tf, test_write_atomic_efbig);
  tcase_add_test(tf, test_write_stdout_full);
  suite_add_tcase(s, tf);
  return s;
}

int main(void) { return aft_run(init_suite()); }
