// What Allocate gives one container for the IDs kubelet chose — AWS's plugin's answer adapted
// to trnsim, where the devices are served by the node's neurond instead of /dev/neuron<N>:
//  - env NEURON_RT_VISIBLE_CORES: the logical cores allocated (for a device resource, every
//    logical core of those devices), compact ("4-7", "0-3,8-11"; core_list.h), as AWS's plugin
//    sets it;
//  - env NEURON_LOGICAL_NC_CONFIG: the LNC the core numbers are counted at (the plugin's), so the
//    container's runtime reads them as the plugin meant them;
//  - env TRNSIM_DAEMON: the daemon's address as the container sees it;
//  - env TRNSIM_TOKEN_FILE: the token's path in the container, when a token file is configured;
//  - mounts: the daemon's socket (host path → the container address's path), its shared-memory
//    side socket "<path>.shm" when the host has one (the data plane, tools/neurond/README.md;
//    without it the runtime falls back to streams), and the token file read-only.
//    No socket mounts when the container address is not unix: (TCP reaches the daemon as is).
//  - no DeviceSpec: there is no /dev/neuron<N> to give; no annotations, no CDI devices.
//
// Errors (NRT_INVALID, one line): no IDs, an ID that is not one of the resource's devices, a
// duplicate ID.
//
// Thread safety: reentrant (it only checks the host for the side socket).
#pragma once

#include <string>
#include <vector>

#include "common/status_or.h"
#include "proto/deviceplugin/v1beta1/api.pb.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

struct AllocationConfig {
  std::string container_daemon_address;  // TRNSIM_DAEMON in the container, e.g. unix:/run/...
  std::string daemon_socket_host_path;   // the daemon's socket on the host; empty: no mount
  std::string token_host_path;           // empty: no token
  std::string token_container_path;      // where the token file appears in the container
};

StatusOr<v1beta1::ContainerAllocateResponse> AllocateContainer(const Inventory& inventory,
                                                               Resource resource,
                                                               const std::vector<std::string>& ids,
                                                               const AllocationConfig& config);

}  // namespace trnsim::device_plugin
