/*
 * trnsim — public libnrt interface.
 * nrt/nrt_profile.h: device profiling (per model, continuous, per session) and "inspect"
 * capture sessions.
 *
 * Follows the AWS libnrt 2.x header generation of Neuron SDK 2.28+. Functions exported by the
 * shipped library but missing from AWS's published header are marked
 * "[shipped-library extension]"; their prototypes come from the shipped library.
 *
 * Option objects (nrt_profile_continuous_options_t, nrt_inspect_config_t) are pure host
 * objects: allocating, setting and freeing them is callable at any time, including before
 * nrt_init. They are not internally synchronised — use one object from one thread at a time.
 * Their setters copy string arguments.
 *
 * The general contract at the top of nrt/nrt.h applies as well.
 */
#ifndef TRNSIM_NRT_NRT_PROFILE_H
#define TRNSIM_NRT_NRT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Per-model device profile
 * ---------------------------------------------------------------------------------------- */

/*
 * Arms device profiling of `model`. `filename` names the NTFF output file (created or
 * truncated) and must be passed again to nrt_profile_stop; the string is copied.
 */
NRT_STATUS nrt_profile_start(nrt_model_t *model, const char *filename);

/*
 * Collects the profile armed by nrt_profile_start for the same `filename`, writes it to that
 * file and disarms profiling.
 */
NRT_STATUS nrt_profile_stop(const char *filename);

/* ------------------------------------------------------------------------------------------
 * Per-core profile sessions  [shipped-library extension]
 *
 * Exported by libnrt 2.31+ but absent from AWS's published header. A session captures the
 * device activity of one logical core; stopping it keeps the capture in memory under a
 * session id until it is serialised or dropped. The inspect API drives these internally in
 * NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION.
 * ---------------------------------------------------------------------------------------- */

/* [shipped-library extension] Starts capturing on logical core `vnc`. NRT_INVALID if a session
 * is already active there. */
NRT_STATUS nrt_profile_session_start(int32_t vnc);

/* [shipped-library extension] Stops the active session on `vnc` and keeps its capture in
 * memory; *session_id receives the id under which it is kept. NRT_INVALID if no session is
 * active. */
NRT_STATUS nrt_profile_session_stop(int32_t vnc, uint64_t *session_id);

/* [shipped-library extension] Writes kept capture `session_id` to `filename` (NTFF; created or
 * truncated) and releases it. NRT_INVALID for an unknown id. */
NRT_STATUS nrt_profile_session_serialize(uint64_t session_id, const char *filename);

/* [shipped-library extension] Releases kept capture `session_id` without writing it.
 * NRT_INVALID for an unknown id. */
NRT_STATUS nrt_profile_session_drop(uint64_t session_id);

/* [shipped-library extension] Releases every kept capture of logical core `vnc`. */
NRT_STATUS nrt_profile_session_drop_all(int32_t vnc);

/* ------------------------------------------------------------------------------------------
 * Continuous device profiling
 * ---------------------------------------------------------------------------------------- */

/* Options for continuous profiling. Opaque; default output directory "./output". */
typedef struct nrt_profile_continuous_options nrt_profile_continuous_options_t;

/* Creates an options object with default values in *options; the caller owns it until
 * nrt_profile_continuous_options_free. Errors: NRT_RESOURCE. */
NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t **options);

/* Frees an options object. NULL is a no-op. */
NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t *options);

/* Sets the directory that saved profiles go to (file names are chosen by the library). */
NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t *options,
                                                         const char *output_dir);

/*
 * Starts continuous profiling: every execution of every model is profiled, but a profile is
 * written only when nrt_profile_continuous_save asks for it. `options` is read during the call
 * only. Fails (NRT_FAILURE) while inspect device profiling or implicit async execution is on.
 */
NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t *options);

/*
 * Writes the profile of the most recent execution on logical core `vnc` into the options'
 * output directory. Profiling continues.
 */
NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t *options);

/* Stops continuous profiling without saving anything. */
NRT_STATUS nrt_profile_continuous_stop(void);

/* ------------------------------------------------------------------------------------------
 * Inspect (system + device capture sessions)
 * ---------------------------------------------------------------------------------------- */

/*
 * Starts an inspect session configured only by the NEURON_RT_INSPECT_* environment variables
 * (NEURON_RT_INSPECT_ENABLE, _OUTPUT_DIR, _SYSTEM_PROFILE, _DEVICE_PROFILE, _ON_FAIL, ...).
 */
NRT_STATUS nrt_inspect_begin(void);

/* Ends the inspect session and writes everything captured to the output directory. */
NRT_STATUS nrt_inspect_stop(void);

/* Options for nrt_inspect_begin_with_options. Opaque. */
typedef struct nrt_inspect_config nrt_inspect_config_t;

/* Creates a config with default values (see nrt_inspect_config_set_defaults) in *options; the
 * caller owns it until nrt_inspect_config_free. Errors: NRT_RESOURCE. */
NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t **options);

/*
 * Resets every field to its default, ignoring the environment: session id 1, output directory
 * "./output", every activity type, every core and every event type captured, inspect off,
 * inspect-on-failure off.
 */
NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t *options);

/* Frees a config and the strings it holds. NULL is a no-op. */
NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t *options);

/* Sets the session id recorded in the output. */
NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t *options, int session_id);

/* Sets the output directory (copied). NRT_INVALID for NULL or "", NRT_RESOURCE if the copy
 * cannot be allocated. */
NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t *options, const char *output_dir);

/* Sets the capacity, in events, of each core's system-trace ring buffer. */
NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(nrt_inspect_config_t *options,
                                                              uint64_t sys_trace_max_events_per_nc);

/* Enables or disables system-trace capture on logical core `nc_idx`; disabled cores get no
 * ring buffer. */
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t *options,
                                                         uint32_t nc_idx, bool enabled);

/* Enables or disables capture of one system-trace event type, named as returned by
 * nrt_sys_trace_get_event_types (nrt/nrt_sys_trace.h). NRT_INVALID for an unknown name. */
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(
    nrt_inspect_config_t *options, const char *event_type, bool enabled);

/* Enables or disables profile capture for every execution. If both this and
 * inspect-on-failure are off, the session captures nothing. */
NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t *options,
                                                 bool enable_inspect);

/* Enables or disables dumping device profiles of executions that fail. */
NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t *options,
                                                         bool enable_inspect_on_fail);

/*
 * How device profiles are captured in an inspect session.  [shipped-library extension]
 *
 * The type and the setter below are exported by libnrt 2.31+ (and used by torch-neuronx) but
 * absent from AWS's published header. Values come from the shipped library's debug info;
 * only the SESSION enumerator's spelling is confirmed by public callers.
 */
typedef enum nrt_inspect_device_profile_mode {
  NRT_INSPECT_DEVICE_PROFILE_MODE_DISABLED = 0, /* no device profile */
  NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL = 1,    /* one profile per model execution; not
                                                   compatible with nrta_* execution */
  NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION = 2,  /* one profile per core for the whole
                                                   session */
} nrt_inspect_device_profile_mode_t;

/* [shipped-library extension] Selects the device-profile mode. NRT_INVALID for a value that is
 * not an enumerator. */
NRT_STATUS nrt_inspect_config_set_inspect_device_profile_mode(
    nrt_inspect_config_t *options, nrt_inspect_device_profile_mode_t device_profile_mode);

/*
 * Starts an inspect session configured by `options` (read during the call only); NULL means
 * defaults. The NEURON_RT_INSPECT_* environment variables are ignored.
 */
NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t *options);

/*
 * Returns every activity-type name ("system_profile", "device_profile", "host_memory",
 * "cpu_util"). *activity_types receives a malloc'd array of *count malloc'd strings, owned by
 * the caller: free each string and the array with free(), or call
 * nrt_inspect_config_free_activity_types. Errors: NRT_INVALID, NRT_RESOURCE.
 */
NRT_STATUS nrt_inspect_config_get_all_activity_types(const char ***activity_types, size_t *count);

/* Like nrt_inspect_config_get_all_activity_types, restricted to the types enabled in
 * `options`. Same ownership rules. */
NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t *options,
                                                         const char ***activity_types,
                                                         size_t *count);

/* Frees an array returned by the two functions above, with its `count` strings. NULL is a
 * no-op. Callable at any time. */
void nrt_inspect_config_free_activity_types(const char **activity_types, size_t count);

/* Enables or disables one activity type by name: one of the names above or "all".
 * NRT_INVALID for an unknown name. */
NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t *options, const char *activity_type,
                                           bool enabled);

/*
 * [shipped-library extension] Exported by libnrt 2.31+ but absent from AWS's published header.
 *
 * Writes into instance_dir_buf (caller-owned, buf_size bytes) the NUL-terminated directory,
 * below `output_dir`, where this process's inspect output goes. NRT_RESOURCE when buf_size is
 * too small.
 */
NRT_STATUS nrt_inspect_get_instance_output_dir(const char *output_dir, char *instance_dir_buf,
                                               size_t buf_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRNSIM_NRT_NRT_PROFILE_H */
