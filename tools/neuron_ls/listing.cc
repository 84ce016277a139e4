#include "tools/neuron_ls/listing.h"

#include <algorithm>

#include "simulator/spec/chip_spec.h"
#include "tools/neuron_ls/table.h"

namespace trnsim::neuron_ls {
namespace {

constexpr size_t kCommandChars = 40;
constexpr size_t kWideCommandChars = 80;

std::string JoinInts(const std::vector<int>& values) {
  std::string text;
  for (int value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
  return text;
}

std::string CoreIdRange(const std::vector<int>& ids) {
  if (ids.empty()) return "";
  if (ids.size() == 1) return std::to_string(ids.front());
  return std::to_string(ids.front()) + "-" + std::to_string(ids.back());
}

std::string MemoryText(uint64_t bytes) {
  return std::to_string(bytes / simulator::kGiB) + " GB";  // AWS's "96 GB" is 96 GiB
}

// The columns of `kind` with their cells for one device row.
std::vector<std::string> DeviceCells(TableKind kind, const observe::DeviceView& device,
                                     bool links) {
  std::vector<std::string> cells = {std::to_string(device.index),
                                    std::to_string(device.logical_core_ids.size())};
  if (kind == TableKind::kDefault) cells.push_back(CoreIdRange(device.logical_core_ids));
  cells.push_back(MemoryText(device.memory_bytes));
  if (links) cells.push_back(JoinInts(device.connected));
  cells.push_back(kind == TableKind::kDefault ? "0000:" + device.pci_bdf : device.pci_bdf);
  if (kind == TableKind::kDefault) {
    cells.push_back(device.cpu_affinity);
    cells.push_back(std::to_string(device.numa_node));
  }
  return cells;
}

std::vector<std::string> DeviceTitles(TableKind kind, bool links) {
  std::vector<std::string> titles = {"NEURON DEVICE", "NEURON CORES"};
  if (kind == TableKind::kDefault) titles.push_back("NEURON CORE IDS");
  titles.push_back("NEURON MEMORY");
  if (links) titles.push_back("CONNECTED DEVICES");
  titles.push_back("PCI BDF");
  if (kind == TableKind::kDefault) {
    titles.push_back("CPU AFFINITY");
    titles.push_back("NUMA NODE");
  }
  return titles;
}

}  // namespace

std::string TruncatedCommand(const std::string& command, size_t limit) {
  std::string text = command.size() <= limit ? command : command.substr(0, limit - 3) + "...";
  // One byte, one column, valid UTF-8: the table stays aligned and the JSON printable.
  for (char& c : text) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return text;
}

std::vector<const observe::ProcessView*> ProcessesOnDevice(const observe::InstanceView& view,
                                                           int device, bool all) {
  std::vector<const observe::ProcessView*> listed;
  for (const observe::ProcessView& process : view.processes) {
    const std::vector<int> devices = view.DevicesOf(process);
    const bool here = std::find(devices.begin(), devices.end(), device) != devices.end();
    if ((process.IsRuntimeUser() && here) || (all && (here || devices.empty()))) {
      listed.push_back(&process);
    }
  }
  return listed;
}

std::string HeaderLines(const observe::InstanceView& view) {
  return "instance-type: " + view.instance_type + "\ninstance-id: " + view.instance_id +
         "\nlogical-neuroncore-config: " + std::to_string(view.lnc) + "\n";
}

std::string DeviceTable(const observe::InstanceView& view, const ListingOptions& options) {
  const TableKind kind = options.table;
  const bool links = view.HasLinks();
  const bool all = kind == TableKind::kAllProcesses;
  bool with_processes = kind == TableKind::kWide || all;
  if (kind == TableKind::kDefault) {
    with_processes = std::any_of(view.processes.begin(), view.processes.end(),
                                 [](const auto& p) { return p.IsRuntimeUser(); });
  }
  const size_t command_chars =
      kind == TableKind::kWide || (all && options.wide) ? kWideCommandChars : kCommandChars;

  std::vector<std::string> titles = DeviceTitles(kind, links);
  if (with_processes) {
    titles.insert(titles.end(), {"PID", "COMMAND", "RUNTIME VERSION"});
  }
  Table table(titles);
  for (const observe::DeviceView& device : view.devices) {
    std::vector<std::string> cells = DeviceCells(kind, device, links);
    if (!with_processes) {
      table.AddRow(std::move(cells));
      continue;
    }
    const std::vector<const observe::ProcessView*> processes =
        ProcessesOnDevice(view, device.index, all);
    const size_t device_columns = cells.size();
    if (processes.empty()) {
      cells.insert(cells.end(), {"NA", "NA", "NA"});
      table.AddRow(std::move(cells));
    }
    for (size_t i = 0; i < processes.size(); ++i) {
      const observe::ProcessView& process = *processes[i];
      std::vector<std::string> row = i == 0 ? cells : std::vector<std::string>(device_columns, "");
      row.push_back(std::to_string(process.pid));
      row.push_back(TruncatedCommand(process.command, command_chars));
      row.push_back(process.IsRuntimeUser() ? process.runtime_version : "NA");
      table.AddRow(std::move(row));
    }
    if (all) table.AddSeparator();
  }
  return table.Render();
}

}  // namespace trnsim::neuron_ls
