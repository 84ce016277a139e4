// mlp_gelu_bf16: y = gelu(x . w1) . w2 with x [T, D], w1 [D, H], w2 [H, D]; bf16 in and out,
// fp32 accumulation, the hidden activations rounded to bf16.
//
// The hidden layer is computed transposed, so that it is already the stationary operand of the
// second matmul and no on-chip transpose is needed:
//   SP   load x^T [D, T] (a transposing DMA: partition = d % 128), w1 and w2 (all K tiles)
//   PE   for each H chunk c: hT_psum[c] [128, T] = sum over D tiles of w1[d, c]^T . x^T[d, :]
//   ACT  hT[c] = gelu(hT_psum[c])                 bf16, kept for all chunks
//   PE   for each token tile t: y_psum [128, D] = sum over H chunks of hT[c][:, t]^T . w2[c, :]
//   DVE  y = bf16(y_psum); DVE stores it
// EmitGeluMlp is the body; the tensor-parallel samples (collectives.cc) store an fp32 partial y.
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

StatusOr<std::vector<kb::InstRef>> EmitGeluMlp(kb::KernelBuilder& k, const kb::HbmTensor& x,
                                               const kb::HbmTensor& w1, const kb::HbmTensor& w2,
                                               const kb::HbmTensor& y) {
  const int T = static_cast<int>(x.rows()), D = static_cast<int>(x.cols());
  const int H = static_cast<int>(w1.cols()), N = static_cast<int>(w2.cols());
  const int DT = D / 128, HT = H / 128, TT = T / 128;
  const isa::Dtype f32 = isa::Dtype::kFloat32, bf16 = isa::Dtype::kBfloat16;
  const auto u16 = [](int v) { return static_cast<uint16_t>(v); };
  const int64_t bank = k.limits().psum_bank_bytes;
  kb::Core& core = k.core(0);
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile xt, core.AllocSbuf("x_t", bf16, 128, int64_t{DT} * T));
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile tw1, core.AllocSbuf("w1", bf16, 128, int64_t{DT} * H));
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile tw2, core.AllocSbuf("w2", bf16, 128, int64_t{HT} * N));
  TRNSIM_ASSIGN_OR_RETURN(kb::Tile ht, core.AllocSbuf("h_t", bf16, 128, int64_t{HT} * T));
  kb::Tile hps[2], yps[2], ty[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(hps[s], core.AllocPsum("h_psum", f32, 128, T, bank));
    TRNSIM_ASSIGN_OR_RETURN(yps[s], core.AllocPsum("y_psum", f32, 128, N, bank));
    TRNSIM_ASSIGN_OR_RETURN(ty[s], core.AllocSbuf("y", y.dtype, 128, N));
  }
  // x^T: partition p, tile dt, token t  <-  x[t, dt * 128 + p].
  kb::InstRef lx = core.sp().DmaCopy(xt.ap({{u16(DT), T}, {u16(T), 1}}),
                                     x.ap(0, 128, 1, {{u16(DT), 128}, {u16(T), D}}), 0);
  kb::InstRef lw1 = core.sp().DmaCopy(tw1.ap({{u16(DT), H}, {u16(H), 1}}),
                                      w1.ap(0, 128, H, {{u16(DT), 128 * H}, {u16(H), 1}}), 1);
  kb::InstRef lw2 = core.sp().DmaCopy(tw2.ap({{u16(HT), N}, {u16(N), 1}}),
                                      w2.ap(0, 128, N, {{u16(HT), 128 * N}, {u16(N), 1}}), 2);
  std::vector<kb::InstRef> gelus;
  for (int c = 0; c < HT; ++c) {
    const int s = Slot(c);
    kb::MatmulRefs mm;
    for (int d = 0; d < DT; ++d) {
      mm = core.pe().Matmul(hps[s].ap(), tw1.ap({{128, 1}}, int64_t{d} * H + int64_t{c} * 128),
                            xt.ap({{u16(T), 1}}, int64_t{d} * T), d == 0, d == DT - 1);
      if (c == 0 && d == 0) k.Depend(mm.stationary, lw1), k.Depend(mm.moving, lx);
      if (d == 0 && c >= 2) k.Depend(mm.moving, gelus[c - 2]);  // PSUM slot copied out
    }
    kb::InstRef g = core.act().Activation(ht.ap({{u16(T), 1}}, int64_t{c} * T), hps[s].ap(),
                                          isa::ActFunc::kGelu);
    k.Depend(g, mm.moving);
    gelus.push_back(g);
  }
  std::vector<kb::InstRef> copies, stores;
  for (int t = 0; t < TT; ++t) {
    const int s = Slot(t);
    kb::MatmulRefs mm;
    for (int c = 0; c < HT; ++c) {
      mm = core.pe().Matmul(yps[s].ap(), ht.ap({{128, 1}}, int64_t{c} * T + int64_t{t} * 128),
                            tw2.ap({{u16(N), 1}}, int64_t{c} * N), c == 0, c == HT - 1);
      if (t == 0) k.Depend(mm.stationary, gelus[c]);
      if (t == 0 && c == 0) k.Depend(mm.moving, lw2);
      if (c == 0 && t >= 2) k.Depend(mm.moving, copies[t - 2]);
    }
    kb::InstRef copy = core.dve().TensorCopy(ty[s].ap(), yps[s].ap());
    k.Depend(copy, mm.moving);
    if (t >= 2) k.Depend(copy, stores[t - 2]);
    kb::InstRef st = core.dve().DmaCopy(y.Block(int64_t{t} * 128, 128, 0, N), ty[s].ap(), 3);
    k.Depend(st, copy);
    copies.push_back(copy);
    stores.push_back(st);
  }
  TRNSIM_RETURN_IF_ERROR(k.status());
  return stores;
}

Status GenerateGeluMlp(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  return EmitGeluMlp(k, io[0], io[1], io[2], io[3]).status();
}

}  // namespace trnsim::samples
