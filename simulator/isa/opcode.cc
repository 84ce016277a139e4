#include "simulator/isa/opcode.h"

#include <array>

namespace trnsim::isa {
namespace {

constexpr MemoryMask kS = MemoryBit(Memory::kSbuf);
constexpr MemoryMask kP = MemoryBit(Memory::kPsum);
constexpr MemoryMask kSP = kS | kP;
constexpr MemoryMask kH = MemoryBit(Memory::kHbm);
constexpr MemoryMask kSH = kS | kH;
constexpr MemoryMask kPat = MemoryBit(Memory::kPattern);

constexpr EngineMask kPe = EngineBit(Engine::kPe);
constexpr EngineMask kAct = EngineBit(Engine::kAct);
constexpr EngineMask kDve = EngineBit(Engine::kDve);
constexpr EngineMask kPool = EngineBit(Engine::kPool);

constexpr uint32_t kOneF32 = 0x3F800000u;  // 1.0f

constexpr OperandSpec None() { return {}; }
constexpr OperandSpec Out(std::string_view n, MemoryMask m) {
  return {n, Presence::kRequired, Access::kWrite, m, -1};
}
constexpr OperandSpec OptOut(std::string_view n, MemoryMask m) {
  return {n, Presence::kOptional, Access::kWrite, m, -1};
}
constexpr OperandSpec In(std::string_view n, MemoryMask m) {
  return {n, Presence::kRequired, Access::kRead, m, -1};
}
// An optional input that imm[imm] replaces when absent.
constexpr OperandSpec OrImm(std::string_view n, MemoryMask m, int8_t imm) {
  return {n, Presence::kOptional, Access::kRead, m, imm};
}
constexpr ImmSpec NoImm() { return {}; }
constexpr ImmSpec F32(std::string_view n, uint32_t def = 0) { return {n, ImmKind::kF32, def}; }
constexpr ImmSpec Int(std::string_view n, uint32_t def = 0) { return {n, ImmKind::kInt, def}; }
constexpr ImmSpec Auto(std::string_view n) { return {n, ImmKind::kAuto, 0}; }

using O = OperandSpec;
using I = ImmSpec;
using C = CostClass;

struct Row {
  Opcode op;
  std::string_view mnemonic;
  EngineMask engines;
  std::array<OperandSpec, kMaxOperands> operands;
  std::array<ImmSpec, kMaxImms> imms;
  uint16_t fields;
  uint16_t flags;
  std::string_view count_name;
  std::string_view index_name;
  CostClass cost;
  TextStyle style = TextStyle::kGeneric;
};

constexpr std::array<OperandSpec, kMaxOperands> Ops(O a = None(), O b = None(), O c = None(),
                                                    O d = None(), O e = None()) {
  return {a, b, c, d, e};
}
constexpr std::array<ImmSpec, kMaxImms> Imms(I a = NoImm(), I b = NoImm(), I c = NoImm(),
                                             I d = NoImm()) {
  return {a, b, c, d};
}

constexpr EngineMask kAll = kAllEngines;
constexpr uint16_t kRegOp = kFlagRegOperand;

// The opcode table (docs/isa.md §7 is its prose form).
constexpr Row kRows[] = {
    // ---- control: every engine -------------------------------------------------------------
    {Opcode::kNop, "nop", kAll, Ops(), Imms(), 0, 0, "", "", C::kControl},
    {Opcode::kSemWait, "sem_wait", kAll, Ops(), Imms(Int("value")), kFieldIndex | kFieldCmp, 0, "",
     "", C::kSync, TextStyle::kSemWait},
    {Opcode::kSemUpdate, "sem_update", kAll, Ops(), Imms(Int("value")), kFieldIndex | kFieldSemOp,
     0, "", "", C::kSync, TextStyle::kSemUpdate},
    {Opcode::kEventSet, "event_set", kAll, Ops(), Imms(), kFieldIndex, 0, "", "", C::kSync,
     TextStyle::kEvent},
    {Opcode::kEventClear, "event_clear", kAll, Ops(), Imms(), kFieldIndex, 0, "", "", C::kSync,
     TextStyle::kEvent},
    {Opcode::kEventWait, "event_wait", kAll, Ops(), Imms(), kFieldIndex, 0, "", "", C::kSync,
     TextStyle::kEvent},
    {Opcode::kBarrier, "barrier", kAll, Ops(), Imms(), 0, 0, "", "", C::kSync},
    {Opcode::kNotifyEnd, "notify_end", kAll, Ops(), Imms(), kFieldIndex, 0, "", "code", C::kSync},
    {Opcode::kRegSet, "reg_set", kAll, Ops(), Imms(Int("value")), kFieldReg0, 0, "", "",
     C::kControl, TextStyle::kRegSet},
    {Opcode::kRegAdd, "reg_add", kAll, Ops(), Imms(Int("value")), kFieldReg0 | kFieldReg1, kRegOp,
     "", "", C::kControl, TextStyle::kRegAdd},
    {Opcode::kRegLoad, "reg_load", kAll, Ops(In("src", kSH)), Imms(), kFieldReg0, 0, "", "",
     C::kControl, TextStyle::kRegMem},
    {Opcode::kRegStore, "reg_store", kAll, Ops(Out("dst", kSH)), Imms(), kFieldReg0, 0, "", "",
     C::kControl, TextStyle::kRegMem},
    {Opcode::kBranch, "branch", kAll, Ops(), Imms(Int("value")),
     kFieldReg0 | kFieldReg1 | kFieldCmp | kFieldTarget, kRegOp, "", "", C::kControl,
     TextStyle::kBranch},
    {Opcode::kDmaTrigger, "dma_trigger", kAll, Ops(), Imms(), kFieldIndex | kFieldCount, 0, "count",
     "desc", C::kDma},
    {Opcode::kDmaCopy, "dma_copy", kAll, Ops(Out("dst", kSH), In("src", kSH)), Imms(), kFieldIndex,
     kFlagSwdge | kFlagHwdge, "", "queue", C::kDma},
    // ---- PE -----------------------------------------------------------------------------------
    {Opcode::kLoadStationary, "load_stationary", kPe, Ops(None(), In("stationary", kS)), Imms(), 0,
     kFlagDoubleRow | kFlagOneZero, "", "", C::kPeLoad},
    {Opcode::kMultiplyMoving, "multiply_moving", kPe, Ops(Out("dst", kP), In("moving", kS)), Imms(),
     0,
     kFlagAccumulate | kFlagGroupFirst | kFlagGroupLast | kFlagTranspose | kFlagDoubleRow |
         kFlagOneZero,
     "", "", C::kPeMatmul},
    {Opcode::kNcTranspose, "nc_transpose", kPe, Ops(Out("dst", kP), In("in", kS)), Imms(), 0, 0, "",
     "", C::kPeTranspose},
    // ---- ACT ----------------------------------------------------------------------------------
    {Opcode::kActivation, "activation", kAct,
     Ops(Out("dst", kSP), In("in", kSP), OrImm("bias", kSP, 1), OrImm("scale", kSP, 0)),
     Imms(F32("scale", kOneF32), F32("bias"), F32("alpha")), kFieldFunc | kFieldReduceCmd, 0, "",
     "", C::kStreamUnary},
    {Opcode::kActivationReduce, "activation_reduce", kAct,
     Ops(Out("dst", kSP), In("in", kSP), OrImm("bias", kSP, 1), OrImm("scale", kSP, 0),
         Out("reduce_res", kSP)),
     Imms(F32("scale", kOneF32), F32("bias"), F32("alpha")), kFieldFunc, 0, "", "",
     C::kAccumulatorRead},
    {Opcode::kReadAccumulator, "read_accumulator", kAct, Ops(Out("dst", kSP)), Imms(), 0,
     kFlagNegate, "", "", C::kAccumulatorRead},
    // ---- elementwise on several engines -------------------------------------------------------
    {Opcode::kTensorCopy, "tensor_copy", kAct | kDve | kPool, Ops(Out("dst", kSP), In("in", kSP)),
     Imms(), 0, 0, "", "", C::kStreamUnary},
    {Opcode::kTensorScalar, "tensor_scalar", kAct | kDve | kPool,
     Ops(Out("dst", kSP), In("in", kSP), OrImm("operand0", kSP, 0), OrImm("operand1", kSP, 1)),
     Imms(Auto("operand0"), Auto("operand1")), kFieldOp0 | kFieldOp1, kFlagReverse0 | kFlagReverse1,
     "", "", C::kStreamUnary},
    {Opcode::kTensorTensor, "tensor_tensor", kDve | kPool,
     Ops(Out("dst", kSP), In("in0", kSP), In("in1", kSP)), Imms(), kFieldOp0, 0, "", "",
     C::kStreamBinary},
    {Opcode::kMemset, "memset", kDve | kPool, Ops(Out("dst", kSP)), Imms(Auto("value")), 0, 0, "",
     "", C::kStreamUnary},
    {Opcode::kIota, "iota", kDve | kPool, Ops(Out("dst", kSP), In("expr", kPat)), Imms(), 0, 0, "",
     "", C::kGpSimd},
    // ---- DVE ----------------------------------------------------------------------------------
    {Opcode::kTensorReduce, "tensor_reduce", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(),
     kFieldOp0 | kFieldCount, kFlagNegate, "axes", "", C::kReduce},
    {Opcode::kTensorCopyPredicated, "tensor_copy_predicated", kDve,
     Ops(Out("dst", kSP), In("in", kSP), In("predicate", kSP)), Imms(), 0, kFlagReversePred, "", "",
     C::kStreamBinary},
    {Opcode::kTranspose, "transpose", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(), 0, 0, "",
     "", C::kStreamUnary},
    {Opcode::kBnStats, "bn_stats", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(), 0, 0, "", "",
     C::kStreamUnary},
    {Opcode::kBnAggr, "bn_aggr", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(), 0, 0, "", "",
     C::kSpecial},
    {Opcode::kMax8, "max8", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(), 0, 0, "", "",
     C::kStreamUnary},
    {Opcode::kNcFindIndex8, "nc_find_index8", kDve,
     Ops(Out("dst", kSP), In("data", kSP), In("vals", kSP)), Imms(), 0, 0, "", "", C::kStreamUnary},
    {Opcode::kNcMatchReplace8, "nc_match_replace8", kDve,
     Ops(Out("dst", kSP), In("data", kSP), In("vals", kSP), OptOut("dst_idx", kSP)),
     Imms(F32("imm")), 0, 0, "", "", C::kStreamUnary},
    {Opcode::kTensorScalarReduce, "tensor_scalar_reduce", kDve,
     Ops(Out("dst", kSP), In("data", kSP), OrImm("operand0", kSP, 0), Out("reduce_res", kSP)),
     Imms(Auto("operand0")), kFieldOp0 | kFieldOp1, kFlagReverse0 | kFlagNegate, "", "",
     C::kReduce},
    {Opcode::kTensorTensorScan, "tensor_tensor_scan", kDve,
     Ops(Out("dst", kSP), In("data0", kSP), In("data1", kSP), OrImm("initial", kSP, 0)),
     Imms(F32("initial")), kFieldOp0 | kFieldOp1, 0, "", "", C::kStreamBinary},
    {Opcode::kScalarTensorTensor, "scalar_tensor_tensor", kDve,
     Ops(Out("dst", kSP), In("data", kSP), OrImm("operand0", kSP, 0), In("operand1", kSP)),
     Imms(F32("operand0")), kFieldOp0 | kFieldOp1, kFlagReverse0 | kFlagReverse1, "", "",
     C::kStreamBinary},
    {Opcode::kReciprocal, "reciprocal", kDve, Ops(Out("dst", kSP), In("in", kSP)), Imms(), 0, 0, "",
     "", C::kSpecial},
    // ---- POOL ---------------------------------------------------------------------------------
    {Opcode::kAffineSelect, "affine_select", kPool,
     Ops(Out("dst", kS), In("expr", kPat), In("on_true", kS)), Imms(F32("on_false")), kFieldCmp, 0,
     "", "", C::kGpSimd},
    {Opcode::kLocalGather, "local_gather", kPool,
     Ops(Out("dst", kS), In("in", kS), In("index", kS)), Imms(), kFieldCount, 0, "elems_per_index",
     "", C::kGpSimd},
    {Opcode::kTensorPartitionReduce, "tensor_partition_reduce", kPool,
     Ops(Out("dst", kS), In("in", kS)), Imms(), kFieldOp0, 0, "", "", C::kGpSimd},
    // ---- collectives: every engine ------------------------------------------------------------
    // count = kind, op0 = reduction, index = collective id; imm = group size, stride, shift.
    {Opcode::kCollective, "collective", kAll, Ops(Out("dst", kH), In("src", kH)),
     Imms(Int("group"), Int("stride", 1), Int("shift")), kFieldOp0 | kFieldCount | kFieldIndex, 0,
     "kind", "id", C::kDma, TextStyle::kCollective},
    // ---- LNC=2 pair: every engine (§7.9) ------------------------------------------------------
    // core_barrier: index = the semaphore it adds 1 to on the peer core and waits on here.
    {Opcode::kCoreBarrier, "core_barrier", kAll, Ops(), Imms(), kFieldIndex, 0, "", "sem",
     C::kSync},
    // sendrecv: dst is in the peer core's SBUF; count = DMA queue, index = the peer semaphore.
    {Opcode::kSendRecv, "sendrecv", kAll, Ops(Out("dst", kS), In("src", kS)), Imms(),
     kFieldIndex | kFieldCount, 0, "queue", "peer_sem", C::kDma},
    // ---- debug output: every engine (§7.10) ---------------------------------------------------
    // debug_print: index = the prefix id (the subgraph's def.json "debug_prefixes").
    {Opcode::kDebugPrint, "debug_print", kAll, Ops(None(), In("src", kSH)), Imms(), kFieldIndex, 0,
     "", "prefix", C::kDma},
};

constexpr size_t kRowCount = sizeof(kRows) / sizeof(kRows[0]);
constexpr size_t kDenseSize = 0x80;

struct Table {
  std::array<OpcodeInfo, kRowCount> rows{};
  std::array<int16_t, kDenseSize> by_value{};  // row index + 1; 0 = none
};

constexpr Table MakeTable() {
  Table t;
  for (size_t i = 0; i < kRowCount; ++i) {
    const Row& r = kRows[i];
    t.rows[i] = OpcodeInfo{r.op,    r.mnemonic,   r.engines,    r.operands, r.imms, r.fields,
                           r.flags, r.count_name, r.index_name, r.cost,     r.style};
    t.by_value[static_cast<size_t>(r.op)] = static_cast<int16_t>(i + 1);
  }
  return t;
}

constexpr Table kTable = MakeTable();

}  // namespace

std::string_view FlagName(int bit) {
  static constexpr std::array<std::string_view, kFlagBits> kNames = {
      "accumulate", "first",  "last",         "transpose",   "double_row", "onezero", "reverse0",
      "reverse1",   "negate", "reverse_pred", "reg_operand", "swdge",      "hwdge"};
  return bit >= 0 && bit < kFlagBits ? kNames[bit] : "?";
}

const OpcodeInfo* FindOpcode(uint16_t raw) {
  if (raw >= kDenseSize || kTable.by_value[raw] == 0) return nullptr;
  return &kTable.rows[kTable.by_value[raw] - 1];
}

const OpcodeInfo* FindOpcode(Opcode opcode) { return FindOpcode(static_cast<uint16_t>(opcode)); }

std::span<const OpcodeInfo> AllOpcodes() { return kTable.rows; }

const OpcodeInfo* FindOpcodeByMnemonic(std::string_view mnemonic) {
  for (const OpcodeInfo& info : kTable.rows) {
    if (info.mnemonic == mnemonic) return &info;
  }
  return nullptr;
}

std::string_view Mnemonic(Opcode opcode) {
  const OpcodeInfo* info = FindOpcode(opcode);
  return info ? info->mnemonic : "?";
}

}  // namespace trnsim::isa
