// Model: a NEFF loaded on one of the process's logical cores (vnc) — what an nrt_model_t
// handle names. Load places the NEFF's variables in the vnc's HBM (SubgraphMemory, the vnc's
// SharedScratchpad), classifies and decodes its engine instruction streams (EnginePrograms) and
// keeps the NEFF's declared inputs and outputs for nrt_get_model_tensor_info.
//
// Load checks, in order, each failing with nothing allocated:
//  1. header.lnc_size must equal the runtime's LNC (NEURON_LOGICAL_NC_CONFIG):
//     NRT_INVALID "LNC mismatch: NEFF compiled for LNC=2, runtime uses LNC=1";
//  2. one subgraph per physical core of the logical core (subgraphs == lnc_size): NRT_INVALID;
//  3. every subgraph's variables (CheckVariables: SBUF fit, references, constants, alignment);
//  4. the instruction streams (EnginePrograms::Decode): trnsim-encoded streams must decode and
//     validate (NRT_INVALID naming subgraph, engine and instruction); streams in another
//     encoding (AWS's compiler) make the model *foreign*: it loads, reports its tensors, and
//     refuses execution with kForeignModelMessage;
//  5. unless foreign, every subgraph's DMA descriptors (BuildDescriptorTable): NRT_INVALID
//     naming subgraph, engine JSON and descriptor.
// Then it allocates: subgraph k's variables go on physical core first_physical + k, all in the
// vnc's HBM stack and charged to the vnc. Device OOM is NRT_RESOURCE naming the variable and
// its bytes, and everything already allocated for the model is released (no partial model).
// Last, unless foreign, per subgraph: it places the subgraph's code in HBM (model_code.h: one
// MemoryCategory::kCode allocation on the subgraph's core, tagged with the model id, holding
// its engine streams and 16 bytes per DMA descriptor; none for a subgraph without code), then
// loads its driver::ProgramImage through the Device (Device::LoadProgram: the engine streams
// and the DMA descriptor table) and keeps the handle for execution. Code that does not fit is
// NRT_RESOURCE naming the subgraph, its code bytes and the logical core, with everything the
// model allocated released. Programs are unloaded, then their code freed, with the model. A
// foreign model loads no program and gets no code allocation.
//
// A Model keeps its Neff (the execution milestone reads its DMA descriptors and queue sets),
// minus the constant files and, once its programs are loaded, the engine streams' bytes (both
// live in HBM once written: a big program's stream is not held twice on the host), and one
// dma::DescriptorTable per subgraph (BuildDescriptorTable, dma_table.h), built before anything is
// allocated: a descriptor that cannot be translated fails the load with NRT_INVALID naming
// subgraph, engine and descriptor. A foreign model is never executed, so its tables are left empty
// (its descriptors are not translated and cannot fail its load).
//
// Thread safety: none; the Runtime serialises loads, unloads and queries of a model.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "runtime/core_map.h"
#include "runtime/model/dma_table.h"
#include "runtime/model/engine_programs.h"
#include "runtime/model/shared_scratchpad.h"
#include "runtime/model/subgraph_memory.h"
#include "runtime/neff/neff.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::model {

inline constexpr char kForeignModelMessage[] =
    "this NEFF's engine instruction streams are not in trnsim's encoding (compiled by AWS's "
    "neuronx-cc?); trnsim can report its tensors but cannot execute it";

// Where a model goes: everything Load needs from the runtime. Pointers must outlive the model.
struct LoadTarget {
  driver::Device* device = nullptr;
  const simulator::ChipSpec* chip = nullptr;
  int vnc = 0;            // process-relative logical core
  CoreLocation location;  // where that vnc lives; physical_count is the runtime's LNC
  std::atomic<uint64_t>* bytes_used = nullptr;  // the vnc's usage counter
  SharedScratchpad* scratchpad = nullptr;       // the vnc's
  // The model's id in its process (ModelRegistry gives 1, 2, ... in load order, never reused).
  // Its programs and its own memory are tagged with it (driver::ModelOwner,
  // AllocationRequest::owner_model_id) so that neurond can report them per model; the shared
  // scratchpad belongs to the vnc, not to a model, and is not.
  uint64_t model_id = 0;
};

// The NEFF header's uuid as 32 lowercase hex digits (driver::ModelOwner::uuid).
std::string UuidHex(const std::array<uint8_t, 16>& uuid);

class Model final : public ScratchpadUser {
 public:
  static StatusOr<std::unique_ptr<Model>> Load(neff::Neff neff, const LoadTarget& target);
  ~Model() override;  // frees the model's memory and detaches from the scratchpad

  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  int vnc() const { return target_.vnc; }
  uint64_t id() const { return target_.model_id; }  // LoadTarget::model_id
  const std::string& name() const { return neff_.header.name; }
  // Logical cores the model occupies, and staged copies of it (AWS: at least 1): both 1.
  uint32_t vnc_count() const { return 1; }
  uint32_t instance_count() const { return 1; }
  // Inputs first, then outputs, exactly as the NEFF declares them.
  const std::vector<neff::TensorDecl>& tensors() const { return neff_.tensors; }
  bool foreign() const { return programs_.foreign(); }
  // OK when the model can be executed; NRT_INVALID with kForeignModelMessage when foreign.
  Status CheckExecutable() const;

  // The model's rank in a collective communicator: set by nrt_load_collectives right after the
  // load, before anyone else sees the model; unset for nrt_load. Every execution of the model
  // carries it (with its sequence number) to the device (driver::CollectiveMembership).
  const std::optional<driver::CollectiveMembership>& collective_rank() const {
    return collective_rank_;
  }
  void SetCollectiveRank(driver::CollectiveMembership rank) { collective_rank_ = std::move(rank); }

  const neff::Neff& neff() const { return neff_; }
  const EnginePrograms& programs() const { return programs_; }
  const SubgraphMemory& memory(int subgraph) const { return *memory_[subgraph]; }
  // Subgraph `subgraph`'s DMA descriptors, resolved for the chip model (empty when foreign).
  const simulator::dma::DescriptorTable& dma_table(int subgraph) const {
    return dma_tables_[subgraph];
  }
  // The device program of subgraph `subgraph` (driver::kInvalidProgramHandle when foreign).
  driver::ProgramHandle program_handle(int subgraph) const {
    return subgraph < static_cast<int>(program_handles_.size()) ? program_handles_[subgraph]
                                                                : driver::kInvalidProgramHandle;
  }
  // Subgraph `subgraph`'s code allocation (model_code.h); nullptr when foreign or when the
  // subgraph has no code.
  const DeviceStorage* code(int subgraph) const {
    return subgraph < static_cast<int>(code_.size()) ? code_[subgraph].get() : nullptr;
  }
  // Bytes of device memory the model holds itself: its variables and its code (the shared
  // scratchpad is not counted).
  uint64_t bytes_reserved() const;

  // Rewrites pointer and dge-table variables after the shared scratchpad moved.
  Status RewriteScratchpadAddresses() override;

 private:
  Model(neff::Neff neff, const LoadTarget& target, EnginePrograms programs)
      : neff_(std::move(neff)), target_(target), programs_(std::move(programs)) {}
  SubgraphTarget SubgraphWhere(size_t subgraph) const;  // where subgraph k's memory goes
  Status Place();
  Status LoadPrograms();
  // Places subgraph `subgraph`'s code and loads `image` on the device (part of LoadPrograms).
  Status LoadProgram(size_t subgraph, const driver::ProgramImage& image, driver::ModelOwner& owner);

  neff::Neff neff_;
  LoadTarget target_;
  EnginePrograms programs_;
  std::vector<simulator::dma::DescriptorTable> dma_tables_;  // one per subgraph (dma_table.h)

  std::vector<std::unique_ptr<SubgraphMemory>> memory_;  // one per subgraph
  bool attached_ = false;                                // to target_.scratchpad
  std::vector<driver::ProgramHandle> program_handles_;   // one per subgraph; empty if foreign
  std::vector<std::unique_ptr<DeviceStorage>> code_;     // one per subgraph (null: no code)
  std::optional<driver::CollectiveMembership> collective_rank_;
};

}  // namespace trnsim::runtime::model
