// RuntimeConfig: the runtime's configuration, parsed once from an Environment snapshot at
// nrt_init (the pre-init queries parse a fresh one). Rules follow AWS's runtime:
//  - LNC: NEURON_LOGICAL_NC_CONFIG, else NEURON_RT_VIRTUAL_CORE_SIZE, else the instance's
//    default (2 on trn2/trn3); only 1 or 2 are valid (NRT_INVALID otherwise).
//  - Visible cores: NEURON_RT_VISIBLE_CORES ("3", "2-5", "2-4,5"; logical, instance-wide,
//    contiguous and increasing) wins over NEURON_RT_NUM_CORES (count from core 0; 0 = all).
//    A malformed or non-contiguous list is NRT_INVALID; cores past the instance are
//    NRT_FAILURE ("Logical Neuron Core(s) not available"), as AWS reports them.
//  - Instance: TRNSIM_INSTANCE; with TRNSIM_DAEMON set and TRNSIM_INSTANCE unset (or empty),
//    the daemon's instance type, which the caller asks the daemon for and passes in.
//  - Faults: TRNSIM_FAULTS (driver/faults/fault_spec.h); malformed, or nc= not a visible
//    logical core, is NRT_INVALID naming the rule.
//  - Token (with TRNSIM_DAEMON only): DaemonToken below.
//  - Execution, async, debug-stream and inspect settings: the fields below say which variable
//    each comes from; a malformed or out-of-range value is NRT_INVALID naming the variable.
// Every variable the runtime reads at nrt_init is read here (the env table in common/ has the
// one getenv); BeginInspect() alone re-reads NEURON_RT_INSPECT_* when it is called.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/status_or.h"
#include "driver/faults/fault_spec.h"
#include "runtime/profiling/inspect_env.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::runtime {

// How to reach TRNSIM_DAEMON, which nrt_init needs before the rest of the configuration when
// the instance type comes from the daemon (InstanceComesFromDaemon).
struct DaemonConnection {
  std::string address;          // TRNSIM_DAEMON
  std::string token;            // DaemonToken
  std::string tls_ca_file;      // TRNSIM_TLS_CA
  std::string tls_server_name;  // TRNSIM_TLS_SERVER_NAME
};

struct RuntimeConfig {
  const simulator::InstanceSpec* instance = nullptr;
  int lnc = 2;                 // physical cores per logical core
  int total_vnc = 0;           // logical cores in the instance at this LNC
  int first_visible_vnc = 0;   // instance-wide index of this process's vnc 0
  int visible_vnc_count = 0;
  std::string backend = "sim";  // "remote" when TRNSIM_DAEMON is set
  DaemonConnection daemon;      // backend "remote" only
  std::string root_comm_id;     // NEURON_RT_ROOT_COMM_ID; empty: unset
  // TRNSIM_FAULTS with every nc= (a logical core of this process) turned into core= (its
  // first instance-wide physical core), as the device takes it (docs/faults.md).
  driver::faults::FaultSpec faults;

  bool validate_hash = false;        // NEURON_RT_VALIDATE_HASH: check a NEFF's payload hash
  int64_t exec_timeout_s = 600;      // NEURON_RT_EXEC_TIMEOUT (>= 0; 0: no limit)
  bool exec_report = false;          // TRNSIM_EXEC_REPORT
  bool host_threads = true;          // TRNSIM_HOST_THREADS
  bool stochastic_rounding = false;  // NEURON_RT_STOCHASTIC_ROUNDING_EN
  uint64_t rounding_seed = 0;        // NEURON_RT_STOCHASTIC_ROUNDING_SEED
  // NEURON_FAIL_ON_NAN, or NEURON_RT_NUMERICAL_ERRORS_VERBOSITY=critical (the other accepted
  // value is none, case-insensitive).
  bool check_numerics = false;
  bool send_recv_enabled = false;  // NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED
  // NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS (>= 0), capped at kMaxImplicitAsyncInflight
  // with a warning; 0: nrt_execute blocks.
  uint32_t implicit_async_depth = 0;
  uint64_t debug_stream_events = 65536;  // NEURON_RT_DEBUG_STREAM_BUFFER_SIZE (1..2^24)
  std::string debug_output_dir;          // NEURON_RT_DEBUG_OUTPUT_DIR; empty: unset
  profiling::InspectSettings inspect;    // NEURON_RT_INSPECT_* (inspect_env.h)
};

// AWS runtime 2.23+: the most executions nrt_execute keeps in flight per logical core.
inline constexpr int64_t kMaxImplicitAsyncInflight = 63;
inline constexpr int64_t kMaxDebugStreamEvents = int64_t{1} << 24;

// True when the instance type must come from the daemon: TRNSIM_DAEMON is set and
// TRNSIM_INSTANCE is unset or empty.
bool InstanceComesFromDaemon(const Environment& env);

// Errors: DaemonToken's. With TRNSIM_DAEMON unset, an empty address.
StatusOr<DaemonConnection> ParseDaemonConnection(const Environment& env);

// `daemon_instance` is the daemon's instance type; it is used only when
// InstanceComesFromDaemon(env), and must then be non-null (else NRT_INVALID).
StatusOr<RuntimeConfig> ParseRuntimeConfig(const Environment& env,
                                           const simulator::InstanceSpec* daemon_instance =
                                               nullptr);

// The token a client presents to TRNSIM_DAEMON: TRNSIM_TOKEN when set and non-empty, else the
// first line of the file TRNSIM_TOKEN_FILE names (common/token_file.h), else "" (a daemon
// started without --token-file). Read when called (nrt_init, and the tools' observe), never
// cached. A TRNSIM_TOKEN_FILE that cannot be read or is empty is NRT_INVALID naming the
// variable and the file.
StatusOr<std::string> DaemonToken(const Environment& env);

// Parses a NEURON_RT_VISIBLE_CORES value into its sorted core indices. NRT_INVALID when
// malformed, not increasing, or not contiguous.
StatusOr<std::vector<int>> ParseCoreList(std::string_view text);

}  // namespace trnsim::runtime
