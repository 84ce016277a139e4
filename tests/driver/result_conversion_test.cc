// ToDriverResult (driver/sim/result_conversion.h): every figure of the chip model's
// ExecutionResult reaches the driver's unchanged, each core gets the device's start time, and the
// debug prints' bytes move rather than copy.
#include "driver/sim/result_conversion.h"

#include <gtest/gtest.h>

#include <utility>

namespace trnsim::driver::sim {
namespace {

simulator::core::ExecutionResult ChipModelResult() {
  simulator::core::ExecutionResult in;
  in.duration_ps = 987654321;
  in.events = 4242;
  for (int c = 0; c < 2; ++c) {
    simulator::core::CoreStats cs;
    cs.core = 3 + c;
    cs.duration_ps = 1000 + c;
    for (int e = 0; e < isa::kEngineCount; ++e)
      cs.engines[e] = {uint64_t(10 * e + c + 1), uint64_t(20 * e + c + 2), uint64_t(e + 3),
                       uint64_t(1) << (30 + e)};
    cs.queues = {{1, 2, 3}, {4, uint64_t{1} << 40, 6}};
    cs.hbm_read_bytes = 777 + c;
    cs.hbm_write_bytes = 888 + c;
    cs.instructions = 999 + c;
    in.cores.push_back(cs);
  }
  reference::DebugPrint p;
  p.prefix_id = 7;
  p.dtype = isa::Dtype::kBfloat16;
  p.shape = {2, 3};
  p.data = std::vector<uint8_t>(12, 0xab);
  p.engine = isa::Engine::kDve;
  p.pc = 11;
  p.core = 1;
  p.time_ps = 123456;
  in.debug_prints.push_back(p);
  in.debug_prints_dropped = 5;
  return in;
}

TEST(ResultConversionTest, CarriesEveryFigureAndTheDeviceStart) {
  const simulator::core::ExecutionResult in = ChipModelResult();
  const ExecutionResult out = ToDriverResult(simulator::core::ExecutionResult(in), 5000);
  EXPECT_EQ(out.duration_ps, in.duration_ps);
  EXPECT_EQ(out.events, in.events);
  ASSERT_EQ(out.cores.size(), in.cores.size());
  for (size_t c = 0; c < in.cores.size(); ++c) {
    const CoreStats& a = out.cores[c];
    const simulator::core::CoreStats& b = in.cores[c];
    EXPECT_EQ(a.core, b.core);
    EXPECT_EQ(a.duration_ps, b.duration_ps);
    for (int e = 0; e < isa::kEngineCount; ++e) {
      EXPECT_EQ(a.engines[e].busy_ps, b.engines[e].busy_ps);
      EXPECT_EQ(a.engines[e].wait_ps, b.engines[e].wait_ps);
      EXPECT_EQ(a.engines[e].instructions, b.engines[e].instructions);
      EXPECT_EQ(a.engines[e].flops, b.engines[e].flops);
    }
    ASSERT_EQ(a.queues.size(), b.queues.size());
    for (size_t q = 0; q < a.queues.size(); ++q) {
      EXPECT_EQ(a.queues[q].transfers, b.queues[q].transfers);
      EXPECT_EQ(a.queues[q].bytes, b.queues[q].bytes);
      EXPECT_EQ(a.queues[q].busy_ps, b.queues[q].busy_ps);
    }
    EXPECT_EQ(a.hbm_read_bytes, b.hbm_read_bytes);
    EXPECT_EQ(a.hbm_write_bytes, b.hbm_write_bytes);
    EXPECT_EQ(a.instructions, b.instructions);
    EXPECT_EQ(a.device_start_ps, 5000u);  // the cores of one execution start together
  }
  ASSERT_EQ(out.debug_prints.size(), 1u);
  const DebugPrint& p = out.debug_prints[0];
  const reference::DebugPrint& q = in.debug_prints[0];
  EXPECT_EQ(p.prefix_id, q.prefix_id);
  EXPECT_EQ(p.dtype, q.dtype);
  EXPECT_EQ(p.shape, q.shape);
  EXPECT_EQ(p.data, q.data);
  EXPECT_EQ(p.engine, q.engine);
  EXPECT_EQ(p.pc, q.pc);
  EXPECT_EQ(p.core, q.core);
  EXPECT_EQ(p.time_ps, q.time_ps);
  EXPECT_EQ(out.debug_prints_dropped, in.debug_prints_dropped);
}

TEST(ResultConversionTest, MovesThePrintedBytes) {
  simulator::core::ExecutionResult in = ChipModelResult();
  const uint8_t* bytes = in.debug_prints[0].data.data();
  const ExecutionResult out = ToDriverResult(std::move(in), 0);
  ASSERT_EQ(out.debug_prints.size(), 1u);
  EXPECT_EQ(out.debug_prints[0].data.data(), bytes);
}

}  // namespace
}  // namespace trnsim::driver::sim
