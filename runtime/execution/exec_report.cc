#include "runtime/execution/exec_report.h"

#include <cctype>
#include <cstdio>

#include "simulator/isa/engine.h"

namespace trnsim::runtime::execution {

double EngineUtilization(const driver::ExecutionResult& result, int engine) {
  if (result.duration_ps == 0 || result.cores.empty()) return 0.0;
  double busy = 0.0;
  for (const driver::CoreStats& core : result.cores) {
    busy += static_cast<double>(core.engines[engine].busy_ps);
  }
  return busy / (static_cast<double>(result.duration_ps) * result.cores.size());
}

std::string FormatExecReport(const std::string& model_name, int vnc,
                             const driver::ExecutionResult& result) {
  uint64_t dma_bytes = 0, transfers = 0, hbm_read = 0, hbm_write = 0;
  for (const driver::CoreStats& core : result.cores) {
    for (const driver::QueueStats& q : core.queues) {
      dma_bytes += q.bytes;
      transfers += q.transfers;
    }
    hbm_read += core.hbm_read_bytes;
    hbm_write += core.hbm_write_bytes;
  }
  char time[64];
  std::snprintf(time, sizeof(time), "%.3f us", static_cast<double>(result.duration_ps) / 1e6);
  std::string line = "model '" + model_name + "' vnc " + std::to_string(vnc) + ": " + time +
                     " simulated (" + std::to_string(result.cores.size()) +
                     (result.cores.size() == 1 ? " core" : " cores") + ") |";
  for (int e = 0; e < isa::kEngineCount; ++e) {
    char util[48];
    std::string name(isa::EngineName(static_cast<isa::Engine>(e)));
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::snprintf(util, sizeof(util), " %s %.1f%%", name.c_str(),
                  100.0 * EngineUtilization(result, e));
    line += util;
  }
  line += " | DMA " + std::to_string(dma_bytes) + " B in " + std::to_string(transfers) +
          " transfers | HBM read " + std::to_string(hbm_read) + " B, write " +
          std::to_string(hbm_write) + " B";
  return line;
}

}  // namespace trnsim::runtime::execution
