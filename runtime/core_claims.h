// CoreClaims: one run lock per process-relative logical core (vnc) — the claim whatever uses
// the core's device state takes: the Executor for a whole run (address rewriting, staging,
// Device::Execute), and the ModelRegistry while it places a model on the core or frees one from
// it (both may move the core's shared scratchpad, model/shared_scratchpad.h). So a load or a
// model's destruction on a core waits for that core's running execution, and never for one on
// another core. Nothing else waits on a claim: it is per core, never process-wide.
//
// Thread safety: every method. Of() creates a core's lock on first use; locks live as long as
// the CoreClaims.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

namespace trnsim::runtime {

class CoreClaims {
 public:
  std::mutex& Of(int vnc) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<std::mutex>& slot = claims_[vnc];
    if (slot == nullptr) slot = std::make_unique<std::mutex>();
    return *slot;
  }

 private:
  std::mutex mutex_;  // guards the map, not the claims
  std::unordered_map<int, std::unique_ptr<std::mutex>> claims_;
};

}  // namespace trnsim::runtime
