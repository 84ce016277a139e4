// The memory panels' data for one tab: the device memory totals by category (Memory Usage
// Summary) and the Memory Usage Details tree, ND -> NC -> model -> category (docs/tools.md,
// "neuron-top").
//  - Categories are AWS's five device ones, from the driver's sysfs names of
//    observe::ProcessMemory (an unknown name counts as Runtime Memory).
//  - Memory allocated for a model (ProcessMemory::model_id) sits under that model on the NC
//    holding the model's first core; memory of no model (model_id 0, or a model the process no
//    longer lists) sits directly under the NC whose HBM stack holds it (its first core), as
//    category rows after the models.
//  - A device or NC appears when the tab's processes hold memory or a core on it; a model
//    appears under its NC with all five categories. Each parent's bytes are the sum of its
//    children's. Host memory is 0: trnsim cannot see a client's host memory.
// Expand state is a set of node keys, stable across refreshes ("nd0", "nd0/nc1",
// "nd0/nc1/s5m3"; a category row is its parent's key and "/<category>").
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tools/observe/instance_view.h"

namespace trnsim::neuron_top {

inline constexpr int kCategories = 5;
inline constexpr std::array<const char*, kCategories> kCategoryNames = {
    "Tensors", "Constants", "Model Code", "Runtime Memory", "Model Scratchpad"};

struct DeviceMemoryTotals {
  uint64_t total_bytes = 0;
  std::array<uint64_t, kCategories> category_bytes{};  // kCategoryNames order
};

struct MemoryNode {
  std::string key;
  std::string label;     // "ND 0", "NC 1", the model's name, a category name
  std::string model_id;  // model nodes only
  uint64_t device_bytes = 0;
  uint64_t host_bytes = 0;
  std::vector<MemoryNode> children;
};

// One visible line of the tree: its node, depth (0 for ND) and whether it is expanded.
struct TreeRow {
  const MemoryNode* node = nullptr;
  int depth = 0;
  bool expanded = false;
};

DeviceMemoryTotals SumDeviceMemory(const observe::InstanceView& view, uint64_t session_id);
std::vector<MemoryNode> BuildMemoryTree(const observe::InstanceView& view, uint64_t session_id);
// The rows a reader sees: every root, and the children of each expanded visible node.
std::vector<TreeRow> VisibleRows(const std::vector<MemoryNode>& roots,
                                 const std::set<std::string>& expanded);
// Keys of every node with children, depth first.
std::vector<std::string> ExpandableKeys(const std::vector<MemoryNode>& roots);

}  // namespace trnsim::neuron_top
