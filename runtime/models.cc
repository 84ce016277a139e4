// Models: loading a NEFF (plain or as a collective rank), unloading, and the model queries
// (models.h).
#include "runtime/models.h"

#include "common/log.h"
#include "runtime/collectives/host_collectives.h"
#include "runtime/neff/neff_io.h"

namespace trnsim::runtime {

StatusOr<model::Model*> Models::Load(std::span<const uint8_t> neff_bytes, int vnc, int vnc_count) {
  return LoadBytes(neff_bytes, vnc, vnc_count, std::nullopt);
}

StatusOr<model::Model*> Models::LoadBytes(std::span<const uint8_t> neff_bytes, int vnc,
                                          int vnc_count,
                                          std::optional<driver::CollectiveMembership> rank) {
  const uint64_t started_ns = profiling::SysTraceRecorder::NowNs();
  neff::ReadOptions options;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    options = session->read_options;
  }
  if (neff_bytes.empty()) return InvalidError("the NEFF is 0 bytes");
  StatusOr<neff::Neff> neff = neff::ReadNeff(neff_bytes, options);
  if (!neff.ok()) {
    // A load that fails before it has a core is traced on the core it asked for, if any.
    if (vnc >= 0 && sys_trace_.Wants(profiling::SysTraceType::kModelLoad, uint32_t(vnc))) {
      profiling::SysTraceData stop;
      stop.status = StatusCodeName(neff.status().code());
      sys_trace_.RecordSpan(profiling::SysTraceType::kModelLoad, uint32_t(vnc), started_ns,
                            profiling::SysTraceRecorder::NowNs(), {}, std::move(stop));
    }
    return neff.status();
  }
  return LoadParsed(std::move(*neff), vnc, vnc_count, started_ns, std::move(rank));
}

StatusOr<model::Model*> Models::Load(neff::Neff neff, int vnc, int vnc_count) {
  return LoadParsed(std::move(neff), vnc, vnc_count, profiling::SysTraceRecorder::NowNs(),
                    std::nullopt);
}

StatusOr<model::Model*> Models::LoadParsed(neff::Neff neff, int vnc, int vnc_count,
                                           uint64_t started_ns,
                                           std::optional<driver::CollectiveMembership> rank) {
  const std::string name = neff.header.name;
  StatusOr<model::Model*> loaded = [&]() -> StatusOr<model::Model*> {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    TRNSIM_ASSIGN_OR_RETURN(model::Model * model,
                            session->models->Load(std::move(neff), vnc, vnc_count));
    if (rank) {
      model->SetCollectiveRank(std::move(*rank));  // before anyone else can see the model
    } else if (model->programs().has_collectives()) {
      const int where = model->vnc();
      Status unloaded = session->models->Unload(model);
      if (!unloaded.ok()) {
        TRNSIM_LOG(Error, Nrt) << "unloading: " << unloaded.message();
      }
      return InvalidError("model '" + name + "' on logical core " + std::to_string(where) +
                          ": the NEFF holds collective instructions; load it with "
                          "nrt_load_collectives, giving its rank and world size");
    }
    return model;
  }();
  const int core = loaded.ok() ? (*loaded)->vnc() : vnc;
  if (core >= 0 && sys_trace_.Wants(profiling::SysTraceType::kModelLoad, uint32_t(core))) {
    profiling::SysTraceData start;
    start.model_name = name;
    profiling::SysTraceData stop;
    stop.model_name = name;
    if (loaded.ok() && (*loaded)->collective_rank()) {
      start.worker_gid = stop.worker_gid = int64_t((*loaded)->collective_rank()->rank);
    }
    stop.status = StatusCodeName(loaded.ok() ? StatusCode::kOk : loaded.status().code());
    sys_trace_.RecordSpan(profiling::SysTraceType::kModelLoad, uint32_t(core), started_ns,
                          profiling::SysTraceRecorder::NowNs(), std::move(start), std::move(stop));
  }
  return loaded;
}

StatusOr<model::Model*> Models::LoadCollective(std::span<const uint8_t> neff_bytes, int vnc,
                                               int vnc_count, uint32_t rank, uint32_t world_size) {
  if (world_size == 0 || rank >= world_size) {
    return InvalidError("rank " + std::to_string(rank) + " is not within a world of " +
                        std::to_string(world_size));
  }
  std::string root_comm_id;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    root_comm_id = session->config.root_comm_id;
  }
  TRNSIM_RETURN_IF_ERROR(collectives::CheckRootCommId(root_comm_id, "a collective NEFF"));
  TRNSIM_ASSIGN_OR_RETURN(model::Model * model, LoadBytes(neff_bytes, vnc, vnc_count,
                                                          driver::CollectiveMembership{
                                                              root_comm_id, rank, world_size, 0}));
  TRNSIM_LOG(Info, Nrt) << "model '" << model->name() << "' on logical core " << model->vnc()
                        << " is rank " << rank << " of " << world_size << " in communicator '"
                        << root_comm_id << "'";
  return model;
}

Status Models::Unload(model::Model* model) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  // The executor forgets the model when it is destroyed (here, or at its execution's end).
  return session->models->Unload(model);
}

StatusOr<ModelInfo> Models::Info(const model::Model* handle) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, session->models->Pin(handle));
  return ModelInfo{model->vnc(), model->vnc_count(), model->instance_count(), model->id()};
}

StatusOr<std::vector<neff::TensorDecl>> Models::Tensors(const model::Model* handle) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(std::shared_ptr<const model::Model> model, session->models->Pin(handle));
  return model->tensors();
}

}  // namespace trnsim::runtime
