#include "runtime/execution/executor.h"

#include <vector>

#include "common/log.h"
#include "runtime/execution/exec_report.h"
#include "runtime/execution/io_address_tables.h"
#include "runtime/execution/subgraph_hbm_view.h"
#include "simulator/isa/limits.h"

namespace trnsim::runtime::execution {
namespace {

// Prefixes a failing status with the model and where it runs, keeping its code.
Status InContext(const model::Model& model, const Status& status) {
  return Status(status.code(), "model '" + model.name() + "' on logical core " +
                                   std::to_string(model.vnc()) + ": " + status.message());
}

}  // namespace

Executor::Executor(driver::Device* device, const simulator::ChipSpec& chip, ExecutorOptions options)
    : device_(device), chip_(chip), options_(options) {}

Executor::~Executor() = default;

reference::CoreState* Executor::StateOf(int physical_core) {
  std::unique_ptr<reference::CoreState>& state = core_states_[physical_core];
  if (state == nullptr) state = std::make_unique<reference::CoreState>(isa::LimitsFor(chip_));
  return state.get();
}

Status Executor::Execute(const model::Model& model, const CoreLocation& where,
                         const model::SharedScratchpad& scratchpad, const IoBinding& binding,
                         int repeat) {
  for (int i = 0; i < repeat; ++i) {
    Status ran = RunOnce(model, where, scratchpad, binding);
    if (!ran.ok()) return InContext(model, ran);
  }
  return Status::Ok();
}

Status Executor::RunOnce(const model::Model& model, const CoreLocation& where,
                         const model::SharedScratchpad& scratchpad, const IoBinding& binding) {
  const std::vector<neff::Subgraph>& subgraphs = model.neff().subgraphs;
  std::vector<std::unique_ptr<SubgraphHbmView>> views;
  std::vector<simulator::core::CoreRun> runs;
  std::lock_guard<std::mutex> lock(execute_mutex_);
  uint64_t execution_index = 0;
  {
    std::lock_guard<std::mutex> records_lock(records_mutex_);
    auto it = records_.find(&model);
    if (it != records_.end()) execution_index = it->second.execution_count;
  }
  for (size_t sg = 0; sg < subgraphs.size(); ++sg) {
    TRNSIM_RETURN_IF_ERROR(
        WriteIoAddresses(subgraphs[sg], model.memory(static_cast<int>(sg)), binding, device_));
    TRNSIM_ASSIGN_OR_RETURN(
        std::unique_ptr<SubgraphHbmView> view,
        SubgraphHbmView::Create(subgraphs[sg], model.memory(static_cast<int>(sg)), scratchpad,
                                binding, device_));
    int physical = where.first_physical + static_cast<int>(sg);
    simulator::core::CoreRun run;
    run.core = physical % chip_.physical_cores;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      run.programs[e] = model.programs().program(sg, static_cast<neff::EngineKind>(e));
    }
    run.descriptors = &model.dma_table(static_cast<int>(sg));
    run.state = StateOf(physical);
    // Synchronisation state starts clean: the runtime resets semaphores and events before
    // each execution, so waits count this execution's updates only. SBUF and PSUM persist.
    run.state->sem.fill(0);
    run.state->event.fill(0);
    // Stochastic rounding draws from the stream of (seed, execution n of this model, subgraph).
    run.state->rounding = options_.stochastic_rounding ? numerics::Rounding::Mode::kStochastic
                                                       : numerics::Rounding::Mode::kNearestEven;
    run.state->rounding_seed =
        (uint64_t(numerics::StochasticBits(options_.rounding_seed, execution_index)) << 32) |
        numerics::StochasticBits(options_.rounding_seed ^ 0x5bd1e9955bd1e995ull,
                                 execution_index * 2 + sg);
    run.hbm = view.get();
    views.push_back(std::move(view));
    runs.push_back(run);
  }

  simulator::core::ExecuteOptions options;
  options.host_timeout = options_.host_timeout;
  auto started = std::chrono::steady_clock::now();
  StatusOr<simulator::core::ExecutionResult> result =
      simulator::core::Execute(chip_, runs, options);
  auto host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
  if (!result.ok()) return result.status();

  if (options_.report) {
    LogLine(LogLevel::kInfo, LogComponent::kNrt, "nrt_execute",
            FormatExecReport(model.name(), model.vnc(), *result));
  }
  std::lock_guard<std::mutex> records_lock(records_mutex_);
  ExecutionRecord& record = records_[&model];
  record.last = std::move(*result);
  record.execution_count += 1;
  record.host_ns = static_cast<uint64_t>(host_ns);
  return Status::Ok();
}

std::optional<ExecutionRecord> Executor::Last(const model::Model* model) const {
  std::lock_guard<std::mutex> lock(records_mutex_);
  auto it = records_.find(model);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

void Executor::Forget(const model::Model* model) {
  std::lock_guard<std::mutex> lock(records_mutex_);
  records_.erase(model);
}

}  // namespace trnsim::runtime::execution
