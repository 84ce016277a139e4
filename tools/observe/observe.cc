#include "tools/observe/observe.h"

#include "runtime/config.h"
#include "tools/observe/daemon_source.h"

namespace trnsim::observe {

StatusOr<InstanceView> ObserveInstance(const Environment& env) {
  if (env.Get(EnvVar::kDaemon).empty()) {
    TRNSIM_ASSIGN_OR_RETURN(runtime::RuntimeConfig config, runtime::ParseRuntimeConfig(env));
    return DescribeInstance(*config.instance, config.lnc);
  }
  driver::DeviceOptions connection;
  connection.address = std::string(env.Get(EnvVar::kDaemon));
  TRNSIM_ASSIGN_OR_RETURN(connection.token, runtime::DaemonToken(env));
  connection.tls_ca_file = std::string(env.Get(EnvVar::kTlsCa));
  connection.tls_server_name = std::string(env.Get(EnvVar::kTlsServerName));
  TRNSIM_ASSIGN_OR_RETURN(DaemonStatus status, ReadDaemonStatus(connection));
  // The runtime's rules with the daemon's instance standing in for an unset TRNSIM_INSTANCE.
  TRNSIM_ASSIGN_OR_RETURN(runtime::RuntimeConfig config,
                          runtime::ParseRuntimeConfig(env, status.instance));
  InstanceView view = DescribeInstance(*status.instance, config.lnc);
  view.daemon_address = connection.address;
  view.processes = std::move(status.processes);
  view.cores = std::move(status.cores);
  view.daemon_uptime_ms = status.uptime_ms;
  view.device_errors = std::move(status.device_errors);
  return view;
}

}  // namespace trnsim::observe
