// InstanceQueries: what a process may ask about its instance and its logical cores —
// nrt_get_total_vnc_count, nrt_get_visible_vnc_count, nrt_get_instance_info, the host device
// ids and routing map, the LNC size. They work before nrt_init too, from a fresh read of the
// environment (with TRNSIM_DAEMON and no TRNSIM_INSTANCE, one short session with the daemon
// for its instance type); once initialised, from the configuration Init froze.
//
// Thread safety: every method.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "runtime/config.h"
#include "runtime/lifecycle.h"

namespace trnsim::runtime {

struct InstanceInfo {
  uint32_t family = 0;  // NRT_INSTANCE_*
  uint32_t size = 0;    // NRT_INSTANCE_SIZE_*
  std::string arch_name;
  std::string device_revision;
};

// The configuration in force: the frozen one once initialised, else a fresh parse.
StatusOr<RuntimeConfig> CurrentConfig(const Lifecycle& lifecycle);

class InstanceQueries {
 public:
  explicit InstanceQueries(const Lifecycle& lifecycle) : lifecycle_(lifecycle) {}

  StatusOr<uint32_t> TotalVncCount() const;
  StatusOr<uint32_t> VisibleVncCount() const;
  StatusOr<InstanceInfo> Info() const;
  // NRT_INVALID for a device the instance does not have.
  StatusOr<uint32_t> HostDeviceId(int neuron_device) const;
  // Routing id of each host device, indexed by host device id.
  StatusOr<std::vector<uint32_t>> RoutingIdMap() const;
  // Physical cores per logical core.
  StatusOr<uint32_t> LogicalCoreSize() const;

 private:
  const Lifecycle& lifecycle_;
};

}  // namespace trnsim::runtime
