// PeerExchange (simulator/collective/point_to_point.h): pairing order of comms and transfers,
// length mismatches, close with work in flight, a closed peer, unknown ids. The Copier copies
// between byte vectors named by "memory handles" (indices into `memory`), so every transfer's
// bytes can be checked.
#include "simulator/collective/point_to_point.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace trnsim::simulator::collective {
namespace {

class CollectivePeerExchange : public ::testing::Test {
 protected:
  CollectivePeerExchange()
      : memory_(4, std::vector<uint8_t>(64, 0)),
        exchange_([this](uint64_t src, uint64_t src_offset, uint64_t dst, uint64_t dst_offset,
                         uint64_t size) -> Status {
          ++copies_;
          if (src >= memory_.size() || dst >= memory_.size()) {
            return InvalidHandleError("no memory " + std::to_string(src));
          }
          std::memcpy(memory_[dst].data() + dst_offset, memory_[src].data() + src_offset, size);
          return Status::Ok();
        }) {
    for (size_t m = 0; m < memory_.size(); ++m) {
      for (size_t i = 0; i < memory_[m].size(); ++i) memory_[m][i] = uint8_t(m * 64 + i);
    }
  }

  uint64_t Open(PeerSide side, int lnc, int peer) {
    StatusOr<uint64_t> comm = exchange_.Open(side, lnc, peer);
    EXPECT_TRUE(comm.ok()) << comm.status().ToString();
    return comm.ok() ? *comm : 0;
  }
  uint64_t Post(uint64_t comm, uint64_t memory, uint64_t offset, uint64_t length) {
    StatusOr<uint64_t> request = exchange_.Post(comm, PeerBuffer{memory, offset, length});
    EXPECT_TRUE(request.ok()) << request.status().ToString();
    return request.ok() ? *request : 0;
  }
  PeerRequestState Test(uint64_t request) {
    StatusOr<PeerRequestState> state = exchange_.Test(request);
    EXPECT_TRUE(state.ok()) << state.status().ToString();
    return state.ok() ? *state : PeerRequestState{};
  }

  std::vector<std::vector<uint8_t>> memory_;
  int copies_ = 0;
  PeerExchange exchange_;
};

TEST_F(CollectivePeerExchange, ConnectsOnlyOnceBothEndsAreOpen) {
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  EXPECT_FALSE(*exchange_.Connected(send));
  StatusOr<uint64_t> early = exchange_.Post(send, PeerBuffer{0, 0, 8});
  EXPECT_EQ(early.status().code(), StatusCode::kFailure);
  uint64_t recv = Open(PeerSide::kRecv, 1, 0);
  EXPECT_TRUE(*exchange_.Connected(send));
  EXPECT_TRUE(*exchange_.Connected(recv));
}

TEST_F(CollectivePeerExchange, KthConnectPairsWithKthAcceptAndTransfersInOrder) {
  // Two channels 0 -> 1; the receiver accepts them in order, so comm a pairs with x, b with y.
  uint64_t a = Open(PeerSide::kSend, 0, 1);
  uint64_t b = Open(PeerSide::kSend, 0, 1);
  uint64_t x = Open(PeerSide::kRecv, 1, 0);
  uint64_t y = Open(PeerSide::kRecv, 1, 0);
  // On b: two sends (memory 0 bytes 0..8, then 8..16) before any receive.
  uint64_t s1 = Post(b, 0, 0, 8);
  uint64_t s2 = Post(b, 0, 8, 8);
  EXPECT_FALSE(Test(s1).done);
  // A receive on x (paired with a) must not take b's sends.
  uint64_t rx = Post(x, 3, 0, 8);
  EXPECT_FALSE(Test(rx).done);
  // y's first receive gets b's first send, its second the second.
  uint64_t r1 = Post(y, 1, 0, 8);
  uint64_t r2 = Post(y, 2, 32, 8);
  PeerRequestState st = Test(r1);
  EXPECT_TRUE(st.done);
  EXPECT_TRUE(st.status.ok());
  EXPECT_EQ(st.bytes, 8u);
  EXPECT_EQ(Test(r2).bytes, 8u);
  EXPECT_EQ(Test(s1).bytes, 8u);
  EXPECT_EQ(Test(s2).bytes, 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(memory_[1][i], uint8_t(i));
    EXPECT_EQ(memory_[2][32 + i], uint8_t(8 + i));
  }
  EXPECT_EQ(memory_[3][0], uint8_t(3 * 64));  // untouched
  // Now a's send meets x's waiting receive.
  uint64_t s3 = Post(a, 0, 16, 8);
  EXPECT_EQ(Test(rx).bytes, 8u);
  EXPECT_EQ(Test(s3).bytes, 8u);
  EXPECT_EQ(memory_[3][0], uint8_t(16));
  EXPECT_EQ(copies_, 3);
}

TEST_F(CollectivePeerExchange, RequestsReportedDoneAreForgotten) {
  uint64_t send = Open(PeerSide::kSend, 2, 5);
  uint64_t recv = Open(PeerSide::kRecv, 5, 2);
  uint64_t r = Post(recv, 1, 0, 4);
  uint64_t s = Post(send, 0, 0, 4);
  EXPECT_TRUE(Test(s).done);
  EXPECT_EQ(exchange_.Test(s).status().code(), StatusCode::kInvalidHandle);
  EXPECT_TRUE(Test(r).done);
}

TEST_F(CollectivePeerExchange, MismatchedLengthsFailBothRequestsAndMoveNothing) {
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  uint64_t recv = Open(PeerSide::kRecv, 1, 0);
  uint64_t s = Post(send, 0, 0, 8);
  uint64_t r = Post(recv, 1, 0, 16);
  PeerRequestState ss = Test(s);
  PeerRequestState rs = Test(r);
  EXPECT_TRUE(ss.done);
  EXPECT_TRUE(rs.done);
  EXPECT_EQ(ss.status.code(), StatusCode::kInvalid);
  EXPECT_EQ(rs.status.code(), StatusCode::kInvalid);
  EXPECT_EQ(rs.bytes, 0u);
  EXPECT_EQ(copies_, 0);
  EXPECT_EQ(memory_[1][0], uint8_t(64));
}

TEST_F(CollectivePeerExchange, CopyErrorsCompleteBothRequests) {
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  uint64_t recv = Open(PeerSide::kRecv, 1, 0);
  uint64_t s = Post(send, 0, 0, 8);
  uint64_t r = Post(recv, 99, 0, 8);  // the copier knows no memory 99
  EXPECT_EQ(Test(s).status.code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(Test(r).status.code(), StatusCode::kInvalidHandle);
}

TEST_F(CollectivePeerExchange, CloseRefusesUnconnectedCommsAndRequestsInFlight) {
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  EXPECT_EQ(exchange_.Close(0, false).code(), StatusCode::kFailure);  // unconnected
  uint64_t recv = Open(PeerSide::kRecv, 1, 0);
  uint64_t s = Post(send, 0, 0, 8);
  EXPECT_EQ(exchange_.Close(0, false).code(), StatusCode::kFailure);  // s in flight
  EXPECT_TRUE(*exchange_.Connected(send));                            // nothing was closed
  uint64_t r = Post(recv, 1, 0, 8);
  EXPECT_TRUE(exchange_.Close(0, false).ok());  // done but untested requests do not count
  EXPECT_EQ(exchange_.Connected(send).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(exchange_.Test(s).status().code(), StatusCode::kInvalidHandle);
  EXPECT_TRUE(Test(r).done);  // the peer's request is its own
}

TEST_F(CollectivePeerExchange, ForcedCloseFailsThePeersPendingAndLaterRequests) {
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  uint64_t recv = Open(PeerSide::kRecv, 1, 0);
  uint64_t r1 = Post(recv, 1, 0, 8);
  uint64_t s = Post(send, 0, 0, 4);
  (void)Test(s);  // mismatch: done
  (void)Test(r1);
  uint64_t r2 = Post(recv, 1, 0, 8);
  EXPECT_FALSE(Test(r2).done);
  EXPECT_TRUE(exchange_.Close(0, true).ok());
  PeerRequestState st = Test(r2);
  EXPECT_TRUE(st.done);
  EXPECT_EQ(st.status.code(), StatusCode::kFailure);
  uint64_t r3 = Post(recv, 1, 0, 8);
  EXPECT_EQ(Test(r3).status.code(), StatusCode::kFailure);
  EXPECT_TRUE(exchange_.Close(1, false).ok());
}

TEST_F(CollectivePeerExchange, ReopenedChannelsPairByCount) {
  // A connect made after the peer's end was closed pairs with the peer's next accept.
  uint64_t send = Open(PeerSide::kSend, 0, 1);
  (void)Open(PeerSide::kRecv, 1, 0);
  EXPECT_TRUE(exchange_.Close(0, false).ok());
  EXPECT_TRUE(exchange_.Close(1, false).ok());
  uint64_t again = Open(PeerSide::kSend, 0, 1);
  EXPECT_NE(again, send);
  EXPECT_FALSE(*exchange_.Connected(again));
  (void)Open(PeerSide::kRecv, 1, 0);
  EXPECT_TRUE(*exchange_.Connected(again));
}

TEST_F(CollectivePeerExchange, RejectsBadArgumentsAndUnknownIds) {
  EXPECT_EQ(exchange_.Open(PeerSide::kSend, -1, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(exchange_.Open(PeerSide::kSend, 3, 3).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(exchange_.Connected(12345).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(exchange_.Post(12345, PeerBuffer{0, 0, 1}).status().code(), StatusCode::kInvalidHandle);
  EXPECT_EQ(exchange_.Test(12345).status().code(), StatusCode::kInvalidHandle);
  PeerCall bad;
  bad.op = static_cast<PeerOp>(99);
  EXPECT_EQ(exchange_.Call(bad).status().code(), StatusCode::kInvalid);
}

TEST_F(CollectivePeerExchange, CallDispatchesEveryOperation) {
  PeerCall open;
  open.op = PeerOp::kOpen;
  open.side = PeerSide::kSend;
  open.lnc = 0;
  open.peer_lnc = 1;
  uint64_t send = exchange_.Call(open)->id;
  open.side = PeerSide::kRecv;
  open.lnc = 1;
  open.peer_lnc = 0;
  uint64_t recv = exchange_.Call(open)->id;
  PeerCall connected;
  connected.op = PeerOp::kConnected;
  connected.id = send;
  EXPECT_TRUE(exchange_.Call(connected)->connected);
  PeerCall post;
  post.op = PeerOp::kPost;
  post.id = send;
  post.buffer = PeerBuffer{0, 0, 2};
  uint64_t s = exchange_.Call(post)->id;
  post.id = recv;
  post.buffer = PeerBuffer{1, 0, 2};
  (void)exchange_.Call(post);
  PeerCall test;
  test.op = PeerOp::kTest;
  test.id = s;
  StatusOr<PeerReply> tested = exchange_.Call(test);
  EXPECT_TRUE(tested->request.done);
  EXPECT_EQ(tested->request.bytes, 2u);
  PeerCall close;
  close.op = PeerOp::kClose;
  close.lnc = 0;
  EXPECT_TRUE(exchange_.Call(close).ok());
}

// Owners (issue 20 F3): ends of two owners pair and move bytes, but neither can test, post on,
// look at or close what the other opened or posted; a third owner on the same cores neither.
TEST_F(CollectivePeerExchange, CommsAndRequestsBelongToTheirOwner) {
  constexpr uint64_t kA = 7, kB = 8, kIntruder = 9;
  StatusOr<uint64_t> send = exchange_.Open(PeerSide::kSend, 0, 1, kA);
  StatusOr<uint64_t> recv = exchange_.Open(PeerSide::kRecv, 1, 0, kB);
  ASSERT_TRUE(send.ok() && recv.ok());
  EXPECT_EQ(exchange_.Connected(*send, kIntruder).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(exchange_.Connected(*send, 0).status().code(), StatusCode::kInvalid);
  EXPECT_TRUE(*exchange_.Connected(*recv, kB));
  // The intruder cannot post on either end (nothing is queued: the real send still pairs).
  EXPECT_EQ(exchange_.Post(*recv, PeerBuffer{3, 0, 8}, kIntruder).status().code(),
            StatusCode::kInvalid);
  StatusOr<uint64_t> sent = exchange_.Post(*send, PeerBuffer{0, 0, 8}, kA);
  StatusOr<uint64_t> received = exchange_.Post(*recv, PeerBuffer{1, 16, 8}, kB);
  ASSERT_TRUE(sent.ok() && received.ok());
  // Nor take its completion notice: the request stays for its owner.
  EXPECT_EQ(exchange_.Test(*received, kIntruder).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(exchange_.Test(*received, kA).status().code(), StatusCode::kInvalid);
  StatusOr<PeerRequestState> done = exchange_.Test(*received, kB);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->done);
  EXPECT_EQ(done->bytes, 8u);
  EXPECT_EQ(0, std::memcmp(memory_[1].data() + 16, memory_[0].data(), 8));
  // A forced close of core 0 by another owner closes none of A's ends.
  EXPECT_TRUE(exchange_.Close(0, /*force=*/true, kIntruder).ok());
  StatusOr<uint64_t> again = exchange_.Post(*send, PeerBuffer{0, 8, 4}, kA);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  StatusOr<uint64_t> again_recv = exchange_.Post(*recv, PeerBuffer{2, 0, 4}, kB);
  ASSERT_TRUE(again_recv.ok());
  StatusOr<PeerRequestState> second = exchange_.Test(*again_recv, kB);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->done);
  EXPECT_TRUE(second->status.ok()) << second->status.ToString();
  // A's own close does close them.
  EXPECT_TRUE(exchange_.Close(0, /*force=*/true, kA).ok());
  EXPECT_EQ(exchange_.Post(*send, PeerBuffer{0, 0, 4}, kA).status().code(),
            StatusCode::kInvalidHandle);
}

}  // namespace
}  // namespace trnsim::simulator::collective
