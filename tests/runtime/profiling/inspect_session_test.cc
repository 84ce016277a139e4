// Inspect sessions (runtime/profiling/inspect_session.h): what an nrt_inspect_config_t asks for,
// and a session's system trace written as ntrace.json at its end.
#include "runtime/profiling/inspect_session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace trnsim::runtime::profiling {
namespace {

TEST(InspectSettingsFromConfigTest, FollowsAwsMeaningOfTheFields) {
  InspectConfig config;  // defaults: inspect and inspect-on-failure off
  InspectSettings off = InspectSettingsFromConfig(config);
  EXPECT_FALSE(off.CapturesSystemTrace());
  EXPECT_FALSE(off.CapturesDeviceProfiles());

  config.set_enable_inspect(true);
  config.set_session_id(7);
  ASSERT_TRUE(config.SetOutputDir("/tmp/x").ok());
  ASSERT_TRUE(config.SetDeviceProfileMode(2).ok());
  InspectSettings on = InspectSettingsFromConfig(config);
  EXPECT_TRUE(on.CapturesSystemTrace());
  EXPECT_TRUE(on.CapturesDeviceProfiles());
  EXPECT_EQ(on.device_profile, DeviceProfileMode::kSession);
  EXPECT_EQ(on.output_dir, "/tmp/x");
  EXPECT_EQ(on.session_id, 7);
  EXPECT_FALSE(on.on_fail);

  // Activities gate what enable_inspect switches on.
  ASSERT_TRUE(config.SetActivity("device_profile", false).ok());
  InspectSettings system_only = InspectSettingsFromConfig(config);
  EXPECT_TRUE(system_only.CapturesSystemTrace());
  EXPECT_FALSE(system_only.CapturesDeviceProfiles());
  ASSERT_TRUE(config.SetActivity("all", false).ok());
  EXPECT_FALSE(InspectSettingsFromConfig(config).CapturesSystemTrace());

  // On-failure alone: failing executions' profiles, no system trace.
  config.set_enable_inspect(false);
  config.set_enable_inspect_on_fail(true);
  InspectSettings on_fail = InspectSettingsFromConfig(config);
  EXPECT_FALSE(on_fail.CapturesSystemTrace());
  EXPECT_TRUE(on_fail.CapturesDeviceProfiles());
  EXPECT_EQ(on_fail.device_profile, DeviceProfileMode::kDisabled);
  EXPECT_TRUE(on_fail.on_fail);
}

TEST(InspectSessionTest, OwnsTheRecorderAndWritesNtraceAtTheEnd) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "inspect_session_test").string();
  std::filesystem::remove_all(dir);
  SysTraceRecorder recorder;
  InspectSession session;
  session.End(recorder);  // not running: nothing
  InspectSettings settings;
  settings.enabled = true;
  session.Begin(settings, dir, /*from_environment=*/false, recorder, 2);
  EXPECT_TRUE(session.running());
  EXPECT_TRUE(session.owns_sys_trace());
  EXPECT_TRUE(recorder.capturing());
  recorder.RecordSpan(SysTraceType::kNrtExecute, 1, 10, 20, {}, {});
  session.End(recorder);
  EXPECT_FALSE(session.running());
  EXPECT_FALSE(recorder.capturing());
  std::ifstream in(dir + "/ntrace.json");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  ASSERT_EQ(doc["events"].size(), 2u);
  EXPECT_EQ(doc["events"][0]["nc_idx"], 1);

  // Without the system profile the recorder stays free and nothing is written.
  std::filesystem::remove_all(dir);
  settings.system_profile = false;
  session.Begin(settings, dir, false, recorder, 2);
  EXPECT_FALSE(session.owns_sys_trace());
  EXPECT_FALSE(recorder.capturing());
  session.End(recorder);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace trnsim::runtime::profiling
