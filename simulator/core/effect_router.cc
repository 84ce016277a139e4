#include "simulator/core/effect_router.h"

#include "simulator/reference/operand.h"

namespace trnsim::simulator::core {

using isa::Instruction;
using isa::Opcode;

namespace {

bool TouchesNoData(Opcode opcode) {
  switch (opcode) {
    case Opcode::kNop:
    case Opcode::kSemWait:
    case Opcode::kSemUpdate:
    case Opcode::kEventSet:
    case Opcode::kEventClear:
    case Opcode::kEventWait:
    case Opcode::kBarrier:
    case Opcode::kNotifyEnd:
    case Opcode::kRegSet:
    case Opcode::kRegAdd:
    case Opcode::kBranch:
    case Opcode::kCoreBarrier:
      return true;
    default:
      return false;
  }
}

bool IsStationaryOp(Opcode opcode) {
  return opcode == Opcode::kLoadStationary || opcode == Opcode::kMultiplyMoving ||
         opcode == Opcode::kNcTranspose;
}

// Every operand in SBUF or PSUM at a fixed offset: the worker then touches only this core's
// on-chip memory, and no register the scheduler thread may change meanwhile.
bool OnChipFixedOperands(const Instruction& inst) {
  for (const isa::AccessPattern& ap : inst.ap) {
    if (!ap.present()) continue;
    if (ap.memory != isa::Memory::kSbuf && ap.memory != isa::Memory::kPsum) return false;
    if (ap.offset_reg != isa::kNoRegister) return false;
  }
  return true;
}

bool IsFp32Class(isa::Dtype d) { return d == isa::Dtype::kFloat32 || d == isa::Dtype::kFloat32r; }

}  // namespace

EffectRouter::EffectRouter(const isa::IsaLimits& limits) : scratch_(limits) {}

void EffectRouter::Reset() { shadow_ = StationaryShape{}; }

EffectRoute EffectRouter::Route(isa::Engine engine, const Instruction& inst,
                                reference::HbmView& hbm) {
  if (TouchesNoData(inst.opcode)) return EffectRoute::kNoData;
  if (inst.opcode == Opcode::kSendRecv) return EffectRoute::kDrainPair;
  if (engine == isa::Engine::kPe && IsStationaryOp(inst.opcode) && OnChipFixedOperands(inst) &&
      ProvenToSucceed(engine, inst, hbm))
    return EffectRoute::kDefer;
  return EffectRoute::kDrainCore;
}

bool EffectRouter::ProvenToSucceed(isa::Engine engine, const Instruction& inst,
                                   reference::HbmView& hbm) {
  (void)engine;
  // The checks of reference/pe.cc, in its order, on shapes only. The fast path (fast_pe.h)
  // declines every case the reference reports as an error, so these cover both.
  auto bind = [&](int slot) { return reference::Operand::Bind(inst.ap[slot], 0, scratch_, hbm); };
  switch (inst.opcode) {
    case Opcode::kLoadStationary:
      return bind(1).ok();
    case Opcode::kNcTranspose: {
      StatusOr<reference::Operand> dst = bind(0);
      if (!dst.ok()) return false;
      StatusOr<reference::Operand> in = bind(1);
      if (!in.ok()) return false;
      return dst->rows() == in->free() && dst->free() == in->rows();
    }
    case Opcode::kMultiplyMoving: {
      const StationaryShape& st = shadow_;
      if (!st.loaded) return false;
      StatusOr<reference::Operand> dst = bind(0);
      if (!dst.ok()) return false;
      StatusOr<reference::Operand> mv = bind(1);
      if (!mv.ok()) return false;
      const bool dr = inst.has_flag(isa::kFlagDoubleRow);
      if (mv->rows() != st.k || dr != st.double_row) return false;
      if (IsFp32Class(mv->dtype()) != IsFp32Class(st.dtype)) return false;
      const uint64_t n = mv->free() / (dr ? 2 : 1);
      if (dst->rows() != st.m || dst->free() != n) return false;
      if (inst.has_flag(isa::kFlagTranspose) && n != st.k) return false;
      return true;
    }
    default:
      return false;
  }
}

void EffectRouter::Issued(const Instruction& inst) {
  // Whatever the engine (an unvalidated program may put them elsewhere): reference/pe.cc's Load:
  // load_stationary loads `stationary`, nc_transpose loads its input.
  if (inst.opcode != Opcode::kLoadStationary && inst.opcode != Opcode::kNcTranspose) return;
  const isa::AccessPattern& in = inst.ap[1];
  const bool dr = inst.opcode == Opcode::kLoadStationary && inst.has_flag(isa::kFlagDoubleRow);
  shadow_.loaded = true;
  shadow_.dtype = in.dtype;
  shadow_.k = in.num_partitions;
  const uint64_t free = in.FreeElements();
  shadow_.m = dr ? free / 2 : free;
  shadow_.double_row = dr;
}

}  // namespace trnsim::simulator::core
