/*
 * Inspect sessions through the API (nrt_inspect_begin / _begin_with_options / _stop and
 * nrt_inspect_get_instance_output_dir, docs/profiling.md §4) from plain C11 against the
 * installed tree, on a trn2.3xlarge at LNC=1. Arguments: vector_add_fp32.neff, a work directory
 * and a mode:
 *   options  begin_with_options: NULL (the defaults: captures nothing), then a config with
 *            inspect on, session device profiles and its own output directory: ntrace.json and
 *            one profile per execution in <dir>/<instance id>_pid_<pid>/<time>/; while it runs
 *            a second begin, nrt_sys_trace_start and continuous profiling are refused; the
 *            instance directory call (before nrt_init too, a short buffer, NULLs); begin()
 *            from variables set by the program; a malformed variable refused at begin.
 *   env      run with NEURON_RT_INSPECT_ENABLE=1 and NEURON_RT_INSPECT_OUTPUT_DIR: nrt_init
 *            starts the session, begin() keeps it (NRT_SUCCESS), begin_with_options is
 *            refused, stop writes it; a later begin()/stop makes a second session directory.
 *   on-fail  run with TRNSIM_FAULTS failing the 2nd execution on core 0: a session with only
 *            inspect-on-failure writes one profile, the failed execution's, and no ntrace.json.
 * Last line: "N passed, M failed".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <nrt/nrt.h>
#include <nrt/nrt_profile.h>
#include <nrt/nrt_sys_trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_check.h"
#include "c_model.h"

/* Session directories below `instance_dir`, and in the last one (by name) the number of
 * profile files and whether ntrace.json is there. */
typedef struct {
  int sessions;
  int profiles;
  int ntrace;
  char last[4096];
} session_files_t;

static session_files_t list_sessions(const char *instance_dir) {
  session_files_t out;
  memset(&out, 0, sizeof out);
  DIR *d = opendir(instance_dir);
  if (d == NULL) return out;
  char best[256] = "";
  for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    ++out.sessions;
    if (strcmp(e->d_name, best) > 0) snprintf(best, sizeof best, "%s", e->d_name);
  }
  closedir(d);
  snprintf(out.last, sizeof out.last, "%s/%s", instance_dir, best);
  DIR *s = opendir(out.last);
  if (s == NULL) return out;
  for (struct dirent *e = readdir(s); e != NULL; e = readdir(s)) {
    if (strncmp(e->d_name, "profile_nc_0_session_", 21) == 0) ++out.profiles;
    if (strcmp(e->d_name, "ntrace.json") == 0) out.ntrace = 1;
  }
  closedir(s);
  return out;
}

static void instance_dir_of(const char *output_dir, char *buf, size_t size) {
  EXPECT_EQ(nrt_inspect_get_instance_output_dir(output_dir, buf, size), NRT_SUCCESS);
}

static int options_mode(const char *neff, const char *work) {
  char out[4096], instance[4096], env_out[4096], path[8192];
  snprintf(out, sizeof out, "%s/options_%d", work, (int)getpid());
  snprintf(env_out, sizeof env_out, "%s/begin_%d", work, (int)getpid());

  /* The instance directory: <output_dir>/<instance id>_pid_<pid>, before nrt_init too. */
  char small[8];
  EXPECT_EQ(nrt_inspect_get_instance_output_dir(out, small, sizeof small), NRT_RESOURCE);
  EXPECT_EQ(nrt_inspect_get_instance_output_dir(NULL, instance, sizeof instance), NRT_INVALID);
  EXPECT_EQ(nrt_inspect_get_instance_output_dir(out, NULL, 10), NRT_INVALID);
  instance_dir_of(out, instance, sizeof instance);
  char pid_suffix[64];
  snprintf(pid_suffix, sizeof pid_suffix, "_pid_%d", (int)getpid());
  EXPECT_TRUE(strncmp(instance, out, strlen(out)) == 0);
  EXPECT_TRUE(strstr(instance, "/i-0") != NULL);
  EXPECT_TRUE(strstr(instance, pid_suffix) != NULL);

  EXPECT_EQ(nrt_inspect_begin(), NRT_UNINITIALIZED);
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_INVALID);  // nothing running
  c_model_t m;
  EXPECT_EQ(c_model_load(&m, neff, 0), NRT_SUCCESS);

  /* NULL: the defaults, inspect off: a session that captures nothing. */
  EXPECT_EQ(nrt_inspect_begin_with_options(NULL), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);

  nrt_inspect_config_t *config = NULL;
  EXPECT_EQ(nrt_inspect_config_allocate(&config), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_output_dir(config, out), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_enable_inspect(config, true), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_inspect_device_profile_mode(
                config, NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION),
            NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_session_id(config, 3), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(config), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(config), NRT_INVALID);  // one session at a time
  EXPECT_EQ(nrt_inspect_begin(), NRT_INVALID);
  nrt_sys_trace_config_t *trace_config = NULL;
  EXPECT_EQ(nrt_sys_trace_config_allocate(&trace_config), NRT_SUCCESS);
  EXPECT_EQ(nrt_sys_trace_start(trace_config), NRT_INVALID);  // the session holds the trace
  nrt_profile_continuous_options_t *continuous = NULL;
  EXPECT_EQ(nrt_profile_continuous_options_allocate(&continuous), NRT_SUCCESS);
  EXPECT_EQ(nrt_profile_continuous_start(continuous), NRT_FAILURE);  // device profiles on
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_INVALID);
  session_files_t files = list_sessions(instance);
  EXPECT_EQ(files.sessions, 1);
  EXPECT_EQ(files.ntrace, 1);
  EXPECT_EQ(files.profiles, 2);
  snprintf(path, sizeof path, "%s/ntrace.json", files.last);
  EXPECT_EQ(c_count_in_file(path, "\"event_type\":\"nrt_execute\",\"phase\":\"start\""), 2);
  snprintf(path, sizeof path, "%s/profile_nc_0_session_1.ntff", files.last);
  EXPECT_EQ(c_count_in_file(path, "\"session_id\": 3"), 1);
  /* Free again: the application's own capture works. */
  EXPECT_EQ(nrt_sys_trace_start(trace_config), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(config), NRT_INVALID);  // it now holds the trace
  EXPECT_EQ(nrt_sys_trace_stop(), NRT_SUCCESS);

  /* begin(): the NEURON_RT_INSPECT_* variables, read now (NEURON_RT_INSPECT_ENABLE unset). */
  setenv("NEURON_RT_INSPECT_OUTPUT_DIR", env_out, 1);
  setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "sessions", 1);
  EXPECT_EQ(nrt_inspect_begin(), NRT_INVALID);  // malformed
  setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "1", 1);
  EXPECT_EQ(nrt_inspect_begin(), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);
  instance_dir_of(env_out, instance, sizeof instance);
  files = list_sessions(instance);
  EXPECT_EQ(files.sessions, 1);
  EXPECT_EQ(files.ntrace, 1);
  EXPECT_EQ(files.profiles, 1);  // model mode: the model's first execution since the begin

  nrt_sys_trace_config_free(trace_config);
  nrt_profile_continuous_options_free(continuous);
  nrt_inspect_config_free(config);
  c_model_free(&m);
  nrt_close();
  C_CHECK_SUMMARY();
}

static int env_mode(const char *neff) {
  const char *out = getenv("NEURON_RT_INSPECT_OUTPUT_DIR");
  EXPECT_TRUE(out != NULL);
  if (out == NULL) C_CHECK_SUMMARY();
  char instance[4096];
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  instance_dir_of(out, instance, sizeof instance);
  c_model_t m;
  EXPECT_EQ(c_model_load(&m, neff, 0), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin(), NRT_SUCCESS);  // the session nrt_init started continues
  nrt_inspect_config_t *config = NULL;
  EXPECT_EQ(nrt_inspect_config_allocate(&config), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(config), NRT_INVALID);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);
  session_files_t files = list_sessions(instance);
  EXPECT_EQ(files.sessions, 1);
  EXPECT_EQ(files.ntrace, 1);
  char path[8192];
  snprintf(path, sizeof path, "%s/ntrace.json", files.last);
  /* nrt_init came before the load: the session holds the load too. */
  EXPECT_EQ(c_count_in_file(path, "\"event_type\":\"model_load\",\"phase\":\"start\""), 1);
  EXPECT_EQ(nrt_inspect_stop(), NRT_INVALID);
  EXPECT_EQ(nrt_inspect_begin(), NRT_SUCCESS);  // a new session
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);
  EXPECT_EQ(list_sessions(instance).sessions, 2);  // each session has its own directory
  nrt_inspect_config_free(config);
  c_model_free(&m);
  nrt_close();
  EXPECT_EQ(list_sessions(instance).sessions, 2);  // nrt_close had nothing more to write
  C_CHECK_SUMMARY();
}

static int on_fail_mode(const char *neff, const char *work) {
  char out[4096], instance[4096];
  snprintf(out, sizeof out, "%s/on_fail_%d", work, (int)getpid());
  EXPECT_EQ(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
  c_model_t m;
  EXPECT_EQ(c_model_load(&m, neff, 0), NRT_SUCCESS);
  nrt_inspect_config_t *config = NULL;
  EXPECT_EQ(nrt_inspect_config_allocate(&config), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_output_dir(config, out), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_config_set_enable_inspect_on_fail(config, true), NRT_SUCCESS);
  EXPECT_EQ(nrt_inspect_begin_with_options(config), NRT_SUCCESS);
  EXPECT_EQ(c_model_execute(&m), NRT_SUCCESS);
  EXPECT_TRUE(c_model_execute(&m) != NRT_SUCCESS);  // TRNSIM_FAULTS fails the second
  EXPECT_EQ(nrt_inspect_stop(), NRT_SUCCESS);
  instance_dir_of(out, instance, sizeof instance);
  session_files_t files = list_sessions(instance);
  EXPECT_EQ(files.sessions, 1);
  EXPECT_EQ(files.ntrace, 0);  // inspect itself is off: no system trace
  EXPECT_EQ(files.profiles, 1);
  char path[8192];
  snprintf(path, sizeof path, "%s/profile_nc_0_session_1.ntff", files.last);
  EXPECT_EQ(c_count_in_file(path, "\"status\": \"ok\""), 0);
  EXPECT_EQ(c_count_in_file(path, "\"exec_id\": 2"), 1);  // the process's second run
  nrt_inspect_config_free(config);
  c_model_free(&m);
  nrt_close();
  C_CHECK_SUMMARY();
}

int main(int argc, char **argv) {
  if (argc != 4) {
    printf("usage: %s vector_add_fp32.neff WORK_DIR options|env|on-fail\n", argv[0]);
    return 2;
  }
  EXPECT_EQ(make_dirs(argv[2]), 0);
  if (strcmp(argv[3], "options") == 0) return options_mode(argv[1], argv[2]);
  if (strcmp(argv[3], "env") == 0) return env_mode(argv[1]);
  if (strcmp(argv[3], "on-fail") == 0) return on_fail_mode(argv[1], argv[2]);
  printf("unknown mode %s\n", argv[3]);
  return 2;
}
