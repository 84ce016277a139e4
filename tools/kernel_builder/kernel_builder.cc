// KernelBuilder: options, variables and dependencies (build.cc turns them into a Neff).
#include "tools/kernel_builder/kernel_builder.h"

#include <cstdio>
#include <cstdlib>

namespace trnsim::kb {
namespace {

std::string S(int64_t v) { return std::to_string(v); }

bool Overlap(int a, int b) { return a == -1 || b == -1 || a == b; }

}  // namespace

const simulator::ChipSpec* ChipSpecByName(std::string_view name) {
  if (name == "trn2" || name == "trainium2") return &simulator::Trainium2Spec();
  if (name == "trn3" || name == "trainium3") return &simulator::Trainium3Spec();
  return nullptr;
}

KernelBuilder::KernelBuilder(KernelOptions options) : options_(std::move(options)) {
  const simulator::ChipSpec* chip = ChipSpecByName(options_.chip);
  if (chip == nullptr) {
    diagnostics_.Record(
        InvalidError("unknown chip '" + options_.chip + "' (expected trn2 or trn3)"));
    chip = &simulator::Trainium2Spec();
  }
  limits_ = isa::LimitsFor(*chip);
  header_.neff_build_version = "trnsim-kernel-builder 1";
  int lnc = options_.lnc;
  if (lnc != 1 && lnc != 2) {
    diagnostics_.Record(InvalidError("lnc " + S(lnc) + " (expected 1 or 2)"));
    lnc = 1;
  }
  for (int k = 0; k < lnc; ++k)
    cores_.push_back(std::make_unique<Core>(k, &limits_, &diagnostics_));
}

Status KernelBuilder::SetLnc(int lnc) {
  if (lnc != 1 && lnc != 2) return InvalidError("lnc " + S(lnc) + " (expected 1 or 2)");
  for (const auto& c : cores_) {
    if (c->touched()) return InvalidError("lnc must be set before anything is emitted on a core");
  }
  for (const VarDecl& v : vars_) {
    if (v.subgraph >= lnc) {
      return InvalidError("variable '" + v.var.name + "' belongs to subgraph " + S(v.subgraph));
    }
  }
  cores_.clear();
  for (int k = 0; k < lnc; ++k)
    cores_.push_back(std::make_unique<Core>(k, &limits_, &diagnostics_));
  options_.lnc = lnc;
  return Status::Ok();
}

Core& KernelBuilder::core(int index) {
  if (index < 0 || index >= lnc()) {
    std::fprintf(stderr, "trnsim: KernelBuilder::core(%d) with lnc %d\n", index, lnc());
    std::abort();
  }
  return *cores_[index];
}

void KernelBuilder::Depend(InstRef consumer, InstRef producer) {
  if (!consumer.valid() || !producer.valid()) {
    // The emit error that made the InstRef invalid is already recorded; this one says where.
    diagnostics_.Record(InvalidError("Depend() on an instruction that failed to emit"));
    return;
  }
  if (consumer.core != producer.core || consumer.core < 0 || consumer.core >= lnc()) {
    diagnostics_.Record(InvalidError("Depend() across cores sg" + S(producer.core) + " -> sg" +
                                     S(consumer.core) + " (semaphores are per core)"));
    return;
  }
  cores_[consumer.core]->AddDependency({consumer, producer});
}

void KernelBuilder::Depend(InstRef consumer, std::initializer_list<InstRef> producers) {
  for (const InstRef& p : producers) Depend(consumer, p);
}

StatusOr<HbmTensor> KernelBuilder::AddVariable(neff::VariableType type, std::string name,
                                               isa::Dtype dtype, std::vector<uint32_t> shape,
                                               uint64_t bytes, const VarOptions& options,
                                               std::vector<uint8_t> data) {
  std::string what = "variable '" + name + "'";
  if (name.empty()) return InvalidError("a variable needs a name");
  if (options.subgraph < -1 || options.subgraph >= lnc()) {
    return InvalidError(what + ": subgraph " + S(options.subgraph) + " of " + S(lnc()));
  }
  if (options.alignment != 0 && (options.alignment & (options.alignment - 1)) != 0) {
    return InvalidError(what + ": alignment " + S(options.alignment) + " is not a power of two");
  }
  int64_t id = 0;
  for (const VarDecl& v : vars_) id = std::max(id, v.var.var_id + 1);
  if (options.var_id) id = *options.var_id;
  if (id < 0 || id > UINT32_MAX) return InvalidError(what + ": var_id " + S(id) + " out of range");
  for (const VarDecl& v : vars_) {
    if (!Overlap(v.subgraph, options.subgraph)) continue;
    if (v.var.name == name) return InvalidError(what + " declared twice");
    if (v.var.var_id == id) {
      return InvalidError(what + ": var_id " + S(id) + " is already '" + v.var.name + "'");
    }
  }
  if (bytes == 0) return InvalidError(what + " has 0 bytes");
  VarDecl d;
  d.var.name = name;
  d.var.type = type;
  d.var.var_id = id;
  d.var.size = bytes;
  d.var.alignment = options.alignment;
  d.subgraph = options.subgraph;
  d.dtype = dtype;
  d.shape = shape;
  if (type == neff::VariableType::kFile) {
    if (data.size() != bytes) {
      return InvalidError(what + ": " + S(static_cast<int64_t>(data.size())) +
                          " bytes of data for " + S(static_cast<int64_t>(bytes)) + " bytes");
    }
    d.var.file_name = options.file_name.empty() ? name + ".bin" : options.file_name;
    d.file = std::move(data);
  }
  vars_.push_back(std::move(d));
  HbmTensor t;
  t.name = std::move(name);
  t.var_id = static_cast<uint32_t>(id);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes = bytes;
  return t;
}

namespace {

StatusOr<uint64_t> ShapeBytes(const std::string& name, isa::Dtype dtype,
                              const std::vector<uint32_t>& shape) {
  uint64_t bytes = static_cast<uint64_t>(isa::DtypeSize(dtype));
  if (bytes == 0) return InvalidError("variable '" + name + "': no dtype");
  if (shape.empty()) return InvalidError("variable '" + name + "': no shape");
  for (uint32_t d : shape) {
    if (d == 0 || __builtin_mul_overflow(bytes, uint64_t{d}, &bytes)) {
      return InvalidError("variable '" + name + "': bad shape");
    }
  }
  return bytes;
}

}  // namespace

StatusOr<HbmTensor> KernelBuilder::AddInput(std::string name, isa::Dtype dtype,
                                            std::vector<uint32_t> shape,
                                            const VarOptions& options) {
  TRNSIM_ASSIGN_OR_RETURN(uint64_t bytes, ShapeBytes(name, dtype, shape));
  return AddVariable(neff::VariableType::kInput, std::move(name), dtype, std::move(shape), bytes,
                     options, {});
}

StatusOr<HbmTensor> KernelBuilder::AddOutput(std::string name, isa::Dtype dtype,
                                             std::vector<uint32_t> shape,
                                             const VarOptions& options) {
  TRNSIM_ASSIGN_OR_RETURN(uint64_t bytes, ShapeBytes(name, dtype, shape));
  return AddVariable(neff::VariableType::kOutput, std::move(name), dtype, std::move(shape), bytes,
                     options, {});
}

StatusOr<HbmTensor> KernelBuilder::AddConstant(std::string name, isa::Dtype dtype,
                                               std::vector<uint32_t> shape,
                                               std::vector<uint8_t> data,
                                               const VarOptions& options) {
  TRNSIM_ASSIGN_OR_RETURN(uint64_t bytes, ShapeBytes(name, dtype, shape));
  return AddVariable(neff::VariableType::kFile, std::move(name), dtype, std::move(shape), bytes,
                     options, std::move(data));
}

StatusOr<HbmTensor> KernelBuilder::AddScratch(std::string name, uint64_t bytes,
                                              const VarOptions& options) {
  return AddVariable(neff::VariableType::kTmpBuf, std::move(name), isa::Dtype::kUint8, {}, bytes,
                     options, {});
}

StatusOr<HbmTensor> KernelBuilder::AddShared(std::string name, uint64_t bytes) {
  constexpr uint64_t kAlign = 64;  // the driver's allocation alignment
  const uint64_t offset = (shared_bytes_ + kAlign - 1) / kAlign * kAlign;
  TRNSIM_ASSIGN_OR_RETURN(HbmTensor t, AddVariable(neff::VariableType::kVirtual, std::move(name),
                                                   isa::Dtype::kUint8, {}, bytes, {}, {}));
  vars_.back().var.backing_variable_off = offset;
  shared_bytes_ = offset + bytes;
  return t;
}

}  // namespace trnsim::kb
