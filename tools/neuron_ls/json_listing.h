// neuron-ls --json-output (tools-driver-facts.md §1.6): a JSON array, one object per device,
// pretty-printed with a 4-space indent, keys in AWS's order:
//   neuron_device (int), bdf ("cc:00.0"), cpu_affinity (string), numa_node (a string: "1"),
//   connected_to ([int], the table's order), nc_count (int), logical_neuroncore_config (int),
//   memory_size (int, bytes), neuroncore_ids ([int]),
//   neuron_processes ([{pid: int, command: string cut to 40 chars, neuron_runtime_version:
//   string}], the processes the table would list: runtime users, every process with `all`).
// The text ends with a newline.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "tools/observe/instance_view.h"

namespace trnsim::neuron_ls {

std::string JsonListing(const observe::InstanceView& view, bool all);

}  // namespace trnsim::neuron_ls
