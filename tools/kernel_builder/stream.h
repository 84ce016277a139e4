// Stream: the instruction stream of one engine of one core, as a kernel generator appends to it.
//
// Add() validates the instruction for this engine (isa::ValidateForEngine) and returns the
// error; the typed helpers (DmaCopy, Matmul, Activation, ...) build the Instruction from typed
// arguments, call Add(), record a failure in the kernel's Diagnostics and return an invalid
// InstRef — so a generator can emit many instructions and check once, at Build().
//
// Branch targets may be Labels, resolved when the kernel is built (after the builder has
// inserted any semaphore waits, so a label always names its instruction's final position).
//
// Thread safety: none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "simulator/collective/collective_port.h"
#include "simulator/isa/encoding.h"
#include "tools/kernel_builder/debug_prefixes.h"
#include "tools/kernel_builder/diagnostics.h"

namespace trnsim::kb {

// One emitted instruction: core (subgraph) index, engine and position in the stream.
struct InstRef {
  int core = -1;
  isa::Engine engine = isa::Engine::kSp;
  int index = -1;
  bool valid() const { return index >= 0; }
};

struct Label {
  int id = -1;
};

// The two instructions of a matmul.
struct MatmulRefs {
  InstRef stationary;  // load_stationary
  InstRef moving;      // multiply_moving
};

// An immediate, or a [P, 1] per-partition operand (the optional tensor operands that an
// immediate stands in for: activation scale/bias, tensor_scalar operand0/1, ...).
class Scalar {
 public:
  Scalar(float value);                   // NOLINT: implicit on purpose
  Scalar(const isa::AccessPattern& ap);  // NOLINT
  static Scalar Int(int32_t value);      // integer immediate (bitvec ops, integer memset)

  bool is_ap() const { return is_ap_; }
  const isa::AccessPattern& ap() const { return ap_; }
  uint32_t bits() const { return bits_; }

 private:
  Scalar() = default;
  bool is_ap_ = false;
  isa::AccessPattern ap_;
  uint32_t bits_ = 0;
};

// activation: dst = func(in * scale + bias), optionally accumulated (reduce_cmd).
struct ActArgs {
  Scalar scale = 1.0f;
  Scalar bias = 0.0f;
  float alpha = 0.0f;  // prelu only
  isa::ReduceCmd reduce_cmd = isa::ReduceCmd::kIdle;
};

class Stream {
 public:
  // `prefixes` is the core's debug-prefix table (DebugPrint adds to it); it outlives the stream.
  Stream(int core, isa::Engine engine, const isa::IsaLimits* limits, Diagnostics* diagnostics,
         DebugPrefixTable* prefixes);

  int core() const { return core_; }
  isa::Engine engine() const { return engine_; }
  const std::vector<isa::Instruction>& instructions() const { return instructions_; }
  int size() const { return static_cast<int>(instructions_.size()); }
  // An engine is in the NEFF when it was declared or has instructions (KernelBuilder adds all
  // five engines unless built with BuildOptions::auto_finish = false).
  bool declared() const { return declared_ || !instructions_.empty(); }
  void Declare() { declared_ = true; }
  bool has_branches() const { return has_branches_; }

  // Validates and appends; the error names the core, engine and index.
  StatusOr<InstRef> Add(const isa::Instruction& inst);
  // Add(), recording a failure in Diagnostics (then the InstRef is invalid).
  InstRef Emit(const isa::Instruction& inst);

  // ---- labels and branches ------------------------------------------------------------------
  Label NewLabel(std::string name = "");
  // Binds `label` to the next instruction appended. NRT_INVALID if already bound.
  Status Bind(Label label);
  // Appends `inst` (a branch) whose target is `label`.
  StatusOr<InstRef> AddBranch(isa::Instruction inst, Label label);
  // branch reg cmp value -> label
  InstRef Branch(uint8_t reg, isa::CmpOp cmp, int32_t value, Label label);
  struct LabelUse {
    int index;
    int label;
  };
  const std::vector<LabelUse>& label_uses() const { return label_uses_; }
  const std::vector<int>& label_positions() const { return label_positions_; }  // -1: unbound
  const std::vector<std::string>& label_names() const { return label_names_; }

  // ---- control (stream_control.cc) ----------------------------------------------------------
  InstRef Nop();
  InstRef SemWait(int semaphore, isa::CmpOp cmp, uint32_t value);
  InstRef SemUpdate(int semaphore, isa::UpdateOp op, uint32_t value);
  InstRef NotifyEnd(uint32_t code = 0);
  InstRef RegSet(uint8_t reg, int32_t value);
  InstRef RegAdd(uint8_t reg, int32_t value);
  // dma_copy: dst <- src on DMA queue `queue` (HBM <-> SBUF, or SBUF <-> SBUF).
  InstRef DmaCopy(const isa::AccessPattern& dst, const isa::AccessPattern& src, int queue = 0);
  // dma_trigger: starts `count` descriptors from `descriptor` of this engine's JSON.
  InstRef DmaTrigger(int descriptor, int count = 1);

  // ---- collectives (stream.cc) ----------------------------------------------------------------
  // collective (docs/isa.md §7.8): `kind` over the replica group `group` (size 0: the whole
  // world) of the model's ranks, from `src` to `dst` (both HBM, same dtype), joined on every
  // rank by `id`. `op` is the reduction of all_reduce/reduce_scatter (add, multiply, maximum,
  // minimum) and bypass otherwise. `shift` is permute's (default 1: receive from the previous
  // position); giving one to another kind is an error. Completes asynchronously, in issue order
  // among this engine's collectives; Depend on it like on a dma_copy.
  InstRef Collective(isa::CollectiveKind kind, const isa::AccessPattern& dst,
                     const isa::AccessPattern& src, isa::AluOp op,
                     simulator::collective::ReplicaGroupSpec group, uint32_t id,
                     std::optional<int32_t> shift = std::nullopt);

  // ---- LNC=2 pair (stream.cc) -----------------------------------------------------------------
  // core_barrier (docs/isa.md §7.9): adds 1 to semaphore `semaphore` of the other core of the
  // pair and holds this engine until its own `semaphore` has received as many as this core has
  // issued core_barriers on it. Both cores must issue the same number on the same semaphore;
  // keep the semaphore for barriers only (the builder never allocates it for dependencies).
  InstRef CoreBarrier(int semaphore);
  // sendrecv (§7.9): copies `src` (this core's SBUF) to `dst` in the other core's SBUF on DMA
  // queue `queue`, then adds 1 to the other core's `peer_semaphore` — wait on that there
  // (SemWait) before reading dst. Depend on it here like on a dma_copy of the same queue.
  InstRef SendRecv(const isa::AccessPattern& dst, const isa::AccessPattern& src, int peer_semaphore,
                   int queue = 0);

  // ---- debug output (stream.cc) ---------------------------------------------------------------
  // debug_print (docs/isa.md §7.10): at issue, reads `src` (SBUF or HBM: a Tile's ap(), an
  // HbmTensor's Whole() or any block of either) and emits one debug event labelled `prefix` —
  // NKI's nl.device_print(prefix, tensor). The event's shape is src's [rows, free sizes...].
  // The prefix goes into the core's table (at most 511 bytes, no NUL). Completes like any
  // synchronous instruction of this engine; Depend on the instruction that wrote src first.
  InstRef DebugPrint(std::string_view prefix, const isa::AccessPattern& src);
  // The same, returning the error instead of recording it (for callers that report each
  // failure at once, like the Python binding).
  StatusOr<InstRef> AddDebugPrint(std::string_view prefix, const isa::AccessPattern& src);

  // ---- PE (stream_ops.cc) -------------------------------------------------------------------
  InstRef LoadStationary(const isa::AccessPattern& stationary);
  // multiply_moving: dst (PSUM) [+]= stationary^T . moving. `first`/`last` mark the
  // accumulation group; a matmul that is not first accumulates.
  InstRef MultiplyMoving(const isa::AccessPattern& dst, const isa::AccessPattern& moving,
                         bool first, bool last);
  // load_stationary + multiply_moving.
  MatmulRefs Matmul(const isa::AccessPattern& dst, const isa::AccessPattern& stationary,
                    const isa::AccessPattern& moving, bool first, bool last);
  // nc_transpose (PE, dst in PSUM) or transpose (DVE, 32x32), by this stream's engine.
  InstRef Transpose(const isa::AccessPattern& dst, const isa::AccessPattern& in);

  // ---- ACT / DVE / POOL (stream_ops.cc) -----------------------------------------------------
  InstRef Activation(const isa::AccessPattern& dst, const isa::AccessPattern& in, isa::ActFunc f,
                     const ActArgs& args = {});
  InstRef TensorCopy(const isa::AccessPattern& dst, const isa::AccessPattern& in);
  InstRef TensorTensor(const isa::AccessPattern& dst, const isa::AccessPattern& in0,
                       const isa::AccessPattern& in1, isa::AluOp op);
  // dst = (in op0 operand0) op1 operand1
  InstRef TensorScalar(const isa::AccessPattern& dst, const isa::AccessPattern& in, isa::AluOp op0,
                       const Scalar& operand0, isa::AluOp op1 = isa::AluOp::kBypass,
                       const Scalar& operand1 = 0.0f);
  // dst = (data op0 operand0) op1 operand1, operand1 a full tensor
  InstRef ScalarTensorTensor(const isa::AccessPattern& dst, const isa::AccessPattern& data,
                             isa::AluOp op0, const Scalar& operand0, isa::AluOp op1,
                             const isa::AccessPattern& operand1);
  // Reduces the `axes` innermost free dims of `in` with `op`.
  InstRef TensorReduce(const isa::AccessPattern& dst, const isa::AccessPattern& in, isa::AluOp op,
                       int axes = 1, bool negate = false);
  InstRef Reciprocal(const isa::AccessPattern& dst, const isa::AccessPattern& in);
  InstRef Memset(const isa::AccessPattern& dst, const Scalar& value);
  InstRef Iota(const isa::AccessPattern& dst, const isa::AccessPattern& pattern);

 private:
  std::string Where(int index) const;
  InstRef Fail(const Status& status);

  int core_;
  isa::Engine engine_;
  const isa::IsaLimits* limits_;
  Diagnostics* diagnostics_;
  DebugPrefixTable* prefixes_;
  std::vector<isa::Instruction> instructions_;
  bool declared_ = false;
  bool has_branches_ = false;
  std::vector<int> label_positions_;
  std::vector<std::string> label_names_;
  std::vector<LabelUse> label_uses_;
};

// Puts a Scalar into slot `slot` of `inst` (the AP) or into its stand-in immediate.
void SetScalar(isa::Instruction& inst, int slot, const Scalar& value);

}  // namespace trnsim::kb
