// Programs and execution, run against every back end (device_test_fixture.h;
// Device::LoadProgram / UnloadProgram / Execute):
// decoding and validation at load, every argument check of Execute (each refusal leaves memory
// untouched), and programs running against bound device memory — offsets honoured, SBUF kept
// per physical core between executions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "simulator/isa/encoding.h"
#include "simulator/spec/instance_spec.h"
#include "tests/driver/device_test_fixture.h"

namespace trnsim::driver {
namespace {

using test::Encode;
using test::Pattern;
using test::SpImage;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

constexpr uint32_t kSrcVar = 1;
constexpr uint32_t kDstVar = 2;

// 16 fp32 (64 bytes) from var1 to var2.
constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";
// 16 fp32 from var1 into SBUF partition 0, and from there to var2.
constexpr char kToSbufProgram[] =
    ".engine sp\n"
    "dma_copy dst=sbuf[p0:1, 0 + [16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";
constexpr char kFromSbufProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=sbuf[p0:1, 0 + [16 x 1]] fp32\n"
    "notify_end\n";

class DeviceExecuteTest : public test::DeviceTest {
 protected:
  ProgramHandle MustLoad(const std::string& text) {
    StatusOr<ProgramHandle> handle = device_->LoadProgram(SpImage(text));
    EXPECT_TRUE(handle.ok()) << handle.status().ToString();
    return handle.ok() ? *handle : kInvalidProgramHandle;
  }

  // A copy of 64 bytes at src+128 to dst+64 on core `core` of chip 0.
  CoreExecution CopyOn(ProgramHandle program, int core) {
    CoreExecution c;
    c.program = program;
    c.physical_core = core;
    c.vars = {VarBinding{kSrcVar, src_, 128, 64}, VarBinding{kDstVar, dst_, 64, 64}};
    return c;
  }

  // Sets up src_ (256 bytes, a pattern at 128) and dst_ (256 zero bytes).
  void MakeBuffers() {
    src_ = MustAllocate(256).handle;
    dst_ = MustAllocate(256).handle;
    source_ = Pattern(64, 3);
    ASSERT_TRUE(device_->Write(src_, 128, source_.data(), source_.size()).ok());
  }

  // Runs one core and expects a refusal with `code` whose message matches `pattern` (each back
  // end words its messages; they name the same thing); dst_ stays zero.
  void ExpectRefused(std::vector<CoreExecution> cores, StatusCode code, const std::string& pattern,
                     const ExecutionRequestOptions& options = {}) {
    StatusOr<ExecutionResult> result = device_->Execute(cores, options);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), code) << result.status().ToString();
    EXPECT_THAT(result.status().message(), ContainsRegex(pattern));
    EXPECT_EQ(ReadAll(dst_, 0, 256), std::vector<uint8_t>(256, 0));
  }

  MemoryHandle src_ = kInvalidMemoryHandle;
  MemoryHandle dst_ = kInvalidMemoryHandle;
  std::vector<uint8_t> source_;
};
INSTANTIATE_TEST_SUITE_P(Backends, DeviceExecuteTest, ::testing::ValuesIn(test::kDeviceBackends),
                         test::BackendName);

TEST_P(DeviceExecuteTest, CopyProgramMovesBoundBytesAtTheirOffsets) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(2, 1).ok());
  std::vector<CoreExecution> cores = {CopyOn(program, 2)};
  StatusOr<ExecutionResult> result = device_->Execute(cores, {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();

  std::vector<uint8_t> expected(256, 0);
  std::copy(source_.begin(), source_.end(), expected.begin() + 64);
  EXPECT_EQ(ReadAll(dst_, 0, 256), expected);
  ASSERT_EQ(result->cores.size(), 1u);
  EXPECT_EQ(result->cores[0].core, 2);
  EXPECT_EQ(result->cores[0].hbm_read_bytes, 64u);
  EXPECT_EQ(result->cores[0].hbm_write_bytes, 64u);
  // dma_copy and notify_end
  EXPECT_EQ(result->cores[0].engines[static_cast<size_t>(isa::Engine::kSp)].instructions, 2u);
  EXPECT_GT(result->duration_ps, 0);
}

TEST_P(DeviceExecuteTest, SbufPersistsOnACoreBetweenExecutionsAndNotAcrossCores) {
  MakeBuffers();
  ProgramHandle load = MustLoad(kToSbufProgram);
  ProgramHandle store = MustLoad(kFromSbufProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 2).ok());
  std::vector<CoreExecution> first = {CopyOn(load, 0)};
  ASSERT_TRUE(device_->Execute(first, {}).ok());

  std::vector<CoreExecution> other_core = {CopyOn(store, 1)};
  ASSERT_TRUE(device_->Execute(other_core, {}).ok());
  EXPECT_EQ(ReadAll(dst_, 0, 256), std::vector<uint8_t>(256, 0));  // core 1's SBUF is fresh

  std::vector<CoreExecution> same_core = {CopyOn(store, 0)};
  ASSERT_TRUE(device_->Execute(same_core, {}).ok());
  std::vector<uint8_t> expected(256, 0);
  std::copy(source_.begin(), source_.end(), expected.begin() + 64);
  EXPECT_EQ(ReadAll(dst_, 0, 256), expected);
}

// The device clock (driver/sim/device_clock.h): each execution reports its start on its cores'
// clock; a core's clock advances by its own executions only (rounded up to whole ns) and not
// by host time; an execution on two cores starts at the later of their clocks; a failed
// execution leaves the clocks alone; releasing and re-acquiring a core keeps its clock.
TEST_P(DeviceExecuteTest, TheDeviceClockAdvancesOnlyByEachCoresExecutions) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 2).ok());
  auto run = [&](std::vector<CoreExecution> cores) {
    StatusOr<ExecutionResult> result = device_->Execute(cores, {});
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? *result : ExecutionResult{};
  };
  auto round_up = [](uint64_t ps) { return (ps + 999) / 1000 * 1000; };

  const ExecutionResult first = run({CopyOn(program, 0)});
  ASSERT_EQ(first.cores.size(), 1u);
  EXPECT_EQ(first.cores[0].device_start_ps, 0u);  // the clock starts at 0 with the device
  const ExecutionResult second = run({CopyOn(program, 0)});
  EXPECT_EQ(second.cores[0].device_start_ps, round_up(first.duration_ps));
  const uint64_t core0_now = round_up(first.duration_ps) + round_up(second.duration_ps);

  // Core 1 has run nothing: its clock is still 0.
  EXPECT_EQ(run({CopyOn(program, 1)}).cores[0].device_start_ps, 0u);

  // A failed execution on core 0 (an unbound variable) does not move its clock.
  CoreExecution unbound = CopyOn(program, 0);
  unbound.vars.pop_back();
  std::vector<CoreExecution> failing = {unbound};
  EXPECT_FALSE(device_->Execute(failing, {}).ok());

  // Both cores together start at the later clock (core 0's) and both end at start + duration.
  const ExecutionResult pair = run({CopyOn(program, 0), CopyOn(program, 1)});
  ASSERT_EQ(pair.cores.size(), 2u);
  EXPECT_EQ(pair.cores[0].device_start_ps, core0_now);
  EXPECT_EQ(pair.cores[1].device_start_ps, core0_now);
  const uint64_t pair_end = core0_now + round_up(pair.duration_ps);

  // The clock is the device's: it survives a release (another client's session in neurond).
  device_->ReleaseCores(1, 1);
  ASSERT_TRUE(device_->AcquireCores(1, 1).ok());
  EXPECT_EQ(run({CopyOn(program, 1)}).cores[0].device_start_ps, pair_end);
}

// ProgramImage::decoded (the runtime's decoded programs) changes nothing a client sees: used
// in-process when validated for this chip, decoded again when validated for another, ignored
// through the daemon.
TEST_P(DeviceExecuteTest, AProgramLoadedWithItsDecodedFormRunsAsFromItsBytes) {
  MakeBuffers();
  ASSERT_TRUE(device_->AcquireCores(2, 1).ok());
  std::vector<uint8_t> expected(256, 0);
  std::copy(source_.begin(), source_.end(), expected.begin() + 64);
  for (const simulator::ChipSpec* chip :
       {&simulator::Trainium2Spec(), &simulator::Trainium3Spec()}) {
    ProgramImage image = SpImage(kCopyProgram);
    const size_t sp = static_cast<size_t>(isa::Engine::kSp);
    StatusOr<isa::ValidatedProgram> decoded =
        isa::DecodeValidatedStream(image.streams[sp], isa::LimitsFor(*chip));
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    image.decoded[sp] = std::make_shared<const isa::ValidatedProgram>(std::move(decoded).value());
    StatusOr<ProgramHandle> program = device_->LoadProgram(image);
    ASSERT_TRUE(program.ok()) << chip->name << ": " << program.status().ToString();
    std::vector<uint8_t> zeros(256, 0);
    ASSERT_TRUE(device_->Write(dst_, 0, zeros.data(), zeros.size()).ok());
    std::vector<CoreExecution> cores = {CopyOn(*program, 2)};
    StatusOr<ExecutionResult> result = device_->Execute(cores, {});
    ASSERT_TRUE(result.ok()) << chip->name << ": " << result.status().ToString();
    EXPECT_EQ(ReadAll(dst_, 0, 256), expected) << chip->name;
    EXPECT_EQ(result->cores[0].engines[sp].instructions, 2u) << chip->name;
  }
}

TEST_P(DeviceExecuteTest, LoadProgramRefusesACorruptStreamNamingTheEngine) {
  ProgramImage image = SpImage(kCopyProgram);
  std::vector<uint8_t>& stream = image.streams[static_cast<size_t>(isa::Engine::kSp)];
  ASSERT_GT(stream.size(), isa::kStreamHeaderBytes);
  stream[isa::kStreamHeaderBytes + 1] ^= 0x5a;  // the body no longer matches its CRC
  StatusOr<ProgramHandle> handle = device_->LoadProgram(image);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(handle.status().message(), HasSubstr("engine sp"));

  stream.resize(10);  // truncated header
  handle = device_->LoadProgram(image);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), StatusCode::kInvalid);
}

TEST_P(DeviceExecuteTest, LoadProgramRefusesAStreamInAnotherEnginesSlot) {
  ProgramImage image;
  image.streams[static_cast<size_t>(isa::Engine::kPe)] = Encode(kCopyProgram);
  StatusOr<ProgramHandle> handle = device_->LoadProgram(image);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(handle.status().message(),
              HasSubstr("engine pe: the stream is encoded for engine 'sp'"));
}

TEST_P(DeviceExecuteTest, LoadProgramRefusesADescriptorOnAQueueTheChipLacks) {
  ProgramImage image = SpImage(kCopyProgram);
  simulator::dma::Descriptor d;
  d.id = 4;
  d.queue = 1000;
  image.descriptors.per_engine[static_cast<size_t>(isa::Engine::kSp)].push_back(d);
  StatusOr<ProgramHandle> handle = device_->LoadProgram(image);
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(handle.status().message(), ContainsRegex("(DMA descriptor|DmaDescriptor) 4"));
}

TEST_P(DeviceExecuteTest, UnknownProgramHandlesAreRefused) {
  MakeBuffers();
  ASSERT_TRUE(device_->AcquireCores(0, 1).ok());
  EXPECT_EQ(device_->UnloadProgram(kInvalidProgramHandle).code(), StatusCode::kInvalidHandle);
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->UnloadProgram(program).ok());
  EXPECT_EQ(device_->UnloadProgram(program).code(), StatusCode::kInvalidHandle);
  ExpectRefused({CopyOn(program, 0)}, StatusCode::kInvalidHandle, "no program with handle");
}

TEST_P(DeviceExecuteTest, BindingsOutsideTheirAllocationOrOfUnknownMemoryAreRefused) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 1).ok());
  CoreExecution past_end = CopyOn(program, 0);
  past_end.vars[1].offset = 256 - 32;  // 64 bytes from there pass the 256-byte allocation
  ExpectRefused({past_end}, StatusCode::kInvalid, "var_id 2: range");

  CoreExecution huge_offset = CopyOn(program, 0);
  huge_offset.vars[0].offset = ~uint64_t{0} - 8;  // offset + size would wrap
  ExpectRefused({huge_offset}, StatusCode::kInvalid, "var(_id)? 1([^0-9]|$)");

  CoreExecution unknown = CopyOn(program, 0);
  unknown.vars[0].memory = 987654;
  ExpectRefused({unknown}, StatusCode::kInvalid, "no device memory with handle 987654");

  MemoryHandle freed = MustAllocate(256).handle;
  ASSERT_TRUE(device_->Free(freed).ok());
  CoreExecution stale = CopyOn(program, 0);
  stale.vars[0].memory = freed;
  ExpectRefused({stale}, StatusCode::kInvalid, "no device memory with handle");

  CoreExecution twice = CopyOn(program, 0);
  twice.vars.push_back(VarBinding{kDstVar, dst_, 0, 64});
  ExpectRefused({twice}, StatusCode::kInvalid, "var(_id)? 2 (is )?bound twice");
}

TEST_P(DeviceExecuteTest, AnUnboundVariableIsAnExecutionError) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 1).ok());
  CoreExecution missing = CopyOn(program, 0);
  missing.vars.pop_back();  // var2 unbound
  ExpectRefused({missing}, StatusCode::kInvalid, "var_id 2");
}

TEST_P(DeviceExecuteTest, CoresNotAcquiredByThisConnectionAreRefused) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ExpectRefused({CopyOn(program, 3)}, StatusCode::kFailure, "NeuronCore 3 is not held");
  ASSERT_TRUE(device_->AcquireCores(3, 1).ok());
  device_->ReleaseCores(3, 1);
  ExpectRefused({CopyOn(program, 3)}, StatusCode::kFailure, "NeuronCore 3 is not held");
}

TEST_P(DeviceExecuteTest, CoreListsAndSeedsAreChecked) {
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 8).ok());
  ExpectRefused({}, StatusCode::kInvalid, "at least one core");
  ExpectRefused({CopyOn(program, 0), CopyOn(program, 0)}, StatusCode::kInvalid, "appears twice");
  ExpectRefused({CopyOn(program, 8)}, StatusCode::kInvalid, "physical core 8 is outside");
  CoreExecution other_chip = CopyOn(program, 0);
  other_chip.chip = 1;
  ExpectRefused({other_chip}, StatusCode::kInvalid, "chip 1 is outside the 1 chips");
  ExecutionRequestOptions seeds;
  seeds.rounding_seeds = {1, 2};
  ExpectRefused({CopyOn(program, 0)}, StatusCode::kInvalid, "2 stochastic-rounding seeds for 1",
                seeds);
  seeds.rounding_seeds = {1};
  std::vector<CoreExecution> one = {CopyOn(program, 0)};
  EXPECT_TRUE(device_->Execute(one, seeds).ok());
}

TEST_P(DeviceExecuteTest, CoresOfOneExecutionMustShareAChip) {
  Open("trn2.48xlarge");
  MakeBuffers();
  ProgramHandle program = MustLoad(kCopyProgram);
  ASSERT_TRUE(device_->AcquireCores(0, 16).ok());  // chips 0 and 1
  CoreExecution on_chip1 = CopyOn(program, 0);
  on_chip1.chip = 1;
  ExpectRefused({CopyOn(program, 1), on_chip1}, StatusCode::kInvalid, "must be on one chip");
}

}  // namespace
}  // namespace trnsim::driver
