// The device prints of an Execute reply (driver/remote/convert_debug.h): every field round-trips
// through the wire, and a reply the client cannot trust is NRT_INVALID naming the print.
#include "driver/remote/convert_debug.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/remote/convert.h"

namespace trnsim::driver::remote {
namespace {

DebugPrint Print(uint32_t prefix, isa::Dtype dtype, std::vector<uint64_t> shape,
                 uint32_t core_index) {
  DebugPrint p;
  p.prefix_id = prefix;
  p.dtype = dtype;
  p.shape = std::move(shape);
  uint64_t bytes = static_cast<uint64_t>(isa::DtypeSize(dtype));
  for (uint64_t d : p.shape) bytes *= d;
  for (uint64_t i = 0; i < bytes; ++i) p.data.push_back(static_cast<uint8_t>(i * 37 + prefix));
  p.engine = isa::Engine::kPool;
  p.pc = 17 + prefix;
  p.core = core_index;
  p.time_ps = 123456789 + prefix;
  return p;
}

v1::ExecutionResult ThroughWire(const v1::ExecutionResult& m) {
  v1::ExecutionResult out;
  EXPECT_TRUE(out.ParseFromString(m.SerializeAsString()));
  return out;
}

void ExpectInvalid(const v1::ExecutionResult& m, const std::string& what) {
  StatusOr<std::vector<DebugPrint>> r = DebugPrintsFromProto(m, 2);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
}

TEST(DebugConvertTest, PrintsRoundTripThroughTheExecutionResult) {
  ExecutionResult in;
  in.cores.resize(2);
  in.debug_prints = {Print(0, isa::Dtype::kBfloat16, {128, 4}, 0),
                     Print(3, isa::Dtype::kUint64, {2, 3, 1, 2, 1}, 1),
                     Print(65535, isa::Dtype::kFloat8E4, {1, 1}, 1)};
  in.debug_prints_dropped = 42;
  v1::ExecutionResult message;
  ToProto(in, &message);
  StatusOr<ExecutionResult> out = ExecutionResultFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->debug_prints, in.debug_prints);
  EXPECT_EQ(out->debug_prints_dropped, 42u);
}

TEST(DebugConvertTest, UntrustedRepliesAreInvalid) {
  ExecutionResult in;
  in.cores.resize(2);
  in.debug_prints = {Print(1, isa::Dtype::kFloat32, {2, 3}, 1)};
  v1::ExecutionResult good;
  ToProto(in, &good);
  ASSERT_TRUE(DebugPrintsFromProto(good, 2).ok());

  v1::ExecutionResult m = good;
  m.mutable_debug_prints(0)->set_dtype(v1::DTYPE_UNSPECIFIED);
  ExpectInvalid(m, "debug_prints[0]");
  m = good;
  m.mutable_debug_prints(0)->set_dtype(static_cast<v1::Dtype>(99));
  ExpectInvalid(m, "debug_prints[0]");
  m = good;
  m.mutable_debug_prints(0)->clear_shape();
  m.mutable_debug_prints(0)->add_shape(24);
  ExpectInvalid(m, "a shape of 1 dimensions");
  m = good;
  for (int i = 0; i < 5; ++i) m.mutable_debug_prints(0)->add_shape(1);
  ExpectInvalid(m, "a shape of 7 dimensions");
  m = good;
  m.mutable_debug_prints(0)->set_shape(0, 0);
  ExpectInvalid(m, "does not match");
  m = good;
  m.mutable_debug_prints(0)->set_shape(1, 4);
  ExpectInvalid(m, "does not match");  // 32 bytes of shape, 24 sent
  m = good;
  m.mutable_debug_prints(0)->set_shape(0, uint64_t{1} << 62);
  m.mutable_debug_prints(0)->set_shape(1, uint64_t{1} << 62);
  ExpectInvalid(m, "does not match");  // the product would wrap
  m = good;
  m.mutable_debug_prints(0)->set_shape(1, 2);
  ExpectInvalid(m, "shape makes 16 bytes but 24 came");
  m = good;
  m.mutable_debug_prints(0)->set_engine(5);
  ExpectInvalid(m, "engine 5 is not an engine");
  m = good;
  m.mutable_debug_prints(0)->set_core(2);
  ExpectInvalid(m, "core 2 is not one of the 2 cores");
  // The per-execution bound: 64 MiB of data in all.
  m = good;
  v1::DebugPrint big;
  big.set_dtype(v1::DTYPE_UINT8);
  big.add_shape(1024);
  big.add_shape(32 * 1024);
  big.set_data(std::string(32 << 20, 'b'));
  *m.add_debug_prints() = big;
  EXPECT_TRUE(DebugPrintsFromProto(m, 2).ok());
  *m.add_debug_prints() = big;
  ExpectInvalid(m, "more than 67108864 bytes");
}

}  // namespace
}  // namespace trnsim::driver::remote
