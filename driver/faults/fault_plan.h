// FaultPlan: the device's side of fault injection (docs/faults.md). Given a FaultSpec whose
// rules name physical cores, it decides for each execution (and each program load) whether a
// fault hits it, and keeps what earlier faults left behind: poisoned HBM stacks and dead cores.
// A plan lives as long as one device connection (the in-process SimDevice, or one neurond
// session): re-initialising the runtime opens a new connection and so a healthy device.
//
// Determinism: a rule's ordinals are counted per rule and per core (the execution's first
// physical core), so executions on other cores never shift them; prob= is decided by a hash of
// (seed, rule index, core, ordinal), never a shared random generator. The same spec and the
// same sequence of executions per core give the same decisions, every run.
//
// Order of a decision: an execution that touches a poisoned HBM stack or a dead core fails
// with that fault's status again (an after-effect: no rule counts it). Otherwise every rule
// that matches (model glob, core) counts the execution; the first of them that fires decides.
//
// Where it is applied: by the back end that runs the execution, once it has claimed the cores
// (driver/sim/sim_device.h, "Faults"). The in-process sim device owns its connection's plan;
// neurond owns one per session and hands it to its device with each execution
// (ExecutionRequestOptions::faults), so a spec behaves the same either way (docs/decisions.md).
//
// Thread safety: all methods may be called concurrently (one internal lock, held briefly).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status_or.h"
#include "driver/execution_types.h"
#include "driver/faults/fault_spec.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::driver::faults {

// What the device knows of one execution when it decides.
struct ExecutionSite {
  std::string_view model_name;                // the NEFF name of the first core's program
  std::span<const int> physical_cores;        // instance-wide, the request's order; not empty
  std::chrono::milliseconds host_timeout{0};  // the request's (for the timeout messages)
};

// What happens to one execution.
struct FaultOutcome {
  // The kind of fault that hits the execution, new or an after-effect; unset: none.
  std::optional<FaultKind> kind;
  bool injected = false;  // a rule fired now (false for an after-effect)
  int chip = 0;           // where it hit
  // The status the execution returns: an error for every kind but corrupt (Ok).
  Status status;
  // hang: wait out the execution timeout (WaitOutHang) before returning `status`.
  bool hang = false;
  // corrupt: run normally, then overwrite output words chosen by this seed (CorruptOutputs).
  bool corrupt = false;
  uint64_t corruption_seed = 0;
};

class FaultPlan {
 public:
  // NRT_INVALID when a rule still names a logical core (nc=: the runtime translates it into
  // core=) or a core outside the instance.
  static StatusOr<std::unique_ptr<FaultPlan>> Create(FaultSpec spec,
                                                     const simulator::InstanceSpec& instance);

  // Decides one execution; a fault injected now is logged once at ERROR level and reported to
  // the injection observer.
  FaultOutcome BeforeExecution(const ExecutionSite& site);

  // Called, with no lock held, with the outcome of every execution fault a rule injects (not
  // for after-effects): neurond counts the memory errors per chip for its Status. Set it
  // before the plan is used; it is not synchronised.
  using InjectionObserver = std::function<void(const FaultOutcome&)>;
  void SetInjectionObserver(InjectionObserver observer) { observer_ = std::move(observer); }

  // Decides one program load of model `model_name` on instance-wide physical core `core` (-1:
  // unknown, matched only by rules without a core): NRT_RESOURCE naming the allocation of the
  // image's code (its streams and 16 bytes per DMA descriptor) when a load_oom rule fires, else
  // Ok. The fault is logged once at ERROR level.
  Status BeforeLoad(std::string_view model_name, int core, const ProgramImage& image);

  const FaultSpec& spec() const { return spec_; }

 private:
  FaultPlan(FaultSpec spec, const simulator::InstanceSpec& instance);

  // BeforeExecution without the observer. Takes mutex_.
  FaultOutcome Decide(const ExecutionSite& site);
  // Does `rule` count an event of `model_name` on `cores`?
  static bool Matches(const FaultRule& rule, std::string_view model_name,
                      std::span<const int> cores);
  // Counts the event for rule `index` on `core` and says whether the rule fires; sets
  // `*draw` to the event's hash. Caller holds mutex_.
  bool CountAndDecide(size_t index, int core, uint64_t* draw);
  int HbmStackOf(int physical_core) const;

  const FaultSpec spec_;
  const simulator::InstanceSpec& instance_;
  InjectionObserver observer_;

  std::mutex mutex_;                                     // guards everything below
  std::map<std::pair<size_t, int>, uint64_t> ordinals_;  // (rule, core) -> events counted
  std::vector<uint64_t> fired_;                          // per rule: faults injected
  std::map<int, FaultKind> poisoned_stacks_;  // instance-wide stack (chip*stacks+hbm) -> kind
  std::map<int, FaultKind> dead_cores_;       // instance-wide physical core -> kind
};

}  // namespace trnsim::driver::faults
