/*
 * nrt_trace_start / nrt_trace_stop (nrt_experimental.h, docs/profiling.md §7) from plain C11
 * against the installed tree, on a trn2.3xlarge at LNC=1 (arguments: vector_add_fp32.neff and a
 * work directory):
 *  - statuses: before nrt_init, stop without a start, a second start, NULL and unwritable files;
 *  - a trace with memory: the file is the system-trace JSON of the run (nc_exec_running with
 *    its sync point) plus the tensor allocated and freed while tracing, paired by tensor_id;
 *  - while it runs the system trace is its own (nrt_sys_trace_start and an inspect session that
 *    wants it are refused); after the stop the application's capture works again;
 *  - a trace without memory has no memory events.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <nrt/nrt_sys_trace.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_check.h"
#include "c_model.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    printf("usage: %s vector_add_fp32.neff WORK_DIR\n", argv[0]);
    return 2;
  }
  EXPECT_EQ(make_dirs(argv[2]), 0);
  char with_mem[4096], without_mem[4096];
  snprintf(with_mem, sizeof with_mem, "%s/trace_mem_%d.json", argv[2], (int)getpid());
  snprintf(without_mem, sizeof without_mem, "%s/trace_%d.json", argv[2], (int)getpid());

  EXPECT_EQ(nrt_trace_start(true), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_trace_stop(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_trace_stop(with_mem), NRT_INVALID);  // nothing running
  c_model_t m;
  EXPECT_EQ(c_model_load(&m, argv[1], 0), NRT_SUCCESS);

  EXPECT_EQ(nrt_trace_start(true), NRT_SUCCESS);
  EXPECT_EQ(nrt_trace_start(true), NRT_INVALID);
  nrt_sys_trace_config_t *trace_config = NULL;
  EXPECT_EQ(nrt_sys_trace_config_allocate(&trace_config), NRT_SUCCESS);
  EXPECT_EQ(nrt_sys_trace_start(trace_config), NRT_INVALID);
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_INVALID);
  nrt_inspect_config_t *inspect = NULL;
  EXPECT_EQ(nrt_inspect_config_allocate(&inspect), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_enable_inspect(inspect, true), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(inspect), NRT_INVALID);  // wants the system trace
  nrt_tensor_t *scratch = NULL;
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 4096, "scratch", &scratch),
            NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  nrt_tensor_free(&scratch);
  EXPECT_EQ(nrt_trace_stop(with_mem), NRT_SUCCESS);
  EXPECT_EQ(c_count_in_file(with_mem, "\"data_version\":2"), 1);
  EXPECT_EQ(c_count_in_file(with_mem, "\"trace_mem\":true"), 1);
  EXPECT_EQ(c_count_in_file(with_mem, "\"event_type\":\"nc_exec_running\""), 2);
  EXPECT_EQ(c_count_in_file(with_mem, "\"event_type\":\"timestamp_sync_point\""), 2);
  EXPECT_EQ(c_count_in_file(with_mem, "\"nc_timestamp_ns\":"), 4);
  EXPECT_EQ(c_count_in_file(with_mem, "{\"op\":\"allocate\",\"timestamp_ns\":"), 1);
  EXPECT_EQ(c_count_in_file(with_mem,
                            "\"tensor_id\":1,\"name\":\"scratch\",\"placement\":"
                            "\"device\",\"nc_idx\":1,\"size_bytes\":4096"),
            2);  // its allocation and its free
  EXPECT_EQ(c_count_in_file(with_mem, "{\"op\":\"free\""), 1);
  EXPECT_EQ(nrt_trace_stop(with_mem), NRT_INVALID);  // ended

  /* The recorder is free again. */
  EXPECT_EQ(nrt_sys_trace_start(trace_config), NRT_SUCCESS);
  EXPECT_EQ(nrt_trace_start(false), NRT_INVALID);  // now the application holds it
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_SUCCESS);

  EXPECT_EQ(nrt_trace_start(false), NRT_SUCCESS);
  EXPECT_EQ(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, 0, 64, "host", &scratch), NRT_SUCCESS);
  nrt_tensor_free(&scratch);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_trace_stop("/nonexistent-dir/trace.json"), NRT_FAILURE);  // and it has ended
  EXPECT_EQ(nrt_trace_start(false), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_trace_stop(without_mem), NRT_SUCCESS);
  EXPECT_EQ(c_count_in_file(without_mem, "\"memory_events\":[]"), 1);
  EXPECT_EQ(c_count_in_file(without_mem, "\"trace_mem\":false"), 1);
  EXPECT_EQ(c_count_in_file(without_mem, "\"event_type\":\"nrt_execute\",\"phase\":\"stop\""), 1);

  nrt_inspect_config_free(inspect);
  nrt_sys_trace_config_free(trace_config);
  c_model_free(&m);
  nrt_close();
  C_CHECK_SUMMARY();
}
