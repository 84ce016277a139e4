#include "runtime/model/model_registry.h"

#include <string>

#include "common/log.h"

namespace trnsim::runtime::model {

ModelRegistry::ModelRegistry(driver::Device* device, const RuntimeConfig& config,
                             const CoreMap& core_map, std::atomic<uint64_t>* bytes_used,
                             CoreClaims* claims,
                             std::function<void(const Model*, uint64_t)> on_destroyed)
    : device_(device),
      config_(config),
      core_map_(core_map),
      bytes_used_(bytes_used),
      claims_(claims),
      on_destroyed_(std::move(on_destroyed)) {
  for (int vnc = 0; vnc < core_map.visible_count(); ++vnc) {
    CoreLocation where = core_map.Locate(vnc);
    driver::AllocationRequest request;
    request.chip = where.chip;
    request.hbm = where.hbm;
    request.owner_core = where.first_physical;
    scratchpads_.push_back(
        std::make_unique<SharedScratchpad>(device, request, vnc, &bytes_used[vnc]));
  }
}

ModelRegistry::~ModelRegistry() {
  // Nothing pins a model any more (the runtime has waited for its executions): each goes now,
  // detaching from its scratchpad.
  std::unordered_map<const Model*, std::shared_ptr<Model>> models;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    models.swap(models_);
  }
  models.clear();
  scratchpads_.clear();
}

void ModelRegistry::Abandon() {
  // Leaked: destroying them would free the parent's memory.
  new std::unordered_map<const Model*, std::shared_ptr<Model>>(std::move(models_));
  models_.clear();
  for (auto& scratchpad : scratchpads_) (void)scratchpad.release();
  scratchpads_.clear();
}

Status ModelRegistry::Check(const Model* model) const {
  return Pin(model).status();
}

size_t ModelRegistry::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return models_.size();
}

StatusOr<std::shared_ptr<const Model>> ModelRegistry::Pin(const Model* model) const {
  if (model == nullptr) return InvalidError("model is NULL");
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    return InvalidHandleError("model handle is not live (unloaded, or unloaded by nrt_close)");
  }
  return std::shared_ptr<const Model>(it->second);
}

void ModelRegistry::Destroy(Model* model) {
  const uint64_t id = model->id();
  std::lock_guard<std::mutex> claim(claims_->Of(model->vnc()));
  if (on_destroyed_) on_destroyed_(model, id);
  delete model;  // detaches from the scratchpad (which may shrink or go)
}

int ModelRegistry::LeastLoadedVnc() const {
  std::vector<int> loaded(core_map_.visible_count(), 0);
  for (const auto& [model, ref] : models_) ++loaded[model->vnc()];
  int best = 0;
  for (int vnc = 1; vnc < core_map_.visible_count(); ++vnc) {
    if (loaded[vnc] < loaded[best]) best = vnc;
  }
  return best;
}

StatusOr<Model*> ModelRegistry::Load(neff::Neff neff, int vnc, int vnc_count) {
  if (vnc_count != -1 && vnc_count != 1) {
    return InvalidError("vnc_count " + std::to_string(vnc_count) +
                        " is not supported: pass -1 (the argument is deprecated; trnsim does "
                        "not replicate models)");
  }
  if (vnc != -1 && !core_map_.IsVisible(vnc)) {
    return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                        std::to_string(core_map_.visible_count()) + " visible cores");
  }
  LoadTarget target;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (vnc == -1) vnc = LeastLoadedVnc();
    target.model_id = next_model_id_++;  // a failed load uses its id up too: never reused
  }
  target.device = device_;
  target.chip = config_.instance->chip;
  target.vnc = vnc;
  target.location = core_map_.Locate(vnc);
  target.bytes_used = &bytes_used_[vnc];
  target.scratchpad = scratchpads_[vnc].get();
  std::string name = neff.header.name;
  StatusOr<std::unique_ptr<Model>> loaded = [&] {
    std::lock_guard<std::mutex> claim(claims_->Of(vnc));  // the scratchpad may move
    return Model::Load(std::move(neff), target);
  }();
  if (!loaded.ok()) {
    return Status(loaded.status().code(), "loading NEFF '" + name + "' on logical core " +
                                              std::to_string(vnc) + ": " +
                                              loaded.status().message());
  }
  Model* model = loaded->release();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    models_.emplace(model, std::shared_ptr<Model>(model, [this](Model* m) { Destroy(m); }));
  }
  TRNSIM_LOG(Info, Nrt) << "loaded NEFF '" << name << "' on logical core " << vnc << " ("
                        << model->bytes_reserved() << " bytes of device memory"
                        << (model->foreign() ? "; instruction streams not in trnsim's encoding: "
                                               "not executable"
                                             : "")
                        << ")";
  return model;
}

Status ModelRegistry::Unload(Model* model) {
  if (model == nullptr) return InvalidError("model is NULL");
  std::shared_ptr<Model> reference;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = models_.find(model);
    if (it == models_.end()) {
      return InvalidHandleError("model handle is not live (unloaded, or unloaded by nrt_close)");
    }
    reference = std::move(it->second);
    models_.erase(it);
  }
  reference.reset();  // the model goes now unless an execution pins it
  return Status::Ok();
}

}  // namespace trnsim::runtime::model
