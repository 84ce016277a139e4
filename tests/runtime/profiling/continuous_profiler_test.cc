// Continuous profiling (runtime/profiling/continuous_profiler.h): only the latest execution per
// core is kept, saves name the file after the run's exec_id and keep profiling, stop discards.
#include "runtime/profiling/continuous_profiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace trnsim::runtime::profiling {
namespace {

ProfiledExecution Traced(uint64_t exec_id) {
  ProfiledExecution x;
  x.exec_id = exec_id;
  x.index = exec_id - 1;
  x.model_name = "m";
  x.result.duration_ps = 7 * exec_id;
  return x;
}

ProfileHeader Header(int vnc) { return ProfileHeader{"m", vnc, "Trainium2", "trn2.3xlarge"}; }

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

TEST(ContinuousProfilerTest, KeepsTheLatestPerCoreAndSavesIt) {
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "continuous_profiler_test" / "out").string();
  std::filesystem::remove_all(dir);
  ContinuousProfiler profiler;
  EXPECT_FALSE(profiler.running());
  profiler.Keep(0, Header(0), Traced(1));  // not running: ignored
  EXPECT_EQ(profiler.Save(0, dir).status().code(), StatusCode::kInvalid);
  ASSERT_TRUE(profiler.Start().ok());
  EXPECT_EQ(profiler.Start().code(), StatusCode::kInvalid);
  EXPECT_EQ(profiler.Save(0, dir).status().code(), StatusCode::kInvalid);  // nothing ran yet
  profiler.Keep(0, Header(0), Traced(2));
  profiler.Keep(1, Header(1), Traced(3));
  profiler.Keep(0, Header(0), Traced(4));  // replaces run 2

  StatusOr<std::string> path = profiler.Save(0, dir);
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, dir + "/profile_nc_0_exec_4.ntff");  // the directory is created
  nlohmann::json doc = ReadJson(*path);
  ASSERT_EQ(doc["executions"].size(), 1u);
  EXPECT_EQ(doc["executions"][0]["exec_id"], 4);
  EXPECT_EQ(doc["model"]["vnc"], 0);
  StatusOr<std::string> core1 = profiler.Save(1, dir);
  ASSERT_TRUE(core1.ok());
  EXPECT_EQ(*core1, dir + "/profile_nc_1_exec_3.ntff");
  EXPECT_TRUE(profiler.running());  // saving does not stop it
  EXPECT_EQ(profiler.Save(0, "").status().code(), StatusCode::kInvalid);

  ASSERT_TRUE(profiler.Stop().ok());
  EXPECT_EQ(profiler.Stop().code(), StatusCode::kInvalid);
  // A new start keeps nothing of the previous one.
  ASSERT_TRUE(profiler.Start().ok());
  EXPECT_EQ(profiler.Save(0, dir).status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::runtime::profiling
