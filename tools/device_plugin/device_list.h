// The device list ListAndWatch sends for one resource at one health snapshot: every device of
// the inventory, in order, with
//  - health "Healthy" when the daemon was reachable and the device (or the core's device) is
//    healthy in the snapshot, else "Unhealthy" (health_tracker.h has the rules);
//  - topology: the device's NUMA node, or none when the host has a single node (-1).
//
// Thread safety: pure.
#pragma once

#include "proto/deviceplugin/v1beta1/api.pb.h"
#include "tools/device_plugin/health_monitor.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

inline constexpr char kHealthy[] = "Healthy";      // kubelet's pluginapi.Healthy
inline constexpr char kUnhealthy[] = "Unhealthy";  // kubelet's pluginapi.Unhealthy

v1beta1::ListAndWatchResponse DeviceList(const Inventory& inventory, Resource resource,
                                         const HealthSnapshot& health);

}  // namespace trnsim::device_plugin
