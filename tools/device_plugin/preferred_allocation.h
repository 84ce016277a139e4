// GetPreferredAllocation's choice for one container: `size` of the `available` IDs, including
// every `must_include` one. Deterministic: the same request always gives the same answer.
//
//  - neuroncore: a run of consecutive logical cores if one exists, preferring runs on as few
//    devices as possible (one device, then neighbouring devices in core order), then the lowest
//    first core. Without such a run: the must_include cores (or, with none, the start of the
//    longest available run, lowest first), grown one core at a time by the available core
//    nearest to the chosen ones (lowest on a tie) — the most compact set left.
//  - neuron / neurondevice: devices linked to each other (simulator::ConnectedDevices: trn2's
//    2D torus, trn3's switch), grown greedily from each possible start (must_include when given)
//    by the available device with the most links into the set (lowest on a tie); the set with
//    the most links inside it wins, then the lowest IDs. This is what AWS's Neuron scheduler
//    extension asks for on Trn2 (directly connected devices); kubelet, not a scheduler, places
//    pods here, so it is a preference kubelet may override.
//
// Errors (NRT_INVALID, one line naming the first bad ID or size): an ID that is not one of the
// resource's devices, a duplicate ID, a must_include ID that is not available, size < 1, size
// below the number of must_include IDs or above the number available.
// The answer lists the chosen IDs in ascending core / device order.
//
// Thread safety: pure.
#pragma once

#include <string>
#include <vector>

#include "common/status_or.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

StatusOr<std::vector<std::string>> PreferAllocation(const Inventory& inventory, Resource resource,
                                                    const std::vector<std::string>& available,
                                                    const std::vector<std::string>& must_include,
                                                    int size);

}  // namespace trnsim::device_plugin
