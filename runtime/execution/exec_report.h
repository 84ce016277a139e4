// The execution report (TRNSIM_EXEC_REPORT=1): one line per execution, so an unmodified
// application shows trnsim's timing in its log:
//   model 'attention_bf16' vnc 0: 41.250 us simulated (1 core) | PE 63.1% ACT 12.0% DVE 20.4%
//   POOL 0.0% SP 0.3% | DMA 786432 B in 12 transfers | HBM read 786432 B, write 131072 B
// (one line; shown wrapped). Utilisation is an engine's busy time over the execution's
// duration, averaged over the cores that ran; DMA and HBM figures are summed over cores.
#pragma once

#include <string>

#include "driver/execution_result.h"

namespace trnsim::runtime::execution {

std::string FormatExecReport(const std::string& model_name, int vnc,
                             const driver::ExecutionResult& result);

// busy / duration over the cores of `result` for engine `engine`, in 0..1 (0 for a zero
// duration).
double EngineUtilization(const driver::ExecutionResult& result, int engine);

}  // namespace trnsim::runtime::execution
