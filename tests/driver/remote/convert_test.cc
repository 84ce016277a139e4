// Round trips of every struct the neurond protocol carries, with a non-default value in every
// field and through the wire bytes, and refusal (NRT_INVALID) of malformed messages.
#include "driver/remote/convert.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace trnsim::driver::remote {
namespace {

namespace dma = simulator::dma;
// Serialises `message` and parses it back, so every round trip crosses real wire bytes.
template <typename Message>
Message ThroughWire(const Message& message) {
  Message parsed;
  EXPECT_TRUE(parsed.ParseFromString(message.SerializeAsString()));
  return parsed;
}

template <typename T>
void ExpectInvalid(const StatusOr<T>& result, const std::string& fragment) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalid) << result.status().ToString();
  EXPECT_NE(result.status().message().find(fragment), std::string::npos)
      << result.status().ToString();
}

dma::Endpoint MakeEndpoint(uint32_t var_id, int salt) {
  dma::Endpoint e;
  e.var_id = var_id;
  e.offset = 4096 + salt;
  e.steps = {2, -512 - salt, 65536};
  e.sizes = {256, uint64_t(7 + salt), 3};
  e.dtype = isa::Dtype::kBfloat16;
  return e;
}

dma::Descriptor MakeDescriptor(int64_t id) {
  dma::Descriptor d;
  d.id = id;
  d.queue = 3;
  d.op = dma::Op::kFma;
  d.sources = {MakeEndpoint(11, 1), MakeEndpoint(dma::kSbufVarId, 2)};
  d.dest = MakeEndpoint(12, 3);
  d.dest.dtype = isa::Dtype::kFloat8E4;
  d.scale = -0.375;
  d.constant = 1.0e-30;
  d.transpose_rows = 32;
  d.transpose_cols = 64;
  d.transpose_element_size = 2;
  d.semaphore = 5;
  d.semaphore_increment = 9;
  d.event = 17;
  return d;
}

void ExpectSameEndpoint(const dma::Endpoint& a, const dma::Endpoint& b) {
  EXPECT_EQ(a.var_id, b.var_id);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.dtype, b.dtype);
}

void ExpectSameDescriptor(const dma::Descriptor& a, const dma::Descriptor& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.queue, b.queue);
  EXPECT_EQ(a.op, b.op);
  ASSERT_EQ(a.sources.size(), b.sources.size());
  for (size_t i = 0; i < a.sources.size(); ++i) ExpectSameEndpoint(a.sources[i], b.sources[i]);
  ExpectSameEndpoint(a.dest, b.dest);
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_EQ(a.constant, b.constant);
  EXPECT_EQ(a.transpose_rows, b.transpose_rows);
  EXPECT_EQ(a.transpose_cols, b.transpose_cols);
  EXPECT_EQ(a.transpose_element_size, b.transpose_element_size);
  EXPECT_EQ(a.semaphore, b.semaphore);
  EXPECT_EQ(a.semaphore_increment, b.semaphore_increment);
  EXPECT_EQ(a.event, b.event);
}

driver::ProgramImage MakeImage() {
  driver::ProgramImage image;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    for (int i = 0; i < 40 + e; ++i) image.streams[e].push_back(uint8_t(i * 7 + e));
    image.descriptors.per_engine[e] = {MakeDescriptor(-3 + e), MakeDescriptor(100 + e)};
  }
  image.descriptors.per_engine[2][1].op = dma::Op::kTranspose;
  image.descriptors.per_engine[2][1].semaphore.reset();  // an unset optional survives too
  image.descriptors.per_engine[2][1].event.reset();
  image.streams[4].clear();  // an idle engine
  return image;
}

// --- Status and enums -----------------------------------------------------------------------

TEST(StatusConvertTest, RoundTripsEveryCodeAndMessage) {
  for (StatusCode code : {StatusCode::kFailure, StatusCode::kInvalidHandle, StatusCode::kResource,
                          StatusCode::kExecOob, StatusCode::kNetworkProxyFailure}) {
    v1::NrtStatus message;
    ToProto(Status(code, "core 3 is held by pid 77"), &message);
    const Status back = StatusFromProto(ThroughWire(message));
    EXPECT_EQ(back.code(), code);
    EXPECT_EQ(back.message(), "core 3 is held by pid 77");
  }
  v1::NrtStatus ok;
  ToProto(Status::Ok(), &ok);
  EXPECT_TRUE(StatusFromProto(ok).ok());
}

TEST(StatusConvertTest, UnknownCodeIsInvalidAndKeepsTheMessage) {
  v1::NrtStatus message;
  message.set_code(8);  // a gap in NRT_STATUS
  message.set_message("from the daemon");
  const Status status = StatusFromProto(message);
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_NE(status.message().find("unknown status code 8"), std::string::npos);
  EXPECT_NE(status.message().find("from the daemon"), std::string::npos);
}

TEST(EnumConvertTest, EveryEnumeratorRoundTripsAndBogusValuesAreRefused) {
  for (int c = 0; c <= int(driver::MemoryCategory::kMisc); ++c) {
    const auto category = static_cast<driver::MemoryCategory>(c);
    StatusOr<driver::MemoryCategory> back = MemoryCategoryFromProto(ToProto(category));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, category);
  }
  for (int d = 1; d < isa::kDtypeCount; ++d) {
    StatusOr<isa::Dtype> back = DtypeFromProto(ToProto(static_cast<isa::Dtype>(d)));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(int(*back), d);
  }
  for (int o = 0; o <= int(dma::Op::kTranspose); ++o) {
    StatusOr<dma::Op> back = DmaOpFromProto(ToProto(static_cast<dma::Op>(o)));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(int(*back), o);
  }
  for (int bogus : {0, -1, 6, 1 << 30}) ExpectInvalid(MemoryCategoryFromProto(bogus), "category");
  for (int bogus : {0, -5, 16, 255}) ExpectInvalid(DtypeFromProto(bogus), "dtype");
  for (int bogus : {0, 8, -2}) ExpectInvalid(DmaOpFromProto(bogus), "DMA op");
}

// --- Memory ---------------------------------------------------------------------------------

TEST(MemoryConvertTest, AllocationRequestRoundTrips) {
  driver::AllocationRequest in;
  in.chip = 13;
  in.hbm = 3;
  in.size_bytes = (uint64_t{5} << 32) + 17;
  in.alignment_bytes = 1 << 21;
  in.owner_core = 101;
  in.category = driver::MemoryCategory::kScratchpad;
  in.owner_model_id = (uint64_t{1} << 40) + 3;
  v1::AllocationRequest message;
  ToProto(in, &message);
  StatusOr<driver::AllocationRequest> out = AllocationRequestFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->chip, 13);
  EXPECT_EQ(out->hbm, 3);
  EXPECT_EQ(out->size_bytes, in.size_bytes);
  EXPECT_EQ(out->alignment_bytes, uint64_t{1} << 21);
  EXPECT_EQ(out->owner_core, 101);
  EXPECT_EQ(out->category, driver::MemoryCategory::kScratchpad);
  EXPECT_EQ(out->owner_model_id, in.owner_model_id);
  // An older client's request (no owner_model_id): no model.
  message.clear_owner_model_id();
  out = AllocationRequestFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->owner_model_id, 0u);
}

TEST(ProgramConvertTest, ModelOwnerRoundTripsAndMalformedOnesAreRefused) {
  driver::ModelOwner in{42, "bert", "00112233445566778899aabbccddeeff"};
  v1::LoadProgramHeader header;
  header.set_image_bytes(10);
  ToProto(in, &header);
  StatusOr<driver::ModelOwner> out = ModelOwnerFromProto(ThroughWire(header));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->id, 42u);
  EXPECT_EQ(out->name, "bert");
  EXPECT_EQ(out->uuid, in.uuid);

  v1::LoadProgramHeader old;  // an older client: no model fields
  old.set_image_bytes(10);
  out = ModelOwnerFromProto(ThroughWire(old));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->id, 0u);
  EXPECT_TRUE(out->name.empty() && out->uuid.empty());

  // The core is checked and kept with or without a model.
  old.set_physical_core(3);
  out = ModelOwnerFromProto(ThroughWire(old));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->physical_core, 3);
  old.set_physical_core(-1);
  ExpectInvalid(ModelOwnerFromProto(old), "physical_core");

  v1::LoadProgramHeader m = header;
  m.set_model_id(0);
  ExpectInvalid(ModelOwnerFromProto(m), "model_id");
  m = header;
  m.set_model_uuid("00112233445566778899AABBCCDDEEFF");
  ExpectInvalid(ModelOwnerFromProto(m), "model_uuid");
  m.set_model_uuid("0011");
  ExpectInvalid(ModelOwnerFromProto(m), "model_uuid");
  m = header;
  m.set_model_uuid("");  // no uuid is allowed
  EXPECT_TRUE(ModelOwnerFromProto(m).ok());
  m.set_model_name(std::string(5000, 'n'));
  out = ModelOwnerFromProto(m);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->name.size(), kMaxModelNameBytes);
}

TEST(MemoryConvertTest, MalformedAllocationRequestsAreRefused) {
  driver::AllocationRequest good;
  good.size_bytes = 64;
  v1::AllocationRequest base;
  ToProto(good, &base);
  ASSERT_TRUE(AllocationRequestFromProto(base).ok());

  v1::AllocationRequest m = base;
  m.set_chip(-1);
  ExpectInvalid(AllocationRequestFromProto(m), "AllocationRequest.chip");
  m = base;
  m.set_hbm(-7);
  ExpectInvalid(AllocationRequestFromProto(m), "AllocationRequest.hbm");
  m = base;
  m.set_owner_core(-2);
  ExpectInvalid(AllocationRequestFromProto(m), "owner_core");
  m = base;
  m.set_size_bytes(0);  // also what a missing size looks like
  ExpectInvalid(AllocationRequestFromProto(m), "size_bytes");
  for (uint64_t align : {uint64_t{0}, uint64_t{3}, uint64_t{96}, ~uint64_t{0}}) {
    m = base;
    m.set_alignment_bytes(align);
    ExpectInvalid(AllocationRequestFromProto(m), "alignment_bytes");
  }
  m = base;
  m.clear_category();  // missing: proto3 reads it as 0
  ExpectInvalid(AllocationRequestFromProto(m), "category");
  m = base;
  m.set_category(static_cast<v1::MemoryCategory>(42));  // survives the wire: open enums
  ExpectInvalid(AllocationRequestFromProto(ThroughWire(m)), "category");
}

TEST(MemoryConvertTest, AllocationInfoRoundTrips) {
  driver::AllocationInfo in;
  in.handle = 0xABCDEF0123ull;
  in.chip = 2;
  in.hbm = 1;
  in.device_address = uint64_t{3} << 36;
  in.size_bytes = 1 << 20;
  in.owner_core = 9;
  in.category = driver::MemoryCategory::kCode;
  v1::AllocationInfo message;
  ToProto(in, &message);
  StatusOr<driver::AllocationInfo> out = AllocationInfoFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->handle, in.handle);
  EXPECT_EQ(out->chip, 2);
  EXPECT_EQ(out->hbm, 1);
  EXPECT_EQ(out->device_address, in.device_address);
  EXPECT_EQ(out->size_bytes, uint64_t{1} << 20);
  EXPECT_EQ(out->owner_core, 9);
  EXPECT_EQ(out->category, driver::MemoryCategory::kCode);

  v1::AllocationInfo bad = message;
  bad.set_handle(0);
  ExpectInvalid(AllocationInfoFromProto(bad), "handle 0");
  bad = message;
  bad.set_device_address(~uint64_t{0} - 10);
  ExpectInvalid(AllocationInfoFromProto(bad), "overflows");
  bad = message;
  bad.set_category(static_cast<v1::MemoryCategory>(-3));
  ExpectInvalid(AllocationInfoFromProto(ThroughWire(bad)), "category");
}

TEST(MemoryConvertTest, HbmUsageRoundTripsAndUsedAboveCapacityIsRefused) {
  v1::HbmUsage message;
  ToProto(driver::HbmUsage{uint64_t{7} << 30, uint64_t{24} << 30}, &message);
  StatusOr<driver::HbmUsage> out = HbmUsageFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->used_bytes, uint64_t{7} << 30);
  EXPECT_EQ(out->capacity_bytes, uint64_t{24} << 30);
  message.set_used_bytes(message.capacity_bytes() + 1);
  ExpectInvalid(HbmUsageFromProto(message), "exceed the capacity");
}

// --- Programs -------------------------------------------------------------------------------

TEST(ProgramConvertTest, ProgramImageRoundTripsEveryDescriptorField) {
  const driver::ProgramImage in = MakeImage();
  StatusOr<driver::ProgramImage> out = ParseProgramImage(SerializeProgramImage(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    EXPECT_EQ(out->streams[e], in.streams[e]) << "engine " << e;
    const auto& want = in.descriptors.per_engine[e];
    const auto& got = out->descriptors.per_engine[e];
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ExpectSameDescriptor(got[i], want[i]);
  }
  EXPECT_FALSE(out->descriptors.per_engine[2][1].semaphore.has_value());
  EXPECT_EQ(out->descriptors.per_engine[2][1].op, dma::Op::kTranspose);
  // The table works as the chip model uses it.
  ASSERT_NE(out->descriptors.Find(isa::Engine::kDve, 102), nullptr);
  EXPECT_EQ(out->descriptors.Find(isa::Engine::kDve, 102)->queue, 3);
}

TEST(ProgramConvertTest, MalformedProgramImagesAreRefused) {
  v1::ProgramImage base;
  ToProto(MakeImage(), &base);
  ASSERT_TRUE(ProgramImageFromProto(base).ok());

  v1::ProgramImage m = base;
  m.mutable_streams()->RemoveLast();  // a missing engine
  ExpectInvalid(ProgramImageFromProto(m), "4 streams");
  m = base;
  m.add_descriptors();  // one list too many
  ExpectInvalid(ProgramImageFromProto(m), "6 descriptor lists");

  auto descriptor = [](v1::ProgramImage& image) {
    return image.mutable_descriptors(1)->mutable_descriptors(0);
  };
  m = base;
  descriptor(m)->set_op(static_cast<v1::DmaOp>(99));
  ExpectInvalid(ProgramImageFromProto(ThroughWire(m)), "DMA op 99");
  m = base;
  descriptor(m)->clear_op();
  ExpectInvalid(ProgramImageFromProto(m), "DMA op 0");
  m = base;
  descriptor(m)->set_queue(-1);
  ExpectInvalid(ProgramImageFromProto(m), "queue -1");
  m = base;
  descriptor(m)->clear_dest();
  ExpectInvalid(ProgramImageFromProto(m), "no destination");
  m = base;
  descriptor(m)->clear_sources();
  ExpectInvalid(ProgramImageFromProto(m), "0 sources");
  m = base;
  for (int i = 0; i < 15; ++i) *descriptor(m)->add_sources() = descriptor(m)->sources(0);
  ExpectInvalid(ProgramImageFromProto(m), "17 sources");
  m = base;
  descriptor(m)->mutable_dest()->set_dtype(static_cast<v1::Dtype>(16));
  ExpectInvalid(ProgramImageFromProto(ThroughWire(m)), "dtype 16");
  m = base;
  descriptor(m)->mutable_sources(1)->clear_dtype();
  ExpectInvalid(ProgramImageFromProto(m), "dtype 0");
  m = base;
  descriptor(m)->mutable_sources(0)->add_steps(8);  // 4 steps, 3 sizes
  ExpectInvalid(ProgramImageFromProto(m), "4 steps and 3 sizes");
  m = base;
  descriptor(m)->mutable_dest()->add_steps(8);
  descriptor(m)->mutable_dest()->add_steps(8);
  descriptor(m)->mutable_dest()->add_sizes(2);
  descriptor(m)->mutable_dest()->add_sizes(2);  // 5 dimensions
  ExpectInvalid(ProgramImageFromProto(m), "5 steps and 5 sizes");
  m = base;
  descriptor(m)->set_id(m.descriptors(1).descriptors(1).id());  // a duplicate id
  ExpectInvalid(ProgramImageFromProto(m), "strictly increasing");
  m = base;
  descriptor(m)->set_id(1000);  // out of order
  ExpectInvalid(ProgramImageFromProto(m), "act");
}

TEST(ProgramConvertTest, BytesThatAreNotAProgramImageAreRefused) {
  ExpectInvalid(ParseProgramImage(std::string("\xff\xff\xff\xff\x0f garbage", 13)), "do not parse");
  std::string truncated = SerializeProgramImage(MakeImage());
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(ParseProgramImage(truncated).ok());
  // An empty message parses but has no engines.
  ExpectInvalid(ParseProgramImage(""), "0 streams");
}

// --- Executions -----------------------------------------------------------------------------

TEST(ExecutionConvertTest, CoreExecutionRoundTrips) {
  driver::CoreExecution in;
  in.program = 0x5151;
  in.chip = 4;
  in.physical_core = 7;
  in.vars = {{3, 0x10, 128, 4096}, {9, 0x22, 0, uint64_t{1} << 33}};
  v1::CoreExecution message;
  ToProto(in, &message);
  StatusOr<driver::CoreExecution> out = CoreExecutionFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->program, 0x5151u);
  EXPECT_EQ(out->chip, 4);
  EXPECT_EQ(out->physical_core, 7);
  ASSERT_EQ(out->vars.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out->vars[i].var_id, in.vars[i].var_id);
    EXPECT_EQ(out->vars[i].memory, in.vars[i].memory);
    EXPECT_EQ(out->vars[i].offset, in.vars[i].offset);
    EXPECT_EQ(out->vars[i].size, in.vars[i].size);
  }

  v1::CoreExecution m = message;
  m.clear_program();
  ExpectInvalid(CoreExecutionFromProto(m), "program handle 0");
  m = message;
  m.set_chip(-1);
  ExpectInvalid(CoreExecutionFromProto(m), "CoreExecution.chip");
  m = message;
  m.set_physical_core(-8);
  ExpectInvalid(CoreExecutionFromProto(m), "physical_core");
  m = message;
  m.mutable_vars(1)->set_memory(0);
  ExpectInvalid(CoreExecutionFromProto(m), "memory handle 0");
  m.mutable_vars(1)->set_size(0);  // an empty variable names no memory (driver/device.h)
  ASSERT_TRUE(CoreExecutionFromProto(m).ok());
  EXPECT_EQ(CoreExecutionFromProto(m)->vars[1].memory, driver::kInvalidMemoryHandle);
  m = message;
  m.mutable_vars(0)->set_offset(~uint64_t{0});
  ExpectInvalid(CoreExecutionFromProto(m), "overflows");
  m = message;
  m.mutable_vars(1)->set_var_id(3);
  ExpectInvalid(CoreExecutionFromProto(m), "bound twice");
}

TEST(ExecutionConvertTest, ExecutionOptionsRoundTripAndAHugeTimeoutIsRefused) {
  driver::ExecutionRequestOptions in;
  in.host_timeout = std::chrono::milliseconds(123456);
  in.stochastic_rounding = true;
  in.rounding_seeds = {1, ~uint64_t{0}, 0x9E3779B97F4A7C15ull};
  v1::ExecutionOptions message;
  ToProto(in, &message);
  StatusOr<driver::ExecutionRequestOptions> out = ExecutionOptionsFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->host_timeout, std::chrono::milliseconds(123456));
  EXPECT_TRUE(out->stochastic_rounding);
  EXPECT_EQ(out->rounding_seeds, in.rounding_seeds);

  message.set_host_timeout_ms(uint64_t{1} << 63);
  ExpectInvalid(ExecutionOptionsFromProto(message), "host_timeout_ms");
  // Below 2^63 ms too: a deadline in nanoseconds would overflow (kMaxHostTimeoutMs).
  message.set_host_timeout_ms(kMaxHostTimeoutMs + 1);
  ExpectInvalid(ExecutionOptionsFromProto(message), "host_timeout_ms");
  message.set_host_timeout_ms(kMaxHostTimeoutMs);
  ASSERT_TRUE(ExecutionOptionsFromProto(message).ok());
  EXPECT_EQ(ExecutionOptionsFromProto(message)->host_timeout.count(),
            std::chrono::milliseconds::rep(kMaxHostTimeoutMs));
  in.host_timeout = std::chrono::milliseconds(-5);  // meaningless: sent as "none"
  ToProto(in, &message);
  EXPECT_EQ(message.host_timeout_ms(), 0u);
}

TEST(ExecutionConvertTest, CollectiveMembershipRoundTripsAndAnImpossibleRankIsRefused) {
  driver::ExecutionRequestOptions in;
  v1::ExecutionOptions message;
  ToProto(in, &message);
  EXPECT_FALSE(message.has_collective());
  StatusOr<driver::ExecutionRequestOptions> none = ExecutionOptionsFromProto(ThroughWire(message));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->collective.has_value());

  in.collective = driver::CollectiveMembership{"10.0.0.1:29500", 13, 64, uint64_t{1} << 40};
  ToProto(in, &message);
  StatusOr<driver::ExecutionRequestOptions> out = ExecutionOptionsFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(out->collective.has_value());
  EXPECT_EQ(out->collective->communicator, "10.0.0.1:29500");
  EXPECT_EQ(out->collective->rank, 13u);
  EXPECT_EQ(out->collective->world_size, 64u);
  EXPECT_EQ(out->collective->execution_sequence, uint64_t{1} << 40);

  message.mutable_collective()->set_rank(64);
  ExpectInvalid(ExecutionOptionsFromProto(message), "ExecutionOptions.collective");
  message.mutable_collective()->set_rank(0);
  message.mutable_collective()->set_world_size(0);
  ExpectInvalid(ExecutionOptionsFromProto(message), "ExecutionOptions.collective");
}

TEST(ExecutionConvertTest, ExecutionResultRoundTripsEveryStat) {
  ExecutionResult in;
  in.duration_ps = 987654321;
  in.events = 4242;
  for (int c = 0; c < 2; ++c) {
    CoreStats cs;
    cs.core = 5 + c;
    cs.duration_ps = 1000 + c;
    for (int e = 0; e < isa::kEngineCount; ++e)
      cs.engines[e] = {uint64_t(10 * e + c + 1), uint64_t(20 * e + c + 2), uint64_t(e + 3),
                       uint64_t(1) << (30 + e)};
    cs.queues = {{1, 2, 3}, {4, 5, 6}, {7, uint64_t{1} << 40, 9}};
    cs.hbm_read_bytes = 777 + c;
    cs.hbm_write_bytes = 888 + c;
    cs.instructions = 999 + c;
    cs.device_start_ps = (uint64_t{1} << 50) + 1000 * uint64_t(c);
    in.cores.push_back(cs);
  }
  v1::ExecutionResult message;
  ToProto(in, &message);
  StatusOr<ExecutionResult> out = ExecutionResultFromProto(ThroughWire(message));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->duration_ps, in.duration_ps);
  EXPECT_EQ(out->events, in.events);
  ASSERT_EQ(out->cores.size(), 2u);
  for (int c = 0; c < 2; ++c) {
    const CoreStats& a = out->cores[c];
    const CoreStats& b = in.cores[c];
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
    EXPECT_EQ(a.device_start_ps, b.device_start_ps);
    EXPECT_EQ(a.hbm_read_bytes, b.hbm_read_bytes);
    EXPECT_EQ(a.hbm_write_bytes, b.hbm_write_bytes);
    EXPECT_EQ(a.instructions, b.instructions);
  }

  v1::ExecutionResult m = message;
  m.mutable_cores(1)->mutable_engines()->RemoveLast();
  ExpectInvalid(ExecutionResultFromProto(m), "4 engine entries");
  m = message;
  m.mutable_cores(0)->set_core(-1);
  ExpectInvalid(ExecutionResultFromProto(m), "CoreStats.core");
}

}  // namespace
}  // namespace trnsim::driver::remote
