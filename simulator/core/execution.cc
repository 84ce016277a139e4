#include "simulator/core/execution.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "simulator/core/core_model.h"
#include "simulator/core/dma_fabric.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/validate.h"
#include "simulator/sched/scheduler.h"

namespace trnsim::simulator::core {

namespace {

// Events between host-clock and cancel checks: small enough to honour a timeout or a cancel
// promptly, large enough that the checks cost nothing measurable. One event may be a large
// instruction: the 4096x4096 matmul sample averages ~0.2 ms of host time per event (47k events
// in 10 s), so 256 events stay near 50 ms; 65536 let a cancel wait for the whole execution.
constexpr uint64_t kEventsPerSlice = 256;

Status CheckRuns(const ChipSpec& chip, std::span<const CoreRun> runs,
                 const ExecuteOptions& options) {
  if (runs.empty()) return InvalidError("nothing to execute: no core given");
  std::set<int> seen;
  const isa::IsaLimits limits = isa::LimitsFor(chip);
  for (const CoreRun& r : runs) {
    if (r.core < 0 || r.core >= chip.physical_cores)
      return InvalidError("core " + std::to_string(r.core) + " is not a core of " + chip.name);
    if (!seen.insert(r.core).second)
      return InvalidError("core " + std::to_string(r.core) + " given twice");
    if (r.state == nullptr || r.hbm == nullptr)
      return InvalidError("core " + std::to_string(r.core) + " has no state or HBM view");
    if (r.state->limits.sbuf_bytes_per_partition != limits.sbuf_bytes_per_partition ||
        r.state->limits.psum_bytes_per_partition != limits.psum_bytes_per_partition)
      return InvalidError("core " + std::to_string(r.core) + "'s state was made for another chip");
    for (int e = 0; e < isa::kEngineCount; ++e) {
      if (!r.has_program(e)) continue;
      const isa::Engine engine =
          r.validated[e] != nullptr ? r.validated[e]->engine() : r.programs[e]->engine;
      if (engine != isa::Engine(e))
        return InvalidError("core " + std::to_string(r.core) + ": the " +
                            std::string(isa::EngineName(isa::Engine(e))) +
                            " slot holds a program for " + std::string(isa::EngineName(engine)));
      if (r.validated[e] != nullptr) {
        // Validated at load: nothing to redo unless it was validated for another chip.
        if (r.programs[e] != nullptr)
          return InvalidError("core " + std::to_string(r.core) + ": the " +
                              std::string(isa::EngineName(isa::Engine(e))) +
                              " engine is given two programs");
        if (r.validated[e]->limits() != limits)
          return InvalidError("core " + std::to_string(r.core) + ": the " +
                              std::string(isa::EngineName(isa::Engine(e))) +
                              " program was validated for another chip's limits");
        continue;
      }
      if (options.validate) {
        const isa::Program* p = r.programs[e];
        Status st = isa::ValidateProgram(p->engine, p->instructions, limits);
        if (!st.ok())
          return Status(st.code(), "core " + std::to_string(r.core) + ": " + st.message());
      }
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ExecutionResult> Execute(const ChipSpec& chip, std::span<const CoreRun> runs,
                                  const ExecuteOptions& options) {
  TRNSIM_RETURN_IF_ERROR(CheckRuns(chip, runs, options));
  Scheduler scheduler;
  std::vector<int> stacks;
  for (const CoreRun& r : runs) stacks.push_back(chip.HbmStackOfCore(r.core));
  // Priorities: 8 per core (5 engines), the fabric after every core.
  DmaFabric fabric(scheduler, chip, stacks, EventPriority(8 * chip.physical_cores + 8));
  // The core model runs packed programs (isa/packed_program.h): a loaded one is packed already,
  // a plain one is packed here for this execution.
  std::vector<isa::PackedProgram> packed_here;
  for (const CoreRun& r : runs)
    for (const isa::Program* p : r.programs)
      if (p != nullptr) packed_here.push_back(isa::PackedProgram::Pack(*p));
  std::vector<std::unique_ptr<CoreModel>> cores;
  size_t next_packed = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    CoreModel::Programs programs{};
    for (int e = 0; e < isa::kEngineCount; ++e) {
      if (runs[i].validated[e] != nullptr) programs[e] = &runs[i].validated[e]->packed();
      if (runs[i].programs[e] != nullptr) programs[e] = &packed_here[next_packed++];
    }
    cores.push_back(std::make_unique<CoreModel>(scheduler, chip, fabric, int(i), runs[i], programs,
                                                EventPriority(8 * runs[i].core)));
  }
  if (options.trace != nullptr) {
    options.trace->Clear();
    for (auto& c : cores) c->set_trace(options.trace);
  }
  for (auto& c : cores) c->set_collectives(options.collectives);
  if (options.host_threads && cores.size() > 1)
    for (auto& c : cores) c->EnableEffectWorker();
  // Whatever Execute returns, every deferred effect has been applied first: a failed or
  // cancelled execution leaves memory exactly as the serial run leaves it.
  struct DrainAtExit {
    std::vector<std::unique_ptr<CoreModel>>& cores;
    ~DrainAtExit() {
      for (auto& c : cores) c->DrainEffects();
    }
  } drain_at_exit{cores};
  DebugOutput debug(options.debug_limits);
  for (size_t i = 0; i < cores.size(); ++i) cores[i]->set_debug_output(&debug, uint32_t(i));
  // LNC=2 pairs: physical cores 2k and 2k+1 both in the run see each other.
  for (auto& c : cores)
    for (auto& d : cores)
      if (d->physical_core() == (c->physical_core() ^ 1)) c->set_peer(d.get());
  for (auto& c : cores) c->Start();

  const auto host_start = std::chrono::steady_clock::now();
  uint64_t events = 0;
  while (true) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed))
      return FailureError("execution cancelled (at simulated " +
                          std::to_string(scheduler.Now() / 1000) + " ns)");
    const uint64_t budget = std::min(kEventsPerSlice, options.max_events - events);
    const RunResult r = scheduler.RunUntilIdle(budget);
    events += r.events_run;
    for (auto& c : cores)
      if (!c->status().ok()) return c->status();
    if (r.stop == RunStop::kIdle) break;
    if (events >= options.max_events)
      return TimeoutError("execution did not finish within " + std::to_string(options.max_events) +
                          " simulator events (at simulated " +
                          std::to_string(scheduler.Now() / 1000) + " ns)");
    if (options.host_timeout.count() > 0 &&
        std::chrono::steady_clock::now() - host_start > options.host_timeout)
      return TimeoutError("execution exceeded the " + std::to_string(options.host_timeout.count()) +
                          " ms execution timeout (at simulated " +
                          std::to_string(scheduler.Now() / 1000) + " ns)");
  }
  std::string stuck;
  for (auto& c : cores) {
    if (c->done()) continue;
    if (!stuck.empty()) stuck += "; ";
    stuck += c->StuckReport();
  }
  if (!stuck.empty())
    return TimeoutError("deadlock: no engine can make progress and nothing is in flight: " + stuck);
  ExecutionResult result;
  result.events = events;
  result.debug_prints = debug.Take();
  result.debug_prints_dropped = debug.dropped();
  for (auto& c : cores) {
    result.cores.push_back(c->Stats(0));
    result.deferred_effects += c->deferred_effects();
    result.duration_ps = std::max(result.duration_ps, result.cores.back().duration_ps);
  }
  return result;
}

}  // namespace trnsim::simulator::core
