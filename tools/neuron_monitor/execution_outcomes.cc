#include "tools/neuron_monitor/execution_outcomes.h"

#include "common/status.h"

namespace trnsim::neuron_monitor {
namespace {

const char* SummaryKey(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "completed";
    case StatusCode::kExecCompletedWithNumErr:
      return "completed_with_num_err";
    case StatusCode::kTimeout:
      return "timed_out";
    case StatusCode::kInvalid:
    case StatusCode::kExecBadInput:
      return "incorrect_input";
    case StatusCode::kQueueFull:
    case StatusCode::kExecNcBusy:
      return "failed_to_queue";
    default:
      return "completed_with_err";
  }
}

// nullptr: not an error.
const char* ErrorKey(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return nullptr;
    case StatusCode::kExecHwErrCollectives:
    case StatusCode::kExecHwErrHbmUe:
    case StatusCode::kExecHwErrNcUe:
    case StatusCode::kExecHwErrDmaAbort:
    case StatusCode::kExecHwErrRepairableHbmUe:
      return "hardware";
    case StatusCode::kTimeout:
      return "transient";
    case StatusCode::kExecSwNqOverflow:
      return "runtime";
    case StatusCode::kExecCompletedWithNumErr:
      return "numerical";
    case StatusCode::kInvalid:
    case StatusCode::kInvalidHandle:
    case StatusCode::kExecBadInput:
    case StatusCode::kExecOob:
      return "model";
    default:
      return "generic";
  }
}

}  // namespace

ExecutionOutcomes SummarizeOutcomes(const std::map<uint32_t, uint64_t>& by_status) {
  ExecutionOutcomes out;
  out.error_summary = {{"generic", 0}, {"numerical", 0}, {"transient", 0},
                       {"model", 0},   {"runtime", 0},   {"hardware", 0}};
  out.execution_summary = {
      {"completed", 0}, {"completed_with_err", 0}, {"completed_with_num_err", 0},
      {"timed_out", 0}, {"incorrect_input", 0},    {"failed_to_queue", 0}};
  for (const auto& [raw_code, count] : by_status) {
    const StatusCode code = static_cast<StatusCode>(raw_code);
    nlohmann::ordered_json& summary = out.execution_summary[SummaryKey(code)];
    summary = summary.get<uint64_t>() + count;
    if (const char* key = ErrorKey(code)) {
      nlohmann::ordered_json& errors = out.error_summary[key];
      errors = errors.get<uint64_t>() + count;
    }
  }
  return out;
}

}  // namespace trnsim::neuron_monitor
