// ModelRegistry: the models one process has loaded, and the per-vnc shared scratchpads they use.
// The Runtime creates one at nrt_init and destroys it at nrt_close, which unloads every model.
//
// Handles: a Model* is live from Load until Unload (or the registry's destruction); Check
// refuses anything else — NULL is NRT_INVALID, a dead or foreign pointer NRT_INVALID_HANDLE.
//
// Thread safety: none; the Runtime's lock serialises every call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/config.h"
#include "runtime/core_map.h"
#include "runtime/model/model.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/neff/neff.h"

namespace trnsim::runtime::model {

class ModelRegistry {
 public:
  // `bytes_used` is the runtime's per-vnc usage array (visible_vnc_count entries). Every
  // argument must outlive the registry.
  ModelRegistry(driver::Device* device, const RuntimeConfig& config, const CoreMap& core_map,
                std::atomic<uint64_t>* bytes_used);
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

  size_t size() const { return models_.size(); }
  const SharedScratchpad& scratchpad(int vnc) const { return *scratchpads_[vnc]; }

  // For a forked child: forgets every model and scratchpad without freeing anything (the
  // memory is the parent's).
  void Abandon();

 private:
  int LeastLoadedVnc() const;

  driver::Device* device_;
  const RuntimeConfig& config_;
  const CoreMap& core_map_;
  std::atomic<uint64_t>* bytes_used_;
  std::vector<std::unique_ptr<SharedScratchpad>> scratchpads_;  // one per visible vnc
  std::unordered_set<Model*> models_;
  uint64_t next_model_id_ = 1;  // LoadTarget::model_id of the next load
};

}  // namespace trnsim::runtime::model
