// RuntimeConfig parsing: NEURON_RT_VISIBLE_CORES syntax, LNC selection, visible-core limits,
// instance selection, the remote back end switch and its token (TRNSIM_TOKEN, TRNSIM_TOKEN_FILE),
// and the execution, async and debug-stream settings nrt_init reads.
#include "runtime/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace trnsim::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

StatusOr<RuntimeConfig> Parse(const std::map<std::string, std::string>& values) {
  return ParseRuntimeConfig(Environment::FromMap(values));
}

RuntimeConfig MustParse(const std::map<std::string, std::string>& values) {
  StatusOr<RuntimeConfig> config = Parse(values);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? *config : RuntimeConfig{};
}

TEST(ParseCoreListTest, SingleCore) {
  StatusOr<std::vector<int>> cores = ParseCoreList("3");
  ASSERT_TRUE(cores.ok());
  EXPECT_THAT(*cores, ElementsAre(3));
  EXPECT_THAT(*ParseCoreList("0"), ElementsAre(0));
}

TEST(ParseCoreListTest, Range) {
  StatusOr<std::vector<int>> cores = ParseCoreList("2-5");
  ASSERT_TRUE(cores.ok());
  EXPECT_THAT(*cores, ElementsAre(2, 3, 4, 5));
  EXPECT_THAT(*ParseCoreList("7-7"), ElementsAre(7));
}

TEST(ParseCoreListTest, RangeAndSingle) {
  StatusOr<std::vector<int>> cores = ParseCoreList("2-4,5");
  ASSERT_TRUE(cores.ok());
  EXPECT_THAT(*cores, ElementsAre(2, 3, 4, 5));
  EXPECT_THAT(*ParseCoreList("0,1,2"), ElementsAre(0, 1, 2));
  EXPECT_THAT(*ParseCoreList("0-1,2-3"), ElementsAre(0, 1, 2, 3));
}

TEST(ParseCoreListTest, MalformedIsInvalid) {
  for (const char* text : {"a", "3-", "-3", "", ",", "3,", ",3", "1--2", "1-2-3", " 1", "1 ", "+1",
                           "0x1", "1.0", "99999999999"}) {
    StatusOr<std::vector<int>> cores = ParseCoreList(text);
    ASSERT_FALSE(cores.ok()) << "'" << text << "'";
    EXPECT_EQ(cores.status().code(), StatusCode::kInvalid) << text;
    EXPECT_THAT(cores.status().message(), HasSubstr("NEURON_RT_VISIBLE_CORES")) << text;
  }
}

TEST(ParseCoreListTest, DecreasingRangeIsInvalid) {
  StatusOr<std::vector<int>> cores = ParseCoreList("5-2");
  ASSERT_FALSE(cores.ok());
  EXPECT_EQ(cores.status().code(), StatusCode::kInvalid);
}

TEST(ParseCoreListTest, NonContiguousOrUnorderedIsInvalid) {
  for (const char* text : {"1,3", "0-2,4", "3,2", "2-4,4", "1,1", "4-5,0-3"}) {
    StatusOr<std::vector<int>> cores = ParseCoreList(text);
    ASSERT_FALSE(cores.ok()) << text;
    EXPECT_EQ(cores.status().code(), StatusCode::kInvalid) << text;
  }
}

// Regression: the range loop `for (int c = first; c <= last; ++c)` overflowed at INT_MAX, and a
// huge range was expanded one int at a time before anything was checked; either aborted the
// process with std::bad_alloc (or never ended). Absurd indices are now malformed, and
// non-contiguous items are refused before they are expanded.
TEST(ParseCoreListTest, HugeRangesAreRefusedWithoutExpandingThem) {
  for (const char* text :
       {"2147483647", "2147483646-2147483647", "0-2147483647", "0-1000000000", "5-2000000000"}) {
    StatusOr<std::vector<int>> cores = ParseCoreList(text);
    ASSERT_FALSE(cores.ok()) << text;
    EXPECT_EQ(cores.status().code(), StatusCode::kInvalid) << text;
  }
  // Each range below is within the index limit, but the list is not contiguous.
  std::string repeated = "0-1000000";
  for (int i = 0; i < 50; ++i) repeated += ",0-1000000";
  EXPECT_EQ(ParseCoreList(repeated).status().code(), StatusCode::kInvalid);
  // Indices that are well-formed but beyond the instance are still "not available".
  EXPECT_EQ(ParseRuntimeConfig(Environment::FromMap({{"NEURON_RT_VISIBLE_CORES", "100000"}}))
                .status()
                .code(),
            StatusCode::kFailure);
}

TEST(ParseRuntimeConfigTest, DefaultsOnTrn2_48xlarge) {
  RuntimeConfig config = MustParse({});
  ASSERT_NE(config.instance, nullptr);
  EXPECT_EQ(config.instance->type_name, "trn2.48xlarge");
  EXPECT_EQ(config.lnc, 2);
  EXPECT_EQ(config.total_vnc, 64);
  EXPECT_EQ(config.first_visible_vnc, 0);
  EXPECT_EQ(config.visible_vnc_count, 64);
  EXPECT_EQ(config.backend, "sim");
  EXPECT_EQ(config.daemon.address, "");
}

TEST(ParseRuntimeConfigTest, RunSettingsDefaultsAndValues) {
  RuntimeConfig defaults = MustParse({});
  EXPECT_FALSE(defaults.validate_hash);
  EXPECT_EQ(defaults.exec_timeout_s, 600);  // the env table's default
  EXPECT_FALSE(defaults.check_numerics);
  EXPECT_EQ(defaults.implicit_async_depth, 0u);
  EXPECT_EQ(defaults.debug_stream_events, 65536u);
  EXPECT_FALSE(defaults.inspect.enabled);

  RuntimeConfig set = MustParse({{"NEURON_RT_VALIDATE_HASH", "1"},
                                 {"NEURON_RT_EXEC_TIMEOUT", "0"},
                                 {"NEURON_RT_STOCHASTIC_ROUNDING_SEED", "7"},
                                 {"NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", "CRITICAL"},
                                 {"NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "1000"},
                                 {"NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "8"},
                                 {"NEURON_RT_DEBUG_OUTPUT_DIR", "/tmp/prints"}});
  EXPECT_TRUE(set.validate_hash);
  EXPECT_EQ(set.exec_timeout_s, 0);
  EXPECT_EQ(set.rounding_seed, 7u);
  EXPECT_TRUE(set.check_numerics);
  EXPECT_EQ(set.implicit_async_depth, uint32_t(kMaxImplicitAsyncInflight));  // capped
  EXPECT_EQ(set.debug_stream_events, 8u);
  EXPECT_EQ(set.debug_output_dir, "/tmp/prints");
}

TEST(ParseRuntimeConfigTest, HostThreadsAreOnUnlessTurnedOff) {
  EXPECT_TRUE(MustParse({}).host_threads);
  EXPECT_FALSE(MustParse({{"TRNSIM_HOST_THREADS", "false"}}).host_threads);
  EXPECT_FALSE(MustParse({{"TRNSIM_HOST_THREADS", "0"}}).host_threads);
  EXPECT_TRUE(MustParse({{"TRNSIM_HOST_THREADS", "1"}}).host_threads);
  StatusOr<RuntimeConfig> bad = Parse({{"TRNSIM_HOST_THREADS", "maybe"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("TRNSIM_HOST_THREADS"));
}

TEST(ParseRuntimeConfigTest, MalformedRunSettingsAreInvalidNamingTheVariable) {
  const std::map<std::string, std::string> bad[] = {
      {{"NEURON_RT_EXEC_TIMEOUT", "-1"}},
      {{"NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT", "70000"}},
      {{"NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", "loud"}},
      {{"NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "-2"}},
      {{"NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", "0"}},
  };
  for (const auto& values : bad) {
    StatusOr<RuntimeConfig> config = Parse(values);
    ASSERT_FALSE(config.ok()) << values.begin()->first;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(config.status().message(), HasSubstr(values.begin()->first));
  }
}

TEST(ParseRuntimeConfigTest, Lnc1DoublesTheCores) {
  RuntimeConfig config = MustParse({{"NEURON_LOGICAL_NC_CONFIG", "1"}});
  EXPECT_EQ(config.lnc, 1);
  EXPECT_EQ(config.total_vnc, 128);
  EXPECT_EQ(config.visible_vnc_count, 128);
}

TEST(ParseRuntimeConfigTest, OlderVirtualCoreSizeSpelling) {
  EXPECT_EQ(MustParse({{"NEURON_RT_VIRTUAL_CORE_SIZE", "1"}}).lnc, 1);
  // NEURON_LOGICAL_NC_CONFIG wins when both are set.
  RuntimeConfig config =
      MustParse({{"NEURON_RT_VIRTUAL_CORE_SIZE", "1"}, {"NEURON_LOGICAL_NC_CONFIG", "2"}});
  EXPECT_EQ(config.lnc, 2);
  EXPECT_EQ(config.total_vnc, 64);
  // An empty NEURON_LOGICAL_NC_CONFIG counts as unset.
  EXPECT_EQ(MustParse({{"NEURON_RT_VIRTUAL_CORE_SIZE", "1"}, {"NEURON_LOGICAL_NC_CONFIG", ""}}).lnc,
            1);
}

TEST(ParseRuntimeConfigTest, Trn2_3xlarge) {
  RuntimeConfig config = MustParse({{"TRNSIM_INSTANCE", "trn2.3xlarge"}});
  EXPECT_EQ(config.instance->type_name, "trn2.3xlarge");
  EXPECT_EQ(config.total_vnc, 4);
  EXPECT_EQ(config.visible_vnc_count, 4);
  config = MustParse({{"TRNSIM_INSTANCE", "trn2.3xlarge"}, {"NEURON_LOGICAL_NC_CONFIG", "1"}});
  EXPECT_EQ(config.total_vnc, 8);
  EXPECT_EQ(config.visible_vnc_count, 8);
}

TEST(ParseRuntimeConfigTest, Trn3_48xlarge) {
  RuntimeConfig config = MustParse({{"TRNSIM_INSTANCE", "trn3.48xlarge"}});
  EXPECT_EQ(config.instance->chip->name, "Trainium3");
  EXPECT_EQ(config.lnc, 2);
  EXPECT_EQ(config.total_vnc, 64);
  config = MustParse({{"TRNSIM_INSTANCE", "trn3.48xlarge"}, {"NEURON_LOGICAL_NC_CONFIG", "1"}});
  EXPECT_EQ(config.total_vnc, 128);
}

TEST(ParseRuntimeConfigTest, VisibleCores) {
  RuntimeConfig config = MustParse({{"NEURON_RT_VISIBLE_CORES", "2-5"}});
  EXPECT_EQ(config.total_vnc, 64);
  EXPECT_EQ(config.first_visible_vnc, 2);
  EXPECT_EQ(config.visible_vnc_count, 4);
  config = MustParse({{"NEURON_RT_VISIBLE_CORES", "63"}});
  EXPECT_EQ(config.first_visible_vnc, 63);
  EXPECT_EQ(config.visible_vnc_count, 1);
}

TEST(ParseRuntimeConfigTest, VisibleCoresBeyondTheInstanceAreFailure) {
  for (const char* text : {"64", "60-64", "100"}) {
    StatusOr<RuntimeConfig> config = Parse({{"NEURON_RT_VISIBLE_CORES", text}});
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().code(), StatusCode::kFailure) << text;
    EXPECT_THAT(config.status().message(), HasSubstr("not available")) << text;
    EXPECT_THAT(config.status().message(), HasSubstr("0-63")) << text;
  }
  // The limit follows the LNC: core 64 exists at LNC=1.
  EXPECT_TRUE(Parse({{"NEURON_RT_VISIBLE_CORES", "64"}, {"NEURON_LOGICAL_NC_CONFIG", "1"}}).ok());
  StatusOr<RuntimeConfig> small =
      Parse({{"TRNSIM_INSTANCE", "trn2.3xlarge"}, {"NEURON_RT_VISIBLE_CORES", "3-4"}});
  EXPECT_EQ(small.status().code(), StatusCode::kFailure);
}

TEST(ParseRuntimeConfigTest, MalformedVisibleCoresAreInvalid) {
  for (const char* text : {"a", "1,3", "5-2"}) {
    EXPECT_EQ(Parse({{"NEURON_RT_VISIBLE_CORES", text}}).status().code(), StatusCode::kInvalid)
        << text;
  }
}

TEST(ParseRuntimeConfigTest, NumCores) {
  RuntimeConfig config = MustParse({{"NEURON_RT_NUM_CORES", "3"}});
  EXPECT_EQ(config.first_visible_vnc, 0);
  EXPECT_EQ(config.visible_vnc_count, 3);
  EXPECT_EQ(MustParse({{"NEURON_RT_NUM_CORES", "0"}}).visible_vnc_count, 64);  // 0 = all
  EXPECT_EQ(MustParse({{"NEURON_RT_NUM_CORES", "64"}}).visible_vnc_count, 64);
  EXPECT_EQ(Parse({{"NEURON_RT_NUM_CORES", "65"}}).status().code(), StatusCode::kFailure);
  EXPECT_EQ(Parse({{"NEURON_RT_NUM_CORES", "-1"}}).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(Parse({{"NEURON_RT_NUM_CORES", "two"}}).status().code(), StatusCode::kInvalid);
}

TEST(ParseRuntimeConfigTest, VisibleCoresWinOverNumCores) {
  RuntimeConfig config =
      MustParse({{"NEURON_RT_VISIBLE_CORES", "4-5"}, {"NEURON_RT_NUM_CORES", "10"}});
  EXPECT_EQ(config.first_visible_vnc, 4);
  EXPECT_EQ(config.visible_vnc_count, 2);
}

TEST(ParseRuntimeConfigTest, BadLncIsInvalid) {
  for (const char* text : {"3", "0", "-1", "4", "two"}) {
    StatusOr<RuntimeConfig> config = Parse({{"NEURON_LOGICAL_NC_CONFIG", text}});
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalid) << text;
    EXPECT_THAT(config.status().message(), HasSubstr("NEURON_LOGICAL_NC_CONFIG")) << text;
  }
  EXPECT_EQ(Parse({{"NEURON_RT_VIRTUAL_CORE_SIZE", "3"}}).status().code(), StatusCode::kInvalid);
}

TEST(ParseRuntimeConfigTest, UnknownInstanceIsInvalid) {
  StatusOr<RuntimeConfig> config = Parse({{"TRNSIM_INSTANCE", "trn1.32xlarge"}});
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(config.status().message(), HasSubstr("trn1.32xlarge"));
}

TEST(ParseRuntimeConfigTest, DaemonSelectsRemoteBackend) {
  RuntimeConfig config = MustParse({{"TRNSIM_DAEMON", "127.0.0.1:7777"},
                                    {"TRNSIM_TOKEN", "t0k"},
                                    {"TRNSIM_INSTANCE", "trn2.48xlarge"}});
  EXPECT_EQ(config.backend, "remote");
  EXPECT_EQ(config.daemon.address, "127.0.0.1:7777");
  EXPECT_EQ(config.daemon.token, "t0k");
  EXPECT_EQ(MustParse({{"TRNSIM_DAEMON", ""}}).backend, "sim");  // empty counts as unset
  EXPECT_EQ(MustParse({{"TRNSIM_TOKEN", "t0k"}}).backend, "sim");
}

// TRNSIM_TOKEN_FILE: read when TRNSIM_TOKEN is not set; TRNSIM_TOKEN wins (the file is not even
// read); a file that cannot be read or is empty fails with NRT_INVALID naming the variable and
// the file; without TRNSIM_DAEMON neither is looked at.
TEST(ParseRuntimeConfigTest, TokenFileIsReadWhenNoTokenIsGiven) {
  char pattern[] = "/tmp/trnsim-config-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::filesystem::path dir = pattern;
  const std::string token_file = (dir / "neurond.token").string();
  std::ofstream(token_file) << "from-the-file\n";
  const std::string missing = (dir / "missing.token").string();
  const std::map<std::string, std::string> daemon = {{"TRNSIM_DAEMON", "unix:/d"},
                                                     {"TRNSIM_INSTANCE", "trn2.3xlarge"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(daemon.begin(), daemon.end());
    return extra;
  };

  EXPECT_EQ(MustParse(with({{"TRNSIM_TOKEN_FILE", token_file}})).daemon.token, "from-the-file");
  EXPECT_EQ(MustParse(with({{"TRNSIM_TOKEN_FILE", token_file}, {"TRNSIM_TOKEN", "explicit"}}))
                .daemon.token,
            "explicit");
  EXPECT_EQ(
      MustParse(with({{"TRNSIM_TOKEN_FILE", missing}, {"TRNSIM_TOKEN", "explicit"}})).daemon.token,
      "explicit");
  EXPECT_EQ(MustParse(with({{"TRNSIM_TOKEN_FILE", ""}})).daemon.token, "");
  EXPECT_EQ(MustParse(daemon).daemon.token, "");
  EXPECT_EQ(*DaemonToken(Environment::FromMap({{"TRNSIM_TOKEN_FILE", token_file}})),
            "from-the-file");

  StatusOr<RuntimeConfig> unreadable = Parse(with({{"TRNSIM_TOKEN_FILE", missing}}));
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(unreadable.status().message(), HasSubstr("TRNSIM_TOKEN_FILE"));
  EXPECT_THAT(unreadable.status().message(), HasSubstr(missing));
  EXPECT_THAT(unreadable.status().message(), HasSubstr("No such file or directory"));

  const std::string empty = (dir / "empty.token").string();
  std::ofstream(empty) << "\n";
  StatusOr<RuntimeConfig> blank = Parse(with({{"TRNSIM_TOKEN_FILE", empty}}));
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(blank.status().message(), HasSubstr("is empty"));

  // In-process (no TRNSIM_DAEMON) the token settings mean nothing and are not read.
  EXPECT_EQ(MustParse({{"TRNSIM_TOKEN_FILE", missing}}).backend, "sim");
  std::filesystem::remove_all(dir);
}

TEST(ParseRuntimeConfigTest, InstanceComesFromTheDaemonOnlyWhenUnset) {
  auto env = [](std::map<std::string, std::string> values) {
    return Environment::FromMap(values);
  };
  EXPECT_TRUE(InstanceComesFromDaemon(env({{"TRNSIM_DAEMON", "unix:/d"}})));
  EXPECT_TRUE(InstanceComesFromDaemon(env({{"TRNSIM_DAEMON", "unix:/d"},
                                           {"TRNSIM_INSTANCE", ""}})));
  EXPECT_FALSE(InstanceComesFromDaemon(env({{"TRNSIM_DAEMON", "unix:/d"},
                                            {"TRNSIM_INSTANCE", "trn2.3xlarge"}})));
  EXPECT_FALSE(InstanceComesFromDaemon(env({})));

  const simulator::InstanceSpec* small = *simulator::FindInstanceSpec("trn2.3xlarge");
  StatusOr<RuntimeConfig> adopted =
      ParseRuntimeConfig(env({{"TRNSIM_DAEMON", "unix:/d"}}), small);
  ASSERT_TRUE(adopted.ok()) << adopted.status().message();
  EXPECT_EQ(adopted->instance, small);
  EXPECT_EQ(adopted->total_vnc, small->PhysicalCores() / small->default_lnc);

  // Not asked for yet: refused rather than guessed.
  StatusOr<RuntimeConfig> unknown = ParseRuntimeConfig(env({{"TRNSIM_DAEMON", "unix:/d"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unix:/d"));

  // A set TRNSIM_INSTANCE wins; the daemon checks it matches at connection.
  StatusOr<RuntimeConfig> named = ParseRuntimeConfig(
      env({{"TRNSIM_DAEMON", "unix:/d"}, {"TRNSIM_INSTANCE", "trn3.48xlarge"}}), small);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->instance->type_name, "trn3.48xlarge");
}

TEST(ParseRuntimeConfigTest, TlsSettingsGoWithTheDaemon) {
  RuntimeConfig config = MustParse({{"TRNSIM_DAEMON", "127.0.0.1:7777"},
                                    {"TRNSIM_INSTANCE", "trn2.48xlarge"},
                                    {"TRNSIM_TLS_CA", "/etc/ca.pem"},
                                    {"TRNSIM_TLS_SERVER_NAME", "localhost"}});
  EXPECT_EQ(config.daemon.tls_ca_file, "/etc/ca.pem");
  EXPECT_EQ(config.daemon.tls_server_name, "localhost");
  RuntimeConfig plaintext =
      MustParse({{"TRNSIM_DAEMON", "127.0.0.1:7777"}, {"TRNSIM_INSTANCE", "trn2.48xlarge"}});
  EXPECT_EQ(plaintext.daemon.tls_ca_file, "");
  EXPECT_EQ(plaintext.daemon.tls_server_name, "");
}

// TRNSIM_FAULTS: nc= is the process's logical core; the device gets its first physical core.
TEST(RuntimeConfigTest, FaultsTranslateLogicalCoresIntoPhysicalOnes) {
  RuntimeConfig config = MustParse({{"TRNSIM_INSTANCE", "trn2.48xlarge"},
                                    {"NEURON_LOGICAL_NC_CONFIG", "2"},
                                    {"NEURON_RT_VISIBLE_CORES", "2-3"},
                                    {"TRNSIM_FAULTS", "hbm_ue:nc=1,exec=2;nc_ue:core=9;timeout"}});
  ASSERT_EQ(config.faults.rules.size(), 3u);
  EXPECT_FALSE(config.faults.rules[0].nc.has_value());
  EXPECT_EQ(config.faults.rules[0].physical_core, 6);  // logical core 3 at LNC=2
  EXPECT_EQ(config.faults.rules[1].physical_core, 9);
  EXPECT_FALSE(config.faults.rules[2].physical_core.has_value());
  EXPECT_EQ(driver::faults::FormatFaultSpec(config.faults),
            "hbm_ue:core=6,exec=2;nc_ue:core=9;timeout");

  StatusOr<RuntimeConfig> bad = Parse({{"TRNSIM_INSTANCE", "trn2.3xlarge"},
                                       {"NEURON_RT_VISIBLE_CORES", "1"},
                                       {"TRNSIM_FAULTS", "hbm_ue:nc=1"}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("TRNSIM_FAULTS rule 1: nc=1 is not one of this process's 1 logical"));
  bad = Parse({{"TRNSIM_INSTANCE", "trn2.3xlarge"}, {"TRNSIM_FAULTS", "hbm_ue:core=8"}});
  EXPECT_THAT(bad.status().message(), HasSubstr("core=8 is outside the 8 physical cores"));
  bad = Parse({{"TRNSIM_INSTANCE", "trn2.3xlarge"}, {"TRNSIM_FAULTS", "hbm_ue;;oops"}});
  EXPECT_THAT(bad.status().message(), HasSubstr("TRNSIM_FAULTS rule 3 'oops'"));
}

// What nrt_init reads before the instance is known: the daemon's address, token and TLS
// settings, the same values ParseRuntimeConfig then keeps.
TEST(ParseDaemonConnectionTest, ReadsTheDaemonsAddressTokenAndTls) {
  const Environment env = Environment::FromMap({{"TRNSIM_DAEMON", "unix:/run/n.sock"},
                                                {"TRNSIM_TOKEN", "t0k"},
                                                {"TRNSIM_TLS_CA", "/etc/ca.pem"},
                                                {"TRNSIM_TLS_SERVER_NAME", "neurond.local"}});
  StatusOr<DaemonConnection> daemon = ParseDaemonConnection(env);
  ASSERT_TRUE(daemon.ok()) << daemon.status().ToString();
  EXPECT_EQ(daemon->address, "unix:/run/n.sock");
  EXPECT_EQ(daemon->token, "t0k");
  EXPECT_EQ(daemon->tls_ca_file, "/etc/ca.pem");
  EXPECT_EQ(daemon->tls_server_name, "neurond.local");
  StatusOr<RuntimeConfig> config = ParseRuntimeConfig(
      Environment::FromMap({{"TRNSIM_DAEMON", "unix:/run/n.sock"},
                            {"TRNSIM_INSTANCE", "trn2.3xlarge"},
                            {"TRNSIM_TOKEN", "t0k"},
                            {"TRNSIM_TLS_CA", "/etc/ca.pem"},
                            {"TRNSIM_TLS_SERVER_NAME", "neurond.local"}}));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->backend, "remote");
  EXPECT_EQ(config->daemon.address, daemon->address);
  EXPECT_EQ(config->daemon.token, daemon->token);
  EXPECT_EQ(config->daemon.tls_ca_file, daemon->tls_ca_file);
  EXPECT_EQ(config->daemon.tls_server_name, daemon->tls_server_name);
  // A token file that does not exist is the token's error, naming the variable.
  StatusOr<DaemonConnection> bad = ParseDaemonConnection(Environment::FromMap(
      {{"TRNSIM_DAEMON", "unix:/run/n.sock"}, {"TRNSIM_TOKEN_FILE", "/nonexistent/token"}}));
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(bad.status().message(), HasSubstr("TRNSIM_TOKEN_FILE"));
}

}  // namespace
}  // namespace trnsim::runtime
