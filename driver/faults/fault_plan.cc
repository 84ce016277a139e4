#include "driver/faults/fault_plan.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>

#include "common/log.h"
#include "driver/faults/fault_messages.h"

namespace trnsim::driver::faults {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The hash of one event of one rule: a pure function of its four inputs.
uint64_t EventHash(uint64_t seed, size_t rule, int core, uint64_t ordinal) {
  uint64_t h = Mix(seed);
  h = Mix(h ^ uint64_t(rule));
  h = Mix(h ^ uint64_t(uint32_t(core)));
  return Mix(h ^ ordinal);
}

bool LeavesPoisonedStack(FaultKind kind) {
  return kind == FaultKind::kHbmUe || kind == FaultKind::kRepairableHbmUe;
}

bool LeavesDeadCore(FaultKind kind) {
  return kind == FaultKind::kNcUe || kind == FaultKind::kDmaAbort || kind == FaultKind::kHang;
}

}  // namespace

StatusOr<std::unique_ptr<FaultPlan>> FaultPlan::Create(FaultSpec spec,
                                                       const simulator::InstanceSpec& instance) {
  for (size_t i = 0; i < spec.rules.size(); ++i) {
    const FaultRule& rule = spec.rules[i];
    std::string where = "TRNSIM_FAULTS rule " + std::to_string(i + 1) + " '" +
                        std::string(FaultKindName(rule.kind)) + "': ";
    if (rule.nc) {
      return InvalidError(where + "nc=" + std::to_string(*rule.nc) +
                          " is a logical core; the device needs core= (the runtime translates)");
    }
    if (rule.physical_core && *rule.physical_core >= instance.PhysicalCores()) {
      return InvalidError(where + "core=" + std::to_string(*rule.physical_core) +
                          " is outside the " + std::to_string(instance.PhysicalCores()) +
                          " physical cores of a " + instance.type_name);
    }
  }
  return std::unique_ptr<FaultPlan>(new FaultPlan(std::move(spec), instance));
}

FaultPlan::FaultPlan(FaultSpec spec, const simulator::InstanceSpec& instance)
    : spec_(std::move(spec)), instance_(instance), fired_(spec_.rules.size(), 0) {}

int FaultPlan::HbmStackOf(int physical_core) const {
  const simulator::ChipSpec& chip = *instance_.chip;
  return (physical_core / chip.physical_cores) * chip.hbm_stacks +
         chip.HbmStackOfCore(physical_core % chip.physical_cores);
}

bool FaultPlan::Matches(const FaultRule& rule, std::string_view model_name,
                        std::span<const int> cores) {
  if (rule.physical_core &&
      std::find(cores.begin(), cores.end(), *rule.physical_core) == cores.end()) {
    return false;
  }
  if (!rule.model_glob.empty()) {
    const std::string name(model_name);
    if (fnmatch(rule.model_glob.c_str(), name.c_str(), 0) != 0) return false;
  }
  return true;
}

bool FaultPlan::CountAndDecide(size_t index, int core, uint64_t* draw) {
  const FaultRule& rule = spec_.rules[index];
  const uint64_t ordinal = ++ordinals_[{index, core}];
  *draw = EventHash(rule.seed, index, core, ordinal);
  if (rule.max_faults && fired_[index] >= *rule.max_faults) return false;
  if (rule.exec_ordinal && ordinal != *rule.exec_ordinal) return false;
  if (rule.probability) {
    // The top 53 bits as a fraction in [0, 1): prob=1 always fires, prob=0 never.
    const double u = double(*draw >> 11) * 0x1.0p-53;
    if (!(u < *rule.probability)) return false;
  }
  return true;
}

FaultOutcome FaultPlan::BeforeExecution(const ExecutionSite& site) {
  FaultOutcome outcome = Decide(site);
  if (outcome.injected && observer_) observer_(outcome);
  return outcome;
}

FaultOutcome FaultPlan::Decide(const ExecutionSite& site) {
  const simulator::ChipSpec& chip = *instance_.chip;
  FaultOutcome outcome;
  if (site.physical_cores.empty()) return outcome;
  auto place_of = [&](int physical, size_t rule) {
    FaultPlace place;
    place.chip = physical / chip.physical_cores;
    place.core = physical % chip.physical_cores;
    place.hbm = chip.HbmStackOfCore(place.core);
    place.model = site.model_name;
    place.host_timeout = site.host_timeout;
    place.rule = rule;
    return place;
  };
  std::lock_guard lock(mutex_);
  for (int physical : site.physical_cores) {
    std::optional<FaultKind> left;
    if (auto it = dead_cores_.find(physical); it != dead_cores_.end()) left = it->second;
    if (auto it = poisoned_stacks_.find(HbmStackOf(physical));
        !left && it != poisoned_stacks_.end()) {
      left = it->second;
    }
    if (left) {
      outcome.kind = *left;
      outcome.chip = physical / chip.physical_cores;
      outcome.status = AfterEffectStatus(*left, place_of(physical, 0));
      outcome.hang = *left == FaultKind::kHang;
      return outcome;
    }
  }
  const int counted_core = site.physical_cores.front();
  for (size_t i = 0; i < spec_.rules.size(); ++i) {
    const FaultRule& rule = spec_.rules[i];
    if (rule.kind == FaultKind::kLoadOom || !Matches(rule, site.model_name, site.physical_cores)) {
      continue;
    }
    uint64_t draw = 0;
    // Every matching rule counts the execution, even once another has fired.
    if (!CountAndDecide(i, counted_core, &draw) || outcome.kind) continue;
    ++fired_[i];
    const int physical = rule.physical_core.value_or(counted_core);
    FaultPlace place = place_of(physical, i);
    outcome.kind = rule.kind;
    outcome.injected = true;
    outcome.chip = place.chip;
    outcome.status = InjectedFaultStatus(rule.kind, place);
    outcome.hang = rule.kind == FaultKind::kHang;
    outcome.corrupt = rule.kind == FaultKind::kCorrupt;
    outcome.corruption_seed = Mix(draw);
    if (LeavesPoisonedStack(rule.kind)) poisoned_stacks_[HbmStackOf(physical)] = rule.kind;
    if (LeavesDeadCore(rule.kind)) dead_cores_[physical] = rule.kind;
    if (outcome.corrupt) {
      TRNSIM_LOG(Error, Tdrv) << "[ND " << place.chip << "][NC " << place.core
                              << "] silent data corruption of the outputs of model "
                              << site.model_name << " (injected by TRNSIM_FAULTS rule " << i + 1
                              << ")";
    } else {
      TRNSIM_LOG(Error, Tdrv) << outcome.status.message();
    }
  }
  return outcome;
}

Status FaultPlan::BeforeLoad(std::string_view model_name, int core, const ProgramImage& image) {
  const simulator::ChipSpec& chip = *instance_.chip;
  std::lock_guard lock(mutex_);
  const std::span<const int> cores(&core, core >= 0 ? 1 : 0);
  for (size_t i = 0; i < spec_.rules.size(); ++i) {
    const FaultRule& rule = spec_.rules[i];
    if (rule.kind != FaultKind::kLoadOom || !Matches(rule, model_name, cores)) continue;
    uint64_t draw = 0;
    if (!CountAndDecide(i, core, &draw)) continue;
    ++fired_[i];
    FaultPlace place;
    const int physical = std::max(core, 0);
    place.chip = physical / chip.physical_cores;
    place.core = physical % chip.physical_cores;
    place.hbm = chip.HbmStackOfCore(place.core);
    place.model = model_name;
    place.rule = i;
    constexpr uint64_t kDescriptorBytes = 16;  // one UDMA descriptor
    uint64_t bytes = 0;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      bytes += image.streams[e].size() + kDescriptorBytes * image.descriptors.per_engine[e].size();
    }
    Status status = InjectedFaultStatus(FaultKind::kLoadOom, place, bytes);
    TRNSIM_LOG(Error, Tdrv) << status.message();
    return status;
  }
  return Status::Ok();
}

}  // namespace trnsim::driver::faults
