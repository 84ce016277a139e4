#include "runtime/profiling/continuous_profiler.h"

#include <filesystem>
#include <span>
#include <system_error>
#include <utility>

namespace trnsim::runtime::profiling {

Status ContinuousProfiler::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_.load()) {
    return InvalidError(
        "continuous profiling is already running "
        "(nrt_profile_continuous_stop ends it)");
  }
  running_.store(true, std::memory_order_release);
  return Status::Ok();
}

Status ContinuousProfiler::Stop() {
  std::map<int, std::shared_ptr<const Latest>> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_.load()) {
    return InvalidError("continuous profiling is not running (nrt_profile_continuous_start)");
  }
  running_.store(false, std::memory_order_release);
  dropped.swap(latest_);
  return Status::Ok();
}

void ContinuousProfiler::Keep(int vnc, ProfileHeader header, ProfiledExecution execution) {
  if (!running()) return;
  auto latest = std::make_shared<Latest>();
  latest->header = std::move(header);
  latest->execution = std::move(execution);
  std::shared_ptr<const Latest> replaced;  // the previous one is freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  if (!running_.load()) return;
  replaced = std::exchange(latest_[vnc], std::move(latest));
}

StatusOr<std::string> ContinuousProfiler::Save(int vnc, const std::string& output_dir) const {
  if (output_dir.empty()) return InvalidError("the continuous-profiling output directory is empty");
  std::shared_ptr<const Latest> latest;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!running_.load()) {
      return InvalidError("continuous profiling is not running (nrt_profile_continuous_start)");
    }
    auto it = latest_.find(vnc);
    if (it == latest_.end()) {
      return InvalidError("logical core " + std::to_string(vnc) +
                          " has run nothing since continuous profiling started");
    }
    latest = it->second;
  }
  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error) return InvalidError("cannot create " + output_dir + ": " + error.message());
  const std::string path = output_dir + "/profile_nc_" + std::to_string(vnc) + "_exec_" +
                           std::to_string(latest->execution.exec_id) + ".ntff";
  TRNSIM_RETURN_IF_ERROR(WriteProfile(path, latest->header, std::span(&latest->execution, 1)));
  return path;
}

}  // namespace trnsim::runtime::profiling
