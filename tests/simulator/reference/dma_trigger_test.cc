// Tests of dma_trigger in the reference interpreter: descriptors land at issue, in id order,
// each with its completion; unknown ids and a missing table are execution errors.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "interp_test_util.h"
#include "simulator/dma/descriptor.h"

namespace trnsim::reference {
namespace {

using simulator::dma::Descriptor;
using simulator::dma::DescriptorTable;
using simulator::dma::Endpoint;
using simulator::dma::kSbufVarId;
using simulator::dma::Op;
using testing::Harness;

Endpoint Contig(uint32_t var, uint64_t offset, uint64_t n, isa::Dtype dtype) {
  Endpoint e;
  e.var_id = var;
  e.offset = offset;
  e.steps = {isa::DtypeSize(dtype)};
  e.sizes = {n * uint64_t(isa::DtypeSize(dtype))};
  e.dtype = dtype;
  return e;
}

Descriptor Desc(int64_t id, Endpoint src, Endpoint dst) {
  Descriptor d;
  d.id = id;
  d.op = Op::kCopy;
  d.sources = {std::move(src)};
  d.dest = std::move(dst);
  return d;
}

// SP's table: 0 loads 4 fp32 from var 1 into SBUF partition 2 (S[0] += 2, E[3] = 1); 1 stores
// them back to var 2 as bf16 (S[1] += 1) — it reads what 0 wrote, so order matters.
DescriptorTable LoadStoreTable(uint64_t sbuf_bytes_per_partition) {
  DescriptorTable t;
  Descriptor load =
      Desc(0, Contig(1, 0, 4, isa::Dtype::kFloat32),
           Contig(kSbufVarId, 2 * sbuf_bytes_per_partition + 32, 4, isa::Dtype::kFloat32));
  load.semaphore = 0;
  load.semaphore_increment = 2;
  load.event = 3;
  Descriptor store =
      Desc(1, Contig(kSbufVarId, 2 * sbuf_bytes_per_partition + 32, 4, isa::Dtype::kFloat32),
           Contig(2, 0, 4, isa::Dtype::kBfloat16));
  store.semaphore = 1;
  t.per_engine[int(isa::Engine::kSp)] = {load, store};
  return t;
}

std::vector<uint8_t> F32Bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(interp_DmaTrigger, RunsDescriptorsInIdOrderWithCompletions) {
  Harness h;
  DescriptorTable table = LoadStoreTable(h.state.limits.sbuf_bytes_per_partition);
  h.hbm.vars[1] = F32Bytes({1.0f, -2.0f, 0.5f, 3.0f});
  h.hbm.vars[2] = std::vector<uint8_t>(8);
  RunOptions opt;
  opt.descriptors = &table;
  // POOL can only proceed once both descriptors and the instruction's own update are done.
  auto r = h.Run({".engine sp\ndma_trigger desc=0 count=2 then S[5] += 1 @complete\n"
                  "notify_end code=0\n",
                  ".engine pool\nwait S[5] >= 1 wait S[0] >= 2 wait S[1] >= 1 nop\n"
                  "notify_end code=0\n"},
                 opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(h.state.sem[0], 2u);  // semaphore_increment, not 1
  EXPECT_EQ(h.state.sem[1], 1u);
  EXPECT_EQ(h.state.sem[5], 1u);
  EXPECT_EQ(h.state.event[3], 1);
  EXPECT_EQ(h.Get<float>(2, 32, 4), (std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f}));
  std::vector<uint16_t> bf16(4);
  std::memcpy(bf16.data(), h.hbm.vars[2].data(), 8);
  EXPECT_EQ(bf16, (std::vector<uint16_t>{0x3f80, 0xc000, 0x3f00, 0x4040}));
}

TEST(interp_DmaTrigger, CompletionIsVisibleToTheNextInstruction) {
  // The second trigger runs only after the first one's event; each descriptor adds 2 to S[0].
  Harness h;
  DescriptorTable table = LoadStoreTable(h.state.limits.sbuf_bytes_per_partition);
  h.hbm.vars[1] = F32Bytes({1, 2, 3, 4});
  h.hbm.vars[2] = std::vector<uint8_t>(8);
  RunOptions opt;
  opt.descriptors = &table;
  auto r = h.Run({".engine sp\ndma_trigger desc=0 count=1\n"
                  "wait E[3] == 1 wait S[0] == 2 dma_trigger desc=0 count=1\n"
                  "notify_end code=0\n"},
                 opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(h.state.sem[0], 4u);
  EXPECT_EQ(h.state.sem[1], 0u);  // descriptor 1 never ran
}

TEST(interp_DmaTrigger, UnknownIdIsAnExecutionError) {
  Harness h;
  DescriptorTable table = LoadStoreTable(h.state.limits.sbuf_bytes_per_partition);
  h.hbm.vars[1] = F32Bytes({1, 2, 3, 4});
  h.hbm.vars[2] = std::vector<uint8_t>(8);
  RunOptions opt;
  opt.descriptors = &table;
  auto r = h.Run({".engine sp\ndma_trigger desc=1 count=2\nnotify_end code=0\n"}, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(r.status().message(),
            "sp instruction 0 (dma_trigger): execution error: dma_trigger descriptor 2 is not "
            "in SP.json");

  // The table is per engine: SP's descriptor 0 is not PE's.
  auto pe = h.Run({".engine pe\ndma_trigger desc=0 count=1\nnotify_end code=0\n"}, opt);
  ASSERT_FALSE(pe.ok());
  EXPECT_NE(pe.status().message().find("dma_trigger descriptor 0 is not in PE.json"),
            std::string::npos)
      << pe.status().message();
}

TEST(interp_DmaTrigger, NoTableIsAnExecutionError) {
  Harness h;
  Status st = h.RunOn("act", "dma_trigger desc=0 count=1");
  EXPECT_EQ(st.code(), StatusCode::kInvalid);
  EXPECT_NE(st.message().find("dma_trigger descriptor 0 is not in Activation.json"),
            std::string::npos)
      << st.message();
}

TEST(interp_DmaTrigger, DescriptorErrorsNameTheInstruction) {
  Harness h;
  DescriptorTable table = LoadStoreTable(h.state.limits.sbuf_bytes_per_partition);
  h.hbm.vars[1] = F32Bytes({1, 2});  // 8 bytes; descriptor 0 reads 16
  RunOptions opt;
  opt.descriptors = &table;
  auto r = h.Run({".engine sp\nnop\ndma_trigger desc=0 count=1\nnotify_end code=0\n"}, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("sp instruction 1 (dma_trigger): execution error: "
                                      "descriptor 0 source 0 touches bytes [0, 16)"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(h.state.sem[0], 0u);  // no completion for a failed descriptor
}

}  // namespace
}  // namespace trnsim::reference
