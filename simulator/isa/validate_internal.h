// Shared by validate.cc (generic rules) and validate_ops.cc (per-opcode rules).
#pragma once

#include <string>

#include "common/status.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"

namespace trnsim::isa::internal {

struct Checker {
  const Instruction& inst;
  const OpcodeInfo& info;
  const IsaLimits& limits;
  const Engine* engine;  // null when validating without an engine
  std::string prefix;    // "instruction 7 (multiply_moving): " or "multiply_moving: "

  Status Fail(const std::string& rule) const { return InvalidError(prefix + rule); }
  const AccessPattern& Ap(int slot) const { return inst.ap[slot]; }
  std::string_view Name(int slot) const { return info.operands[slot].name; }
};

// Bool predicates on dtypes.
bool IsEngineDtype(Dtype d);  // a DVE/ACT/POOL datapath type (not 64-bit, not fp32r)
bool IsPeDtype(Dtype d);      // a PE input type
bool IsIntegerDtype(Dtype d);
bool IsFp8(Dtype d);

inline std::string S(uint64_t v) { return std::to_string(v); }

inline std::string Shape(const AccessPattern& ap) {
  return "[" + S(ap.num_partitions) + ", " + S(ap.FreeElements()) + "]";
}

struct Ops {
  const Checker& c;
  const AccessPattern& A(int i) const { return c.Ap(i); }
  std::string N(int i) const { return std::string(c.Name(i)); }

  // Same partitions and elements per partition.
  Status SameShape(int a, int b) const {
    if (A(a).num_partitions != A(b).num_partitions || A(a).FreeElements() != A(b).FreeElements()) {
      return c.Fail(N(a) + " " + Shape(A(a)) + " and " + N(b) + " " + Shape(A(b)) +
                    " differ in shape");
    }
    return Status::Ok();
  }
  // [P, k] against slot `ref`'s P; skipped when the operand is absent.
  Status Column(int slot, int ref, uint64_t k = 1) const {
    if (!A(slot).present()) return Status::Ok();
    if (A(slot).num_partitions != A(ref).num_partitions || A(slot).FreeElements() != k) {
      return c.Fail(N(slot) + " " + Shape(A(slot)) + " must be [" + S(A(ref).num_partitions) +
                    ", " + S(k) + "]");
    }
    return Status::Ok();
  }
  Status EngineDtypes() const {
    for (int i = 0; i < kMaxOperands; ++i) {
      if (A(i).present() && A(i).memory != Memory::kPattern && !IsEngineDtype(A(i).dtype)) {
        return c.Fail(N(i) + " dtype " + std::string(DtypeShortName(A(i).dtype)) +
                      " is not a datapath type of ACT/DVE/POOL");
      }
    }
    return Status::Ok();
  }
  Status NotBothPsum(int a, int b) const {
    if (A(a).memory == Memory::kPsum && A(b).memory == Memory::kPsum) {
      return c.Fail(N(a) + " and " + N(b) + " are both in PSUM");
    }
    return Status::Ok();
  }
  Status SameDtype(int a, int b) const {
    if (A(a).dtype != A(b).dtype) return c.Fail(N(a) + " and " + N(b) + " must share a dtype");
    return Status::Ok();
  }
  Status Integer(int slot, const char* why) const {
    if (A(slot).present() && !IsIntegerDtype(A(slot).dtype)) {
      return c.Fail(N(slot) + " must be an integer dtype (" + why + ")");
    }
    return Status::Ok();
  }
  Status Float(int slot) const {
    if (A(slot).present() && !IsFloat(A(slot).dtype))
      return c.Fail(N(slot) + " must be a float dtype");
    return Status::Ok();
  }
  Status FreeRange(int slot, uint64_t lo, uint64_t hi) const {
    uint64_t f = A(slot).FreeElements();
    if (f < lo || f > hi) {
      return c.Fail(N(slot) + " free size " + S(f) + " not in " + S(lo) + ".." + S(hi));
    }
    return Status::Ok();
  }
  Status Op(AluOp op, const char* name) const {
    if (static_cast<int>(op) >= kAluOpCount) return c.Fail(std::string(name) + " out of range");
    return Status::Ok();
  }
  // Bitvec ops need integer operands; the two ops of a pair are of one class.
  Status OpClasses(AluOp a, AluOp b) const {
    AluClass ca = AluOpClass(a), cb = AluOpClass(b);
    if (ca != AluClass::kBypass && cb != AluClass::kBypass && ca != cb) {
      return c.Fail("op0 " + std::string(AluOpName(a)) + " and op1 " + std::string(AluOpName(b)) +
                    " mix bitvec and arithmetic operators");
    }
    if (ca == AluClass::kBitvec || cb == AluClass::kBitvec) {
      for (int i = 0; i < kMaxOperands; ++i) {
        TRNSIM_RETURN_IF_ERROR(Integer(i, "bitvec operator"));
      }
    }
    return Status::Ok();
  }
  Status Arithmetic(AluOp op, const char* name) const {
    if (AluOpClass(op) == AluClass::kBitvec) {
      return c.Fail(std::string(name) + " " + std::string(AluOpName(op)) + " must be arithmetic");
    }
    return Status::Ok();
  }
};

// The rules of one opcode: shapes, dtypes, limits (validate_ops.cc). Generic rules (fields,
// operand presence and memories, AP well-formedness, sync) have passed when it runs.
Status CheckOpcodeRules(const Checker& c);
// Engine-specific rules of one opcode beyond the opcode table's engine mask.
Status CheckEngineRules(const Checker& c, Engine engine);

// Per-family rules, dispatched by CheckOpcodeRules.
Status CheckPe(const Ops& o);           // validate_ops.cc
Status CheckAct(const Ops& o);          // validate_ops.cc
Status CheckControl(const Ops& o);      // validate_ops.cc
Status CheckCollective(const Ops& o);   // validate_ops.cc
Status CheckPair(const Ops& o);         // validate_ops.cc (core_barrier, sendrecv)
Status CheckDebugPrint(const Ops& o);   // validate_ops.cc
Status CheckElementwise(const Ops& o);  // validate_vector.cc (DVE/POOL and shared ops)

}  // namespace trnsim::isa::internal
