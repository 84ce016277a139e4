/*
 * trnsim.h — trnsim's own C extension of libnrt (not part of AWS's API).
 *
 * Programs that know they run on trnsim can ask what an execution did on the emulated chip:
 * simulated time, per-engine activity, DMA queues and HBM traffic. The symbols are exported
 * from libnrt.so.1 under their own version node, TRNSIM_1, apart from AWS's NRT_2.0.0 and
 * NRT_3.0.0; a program that must also run on AWS's libnrt can look them up with dlsym.
 *
 * C11 and C++; include after (or without) <nrt/nrt.h>.
 *
 * Forward compatibility: trnsim_exec_stats_t starts with struct_size. The caller sets it to
 * sizeof(trnsim_exec_stats_t) of the header it was compiled with; the library refuses a size
 * smaller than this version's struct (NRT_INVALID) and only ever appends fields.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef TRNSIM_TRNSIM_H_
#define TRNSIM_TRNSIM_H_

#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Engines, in this order, index trnsim_core_stats_t.engines. */
typedef enum trnsim_engine {
  TRNSIM_ENGINE_PE = 0,   /* Tensor engine (the systolic array) */
  TRNSIM_ENGINE_ACT = 1,  /* Scalar (activation) engine */
  TRNSIM_ENGINE_DVE = 2,  /* Vector engine */
  TRNSIM_ENGINE_POOL = 3, /* GpSimd engine */
  TRNSIM_ENGINE_SP = 4,   /* Sync engine (sequencer, DMA triggers) */
  TRNSIM_ENGINE_COUNT = 5
} trnsim_engine_t;

#define TRNSIM_MAX_CORES_PER_EXEC 2 /* physical cores of one logical core (LNC <= 2) */
#define TRNSIM_MAX_DMA_QUEUES 32    /* DMA queues reported per core */

typedef struct trnsim_engine_stats {
  uint64_t busy_ps;      /* time occupied by instructions */
  uint64_t wait_ps;      /* time stalled on semaphore/event waits */
  uint64_t instructions; /* instructions issued */
  uint64_t flops;        /* PE: 2*K*M*N per matmul; 0 for the other engines */
  double utilization;    /* busy_ps / the core's duration_ps, 0..1 */
} trnsim_engine_stats_t;

typedef struct trnsim_dma_queue_stats {
  uint64_t transfers;
  uint64_t bytes;   /* payload bytes moved */
  uint64_t busy_ps; /* time with a transfer in flight */
} trnsim_dma_queue_stats_t;

typedef struct trnsim_core_stats {
  uint32_t physical_core;   /* chip-local physical core index */
  uint32_t dma_queue_count; /* valid entries of dma_queues */
  uint64_t duration_ps;     /* start to the core's last engine end / transfer landed */
  uint64_t instructions;
  uint64_t hbm_read_bytes;
  uint64_t hbm_write_bytes;
  trnsim_engine_stats_t engines[TRNSIM_ENGINE_COUNT];
  trnsim_dma_queue_stats_t dma_queues[TRNSIM_MAX_DMA_QUEUES];
} trnsim_core_stats_t;

typedef struct trnsim_exec_stats {
  uint32_t struct_size;      /* in: sizeof(trnsim_exec_stats_t) */
  uint32_t core_count;       /* valid entries of cores: the model's LNC */
  uint64_t execution_count;  /* successful executions of the model since nrt_load */
  uint64_t duration_ns;      /* simulated time of the last execution (rounded down) */
  uint64_t duration_ps;      /* the same in picoseconds: the longest core */
  uint64_t hbm_read_bytes;   /* summed over cores */
  uint64_t hbm_write_bytes;
  uint64_t dma_bytes;        /* summed over every queue of every core */
  uint64_t dma_transfers;
  uint64_t simulator_events; /* scheduler events the simulation ran */
  uint64_t host_ns;          /* host time the simulation took */
  trnsim_core_stats_t cores[TRNSIM_MAX_CORES_PER_EXEC];
} trnsim_exec_stats_t;

/*
 * Fills *stats with what the model's last successful execution (nrt_execute, or the last run of
 * nrt_execute_repeat) did. stats->struct_size must be set first.
 * Errors: NRT_INVALID for NULL arguments, struct_size smaller than this header's struct, or a
 * model not executed since it was loaded; NRT_INVALID_HANDLE for an unloaded model;
 * NRT_UNINITIALIZED / NRT_CLOSED outside nrt_init..nrt_close. *stats is untouched on error.
 */
NRT_STATUS trnsim_get_execution_stats(nrt_model_t *model, trnsim_exec_stats_t *stats);

/*
 * Writes trnsim's version ("0.1.0") and the git commit it was built from ("unknown" outside a
 * git checkout) as NUL-terminated strings, truncated to the buffer sizes. One of the buffers
 * may be NULL (with size 0) when not wanted. Works before nrt_init.
 * Errors: NRT_INVALID when both are NULL, or a buffer is NULL with a nonzero size or non-NULL
 * with size 0; nothing is written then.
 */
NRT_STATUS trnsim_get_version(char *version, size_t version_size, char *git_hash,
                              size_t git_hash_size);

#ifdef __cplusplus
}
#endif

#endif /* TRNSIM_TRNSIM_H_ */
