/*
 * Continuous device profiling (nrt_profile_continuous_*, docs/profiling.md §7) from plain C11
 * against the installed tree, on a trn2.3xlarge at LNC=1 (arguments: vector_add_fp32.neff, a
 * work directory, and --implicit-async when NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS is set):
 *  - statuses: NULL options, before nrt_init, save or stop while not running, start twice;
 *  - save(vnc) writes the latest execution of the core, one file named after its exec_id, into
 *    the options' directory (created), and profiling continues; a core that ran nothing since
 *    the start has nothing to save; stop saves nothing;
 *  - --implicit-async: start refuses with NRT_FAILURE (AWS: not with async execution).
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <nrt/nrt.h>
#include <nrt/nrt_profile.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "c_check.h"
#include "c_model.h"

/* The .ntff files in `dir`; the last one's name in `last` (when given). */
static int count_profiles(const char *dir, char *last, size_t last_size) {
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
    const size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".ntff") == 0) {
      ++n;
      if (last != NULL) snprintf(last, last_size, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    printf("usage: %s vector_add_fp32.neff WORK_DIR [--implicit-async]\n", argv[0]);
    return 2;
  }
  const char *neff = argv[1];
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/continuous_%d", argv[2], (int)getpid());

  nrt_profile_continuous_options_t *options = NULL;
  EXPECT_EQ(nrt_profile_continuous_options_allocate(&options), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_options_set_output_dir(options, dir), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_start(options), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  if (argc > 3 && strcmp(argv[3], "--implicit-async") == 0) {
    EXPECT_EQ(nrt_profile_continuous_start(options), NRT_FAILURE);
    nrt_profile_continuous_options_free(options);
    nrt_close();
    C_CHECK_SUMMARY();
  }
  EXPECT_EQ(nrt_profile_continuous_start(NULL), NRT_INVALID);
  EXPECT_EQ(nrt_profile_continuous_save(0, NULL), NRT_INVALID);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_INVALID);  // not running
  EXPECT_EQ(nrt_profile_continuous_stop(), NRT_INVALID);

  c_model_t on0, on1;
  EXPECT_EQ(c_model_load(&on0, neff, 0), NRT_SUCCESS);
  EXPECT_EQ(c_model_load(&on1, neff, 1), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);  // before the start

  EXPECT_EQ(nrt_profile_continuous_start(options), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_start(options), NRT_INVALID);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_INVALID);  // nothing since the start
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_SUCCESS);
  char file[4200] = "";
  EXPECT_EQ(count_profiles(dir, file, sizeof file), 1);
  EXPECT_TRUE(strstr(file, "/profile_nc_0_exec_") != NULL);
  EXPECT_EQ(c_count_in_file(file, "\"exec_id\": "), 1);             // the latest execution only
  /* The process's third run (exec_id 3; one ran before the start). */
  EXPECT_TRUE(strstr(file, "/profile_nc_0_exec_3.ntff") != NULL);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_SUCCESS);  // the same run: same file
  EXPECT_EQ(count_profiles(dir, NULL, 0), 1);
  EXPECT_EQ(nrt_profile_continuous_save(1, options), NRT_INVALID);   // core 1 ran nothing
  EXPECT_EQ(nrt_profile_continuous_save(99, options), NRT_INVALID);  // not a core
  EXPECT_EQ(c_model_execute(&on1), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&on0), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_save(1, options), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_SUCCESS);
  EXPECT_EQ(count_profiles(dir, NULL, 0), 3);

  EXPECT_EQ(nrt_profile_continuous_stop(), NRT_SUCCESS);
  EXPECT_EQ(count_profiles(dir, NULL, 0), 3);  // stop saves nothing
  EXPECT_EQ(nrt_profile_continuous_stop(), NRT_INVALID);
  EXPECT_EQ(nrt_profile_continuous_save(0, options), NRT_INVALID);

  nrt_profile_continuous_options_free(options);
  c_model_free(&on0);
  c_model_free(&on1);
  nrt_close();
  C_CHECK_SUMMARY();
}
