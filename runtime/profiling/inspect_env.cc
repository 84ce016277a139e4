#include "runtime/profiling/inspect_env.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <vector>

namespace trnsim::runtime::profiling {
namespace {

// Far above any process's core count; keeps "0-<max>" expansion small.
constexpr uint32_t kMaxFilterNc = 1 << 20;

Status Malformed(EnvVar var, std::string_view value, const std::string& why) {
  return InvalidError(std::string(EnvInfo(var).name) + "='" + std::string(value) + "' " + why);
}

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> items;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    items.push_back(text.substr(pos, comma == text.npos ? text.npos : comma - pos));
    if (comma == text.npos) return items;
    pos = comma + 1;
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<uint32_t> ParseNc(std::string_view text) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      value > kMaxFilterNc) {
    return std::nullopt;
  }
  return value;
}

// The cores NEURON_RT_INSPECT_EVENT_FILTER_NC names.
StatusOr<std::set<uint32_t>> ParseNcFilter(std::string_view text) {
  std::set<uint32_t> ncs;
  for (std::string_view raw : SplitCommas(text)) {
    std::string_view item = Trim(raw);
    size_t dash = item.find('-');
    std::optional<uint32_t> first = ParseNc(item.substr(0, dash));
    std::optional<uint32_t> last = dash == item.npos ? first : ParseNc(item.substr(dash + 1));
    if (!first || !last) {
      return Malformed(EnvVar::kInspectEventFilterNc, text,
                       "is malformed: '" + std::string(item) + "' is not a core or range");
    }
    if (*last < *first) {
      return Malformed(EnvVar::kInspectEventFilterNc, text,
                       "is malformed: range '" + std::string(item) + "' is decreasing");
    }
    for (uint32_t nc = *first; nc <= *last; ++nc) ncs.insert(nc);
  }
  return ncs;
}

// Indices into kSysTraceEventTypes that `name` (an event type or a group) stands for; empty
// for an unknown name.
std::vector<size_t> EventsNamed(std::string_view name) {
  std::vector<size_t> indices;
  const bool hardware = name == "hardware", software = name == "software";
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    const bool is_hw = std::find(kHardwareSysTraceEvents.begin(), kHardwareSysTraceEvents.end(),
                                 kSysTraceEventTypes[i]) != kHardwareSysTraceEvents.end();
    if ((hardware && is_hw) || (software && !is_hw) || kSysTraceEventTypes[i] == name) {
      indices.push_back(i);
    }
  }
  return indices;
}

// Applies NEURON_RT_INSPECT_EVENT_FILTER_TYPE to `config` (whose types are all enabled).
Status ApplyTypeFilter(std::string_view text, SysTraceConfig& config) {
  std::vector<size_t> included, excluded;
  bool any_inclusion = false;
  for (std::string_view raw : SplitCommas(text)) {
    std::string_view item = Trim(raw);
    const bool exclude = !item.empty() && item.front() == '^';
    if (exclude) item.remove_prefix(1);
    std::vector<size_t> named = EventsNamed(item);
    if (named.empty()) {
      std::string known = "hardware, software";
      for (std::string_view type : kSysTraceEventTypes) known += ", " + std::string(type);
      return Malformed(EnvVar::kInspectEventFilterType, text,
                       "is malformed: '" + std::string(item) + "' is not an event type or group (" +
                           known + ")");
    }
    std::vector<size_t>& into = exclude ? excluded : included;
    into.insert(into.end(), named.begin(), named.end());
    any_inclusion |= !exclude;
  }
  for (size_t i = 0; i < kSysTraceEventTypes.size(); ++i) {
    bool on = !any_inclusion || std::count(included.begin(), included.end(), i) > 0;
    if (std::count(excluded.begin(), excluded.end(), i) > 0) on = false;
    // The name comes from the table itself: cannot fail.
    (void)config.SetCaptureEnabledForEventType(kSysTraceEventTypes[i], on);
  }
  return Status::Ok();
}

StatusOr<DeviceProfileMode> ParseDeviceProfile(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "0") return DeviceProfileMode::kDisabled;
  if (lower == "1" || lower == "model") return DeviceProfileMode::kModel;
  if (lower == "session") return DeviceProfileMode::kSession;
  return Malformed(EnvVar::kInspectDeviceProfile, text,
                   "is not a device profile mode (0, 1 or model, session)");
}

StatusOr<uint64_t> NonNegative(const Environment& env, EnvVar var) {
  TRNSIM_ASSIGN_OR_RETURN(int64_t value, env.GetInt(var));
  if (value < 0) return Malformed(var, env.Get(var), "must not be negative");
  return static_cast<uint64_t>(value);
}

}  // namespace

StatusOr<InspectSettings> ParseInspectSettings(const Environment& env, uint32_t nc_count) {
  InspectSettings settings;
  TRNSIM_ASSIGN_OR_RETURN(settings.enabled, env.GetBool(EnvVar::kInspectEnable));
  settings.output_dir = std::string(env.Get(EnvVar::kInspectOutputDir));
  TRNSIM_ASSIGN_OR_RETURN(settings.system_profile, env.GetBool(EnvVar::kInspectSystemProfile));
  TRNSIM_ASSIGN_OR_RETURN(settings.device_profile,
                          ParseDeviceProfile(env.Get(EnvVar::kInspectDeviceProfile)));
  TRNSIM_ASSIGN_OR_RETURN(settings.device_profile_num_warmup,
                          NonNegative(env, EnvVar::kInspectDeviceProfileNumWarmup));
  TRNSIM_ASSIGN_OR_RETURN(settings.on_fail, env.GetBool(EnvVar::kInspectOnFail));
  TRNSIM_ASSIGN_OR_RETURN(uint64_t ring, NonNegative(env, EnvVar::kInspectSysTraceMaxEventsPerNc));
  settings.sys_trace.set_max_events_per_nc(ring);
  if (std::string_view ncs = env.Get(EnvVar::kInspectEventFilterNc); !ncs.empty()) {
    TRNSIM_ASSIGN_OR_RETURN(std::set<uint32_t> wanted, ParseNcFilter(ncs));
    for (uint32_t nc = 0; nc < nc_count; ++nc) {
      settings.sys_trace.SetCaptureEnabledForNc(nc, wanted.count(nc) > 0);
    }
  }
  if (std::string_view types = env.Get(EnvVar::kInspectEventFilterType); !types.empty()) {
    TRNSIM_RETURN_IF_ERROR(ApplyTypeFilter(types, settings.sys_trace));
  }
  return settings;
}

}  // namespace trnsim::runtime::profiling
