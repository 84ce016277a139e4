#include "simulator/cost/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "simulator/isa/opcode.h"

// Formulas: trainium-hw-isa-facts.md §3 ([ISA-OLD] unless tagged otherwise); docs/calibration.md
// lists each with its source. Every helper returns cycles of the executing engine.

namespace trnsim::simulator::cost {
namespace {

using isa::AccessPattern;
using isa::AluOp;
using isa::CostClass;
using isa::Dtype;
using isa::Engine;
using isa::Instruction;
using isa::Memory;
using isa::Opcode;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "trnsim cost model: %s\n", what);
  std::abort();
}

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

bool Is16BitFloat(Dtype d) { return d == Dtype::kBfloat16 || d == Dtype::kFloat16; }
bool IsFp8(Dtype d) {
  return d == Dtype::kFloat8E3 || d == Dtype::kFloat8E4 || d == Dtype::kFloat8E5;
}

const AccessPattern& Slot(const Instruction& inst, int i) { return inst.ap[i]; }

// The main operand: slot 1 when it is on chip, else slot 0 (memset, iota, affine_select, ...).
const AccessPattern& MainOperand(const Instruction& inst) {
  return Slot(inst, isa::kSrc).on_chip() ? Slot(inst, isa::kSrc) : Slot(inst, isa::kDst);
}
uint64_t MainN(const Instruction& inst) { return MainOperand(inst).FreeElements(); }

// Innermost free dim is unit-stride (or has a single element).
bool Contiguous(const AccessPattern& ap) {
  if (ap.num_dims == 0) return true;
  const int d = ap.num_dims - 1;
  return ap.sizes[d] <= 1 || ap.strides[d] == 1;
}
int64_t InnermostStrideBytes(const AccessPattern& ap) {
  if (ap.num_dims == 0 || ap.sizes[ap.num_dims - 1] <= 1) return 0;
  const int64_t s = ap.strides[ap.num_dims - 1];
  return (s < 0 ? -s : s) * isa::DtypeSize(ap.dtype);
}

// Operands that stream through the datapath: the present SBUF/PSUM slots.
template <typename Pred>
bool AllOnChip(const Instruction& inst, Pred pred) {
  for (const AccessPattern& ap : inst.ap)
    if (ap.on_chip() && !pred(ap)) return false;
  return true;
}

// [NKI-ARCH-V2] innermost stride > 16 bytes halves bandwidth (applied on every chip).
uint64_t StridePenalty(const Instruction& inst, const CostSpec& s) {
  for (const AccessPattern& ap : inst.ap)
    if (ap.on_chip() && InnermostStrideBytes(ap) > s.large_stride_threshold_bytes)
      return static_cast<uint64_t>(s.large_stride_slowdown);
  return 1;
}

// A streaming op: max(floor, ceil(base * stride penalty / speedup)).
uint64_t Stream(const Instruction& inst, const CostSpec& s, uint64_t base, uint64_t speedup = 1,
                uint64_t floor = 0) {
  if (floor == 0) floor = static_cast<uint64_t>(s.min_ii_cycles);
  const uint64_t stream = CeilDiv(base * StridePenalty(inst, s), std::max<uint64_t>(speedup, 1));
  return std::max(floor, stream);
}

int DveWidth(Dtype d, const CostSpec& s) {
  if (Is16BitFloat(d)) return s.dve_elems_per_cycle_16bit;
  if (IsFp8(d)) return s.dve_elems_per_cycle_fp8;
  return s.dve_elems_per_cycle_other;
}
int ActWidth(Dtype d, const CostSpec& s) {
  if (Is16BitFloat(d)) return s.act_elems_per_cycle_16bit;
  if (IsFp8(d)) return s.act_elems_per_cycle_fp8;
  return s.act_elems_per_cycle_other;
}
// The narrowest width over the streamed operands, as a multiple of the 128-lane baseline.
template <typename WidthFn>
uint64_t WidthFactor(const Instruction& inst, const CostSpec& s, WidthFn width) {
  int w = 0;
  for (const AccessPattern& ap : inst.ap)
    if (ap.on_chip()) w = w == 0 ? width(ap.dtype, s) : std::min(w, width(ap.dtype, s));
  return static_cast<uint64_t>(std::max(1, w / s.lanes));
}

// [NKI-ARCH-TRN2] DVE perf mode for tensor_copy / tensor_scalar, capped by the dtype width.
uint64_t DveCopySpeedup(const Instruction& inst, const CostSpec& s) {
  const bool sbuf_contiguous = AllOnChip(
      inst, [](const AccessPattern& ap) { return ap.memory == Memory::kSbuf && Contiguous(ap); });
  const int rule =
      sbuf_contiguous ? s.dve_perf_copy_contiguous_factor : s.dve_perf_copy_other_factor;
  return std::min<uint64_t>(static_cast<uint64_t>(rule), WidthFactor(inst, s, DveWidth));
}

// tensor_copy / tensor_scalar on any engine.
uint64_t CopyLike(const Instruction& inst, Engine engine, const CostSpec& s) {
  const uint64_t n = MainN(inst);
  uint64_t speedup = 1;
  if (engine == Engine::kDve) speedup = DveCopySpeedup(inst, s);
  // [NKI-ARCH-TRN3] NC-v4 ScalarE: native tensor_scalar/tensor_copy with 2x BF16/FP16 mode.
  if (engine == Engine::kAct) speedup = WidthFactor(inst, s, ActWidth);
  if (engine == Engine::kPool) speedup = static_cast<uint64_t>(s.pool_elems_per_cycle / s.lanes);
  // [ISA-OLD] tensor_copy_dynamic_src/dst: max(MIN_II_DYNAMIC, N).
  uint64_t floor = 0;
  if (inst.opcode == Opcode::kTensorCopy &&
      !AllOnChip(inst, [](const AccessPattern& ap) { return ap.offset_reg == isa::kNoRegister; }))
    floor = static_cast<uint64_t>(s.min_ii_dynamic_cycles);
  return Stream(inst, s, n, speedup, floor);
}

bool SplitSbufPsum(const AccessPattern& a, const AccessPattern& b) {
  return (a.memory == Memory::kPsum) != (b.memory == Memory::kPsum);
}

uint64_t TensorTensor(const Instruction& inst, Engine engine, const CostSpec& s) {
  const AccessPattern& in0 = Slot(inst, 1);
  const AccessPattern& in1 = Slot(inst, 2);
  const uint64_t n = MainN(inst);
  const bool both_sbuf = in0.memory == Memory::kSbuf && in1.memory == Memory::kSbuf;
  const bool all_bf16 =
      AllOnChip(inst, [](const AccessPattern& ap) { return ap.dtype == Dtype::kBfloat16; });
  const bool add_mul_sub =
      inst.op0 == AluOp::kAdd || inst.op0 == AluOp::kMultiply || inst.op0 == AluOp::kSubtract;
  const bool unit = AllOnChip(inst, Contiguous);
  const bool fast = SplitSbufPsum(in0, in1) || (both_sbuf && all_bf16 && add_mul_sub && unit);
  uint64_t speedup = 1;
  // [NKI-ARCH-TRN2] perf mode: 2x with both inputs in SBUF and all operands in the wide class.
  if (engine == Engine::kDve && both_sbuf && AllOnChip(inst, [&s](const AccessPattern& ap) {
        return DveWidth(ap.dtype, s) >= s.dve_elems_per_cycle_16bit;
      }))
    speedup = static_cast<uint64_t>(s.dve_perf_tensor_tensor_factor);
  return Stream(inst, s, fast ? n : 2 * n, speedup);
}

uint64_t ScalarTensorTensor(const Instruction& inst, const CostSpec& s) {
  const uint64_t n = MainN(inst);
  const bool fast = Slot(inst, 1).dtype == Dtype::kBfloat16 &&
                    Slot(inst, 3).dtype == Dtype::kBfloat16 && inst.op0 == AluOp::kSubtract &&
                    inst.op1 == AluOp::kMultiply && n % 2 == 0;
  return Stream(inst, s, fast ? n : 2 * n);
}

uint64_t Memset(const Instruction& inst, const CostSpec& s) {
  const uint64_t n = MainN(inst);
  const bool zero_16bit = inst.imm[0] == 0 && Is16BitFloat(Slot(inst, isa::kDst).dtype);
  return Stream(inst, s, zero_16bit ? CeilDiv(n, 2) : n);
}

uint64_t TensorReduce(const Instruction& inst, const CostSpec& s) {
  const uint64_t n = MainN(inst);
  const bool half = Slot(inst, 0).dtype == Dtype::kBfloat16 &&
                    Slot(inst, 1).dtype == Dtype::kBfloat16 &&
                    (inst.op0 == AluOp::kAdd || inst.op0 == AluOp::kMaximum);
  return Stream(inst, s, half ? CeilDiv(n, 2) : n);
}

// fp32 PE operands run pe_fp32_slowdown times slower (fp32r: pe_fp32r_slowdown); transpose and
// onezero modes recover some of it.
uint64_t PeDtypeFactor(const Instruction& inst, const AccessPattern& op, const CostSpec& s) {
  uint64_t f = 1;
  if (op.dtype == Dtype::kFloat32) f = static_cast<uint64_t>(s.pe_fp32_slowdown);
  if (op.dtype == Dtype::kFloat32r) f = static_cast<uint64_t>(s.pe_fp32r_slowdown);
  if (f <= 1) return 1;
  if (inst.has_flag(isa::kFlagTranspose)) f = CeilDiv(f, s.pe_fp32_transpose_speedup);
  if (inst.has_flag(isa::kFlagOneZero)) f = CeilDiv(f, s.pe_fp32_onezero_speedup);
  return std::max<uint64_t>(f, 1);
}
uint64_t PeFree(const Instruction& inst, const CostSpec& s) {
  const uint64_t f = Slot(inst, 1).FreeElements();
  return inst.has_flag(isa::kFlagDoubleRow) ? CeilDiv(f, s.pe_double_row_factor) : f;
}

// [ISA-OLD] local_gather: 150 + (indices * e) / C, C = ((28 + t*e)/(t*e)) / min(4/size, e), t=4.
uint64_t LocalGather(const Instruction& inst, const CostSpec& s) {
  constexpr double kT = 4.0, kConst = 28.0;  // the formula's constants [ISA-OLD]
  constexpr uint64_t kGroupPartitions = 16;  // one GpSimd processor per 16 partitions
  const AccessPattern& index = Slot(inst, 2);
  const double e = std::max<int>(inst.count, 1);
  const double size = std::max(isa::DtypeSize(Slot(inst, 1).dtype), 1);
  const uint64_t rows = std::min<uint64_t>(index.num_partitions, kGroupPartitions);
  const double indices = static_cast<double>(rows * index.FreeElements());
  const double c = ((kConst + kT * e) / (kT * e)) / std::min(4.0 / size, e);
  return static_cast<uint64_t>(s.gpsimd_start_cycles) +
         static_cast<uint64_t>(indices * e / c + 0.999999);
}

uint64_t DatapathCycles(const Instruction& inst, Engine engine, const CostSpec& s, CostClass cls) {
  const uint64_t n = MainN(inst);
  const uint64_t min_ii = static_cast<uint64_t>(s.min_ii_cycles);
  switch (cls) {
    case CostClass::kPeLoad:  // [NKI-ARCH-V2] [PERF] fast LS: ~free size / 4
      return std::max<uint64_t>(1, CeilDiv(PeFree(inst, s), s.pe_fast_load_stationary_factor)) *
             PeDtypeFactor(inst, Slot(inst, 1), s);
    case CostClass::kPeMatmul:  // [NKI-ARCH-V2] max(N, MM_INIT_LATENCY), fp32 x4
      return std::max<uint64_t>(PeFree(inst, s), s.mm_init_latency_cycles) *
             PeDtypeFactor(inst, Slot(inst, 1), s);
    case CostClass::kPeTranspose: {  // [ISA-OLD] max(P, min(64, F)); 64 read as MM_INIT
      const AccessPattern& in = Slot(inst, 1);
      return std::max<uint64_t>(
          in.num_partitions,
          std::min<uint64_t>(static_cast<uint64_t>(s.mm_init_latency_cycles), in.FreeElements()));
    }
    case CostClass::kStreamUnary:
      if (inst.opcode == Opcode::kTensorCopy || inst.opcode == Opcode::kTensorScalar)
        return CopyLike(inst, engine, s);
      if (inst.opcode == Opcode::kMemset) return Memset(inst, s);
      // activation (scale/bias/reduce free), transpose, bn_stats, max8, nc_find_index8,
      // nc_match_replace8: max(MIN_II, N).
      return Stream(inst, s, n);
    case CostClass::kStreamBinary:
      switch (inst.opcode) {
        case Opcode::kTensorTensor:
          return TensorTensor(inst, engine, s);
        case Opcode::kScalarTensorTensor:
          return ScalarTensorTensor(inst, s);
        case Opcode::kTensorCopyPredicated:
          return Stream(inst, s, SplitSbufPsum(Slot(inst, 1), Slot(inst, 2)) ? n : 2 * n);
        default:
          return Stream(inst, s, 2 * n);  // tensor_tensor_scan
      }
    case CostClass::kReduce:
      if (inst.opcode == Opcode::kTensorReduce) return TensorReduce(inst, s);
      return Stream(inst, s, n) + min_ii;  // tensor_scalar_reduce: + MIN_II for the result
    case CostClass::kAccumulatorRead:
      if (inst.opcode == Opcode::kReadAccumulator)
        return static_cast<uint64_t>(s.act_read_accumulator_cycles);
      return Stream(inst, s, n) + min_ii;  // activation_reduce
    case CostClass::kGpSimd:
      if (inst.opcode == Opcode::kLocalGather) return LocalGather(inst, s);
      // iota 150 + N; affine_select GPSIMD_START + N; tensor_partition_reduce: assumption, same.
      return static_cast<uint64_t>(s.gpsimd_start_cycles) + n;
    case CostClass::kSpecial:
      if (inst.opcode == Opcode::kBnAggr) return Stream(inst, s, 13 * (n / 3));
      return Stream(inst, s, 8 * n);  // DVE reciprocal: max(MIN_II, 8N)
    default:
      break;
  }
  Fail("datapath cost requested for a non-datapath cost class");
}

}  // namespace

uint64_t EngineClockHz(Engine engine, const CostSpec& spec) {
  switch (engine) {
    case Engine::kPe:
      return spec.pe_clock_hz;
    case Engine::kAct:
      return spec.act_clock_hz;
    case Engine::kDve:
      return spec.dve_clock_hz;
    case Engine::kPool:
      return spec.pool_clock_hz;
    case Engine::kSp:
      return spec.sp_clock_hz;
  }
  Fail("unknown engine");
}

Engine HomeEngine(Opcode opcode) {
  const isa::OpcodeInfo* info = isa::FindOpcode(opcode);
  if (info == nullptr) Fail("opcode has no table row");
  if (info->engines == isa::kAllEngines) return Engine::kSp;
  for (int e = 0; e < isa::kEngineCount; ++e)
    if (info->engines & isa::EngineBit(static_cast<Engine>(e))) return static_cast<Engine>(e);
  Fail("opcode runs on no engine");
}

uint64_t DmaIssuePs(const Instruction& inst, const CostSpec& spec) {
  switch (inst.opcode) {
    case Opcode::kDmaTrigger:  // descriptors pre-built in the NEFF
      return spec.dma_static_issue_ps;
    case Opcode::kDmaCopy:
      if (inst.has_flag(isa::kFlagHwdge)) return spec.dma_hwdge_issue_ps;
      if (inst.has_flag(isa::kFlagSwdge)) {  // GpSimd writes every engine's descriptors
        const unsigned __int128 start =
            static_cast<unsigned __int128>(spec.gpsimd_start_cycles) * kPsPerSecond;
        return static_cast<uint64_t>((start + spec.pool_clock_hz - 1) / spec.pool_clock_hz) +
               uint64_t(spec.dma_engines_per_core) * spec.dma_swdge_descriptor_ps;
      }
      return spec.dma_static_issue_ps;
    default:  // collective, sendrecv, debug_print: a DGE-generated DMA
      return spec.dma_hwdge_issue_ps;
  }
}

InstructionCost EstimateCost(const Instruction& inst, Engine engine, const CostSpec& spec) {
  const isa::OpcodeInfo* info = isa::FindOpcode(inst.opcode);
  if (info == nullptr) Fail("opcode has no table row");
  if ((info->engines & isa::EngineBit(engine)) == 0) Fail("opcode does not run on this engine");
  InstructionCost c;
  c.engine = engine;
  c.clock_hz = EngineClockHz(engine, spec);
  switch (info->cost_class) {
    case CostClass::kControl:
      c.cycles = static_cast<uint64_t>(spec.control_cycles);
      break;
    case CostClass::kSync:
      c.cycles = static_cast<uint64_t>(spec.sync_cycles);
      break;
    case CostClass::kDma: {  // the issuing engine's share of a DMA (docs/calibration.md §3)
      const unsigned __int128 num =
          static_cast<unsigned __int128>(DmaIssuePs(inst, spec)) * c.clock_hz;
      c.cycles = static_cast<uint64_t>((num + kPsPerSecond - 1) / kPsPerSecond);
      break;
    }
    default:
      c.cycles = DatapathCycles(inst, engine, spec, info->cost_class);
      c.access_latency_cycles = static_cast<uint64_t>(spec.tensor_access_overhead_cycles);
      if (engine == Engine::kAct) {  // [C-2] ScalarE: the pipeline's fill and drain
        c.access_latency_cycles = static_cast<uint64_t>(spec.act_fixed_cycles);
        c.latency_in_span = true;
      }
      if (engine == Engine::kDve)
        c.dependent_overhead_cycles = static_cast<uint64_t>(spec.dve_dependent_overhead_cycles);
      break;
  }
  c.cycles = std::max<uint64_t>(c.cycles, 1);
  return c;
}

InstructionCost EstimateCost(const Instruction& inst, const CostSpec& spec) {
  return EstimateCost(inst, HomeEngine(inst.opcode), spec);
}

}  // namespace trnsim::simulator::cost
