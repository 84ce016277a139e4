// The logger: levels from the environment table, per-component overrides, QUIET, the AWS-like
// line format, and the test sink. The logger is process-global, so every test restores the
// sink and the default levels (ERROR everywhere, console) when it ends.
#include "common/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace trnsim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr LogComponent kAllComponents[] = {LogComponent::kNrt, LogComponent::kTdrv,
                                           LogComponent::kSim, LogComponent::kTool};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ConfigureLogging(Environment::FromMap({}));
    SetLogSinkForTesting([this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.emplace_back(line);
    });
  }
  void TearDown() override {
    SetLogSinkForTesting(nullptr);
    ConfigureLogging(Environment::FromMap({}));
  }

  static void Configure(const std::map<std::string, std::string>& values) {
    ConfigureLogging(Environment::FromMap(values));
  }

  std::vector<std::string> Lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

  std::mutex mutex_;
  std::vector<std::string> lines_;
};

// Named so the test can find the function name in the line.
void EmitErrorFromNamedFunction() { TRNSIM_LOG(Error, Nrt) << "offset " << 8 << " is bad"; }
void EmitWarnFromTdrv() { TRNSIM_LOG(Warn, Tdrv) << "driver warning"; }

TEST_F(LogTest, DefaultIsErrorForEveryComponent) {
  for (LogComponent c : kAllComponents) {
    EXPECT_TRUE(LogEnabled(LogLevel::kError, c)) << LogComponentName(c);
    EXPECT_FALSE(LogEnabled(LogLevel::kWarn, c)) << LogComponentName(c);
    EXPECT_FALSE(LogEnabled(LogLevel::kTrace, c)) << LogComponentName(c);
  }
}

TEST_F(LogTest, GlobalLevelEnablesThatLevelAndBelow) {
  Configure({{"NEURON_RT_LOG_LEVEL", "INFO"}});
  for (LogComponent c : kAllComponents) {
    EXPECT_TRUE(LogEnabled(LogLevel::kError, c));
    EXPECT_TRUE(LogEnabled(LogLevel::kWarn, c));
    EXPECT_TRUE(LogEnabled(LogLevel::kInfo, c));
    EXPECT_FALSE(LogEnabled(LogLevel::kDebug, c));
    EXPECT_FALSE(LogEnabled(LogLevel::kTrace, c));
  }
  Configure({{"NEURON_RT_LOG_LEVEL", "trace"}});
  for (LogComponent c : kAllComponents) EXPECT_TRUE(LogEnabled(LogLevel::kTrace, c));
}

TEST_F(LogTest, PerComponentOverrideBeatsGlobal) {
  Configure({{"NEURON_RT_LOG_LEVEL", "WARN"},
             {"NEURON_RT_LOG_LEVEL_TDRV", "DEBUG"},
             {"NEURON_RT_LOG_LEVEL_SIM", "ERROR"}});
  EXPECT_TRUE(LogEnabled(LogLevel::kDebug, LogComponent::kTdrv));
  EXPECT_FALSE(LogEnabled(LogLevel::kTrace, LogComponent::kTdrv));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarn, LogComponent::kNrt));  // global
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo, LogComponent::kNrt));
  EXPECT_FALSE(LogEnabled(LogLevel::kWarn, LogComponent::kSim));  // lowered below global
  EXPECT_TRUE(LogEnabled(LogLevel::kError, LogComponent::kSim));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarn, LogComponent::kTool));  // TOOL follows global
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo, LogComponent::kTool));
}

TEST_F(LogTest, NrtOverrideWithoutGlobal) {
  Configure({{"NEURON_RT_LOG_LEVEL_NRT", "INFO"}});
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo, LogComponent::kNrt));
  EXPECT_FALSE(LogEnabled(LogLevel::kWarn, LogComponent::kTdrv));  // still the ERROR default
}

TEST_F(LogTest, QuietSilencesEvenErrors) {
  Configure({{"NEURON_RT_LOG_LEVEL", "QUIET"}});
  for (LogComponent c : kAllComponents) {
    EXPECT_FALSE(LogEnabled(LogLevel::kError, c)) << LogComponentName(c);
  }
  EmitErrorFromNamedFunction();
  EXPECT_TRUE(Lines().empty());
}

TEST_F(LogTest, QuietIsNeverAnEnabledLineLevel) {
  Configure({{"NEURON_RT_LOG_LEVEL", "TRACE"}});
  for (LogComponent c : kAllComponents) EXPECT_FALSE(LogEnabled(LogLevel::kQuiet, c));
}

TEST_F(LogTest, ReconfiguringReplacesEarlierLevels) {
  Configure({{"NEURON_RT_LOG_LEVEL_TDRV", "TRACE"}});
  ASSERT_TRUE(LogEnabled(LogLevel::kTrace, LogComponent::kTdrv));
  Configure({});
  EXPECT_FALSE(LogEnabled(LogLevel::kWarn, LogComponent::kTdrv));
}

TEST_F(LogTest, LineCarriesLevelComponentFunctionAndMessage) {
  EmitErrorFromNamedFunction();
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  const std::string& line = lines[0];
  EXPECT_THAT(line, HasSubstr(" ERROR "));
  EXPECT_THAT(line, HasSubstr("NRT:EmitErrorFromNamedFunction"));
  EXPECT_THAT(line, HasSubstr("offset 8 is bad"));
  EXPECT_THAT(line, Not(HasSubstr("\n")));  // the sink gets the line without its newline
}

TEST_F(LogTest, LineFormatMatchesAwsLayout) {
  Configure({{"NEURON_RT_LOG_LEVEL", "WARN"}});
  EmitWarnFromTdrv();
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  // 2026-Nov-30 04:20:41.123456 12345:12345 WARN   TDRV:EmitWarnFromTdrv  driver warning
  std::regex layout(R"(^\d{4}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6} (\d+):(\d+) WARN   )"
                    R"(TDRV:EmitWarnFromTdrv  driver warning$)");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(lines[0], match, layout)) << lines[0];
  EXPECT_EQ(std::stol(match[1].str()), static_cast<long>(getpid()));
}

TEST_F(LogTest, DisabledLinesAreNotFormatted) {
  int evaluations = 0;
  auto counted = [&evaluations] {
    ++evaluations;
    return "expensive";
  };
  TRNSIM_LOG(Debug, Sim) << counted();
  EXPECT_EQ(evaluations, 0);
  EXPECT_TRUE(Lines().empty());
  Configure({{"NEURON_RT_LOG_LEVEL_SIM", "DEBUG"}});
  TRNSIM_LOG(Debug, Sim) << counted();
  EXPECT_EQ(evaluations, 1);
  ASSERT_EQ(Lines().size(), 1u);
  EXPECT_THAT(Lines()[0], HasSubstr("DEBUG  SIM:"));
  EXPECT_THAT(Lines()[0], HasSubstr("expensive"));
}

TEST_F(LogTest, MacroNestsUnderUnbracedIfElse) {
  bool take = false;
  int else_ran = 0;
  if (take)
    TRNSIM_LOG(Error, Nrt) << "taken";
  else
    ++else_ran;
  EXPECT_EQ(else_ran, 1);
  EXPECT_TRUE(Lines().empty());
}

TEST_F(LogTest, LogLineWritesRegardlessOfLevel) {
  // LogLine is the writer; filtering is LogEnabled's job (the macro calls both).
  Configure({{"NEURON_RT_LOG_LEVEL", "QUIET"}});
  LogLine(LogLevel::kInfo, LogComponent::kTool, "direct", "hello");
  ASSERT_EQ(Lines().size(), 1u);
  EXPECT_THAT(Lines()[0], HasSubstr("INFO   TOOL:direct  hello"));
}

TEST_F(LogTest, MalformedLevelIsReportedAndFallsBackToError) {
  Configure({{"NEURON_RT_LOG_LEVEL", "LOUD"}, {"NEURON_RT_LOG_LEVEL_SIM", "INFO"}});
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("ERROR"));
  EXPECT_THAT(lines[0], HasSubstr("NEURON_RT_LOG_LEVEL"));
  EXPECT_THAT(lines[0], HasSubstr("LOUD"));
  EXPECT_THAT(lines[0], HasSubstr("using ERROR"));
  EXPECT_TRUE(LogEnabled(LogLevel::kError, LogComponent::kNrt));
  EXPECT_FALSE(LogEnabled(LogLevel::kWarn, LogComponent::kNrt));
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo, LogComponent::kSim));  // valid override still applies
}

TEST_F(LogTest, RestoringTheSinkSendsLinesToStderr) {
  SetLogSinkForTesting(nullptr);
  ::testing::internal::CaptureStderr();
  EmitErrorFromNamedFunction();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("NRT:EmitErrorFromNamedFunction  offset 8 is bad\n"));
  EXPECT_TRUE(Lines().empty());
}

TEST_F(LogTest, ConcurrentLinesArriveWhole) {
  constexpr int kThreads = 4;
  constexpr int kLinesPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kLinesPerThread; ++i) {
        TRNSIM_LOG(Error, Tdrv) << "thread " << t << " line " << i << " end";
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<std::string> lines = Lines();
  ASSERT_EQ(lines.size(), static_cast<size_t>(kThreads * kLinesPerThread));
  std::regex whole(R"(.* ERROR  TDRV:\S+  thread \d line \d+ end$)");
  for (const std::string& line : lines) EXPECT_TRUE(std::regex_match(line, whole)) << line;
}

// Regression: the first LogEnabled() of a process configures the logger lazily; it used to call
// ConfigureLogging() from inside call_once on the flag ConfigureLogging() enters too, and hung
// forever. The threadsafe style re-executes the binary, so the child starts with a logger nobody
// has configured; the alarm turns a hang into a failure.
TEST(LogLazyInitDeathTest, FirstUseReadsTheProcessEnvironmentWithoutHanging) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        alarm(20);
        setenv("NEURON_RT_LOG_LEVEL", "DEBUG", 1);
        bool debug_on = LogEnabled(LogLevel::kDebug, LogComponent::kSim);
        bool trace_on = LogEnabled(LogLevel::kTrace, LogComponent::kSim);
        std::_Exit(debug_on && !trace_on ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(LogLevelTest, ParseIsCaseInsensitiveWithWarningAlias) {
  EXPECT_EQ(*ParseLogLevel("QUIET"), LogLevel::kQuiet);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
  EXPECT_EQ(*ParseLogLevel("Warn"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("WARNING"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("info"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("DEBUG"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("tRaCe"), LogLevel::kTrace);
}

TEST(LogLevelTest, ParseRejectsUnknown) {
  for (const char* text : {"", "LOUD", "ERR", "3", " ERROR", "ERROR "}) {
    StatusOr<LogLevel> level = ParseLogLevel(text);
    ASSERT_FALSE(level.ok()) << "'" << text << "'";
    EXPECT_EQ(level.status().code(), StatusCode::kInvalid);
  }
}

TEST(LogLevelTest, NamesRoundTrip) {
  for (LogLevel level : {LogLevel::kQuiet, LogLevel::kError, LogLevel::kWarn, LogLevel::kInfo,
                         LogLevel::kDebug, LogLevel::kTrace}) {
    StatusOr<LogLevel> parsed = ParseLogLevel(LogLevelName(level));
    ASSERT_TRUE(parsed.ok()) << LogLevelName(level);
    EXPECT_EQ(*parsed, level);
  }
  EXPECT_STREQ(LogComponentName(LogComponent::kNrt), "NRT");
  EXPECT_STREQ(LogComponentName(LogComponent::kTdrv), "TDRV");
  EXPECT_STREQ(LogComponentName(LogComponent::kSim), "SIM");
  EXPECT_STREQ(LogComponentName(LogComponent::kTool), "TOOL");
}

}  // namespace
}  // namespace trnsim
