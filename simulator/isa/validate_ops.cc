// Per-opcode validation rules (docs/isa.md §7 and §9).
#include <string>

#include "simulator/isa/validate_internal.h"

namespace trnsim::isa::internal {

Status CheckPe(const Ops& o) {
  const Checker& c = o.c;
  const IsaLimits& l = c.limits;
  const Instruction& in = c.inst;
  const AccessPattern& src = o.A(kSrc);
  if (!IsPeDtype(src.dtype)) {
    return c.Fail(o.N(kSrc) + " dtype " + std::string(DtypeShortName(src.dtype)) +
                  " is not a PE input type");
  }
  if (src.num_partitions > l.pe_max_contraction) {
    return c.Fail("contraction K = " + S(src.num_partitions) + " > " + S(l.pe_max_contraction));
  }
  bool double_row = in.has_flag(kFlagDoubleRow);
  if (double_row && (!IsFp8(src.dtype) || src.FreeElements() % 2 != 0)) {
    return c.Fail("double_row needs fp8 data with an even free size ([K, 2, F])");
  }
  uint64_t free = double_row ? src.FreeElements() / 2 : src.FreeElements();
  if (in.opcode == Opcode::kLoadStationary) {
    if (free > static_cast<uint64_t>(l.pe_max_stationary_free)) {
      return c.Fail("stationary free size " + S(free) + " > " + S(l.pe_max_stationary_free));
    }
    return Status::Ok();
  }
  const AccessPattern& dst = o.A(kDst);
  if (in.opcode == Opcode::kNcTranspose) {
    TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, kSrc));
    if (free > static_cast<uint64_t>(l.pe_max_stationary_free)) {
      return c.Fail("in free size " + S(free) + " > " + S(l.pe_max_stationary_free));
    }
    if (dst.num_partitions != free || dst.FreeElements() != src.num_partitions) {
      return c.Fail("dst " + Shape(dst) + " must be the transpose of in " + Shape(src));
    }
    return Status::Ok();
  }
  // multiply_moving.
  bool transpose = in.has_flag(kFlagTranspose);
  if (transpose && (in.flags & (kFlagAccumulate | kFlagDoubleRow))) {
    return c.Fail("transpose excludes accumulate and double_row");
  }
  if (in.has_flag(kFlagAccumulate) && in.has_flag(kFlagGroupFirst)) {
    return c.Fail("the first matmul of a group overwrites PSUM: first excludes accumulate");
  }
  if (transpose) {
    if (!IsPeDtype(dst.dtype) || dst.dtype == Dtype::kFloat32r || IsFp8(dst.dtype)) {
      return c.Fail("a transpose writes the stationary's type (2- or 4-byte) to PSUM");
    }
  } else if (dst.dtype == Dtype::kBfloat16) {
    if (l.pe_max_moving_free_bf16 == 0) {
      return c.Fail("matmul dst bf16 needs NC-v4; this core accumulates fp32 only");
    }
  } else if (dst.dtype != Dtype::kFloat32) {
    return c.Fail("matmul dst must be fp32 (or bf16 on NC-v4)");
  }
  uint64_t max_free =
      dst.dtype == Dtype::kBfloat16 ? l.pe_max_moving_free_bf16 : l.pe_max_moving_free_fp32;
  if (free > max_free) {
    return c.Fail("moving free size " + S(free) + " > " + S(max_free) + " (" +
                  S(l.psum_bank_bytes / 4) + " fp32 = one PSUM bank per " + S(l.psum_bank_bytes) +
                  " bytes)");
  }
  if (dst.FreeElements() != free || dst.num_partitions > l.pe_max_stationary_free) {
    return c.Fail("dst " + Shape(dst) + " must be [M <= " + S(l.pe_max_stationary_free) + ", " +
                  S(free) + "] for moving " + Shape(src));
  }
  auto range = StaticByteRange(dst);  // CheckAp has bounded it inside PSUM
  if (range && l.psum_bank_bytes > 0) {
    int64_t bank = l.psum_bank_bytes;
    bool one_bank = range->lo / bank == (range->hi - 1) / bank;
    if (!one_bank && range->lo % bank != 0) {
      return c.Fail("dst crosses a PSUM bank boundary; a multi-bank dst starts on a bank");
    }
  }
  return Status::Ok();
}

Status CheckAct(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  TRNSIM_RETURN_IF_ERROR(o.EngineDtypes());
  if (in.opcode == Opcode::kReadAccumulator) return o.Column(kDst, kDst);
  TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, kSrc));
  TRNSIM_RETURN_IF_ERROR(o.Column(2, kSrc));
  TRNSIM_RETURN_IF_ERROR(o.Column(3, kSrc));
  TRNSIM_RETURN_IF_ERROR(o.Float(2));
  TRNSIM_RETURN_IF_ERROR(o.Float(3));
  if (in.opcode == Opcode::kActivationReduce) TRNSIM_RETURN_IF_ERROR(o.Column(4, kSrc));
  if (in.func != ActFunc::kPrelu && in.imm[2] != 0) {
    return c.Fail("alpha is used by prelu only and must be 0");
  }
  return Status::Ok();
}

Status CheckControl(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  const IsaLimits& l = c.limits;
  switch (in.opcode) {
    case Opcode::kSemWait:
      if (in.index >= static_cast<uint32_t>(l.semaphores)) {
        return c.Fail("semaphore " + S(in.index) + " >= " + S(l.semaphores));
      }
      return Status::Ok();
    case Opcode::kSemUpdate:
      if (in.index >= static_cast<uint32_t>(l.semaphores)) {
        return c.Fail("semaphore " + S(in.index) + " >= " + S(l.semaphores));
      }
      if (in.sem_op != UpdateOp::kSemAdd && in.sem_op != UpdateOp::kSemSub &&
          in.sem_op != UpdateOp::kSemSet) {
        return c.Fail("sem_op must be add, sub or set");
      }
      return Status::Ok();
    case Opcode::kEventSet:
    case Opcode::kEventClear:
    case Opcode::kEventWait:
      if (in.index >= static_cast<uint32_t>(l.events)) {
        return c.Fail("event " + S(in.index) + " >= " + S(l.events));
      }
      return Status::Ok();
    case Opcode::kRegAdd:
    case Opcode::kBranch:
      if (in.has_flag(kFlagRegOperand) ? in.imm[0] != 0 : in.reg1 != 0) {
        return c.Fail(
            "the second operand is either reg1 (reg_operand) or the immediate; the "
            "other must be 0");
      }
      return Status::Ok();
    case Opcode::kRegLoad:
    case Opcode::kRegStore: {
      const AccessPattern& ap = o.A(0);
      if (ap.Elements() != 1 || (ap.dtype != Dtype::kInt32 && ap.dtype != Dtype::kUint32)) {
        return c.Fail(o.N(0) + " must be one int32/uint32 element");
      }
      return Status::Ok();
    }
    case Opcode::kDmaTrigger:
      if (in.count == 0) return c.Fail("count must be >= 1 descriptor");
      return Status::Ok();
    case Opcode::kDmaCopy: {
      const AccessPattern& dst = o.A(kDst);
      const AccessPattern& src = o.A(kSrc);
      if (in.index >= static_cast<uint32_t>(l.dma_queues)) {
        return c.Fail("DMA queue " + S(in.index) + " >= " + S(l.dma_queues));
      }
      if (dst.Elements() != src.Elements()) {
        return c.Fail("dst has " + S(dst.Elements()) + " elements, src " + S(src.Elements()));
      }
      bool wide = DtypeSize(dst.dtype) == 8 || DtypeSize(src.dtype) == 8;
      if (dst.dtype != src.dtype && wide) return c.Fail("DMA casts do not take 64-bit types");
      if (in.has_flag(kFlagSwdge) && in.has_flag(kFlagHwdge))
        return c.Fail("swdge and hwdge are exclusive (one descriptor generator)");
      return Status::Ok();
    }
    default:
      return Status::Ok();
  }
}

Status CheckCollective(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  if (in.count >= kCollectiveKindCount) {
    return c.Fail("kind " + S(in.count) + " is not a collective (0..4)");
  }
  const auto kind = static_cast<CollectiveKind>(in.count);
  const std::string name(CollectiveKindName(kind));
  const bool reduces = CollectiveReduces(kind);
  if (reduces) {
    if (in.op0 != AluOp::kAdd && in.op0 != AluOp::kMultiply && in.op0 != AluOp::kMaximum &&
        in.op0 != AluOp::kMinimum) {
      return c.Fail(name + " reduces with add, multiply, maximum or minimum, not " +
                    std::string(AluOpName(in.op0)));
    }
  } else if (in.op0 != AluOp::kBypass) {
    return c.Fail(name + " does not reduce: op0 must be bypass");
  }
  TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, kSrc));
  const AccessPattern& dst = o.A(kDst);
  const AccessPattern& src = o.A(kSrc);
  if (reduces && !IsEngineDtype(dst.dtype)) {
    return c.Fail(name + " cannot reduce " + std::string(DtypeShortName(dst.dtype)) +
                  " (an 8-, 16- or 32-bit integer, bf16, fp16, fp32 or fp8 type)");
  }
  const int32_t group = in.imm_i32(0), stride = in.imm_i32(1), shift = in.imm_i32(2);
  if (group < 0) return c.Fail("group size " + std::to_string(group) + " is negative");
  if (stride < 1) return c.Fail("group stride " + std::to_string(stride) + " must be >= 1");
  if (kind != CollectiveKind::kPermute && shift != 0) {
    return c.Fail("shift is used by permute only and must be 0");
  }
  // With group = 0 (the whole world) G is known only at run time, where the rendezvous checks
  // the sizes against it; here the sizes must at least be compatible with some G.
  const uint64_t g = uint64_t(group), nd = dst.Elements(), ns = src.Elements();
  auto sizes = [&](const std::string& rule) {
    return c.Fail(name + " needs " + rule + " (dst has " + S(nd) + " elements, src " + S(ns) +
                  (g ? ", group " + S(g) : std::string()) + ")");
  };
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kPermute:
      if (nd != ns) return sizes("|dst| = |src|");
      break;
    case CollectiveKind::kAllToAll:
      if (nd != ns || (g && ns % g != 0)) return sizes("|dst| = |src|, a multiple of G");
      break;
    case CollectiveKind::kAllGather:
      if (nd % ns != 0 || (g && nd / ns != g)) return sizes("|dst| = G x |src|");
      break;
    case CollectiveKind::kReduceScatter:
      if (ns % nd != 0 || (g && ns / nd != g)) return sizes("|src| = G x |dst|");
      break;
  }
  return Status::Ok();
}

Status CheckPair(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  const IsaLimits& l = c.limits;
  const bool barrier = in.opcode == Opcode::kCoreBarrier;
  if (in.index >= static_cast<uint32_t>(l.semaphores)) {
    return c.Fail(std::string(barrier ? "" : "peer ") + "semaphore " + S(in.index) +
                  " >= " + S(l.semaphores));
  }
  if (barrier) return Status::Ok();
  if (in.count >= static_cast<uint32_t>(l.dma_queues)) {
    return c.Fail("DMA queue " + S(in.count) + " >= " + S(l.dma_queues));
  }
  // A copy between the two SBUFs, byte for byte: no cast, the same element count.
  TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, kSrc));
  const AccessPattern& dst = o.A(kDst);
  const AccessPattern& src = o.A(kSrc);
  if (dst.Elements() != src.Elements()) {
    return c.Fail("dst has " + S(dst.Elements()) + " elements, src " + S(src.Elements()));
  }
  return Status::Ok();
}

// debug_print (§7.10): a prefix id the table can hold, and a src small enough to carry.
Status CheckDebugPrint(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  if (in.index >= kMaxDebugPrefixes) {
    return c.Fail("prefix " + S(in.index) + " >= " + S(kMaxDebugPrefixes));
  }
  const AccessPattern& src = o.A(kSrc);
  const uint64_t esize = static_cast<uint64_t>(DtypeSize(src.dtype));
  const uint64_t elements = src.Elements();  // saturating
  if (esize == 0 || elements > kMaxDebugPrintBytes / esize) {
    return c.Fail("src " + Shape(src) + " " + std::string(DtypeShortName(src.dtype)) +
                  " is more than a debug print carries (" + S(kMaxDebugPrintBytes) + " bytes)");
  }
  return Status::Ok();
}

Status CheckOpcodeRules(const Checker& c) {
  Ops o{c};
  switch (c.inst.opcode) {
    case Opcode::kLoadStationary:
    case Opcode::kMultiplyMoving:
    case Opcode::kNcTranspose:
      return CheckPe(o);
    case Opcode::kActivation:
    case Opcode::kActivationReduce:
    case Opcode::kReadAccumulator:
      return CheckAct(o);
    case Opcode::kCollective:
      return CheckCollective(o);
    case Opcode::kCoreBarrier:
    case Opcode::kSendRecv:
      return CheckPair(o);
    case Opcode::kDebugPrint:
      return CheckDebugPrint(o);
    default:
      break;
  }
  if (static_cast<uint16_t>(c.inst.opcode) < static_cast<uint16_t>(Opcode::kLoadStationary)) {
    return CheckControl(o);
  }
  return CheckElementwise(o);
}

Status CheckEngineRules(const Checker& c, Engine engine) {
  const Instruction& in = c.inst;
  if (engine == Engine::kPool) {
    for (int i = 0; i < kMaxOperands; ++i) {
      if (in.ap[i].memory == Memory::kPsum) {
        return c.Fail("operand " + std::string(c.Name(i)) + ": POOL cannot access PSUM");
      }
    }
  }
  bool bitvec = AluOpClass(in.op0) == AluClass::kBitvec || AluOpClass(in.op1) == AluClass::kBitvec;
  if ((in.opcode == Opcode::kTensorScalar || in.opcode == Opcode::kTensorTensor) && bitvec &&
      engine != Engine::kDve) {
    return c.Fail("bitvec operators run on DVE only");
  }
  // Descriptor generation (docs/isa.md §7.2): GpSimd runs software DGE; the DGE blocks are
  // commanded from SP or ACT.
  if (in.opcode == Opcode::kDmaCopy && in.has_flag(kFlagSwdge) && engine != Engine::kPool)
    return c.Fail("swdge: only POOL (GpSimd) generates software descriptors");
  if (in.opcode == Opcode::kDmaCopy && in.has_flag(kFlagHwdge) && engine != Engine::kSp &&
      engine != Engine::kAct)
    return c.Fail("hwdge: only SP or ACT command a DGE block");
  if (in.opcode == Opcode::kTensorScalar && engine == Engine::kAct) {
    bool ok = (in.op0 == AluOp::kMultiply && (in.op1 == AluOp::kAdd || in.op1 == AluOp::kBypass)) ||
              (in.op0 == AluOp::kAdd && in.op1 == AluOp::kBypass);
    if (!ok || (in.flags & (kFlagReverse0 | kFlagReverse1))) {
      return c.Fail(
          "ACT tensor_scalar takes (multiply, add), (multiply, bypass) or (add, bypass), "
          "unreversed");
    }
  }
  return Status::Ok();
}

bool IsEngineDtype(Dtype d) {
  switch (d) {
    case Dtype::kInt8:
    case Dtype::kUint8:
    case Dtype::kInt16:
    case Dtype::kUint16:
    case Dtype::kInt32:
    case Dtype::kUint32:
    case Dtype::kBfloat16:
    case Dtype::kFloat16:
    case Dtype::kFloat32:
    case Dtype::kFloat8E3:
    case Dtype::kFloat8E4:
    case Dtype::kFloat8E5:
      return true;
    default:
      return false;
  }
}

bool IsPeDtype(Dtype d) {
  return IsFp8(d) || d == Dtype::kBfloat16 || d == Dtype::kFloat16 || d == Dtype::kFloat32 ||
         d == Dtype::kFloat32r;
}

bool IsIntegerDtype(Dtype d) {
  int size = DtypeSize(d);
  return !IsFloat(d) && size > 0 && size <= 4;
}

bool IsFp8(Dtype d) {
  return d == Dtype::kFloat8E3 || d == Dtype::kFloat8E4 || d == Dtype::kFloat8E5;
}

}  // namespace trnsim::isa::internal
