// matmul_bf16_<n>: c[M, N] = a_t[K, M]^T . b[K, N], bf16 in and out, fp32 accumulation.
//
// Tiles: K by 128 (the contraction, on partitions), M by 128 (stationary free size), N by 512
// (one PSUM bank of fp32). For each N block j, SP loads b[:, j] once (all K tiles, one DMA);
// for each M tile i it loads a_t[:, i] (one DMA), PE accumulates the K/128 matmuls of (i, j)
// into a PSUM bank (first .. last), and ACT (even tiles) or DVE (odd tiles) copies the bank to
// SBUF as bf16 and stores it on its own DMA queue. Every buffer is doubled (slot = tile parity)
// and each reuse waits for the previous user of the slot; the streams are unrolled.
#include <algorithm>

#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

Status GenerateMatmul(const SampleSpec& spec, kb::KernelBuilder& k) {
  TRNSIM_ASSIGN_OR_RETURN(std::vector<kb::HbmTensor> io, DeclareIo(spec, k));
  const kb::HbmTensor &a_t = io[0], &b = io[1], &c = io[2];
  const int K = static_cast<int>(a_t.rows()), M = static_cast<int>(a_t.cols());
  const int N = static_cast<int>(b.cols());
  const int nt = std::min(N, 512);
  const int KT = K / 128, MT = M / 128, NT = N / nt;
  const isa::Dtype bf16 = isa::Dtype::kBfloat16;
  kb::Core& core = k.core(0);
  kb::Tile tb[2], ta[2], tout[2], ps[2];
  for (int s = 0; s < 2; ++s) {
    TRNSIM_ASSIGN_OR_RETURN(tb[s], core.AllocSbuf("b", bf16, 128, static_cast<int64_t>(KT) * nt));
    TRNSIM_ASSIGN_OR_RETURN(ta[s],
                            core.AllocSbuf("a_t", bf16, 128, static_cast<int64_t>(KT) * 128));
    TRNSIM_ASSIGN_OR_RETURN(tout[s], core.AllocSbuf("c", bf16, 128, nt));
    TRNSIM_ASSIGN_OR_RETURN(
        ps[s], core.AllocPsum("acc", isa::Dtype::kFloat32, 128, nt, k.limits().psum_bank_bytes));
  }
  std::vector<kb::InstRef> last_mm, evac, store, load_b;
  for (int j = 0; j < NT; ++j) {
    const int sb = Slot(j);
    // b[:, j*nt ..]: partition p = k % 128, then K tiles, then nt columns.
    kb::InstRef lb = core.sp().DmaCopy(
        tb[sb].ap({{static_cast<uint16_t>(KT), nt}, {static_cast<uint16_t>(nt), 1}}),
        b.ap(static_cast<int64_t>(j) * nt, 128, N,
             {{static_cast<uint16_t>(KT), 128 * N}, {static_cast<uint16_t>(nt), 1}}),
        0);
    // The last matmul that read this b slot (the last tile of block j - 2).
    if (j >= 2) k.Depend(lb, last_mm[(j - 1) * MT - 1]);
    load_b.push_back(lb);
    for (int i = 0; i < MT; ++i) {
      const int g = j * MT + i;  // tile number
      const int s = Slot(g);
      kb::InstRef la = core.sp().DmaCopy(ta[s].ap({{static_cast<uint16_t>(KT), 128}, {128, 1}}),
                                         a_t.ap(static_cast<int64_t>(i) * 128, 128, M,
                                                {{static_cast<uint16_t>(KT), 128 * M}, {128, 1}}),
                                         1);
      if (g >= 2) k.Depend(la, last_mm[g - 2]);
      kb::MatmulRefs mm;
      for (int kt = 0; kt < KT; ++kt) {
        mm = core.pe().Matmul(
            ps[s].ap(), ta[s].ap({{128, 1}}, static_cast<int64_t>(kt) * 128),
            tb[sb].ap({{static_cast<uint16_t>(nt), 1}}, static_cast<int64_t>(kt) * nt), kt == 0,
            kt == KT - 1);
        if (kt == 0) {
          k.Depend(mm.stationary, la);
          k.Depend(mm.moving, lb);
          if (g >= 2) k.Depend(mm.moving, evac[g - 2]);  // the PSUM bank was copied out
        }
      }
      last_mm.push_back(mm.moving);
      kb::Stream& eng = s == 0 ? core.act() : core.dve();
      kb::InstRef copy = eng.TensorCopy(tout[s].ap(), ps[s].ap());
      k.Depend(copy, mm.moving);
      if (g >= 2) k.Depend(copy, store[g - 2]);
      kb::InstRef st =
          eng.DmaCopy(c.Block(static_cast<int64_t>(i) * 128, 128, static_cast<int64_t>(j) * nt, nt),
                      tout[s].ap(), 2 + s);
      k.Depend(st, copy);
      evac.push_back(copy);
      store.push_back(st);
    }
  }
  return k.status();
}

}  // namespace trnsim::samples
