#include "driver/faults/fault_spec.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace trnsim::driver::faults {
namespace {

struct KindName {
  FaultKind kind;
  std::string_view name;
};

constexpr std::array<KindName, 10> kKinds = {{
    {FaultKind::kHbmUe, "hbm_ue"},
    {FaultKind::kRepairableHbmUe, "repairable_hbm_ue"},
    {FaultKind::kNcUe, "nc_ue"},
    {FaultKind::kDmaAbort, "dma_abort"},
    {FaultKind::kCollectives, "collectives"},
    {FaultKind::kTimeout, "timeout"},
    {FaultKind::kNqOverflow, "nq_overflow"},
    {FaultKind::kCorrupt, "corrupt"},
    {FaultKind::kHang, "hang"},
    {FaultKind::kLoadOom, "load_oom"},
}};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::optional<uint64_t> ParseUnsigned(std::string_view s) {
  uint64_t value = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> ParseProbability(std::string_view s) {
  double value = 0;
  auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (!std::isfinite(value) || value < 0.0 || value > 1.0) return std::nullopt;
  return value;
}

// Applies one key=value to `rule`; the error text names the key and value.
Status ApplyKey(std::string_view key, std::string_view value, FaultRule& rule) {
  auto bad = [&](std::string_view expected) {
    return InvalidError(std::string(key) + "='" + std::string(value) + "' is not " +
                        std::string(expected));
  };
  if (key == "model") {
    if (value.empty()) return bad("a NEFF name pattern");
    rule.model_glob = std::string(value);
  } else if (key == "nc" || key == "core") {
    std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n > 1'000'000) return bad("a core index (0, 1, ...)");
    (key == "nc" ? rule.nc : rule.physical_core) = int(*n);
  } else if (key == "exec") {
    std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n == 0) return bad("an execution number (1 is the first)");
    rule.exec_ordinal = *n;
  } else if (key == "prob") {
    std::optional<double> p = ParseProbability(value);
    if (!p) return bad("a probability between 0 and 1");
    rule.probability = *p;
  } else if (key == "seed") {
    std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n) return bad("an unsigned 64-bit seed");
    rule.seed = *n;
  } else if (key == "count") {
    std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n == 0) return bad("a number of faults (at least 1)");
    rule.max_faults = *n;
  } else {
    return InvalidError("unknown key '" + std::string(key) +
                        "' (known: model, nc, core, exec, prob, seed, count)");
  }
  return Status::Ok();
}

StatusOr<FaultRule> ParseRule(std::string_view text) {
  size_t colon = text.find(':');
  std::string_view kind_name = Trim(text.substr(0, colon));
  FaultRule rule;
  bool known = false;
  std::string names;
  for (const KindName& k : kKinds) {
    if (k.name == kind_name) {
      rule.kind = k.kind;
      known = true;
    }
    names += (names.empty() ? "" : ", ") + std::string(k.name);
  }
  if (!known) {
    return InvalidError("unknown fault kind '" + std::string(kind_name) + "' (known: " + names +
                        ")");
  }
  if (colon == std::string_view::npos) return rule;
  std::set<std::string_view> seen;
  bool has_seed = false;
  for (std::string_view pair : Split(text.substr(colon + 1), ',')) {
    pair = Trim(pair);
    size_t equals = pair.find('=');
    if (equals == std::string_view::npos) {
      return InvalidError("'" + std::string(pair) + "' is not key=value");
    }
    std::string_view key = Trim(pair.substr(0, equals));
    std::string_view value = Trim(pair.substr(equals + 1));
    if (!seen.insert(key).second) return InvalidError("key '" + std::string(key) + "' twice");
    TRNSIM_RETURN_IF_ERROR(ApplyKey(key, value, rule));
    has_seed = has_seed || key == "seed";
  }
  if (rule.nc && rule.physical_core) {
    return InvalidError("nc= and core= both name the core; give one");
  }
  if (has_seed && !rule.probability) {
    return InvalidError("seed= without prob= (the seed only chooses which executions fail)");
  }
  return rule;
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

StatusOr<FaultSpec> ParseFaultSpec(std::string_view text) {
  FaultSpec spec;
  int position = 0;
  for (std::string_view rule_text : Split(text, ';')) {
    rule_text = Trim(rule_text);
    ++position;
    if (rule_text.empty()) continue;
    StatusOr<FaultRule> rule = ParseRule(rule_text);
    if (!rule.ok()) {
      return InvalidError("TRNSIM_FAULTS rule " + std::to_string(position) + " '" +
                          std::string(rule_text) + "': " + rule.status().message());
    }
    spec.rules.push_back(std::move(*rule));
  }
  return spec;
}

std::string FormatFaultSpec(const FaultSpec& spec) {
  std::string text;
  for (const FaultRule& rule : spec.rules) {
    if (!text.empty()) text += ';';
    text += FaultKindName(rule.kind);
    std::vector<std::string> keys;
    if (!rule.model_glob.empty()) keys.push_back("model=" + rule.model_glob);
    if (rule.nc) keys.push_back("nc=" + std::to_string(*rule.nc));
    if (rule.physical_core) keys.push_back("core=" + std::to_string(*rule.physical_core));
    if (rule.exec_ordinal) keys.push_back("exec=" + std::to_string(*rule.exec_ordinal));
    if (rule.probability) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", *rule.probability);
      keys.push_back(std::string("prob=") + buffer);
      keys.push_back("seed=" + std::to_string(rule.seed));
    }
    if (rule.max_faults) keys.push_back("count=" + std::to_string(*rule.max_faults));
    for (size_t i = 0; i < keys.size(); ++i) text += (i == 0 ? ':' : ',') + keys[i];
  }
  return text;
}

}  // namespace trnsim::driver::faults
