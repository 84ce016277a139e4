#include "runtime/config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

#include "common/log.h"
#include "common/token_file.h"

namespace trnsim::runtime {
namespace {

// Far above any instance's core count, and low enough that expanding "0-<max>" stays small
// and `c <= last; ++c` below cannot overflow (INT_MAX once looped forever / exhausted memory).
constexpr int kMaxCoreIndex = 1 << 20;

StatusOr<int> ParseIndex(std::string_view text, std::string_view whole) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > kMaxCoreIndex) {
    return InvalidError("NEURON_RT_VISIBLE_CORES='" + std::string(whole) +
                        "' is malformed: '" + std::string(text) + "' is not a core index");
  }
  return value;
}

std::string RangeText(int first, int count) {
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

// The settings that do not place the process: execution, async, debug streams, inspect.
Status ParseRunSettings(const Environment& env, RuntimeConfig& config) {
  TRNSIM_ASSIGN_OR_RETURN(config.validate_hash, env.GetBool(EnvVar::kValidateHash));
  TRNSIM_ASSIGN_OR_RETURN(config.exec_timeout_s, env.GetInt(EnvVar::kExecTimeout));
  if (config.exec_timeout_s < 0) {
    return InvalidError("NEURON_RT_EXEC_TIMEOUT=" + std::to_string(config.exec_timeout_s) +
                        " is not a number of seconds (0: no limit)");
  }
  TRNSIM_ASSIGN_OR_RETURN(config.exec_report, env.GetBool(EnvVar::kExecReport));
  TRNSIM_ASSIGN_OR_RETURN(config.send_recv_enabled, env.GetBool(EnvVar::kAsyncSendRecvEnabled));
  if (env.Get(EnvVar::kAsyncSendRecvBootstrapPort) != "") {
    TRNSIM_ASSIGN_OR_RETURN(int64_t port, env.GetInt(EnvVar::kAsyncSendRecvBootstrapPort));
    if (port < 1 || port > 65535) {
      return InvalidError("NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT=" + std::to_string(port) +
                          " is not a TCP port (1..65535)");
    }
  }
  TRNSIM_ASSIGN_OR_RETURN(config.stochastic_rounding, env.GetBool(EnvVar::kStochasticRounding));
  TRNSIM_ASSIGN_OR_RETURN(config.host_threads, env.GetBool(EnvVar::kHostThreads));
  TRNSIM_ASSIGN_OR_RETURN(int64_t rounding_seed, env.GetInt(EnvVar::kStochasticSeed));
  config.rounding_seed = uint64_t(rounding_seed);
  TRNSIM_ASSIGN_OR_RETURN(bool fail_on_nan, env.GetBool(EnvVar::kFailOnNan));
  std::string verbosity(env.Get(EnvVar::kNumericalErrorsVerbosity));
  std::transform(verbosity.begin(), verbosity.end(), verbosity.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (verbosity != "critical" && verbosity != "none") {
    return InvalidError("NEURON_RT_NUMERICAL_ERRORS_VERBOSITY='" +
                        std::string(env.Get(EnvVar::kNumericalErrorsVerbosity)) +
                        "' is neither critical nor none");
  }
  config.check_numerics = fail_on_nan || verbosity == "critical";
  TRNSIM_ASSIGN_OR_RETURN(int64_t max_inflight, env.GetInt(EnvVar::kAsyncExecMaxInflight));
  if (max_inflight < 0) {
    return InvalidError("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=" +
                        std::to_string(max_inflight) + " is not a number of requests");
  }
  if (max_inflight > kMaxImplicitAsyncInflight) {
    TRNSIM_LOG(Warn, Nrt) << "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=" << max_inflight
                          << " is above the cap; using " << kMaxImplicitAsyncInflight;
    max_inflight = kMaxImplicitAsyncInflight;
  }
  config.implicit_async_depth = uint32_t(max_inflight);
  TRNSIM_ASSIGN_OR_RETURN(int64_t debug_buffer, env.GetInt(EnvVar::kDebugStreamBufferSize));
  if (debug_buffer < 1 || debug_buffer > kMaxDebugStreamEvents) {
    return InvalidError("NEURON_RT_DEBUG_STREAM_BUFFER_SIZE=" + std::to_string(debug_buffer) +
                        " is not a number of events (1.." + std::to_string(kMaxDebugStreamEvents) +
                        ")");
  }
  config.debug_stream_events = uint64_t(debug_buffer);
  config.debug_output_dir = std::string(env.Get(EnvVar::kDebugOutputDir));
  TRNSIM_ASSIGN_OR_RETURN(config.inspect,
                          profiling::ParseInspectSettings(env, uint32_t(config.visible_vnc_count)));
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<int>> ParseCoreList(std::string_view text) {
  std::vector<int> cores;
  // Checked before each item is expanded, so the list never outgrows kMaxCoreIndex + 1 entries.
  auto continues = [&cores](int first) { return cores.empty() || first == cores.back() + 1; };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view item = text.substr(pos, comma == std::string_view::npos ? text.npos
                                                                             : comma - pos);
    size_t dash = item.find('-');
    int first = 0, last = 0;
    if (dash == std::string_view::npos) {
      TRNSIM_ASSIGN_OR_RETURN(first, ParseIndex(item, text));
      last = first;
    } else {
      TRNSIM_ASSIGN_OR_RETURN(first, ParseIndex(item.substr(0, dash), text));
      TRNSIM_ASSIGN_OR_RETURN(last, ParseIndex(item.substr(dash + 1), text));
      if (last < first) {
        return InvalidError("NEURON_RT_VISIBLE_CORES='" + std::string(text) + "': range '" +
                            std::string(item) + "' is decreasing");
      }
    }
    if (!continues(first)) {
      return InvalidError("NEURON_RT_VISIBLE_CORES='" + std::string(text) +
                          "' must name contiguous, increasing cores");
    }
    for (int c = first; c <= last; ++c) cores.push_back(c);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return cores;
}

StatusOr<std::string> DaemonToken(const Environment& env) {
  if (!env.Get(EnvVar::kToken).empty()) return std::string(env.Get(EnvVar::kToken));
  const std::string_view path = env.Get(EnvVar::kTokenFile);
  if (path.empty()) return std::string();
  StatusOr<std::string> token = ReadTokenFile(std::string(path));
  if (!token.ok()) return InvalidError("TRNSIM_TOKEN_FILE: " + token.status().message());
  return token;
}

StatusOr<DaemonConnection> ParseDaemonConnection(const Environment& env) {
  DaemonConnection daemon;
  daemon.address = std::string(env.Get(EnvVar::kDaemon));
  TRNSIM_ASSIGN_OR_RETURN(daemon.token, DaemonToken(env));
  daemon.tls_ca_file = std::string(env.Get(EnvVar::kTlsCa));
  daemon.tls_server_name = std::string(env.Get(EnvVar::kTlsServerName));
  return daemon;
}

bool InstanceComesFromDaemon(const Environment& env) {
  std::optional<std::string_view> instance = env.Raw(EnvVar::kInstance);
  return !env.Get(EnvVar::kDaemon).empty() && (!instance.has_value() || instance->empty());
}

StatusOr<RuntimeConfig> ParseRuntimeConfig(const Environment& env,
                                           const simulator::InstanceSpec* daemon_instance) {
  RuntimeConfig config;
  if (InstanceComesFromDaemon(env)) {
    if (daemon_instance == nullptr) {
      return InvalidError("TRNSIM_INSTANCE is unset and the instance type of the daemon at " +
                          std::string(env.Get(EnvVar::kDaemon)) + " is not known");
    }
    config.instance = daemon_instance;
  } else {
    TRNSIM_ASSIGN_OR_RETURN(config.instance,
                            simulator::FindInstanceSpec(env.Get(EnvVar::kInstance)));
  }

  config.lnc = config.instance->default_lnc;
  for (EnvVar var : {EnvVar::kVirtualCoreSize, EnvVar::kLogicalNcConfig}) {
    if (env.Get(var).empty()) continue;
    TRNSIM_ASSIGN_OR_RETURN(int64_t lnc, env.GetInt(var));
    if (lnc != 1 && lnc != 2) {
      return InvalidError(std::string(EnvInfo(var).name) + "=" + std::to_string(lnc) +
                          " is not a valid logical NeuronCore size (1 or 2)");
    }
    config.lnc = static_cast<int>(lnc);  // NEURON_LOGICAL_NC_CONFIG is read last and wins
  }
  config.total_vnc = config.instance->PhysicalCores() / config.lnc;

  const std::string available = "Available: " + RangeText(0, config.total_vnc);
  if (!env.Get(EnvVar::kVisibleCores).empty()) {
    TRNSIM_ASSIGN_OR_RETURN(std::vector<int> cores,
                            ParseCoreList(env.Get(EnvVar::kVisibleCores)));
    if (cores.back() >= config.total_vnc) {
      return FailureError("Logical Neuron Core(s) not available - Requested: " +
                          std::string(env.Get(EnvVar::kVisibleCores)) + " " + available);
    }
    config.first_visible_vnc = cores.front();
    config.visible_vnc_count = static_cast<int>(cores.size());
  } else if (!env.Get(EnvVar::kNumCores).empty()) {
    TRNSIM_ASSIGN_OR_RETURN(int64_t count, env.GetInt(EnvVar::kNumCores));
    if (count < 0) return InvalidError("NEURON_RT_NUM_CORES must not be negative");
    if (count > config.total_vnc) {
      return FailureError("Logical Neuron Core(s) not available - Requested: " +
                          std::to_string(count) + " cores " + available);
    }
    config.visible_vnc_count = count == 0 ? config.total_vnc : static_cast<int>(count);
  } else {
    config.visible_vnc_count = config.total_vnc;
  }

  if (!env.Get(EnvVar::kDaemon).empty()) {
    TRNSIM_ASSIGN_OR_RETURN(DaemonConnection daemon, ParseDaemonConnection(env));
    config.backend = "remote";
    config.daemon = std::move(daemon);
  }
  config.root_comm_id = std::string(env.Get(EnvVar::kRootCommId));

  TRNSIM_ASSIGN_OR_RETURN(config.faults, driver::faults::ParseFaultSpec(env.Get(EnvVar::kFaults)));
  for (size_t i = 0; i < config.faults.rules.size(); ++i) {
    driver::faults::FaultRule& rule = config.faults.rules[i];
    if (rule.physical_core && *rule.physical_core >= config.instance->PhysicalCores()) {
      return InvalidError("TRNSIM_FAULTS rule " + std::to_string(i + 1) + ": core=" +
                          std::to_string(*rule.physical_core) + " is outside the " +
                          std::to_string(config.instance->PhysicalCores()) +
                          " physical cores of a " + config.instance->type_name);
    }
    if (!rule.nc) continue;
    if (*rule.nc >= config.visible_vnc_count) {
      return InvalidError("TRNSIM_FAULTS rule " + std::to_string(i + 1) + ": nc=" +
                          std::to_string(*rule.nc) + " is not one of this process's " +
                          std::to_string(config.visible_vnc_count) + " logical cores");
    }
    // The vnc's first physical core, as CoreMap::Locate computes it.
    rule.physical_core = (config.first_visible_vnc + *rule.nc) * config.lnc;
    rule.nc.reset();
  }
  TRNSIM_RETURN_IF_ERROR(ParseRunSettings(env, config));
  return config;
}

}  // namespace trnsim::runtime
