#include "simulator/core/raw_hazard.h"

#include <algorithm>

#include "simulator/isa/opcode.h"

namespace trnsim::simulator::core {

bool RawHazard::SpanOf(const isa::AccessPattern& ap, const std::array<int32_t, 64>& regs,
                       Span& out) {
  if (!ap.on_chip()) return false;
  const std::optional<isa::ByteRange> r = isa::StaticByteRange(ap);
  if (!r) return false;
  int64_t shift = 0;
  if (ap.offset_reg != isa::kNoRegister && ap.offset_reg < regs.size())
    shift = int64_t(regs[ap.offset_reg]) * ap.reg_stride_bytes;
  out.memory = ap.memory;
  out.partition_lo = ap.start_partition;
  out.partition_hi = int(ap.start_partition) + int(ap.num_partitions);
  out.byte_lo = r->lo + shift;
  out.byte_hi = r->hi + shift;
  return true;
}

TimePs RawHazard::ReadyAt(const isa::Instruction& inst, const std::array<int32_t, 64>& regs) const {
  if (writes_.empty()) return 0;
  const isa::OpcodeInfo* info = isa::FindOpcode(inst.opcode);
  if (info == nullptr) return 0;
  TimePs ready = 0;
  for (int s = 0; s < isa::kMaxOperands; ++s) {
    if (info->operands[s].presence == isa::Presence::kNone ||
        info->operands[s].access != isa::Access::kRead)
      continue;
    Span read;
    if (!SpanOf(inst.ap[s], regs, read)) continue;
    for (const Span& w : writes_) {
      if (w.memory != read.memory || w.partition_hi <= read.partition_lo ||
          read.partition_hi <= w.partition_lo || w.byte_hi <= read.byte_lo ||
          read.byte_hi <= w.byte_lo)
        continue;
      ready = std::max(ready, w.land_ps);
    }
  }
  return ready;
}

void RawHazard::Record(const isa::Instruction& inst, const std::array<int32_t, 64>& regs,
                       TimePs now_ps, TimePs land_ps) {
  std::erase_if(writes_, [now_ps](const Span& w) { return w.land_ps <= now_ps; });
  const isa::OpcodeInfo* info = isa::FindOpcode(inst.opcode);
  if (info == nullptr || land_ps <= now_ps) return;
  for (int s = 0; s < isa::kMaxOperands; ++s) {
    if (info->operands[s].presence == isa::Presence::kNone ||
        info->operands[s].access != isa::Access::kWrite)
      continue;
    Span w;
    if (!SpanOf(inst.ap[s], regs, w)) continue;
    w.land_ps = land_ps;
    writes_.push_back(w);
  }
}

}  // namespace trnsim::simulator::core
