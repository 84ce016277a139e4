#include "tools/neuron_profile/system_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

namespace trnsim::neuron_profile {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

std::string DataString(const Json& data, const char* key) {
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// data[key] when it is an unsigned number.
std::optional<uint64_t> DataU64(const Json& data, const char* key) {
  auto it = data.find(key);
  if (it == data.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

struct Totals {
  uint64_t count = 0, open = 0, total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
  bool device = false;  // some span of this row is in device time
};

// (event type, core) -> totals, and the trace's window.
std::map<std::pair<std::string, int64_t>, Totals> Tally(const SystemTrace& trace, uint64_t* first,
                                                        uint64_t* last) {
  std::map<std::pair<std::string, int64_t>, Totals> by;
  *first = UINT64_MAX;
  *last = 0;
  for (const SystemSpan& s : trace.spans) {
    Totals& t = by[{s.event_type, s.nc_idx}];
    ++t.count;
    t.device |= s.device;
    *first = std::min(*first, s.start_ns);
    *last = std::max(*last, s.start_ns + s.duration_ns);
    if (s.open) {
      ++t.open;
      continue;
    }
    t.total_ns += s.duration_ns;
    t.min_ns = std::min(t.min_ns, s.duration_ns);
    t.max_ns = std::max(t.max_ns, s.duration_ns);
  }
  if (trace.spans.empty()) *first = 0;
  return by;
}

}  // namespace

bool IsSystemTrace(const std::string& text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("events") && doc.contains("data_version");
}

StatusOr<SystemTrace> ParseSystemTrace(const std::string& where, const std::string& text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("events") || !doc["events"].is_array()) {
    return InvalidError(where + ": not a system trace (no \"events\" array)");
  }
  SystemTrace trace;
  std::map<uint64_t, size_t> open;  // tracking id -> index of its span
  size_t n = 0;
  for (const Json& e : doc["events"]) {
    const std::string at = where + ": event " + std::to_string(n++);
    if (!e.is_object() || !e.contains("event_type") || !e["event_type"].is_string() ||
        !e.contains("phase") || !e["phase"].is_string() || !e.contains("tracking_id") ||
        !e["tracking_id"].is_number_unsigned() || !e.contains("timestamp_ns") ||
        !e["timestamp_ns"].is_number_unsigned() || !e.contains("nc_idx") ||
        !e["nc_idx"].is_number_integer()) {
      return InvalidError(at + " lacks event_type, phase, tracking_id, timestamp_ns or nc_idx");
    }
    const Json data = e.contains("data") && e["data"].is_object() ? e["data"] : Json::object();
    const uint64_t id = e["tracking_id"].get<uint64_t>();
    const uint64_t ts = e["timestamp_ns"].get<uint64_t>();
    const std::string phase = e["phase"].get<std::string>();
    if (phase == "start") {
      SystemSpan span;
      span.event_type = e["event_type"].get<std::string>();
      span.nc_idx = e["nc_idx"].get<int64_t>();
      if (e.contains("thread_id") && e["thread_id"].is_number_unsigned())
        span.thread_id = e["thread_id"].get<uint64_t>();
      span.start_ns = ts;
      span.open = true;
      span.model_name = DataString(data, "model_name");
      if (std::optional<uint64_t> nc = DataU64(data, "nc_timestamp_ns")) span.device_start_ns = *nc;
      span.device = DataU64(data, "nc_timestamp_ns").has_value();
      if (std::optional<uint64_t> core = DataU64(data, "device_core_idx")) {
        span.device_core_idx = int64_t(*core);
      }
      if (std::optional<uint64_t> exec = DataU64(data, "exec_id")) span.exec_id = int64_t(*exec);
      open[id] = trace.spans.size();
      trace.spans.push_back(std::move(span));
    } else if (phase == "stop") {
      auto it = open.find(id);
      if (it == open.end()) {
        return InvalidError(at + ": stop of tracking_id " + std::to_string(id) +
                            " without its start");
      }
      SystemSpan& span = trace.spans[it->second];
      if (ts < span.start_ns) {
        return InvalidError(at + ": tracking_id " + std::to_string(id) + " stops before it starts");
      }
      span.duration_ns = ts - span.start_ns;
      // A device span lasts its device time: the difference of its device timestamps.
      std::optional<uint64_t> device_stop = DataU64(data, "nc_timestamp_ns");
      if (span.device && device_stop) {
        if (*device_stop < span.device_start_ns) {
          return InvalidError(at + ": tracking_id " + std::to_string(id) +
                              " stops before it starts on the device clock");
        }
        span.duration_ns = *device_stop - span.device_start_ns;
      } else {
        span.device = false;
      }
      span.open = false;
      span.status = DataString(data, "status");
      if (span.model_name.empty()) span.model_name = DataString(data, "model_name");
      open.erase(it);
    } else {
      return InvalidError(at + ": phase '" + phase + "' is neither start nor stop");
    }
  }
  std::stable_sort(trace.spans.begin(), trace.spans.end(),
                   [](const SystemSpan& a, const SystemSpan& b) {
                     return std::tie(a.start_ns, a.event_type) < std::tie(b.start_ns, b.event_type);
                   });
  return trace;
}

std::string SystemTraceSummaryText(const SystemTrace& trace) {
  uint64_t first = 0, last = 0;
  auto by = Tally(trace, &first, &last);
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "system trace: %zu span(s) over %.6f s\n\n", trace.spans.size(),
                double(last - first) / 1e9);
  out += line;
  std::snprintf(line, sizeof line, "  %-20s %4s %-6s %8s %6s %14s %14s %14s\n", "event type", "nc",
                "clock", "count", "open", "total us", "min us", "max us");
  out += line;
  for (const auto& [key, t] : by) {
    const bool closed = t.count > t.open;
    std::snprintf(line, sizeof line, "  %-20s %4lld %-6s %8llu %6llu %14.3f %14.3f %14.3f\n",
                  key.first.c_str(), static_cast<long long>(key.second),
                  t.device ? "device" : "host", static_cast<unsigned long long>(t.count),
                  static_cast<unsigned long long>(t.open), double(t.total_ns) / 1e3,
                  closed ? double(t.min_ns) / 1e3 : 0.0, double(t.max_ns) / 1e3);
    out += line;
  }
  return out;
}

std::string SystemTraceSummaryJson(const SystemTrace& trace) {
  uint64_t first = 0, last = 0;
  auto by = Tally(trace, &first, &last);
  OrderedJson doc;
  doc["spans"] = trace.spans.size();
  doc["window_ns"] = last - first;
  OrderedJson types = OrderedJson::array();
  for (const auto& [key, t] : by) {
    const bool closed = t.count > t.open;
    types.push_back({{"event_type", key.first},
                     {"nc_idx", key.second},
                     {"clock", t.device ? "device" : "host"},
                     {"count", t.count},
                     {"open", t.open},
                     {"total_ns", t.total_ns},
                     {"min_ns", closed ? t.min_ns : 0},
                     {"max_ns", t.max_ns}});
  }
  doc["event_types"] = std::move(types);
  return doc.dump(2) + "\n";
}

std::string SystemTracePerfetto(const SystemTrace& trace) {
  OrderedJson events = OrderedJson::array();
  std::map<int64_t, int> pids;                      // core -> pid
  std::map<std::pair<int, std::string>, int> tids;  // (pid, event type) -> tid
  const uint64_t origin = trace.spans.empty() ? 0 : trace.spans.front().start_ns;
  for (const SystemSpan& s : trace.spans) {
    auto [p, new_pid] = pids.try_emplace(s.nc_idx, int(pids.size()) + 1);
    if (new_pid) {
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", p->second},
                        {"tid", 0},
                        {"args", {{"name", "NC " + std::to_string(s.nc_idx)}}}});
    }
    // Device spans get a row per physical core: an LNC=2 run has one span on each.
    const std::string row = s.device && s.device_core_idx >= 0
                                ? s.event_type + " (core " + std::to_string(s.device_core_idx) + ")"
                                : s.event_type;
    auto [t, new_tid] = tids.try_emplace({p->second, row}, int(tids.size()) + 1);
    if (new_tid) {
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", p->second},
                        {"tid", t->second},
                        {"args", {{"name", row}}}});
    }
    OrderedJson slice = {{"ph", "X"},
                         {"name", s.event_type},
                         {"pid", p->second},
                         {"tid", t->second},
                         {"ts", double(s.start_ns - origin) / 1e3},
                         {"dur", double(s.duration_ns) / 1e3}};
    slice["args"] = {{"model_name", s.model_name},
                     {"status", s.status},
                     {"thread_id", s.thread_id},
                     {"open", s.open}};
    if (s.device) {
      slice["args"]["clock"] = "device";
      slice["args"]["nc_timestamp_ns"] = s.device_start_ns;
      slice["args"]["device_core_idx"] = s.device_core_idx;
    }
    if (s.exec_id >= 0) slice["args"]["exec_id"] = s.exec_id;
    events.push_back(std::move(slice));
  }
  OrderedJson doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  return doc.dump() + "\n";
}

}  // namespace trnsim::neuron_profile
