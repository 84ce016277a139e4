#include "driver/faults/fault_messages.h"

#include <cstdio>
#include <string>

namespace trnsim::driver::faults {
namespace {

std::string Nd(const FaultPlace& w) { return std::to_string(w.chip); }
std::string Nc(const FaultPlace& w) { return std::to_string(w.core); }

std::string Origin(const FaultPlace& w) {
  return " (injected by TRNSIM_FAULTS rule " + std::to_string(w.rule + 1) + ")";
}

std::string TimeoutText(const FaultPlace& w) {
  return w.host_timeout.count() > 0 ? std::to_string(w.host_timeout.count()) + " ms"
                                    : std::string("no limit set");
}

// "4.000GB"-style sizes, as the runtime's allocation-failure line prints them.
std::string SizeText(uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB"};
  double value = double(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f%s", value, units[unit]);
  return buffer;
}

}  // namespace

Status InjectedFaultStatus(FaultKind kind, const FaultPlace& w, uint64_t bytes) {
  const std::string model(w.model);
  switch (kind) {
    case FaultKind::kHbmUe:
      return Status(StatusCode::kExecHwErrHbmUe,
                    "(FATAL-RT-UNDEFINED-STATE) Uncorrectable HBM memory error is detected. "
                    "Execution results may be invalid. [ND " +
                        Nd(w) + "][NC " + Nc(w) + "] HBM " + std::to_string(w.hbm) + ", model " +
                        model + Origin(w));
    case FaultKind::kRepairableHbmUe:
      return Status(StatusCode::kExecHwErrRepairableHbmUe,
                    "(FATAL-RT-UNDEFINED-STATE) Uncorrectable HBM memory error is detected. "
                    "Execution results may be invalid. [ND " +
                        Nd(w) + "][NC " + Nc(w) + "] HBM " + std::to_string(w.hbm) + ", model " +
                        model + ": repairable, the row is repaired at the next device reset" +
                        Origin(w));
    case FaultKind::kNcUe:
      return Status(StatusCode::kExecHwErrNcUe,
                    "(FATAL-RT-UNDEFINED-STATE) [ND " + Nd(w) + "][NC " + Nc(w) +
                        "] Uncorrectable memory error is detected (SBUF/PSUM parity), model " +
                        model + Origin(w));
    case FaultKind::kDmaAbort:
      return Status(StatusCode::kExecHwErrDmaAbort, "[ND " + Nd(w) + "][NC " + Nc(w) +
                                                        "] DMA TX engine 0 is in an abort state, "
                                                        "model " +
                                                        model + Origin(w));
    case FaultKind::kCollectives:
      return Status(StatusCode::kExecHwErrCollectives,
                    "(FATAL-RT-UNDEFINED-STATE) missing collectives status on Neuron Device " +
                        Nd(w) + " NC " + Nc(w) + ", model " + model +
                        " - suspected hang in collectives operation" + Origin(w));
    case FaultKind::kTimeout:
      return Status(StatusCode::kTimeout,
                    "(FATAL-RT-UNDEFINED-STATE) execution timeout (" + TimeoutText(w) +
                        ") on Neuron Device " + Nd(w) + " NC " + Nc(w) + ", model " + model +
                        ", waiting for execution completion notification" + Origin(w));
    case FaultKind::kNqOverflow:
      return Status(StatusCode::kExecSwNqOverflow,
                    "[ND " + Nd(w) + "][NC " + Nc(w) + "] execution on model " + model +
                        " overflowed the software notification queue "
                        "(NRT_EXEC_SW_NQ_OVERFLOW); DGE notifications are the usual cause: "
                        "try NEURON_RT_ENABLE_DGE_NOTIFICATIONS=0" +
                        Origin(w));
    case FaultKind::kHang:
      return Status(StatusCode::kTimeout,
                    "(FATAL-RT-UNDEFINED-STATE) execution timeout (" + TimeoutText(w) +
                        ") on Neuron Device " + Nd(w) + " NC " + Nc(w) + ", model " + model +
                        ", waiting for execution completion notification: the core stopped "
                        "answering" +
                        Origin(w));
    case FaultKind::kLoadOom:
      return Status(StatusCode::kResource, "Failed to allocate " + SizeText(bytes) +
                                               " (alignment: none, usage: model code) on ND " +
                                               Nd(w) + ":NC " + Nc(w) + ", model " + model +
                                               ": HBM " + std::to_string(w.hbm) + " is exhausted" +
                                               Origin(w));
    case FaultKind::kCorrupt:
      break;
  }
  return Status::Ok();
}

Status AfterEffectStatus(FaultKind kind, const FaultPlace& w) {
  const std::string recover = "; nrt_close and nrt_init reset the device";
  const std::string where = "[ND " + Nd(w) + "][NC " + Nc(w) + "] model " + std::string(w.model);
  switch (kind) {
    case FaultKind::kHbmUe:
    case FaultKind::kRepairableHbmUe:
      return Status(InjectedFaultStatus(kind, w).code(),
                    "(FATAL-RT-UNDEFINED-STATE) Uncorrectable HBM memory error: " + where +
                        " uses HBM " + std::to_string(w.hbm) +
                        ", poisoned by an earlier execution" + recover);
    case FaultKind::kNcUe:
      return Status(StatusCode::kExecHwErrNcUe,
                    "(FATAL-RT-UNDEFINED-STATE) " + where +
                        ": the core has an uncorrectable SBUF/PSUM error from an earlier "
                        "execution" +
                        recover);
    case FaultKind::kDmaAbort:
      return Status(
          StatusCode::kExecHwErrDmaAbort,
          where + ": DMA TX engine 0 is in an abort state since an earlier execution" + recover);
    case FaultKind::kHang:
      return Status(StatusCode::kTimeout,
                    "(FATAL-RT-UNDEFINED-STATE) execution timeout (" + TimeoutText(w) + ") " +
                        where + ": the core has not answered since an earlier execution hung" +
                        recover);
    default:
      break;  // the other kinds leave nothing behind
  }
  return InjectedFaultStatus(kind, w);
}

}  // namespace trnsim::driver::faults
