#include "common/log.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace trnsim {
namespace {

constexpr int kComponents = static_cast<int>(LogComponent::kCount);

struct LogState {
  std::atomic<int> level[kComponents];
  std::atomic<bool> to_syslog{false};
  std::once_flag lazy_init;
  std::mutex write_mutex;
  std::function<void(std::string_view)> sink;  // guarded by write_mutex
};

LogState& State() {
  static LogState* state = [] {
    auto* s = new LogState();  // never destroyed: logging works during static destruction
    for (auto& l : s->level) l.store(static_cast<int>(LogLevel::kError));
    // A fork() while another thread writes a line must not leave the child's lock held.
    pthread_atfork([] { State().write_mutex.lock(); }, [] { State().write_mutex.unlock(); },
                   [] { State().write_mutex.unlock(); });
    return s;
  }();
  return *state;
}

void ApplyConfiguration(const Environment& env);

void EnsureConfigured() {
  // Not ConfigureLogging(): it enters call_once on this same flag, which would deadlock here.
  std::call_once(State().lazy_init, [] { ApplyConfiguration(Environment::FromProcess()); });
}

int SyslogPriority(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return LOG_ERR;
    case LogLevel::kWarn: return LOG_WARNING;
    case LogLevel::kInfo: return LOG_INFO;
    default: return LOG_DEBUG;
  }
}

}  // namespace

StatusOr<LogLevel> ParseLogLevel(std::string_view text) {
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "QUIET") return LogLevel::kQuiet;
  if (upper == "ERROR") return LogLevel::kError;
  if (upper == "WARN" || upper == "WARNING") return LogLevel::kWarn;
  if (upper == "INFO") return LogLevel::kInfo;
  if (upper == "DEBUG") return LogLevel::kDebug;
  if (upper == "TRACE") return LogLevel::kTrace;
  return InvalidError("unknown log level '" + std::string(text) +
                      "' (expected QUIET, ERROR, WARN, INFO, DEBUG or TRACE)");
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kQuiet: return "QUIET";
    case LogLevel::kError: return "ERROR";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kTrace: return "TRACE";
  }
  return "?";
}

const char* LogComponentName(LogComponent component) {
  switch (component) {
    case LogComponent::kNrt: return "NRT";
    case LogComponent::kTdrv: return "TDRV";
    case LogComponent::kSim: return "SIM";
    case LogComponent::kTool: return "TOOL";
    case LogComponent::kCount: break;
  }
  return "?";
}

void ConfigureLogging(const Environment& env) {
  // Mark lazy configuration as done so a later first log line does not overwrite this.
  std::call_once(State().lazy_init, [] {});
  ApplyConfiguration(env);
}

namespace {

void ApplyConfiguration(const Environment& env) {
  LogState& state = State();
  std::string problems;
  auto level_of = [&](EnvVar var, LogLevel fallback) {
    if (env.Get(var).empty()) return fallback;
    StatusOr<LogLevel> parsed = ParseLogLevel(env.Get(var));
    if (!parsed.ok()) {
      problems += std::string(EnvInfo(var).name) + ": " + parsed.status().message() + "; ";
      return fallback;
    }
    return *parsed;
  };
  LogLevel global = level_of(EnvVar::kLogLevel, LogLevel::kError);
  const EnvVar per_component[kComponents] = {EnvVar::kLogLevelNrt, EnvVar::kLogLevelTdrv,
                                             EnvVar::kLogLevelSim, EnvVar::kLogLevel};
  for (int c = 0; c < kComponents; ++c) {
    state.level[c].store(static_cast<int>(level_of(per_component[c], global)));
  }
  std::string location(env.Get(EnvVar::kLogLocation));
  std::transform(location.begin(), location.end(), location.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  state.to_syslog.store(location == "SYSLOG");
  if (!problems.empty()) {
    LogLine(LogLevel::kError, LogComponent::kNrt, "ConfigureLogging", problems + "using ERROR");
  }
}

}  // namespace

bool LogEnabled(LogLevel level, LogComponent component) {
  EnsureConfigured();
  return level != LogLevel::kQuiet &&
         static_cast<int>(level) <= State().level[static_cast<int>(component)].load(
                                        std::memory_order_relaxed);
}

void LogLine(LogLevel level, LogComponent component, std::string_view function,
             std::string_view message) {
  using Clock = std::chrono::system_clock;
  auto now = Clock::now();
  std::time_t seconds = Clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch())
                    .count() % 1000000;
  std::tm tm_utc;
  gmtime_r(&seconds, &tm_utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%b-%d %H:%M:%S", &tm_utc);
  char prefix[128];
  std::snprintf(prefix, sizeof(prefix), "%s.%06lld %d:%ld %-6s %s:", stamp,
                static_cast<long long>(micros), static_cast<int>(getpid()),
                static_cast<long>(syscall(SYS_gettid)), LogLevelName(level),
                LogComponentName(component));
  std::string line = prefix;
  line += function;
  line += "  ";
  line += message;

  LogState& state = State();
  std::lock_guard<std::mutex> lock(state.write_mutex);
  if (state.sink) {
    state.sink(line);
  } else if (state.to_syslog.load()) {
    syslog(SyslogPriority(level), "%s", line.c_str());
  } else {
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
}

void SetLogSinkForTesting(std::function<void(std::string_view line)> sink) {
  LogState& state = State();
  std::lock_guard<std::mutex> lock(state.write_mutex);
  state.sink = std::move(sink);
}

}  // namespace trnsim
