// neuron-top's screen as data: from the last two samples, the UI state and the terminal's size,
// the lines to draw, each a list of styled spans (the terminal layer maps styles to colours).
// Layout, top to bottom (AWS's, tools-driver-facts.md §2; docs/tools.md "neuron-top"):
//   title bar   "neuron-top <trnsim version> running on <instance id> (<instance type>)"
//   NeuronCore <v3|v3d> Utilization (Avg: x%) | ... TFLOPS (Avg: x) — one row per device
//               (ND0..), one column per logical core (NC0..), each a bar and "[ 56.81%]"
//   vCPU Utilization — System and Runtime vCPU Usage, "[ user%, system%]"
//   Memory Usage Summary — Host Used Memory (always 0.0B) and Device Used Memory by category
//   Memory Usage Details — the tree (memory_tree.h), scrolled to keep the selection visible
//   tab bar "Neuron Apps >[1]:all< [2]:<pid>", the key legend, and a status line (the last
//   error, e.g. an unreachable daemon, else where the data comes from).
// Never more than `height` lines nor `width` characters a line: a small terminal gets the top
// of the screen and the three bottom lines while they fit (the tree first gives up its rows);
// below four lines, the title and the first bottom lines.
//
// Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

#include "tools/neuron_top/sample.h"
#include "tools/neuron_top/ui_state.h"

namespace trnsim::neuron_top {

enum class Style { kNormal, kTitle, kHeader, kBar, kSelectedTab, kSelectedRow, kError };

struct Span {
  std::string text;
  Style style = Style::kNormal;
};

struct Line {
  std::vector<Span> spans;
  std::string Text() const;
};

struct Screen {
  std::vector<Line> lines;
  std::string Text() const;  // every line's text, each ending in '\n'
};

struct ScreenInput {
  const Sample* previous = nullptr;  // the sample before `current`; null: none yet
  const Sample* current = nullptr;   // null: no snapshot yet
  std::string version;               // trnsim's version, for the title
  std::string status;                // the status line; empty: a default
  bool status_is_error = false;
  int width = 80;
  int height = 24;
};

Screen Render(const ScreenInput& input, const UiState& state);

}  // namespace trnsim::neuron_top
