// The .s assembler: every directive, labels, and disassembly back to the same NEFF.
#include "tools/kernel_builder/assembler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "runtime/neff/neff_io.h"
#include "simulator/isa/encoding.h"

namespace trnsim::kb {
namespace {

// Uses every directive and key the format has.
constexpr char kEverything[] = R"(# every directive
.kernel everything
.lnc 2
.uuid 000102030405060708090a0b0c0d0e0f
.build_version "test build 7"
.header pkg_version=1 neff_version=2.1 num_tpb=2 requested_tpb_count=2 feature_bits=0 tpb_per_node=0202
.input  x bf16 [128, 64] id=4 align=64
.output y float32 [128, 64]
.const  w uint8 [4] hex=01020304
.const  f fp32 [2] file=data.bin file_name=f.npy
.scratch tmp 4096 align=4096

.subgraph sg00 name="main" version="1"
.scratch only0 128 id=20
.queue_set qin type=in num_queues=2 owner=sp semaphore=7 semaphore_set=8,9 instances=i0,i1 fabric=alt
.queue_set qout type=out pinned
.debug_prefix 0 "layer \x22out\x22 #1"
.debug_prefix 1 "back\\slash \x09tab"
.engine sp json=SyncE.json instr=SyncE.bin
.dma id=0 queue=qin semaphore=7 from=x from_off=0 from_steps=2,128 from_sizes=128,128 from_dtype=bfloat16 to=tmp to_steps=2 to_sizes=4096 to_dtype=bfloat16
.dma id=1 instance=i1 event=3 remote_semaphores=1,2 op=fma scale=0.5 scale_dtype=float32 tiling=2 section_start function_start=f0 from=w to=tmp
.dma id=2 queue=qout op=max constant=1.5 constant_dtype=int32 from=tmp to=y
.dma id=3 queue=qout op=transpose transpose_shape=1,2,3,4 transpose_element_size=2 from=tmp to=y
  reg_set r0 = 0
loop: dma_trigger desc=0 count=1
  reg_add r0 += 1
  branch r0 < 4 -> loop
  branch r0 < 0 -> done
  dma_trigger desc=2 count=2   # a comment
done:
  wait S[7] >= 8 notify_end code=0
.engine act
.act_tables gelu_and_others,natural_log_exp_and_others
debug_print src=sbuf[p0:128, 0 + [64 x 1]] bf16 prefix=1
debug_print src=hbm[var4 + 0, [128 x 64, 64 x 1]] bf16 prefix=0
notify_end code=0
.engine dve
.dve_table control=c.bin datapath=d.bin opcode=o.bin
notify_end code=0

.subgraph sg01
.engine pool json=-
notify_end code=0
)";

class AssemblerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kb_asm_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "data.bin", std::ios::binary).write("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  AssembleOptions Options() {
    AssembleOptions o;
    o.source_name = "everything.s";
    o.base_dir = dir_.string();
    return o;
  }
  std::filesystem::path dir_;
};

TEST_F(AssemblerTest, EveryDirective) {
  StatusOr<neff::Neff> r = Assemble(kEverything, Options());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const neff::Neff& n = *r;
  EXPECT_EQ(n.header.name, "everything");
  EXPECT_EQ(n.header.lnc_size, 2u);
  EXPECT_EQ(n.header.uuid[15], 0x0f);
  EXPECT_EQ(n.header.neff_build_version, "test build 7");
  EXPECT_EQ(n.header.pkg_version, 1u);
  EXPECT_EQ(n.header.neff_version_minor, 1u);
  EXPECT_EQ(n.header.num_tpb, 2u);
  EXPECT_EQ(n.header.tpb_per_node[1], 2);
  ASSERT_EQ(n.subgraphs.size(), 2u);
  const neff::Subgraph& sg0 = n.subgraphs[0];
  EXPECT_EQ(sg0.def_name, "main");
  EXPECT_EQ(sg0.def_version, "1");
  ASSERT_EQ(sg0.variables.size(), 6u);
  EXPECT_EQ(sg0.variables[0].var_id, 4);
  EXPECT_EQ(sg0.variables[0].alignment, 64u);
  EXPECT_EQ(sg0.variables[1].var_id, 5);  // one past the largest
  EXPECT_EQ(sg0.variables[5].name, "only0");
  EXPECT_EQ(n.subgraphs[1].variables.size(), 5u);
  EXPECT_EQ(sg0.files.at("w.bin"), (std::vector<uint8_t>{1, 2, 3, 4}));
  auto f = neff::ConstantData(sg0, sg0.variables[3]).value();
  EXPECT_EQ(f.size(), 8u);
  EXPECT_EQ(f[3], 0x3f);
  ASSERT_EQ(sg0.queue_sets.size(), 2u);
  EXPECT_EQ(sg0.queue_sets[0].num_queues, 2u);
  EXPECT_EQ(sg0.queue_sets[0].semaphore_set, (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(sg0.queue_sets[0].fabric_path, "alt");
  EXPECT_TRUE(sg0.queue_sets[1].pinned);
  // Engines in engine order: act, dve, sp (pe and pool have no section in sg00).
  ASSERT_EQ(sg0.engines.size(), 3u);
  const neff::EngineProgram& sp = sg0.engines[2];
  EXPECT_EQ(sp.json_file, "SyncE.json");
  EXPECT_EQ(sp.instr_file, "SyncE.bin");
  ASSERT_EQ(sp.dma.size(), 4u);
  EXPECT_EQ(sp.dma[0].from->steps, (std::vector<int64_t>{2, 128}));
  EXPECT_EQ(sp.dma[1].op, neff::DmaOp::kFma);
  EXPECT_EQ(sp.dma[1].scale, 0.5);
  EXPECT_TRUE(sp.dma[1].section_start_desc);
  EXPECT_EQ(sp.dma[2].constant_dtype, isa::Dtype::kInt32);
  EXPECT_EQ(sp.dma[3].transpose_shape[3], 4u);
  isa::Program p =
      isa::DecodeStream(sp.instructions, isa::LimitsFor(simulator::Trainium2Spec())).value();
  ASSERT_EQ(p.instructions.size(), 7u);
  EXPECT_EQ(p.instructions[3].target, 1);  // loop
  EXPECT_EQ(p.instructions[4].target, 6);  // done
  EXPECT_EQ(sg0.engines[0].activation_function_sets.size(), 2u);
  EXPECT_TRUE(n.subgraphs[1].engines[0].json_file.empty());
  EXPECT_EQ(sg0.engines[1].dve_tables.size(), 1u);
  EXPECT_EQ(sg0.debug_prefixes,
            (std::vector<std::string>{"layer \"out\" #1", "back\\slash \ttab"}));
  EXPECT_TRUE(n.subgraphs[1].debug_prefixes.empty());
  EXPECT_TRUE(neff::ReadNeff(neff::WriteNeff(n).value()).ok());
}

TEST_F(AssemblerTest, DisassemblyReassemblesToTheSameBytes) {
  neff::Neff n = Assemble(kEverything, Options()).value();
  std::string text = Disassemble(n).value();
  StatusOr<neff::Neff> again = Assemble(text, Options());
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << text;
  EXPECT_EQ(neff::WriteNeff(*again).value(), neff::WriteNeff(n).value()) << text;
  EXPECT_EQ(text.find("# warning"), std::string::npos) << text;
}

TEST_F(AssemblerTest, InstructionLinesAreTheIsaTextForm) {
  isa::Instruction i;
  i.opcode = isa::Opcode::kTensorTensor;
  i.op0 = isa::AluOp::kMultiply;
  i.ap[0] = isa::SbufAp(0, 128, 0, isa::Dtype::kFloat32, {{16, 1}});
  i.ap[1] = isa::SbufAp(0, 128, 64, isa::Dtype::kFloat32, {{16, 1}});
  i.ap[2] = isa::SbufAp(0, 128, 128, isa::Dtype::kFloat32, {{16, 1}});
  std::string s = ".engine dve\n" + isa::FormatInstruction(i) + "\nnotify_end code=0\n";
  neff::Neff n = Assemble(s).value();
  isa::Program p = isa::DecodeStream(n.subgraphs[0].engines[0].instructions,
                                     isa::LimitsFor(simulator::Trainium2Spec()))
                       .value();
  EXPECT_EQ(p.instructions[0], i);
}

TEST_F(AssemblerTest, CollectiveLines) {
  const char* s =
      ".kernel cc\n.input x fp32 [4, 64]\n.output y fp32 [4, 64]\n.engine pool\n"
      "collective dst=hbm[var1 + 0, [4 x 64, 64 x 1]] fp32 src=hbm[var0 + 0, [4 x 64, 64 x 1]] "
      "fp32 "
      "kind=permute shift=-1 id=3 then S[0] += 1 @complete\n"
      "wait S[0] >= 1 notify_end code=0\n";
  StatusOr<neff::Neff> n = Assemble(s);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  isa::Program p = isa::DecodeStream(n->subgraphs[0].engines[0].instructions,
                                     isa::LimitsFor(simulator::Trainium2Spec()))
                       .value();
  EXPECT_EQ(p.instructions[0].opcode, isa::Opcode::kCollective);
  EXPECT_EQ(p.instructions[0].count, uint8_t(isa::CollectiveKind::kPermute));
  EXPECT_EQ(p.instructions[0].imm_i32(2), -1);
}

}  // namespace
}  // namespace trnsim::kb
