// The one logger. Lines look like AWS's runtime log lines:
//   2026-Nov-30 04:20:41.123456 12345:12345 ERROR  NRT:nrt_tensor_read   offset 8 + size 16 ...
// Levels come from NEURON_RT_LOG_LEVEL (default ERROR) and per-component overrides
// NEURON_RT_LOG_LEVEL_<NRT|TDRV|SIM>; NEURON_RT_LOG_LOCATION=SYSLOG sends lines to syslog.
// Configuration is read lazily on first use and again by ConfigureLogging() (nrt_init).
//
// Thread safety: all functions may be called from any thread; a line is written atomically.
#pragma once

#include <atomic>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

#include "common/env.h"

namespace trnsim {

enum class LogLevel : int { kQuiet = 0, kError = 1, kWarn = 2, kInfo = 3, kDebug = 4, kTrace = 5 };

// Components tag each line. NRT: runtime and API; TDRV: driver; SIM: simulator; TOOL: tools.
enum class LogComponent : int { kNrt = 0, kTdrv = 1, kSim = 2, kTool = 3, kCount = 4 };

// Parses "ERROR", "warn", "WARNING", "QUIET", ... (case-insensitive).
StatusOr<LogLevel> ParseLogLevel(std::string_view text);
const char* LogLevelName(LogLevel level);
const char* LogComponentName(LogComponent component);

// Applies the levels and location from `env`. Malformed levels are reported once and ignored.
void ConfigureLogging(const Environment& env);

// True when a line at `level` for `component` would be written.
bool LogEnabled(LogLevel level, LogComponent component);

// Writes one line (a trailing newline is added).
void LogLine(LogLevel level, LogComponent component, std::string_view function,
             std::string_view message);

// Tests: route formatted lines to `sink` instead of stderr/syslog; nullptr restores.
void SetLogSinkForTesting(std::function<void(std::string_view line)> sink);

namespace internal {
class LogMessage {
 public:
  LogMessage(LogLevel level, LogComponent component, const char* function)
      : level_(level), component_(component), function_(function) {}
  ~LogMessage() { LogLine(level_, component_, function_, stream_.str()); }
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  LogComponent component_;
  const char* function_;
  std::ostringstream stream_;
};
}  // namespace internal

}  // namespace trnsim

// TRNSIM_LOG(Error, Nrt) << "offset " << off << " is past the end";
// The message is formatted only when the level is enabled.
#define TRNSIM_LOG(level, component)                                                     \
  if (!::trnsim::LogEnabled(::trnsim::LogLevel::k##level,                                \
                            ::trnsim::LogComponent::k##component)) {                     \
  } else                                                                                 \
    ::trnsim::internal::LogMessage(::trnsim::LogLevel::k##level,                         \
                                   ::trnsim::LogComponent::k##component, __func__)       \
        .stream()
