// The versions trnsim's libnrt reports. trnsim implements the libnrt 2.x ABI at the level of
// runtime 2.31 (the "async API 3.0" generation; see docs/abi.md), so nrt_get_version answers
// 2.31.0.0 and names trnsim (common/version.h) in rt_detail.
#pragma once

#include <cstdint>

namespace trnsim::runtime {

struct NrtVersion {
  uint64_t major, minor, patch, maintenance;
};

inline constexpr NrtVersion kNrtVersion = {2, 31, 0, 0};

}  // namespace trnsim::runtime
