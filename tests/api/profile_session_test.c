/*
 * Per-core profile sessions (nrt_profile_session_*, docs/profiling.md §7) from plain C11
 * against the installed tree, on a trn2.3xlarge at LNC=1 (arguments: vector_add_fp32.neff and a
 * work directory):
 *  - the lifecycle and argument statuses (before nrt_init, bad cores, NULL);
 *  - a session on core 0 captures core 0's executions only, from start to stop; the stopped
 *    capture is kept under its id until nrt_profile_session_serialize writes the profile file
 *    (one execution per run, each naming its model and its system-trace exec_id) and releases
 *    it; a second serialise or a drop of the id is NRT_INVALID;
 *  - drop and drop_all release kept captures unwritten.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <nrt/nrt.h>
#include <nrt/nrt_profile.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "c_check.h"
#include "c_model.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    printf("usage: %s vector_add_fp32.neff WORK_DIR\n", argv[0]);
    return 2;
  }
  const char *neff = argv[1];
  EXPECT_EQ(make_dirs(argv[2]), 0);
  char file[4096];
  snprintf(file, sizeof file, "%s/session.ntff", argv[2]);
  remove(file);
  uint64_t id = 0;

  EXPECT_EQ(nrt_profile_session_start(0), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_profile_session_drop(1), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_start(-1), NRT_INVALID);
  EXPECT_EQ(nrt_profile_session_start(99), NRT_INVALID);
  EXPECT_EQ(nrt_profile_session_stop(0, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_profile_session_serialize(1, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_profile_session_stop(0, &id), NRT_INVALID);  // no session on core 0
  EXPECT_EQ(nrt_profile_session_drop_all(-3), NRT_INVALID);

  c_model_t on0, on1;
  EXPECT_EQ(c_model_load(&on0, neff, 0), NRT_SUCCESS);
  EXPECT_EQ(c_model_load(&on1, neff, 1), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);  // before the start: not captured

  EXPECT_EQ(nrt_profile_session_start(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_start(0), NRT_INVALID);  // already active
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on1), NRT_SUCCESS);  // core 1: not captured
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_stop(0, &id), NRT_SUCCESS);
  EXPECT_TRUE(id > 0);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);  // after the stop: not captured

  EXPECT_EQ(nrt_profile_session_serialize(id, file), NRT_SUCCESS);
  EXPECT_EQ(c_count_in_file(file, "\"format\": \"trnsim-ntff\""), 1);
  EXPECT_EQ(c_count_in_file(file, "\"model_name\": \"vector_add_fp32\""), 2);
  EXPECT_EQ(c_count_in_file(file, "\"exec_id\": "), 2);
  EXPECT_EQ(c_count_in_file(file, "\"status\": \"ok\""), 2);
  EXPECT_EQ(c_count_in_file(file, "\"vnc\": 0"), 1);
  EXPECT_EQ(nrt_profile_session_serialize(id, file), NRT_INVALID);  // released
  EXPECT_EQ(nrt_profile_session_drop(id), NRT_INVALID);

  /* Drop one; drop_all of a core releases its kept captures. */
  uint64_t dropped = 0, kept0 = 0, kept1 = 0;
  EXPECT_EQ(nrt_profile_session_start(0), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_stop(0, &dropped), NRT_SUCCESS);
  EXPECT_TRUE(dropped > id);
  EXPECT_EQ(nrt_profile_session_drop(dropped), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_drop(dropped), NRT_INVALID);
  EXPECT_EQ(nrt_profile_session_start(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_stop(0, &kept0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_start(1), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on1), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_stop(1, &kept1), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_drop_all(0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_session_serialize(kept0, file), NRT_INVALID);  // dropped with core 0
  EXPECT_EQ(nrt_profile_session_serialize(kept1, file), NRT_SUCCESS);  // core 1's stays
  EXPECT_EQ(c_count_in_file(file, "\"vnc\": 1"), 1);
  EXPECT_EQ(c_count_in_file(file, "\"exec_id\": "), 1);

  /* A session still active at nrt_close is discarded. */
  EXPECT_EQ(nrt_profile_session_start(0), NRT_SUCCESS);
  c_model_free(&on0);
  c_model_free(&on1);
  nrt_close();
  EXPECT_EQ(nrt_profile_session_start(0), NRT_CLOSED);
  C_CHECK_SUMMARY();
}
