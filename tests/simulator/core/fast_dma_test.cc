// The dma_copy fast path against the reference interpreter: seeded random same-dtype copies
// between SBUF, PSUM and HBM with random shapes, strides (negative, zero, gapped) and
// overlapping operands; every byte of SBUF, PSUM and HBM must agree. Declines touch nothing.
#include "simulator/core/fast_dma.h"

#include <gtest/gtest.h>

#include <random>

#include "simulator/isa/limits.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::simulator::core {
namespace {

struct Machine {
  Machine() : state(isa::LimitsFor(Trainium2Spec())) {}
  reference::CoreState state;
  reference::VectorHbm hbm;
};

void Fill(Machine& m, uint32_t seed) {
  std::mt19937 rng(seed);
  for (auto& b : m.state.sbuf) b = uint8_t(rng());
  for (auto& b : m.state.psum) b = uint8_t(rng());
  m.hbm.vars[5] = std::vector<uint8_t>(1 << 20);
  for (auto& b : m.hbm.vars[5]) b = uint8_t(rng());
}

// A random in-bounds AP of `elements` = rows x free elements.
isa::AccessPattern RandomAp(std::mt19937& rng, isa::Memory mem, isa::Dtype dtype, int rows,
                            const std::vector<uint16_t>& dims) {
  isa::AccessPattern ap;
  ap.memory = mem;
  ap.dtype = dtype;
  ap.num_dims = uint8_t(dims.size());
  ap.num_partitions = uint16_t(rows);
  const int es = isa::DtypeSize(dtype);
  int64_t span = 1;
  for (int d = int(dims.size()) - 1; d >= 0; --d) {
    ap.sizes[d] = dims[d];
    const int kind = int(rng() % 4);
    int32_t stride = kind == 0   ? int32_t(span)
                     : kind == 1 ? int32_t(span * 2)
                     : kind == 2 ? 0
                                 : -int32_t(span);
    ap.strides[d] = stride;
    span *= dims[d] * 2;
  }
  // Offset: leave room for negative strides.
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < ap.num_dims; ++d) {
    const int64_t s = int64_t(ap.sizes[d] - 1) * ap.strides[d] * es;
    (s < 0 ? lo : hi) += s;
  }
  if (mem == isa::Memory::kHbm) {
    ap.var_id = 5;
    ap.partition_stride = int32_t(hi - lo) / es + 1 + int32_t(rng() % 8);
    ap.offset = -lo + int64_t(rng() % 64) * es;
  } else {
    ap.start_partition = uint16_t(rng() % uint32_t(128 - rows + 1));
    ap.offset = -lo + int64_t(rng() % 64) * es;
  }
  return ap;
}

TEST(FastDmaTest, RandomCopiesMatchTheReference) {
  std::mt19937 rng(42);
  const isa::Memory mems[] = {isa::Memory::kSbuf, isa::Memory::kPsum, isa::Memory::kHbm};
  const isa::Dtype dts[] = {isa::Dtype::kFloat32, isa::Dtype::kBfloat16, isa::Dtype::kUint8};
  int taken = 0;
  Machine seeded;
  Fill(seeded, 7);
  for (int iter = 0; iter < 200; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    const isa::Dtype dt = dts[rng() % 3];
    const int rows = 1 + int(rng() % 16);
    std::vector<uint16_t> dims;
    const int nd = 1 + int(rng() % 3);
    for (int d = 0; d < nd; ++d) dims.push_back(uint16_t(1 + rng() % 12));
    isa::Instruction inst;
    inst.opcode = isa::Opcode::kDmaCopy;
    inst.ap[0] = RandomAp(rng, mems[rng() % 3], dt, rows, dims);
    inst.ap[1] = RandomAp(rng, mems[rng() % 3], dt, rows, dims);
    Machine a = seeded, b = seeded;
    StatusOr<bool> fast = TryFastDmaCopy(inst, a.state, a.hbm);
    ASSERT_TRUE(fast.ok());
    size_t next = 0;
    bool ended = false;
    Status ref =
        reference::ExecuteInstruction(isa::Engine::kSp, inst, 0, b.state, b.hbm, next, ended);
    if (!*fast) {
      EXPECT_TRUE(a.state.sbuf == b.state.sbuf || !ref.ok());
      continue;
    }
    ++taken;
    ASSERT_TRUE(ref.ok()) << ref.message();
    EXPECT_TRUE(a.state.sbuf == b.state.sbuf);
    EXPECT_TRUE(a.state.psum == b.state.psum);
    EXPECT_TRUE(a.hbm.vars[5] == b.hbm.vars[5]);
  }
  EXPECT_GT(taken, 160);
}

TEST(FastDmaTest, DeclinesWithoutTouchingState) {
  Machine m, fresh;
  Fill(m, 1);
  Fill(fresh, 1);
  isa::Instruction inst;
  inst.opcode = isa::Opcode::kDmaCopy;
  inst.ap[0] = isa::SbufAp(0, 4, 0, isa::Dtype::kFloat32, {{16, 1}});
  inst.ap[1] = isa::SbufAp(0, 4, 4096, isa::Dtype::kBfloat16, {{16, 1}});
  EXPECT_FALSE(TryFastDmaCopy(inst, m.state, m.hbm).value()) << "a cast";
  inst.ap[1].dtype = isa::Dtype::kFloat32;
  inst.ap[1].offset_reg = 3;
  inst.ap[1].reg_stride_bytes = 4;
  EXPECT_FALSE(TryFastDmaCopy(inst, m.state, m.hbm).value()) << "a register offset";
  inst.ap[1].offset_reg = isa::kNoRegister;
  inst.ap[1].offset = int64_t(m.state.limits.sbuf_bytes_per_partition) - 8;
  EXPECT_FALSE(TryFastDmaCopy(inst, m.state, m.hbm).value()) << "out of bounds";
  inst.ap[1] = isa::HbmAp(99, 0, isa::Dtype::kFloat32, 4, 16, {{16, 1}});
  EXPECT_FALSE(TryFastDmaCopy(inst, m.state, m.hbm).value()) << "unknown var";
  inst.ap[1] = isa::SbufAp(0, 4, 4096, isa::Dtype::kFloat32, {{8, 1}});
  EXPECT_FALSE(TryFastDmaCopy(inst, m.state, m.hbm).value()) << "counts differ";
  EXPECT_TRUE(m.state.sbuf == fresh.state.sbuf);
  EXPECT_TRUE(m.hbm.vars[5] == fresh.hbm.vars[5]);
}

}  // namespace
}  // namespace trnsim::simulator::core
