// SimDevice::Execute and what lets executions on distinct cores run at once: validation and
// pinning under the memory lock, then claiming the cores (sim_device.h, "Concurrency").
#include <algorithm>
#include <string>
#include <unordered_set>

#include "common/log.h"
#include "driver/faults/fault_effects.h"
#include "driver/sim/binding_hbm_view.h"
#include "driver/sim/result_conversion.h"
#include "driver/sim/sim_device.h"

namespace trnsim::driver::sim {

// What one execution holds until it ends; the destructor gives it all back, on every path.
class SimDevice::Claim {
 public:
  explicit Claim(SimDevice* device) : device_(device) {}
  ~Claim() {
    if (cores_claimed_) device_->UnclaimCores(cores_);
    if (!pinned_.empty()) device_->Unpin(pinned_);
  }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;

  std::vector<int> cores_;  // instance-wide, in the order of the request
  bool cores_claimed_ = false;
  std::vector<MemoryHandle> pinned_;  // one entry per pin taken
  std::vector<std::shared_ptr<const LoadedProgram>> programs_;
  std::vector<std::unique_ptr<BindingHbmView>> views_;

 private:
  SimDevice* device_;
};

void SimDevice::Notify(Event event, std::span<const int> cores) const {
  if (observer_) observer_(event, cores);
}

void SimDevice::Unpin(std::span<const MemoryHandle> handles) {
  std::unique_lock lock(mutex_);
  for (MemoryHandle handle : handles) {
    auto it = allocations_.find(handle);  // a pinned allocation stays in the map
    if (--it->second.pins == 0 && it->second.freed) {
      Status released = ReleaseLocked(it);
      if (!released.ok()) {
        TRNSIM_LOG(Error, Tdrv) << "releasing freed memory " << handle << ": "
                                << released.ToString();
      }
    }
  }
}

Status SimDevice::ClaimCores(std::span<const int> cores) {
  auto busy = [&] {
    return std::any_of(cores.begin(), cores.end(), [&](int c) { return core_busy_[c]; });
  };
  std::unique_lock cores_lock(cores_mutex_);
  bool told = false;
  while (true) {
    {
      // The cores were held when the request was checked; ReleaseCores may have run since.
      std::shared_lock lock(mutex_);
      for (int c : cores) {
        if (!core_owned_[c]) {
          return FailureError("NeuronCore " + std::to_string(c) +
                              " is not held by this connection (AcquireCores)");
        }
      }
    }
    if (!busy()) break;
    if (!told) {
      told = true;
      cores_lock.unlock();
      Notify(Event::kWaitingForCores, cores);
      cores_lock.lock();
      continue;  // look again: the cores may have been freed meanwhile
    }
    cores_cv_.wait(cores_lock);
  }
  for (int c : cores) core_busy_[c] = true;
  return Status::Ok();
}

void SimDevice::UnclaimCores(std::span<const int> cores) {
  {
    std::lock_guard cores_lock(cores_mutex_);
    for (int c : cores) core_busy_[c] = false;
  }
  cores_cv_.notify_all();
}

StatusOr<ExecutionResult> SimDevice::Execute(std::span<const CoreExecution> cores,
                                             const ExecutionRequestOptions& options) {
  const simulator::InstanceSpec& spec = instance_->spec();
  const simulator::ChipSpec& chip = *spec.chip;
  if (cores.empty()) return InvalidError("an execution needs at least one core");
  if (options.collective && (options.collective->world_size == 0 ||
                             options.collective->rank >= options.collective->world_size)) {
    return InvalidError("collective rank " + std::to_string(options.collective->rank) +
                        " is not within a world of " +
                        std::to_string(options.collective->world_size));
  }
  if (!options.rounding_seeds.empty() && options.rounding_seeds.size() != cores.size()) {
    return InvalidError(std::to_string(options.rounding_seeds.size()) +
                        " stochastic-rounding seeds for " + std::to_string(cores.size()) +
                        " cores (give one per core, or none)");
  }

  // 1. Check everything against the device's state, then pin what the execution uses: no
  //    program or bound allocation goes away until it ends.
  Claim claim(this);
  std::vector<simulator::core::CoreRun> runs;
  {
    std::unique_lock lock(mutex_);
    std::vector<Allocation*> to_pin;
    std::unordered_set<int> seen;
    for (size_t i = 0; i < cores.size(); ++i) {
      const CoreExecution& c = cores[i];
      if (c.chip < 0 || c.chip >= spec.chip_count) {
        return InvalidError("chip " + std::to_string(c.chip) + " is outside the " +
                            std::to_string(spec.chip_count) + " chips of the instance");
      }
      if (c.physical_core < 0 || c.physical_core >= chip.physical_cores) {
        return InvalidError("physical core " + std::to_string(c.physical_core) +
                            " is outside the " + std::to_string(chip.physical_cores) +
                            " cores of a " + chip.name + " chip");
      }
      std::string where =
          "chip " + std::to_string(c.chip) + " core " + std::to_string(c.physical_core) + ": ";
      if (c.chip != cores[0].chip) {
        return InvalidError(where +
                            "the cores of one execution must be on one chip (the "
                            "first is on chip " +
                            std::to_string(cores[0].chip) + ")");
      }
      if (!seen.insert(c.physical_core).second) {
        return InvalidError(where + "the core appears twice in one execution");
      }
      int instance_core = c.chip * chip.physical_cores + c.physical_core;
      if (!core_owned_[instance_core]) {
        return FailureError(where + "NeuronCore " + std::to_string(instance_core) +
                            " is not held by this connection (AcquireCores)");
      }
      auto program = programs_.find(c.program);
      if (program == programs_.end()) {
        return InvalidHandleError(where + "no program with handle " + std::to_string(c.program));
      }
      auto view = std::make_unique<BindingHbmView>();
      for (const VarBinding& b : c.vars) {
        std::span<uint8_t> bytes;
        if (b.size > 0 || b.memory != kInvalidMemoryHandle) {
          StatusOr<const Allocation*> a = Lookup(b.memory, b.offset, b.size);
          if (!a.ok()) {
            return InvalidError(where + "var_id " + std::to_string(b.var_id) + ": " +
                                a.status().message());
          }
          bytes = std::span<uint8_t>(instance_->chip((*a)->info.chip)
                                         .hbm((*a)->info.hbm)
                                         .HostAddress((*a)->hbm_offset + b.offset),
                                     b.size);
          to_pin.push_back(&allocations_.find(b.memory)->second);
        }
        Status bound = view->Bind(b.var_id, bytes);
        if (!bound.ok()) return InvalidError(where + bound.message());
      }
      const LoadedProgram& loaded = *program->second;
      claim.programs_.push_back(program->second);
      simulator::core::CoreRun run;
      run.core = c.physical_core;
      for (int e = 0; e < isa::kEngineCount; ++e) {
        run.validated[e] = loaded.programs[e].get();  // validated at load: not again here
      }
      run.descriptors = &loaded.descriptors;
      run.hbm = view.get();
      claim.views_.push_back(std::move(view));
      claim.cores_.push_back(instance_core);
      runs.push_back(run);
    }
    for (Allocation* a : to_pin) {
      ++a->pins;
      claim.pinned_.push_back(a->info.handle);
    }
  }

  // 2. Claim the cores: wait for an execution running on any of them.
  TRNSIM_RETURN_IF_ERROR(ClaimCores(claim.cores_));
  claim.cores_claimed_ = true;

  // 3. Fault injection decides now that the cores are this execution's (sim_device.h, Faults).
  //    The request's plan (a neurond session's) or else the device's own.
  faults::FaultOutcome fault;
  if (faults::FaultPlan* plan = options.faults != nullptr ? options.faults : faults_.get()) {
    faults::ExecutionSite site;
    site.model_name = claim.programs_.front()->model_name;
    site.physical_cores = claim.cores_;
    site.host_timeout = options.host_timeout;
    fault = plan->BeforeExecution(site);
    if (fault.kind && !fault.corrupt) {
      if (fault.hang) {
        Notify(Event::kHanging, claim.cores_);
        faults::WaitOutHang(options.host_timeout, options.cancel);  // the cores stay claimed
      }
      return fault.status;
    }
  }

  // 4. The cores' state belongs to this execution now.
  for (size_t i = 0; i < cores.size(); ++i) {
    std::unique_ptr<reference::CoreState>& state = core_states_[claim.cores_[i]];
    if (state == nullptr) state = std::make_unique<reference::CoreState>(isa::LimitsFor(chip));
    // Synchronisation state starts clean, so waits count this execution's updates only.
    // SBUF and PSUM persist.
    state->sem.fill(0);
    state->event.fill(0);
    state->rounding = options.stochastic_rounding ? numerics::Rounding::Mode::kStochastic
                                                  : numerics::Rounding::Mode::kNearestEven;
    state->rounding_seed = options.rounding_seeds.empty() ? 0 : options.rounding_seeds[i];
    runs[i].state = state.get();
  }
  Notify(Event::kRunning, claim.cores_);
  simulator::core::ExecuteOptions execute_options;
  execute_options.host_timeout = options.host_timeout;
  if (options.max_host_time.count() > 0 &&
      (options.host_timeout.count() == 0 || options.host_timeout > options.max_host_time)) {
    execute_options.host_timeout = options.max_host_time;
  }
  if (options.max_events != 0) execute_options.max_events = options.max_events;
  execute_options.cancel = options.cancel;
  execute_options.trace = options.trace;
  execute_options.host_threads =
      host_threads_ && simulator::core::HostHasSeveralThreads();  // TRNSIM_HOST_THREADS
  std::unique_ptr<simulator::collective::CollectivePort> port;
  if (options.collective) {
    simulator::collective::RankEndpoint endpoint;
    endpoint.communicator = options.collective->communicator;
    endpoint.rank = options.collective->rank;
    endpoint.world_size = options.collective->world_size;
    endpoint.chip = cores[0].chip;
    endpoint.execution_sequence = options.collective->execution_sequence;
    port = collectives_->Attach(std::move(endpoint), {options.host_timeout, options.cancel});
    execute_options.collectives = port.get();
  }
  const uint64_t device_start_ps = clock_.Start(claim.cores_);
  StatusOr<simulator::core::ExecutionResult> ran =
      simulator::core::Execute(chip, runs, execute_options);
  if (!ran.ok()) return ran.status();
  ExecutionResult result = ToDriverResult(std::move(*ran), device_start_ps);
  clock_.Finish(claim.cores_, device_start_ps, result.duration_ps);
  if (fault.corrupt) {
    Status corrupted = faults::CorruptOutputs(*this, fault.corruption_seed, cores);
    if (!corrupted.ok()) {
      TRNSIM_LOG(Warn, Tdrv) << "corrupting outputs: " << corrupted.message();
    }
  }
  return result;
}

}  // namespace trnsim::driver::sim
