// Models: nrt_load, nrt_load_collectives, nrt_unload and the model queries. A NEFF is parsed
// outside any lock; placing it holds its core's claim (core_claims.h) and the model registry's
// own lock (model/model_registry.h has the load rules), so a load waits for an execution on
// that core only. Handles (nrt_model_t*) are the addresses of registry-owned model::Model
// objects, checked against the live set (NRT_INVALID_HANDLE otherwise).
//
// Thread safety: every method. Calls return the lifecycle's statuses unless initialised.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/status.h"
#include "driver/device.h"
#include "runtime/lifecycle.h"
#include "runtime/model/model.h"
#include "runtime/neff/neff.h"
#include "runtime/profiling/sys_trace_recorder.h"

namespace trnsim::runtime {

struct ModelInfo {
  int vnc = 0;                  // process-relative logical core the model is loaded on
  uint32_t vnc_count = 1;       // logical cores it occupies
  uint32_t instance_count = 1;  // staged copies (AWS: at least 1)
  uint64_t model_id = 0;        // the process's id of the model (model::Model::id), never 0
};

class Models {
 public:
  // Each load, failed or not, is a model_load span of `sys_trace` on its core.
  Models(const Lifecycle& lifecycle, profiling::SysTraceRecorder& sys_trace)
      : lifecycle_(lifecycle), sys_trace_(sys_trace) {}
  Models(const Models&) = delete;
  Models& operator=(const Models&) = delete;

  // `vnc`: a visible process-relative core, or -1 for the least loaded one (ModelRegistry).
  // `vnc_count` (deprecated): -1 or 1. The bytes form parses with neff::ReadNeff, checking the
  // payload hash when NEURON_RT_VALIDATE_HASH is true. Errors: NRT_INVALID (0 bytes, malformed
  // NEFF, LNC mismatch, bad vnc or vnc_count, undecodable trnsim instruction stream),
  // NRT_UNSUPPORTED_NEFF_VERSION, NRT_RESOURCE (device memory; nothing stays allocated); a
  // NEFF holding collective instructions is NRT_INVALID (LoadCollective loads those).
  StatusOr<model::Model*> Load(std::span<const uint8_t> neff_bytes, int vnc, int vnc_count);
  StatusOr<model::Model*> Load(neff::Neff neff, int vnc, int vnc_count);
  // nrt_load_collectives: Load, the model then being rank `rank` of `world_size` in the
  // communicator NEURON_RT_ROOT_COMM_ID (NRT_INVALID when unset or the rank is outside the
  // world). Its executions meet the other ranks' in the device's collective hub.
  StatusOr<model::Model*> LoadCollective(std::span<const uint8_t> neff_bytes, int vnc,
                                         int vnc_count, uint32_t rank, uint32_t world_size);
  // The handle is dead afterwards (NRT_INVALID_HANDLE). The model's device memory goes now, or,
  // when an execution of it is running, when that execution ends (it completes normally: AWS
  // leaves unloading a running model undefined; trnsim neither fails nor crashes it).
  Status Unload(model::Model* model);
  StatusOr<ModelInfo> Info(const model::Model* model);
  // The model's inputs then outputs, as the NEFF declares them.
  StatusOr<std::vector<neff::TensorDecl>> Tensors(const model::Model* model);

 private:
  // Load's parse, then LoadParsed. `rank`: the model is a collective rank (LoadCollective);
  // unset, a NEFF with collective instructions is NRT_INVALID.
  StatusOr<model::Model*> LoadBytes(std::span<const uint8_t> neff_bytes, int vnc, int vnc_count,
                                    std::optional<driver::CollectiveMembership> rank);
  // `started_ns` is when the load began (for the system trace).
  StatusOr<model::Model*> LoadParsed(neff::Neff neff, int vnc, int vnc_count, uint64_t started_ns,
                                     std::optional<driver::CollectiveMembership> rank);

  const Lifecycle& lifecycle_;
  profiling::SysTraceRecorder& sys_trace_;
};

}  // namespace trnsim::runtime
