// neurond's service against a raw gRPC client: authentication, malformed requests, handle
// isolation between sessions, core ownership, limits, cleanup when a client vanishes and the
// point-to-point RPC. After every refusal the daemon must go on serving. Programs and
// executions: service_programs_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

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

// PointToPoint: malformed operations are refused, a POST names the session's own memory (its
// range checked), and the bytes move between two sessions' allocations inside the daemon.
v1::PointToPointResponse PeerRpc(RawClient& client, const v1::PointToPointRequest& request) {
  v1::PointToPointResponse response;
  grpc::Status rpc = client.stub().PointToPoint(client.Context().get(), request, &response);
  EXPECT_TRUE(rpc.ok()) << rpc.error_message();
  return response;
}

TEST_F(NeurondServiceTest, PointToPointChecksItsRequestsAndMovesBytesBetweenSessions) {
  auto sender = Connect();
  auto receiver = Connect();
  // An end is opened on a logical core the session holds (2 physical cores at LNC 2).
  for (auto [client, first] : {std::pair{sender.get(), 0}, std::pair{receiver.get(), 2}}) {
    v1::CoreRange range;
    range.set_first_physical_core(first);
    range.set_count(2);
    v1::AcquireCoresResponse acquired;
    ASSERT_TRUE(client->stub().AcquireCores(client->Context().get(), range, &acquired).ok());
    ASSERT_EQ(acquired.status().code(), kOk);
  }
  v1::AllocateResponse src = Allocate(*sender, 1024);
  v1::AllocateResponse dst = Allocate(*receiver, 1024);
  ASSERT_EQ(src.status().code(), kOk);
  ASSERT_EQ(dst.status().code(), kOk);
  ASSERT_EQ(WriteStream(*sender, {Header(src.info().handle(), 0, 8), Data("abcdefgh")}), kOk);

  v1::PointToPointRequest bad;
  bad.set_op(static_cast<v1::PeerOp>(77));
  EXPECT_EQ(PeerRpc(*sender, bad).status().code(), kInvalid);
  bad.set_op(v1::PEER_OPEN);
  bad.set_side(static_cast<v1::PeerSide>(9));
  EXPECT_EQ(PeerRpc(*sender, bad).status().code(), kInvalid);

  v1::PointToPointRequest open;
  open.set_op(v1::PEER_OPEN);
  open.set_side(v1::PEER_SEND);
  open.set_lnc(0);
  open.set_peer_lnc(1);
  v1::PointToPointResponse send = PeerRpc(*sender, open);
  ASSERT_EQ(send.status().code(), kOk);
  open.set_side(v1::PEER_RECV);
  open.set_lnc(1);
  open.set_peer_lnc(0);
  v1::PointToPointResponse recv = PeerRpc(*receiver, open);
  ASSERT_EQ(recv.status().code(), kOk);

  v1::PointToPointRequest post;
  post.set_op(v1::PEER_POST);
  post.set_id(send.id());
  post.set_memory_handle(src.info().handle() + 1000);  // not the sender's
  post.set_length(8);
  EXPECT_EQ(PeerRpc(*sender, post).status().code(), kInvalidHandle);
  post.set_memory_handle(src.info().handle());
  post.set_offset(1020);  // past the end
  EXPECT_EQ(PeerRpc(*sender, post).status().code(), kInvalid);
  post.set_offset(0);
  v1::PointToPointResponse sent = PeerRpc(*sender, post);
  ASSERT_EQ(sent.status().code(), kOk);
  post.set_id(recv.id());
  post.set_memory_handle(dst.info().handle());
  post.set_offset(100);
  v1::PointToPointResponse received = PeerRpc(*receiver, post);
  ASSERT_EQ(received.status().code(), kOk);

  v1::PointToPointRequest test;
  test.set_op(v1::PEER_TEST);
  test.set_id(received.id());
  v1::PointToPointResponse tested = PeerRpc(*receiver, test);
  EXPECT_EQ(tested.status().code(), kOk);
  EXPECT_TRUE(tested.done());
  EXPECT_EQ(tested.bytes(), 8u);
  EXPECT_EQ(tested.transfer_status().code(), kOk);
  std::string bytes;
  ASSERT_EQ(ReadBytes(*receiver, dst.info().handle(), 100, 8, &bytes), kOk);
  EXPECT_EQ(bytes, "abcdefgh");
  ExpectServing(*sender);
}

}  // namespace
}  // namespace trnsim::neurond
