// Validation rules of the DVE / POOL datapath opcodes and the elementwise ops ACT shares.
#include <string>

#include "simulator/isa/validate_internal.h"

namespace trnsim::isa::internal {
namespace {

constexpr int kIn = kSrc;

Status CheckTensorScalar(const Ops& o) {
  const Instruction& in = o.c.inst;
  TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, kIn));
  TRNSIM_RETURN_IF_ERROR(o.Column(2, kIn));
  TRNSIM_RETURN_IF_ERROR(o.Column(3, kIn));
  TRNSIM_RETURN_IF_ERROR(o.Op(in.op0, "op0"));
  TRNSIM_RETURN_IF_ERROR(o.Op(in.op1, "op1"));
  return o.OpClasses(in.op0, in.op1);
}

Status CheckReduce(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  const AccessPattern& src = o.A(kIn);
  TRNSIM_RETURN_IF_ERROR(o.Op(in.op0, "op0"));
  if (!AluOpIsReduction(in.op0)) {
    return c.Fail(std::string(AluOpName(in.op0)) + " is not a reduction operator");
  }
  TRNSIM_RETURN_IF_ERROR(o.OpClasses(in.op0, AluOp::kBypass));
  if (in.count < 1 || in.count > src.num_dims) {
    return c.Fail("axes " + S(in.count) + " not in 1.." + S(src.num_dims) +
                  " (trailing dims of in)");
  }
  if (in.has_flag(kFlagNegate) && AluOpClass(in.op0) == AluClass::kBitvec) {
    return c.Fail("negate needs an arithmetic reduction");
  }
  const AccessPattern& dst = o.A(kDst);
  uint64_t kept = src.FreeElements() / src.InnerElements(in.count);
  if (dst.num_partitions != src.num_partitions || dst.FreeElements() != kept) {
    return c.Fail("dst " + Shape(dst) + " must be [" + S(src.num_partitions) + ", " + S(kept) +
                  "] after reducing the " + S(in.count) + " trailing axes of in " + Shape(src));
  }
  return Status::Ok();
}

Status CheckDveSpecial(const Ops& o) {
  const Checker& c = o.c;
  const IsaLimits& l = c.limits;
  const Instruction& in = c.inst;
  const AccessPattern& dst = o.A(kDst);
  const AccessPattern& src = o.A(kIn);
  switch (in.opcode) {
    case Opcode::kTranspose: {
      uint64_t m = static_cast<uint64_t>(l.dve_transpose_max);
      TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, kIn));
      if (src.num_partitions > m || src.FreeElements() > m) {
        return c.Fail("in " + Shape(src) + " exceeds [" + S(m) + ", " + S(m) + "]");
      }
      if (dst.num_partitions != src.FreeElements() || dst.FreeElements() != src.num_partitions) {
        return c.Fail("dst " + Shape(dst) + " must be the transpose of in " + Shape(src));
      }
      if (dst.start_partition != src.start_partition) {
        return c.Fail("dst and in must use the same 32-partition quadrant");
      }
      return Status::Ok();
    }
    case Opcode::kBnStats:
      TRNSIM_RETURN_IF_ERROR(o.FreeRange(kIn, 1, l.bn_stats_max_free));
      TRNSIM_RETURN_IF_ERROR(o.Float(kDst));
      return o.Column(kDst, kIn, 6);
    case Opcode::kBnAggr:
      if (src.FreeElements() % 3 != 0) return c.Fail("in free size must be a multiple of 3");
      TRNSIM_RETURN_IF_ERROR(o.Float(kIn));
      TRNSIM_RETURN_IF_ERROR(o.Float(kDst));
      return o.Column(kDst, kIn, 2);
    case Opcode::kMax8:
      TRNSIM_RETURN_IF_ERROR(o.FreeRange(kIn, l.max8_min_free, l.max8_max_free));
      return o.Column(kDst, kIn, 8);
    case Opcode::kNcFindIndex8:
      TRNSIM_RETURN_IF_ERROR(o.FreeRange(kIn, l.max8_min_free, l.max8_max_free));
      TRNSIM_RETURN_IF_ERROR(o.Column(2, kIn, 8));
      TRNSIM_RETURN_IF_ERROR(o.Column(kDst, kIn, 8));
      if (dst.dtype != Dtype::kUint16 && dst.dtype != Dtype::kUint32) {
        return c.Fail("dst indices are uint16 or uint32");
      }
      return Status::Ok();
    case Opcode::kNcMatchReplace8:
      TRNSIM_RETURN_IF_ERROR(o.FreeRange(kIn, l.max8_min_free, l.max8_max_free));
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, kIn));
      TRNSIM_RETURN_IF_ERROR(o.Column(2, kIn, 8));
      TRNSIM_RETURN_IF_ERROR(o.Column(3, kIn, 8));
      if (o.A(3).present() && o.A(3).dtype != Dtype::kUint16 && o.A(3).dtype != Dtype::kUint32) {
        return c.Fail("dst_idx indices are uint16 or uint32");
      }
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

Status CheckPool(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  const AccessPattern& dst = o.A(kDst);
  const AccessPattern& src = o.A(kIn);
  switch (in.opcode) {
    case Opcode::kAffineSelect:
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, kIn));
      return o.SameShape(kDst, 2);
    case Opcode::kLocalGather: {
      const AccessPattern& index = o.A(2);
      if (src.num_partitions % 16 != 0 || src.start_partition % 16 != 0 ||
          dst.num_partitions != src.num_partitions || index.num_partitions != src.num_partitions ||
          dst.start_partition != src.start_partition ||
          index.start_partition != src.start_partition) {
        return c.Fail("dst, in and index cover the same whole 16-partition groups");
      }
      if (index.dtype != Dtype::kUint16) return c.Fail("index is uint16");
      TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, kIn));
      uint8_t e = in.count;
      if (e == 0 || e > 32 || (e & (e - 1)) != 0) {
        return c.Fail("elems_per_index " + S(e) + " not in {1, 2, 4, 8, 16, 32}");
      }
      if (16 * index.FreeElements() > c.limits.local_gather_max_indices) {
        return c.Fail(S(16 * index.FreeElements()) + " indices per 16-partition group > " +
                      S(c.limits.local_gather_max_indices));
      }
      if (dst.FreeElements() != index.FreeElements() * e) {
        return c.Fail("dst free size must be index free size x elems_per_index");
      }
      return Status::Ok();
    }
    case Opcode::kTensorPartitionReduce:
      switch (in.op0) {
        case AluOp::kAdd:
        case AluOp::kAverage:
        case AluOp::kMaximum:
        case AluOp::kMinimum:
        case AluOp::kBitwiseOr:
        case AluOp::kBitwiseAnd:
          break;
        default:
          return c.Fail("op0 must be add, average, maximum, minimum, bitwise_or or bitwise_and");
      }
      TRNSIM_RETURN_IF_ERROR(o.OpClasses(in.op0, AluOp::kBypass));
      if (dst.num_partitions != 1 || dst.FreeElements() != src.FreeElements()) {
        return c.Fail("dst " + Shape(dst) + " must be [1, " + S(src.FreeElements()) + "]");
      }
      return Status::Ok();
    default:
      return Status::Ok();
  }
}

}  // namespace

Status CheckElementwise(const Ops& o) {
  const Checker& c = o.c;
  const Instruction& in = c.inst;
  TRNSIM_RETURN_IF_ERROR(o.EngineDtypes());
  switch (in.opcode) {
    case Opcode::kTensorCopy:
    case Opcode::kReciprocal:
      return o.SameShape(kDst, kIn);
    case Opcode::kTensorScalar:
      return CheckTensorScalar(o);
    case Opcode::kTensorTensor:
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 1));
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 2));
      TRNSIM_RETURN_IF_ERROR(o.NotBothPsum(1, 2));
      TRNSIM_RETURN_IF_ERROR(o.Op(in.op0, "op0"));
      return o.OpClasses(in.op0, AluOp::kBypass);
    case Opcode::kMemset:
      return Status::Ok();
    case Opcode::kIota:
      return o.SameShape(kDst, kIn);
    case Opcode::kTensorReduce:
      return CheckReduce(o);
    case Opcode::kTensorCopyPredicated: {
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 1));
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 2));
      TRNSIM_RETURN_IF_ERROR(o.NotBothPsum(1, 2));
      TRNSIM_RETURN_IF_ERROR(o.SameDtype(kDst, 1));
      Dtype p = o.A(2).dtype;
      if (p != Dtype::kUint8 && p != Dtype::kUint16 && p != Dtype::kUint32) {
        return c.Fail("predicate is uint8, uint16 or uint32");
      }
      return Status::Ok();
    }
    case Opcode::kTensorScalarReduce:
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 1));
      TRNSIM_RETURN_IF_ERROR(o.Column(2, 1));
      TRNSIM_RETURN_IF_ERROR(o.Column(3, 1));
      TRNSIM_RETURN_IF_ERROR(o.Op(in.op0, "op0"));
      TRNSIM_RETURN_IF_ERROR(o.Arithmetic(in.op0, "op0"));
      if (in.op1 != AluOp::kAdd && in.op1 != AluOp::kMultiply && in.op1 != AluOp::kMaximum &&
          in.op1 != AluOp::kMinimum) {
        return c.Fail("the reduction op1 must be add, multiply, maximum or minimum");
      }
      return Status::Ok();
    case Opcode::kTensorTensorScan:
    case Opcode::kScalarTensorTensor: {
      bool scan = in.opcode == Opcode::kTensorTensorScan;
      int other = scan ? 2 : 3;   // data1 / operand1
      int scalar = scan ? 3 : 2;  // initial / operand0
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, 1));
      TRNSIM_RETURN_IF_ERROR(o.SameShape(kDst, other));
      TRNSIM_RETURN_IF_ERROR(o.NotBothPsum(1, other));
      TRNSIM_RETURN_IF_ERROR(o.Column(scalar, 1));
      TRNSIM_RETURN_IF_ERROR(o.Op(in.op0, "op0"));
      TRNSIM_RETURN_IF_ERROR(o.Op(in.op1, "op1"));
      TRNSIM_RETURN_IF_ERROR(o.Arithmetic(in.op0, "op0"));
      return o.Arithmetic(in.op1, "op1");
    }
    case Opcode::kTranspose:
    case Opcode::kBnStats:
    case Opcode::kBnAggr:
    case Opcode::kMax8:
    case Opcode::kNcFindIndex8:
    case Opcode::kNcMatchReplace8:
      return CheckDveSpecial(o);
    default:
      return CheckPool(o);
  }
}

}  // namespace trnsim::isa::internal
