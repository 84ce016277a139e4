/*
 * trnsim — public libnrt interface.
 * nrt/nrt_async_sendrecv.h: experimental point-to-point tensor transfer between logical cores
 * of different hosts (used e.g. to move KV caches between prefill and decode servers).
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.27+.
 *
 * Enabled only when NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED=1; the bootstrap port comes
 * from NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT.
 *
 * Core numbering: unlike every other libnrt API, `lnc` / `peer_lnc` here are ABSOLUTE logical
 * core ids on their host, unaffected by container device remapping and by
 * NEURON_RT_VISIBLE_CORES.
 *
 * Lifecycle: nrt_async_sendrecv_init(lnc) may only be called while the runtime is
 * initialised, and each successful init must be matched by nrt_async_sendrecv_close(lnc)
 * before nrt_close. Communicators and requests belong to their core and die with its close.
 *
 * The general contract at the top of nrt/nrt.h applies as well.
 */
#ifndef TRNSIM_NRT_NRT_ASYNC_SENDRECV_H
#define TRNSIM_NRT_NRT_ASYNC_SENDRECV_H

#include <stdbool.h>
#include <stddef.h>

#include "nrt/nrt.h"
#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One directed connection (send side or receive side). Owned by the library; valid until
 * nrt_async_sendrecv_close of its core. */
typedef struct nrt_async_sendrecv_comm nrt_async_sendrecv_comm_t;

/* One posted send or receive. Owned by the library; dead once a test reported it done, and
 * in any case after nrt_async_sendrecv_close of its core. */
typedef struct nrt_async_sendrecv_request nrt_async_sendrecv_request_t;

/* Writes the maximum number of communicators per logical core to *num. NRT_FAILURE on error. */
NRT_STATUS nrt_async_sendrecv_get_max_num_communicators_per_lnc(int *num);

/* Writes the maximum number of pending requests per communicator to *num. NRT_FAILURE on
 * error. */
NRT_STATUS nrt_async_sendrecv_get_max_num_pending_request(int *num);

/*
 * Prepares logical core `lnc` (absolute id) for send/recv. Fails (NRT_FAILURE) when the
 * runtime is not initialised or when the previous nrt_async_sendrecv_close on this core
 * failed.
 */
NRT_STATUS nrt_async_sendrecv_init(int lnc);

/*
 * Tears down send/recv on `lnc` and invalidates all its communicators and requests. Closing
 * while a communicator is still unconnected or requests are in flight is an error
 * (NRT_FAILURE); resources are released regardless.
 */
NRT_STATUS nrt_async_sendrecv_close(int lnc);

/*
 * Starts connecting a send communicator on local core `lnc` to core `peer_lnc` at `peer_ip`
 * (copied). Non-blocking: poll nrt_async_sendrecv_test_comm until it reports done.
 * *send_comm receives the library-owned handle.
 * Errors: NRT_RESOURCE beyond the per-core communicator limit, NRT_FAILURE otherwise.
 * Thread-safe.
 */
NRT_STATUS nrt_async_sendrecv_connect(const char *peer_ip, int peer_lnc, int lnc,
                                      nrt_async_sendrecv_comm_t **send_comm);

/* Receive-side counterpart of nrt_async_sendrecv_connect; same contract. */
NRT_STATUS nrt_async_sendrecv_accept(const char *peer_ip, int peer_lnc, int lnc,
                                     nrt_async_sendrecv_comm_t **recv_comm);

/*
 * Non-blocking: *done receives whether `comm` is connected. Errors: NRT_INVALID_HANDLE for a
 * bad communicator, NRT_TIMEOUT when the connection was not established in time, NRT_FAILURE
 * otherwise.
 */
NRT_STATUS nrt_async_sendrecv_test_comm(nrt_async_sendrecv_comm_t *comm, bool *done);

/*
 * Posts a send of tensor bytes [offset, offset + length) on a connected send communicator.
 * Non-blocking and thread-safe; the tensor must stay alive and unmodified until the request
 * is done. *request receives the library-owned request handle.
 * Errors: NRT_INVALID_HANDLE for a bad communicator, NRT_RESOURCE beyond the pending-request
 * limit, NRT_FAILURE otherwise.
 */
NRT_STATUS nrt_async_sendrecv_send_tensor(nrt_tensor_t *tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t *send_comm,
                                          nrt_async_sendrecv_request_t **request);

/* Posts a receive into tensor bytes [offset, offset + length) on a connected receive
 * communicator. Same contract as nrt_async_sendrecv_send_tensor. */
NRT_STATUS nrt_async_sendrecv_recv_tensor(nrt_tensor_t *tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t *recv_comm,
                                          nrt_async_sendrecv_request_t **request);

/*
 * Non-blocking: *done receives whether the request finished and, when it did, *size the
 * number of bytes moved. Different requests may be tested concurrently; one request must not
 * be tested by two threads at once, nor again after it reported done.
 * Errors: NRT_INVALID_HANDLE for a bad request, NRT_TIMEOUT when the transfer did not finish in
 * time, NRT_FAILURE otherwise.
 */
NRT_STATUS nrt_async_sendrecv_test_request(nrt_async_sendrecv_request_t *request, bool *done,
                                           size_t *size);

/* Guarantees that the data of every receive on `lnc` already reported done has landed in
 * memory when the call returns. */
NRT_STATUS nrt_async_sendrecv_flush(int lnc);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_ASYNC_SENDRECV_H */
