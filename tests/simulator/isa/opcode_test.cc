// The opcode table, the limits derived from the chip specs, and the sample corpus.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "simulator/isa/encoding.h"
#include "tests/simulator/isa/samples.h"

namespace trnsim::isa {
namespace {

TEST(OpcodeTableTest, LookupsAgree) {
  std::set<std::string_view> names;
  for (const OpcodeInfo& info : AllOpcodes()) {
    EXPECT_EQ(FindOpcode(info.opcode), &info);
    EXPECT_EQ(FindOpcodeByMnemonic(info.mnemonic), &info);
    EXPECT_TRUE(names.insert(info.mnemonic).second) << info.mnemonic;
    EXPECT_NE(info.engines, 0) << info.mnemonic;
    for (const OperandSpec& op : info.operands) {
      if (op.presence == Presence::kNone) continue;
      EXPECT_FALSE(op.name.empty()) << info.mnemonic;
      EXPECT_NE(op.memories, 0) << info.mnemonic;
      if (op.imm_alt >= 0) {
        EXPECT_EQ(info.imms[op.imm_alt].name, op.name) << info.mnemonic;
      }
    }
    if (info.fields & kFieldCount) {
      EXPECT_FALSE(info.count_name.empty()) << info.mnemonic;
    }
  }
  EXPECT_EQ(FindOpcode(uint16_t{0}), nullptr);
  EXPECT_EQ(FindOpcode(uint16_t{0xFFFF}), nullptr);
  EXPECT_EQ(FindOpcodeByMnemonic("nc_matmul"), nullptr);
  EXPECT_EQ(Mnemonic(static_cast<Opcode>(0x7F)), "?");
}

TEST(OpcodeTableTest, EveryOpcodeHasASample) {
  std::set<Opcode> covered;
  for (const testing::Sample& s : testing::Samples()) covered.insert(s.inst.opcode);
  for (const OpcodeInfo& info : AllOpcodes()) {
    EXPECT_TRUE(covered.count(info.opcode)) << info.mnemonic;
  }
}

TEST(OpcodeTableTest, EngineCounts) {
  int per_engine[kEngineCount] = {};
  for (const OpcodeInfo& info : AllOpcodes()) {
    for (int e = 0; e < kEngineCount; ++e) {
      if (info.engines & EngineBit(static_cast<Engine>(e))) ++per_engine[e];
    }
  }
  EXPECT_EQ(AllOpcodes().size(), 45u);
  EXPECT_EQ(per_engine[static_cast<int>(Engine::kPe)], 22);
  EXPECT_EQ(per_engine[static_cast<int>(Engine::kAct)], 24);
  EXPECT_EQ(per_engine[static_cast<int>(Engine::kDve)], 36);
  EXPECT_EQ(per_engine[static_cast<int>(Engine::kPool)], 27);
  EXPECT_EQ(per_engine[static_cast<int>(Engine::kSp)], 19);
  // collective: appended at 0x70, on every engine, issued like a DMA.
  const OpcodeInfo* cc = FindOpcode(uint16_t{0x70});
  ASSERT_NE(cc, nullptr);
  EXPECT_EQ(cc->mnemonic, "collective");
  EXPECT_EQ(cc->engines, kAllEngines);
  EXPECT_EQ(cc->cost_class, CostClass::kDma);
  // The LNC=2 pair: appended at 0x71 and 0x72, on every engine.
  const OpcodeInfo* barrier = FindOpcode(uint16_t{0x71});
  ASSERT_NE(barrier, nullptr);
  EXPECT_EQ(barrier->mnemonic, "core_barrier");
  EXPECT_EQ(barrier->engines, kAllEngines);
  EXPECT_EQ(barrier->cost_class, CostClass::kSync);
  const OpcodeInfo* sendrecv = FindOpcode(uint16_t{0x72});
  ASSERT_NE(sendrecv, nullptr);
  EXPECT_EQ(sendrecv->mnemonic, "sendrecv");
  EXPECT_EQ(sendrecv->engines, kAllEngines);
  EXPECT_EQ(sendrecv->cost_class, CostClass::kDma);
  // debug_print: appended at 0x73, on every engine, issued like a DMA; src only, in slot 1.
  const OpcodeInfo* print = FindOpcode(uint16_t{0x73});
  ASSERT_NE(print, nullptr);
  EXPECT_EQ(print->mnemonic, "debug_print");
  EXPECT_EQ(print->engines, kAllEngines);
  EXPECT_EQ(print->cost_class, CostClass::kDma);
  EXPECT_EQ(print->operands[kDst].presence, Presence::kNone);
  EXPECT_EQ(print->operands[kSrc].name, "src");
  EXPECT_EQ(print->index_name, "prefix");
  EXPECT_EQ(FindOpcode(uint16_t{0x74}), nullptr);
}

TEST(OpcodeTableTest, SamplesAreValid) {
  IsaLimits limits = LimitsFor(simulator::Trainium2Spec());
  for (const testing::Sample& s : testing::Samples()) {
    Status st = ValidateForEngine(s.engine, s.inst, limits);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
}

TEST(OpcodeTableTest, NamesRoundTrip) {
  for (int i = 0; i < kAluOpCount; ++i) {
    EXPECT_EQ(AluOpFromName(AluOpName(static_cast<AluOp>(i))), static_cast<AluOp>(i));
  }
  for (int i = 0; i < kActFuncCount; ++i) {
    EXPECT_EQ(ActFuncFromName(ActFuncName(static_cast<ActFunc>(i))), static_cast<ActFunc>(i));
  }
  for (int i = 0; i < kCmpOpCount; ++i) {
    EXPECT_EQ(CmpOpFromName(CmpOpSymbol(static_cast<CmpOp>(i))), static_cast<CmpOp>(i));
    EXPECT_EQ(CmpOpFromName(CmpOpName(static_cast<CmpOp>(i))), static_cast<CmpOp>(i));
  }
  for (int i = 0; i < kCollectiveKindCount; ++i) {
    const auto kind = static_cast<CollectiveKind>(i);
    EXPECT_EQ(CollectiveKindFromName(CollectiveKindName(kind)), kind);
  }
  EXPECT_EQ(CollectiveKindName(CollectiveKind::kReduceScatter), "reduce_scatter");
  EXPECT_EQ(CollectiveKindName(static_cast<CollectiveKind>(5)), "?");
  EXPECT_FALSE(CollectiveKindFromName("broadcast"));
  for (int i = 0; i < kEngineCount; ++i) {
    EXPECT_EQ(EngineFromName(EngineName(static_cast<Engine>(i))), static_cast<Engine>(i));
  }
  EXPECT_EQ(AluOpName(static_cast<AluOp>(200)), "?");
  EXPECT_EQ(ActFuncName(static_cast<ActFunc>(200)), "?");
}

TEST(LimitsTest, Trainium2) {
  IsaLimits l = LimitsFor(simulator::Trainium2Spec());
  EXPECT_EQ(l.partitions, 128);
  EXPECT_EQ(l.sbuf_bytes_per_partition, 224u * 1024);
  EXPECT_EQ(l.psum_bytes_per_partition, 16u * 1024);
  EXPECT_EQ(l.psum_banks, 8u);
  EXPECT_EQ(l.psum_bank_bytes, 2048u);
  EXPECT_EQ(l.registers, 64);
  EXPECT_EQ(l.semaphores, 256);
  EXPECT_EQ(l.events, 256);
  EXPECT_EQ(l.dma_queues, 16);
  EXPECT_EQ(l.pe_max_contraction, 128);
  EXPECT_EQ(l.pe_max_stationary_free, 128);
  EXPECT_EQ(l.pe_max_moving_free_fp32, 512u);
  EXPECT_EQ(l.pe_max_moving_free_bf16, 0u);
}

TEST(LimitsTest, Trainium3Overrides) {
  IsaLimits l = LimitsFor(simulator::Trainium3Spec());
  EXPECT_EQ(l.sbuf_bytes_per_partition, 256u * 1024);
  EXPECT_EQ(l.psum_bytes_per_partition, 16u * 1024);
  EXPECT_EQ(l.pe_max_moving_free_fp32, 4096u);
  EXPECT_EQ(l.pe_max_moving_free_bf16, 8192u);
  EXPECT_EQ(l.registers, 64);
}

TEST(AccessPatternTest, ElementsAndByteRange) {
  AccessPattern ap = SbufAp(0, 128, 100, Dtype::kBfloat16, {{4, -256}, {128, 2}});
  EXPECT_EQ(ap.FreeElements(), 512u);
  EXPECT_EQ(ap.Elements(), 512u * 128);
  EXPECT_EQ(ap.InnerElements(1), 128u);
  auto r = StaticByteRange(ap);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 100 - 3 * 256 * 2);
  EXPECT_EQ(r->hi, 100 + (127 * 2 + 1) * 2);
  AccessPattern hbm = HbmAp(1, 8, Dtype::kFloat32, 4, 100, {{10, 1}});
  r = StaticByteRange(hbm);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, 8);
  EXPECT_EQ(r->hi, 8 + (3 * 100 + 9 + 1) * 4);
  EXPECT_FALSE(StaticByteRange(PatternAp(0, 1, 0, {{1, 1}})));
  AccessPattern huge = SbufAp(0, 1, INT64_MAX, Dtype::kFloat32, {{65535, 32767}});
  EXPECT_FALSE(StaticByteRange(huge));
}

}  // namespace
}  // namespace trnsim::isa
