// neuron-top: AWS's interactive view of the emulated instance's NeuronCores, vCPUs and memory
// (tools-driver-facts.md §2; docs/tools.md "neuron-top"), in a terminal with ncurses.
//
//   neuron-top [--refresh-period SECONDS]
//
// The instance is the daemon's when TRNSIM_DAEMON is set — its processes get a tab each — else
// the configured one, with no processes (tools/observe/observe.h). A refresh thread
// (live_source.h) samples every period (1 s by default); the key loop redraws on every new
// sample, key or resize. An unreachable daemon shows its error in the status line and is retried
// every period; q still quits.
// Exit status: 0 on q; 1 with one line on stderr for a malformed setting or a refused token
// (checked once before the screen opens) or when stdin/stdout is not a usable terminal; 2 for a
// bad command line (CLI11's message).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/env.h"
#include "common/version.h"
#include "tools/cli/version_text.h"
#include "tools/neuron_top/live_source.h"
#include "tools/neuron_top/screen.h"
#include "tools/neuron_top/terminal.h"
#include "tools/neuron_top/ui_state.h"
#include "tools/observe/observe.h"

namespace {

namespace nt = trnsim::neuron_top;
using std::chrono::milliseconds;

constexpr milliseconds kKeyWait{100};        // how often the loop looks for a new sample
constexpr milliseconds kStopPatience{2000};  // for a sample in flight when q is pressed

int Fail(const std::string& message) {
  std::fprintf(stderr, "neuron-top: %s\n", message.c_str());
  return 1;
}

int Run(int argc, char** argv) {
  CLI::App app{"neuron-top: NeuronCore, vCPU and memory use of the emulated instance"};
  double period_s = 1.0;
  app.add_option("--refresh-period", period_s, "seconds between refreshes (default 1)")
      ->check(CLI::Range(0.1, 3600.0));
  app.set_version_flag("--version",
                       trnsim::cli::VersionText("neuron-top", trnsim::TrnsimVersion(),
                                                trnsim::TrnsimGitHash()),
                       "print the trnsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  const trnsim::Environment env = trnsim::Environment::FromProcess();
  // Settings that can never work (a malformed variable, a refused token) end here; a daemon
  // that does not answer yet is retried on screen.
  trnsim::StatusOr<trnsim::observe::InstanceView> first = trnsim::observe::ObserveInstance(env);
  if (!first.ok() && first.status().code() == trnsim::StatusCode::kInvalid) {
    return Fail(first.status().message());
  }
  trnsim::StatusOr<std::unique_ptr<nt::Terminal>> terminal = nt::Terminal::Open();
  if (!terminal.ok()) return Fail(terminal.status().message());
  const milliseconds period{static_cast<int64_t>(period_s * 1000.0)};
  // Owned by hand: when Stop() gives up, the process ends without destroying it (live_source.h).
  auto* source = new nt::LiveSource(env, period);

  nt::UiState state;
  const trnsim::observe::InstanceView no_view;
  uint64_t drawn = 0;
  bool dirty = true;
  while (!state.quit) {
    const nt::LiveSource::Latest latest = source->Get();
    if (dirty || latest.generation != drawn) {
      nt::ScreenInput input;
      input.previous = latest.previous.get();
      input.current = latest.current.get();
      input.version = trnsim::TrnsimVersion();
      input.width = (*terminal)->Width();
      input.height = (*terminal)->Height();
      if (!latest.error.empty()) {
        char retry[64];  // first: a long error is cut at the terminal's width
        std::snprintf(retry, sizeof(retry), "retrying every %g s: ", period_s);
        input.status = retry + latest.error;
        input.status_is_error = true;
      } else if (latest.current == nullptr) {
        input.status = "taking the first snapshot...";
      }
      (*terminal)->Draw(nt::Render(input, state));
      drawn = latest.generation;
      dirty = false;
    }
    const int key = (*terminal)->ReadKey(kKeyWait);
    if (key == nt::Terminal::kNoKey) continue;
    dirty = true;
    if (key == nt::Terminal::kResized) continue;
    nt::ApplyKey(key, latest.current != nullptr ? latest.current->view : no_view, &state);
  }
  terminal->reset();  // restores the terminal
  if (!source->Stop(kStopPatience)) {
    std::fflush(stdout);
    std::_Exit(0);  // a sample still waits on the daemon; its thread must outlive us
  }
  delete source;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}
