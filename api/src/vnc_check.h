// Lifecycle-plus-core checks shared by entry points that take a logical-core argument but whose
// subsystem does not exist yet: they still answer NRT_UNINITIALIZED / NRT_CLOSED / NRT_INVALID
// exactly as the working version will, before reporting NotImplemented.
#pragma once

#include <cstdint>
#include <string>

#include "api/src/shim.h"

namespace trnsim::api {

// OK when the runtime is initialised and `vnc` is a process-relative logical core this process
// owns (0 .. visible count - 1); else the lifecycle status or NRT_INVALID.
inline Status CheckInitializedVnc(int64_t vnc) {
  TRNSIM_RETURN_IF_ERROR(Rt().CheckInitialized());
  auto count = Rt().instance().VisibleVncCount();
  if (!count.ok()) return count.status();
  if (vnc < 0 || vnc >= static_cast<int64_t>(*count)) {
    return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                        std::to_string(*count) + " visible cores");
  }
  return Status::Ok();
}

// As CheckInitializedVnc for an absolute (instance-wide) logical-core id, which the async
// send/recv API uses: it must be one of the cores this process owns.
inline Status CheckInitializedAbsoluteVnc(int64_t lnc) {
  TRNSIM_RETURN_IF_ERROR(Rt().CheckInitialized());
  const runtime::RuntimeConfig& config = Rt().config();
  int64_t first = config.first_visible_vnc;
  int64_t last = first + config.visible_vnc_count - 1;
  if (lnc < first || lnc > last) {
    return InvalidError("logical core " + std::to_string(lnc) +
                        " is not one of this process's cores (absolute ids " +
                        std::to_string(first) + ".." + std::to_string(last) + ")");
  }
  return Status::Ok();
}

}  // namespace trnsim::api
