// The request ring of a shared-memory region (driver/remote/shared_ring.h,
// tools/neurond/ring_server.h) against an in-process daemon: transfers through the client's
// SharedTransfer, then requests written into the ring by hand — every malformed one answered
// with its documented status, a client posting too far ahead served no more, and the ring's
// thread stopped with its session.
#include "driver/remote/shared_ring.h"

#include <gmock/gmock.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "driver/remote/fd_passing.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/shared_transfer.h"
#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

namespace remote = driver::remote;
using remote::RingControl;
using remote::RingOp;
using remote::SharedRegion;

class SharedRingTest : public NeurondServiceTest {
 protected:
  // A region of `bytes` registered for `client`, asking for the ring.
  std::unique_ptr<SharedRegion> RegisterRing(RawClient& client, uint64_t bytes, bool* ring,
                                             uint64_t* id = nullptr) {
    StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(bytes);
    EXPECT_TRUE(region.ok());
    StatusOr<remote::RegisteredRegion> registered = remote::RegisterSharedRegionWithRing(
        **region, remote::SharedMemorySocketPath(daemon_->address().substr(5)), client.key(), 2000);
    EXPECT_TRUE(registered.ok()) << registered.status().message();
    *ring = registered.ok() && registered->ring;
    if (id != nullptr && registered.ok()) *id = registered->id;
    return std::move(*region);
  }

  // Posts request number `seq` by hand and waits up to `wait` for the daemon to complete it;
  // its status, or nullopt when it did not complete.
  static std::optional<Status> Post(SharedRegion& region, uint32_t seq, RingOp op, uint64_t handle,
                                    uint64_t offset, uint64_t size,
                                    std::chrono::milliseconds wait = std::chrono::seconds(5)) {
    auto* control = reinterpret_cast<RingControl*>(region.data());
    const uint32_t slot = (seq - 1) % remote::kRingSlots;
    control->requests[slot] = {static_cast<uint32_t>(op), 0, handle, offset, size};
    control->posted.store(seq);
    remote::FutexWake(&control->posted);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (control->completed.load() != seq) {
      if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
      remote::FutexWait(&control->completed, control->completed.load(), 1'000'000);
    }
    return remote::LoadRingStatus(control->responses[slot]);
  }
};

TEST_F(SharedRingTest, TransfersThroughTheRingMoveTheBytes) {
  auto client = Connect();
  bool ring = false;
  uint64_t id = 0;
  // Four data slots of 16 KiB: a transfer of 300'005 bytes is many pieces, several in flight.
  std::unique_ptr<SharedRegion> region =
      RegisterRing(*client, remote::kRingControlBytes + 4 * 16384, &ring, &id);
  ASSERT_TRUE(ring);
  remote::SharedTransfer transfer(std::move(region), id, &client->stub(), /*ring=*/true);
  remote::SharedCallHooks hooks;
  hooks.ring_deadline = std::chrono::seconds(10);
  const uint64_t size = 300'005;
  const uint64_t handle = Allocate(*client, size + 10).info().handle();
  auto lock = transfer.TryLock();
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{16384}, size}) {
    SCOPED_TRACE(bytes);
    const std::string pattern = BytePattern(bytes, int(bytes % 97));
    ASSERT_TRUE(transfer.Write(handle, 10, pattern.data(), bytes, hooks).ok());
    std::string back;
    ASSERT_EQ(ReadBytes(*client, handle, 10, bytes, &back), kOk);
    EXPECT_EQ(back, pattern);
    std::string read(bytes, '\0');
    ASSERT_TRUE(transfer.Read(handle, 10, read.data(), bytes, hooks).ok());
    EXPECT_EQ(read, pattern);
  }
  // Pieces past the allocation's end are refused; the first refusal is what returns, and the
  // ring keeps serving.
  std::string read(size, '\0');
  Status refused = transfer.Read(handle, 4096, read.data(), size, hooks);
  EXPECT_EQ(refused.code(), StatusCode::kInvalid);
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("outside"));
  EXPECT_TRUE(transfer.Read(handle, 0, read.data(), size, hooks).ok());
  EXPECT_FALSE(transfer.broken());
}

// A ring nobody serves (the region registered without one): the transfer times out, or returns
// the session's failure once the hook reports one, and the region is not used again.
TEST_F(SharedRingTest, AnUnservedRingTimesOutAndIsBroken) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(1 << 20);
  ASSERT_TRUE(region.ok());
  StatusOr<uint64_t> id = remote::RegisterSharedRegion(
      **region, remote::SharedMemorySocketPath(daemon_->address().substr(5)), client->key(), 2000);
  ASSERT_TRUE(id.ok());
  const uint64_t handle = Allocate(*client, 4096).info().handle();
  std::string bytes(4096, 'x');
  {
    std::unique_ptr<SharedRegion> copy = SharedRegion::Create(1 << 20).value();
    remote::SharedTransfer transfer(std::move(*region), *id, &client->stub(), /*ring=*/true);
    remote::SharedCallHooks hooks;
    hooks.ring_deadline = std::chrono::milliseconds(200);
    auto lock = transfer.TryLock();
    EXPECT_EQ(transfer.Write(handle, 0, bytes.data(), bytes.size(), hooks).code(),
              StatusCode::kTimeout);
    EXPECT_TRUE(transfer.broken());
    remote::SharedTransfer gone(std::move(copy), *id, &client->stub(), /*ring=*/true);
    hooks.ring_deadline = std::chrono::milliseconds(0);  // none: only the hook ends the wait
    hooks.session_status = [] { return FailureError("the daemon ended the session"); };
    auto gone_lock = gone.TryLock();
    Status status = gone.Read(handle, 0, bytes.data(), bytes.size(), hooks);
    EXPECT_EQ(status.code(), StatusCode::kFailure);
    EXPECT_THAT(status.message(), ::testing::HasSubstr("ended the session"));
    EXPECT_TRUE(gone.broken());
  }
  // A daemon's "ring" for a region too small to hold one is not believed: the RPCs serve.
  EXPECT_FALSE(remote::SharedTransfer(SharedRegion::Create(remote::kMinRingRegionBytes - 1).value(),
                                      *id, &client->stub(), /*ring=*/true)
                   .ring());
  ExpectServing(*client);
}

TEST_F(SharedRingTest, MalformedRequestsGetTheirStatus) {
  auto client = Connect();
  auto other = Connect();
  bool ring = false;
  std::unique_ptr<SharedRegion> region = RegisterRing(*client, 1 << 20, &ring);
  ASSERT_TRUE(ring);
  const uint64_t slot_bytes = remote::RingSlotBytes(region->size());
  const uint64_t handle = Allocate(*client, 8192).info().handle();
  // Handles are numbered per session: the other session's second one is not this session's.
  Allocate(*other, 8192);
  const uint64_t foreign = Allocate(*other, 8192).info().handle();
  ASSERT_NE(foreign, handle);
  uint32_t seq = 0;
  auto code = [&](uint32_t op, uint64_t h, uint64_t offset, uint64_t size) {
    std::optional<Status> status = Post(*region, ++seq, static_cast<RingOp>(op), h, offset, size);
    EXPECT_TRUE(status.has_value()) << "request " << seq << " not served";
    return status.has_value() ? status->code() : StatusCode::kFailure;
  };
  EXPECT_EQ(code(1, handle, 0, 8192), StatusCode::kOk);
  EXPECT_EQ(code(2, handle, 8192, 0), StatusCode::kOk);     // empty, at the end
  EXPECT_EQ(code(0, handle, 0, 16), StatusCode::kInvalid);  // unknown op
  EXPECT_EQ(code(4, handle, 0, 16), StatusCode::kInvalid);
  EXPECT_EQ(code(1, handle, 0, slot_bytes + 1), StatusCode::kInvalid);  // above a data slot
  EXPECT_EQ(code(1, handle, 1, 8192), StatusCode::kInvalid);            // past the allocation
  EXPECT_EQ(code(2, handle, ~uint64_t{0}, 2), StatusCode::kInvalid);    // wrapping
  EXPECT_EQ(code(2, handle + 1000, 0, 16), StatusCode::kInvalidHandle);
  EXPECT_EQ(code(1, foreign, 0, 16), StatusCode::kInvalidHandle);  // another session's
  // A status read back names what was wrong.
  std::optional<Status> status = Post(*region, ++seq, RingOp::kRead, handle, 8000, 500);
  ASSERT_TRUE(status.has_value());
  EXPECT_THAT(status->message(), ::testing::HasSubstr("outside"));
  ExpectServing(*client);
}

// Executions posted on the ring (RingOp kExecute): the request is parsed from a copy of its
// data slot; what is not an ExecuteRequest, or asks for a trace, is refused in the ring's status;
// one the daemon runs answers with its ExecuteResponse in the slot, its own status inside; a
// ring registered without ring_execute refuses the op.
TEST_F(SharedRingTest, ExecutionsOnTheRing) {
  auto client = Connect();
  bool ring = false;
  std::unique_ptr<SharedRegion> region = RegisterRing(*client, 1 << 20, &ring);
  ASSERT_TRUE(ring);
  uint8_t* slot0 = region->data() + remote::RingSlotOffset(region->size(), 0);
  auto* control = reinterpret_cast<RingControl*>(region->data());
  uint32_t seq = 0;
  auto post = [&](const std::string& bytes) {
    std::memcpy(region->data() + remote::RingSlotOffset(region->size(), seq % remote::kRingSlots),
                bytes.data(), bytes.size());
    std::optional<Status> status = Post(*region, ++seq, RingOp::kExecute, 0, 0, bytes.size());
    EXPECT_TRUE(status.has_value()) << "request " << seq << " not served";
    return status.value_or(FailureError("not served"));
  };
  EXPECT_EQ(post(std::string(16, '\xff')).code(), StatusCode::kInvalid);  // not a message
  v1::ExecuteRequest traced;
  traced.mutable_options()->set_record_trace(true);
  Status refused = post(traced.SerializeAsString());
  EXPECT_EQ(refused.code(), StatusCode::kInvalid);
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("trace"));
  // No cores: run and refused by the runtime's checks, so the reply carries the refusal.
  seq = 4;  // the next request uses slot 0
  Status served = post(v1::ExecuteRequest().SerializeAsString());
  ASSERT_TRUE(served.ok()) << served.ToString();
  const uint64_t reply_bytes = control->responses[0].reply_bytes;
  v1::ExecuteResponse reply;
  ASSERT_TRUE(reply.ParseFromArray(slot0, int(reply_bytes)));
  EXPECT_NE(reply.status().code(), kOk);
  EXPECT_FALSE(reply.has_result());
  ExpectServing(*client);

  // A ring asked for without executions (an older client): kExecute is an unknown op.
  StatusOr<std::unique_ptr<SharedRegion>> plain = SharedRegion::Create(1 << 20);
  ASSERT_TRUE(plain.ok());
  StatusOr<driver::remote::UniqueFd> side = remote::ConnectSharedMemorySocket(
      remote::SharedMemorySocketPath(daemon_->address().substr(5)), 2000);
  ASSERT_TRUE(side.ok());
  v1::SharedRegionRequest request;
  request.set_session_key(client->key());
  request.set_ring(true);
  ASSERT_TRUE(remote::SendWithFd(side->get(), request.SerializeAsString(), (*plain)->fd()).ok());
  StatusOr<remote::Datagram> answer = remote::ReceiveWithFd(side->get(), 4096);
  ASSERT_TRUE(answer.ok());
  v1::SharedRegionResponse registered;
  ASSERT_TRUE(registered.ParseFromString(answer->bytes));
  ASSERT_TRUE(registered.ring());
  EXPECT_FALSE(registered.ring_execute());
  std::optional<Status> unknown = Post(**plain, 1, RingOp::kExecute, 0, 0, 0);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->code(), StatusCode::kInvalid);
  EXPECT_THAT(unknown->message(), ::testing::HasSubstr("unknown ring op"));
}

TEST_F(SharedRingTest, PostingTooFarAheadStopsTheRingOnly) {
  auto client = Connect();
  bool ring = false;
  std::unique_ptr<SharedRegion> region = RegisterRing(*client, 1 << 20, &ring);
  ASSERT_TRUE(ring);
  const uint64_t handle = Allocate(*client, 4096).info().handle();
  ASSERT_TRUE(Post(*region, 1, RingOp::kWrite, handle, 0, 4096).has_value());
  // Request 7 while 1 was the last served: six ahead of the daemon.
  EXPECT_FALSE(Post(*region, 7, RingOp::kWrite, handle, 0, 4096, std::chrono::milliseconds(300))
                   .has_value());
  EXPECT_FALSE(Post(*region, 2, RingOp::kWrite, handle, 0, 4096, std::chrono::milliseconds(300))
                   .has_value());
  ExpectServing(*client);  // the session and its RPCs go on
}

TEST_F(SharedRingTest, SmallRegionsGetNoRingAndRingsEndWithTheirSession) {
  auto client = Connect();
  bool ring = true;
  RegisterRing(*client, remote::kMinRingRegionBytes - 1, &ring);
  EXPECT_FALSE(ring);
  std::unique_ptr<SharedRegion> region = RegisterRing(*client, 1 << 20, &ring);
  ASSERT_TRUE(ring);
  const uint64_t handle = Allocate(*client, 4096).info().handle();
  ASSERT_TRUE(Post(*region, 1, RingOp::kWrite, handle, 0, 4096).has_value());
  v1::GoodbyeResponse bye;
  ASSERT_TRUE(client->stub().Goodbye(client->Context().get(), v1::GoodbyeRequest(), &bye).ok());
  // The ring's thread has stopped: nothing serves request 2.
  EXPECT_FALSE(Post(*region, 2, RingOp::kWrite, handle, 0, 4096, std::chrono::milliseconds(300))
                   .has_value());
}

}  // namespace
}  // namespace trnsim::neurond
