// Instruction: one decoded engine instruction as a plain value, as the chip model executes it
// and the toolchain builds it. Every opcode uses the same struct; the opcode table (opcode.h)
// says which operand slots and scalar fields are meaningful, and everything else must be zero.
// docs/isa.md §7 lists each opcode's slots, fields and exact semantics.
//
// Thread safety: plain values; no shared state.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"
#include "simulator/isa/opcode.h"
#include "simulator/isa/ops.h"

namespace trnsim::isa {

inline constexpr int kMaxWaits = 4;
inline constexpr int kMaxUpdates = 4;

// A prefix: the engine does not issue the instruction until the condition holds.
//   semaphore:  S[index] cmp value (unsigned 32-bit compare)
//   event:      E[index] is set (cmp and value are 0)
struct SyncWait {
  WaitKind kind = WaitKind::kSemaphore;
  CmpOp cmp = CmpOp::kGe;
  uint16_t index = 0;
  uint32_t value = 0;
  bool operator==(const SyncWait&) const = default;
};

// A suffix: applied once, when the instruction starts reading (kRead) or completes (kComplete).
//   kSemAdd/kSemSub/kSemSet: S[index] += / -= / = value (wrapping uint32)
//   kEventSet/kEventClear:   E[index] = 1 / 0 (value is 0)
struct SyncUpdate {
  UpdateOp op = UpdateOp::kSemAdd;
  UpdateWhen when = UpdateWhen::kComplete;
  uint16_t index = 0;
  uint32_t value = 0;
  bool operator==(const SyncUpdate&) const = default;
};

struct Instruction {
  Opcode opcode = Opcode::kNop;

  // Scalar fields (docs/isa.md §5.3). Meaning per opcode: OpcodeInfo and §7.
  AluOp op0 = AluOp::kBypass;
  AluOp op1 = AluOp::kBypass;
  ActFunc func = ActFunc::kCopy;
  ReduceCmd reduce_cmd = ReduceCmd::kIdle;
  CmpOp cmp = CmpOp::kLt;
  uint8_t count = 0;  // tensor_reduce axes, local_gather elems/index, dma_trigger count
  UpdateOp sem_op = static_cast<UpdateOp>(0);  // sem_update only
  uint16_t flags = 0;                          // Flag bits
  uint8_t reg0 = 0;                            // register operands (reg_*, branch)
  uint8_t reg1 = 0;
  uint32_t index = 0;  // semaphore/event index, DMA queue, descriptor id, notify value
  int32_t target = 0;  // branch: absolute instruction index in the same stream
  std::array<uint32_t, kMaxImms> imm{};  // raw 32-bit immediates (fp32 or int32 bits)

  // Datapath operands; slot meaning per opcode (OpcodeInfo::operands). Absent: Memory::kNone.
  std::array<AccessPattern, kMaxOperands> ap{};

  uint8_t num_waits = 0;
  uint8_t num_updates = 0;
  std::array<SyncWait, kMaxWaits> waits{};
  std::array<SyncUpdate, kMaxUpdates> updates{};

  std::span<const SyncWait> Waits() const { return {waits.data(), num_waits}; }
  std::span<const SyncUpdate> Updates() const { return {updates.data(), num_updates}; }
  bool has_flag(Flag f) const { return (flags & f) != 0; }
  float imm_f32(int i) const;  // imm[i] as fp32 bits
  int32_t imm_i32(int i) const { return static_cast<int32_t>(imm[i]); }
  void set_imm_f32(int i, float v);

  bool operator==(const Instruction&) const = default;
};

// Helpers that append a prefix/suffix; they abort if the instruction already has the maximum.
void AddWait(Instruction& inst, SyncWait wait);
void AddUpdate(Instruction& inst, SyncUpdate update);

// One engine's decoded instruction stream.
struct Program {
  Engine engine = Engine::kSp;
  std::vector<Instruction> instructions;
  bool operator==(const Program&) const = default;
};

// Slot indices shared by most opcodes: slot 0 is the destination, slot 1 the first input.
inline constexpr int kDst = 0;
inline constexpr int kSrc = 1;

// True when imm[i] of `inst` holds an integer rather than fp32 bits (ImmKind::kInt, or kAuto on
// an integer destination / a bitvec ALU op). The text form and the chip model use it.
bool ImmIsInteger(const Instruction& inst, int i);

}  // namespace trnsim::isa
