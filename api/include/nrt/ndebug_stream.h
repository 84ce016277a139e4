/*
 * trnsim — public libnrt interface.
 * nrt/ndebug_stream.h: per-logical-core debug event streams (for example tensor prints issued
 * by device code).
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.27+ (runtime 2.29.40+).
 *
 * Model: a client connects to one logical core's stream and gets a file descriptor that becomes
 * readable when events are queued. The descriptor may only be used with poll/epoll/select;
 * events are consumed exclusively through nrt_debug_client_read_one_event.
 *  - At most one client per core at a time.
 *  - Events emitted while no client is connected are dropped, and so are events that arrive
 *    while the stream's buffer is full (NEURON_RT_DEBUG_STREAM_BUFFER_SIZE events).
 *  - Only the process that owns the core can connect.
 *  - Different streams may be used from different threads; one stream must be used from one
 *    thread at a time.
 *
 * The general contract at the top of nrt/nrt.h applies as well.
 */
#ifndef TRNSIM_NRT_NDEBUG_STREAM_H
#define TRNSIM_NRT_NDEBUG_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Angle brackets here, as in AWS's header: the include root must be on the -I path. */
#include <nrt/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kind of payload that follows an event header. */
typedef enum ndebug_stream_event_type {
  NDEBUG_STREAM_EVENT_TYPE_INVALID = 0,
  NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ = 1, /* see ..._debug_tensor_read_t */
} ndebug_stream_event_type_t;

/*
 * Fixed-size header of every event.
 *
 * Layout (LP64): 64 bytes — data_size @0, type @8, reserved @12.
 *
 * data_size  size in bytes of the payload that goes with this header.
 * type       an ndebug_stream_event_type_t value (stored as uint32_t).
 * reserved   zero-filled.
 */
typedef struct ndebug_stream_event_header {
  uint64_t data_size;
  uint32_t type;
  char reserved[52];
} ndebug_stream_event_header_t;

/*
 * Payload of NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ: one tensor's contents.
 *
 * Layout (LP64): 1024 bytes + tensor data — prefix @0, logical_nc_id @512, pipe @516,
 * tensor_dtype @520, tensor_shape @536, tensor_data_size @600, reserved0 @608,
 * tensor_data @1024.
 *
 * prefix            NUL-terminated label given by the device code.
 * logical_nc_id     logical core that produced the event.
 * pipe              device-side pipe index reported with the event.
 * tensor_dtype      NUL-terminated element-type name.
 * tensor_shape      dimension sizes; unused trailing entries are 0.
 * tensor_data_size  number of bytes in tensor_data.
 * reserved0         zero-filled; newer runtimes may carve fields out of it.
 * tensor_data       the tensor bytes (flexible array member).
 */
typedef struct ndebug_stream_payload_debug_tensor_read {
  char prefix[512];
  uint32_t logical_nc_id;
  uint32_t pipe;
  char tensor_dtype[16];
  uint64_t tensor_shape[8];
  uint64_t tensor_data_size;
  char reserved0[416];
  char tensor_data[];
} ndebug_stream_payload_debug_tensor_read_t;

/*
 * Connects to the stream of logical core `logical_nc_idx`. *stream_fd receives the pollable
 * descriptor, owned by the library: release it with nrt_debug_client_connect_close, never
 * with close(). NRT_INVALID when a client is already connected to that core.
 */
NRT_STATUS nrt_debug_client_connect(int logical_nc_idx, int *stream_fd);

/* Disconnects and releases `stream_fd`. Events still queued are discarded. Unknown
 * descriptors are ignored. */
void nrt_debug_client_connect_close(int stream_fd);

/*
 * Takes the oldest queued event off the stream.
 *
 * header   receives the event header (caller-owned storage).
 * payload  receives a malloc'd block of header->data_size bytes, owned by the caller, who
 *          releases it with free(); its layout depends on header->type.
 *
 * Returns NRT_SUCCESS, or NRT_QUEUE_EMPTY when nothing is queued (then *payload is untouched).
 */
NRT_STATUS nrt_debug_client_read_one_event(int stream_fd, ndebug_stream_event_header_t *header,
                                           void **payload);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NDEBUG_STREAM_H */
