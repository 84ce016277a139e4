// neuron-ls's text output (tools-driver-facts.md §1.2–1.5, docs/tools.md), built from an
// observe::InstanceView:
//  - HeaderLines: "instance-type: …", "instance-id: …", "logical-neuroncore-config: N".
//  - DeviceTable: the table the options select —
//      default    NEURON DEVICE | NEURON CORES | NEURON CORE IDS | NEURON MEMORY |
//                 CONNECTED DEVICES | PCI BDF (0000:cc:00.0) | CPU AFFINITY | NUMA NODE,
//                 followed by PID | COMMAND (40 chars) | RUNTIME VERSION when a runtime
//                 process uses the instance (trnsim's answer to the open question; decisions.md);
//      wide (-w)  NEURON DEVICE | NEURON CORES | NEURON MEMORY | CONNECTED DEVICES |
//                 PCI BDF (cc:00.0) | PID | COMMAND (80 chars) | RUNTIME VERSION;
//      all (-a)   as wide, COMMAND 40 chars (80 with -w), every process (non-runtime ones such
//                 as neuron-ls itself on every device, RUNTIME VERSION "NA"), a border after
//                 each device;
//      topology   NEURON DEVICE | NEURON CORES | NEURON MEMORY | CONNECTED DEVICES |
//                 PCI BDF (cc:00.0).
//    CONNECTED DEVICES is left out when no device has a link. A device's further processes take
//    continuation rows with blank device cells; a device without any shows "NA".
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "tools/observe/instance_view.h"

namespace trnsim::neuron_ls {

enum class TableKind { kDefault, kWide, kAllProcesses, kTopology };

struct ListingOptions {
  TableKind table = TableKind::kDefault;
  bool wide = false;  // -w given (widens COMMAND in the -a table)
};

std::string HeaderLines(const observe::InstanceView& view);
std::string DeviceTable(const observe::InstanceView& view, const ListingOptions& options);

// "neuron-app01 infer --input-data-direc..." : `command` cut to `limit` characters, the last
// three of them "...", when it is longer; every byte outside printable ASCII (control
// characters, UTF-8) becomes '?', so each byte is one column and the text is valid JSON.
std::string TruncatedCommand(const std::string& command, size_t limit);

// The processes neuron-ls lists on `device`: runtime users holding a core or memory there and,
// when `all`, every session that uses no device (a tool such as neuron-ls itself).
std::vector<const observe::ProcessView*> ProcessesOnDevice(const observe::InstanceView& view,
                                                           int device, bool all);

}  // namespace trnsim::neuron_ls
