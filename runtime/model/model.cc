#include "runtime/model/model.h"

#include <algorithm>
#include <string>

#include "common/log.h"
#include "runtime/model/model_code.h"
#include "runtime/model/variable_check.h"

namespace trnsim::runtime::model {
namespace {

using neff::Variable;
using neff::VariableType;

Status CheckShape(const neff::Neff& neff, int runtime_lnc) {
  uint32_t lnc = neff.header.lnc_size;
  if (lnc != static_cast<uint32_t>(runtime_lnc)) {
    // The one fix is the process's LNC: name it, since the default (2) refuses every LNC=1
    // NEFF and users meet this first.
    return InvalidError("LNC mismatch: NEFF compiled for LNC=" + std::to_string(lnc) +
                        ", runtime uses LNC=" + std::to_string(runtime_lnc) +
                        "; to load it, set NEURON_LOGICAL_NC_CONFIG=" + std::to_string(lnc) +
                        " before nrt_init");
  }
  if (neff.subgraphs.size() != lnc) {
    return InvalidError("the NEFF has " + std::to_string(neff.subgraphs.size()) +
                        " subgraphs; LNC=" + std::to_string(lnc) + " needs " + std::to_string(lnc) +
                        " (one per physical core of the logical core)");
  }
  return Status::Ok();
}

// The shared-scratchpad need of every virtual variable of every subgraph.
ScratchpadNeed VirtualNeed(const neff::Neff& neff) {
  ScratchpadNeed need;
  for (const neff::Subgraph& subgraph : neff.subgraphs) {
    for (const Variable& var : subgraph.variables) {
      if (var.type != VariableType::kVirtual) continue;
      uint64_t end = var.backing_variable_off + var.size;
      if (need.largest_variable.empty() || end > need.size_bytes) {
        need.size_bytes = std::max(need.size_bytes, end);
        need.largest_variable = subgraph.name + "/" + var.name;
      }
      need.alignment_bytes = std::max(need.alignment_bytes, var.alignment);
    }
  }
  return need;
}

bool HasVirtualVariables(const neff::Neff& neff) {
  for (const neff::Subgraph& subgraph : neff.subgraphs) {
    for (const Variable& var : subgraph.variables) {
      if (var.type == VariableType::kVirtual) return true;
    }
  }
  return false;
}

}  // namespace

std::string UuidHex(const std::array<uint8_t, 16>& uuid) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * uuid.size());
  for (uint8_t byte : uuid) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xF]);
  }
  return hex;
}

StatusOr<std::unique_ptr<Model>> Model::Load(neff::Neff neff, const LoadTarget& target) {
  TRNSIM_RETURN_IF_ERROR(CheckShape(neff, target.location.physical_count));
  const simulator::ChipSpec& chip = *target.chip;
  uint64_t sbuf_bytes = static_cast<uint64_t>(chip.partitions) * chip.sbuf_bytes_per_partition;
  for (const neff::Subgraph& subgraph : neff.subgraphs) {
    TRNSIM_RETURN_IF_ERROR(CheckVariables(subgraph, sbuf_bytes));
  }
  TRNSIM_ASSIGN_OR_RETURN(EnginePrograms programs, EnginePrograms::Decode(neff, chip));
  std::vector<simulator::dma::DescriptorTable> tables(neff.subgraphs.size());
  if (!programs.foreign()) {
    for (size_t k = 0; k < neff.subgraphs.size(); ++k) {
      TRNSIM_ASSIGN_OR_RETURN(tables[k], BuildDescriptorTable(neff.subgraphs[k], chip));
    }
  }
  std::unique_ptr<Model> model(new Model(std::move(neff), target, std::move(programs)));
  model->dma_tables_ = std::move(tables);
  TRNSIM_RETURN_IF_ERROR(model->Place());  // on failure the destructor releases everything
  if (!model->foreign()) TRNSIM_RETURN_IF_ERROR(model->LoadPrograms());
  return model;
}

SubgraphTarget Model::SubgraphWhere(size_t subgraph) const {
  SubgraphTarget where;
  where.device = target_.device;
  where.vnc = target_.vnc;
  where.chip = target_.location.chip;
  where.hbm = target_.location.hbm;
  where.physical_core = target_.location.first_physical + static_cast<int>(subgraph);
  where.bytes_used = target_.bytes_used;
  where.model_id = target_.model_id;
  return where;
}

Status Model::Place() {
  for (size_t k = 0; k < neff_.subgraphs.size(); ++k) {
    TRNSIM_ASSIGN_OR_RETURN(std::unique_ptr<SubgraphMemory> memory,
                            SubgraphMemory::Place(neff_.subgraphs[k], SubgraphWhere(k)));
    memory_.push_back(std::move(memory));
  }
  // The scratchpad last: if it cannot grow, only this model's own memory is undone.
  if (HasVirtualVariables(neff_)) {
    TRNSIM_RETURN_IF_ERROR(target_.scratchpad->Attach(this, VirtualNeed(neff_)));
    attached_ = true;
  }
  TRNSIM_RETURN_IF_ERROR(RewriteScratchpadAddresses());
  // Constants now live in HBM; drop the host copies (other members, such as tables, stay).
  for (neff::Subgraph& subgraph : neff_.subgraphs) {
    for (const Variable& var : subgraph.variables) {
      if (var.type == VariableType::kFile) subgraph.files.erase(var.file_name);
    }
  }
  return Status::Ok();
}

Status Model::LoadPrograms() {
  driver::ModelOwner owner;
  owner.id = target_.model_id;
  owner.name = neff_.header.name;
  owner.uuid = UuidHex(neff_.header.uuid);
  for (size_t k = 0; k < neff_.subgraphs.size(); ++k) {
    neff::Subgraph& subgraph = neff_.subgraphs[k];
    // Each engine's stream (the last entry of an engine, as EnginePrograms decoded it) moves
    // into the image, not copied, and is dropped with it once loaded (model.h: the code lives
    // in HBM). The decoded programs go with them, so an in-process device does not decode them
    // again.
    std::array<neff::EngineProgram*, isa::kEngineCount> source{};
    for (neff::EngineProgram& engine : subgraph.engines) {
      source[static_cast<size_t>(engine.engine)] = &engine;
    }
    driver::ProgramImage image;
    for (size_t e = 0; e < source.size(); ++e) {
      if (source[e] == nullptr) continue;
      image.streams[e] = std::move(source[e]->instructions);
      image.decoded[e] = programs_.validated(k, isa::Engine(e));
    }
    image.descriptors = dma_tables_[k];
    TRNSIM_RETURN_IF_ERROR(LoadProgram(k, image, owner));
  }
  return Status::Ok();
}

Status Model::LoadProgram(size_t subgraph, const driver::ProgramImage& image,
                          driver::ModelOwner& owner) {
  const std::string& name = neff_.subgraphs[subgraph].name;
  // The code goes in HBM before the device gets the program, as the hardware needs it there.
  TRNSIM_ASSIGN_OR_RETURN(std::unique_ptr<DeviceStorage> code,
                          PlaceCode(image, name, SubgraphWhere(subgraph)));
  code_.push_back(std::move(code));
  owner.physical_core = SubgraphWhere(subgraph).physical_core;
  StatusOr<driver::ProgramHandle> handle = target_.device->LoadProgram(image, owner);
  if (!handle.ok()) {
    return Status(handle.status().code(), name + ": " + handle.status().message());
  }
  program_handles_.push_back(*handle);
  return Status::Ok();
}

Model::~Model() {
  for (driver::ProgramHandle handle : program_handles_) {
    Status unloaded = target_.device->UnloadProgram(handle);
    if (!unloaded.ok()) {
      TRNSIM_LOG(Warn, Nrt) << "model '" << name() << "': program not unloaded: "
                            << unloaded.message();
    }
  }
  code_.clear();  // after its programs are unloaded
  if (attached_) target_.scratchpad->Detach(this);
  memory_.clear();
}

Status Model::RewriteScratchpadAddresses() {
  uint64_t base = attached_ ? target_.scratchpad->device_address() : 0;
  for (const auto& memory : memory_) TRNSIM_RETURN_IF_ERROR(memory->WriteAddressTables(base));
  return Status::Ok();
}

Status Model::CheckExecutable() const {
  if (foreign()) return InvalidError(kForeignModelMessage);
  return Status::Ok();
}

uint64_t Model::bytes_reserved() const {
  uint64_t total = 0;
  for (const auto& memory : memory_) total += memory->bytes_reserved();
  for (const auto& code : code_) {
    if (code) total += code->device_allocation()->size_bytes;
  }
  return total;
}

}  // namespace trnsim::runtime::model
