#include "runtime/profiling/sys_trace_config.h"

#include <string>

namespace trnsim::runtime::profiling {

std::optional<size_t> FindSysTraceEventType(std::string_view name) {
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    if (kSysTraceEventTypes[i] == name) return i;
  }
  return std::nullopt;
}

void SysTraceConfig::SetDefaults() { *this = SysTraceConfig(); }

void SysTraceConfig::SetCaptureEnabledForNc(uint32_t nc_idx, bool enabled) {
  if (enabled) {
    disabled_ncs_.erase(nc_idx);
  } else {
    disabled_ncs_.insert(nc_idx);
  }
}

bool SysTraceConfig::CaptureEnabledForNc(uint32_t nc_idx) const {
  return disabled_ncs_.count(nc_idx) == 0;
}

Status SysTraceConfig::SetCaptureEnabledForEventType(std::string_view event_type, bool enabled) {
  std::optional<size_t> index = FindSysTraceEventType(event_type);
  if (!index) {
    std::string known;
    for (std::string_view name : kSysTraceEventTypes) {
      known += known.empty() ? "" : ", ";
      known += name;
    }
    return InvalidError("unknown system-trace event type \"" + std::string(event_type) +
                        "\"; known types: " + known);
  }
  enabled_events_[*index] = enabled;
  return Status::Ok();
}

std::vector<std::string_view> SysTraceConfig::EnabledEventTypes() const {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    if (enabled_events_[i]) names.push_back(kSysTraceEventTypes[i]);
  }
  return names;
}

}  // namespace trnsim::runtime::profiling
