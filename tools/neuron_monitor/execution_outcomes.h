// How neuron-monitor's execution_stats sorts executions by the status they returned
// (tools-driver-facts.md §3.4; docs/faults.md has the table). The daemon counts each session's
// executions by the NRT status its Device returned (observe::ProcessView::execution_statuses);
// statuses the client's runtime adds after the Device (NRT_EXEC_COMPLETED_WITH_NUM_ERR from
// NEURON_FAIL_ON_NAN) never reach the daemon, so they count as completed.
//   execution_summary  0 completed; 1003 completed_with_num_err; 5 timed_out; 2, 1002
//                      incorrect_input; 7, 1005 failed_to_queue; any other completed_with_err
//   error_summary      1200-1203, 1205 hardware; 5 transient; 1204 runtime; 1003 numerical;
//                      2, 3, 1002, 1006 model; any other failure generic; 0 none
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

namespace trnsim::neuron_monitor {

struct ExecutionOutcomes {
  nlohmann::ordered_json error_summary;      // {generic, numerical, transient, model, runtime,
                                             //  hardware}
  nlohmann::ordered_json execution_summary;  // {completed, completed_with_err,
                                             //  completed_with_num_err, timed_out,
                                             //  incorrect_input, failed_to_queue}
};

// Both summaries of the executions counted in `by_status` (NRT status code -> executions).
ExecutionOutcomes SummarizeOutcomes(const std::map<uint32_t, uint64_t>& by_status);

}  // namespace trnsim::neuron_monitor
