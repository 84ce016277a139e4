// The profiling host objects behind nrt_inspect_config_t, nrt_sys_trace_config_t,
// nrt_sys_trace_fetch_options_t and nrt_profile_continuous_options_t: AWS's defaults, AWS's
// validation (unknown names and empty directories are NRT_INVALID and change nothing) and the
// name lists the C API hands out.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/profiling/continuous_options.h"
#include "runtime/profiling/inspect_config.h"
#include "runtime/profiling/sys_trace_config.h"

namespace trnsim::runtime::profiling {
namespace {

using Names = std::vector<std::string_view>;

Names AllEventTypes() { return Names(kSysTraceEventTypes.begin(), kSysTraceEventTypes.end()); }
Names AllActivities() { return Names(kInspectActivityNames.begin(), kInspectActivityNames.end()); }

// --- Event-type table ------------------------------------------------------------------------

TEST(SysTraceEventTypesTest, ListsTheDocumentedNamesOnce) {
  // Transcribed from the reference (nrt-api-facts §7.12), independently of the table.
  const Names documented = {
      "model_load",      "nrt_execute",   "runtime_execute",  "nc_exec_running",      "cc_running",
      "cc_exec_barrier", "numerical_err", "nrt_model_switch", "timestamp_sync_point", "hw_notify"};
  EXPECT_EQ(AllEventTypes(), documented);
  EXPECT_EQ(std::set<std::string_view>(documented.begin(), documented.end()).size(),
            documented.size());
}

TEST(SysTraceEventTypesTest, FindsExactNamesOnly) {
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    EXPECT_EQ(FindSysTraceEventType(kSysTraceEventTypes[i]), i);
  }
  EXPECT_FALSE(FindSysTraceEventType("NRT_EXECUTE"));
  EXPECT_FALSE(FindSysTraceEventType("nrt_execute "));
  EXPECT_FALSE(FindSysTraceEventType(""));
  // Filter groups of NEURON_RT_INSPECT_EVENT_FILTER_TYPE, not event types.
  EXPECT_FALSE(FindSysTraceEventType("hardware"));
  EXPECT_FALSE(FindSysTraceEventType("software"));
}

// --- SysTraceConfig --------------------------------------------------------------------------

TEST(SysTraceConfigTest, DefaultsCaptureEverything) {
  SysTraceConfig config;
  EXPECT_EQ(config.max_events_per_nc(), 1'000'000u);
  EXPECT_EQ(config.max_events_per_nc(), kDefaultSysTraceMaxEventsPerNc);
  for (uint32_t nc : {0u, 1u, 63u, 127u, 0xffffffffu}) EXPECT_TRUE(config.CaptureEnabledForNc(nc));
  EXPECT_EQ(config.EnabledEventTypes(), AllEventTypes());
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    EXPECT_TRUE(config.CaptureEnabledForEventType(i));
  }
}

TEST(SysTraceConfigTest, DisablingAnEventTypeKeepsTheOthersInOrder) {
  SysTraceConfig config;
  ASSERT_TRUE(config.SetCaptureEnabledForEventType("nrt_execute", false).ok());
  ASSERT_TRUE(config.SetCaptureEnabledForEventType("hw_notify", false).ok());
  Names expected;
  for (std::string_view name : kSysTraceEventTypes) {
    if (name != "nrt_execute" && name != "hw_notify") expected.push_back(name);
  }
  EXPECT_EQ(config.EnabledEventTypes(), expected);
  EXPECT_FALSE(config.CaptureEnabledForEventType(*FindSysTraceEventType("nrt_execute")));

  ASSERT_TRUE(config.SetCaptureEnabledForEventType("nrt_execute", true).ok());
  EXPECT_TRUE(config.CaptureEnabledForEventType(*FindSysTraceEventType("nrt_execute")));
}

TEST(SysTraceConfigTest, AllEventTypesCanBeDisabled) {
  SysTraceConfig config;
  for (std::string_view name : kSysTraceEventTypes) {
    ASSERT_TRUE(config.SetCaptureEnabledForEventType(name, false).ok()) << name;
  }
  EXPECT_TRUE(config.EnabledEventTypes().empty());
}

TEST(SysTraceConfigTest, UnknownEventTypeIsInvalidAndChangesNothing) {
  SysTraceConfig config;
  for (const char* bad : {"", "NRT_EXECUTE", "hardware", "not_an_event", "nrt_execute\n"}) {
    Status status = config.SetCaptureEnabledForEventType(bad, false);
    EXPECT_EQ(status.code(), StatusCode::kInvalid) << '"' << bad << '"';
    EXPECT_FALSE(status.message().empty());
  }
  EXPECT_EQ(config.EnabledEventTypes(), AllEventTypes());
}

TEST(SysTraceConfigTest, CoresAreSwitchedIndividually) {
  SysTraceConfig config;
  config.SetCaptureEnabledForNc(3, false);
  config.SetCaptureEnabledForNc(3, false);  // idempotent
  EXPECT_FALSE(config.CaptureEnabledForNc(3));
  EXPECT_TRUE(config.CaptureEnabledForNc(2));
  EXPECT_TRUE(config.CaptureEnabledForNc(4));
  config.SetCaptureEnabledForNc(3, true);
  EXPECT_TRUE(config.CaptureEnabledForNc(3));
}

TEST(SysTraceConfigTest, SetDefaultsUndoesEverySetter) {
  SysTraceConfig config;
  config.set_max_events_per_nc(0);
  config.SetCaptureEnabledForNc(0, false);
  ASSERT_TRUE(config.SetCaptureEnabledForEventType("cc_running", false).ok());
  EXPECT_EQ(config.max_events_per_nc(), 0u);

  config.SetDefaults();
  EXPECT_EQ(config.max_events_per_nc(), kDefaultSysTraceMaxEventsPerNc);
  EXPECT_TRUE(config.CaptureEnabledForNc(0));
  EXPECT_EQ(config.EnabledEventTypes(), AllEventTypes());
}

// --- SysTraceFetchOptions --------------------------------------------------------------------

TEST(SysTraceFetchOptionsTest, DefaultsAreAllCoresWithoutLimit) {
  SysTraceFetchOptions options;
  EXPECT_FALSE(options.nc_idx.has_value());
  EXPECT_EQ(options.max_events_per_nc, 0u);

  options.nc_idx = 5;
  options.max_events_per_nc = 100;
  options.SetDefaults();
  EXPECT_FALSE(options.nc_idx.has_value());
  EXPECT_EQ(options.max_events_per_nc, 0u);
}

// --- InspectConfig ---------------------------------------------------------------------------

void ExpectInspectDefaults(const InspectConfig& config) {
  EXPECT_EQ(config.session_id(), 1);
  EXPECT_EQ(config.output_dir(), "./output");
  EXPECT_EQ(config.EnabledActivities(), AllActivities());
  EXPECT_FALSE(config.enable_inspect());
  EXPECT_FALSE(config.enable_inspect_on_fail());
  EXPECT_EQ(config.device_profile_mode(), DeviceProfileMode::kModel);
  EXPECT_EQ(config.sys_trace().max_events_per_nc(), kDefaultSysTraceMaxEventsPerNc);
  EXPECT_TRUE(config.sys_trace().CaptureEnabledForNc(0));
  EXPECT_EQ(config.sys_trace().EnabledEventTypes(), AllEventTypes());
}

TEST(InspectConfigTest, DefaultsAreAws) { ExpectInspectDefaults(InspectConfig()); }

TEST(InspectConfigTest, ActivityNamesAreAws) {
  EXPECT_EQ(AllActivities(),
            (Names{"system_profile", "device_profile", "host_memory", "cpu_util"}));
  EXPECT_EQ(kInspectActivityNames[static_cast<size_t>(InspectActivity::kDeviceProfile)],
            "device_profile");
}

TEST(InspectConfigTest, SetDefaultsUndoesEverySetter) {
  InspectConfig config;
  config.set_session_id(42);
  ASSERT_TRUE(config.SetOutputDir("/tmp/somewhere").ok());
  ASSERT_TRUE(config.SetActivity("all", false).ok());
  config.set_enable_inspect(true);
  config.set_enable_inspect_on_fail(true);
  ASSERT_TRUE(config.SetDeviceProfileMode(2).ok());
  config.sys_trace().set_max_events_per_nc(7);
  config.sys_trace().SetCaptureEnabledForNc(1, false);
  ASSERT_TRUE(config.sys_trace().SetCaptureEnabledForEventType("numerical_err", false).ok());

  config.SetDefaults();
  ExpectInspectDefaults(config);
  EXPECT_TRUE(config.sys_trace().CaptureEnabledForNc(1));
}

TEST(InspectConfigTest, OutputDirIsCopied) {
  InspectConfig config;
  {
    std::string dir = "/tmp/inspect-out";
    ASSERT_TRUE(config.SetOutputDir(dir).ok());
    dir.assign("overwritten");
  }
  EXPECT_EQ(config.output_dir(), "/tmp/inspect-out");
}

TEST(InspectConfigTest, EmptyOutputDirIsInvalidAndKeepsTheOldOne) {
  InspectConfig config;
  ASSERT_TRUE(config.SetOutputDir("/tmp/a").ok());
  EXPECT_EQ(config.SetOutputDir("").code(), StatusCode::kInvalid);
  EXPECT_EQ(config.output_dir(), "/tmp/a");
}

TEST(InspectConfigTest, EachActivitySwitchesAlone) {
  for (size_t i = 0; i < kInspectActivityNames.size(); ++i) {
    InspectConfig config;
    ASSERT_TRUE(config.SetActivity(kInspectActivityNames[i], false).ok());
    Names expected = AllActivities();
    expected.erase(expected.begin() + static_cast<long>(i));
    EXPECT_EQ(config.EnabledActivities(), expected) << kInspectActivityNames[i];
    EXPECT_FALSE(config.ActivityEnabled(static_cast<InspectActivity>(i)));
    ASSERT_TRUE(config.SetActivity(kInspectActivityNames[i], true).ok());
    EXPECT_EQ(config.EnabledActivities(), AllActivities());
  }
}

TEST(InspectConfigTest, AllSwitchesEveryActivity) {
  InspectConfig config;
  ASSERT_TRUE(config.SetActivity("all", false).ok());
  EXPECT_TRUE(config.EnabledActivities().empty());
  ASSERT_TRUE(config.SetActivity("cpu_util", true).ok());
  EXPECT_EQ(config.EnabledActivities(), Names{"cpu_util"});
  ASSERT_TRUE(config.SetActivity("all", true).ok());
  EXPECT_EQ(config.EnabledActivities(), AllActivities());
}

TEST(InspectConfigTest, UnknownActivityIsInvalidAndChangesNothing) {
  InspectConfig config;
  ASSERT_TRUE(config.SetActivity("host_memory", false).ok());
  const Names before = config.EnabledActivities();
  for (const char* bad : {"", "ALL", "System_Profile", "device", "nrt_execute", "all "}) {
    EXPECT_EQ(config.SetActivity(bad, false).code(), StatusCode::kInvalid) << '"' << bad << '"';
    EXPECT_EQ(config.SetActivity(bad, true).code(), StatusCode::kInvalid) << '"' << bad << '"';
  }
  EXPECT_EQ(config.EnabledActivities(), before);
}

TEST(InspectConfigTest, DeviceProfileModeAcceptsOnlyEnumerators) {
  InspectConfig config;
  ASSERT_TRUE(config.SetDeviceProfileMode(0).ok());
  EXPECT_EQ(config.device_profile_mode(), DeviceProfileMode::kDisabled);
  ASSERT_TRUE(config.SetDeviceProfileMode(2).ok());
  EXPECT_EQ(config.device_profile_mode(), DeviceProfileMode::kSession);
  ASSERT_TRUE(config.SetDeviceProfileMode(1).ok());
  EXPECT_EQ(config.device_profile_mode(), DeviceProfileMode::kModel);
  for (int bad : {-1, 3, 1000}) {
    EXPECT_EQ(config.SetDeviceProfileMode(bad).code(), StatusCode::kInvalid) << bad;
  }
  EXPECT_EQ(config.device_profile_mode(), DeviceProfileMode::kModel);
}

TEST(InspectConfigTest, PlainSettersStore) {
  InspectConfig config;
  config.set_session_id(-5);
  config.set_enable_inspect(true);
  config.set_enable_inspect_on_fail(true);
  EXPECT_EQ(config.session_id(), -5);
  EXPECT_TRUE(config.enable_inspect());
  EXPECT_TRUE(config.enable_inspect_on_fail());
}

// --- ContinuousOptions -----------------------------------------------------------------------

TEST(ContinuousOptionsTest, DefaultOutputDirIsAws) {
  EXPECT_EQ(ContinuousOptions().output_dir(), "./output");
}

TEST(ContinuousOptionsTest, OutputDirIsCopiedAndMustNotBeEmpty) {
  ContinuousOptions options;
  std::string dir = "/tmp/continuous";
  ASSERT_TRUE(options.SetOutputDir(dir).ok());
  dir.clear();
  EXPECT_EQ(options.output_dir(), "/tmp/continuous");
  EXPECT_EQ(options.SetOutputDir("").code(), StatusCode::kInvalid);
  EXPECT_EQ(options.output_dir(), "/tmp/continuous");
}

}  // namespace
}  // namespace trnsim::runtime::profiling
