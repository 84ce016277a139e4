// ContinuousOptions: the host object behind nrt_profile_continuous_options_t
// (api/include/nrt/nrt_profile.h), the settings of continuous device profiling. It only holds
// settings; continuous profiling itself arrives with the profiler and reads them.
//
// Defaults: output directory "./output" (AWS's). File names inside it are chosen by the
// profiler.
//
// Ownership: the C API heap-allocates it with new and frees it with delete through
// nrt_profile_continuous_options_allocate / _free. Thread safety: none; one object is used
// from one thread at a time. Errors are Status values; nothing throws.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace trnsim::runtime::profiling {

inline constexpr std::string_view kDefaultContinuousOutputDir = "./output";

class ContinuousOptions {
 public:
  ContinuousOptions() = default;

  // Copies `dir`. NRT_INVALID for "" (the C API rejects NULL before calling), as for the
  // inspect output directory; NRT_RESOURCE if the copy cannot be allocated. The old directory
  // is kept on error.
  Status SetOutputDir(std::string_view dir);
  const std::string& output_dir() const { return output_dir_; }

 private:
  std::string output_dir_{kDefaultContinuousOutputDir};
};

}  // namespace trnsim::runtime::profiling
