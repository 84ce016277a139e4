// neuron-monitor: prints one JSON report of the emulated instance per period on stdout, in
// AWS's format (tools-driver-facts.md §3; report.h says what each group holds on trnsim).
//
//   neuron-monitor [-c|--config-file PATH] [--verbose N]
//                  [--prometheus-port PORT [--prometheus-address ADDR]]
//
// Without a file every group is collected every 5 s. Each loop sleeps until a group is due,
// takes a snapshot (tools/observe), updates the due groups of the last report and prints the
// whole report as one line. Several neuron_runtimes entries are merged: their metrics are
// collected for the processes any of their tag filters matches.
// Exit status: 0 when stdout closes (e.g. `neuron-monitor | head -n 2`); 1 with one line on
// stderr when the instance cannot be observed or the config file is bad; 2 for a bad command
// line. --verbose 1..4 logs each collection's errors on stderr; 0 (default) prints nothing.
//
// With --prometheus-port the reports are also served as Prometheus metrics on
// http://ADDR:PORT/metrics (ADDR default 0.0.0.0, PORT 0: one the system picks), named as AWS's
// neuron-monitor-prometheus.py names them (prometheus_converter.h, metrics_server.h); stderr
// gets one line "neuron-monitor: serving Prometheus metrics on http://HOST:PORT/metrics" once
// it listens, and a port that cannot be bound is exit status 1 with one line. The JSON reports
// still go to stdout.
#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>

#include "common/env.h"
#include "common/version.h"
#include "tools/cli/version_text.h"
#include "tools/neuron_monitor/metrics_server.h"
#include "tools/neuron_monitor/monitor_config.h"
#include "tools/neuron_monitor/prometheus_converter.h"
#include "tools/neuron_monitor/report.h"
#include "tools/observe/observe.h"

namespace {

namespace nm = trnsim::neuron_monitor;
using Clock = std::chrono::steady_clock;

int Fail(const std::string& message) {
  std::fprintf(stderr, "neuron-monitor: %s\n", message.c_str());
  return 1;
}

struct Group {
  std::string type;
  bool runtime = false;
  std::chrono::milliseconds period;
  Clock::time_point due;
};

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int Run(int argc, char** argv) {
  CLI::App app{"neuron-monitor: JSON reports of the emulated instance, one per period"};
  std::string config_file;
  int verbose = 0;
  app.add_option("-c,--config-file", config_file, "AWS's JSON configuration file");
  app.add_option("--verbose", verbose, "log level on stderr, 0 (nothing) to 4")
      ->check(CLI::Range(0, 4));
  int prometheus_port = -1;
  std::string prometheus_address = "0.0.0.0";
  CLI::Option* port_option =
      app.add_option("--prometheus-port", prometheus_port,
                     "also serve Prometheus metrics on this port (0: any free port)")
          ->check(CLI::Range(0, 65535));
  app.add_option("--prometheus-address", prometheus_address,
                 "address the Prometheus endpoint listens on (default 0.0.0.0)")
      ->needs(port_option);
  app.set_version_flag("--version",
                       trnsim::cli::VersionText("neuron-monitor", trnsim::TrnsimVersion(),
                                                trnsim::TrnsimGitHash()),
                       "print the trnsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  trnsim::StatusOr<nm::MonitorConfig> config =
      config_file.empty() ? nm::DefaultConfig() : nm::ReadConfigFile(config_file);
  if (!config.ok()) return Fail(config.status().message());

  std::vector<Group> groups;
  std::string filter;
  const Clock::time_point start = Clock::now();
  for (const nm::RuntimeFilter& runtime : config->runtimes) {
    filter += (filter.empty() ? "(" : "|(") + runtime.tag_filter + ")";
    for (const nm::MetricConfig& metric : runtime.metrics) {
      groups.push_back({metric.type, true, metric.period, start});
    }
  }
  for (const nm::MetricConfig& metric : config->system_metrics) {
    groups.push_back({metric.type, false, metric.period, start});
  }
  if (filter.empty()) filter = "$^";  // no runtime entries: match no process

  std::signal(SIGPIPE, SIG_IGN);  // a closed stdout ends the loop through a failed write
  std::unique_ptr<nm::MetricsServer> server;
  nm::PrometheusConverter converter;
  if (prometheus_port >= 0) {
    trnsim::StatusOr<std::unique_ptr<nm::MetricsServer>> started =
        nm::MetricsServer::Start(prometheus_address, prometheus_port);
    if (!started.ok()) return Fail(started.status().message());
    server = std::move(*started);
    std::fprintf(stderr, "neuron-monitor: serving Prometheus metrics on http://%s/metrics\n",
                 server->endpoint().c_str());
  }
  const trnsim::Environment env = trnsim::Environment::FromProcess();
  nm::ReportBuilder builder;
  nlohmann::ordered_json report;
  report["neuron_runtime_data"] = nlohmann::ordered_json::array();
  report["system_data"] = nlohmann::ordered_json::object();
  for (;;) {
    const Clock::time_point now = Clock::now();
    std::set<std::string> due_runtime, due_system;
    Clock::time_point next = Clock::time_point::max();
    for (Group& group : groups) {
      if (group.due <= now) {
        (group.runtime ? due_runtime : due_system).insert(group.type);
        while (group.due <= now) group.due += group.period;
      }
      next = std::min(next, group.due);
    }
    trnsim::StatusOr<trnsim::observe::InstanceView> view = trnsim::observe::ObserveInstance(env);
    if (!view.ok()) return Fail(view.status().message());
    builder.Collect(*view, due_runtime, filter, due_system, now, &report);
    if (server) {
      for (const std::string& message :
           converter.Apply(nm::CollectedGroups(report, due_runtime, due_system), UnixSeconds())) {
        if (verbose > 0) std::fprintf(stderr, "neuron-monitor: %s\n", message.c_str());
      }
      server->Publish(nm::FormatPrometheusText(converter.families()));
    }
    const std::string line = report.dump() + "\n";
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() ||
        std::fflush(stdout) != 0) {
      if (verbose > 0) std::fprintf(stderr, "neuron-monitor: stdout closed, exiting\n");
      return 0;
    }
    if (next == Clock::time_point::max()) {
      std::this_thread::sleep_for(config->period);  // nothing configured: still report
    } else {
      std::this_thread::sleep_until(next);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}
