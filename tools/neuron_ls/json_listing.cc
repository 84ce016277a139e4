#include "tools/neuron_ls/json_listing.h"

#include <nlohmann/json.hpp>

#include "tools/neuron_ls/listing.h"

namespace trnsim::neuron_ls {

std::string JsonListing(const observe::InstanceView& view, bool all) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const observe::DeviceView& device : view.devices) {
    nlohmann::ordered_json processes = nlohmann::ordered_json::array();
    for (const observe::ProcessView* process : ProcessesOnDevice(view, device.index, all)) {
      processes.push_back({
          {"pid", process->pid},
          {"command", TruncatedCommand(process->command, 40)},
          {"neuron_runtime_version",
           process->IsRuntimeUser() ? process->runtime_version : std::string("NA")},
      });
    }
    nlohmann::ordered_json entry;
    entry["neuron_device"] = device.index;
    entry["bdf"] = device.pci_bdf;
    entry["cpu_affinity"] = device.cpu_affinity;
    entry["numa_node"] = std::to_string(device.numa_node);
    entry["connected_to"] = device.connected;
    entry["nc_count"] = device.logical_core_ids.size();
    entry["logical_neuroncore_config"] = view.lnc;
    entry["memory_size"] = device.memory_bytes;
    entry["neuroncore_ids"] = device.logical_core_ids;
    entry["neuron_processes"] = std::move(processes);
    devices.push_back(std::move(entry));
  }
  return devices.dump(4) + "\n";
}

}  // namespace trnsim::neuron_ls
