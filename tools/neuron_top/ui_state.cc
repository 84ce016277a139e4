#include "tools/neuron_top/ui_state.h"

#include <algorithm>
#include <vector>

#include "tools/neuron_top/memory_tree.h"

namespace trnsim::neuron_top {
namespace {

// Index of the selected row in `rows` (0 when the selection is not visible).
size_t SelectedRow(const std::vector<TreeRow>& rows, const std::string& key) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].node->key == key) return i;
  }
  return 0;
}

void MoveTab(const std::vector<Tab>& tabs, size_t current, int step, UiState* state) {
  const int n = static_cast<int>(tabs.size());
  const int next = std::clamp(static_cast<int>(current) + step, 0, n - 1);
  state->tab_session_id = tabs[next].session_id;
  state->selected_key.clear();
}

}  // namespace

uint64_t CurrentTab(const UiState& state, const observe::InstanceView& view) {
  for (const Tab& tab : TabsOf(view)) {
    if (tab.session_id == state.tab_session_id) return tab.session_id;
  }
  return kAllProcesses;
}

void ApplyKey(int key, const observe::InstanceView& view, UiState* state) {
  const std::vector<Tab> tabs = TabsOf(view);
  const uint64_t tab = CurrentTab(*state, view);
  size_t tab_index = 0;
  for (size_t i = 0; i < tabs.size(); ++i) {
    if (tabs[i].session_id == tab) tab_index = i;
  }
  const std::vector<MemoryNode> tree = BuildMemoryTree(view, tab);
  const std::vector<TreeRow> rows = VisibleRows(tree, state->expanded);
  const size_t selected = SelectedRow(rows, state->selected_key);
  switch (key) {
    case 'q':
    case 'Q':
      state->quit = true;
      return;
    case 'f':
    case 'F':
      state->tflops = !state->tflops;
      return;
    case 'a':
    case 'A':
      MoveTab(tabs, tab_index, -1, state);
      return;
    case 'd':
    case 'D':
      MoveTab(tabs, tab_index, +1, state);
      return;
    case 'x':
    case 'X': {
      const std::vector<std::string> keys = ExpandableKeys(tree);
      const bool all_open = std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
        return state->expanded.count(k) > 0;
      });
      if (all_open) {
        for (const std::string& k : keys) state->expanded.erase(k);
      } else {
        state->expanded.insert(keys.begin(), keys.end());
      }
      return;
    }
    default:
      break;
  }
  if (key >= '1' && key <= '9') {
    const size_t wanted = static_cast<size_t>(key - '1');
    if (wanted < tabs.size()) {
      state->tab_session_id = tabs[wanted].session_id;
      state->selected_key.clear();
    }
    return;
  }
  if (rows.empty()) return;
  const TreeRow& row = rows[selected];
  switch (key) {
    case kKeyUp:
      state->selected_key = rows[selected == 0 ? 0 : selected - 1].node->key;
      break;
    case kKeyDown:
      state->selected_key = rows[std::min(selected + 1, rows.size() - 1)].node->key;
      break;
    case kKeyEnter:
      if (row.node->children.empty()) break;
      if (row.expanded) {
        state->expanded.erase(row.node->key);
      } else {
        state->expanded.insert(row.node->key);
      }
      state->selected_key = row.node->key;
      break;
    case kKeyLeft:
      state->expanded.erase(row.node->key);
      state->selected_key = row.node->key;
      break;
    case kKeyRight:
      if (!row.node->children.empty()) state->expanded.insert(row.node->key);
      state->selected_key = row.node->key;
      break;
    default:
      break;
  }
}

}  // namespace trnsim::neuron_top
