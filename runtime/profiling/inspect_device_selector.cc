#include "runtime/profiling/inspect_device_selector.h"

namespace trnsim::runtime::profiling {

bool InspectDeviceSelector::NextExecution(uint64_t model_id) {
  switch (mode_) {
    case DeviceProfileMode::kDisabled:
      return false;
    case DeviceProfileMode::kSession:
      return true;
    case DeviceProfileMode::kModel:
      // Past the profiled one the count stops mattering; saturate rather than grow forever.
      uint64_t& seen = executions_[model_id];
      const bool profile = seen == num_warmup_;
      if (seen <= num_warmup_) ++seen;
      return profile;
  }
  return false;
}

}  // namespace trnsim::runtime::profiling
