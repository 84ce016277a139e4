// Per-core profile sessions (runtime/profiling/core_profile_sessions.h): capture per core,
// ids, serialise (the profile file with each execution's model) and release, drops, and every
// refusal.
#include "runtime/profiling/core_profile_sessions.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace trnsim::runtime::profiling {
namespace {

ProfiledExecution Execution(const std::string& model, uint64_t index, uint64_t exec_id) {
  ProfiledExecution x;
  x.model_name = model;
  x.index = index;
  x.exec_id = exec_id;
  x.result.duration_ps = 1000 * exec_id;
  return x;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

class CoreProfileSessionsTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    return (std::filesystem::path(::testing::TempDir()) / ("core_sessions_" + name)).string();
  }
  CoreProfileSessions sessions_{ProfileHeader{"", 0, "Trainium2", "trn2.3xlarge"}};
};

TEST_F(CoreProfileSessionsTest, ASessionKeepsEveryExecutionOfItsCoreUntilSerialised) {
  EXPECT_FALSE(sessions_.Wants(1));
  ASSERT_TRUE(sessions_.Start(1).ok());
  EXPECT_TRUE(sessions_.Wants(1));
  EXPECT_FALSE(sessions_.Wants(0));
  sessions_.Add(1, Execution("a", 0, 3));
  sessions_.Add(0, Execution("b", 0, 4));  // no session on core 0: dropped
  sessions_.Add(1, Execution("c", 2, 5));
  StatusOr<uint64_t> id = sessions_.Stop(1);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_FALSE(sessions_.Wants(1));
  sessions_.Add(1, Execution("a", 1, 6));  // after the stop: not captured

  const std::string file = Path("one.ntff");
  ASSERT_TRUE(sessions_.Serialize(*id, file).ok());
  nlohmann::json doc = ReadJson(file);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["format"], "trnsim-ntff");
  EXPECT_EQ(doc["model"]["vnc"], 1);
  EXPECT_EQ(doc["model"]["name"], "a, c");
  EXPECT_EQ(doc["device"]["instance"], "trn2.3xlarge");
  ASSERT_EQ(doc["executions"].size(), 2u);
  EXPECT_EQ(doc["executions"][0]["model_name"], "a");
  EXPECT_EQ(doc["executions"][0]["exec_id"], 3);
  EXPECT_EQ(doc["executions"][1]["model_name"], "c");
  EXPECT_EQ(doc["executions"][1]["index"], 2);
  // Released: a second serialise or a drop of the same id is refused.
  EXPECT_EQ(sessions_.Serialize(*id, file).code(), StatusCode::kInvalid);
  EXPECT_EQ(sessions_.Drop(*id).code(), StatusCode::kInvalid);
}

TEST_F(CoreProfileSessionsTest, IdsDropsAndRefusals) {
  EXPECT_EQ(sessions_.Stop(0).status().code(), StatusCode::kInvalid);  // none active
  ASSERT_TRUE(sessions_.Start(0).ok());
  EXPECT_EQ(sessions_.Start(0).code(), StatusCode::kInvalid);  // already active
  ASSERT_TRUE(sessions_.Start(2).ok());                        // another core: fine
  StatusOr<uint64_t> first = sessions_.Stop(0);
  ASSERT_TRUE(sessions_.Start(0).ok());  // a new session on the same core
  sessions_.Add(0, Execution("m", 0, 1));
  StatusOr<uint64_t> second = sessions_.Stop(0);
  StatusOr<uint64_t> other = sessions_.Stop(2);
  ASSERT_TRUE(first.ok() && second.ok() && other.ok());
  EXPECT_LT(*first, *second);
  EXPECT_NE(*second, *other);

  EXPECT_EQ(sessions_.Serialize(*first, "").code(), StatusCode::kInvalid);
  // A file that cannot be written keeps the capture.
  EXPECT_EQ(sessions_.Serialize(*second, "/nonexistent-dir/x.ntff").code(), StatusCode::kInvalid);
  EXPECT_EQ(sessions_.DropAll(0), 2u);  // first and second, not core 2's
  EXPECT_EQ(sessions_.Drop(*second).code(), StatusCode::kInvalid);
  EXPECT_EQ(sessions_.Drop(12345).code(), StatusCode::kInvalid);
  EXPECT_TRUE(sessions_.Drop(*other).ok());
  EXPECT_EQ(sessions_.DropAll(2), 0u);

  // An empty session serialises as a file with no executions.
  ASSERT_TRUE(sessions_.Start(3).ok());
  StatusOr<uint64_t> empty = sessions_.Stop(3);
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(sessions_.Serialize(*empty, Path("empty.ntff")).ok());
  EXPECT_TRUE(ReadJson(Path("empty.ntff"))["executions"].empty());
}

}  // namespace
}  // namespace trnsim::runtime::profiling
