// PackedProgram: one engine's instruction stream held compactly, the form a loaded program keeps
// for the chip model (ValidatedProgram holds one). An Instruction value is 392 bytes because it
// has room for every operand slot, immediate and sync entry any opcode may use; most
// instructions use one to three operands and few sync entries, so a program of 10^6 of them
// would hold ~374 MiB of mostly zeros.
//
// Layout: one fixed 32-byte Entry per instruction (the scalar fields and four bit masks), plus
// what the masks name, out of line:
//   - an operand slot that is not AccessPattern{} is an index into a per-program operand table;
//     Append reuses an equal operand appended recently (a bounded direct-mapped table of the
//     last ones seen, so loops unrolled into a stream share their operands and appending never
//     costs more than the table's fixed size);
//   - a non-zero immediate, a wait or update that is not the default value, is stored in the
//     entry's run of 32-bit words in one per-program word array.
// Packing is lossless for any Instruction, valid or not: Unpack(i) == the instruction appended
// i-th (field for field, operator==). Only the Entry is per instruction, so an instruction with
// one operand and one immediate costs 40 bytes when its operand repeats, 96 when it does not.
//
// Thread safety: Append is not; a program that is no longer appended to is an immutable value
// (Unpack, opcode and size are const and may run concurrently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simulator/isa/instruction.h"

namespace trnsim::isa {

class PackedProgram {
 public:
  explicit PackedProgram(Engine engine = Engine::kSp) : engine_(engine) {}
  // Packs every instruction of `program`, then Seal().
  static PackedProgram Pack(const Program& program);

  // Reserves room for `count` instructions (their entries only).
  void Reserve(size_t count) { entries_.reserve(count); }
  void Append(const Instruction& inst);
  // Done appending: frees the reuse table and returns spare capacity to the allocator.
  void Seal();

  Engine engine() const { return engine_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Instruction `i` (< size()) written into `out` (every field: `out` need not be cleared).
  void Unpack(size_t i, Instruction& out) const;
  Instruction at(size_t i) const;
  Opcode opcode(size_t i) const { return entries_[i].opcode; }
  // Instruction i's num_updates, without unpacking it.
  uint8_t num_updates(size_t i) const { return entries_[i].num_updates; }
  // The whole program as plain Instructions (tools and tests; 392 bytes an instruction).
  Program Unpack() const;

  // Host bytes the program holds (entries, words and operand table, by capacity).
  uint64_t HeldBytes() const;
  // An upper bound of HeldBytes() after Seal() for a stream of `instructions` records totalling
  // `body_bytes` in the binary encoding (encoding.h: each operand takes kApBytes of a record,
  // each sync entry kSyncBytes), so a loader can account for a program before decoding it.
  static uint64_t MaxHeldBytes(uint64_t instructions, uint64_t body_bytes);

  bool operator==(const PackedProgram& other) const;

 private:
  struct Entry {
    uint32_t index = 0;
    int32_t target = 0;
    uint32_t words_at = 0;  // first of this instruction's words in words_
    Opcode opcode = Opcode::kNop;
    uint16_t flags = 0;
    AluOp op0 = AluOp::kBypass;
    AluOp op1 = AluOp::kBypass;
    ActFunc func = ActFunc::kCopy;
    ReduceCmd reduce_cmd = ReduceCmd::kIdle;
    CmpOp cmp = CmpOp::kLt;
    uint8_t count = 0;
    UpdateOp sem_op = static_cast<UpdateOp>(0);
    uint8_t reg0 = 0;
    uint8_t reg1 = 0;
    uint8_t operand_mask = 0;  // bit k: ap[k] is stored (an operand-table index word)
    uint8_t imm_mask = 0;      // bit k: imm[k] is stored (one word)
    uint8_t wait_mask = 0;     // bit k: waits[k] is stored (two words)
    uint8_t update_mask = 0;   // bit k: updates[k] is stored (two words)
    uint8_t num_waits = 0;
    uint8_t num_updates = 0;
  };
  static_assert(sizeof(Entry) == 32, "an Entry is the per-instruction cost: keep it small");

  uint32_t OperandIndex(const AccessPattern& ap);

  Engine engine_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> words_;
  std::vector<AccessPattern> operands_;
  std::vector<uint32_t> recent_operands_;  // Append's reuse table; empty once sealed
};

}  // namespace trnsim::isa
