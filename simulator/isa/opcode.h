// Opcode and the opcode table: one row of data per instruction — mnemonic, engines, operand
// schema, which scalar fields it uses, and a cost class for the chip model. Validation, the
// binary codec, the text form and docs/isa.md §7 all read this table; nothing looks an opcode up
// by string except the text parser.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"

namespace trnsim::isa {

// Opcode values are the binary encoding: never renumber; append only.
enum class Opcode : uint16_t {
  kInvalid = 0x00,
  // Control, legal on every engine.
  kNop = 0x01,
  kSemWait = 0x02,
  kSemUpdate = 0x03,
  kEventSet = 0x04,
  kEventClear = 0x05,
  kEventWait = 0x06,
  kBarrier = 0x07,
  kNotifyEnd = 0x08,
  kRegSet = 0x09,
  kRegAdd = 0x0A,
  kRegLoad = 0x0B,
  kRegStore = 0x0C,
  kBranch = 0x0D,
  kDmaTrigger = 0x0E,
  kDmaCopy = 0x0F,
  // PE.
  kLoadStationary = 0x20,
  kMultiplyMoving = 0x21,
  kNcTranspose = 0x22,
  // ACT.
  kActivation = 0x30,
  kActivationReduce = 0x31,
  kReadAccumulator = 0x32,
  // Elementwise, on several of ACT / DVE / POOL.
  kTensorCopy = 0x40,
  kTensorScalar = 0x41,
  kTensorTensor = 0x42,
  kMemset = 0x43,
  kIota = 0x44,
  // DVE.
  kTensorReduce = 0x50,
  kTensorCopyPredicated = 0x51,
  kTranspose = 0x52,
  kBnStats = 0x53,
  kBnAggr = 0x54,
  kMax8 = 0x55,
  kNcFindIndex8 = 0x56,
  kNcMatchReplace8 = 0x57,
  kTensorScalarReduce = 0x58,
  kTensorTensorScan = 0x59,
  kScalarTensorTensor = 0x5A,
  kReciprocal = 0x5B,
  // POOL.
  kAffineSelect = 0x60,
  kLocalGather = 0x61,
  kTensorPartitionReduce = 0x62,
  // Collective communication, legal on every engine (the CC cores' trigger).
  kCollective = 0x70,
  // LNC=2 pair: the two physical cores of one logical core (§7.9), legal on every engine.
  kCoreBarrier = 0x71,
  kSendRecv = 0x72,
  // Debug output, legal on every engine (docs/isa.md §7.10).
  kDebugPrint = 0x73,
};

// Instruction::flags bits. Which bits an opcode accepts is OpcodeInfo::flags.
enum Flag : uint16_t {
  kFlagAccumulate = 1u << 0,   // multiply_moving: dst += product (else dst = product)
  kFlagGroupFirst = 1u << 1,   // multiply_moving: first matmul of an accumulation group
  kFlagGroupLast = 1u << 2,    // multiply_moving: last matmul of an accumulation group
  kFlagTranspose = 1u << 3,    // multiply_moving: is_transpose (bit-exact pass-through)
  kFlagDoubleRow = 1u << 4,    // load_stationary/multiply_moving: perf_mode double_row (fp8)
  kFlagOneZero = 1u << 5,      // load_stationary/multiply_moving: operand is all 0/1 (hint)
  kFlagReverse0 = 1u << 6,     // operand0 op0 x instead of x op0 operand0
  kFlagReverse1 = 1u << 7,     // operand1 op1 t instead of t op1 operand1
  kFlagNegate = 1u << 8,       // negate the reduction result
  kFlagReversePred = 1u << 9,  // tensor_copy_predicated: copy where the predicate is zero
  kFlagRegOperand = 1u << 10,  // reg_add/branch: the second operand is reg1, not imm0
  kFlagSwdge = 1u << 11,       // dma_copy: software DGE (GpSimd writes the descriptors)
  kFlagHwdge = 1u << 12,       // dma_copy: hardware DGE (ACT/SP's DGE block writes them)
};
inline constexpr int kFlagBits = 13;
std::string_view FlagName(int bit);  // "accumulate", "first", ... for bit 0..kFlagBits-1

inline constexpr int kMaxOperands = 5;

// debug_print (§7.10): prefix ids index the subgraph's prefix table (NEFF def.json
// "debug_prefixes"); one print reads at most kMaxDebugPrintBytes.
inline constexpr uint32_t kMaxDebugPrefixes = 65536;
inline constexpr uint64_t kMaxDebugPrintBytes = uint64_t{64} << 20;
inline constexpr int kMaxImms = 4;

enum class Access : uint8_t { kRead, kWrite };
enum class Presence : uint8_t { kNone, kRequired, kOptional };

struct OperandSpec {
  std::string_view name;  // the text key: "dst", "in", "in0", "bias", ...
  Presence presence = Presence::kNone;
  Access access = Access::kRead;
  MemoryMask memories = 0;  // memories the slot may name
  int8_t imm_alt = -1;      // when the operand is absent, imm[imm_alt] stands in for it
};

enum class ImmKind : uint8_t {
  kUnused,
  kF32,   // fp32 bits
  kInt,   // int32 (or uint32) bits
  kAuto,  // int when the op/dtype is integer or bitvec (ImmIsInteger), else fp32
};
struct ImmSpec {
  std::string_view name;  // text key; for an operand's stand-in, the operand's name
  ImmKind kind = ImmKind::kUnused;
  uint32_t default_bits = 0;  // what the text parser uses when the key is omitted
};

// Scalar fields an opcode uses (OpcodeInfo::fields); all others must be zero.
enum Field : uint16_t {
  kFieldOp0 = 1u << 0,
  kFieldOp1 = 1u << 1,
  kFieldFunc = 1u << 2,
  kFieldReduceCmd = 1u << 3,
  kFieldCmp = 1u << 4,
  kFieldCount = 1u << 5,
  kFieldReg0 = 1u << 6,
  kFieldReg1 = 1u << 7,
  kFieldIndex = 1u << 8,
  kFieldTarget = 1u << 9,
  kFieldSemOp = 1u << 10,
};

// Cost class: what the chip model's per-engine cost model keys on (docs/isa.md §8).
enum class CostClass : uint8_t {
  kControl,   // sequencer-only, a few cycles
  kSync,      // semaphore/event wait or update
  kDma,       // DMA issue; the transfer runs on the DMA engines
  kPeLoad,    // LoadStationary
  kPeMatmul,  // MultiplyMoving
  kPeTranspose,
  kStreamUnary,   // ~N cycles: one input stream
  kStreamBinary,  // ~N..2N cycles: two input streams
  kReduce,
  kAccumulatorRead,
  kGpSimd,   // GpSimd programs: start-up + N
  kSpecial,  // table-driven (bn_aggr, reciprocal on DVE, ...)
};

// How the text form spells the opcode's scalar fields (text.cc).
enum class TextStyle : uint8_t {
  kGeneric,     // mnemonic key=value ...
  kSemWait,     // sem_wait S[3] >= 16
  kSemUpdate,   // sem_update S[3] += 1
  kEvent,       // event_set E[2]
  kRegSet,      // reg_set r3 = 5
  kRegAdd,      // reg_add r3 += 1 | reg_add r3 += r4
  kRegMem,      // reg_load r3 src=... | reg_store r3 dst=...
  kBranch,      // branch r3 < 16 -> 4 | branch r3 < r4 -> 4
  kCollective,  // generic key=value, `kind=` by name, `shift=` only for permute (§7.8)
};

struct OpcodeInfo {
  Opcode opcode = Opcode::kInvalid;
  std::string_view mnemonic;
  EngineMask engines = 0;
  std::array<OperandSpec, kMaxOperands> operands{};
  std::array<ImmSpec, kMaxImms> imms{};
  uint16_t fields = 0;          // Field bits
  uint16_t flags = 0;           // accepted Flag bits
  std::string_view count_name;  // text key of `count` when kFieldCount
  std::string_view index_name;  // text key of `index` when kFieldIndex
  CostClass cost_class = CostClass::kControl;
  TextStyle text_style = TextStyle::kGeneric;
};

// The row of `opcode`, or nullptr for a value no row has. O(1): a dense table indexed by value.
const OpcodeInfo* FindOpcode(Opcode opcode);
const OpcodeInfo* FindOpcode(uint16_t raw);
// Every row, in opcode order.
std::span<const OpcodeInfo> AllOpcodes();
// By mnemonic (the text parser only).
const OpcodeInfo* FindOpcodeByMnemonic(std::string_view mnemonic);
std::string_view Mnemonic(Opcode opcode);  // "?" for an unknown value

}  // namespace trnsim::isa
