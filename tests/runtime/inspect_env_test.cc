// NEURON_RT_INSPECT_* parsing (runtime/profiling/inspect_env.h) and the model/session choice of
// executions to profile (runtime/profiling/inspect_device_selector.h).
#include "runtime/profiling/inspect_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/profiling/inspect_device_selector.h"

namespace trnsim::runtime::profiling {
namespace {

using Env = std::map<std::string, std::string>;

StatusOr<InspectSettings> Parse(const Env& values, uint32_t nc_count = 4) {
  return ParseInspectSettings(Environment::FromMap(values), nc_count);
}

std::vector<std::string_view> Types(const Env& values) {
  StatusOr<InspectSettings> settings = Parse(values);
  EXPECT_TRUE(settings.ok()) << settings.status().ToString();
  return settings.ok() ? settings->sys_trace.EnabledEventTypes() : std::vector<std::string_view>{};
}

std::vector<uint32_t> Cores(const std::string& filter, uint32_t nc_count) {
  StatusOr<InspectSettings> settings =
      Parse({{"NEURON_RT_INSPECT_EVENT_FILTER_NC", filter}}, nc_count);
  EXPECT_TRUE(settings.ok()) << settings.status().ToString();
  std::vector<uint32_t> cores;
  for (uint32_t nc = 0; settings.ok() && nc < nc_count; ++nc) {
    if (settings->sys_trace.CaptureEnabledForNc(nc)) cores.push_back(nc);
  }
  return cores;
}

TEST(InspectEnvConfigTest, DefaultsFollowTheExplorerDocs) {
  StatusOr<InspectSettings> off = Parse({});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->enabled);
  EXPECT_FALSE(off->CapturesSystemTrace());
  EXPECT_FALSE(off->CapturesDeviceProfiles());

  StatusOr<InspectSettings> on = Parse({{"NEURON_RT_INSPECT_ENABLE", "1"}});
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->output_dir, "./output");
  EXPECT_TRUE(on->CapturesSystemTrace());      // system profile: 1 when enabled
  EXPECT_FALSE(on->CapturesDeviceProfiles());  // device profile: 0
  EXPECT_EQ(on->device_profile_num_warmup, 0u);
  EXPECT_EQ(on->sys_trace.max_events_per_nc(), 1'000'000u);
  EXPECT_EQ(on->sys_trace.EnabledEventTypes().size(), kSysTraceEventTypes.size());
}

TEST(InspectEnvConfigTest, DeviceProfileModes) {
  const std::map<std::string, DeviceProfileMode> modes = {{"0", DeviceProfileMode::kDisabled},
                                                          {"1", DeviceProfileMode::kModel},
                                                          {"model", DeviceProfileMode::kModel},
                                                          {"MODEL", DeviceProfileMode::kModel},
                                                          {"session", DeviceProfileMode::kSession}};
  for (const auto& [text, mode] : modes) {
    StatusOr<InspectSettings> s =
        Parse({{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_DEVICE_PROFILE", text}});
    ASSERT_TRUE(s.ok()) << text;
    EXPECT_EQ(s->device_profile, mode) << text;
  }
  StatusOr<InspectSettings> off = Parse({{"NEURON_RT_INSPECT_DEVICE_PROFILE", "session"}});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->CapturesDeviceProfiles()) << "the master switch is off";
}

TEST(InspectEnvConfigTest, MalformedValuesNameTheVariable) {
  const Env bad[] = {
      {{"NEURON_RT_INSPECT_ENABLE", "maybe"}},
      {{"NEURON_RT_INSPECT_SYSTEM_PROFILE", "2"}},
      {{"NEURON_RT_INSPECT_DEVICE_PROFILE", "2"}},
      {{"NEURON_RT_INSPECT_DEVICE_PROFILE", "models"}},
      {{"NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP", "-1"}},
      {{"NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP", "two"}},
      {{"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "-5"}},
      {{"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "1e6"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_NC", "3-1"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_NC", "0,,2"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_NC", "a"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_NC", "-1"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "nrt_exec"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "^"}},
      {{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "nrt_execute,"}},
  };
  for (const Env& values : bad) {
    const auto& [name, value] = *values.begin();
    StatusOr<InspectSettings> s = Parse(values);
    ASSERT_FALSE(s.ok()) << name << "=" << value;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalid) << name;
    EXPECT_NE(s.status().message().find(name + "='"), std::string::npos) << s.status().message();
  }
}

TEST(InspectEnvConfigTest, RingSizeAndWarmup) {
  StatusOr<InspectSettings> s = Parse({{"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "7"},
                                       {"NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP", "3"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->sys_trace.max_events_per_nc(), 7u);
  EXPECT_EQ(s->device_profile_num_warmup, 3u);
}

TEST(InspectEnvConfigTest, CoreFilterForms) {
  EXPECT_EQ(Cores("0", 4), (std::vector<uint32_t>{0}));
  EXPECT_EQ(Cores("0,2,4", 8), (std::vector<uint32_t>{0, 2, 4}));
  EXPECT_EQ(Cores("0-3", 8), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Cores("1, 3-4", 8), (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_EQ(Cores("6-9", 4), (std::vector<uint32_t>{})) << "cores the process lacks";
  EXPECT_EQ(Cores("", 3), (std::vector<uint32_t>{0, 1, 2})) << "empty means all";
}

TEST(InspectEnvConfigTest, TypeFilterIncludesExcludesAndGroups) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(Types({{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "nrt_execute,model_load"}}),
            (V{"model_load", "nrt_execute"}));
  V all_but_execute;
  for (std::string_view t : kSysTraceEventTypes) {
    if (t != "nrt_execute") all_but_execute.push_back(t);
  }
  EXPECT_EQ(Types({{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "^nrt_execute"}}), all_but_execute);
  EXPECT_EQ(Types({{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "software"}}),
            (V{"model_load", "nrt_execute", "runtime_execute", "nrt_model_switch"}));
  EXPECT_EQ(Types({{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "hardware,^cc_running"}}),
            (V{"nc_exec_running", "cc_exec_barrier", "numerical_err", "timestamp_sync_point",
               "hw_notify"}));
  EXPECT_EQ(Types({{"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "^hardware,^model_load"}}),
            (V{"nrt_execute", "runtime_execute", "nrt_model_switch"}));
}

TEST(InspectDeviceSelectorTest, ModelModeProfilesTheFirstAfterWarmupPerModel) {
  InspectDeviceSelector selector(DeviceProfileMode::kModel, 2);
  std::vector<bool> a, b;
  for (int i = 0; i < 5; ++i) {
    a.push_back(selector.NextExecution(7));
    if (i < 3) b.push_back(selector.NextExecution(9));  // counted independently
  }
  EXPECT_EQ(a, (std::vector<bool>{false, false, true, false, false}));
  EXPECT_EQ(b, (std::vector<bool>{false, false, true}));
  InspectDeviceSelector first(DeviceProfileMode::kModel, 0);
  EXPECT_TRUE(first.NextExecution(1));
  EXPECT_FALSE(first.NextExecution(1));
}

TEST(InspectDeviceSelectorTest, SessionTakesEveryExecutionAndDisabledNone) {
  InspectDeviceSelector session(DeviceProfileMode::kSession, 2);
  InspectDeviceSelector disabled(DeviceProfileMode::kDisabled, 0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(session.NextExecution(1));
    EXPECT_FALSE(disabled.NextExecution(1));
  }
}

}  // namespace
}  // namespace trnsim::runtime::profiling
