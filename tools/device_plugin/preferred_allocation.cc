#include "tools/device_plugin/preferred_allocation.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

namespace trnsim::device_plugin {
namespace {

// The index of every ID in the resource's list (a core's logical id, a device's index).
StatusOr<std::set<int>> Indices(const Inventory& inventory, Resource resource,
                                const std::vector<std::string>& ids, const char* field) {
  std::set<int> indices;
  for (const std::string& id : ids) {
    const PluginDevice* device = inventory.Find(resource, id);
    if (device == nullptr) {
      return InvalidError(std::string(field) + ": '" + id + "' is not a " + ResourceName(resource) +
                          " device of this " + inventory.instance_type());
    }
    const int index = IsDeviceResource(resource) ? device->device : device->logical_cores[0];
    if (!indices.insert(index).second) {
      return InvalidError(std::string(field) + ": '" + id + "' is listed twice");
    }
  }
  return indices;
}

std::set<int> PreferCores(const std::set<int>& available, const std::set<int>& must, int size,
                          int cores_per_device) {
  // A run [s, s + size) of available cores containing every must_include core: the fewest
  // devices spanned, then the lowest start.
  std::tuple<int, int> best{1 << 30, 0};
  bool found = false;
  for (int s : available) {
    const int end = s + size;  // one past the last core
    bool whole = true;
    for (int c = s; c < end && whole; ++c) whole = available.count(c) > 0;
    if (!whole) continue;
    if (!must.empty() && (*must.begin() < s || *must.rbegin() >= end)) continue;
    const int devices =
        cores_per_device > 0 ? (end - 1) / cores_per_device - s / cores_per_device : 0;
    if (!found || std::make_tuple(devices, s) < best) best = {devices, s}, found = true;
  }
  std::set<int> chosen;
  if (found) {
    for (int c = std::get<1>(best); c < std::get<1>(best) + size; ++c) chosen.insert(c);
    return chosen;
  }
  chosen = must;
  if (chosen.empty()) {
    // The longest run of available cores (lowest first), as much of it as fits.
    int run_start = 0, run_length = 0;
    for (int s : available) {
      if (available.count(s - 1)) continue;
      int length = 1;
      while (available.count(s + length)) ++length;
      if (length > run_length) run_start = s, run_length = length;
    }
    for (int c = run_start; c < run_start + std::min(run_length, size); ++c) chosen.insert(c);
  }
  while (int(chosen.size()) < size) {
    int pick = -1, pick_distance = 1 << 30;
    for (int c : available) {
      if (chosen.count(c)) continue;
      int distance = 1 << 30;
      for (int k : chosen) distance = std::min(distance, std::abs(k - c));
      if (distance < pick_distance) pick = c, pick_distance = distance;
    }
    chosen.insert(pick);
  }
  return chosen;
}

int Links(const Inventory& inventory, const std::set<int>& devices) {
  int links = 0;
  for (int d : devices) {
    for (int peer : inventory.Connected(d)) links += devices.count(peer) ? 1 : 0;
  }
  return links;  // each link counted from both ends: only compared, never reported
}

std::set<int> PreferDevices(const Inventory& inventory, const std::set<int>& available,
                            const std::set<int>& must, int size) {
  std::vector<std::set<int>> starts;
  if (!must.empty()) {
    starts.push_back(must);
  } else {
    for (int d : available) starts.push_back({d});
  }
  std::set<int> best;
  int best_links = -1;
  for (std::set<int> chosen : starts) {
    while (int(chosen.size()) < size) {
      int pick = -1, pick_links = -1;
      for (int d : available) {
        if (chosen.count(d)) continue;
        int links = 0;
        for (int peer : inventory.Connected(d)) links += chosen.count(peer) ? 1 : 0;
        if (links > pick_links) pick = d, pick_links = links;
      }
      chosen.insert(pick);
    }
    const int links = Links(inventory, chosen);
    // std::set compares lexicographically: the lowest IDs win a tie.
    if (links > best_links || (links == best_links && chosen < best)) {
      best = chosen;
      best_links = links;
    }
  }
  return best;
}

}  // namespace

StatusOr<std::vector<std::string>> PreferAllocation(const Inventory& inventory, Resource resource,
                                                    const std::vector<std::string>& available,
                                                    const std::vector<std::string>& must_include,
                                                    int size) {
  TRNSIM_ASSIGN_OR_RETURN(std::set<int> free,
                          Indices(inventory, resource, available, "available_deviceIDs"));
  TRNSIM_ASSIGN_OR_RETURN(std::set<int> must,
                          Indices(inventory, resource, must_include, "must_include_deviceIDs"));
  for (size_t i = 0; i < must_include.size(); ++i) {
    const PluginDevice* device = inventory.Find(resource, must_include[i]);
    const int index = IsDeviceResource(resource) ? device->device : device->logical_cores[0];
    if (!free.count(index)) {
      return InvalidError("must_include_deviceIDs: '" + must_include[i] +
                          "' is not among the available IDs");
    }
  }
  if (size < 1 || size < int(must.size()) || size > int(free.size())) {
    return InvalidError("allocation_size " + std::to_string(size) + " is not between " +
                        std::to_string(std::max<size_t>(1, must.size())) + " (must_include) and " +
                        std::to_string(free.size()) + " (available)");
  }
  const std::set<int> chosen = IsDeviceResource(resource)
                                   ? PreferDevices(inventory, free, must, size)
                                   : PreferCores(free, must, size, inventory.cores_per_device());
  std::vector<std::string> ids;
  for (int index : chosen) ids.push_back(inventory.Devices(resource)[size_t(index)].id);
  return ids;
}

}  // namespace trnsim::device_plugin
