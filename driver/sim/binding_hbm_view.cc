#include "driver/sim/binding_hbm_view.h"

#include <string>

namespace trnsim::driver::sim {

Status BindingHbmView::Bind(uint32_t var_id, std::span<uint8_t> bytes) {
  if (!vars_.emplace(var_id, bytes).second) {
    return InvalidError("var_id " + std::to_string(var_id) + " is bound twice");
  }
  return Status::Ok();
}

StatusOr<std::span<uint8_t>> BindingHbmView::Var(uint32_t var_id) {
  auto it = vars_.find(var_id);
  if (it != vars_.end()) return it->second;
  return InvalidError("no HBM memory is bound to var_id " + std::to_string(var_id));
}

}  // namespace trnsim::driver::sim
