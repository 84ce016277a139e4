/*
 * trnsim — public libnrt interface.
 * nrt/nrt_version.h: library version query.
 *
 * Same declarations as the AWS libnrt 2.x header of the same name. Unlike AWS's copy, this
 * header is self-contained: it pulls in the fixed-width types and NRT_STATUS itself.
 */
#ifndef TRNSIM_NRT_NRT_VERSION_H
#define TRNSIM_NRT_NRT_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity, in bytes including the terminating NUL, of nrt_version_t.rt_detail. */
#define RT_VERSION_DETAIL_LEN 128
/* Capacity, in bytes including the terminating NUL, of nrt_version_t.git_hash. */
#define GIT_HASH_LEN 64

/*
 * Library version, filled by nrt_get_version.
 *
 * Layout (LP64): 224 bytes — rt_major @0, rt_minor @8, rt_patch @16, rt_maintenance @24,
 * rt_detail @32, git_hash @160.
 *
 * A library version "2.X.Y.Z" is reported as rt_major=2, rt_minor=X, rt_patch=Y,
 * rt_maintenance=Z. rt_detail holds a human-readable NUL-terminated description and git_hash
 * a NUL-terminated source revision string (libnccom compares it as a sanity tag).
 */
typedef struct nrt_version {
  uint64_t rt_major;
  uint64_t rt_minor;
  uint64_t rt_patch;
  uint64_t rt_maintenance;
  char rt_detail[RT_VERSION_DETAIL_LEN];
  char git_hash[GIT_HASH_LEN];
} nrt_version_t;

/*
 * Fills *ver with the library version.
 *
 * ver   caller-owned output, at least `size` bytes.
 * size  number of bytes of *ver the caller provides; pass sizeof(nrt_version_t). The library
 *       never writes past `size` bytes. Below 160 (i.e. not even room for rt_detail) the call
 *       fails with NRT_FAILURE; git_hash is written only when the whole field fits
 *       (size > 200), so callers built against a shorter struct stay safe.
 *
 * Returns NRT_SUCCESS, NRT_INVALID for a NULL `ver`, NRT_FAILURE for a too-small `size`.
 * Lifecycle: callable at any time, including before nrt_init and after nrt_close.
 * Thread-safety: thread-safe.
 */
NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_VERSION_H */
