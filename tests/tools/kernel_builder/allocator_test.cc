#include "tools/kernel_builder/allocator.h"

#include <gtest/gtest.h>

namespace trnsim::kb {
namespace {

constexpr isa::Dtype kF32 = isa::Dtype::kFloat32;

TEST(AllocatorTest, FirstFitWithAlignment) {
  OnChipAllocator a(isa::Memory::kSbuf, 128, 4096, 0);
  Tile t0 = a.Allocate("t0", isa::Dtype::kBfloat16, 128, 3).value();  // 6 bytes
  EXPECT_EQ(t0.offset, 0);
  Tile t1 = a.Allocate("t1", kF32, 64, 4).value();  // default align 32
  EXPECT_EQ(t1.offset, 32);
  EXPECT_EQ(t1.partitions, 64);
  Tile t2 = a.Allocate("t2", kF32, 128, 4, 256).value();
  EXPECT_EQ(t2.offset, 256);
  EXPECT_EQ(a.bytes_in_use(), 6 + 16 + 16);
  ASSERT_TRUE(a.Free(t1).ok());
  Tile t3 = a.Allocate("t3", kF32, 128, 2).value();  // reuses the gap
  EXPECT_EQ(t3.offset, 32);
}

TEST(AllocatorTest, TooBigIsResourceErrorNotAbort) {
  OnChipAllocator a(isa::Memory::kSbuf, 128, 4096, 0);
  ASSERT_TRUE(a.Allocate("big", kF32, 128, 1000).ok());
  StatusOr<Tile> t = a.Allocate("more", kF32, 128, 100);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResource);
  EXPECT_NE(t.status().message().find("SBUF tile 'more'"), std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("does not fit"), std::string::npos);
  StatusOr<Tile> huge = a.Allocate("huge", kF32, 128, 2000);
  EXPECT_EQ(huge.status().code(), StatusCode::kResource);
  EXPECT_NE(huge.status().message().find("> the 4096-byte SBUF partition"), std::string::npos);
}

TEST(AllocatorTest, BadRequestsAreInvalid) {
  OnChipAllocator a(isa::Memory::kSbuf, 128, 4096, 0);
  EXPECT_EQ(a.Allocate("x", kF32, 129, 4).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Allocate("x", kF32, 0, 4).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Allocate("x", kF32, 128, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Allocate("x", kF32, 128, 4, 24).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(a.Allocate("x", isa::Dtype::kUnknown, 128, 4).status().code(), StatusCode::kInvalid);
  EXPECT_FALSE(a.Free(Tile{isa::Memory::kSbuf, 0, 128, 64, kF32, 4}).ok());
}

TEST(AllocatorTest, PsumTilesStayInsideBanks) {
  OnChipAllocator p(isa::Memory::kPsum, 128, 16384, 2048);
  EXPECT_EQ(p.Allocate("a", kF32, 128, 384).value().offset, 0);      // 1536 bytes
  EXPECT_EQ(p.Allocate("b", kF32, 128, 256).value().offset, 2048);   // would straddle bank 0/1
  EXPECT_EQ(p.Allocate("c", kF32, 128, 1024).value().offset, 4096);  // 2 banks: starts on a bank
  EXPECT_EQ(p.Allocate("d", kF32, 128, 2, 2).status().code(), StatusCode::kInvalid);  // align < 4
}

TEST(TileTest, ViewsAndAccessPatterns) {
  Tile t{isa::Memory::kSbuf, 0, 128, 1024, isa::Dtype::kBfloat16, 512};
  isa::AccessPattern ap = t.Cols(128, 64).ap();
  EXPECT_EQ(ap.offset, 1024 + 256);
  EXPECT_EQ(ap.sizes[0], 64);
  EXPECT_EQ(t.As(kF32).cols, 256);
  EXPECT_EQ(t.Rows(64, 32).ap().start_partition, 64);
  Tile wide{isa::Memory::kSbuf, 0, 1, 0, isa::Dtype::kUint8, 100000};
  EXPECT_EQ(wide.ap().num_dims, 2);
  EXPECT_EQ(wide.ap().FreeElements(), 100000u);
}

TEST(TileTest, HbmBlocks) {
  HbmTensor x{"x", 3, isa::Dtype::kBfloat16, {256, 64}, 256 * 64 * 2};
  isa::AccessPattern b = x.Block(128, 128, 16, 32);
  EXPECT_EQ(b.var_id, 3u);
  EXPECT_EQ(b.offset, (128 * 64 + 16) * 2);
  EXPECT_EQ(b.partition_stride, 64);
  isa::AccessPattern t = x.BlockTransposed(0, 128, 0, 64);  // x^T tile: 64 rows of 128
  EXPECT_EQ(t.num_partitions, 64);
  EXPECT_EQ(t.partition_stride, 1);
  EXPECT_EQ(t.sizes[0], 128);
  EXPECT_EQ(t.strides[0], 64);
}

}  // namespace
}  // namespace trnsim::kb
