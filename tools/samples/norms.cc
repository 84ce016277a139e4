// rmsnorm_bf16 and layernorm_bf16: row-wise normalisation of x [512, 1024] (bf16 in and out,
// fp32 math) in tiles of 128 rows, two slots per buffer. gamma (and beta) [1024] are loaded
// once, broadcast to all 128 partitions by a DMA whose row stride is 0.
//
// RMSNorm, per tile:                      LayerNorm, per tile:
//   SP   load x                             SP   load x
//   ACT  sq = square(x)         fp32        DVE  nmean = -sum(x) / D          [128, 1]
//   DVE  ss = sum(sq)           [128, 1]    ACT  xc = x + nmean; sq = square(x + nmean)
//   ACT  r = rsqrt(ss / D + eps)            DVE  vs = sum(sq)
//   DVE  y = (x * r) * gamma    bf16        ACT  r = rsqrt(vs / D + eps)
//   DVE  store y                            DVE  t = (xc * r) * gamma     fp32
//                                           POOL y = t + beta             bf16; POOL stores y
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {
namespace {

constexpr isa::Dtype kF32 = isa::Dtype::kFloat32;
constexpr isa::Dtype kBf16 = isa::Dtype::kBfloat16;

// Loads a [D] vector into every partition of `tile` ([128, D]).
kb::InstRef LoadBroadcast(kb::Core& core, const kb::Tile& tile, const kb::HbmTensor& v, int queue) {
  return core.sp().DmaCopy(tile.ap(), v.ap(0, 128, 0, {{static_cast<uint16_t>(v.cols()), 1}}),
                           queue);
}

}  // namespace

Status GenerateRmsNorm(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &x = io[0], &gamma = io[1], &y = io[2];
  const int D = static_cast<int>(x.cols()), tiles = static_cast<int>(x.rows()) / 128;
  kb::Core& core = k.core(0);
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile tg, core.AllocSbuf("gamma", kBf16, 128, D));
  kb::Tile tx[2], sq[2], ty[2], ss[2], r[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(tx[s], core.AllocSbuf("x", kBf16, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(sq[s], core.AllocSbuf("sq", kF32, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(ty[s], core.AllocSbuf("y", kBf16, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(ss[s], core.AllocSbuf("ss", kF32, 128, 1));
    TRNSIM_ASSIGN_OR_RETURN(r[s], core.AllocSbuf("r", kF32, 128, 1));
  }
  kb::InstRef lg = LoadBroadcast(core, tg, gamma, 1);
  std::vector<kb::InstRef> sums, rsqrts, outs, stores;
  for (int t = 0; t < tiles; ++t) {
    const int s = Slot(t);
    kb::InstRef load = core.sp().DmaCopy(tx[s].ap(), x.Block(t * 128, 128, 0, D), 0);
    if (t >= 2) k.Depend(load, outs[t - 2]);
    kb::InstRef sqr = core.act().Activation(sq[s].ap(), tx[s].ap(), isa::ActFunc::kSquare);
    k.Depend(sqr, load);
    if (t >= 2) k.Depend(sqr, sums[t - 2]);
    kb::InstRef sum = core.dve().TensorReduce(ss[s].ap(), sq[s].ap(), isa::AluOp::kAdd);
    k.Depend(sum, sqr);
    if (t >= 2) k.Depend(sum, rsqrts[t - 2]);
    kb::ActArgs args;
    args.scale = 1.0f / static_cast<float>(D);
    args.bias = kRmsNormEps;
    kb::InstRef rs = core.act().Activation(r[s].ap(), ss[s].ap(), isa::ActFunc::kRsqrt, args);
    k.Depend(rs, sum);
    if (t >= 2) k.Depend(rs, outs[t - 2]);
    kb::InstRef out = core.dve().ScalarTensorTensor(ty[s].ap(), tx[s].ap(), isa::AluOp::kMultiply,
                                                    r[s].ap(), isa::AluOp::kMultiply, tg.ap());
    k.Depend(out, rs);
    if (t == 0) k.Depend(out, lg);
    if (t >= 2) k.Depend(out, stores[t - 2]);
    kb::InstRef st = core.dve().DmaCopy(y.Block(t * 128, 128, 0, D), ty[s].ap(), 2);
    k.Depend(st, out);
    sums.push_back(sum);
    rsqrts.push_back(rs);
    outs.push_back(out);
    stores.push_back(st);
  }
  return k.status();
}

Status GenerateLayerNorm(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &x = io[0], &gamma = io[1], &beta = io[2], &y = io[3];
  const int D = static_cast<int>(x.cols()), tiles = static_cast<int>(x.rows()) / 128;
  kb::Core& core = k.core(0);
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile tg, core.AllocSbuf("gamma", kBf16, 128, D));
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile tb, core.AllocSbuf("beta", kBf16, 128, D));
  kb::Tile tx[2], xc[2], sq[2], tt[2], ty[2], nmean[2], vs[2], r[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(tx[s], core.AllocSbuf("x", kBf16, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(xc[s], core.AllocSbuf("xc", kF32, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(sq[s], core.AllocSbuf("sq", kF32, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(tt[s], core.AllocSbuf("t", kF32, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(ty[s], core.AllocSbuf("y", kBf16, 128, D));
    TRNSIM_ASSIGN_OR_RETURN(nmean[s], core.AllocSbuf("nmean", kF32, 128, 1));
    TRNSIM_ASSIGN_OR_RETURN(vs[s], core.AllocSbuf("vs", kF32, 128, 1));
    TRNSIM_ASSIGN_OR_RETURN(r[s], core.AllocSbuf("r", kF32, 128, 1));
  }
  kb::InstRef lg = LoadBroadcast(core, tg, gamma, 1);
  kb::InstRef lb = LoadBroadcast(core, tb, beta, 1);
  std::vector<kb::InstRef> squares, sums, rsqrts, scales, outs, stores;
  for (int t = 0; t < tiles; ++t) {
    const int s = Slot(t);
    kb::InstRef load = core.sp().DmaCopy(tx[s].ap(), x.Block(t * 128, 128, 0, D), 0);
    if (t >= 2) k.Depend(load, squares[t - 2]);  // x is last read by the square
    kb::InstRef mean = core.dve().TensorReduce(nmean[s].ap(), tx[s].ap(), isa::AluOp::kAdd);
    k.Depend(mean, load);
    if (t >= 2) k.Depend(mean, squares[t - 2]);
    kb::InstRef scale = core.dve().TensorScalar(nmean[s].ap(), nmean[s].ap(), isa::AluOp::kMultiply,
                                                -1.0f / static_cast<float>(D));
    kb::ActArgs shift;
    shift.bias = nmean[s].ap();
    kb::InstRef center = core.act().Activation(xc[s].ap(), tx[s].ap(), isa::ActFunc::kCopy, shift);
    k.Depend(center, scale);
    if (t >= 2) k.Depend(center, scales[t - 2]);  // xc slot read by the (xc * r) * gamma
    kb::InstRef sqr = core.act().Activation(sq[s].ap(), tx[s].ap(), isa::ActFunc::kSquare, shift);
    if (t >= 2) k.Depend(sqr, sums[t - 2]);
    kb::InstRef sum = core.dve().TensorReduce(vs[s].ap(), sq[s].ap(), isa::AluOp::kAdd);
    k.Depend(sum, sqr);
    if (t >= 2) k.Depend(sum, rsqrts[t - 2]);
    kb::ActArgs args;
    args.scale = 1.0f / static_cast<float>(D);
    args.bias = kLayerNormEps;
    kb::InstRef rs = core.act().Activation(r[s].ap(), vs[s].ap(), isa::ActFunc::kRsqrt, args);
    k.Depend(rs, sum);
    if (t >= 2) k.Depend(rs, scales[t - 2]);
    kb::InstRef sc = core.dve().ScalarTensorTensor(tt[s].ap(), xc[s].ap(), isa::AluOp::kMultiply,
                                                   r[s].ap(), isa::AluOp::kMultiply, tg.ap());
    k.Depend(sc, rs);
    if (t == 0) k.Depend(sc, lg);
    if (t >= 2) k.Depend(sc, outs[t - 2]);  // t slot read by that add
    kb::InstRef out = core.pool().TensorTensor(ty[s].ap(), tt[s].ap(), tb.ap(), isa::AluOp::kAdd);
    k.Depend(out, sc);
    if (t == 0) k.Depend(out, lb);
    if (t >= 2) k.Depend(out, stores[t - 2]);
    kb::InstRef st = core.pool().DmaCopy(y.Block(t * 128, 128, 0, D), ty[s].ap(), 2);
    k.Depend(st, out);
    squares.push_back(sqr);
    sums.push_back(sum);
    rsqrts.push_back(rs);
    scales.push_back(sc);
    outs.push_back(out);
    stores.push_back(st);
  }
  return k.status();
}

}  // namespace trnsim::samples
