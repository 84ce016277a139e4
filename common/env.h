// Environment: the one place trnsim reads environment variables. Every variable trnsim
// honours is a row of one table (name, type, default, documentation); docs/configuration.md
// is that table in prose, and `trnsim-demo --env` prints it. Nothing else calls getenv().
//
// An Environment is an immutable snapshot: the runtime takes one at nrt_init (AWS freezes
// configuration there too) and passes typed values down; tests build one from a map.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace trnsim {

enum class EnvVar : int {
  kLogLevel,                       // NEURON_RT_LOG_LEVEL
  kLogLevelNrt,                    // NEURON_RT_LOG_LEVEL_NRT
  kLogLevelTdrv,                   // NEURON_RT_LOG_LEVEL_TDRV
  kLogLevelSim,                    // NEURON_RT_LOG_LEVEL_SIM (trnsim's simulator component)
  kLogLocation,                    // NEURON_RT_LOG_LOCATION
  kLogicalNcConfig,                // NEURON_LOGICAL_NC_CONFIG
  kVirtualCoreSize,                // NEURON_RT_VIRTUAL_CORE_SIZE (older spelling of the same knob)
  kVisibleCores,                   // NEURON_RT_VISIBLE_CORES
  kNumCores,                       // NEURON_RT_NUM_CORES
  kValidateHash,                   // NEURON_RT_VALIDATE_HASH
  kInstance,                       // TRNSIM_INSTANCE
  kDaemon,                         // TRNSIM_DAEMON
  kToken,                          // TRNSIM_TOKEN
  kTokenFile,                      // TRNSIM_TOKEN_FILE
  kTlsCa,                          // TRNSIM_TLS_CA
  kTlsServerName,                  // TRNSIM_TLS_SERVER_NAME
  kExecTimeout,                    // NEURON_RT_EXEC_TIMEOUT
  kExecReport,                     // TRNSIM_EXEC_REPORT
  kPeThreads,                      // TRNSIM_PE_THREADS (simulator/core/host_workers.h)
  kStochasticRounding,             // NEURON_RT_STOCHASTIC_ROUNDING_EN
  kStochasticSeed,                 // NEURON_RT_STOCHASTIC_ROUNDING_SEED
  kInspectEnable,                  // NEURON_RT_INSPECT_ENABLE
  kInspectOutputDir,               // NEURON_RT_INSPECT_OUTPUT_DIR
  kInspectSystemProfile,           // NEURON_RT_INSPECT_SYSTEM_PROFILE
  kInspectDeviceProfile,           // NEURON_RT_INSPECT_DEVICE_PROFILE
  kInspectDeviceProfileNumWarmup,  // NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP
  kInspectSysTraceMaxEventsPerNc,  // NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC
  kInspectEventFilterNc,           // NEURON_RT_INSPECT_EVENT_FILTER_NC
  kInspectEventFilterType,         // NEURON_RT_INSPECT_EVENT_FILTER_TYPE
  kInspectOnFail,                  // NEURON_RT_INSPECT_ON_FAIL
  kRootCommId,                     // NEURON_RT_ROOT_COMM_ID
  kAsyncSendRecvEnabled,           // NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED
  kAsyncSendRecvBootstrapPort,     // NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT
  kNumericalErrorsVerbosity,       // NEURON_RT_NUMERICAL_ERRORS_VERBOSITY
  kFailOnNan,                      // NEURON_FAIL_ON_NAN
  kAsyncExecMaxInflight,           // NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS
  kFaults,                         // TRNSIM_FAULTS (docs/faults.md)
  kDebugStreamBufferSize,          // NEURON_RT_DEBUG_STREAM_BUFFER_SIZE (docs/debug-stream.md)
  kDebugOutputDir,                 // NEURON_RT_DEBUG_OUTPUT_DIR (docs/debug-stream.md)
  kListenPid,                      // LISTEN_PID (systemd socket activation; neurond only)
  kListenFds,                      // LISTEN_FDS (systemd socket activation; neurond only)
  kHostThreads,                    // TRNSIM_HOST_THREADS (parallel simulation on the host)
  kCount,
};

enum class EnvType { kString, kInt, kBool, kCoreList, kLogLevel };

struct EnvVarInfo {
  EnvVar id;
  const char* name;
  EnvType type;
  const char* default_value;  // "" when unset means "not set"
  const char* doc;
};

// The whole table, indexed by EnvVar.
std::span<const EnvVarInfo> EnvTable();
const EnvVarInfo& EnvInfo(EnvVar var);

class Environment {
 public:
  // Reads every variable of the table from the process environment.
  static Environment FromProcess();
  // For tests: only the given name=value pairs are set. Unknown names are ignored.
  static Environment FromMap(const std::map<std::string, std::string>& values);

  // The value if the variable is set (even to ""), else nullopt.
  std::optional<std::string_view> Raw(EnvVar var) const;
  // The value if set and non-empty, else the table's default.
  std::string_view Get(EnvVar var) const;
  // Typed reads of Get(); a malformed value is an NRT_INVALID Status naming the variable.
  StatusOr<int64_t> GetInt(EnvVar var) const;
  StatusOr<bool> GetBool(EnvVar var) const;

 private:
  std::optional<std::string> values_[static_cast<int>(EnvVar::kCount)];
};

}  // namespace trnsim
