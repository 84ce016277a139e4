#include "driver/sim/result_conversion.h"

#include <utility>

namespace trnsim::driver::sim {
namespace {

EngineStats Convert(const simulator::core::EngineStats& in) {
  return EngineStats{in.busy_ps, in.wait_ps, in.instructions, in.flops};
}

QueueStats Convert(const simulator::core::QueueStats& in) {
  return QueueStats{in.transfers, in.bytes, in.busy_ps};
}

DebugPrint Convert(reference::DebugPrint&& in) {
  DebugPrint out;
  out.prefix_id = in.prefix_id;
  out.dtype = in.dtype;
  out.shape = std::move(in.shape);
  out.data = std::move(in.data);
  out.engine = in.engine;
  out.pc = in.pc;
  out.core = in.core;
  out.time_ps = in.time_ps;
  return out;
}

}  // namespace

ExecutionResult ToDriverResult(simulator::core::ExecutionResult&& in, uint64_t device_start_ps) {
  ExecutionResult out;
  out.duration_ps = in.duration_ps;
  out.events = in.events;
  out.cores.reserve(in.cores.size());
  for (const simulator::core::CoreStats& c : in.cores) {
    CoreStats& core = out.cores.emplace_back();
    core.core = c.core;
    core.duration_ps = c.duration_ps;
    for (int e = 0; e < isa::kEngineCount; ++e) core.engines[e] = Convert(c.engines[e]);
    core.queues.reserve(c.queues.size());
    for (const simulator::core::QueueStats& q : c.queues) core.queues.push_back(Convert(q));
    core.hbm_read_bytes = c.hbm_read_bytes;
    core.hbm_write_bytes = c.hbm_write_bytes;
    core.instructions = c.instructions;
    core.device_start_ps = device_start_ps;
  }
  out.debug_prints.reserve(in.debug_prints.size());
  for (reference::DebugPrint& p : in.debug_prints)
    out.debug_prints.push_back(Convert(std::move(p)));
  out.debug_prints_dropped = in.debug_prints_dropped;
  return out;
}

}  // namespace trnsim::driver::sim
