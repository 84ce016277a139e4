// BindingHbmView: the chip model's view of one core's HBM variables (reference::HbmView,
// NEFF var_id -> bytes) for one execution on the sim back end: each var_id of the core's
// VarBindings maps to the host bytes of its window [offset, offset+size) of emulated HBM.
// SimDevice resolves and checks every binding (handle known, window inside the allocation,
// var_id bound once) before it builds the view, so Var() is one hash lookup; a var_id without
// a binding is NRT_INVALID naming it.
//
// Thread safety: none; one execution uses a view. The spans stay valid while the bound
// allocations live (SimDevice pins them for the execution, so none is released under it).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>

#include "common/status_or.h"
#include "simulator/reference/interpreter.h"

namespace trnsim::driver::sim {

class BindingHbmView final : public reference::HbmView {
 public:
  // Binds `var_id` to `bytes`. NRT_INVALID when `var_id` is already bound.
  Status Bind(uint32_t var_id, std::span<uint8_t> bytes);

  StatusOr<std::span<uint8_t>> Var(uint32_t var_id) override;

 private:
  std::unordered_map<uint32_t, std::span<uint8_t>> vars_;
};

}  // namespace trnsim::driver::sim
