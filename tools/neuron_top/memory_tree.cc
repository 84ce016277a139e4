#include "tools/neuron_top/memory_tree.h"

#include <algorithm>
#include <map>
#include <utility>

#include "simulator/spec/instance_spec.h"
#include "tools/neuron_top/tabs.h"

namespace trnsim::neuron_top {
namespace {

int CategoryIndex(const std::string& sysfs_name) {
  if (sysfs_name == "tensors") return 0;
  if (sysfs_name == "constants") return 1;
  if (sysfs_name == "model_code") return 2;
  if (sysfs_name == "model_shared_scratchpad") return 4;
  return 3;  // runtime_memory and anything unknown
}

using Categories = std::array<uint64_t, kCategories>;

struct ModelBucket {
  std::string name;
  uint64_t model_id = 0;
  Categories bytes{};
};

struct NcBucket {
  std::map<std::pair<uint64_t, uint64_t>, ModelBucket> models;  // (session, model id)
  Categories loose{};                                           // memory of no model
  bool has_loose = false;
};

using Buckets = std::map<int, std::map<int, NcBucket>>;  // device -> local logical core -> NC

// The NC (device, local logical core) whose HBM stack serves `memory`.
std::pair<int, int> NcOfStack(const observe::InstanceView& view, const observe::ProcessMemory& m) {
  StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec(view.instance_type);
  const int per_stack = spec.ok() ? (*spec)->chip->CoresPerHbmStack() : 0;
  return {m.device, m.hbm * per_stack / std::max(view.lnc, 1)};
}

MemoryNode CategoryNodes(const std::string& key, std::string label, const Categories& bytes) {
  MemoryNode node;
  node.key = key;
  node.label = std::move(label);
  for (int c = 0; c < kCategories; ++c) {
    MemoryNode leaf;
    leaf.key = key + "/" + kCategoryNames[c];
    leaf.label = kCategoryNames[c];
    leaf.device_bytes = bytes[c];
    node.device_bytes += bytes[c];
    node.children.push_back(std::move(leaf));
  }
  return node;
}

Buckets Collect(const observe::InstanceView& view, uint64_t session_id) {
  Buckets buckets;
  const int lnc = std::max(view.lnc, 1);
  const int per_device = std::max(view.physical_cores_per_device, 1);
  for (const observe::ProcessView& process : view.processes) {
    if (!InTab(process, session_id)) continue;
    for (int core : process.physical_cores) {
      (void)buckets[core / per_device][(core % per_device) / lnc];
    }
    for (const observe::ProcessMemory& memory : process.memory) {
      const observe::ModelView* model = nullptr;
      for (const observe::ModelView& m : process.models) {
        if (memory.model_id != 0 && m.model_id == memory.model_id && !m.physical_cores.empty()) {
          model = &m;
        }
      }
      const int category = CategoryIndex(memory.category);
      if (model == nullptr) {
        auto [device, nc] = NcOfStack(view, memory);
        NcBucket& bucket = buckets[device][nc];
        bucket.loose[category] += memory.bytes;
        bucket.has_loose = true;
        continue;
      }
      const int core = model->physical_cores.front();
      ModelBucket& bucket = buckets[core / per_device][(core % per_device) / lnc]
                                .models[{process.session_id, model->model_id}];
      bucket.name = model->name.empty() ? "model" : model->name;
      bucket.model_id = model->model_id;
      bucket.bytes[category] += memory.bytes;
    }
    // Loaded models without memory still show under their NC.
    for (const observe::ModelView& m : process.models) {
      if (m.physical_cores.empty()) continue;
      const int core = m.physical_cores.front();
      ModelBucket& bucket = buckets[core / per_device][(core % per_device) / lnc]
                                .models[{process.session_id, m.model_id}];
      bucket.name = m.name.empty() ? "model" : m.name;
      bucket.model_id = m.model_id;
    }
  }
  return buckets;
}

void AddKeys(const std::vector<MemoryNode>& nodes, std::vector<std::string>* keys) {
  for (const MemoryNode& node : nodes) {
    if (node.children.empty()) continue;
    keys->push_back(node.key);
    AddKeys(node.children, keys);
  }
}

void AddRows(const std::vector<MemoryNode>& nodes, int depth, const std::set<std::string>& expanded,
             std::vector<TreeRow>* rows) {
  for (const MemoryNode& node : nodes) {
    const bool open = !node.children.empty() && expanded.count(node.key) > 0;
    rows->push_back({&node, depth, open});
    if (open) AddRows(node.children, depth + 1, expanded, rows);
  }
}

}  // namespace

DeviceMemoryTotals SumDeviceMemory(const observe::InstanceView& view, uint64_t session_id) {
  DeviceMemoryTotals totals;
  for (const observe::ProcessView& process : view.processes) {
    if (!InTab(process, session_id)) continue;
    for (const observe::ProcessMemory& memory : process.memory) {
      totals.category_bytes[CategoryIndex(memory.category)] += memory.bytes;
      totals.total_bytes += memory.bytes;
    }
  }
  return totals;
}

std::vector<MemoryNode> BuildMemoryTree(const observe::InstanceView& view, uint64_t session_id) {
  std::vector<MemoryNode> roots;
  for (const auto& [device, ncs] : Collect(view, session_id)) {
    MemoryNode nd;
    nd.key = "nd" + std::to_string(device);
    nd.label = "ND " + std::to_string(device);
    for (const auto& [nc_index, bucket] : ncs) {
      MemoryNode nc;
      nc.key = nd.key + "/nc" + std::to_string(nc_index);
      nc.label = "NC " + std::to_string(nc_index);
      for (const auto& [id, model] : bucket.models) {
        MemoryNode node = CategoryNodes(
            nc.key + "/s" + std::to_string(id.first) + "m" + std::to_string(id.second), model.name,
            model.bytes);
        node.model_id = std::to_string(model.model_id);
        nc.device_bytes += node.device_bytes;
        nc.children.push_back(std::move(node));
      }
      if (bucket.has_loose) {
        MemoryNode loose = CategoryNodes(nc.key, "", bucket.loose);
        for (MemoryNode& leaf : loose.children) nc.children.push_back(std::move(leaf));
        nc.device_bytes += loose.device_bytes;
      }
      nd.device_bytes += nc.device_bytes;
      nd.children.push_back(std::move(nc));
    }
    roots.push_back(std::move(nd));
  }
  return roots;
}

std::vector<TreeRow> VisibleRows(const std::vector<MemoryNode>& roots,
                                 const std::set<std::string>& expanded) {
  std::vector<TreeRow> rows;
  AddRows(roots, 0, expanded, &rows);
  return rows;
}

std::vector<std::string> ExpandableKeys(const std::vector<MemoryNode>& roots) {
  std::vector<std::string> keys;
  AddKeys(roots, &keys);
  return keys;
}

}  // namespace trnsim::neuron_top
