/* blas.c -- the CBLAS of the kernel's level-3 products, bound at first use.
 *
 * The program links GSL's reference CBLAS (libgslcblas), which GSL itself
 * needs.  The optimized CBLAS (OpenBLAS when configure found it) is loaded
 * with dlopen the first time a product is computed, not at program start:
 * loading and initializing OpenBLAS costs about 1 ms, more than a whole
 * small integration, and the kernel computes small products in-house
 * (attention_small.c), so 'attnflow run' at small n never loads it.
 *
 * Which library: the environment variable AF_BLAS if set (a file name or
 * path for dlopen; empty = GSL's CBLAS), else the one configure chose
 * (AF_BLAS_LIBRARY, "" when none).  It must export the five CBLAS
 * functions below; if it cannot be loaded or lacks one of them, GSL's
 * CBLAS is used and af_blas_library() says so.  The results of the
 * products (their rounding) depend on the library; the kernel's
 * accuracy bounds do not. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>

#include "internal.h"

#ifndef AF_BLAS_LIBRARY
#define AF_BLAS_LIBRARY ""
#endif

static af_blas_fns af_blas_table;
static pthread_once_t af_blas_once = PTHREAD_ONCE_INIT;
static const char *af_blas_bound; /* the table's name once bound (atomic) */

static void af_blas_bind(void)
{
  af_blas_fns gsl = {cblas_dgemm, cblas_dsymm, cblas_dsyrk, cblas_dtrmm,
                     cblas_dgemv, "GSL CBLAS (libgslcblas)"};
  af_blas_table = gsl;
  const char *lib = getenv("AF_BLAS");
  if (lib == NULL)
    lib = AF_BLAS_LIBRARY;
  if (*lib == '\0')
    return;
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    return;
  af_blas_fns f;
  /* POSIX: a function pointer is converted from dlsym's void * this way */
  *(void **) &f.dgemm = dlsym(h, "cblas_dgemm");
  *(void **) &f.dsymm = dlsym(h, "cblas_dsymm");
  *(void **) &f.dsyrk = dlsym(h, "cblas_dsyrk");
  *(void **) &f.dtrmm = dlsym(h, "cblas_dtrmm");
  *(void **) &f.dgemv = dlsym(h, "cblas_dgemv");
  if (!f.dgemm || !f.dsymm || !f.dsyrk || !f.dtrmm || !f.dgemv) {
    dlclose(h);
    return;
  }
  /* a copy: getenv's string may change with the environment; with
   * OpenBLAS's kernel set, whose rounding the products carry */
  char *(*corename)(void);
  *(void **) &corename = dlsym(h, "openblas_get_corename");
  const char *core = corename != NULL ? corename() : NULL;
  size_t len = strlen(lib) + (core != NULL ? strlen(core) + 9 : 0) + 1;
  char *name = malloc(len);
  if (name != NULL && core != NULL)
    snprintf(name, len, "%s (core %s)", lib, core);
  else if (name != NULL)
    snprintf(name, len, "%s", lib);
  f.name = name != NULL ? name : AF_BLAS_LIBRARY;
  af_blas_table = f;
}

static void af_blas_bind_once(void)
{
  af_blas_bind();
  __atomic_store_n(&af_blas_bound, af_blas_table.name, __ATOMIC_RELEASE);
}

const af_blas_fns *af_blas(void)
{
  pthread_once(&af_blas_once, af_blas_bind_once);
  return &af_blas_table;
}

const char *af_blas_library(void)
{
  return __atomic_load_n(&af_blas_bound, __ATOMIC_ACQUIRE);
}
