#include "common/env.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace trnsim {
namespace {

// Rows must stay in EnvVar order; a check below aborts at start-up if they do not.
constexpr EnvVarInfo kTable[] = {
    {EnvVar::kLogLevel, "NEURON_RT_LOG_LEVEL", EnvType::kLogLevel, "ERROR",
     "Console log level for every component: QUIET, ERROR, WARN (WARNING), INFO, DEBUG, TRACE."},
    {EnvVar::kLogLevelNrt, "NEURON_RT_LOG_LEVEL_NRT", EnvType::kLogLevel, "",
     "Log level of the runtime/API component (NRT); overrides NEURON_RT_LOG_LEVEL."},
    {EnvVar::kLogLevelTdrv, "NEURON_RT_LOG_LEVEL_TDRV", EnvType::kLogLevel, "",
     "Log level of the driver component (TDRV); overrides NEURON_RT_LOG_LEVEL."},
    {EnvVar::kLogLevelSim, "NEURON_RT_LOG_LEVEL_SIM", EnvType::kLogLevel, "",
     "trnsim only: log level of the simulator component (SIM)."},
    {EnvVar::kLogLocation, "NEURON_RT_LOG_LOCATION", EnvType::kString, "CONSOLE",
     "Where log lines go: CONSOLE (stderr) or SYSLOG."},
    {EnvVar::kLogicalNcConfig, "NEURON_LOGICAL_NC_CONFIG", EnvType::kInt, "",
     "Logical NeuronCore size (LNC): 1 or 2 physical cores per logical core. Default 2 on "
     "trn2/trn3."},
    {EnvVar::kVirtualCoreSize, "NEURON_RT_VIRTUAL_CORE_SIZE", EnvType::kInt, "",
     "Older spelling of NEURON_LOGICAL_NC_CONFIG; used when that one is unset."},
    {EnvVar::kVisibleCores, "NEURON_RT_VISIBLE_CORES", EnvType::kCoreList, "",
     "Logical cores (instance-wide indices) this process reserves: '3', '2-5' or '2-4,5'; "
     "must be contiguous and increasing. Takes precedence over NEURON_RT_NUM_CORES."},
    {EnvVar::kNumCores, "NEURON_RT_NUM_CORES", EnvType::kInt, "",
     "Number of free logical cores to reserve, starting at the first free one. Unset or 0: "
     "all."},
    {EnvVar::kValidateHash, "NEURON_RT_VALIDATE_HASH", EnvType::kBool, "false",
     "Check each NEFF's payload hash (MD5 or SHA-256, per the header) at load; a mismatch fails "
     "the load with NRT_INVALID."},
    {EnvVar::kInstance, "TRNSIM_INSTANCE", EnvType::kString, "trn2.48xlarge",
     "trnsim only: the emulated instance type (see `trnsim-demo --instances`). With "
     "TRNSIM_DAEMON set and this unset, the daemon's instance type."},
    {EnvVar::kDaemon, "TRNSIM_DAEMON", EnvType::kString, "",
     "trnsim only: address of a neurond daemon (unix:PATH, 127.0.0.1:PORT, [::1]:PORT, "
     "localhost:PORT) to use instead of the in-process simulator; TRNSIM_INSTANCE, when set, "
     "must name the daemon's instance type (else nrt_init fails with NRT_INVALID). Unreachable or "
     "gone daemon: NRT_FAILURE (NRT_TIMEOUT past "
     "an RPC deadline) naming the address."},
    {EnvVar::kToken, "TRNSIM_TOKEN", EnvType::kString, "",
     "trnsim only: the token neurond asks for, when it was started with --token-file; a wrong "
     "or missing one fails nrt_init with NRT_INVALID."},
    {EnvVar::kTokenFile, "TRNSIM_TOKEN_FILE", EnvType::kString, "",
     "trnsim only: a file whose first line is the token for TRNSIM_DAEMON (e.g. the package's "
     "/etc/trnsim/neurond.token, readable by group neuron); TRNSIM_TOKEN wins when both are set. "
     "An unreadable or empty file fails nrt_init with NRT_INVALID naming it."},
    {EnvVar::kTlsCa, "TRNSIM_TLS_CA", EnvType::kString, "",
     "trnsim only: path of a PEM file of root certificates; when set, the connection to "
     "TRNSIM_DAEMON is TLS trusting only those (for a neurond started with --tls-cert/--tls-key). "
     "Unreadable file, or a failed handshake: nrt_init fails with NRT_FAILURE."},
    {EnvVar::kTlsServerName, "TRNSIM_TLS_SERVER_NAME", EnvType::kString, "",
     "trnsim only: with TRNSIM_TLS_CA, the name the daemon's certificate must carry instead of "
     "TRNSIM_DAEMON's host (e.g. localhost for a daemon reached at 127.0.0.1)."},
    {EnvVar::kExecTimeout, "NEURON_RT_EXEC_TIMEOUT", EnvType::kInt, "600",
     "Seconds of host time one execution may take before nrt_execute fails with NRT_TIMEOUT "
     "(AWS's default on trn1/trn2 is 600). trnsim: 0 means no limit."},
    {EnvVar::kExecReport, "TRNSIM_EXEC_REPORT", EnvType::kBool, "false",
     "trnsim only: after every execution, log one INFO line (whatever the log level) with the "
     "model, vnc, simulated time, per-engine utilisation, DMA and HBM bytes."},
    {EnvVar::kPeThreads, "TRNSIM_PE_THREADS", EnvType::kInt, "0",
     "trnsim only: host threads one large PE matmul instruction may use (its output column "
     "blocks split among them; results are bit-identical whatever the count). 0 (the default): "
     "one per host core; 1: no split. Read once per process, at the first large matmul."},
    {EnvVar::kStochasticRounding, "NEURON_RT_STOCHASTIC_ROUNDING_EN", EnvType::kBool, "false",
     "Round engine writes to bf16/fp16/fp8 stochastically instead of to nearest even "
     "(docs/numerics.md §3). trnsim: the random bits are a function of the seed, the execution "
     "and the instruction, so a run is reproducible."},
    {EnvVar::kStochasticSeed, "NEURON_RT_STOCHASTIC_ROUNDING_SEED", EnvType::kInt, "0",
     "Seed of stochastic rounding. trnsim: execution n of a model uses the stream of "
     "(seed, n), so repeated executions draw fresh bits, and the same seed repeats a whole run."},
    {EnvVar::kInspectEnable, "NEURON_RT_INSPECT_ENABLE", EnvType::kBool, "false",
     "Master switch of environment-variable profiling (docs/profiling.md §4): a system trace "
     "(ntrace.json) and, with NEURON_RT_INSPECT_DEVICE_PROFILE, device profiles under "
     "NEURON_RT_INSPECT_OUTPUT_DIR."},
    {EnvVar::kInspectOutputDir, "NEURON_RT_INSPECT_OUTPUT_DIR", EnvType::kString, "./output",
     "Where NEURON_RT_INSPECT_ENABLE writes: <dir>/<instance id>_pid_<pid>/<UTC time of "
     "nrt_init>/ntrace.json and profile_nc_<vnc>_session_<n>.ntff."},
    {EnvVar::kInspectSystemProfile, "NEURON_RT_INSPECT_SYSTEM_PROFILE", EnvType::kBool, "true",
     "With NEURON_RT_INSPECT_ENABLE: capture the system trace from nrt_init and write it at "
     "nrt_close as ntrace.json (trnsim: JSON, not AWS's ntrace.pb). While it captures, "
     "nrt_sys_trace_start fails with NRT_INVALID."},
    {EnvVar::kInspectDeviceProfile, "NEURON_RT_INSPECT_DEVICE_PROFILE", EnvType::kString, "0",
     "With NEURON_RT_INSPECT_ENABLE: 0 (no device profiles), 1 or model (one per model and "
     "logical core: its first execution after NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP), "
     "session (every execution)."},
    {EnvVar::kInspectDeviceProfileNumWarmup, "NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP",
     EnvType::kInt, "0",
     "In model mode: executions of each model to skip before the one profiled (>= 0)."},
    {EnvVar::kInspectSysTraceMaxEventsPerNc, "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC",
     EnvType::kInt, "1000000",
     "Ring size of the inspect system trace per logical core (>= 0); a full ring drops its "
     "oldest event."},
    {EnvVar::kInspectEventFilterNc, "NEURON_RT_INSPECT_EVENT_FILTER_NC", EnvType::kString, "",
     "Logical cores (process-relative) whose system-trace events are captured: '0', '0,2,4', "
     "'0-3' or a mix. Unset: all."},
    {EnvVar::kInspectEventFilterType, "NEURON_RT_INSPECT_EVENT_FILTER_TYPE", EnvType::kString, "",
     "System-trace event types captured, comma-separated: event names (nrt_execute, ...), "
     "'hardware', 'software'; '^name' excludes. Only exclusions: all but those. Unset: all."},
    {EnvVar::kInspectOnFail, "NEURON_RT_INSPECT_ON_FAIL", EnvType::kBool, "false",
     "With NEURON_RT_INSPECT_ENABLE (or nrt_inspect_begin): also write the device profile of "
     "every execution that fails, beside the selected ones."},
    {EnvVar::kRootCommId, "NEURON_RT_ROOT_COMM_ID", EnvType::kString, "",
     "host:port of rank 0 of a collective job (torchrun's MASTER_ADDR:port). Required by "
     "nrt_load_collectives, nrt_build_global_comm, nrt_barrier and nrt_all_gather. trnsim: the "
     "ranks that give the same value meet in the emulated instance's collective hub (in this "
     "process, or in the TRNSIM_DAEMON every rank uses); nothing listens on the port."},
    {EnvVar::kAsyncSendRecvEnabled, "NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED", EnvType::kBool,
     "false",
     "Enables the experimental async send/recv API (nrt_async_sendrecv_*); without it "
     "nrt_async_sendrecv_init fails with NRT_FAILURE. trnsim: peers are logical cores of the "
     "emulated instance (this process, or the TRNSIM_DAEMON's other clients)."},
    {EnvVar::kAsyncSendRecvBootstrapPort, "NEURON_RT_ASYNC_SENDRECV_BOOTSTRAP_PORT", EnvType::kInt,
     "",
     "TCP port async send/recv peers bootstrap their connections on (1..65535). trnsim: "
     "checked at nrt_init, otherwise unused: peers meet in the emulated instance and nothing "
     "listens on the port."},
    {EnvVar::kNumericalErrorsVerbosity, "NEURON_RT_NUMERICAL_ERRORS_VERBOSITY", EnvType::kString,
     "none",
     "critical: an execution whose floating-point outputs hold NaN or Inf returns "
     "NRT_EXEC_COMPLETED_WITH_NUM_ERR (1003) naming the output (outputs are still written); "
     "none: no check (AWS's default since runtime 2.25). Other values: nrt_init fails with "
     "NRT_INVALID."},
    {EnvVar::kFailOnNan, "NEURON_FAIL_ON_NAN", EnvType::kBool, "false",
     "true/1: the same as NEURON_RT_NUMERICAL_ERRORS_VERBOSITY=critical."},
    {EnvVar::kAsyncExecMaxInflight, "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", EnvType::kInt,
     "0",
     "Implicit async mode (AWS runtime 2.15-2.33): above 0, nrt_execute queues the execution and "
     "returns at once, with at most this many in flight per logical core (capped at 63); "
     "completions go to nrt_register_async_exec_callback's callback. 0: nrt_execute blocks."},
    {EnvVar::kFaults, "TRNSIM_FAULTS", EnvType::kString, "",
     "Fault injection: '<kind>[:<key>=<value>,...][;...]' makes chosen executions fail as the "
     "hardware does (hbm_ue, nc_ue, dma_abort, timeout, hang, corrupt, load_oom, ...), the same "
     "faults every run; docs/faults.md. Malformed: nrt_init fails with NRT_INVALID."},
    {EnvVar::kDebugStreamBufferSize, "NEURON_RT_DEBUG_STREAM_BUFFER_SIZE", EnvType::kInt, "65536",
     "Events each logical core's debug stream (nrt_debug_client_*) holds unconsumed; an event "
     "arriving when it is full is dropped (one WARN line per execution). 1 to 16777216 (trnsim "
     "accepts any count, not only powers of two); other values: nrt_init fails with "
     "NRT_INVALID. docs/debug-stream.md."},
    {EnvVar::kDebugOutputDir, "NEURON_RT_DEBUG_OUTPUT_DIR", EnvType::kString, "",
     "Turns on the runtime's own debug-stream consumer: every device print (nki.language."
     "device_print, the debug_print instruction) is written to "
     "<dir>/<prefix>/core_<vnc>/<iteration>/ (tensor.npy, info.json) before nrt_execute returns, "
     "and nrt_debug_client_connect returns NRT_INVALID. docs/debug-stream.md."},
    {EnvVar::kListenPid, "LISTEN_PID", EnvType::kInt, "",
     "neurond only (systemd socket activation, sd_listen_fds(3)): the pid the passed sockets "
     "are meant for; when it is neurond's, neurond serves the socket at fd 3."},
    {EnvVar::kListenFds, "LISTEN_FDS", EnvType::kInt, "",
     "neurond only (systemd socket activation): how many sockets systemd passed from fd 3 on; "
     "neurond takes exactly one listening stream socket (unix or TCP)."},
    {EnvVar::kHostThreads, "TRNSIM_HOST_THREADS", EnvType::kBool, "true",
     "trnsim only: simulate the physical cores of one execution (both cores of an LNC=2 logical "
     "core) on host threads of their own when the host has more than one hardware thread. "
     "Outputs, simulated times, statistics, traces and errors are identical either way; false: "
     "one host thread per execution (docs/decisions.md, \"Parallel simulation on the host\")."},
};
static_assert(std::size(kTable) == static_cast<size_t>(EnvVar::kCount),
              "every EnvVar needs exactly one row");

bool TableIsOrdered() {
  for (size_t i = 0; i < std::size(kTable); ++i) {
    if (static_cast<size_t>(kTable[i].id) != i) return false;
  }
  return true;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

}  // namespace

std::span<const EnvVarInfo> EnvTable() {
  static const bool ordered = TableIsOrdered();
  if (!ordered) {
    std::fprintf(stderr, "trnsim: environment table rows are out of EnvVar order\n");
    std::abort();
  }
  return kTable;
}

const EnvVarInfo& EnvInfo(EnvVar var) { return EnvTable()[static_cast<size_t>(var)]; }

Environment Environment::FromProcess() {
  Environment env;
  for (const EnvVarInfo& info : EnvTable()) {
    if (const char* value = std::getenv(info.name)) {
      env.values_[static_cast<int>(info.id)] = value;
    }
  }
  return env;
}

Environment Environment::FromMap(const std::map<std::string, std::string>& values) {
  Environment env;
  for (const EnvVarInfo& info : EnvTable()) {
    auto it = values.find(info.name);
    if (it != values.end()) env.values_[static_cast<int>(info.id)] = it->second;
  }
  return env;
}

std::optional<std::string_view> Environment::Raw(EnvVar var) const {
  const auto& value = values_[static_cast<int>(var)];
  if (!value) return std::nullopt;
  return std::string_view(*value);
}

std::string_view Environment::Get(EnvVar var) const {
  const auto& value = values_[static_cast<int>(var)];
  if (value && !value->empty()) return *value;
  return EnvInfo(var).default_value;
}

StatusOr<int64_t> Environment::GetInt(EnvVar var) const {
  std::string_view text = Get(var);
  int64_t parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return InvalidError(std::string(EnvInfo(var).name) + "='" + std::string(text) +
                        "' is not an integer");
  }
  return parsed;
}

StatusOr<bool> Environment::GetBool(EnvVar var) const {
  std::string value = Upper(Get(var));
  if (value == "1" || value == "TRUE" || value == "YES" || value == "ON") return true;
  if (value.empty() || value == "0" || value == "FALSE" || value == "NO" || value == "OFF") {
    return false;
  }
  return InvalidError(std::string(EnvInfo(var).name) + "='" + value + "' is not a boolean");
}

}  // namespace trnsim
