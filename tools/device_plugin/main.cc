// trnsim-device-plugin: kubelet's device plugin (Device Plugin API v1beta1) for the node's
// emulated Trainium instance, served by one neurond (tools/device_plugin/README.md).
//
//   trnsim-device-plugin [--daemon ADDR] [--token-file F] [--kubelet-dir DIR]
//       [--container-daemon-address ADDR] [--daemon-socket-host-path PATH]
//       [--container-token-path PATH] [--poll-ms N] [--resources LIST]
//
// It waits for the daemon (retrying every --poll-ms), learns its instance type, advertises the
// instance's devices and cores at the LNC (NEURON_LOGICAL_NC_CONFIG, else the instance's
// default — as neuron-ls counts them), serves one endpoint per resource in --kubelet-dir and
// registers each with kubelet, again whenever kubelet restarts; it polls the daemon's health
// every --poll-ms. SIGTERM / SIGINT stop it: the endpoints' sockets are removed.
// Exit status: 0 after a signal; 1 with one line on stderr for a setting it cannot use (no
// daemon address, an unreadable token file, an unknown resource, an endpoint it cannot
// bind); 2 for a bad command line (CLI11's message).
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/env.h"
#include "common/log.h"
#include "common/token_file.h"
#include "common/version.h"
#include "runtime/config.h"
#include "tools/cli/version_text.h"
#include "tools/device_plugin/health_monitor.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/kubelet_agent.h"
#include "tools/device_plugin/plugin_server.h"
#include "tools/observe/daemon_source.h"

namespace {

using namespace trnsim;
using namespace trnsim::device_plugin;

// Defaults that are trnsim's choices, not AWS's (assumptions; README.md "Flags"):
constexpr char kDefaultKubeletDir[] = "/var/lib/kubelet/device-plugins";  // kubelet's own
constexpr char kDefaultContainerDaemon[] = "unix:/run/trnsim/neurond.sock";
constexpr char kDefaultContainerToken[] = "/run/trnsim/neurond.token";
constexpr int kDefaultPollMs = 1000;
// A Status read or a Register call that takes longer is a failure (assumption).
constexpr std::chrono::milliseconds kRpcDeadline{2000};

int Fail(const std::string& message) {
  std::fprintf(stderr, "trnsim-device-plugin: %s\n", message.c_str());
  return 1;
}

// The plugin logs at INFO (registrations, health changes) unless NEURON_RT_LOG_LEVEL says
// otherwise, as neurond does.
void ConfigurePluginLogging(const Environment& env) {
  if (env.Raw(EnvVar::kLogLevel).has_value()) return ConfigureLogging(env);
  std::map<std::string, std::string> values = {{"NEURON_RT_LOG_LEVEL", "INFO"}};
  if (auto location = env.Raw(EnvVar::kLogLocation)) {
    values["NEURON_RT_LOG_LOCATION"] = std::string(*location);
  }
  ConfigureLogging(Environment::FromMap(values));
}

// True when SIGTERM or SIGINT arrived within `wait`.
bool Signalled(const sigset_t& signals, std::chrono::milliseconds wait) {
  timespec timeout{static_cast<time_t>(wait.count() / 1000),
                   static_cast<long>(wait.count() % 1000) * 1'000'000};
  return sigtimedwait(&signals, nullptr, &timeout) > 0;
}

// The LNC the cores are counted at: the runtime's rules over the LNC variables, with the
// daemon's instance — what neuron-ls computes against the same daemon.
StatusOr<int> ResolveLnc(const Environment& env, const std::string& address,
                         const simulator::InstanceSpec* instance) {
  std::map<std::string, std::string> values = {{"TRNSIM_DAEMON", address}};
  for (EnvVar var : {EnvVar::kLogicalNcConfig, EnvVar::kVirtualCoreSize}) {
    if (auto value = env.Raw(var)) values[EnvInfo(var).name] = std::string(*value);
  }
  TRNSIM_ASSIGN_OR_RETURN(runtime::RuntimeConfig config,
                          runtime::ParseRuntimeConfig(Environment::FromMap(values), instance));
  return config.lnc;
}

int Run(int argc, char** argv) {
  const Environment env = Environment::FromProcess();
  CLI::App app{"trnsim-device-plugin: kubelet device plugin for the node's emulated instance"};
  driver::DeviceOptions connection;
  connection.address = std::string(env.Get(EnvVar::kDaemon));
  std::string token_file(env.Get(EnvVar::kTokenFile));
  std::string kubelet_dir = kDefaultKubeletDir;
  AllocationConfig allocation;
  allocation.container_daemon_address = kDefaultContainerDaemon;
  allocation.token_container_path = kDefaultContainerToken;
  std::string socket_host_path;
  int poll_ms = kDefaultPollMs;
  std::vector<std::string> resource_names;
  for (Resource resource : AllResources()) resource_names.push_back(ShortName(resource));

  app.add_option("--daemon", connection.address, "the node's neurond (default: TRNSIM_DAEMON)");
  app.add_option("--token-file", token_file,
                 "the daemon's token file: presented to it and mounted into containers "
                 "(default: TRNSIM_TOKEN_FILE)");
  app.add_option("--kubelet-dir", kubelet_dir, "kubelet's device-plugin directory")
      ->capture_default_str();
  app.add_option("--container-daemon-address", allocation.container_daemon_address,
                 "TRNSIM_DAEMON as containers see it")
      ->capture_default_str();
  app.add_option("--daemon-socket-host-path", socket_host_path,
                 "the daemon's socket on the host, mounted at the container address's path "
                 "(default: --daemon's path when it is unix:)");
  app.add_option("--container-token-path", allocation.token_container_path,
                 "where the token file appears in containers")
      ->capture_default_str();
  app.add_option("--poll-ms", poll_ms, "how often the daemon's health is read")
      ->check(CLI::Range(10, 600'000))
      ->capture_default_str();
  app.add_option("--resources", resource_names,
                 "resources to serve: neuron, neurondevice, neuroncore")
      ->delimiter(',')
      ->capture_default_str();
  app.set_version_flag("--version",
                       cli::VersionText("trnsim-device-plugin", TrnsimVersion(), TrnsimGitHash()),
                       "print the trnsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }

  ConfigurePluginLogging(env);
  std::vector<Resource> resources;
  for (const std::string& name : resource_names) {
    StatusOr<Resource> resource = ParseResource(name);
    if (!resource.ok()) return Fail(resource.status().message());
    if (std::find(resources.begin(), resources.end(), *resource) == resources.end()) {
      resources.push_back(*resource);
    }
  }
  if (connection.address.empty()) return Fail("no daemon: set --daemon or TRNSIM_DAEMON");
  if (!token_file.empty()) {
    StatusOr<std::string> token = ReadTokenFile(token_file);
    if (!token.ok()) return Fail(token.status().message());
    connection.token = *token;
    allocation.token_host_path = token_file;
  } else if (auto token = env.Raw(EnvVar::kToken)) {
    connection.token = std::string(*token);  // talk with it; nothing to mount
  }
  connection.tls_ca_file = std::string(env.Get(EnvVar::kTlsCa));
  connection.tls_server_name = std::string(env.Get(EnvVar::kTlsServerName));
  allocation.daemon_socket_host_path = socket_host_path;
  if (socket_host_path.empty() && connection.address.rfind("unix:", 0) == 0) {
    allocation.daemon_socket_host_path = connection.address.substr(5);
  }

  // Signals are taken synchronously (sigtimedwait) by this thread only.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const std::chrono::milliseconds poll(poll_ms);

  // The instance: wait for the daemon.
  StatusOr<observe::DaemonStatus> first = observe::ReadDaemonStatus(connection, kRpcDeadline);
  for (std::string last; !first.ok(); first = observe::ReadDaemonStatus(connection, kRpcDeadline)) {
    if (first.status().code() == StatusCode::kInvalid) return Fail(first.status().message());
    if (first.status().message() != last) {
      last = first.status().message();
      TRNSIM_LOG(Error, Tool) << "trnsim-device-plugin: " << last << " (waiting for it)";
    }
    if (Signalled(signals, poll)) return 0;
  }
  StatusOr<int> lnc = ResolveLnc(env, connection.address, first->instance);
  if (!lnc.ok()) return Fail(lnc.status().message());
  const Inventory inventory(observe::DescribeInstance(*first->instance, *lnc));
  TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: " << connection.address << " emulates "
                         << inventory.instance_type() << ": " << inventory.device_count()
                         << " devices, " << inventory.Devices(Resource::kNeuronCore).size()
                         << " logical cores at LNC=" << inventory.lnc();

  HealthMonitor monitor(
      HealthTracker(inventory.instance_type(), inventory.device_count()),
      [connection] { return observe::ReadDaemonStatus(connection, kRpcDeadline); }, poll);
  monitor.Start();
  std::vector<std::unique_ptr<PluginServer>> servers;
  for (Resource resource : resources) {
    servers.push_back(
        std::make_unique<PluginServer>(kubelet_dir, resource, inventory, monitor, allocation));
    if (Status started = servers.back()->Start(); !started.ok()) return Fail(started.message());
  }
  KubeletAgent agent(kubelet_dir, &servers, kRpcDeadline);
  do {
    agent.Tick();
  } while (!Signalled(signals, poll));
  TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: stopping";
  monitor.Stop();  // ends the streams first, so the servers shut down promptly
  servers.clear();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {
    // Nothing here throws by design; a library that does must not end the process silently.
    return Fail(std::string("unexpected error: ") + error.what());
  }
}
