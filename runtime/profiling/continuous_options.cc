#include "runtime/profiling/continuous_options.h"

#include <new>

namespace trnsim::runtime::profiling {

Status ContinuousOptions::SetOutputDir(std::string_view dir) {
  if (dir.empty()) return InvalidError("the continuous-profiling output directory is empty");
  try {  // report a failed copy as NRT_RESOURCE rather than let it throw through the ABI
    output_dir_.assign(dir);
  } catch (const std::bad_alloc&) {
    return ResourceError("cannot allocate a copy of the continuous-profiling output directory");
  }
  return Status::Ok();
}

}  // namespace trnsim::runtime::profiling
