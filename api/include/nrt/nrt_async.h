/*
 * trnsim — public libnrt interface.
 * nrt/nrt_async.h: the explicit asynchronous API (nrta_*), exported under ELF symbol version
 * NRT_3.0.0.
 *
 * Generation: "async API 3.0" of Neuron SDK 2.29+ (runtime library 2.31+), plus the eventfd
 * registration calls added in runtime 2.32. This is NOT the header AWS publishes on GitHub,
 * which still carries the SDK 2.28 "error tracker" generation: same function names, different
 * arity and different nrta_xu_t values. The generations cannot coexist in one library; trnsim
 * implements this one only.
 *
 * Model: each logical core (LNC) has execution units (XUs) — tensor-op, compute, collectives —
 * and each XU has a few FIFO queues. A schedule call appends a request to one queue and
 * returns immediately with a sequence id; requests on one queue run one at a time in submit
 * order, and nothing orders requests on different queues. Completion is observed by polling
 * (nrta_is_completed, nrta_get_sequence) or through an eventfd (nrta_event_register_*).
 *
 * Contract shared by all schedule calls (nrta_tensor_*, nrta_execute_schedule,
 * nrta_cc_schedule):
 *  - On NRT_SUCCESS the request is queued and *req_sequence receives its sequence id. The
 *    request's final status is written to *ret before the request is reported complete.
 *  - On any other return the request was not queued and neither *ret nor *req_sequence is
 *    written. NRT_QUEUE_FULL means the queue has no free slot (retry after a completion);
 *    NRT_EXEC_UNIT_UNRECOVERABLE means the XU failed permanently and every later schedule on it
 *    fails the same way.
 *  - Everything the request refers to (tensors, host buffers, tensor sets, the `ret` variable)
 *    is borrowed and must stay alive and unmodified until the request completes.
 *  - Thread-safe; callers that submit to one queue from several threads get an arbitrary
 *    interleaving.
 *
 * The general contract at the top of nrt/nrt.h applies as well.
 */
#ifndef TRNSIM_NRT_NRT_ASYNC_H
#define TRNSIM_NRT_NRT_ASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Quoted, root-relative include, as in the other nrt headers. */
#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Execution-unit types. Queues per XU on each logical core: TENSOR_OP 2 (queue 0 or 1),
 * COMPUTE 1 (queue 0), COLLECTIVES 3 (queue 0..2). New types are appended before
 * NRTA_XU_TYPE_NUM.
 */
typedef enum {
  NRTA_XU_TENSOR_OP = 0,   /* tensor reads, writes and copies */
  NRTA_XU_COMPUTE = 1,     /* model executions */
  NRTA_XU_COLLECTIVES = 2, /* host-driven collectives */
  NRTA_XU_TYPE_NUM = 3,    /* number of XU types (not an XU) */
} nrta_xu_t;

/*
 * A request's sequence id. The top 16 bits identify the XU queue the request went to, the low
 * 48 bits are a number that rises by one per request within that queue. Ids of different
 * queues are not comparable.
 */
typedef uint64_t nrta_seq_t;

/* The 16-bit XU-queue identifier held in the top bits of a nrta_seq_t. */
typedef uint16_t nrta_xu_id_t;

/* clang-format off */
/* Largest sequence number (low 48 bits all set), also the mask that extracts it. */
#define NRTA_SEQ_NUM_MAX ((1ull << 48) - 1)
#define NRTA_SEQ_NUM_MASK NRTA_SEQ_NUM_MAX
/* Sequence-number part of a sequence id. Unlike AWS's macro, the argument is parenthesised,
 * so an expression argument is evaluated as a whole; results for plain values are identical. */
#define NRTA_SEQ_GET_SEQ_NUM(seq_id) ((seq_id) & NRTA_SEQ_NUM_MASK)
/* XU-queue part (top 16 bits) of a sequence id. */
#define NRTA_SEQ_GET_XU_ID(seq_id) ((seq_id) >> 48)
/* clang-format on */

/*
 * Schedules a host -> tensor copy of `size` bytes from `buf` into tensor bytes
 * [offset, offset + size) on the tensor-op XU of logical core `lnc_idx`, queue `queue`
 * (0 or 1). `buf` must stay valid and unmodified until completion.
 */
NRT_STATUS nrta_tensor_write(nrt_tensor_t *tensor, const void *buf, uint64_t offset, uint64_t size,
                             int lnc_idx, int queue, NRT_STATUS *ret, nrta_seq_t *req_sequence);

/*
 * Schedules a tensor -> host copy of tensor bytes [offset, offset + size) into `buf` (at least
 * `size` bytes) on the tensor-op XU of logical core `lnc_idx`, queue `queue` (0 or 1). The
 * contents of `buf` are defined only after completion.
 */
NRT_STATUS nrta_tensor_read(void *buf, nrt_tensor_t *tensor, uint64_t offset, uint64_t size,
                            int lnc_idx, int queue, NRT_STATUS *ret, nrta_seq_t *req_sequence);

/*
 * Schedules a copy of `size` bytes from src[src_offset..] to dst[dst_offset..] on the
 * tensor-op XU of logical core `lnc_idx`, queue `queue` (0 or 1).
 */
NRT_STATUS nrta_tensor_copy(nrt_tensor_t *src, uint64_t src_offset, nrt_tensor_t *dst,
                            uint64_t dst_offset, uint64_t size, int lnc_idx, int queue,
                            NRT_STATUS *ret, nrta_seq_t *req_sequence);

/*
 * Schedules one execution of `model` on the compute XU of the core the model is loaded on.
 * `queue` must be 0. Input and output tensors are bound by name as for nrt_execute; the sets
 * and their tensors must stay alive until completion. Execution errors (1002..1206) arrive in
 * *ret.
 */
NRT_STATUS nrta_execute_schedule(nrt_model_t *model, const nrt_tensor_set_t *input,
                                 nrt_tensor_set_t *output, int queue, NRT_STATUS *ret,
                                 nrta_seq_t *req_sequence);

/*
 * Builds a reusable host-driven collective: `cc_op` over the tensors of `input` into those of
 * `output`, reducing element-wise with `op` on elements of type `dtype`, among the replica
 * group in `comm`. Nothing is scheduled.
 *
 * On success *cc_ctx receives a context handle owned by the library (contexts are cached by
 * signature, so equal requests may yield the same handle); pass it to nrta_cc_schedule.
 * `comm`, the lists and their tensors are borrowed and must stay alive while the context is
 * used. Requires nrt_cc_global_comm_init.
 */
NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t *comm, nrt_tensor_list_t *input, nrt_tensor_list_t *output,
                           nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
                           nrt_cc_context_t **cc_ctx);

/*
 * Schedules a context from nrta_cc_prepare on the collectives XU of the context's core, queue
 * `queue` (0..2).
 */
NRT_STATUS nrta_cc_schedule(nrt_cc_context_t **cc_ctx, int queue, NRT_STATUS *ret,
                            nrta_seq_t *req_sequence);

/*
 * Non-blocking completion test: *is_completed receives true once request `seq` has finished
 * (successfully or not — look at its *ret). Returns NRT_SUCCESS for any valid id, pending or
 * not; NRT_INVALID only for an id that was never issued.
 */
NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool *is_completed);

/*
 * Writes to *seq the id of the last completed request on queue `queue` of XU `xu` of logical
 * core `lnc`. Since ids rise by one per request, "last submitted - last completed" is the
 * number of requests still pending on that queue.
 */
NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t *seq);

/*
 * Asks the runtime to signal eventfd `fd` (add to its counter) when request `seq` completes.
 * If the request has already completed, the fd is signalled at once, so there is no lost
 * wake-up. `fd` stays owned by the caller; fd = -1 removes the registration. Deregister before
 * closing the fd.
 *
 * Runtime 2.32+ (SDK 2.30). AWS publishes no prototype for it: this one is inferred from AWS's
 * own callers (nkipy/spike) and documentation examples.
 */
NRT_STATUS nrta_event_register_seq_id_completion(nrta_seq_t seq, int fd);

/*
 * Asks the runtime to signal eventfd `fd` every time any request on queue `queue` of XU `xu`
 * of logical core `lnc` completes. `fd` stays owned by the caller; fd = -1 removes the
 * registration. Deregister before closing the fd.
 *
 * Runtime 2.32+; prototype source as for nrta_event_register_seq_id_completion.
 */
NRT_STATUS nrta_event_register_xu_completion(int lnc, nrta_xu_t xu, int queue, int fd);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_ASYNC_H */
