// neuron-profile: capture and view trnsim device profiles (docs/profiling.md).
//
//   neuron-profile capture -n K.neff [-s profile.ntff] [-t profile|systrace] [--num-exec N]
//                          [--profile-nth-exec K]
//                          [--ignore-exec-errors] [--check-output-determinism]
//                          [--save-output] [--save-output-npy] [NAME FILE ...]
//   neuron-profile view -n K.neff -s profile.ntff
//                       --output-format summary-text|summary-json|json|perfetto
//                       [--output-file PATH]
//
// view writes to stdout, or to --output-file; perfetto defaults to ntff.pftrace.json next to
// the session file, as AWS's tool writes ntff.pftrace. With -n, view reads the NEFF: one built
// by the NKI front end carries kernel_debug_info.json, and every view then names the kernel
// source line of each instruction (source_map.h). Exit status 0 on success, 1 on an error
// (one line on stderr), 2 on a usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "tools/cli/libnrt_version_text.h"
#include "tools/neuron_profile/capture.h"
#include "tools/neuron_profile/profile.h"
#include "tools/neuron_profile/source_map.h"
#include "tools/neuron_profile/summary.h"
#include "tools/neuron_profile/system_trace.h"
#include "tools/neuron_profile/trace_views.h"

namespace {

using namespace trnsim::neuron_profile;

struct ViewArgs {
  std::string neff, session = "profile.ntff", format = "summary-text", output;
};

int Fail(const trnsim::Status& status) {
  std::fprintf(stderr, "neuron-profile: %s\n", status.ToString().c_str());
  return 1;
}

// Writes `text` to `output`, or to stdout when it is empty.
int Emit(const ViewArgs& args, const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return std::cout ? 0 : 1;
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Fail(trnsim::InvalidError("cannot write '" + output + "'"));
  if (args.format == "perfetto") std::fprintf(stderr, "neuron-profile: wrote %s\n", output.c_str());
  return 0;
}

// The text of `args.format` for the system trace in `text` (perfetto: also the default output
// file, beside the session).
int ViewSystemTrace(const ViewArgs& args, const std::string& text) {
  trnsim::StatusOr<SystemTrace> trace = ParseSystemTrace(args.session, text);
  if (!trace.ok()) return Fail(trace.status());
  std::string out, output = args.output;
  if (args.format == "summary-text") {
    out = SystemTraceSummaryText(*trace);
  } else if (args.format == "summary-json") {
    out = SystemTraceSummaryJson(*trace);
  } else if (args.format == "json") {
    out = text;  // the document as the runtime returned it
  } else {
    out = SystemTracePerfetto(*trace);
    if (output.empty())
      output = (std::filesystem::path(args.session).parent_path() / "ntrace.pftrace.json").string();
  }
  return Emit(args, out, output);
}

int View(const ViewArgs& args) {
  std::ifstream in(args.session, std::ios::binary);
  if (!in) return Fail(trnsim::InvalidError("cannot read '" + args.session + "'"));
  const std::string contents((std::istreambuf_iterator<char>(in)), {});
  if (IsSystemTrace(contents)) return ViewSystemTrace(args, contents);
  trnsim::StatusOr<ProfileDocument> profile = ParseProfile(args.session, contents);
  if (!profile.ok()) return Fail(profile.status());
  if (!args.neff.empty()) {  // an NKI kernel's NEFF maps instructions to its source lines
    trnsim::StatusOr<std::optional<KernelDebugInfo>> info =
        ReadKernelDebugInfo(args.neff, profile->engines);
    if (!info.ok()) return Fail(info.status());
    if (info->has_value()) {
      trnsim::Status st = AttachSources(**info, &*profile);
      if (!st.ok()) return Fail(st);
    }
  }
  std::string text, output = args.output;
  if (args.format == "summary-text") {
    text = SummaryText(*profile);
  } else if (args.format == "summary-json") {
    text = SummaryJson(*profile);
  } else if (args.format == "json") {
    text = LegacyJson(*profile);
  } else {
    text = PerfettoJson(*profile);
    if (output.empty())
      output = (std::filesystem::path(args.session).parent_path() / "ntff.pftrace.json").string();
  }
  return Emit(args, text, output);
}

int Run(int argc, char** argv) {
  CLI::App app{"neuron-profile: capture and view trnsim device profiles"};
  app.require_subcommand(1);
  app.set_version_flag("--version", trnsim::cli::LibnrtVersionText("neuron-profile"),
                       "print the trnsim version and exit");

  CaptureArgs capture;
  std::vector<std::string> pairs;
  CLI::App* cap = app.add_subcommand("capture", "Run a NEFF once and write its device profile");
  cap->add_option("-n,--neff", capture.neff, "the NEFF")->required();
  cap->add_option("-s,--session-file", capture.session, "the profile to write")
      ->capture_default_str();
  cap->add_option("--num-exec", capture.num_exec, "how many times to execute the NEFF")
      ->capture_default_str();
  cap->add_option("--profile-nth-exec", capture.profile_nth_exec,
                  "which execution (1-based) to profile")
      ->capture_default_str();
  std::string capture_type = "profile", exec_mode = "sync";
  cap->add_option("-t,--capture-type", capture_type,
                  "profile (device profile) or systrace (system trace of the run)")
      ->check(CLI::IsMember({"profile", "systrace"}))
      ->capture_default_str();
  cap->add_option("--exec-mode", exec_mode, "sync")->capture_default_str();
  cap->add_flag("--ignore-exec-errors", capture.ignore_exec_errors,
                "report failed executions and keep going");
  cap->add_flag("--check-output-determinism", capture.check_output_determinism,
                "fail when an execution's outputs differ from the first one's");
  cap->add_flag("--save-output", capture.save_output,
                "write the profiled execution's outputs as output_<name>.bin");
  cap->add_flag("--save-output-npy", capture.save_output_npy,
                "write the profiled execution's outputs as output_<name>.npy");
  cap->add_option("inputs", pairs,
                  "NAME FILE pairs: input tensors, raw or .npy (others are zeros)");

  ViewArgs view;
  CLI::App* vw = app.add_subcommand("view", "Show a device profile");
  vw->add_option("-n,--neff", view.neff,
                 "the NEFF that was profiled (an NKI kernel's maps instructions to source lines)");
  vw->add_option("-s,--session-file", view.session, "the profile")->capture_default_str();
  vw->add_option("--output-format", view.format, "what to produce")
      ->check(CLI::IsMember({"summary-text", "summary-json", "json", "perfetto"}))
      ->capture_default_str();
  vw->add_option("--output-file", view.output, "write here instead of stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (cap->parsed()) {
    if (exec_mode != "sync") {
      std::fprintf(stderr,
                   "neuron-profile: not implemented in trnsim yet: --exec-mode %s (only sync)\n",
                   exec_mode.c_str());
      return 1;
    }
    capture.system_trace = capture_type == "systrace";
    if (pairs.size() % 2 != 0) {
      std::fprintf(stderr, "neuron-profile: inputs come in NAME FILE pairs\n");
      return 2;
    }
    for (size_t i = 0; i < pairs.size(); i += 2) capture.inputs.push_back({pairs[i], pairs[i + 1]});
    trnsim::Status st = Capture(capture);
    if (!st.ok()) return Fail(st);
    std::fprintf(stderr, "neuron-profile: wrote %s\n", capture.session.c_str());
    return 0;
  }
  return View(view);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {  // e.g. std::bad_alloc on a huge profile
    std::fprintf(stderr, "neuron-profile: %s\n", e.what());
    return 1;
  }
}
