// InspectDeviceSelector: which executions NEURON_RT_INSPECT_DEVICE_PROFILE profiles.
//  - kDisabled: none.
//  - kModel: for each loaded model (a NEFF on a logical core, named by its process-unique
//    model id), only its execution number `num_warmup` (0-based), i.e. the first after
//    `num_warmup` skipped ones; every execution counts, failed ones too. A model that is
//    unloaded and loaded again has a new id and is profiled again.
//  - kSession: every execution (`num_warmup` is ignored, as AWS documents it for model mode
//    only).
//
// Thread safety: none; the executor calls it under its execution lock.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "runtime/profiling/inspect_config.h"

namespace trnsim::runtime::profiling {

class InspectDeviceSelector {
 public:
  InspectDeviceSelector(DeviceProfileMode mode, uint64_t num_warmup)
      : mode_(mode), num_warmup_(num_warmup) {}

  // Counts one execution of model `model_id` and says whether it is to be profiled.
  bool NextExecution(uint64_t model_id);
  // Drops the count of an unloaded model (its id is never used again).
  void Forget(uint64_t model_id) { executions_.erase(model_id); }

 private:
  DeviceProfileMode mode_;
  uint64_t num_warmup_;
  std::unordered_map<uint64_t, uint64_t> executions_;  // model id -> executions counted
};

}  // namespace trnsim::runtime::profiling
