/*
 * trnsim — public libnrt interface.
 * nrt/nrt_sys_trace.h: system trace — per-core ring buffers of runtime events (model loads,
 * executions, collectives, hardware notifications, ...), fetched as JSON or saved by inspect.
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.28+.
 *
 * Config and fetch-option objects are pure host objects: allocating, setting and freeing them
 * is callable at any time, including before nrt_init. They are not internally synchronised —
 * use one object from one thread at a time. Their void setters ignore a NULL object.
 *
 * The general contract at the top of nrt/nrt.h applies as well.
 */
#ifndef TRNSIM_NRT_NRT_SYS_TRACE_H
#define TRNSIM_NRT_NRT_SYS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Angle brackets here, as in AWS's header: the include root must be on the -I path. */
#include <nrt/nrt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Capture
 * ---------------------------------------------------------------------------------------- */

/* What nrt_sys_trace_start captures. Opaque. */
typedef struct nrt_sys_trace_config nrt_sys_trace_config_t;

/* Creates a config with default values in *options; the caller owns it until
 * nrt_sys_trace_config_free. Errors: NRT_RESOURCE. */
NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t **options);

/* Resets every field to its default: every core and every event type captured, default ring
 * size. */
void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t *options);

/* Frees a config. NULL is a no-op. */
void nrt_sys_trace_config_free(nrt_sys_trace_config_t *options);

/* Sets the capacity, in events, of each core's ring buffer. */
void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t *options,
                                                uint64_t max_events_per_nc);

/* Enables or disables capture on logical core `nc_idx`; disabled cores get no ring buffer. */
void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t *options,
                                                     uint32_t nc_idx, bool enabled);

/* Enables or disables one event type, named as returned by nrt_sys_trace_get_event_types.
 * NRT_INVALID for an unknown name or a NULL argument. */
NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t *options,
                                                                   const char *event_type,
                                                                   bool enabled);

/*
 * Returns every event-type name. *event_types receives a malloc'd array of *count malloc'd
 * strings, owned by the caller: free each string and the array with free(), or call
 * nrt_sys_trace_free_event_types. Callable at any time.
 */
NRT_STATUS nrt_sys_trace_get_event_types(const char ***event_types, size_t *count);

/* Frees an array returned by nrt_sys_trace_get_event_types or
 * nrt_sys_trace_config_get_enabled_event_types, with its `count` strings. NULL is a no-op. */
void nrt_sys_trace_free_event_types(const char **event_types, size_t count);

/* Like nrt_sys_trace_get_event_types, restricted to the types enabled in `options`. Same
 * ownership rules. */
NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t *options,
                                                        const char ***event_types, size_t *count);

/*
 * Starts capturing: allocates one ring buffer per enabled logical core. `options` is read
 * during the call only. Errors: NRT_RESOURCE.
 */
NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t *options);

/* Stops capturing and frees the ring buffers; events not yet fetched are lost. */
NRT_STATUS nrt_sys_trace_stop(void);

/* ------------------------------------------------------------------------------------------
 * Fetch
 * ---------------------------------------------------------------------------------------- */

/* What nrt_sys_trace_fetch_events returns. Opaque. */
typedef struct nrt_sys_trace_fetch_options nrt_sys_trace_fetch_options_t;

/* Creates fetch options with default values (all cores, all events) in *options; the caller
 * owns them until nrt_sys_trace_fetch_options_free. Errors: NRT_RESOURCE. */
NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t **options);

/* Resets the options to their defaults: all cores, no event limit. */
void nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t *options);

/* Frees fetch options. NULL is a no-op. */
void nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t *options);

/* Limits how many events are fetched from each core. */
void nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t *options,
                                                       uint64_t max_events_per_nc);

/* Restricts the fetch to logical core `nc_idx`. */
void nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t *options,
                                            uint64_t nc_idx);

/*
 * Removes captured events from the ring buffers and returns them as a JSON document.
 *
 * buffer        the caller sets *buffer to NULL first; on success it receives a
 *               library-allocated NUL-terminated string, owned by the caller and released with
 *               nrt_sys_trace_buffer_free.
 * written_size  receives the string's length in bytes.
 * options       read during the call only; NULL means all cores and all events.
 *
 * Fetched events are consumed: a later fetch does not return them again.
 * Thread-safety: concurrent fetches each receive a disjoint subset of the events.
 */
NRT_STATUS nrt_sys_trace_fetch_events(char **buffer, size_t *written_size,
                                      const nrt_sys_trace_fetch_options_t *options);

/* Frees a string returned by nrt_sys_trace_fetch_events. NULL is a no-op. Callable at any
 * time. */
void nrt_sys_trace_buffer_free(char *buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_SYS_TRACE_H */
