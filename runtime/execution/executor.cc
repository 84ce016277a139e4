#include "runtime/execution/executor.h"

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/log.h"
#include "runtime/execution/exec_report.h"
#include "runtime/execution/host_staging.h"
#include "runtime/execution/io_address_tables.h"
#include "runtime/execution/numerical_check.h"
#include "runtime/execution/var_bindings.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::runtime::execution {
namespace {

// Prefixes a failing status with the model and where it runs, keeping its code.
Status InContext(const model::Model& model, const Status& status) {
  return Status(status.code(), "model '" + model.name() + "' on logical core " +
                                   std::to_string(model.vnc()) + ": " + status.message());
}

}  // namespace

Executor::Executor(driver::Device* device, const simulator::ChipSpec& chip, ExecutorOptions options)
    : device_(device),
      chip_(chip),
      options_(options),
      claims_(options.core_claims != nullptr ? options.core_claims : &own_claims_),
      core_sessions_(profiling::ProfileHeader{"", 0, chip.name, options_.instance_name}) {}

Executor::~Executor() = default;

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
  std::lock_guard<std::mutex> lock(claims_->Of(model.vnc()));
  const uint64_t run_started_ns = profiling::SysTraceRecorder::NowNs();
  uint64_t exec_id = 0;
  {
    std::lock_guard<std::mutex> state_lock(state_mutex_);
    exec_id = ++runs_;
  }
  uint64_t execution_index = 0;
  uint64_t attempt = 0;
  {
    std::lock_guard<std::mutex> records_lock(records_mutex_);
    ExecutionRecord& record = records_[&model];
    execution_index = record.execution_count;
    attempt = record.attempts++;
  }
  driver::AllocationRequest staging_place;
  staging_place.chip = where.chip;
  staging_place.hbm = where.hbm;
  staging_place.owner_core = where.first_physical;
  HostStaging staging(device_, staging_place);
  std::vector<driver::CoreExecution> cores(subgraphs.size());
  driver::ExecutionRequestOptions request;
  request.host_timeout = options_.host_timeout;
  request.stochastic_rounding = options_.stochastic_rounding;
  if (model.collective_rank()) {
    // Ranks meet on the n-th execution of their models: every attempt counts, failed ones too,
    // so one rank's failure does not shift it against the others.
    request.collective = *model.collective_rank();
    request.collective->execution_sequence = attempt;
  }
  for (size_t sg = 0; sg < subgraphs.size(); ++sg) {
    const model::SubgraphMemory& memory = model.memory(static_cast<int>(sg));
    TRNSIM_RETURN_IF_ERROR(WriteIoAddresses(subgraphs[sg], memory, binding, device_));
    driver::CoreExecution& core = cores[sg];
    int physical = where.first_physical + static_cast<int>(sg);
    core.program = model.program_handle(static_cast<int>(sg));
    core.chip = physical / chip_.physical_cores;
    core.physical_core = physical % chip_.physical_cores;
    TRNSIM_ASSIGN_OR_RETURN(core.vars,
                            BindVariables(subgraphs[sg], memory, scratchpad, binding, staging));
    // Stochastic rounding draws from the stream of (seed, execution n of this model, subgraph).
    request.rounding_seeds.push_back(
        (uint64_t(numerics::StochasticBits(options_.rounding_seed, execution_index)) << 32) |
        numerics::StochasticBits(options_.rounding_seed ^ 0x5bd1e9955bd1e995ull,
                                 execution_index * 2 + sg));
  }

  const CaptureWants wants = WantsCapture(model);
  simulator::core::ExecutionTrace trace;
  if (wants.any()) request.trace = &trace;

  RunOutcome outcome;
  outcome.exec_id = exec_id;
  outcome.run_started_ns = run_started_ns;
  auto started = std::chrono::steady_clock::now();
  StatusOr<driver::ExecutionResult> result = device_->Execute(cores, request);
  outcome.sync_cpu_ns = profiling::SysTraceRecorder::NowNs();
  auto host_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
  // Outputs in host memory get what the run wrote, even when it failed part-way (on hardware
  // the engines write them in place).
  const Status copied = staging.CopyOut();
  if (!result.ok()) {
    outcome.status = result.status();
  } else if (!copied.ok()) {
    outcome.status = copied;
  } else if (options_.check_numerics) {
    outcome.status = CheckOutputs(model, binding, &outcome.numerical_error);
  }
  if (request.trace != nullptr) {
    profiling::ProfiledExecution captured;
    captured.index = execution_index;
    captured.exec_id = exec_id;
    captured.model_name = model.name();
    captured.status = result.ok() ? Status::Ok() : result.status();
    if (result.ok()) {
      captured.result = *result;
      captured.result.debug_prints.clear();  // a profile keeps statistics, not printed tensors
    }
    captured.trace = std::move(trace);
    Capture(model, wants, std::move(captured));
  }
  TraceRun(model, cores, result, outcome);
  if (!result.ok()) return result.status();
  TRNSIM_RETURN_IF_ERROR(copied);

  if (options_.report) {
    LogLine(LogLevel::kInfo, LogComponent::kNrt, "nrt_execute",
            FormatExecReport(model.name(), model.vnc(), *result));
  }
  DeliverDebugPrints(model, *result);
  {
    std::lock_guard<std::mutex> records_lock(records_mutex_);
    ExecutionRecord& record = records_[&model];
    record.last = std::move(*result);
    record.execution_count += 1;
    record.host_ns = static_cast<uint64_t>(host_ns);
  }
  return outcome.status;  // NRT_EXEC_COMPLETED_WITH_NUM_ERR still counts as an execution
}

void Executor::DeliverDebugPrints(const model::Model& model, driver::ExecutionResult& result) {
  if (options_.debug_streams != nullptr &&
      (!result.debug_prints.empty() || result.debug_prints_dropped > 0)) {
    // Print k names prefix prefix_id of its core's subgraph; the loader checked every id, so the
    // fallback only covers a device that reports one it was never given.
    const std::vector<neff::Subgraph>& subgraphs = model.neff().subgraphs;
    std::vector<std::string> unknown;
    unknown.reserve(result.debug_prints.size());
    std::vector<std::string_view> prefixes;
    prefixes.reserve(result.debug_prints.size());
    for (const driver::DebugPrint& p : result.debug_prints) {
      if (p.core < subgraphs.size() && p.prefix_id < subgraphs[p.core].debug_prefixes.size()) {
        prefixes.push_back(subgraphs[p.core].debug_prefixes[p.prefix_id]);
      } else {
        unknown.push_back("debug_print prefix " + std::to_string(p.prefix_id));
        prefixes.push_back(unknown.back());
      }
    }
    options_.debug_streams->Deliver(model.vnc(), result.debug_prints, prefixes,
                                    result.debug_prints_dropped);
  }
  // The model's record keeps the statistics, not the printed tensors.
  std::vector<driver::DebugPrint>().swap(result.debug_prints);
}

Status Executor::CheckOutputs(const model::Model& model, const IoBinding& binding,
                              std::optional<profiling::DeviceNumericalError>* found) const {
  for (const neff::TensorDecl& decl : model.tensors()) {
    if (decl.usage != neff::TensorUsage::kOutput) continue;
    if (decl.dtype != isa::Dtype::kFloat32 && decl.dtype != isa::Dtype::kFloat32r &&
        decl.dtype != isa::Dtype::kBfloat16 && decl.dtype != isa::Dtype::kFloat16 &&
        decl.dtype != isa::Dtype::kFloat8E3 && decl.dtype != isa::Dtype::kFloat8E4 &&
        decl.dtype != isa::Dtype::kFloat8E5) {
      continue;
    }
    const Tensor* tensor = binding.Find(decl.name);
    if (tensor == nullptr) continue;
    std::vector<uint8_t> bytes(decl.size);
    TRNSIM_RETURN_IF_ERROR(tensor->Read(0, bytes.data(), bytes.size()));
    const NonFiniteCount count = CountNonFinite(decl.dtype, bytes);
    if (count.any()) {
      *found = profiling::DeviceNumericalError{decl.name, count.nan, count.inf};
      return NumericalErrorStatus(decl.name, decl.dtype, count);
    }
  }
  return Status::Ok();
}

std::optional<ExecutionRecord> Executor::Last(const model::Model* model) const {
  std::lock_guard<std::mutex> lock(records_mutex_);
  auto it = records_.find(model);
  if (it == records_.end() || it->second.execution_count == 0) return std::nullopt;
  return it->second;
}

void Executor::Forget(const model::Model* model, uint64_t model_id) {
  profiles_.Forget(model);
  {
    std::lock_guard<std::mutex> lock(state_mutex_);
    inspect_selector_.Forget(model_id);
  }
  std::lock_guard<std::mutex> lock(records_mutex_);
  records_.erase(model);
}

}  // namespace trnsim::runtime::execution
