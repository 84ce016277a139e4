// softmax_bf16: y = softmax(x) row-wise over [512, 1024], bf16 in and out, fp32 math.
//
// Per tile of 128 rows (two slots, so tile t+1 loads while tile t computes):
//   SP    load x (bf16)
//   DVE   nmax = -max(x)                      tensor_reduce max, negate      [128, 1] fp32
//   ACT   e = exp(x + nmax)                   activation exp, bias = nmax    [128, C] fp32
//   DVE   sum = sum(e); r = 1 / sum           tensor_reduce add; reciprocal  [128, 1] fp32
//   POOL  y = e * r                           tensor_scalar multiply         [128, C] bf16
//   POOL  store y (its own DMA queue)
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

Status GenerateSoftmax(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &x = io[0], &y = io[1];
  const int C = static_cast<int>(x.cols()), tiles = static_cast<int>(x.rows()) / 128;
  const isa::Dtype f32 = isa::Dtype::kFloat32, bf16 = isa::Dtype::kBfloat16;
  kb::Core& core = k.core(0);
  kb::Tile tx[2], te[2], ty[2], nmax[2], sum[2], rcp[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(tx[s], core.AllocSbuf("x", bf16, 128, C));
    TRNSIM_ASSIGN_OR_RETURN(te[s], core.AllocSbuf("e", f32, 128, C));
    TRNSIM_ASSIGN_OR_RETURN(ty[s], core.AllocSbuf("y", bf16, 128, C));
    TRNSIM_ASSIGN_OR_RETURN(nmax[s], core.AllocSbuf("nmax", f32, 128, 1));
    TRNSIM_ASSIGN_OR_RETURN(sum[s], core.AllocSbuf("sum", f32, 128, 1));
    TRNSIM_ASSIGN_OR_RETURN(rcp[s], core.AllocSbuf("rcp", f32, 128, 1));
  }
  std::vector<kb::InstRef> exps, muls, stores;
  for (int t = 0; t < tiles; ++t) {
    const int s = Slot(t);
    kb::InstRef load = core.sp().DmaCopy(tx[s].ap(), x.Block(t * 128, 128, 0, C), 0);
    if (t >= 2) k.Depend(load, exps[t - 2]);  // the last reader of this x slot
    kb::InstRef mx = core.dve().TensorReduce(nmax[s].ap(), tx[s].ap(), isa::AluOp::kMaximum, 1,
                                             /*negate=*/true);
    k.Depend(mx, load);
    if (t >= 2) k.Depend(mx, exps[t - 2]);  // nmax slot read by that exp
    kb::ActArgs args;
    args.bias = nmax[s].ap();
    kb::InstRef ex = core.act().Activation(te[s].ap(), tx[s].ap(), isa::ActFunc::kExp, args);
    k.Depend(ex, mx);
    if (t >= 2) k.Depend(ex, muls[t - 2]);  // e slot read by that multiply
    kb::InstRef sm = core.dve().TensorReduce(sum[s].ap(), te[s].ap(), isa::AluOp::kAdd);
    k.Depend(sm, ex);
    kb::InstRef rc = core.dve().Reciprocal(rcp[s].ap(), sum[s].ap());
    if (t >= 2) k.Depend(rc, muls[t - 2]);  // rcp slot read by that multiply
    kb::InstRef mul =
        core.pool().TensorScalar(ty[s].ap(), te[s].ap(), isa::AluOp::kMultiply, rcp[s].ap());
    k.Depend(mul, rc);
    if (t >= 2) k.Depend(mul, stores[t - 2]);
    kb::InstRef st = core.pool().DmaCopy(y.Block(t * 128, 128, 0, C), ty[s].ap(), 2);
    k.Depend(st, mul);
    exps.push_back(ex);
    muls.push_back(mul);
    stores.push_back(st);
  }
  return k.status();
}

}  // namespace trnsim::samples
