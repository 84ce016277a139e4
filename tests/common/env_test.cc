// The environment table: one row per EnvVar in enum order, unique names, documented defaults,
// and typed reads that reject malformed text with NRT_INVALID naming the variable.
#include "common/env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace trnsim {
namespace {

using ::testing::HasSubstr;

TEST(EnvTableTest, OneRowPerVariableInEnumOrder) {
  auto table = EnvTable();
  ASSERT_EQ(table.size(), static_cast<size_t>(EnvVar::kCount));
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(table[i].id), i) << table[i].name;
    EXPECT_EQ(&EnvInfo(static_cast<EnvVar>(i)), &table[i]);
  }
}

TEST(EnvTableTest, NamesAreUniqueNonEmptyAndDocumented) {
  std::set<std::string> names;
  for (const EnvVarInfo& info : EnvTable()) {
    ASSERT_NE(info.name, nullptr);
    ASSERT_NE(info.default_value, nullptr);
    ASSERT_NE(info.doc, nullptr);
    EXPECT_GT(std::string(info.name).size(), 0u);
    EXPECT_GT(std::string(info.doc).size(), 0u) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate " << info.name;
    // Only the NEURON_ and TRNSIM_ namespaces are ours to read, and systemd's socket-activation
    // pair (neurond under neurond.socket).
    std::string name = info.name;
    EXPECT_TRUE(name.rfind("NEURON_", 0) == 0 || name.rfind("TRNSIM_", 0) == 0 ||
                name == "LISTEN_PID" || name == "LISTEN_FDS")
        << name;
  }
}

TEST(EnvTableTest, NamesMatchTheVariablesAwsDocuments) {
  EXPECT_STREQ(EnvInfo(EnvVar::kLogLevel).name, "NEURON_RT_LOG_LEVEL");
  EXPECT_STREQ(EnvInfo(EnvVar::kLogLevelNrt).name, "NEURON_RT_LOG_LEVEL_NRT");
  EXPECT_STREQ(EnvInfo(EnvVar::kLogLevelTdrv).name, "NEURON_RT_LOG_LEVEL_TDRV");
  EXPECT_STREQ(EnvInfo(EnvVar::kLogLevelSim).name, "NEURON_RT_LOG_LEVEL_SIM");
  EXPECT_STREQ(EnvInfo(EnvVar::kLogLocation).name, "NEURON_RT_LOG_LOCATION");
  EXPECT_STREQ(EnvInfo(EnvVar::kLogicalNcConfig).name, "NEURON_LOGICAL_NC_CONFIG");
  EXPECT_STREQ(EnvInfo(EnvVar::kVirtualCoreSize).name, "NEURON_RT_VIRTUAL_CORE_SIZE");
  EXPECT_STREQ(EnvInfo(EnvVar::kVisibleCores).name, "NEURON_RT_VISIBLE_CORES");
  EXPECT_STREQ(EnvInfo(EnvVar::kNumCores).name, "NEURON_RT_NUM_CORES");
  EXPECT_STREQ(EnvInfo(EnvVar::kInstance).name, "TRNSIM_INSTANCE");
  EXPECT_STREQ(EnvInfo(EnvVar::kDaemon).name, "TRNSIM_DAEMON");
  EXPECT_STREQ(EnvInfo(EnvVar::kToken).name, "TRNSIM_TOKEN");
}

TEST(EnvTableTest, Types) {
  EXPECT_EQ(EnvInfo(EnvVar::kLogLevel).type, EnvType::kLogLevel);
  EXPECT_EQ(EnvInfo(EnvVar::kLogicalNcConfig).type, EnvType::kInt);
  EXPECT_EQ(EnvInfo(EnvVar::kNumCores).type, EnvType::kInt);
  EXPECT_EQ(EnvInfo(EnvVar::kVisibleCores).type, EnvType::kCoreList);
  EXPECT_EQ(EnvInfo(EnvVar::kInstance).type, EnvType::kString);
}

TEST(EnvironmentTest, EmptyMapGivesDefaults) {
  Environment env = Environment::FromMap({});
  for (const EnvVarInfo& info : EnvTable()) {
    EXPECT_FALSE(env.Raw(info.id).has_value()) << info.name;
    EXPECT_EQ(env.Get(info.id), info.default_value) << info.name;
  }
  EXPECT_EQ(env.Get(EnvVar::kLogLevel), "ERROR");
  EXPECT_EQ(env.Get(EnvVar::kLogLocation), "CONSOLE");
  EXPECT_EQ(env.Get(EnvVar::kInstance), "trn2.48xlarge");
  EXPECT_EQ(env.Get(EnvVar::kLogicalNcConfig), "");
  EXPECT_EQ(env.Get(EnvVar::kDaemon), "");
}

TEST(EnvironmentTest, FromMapSetsKnownNamesAndIgnoresOthers) {
  Environment env = Environment::FromMap({{"TRNSIM_INSTANCE", "trn2.3xlarge"},
                                          {"NEURON_RT_NUM_CORES", "3"},
                                          {"NOT_A_TRNSIM_VARIABLE", "x"},
                                          {"neuron_rt_log_level", "DEBUG"}});  // case matters
  EXPECT_EQ(env.Get(EnvVar::kInstance), "trn2.3xlarge");
  EXPECT_EQ(env.Raw(EnvVar::kInstance), "trn2.3xlarge");
  EXPECT_EQ(env.Get(EnvVar::kNumCores), "3");
  EXPECT_FALSE(env.Raw(EnvVar::kLogLevel).has_value());
  EXPECT_EQ(env.Get(EnvVar::kLogLevel), "ERROR");
}

TEST(EnvironmentTest, SetButEmptyIsRawEmptyAndGetDefault) {
  Environment env = Environment::FromMap({{"TRNSIM_INSTANCE", ""}});
  ASSERT_TRUE(env.Raw(EnvVar::kInstance).has_value());
  EXPECT_EQ(*env.Raw(EnvVar::kInstance), "");
  EXPECT_EQ(env.Get(EnvVar::kInstance), "trn2.48xlarge");
}

TEST(EnvironmentTest, FromProcessReadsTheTableNames) {
  ASSERT_EQ(setenv("TRNSIM_TOKEN", "secret-for-env-test", 1), 0);
  ASSERT_EQ(unsetenv("TRNSIM_DAEMON"), 0);
  Environment env = Environment::FromProcess();
  EXPECT_EQ(env.Raw(EnvVar::kToken), "secret-for-env-test");
  EXPECT_FALSE(env.Raw(EnvVar::kDaemon).has_value());
  ASSERT_EQ(unsetenv("TRNSIM_TOKEN"), 0);
  // A snapshot: later changes to the process environment do not reach it.
  EXPECT_EQ(env.Raw(EnvVar::kToken), "secret-for-env-test");
  EXPECT_FALSE(Environment::FromProcess().Raw(EnvVar::kToken).has_value());
}

TEST(EnvironmentTest, GetIntParses) {
  struct Case {
    const char* text;
    int64_t value;
  };
  for (Case c : {Case{"0", 0}, Case{"2", 2}, Case{"-3", -3}, Case{"128", 128},
                 Case{"9223372036854775807", INT64_MAX}}) {
    Environment env = Environment::FromMap({{"NEURON_RT_NUM_CORES", c.text}});
    StatusOr<int64_t> value = env.GetInt(EnvVar::kNumCores);
    ASSERT_TRUE(value.ok()) << c.text << ": " << value.status().ToString();
    EXPECT_EQ(*value, c.value) << c.text;
  }
}

TEST(EnvironmentTest, GetIntRejectsMalformed) {
  for (const char* text :
       {"a", "2x", " 2", "2 ", "0x10", "1.5", "-", "+", "+2", "99999999999999999999"}) {
    Environment env = Environment::FromMap({{"NEURON_RT_NUM_CORES", text}});
    StatusOr<int64_t> value = env.GetInt(EnvVar::kNumCores);
    ASSERT_FALSE(value.ok()) << "'" << text << "' parsed as " << *value;
    EXPECT_EQ(value.status().code(), StatusCode::kInvalid) << text;
    EXPECT_THAT(value.status().message(), HasSubstr("NEURON_RT_NUM_CORES")) << text;
  }
}

TEST(EnvironmentTest, GetIntOfUnsetVariableWithoutDefaultIsInvalid) {
  // No default to fall back on: callers must test Get().empty() first, as config.cc does.
  Environment env = Environment::FromMap({});
  EXPECT_EQ(env.GetInt(EnvVar::kNumCores).status().code(), StatusCode::kInvalid);
}

TEST(EnvironmentTest, GetBoolParses) {
  // No boolean variable exists yet, so exercise the parser on a string one.
  for (const char* text : {"1", "true", "TRUE", "True", "yes", "YES", "on", "On"}) {
    Environment env = Environment::FromMap({{"TRNSIM_TOKEN", text}});
    StatusOr<bool> value = env.GetBool(EnvVar::kToken);
    ASSERT_TRUE(value.ok()) << text;
    EXPECT_TRUE(*value) << text;
  }
  for (const char* text : {"0", "false", "FALSE", "no", "No", "off", "OFF", ""}) {
    Environment env = Environment::FromMap({{"TRNSIM_TOKEN", text}});
    StatusOr<bool> value = env.GetBool(EnvVar::kToken);
    ASSERT_TRUE(value.ok()) << "'" << text << "'";
    EXPECT_FALSE(*value) << text;
  }
  EXPECT_FALSE(*Environment::FromMap({}).GetBool(EnvVar::kToken));  // unset, default ""
}

TEST(EnvironmentTest, GetBoolRejectsMalformed) {
  for (const char* text : {"2", "y", "tru", "enabled", "-1", " 1"}) {
    Environment env = Environment::FromMap({{"TRNSIM_TOKEN", text}});
    StatusOr<bool> value = env.GetBool(EnvVar::kToken);
    ASSERT_FALSE(value.ok()) << text;
    EXPECT_EQ(value.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(value.status().message(), HasSubstr("TRNSIM_TOKEN"));
  }
}

}  // namespace
}  // namespace trnsim
