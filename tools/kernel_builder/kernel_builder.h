// KernelBuilder: the C++ API that kernel generators (tools/samples/) and the assembler (`neff
// asm`, assembler.h) use to make a NEFF in trnsim's ISA (docs/toolchain.md, "Kernel builder").
//
//   kb::KernelBuilder k({.name = "vector_add", .chip = "trn2", .lnc = 1});
//   kb::HbmTensor a = k.AddInput("a", Dtype::kFloat32, {128, 512}).value();
//   ...
//   kb::Core& c = k.core(0);
//   kb::Tile t = c.AllocSbuf("a", Dtype::kFloat32, 128, 512).value();
//   kb::InstRef load = c.sp().DmaCopy(t.ap(), a.Block(0, 128, 0, 512));
//   kb::InstRef add = c.dve().TensorTensor(...);
//   k.Depend(add, load);                    // a semaphore: update on load, wait on add
//   StatusOr<std::vector<uint8_t>> neff = k.BuildBytes();
//
// Variables become NEFF variables (def.json "var", in every subgraph unless one is named) and
// inputs/outputs also neff.json tensors with their dtype and shape, inputs first. Build()
// finishes every engine with notify_end (after waiting for that engine's DMA transfers),
// resolves dependencies into semaphores (sync.h) and encodes each stream with
// isa::EncodeStream, which validates every instruction; the first error of the whole build is
// returned — from an emit helper, a dependency or the encoder — and nothing aborts.
//
// Thread safety: none. Not copyable or movable (streams point into it).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "runtime/neff/neff.h"
#include "simulator/spec/chip_spec.h"
#include "tools/kernel_builder/core.h"
#include "tools/kernel_builder/diagnostics.h"
#include "tools/kernel_builder/tile.h"

namespace trnsim::kb {

struct KernelOptions {
  std::string name = "kernel";
  std::string chip = "trn2";  // "trn2" or "trn3": the limits instructions are validated against
  int lnc = 1;                // 1 or 2 cores (subgraphs)
};

// Optional properties of a variable.
struct VarOptions {
  std::optional<int64_t> var_id;  // default: one past the largest var_id so far
  uint64_t alignment = 0;         // 0 or a power of two
  int subgraph = -1;              // -1: every subgraph; else only that one
  std::string file_name;          // constants: member name (default "<name>.bin"; *.npy wraps)
};

struct BuildOptions {
  // Append notify_end to every engine (all five are in the NEFF) unless its stream already
  // ends with one; the appended notify_end waits for the engine's DMA transfers. The assembler
  // turns this off: a .s file says exactly what is in the NEFF.
  bool auto_finish = true;
};

// The chip spec of "trn2"/"trn3" (also "trainium2"/"trainium3"); nullptr otherwise.
const simulator::ChipSpec* ChipSpecByName(std::string_view name);

class KernelBuilder {
 public:
  explicit KernelBuilder(KernelOptions options = {});
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  const KernelOptions& options() const { return options_; }
  const isa::IsaLimits& limits() const { return limits_; }
  int lnc() const { return static_cast<int>(cores_.size()); }
  // Changes the core count; NRT_INVALID once a core has been used.
  Status SetLnc(int lnc);
  void SetName(std::string name) { options_.name = std::move(name); }
  // Header fields other than name and lnc_size (uuid, build version, ...); Build() keeps them.
  neff::Header& header() { return header_; }

  // ---- variables ----------------------------------------------------------------------------
  StatusOr<HbmTensor> AddInput(std::string name, isa::Dtype dtype, std::vector<uint32_t> shape,
                               const VarOptions& options = {});
  StatusOr<HbmTensor> AddOutput(std::string name, isa::Dtype dtype, std::vector<uint32_t> shape,
                                const VarOptions& options = {});
  // A "file" variable initialised from `data` (exactly the shape's bytes).
  StatusOr<HbmTensor> AddConstant(std::string name, isa::Dtype dtype, std::vector<uint32_t> shape,
                                  std::vector<uint8_t> data, const VarOptions& options = {});
  // A "tmp-buf" variable: HBM scratch private to the model (each subgraph has its own).
  StatusOr<HbmTensor> AddScratch(std::string name, uint64_t bytes, const VarOptions& options = {});
  // A "virtual" variable: HBM scratch in the logical core's shared scratchpad, the same bytes
  // for both subgraphs of an LNC=2 model (NKI's shared_hbm scratch). Placed after the
  // previous shared variables, 64-byte aligned (backing_variable_off). Its contents do not
  // survive between executions (runtime/model/shared_scratchpad.h).
  StatusOr<HbmTensor> AddShared(std::string name, uint64_t bytes);

  // ---- cores and dependencies ---------------------------------------------------------------
  Core& core(int index = 0);  // aborts on an index >= lnc() (a programming error)
  // `consumer` does not start before `producer` has completed (same core; see sync.h).
  void Depend(InstRef consumer, InstRef producer);
  void Depend(InstRef consumer, std::initializer_list<InstRef> producers);
  // Records an error of the generator itself (kept if it is the first).
  void Fail(const Status& status) { diagnostics_.Record(status); }
  // The first error so far.
  const Status& status() const { return diagnostics_.first(); }

  // ---- output -------------------------------------------------------------------------------
  // Where the emitted instructions are in the built streams: positions[core][engine][i] is the
  // final index of the instruction emitted at index i of that stream (the InstRef's index); the
  // notify_end Build appends has the entry after the last emitted one. Indices shift when Build
  // inserts sem_waits before a consumer with more than isa::kMaxWaits waits (sync.h). Tools
  // that map an executed pc back to what made the instruction (a debug-info member) need these.
  using StreamPositions = std::vector<EnginePositions>;

  // With `positions`, also fills it (one entry per core) when the build succeeds.
  StatusOr<neff::Neff> Build(const BuildOptions& options = {},
                             StreamPositions* positions = nullptr) const;
  StatusOr<std::vector<uint8_t>> BuildBytes(const BuildOptions& options = {}) const;

 private:
  struct VarDecl {
    neff::Variable var;
    int subgraph = -1;
    isa::Dtype dtype = isa::Dtype::kUint8;
    std::vector<uint32_t> shape;
    std::vector<uint8_t> file;  // constants: the member's bytes
  };
  StatusOr<HbmTensor> AddVariable(neff::VariableType type, std::string name, isa::Dtype dtype,
                                  std::vector<uint32_t> shape, uint64_t bytes,
                                  const VarOptions& options, std::vector<uint8_t> data);
  StatusOr<neff::Subgraph> BuildSubgraph(const Core& core, const BuildOptions& options,
                                         EnginePositions* positions) const;

  KernelOptions options_;
  isa::IsaLimits limits_;
  neff::Header header_;
  Diagnostics diagnostics_;
  std::vector<VarDecl> vars_;
  uint64_t shared_bytes_ = 0;  // scratchpad bytes the virtual variables take so far
  std::vector<std::unique_ptr<Core>> cores_;
};

}  // namespace trnsim::kb
