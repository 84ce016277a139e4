// The process-wide Runtime: lifecycle, tensors on every placement, memory accounting, HBM
// exhaustion, stale handles, Close, tensor sets and batch transfers.
//
// Runtime::Init reads the process environment, so the fixture sets variables with setenv and
// clears every variable of the table before and after each test; TearDown always Close()s.
#include "runtime/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/env.h"

namespace trnsim::runtime {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kNoFramework = 1;  // NRT_FRAMEWORK_TYPE_NO_FW
constexpr uint64_t kGiB = 1ull << 30;

void ClearTrnsimEnvironment() {
  for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
}

std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 11);
  return bytes;
}

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClearTrnsimEnvironment();
    SetEnv("TRNSIM_INSTANCE", "trn2.3xlarge");  // 1 chip: quick to build, easy to exhaust
  }
  void TearDown() override {
    rt().Close();
    ClearTrnsimEnvironment();
  }

  static void SetEnv(const char* name, const char* value) { setenv(name, value, 1); }
  static Runtime& rt() { return Runtime::Get(); }
  static Status Init() { return rt().Init(kNoFramework, "test", "test"); }

  static Tensor* MustAllocate(Placement placement, int vnc, uint64_t size,
                              const std::string& name = "t") {
    StatusOr<Tensor*> tensor = rt().tensors().Allocate(placement, vnc, size, name);
    EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
    return tensor.ok() ? *tensor : nullptr;
  }
  static uint64_t BytesUsed(int vnc) {
    StatusOr<VncMemoryStats> stats = rt().tensors().MemoryStats(vnc);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    return stats.ok() ? stats->bytes_used : UINT64_MAX;
  }
  static std::vector<uint8_t> ReadAll(const Tensor* tensor, uint64_t size) {
    std::vector<uint8_t> out(size, 0xEE);
    Status status = rt().tensors().Read(tensor, out.data(), 0, size);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }
};

// --- Lifecycle ---------------------------------------------------------------------------------

// Runs in a re-executed child (threadsafe style), so the runtime really has never been
// initialised there, whatever ran earlier in this process.
TEST_F(RuntimeTest, CallsBeforeInitAreUninitialized) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        int wrong = 0;
        auto expect = [&wrong](StatusCode got, const char* what) {
          if (got != StatusCode::kUninitialized) {
            std::fprintf(stderr, "%s: %s\n", what, StatusCodeName(got));
            ++wrong;
          }
        };
        expect(rt().CheckInitialized().code(), "CheckInitialized");
        expect(rt().tensors().Allocate(Placement::kHost, 0, 8, "t").status().code(), "Allocate");
        expect(rt().tensors().AllocateEmpty("t").status().code(), "AllocateEmpty");
        expect(rt().tensors().AllocateSet().status().code(), "AllocateTensorSet");
        expect(rt().tensors().MemoryStats(0).status().code(), "GetVncMemoryStats");
        uint8_t byte = 0;
        expect(rt().tensors().Read(reinterpret_cast<Tensor*>(&byte), &byte, 0, 1).code(), "Read");
        // Instance queries work before Init, from the environment.
        if (!rt().instance().TotalVncCount().ok() || *rt().instance().TotalVncCount() != 4) ++wrong;
        std::_Exit(wrong);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(RuntimeTest, InitThenCloseThenCallsAreClosed) {
  ASSERT_TRUE(Init().ok());
  EXPECT_TRUE(rt().CheckInitialized().ok());
  Tensor* tensor = MustAllocate(Placement::kHost, 0, 8);
  rt().Close();
  EXPECT_EQ(rt().CheckInitialized().code(), StatusCode::kClosed);
  EXPECT_EQ(rt().tensors().Allocate(Placement::kHost, 0, 8, "t").status().code(),
            StatusCode::kClosed);
  EXPECT_EQ(rt().tensors().Free(tensor).code(), StatusCode::kClosed);
  EXPECT_EQ(rt().tensors().AllocateSet().status().code(), StatusCode::kClosed);
  EXPECT_EQ(rt().tensors().MemoryStats(0).status().code(), StatusCode::kClosed);
  rt().Close();  // closing twice is harmless
  EXPECT_EQ(rt().CheckInitialized().code(), StatusCode::kClosed);
}

TEST_F(RuntimeTest, ReinitAfterCloseWorks) {
  ASSERT_TRUE(Init().ok());
  rt().Close();
  ASSERT_TRUE(Init().ok());
  EXPECT_TRUE(rt().CheckInitialized().ok());
  Tensor* tensor = MustAllocate(Placement::kDevice, 0, 64);
  ASSERT_NE(tensor, nullptr);
  EXPECT_TRUE(rt().tensors().Free(tensor).ok());
}

TEST_F(RuntimeTest, DoubleInitIsOkAndKeepsTheFirstConfiguration) {
  ASSERT_TRUE(Init().ok());
  SetEnv("TRNSIM_INSTANCE", "trn2.48xlarge");
  EXPECT_TRUE(Init().ok());
  EXPECT_EQ(rt().config().instance->type_name, "trn2.3xlarge");
  EXPECT_EQ(*rt().instance().TotalVncCount(), 4u);  // the frozen configuration, not the environment
}

TEST_F(RuntimeTest, BadFrameworkTypeIsInvalid) {
  for (uint32_t framework : {0u, 6u, 100u}) {
    EXPECT_EQ(rt().Init(framework, "", "").code(), StatusCode::kInvalid) << framework;
    EXPECT_FALSE(rt().CheckInitialized().ok());
  }
  for (uint32_t framework = 1; framework <= 5; ++framework) {
    EXPECT_TRUE(rt().Init(framework, "", "").ok()) << framework;
    rt().Close();
  }
}

TEST_F(RuntimeTest, BadEnvironmentFailsInitAndLeavesItUninitialised) {
  SetEnv("TRNSIM_INSTANCE", "trn1.32xlarge");
  EXPECT_EQ(Init().code(), StatusCode::kInvalid);
  EXPECT_FALSE(rt().CheckInitialized().ok());
  SetEnv("TRNSIM_INSTANCE", "trn2.3xlarge");
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "3");
  EXPECT_EQ(Init().code(), StatusCode::kInvalid);
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "2");
  SetEnv("NEURON_RT_VISIBLE_CORES", "4");
  EXPECT_EQ(Init().code(), StatusCode::kFailure);
  EXPECT_FALSE(rt().CheckInitialized().ok());
}

TEST_F(RuntimeTest, UnreachableDaemonFailsInitNamingTheAddress) {
  // A Unix socket path nobody listens on: the remote back end's Hello cannot connect.
  const std::string address =
      "unix:" + (std::filesystem::temp_directory_path() /
                 ("trnsim-no-daemon-" + std::to_string(getpid()) + ".sock")).string();
  SetEnv("TRNSIM_DAEMON", address.c_str());
  Status status = Init();
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_THAT(status.message(), HasSubstr("TRNSIM_DAEMON=" + address));
  EXPECT_FALSE(rt().CheckInitialized().ok());
}

TEST_F(RuntimeTest, InitAppliesConfiguration) {
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "1");
  SetEnv("NEURON_RT_VISIBLE_CORES", "2-5");
  ASSERT_TRUE(Init().ok());
  EXPECT_EQ(rt().config().lnc, 1);
  EXPECT_EQ(*rt().instance().TotalVncCount(), 8u);
  EXPECT_EQ(*rt().instance().VisibleVncCount(), 4u);
  EXPECT_EQ(*rt().instance().LogicalCoreSize(), 1u);
  EXPECT_TRUE(MustAllocate(Placement::kDevice, 3, 64) != nullptr);
  EXPECT_EQ(rt().tensors().Allocate(Placement::kDevice, 4, 64, "t").status().code(),
            StatusCode::kInvalid);
  // vnc 0 is instance core 2 = physical core 2, on HBM 1.
  Tensor* tensor = MustAllocate(Placement::kDevice, 0, 64);
  EXPECT_EQ(rt().tensors().DeviceAllocation(tensor)->hbm_index, 1);
}

TEST_F(RuntimeTest, InstanceInfo) {
  ASSERT_TRUE(Init().ok());
  StatusOr<InstanceInfo> info = rt().instance().Info();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->family, 5u);
  EXPECT_EQ(info->size, 8u);
  EXPECT_EQ(info->arch_name, "NCv3");
}

// --- Tensors -----------------------------------------------------------------------------------

TEST_F(RuntimeTest, TensorsOnEveryPlacement) {
  ASSERT_TRUE(Init().ok());
  struct Case {
    Placement placement;
    int vnc;
  };
  for (Case c : {Case{Placement::kDevice, 0}, Case{Placement::kDevice, 3},
                 Case{Placement::kHost, 0}, Case{Placement::kVirtual, 0}}) {
    SCOPED_TRACE(testing::Message()
                 << "placement " << static_cast<int>(c.placement) << " vnc " << c.vnc);
    Tensor* tensor = MustAllocate(c.placement, c.vnc, 1000, "io");
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(*rt().tensors().Size(tensor), 1000u);
    EXPECT_EQ(tensor->placement(), c.placement);
    EXPECT_EQ(ReadAll(tensor, 1000), std::vector<uint8_t>(1000, 0));
    std::vector<uint8_t> data = Pattern(1000, static_cast<uint8_t>(c.vnc));
    ASSERT_TRUE(rt().tensors().Write(tensor, data.data(), 0, 1000).ok());
    EXPECT_EQ(ReadAll(tensor, 1000), data);
    ASSERT_TRUE(rt().tensors().Memset(tensor, 10, 0xAB, 5).ok());
    data[10] = data[11] = data[12] = data[13] = data[14] = 0xAB;
    EXPECT_EQ(ReadAll(tensor, 1000), data);
    StatusOr<void*> host = rt().tensors().HostAddress(tensor);
    ASSERT_TRUE(host.ok());
    EXPECT_NE(*host, nullptr);
    EXPECT_EQ(rt().tensors().DeviceAllocation(tensor).ok(), c.placement == Placement::kDevice);
    uint8_t byte = 0;
    EXPECT_EQ(rt().tensors().Read(tensor, &byte, 1000, 1).code(), StatusCode::kInvalid);
    EXPECT_EQ(rt().tensors().Write(tensor, &byte, 999, 2).code(), StatusCode::kInvalid);
    EXPECT_TRUE(rt().tensors().Free(tensor).ok());
  }
}

TEST_F(RuntimeTest, BadTensorRequests) {
  ASSERT_TRUE(Init().ok());
  EXPECT_EQ(rt().tensors().Allocate(Placement::kDevice, -1, 64, "t").status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().Allocate(Placement::kDevice, 4, 64, "t").status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().Allocate(Placement::kDevice, 0, 0, "t").status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().Allocate(static_cast<Placement>(3), 0, 64, "t").status().code(),
            StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().Read(nullptr, nullptr, 0, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().Free(nullptr).code(), StatusCode::kInvalid);
  Tensor* host = MustAllocate(Placement::kHost, 0, 0);  // an empty host tensor is allowed
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(*rt().tensors().Size(host), 0u);
}

TEST_F(RuntimeTest, MemoryStatsRiseAndFallWithAllocations) {
  ASSERT_TRUE(Init().ok());
  for (int vnc = 0; vnc < 4; ++vnc) {
    StatusOr<VncMemoryStats> stats = rt().tensors().MemoryStats(vnc);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->bytes_used, 0u);
    EXPECT_EQ(stats->bytes_limit, 24 * kGiB);
  }
  EXPECT_EQ(rt().tensors().MemoryStats(4).status().code(), StatusCode::kInvalid);

  Tensor* a = MustAllocate(Placement::kDevice, 1, 1000);
  EXPECT_EQ(BytesUsed(1), 1024u);
  Tensor* b = MustAllocate(Placement::kDevice, 1, 64);
  EXPECT_EQ(BytesUsed(1), 1088u);
  Tensor* c = MustAllocate(Placement::kDevice, 2, 1 << 20);
  EXPECT_EQ(BytesUsed(2), 1u << 20);
  Tensor* host = MustAllocate(Placement::kHost, 0, 1 << 20);         // host memory is not counted
  StatusOr<Tensor*> slice = rt().tensors().AllocateSlice(a, 0, 500, "slice");  // nor are slices
  ASSERT_TRUE(slice.ok());
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_EQ(BytesUsed(1), 1088u);

  ASSERT_TRUE(rt().tensors().Free(a).ok());
  EXPECT_EQ(BytesUsed(1), 1088u);  // the slice still holds a's memory
  ASSERT_TRUE(rt().tensors().Free(*slice).ok());
  EXPECT_EQ(BytesUsed(1), 64u);
  ASSERT_TRUE(rt().tensors().Free(b).ok());
  ASSERT_TRUE(rt().tensors().Free(c).ok());
  ASSERT_TRUE(rt().tensors().Free(host).ok());
  for (int vnc = 0; vnc < 4; ++vnc) EXPECT_EQ(BytesUsed(vnc), 0u);
}

TEST_F(RuntimeTest, ExhaustingAnHbmStackIsResource) {
  // LNC=1 on trn2.3xlarge: vnc 0 and 1 share HBM 0, vnc 2 and 3 share HBM 1. The tensors are
  // lazily backed and never written, so 24 GiB each costs no host memory.
  SetEnv("NEURON_LOGICAL_NC_CONFIG", "1");
  ASSERT_TRUE(Init().ok());
  const uint64_t stack_bytes = 24 * kGiB;
  std::vector<Tensor*> held;
  Status last;
  for (int i = 0; i < 4; ++i) {
    StatusOr<Tensor*> tensor = rt().tensors().Allocate(Placement::kDevice, 0, stack_bytes, "huge");
    if (!tensor.ok()) {
      last = tensor.status();
      break;
    }
    held.push_back(*tensor);
  }
  EXPECT_EQ(held.size(), 1u);
  EXPECT_EQ(last.code(), StatusCode::kResource);
  EXPECT_THAT(last.message(), HasSubstr("huge"));
  EXPECT_EQ(BytesUsed(0), stack_bytes);
  // The stack is shared with vnc 1, but not with vnc 2.
  EXPECT_EQ(rt().tensors().Allocate(Placement::kDevice, 1, 64, "small").status().code(),
            StatusCode::kResource);
  EXPECT_EQ(BytesUsed(1), 0u);
  Tensor* other = MustAllocate(Placement::kDevice, 2, stack_bytes, "other");
  EXPECT_NE(other, nullptr);
  // Freeing gives the whole stack back.
  ASSERT_TRUE(rt().tensors().Free(held[0]).ok());
  EXPECT_EQ(BytesUsed(0), 0u);
  EXPECT_NE(MustAllocate(Placement::kDevice, 1, stack_bytes, "again"), nullptr);
}

TEST_F(RuntimeTest, FreedHandlesAreInvalidHandle) {
  ASSERT_TRUE(Init().ok());
  Tensor* tensor = MustAllocate(Placement::kDevice, 0, 64);
  Tensor* other = MustAllocate(Placement::kDevice, 0, 64);
  StatusOr<TensorSet*> set = rt().tensors().AllocateSet();
  ASSERT_TRUE(set.ok());
  ASSERT_TRUE(rt().tensors().Free(tensor).ok());
  ASSERT_TRUE(rt().tensors().DestroySet(*set).ok());
  // No allocation happens from here on, so the freed addresses cannot be reused by a new tensor.
  uint8_t byte = 0;
  EXPECT_EQ(rt().tensors().Free(tensor).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Read(tensor, &byte, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Write(tensor, &byte, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Memset(tensor, 0, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Copy(tensor, 0, other, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Copy(other, 0, tensor, 0, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().Size(tensor).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().HostAddress(tensor).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().DeviceAllocation(tensor).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().AttachBuffer(tensor, &byte, 1).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().AllocateSlice(tensor, 0, 1, "s").status().code(),
            StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().DestroySet(*set).code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().GetFromSet(*set, "x").status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().AddToSet(*set, "x", other).code(), StatusCode::kInvalidHandle);
}

TEST_F(RuntimeTest, CloseFreesEverything) {
  ASSERT_TRUE(Init().ok());
  const uint64_t stack_bytes = 24 * kGiB;
  Tensor* tensor = nullptr;
  for (int vnc = 0; vnc < 4; ++vnc) {
    tensor = MustAllocate(Placement::kDevice, vnc, stack_bytes - 4096);
    MustAllocate(Placement::kDevice, vnc, 1000);
  }
  ASSERT_TRUE(rt().tensors().AllocateSlice(tensor, 0, 10, "slice").ok());
  StatusOr<TensorSet*> set = rt().tensors().AllocateSet();
  ASSERT_TRUE(set.ok());
  ASSERT_TRUE(rt().tensors().AddToSet(*set, "in", tensor).ok());
  MustAllocate(Placement::kHost, 0, 4096);
  ASSERT_TRUE(rt().tensors().AllocateEmpty("empty").ok());
  rt().Close();

  ASSERT_TRUE(Init().ok());
  EXPECT_EQ(rt().tensors().Size(tensor).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(rt().tensors().GetFromSet(*set, "in").status().code(), StatusCode::kInvalidHandle);
  for (int vnc = 0; vnc < 4; ++vnc) {
    EXPECT_EQ(BytesUsed(vnc), 0u);
    // Every stack is whole again.
    EXPECT_NE(MustAllocate(Placement::kDevice, vnc, stack_bytes), nullptr) << vnc;
  }
}

TEST_F(RuntimeTest, SlicesAndCopies) {
  ASSERT_TRUE(Init().ok());
  Tensor* a = MustAllocate(Placement::kDevice, 0, 1000, "a");
  Tensor* b = MustAllocate(Placement::kDevice, 0, 1000, "b");
  Tensor* far = MustAllocate(Placement::kDevice, 1, 1000, "far");  // another HBM at LNC=2
  Tensor* host = MustAllocate(Placement::kHost, 0, 1000, "host");
  std::vector<uint8_t> data = Pattern(1000, 4);
  ASSERT_TRUE(rt().tensors().Write(host, data.data(), 0, 1000).ok());
  ASSERT_TRUE(rt().tensors().Copy(host, 0, a, 0, 1000).ok());
  ASSERT_TRUE(rt().tensors().Copy(a, 0, b, 0, 1000).ok());
  EXPECT_EQ(ReadAll(b, 1000), data);
  EXPECT_EQ(rt().tensors().Copy(a, 0, far, 0, 1000).code(), StatusCode::kInvalid);
  EXPECT_EQ(ReadAll(far, 1000), std::vector<uint8_t>(1000, 0));

  StatusOr<Tensor*> slice = rt().tensors().AllocateSlice(b, 100, 100, "slice");
  ASSERT_TRUE(slice.ok());
  ASSERT_TRUE(rt().tensors().Free(b).ok());
  std::vector<uint8_t> part(100);
  ASSERT_TRUE(rt().tensors().Read(*slice, part.data(), 0, 100).ok());
  EXPECT_EQ(part, std::vector<uint8_t>(data.begin() + 100, data.begin() + 200));
  EXPECT_EQ(rt().tensors().AllocateSlice(a, 900, 101, "bad").status().code(), StatusCode::kInvalid);
}

TEST_F(RuntimeTest, AttachBuffer) {
  ASSERT_TRUE(Init().ok());
  StatusOr<Tensor*> empty = rt().tensors().AllocateEmpty("empty");
  ASSERT_TRUE(empty.ok());
  uint8_t byte = 0;
  EXPECT_EQ(rt().tensors().Read(*empty, &byte, 0, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().AttachBuffer(*empty, nullptr, 8).code(), StatusCode::kInvalid);
  std::vector<uint8_t> buffer(32, 0x21);
  ASSERT_TRUE(rt().tensors().AttachBuffer(*empty, buffer.data(), buffer.size()).ok());
  EXPECT_EQ(*rt().tensors().Size(*empty), 32u);
  EXPECT_EQ(*rt().tensors().HostAddress(*empty), buffer.data());
  byte = 0x7E;
  ASSERT_TRUE(rt().tensors().Write(*empty, &byte, 31, 1).ok());
  EXPECT_EQ(buffer[31], 0x7E);
  ASSERT_TRUE(rt().tensors().Free(*empty).ok());
  EXPECT_EQ(buffer[0], 0x21);  // the caller's buffer survives the tensor
}

// --- Tensor sets -------------------------------------------------------------------------------

TEST_F(RuntimeTest, TensorSets) {
  ASSERT_TRUE(Init().ok());
  StatusOr<TensorSet*> set = rt().tensors().AllocateSet();
  ASSERT_TRUE(set.ok());
  Tensor* first = MustAllocate(Placement::kHost, 0, 8, "first");
  Tensor* second = MustAllocate(Placement::kDevice, 0, 8, "second");
  ASSERT_TRUE(rt().tensors().AddToSet(*set, "input", first).ok());
  EXPECT_EQ(*rt().tensors().GetFromSet(*set, "input"), first);
  ASSERT_TRUE(rt().tensors().AddToSet(*set, "input", second).ok());  // replaces
  EXPECT_EQ(*rt().tensors().GetFromSet(*set, "input"), second);
  EXPECT_EQ((*set)->entries().size(), 1u);
  ASSERT_TRUE(rt().tensors().AddToSet(*set, "output", second).ok());

  StatusOr<Tensor*> missing = rt().tensors().GetFromSet(*set, "nope");
  EXPECT_EQ(missing.status().code(), StatusCode::kFailure);
  EXPECT_THAT(missing.status().message(), HasSubstr("nope"));

  // Freeing a tensor drops every binding to it.
  ASSERT_TRUE(rt().tensors().Free(second).ok());
  EXPECT_EQ(rt().tensors().GetFromSet(*set, "input").status().code(), StatusCode::kFailure);
  EXPECT_EQ(rt().tensors().GetFromSet(*set, "output").status().code(), StatusCode::kFailure);
  EXPECT_TRUE((*set)->entries().empty());

  EXPECT_EQ(rt().tensors().AddToSet(nullptr, "x", first).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().AddToSet(*set, "x", nullptr).code(), StatusCode::kInvalid);
  EXPECT_EQ(rt().tensors().DestroySet(nullptr).code(), StatusCode::kInvalid);
  ASSERT_TRUE(rt().tensors().DestroySet(*set).ok());
  // The tensor outlives the set.
  EXPECT_EQ(*rt().tensors().Size(first), 8u);
}

TEST_F(RuntimeTest, TensorInSeveralSetsIsDroppedFromAll) {
  ASSERT_TRUE(Init().ok());
  TensorSet* one = *rt().tensors().AllocateSet();
  TensorSet* two = *rt().tensors().AllocateSet();
  Tensor* tensor = MustAllocate(Placement::kHost, 0, 8);
  Tensor* keep = MustAllocate(Placement::kHost, 0, 8);
  ASSERT_TRUE(rt().tensors().AddToSet(one, "a", tensor).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(two, "b", tensor).ok());
  ASSERT_TRUE(rt().tensors().AddToSet(two, "c", keep).ok());
  ASSERT_TRUE(rt().tensors().Free(tensor).ok());
  EXPECT_TRUE(one->entries().empty());
  EXPECT_EQ(two->entries().size(), 1u);
  EXPECT_EQ(*rt().tensors().GetFromSet(two, "c"), keep);
}

// --- Batches -----------------------------------------------------------------------------------

TEST_F(RuntimeTest, WriteAndReadBatches) {
  ASSERT_TRUE(Init().ok());
  Tensor* a = MustAllocate(Placement::kDevice, 0, 256, "a");
  Tensor* b = MustAllocate(Placement::kHost, 0, 256, "b");
  std::vector<uint8_t> x = Pattern(16, 1), y = Pattern(32, 2), z = Pattern(8, 3);
  ASSERT_TRUE(
      rt().tensors()
          .WriteBatch({{a, {{0, 16, x.data()}, {100, 32, y.data()}}}, {b, {{248, 8, z.data()}}}})
          .ok());
  std::vector<uint8_t> rx(16), ry(32), rz(8);
  ASSERT_TRUE(rt().tensors()
                  .ReadBatch({{a, {{0, 16, rx.data()}, {100, 32, ry.data()}}},
                              {b, {{248, 8, rz.data()}, {256, 0, nullptr}}}})
                  .ok());
  EXPECT_EQ(rx, x);
  EXPECT_EQ(ry, y);
  EXPECT_EQ(rz, z);
}

TEST_F(RuntimeTest, WriteBatchIsValidatedBeforeAnyByteMoves) {
  ASSERT_TRUE(Init().ok());
  Tensor* first = MustAllocate(Placement::kDevice, 0, 256, "first");
  Tensor* second = MustAllocate(Placement::kDevice, 0, 256, "second");
  Tensor* freed = MustAllocate(Placement::kHost, 0, 256, "freed");
  ASSERT_TRUE(rt().tensors().Free(freed).ok());
  std::vector<uint8_t> data(256, 0xCD);

  // One bad op in the second batch: past the end.
  Status status = rt().tensors().WriteBatch(
      {{first, {{0, 256, data.data()}}}, {second, {{0, 16, data.data()}, {250, 16, data.data()}}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(ReadAll(first, 256), std::vector<uint8_t>(256, 0));
  EXPECT_EQ(ReadAll(second, 256), std::vector<uint8_t>(256, 0));
  // A NULL buffer.
  status =
      rt().tensors().WriteBatch({{first, {{0, 256, data.data()}}}, {second, {{0, 1, nullptr}}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(ReadAll(first, 256), std::vector<uint8_t>(256, 0));
  // A freed tensor.
  status =
      rt().tensors().WriteBatch({{first, {{0, 256, data.data()}}}, {freed, {{0, 1, data.data()}}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(ReadAll(first, 256), std::vector<uint8_t>(256, 0));
}

TEST_F(RuntimeTest, ReadBatchIsValidatedBeforeAnyByteMoves) {
  ASSERT_TRUE(Init().ok());
  Tensor* first = MustAllocate(Placement::kDevice, 0, 256, "first");
  Tensor* second = MustAllocate(Placement::kHost, 0, 256, "second");
  ASSERT_TRUE(rt().tensors().Memset(first, 0, 0x11, 256).ok());
  std::vector<uint8_t> target(256, 0xEE), other(256, 0xEE);
  Status status = rt().tensors().ReadBatch(
      {{first, {{0, 256, target.data()}}}, {second, {{200, 57, other.data()}}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(target, std::vector<uint8_t>(256, 0xEE));
  EXPECT_EQ(other, std::vector<uint8_t>(256, 0xEE));
  status = rt().tensors().ReadBatch({{first, {{0, 256, target.data()}}}, {nullptr, {}}});
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_EQ(target, std::vector<uint8_t>(256, 0xEE));
}

}  // namespace
}  // namespace trnsim::runtime
