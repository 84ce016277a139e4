// ModelRegistry: the models one process has loaded, and the per-vnc shared scratchpads they use.
// The Runtime creates one at nrt_init and destroys it at nrt_close, which unloads every model.
//
// Handles: a Model* is live from Load until Unload (or the registry's destruction); Check and
// Pin refuse anything else — NULL is NRT_INVALID, a dead or foreign pointer NRT_INVALID_HANDLE.
//
// Lifetime: the registry holds one reference to each live model, and Pin hands out more (an
// execution holds one for its run). Unload drops the registry's: the handle is dead at once
// and the model (its device memory, its place in the core's scratchpad) goes at the last
// reference's release, which then calls `on_destroyed` (the executor forgets its record). So
// unloading a model that is executing returns at once and the execution completes normally.
//
// Thread safety: every method. The registry's own lock guards the set of models (held briefly);
// placing a model on a core, and destroying one, hold that core's claim (core_claims.h) — so
// they wait for an execution on the same core, never for one on another.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/config.h"
#include "runtime/core_claims.h"
#include "runtime/core_map.h"
#include "runtime/model/model.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/neff/neff.h"

namespace trnsim::runtime::model {

class ModelRegistry {
 public:
  // `bytes_used` is the runtime's per-vnc usage array (visible_vnc_count entries);
  // `on_destroyed` (may be empty) gets each model's address and id just before it is destroyed.
  // Every pointer must outlive the registry.
  ModelRegistry(driver::Device* device, const RuntimeConfig& config, const CoreMap& core_map,
                std::atomic<uint64_t>* bytes_used, CoreClaims* claims,
                std::function<void(const Model*, uint64_t)> on_destroyed);
  ~ModelRegistry();  // unloads every model, then frees the scratchpads

  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;

  // Loads `neff` on `vnc`: a visible process-relative core, or -1 for the least loaded one
  // (fewest models; the lowest index among equals, so the first core without a model when
  // there is one). `vnc_count` (deprecated): -1 or 1, anything else NRT_INVALID — trnsim does
  // not replicate models. Load errors are prefixed with the NEFF's name and the vnc.
  StatusOr<Model*> Load(neff::Neff neff, int vnc, int vnc_count);
  Status Unload(Model* model);
  Status Check(const Model* model) const;
  // A reference to the live model `model`, keeping it (and its memory) alive while held.
  StatusOr<std::shared_ptr<const Model>> Pin(const Model* model) const;

  size_t size() const;
  const SharedScratchpad& scratchpad(int vnc) const { return *scratchpads_[vnc]; }

  // For a forked child: forgets every model and scratchpad without freeing anything (the
  // memory is the parent's).
  void Abandon();

 private:
  int LeastLoadedVnc() const;  // mutex_ held
  // Takes `model`'s core claim, tells on_destroyed_, deletes it.
  void Destroy(Model* model);

  driver::Device* device_;
  const RuntimeConfig& config_;
  const CoreMap& core_map_;
  std::atomic<uint64_t>* bytes_used_;
  CoreClaims* claims_;
  std::function<void(const Model*, uint64_t)> on_destroyed_;
  // One per visible vnc; each is used under its core's claim.
  std::vector<std::unique_ptr<SharedScratchpad>> scratchpads_;
  mutable std::mutex mutex_;  // guards the two below
  std::unordered_map<const Model*, std::shared_ptr<Model>> models_;
  uint64_t next_model_id_ = 1;  // LoadTarget::model_id of the next load
};

}  // namespace trnsim::runtime::model
