/*
 * trnsim — public libnrt interface.
 * ndl/neuron_driver_shared_tensor_batch_op.h: the per-operation record of the batched tensor
 * read/write calls (nrt_tensor_read_batch / nrt_tensor_write_batch in nrt/nrt.h).
 *
 * The record is shared by the runtime and the Neuron kernel driver, so this header also builds
 * in a kernel context (__KERNEL__), where the fixed-width types come from <linux/types.h>.
 *
 * The include guard deliberately has the same name as the driver's own copy of this header,
 * so a translation unit that sees both gets one definition.
 */
#ifndef NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H
#define NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __KERNEL__
typedef __u64 nrt_tensor_batch_offset_t;
typedef __u64 nrt_tensor_batch_size_t;
#else
/* Byte offset into a tensor. Always 64 bits wide, whatever the platform's size_t. */
typedef uint64_t nrt_tensor_batch_offset_t;
/* Byte count of one operation. Always 64 bits wide. */
typedef uint64_t nrt_tensor_batch_size_t;
#endif

/*
 * One contiguous copy between a tensor and a caller buffer.
 *
 * Layout (LP64): 24 bytes — offset @0, size @8, buffer @16.
 *
 * offset  first tensor byte touched by the operation.
 * size    number of bytes to copy; [offset, offset + size) must lie inside the tensor.
 * buffer  caller-owned host memory of at least `size` bytes. For a read batch it receives
 *         tensor bytes; for a write batch it supplies them. The library never frees it and
 *         keeps no reference to it after the batch call returns.
 */
typedef struct nrt_tensor_batch_op {
  nrt_tensor_batch_offset_t offset;
  nrt_tensor_batch_size_t size;
  void *buffer;
} nrt_tensor_batch_op_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H */
