#include "runtime/model/model_registry.h"

#include <string>

#include "common/log.h"

namespace trnsim::runtime::model {

ModelRegistry::ModelRegistry(driver::Device* device, const RuntimeConfig& config,
                             const CoreMap& core_map, std::atomic<uint64_t>* bytes_used)
    : device_(device), config_(config), core_map_(core_map), bytes_used_(bytes_used) {
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
  for (Model* model : models_) delete model;  // each detaches from its scratchpad
  models_.clear();
  scratchpads_.clear();
}

void ModelRegistry::Abandon() {
  models_.clear();
  for (auto& scratchpad : scratchpads_) (void)scratchpad.release();
  scratchpads_.clear();
}

Status ModelRegistry::Check(const Model* model) const {
  if (model == nullptr) return InvalidError("model is NULL");
  if (!models_.count(const_cast<Model*>(model))) {
    return InvalidHandleError("model handle is not live (unloaded, or unloaded by nrt_close)");
  }
  return Status::Ok();
}

int ModelRegistry::LeastLoadedVnc() const {
  std::vector<int> loaded(core_map_.visible_count(), 0);
  for (const Model* model : models_) ++loaded[model->vnc()];
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
  if (vnc == -1) {
    vnc = LeastLoadedVnc();
  } else if (!core_map_.IsVisible(vnc)) {
    return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                        std::to_string(core_map_.visible_count()) + " visible cores");
  }
  LoadTarget target;
  target.device = device_;
  target.chip = config_.instance->chip;
  target.vnc = vnc;
  target.location = core_map_.Locate(vnc);
  target.bytes_used = &bytes_used_[vnc];
  target.scratchpad = scratchpads_[vnc].get();
  target.model_id = next_model_id_++;  // a failed load uses its id up too: ids are never reused
  std::string name = neff.header.name;
  StatusOr<std::unique_ptr<Model>> loaded = Model::Load(std::move(neff), target);
  if (!loaded.ok()) {
    return Status(loaded.status().code(), "loading NEFF '" + name + "' on logical core " +
                                              std::to_string(vnc) + ": " +
                                              loaded.status().message());
  }
  Model* model = loaded->release();
  models_.insert(model);
  TRNSIM_LOG(Info, Nrt) << "loaded NEFF '" << name << "' on logical core " << vnc << " ("
                        << model->bytes_reserved() << " bytes of device memory"
                        << (model->foreign() ? "; instruction streams not in trnsim's encoding: "
                                               "not executable"
                                             : "")
                        << ")";
  return model;
}

Status ModelRegistry::Unload(Model* model) {
  TRNSIM_RETURN_IF_ERROR(Check(model));
  models_.erase(model);
  delete model;
  return Status::Ok();
}

}  // namespace trnsim::runtime::model
