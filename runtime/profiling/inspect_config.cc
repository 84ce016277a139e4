#include "runtime/profiling/inspect_config.h"

#include <new>
#include <string>

namespace trnsim::runtime::profiling {

void InspectConfig::SetDefaults() { *this = InspectConfig(); }

Status InspectConfig::SetOutputDir(std::string_view dir) {
  if (dir.empty()) return InvalidError("the inspect output directory is empty");
  // AWS documents NRT_RESOURCE for a failed copy; keep that promise rather than throw.
  try {
    output_dir_.assign(dir);
  } catch (const std::bad_alloc&) {
    return ResourceError("cannot allocate a copy of the inspect output directory");
  }
  return Status::Ok();
}

Status InspectConfig::SetDeviceProfileMode(int mode) {
  switch (static_cast<DeviceProfileMode>(mode)) {
    case DeviceProfileMode::kDisabled:
    case DeviceProfileMode::kModel:
    case DeviceProfileMode::kSession:
      device_profile_mode_ = static_cast<DeviceProfileMode>(mode);
      return Status::Ok();
  }
  return InvalidError("device profile mode " + std::to_string(mode) +
                      " is not one of DISABLED (0), MODEL (1), SESSION (2)");
}

Status InspectConfig::SetActivity(std::string_view name, bool enabled) {
  if (name == kAllActivities) {
    enabled ? activities_.set() : activities_.reset();
    return Status::Ok();
  }
  for (size_t i = 0; i < kInspectActivityNames.size(); ++i) {
    if (kInspectActivityNames[i] == name) {
      activities_[i] = enabled;
      return Status::Ok();
    }
  }
  std::string known;
  for (std::string_view activity : kInspectActivityNames) {
    known += activity;
    known += ", ";
  }
  known += kAllActivities;
  return InvalidError("unknown inspect activity type \"" + std::string(name) +
                      "\"; known types: " + known);
}

std::vector<std::string_view> InspectConfig::EnabledActivities() const {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < kInspectActivityNames.size(); ++i) {
    if (activities_[i]) names.push_back(kInspectActivityNames[i]);
  }
  return names;
}

}  // namespace trnsim::runtime::profiling
