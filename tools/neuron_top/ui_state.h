// What the reader of neuron-top has chosen — the tab, the tree's expanded nodes and selection,
// utilisation or TFLOPS — and how each key changes it (AWS's legend, tools-driver-facts.md §2):
//   q quit; up/down move the tree selection (left/right collapse/expand it); Enter
//   expands/collapses the selected node; x expands every node, or collapses every node when all
//   are expanded; a/d previous/next tab; f (or F) utilisation <-> TFLOPS; 1-9 select that tab.
// Tabs and tree nodes are remembered by session id and key, so a refresh keeps them; a tab whose
// process has gone falls back to `all`, a selection whose node has gone to the first row.
// Unknown keys change nothing.
//
// Thread safety: pure functions over a caller-owned state.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "tools/neuron_top/tabs.h"
#include "tools/observe/instance_view.h"

namespace trnsim::neuron_top {

// Keys beyond characters, as the terminal layer translates them.
enum Key : int {
  kKeyUp = 0x10000,
  kKeyDown,
  kKeyLeft,
  kKeyRight,
  kKeyEnter,
};

struct UiState {
  uint64_t tab_session_id = kAllProcesses;
  std::set<std::string> expanded;  // memory tree node keys
  std::string selected_key;        // memory tree selection; empty: the first row
  bool tflops = false;
  bool quit = false;
};

// The tab shown: state->tab_session_id when that process still has a tab, else `all`.
uint64_t CurrentTab(const UiState& state, const observe::InstanceView& view);

// Applies `key` to `state`, with `view` the snapshot on screen.
void ApplyKey(int key, const observe::InstanceView& view, UiState* state);

}  // namespace trnsim::neuron_top
