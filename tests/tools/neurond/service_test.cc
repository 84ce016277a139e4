// neurond's service against a raw gRPC client: authentication, malformed requests, handle
// isolation between sessions, core ownership, limits and cleanup when a client vanishes. After
// every refusal the daemon must go on serving.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "proto/neurond.grpc.pb.h"
#include "simulator/isa/encoding.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

using testing::RawClient;
using testing::TempDir;

constexpr char kToken[] = "s3cret-token";
constexpr uint32_t kOk = 0, kFailure = 1, kInvalid = 2, kInvalidHandle = 3, kResource = 4;

class NeurondServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartDaemon(ServiceOptions{.token = kToken}); }

  void StartDaemon(ServiceOptions service) {
    daemon_.reset();
    DaemonOptions options;
    options.listen = "unix:" + (dir_.path() / "neurond.sock").string();
    StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec("trn2.3xlarge");
    ASSERT_TRUE(spec.ok());
    options.instance = *spec;
    options.service = std::move(service);
    auto daemon = Daemon::Start(options);
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    daemon_ = std::move(*daemon);
  }

  // A client with an open, attached session.
  std::unique_ptr<RawClient> Connect() {
    auto client = std::make_unique<RawClient>(daemon_->address());
    v1::HelloResponse hello;
    EXPECT_TRUE(client->Hello(kToken, &hello).ok());
    EXPECT_EQ(hello.status().code(), kOk) << hello.status().message();
    EXPECT_TRUE(client->Attach());
    return client;
  }

  static v1::AllocateResponse Allocate(RawClient& client, uint64_t size, int category = 1) {
    v1::AllocationRequest request;
    request.set_size_bytes(size);
    request.set_alignment_bytes(64);
    request.set_category(static_cast<v1::MemoryCategory>(category));
    v1::AllocateResponse response;
    EXPECT_TRUE(client.stub().Allocate(client.Context().get(), request, &response).ok());
    return response;
  }

  static uint32_t WriteStream(RawClient& client, const std::vector<v1::WriteRequest>& messages) {
    auto context = client.Context();
    v1::WriteResponse response;
    auto writer = client.stub().Write(context.get(), &response);
    for (const auto& message : messages) {
      if (!writer->Write(message)) break;  // the daemon answered early
    }
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.status().code();
  }

  static v1::WriteRequest Header(uint64_t handle, uint64_t offset, uint64_t size) {
    v1::WriteRequest request;
    request.mutable_header()->set_handle(handle);
    request.mutable_header()->set_offset(offset);
    request.mutable_header()->set_size(size);
    return request;
  }
  static v1::WriteRequest Data(std::string bytes) {
    v1::WriteRequest request;
    request.set_data(std::move(bytes));
    return request;
  }

  // Reads back; the NrtStatus code of the first message and the bytes of all of them.
  static uint32_t ReadBytes(RawClient& client, uint64_t handle, uint64_t offset, uint64_t size,
                            std::string* bytes) {
    v1::ReadRequest request;
    request.set_handle(handle);
    request.set_offset(offset);
    request.set_size(size);
    auto context = client.Context();
    auto reader = client.stub().Read(context.get(), request);
    v1::ReadResponse response;
    uint32_t code = ~0u;
    bytes->clear();
    while (reader->Read(&response)) {
      if (code == ~0u) code = response.status().code();
      bytes->append(response.data());
    }
    EXPECT_TRUE(reader->Finish().ok());
    return code;
  }

  static v1::StatusResponse DaemonStatus(RawClient& client) {
    v1::StatusResponse response;
    EXPECT_TRUE(client.stub().Status(client.Context().get(), v1::StatusRequest(), &response).ok());
    return response;
  }

  static uint64_t HbmUsed(const v1::StatusResponse& status) {
    uint64_t used = 0;
    for (const auto& hbm : status.hbm()) used += hbm.used_bytes();
    return used;
  }

  // The daemon still does a full round trip for `client`.
  static void ExpectServing(RawClient& client) {
    v1::AllocateResponse allocated = Allocate(client, 4096);
    ASSERT_EQ(allocated.status().code(), kOk) << allocated.status().message();
    const uint64_t handle = allocated.info().handle();
    std::string pattern(4096, '\0');
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 7 + 1);
    EXPECT_EQ(WriteStream(client, {Header(handle, 0, 4096), Data(pattern)}), kOk);
    std::string back;
    EXPECT_EQ(ReadBytes(client, handle, 0, 4096, &back), kOk);
    EXPECT_EQ(back, pattern);
    v1::MemoryRef ref;
    ref.set_handle(handle);
    v1::FreeResponse freed;
    EXPECT_TRUE(client.stub().Free(client.Context().get(), ref, &freed).ok());
    EXPECT_EQ(freed.status().code(), kOk);
  }

  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

v1::NrtStatus DetailsOf(const grpc::Status& status) {
  v1::NrtStatus details;
  EXPECT_TRUE(details.ParseFromString(status.error_details()));
  return details;
}

TEST_F(NeurondServiceTest, HelloRefusesMissingAndWrongToken) {
  RawClient client(daemon_->address());
  v1::HelloResponse hello;
  grpc::Status missing = client.Hello("", &hello);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(DetailsOf(missing).code(), kInvalid);
  grpc::Status wrong = client.Hello("s3cret-tokeN", &hello);
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(DetailsOf(wrong).code(), kInvalid);
  grpc::Status longer = client.Hello(std::string(kToken) + "x", &hello);
  EXPECT_EQ(longer.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  ASSERT_TRUE(client.Hello(kToken, &hello).ok());
  EXPECT_EQ(hello.status().code(), kOk);
  EXPECT_NE(hello.session_id(), 0u);
  EXPECT_EQ(hello.session_key().size(), 32u);
  EXPECT_EQ(hello.instance_type(), "trn2.3xlarge");
}

TEST_F(NeurondServiceTest, HelloRefusesAnotherProtocolVersion) {
  RawClient client(daemon_->address());
  v1::HelloResponse hello;
  ASSERT_TRUE(client.Hello(kToken, &hello, 99).ok());
  EXPECT_EQ(hello.status().code(), kInvalid);
  EXPECT_NE(hello.status().message().find("99"), std::string::npos);
  EXPECT_TRUE(hello.session_key().empty());
}

TEST_F(NeurondServiceTest, CallsWithoutAValidSessionKeyAreRefused) {
  auto client = Connect();
  v1::AllocationRequest request;
  request.set_size_bytes(64);
  request.set_alignment_bytes(64);
  request.set_category(v1::MEMORY_CATEGORY_TENSOR);
  v1::AllocateResponse response;
  grpc::Status no_key = client->stub().Allocate(client->Context(false).get(), request, &response);
  EXPECT_EQ(no_key.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  RawClient forger(daemon_->address());
  forger.set_key(std::string(32, 'a'));
  grpc::Status bad_key = forger.stub().Allocate(forger.Context().get(), request, &response);
  EXPECT_EQ(bad_key.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  v1::StatusResponse status;
  EXPECT_EQ(forger.stub().Status(forger.Context().get(), v1::StatusRequest(), &status).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  ExpectServing(*client);
}

TEST_F(NeurondServiceTest, MalformedRequestsGetAStatusAndTheDaemonKeepsServing) {
  auto client = Connect();
  EXPECT_EQ(Allocate(*client, 64, 0).status().code(), kInvalid);   // unset category
  EXPECT_EQ(Allocate(*client, 64, 77).status().code(), kInvalid);  // unknown category
  EXPECT_EQ(Allocate(*client, 0).status().code(), kInvalid);       // size 0
  EXPECT_EQ(Allocate(*client, uint64_t{1} << 60).status().code(), kResource);
  {
    v1::AllocationRequest request;
    request.set_size_bytes(64);
    request.set_alignment_bytes(3);
    request.set_category(v1::MEMORY_CATEGORY_TENSOR);
    v1::AllocateResponse response;
    ASSERT_TRUE(client->stub().Allocate(client->Context().get(), request, &response).ok());
    EXPECT_EQ(response.status().code(), kInvalid);
    request.set_alignment_bytes(64);
    request.set_chip(5);
    ASSERT_TRUE(client->stub().Allocate(client->Context().get(), request, &response).ok());
    EXPECT_EQ(response.status().code(), kInvalid);
    request.set_chip(0);
    request.set_owner_core(1000);
    ASSERT_TRUE(client->stub().Allocate(client->Context().get(), request, &response).ok());
    EXPECT_EQ(response.status().code(), kInvalid);
  }
  v1::AllocateResponse allocated = Allocate(*client, 1024);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t handle = allocated.info().handle();
  // Unknown handles.
  v1::MemoryRef ref;
  ref.set_handle(handle + 1000);
  v1::FreeResponse freed;
  ASSERT_TRUE(client->stub().Free(client->Context().get(), ref, &freed).ok());
  EXPECT_EQ(freed.status().code(), kInvalidHandle);
  v1::DescribeResponse described;
  ASSERT_TRUE(client->stub().Describe(client->Context().get(), ref, &described).ok());
  EXPECT_EQ(described.status().code(), kInvalidHandle);
  // Out-of-range offsets and sizes, including ones whose sum wraps.
  std::string bytes;
  EXPECT_EQ(ReadBytes(*client, handle, 1000, 100, &bytes), kInvalid);
  EXPECT_EQ(ReadBytes(*client, handle, 8, ~uint64_t{0}, &bytes), kInvalid);
  EXPECT_EQ(ReadBytes(*client, handle + 1, 0, 8, &bytes), kInvalidHandle);
  EXPECT_EQ(WriteStream(*client, {Header(handle, 1020, 8), Data("12345678")}), kInvalid);
  {
    v1::CopyRequest copy;
    copy.set_src_handle(handle);
    copy.set_dst_handle(handle);
    copy.set_src_offset(~uint64_t{0} - 2);
    copy.set_size(16);
    v1::CopyResponse response;
    ASSERT_TRUE(client->stub().Copy(client->Context().get(), copy, &response).ok());
    EXPECT_EQ(response.status().code(), kInvalid);
    v1::FillRequest fill;
    fill.set_handle(handle);
    fill.set_value(300);
    fill.set_size(4);
    v1::FillResponse filled;
    ASSERT_TRUE(client->stub().Fill(client->Context().get(), fill, &filled).ok());
    EXPECT_EQ(filled.status().code(), kInvalid);
    v1::HbmRef hbm;
    hbm.set_chip(-1);
    v1::GetHbmUsageResponse usage;
    ASSERT_TRUE(client->stub().GetHbmUsage(client->Context().get(), hbm, &usage).ok());
    EXPECT_EQ(usage.status().code(), kInvalid);
    v1::CoreRange cores;
    cores.set_first_physical_core(-3);
    cores.set_count(2);
    v1::AcquireCoresResponse acquired;
    ASSERT_TRUE(client->stub().AcquireCores(client->Context().get(), cores, &acquired).ok());
    EXPECT_EQ(acquired.status().code(), kInvalid);
  }
  // Streams: truncated, oversized, no header, a second header, an empty chunk, a chunk past
  // the total. Chunks are written as they arrive, so a stream refused part-way leaves its
  // range partly written (unspecified, like an interrupted DMA); nothing outside the header's
  // range ever changes, and a stream refused at its first chunk changes nothing.
  std::string before;
  ASSERT_EQ(ReadBytes(*client, handle, 0, 1024, &before), kOk);
  EXPECT_EQ(WriteStream(*client, {Header(handle, 0, 16), Data("12345678")}), kInvalid);
  EXPECT_EQ(WriteStream(*client, {Header(handle, 100, 4), Data("12345678")}), kInvalid);
  EXPECT_EQ(WriteStream(*client, {Data("12345678")}), kInvalid);
  EXPECT_EQ(WriteStream(*client, {}), kInvalid);
  EXPECT_EQ(
      WriteStream(*client, {Header(handle, 200, 8), Data("1234"), Header(handle, 200, 8)}),
      kInvalid);
  EXPECT_EQ(WriteStream(*client, {Header(handle, 300, 8), Data(""), Data("12345678")}),
            kInvalid);
  EXPECT_EQ(WriteStream(*client, {Header(handle, 400, 8), Data("1234"), Data("567890")}),
            kInvalid);
  std::string after;
  ASSERT_EQ(ReadBytes(*client, handle, 0, 1024, &after), kOk);
  // Unspecified: the ranges of streams refused after a chunk landed ([400, 404) is the chunk
  // before the one that passed the total, which is refused whole).
  for (auto [at, size] : std::vector<std::pair<size_t, size_t>>{{0, 16}, {200, 8}, {400, 4}}) {
    after.replace(at, size, before, at, size);
  }
  EXPECT_EQ(after, before);
  ExpectServing(*client);
}

TEST_F(NeurondServiceTest, WriteStreamsAreCheckedChunkByChunk) {
  auto client = Connect();
  v1::AllocateResponse allocated = Allocate(*client, 4 << 20);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t handle = allocated.info().handle();
  // Chunks land as they arrive: the first of a stream that then breaks off is in memory.
  EXPECT_EQ(WriteStream(*client, {Header(handle, 64, 16), Data("abcdefgh")}), kInvalid);
  std::string back;
  ASSERT_EQ(ReadBytes(*client, handle, 64, 8, &back), kOk);
  EXPECT_EQ(back, "abcdefgh");
  // A chunk above the protocol's chunk size (but under gRPC's message cap) is refused whole.
  const std::string big(driver::remote::kChunkBytes + 1, 'z');
  EXPECT_EQ(WriteStream(*client, {Header(handle, 0, 2 << 20), Data(big)}), kInvalid);
  ASSERT_EQ(ReadBytes(*client, handle, 0, 8, &back), kOk);
  EXPECT_EQ(back, std::string(8, '\0'));
  // Memory freed while its Write stream is open: the next chunk is refused.
  {
    auto context = client->Context();
    v1::WriteResponse response;
    auto writer = client->stub().Write(context.get(), &response);
    ASSERT_TRUE(writer->Write(Header(handle, 0, 16)));
    ASSERT_TRUE(writer->Write(Data("12345678")));
    v1::MemoryRef ref;
    ref.set_handle(handle);
    v1::FreeResponse freed;
    ASSERT_TRUE(client->stub().Free(client->Context().get(), ref, &freed).ok());
    EXPECT_EQ(freed.status().code(), kOk);
    writer->Write(Data("12345678"));
    writer->WritesDone();
    ASSERT_TRUE(writer->Finish().ok());
    EXPECT_EQ(response.status().code(), kInvalidHandle);
  }
  ExpectServing(*client);
}

TEST_F(NeurondServiceTest, OversizedMessagesAreRefusedByGrpc) {
  auto client = Connect();
  v1::AllocateResponse allocated = Allocate(*client, 4 << 20);
  ASSERT_EQ(allocated.status().code(), kOk);
  auto context = client->Context();
  v1::WriteResponse response;
  auto writer = client->stub().Write(context.get(), &response);
  writer->Write(Header(allocated.info().handle(), 0, 3 << 20));
  writer->Write(Data(std::string(3 << 20, 'x')));  // one message of 3 MiB, above the cap
  writer->WritesDone();
  EXPECT_EQ(writer->Finish().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ExpectServing(*client);
}

TEST_F(NeurondServiceTest, LargeTransfersTravelInChunks) {
  auto client = Connect();
  const uint64_t size = (3 << 20) + 12345;
  v1::AllocateResponse allocated = Allocate(*client, size);
  ASSERT_EQ(allocated.status().code(), kOk);
  std::string payload(size, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i % 251);
  std::vector<v1::WriteRequest> messages = {Header(allocated.info().handle(), 0, size)};
  for (uint64_t at = 0; at < size; at += 1 << 20) messages.push_back(Data(payload.substr(at, 1 << 20)));
  EXPECT_EQ(WriteStream(*client, messages), kOk);
  std::string back;
  EXPECT_EQ(ReadBytes(*client, allocated.info().handle(), 0, size, &back), kOk);
  EXPECT_TRUE(back == payload);
}

TEST_F(NeurondServiceTest, HandlesBelongToTheirSession) {
  auto alice = Connect();
  auto mallory = Connect();
  v1::AllocateResponse allocated = Allocate(*alice, 256);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t handle = allocated.info().handle();
  ASSERT_EQ(WriteStream(*alice, {Header(handle, 0, 4), Data("abcd")}), kOk);
  // Mallory has no allocation with that number (nor any other).
  std::string bytes;
  EXPECT_EQ(ReadBytes(*mallory, handle, 0, 4, &bytes), kInvalidHandle);
  EXPECT_EQ(WriteStream(*mallory, {Header(handle, 0, 4), Data("evil")}), kInvalidHandle);
  v1::MemoryRef ref;
  ref.set_handle(handle);
  v1::FreeResponse freed;
  ASSERT_TRUE(mallory->stub().Free(mallory->Context().get(), ref, &freed).ok());
  EXPECT_EQ(freed.status().code(), kInvalidHandle);
  EXPECT_EQ(ReadBytes(*alice, handle, 0, 4, &bytes), kOk);
  EXPECT_EQ(bytes, "abcd");
}

TEST_F(NeurondServiceTest, ACoreHasOneOwner) {
  auto alice = Connect();
  auto bob = Connect();
  v1::CoreRange range;
  range.set_first_physical_core(0);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(alice->stub().AcquireCores(alice->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kOk);
  range.set_first_physical_core(1);
  ASSERT_TRUE(bob->stub().AcquireCores(bob->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kFailure);
  // Bob releasing Alice's cores releases nothing.
  v1::ReleaseCoresResponse released;
  range.set_first_physical_core(0);
  ASSERT_TRUE(bob->stub().ReleaseCores(bob->Context().get(), range, &released).ok());
  EXPECT_EQ(released.status().code(), kOk);
  v1::StatusResponse status = DaemonStatus(*bob);
  ASSERT_GE(status.cores_size(), 3);
  EXPECT_EQ(status.cores(0).owner_session_id(), alice->session_id());
  EXPECT_EQ(status.cores(1).owner_session_id(), alice->session_id());
  EXPECT_EQ(status.cores(2).owner_session_id(), 0u);
  range.set_first_physical_core(2);
  ASSERT_TRUE(bob->stub().AcquireCores(bob->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kOk);
}

TEST_F(NeurondServiceTest, ABrokenAttachStreamEndsTheSessionAndFreesEverything) {
  auto observer = Connect();
  const uint64_t baseline = HbmUsed(DaemonStatus(*observer));
  auto victim = Connect();
  ASSERT_EQ(Allocate(*victim, 1 << 20).status().code(), kOk);
  ASSERT_EQ(Allocate(*victim, 4096, 2).status().code(), kOk);
  v1::CoreRange range;
  range.set_first_physical_core(0);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(victim->stub().AcquireCores(victim->Context().get(), range, &acquired).ok());
  ASSERT_EQ(acquired.status().code(), kOk);
  v1::StatusResponse during = DaemonStatus(*observer);
  EXPECT_GE(HbmUsed(during), baseline + (1 << 20) + 4096);
  ASSERT_EQ(during.sessions_size(), 2);
  const v1::SessionStatus& victim_status = during.sessions(1);
  EXPECT_EQ(victim_status.session_id(), victim->session_id());
  EXPECT_EQ(victim_status.client_pid(), 4242);
  uint64_t tensor_bytes = 0, constant_bytes = 0;
  for (const auto& memory : victim_status.memory()) {
    if (memory.category() == v1::MEMORY_CATEGORY_TENSOR) tensor_bytes += memory.bytes();
    if (memory.category() == v1::MEMORY_CATEGORY_CONSTANT) constant_bytes += memory.bytes();
  }
  EXPECT_EQ(tensor_bytes, 1u << 20);
  EXPECT_EQ(constant_bytes, 4096u);

  victim->BreakAttach();
  v1::StatusResponse after;
  for (int i = 0; i < 100; ++i) {
    after = DaemonStatus(*observer);
    if (after.sessions_size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(after.sessions_size(), 1);
  EXPECT_EQ(after.sessions(0).session_id(), observer->session_id());
  EXPECT_EQ(HbmUsed(after), baseline);
  for (const auto& core : after.cores()) EXPECT_EQ(core.owner_session_id(), 0u);
  // The ended session's key is dead.
  v1::AllocateResponse response;
  v1::AllocationRequest request;
  EXPECT_EQ(victim->stub().Allocate(victim->Context().get(), request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  // Its cores are free for others.
  ASSERT_TRUE(observer->stub().AcquireCores(observer->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kOk);
}

TEST_F(NeurondServiceTest, GoodbyeEndsTheSessionAndTheAttachStream) {
  auto client = Connect();
  ASSERT_EQ(Allocate(*client, 4096).status().code(), kOk);
  v1::GoodbyeResponse bye;
  ASSERT_TRUE(client->stub().Goodbye(client->Context().get(), v1::GoodbyeRequest(), &bye).ok());
  EXPECT_EQ(bye.status().code(), kOk);
  v1::SessionEvent event;
  EXPECT_FALSE(client->NextEvent(&event));  // the daemon closed the stream
  auto other = Connect();
  EXPECT_EQ(HbmUsed(DaemonStatus(*other)), 0u);
}

TEST_F(NeurondServiceTest, ASecondAttachStreamIsRefused) {
  auto client = Connect();
  grpc::ClientContext context;
  context.AddMetadata(kSessionKeyMetadata, client->key());
  auto stream = client->stub().Attach(&context, v1::AttachRequest());
  v1::SessionEvent event;
  EXPECT_FALSE(stream->Read(&event));
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  ExpectServing(*client);
}

TEST_F(NeurondServiceTest, LimitsOnSessionsAndSessionMemory) {
  StartDaemon(ServiceOptions{.token = kToken,
                             .lnc = 2,
                             .max_sessions = 2,
                             .max_session_memory_bytes = 1 << 20});
  auto first = Connect();
  auto second = Connect();
  RawClient third(daemon_->address());
  v1::HelloResponse hello;
  ASSERT_TRUE(third.Hello(kToken, &hello).ok());
  EXPECT_EQ(hello.status().code(), kResource);
  // Memory: 1 MiB per session, counted on what the device reserved.
  ASSERT_EQ(Allocate(*first, 512 << 10).status().code(), kOk);
  EXPECT_EQ(Allocate(*first, (512 << 10) + 1).status().code(), kResource);
  EXPECT_EQ(Allocate(*second, 1 << 20).status().code(), kOk);  // its own budget
  ASSERT_EQ(Allocate(*first, 512 << 10).status().code(), kOk);
  // LNC=2: cores are taken in pairs.
  v1::CoreRange range;
  range.set_first_physical_core(1);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(first->stub().AcquireCores(first->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kInvalid);
  range.set_first_physical_core(2);
  ASSERT_TRUE(first->stub().AcquireCores(first->Context().get(), range, &acquired).ok());
  EXPECT_EQ(acquired.status().code(), kOk);
}

// A session that never opens its Attach stream is ended attach_grace after its Hello, with
// whatever it holds, though nobody else calls Hello; attached sessions are left alone.
TEST_F(NeurondServiceTest, ASessionThatNeverAttachesIsEndedAfterTheGrace) {
  constexpr auto kGrace = std::chrono::milliseconds(300);
  StartDaemon(ServiceOptions{.token = kToken, .attach_grace = kGrace});
  auto observer = Connect();
  RawClient idle(daemon_->address());
  v1::HelloResponse hello;
  // Taken before the Hello: the daemon starts the session's clock while serving it.
  const auto said_hello = std::chrono::steady_clock::now();
  ASSERT_TRUE(idle.Hello(kToken, &hello).ok());
  ASSERT_EQ(hello.status().code(), kOk);
  ASSERT_EQ(Allocate(idle, 1 << 20).status().code(), kOk);
  v1::CoreRange range;
  range.set_first_physical_core(4);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(idle.stub().AcquireCores(idle.Context().get(), range, &acquired).ok());
  ASSERT_EQ(acquired.status().code(), kOk);
  ASSERT_EQ(DaemonStatus(*observer).sessions_size(), 2);

  v1::StatusResponse status;
  for (int i = 0; i < 250; ++i) {
    status = DaemonStatus(*observer);
    if (status.sessions_size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto ended = std::chrono::steady_clock::now() - said_hello;
  ASSERT_EQ(status.sessions_size(), 1) << "not ended 5 s after its Hello";
  EXPECT_GE(ended, kGrace);
  EXPECT_EQ(status.sessions(0).session_id(), observer->session_id());
  EXPECT_EQ(HbmUsed(status), 0u);
  for (const auto& core : status.cores()) EXPECT_EQ(core.owner_session_id(), 0u);
  // The ended session's key is dead: it cannot attach late.
  EXPECT_FALSE(idle.Attach());
  v1::AllocateResponse response;
  EXPECT_EQ(
      idle.stub().Allocate(idle.Context().get(), v1::AllocationRequest(), &response).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
  // The attached observer outlived several graces.
  std::this_thread::sleep_for(2 * kGrace);
  ExpectServing(*observer);
}

TEST_F(NeurondServiceTest, ShutdownTellsAttachedClients) {
  auto client = Connect();
  std::thread stopper([&] { daemon_->Shutdown(std::chrono::seconds(5)); });
  v1::SessionEvent event;
  ASSERT_TRUE(client->NextEvent(&event));
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  stopper.join();
}

// 16 fp32 (64 bytes) from var1 to var2, on the SP engine.
constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";

// A program that never ends: the pool engine branches back forever.
constexpr char kEndlessProgram[] =
    ".engine pool\n"
    "reg_set r1 = 0\n"
    "branch r1 == 0 -> 1\n"
    "notify_end\n";

std::string ProgramImage(const char* text) {
  StatusOr<isa::Program> program = isa::ParseProgram(text);
  EXPECT_TRUE(program.ok());
  StatusOr<std::vector<uint8_t>> stream = isa::EncodeStream(
      program->engine, program->instructions, isa::LimitsFor(simulator::Trainium2Spec()));
  EXPECT_TRUE(stream.ok());
  driver::ProgramImage image;
  image.streams[static_cast<size_t>(program->engine)] = *stream;
  return driver::remote::SerializeProgramImage(image);
}

std::string CopyProgramImage() { return ProgramImage(kCopyProgram); }

// Sends `pieces` after a header announcing `total` bytes; the response.
v1::LoadProgramResponse LoadProgram(RawClient& client, uint64_t total,
                                    const std::vector<std::string>& pieces) {
  auto context = client.Context();
  v1::LoadProgramResponse response;
  auto writer = client.stub().LoadProgram(context.get(), &response);
  v1::LoadProgramRequest header;
  header.mutable_header()->set_image_bytes(total);
  writer->Write(header);
  for (const std::string& piece : pieces) {
    v1::LoadProgramRequest chunk;
    chunk.set_chunk(piece);
    if (!writer->Write(chunk)) break;
  }
  writer->WritesDone();
  EXPECT_TRUE(writer->Finish().ok());
  return response;
}

v1::ExecuteResponse ExecuteCopy(RawClient& client, uint64_t program, int core, uint64_t src,
                                uint64_t dst) {
  v1::ExecuteRequest request;
  v1::CoreExecution* run = request.add_cores();
  run->set_program(program);
  run->set_physical_core(core);
  v1::VarBinding* in = run->add_vars();
  in->set_var_id(1);
  in->set_memory(src);
  in->set_size(64);
  v1::VarBinding* out = run->add_vars();
  out->set_var_id(2);
  out->set_memory(dst);
  out->set_size(64);
  v1::ExecuteResponse response;
  EXPECT_TRUE(client.stub().Execute(client.Context().get(), request, &response).ok());
  return response;
}

TEST_F(NeurondServiceTest, ProgramsRunOnHeldCoresWithTheSessionsHandlesOnly) {
  auto alice = Connect();
  auto bob = Connect();
  v1::CoreRange range;
  range.set_first_physical_core(0);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(alice->stub().AcquireCores(alice->Context().get(), range, &acquired).ok());
  range.set_first_physical_core(2);
  ASSERT_TRUE(bob->stub().AcquireCores(bob->Context().get(), range, &acquired).ok());
  const uint64_t src = Allocate(*alice, 64).info().handle();
  const uint64_t dst = Allocate(*alice, 64).info().handle();
  std::string pattern(64, '\0');
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 3 + 5);
  ASSERT_EQ(WriteStream(*alice, {Header(src, 0, 64), Data(pattern)}), kOk);

  // Loaded in two chunks; the image is only parsed once all arrived.
  const std::string image = CopyProgramImage();
  const size_t half = image.size() / 2;
  v1::LoadProgramResponse loaded =
      LoadProgram(*alice, image.size(), {image.substr(0, half), image.substr(half)});
  ASSERT_EQ(loaded.status().code(), kOk) << loaded.status().message();
  const uint64_t program = loaded.program();
  v1::ExecuteResponse executed = ExecuteCopy(*alice, program, 1, src, dst);
  ASSERT_EQ(executed.status().code(), kOk) << executed.status().message();
  EXPECT_GT(executed.result().duration_ps(), 0u);
  std::string back;
  ASSERT_EQ(ReadBytes(*alice, dst, 0, 64, &back), kOk);
  EXPECT_EQ(back, pattern);

  v1::StatusResponse status = DaemonStatus(*bob);
  EXPECT_EQ(status.executions(), 1u);
  EXPECT_EQ(status.cores(1).executions(), 1u);
  EXPECT_GT(status.cores(1).busy_ps(), 0u);
  EXPECT_EQ(status.cores(0).executions(), 0u);
  ASSERT_EQ(status.sessions_size(), 2);
  EXPECT_EQ(status.sessions(0).loaded_programs(), 1u);
  EXPECT_EQ(status.sessions(0).executions(), 1u);

  // Bob: Alice's program and memory are unknown to him; Alice's cores are not his.
  EXPECT_EQ(ExecuteCopy(*bob, program, 2, src, dst).status().code(), kInvalidHandle);
  v1::LoadProgramResponse bobs = LoadProgram(*bob, image.size(), {image});
  ASSERT_EQ(bobs.status().code(), kOk);
  EXPECT_EQ(ExecuteCopy(*bob, bobs.program(), 2, src, dst).status().code(), kInvalidHandle);
  EXPECT_EQ(ExecuteCopy(*bob, bobs.program(), 1, src, dst).status().code(), kFailure);
  EXPECT_EQ(ExecuteCopy(*alice, program, 9, src, dst).status().code(), kInvalid);
  v1::ProgramRef ref;
  ref.set_program(program + 100);
  v1::UnloadProgramResponse unloaded;
  ASSERT_TRUE(bob->stub().UnloadProgram(bob->Context().get(), ref, &unloaded).ok());
  EXPECT_EQ(unloaded.status().code(), kInvalidHandle);

  // Malformed LoadProgram streams: short, long, not a ProgramImage, oversized header.
  EXPECT_EQ(LoadProgram(*alice, image.size(), {image.substr(0, half)}).status().code(), kInvalid);
  EXPECT_EQ(LoadProgram(*alice, half, {image}).status().code(), kInvalid);
  EXPECT_EQ(LoadProgram(*alice, 5, {"\xff\xff\xff\xff\xff"}).status().code(), kInvalid);
  EXPECT_EQ(LoadProgram(*alice, uint64_t{1} << 40, {"x"}).status().code(), kInvalid);

  ref.set_program(program);
  ASSERT_TRUE(alice->stub().UnloadProgram(alice->Context().get(), ref, &unloaded).ok());
  EXPECT_EQ(unloaded.status().code(), kOk);
  EXPECT_EQ(ExecuteCopy(*alice, program, 1, src, dst).status().code(), kInvalidHandle);
  EXPECT_EQ(DaemonStatus(*alice).sessions(0).loaded_programs(), 0u);
  ExpectServing(*alice);
}

// LoadProgram with a model header (LoadProgramHeader.model_*); the response.
v1::LoadProgramResponse LoadModelProgram(RawClient& client, const std::string& image,
                                         uint64_t model_id, const std::string& name,
                                         const std::string& uuid) {
  auto context = client.Context();
  v1::LoadProgramResponse response;
  auto writer = client.stub().LoadProgram(context.get(), &response);
  v1::LoadProgramRequest header;
  header.mutable_header()->set_image_bytes(image.size());
  header.mutable_header()->set_model_id(model_id);
  header.mutable_header()->set_model_name(name);
  header.mutable_header()->set_model_uuid(uuid);
  v1::LoadProgramRequest chunk;
  chunk.set_chunk(image);
  if (writer->Write(header)) writer->Write(chunk);
  writer->WritesDone();
  EXPECT_TRUE(writer->Finish().ok());
  return response;
}

// The wire fields of the model era: a client that sets none of them (an older one) gets what
// it got before — memory of no model, no models, its executions sampled — and one that tags
// its programs and memory sees them grouped per model, running or not, until unloaded.
TEST_F(NeurondServiceTest, ModelTagsAreOptionalAndReportedPerSession) {
  auto observer = Connect();
  auto client = Connect();
  v1::CoreRange range;
  range.set_first_physical_core(0);
  range.set_count(2);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(client->stub().AcquireCores(client->Context().get(), range, &acquired).ok());
  ASSERT_EQ(acquired.status().code(), kOk);

  // Untagged, as an older client sends everything.
  const uint64_t src = Allocate(*client, 64).info().handle();
  const uint64_t dst = Allocate(*client, 64).info().handle();
  const std::string image = CopyProgramImage();
  v1::LoadProgramResponse plain = LoadProgram(*client, image.size(), {image});
  ASSERT_EQ(plain.status().code(), kOk) << plain.status().message();
  v1::ExecuteResponse executed = ExecuteCopy(*client, plain.program(), 1, src, dst);
  ASSERT_EQ(executed.status().code(), kOk) << executed.status().message();
  // Refused before the Device: counted nowhere.
  EXPECT_EQ(ExecuteCopy(*client, plain.program(), 9, src, dst).status().code(), kInvalid);

  v1::StatusResponse status = DaemonStatus(*observer);
  ASSERT_EQ(status.sessions_size(), 2);
  const v1::SessionStatus* session = &status.sessions(1);
  ASSERT_EQ(session->session_id(), client->session_id());
  EXPECT_EQ(session->models_size(), 0);
  ASSERT_GT(session->memory_size(), 0);
  for (const auto& memory : session->memory()) EXPECT_EQ(memory.model_id(), 0u);
  ASSERT_EQ(session->recent_executions_size(), 1);
  EXPECT_TRUE(session->recent_executions(0).ok());
  EXPECT_GT(session->recent_executions(0).wall_ns(), 0u);
  EXPECT_EQ(session->recent_executions(0).simulated_ps(), executed.result().duration_ps());
  EXPECT_LE(session->recent_executions(0).finished_ms(), status.uptime_ms());
  EXPECT_GT(status.cores(1).busy_wall_ns(), 0u);
  EXPECT_LE(status.cores(1).busy_wall_ns(), status.uptime_ms() * 1'000'000);
  EXPECT_EQ(status.cores(0).busy_wall_ns(), 0u);
  EXPECT_EQ(status.cores(1).flops(), 0u);  // a DMA copy does no arithmetic

  // Malformed model headers.
  EXPECT_EQ(LoadModelProgram(*client, image, 0, "orphan", "").status().code(), kInvalid);
  EXPECT_EQ(LoadModelProgram(*client, image, 0, "", std::string(32, 'a')).status().code(),
            kInvalid);
  EXPECT_EQ(LoadModelProgram(*client, image, 7, "m", std::string(32, 'A')).status().code(),
            kInvalid);
  EXPECT_EQ(LoadModelProgram(*client, image, 7, "m", "0123").status().code(), kInvalid);
  EXPECT_EQ(DaemonStatus(*observer).sessions(1).loaded_programs(), 1u);

  // Tagged: memory of model 7 charged to core 0, its endless program run on core 1.
  const std::string uuid = "00112233445566778899aabbccddeeff";
  v1::AllocationRequest request;
  request.set_size_bytes(4096);
  request.set_alignment_bytes(64);
  request.set_owner_core(0);
  request.set_category(v1::MEMORY_CATEGORY_CONSTANT);
  request.set_owner_model_id(7);
  v1::AllocateResponse tagged;
  ASSERT_TRUE(client->stub().Allocate(client->Context().get(), request, &tagged).ok());
  ASSERT_EQ(tagged.status().code(), kOk);
  v1::LoadProgramResponse endless =
      LoadModelProgram(*client, ProgramImage(kEndlessProgram), 7, "endless", uuid);
  ASSERT_EQ(endless.status().code(), kOk) << endless.status().message();
  status = DaemonStatus(*observer);
  session = &status.sessions(1);
  ASSERT_EQ(session->models_size(), 1);
  EXPECT_EQ(session->models(0).model_id(), 7u);
  EXPECT_EQ(session->models(0).name(), "endless");
  EXPECT_EQ(session->models(0).uuid(), uuid);
  EXPECT_EQ(session->models(0).chip(), 0);
  ASSERT_EQ(session->models(0).physical_core_size(), 1);
  EXPECT_EQ(session->models(0).physical_core(0), 0);
  EXPECT_FALSE(session->models(0).is_running());
  uint64_t model_bytes = 0, other_bytes = 0;
  for (const auto& memory : session->memory()) {
    (memory.model_id() == 7 ? model_bytes : other_bytes) += memory.bytes();
    if (memory.model_id() == 7) EXPECT_EQ(memory.category(), v1::MEMORY_CATEGORY_CONSTANT);
  }
  EXPECT_EQ(model_bytes, tagged.info().size_bytes());
  EXPECT_EQ(model_bytes + other_bytes, HbmUsed(status));

  v1::ExecuteRequest run_forever;
  v1::CoreExecution* run = run_forever.add_cores();
  run->set_program(endless.program());
  run->set_physical_core(1);
  run_forever.mutable_options()->set_host_timeout_ms(3000);
  v1::ExecuteResponse timed_out;
  std::thread execution([&] {
    EXPECT_TRUE(client->stub().Execute(client->Context().get(), run_forever, &timed_out).ok());
  });
  bool seen_running = false;
  for (int i = 0; i < 140 && !seen_running; ++i) {
    status = DaemonStatus(*observer);
    seen_running = status.sessions(1).models_size() == 1 &&
                   status.sessions(1).models(0).is_running();
    if (!seen_running) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  execution.join();
  EXPECT_TRUE(seen_running);
  EXPECT_EQ(timed_out.status().code(), 5u) << timed_out.status().message();  // NRT_TIMEOUT
  status = DaemonStatus(*observer);
  session = &status.sessions(1);
  ASSERT_EQ(session->models_size(), 1);
  EXPECT_FALSE(session->models(0).is_running());
  // Its cores now include the one it ran on.
  ASSERT_EQ(session->models(0).physical_core_size(), 2);
  EXPECT_EQ(session->models(0).physical_core(1), 1);
  ASSERT_EQ(session->recent_executions_size(), 2);
  EXPECT_FALSE(session->recent_executions(1).ok());
  EXPECT_EQ(session->recent_executions(1).simulated_ps(), 0u);
  EXPECT_GE(session->recent_executions(1).wall_ns(), 2'000'000'000u);
  EXPECT_GE(session->recent_executions(1).finished_ms(),
            session->recent_executions(0).finished_ms());
  EXPECT_EQ(session->failed_executions(), 1u);
  // The failed execution kept core 1 busy for its 3 s too.
  EXPECT_GE(status.cores(1).busy_wall_ns(), 2'000'000'000u);

  // Unloaded: the model goes; its memory stays attributed until freed.
  v1::ProgramRef ref;
  ref.set_program(endless.program());
  v1::UnloadProgramResponse unloaded;
  ASSERT_TRUE(client->stub().UnloadProgram(client->Context().get(), ref, &unloaded).ok());
  ASSERT_EQ(unloaded.status().code(), kOk);
  status = DaemonStatus(*observer);
  EXPECT_EQ(status.sessions(1).models_size(), 0);
  v1::MemoryRef memory_ref;
  memory_ref.set_handle(tagged.info().handle());
  v1::FreeResponse freed;
  ASSERT_TRUE(client->stub().Free(client->Context().get(), memory_ref, &freed).ok());
  ASSERT_EQ(freed.status().code(), kOk);
  status = DaemonStatus(*observer);
  for (const auto& memory : status.sessions(1).memory()) EXPECT_EQ(memory.model_id(), 0u);
}

// A client that goes away mid-execution: its session ends, the execution is cancelled rather
// than run to its end, and everything the session held is released.
TEST_F(NeurondServiceTest, AnExecutionIsCancelledWhenItsSessionEnds) {
  auto observer = Connect();
  auto victim = Connect();
  v1::CoreRange range;
  range.set_first_physical_core(3);
  range.set_count(1);
  v1::AcquireCoresResponse acquired;
  ASSERT_TRUE(victim->stub().AcquireCores(victim->Context().get(), range, &acquired).ok());
  ASSERT_EQ(acquired.status().code(), kOk);
  ASSERT_EQ(Allocate(*victim, 1 << 20).status().code(), kOk);
  const std::string image = ProgramImage(kEndlessProgram);
  v1::LoadProgramResponse loaded = LoadProgram(*victim, image.size(), {image});
  ASSERT_EQ(loaded.status().code(), kOk) << loaded.status().message();

  v1::ExecuteRequest request;
  v1::CoreExecution* run = request.add_cores();
  run->set_program(loaded.program());
  run->set_physical_core(3);
  request.mutable_options()->set_host_timeout_ms(60000);  // a safety net only
  v1::ExecuteResponse executed;
  std::thread execution([&] {
    EXPECT_TRUE(victim->stub().Execute(victim->Context().get(), request, &executed).ok());
  });
  v1::StatusResponse status;
  for (int i = 0; i < 250; ++i) {
    status = DaemonStatus(*observer);
    if (status.sessions_size() == 2 && status.sessions(1).executions_running() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(status.sessions(1).executions_running(), 1u);

  const auto broke = std::chrono::steady_clock::now();
  victim->BreakAttach();
  execution.join();
  EXPECT_LT(std::chrono::steady_clock::now() - broke, std::chrono::seconds(5));
  EXPECT_EQ(executed.status().code(), kFailure);
  EXPECT_NE(executed.status().message().find("cancelled"), std::string::npos)
      << executed.status().message();
  for (int i = 0; i < 100; ++i) {
    status = DaemonStatus(*observer);
    if (status.sessions_size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(status.sessions_size(), 1);
  EXPECT_EQ(HbmUsed(status), 0u);
  for (const auto& core : status.cores()) EXPECT_EQ(core.owner_session_id(), 0u);
  ExpectServing(*observer);
}

}  // namespace
}  // namespace trnsim::neurond
