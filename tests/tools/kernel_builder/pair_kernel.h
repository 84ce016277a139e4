// The LNC=2 pair kernel shared by the chip-model test (tests/simulator/core/pair_sync_test.cc)
// and the runtime test (tests/runtime/execution/collective_execution_test.cc):
//   sg00 loads x [128, 64] fp32 into SBUF and `sendrecv`s it to sg01 (peer semaphore 3);
//   sg01 adds 1 once it has landed and stores y;
//   both meet at a `core_barrier` on semaphore 4, after which sg00 reads y back into z.
// y and z equal x + 1 only if the barrier really orders the two cores.
#pragma once

#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb::testing {

struct PairKernel {
  StatusOr<neff::Neff> neff = InvalidError("not built");
  HbmTensor x, y, z;
};

inline PairKernel BuildPairKernel() {
  constexpr isa::Dtype kF32 = isa::Dtype::kFloat32;
  PairKernel out;
  KernelBuilder k({"pair", "trn2", 2});
  out.x = k.AddInput("x", kF32, {128, 64}).value();
  out.y = k.AddOutput("y", kF32, {128, 64}).value();
  out.z = k.AddOutput("z", kF32, {128, 64}).value();
  Core& c0 = k.core(0);
  Core& c1 = k.core(1);
  Tile a = c0.AllocSbuf("a", kF32, 128, 64).value();
  Tile back = c0.AllocSbuf("back", kF32, 128, 64).value();
  Tile b = c1.AllocSbuf("b", kF32, 128, 64).value();
  InstRef load = c0.sp().DmaCopy(a.ap(), out.x.Block(0, 128, 0, 64));
  InstRef send = c0.sp().SendRecv(b.ap(), a.ap(), /*peer_semaphore=*/3);
  k.Depend(send, load);
  c0.sp().CoreBarrier(4);
  InstRef fetch = c0.sp().DmaCopy(back.ap(), out.y.Block(0, 128, 0, 64));
  InstRef keep = c0.sp().DmaCopy(out.z.Block(0, 128, 0, 64), back.ap());
  k.Depend(keep, fetch);
  c1.dve().SemWait(3, isa::CmpOp::kGe, 1);
  InstRef add = c1.dve().TensorScalar(b.ap(), b.ap(), isa::AluOp::kAdd, Scalar(1.0f));
  InstRef store = c1.sp().DmaCopy(out.y.Block(0, 128, 0, 64), b.ap());
  k.Depend(store, add);
  InstRef meet1 = c1.sp().CoreBarrier(4);
  k.Depend(meet1, store);  // the store has landed before core 1 arrives
  out.neff = k.Build();
  return out;
}

}  // namespace trnsim::kb::testing
