/*
 * trnsim — public libnrt interface.
 * nrt/nrt_experimental.h: model I/O description, tracing, implicit-async helpers, small
 * collectives and other calls AWS classifies as experimental.
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.28+. In that generation
 * nrt_dtype_t lives in nrt/nrt.h with the hardware type codes (the older sequential numbering
 * that earlier versions of this header carried is gone; see nrt_dtype_t).
 *
 * The general contract at the top of nrt/nrt.h applies to every function here.
 */
#ifndef TRNSIM_NRT_NRT_EXPERIMENTAL_H
#define TRNSIM_NRT_NRT_EXPERIMENTAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt.h"
#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Model I/O description
 * ---------------------------------------------------------------------------------------- */

/* Whether a model tensor is an input or an output. */
typedef enum nrt_tensor_usage {
  NRT_TENSOR_USAGE_INPUT = 0,
  NRT_TENSOR_USAGE_OUTPUT = 1,
} nrt_tensor_usage_t;

/* Capacity, in bytes including the terminating NUL, of nrt_tensor_info_t.name. */
#define NRT_TENSOR_NAME_MAX 256

/*
 * One input or output of a loaded model.
 *
 * Layout (LP64): 296 bytes — name @0, usage @256, size @264, dtype @272, shape @280,
 * ndim @288 (then padding).
 *
 * name   NUL-terminated I/O name; the key to use with nrt_add_tensor_to_tensor_set.
 * usage  input or output.
 * size   byte size a tensor bound to this name must have.
 * dtype  element type (hardware codes, see nrt_dtype_t); may be NRT_DTYPE_UNKNOWN when the
 *        NEFF does not record it.
 * shape  array of ndim dimension sizes, owned by the enclosing nrt_tensor_info_array_t.
 * ndim   number of dimensions.
 */
typedef struct nrt_tensor_info {
  char name[NRT_TENSOR_NAME_MAX];
  nrt_tensor_usage_t usage;
  size_t size;
  nrt_dtype_t dtype;
  uint32_t *shape;
  uint32_t ndim;
} nrt_tensor_info_t;

/*
 * All inputs and outputs of a model, as one library-allocated block: an 8-byte count followed
 * by tensor_count entries (inputs first, then outputs).
 *
 * Layout (LP64): 8 bytes + tensor_count * 296 — tensor_count @0, tensor_array @8.
 */
typedef struct nrt_tensor_info_array {
  uint64_t tensor_count;
  nrt_tensor_info_t tensor_array[]; /* flexible array member */
} nrt_tensor_info_array_t;

/*
 * Signature of the implicit-async completion callback (see nrt_register_async_exec_callback).
 *
 * params    the pointer given at registration, passed back unchanged.
 * model_id  identifies the model whose execution finished.
 * vnc       logical core the execution ran on.
 * job_id    identifies the execution request.
 * status    the execution's final status.
 *
 * Called on a runtime-owned thread; it must not block for long and must not call
 * nrt_close.
 */
typedef void (*NRT_ASYNC_EXEC_STATUS_CALLBACK)(void *params, uint32_t model_id, uint32_t vnc,
                                               uint64_t job_id, NRT_STATUS status);

/*
 * Describes the model's inputs and outputs. On success *tensor_info receives a block owned by
 * the caller, which must release it exactly once with nrt_free_model_tensor_info (not free()).
 * Errors: NRT_RESOURCE.
 */
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info);

/*
 * Deprecated. Number of staged copies of the model (at least 1): a hint for how many threads
 * can usefully call nrt_execute on it at once.
 */
NRT_STATUS nrt_get_model_instance_count(nrt_model_t *model, uint32_t *instance_count);

/*
 * Releases a block returned by nrt_get_model_tensor_info, including every entry's shape
 * array. Passing NULL is a no-op returning NRT_SUCCESS. Callable at any time.
 */
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info);

/* ------------------------------------------------------------------------------------------
 * Tracing
 * ---------------------------------------------------------------------------------------- */

/*
 * Turns tracing on for every logical core visible to the process.
 * trace_mem  also record memory allocations.
 */
NRT_STATUS nrt_trace_start(bool trace_mem);

/*
 * Writes the collected trace to `filename` (created or truncated) and turns tracing off.
 * Errors: NRT_FAILURE when the file cannot be written.
 */
NRT_STATUS nrt_trace_stop(const char *filename);

/* ------------------------------------------------------------------------------------------
 * Collectives plugin bridge
 * ---------------------------------------------------------------------------------------- */

/*
 * Returns the NCCL network-plugin function table embedded in the runtime, for libnccom.
 * AWS marks it temporary.
 *
 * err           receives 0 on success, nonzero on failure.
 * err_msg       caller-owned buffer of err_msg_size bytes that receives a NUL-terminated
 *               message on failure (may be NULL when err_msg_size is 0).
 *
 * Returns the table (owned by the library, valid for the life of the process) or NULL.
 * Older (2022) headers declared this with only the `err` parameter.
 */
void *nrt_get_libnccl_net(int *err, char *err_msg, size_t err_msg_size);

/* ------------------------------------------------------------------------------------------
 * Pool-engine microcode
 * ---------------------------------------------------------------------------------------- */

/*
 * A microcode image.
 * Layout (LP64): 16 bytes — bin @0, size @8.
 */
typedef struct nrt_ucode_img {
  uint8_t *bin; /* image bytes, caller-owned */
  size_t size;  /* image length in bytes */
} nrt_ucode_img;

/*
 * Instruction- and data-RAM images for the GPSIMD pool engine.
 * Layout (LP64): 32 bytes — iram @0, dram @16.
 */
typedef struct nrt_ucode_info {
  nrt_ucode_img iram;
  nrt_ucode_img dram;
} nrt_ucode_info;

/*
 * Supplies custom pool-engine microcode that nrt_init will load.
 *
 * Lifecycle: must be called before nrt_init; replacing microcode after initialisation is not
 * supported. The library keeps the caller's pointers rather than copying the images, so the
 * image buffers (caller-owned) must stay valid until nrt_close.
 * Errors: NRT_INVALID for a NULL `ucode_info` or an empty image.
 */
NRT_STATUS nrt_set_pool_eng_ucode(const nrt_ucode_info *ucode_info);

/* ------------------------------------------------------------------------------------------
 * Memory helpers
 * ---------------------------------------------------------------------------------------- */

/*
 * Copies `size` bytes from host memory `src` to `dest`, an address inside device memory that
 * is mapped into the process (e.g. from nrt_tensor_get_va or nrt_get_hbm_mmap_va), with the
 * ordering needed for the device to observe the data. Not gated on the lifecycle state.
 */
NRT_STATUS nrt_memcpy_to_device(void *dest, const void *src, size_t size);

/* ------------------------------------------------------------------------------------------
 * Implicit async execution (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS > 0). Deprecated by
 * AWS in runtime 2.32 and removed in 2.34; new code uses nrt/nrt_async.h.
 * ---------------------------------------------------------------------------------------- */

/*
 * Registers the callback that receives each implicit-async execution's final status,
 * replacing any previous registration. `params` (may be NULL) is handed back to every call.
 */
NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void *params);

/* ------------------------------------------------------------------------------------------
 * Small host collectives
 * ---------------------------------------------------------------------------------------- */

/*
 * Blocks until every worker of the global communicator has reached the barrier.
 * vnc is the process-relative core; g_device_id / g_device_count are this worker's global
 * rank and the world size. Every worker must call it.
 */
NRT_STATUS nrt_barrier(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count);

/*
 * All-gather of host buffers across all workers.
 *
 * input   rank_input_size bytes contributed by this worker (caller-owned).
 * output  caller-owned buffer of g_device_count * rank_input_size bytes; receives every
 *         worker's contribution in rank order.
 */
NRT_STATUS nrt_all_gather(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count,
                          uint32_t rank_input_size, void *input, void *output);

/*
 * Blocks until every implicit-async execution queued on logical core `vnc` has finished.
 */
NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc);

/* ------------------------------------------------------------------------------------------
 * Model information
 * ---------------------------------------------------------------------------------------- */

/*
 * Facts about a loaded model. Append-only: fields are only ever added at the end, and callers
 * pass the size they were built with.
 *
 * Layout (LP64): 4 bytes — vnc @0.
 */
typedef struct nrt_model_info {
  uint32_t vnc; /* process-relative logical core the model was loaded on */
} nrt_model_info_t;

/*
 * Fills *info for `model`.
 *
 * info_size_in   bytes of *info the caller provides (normally sizeof(nrt_model_info_t)).
 * info_size_out  receives the bytes actually written: min(info_size_in, library's size).
 */
NRT_STATUS nrt_get_model_info(const nrt_model_t *model, nrt_model_info_t *info, size_t info_size_in,
                              size_t *info_size_out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_EXPERIMENTAL_H */
