#include "simulator/core/pe_pipeline.h"

#include <algorithm>

namespace trnsim::simulator::core {

using isa::Instruction;
using isa::Opcode;

PePipeline::PePipeline(const CostSpec& spec)
    : fp32_passes_(std::clamp(spec.pe_fp32_passes, 1, kMaxPePasses)),
      fill_cycles_(std::max(spec.pe_fill_cycles, 0)),
      drain_cycles_(std::max(spec.pe_drain_cycles, 0)),
      control_cycles_(std::max(spec.control_cycles, 1)),
      throttle_(spec) {}

void PePipeline::Reset() {
  throttle_.Reset();
  streamed_ = false;
  array_free_ps_ = 0;
  weights_ready_ps_ = 0;
  weight_unit_free_ps_ = 0;
}

bool PePipeline::Handles(const Instruction& inst) {
  return inst.opcode == Opcode::kMultiplyMoving || inst.opcode == Opcode::kNcTranspose ||
         inst.opcode == Opcode::kLoadStationary;
}

int PePipeline::Passes(const Instruction& inst) const {
  if (inst.opcode != Opcode::kMultiplyMoving && inst.opcode != Opcode::kLoadStationary) return 1;
  // Slot 1 is the moving operand of a matmul and the stationary operand of a weight load.
  if (inst.ap[1].dtype != isa::Dtype::kFloat32) return 1;
  if (inst.has_flag(isa::kFlagTranspose) || inst.has_flag(isa::kFlagOneZero)) return 1;
  return fp32_passes_;
}

TimePs PePipeline::ReadyAt(const Instruction& inst) const {
  if (inst.opcode == Opcode::kLoadStationary) return weight_unit_free_ps_;
  return std::max(array_free_ps_, weights_ready_ps_);
}

PeIssue PePipeline::Issue(const Instruction& inst, TimePs now_ps,
                          const cost::InstructionCost& cost) {
  const Clock clock = cost.clock();
  PeIssue out;
  out.passes = Passes(inst);
  const uint64_t cycles = std::max<uint64_t>(cost.cycles, 1);
  const uint64_t share = cycles / uint64_t(out.passes);
  const DurationPs occupancy_ps = clock.CyclesToPs(cycles);
  out.sequencer_ps = std::min(clock.CyclesToPs(uint64_t(control_cycles_)), occupancy_ps);

  if (inst.opcode == Opcode::kLoadStationary) {
    // The passes load back to back on the weight-load unit; the weights have landed after all
    // of them, and the unit is free for the next load.
    TimePs t = now_ps;
    for (int p = 0; p < out.passes; ++p) {
      const uint64_t c = p + 1 == out.passes ? cycles - share * uint64_t(p) : share;
      const DurationPs d = clock.CyclesToPs(c);
      out.pass[size_t(p)] = {t, d};
      t += d;
    }
    weights_ready_ps_ = weight_unit_free_ps_ = out.end_ps = t;
    out.complete_ps = t + clock.CyclesToPs(cost.access_latency_cycles);
    return out;
  }

  // An array pass (multiply_moving, nc_transpose).
  const DurationPs drain_ps = clock.CyclesToPs(uint64_t(drain_cycles_));
  const bool back_to_back = streamed_ && now_ps <= array_free_ps_;
  TimePs t = now_ps;
  for (int p = 0; p < out.passes; ++p) {
    const uint64_t c = p + 1 == out.passes ? cycles - share * uint64_t(p) : share;
    const TimePs stream_from =
        t + (p == 0 && !back_to_back ? clock.CyclesToPs(uint64_t(fill_cycles_)) : 0);
    const TimePs stream_end = throttle_.Stream(stream_from, clock.CyclesToPs(c));
    out.pass[size_t(p)] = {t, stream_end + drain_ps - t};
    t = stream_end;
  }
  streamed_ = true;
  array_free_ps_ = t;
  // nc_transpose leaves its input in the stationary buffer: the next matmul's weights.
  if (inst.opcode == Opcode::kNcTranspose) weights_ready_ps_ = t;
  out.end_ps = out.complete_ps = t + drain_ps;
  return out;
}

}  // namespace trnsim::simulator::core
