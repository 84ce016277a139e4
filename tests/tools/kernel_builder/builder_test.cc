#include <gtest/gtest.h>

#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb {
namespace {

constexpr isa::Dtype kF32 = isa::Dtype::kFloat32;

isa::Program Decode(const neff::Neff& n, int sg, isa::Engine e) {
  for (const neff::EngineProgram& p : n.subgraphs[sg].engines) {
    if (static_cast<int>(p.engine) == static_cast<int>(e)) {
      return isa::DecodeStream(p.instructions, isa::LimitsFor(simulator::Trainium2Spec())).value();
    }
  }
  ADD_FAILURE() << "no engine";
  return {};
}

TEST(BuilderTest, EmptyKernelHasFiveEnginesEndingInNotifyEnd) {
  KernelBuilder k({"empty", "trn2", 1});
  ASSERT_TRUE(k.AddInput("x", kF32, {4}).ok());
  ASSERT_TRUE(k.AddOutput("y", kF32, {4}).ok());
  neff::Neff n = k.Build().value();
  ASSERT_EQ(n.subgraphs.size(), 1u);
  EXPECT_EQ(n.header.name, "empty");
  EXPECT_EQ(n.header.lnc_size, 1u);
  ASSERT_EQ(n.subgraphs[0].engines.size(), 5u);
  for (int e = 0; e < isa::kEngineCount; ++e) {
    isa::Program p = Decode(n, 0, static_cast<isa::Engine>(e));
    ASSERT_EQ(p.instructions.size(), 1u);
    EXPECT_EQ(p.instructions[0].opcode, isa::Opcode::kNotifyEnd);
  }
  ASSERT_EQ(n.tensors.size(), 2u);
  EXPECT_EQ(n.tensors[0].name, "x");
  EXPECT_EQ(n.tensors[0].dtype, kF32);
  EXPECT_EQ(n.tensors[1].usage, neff::TensorUsage::kOutput);
  // Reproducible: the same kernel gives the same bytes.
  EXPECT_EQ(k.BuildBytes().value(), k.BuildBytes().value());
  EXPECT_TRUE(neff::ReadNeff(k.BuildBytes().value()).ok());
}

TEST(BuilderTest, VariablesGetIdsAndAreChecked) {
  KernelBuilder k({"vars", "trn2", 1});
  EXPECT_EQ(k.AddInput("a", kF32, {2, 3}).value().var_id, 0u);
  EXPECT_EQ(k.AddScratch("s", 64).value().var_id, 1u);
  VarOptions id9;
  id9.var_id = 9;
  EXPECT_EQ(k.AddOutput("o", isa::Dtype::kBfloat16, {8}, id9).value().var_id, 9u);
  EXPECT_EQ(k.AddConstant("c", isa::Dtype::kUint8, {2}, {1, 2}).value().var_id, 10u);
  EXPECT_FALSE(k.AddInput("a", kF32, {1}).ok());                // name taken
  EXPECT_FALSE(k.AddInput("b", kF32, {1}, id9).ok());           // id taken
  EXPECT_FALSE(k.AddInput("z", kF32, {0}).ok());                // empty shape
  EXPECT_FALSE(k.AddConstant("d", kF32, {2}, {1, 2, 3}).ok());  // 3 bytes for 8
  VarOptions bad_align;
  bad_align.alignment = 3;
  EXPECT_FALSE(k.AddScratch("t", 8, bad_align).ok());
  neff::Neff n = k.Build().value();
  EXPECT_EQ(n.subgraphs[0].variables.size(), 4u);
  EXPECT_EQ(n.subgraphs[0].files.at("c.bin"), (std::vector<uint8_t>{1, 2}));
  EXPECT_EQ(n.tensors[0].shape, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(n.tensors[0].size, 24u);
}

TEST(BuilderTest, NpyConstantsAreWrapped) {
  KernelBuilder k({"npy", "trn2", 1});
  VarOptions o;
  o.file_name = "w.npy";
  ASSERT_TRUE(k.AddConstant("w", kF32, {2}, std::vector<uint8_t>(8, 7), o).ok());
  neff::Neff n = k.Build().value();
  auto data = neff::ConstantData(n.subgraphs[0], n.subgraphs[0].variables[0]).value();
  EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), std::vector<uint8_t>(8, 7));
}

TEST(BuilderTest, InvalidInstructionsAreRefusedWithTheirPlace) {
  KernelBuilder k({"bad", "trn2", 1});
  Core& c = k.core(0);
  // A PE instruction on DVE: Add() returns the error and appends nothing.
  isa::Instruction ls;
  ls.opcode = isa::Opcode::kLoadStationary;
  ls.ap[1] = isa::SbufAp(0, 128, 0, isa::Dtype::kBfloat16, {{128, 1}});
  StatusOr<InstRef> r = c.dve().Add(ls);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("sg00 dve[0]"), std::string::npos) << r.status().message();
  EXPECT_EQ(c.dve().size(), 0);
  EXPECT_TRUE(k.status().ok());  // Add() reports; it does not record
  // The typed helpers record the first error; Build() returns it.
  Tile t = c.AllocSbuf("t", kF32, 128, 512).value();
  InstRef bad =
      c.pe().MultiplyMoving(isa::PsumAp(0, 128, 0, kF32, {{1024, 1}}), t.ap(), true, true);
  EXPECT_FALSE(bad.valid());
  c.dve().TensorCopy(t.ap(), t.ap());  // fine, but the build still fails
  StatusOr<neff::Neff> n = k.Build();
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("multiply_moving"), std::string::npos)
      << n.status().message();
}

TEST(BuilderTest, BadOptionsAreErrors) {
  KernelBuilder chip({"k", "trn9", 1});
  EXPECT_FALSE(chip.Build().ok());
  KernelBuilder lnc({"k", "trn2", 3});
  EXPECT_FALSE(lnc.Build().ok());
  KernelBuilder late({"k", "trn2", 1});
  late.core(0).sp().Nop();
  EXPECT_FALSE(late.SetLnc(2).ok());
}

TEST(BuilderTest, Lnc2ReplicatesVariablesAndTensorsOnce) {
  KernelBuilder k({"two", "trn3", 2});
  ASSERT_TRUE(k.AddInput("x", kF32, {256}).ok());
  VarOptions only1;
  only1.subgraph = 1;
  ASSERT_TRUE(k.AddScratch("s1", 64, only1).ok());
  neff::Neff n = k.Build().value();
  ASSERT_EQ(n.subgraphs.size(), 2u);
  EXPECT_EQ(n.header.lnc_size, 2u);
  EXPECT_EQ(n.subgraphs[0].variables.size(), 1u);
  EXPECT_EQ(n.subgraphs[1].variables.size(), 2u);
  EXPECT_EQ(n.tensors.size(), 1u);
  EXPECT_TRUE(neff::ReadNeff(neff::WriteNeff(n).value()).ok());
}

TEST(BuilderTest, LabelsResolveToInstructionIndices) {
  KernelBuilder k({"loop", "trn2", 1});
  Stream& sp = k.core(0).sp();
  sp.RegSet(0, 0);
  Label top = sp.NewLabel("top");
  ASSERT_TRUE(sp.Bind(top).ok());
  EXPECT_FALSE(sp.Bind(top).ok());
  sp.RegAdd(0, 1);
  sp.Branch(0, isa::CmpOp::kLt, 4, top);
  Label never = sp.NewLabel("never");
  sp.Branch(0, isa::CmpOp::kLt, 4, never);
  EXPECT_FALSE(k.Build().ok());  // 'never' is not bound
  ASSERT_TRUE(sp.Bind(never).ok());
  neff::Neff n = k.Build().value();
  isa::Program p = Decode(n, 0, isa::Engine::kSp);
  EXPECT_EQ(p.instructions[2].target, 1);
  EXPECT_EQ(p.instructions[3].target, 4);  // the appended notify_end
}

TEST(BuilderTest, CollectiveHelper) {
  KernelBuilder k({"allreduce", "trn2", 1});
  HbmTensor x = k.AddInput("x", kF32, {128, 64}).value();
  HbmTensor y = k.AddOutput("y", kF32, {128, 64}).value();
  HbmTensor g = k.AddOutput("g", kF32, {4, 128, 64}).value();
  Core& c = k.core(0);
  InstRef ar = c.sp().Collective(isa::CollectiveKind::kAllReduce, y.Block(0, 128, 0, 64),
                                 x.Block(0, 128, 0, 64), isa::AluOp::kMaximum, {0, 1}, 7);
  InstRef ag = c.sp().Collective(isa::CollectiveKind::kAllGather,
                                 isa::HbmAp(g.var_id, 0, kF32, 512, 64, {{64, 1}}),
                                 x.Block(0, 128, 0, 64), isa::AluOp::kBypass, {4, 2}, 8);
  ASSERT_TRUE(ar.valid() && ag.valid()) << k.status().ToString();
  neff::Neff n = k.Build().value();
  EXPECT_TRUE(neff::ReadNeff(k.BuildBytes().value()).ok());
  isa::Program sp = Decode(n, 0, isa::Engine::kSp);
  ASSERT_GE(sp.instructions.size(), 3u);
  const isa::Instruction& i = sp.instructions[1];
  EXPECT_EQ(i.opcode, isa::Opcode::kCollective);
  EXPECT_EQ(i.count, uint8_t(isa::CollectiveKind::kAllGather));
  EXPECT_EQ(i.index, 8u);
  EXPECT_EQ(i.imm[0], 4u);
  EXPECT_EQ(i.imm[1], 2u);
  EXPECT_EQ(i.imm[2], 0u);
  EXPECT_EQ(sp.instructions[0].op0, isa::AluOp::kMaximum);
  EXPECT_EQ(isa::FormatInstruction(sp.instructions[0]).rfind("collective dst=hbm[var1 + 0, ", 0),
            0u);

  // Bad calls are diagnosed, not emitted.
  KernelBuilder bad({"bad", "trn2", 1});
  HbmTensor a = bad.AddInput("a", kF32, {128, 64}).value();
  HbmTensor b = bad.AddOutput("b", kF32, {128, 64}).value();
  Core& bc = bad.core(0);
  EXPECT_FALSE(bc.sp()
                   .Collective(isa::CollectiveKind::kAllReduce, b.Block(0, 128, 0, 64),
                               a.Block(0, 128, 0, 64), isa::AluOp::kAdd, {0, 1}, 1, 3)
                   .valid());  // a shift outside permute
  EXPECT_FALSE(bc.sp()
                   .Collective(isa::CollectiveKind::kAllGather, b.Block(0, 128, 0, 64),
                               a.Block(0, 128, 0, 64), isa::AluOp::kAdd, {0, 1}, 1)
                   .valid());  // a reduction op on a gather
  EXPECT_FALSE(bc.sp()
                   .Collective(isa::CollectiveKind::kPermute, b.Block(0, 128, 0, 64),
                               a.Block(0, 128, 0, 64), isa::AluOp::kBypass, {0x80000000u, 1}, 1)
                   .valid());  // a group that does not fit int32
  EXPECT_FALSE(bad.Build().ok());
  EXPECT_NE(bad.status().message().find("takes no shift"), std::string::npos)
      << bad.status().message();
}

// The LNC=2 pair helpers: core 0 loads x and sends it to core 1's SBUF (peer semaphore 0), core 1
// stores it once that semaphore says it landed; both POOLs meet at a core_barrier on S[1]. The
// dependency plumbing keeps clear of both semaphores on both cores.
TEST(BuilderTest, PairHelpersOnAnLnc2Kernel) {
  KernelBuilder k({"pair", "trn2", 2});
  HbmTensor x = k.AddInput("x", kF32, {128, 64}).value();
  HbmTensor y = k.AddOutput("y", kF32, {128, 64}).value();
  Core& c0 = k.core(0);
  Core& c1 = k.core(1);
  Tile a = c0.AllocSbuf("a", kF32, 128, 64).value();
  Tile b = c1.AllocSbuf("b", kF32, 128, 64).value();
  InstRef load = c0.sp().DmaCopy(a.ap(), x.Block(0, 128, 0, 64));
  InstRef send = c0.sp().SendRecv(b.ap(), a.ap(), /*peer_semaphore=*/0, /*queue=*/1);
  k.Depend(send, load);
  EXPECT_TRUE(c0.pool().CoreBarrier(1).valid());
  InstRef nop = c1.act().Nop();
  InstRef landed = c1.sp().SemWait(0, isa::CmpOp::kGe, 1);
  InstRef store = c1.sp().DmaCopy(y.Block(0, 128, 0, 64), b.ap());
  k.Depend(store, nop);  // a dependency semaphore on core 1
  EXPECT_TRUE(c1.pool().CoreBarrier(1).valid());
  ASSERT_TRUE(landed.valid() && store.valid() && send.valid()) << k.status().ToString();
  neff::Neff n = k.Build().value();
  EXPECT_EQ(n.header.lnc_size, 2u);
  EXPECT_TRUE(neff::ReadNeff(k.BuildBytes().value()).ok());

  isa::Program sp0 = Decode(n, 0, isa::Engine::kSp);
  ASSERT_EQ(sp0.instructions.size(), 3u);
  const isa::Instruction& sr = sp0.instructions[1];
  EXPECT_EQ(sr.opcode, isa::Opcode::kSendRecv);
  EXPECT_EQ(sr.index, 0u);
  EXPECT_EQ(sr.count, 1u);
  EXPECT_EQ(sr.ap[isa::kDst], b.ap());
  ASSERT_EQ(sr.num_waits, 1);                             // after the load
  ASSERT_EQ(sr.num_updates, 1);                           // for notify_end: its queue's channel
  EXPECT_NE(sr.Updates()[0].index, 1u);                   // never the barrier semaphore
  EXPECT_NE(sr.Updates()[0].index, sr.Waits()[0].index);  // queue 1 is not queue 0
  const isa::Instruction& end0 = sp0.instructions[2];
  bool waits_for_send = false;
  for (const isa::SyncWait& w : end0.Waits()) waits_for_send |= w.index == sr.Updates()[0].index;
  EXPECT_TRUE(waits_for_send) << isa::FormatInstruction(end0);
  isa::Program pool0 = Decode(n, 0, isa::Engine::kPool);
  ASSERT_GE(pool0.instructions.size(), 1u);
  EXPECT_EQ(isa::FormatInstruction(pool0.instructions[0]), "core_barrier sem=1");

  // Core 1: its dependency semaphore is neither the peer's sendrecv semaphore nor the barrier's.
  isa::Program act1 = Decode(n, 1, isa::Engine::kAct);
  ASSERT_EQ(act1.instructions[0].num_updates, 1);
  const uint32_t dep = act1.instructions[0].Updates()[0].index;
  EXPECT_NE(dep, 0u);
  EXPECT_NE(dep, 1u);

  // Bad arguments are diagnosed, not emitted.
  KernelBuilder bad({"bad", "trn2", 2});
  Tile t = bad.core(0).AllocSbuf("t", kF32, 128, 64).value();
  EXPECT_FALSE(bad.core(0).sp().CoreBarrier(-1).valid());
  EXPECT_FALSE(bad.core(0).sp().CoreBarrier(256).valid());  // validation: >= 256 semaphores
  EXPECT_FALSE(bad.core(0).sp().SendRecv(t.ap(), t.ap(), 0, 300).valid());
  EXPECT_FALSE(bad.core(0).sp().SendRecv(t.ap(), t.Cols(0, 32).ap(), 0).valid());
  EXPECT_FALSE(bad.Build().ok());
  EXPECT_NE(bad.status().message().find("core_barrier semaphore -1"), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace trnsim::kb

namespace trnsim::kb {
namespace {

TEST(BuilderTest, DebugPrintInternsPrefixesPerCore) {
  KernelBuilder k({"prints", "trn2", 2});
  HbmTensor x = k.AddInput("x", kF32, {2, 3, 4}).value();
  Core& c0 = k.core(0);
  Tile t = c0.AllocSbuf("t", isa::Dtype::kBfloat16, 16, 8).value();
  InstRef a = c0.act().DebugPrint("tile", t.ap());
  InstRef b = c0.pool().DebugPrint("x", x.Whole().value());
  InstRef again = c0.sp().DebugPrint("tile", t.Cols(0, 4).ap());
  InstRef other = k.core(1).dve().DebugPrint("only on core 1", x.Block(0, 6, 0, 4));
  ASSERT_TRUE(a.valid() && b.valid() && again.valid() && other.valid()) << k.status().ToString();
  neff::Neff n = k.Build().value();
  EXPECT_EQ(n.subgraphs[0].debug_prefixes, (std::vector<std::string>{"tile", "x"}));
  EXPECT_EQ(n.subgraphs[1].debug_prefixes, (std::vector<std::string>{"only on core 1"}));
  isa::Program pool = Decode(n, 0, isa::Engine::kPool);
  const isa::Instruction& print = pool.instructions[0];
  EXPECT_EQ(print.opcode, isa::Opcode::kDebugPrint);
  EXPECT_EQ(print.index, 1u);
  // Whole() keeps the declared shape [2, 3, 4]: rows 2 of 12, free dims 3 x 4 row-major.
  EXPECT_EQ(isa::FormatAccessPattern(print.ap[isa::kSrc]),
            "hbm[var0 + 0, [2 x 12, 3 x 4, 4 x 1]] fp32");
  EXPECT_EQ(Decode(n, 0, isa::Engine::kSp).instructions[0].index, 0u);  // "tile" again
  EXPECT_EQ(Decode(n, 1, isa::Engine::kDve).instructions[0].index, 0u);
  // The table survives the container.
  neff::Neff back = neff::ReadNeff(neff::WriteNeff(n).value()).value();
  EXPECT_EQ(back.subgraphs[0].debug_prefixes, n.subgraphs[0].debug_prefixes);
}

TEST(BuilderTest, DebugPrintRefusals) {
  {
    KernelBuilder k;
    Tile t = k.core(0).AllocSbuf("t", kF32, 4, 4).value();
    EXPECT_FALSE(k.core(0).sp().DebugPrint(std::string(512, 'p'), t.ap()).valid());
    EXPECT_NE(k.status().message().find("at most 511"), std::string::npos) << k.status().message();
    EXPECT_FALSE(k.Build().ok());
  }
  {
    KernelBuilder k;
    Tile t = k.core(0).AllocSbuf("t", kF32, 4, 4).value();
    EXPECT_FALSE(k.core(0).sp().DebugPrint(std::string("a\0b", 3), t.ap()).valid());
    EXPECT_NE(k.status().message().find("NUL"), std::string::npos) << k.status().message();
  }
  {
    KernelBuilder k;  // PSUM is not a debug_print source (§7.10)
    Tile p = k.core(0).AllocPsum("p", kF32, 4, 4).value();
    EXPECT_FALSE(k.core(0).act().DebugPrint("psum", p.ap()).valid());
    EXPECT_NE(k.status().message().find("memory psum is not allowed"), std::string::npos)
        << k.status().message();
  }
  KernelBuilder k;
  EXPECT_TRUE(k.core(0).sp().DebugPrint(std::string(511, 'p'),
                                        k.AddInput("x", kF32, {4}).value().Whole().value())
                  .valid())
      << k.status().ToString();
  // Whole() refusals: no shape, too many dimensions, a dimension over 65535.
  EXPECT_FALSE(k.AddScratch("s", 64).value().Whole().ok());
  EXPECT_FALSE(k.AddInput("r6", kF32, {1, 1, 1, 1, 1, 2}).value().Whole().ok());
  EXPECT_FALSE(k.AddInput("wide", kF32, {2, 70000}).value().Whole().ok());
  EXPECT_EQ(isa::FormatAccessPattern(k.AddInput("v", kF32, {5}).value().Whole().value()),
            "hbm[var4 + 0, [1 x 5, 5 x 1]] fp32");
}

}  // namespace
}  // namespace trnsim::kb
