// vector_add_{fp32,bf16}[_lnc2]: out = a + b over [512, 1024], in row tiles of 128 partitions.
// SP loads a and b (queues 0, 1), DVE adds, DVE stores its result (queue 2); two buffers per
// operand so tile t+1 loads while tile t adds. With LNC=2 each core (sg00, sg01) takes half of
// the rows; both declare the same input and output variables.
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

Status GenerateVectorAdd(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &a = io[0], &b = io[1], &out = io[2];
  const isa::Dtype dtype = a.dtype;
  const int cols = static_cast<int>(a.cols());
  const int rows_per_core = static_cast<int>(a.rows()) / k.lnc();
  const int tiles = rows_per_core / 128;
  for (int c = 0; c < k.lnc(); ++c) {
    kb::Core& core = k.core(c);
    kb::Tile ta[2], tb[2], to[2];
    for (int s = 0; s < 2; ++s) {
      TRNSIM_ASSIGN_OR_RETURN(ta[s], core.AllocSbuf("a" + std::to_string(s), dtype, 128, cols));
      TRNSIM_ASSIGN_OR_RETURN(tb[s], core.AllocSbuf("b" + std::to_string(s), dtype, 128, cols));
      TRNSIM_ASSIGN_OR_RETURN(to[s], core.AllocSbuf("o" + std::to_string(s), dtype, 128, cols));
    }
    std::vector<kb::InstRef> adds, stores;
    for (int t = 0; t < tiles; ++t) {
      const int s = Slot(t);
      const int row = c * rows_per_core + t * 128;
      kb::InstRef la = core.sp().DmaCopy(ta[s].ap(), a.Block(row, 128, 0, cols), 0);
      kb::InstRef lb = core.sp().DmaCopy(tb[s].ap(), b.Block(row, 128, 0, cols), 1);
      if (t >= 2) k.Depend(la, adds[t - 2]), k.Depend(lb, adds[t - 2]);  // buffers free again
      kb::InstRef add =
          core.dve().TensorTensor(to[s].ap(), ta[s].ap(), tb[s].ap(), isa::AluOp::kAdd);
      k.Depend(add, {la, lb});
      if (t >= 2) k.Depend(add, stores[t - 2]);
      kb::InstRef store = core.dve().DmaCopy(out.Block(row, 128, 0, cols), to[s].ap(), 2);
      k.Depend(store, add);
      adds.push_back(add);
      stores.push_back(store);
    }
  }
  return k.status();
}

}  // namespace trnsim::samples
