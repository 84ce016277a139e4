// The collective samples (reference/samples.h, CollectiveSamples):
//
// allreduce_*: the CC cores read `in` straight from HBM and write the world's sum to `out`
// (docs/isa.md `collective`): one instruction on SP. The group is the whole world given to
// nrt_load_collectives, so one NEFF serves any world size.
//
// mlp_tp<R>_bf16: EmitGeluMlp (mlp.cc) on this rank's shards, storing the partial y in fp32 to
// HBM scratch; SP all-reduces the partials (fp32, over the world of R ranks) into a second
// scratch once the last store has landed; then every 128-row tile is loaded, rounded to bf16 by
// DVE and stored to y. Rounding once, after the fp32 sum, is what keeps the result equal to the
// single-core mlp_gelu_bf16 up to fp32 summation order.
#include "simulator/collective/collective_port.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

using isa::CollectiveKind;
using simulator::collective::ReplicaGroupSpec;

Status GenerateAllReduce(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &in = io[0], &out = io[1];
  const int rows = static_cast<int>(in.rows()), cols = static_cast<int>(in.cols());
  k.core(0).sp().Collective(CollectiveKind::kAllReduce, out.Block(0, rows, 0, cols),
                            in.Block(0, rows, 0, cols), isa::AluOp::kAdd, ReplicaGroupSpec{0, 1},
                            /*id=*/0);
  return k.status();
}

// allgather_*: one SP `collective` gathering every rank's `in`, in rank order, into `out`.
Status GenerateAllGather(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &in = io[0], &out = io[1];
  const int rows = static_cast<int>(in.rows()), cols = static_cast<int>(in.cols());
  k.core(0).sp().Collective(
      CollectiveKind::kAllGather, out.Block(0, static_cast<int>(out.rows()), 0, cols),
      in.Block(0, rows, 0, cols), isa::AluOp::kBypass, ReplicaGroupSpec{0, 1}, /*id=*/0);
  return k.status();
}

Status GenerateTpMlp(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &x = io[0], &w1 = io[1], &w2 = io[2], &y = io[3];
  const int T = static_cast<int>(x.rows()), N = static_cast<int>(w2.cols()), TT = T / 128;
  const isa::Dtype f32 = isa::Dtype::kFloat32;
  const uint64_t bytes = uint64_t(T) * uint64_t(N) * 4;
  // Scratch is untyped bytes; seen here as [T, N] fp32.
  auto as_f32 = [&](kb::HbmTensor t) {
    t.dtype = f32;
    t.shape = {uint32_t(T), uint32_t(N)};
    return t;
  };
  TRNSIM_ASSIGN_OR_RETURN(kb::HbmTensor partial_bytes, k.AddScratch("y_partial", bytes));
  TRNSIM_ASSIGN_OR_RETURN(kb::HbmTensor sum_bytes, k.AddScratch("y_sum", bytes));
  const kb::HbmTensor partial = as_f32(partial_bytes), sum = as_f32(sum_bytes);
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::InstRef> stores, EmitGeluMlp(k, x, w1, w2, partial));
  kb::Core& core = k.core(0);
  // Whole [T, N] fp32 buffers: 128 partitions x (T/128 row tiles of N elements).
  const auto whole = [&](const kb::HbmTensor& t) {
    return t.ap(0, 128, N, {{uint16_t(TT), 128 * N}, {uint16_t(N), 1}});
  };
  kb::InstRef reduce = core.sp().Collective(CollectiveKind::kAllReduce, whole(sum),
                                            whole(partial), isa::AluOp::kAdd,
                                            ReplicaGroupSpec{0, 1}, /*id=*/0);
  k.Depend(reduce, stores.back());  // one DMA queue: the last store lands last
  kb::Tile f[2], b[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(f[s], core.AllocSbuf("y_f32", f32, 128, N));
    TRNSIM_ASSIGN_OR_RETURN(b[s], core.AllocSbuf("y_bf16", y.dtype, 128, N));
  }
  std::vector<kb::InstRef> casts, outs;
  for (int t = 0; t < TT; ++t) {
    const int s = Slot(t);
    kb::InstRef load = core.sp().DmaCopy(f[s].ap(), sum.Block(int64_t{t} * 128, 128, 0, N), 0);
    k.Depend(load, reduce);
    if (t >= 2) k.Depend(load, casts[t - 2]);  // slot read by the cast two tiles ago
    kb::InstRef cast = core.dve().TensorCopy(b[s].ap(), f[s].ap());
    k.Depend(cast, load);
    if (t >= 2) k.Depend(cast, outs[t - 2]);  // slot stored two tiles ago
    kb::InstRef out = core.dve().DmaCopy(y.Block(int64_t{t} * 128, 128, 0, N), b[s].ap(), 3);
    k.Depend(out, cast);
    casts.push_back(cast);
    outs.push_back(out);
  }
  return k.status();
}

}  // namespace trnsim::samples
