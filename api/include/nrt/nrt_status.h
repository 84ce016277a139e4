/*
 * trnsim — public libnrt interface.
 * nrt/nrt_status.h: the status code returned by (almost) every libnrt entry point.
 *
 * Follows the AWS libnrt 2.x header generation shipped with Neuron SDK 2.28 and later
 * (runtime library 2.30+). The numeric values are part of the ABI: programs, Python ctypes
 * wrappers and log scrapers compare against them, so they never change and gaps are never
 * reused.
 */
#ifndef TRNSIM_NRT_NRT_STATUS_H
#define TRNSIM_NRT_NRT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * NRT_STATUS is a 4-byte enum (all enumerators are non-negative, so compilers give it an
 * unsigned int representation). 8 and 12 are unassigned and will never be returned.
 *
 * Codes 0..15 are general results. 101 reports a dead asynchronous execution unit.
 * 1002..1206 describe how an execution ended; when several cores of one execution fail, the
 * library reports the most severe code.
 */
typedef enum {
  NRT_SUCCESS = 0,                   /* the call did what it was asked to do */
  NRT_FAILURE = 1,                   /* unclassified failure; also every call made in a
                                        forked child of a process that used the runtime */
  NRT_INVALID = 2,                   /* bad argument or bad data: NULL pointer, out-of-range
                                        index, malformed NEFF, I/O name or size mismatch */
  NRT_INVALID_HANDLE = 3,            /* a handle that is not (or no longer) live; also marks
                                        the end of an enumeration (nrt_get_hbm_mmap_va) */
  NRT_RESOURCE = 4,                  /* out of memory, queues, communicators or a
                                        caller-supplied buffer that is too small */
  NRT_TIMEOUT = 5,                   /* the operation did not finish in time */
  NRT_HW_ERROR = 6,                  /* the (emulated) hardware failed */
  NRT_QUEUE_FULL = 7,                /* an asynchronous queue has no free slot; retry after a
                                        completion */
  NRT_LOAD_NOT_ENOUGH_NC = 9,        /* the NEFF needs more NeuronCores than are free */
  NRT_UNSUPPORTED_NEFF_VERSION = 10, /* the NEFF format version is not supported */
  NRT_FAIL_HOST_MEM_ALLOC = 11,      /* host allocation failed; legacy code kept for
                                        compatibility, new code reports NRT_RESOURCE */
  NRT_UNINITIALIZED = 13,            /* called before nrt_init, or after nrt_close finished */
  NRT_CLOSED = 14,                   /* called while nrt_close is tearing the runtime down */
  NRT_QUEUE_EMPTY = 15,              /* nothing to read from a queue (debug stream) */

  NRT_EXEC_UNIT_UNRECOVERABLE = 101, /* an async execution unit is permanently failed; only
                                        a restart of the process recovers it. AWS's SDK 2.27
                                        headers spelled this NRT_EXEC_UNIT_DISABLED. */

  NRT_EXEC_BAD_INPUT = 1002,              /* the inputs given to an execution are invalid */
  NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003, /* ran to completion but produced NaN/Inf or other
                                             numerical errors */
  NRT_EXEC_COMPLETED_WITH_ERR = 1004,     /* ran to completion with other errors (logical or
                                             parity) */
  NRT_EXEC_NC_BUSY = 1005,                /* the core is held by another model or process */
  NRT_EXEC_OOB = 1006,                    /* an indirect copy or embedding update went out of
                                             bounds (AWS docs also call this NRT_OOB) */
  NRT_COLL_PENDING = 1100,                /* a collective operation has not finished yet */

  NRT_EXEC_HW_ERR_COLLECTIVES = 1200,       /* hung in a collective: notifications never
                                               arrived, possibly due to another worker */
  NRT_EXEC_HW_ERR_HBM_UE = 1201,            /* unrepairable uncorrectable HBM error */
  NRT_EXEC_HW_ERR_NC_UE = 1202,             /* parity error in on-core memory */
  NRT_EXEC_HW_ERR_DMA_ABORT = 1203,         /* a DMA engine aborted */
  NRT_EXEC_SW_NQ_OVERFLOW = 1204,           /* a software notification queue overflowed */
  NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE = 1205, /* repairable uncorrectable HBM error */
  NRT_NETWORK_PROXY_FAILURE = 1206,         /* the EFA network proxy failed */
} NRT_STATUS;

/*
 * Name of a status code, e.g. "NRT_INVALID" for NRT_INVALID.
 *
 * Returns a pointer to a static, NUL-terminated string that the caller must not modify or
 * free. Never returns NULL: a value that is not an enumerator above yields a fixed
 * placeholder string.
 *
 * Lifecycle: callable at any time, including before nrt_init and after nrt_close.
 * Thread-safety: thread-safe (pure function).
 *
 * Note: AWS declares this function but the 2.31 library did not export it; trnsim exports it.
 */
const char *nrt_get_status_as_str(NRT_STATUS status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_STATUS_H */
