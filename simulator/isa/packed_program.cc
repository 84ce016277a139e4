#include "simulator/isa/packed_program.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "simulator/isa/encoding.h"

namespace trnsim::isa {
namespace {

// Slots of the reuse table: enough for the operands of a few hundred distinct instructions (an
// unrolled loop body), 16 KiB while appending, nothing once sealed.
constexpr size_t kRecentOperands = 4096;
constexpr uint32_t kNoOperand = std::numeric_limits<uint32_t>::max();

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "trnsim: PackedProgram: %s\n", what);
  std::abort();
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

uint64_t HashOf(const AccessPattern& ap) {
  uint64_t h = Mix(0, static_cast<uint64_t>(ap.memory) | static_cast<uint64_t>(ap.dtype) << 8 |
                          uint64_t{ap.num_dims} << 16 | uint64_t{ap.offset_reg} << 24 |
                          uint64_t{ap.start_partition} << 32 | uint64_t{ap.num_partitions} << 48);
  h = Mix(h, static_cast<uint64_t>(ap.offset));
  h = Mix(h, uint64_t{ap.var_id} | uint64_t{static_cast<uint32_t>(ap.partition_stride)} << 32);
  h = Mix(h, static_cast<uint32_t>(ap.reg_stride_bytes));
  for (int d = 0; d < kMaxFreeDims; ++d)
    h = Mix(h, uint64_t{ap.sizes[d]} | uint64_t{static_cast<uint32_t>(ap.strides[d])} << 16);
  return h;
}

// A sync entry as two words: its three small fields, then its value.
uint32_t SmallFields(uint8_t a, uint8_t b, uint16_t index) {
  return uint32_t{a} | uint32_t{b} << 8 | uint32_t{index} << 16;
}

void Put(std::vector<uint32_t>& words, const SyncWait& w) {
  words.push_back(SmallFields(static_cast<uint8_t>(w.kind), static_cast<uint8_t>(w.cmp), w.index));
  words.push_back(w.value);
}

void Put(std::vector<uint32_t>& words, const SyncUpdate& u) {
  words.push_back(SmallFields(static_cast<uint8_t>(u.op), static_cast<uint8_t>(u.when), u.index));
  words.push_back(u.value);
}

SyncWait GetWait(const uint32_t* at) {
  SyncWait w;
  w.kind = static_cast<WaitKind>(at[0] & 0xFF);
  w.cmp = static_cast<CmpOp>((at[0] >> 8) & 0xFF);
  w.index = static_cast<uint16_t>(at[0] >> 16);
  w.value = at[1];
  return w;
}

SyncUpdate GetUpdate(const uint32_t* at) {
  SyncUpdate u;
  u.op = static_cast<UpdateOp>(at[0] & 0xFF);
  u.when = static_cast<UpdateWhen>((at[0] >> 8) & 0xFF);
  u.index = static_cast<uint16_t>(at[0] >> 16);
  u.value = at[1];
  return u;
}

}  // namespace

PackedProgram PackedProgram::Pack(const Program& program) {
  PackedProgram packed(program.engine);
  packed.Reserve(program.instructions.size());
  for (const Instruction& inst : program.instructions) packed.Append(inst);
  packed.Seal();
  return packed;
}

uint32_t PackedProgram::OperandIndex(const AccessPattern& ap) {
  if (recent_operands_.empty()) recent_operands_.assign(kRecentOperands, kNoOperand);
  uint32_t& slot = recent_operands_[HashOf(ap) % kRecentOperands];
  if (slot != kNoOperand && operands_[slot] == ap) return slot;
  if (operands_.size() >= kNoOperand) Die("more than 2^32 - 1 operands");
  slot = static_cast<uint32_t>(operands_.size());
  operands_.push_back(ap);
  return slot;
}

void PackedProgram::Append(const Instruction& inst) {
  if (words_.size() > std::numeric_limits<uint32_t>::max()) Die("more than 2^32 words");
  Entry e;
  e.index = inst.index;
  e.target = inst.target;
  e.words_at = static_cast<uint32_t>(words_.size());
  e.opcode = inst.opcode;
  e.flags = inst.flags;
  e.op0 = inst.op0;
  e.op1 = inst.op1;
  e.func = inst.func;
  e.reduce_cmd = inst.reduce_cmd;
  e.cmp = inst.cmp;
  e.count = inst.count;
  e.sem_op = inst.sem_op;
  e.reg0 = inst.reg0;
  e.reg1 = inst.reg1;
  e.num_waits = inst.num_waits;
  e.num_updates = inst.num_updates;
  for (int k = 0; k < kMaxOperands; ++k) {
    if (inst.ap[k] == AccessPattern{}) continue;
    e.operand_mask |= static_cast<uint8_t>(1u << k);
    words_.push_back(OperandIndex(inst.ap[k]));
  }
  for (int k = 0; k < kMaxImms; ++k) {
    if (inst.imm[k] == 0) continue;
    e.imm_mask |= static_cast<uint8_t>(1u << k);
    words_.push_back(inst.imm[k]);
  }
  for (int k = 0; k < kMaxWaits; ++k) {
    if (inst.waits[k] == SyncWait{}) continue;
    e.wait_mask |= static_cast<uint8_t>(1u << k);
    Put(words_, inst.waits[k]);
  }
  for (int k = 0; k < kMaxUpdates; ++k) {
    if (inst.updates[k] == SyncUpdate{}) continue;
    e.update_mask |= static_cast<uint8_t>(1u << k);
    Put(words_, inst.updates[k]);
  }
  entries_.push_back(e);
}

void PackedProgram::Seal() {
  std::vector<uint32_t>().swap(recent_operands_);  // (= {} would keep the capacity)
  entries_.shrink_to_fit();
  words_.shrink_to_fit();
  operands_.shrink_to_fit();
}

void PackedProgram::Unpack(size_t i, Instruction& out) const {
  const Entry& e = entries_[i];
  out.opcode = e.opcode;
  out.op0 = e.op0;
  out.op1 = e.op1;
  out.func = e.func;
  out.reduce_cmd = e.reduce_cmd;
  out.cmp = e.cmp;
  out.count = e.count;
  out.sem_op = e.sem_op;
  out.flags = e.flags;
  out.reg0 = e.reg0;
  out.reg1 = e.reg1;
  out.index = e.index;
  out.target = e.target;
  out.num_waits = e.num_waits;
  out.num_updates = e.num_updates;
  const uint32_t* word = words_.data() + e.words_at;
  for (int k = 0; k < kMaxOperands; ++k)
    out.ap[k] = (e.operand_mask >> k) & 1 ? operands_[*word++] : AccessPattern{};
  for (int k = 0; k < kMaxImms; ++k) out.imm[k] = (e.imm_mask >> k) & 1 ? *word++ : 0;
  for (int k = 0; k < kMaxWaits; ++k) {
    out.waits[k] = SyncWait{};
    if ((e.wait_mask >> k) & 1) {
      out.waits[k] = GetWait(word);
      word += 2;
    }
  }
  for (int k = 0; k < kMaxUpdates; ++k) {
    out.updates[k] = SyncUpdate{};
    if ((e.update_mask >> k) & 1) {
      out.updates[k] = GetUpdate(word);
      word += 2;
    }
  }
}

Instruction PackedProgram::at(size_t i) const {
  Instruction inst;
  Unpack(i, inst);
  return inst;
}

Program PackedProgram::Unpack() const {
  Program program;
  program.engine = engine_;
  program.instructions.resize(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) Unpack(i, program.instructions[i]);
  return program;
}

uint64_t PackedProgram::HeldBytes() const {
  return entries_.capacity() * sizeof(Entry) + words_.capacity() * sizeof(uint32_t) +
         operands_.capacity() * sizeof(AccessPattern) +
         recent_operands_.capacity() * sizeof(uint32_t);
}

uint64_t PackedProgram::MaxHeldBytes(uint64_t instructions, uint64_t body_bytes) {
  // Per instruction: its Entry and up to kMaxImms immediate words. Per operand (kApBytes of
  // the record): one index word and, unshared, one table entry. Per sync entry (kSyncBytes):
  // two words. Every record byte beyond the fixed part is one of those two.
  const uint64_t per_operand = sizeof(uint32_t) + sizeof(AccessPattern);
  const uint64_t variable_bytes =
      body_bytes > instructions * kMinRecordBytes ? body_bytes - instructions * kMinRecordBytes : 0;
  // An operand turns kApBytes of record into per_operand bytes, a sync entry kSyncBytes into as
  // many, so per_operand / kApBytes (> 1) bounds the ratio for any mix.
  return instructions * (sizeof(Entry) + kMaxImms * sizeof(uint32_t)) +
         (variable_bytes * per_operand + kApBytes - 1) / kApBytes;
}

bool PackedProgram::operator==(const PackedProgram& other) const {
  if (engine_ != other.engine_ || size() != other.size()) return false;
  Instruction a, b;
  for (size_t i = 0; i < size(); ++i) {
    Unpack(i, a);
    other.Unpack(i, b);
    if (!(a == b)) return false;
  }
  return true;
}

}  // namespace trnsim::isa
