// neuron-ls: lists the Neuron devices of the emulated instance — AWS's neuron-ls
// (tools-driver-facts.md §1; docs/tools.md) over an observe::InstanceView.
//
//   neuron-ls [-w|--wide] [-a|--show-all-procs] [-t|--topology] [-j|--json-output]
//
// The instance is the daemon's when TRNSIM_DAEMON is set (processes: its sessions), else the
// configured one with no processes (tools/observe/observe.h). One option decides the output:
// -j over -t over -a over -w; -a with -w widens COMMAND to 80 characters.
// Exit status: 0; 1 with one line on stderr when the instance cannot be observed (an
// unreachable daemon, a malformed setting); 2 for a bad command line (CLI11's message).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "common/env.h"
#include "common/version.h"
#include "tools/cli/version_text.h"
#include "tools/neuron_ls/json_listing.h"
#include "tools/neuron_ls/listing.h"
#include "tools/neuron_ls/topology.h"
#include "tools/observe/observe.h"

namespace {

namespace ls = trnsim::neuron_ls;

int Fail(const std::string& message) {
  std::fprintf(stderr, "neuron-ls: %s\n", message.c_str());
  return 1;
}

int Run(int argc, char** argv) {
  CLI::App app{"neuron-ls: list the Neuron devices of the emulated instance"};
  bool wide = false, all = false, topology = false, json = false;
  app.add_flag("-w,--wide", wide, "wider table: PID, COMMAND, RUNTIME VERSION per device");
  app.add_flag("-a,--show-all-procs", all,
               "list every process, including non-runtime ones such as neuron-ls itself");
  app.add_flag("-t,--topology", topology, "short table and the device topology drawing");
  app.add_flag("-j,--json-output", json, "output in JSON format");
  app.set_version_flag("--version",
                       trnsim::cli::VersionText("neuron-ls", trnsim::TrnsimVersion(),
                                                trnsim::TrnsimGitHash()),
                       "print the trnsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 prints the message (or the help); a bad command line is exit status 2.
    return app.exit(error) == 0 ? 0 : 2;
  }

  trnsim::StatusOr<trnsim::observe::InstanceView> view =
      trnsim::observe::ObserveInstance(trnsim::Environment::FromProcess());
  if (!view.ok()) return Fail(view.status().message());

  std::string out;
  if (json) {
    out = ls::JsonListing(*view, all);
  } else {
    ls::ListingOptions options;
    options.wide = wide;
    options.table = topology ? ls::TableKind::kTopology
                    : all    ? ls::TableKind::kAllProcesses
                    : wide   ? ls::TableKind::kWide
                             : ls::TableKind::kDefault;
    out = ls::HeaderLines(*view) + ls::DeviceTable(*view, options);
    if (topology) {
      trnsim::StatusOr<const trnsim::simulator::InstanceSpec*> spec =
          trnsim::simulator::FindInstanceSpec(view->instance_type);
      if (!spec.ok()) return Fail(spec.status().message());
      out += ls::TopologyDrawing(**spec);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : Fail("cannot write the listing");
}

}  // namespace

int main(int argc, char** argv) {
  // Errors are values; this only turns an unexpected exception (out of memory) into one line.
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}
