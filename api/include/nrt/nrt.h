/*
 * trnsim — public libnrt interface.
 * nrt/nrt.h: the core Neuron runtime API — lifecycle, models, tensors, tensor sets, execution
 * and host-driven collectives.
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.28+ (runtime library 2.30+),
 * including nrt_dtype_t with the hardware type codes. Functions exported by the shipped
 * library but missing from AWS's published header are marked "[shipped-library extension]".
 *
 * General contract for every function in this and the other nrt/ headers, unless a function's
 * own comment says otherwise:
 *
 *  - Return value. NRT_SUCCESS on success, otherwise an NRT_STATUS error code. Out-parameters
 *    are written only on success.
 *  - Arguments. A NULL pointer where an object is required, or an index/size outside its valid
 *    range, yields NRT_INVALID. A pointer to a handle that was already freed or unloaded is
 *    undefined behaviour, like use-after-free.
 *  - Lifecycle. The runtime is live between a successful nrt_init and nrt_close. A stateful call
 *    made before nrt_init returns NRT_UNINITIALIZED, one made while the runtime is closing
 *    returns NRT_CLOSED, and any call made in a child process forked from a process that
 *    initialised the runtime returns NRT_FAILURE. nrt_close returns the library to the
 *    not-initialised state, so nrt_init may be called again. Calls documented as "callable at
 *    any time" skip these checks.
 *  - Core numbering. A `vnc` (logical NeuronCore) argument counts within the cores this process
 *    reserved in nrt_init: index 0 is the first visible core, whatever its instance-wide index.
 *    The async send/recv API (nrt/nrt_async_sendrecv.h) is the sole exception.
 *  - Thread-safety. Entry points may be called concurrently from any threads. Opaque handles
 *    (models, tensors, tensor sets) are not reference-counted for the caller: freeing a handle
 *    while another thread still uses it is undefined behaviour. Calls that mutate one tensor
 *    set are not synchronised against each other.
 *  - Ownership. Memory passed in by the caller stays owned by the caller. Objects the library
 *    creates are released only through the matching free/destroy/unload call.
 */
#ifndef TRNSIM_NRT_NRT_H
#define TRNSIM_NRT_NRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Quoted, root-relative includes: Bazel-built clients cannot resolve angle brackets here. */
#include "ndl/neuron_driver_shared_tensor_batch_op.h"
#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* API generation of this interface (not the library release; see nrt_get_version). */
#define NRT_MAJOR_VERSION 2
#define NRT_MINOR_VERSION 0

/* ------------------------------------------------------------------------------------------
 * Opaque handles
 * ---------------------------------------------------------------------------------------- */

/* A loaded NEFF. Created by nrt_load / nrt_load_collectives, destroyed by nrt_unload. */
typedef struct nrt_model nrt_model_t;

/* A byte buffer on a device or in host memory. It carries no dtype or shape. Created by the
 * nrt_tensor_allocate* calls, destroyed by nrt_tensor_free. */
typedef struct nrt_tensor nrt_tensor_t;

/* A prepared host-driven collective (see nrta_cc_prepare in nrt/nrt_async.h). */
typedef struct nrt_cc_context nrt_cc_context_t;

/* ------------------------------------------------------------------------------------------
 * Enumerations. Every value below is ABI: existing values never change, new ones are appended.
 * ---------------------------------------------------------------------------------------- */

/* Where nrt_tensor_allocate places a tensor's storage. */
typedef enum {
  NRT_TENSOR_PLACEMENT_DEVICE = 0,  /* device HBM of the given logical core (normal choice) */
  NRT_TENSOR_PLACEMENT_HOST = 1,    /* deprecated: small DMA-able host buffer (<= 4 MiB) */
  NRT_TENSOR_PLACEMENT_VIRTUAL = 2, /* ordinary host memory. The real runtime stopped
                                       accepting it in nrt_tensor_allocate in 2.32; tensors
                                       whose storage came from nrt_tensor_attach_buffer
                                       report this placement. */
} nrt_tensor_placement_t;

/* Framework tag passed to nrt_init; it only labels the process for monitoring tools. */
typedef enum {
  NRT_FRAMEWORK_TYPE_INVALID = 0,
  NRT_FRAMEWORK_TYPE_NO_FW = 1, /* plain application without an ML framework */
  NRT_FRAMEWORK_TYPE_TENSORFLOW = 2,
  NRT_FRAMEWORK_TYPE_PYTORCH = 3,
  NRT_FRAMEWORK_TYPE_MXNET = 4,
  NRT_FRAMEWORK_TYPE_PRECHECK = 5, /* node health pre-check tooling */
} nrt_framework_type_t;

/* Instance family, written to nrt_instance_info_t.family. */
enum {
  NRT_INSTANCE_UNKNOWN = 0,
  NRT_INSTANCE_INF1 = 1,
  NRT_INSTANCE_TRN1 = 2,
  NRT_INSTANCE_TRN1N = 3,
  NRT_INSTANCE_INF2 = 4,
  NRT_INSTANCE_TRN2 = 5,
  NRT_INSTANCE_TRN2N = 6,
  NRT_INSTANCE_INF2E = 7,
  NRT_INSTANCE_TRN2P = 8,
  NRT_INSTANCE_TRN2U = 9,
  NRT_INSTANCE_TRN2E = 10,
  NRT_INSTANCE_TRN2EU = 11,
  NRT_INSTANCE_TRN2AC = 12,
  NRT_INSTANCE_TRN2UAC = 13,
  NRT_INSTANCE_TRN3 = 14,
  NRT_INSTANCE_TRN3PDS98 = 15,
};

/* Instance size, written to nrt_instance_info_t.size. New sizes are inserted just before
 * UNKNOWN (hence 3XL after 48XL), so UNKNOWN's value moves up with each addition.
 * NRT_INSTANCE_SIZE_NUM is an alias of UNKNOWN. */
enum {
  NRT_INSTANCE_SIZE_1XL = 0,
  NRT_INSTANCE_SIZE_2XL = 1,
  NRT_INSTANCE_SIZE_4XL = 2,
  NRT_INSTANCE_SIZE_6XL = 3,
  NRT_INSTANCE_SIZE_8XL = 4,
  NRT_INSTANCE_SIZE_24XL = 5,
  NRT_INSTANCE_SIZE_32XL = 6,
  NRT_INSTANCE_SIZE_48XL = 7,
  NRT_INSTANCE_SIZE_3XL = 8,
  NRT_INSTANCE_SIZE_UNKNOWN = 9,
  NRT_INSTANCE_SIZE_NUM = NRT_INSTANCE_SIZE_UNKNOWN,
};

/* Element-wise reduction used by host-driven collectives (nrta_cc_prepare). */
typedef enum nrt_op_type {
  NRT_OP_ADD = 0x0,
  NRT_OP_FMA = 0x1,
  NRT_OP_MAX = 0x2,
  NRT_OP_MIN = 0x3,
  NRT_OP_INVALID = 0xF,
} nrt_op_type_t;

/*
 * Element type. These are the hardware type codes (sparse numbering), as used by the SDK 2.28+
 * headers and by nrt_tensor_info_t.dtype.
 *
 * ABI hazard: headers up to SDK 2.27 declared nrt_dtype_t in nrt_experimental.h with a
 * different, sequential numbering (FLOAT32=1, FLOAT16=2, ...). Only INT32 (8) and UINT32 (9)
 * mean the same in both. trnsim always uses the codes below.
 */
typedef enum nrt_dtype {
  NRT_DTYPE_UNKNOWN = 0x0,
  NRT_DTYPE_INVALID = 0x0, /* alias of UNKNOWN */
  NRT_DTYPE_UINT64 = 0x1,
  NRT_DTYPE_INT8 = 0x2,
  NRT_DTYPE_UINT8 = 0x3,
  NRT_DTYPE_INT16 = 0x4,
  NRT_DTYPE_UINT16 = 0x5,
  NRT_DTYPE_BFLOAT16 = 0x6,
  NRT_DTYPE_FLOAT16 = 0x7,
  NRT_DTYPE_INT32 = 0x8,
  NRT_DTYPE_UINT32 = 0x9,
  NRT_DTYPE_FLOAT32 = 0xA,
  NRT_DTYPE_FP32R = 0xB,
  NRT_DTYPE_INT64 = 0xC,
  NRT_DTYPE_FP8_E3 = 0xD,
  NRT_DTYPE_FP8_E4 = 0xE,
  NRT_DTYPE_FP8_E5 = 0xF,
} nrt_dtype_t;

/* Kind of host-driven collective (nrta_cc_prepare). */
typedef enum nrt_cc_op_type {
  NRT_CC_ALLGATHER = 0,
  NRT_CC_ALLREDUCE = 1,
  NRT_CC_REDUCESCATTER = 2,
} nrt_cc_op_type_t;

/* ------------------------------------------------------------------------------------------
 * Instance description
 * ---------------------------------------------------------------------------------------- */

/*
 * What kind of machine the runtime runs on.
 *
 * Layout (LP64): 32 bytes — family @0, size @4, arch_name @8, device_revision @24.
 * Older headers declared only family and size (8 bytes); see nrt_get_instance_info for how
 * callers built against them stay compatible.
 *
 * family           an NRT_INSTANCE_* value.
 * size             an NRT_INSTANCE_SIZE_* value.
 * arch_name        NUL-terminated device architecture name.
 * device_revision  NUL-terminated silicon revision string.
 */
typedef struct nrt_instance_info {
  uint32_t family;
  uint32_t size;
  char arch_name[16];
  char device_revision[8];
} nrt_instance_info_t;

/*
 * Describes the instance in *info.
 *
 * info               caller-owned output buffer of `instance_info_len` bytes.
 * instance_info_len  bytes the caller provides, normally sizeof(nrt_instance_info_t). The
 *                    library writes min(instance_info_len, sizeof(nrt_instance_info_t)) bytes
 *                    and never more, so callers built against the old 8-byte struct pass 8.
 *
 * Lifecycle: needs only device discovery, so trnsim answers it before nrt_init too.
 * Thread-safety: thread-safe.
 */
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len);

/* ------------------------------------------------------------------------------------------
 * Lifecycle
 * ---------------------------------------------------------------------------------------- */

/*
 * Starts the runtime: reads the NEURON_RT_* environment (once; later changes are ignored),
 * discovers devices, and reserves the requested logical cores for this process exclusively
 * until nrt_close or process exit.
 *
 * framework    tag for monitoring tools; applications without a framework pass
 *              NRT_FRAMEWORK_TYPE_NO_FW.
 * fw_version   framework version string, may be "" (read during the call only).
 * fal_version  framework-abstraction-layer version string, may be "" (read during the call).
 *
 * Calling it again while initialised is a no-op returning NRT_SUCCESS. In a forked child it
 * returns NRT_FAILURE.
 * Errors: NRT_INVALID (no device, incompatible driver, malformed or non-contiguous
 * NEURON_RT_VISIBLE_CORES), NRT_FAILURE (requested cores are not available), NRT_RESOURCE.
 * Thread-safety: serialised internally against nrt_close; other API calls must not race with
 * a first initialisation.
 */
NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
                    const char *fal_version);

/*
 * Stops the runtime: unloads models still loaded, releases all device memory and the reserved
 * cores. Model and tensor handles obtained before the call are dead afterwards; tensor sets are
 * pure host objects and are still released with nrt_destroy_tensor_set. Does nothing unless the
 * runtime is initialised. Afterwards nrt_init may be called again.
 *
 * Thread-safety: the caller must ensure no other thread is inside the API.
 */
void nrt_close(void);

/* ------------------------------------------------------------------------------------------
 * Models
 * ---------------------------------------------------------------------------------------- */

/*
 * Validates an in-memory NEFF and loads it on a logical core.
 *
 * neff_bytes  the NEFF image, `size` bytes; read during the call only (the library copies
 *             what it needs).
 * vnc         process-relative logical core, or -1 to let the runtime pick a free core.
 * vnc_count   deprecated; pass -1.
 * model       receives the new model handle, owned by the caller until nrt_unload.
 *
 * Errors: NRT_INVALID (malformed NEFF, NEFF built for another architecture or LNC setting),
 * NRT_UNSUPPORTED_NEFF_VERSION, NRT_LOAD_NOT_ENOUGH_NC, NRT_RESOURCE (device memory exhausted).
 * Thread-safety: thread-safe.
 */
NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                    nrt_model_t **model);

/*
 * Like nrt_load, for a NEFF that contains collective operations.
 *
 * ctx_device_id     this worker's rank among the workers that run this NEFF.
 * ctx_device_count  number of workers that run this NEFF.
 *
 * If no global communicator exists yet (see nrt_build_global_comm), one is created with
 * global rank = ctx_device_id and world size = ctx_device_count. Rank 0's address comes from
 * NEURON_RT_ROOT_COMM_ID.
 */
NRT_STATUS nrt_load_collectives(const void *neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                                uint32_t ctx_device_id, uint32_t ctx_device_count,
                                nrt_model_t **model);

/*
 * Unloads a model and frees its device and host resources. The handle is dead afterwards;
 * unloading it twice is undefined behaviour.
 *
 * The caller must ensure no execution of the model is in flight on another thread.
 * Errors: NRT_INVALID_HANDLE for a handle the library does not know, NRT_FAILURE if the core
 * could not be stopped.
 */
NRT_STATUS nrt_unload(nrt_model_t *model);

/* Deprecated alias of nrt_get_model_vnc_count. */
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count);

/* Number of logical cores the model occupies (normally 1). Deprecated by AWS. */
NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t *model, uint32_t *vnc_count);

/* ------------------------------------------------------------------------------------------
 * Core counts. All four are callable at any time (before nrt_init too) and thread-safe.
 * ---------------------------------------------------------------------------------------- */

/* Deprecated alias of nrt_get_total_vnc_count. */
NRT_STATUS nrt_get_total_nc_count(uint32_t *vnc_count);

/* Logical cores in the whole instance at the current LNC setting, ignoring
 * NEURON_RT_NUM_CORES / NEURON_RT_VISIBLE_CORES. */
NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count);

/* Deprecated alias of nrt_get_visible_vnc_count. */
NRT_STATUS nrt_get_visible_nc_count(uint32_t *vnc_count);

/* Logical cores this process may use once NEURON_RT_NUM_CORES / NEURON_RT_VISIBLE_CORES are
 * applied; valid `vnc` arguments are 0 .. count-1. */
NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count);

/* ------------------------------------------------------------------------------------------
 * Tensor sets: name -> tensor maps that bind tensors to a model's inputs or outputs.
 * ---------------------------------------------------------------------------------------- */

/* A tensor set. Deliberately typed as void: it is only ever handled through pointers. */
typedef void nrt_tensor_set_t;

/*
 * Creates an empty tensor set in *result; the caller owns it until nrt_destroy_tensor_set.
 * Pure host object: callable at any time. Errors: NRT_RESOURCE.
 */
NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result);

/*
 * Frees the set and sets *tensor_set to NULL. The tensors it referenced are not freed.
 * A NULL `tensor_set` or `*tensor_set` is ignored. Callable at any time.
 */
void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set);

/*
 * Binds `tensor` under `tensor_name`, replacing any tensor already bound to that name.
 *
 * tensor_name  the key matched against the model's I/O names (nrt_get_model_tensor_info); it
 *              need not equal the tensor's own name. The string is copied.
 * tensor       borrowed: it must stay alive as long as the set may be used with it.
 *
 * Not synchronised: concurrent mutation of one set is the caller's responsibility.
 */
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
                                        nrt_tensor_t *tensor);

/*
 * Looks up the tensor bound to `tensor_name`. On success *tensor receives the borrowed
 * pointer (ownership unchanged). An unknown name returns NRT_FAILURE and leaves *tensor
 * untouched.
 */
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set, const char *tensor_name,
                                          nrt_tensor_t **tensor);

/* ------------------------------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------------------------- */

/*
 * Runs the model once and returns when all outputs are written. Inputs and outputs are
 * bound by name through the two sets.
 *
 * Errors: NRT_INVALID or NRT_EXEC_BAD_INPUT (missing tensor, name or size mismatch),
 * NRT_TIMEOUT (exceeded NEURON_RT_EXEC_TIMEOUT), NRT_EXEC_NC_BUSY, and the execution result
 * codes 1003, 1004, 1006 and 1200..1206; output contents are unspecified after an error.
 * Thread-safety: several threads may execute the same model; the runtime queues them.
 */
NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set,
                       nrt_tensor_set_t *output_set);

/*
 * Runs the model `repeat_count` times in a row, feeding each run's outputs to the next run's
 * inputs. Only meaningful for NEFFs compiled for it. Same errors as nrt_execute.
 */
NRT_STATUS nrt_execute_repeat(nrt_model_t *model, const nrt_tensor_set_t *input_set,
                              nrt_tensor_set_t *output_set, int repeat_count);

/*
 * Sets up the global collectives communicator used by collective NEFFs on logical core `vnc`.
 *
 * g_device_id     this worker's global rank.
 * g_device_count  world size: the largest worker count of any NEFF that will run.
 *
 * Requires NEURON_RT_ROOT_COMM_ID (rank 0's "ip:port"); every worker of the world must make
 * the matching call.
 */
NRT_STATUS nrt_build_global_comm(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count);

/* ------------------------------------------------------------------------------------------
 * Tensors
 * ---------------------------------------------------------------------------------------- */

/*
 * Allocates a tensor of `size` bytes.
 *
 * tensor_placement  see nrt_tensor_placement_t.
 * vnc               process-relative logical core for DEVICE placement; -1 for host
 *                   placements.
 * name              optional label for logs, may be NULL; copied.
 * tensor            receives the new handle, owned by the caller until nrt_tensor_free.
 *
 * Contents are unspecified until written. Errors: NRT_RESOURCE when out of memory.
 */
NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t tensor_placement, int vnc, size_t size,
                               const char *name, nrt_tensor_t **tensor);

/*
 * Frees a tensor and sets *tensor to NULL. Storage shared with slices is released when its
 * last user is freed; a buffer attached with nrt_tensor_attach_buffer is never freed.
 * A NULL `tensor` or `*tensor` is ignored.
 *
 * The caller must ensure no in-flight execution or async request still uses the tensor.
 */
void nrt_tensor_free(nrt_tensor_t **tensor);

/*
 * Copies tensor bytes [offset, offset + size) into the start of `buf`, which must hold
 * `size` bytes. A range outside the tensor yields NRT_INVALID.
 */
NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset, size_t size);

/*
 * Copies `size` bytes from the start of `buf` into tensor bytes [offset, offset + size).
 * A range outside the tensor yields NRT_INVALID.
 */
NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset, size_t size);

/*
 * All operations of one batch target one tensor.
 *
 * Layout (LP64): 24 bytes — tensor @0, ops @8, num_ops @16 (then 4 bytes of padding).
 *
 * tensor   the tensor read from / written to (borrowed).
 * ops      array of `num_ops` operations (borrowed; see nrt_tensor_batch_op_t).
 */
typedef struct nrt_tensor_batch {
  const nrt_tensor_t *tensor;
  const nrt_tensor_batch_op_t *ops;
  uint32_t num_ops;
} nrt_tensor_batch_t;

/*
 * Performs every operation of `num_batches` batches as tensor -> buffer copies.
 *
 * unsafe  true skips the tracking that makes the copy wait for in-flight executions that use
 *         the tensors; the caller then guarantees there are none.
 *
 * Returns when all copies are done. On error some operations may have been performed.
 */
NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
                                 bool unsafe);

/* Same as nrt_tensor_read_batch, copying buffer -> tensor. */
NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
                                  bool unsafe);

/*
 * Copies `size` bytes from src[src_offset..] to dst[dst_offset..]. Two device tensors must
 * live on the same logical core; otherwise, or for a range outside either tensor, the result
 * is NRT_INVALID. Overlapping ranges within one storage give unspecified contents.
 */
NRT_STATUS nrt_tensor_copy(const nrt_tensor_t *src, size_t src_offset, nrt_tensor_t *dst,
                           size_t dst_offset, size_t size);

/*
 * Returns the tensor's size in bytes (not a status). Returns 0 for NULL. Callable at any time.
 */
size_t nrt_tensor_get_size(const nrt_tensor_t *tensor);

/*
 * Sets tensor bytes [offset, offset + size) to the byte value (unsigned char)value.
 * A range outside the tensor yields NRT_INVALID.
 */
NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value, size_t size);

/*
 * Creates a tensor handle with no storage (size 0), to be given storage with
 * nrt_tensor_attach_buffer. `name` is optional and copied. The caller owns the handle.
 */
NRT_STATUS nrt_tensor_allocate_empty(const char *name, nrt_tensor_t **tensor);

/*
 * Makes the caller's `buffer` of `size` bytes the tensor's storage. Storage the tensor owned
 * before is released. The buffer stays owned by the caller, must outlive the tensor (and every
 * use of it), and is never freed by the library. The tensor's placement becomes VIRTUAL.
 */
NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t *tensor, void *buffer, size_t size);

/*
 * Creates a new handle that aliases bytes [offset, offset + size) of `tensor_source`'s
 * storage, without copying. The storage lives until the source and all its slices are freed.
 * `name` is optional and copied. The caller owns the new handle (free with nrt_tensor_free).
 */
NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t *tensor_source, size_t offset, size_t size,
                                     const char *name, nrt_tensor_t **tensor_slice);

/*
 * Returns a host-visible virtual address of the tensor's first byte, or NULL when the storage
 * is not mapped into the process (or the runtime is not initialised). The address is valid
 * until the tensor is freed; the library keeps ownership of the memory.
 */
void *nrt_tensor_get_va(const nrt_tensor_t *tensor);

/*
 * Where a device tensor's storage lives.
 *
 * Layout (LP64): 24 bytes — physical_address @0, size @8, hbm_index @16 (then padding).
 *
 * physical_address  device physical address of the allocation.
 * size              allocation size in bytes; may exceed the tensor's size.
 * hbm_index         index of the HBM stack holding the allocation.
 */
typedef struct nrt_tensor_device_allocation_info {
  uint64_t physical_address;
  size_t size;
  int hbm_index;
} nrt_tensor_device_allocation_info_t;

/* Fills *alloc_info for a device tensor. Host tensors yield NRT_INVALID. */
NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t *tensor,
                                                 nrt_tensor_device_allocation_info_t *alloc_info);

/*
 * Waits until the output tensor's completion counter reaches expected_completion_count.
 *
 * timeout  maximum wait in microseconds; a negative value waits forever (a warning is logged
 *          after the first 30 s).
 *
 * Returns NRT_SUCCESS, NRT_INVALID for a NULL tensor, NRT_TIMEOUT when the wait expires.
 * Not gated on the lifecycle state. Thread-safe.
 */
NRT_STATUS nrt_tensor_check_output_completion(const nrt_tensor_t *output_tensor, int64_t timeout,
                                              uint64_t expected_completion_count);

/* Resets the output tensor's completion counter to 0. NRT_INVALID for a NULL tensor. */
NRT_STATUS nrt_tensor_reset_output_completion(nrt_tensor_t *output_tensor);

/*
 * Returns in *fd a dma-buf file descriptor for the device memory range [va, va + size),
 * which must have been registered for EFA peer-direct. The caller owns the fd and closes it.
 * NRT_INVALID when the range is unknown or peer-direct is unavailable.
 */
NRT_STATUS nrt_get_dmabuf_fd(uint64_t va, uint64_t size, int *fd);

/*
 * Translates the device index the runtime sees (possibly remapped inside a container) to the
 * host's device index. NRT_INVALID on failure.
 */
NRT_STATUS nrt_host_device_id_get(int neuron_dev, uint32_t *host_device_id);

/*
 * Fills a table mapping host device index -> routing id.
 *
 * count                in: capacity of host_did_to_rid_map (entries); out: entries written.
 * host_did_to_rid_map  caller-owned array of *count entries.
 *
 * NRT_INVALID on failure (including a too-small table).
 */
NRT_STATUS nrt_host_device_id_rid_map_get(uint32_t *count, uint32_t *host_did_to_rid_map);

/*
 * Returns the host mapping of HBM region `hbm_idx` of device `device_id`: *addr receives its
 * virtual address and *size its length. The mapping belongs to the library and stays valid
 * until nrt_close.
 *
 * Returns NRT_SUCCESS; NRT_INVALID_HANDLE when there is no region `hbm_idx` (callers
 * enumerate from 0 until they see it); NRT_INVALID when unsupported or for bad arguments;
 * NRT_FAILURE otherwise.
 */
NRT_STATUS nrt_get_hbm_mmap_va(int device_id, int hbm_idx, void **addr, size_t *size);

/*
 * Device-memory usage of one logical core. Append-only: fields are only ever added at the end,
 * and callers pass the size they were built with.
 *
 * Layout (LP64): 16 bytes — bytes_used @0, bytes_limit @8.
 */
typedef struct nrt_vnc_memory_stats {
  size_t bytes_used;  /* device memory currently allocated on the core */
  size_t bytes_limit; /* device memory available to the core */
} nrt_vnc_memory_stats_t;

/*
 * Fills *stats for logical core `vnc`.
 *
 * stats_size_in   bytes of *stats the caller provides (normally sizeof(nrt_vnc_memory_stats_t)).
 * stats_size_out  receives the bytes actually written: min(stats_size_in, library's size).
 */
NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t *stats,
                                    size_t stats_size_in, size_t *stats_size_out);

/*
 * Writes the PCI BDF string (e.g. "0000:10:1c.0") of the EFA NIC attached to the device that
 * owns the device memory at `va`.
 *
 * efa_bdf  caller-owned buffer.
 * len      in: size of efa_bdf including room for the NUL; out: string length without NUL.
 *
 * Returns NRT_RESOURCE when the buffer is too small, NRT_FAILURE for any other error.
 */
NRT_STATUS nrt_get_attached_efa_bdf(const void *va, char *efa_bdf, size_t *len);

/* ------------------------------------------------------------------------------------------
 * Host-driven (out-of-NEFF) collectives; scheduled through nrt/nrt_async.h.
 * ---------------------------------------------------------------------------------------- */

/*
 * A replica group for one host-driven collective.
 *
 * Layout (LP64): 32 bytes — replica_group @0, rank @8, rank_n @12, ctx_device_id @16,
 * ctx_device_count @20, vnc @24 (then padding).
 *
 * replica_group     borrowed array of rank_n global ranks taking part.
 * rank              this worker's position within replica_group.
 * rank_n            number of entries in replica_group.
 * ctx_device_id     this worker's global rank.
 * ctx_device_count  global world size.
 * vnc               process-relative logical core that performs the collective.
 */
typedef struct nrt_cc_comm {
  uint32_t *replica_group;
  uint32_t rank;
  uint32_t rank_n;
  uint32_t ctx_device_id;
  uint32_t ctx_device_count;
  uint32_t vnc;
} nrt_cc_comm_t;

/*
 * A borrowed list of tensors.
 *
 * Layout (LP64): 16 bytes — tensors @0, num_tensors @8.
 */
typedef struct nrt_tensor_list {
  nrt_tensor_t **tensors;
  size_t num_tensors;
} nrt_tensor_list_t;

/*
 * Sets up the global communicator for host-driven collectives on logical core `vnc`
 * (the counterpart of nrt_build_global_comm for nrta_cc_prepare / nrta_cc_schedule).
 * g_device_id is this worker's global rank, g_device_count the world size.
 */
NRT_STATUS nrt_cc_global_comm_init(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count);

/*
 * [shipped-library extension] Exported by libnrt 2.31+ but absent from AWS's published header;
 * the prototype comes from the shipped library.
 *
 * Creates collectives stream `stream_id` for host-initiated collectives (used by
 * torch-neuronx with TORCH_NEURONX_ENABLE_HOST_CC=1; it replaces an older environment
 * variable). Call after nrt_init.
 */
NRT_STATUS nrt_cc_create_stream(uint32_t stream_id);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_H */
