/*
 * trnsim — ABI conformance test for the public libnrt headers (api/include).
 *
 * Build and run:  gcc -std=c11 -Wall -Wextra -Iapi/include tests/api/abi_layout_test.c && ./a.out
 *
 * Every expected value below is written from the interface reference
 * (shared/reference/nrt-api-facts.md, sections 3, 4, 5 and 7), never copied from the headers:
 *  - compile time: struct sizes and field offsets (x86-64 / LP64), enum widths, typedef widths,
 *    and the exact prototype of every exported function (a mismatch stops the build and names
 *    the function);
 *  - run time: every enumerator and #define value. Each failure is printed by name; the last
 *    line is "N passed, M failed" and the exit status is 0 only when M is 0.
 *
 * The program does not call into libnrt, so it needs no library to link.
 */
#include <nrt/nrt.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_version.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_async.h>
#include <nrt/nrt_profile.h>
#include <nrt/nrt_sys_trace.h>
#include <nrt/nrt_async_sendrecv.h>
#include <nrt/ndebug_stream.h>
#include <ndl/neuron_driver_shared_tensor_batch_op.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ========================================================================================== */
/* Compile-time checks                                                                         */
/* ========================================================================================== */

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8 && sizeof(int) == 4,
               "the layout table describes an LP64 target (x86-64)");

#define SIZE_IS(type, n) _Static_assert(sizeof(type) == (n), "sizeof(" #type ") != " #n)
#define OFFSET_IS(type, field, n) \
    _Static_assert(offsetof(type, field) == (n), "offsetof(" #type ", " #field ") != " #n)

/* nrt_version_t: 224 bytes. */
SIZE_IS(nrt_version_t, 224);
OFFSET_IS(nrt_version_t, rt_major, 0);
OFFSET_IS(nrt_version_t, rt_minor, 8);
OFFSET_IS(nrt_version_t, rt_patch, 16);
OFFSET_IS(nrt_version_t, rt_maintenance, 24);
OFFSET_IS(nrt_version_t, rt_detail, 32);
OFFSET_IS(nrt_version_t, git_hash, 160);

/* nrt_instance_info_t: 32 bytes (the SDK 2.28+ size). */
SIZE_IS(nrt_instance_info_t, 32);
OFFSET_IS(nrt_instance_info_t, family, 0);
OFFSET_IS(nrt_instance_info_t, size, 4);
OFFSET_IS(nrt_instance_info_t, arch_name, 8);
OFFSET_IS(nrt_instance_info_t, device_revision, 24);
SIZE_IS(((nrt_instance_info_t *)0)->arch_name, 16);
SIZE_IS(((nrt_instance_info_t *)0)->device_revision, 8);

/* nrt_tensor_batch_op_t: 24 bytes. */
SIZE_IS(nrt_tensor_batch_op_t, 24);
OFFSET_IS(nrt_tensor_batch_op_t, offset, 0);
OFFSET_IS(nrt_tensor_batch_op_t, size, 8);
OFFSET_IS(nrt_tensor_batch_op_t, buffer, 16);
SIZE_IS(nrt_tensor_batch_offset_t, 8);
SIZE_IS(nrt_tensor_batch_size_t, 8);

/* nrt_tensor_batch_t: 24 bytes. */
SIZE_IS(nrt_tensor_batch_t, 24);
OFFSET_IS(nrt_tensor_batch_t, tensor, 0);
OFFSET_IS(nrt_tensor_batch_t, ops, 8);
OFFSET_IS(nrt_tensor_batch_t, num_ops, 16);
SIZE_IS(((nrt_tensor_batch_t *)0)->num_ops, 4);

/* nrt_tensor_device_allocation_info_t: 24 bytes. */
SIZE_IS(nrt_tensor_device_allocation_info_t, 24);
OFFSET_IS(nrt_tensor_device_allocation_info_t, physical_address, 0);
OFFSET_IS(nrt_tensor_device_allocation_info_t, size, 8);
OFFSET_IS(nrt_tensor_device_allocation_info_t, hbm_index, 16);

/* nrt_vnc_memory_stats_t: 16 bytes. */
SIZE_IS(nrt_vnc_memory_stats_t, 16);
OFFSET_IS(nrt_vnc_memory_stats_t, bytes_used, 0);
OFFSET_IS(nrt_vnc_memory_stats_t, bytes_limit, 8);

/* nrt_cc_comm_t: 32 bytes. */
SIZE_IS(nrt_cc_comm_t, 32);
OFFSET_IS(nrt_cc_comm_t, replica_group, 0);
OFFSET_IS(nrt_cc_comm_t, rank, 8);
OFFSET_IS(nrt_cc_comm_t, rank_n, 12);
OFFSET_IS(nrt_cc_comm_t, ctx_device_id, 16);
OFFSET_IS(nrt_cc_comm_t, ctx_device_count, 20);
OFFSET_IS(nrt_cc_comm_t, vnc, 24);

/* nrt_tensor_list_t: 16 bytes. */
SIZE_IS(nrt_tensor_list_t, 16);
OFFSET_IS(nrt_tensor_list_t, tensors, 0);
OFFSET_IS(nrt_tensor_list_t, num_tensors, 8);

/* nrt_tensor_info_t: 296 bytes. */
SIZE_IS(nrt_tensor_info_t, 296);
OFFSET_IS(nrt_tensor_info_t, name, 0);
OFFSET_IS(nrt_tensor_info_t, usage, 256);
OFFSET_IS(nrt_tensor_info_t, size, 264);
OFFSET_IS(nrt_tensor_info_t, dtype, 272);
OFFSET_IS(nrt_tensor_info_t, shape, 280);
OFFSET_IS(nrt_tensor_info_t, ndim, 288);

/* nrt_tensor_info_array_t: 8-byte count, then 296-byte entries. */
SIZE_IS(nrt_tensor_info_array_t, 8);
OFFSET_IS(nrt_tensor_info_array_t, tensor_count, 0);
OFFSET_IS(nrt_tensor_info_array_t, tensor_array, 8);
SIZE_IS(((nrt_tensor_info_array_t *)0)->tensor_array[0], 296);

/* nrt_ucode_img: 16 bytes; nrt_ucode_info: 32 bytes. */
SIZE_IS(nrt_ucode_img, 16);
OFFSET_IS(nrt_ucode_img, bin, 0);
OFFSET_IS(nrt_ucode_img, size, 8);
SIZE_IS(nrt_ucode_info, 32);
OFFSET_IS(nrt_ucode_info, iram, 0);
OFFSET_IS(nrt_ucode_info, dram, 16);

/* nrt_model_info_t: 4 bytes. */
SIZE_IS(nrt_model_info_t, 4);
OFFSET_IS(nrt_model_info_t, vnc, 0);

/* ndebug_stream_event_header_t: 64 bytes. */
SIZE_IS(ndebug_stream_event_header_t, 64);
OFFSET_IS(ndebug_stream_event_header_t, data_size, 0);
OFFSET_IS(ndebug_stream_event_header_t, type, 8);
OFFSET_IS(ndebug_stream_event_header_t, reserved, 12);
SIZE_IS(((ndebug_stream_event_header_t *)0)->type, 4);

/* ndebug_stream_payload_debug_tensor_read_t: 1024 bytes before the tensor data. */
SIZE_IS(ndebug_stream_payload_debug_tensor_read_t, 1024);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, prefix, 0);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, logical_nc_id, 512);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, pipe, 516);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, tensor_dtype, 520);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, tensor_shape, 536);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, tensor_data_size, 600);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, reserved0, 608);
OFFSET_IS(ndebug_stream_payload_debug_tensor_read_t, tensor_data, 1024);

/* Enums are 4 bytes; bool is 1 byte; async typedefs. */
SIZE_IS(NRT_STATUS, 4);
SIZE_IS(nrt_tensor_placement_t, 4);
SIZE_IS(nrt_framework_type_t, 4);
SIZE_IS(nrt_op_type_t, 4);
SIZE_IS(nrt_dtype_t, 4);
SIZE_IS(nrt_cc_op_type_t, 4);
SIZE_IS(nrt_tensor_usage_t, 4);
SIZE_IS(nrta_xu_t, 4);
SIZE_IS(ndebug_stream_event_type_t, 4);
SIZE_IS(nrt_inspect_device_profile_mode_t, 4);
SIZE_IS(bool, 1);
SIZE_IS(nrta_seq_t, 8);
SIZE_IS(nrta_xu_id_t, 2);

/* Prototypes. `type` is written from the reference (section 7); _Generic compares it with the
 * type of the header's declaration using C's compatibility rules, so parameter count, order,
 * pointer levels, pointee qualifiers and the return type must all match. */
#define PROTO(fn, type) _Static_assert(_Generic(&fn, type: 1, default: 0), "prototype of " #fn)

/* nrt_status.h / nrt_version.h */
PROTO(nrt_get_status_as_str, const char *(*)(NRT_STATUS));
PROTO(nrt_get_version, NRT_STATUS (*)(nrt_version_t *, size_t));
/* nrt.h: lifecycle, instance, counts */
PROTO(nrt_init, NRT_STATUS (*)(nrt_framework_type_t, const char *, const char *));
PROTO(nrt_close, void (*)(void));
PROTO(nrt_get_instance_info, NRT_STATUS (*)(nrt_instance_info_t *, size_t));
PROTO(nrt_get_total_nc_count, NRT_STATUS (*)(uint32_t *));
PROTO(nrt_get_total_vnc_count, NRT_STATUS (*)(uint32_t *));
PROTO(nrt_get_visible_nc_count, NRT_STATUS (*)(uint32_t *));
PROTO(nrt_get_visible_vnc_count, NRT_STATUS (*)(uint32_t *));
PROTO(nrt_host_device_id_get, NRT_STATUS (*)(int, uint32_t *));
PROTO(nrt_host_device_id_rid_map_get, NRT_STATUS (*)(uint32_t *, uint32_t *));
/* nrt.h: models */
PROTO(nrt_load, NRT_STATUS (*)(const void *, size_t, int32_t, int32_t, nrt_model_t **));
PROTO(nrt_load_collectives,
      NRT_STATUS (*)(const void *, size_t, int32_t, int32_t, uint32_t, uint32_t, nrt_model_t **));
PROTO(nrt_unload, NRT_STATUS (*)(nrt_model_t *));
PROTO(nrt_get_model_nc_count, NRT_STATUS (*)(const nrt_model_t *, uint32_t *));
PROTO(nrt_get_model_vnc_count, NRT_STATUS (*)(const nrt_model_t *, uint32_t *));
/* nrt.h: tensors */
PROTO(nrt_tensor_allocate,
      NRT_STATUS (*)(nrt_tensor_placement_t, int, size_t, const char *, nrt_tensor_t **));
PROTO(nrt_tensor_free, void (*)(nrt_tensor_t **));
PROTO(nrt_tensor_read, NRT_STATUS (*)(const nrt_tensor_t *, void *, size_t, size_t));
PROTO(nrt_tensor_write, NRT_STATUS (*)(nrt_tensor_t *, const void *, size_t, size_t));
PROTO(nrt_tensor_copy, NRT_STATUS (*)(const nrt_tensor_t *, size_t, nrt_tensor_t *, size_t, size_t));
PROTO(nrt_tensor_get_size, size_t (*)(const nrt_tensor_t *));
PROTO(nrt_tensor_memset, NRT_STATUS (*)(nrt_tensor_t *, uint64_t, int, size_t));
PROTO(nrt_tensor_allocate_empty, NRT_STATUS (*)(const char *, nrt_tensor_t **));
PROTO(nrt_tensor_attach_buffer, NRT_STATUS (*)(nrt_tensor_t *, void *, size_t));
PROTO(nrt_tensor_allocate_slice,
      NRT_STATUS (*)(const nrt_tensor_t *, size_t, size_t, const char *, nrt_tensor_t **));
PROTO(nrt_tensor_get_va, void *(*)(const nrt_tensor_t *));
PROTO(nrt_tensor_get_device_allocation_info,
      NRT_STATUS (*)(const nrt_tensor_t *, nrt_tensor_device_allocation_info_t *));
PROTO(nrt_tensor_check_output_completion, NRT_STATUS (*)(const nrt_tensor_t *, int64_t, uint64_t));
PROTO(nrt_tensor_reset_output_completion, NRT_STATUS (*)(nrt_tensor_t *));
PROTO(nrt_get_dmabuf_fd, NRT_STATUS (*)(uint64_t, uint64_t, int *));
PROTO(nrt_get_hbm_mmap_va, NRT_STATUS (*)(int, int, void **, size_t *));
PROTO(nrt_get_attached_efa_bdf, NRT_STATUS (*)(const void *, char *, size_t *));
PROTO(nrt_tensor_read_batch, NRT_STATUS (*)(const nrt_tensor_batch_t *, uint64_t, bool));
PROTO(nrt_tensor_write_batch, NRT_STATUS (*)(const nrt_tensor_batch_t *, uint64_t, bool));
PROTO(nrt_get_vnc_memory_stats, NRT_STATUS (*)(uint32_t, nrt_vnc_memory_stats_t *, size_t, size_t *));
/* nrt.h: tensor sets and execution */
PROTO(nrt_allocate_tensor_set, NRT_STATUS (*)(nrt_tensor_set_t **));
PROTO(nrt_destroy_tensor_set, void (*)(nrt_tensor_set_t **));
PROTO(nrt_add_tensor_to_tensor_set, NRT_STATUS (*)(nrt_tensor_set_t *, const char *, nrt_tensor_t *));
PROTO(nrt_get_tensor_from_tensor_set, NRT_STATUS (*)(nrt_tensor_set_t *, const char *, nrt_tensor_t **));
PROTO(nrt_execute, NRT_STATUS (*)(nrt_model_t *, const nrt_tensor_set_t *, nrt_tensor_set_t *));
PROTO(nrt_execute_repeat, NRT_STATUS (*)(nrt_model_t *, const nrt_tensor_set_t *, nrt_tensor_set_t *, int));
/* nrt.h: collectives */
PROTO(nrt_build_global_comm, NRT_STATUS (*)(int32_t, uint32_t, uint32_t));
PROTO(nrt_cc_global_comm_init, NRT_STATUS (*)(uint32_t, uint32_t, uint32_t));
PROTO(nrt_cc_create_stream, NRT_STATUS (*)(uint32_t));
/* nrt_experimental.h */
PROTO(nrt_get_model_tensor_info, NRT_STATUS (*)(nrt_model_t *, nrt_tensor_info_array_t **));
PROTO(nrt_get_model_instance_count, NRT_STATUS (*)(nrt_model_t *, uint32_t *));
PROTO(nrt_free_model_tensor_info, NRT_STATUS (*)(nrt_tensor_info_array_t *));
PROTO(nrt_get_model_info, NRT_STATUS (*)(const nrt_model_t *, nrt_model_info_t *, size_t, size_t *));
PROTO(nrt_trace_start, NRT_STATUS (*)(bool));
PROTO(nrt_trace_stop, NRT_STATUS (*)(const char *));
PROTO(nrt_get_libnccl_net, void *(*)(int *, char *, size_t));
PROTO(nrt_set_pool_eng_ucode, NRT_STATUS (*)(const nrt_ucode_info *));
PROTO(nrt_memcpy_to_device, NRT_STATUS (*)(void *, const void *, size_t));
PROTO(nrt_register_async_exec_callback,
      NRT_STATUS (*)(void (*)(void *, uint32_t, uint32_t, uint64_t, NRT_STATUS), void *));
PROTO(nrt_barrier, NRT_STATUS (*)(int32_t, uint32_t, uint32_t));
PROTO(nrt_all_gather, NRT_STATUS (*)(int32_t, uint32_t, uint32_t, uint32_t, void *, void *));
PROTO(nrt_async_drain_queued_execs, NRT_STATUS (*)(int32_t));
/* nrt_async.h (async API 3.0) */
PROTO(nrta_tensor_write,
      NRT_STATUS (*)(nrt_tensor_t *, const void *, uint64_t, uint64_t, int, int, NRT_STATUS *, nrta_seq_t *));
PROTO(nrta_tensor_read,
      NRT_STATUS (*)(void *, nrt_tensor_t *, uint64_t, uint64_t, int, int, NRT_STATUS *, nrta_seq_t *));
PROTO(nrta_tensor_copy, NRT_STATUS (*)(nrt_tensor_t *, uint64_t, nrt_tensor_t *, uint64_t, uint64_t, int, int,
                                       NRT_STATUS *, nrta_seq_t *));
PROTO(nrta_execute_schedule, NRT_STATUS (*)(nrt_model_t *, const nrt_tensor_set_t *, nrt_tensor_set_t *, int,
                                            NRT_STATUS *, nrta_seq_t *));
PROTO(nrta_cc_prepare, NRT_STATUS (*)(nrt_cc_comm_t *, nrt_tensor_list_t *, nrt_tensor_list_t *, nrt_dtype_t,
                                      nrt_op_type_t, nrt_cc_op_type_t, nrt_cc_context_t **));
PROTO(nrta_cc_schedule, NRT_STATUS (*)(nrt_cc_context_t **, int, NRT_STATUS *, nrta_seq_t *));
PROTO(nrta_is_completed, NRT_STATUS (*)(nrta_seq_t, bool *));
PROTO(nrta_get_sequence, NRT_STATUS (*)(uint32_t, nrta_xu_t, int, nrta_seq_t *));
PROTO(nrta_event_register_seq_id_completion, NRT_STATUS (*)(nrta_seq_t, int));
PROTO(nrta_event_register_xu_completion, NRT_STATUS (*)(int, nrta_xu_t, int, int));
/* nrt_profile.h */
PROTO(nrt_profile_start, NRT_STATUS (*)(nrt_model_t *, const char *));
PROTO(nrt_profile_stop, NRT_STATUS (*)(const char *));
PROTO(nrt_profile_session_start, NRT_STATUS (*)(int32_t));
PROTO(nrt_profile_session_stop, NRT_STATUS (*)(int32_t, uint64_t *));
PROTO(nrt_profile_session_serialize, NRT_STATUS (*)(uint64_t, const char *));
PROTO(nrt_profile_session_drop, NRT_STATUS (*)(uint64_t));
PROTO(nrt_profile_session_drop_all, NRT_STATUS (*)(int32_t));
PROTO(nrt_profile_continuous_options_allocate, NRT_STATUS (*)(nrt_profile_continuous_options_t **));
PROTO(nrt_profile_continuous_options_free, NRT_STATUS (*)(nrt_profile_continuous_options_t *));
PROTO(nrt_profile_continuous_options_set_output_dir,
      NRT_STATUS (*)(nrt_profile_continuous_options_t *, const char *));
PROTO(nrt_profile_continuous_start, NRT_STATUS (*)(nrt_profile_continuous_options_t *));
PROTO(nrt_profile_continuous_save, NRT_STATUS (*)(uint32_t, nrt_profile_continuous_options_t *));
PROTO(nrt_profile_continuous_stop, NRT_STATUS (*)(void));
PROTO(nrt_inspect_begin, NRT_STATUS (*)(void));
PROTO(nrt_inspect_stop, NRT_STATUS (*)(void));
PROTO(nrt_inspect_config_allocate, NRT_STATUS (*)(nrt_inspect_config_t **));
PROTO(nrt_inspect_config_set_defaults, NRT_STATUS (*)(nrt_inspect_config_t *));
PROTO(nrt_inspect_config_free, NRT_STATUS (*)(nrt_inspect_config_t *));
PROTO(nrt_inspect_config_set_session_id, NRT_STATUS (*)(nrt_inspect_config_t *, int));
PROTO(nrt_inspect_config_set_output_dir, NRT_STATUS (*)(nrt_inspect_config_t *, const char *));
PROTO(nrt_inspect_config_set_sys_trace_max_events_per_nc, NRT_STATUS (*)(nrt_inspect_config_t *, uint64_t));
PROTO(nrt_inspect_config_set_capture_enabled_for_nc, NRT_STATUS (*)(nrt_inspect_config_t *, uint32_t, bool));
PROTO(nrt_inspect_config_set_capture_enabled_for_event_type_string,
      NRT_STATUS (*)(nrt_inspect_config_t *, const char *, bool));
PROTO(nrt_inspect_config_set_enable_inspect, NRT_STATUS (*)(nrt_inspect_config_t *, bool));
PROTO(nrt_inspect_config_set_enable_inspect_on_fail, NRT_STATUS (*)(nrt_inspect_config_t *, bool));
PROTO(nrt_inspect_config_set_inspect_device_profile_mode,
      NRT_STATUS (*)(nrt_inspect_config_t *, nrt_inspect_device_profile_mode_t));
PROTO(nrt_inspect_begin_with_options, NRT_STATUS (*)(nrt_inspect_config_t *));
PROTO(nrt_inspect_config_get_all_activity_types, NRT_STATUS (*)(const char ***, size_t *));
PROTO(nrt_inspect_config_get_enabled_activity_types,
      NRT_STATUS (*)(nrt_inspect_config_t *, const char ***, size_t *));
PROTO(nrt_inspect_config_free_activity_types, void (*)(const char **, size_t));
PROTO(nrt_inspect_config_set_activity, NRT_STATUS (*)(nrt_inspect_config_t *, const char *, bool));
PROTO(nrt_inspect_get_instance_output_dir, NRT_STATUS (*)(const char *, char *, size_t));
/* nrt_sys_trace.h */
PROTO(nrt_sys_trace_config_allocate, NRT_STATUS (*)(nrt_sys_trace_config_t **));
PROTO(nrt_sys_trace_config_set_defaults, void (*)(nrt_sys_trace_config_t *));
PROTO(nrt_sys_trace_config_free, void (*)(nrt_sys_trace_config_t *));
PROTO(nrt_sys_trace_config_set_max_events_per_nc, void (*)(nrt_sys_trace_config_t *, uint64_t));
PROTO(nrt_sys_trace_config_set_capture_enabled_for_nc, void (*)(nrt_sys_trace_config_t *, uint32_t, bool));
PROTO(nrt_sys_trace_config_set_capture_enabled_for_event_type,
      NRT_STATUS (*)(nrt_sys_trace_config_t *, const char *, bool));
PROTO(nrt_sys_trace_get_event_types, NRT_STATUS (*)(const char ***, size_t *));
PROTO(nrt_sys_trace_free_event_types, void (*)(const char **, size_t));
PROTO(nrt_sys_trace_config_get_enabled_event_types,
      NRT_STATUS (*)(nrt_sys_trace_config_t *, const char ***, size_t *));
PROTO(nrt_sys_trace_start, NRT_STATUS (*)(nrt_sys_trace_config_t *));
PROTO(nrt_sys_trace_stop, NRT_STATUS (*)(void));
PROTO(nrt_sys_trace_fetch_options_allocate, NRT_STATUS (*)(nrt_sys_trace_fetch_options_t **));
PROTO(nrt_sys_trace_fetch_options_set_defaults, void (*)(nrt_sys_trace_fetch_options_t *));
PROTO(nrt_sys_trace_fetch_options_free, void (*)(nrt_sys_trace_fetch_options_t *));
PROTO(nrt_sys_trace_fetch_options_set_max_events_per_nc, void (*)(nrt_sys_trace_fetch_options_t *, uint64_t));
PROTO(nrt_sys_trace_fetch_options_set_nc_idx, void (*)(nrt_sys_trace_fetch_options_t *, uint64_t));
PROTO(nrt_sys_trace_fetch_events, NRT_STATUS (*)(char **, size_t *, const nrt_sys_trace_fetch_options_t *));
PROTO(nrt_sys_trace_buffer_free, void (*)(char *));
/* nrt_async_sendrecv.h */
PROTO(nrt_async_sendrecv_get_max_num_communicators_per_lnc, NRT_STATUS (*)(int *));
PROTO(nrt_async_sendrecv_get_max_num_pending_request, NRT_STATUS (*)(int *));
PROTO(nrt_async_sendrecv_init, NRT_STATUS (*)(int));
PROTO(nrt_async_sendrecv_close, NRT_STATUS (*)(int));
PROTO(nrt_async_sendrecv_connect, NRT_STATUS (*)(const char *, int, int, nrt_async_sendrecv_comm_t **));
PROTO(nrt_async_sendrecv_accept, NRT_STATUS (*)(const char *, int, int, nrt_async_sendrecv_comm_t **));
PROTO(nrt_async_sendrecv_test_comm, NRT_STATUS (*)(nrt_async_sendrecv_comm_t *, bool *));
PROTO(nrt_async_sendrecv_send_tensor, NRT_STATUS (*)(nrt_tensor_t *, size_t, size_t, nrt_async_sendrecv_comm_t *,
                                                     nrt_async_sendrecv_request_t **));
PROTO(nrt_async_sendrecv_recv_tensor, NRT_STATUS (*)(nrt_tensor_t *, size_t, size_t, nrt_async_sendrecv_comm_t *,
                                                     nrt_async_sendrecv_request_t **));
PROTO(nrt_async_sendrecv_test_request, NRT_STATUS (*)(nrt_async_sendrecv_request_t *, bool *, size_t *));
PROTO(nrt_async_sendrecv_flush, NRT_STATUS (*)(int));
/* ndebug_stream.h */
PROTO(nrt_debug_client_connect, NRT_STATUS (*)(int, int *));
PROTO(nrt_debug_client_connect_close, void (*)(int));
PROTO(nrt_debug_client_read_one_event, NRT_STATUS (*)(int, ndebug_stream_event_header_t *, void **));

/* The callback typedef. */
_Static_assert(_Generic((NRT_ASYNC_EXEC_STATUS_CALLBACK)0,
                        void (*)(void *, uint32_t, uint32_t, uint64_t, NRT_STATUS): 1, default: 0),
               "NRT_ASYNC_EXEC_STATUS_CALLBACK signature");

/* NRTA_SEQ_NUM_MAX is an unsigned long long constant. */
_Static_assert(_Generic(NRTA_SEQ_NUM_MAX, unsigned long long: 1, default: 0), "NRTA_SEQ_NUM_MAX type");

/* ========================================================================================== */
/* Run-time checks                                                                             */
/* ========================================================================================== */

static int g_passed;
static int g_failed;

static void check(const char *name, long long actual, long long expected) {
    if (actual == expected) {
        ++g_passed;
    } else {
        ++g_failed;
        printf("FAIL %s: got %lld, expected %lld\n", name, actual, expected);
    }
}

/* Compare an enumerator or macro, by name, with the value from the reference. */
#define EXPECT(sym, value) check(#sym, (long long)(sym), (long long)(value))

static void check_status_codes(void) { /* reference section 3 */
    EXPECT(NRT_SUCCESS, 0);
    EXPECT(NRT_FAILURE, 1);
    EXPECT(NRT_INVALID, 2);
    EXPECT(NRT_INVALID_HANDLE, 3);
    EXPECT(NRT_RESOURCE, 4);
    EXPECT(NRT_TIMEOUT, 5);
    EXPECT(NRT_HW_ERROR, 6);
    EXPECT(NRT_QUEUE_FULL, 7);
    EXPECT(NRT_LOAD_NOT_ENOUGH_NC, 9);
    EXPECT(NRT_UNSUPPORTED_NEFF_VERSION, 10);
    EXPECT(NRT_FAIL_HOST_MEM_ALLOC, 11);
    EXPECT(NRT_UNINITIALIZED, 13);
    EXPECT(NRT_CLOSED, 14);
    EXPECT(NRT_QUEUE_EMPTY, 15);
    EXPECT(NRT_EXEC_UNIT_UNRECOVERABLE, 101);
    EXPECT(NRT_EXEC_BAD_INPUT, 1002);
    EXPECT(NRT_EXEC_COMPLETED_WITH_NUM_ERR, 1003);
    EXPECT(NRT_EXEC_COMPLETED_WITH_ERR, 1004);
    EXPECT(NRT_EXEC_NC_BUSY, 1005);
    EXPECT(NRT_EXEC_OOB, 1006);
    EXPECT(NRT_COLL_PENDING, 1100);
    EXPECT(NRT_EXEC_HW_ERR_COLLECTIVES, 1200);
    EXPECT(NRT_EXEC_HW_ERR_HBM_UE, 1201);
    EXPECT(NRT_EXEC_HW_ERR_NC_UE, 1202);
    EXPECT(NRT_EXEC_HW_ERR_DMA_ABORT, 1203);
    EXPECT(NRT_EXEC_SW_NQ_OVERFLOW, 1204);
    EXPECT(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, 1205);
    EXPECT(NRT_NETWORK_PROXY_FAILURE, 1206);
}

static void check_nrt_h_enums(void) { /* reference section 4.1 */
    EXPECT(NRT_MAJOR_VERSION, 2);
    EXPECT(NRT_MINOR_VERSION, 0);

    EXPECT(NRT_TENSOR_PLACEMENT_DEVICE, 0);
    EXPECT(NRT_TENSOR_PLACEMENT_HOST, 1);
    EXPECT(NRT_TENSOR_PLACEMENT_VIRTUAL, 2);

    EXPECT(NRT_FRAMEWORK_TYPE_INVALID, 0);
    EXPECT(NRT_FRAMEWORK_TYPE_NO_FW, 1);
    EXPECT(NRT_FRAMEWORK_TYPE_TENSORFLOW, 2);
    EXPECT(NRT_FRAMEWORK_TYPE_PYTORCH, 3);
    EXPECT(NRT_FRAMEWORK_TYPE_MXNET, 4);
    EXPECT(NRT_FRAMEWORK_TYPE_PRECHECK, 5);

    EXPECT(NRT_INSTANCE_UNKNOWN, 0);
    EXPECT(NRT_INSTANCE_INF1, 1);
    EXPECT(NRT_INSTANCE_TRN1, 2);
    EXPECT(NRT_INSTANCE_TRN1N, 3);
    EXPECT(NRT_INSTANCE_INF2, 4);
    EXPECT(NRT_INSTANCE_TRN2, 5);
    EXPECT(NRT_INSTANCE_TRN2N, 6);
    EXPECT(NRT_INSTANCE_INF2E, 7);
    EXPECT(NRT_INSTANCE_TRN2P, 8);
    EXPECT(NRT_INSTANCE_TRN2U, 9);
    EXPECT(NRT_INSTANCE_TRN2E, 10);
    EXPECT(NRT_INSTANCE_TRN2EU, 11);
    EXPECT(NRT_INSTANCE_TRN2AC, 12);
    EXPECT(NRT_INSTANCE_TRN2UAC, 13);
    EXPECT(NRT_INSTANCE_TRN3, 14);
    EXPECT(NRT_INSTANCE_TRN3PDS98, 15);

    EXPECT(NRT_INSTANCE_SIZE_1XL, 0);
    EXPECT(NRT_INSTANCE_SIZE_2XL, 1);
    EXPECT(NRT_INSTANCE_SIZE_4XL, 2);
    EXPECT(NRT_INSTANCE_SIZE_6XL, 3);
    EXPECT(NRT_INSTANCE_SIZE_8XL, 4);
    EXPECT(NRT_INSTANCE_SIZE_24XL, 5);
    EXPECT(NRT_INSTANCE_SIZE_32XL, 6);
    EXPECT(NRT_INSTANCE_SIZE_48XL, 7);
    EXPECT(NRT_INSTANCE_SIZE_3XL, 8);
    EXPECT(NRT_INSTANCE_SIZE_UNKNOWN, 9);
    EXPECT(NRT_INSTANCE_SIZE_NUM, 9);

    EXPECT(NRT_OP_ADD, 0x0);
    EXPECT(NRT_OP_FMA, 0x1);
    EXPECT(NRT_OP_MAX, 0x2);
    EXPECT(NRT_OP_MIN, 0x3);
    EXPECT(NRT_OP_INVALID, 0xF);

    EXPECT(NRT_CC_ALLGATHER, 0);
    EXPECT(NRT_CC_ALLREDUCE, 1);
    EXPECT(NRT_CC_REDUCESCATTER, 2);

    /* Current hardware type codes, not the legacy sequential numbering. */
    EXPECT(NRT_DTYPE_UNKNOWN, 0x0);
    EXPECT(NRT_DTYPE_INVALID, 0x0);
    EXPECT(NRT_DTYPE_UINT64, 0x1);
    EXPECT(NRT_DTYPE_INT8, 0x2);
    EXPECT(NRT_DTYPE_UINT8, 0x3);
    EXPECT(NRT_DTYPE_INT16, 0x4);
    EXPECT(NRT_DTYPE_UINT16, 0x5);
    EXPECT(NRT_DTYPE_BFLOAT16, 0x6);
    EXPECT(NRT_DTYPE_FLOAT16, 0x7);
    EXPECT(NRT_DTYPE_INT32, 0x8);
    EXPECT(NRT_DTYPE_UINT32, 0x9);
    EXPECT(NRT_DTYPE_FLOAT32, 0xA);
    EXPECT(NRT_DTYPE_FP32R, 0xB);
    EXPECT(NRT_DTYPE_INT64, 0xC);
    EXPECT(NRT_DTYPE_FP8_E3, 0xD);
    EXPECT(NRT_DTYPE_FP8_E4, 0xE);
    EXPECT(NRT_DTYPE_FP8_E5, 0xF);
}

static void check_other_headers(void) {
    /* nrt_version.h (section 5) */
    EXPECT(RT_VERSION_DETAIL_LEN, 128);
    EXPECT(GIT_HASH_LEN, 64);

    /* nrt_experimental.h (section 4.2) */
    EXPECT(NRT_TENSOR_USAGE_INPUT, 0);
    EXPECT(NRT_TENSOR_USAGE_OUTPUT, 1);
    EXPECT(NRT_TENSOR_NAME_MAX, 256);

    /* ndebug_stream.h (section 4.4) */
    EXPECT(NDEBUG_STREAM_EVENT_TYPE_INVALID, 0);
    EXPECT(NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ, 1);

    /* nrt_profile.h extension: values from the shipped library (see docs/abi.md) */
    EXPECT(NRT_INSPECT_DEVICE_PROFILE_MODE_DISABLED, 0);
    EXPECT(NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL, 1);
    EXPECT(NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION, 2);
}

static void check_async(void) { /* reference sections 4.3 and 7.8, async API 3.0 */
    EXPECT(NRTA_XU_TENSOR_OP, 0);
    EXPECT(NRTA_XU_COMPUTE, 1);
    EXPECT(NRTA_XU_COLLECTIVES, 2);
    EXPECT(NRTA_XU_TYPE_NUM, 3);

    /* 48-bit sequence number, 16-bit XU-queue id on top. */
    EXPECT(NRTA_SEQ_NUM_MAX, 0xFFFFFFFFFFFFull);
    EXPECT(NRTA_SEQ_NUM_MASK, 0xFFFFFFFFFFFFull);

    const nrta_seq_t sample = 0x0102123456789ABCull; /* XU id 0x0102, number 0x123456789ABC */
    EXPECT(NRTA_SEQ_GET_SEQ_NUM(sample), 0x123456789ABCull);
    EXPECT(NRTA_SEQ_GET_XU_ID(sample), 0x0102);

    const nrta_seq_t top = 0xFFFF000000000001ull;
    EXPECT(NRTA_SEQ_GET_SEQ_NUM(top), 1);
    EXPECT(NRTA_SEQ_GET_XU_ID(top), 0xFFFF);

    /* Macro arguments that are expressions must be evaluated as a whole. */
    const uint64_t xu = 0x0201, num = 7;
    EXPECT(NRTA_SEQ_GET_SEQ_NUM((xu << 48) | num), 7);
    EXPECT(NRTA_SEQ_GET_XU_ID((xu << 48) | num), 0x0201);
    EXPECT(NRTA_SEQ_GET_SEQ_NUM(xu << 48 | num), 7);
}

int main(void) {
    check_status_codes();
    check_nrt_h_enums();
    check_other_headers();
    check_async();
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
