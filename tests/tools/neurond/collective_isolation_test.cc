// neurond's collectives and point-to-point between sessions (issue 20 F1, F3; README "Security
// model", "Collectives and point-to-point"): a world the instance cannot hold is refused and
// the daemon goes on serving; a session takes part in a communicator only as ranks that are its
// own, opens point-to-point ends only on logical cores it holds, and cannot use, test or close
// another session's comms and requests. The fixture's instance is a trn2.3xlarge: 8 physical
// cores, so worlds of at most 8 ranks, and 4 logical cores of 2 (its default LNC).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

v1::HostCollectiveResponse HostCollective(RawClient& client, const std::string& communicator,
                                          uint32_t rank, uint32_t world, uint64_t sequence,
                                          const std::string& input,
                                          uint64_t timeout_ms = 5000) {
  v1::HostCollectiveRequest request;
  request.set_kind(input.empty() ? v1::HOST_COLLECTIVE_BARRIER : v1::HOST_COLLECTIVE_ALL_GATHER);
  request.set_communicator(communicator);
  request.set_rank(rank);
  request.set_world_size(world);
  request.set_sequence(sequence);
  request.set_input(input);
  request.set_timeout_ms(timeout_ms);
  v1::HostCollectiveResponse response;
  grpc::Status rpc = client.stub().HostCollective(client.Context().get(), request, &response);
  EXPECT_TRUE(rpc.ok()) << rpc.error_message();
  return response;
}

v1::PointToPointResponse Peer(RawClient& client, v1::PeerOp op, uint64_t id = 0) {
  v1::PointToPointRequest request;
  request.set_op(op);
  request.set_id(id);
  v1::PointToPointResponse response;
  grpc::Status rpc = client.stub().PointToPoint(client.Context().get(), request, &response);
  EXPECT_TRUE(rpc.ok()) << rpc.error_message();
  return response;
}

v1::PointToPointResponse Open(RawClient& client, v1::PeerSide side, int lnc, int peer) {
  v1::PointToPointRequest request;
  request.set_op(v1::PEER_OPEN);
  request.set_side(side);
  request.set_lnc(lnc);
  request.set_peer_lnc(peer);
  v1::PointToPointResponse response;
  EXPECT_TRUE(client.stub().PointToPoint(client.Context().get(), request, &response).ok());
  return response;
}

v1::PointToPointResponse Post(RawClient& client, uint64_t comm, uint64_t memory, uint64_t length) {
  v1::PointToPointRequest request;
  request.set_op(v1::PEER_POST);
  request.set_id(comm);
  request.set_memory_handle(memory);
  request.set_length(length);
  v1::PointToPointResponse response;
  EXPECT_TRUE(client.stub().PointToPoint(client.Context().get(), request, &response).ok());
  return response;
}

// F1: before, a world of 2,000,000 made the daemon allocate ~430 MiB and wait for the ranks.
TEST_F(NeurondServiceTest, HostCollectiveRefusesAWorldTheInstanceCannotHold) {
  auto client = Connect();
  ASSERT_EQ(AcquireCores(*client, 0, 2), kOk);
  for (uint32_t rank : {0u, 1u}) {  // the second rank of the same collective too
    v1::HostCollectiveResponse huge = HostCollective(*client, "huge", rank, 2'000'000, 0, "abcd");
    EXPECT_EQ(huge.status().code(), kInvalid) << huge.status().message();
    EXPECT_NE(huge.status().message().find("2000000"), std::string::npos);
  }
  EXPECT_EQ(HostCollective(*client, "huge", 0, 9, 0, "").status().code(), kInvalid);
  EXPECT_EQ(HostCollective(*client, "huge", 0, 0, 0, "").status().code(), kInvalid);
  // A barrier with an input. (kMaxHostAllGatherBytes is out of reach here: 8 ranks of one
  // message each are less.)
  v1::HostCollectiveRequest barrier;
  barrier.set_kind(v1::HOST_COLLECTIVE_BARRIER);
  barrier.set_communicator("big");
  barrier.set_world_size(2);
  barrier.set_input("x");
  v1::HostCollectiveResponse refused;
  ASSERT_TRUE(client->stub().HostCollective(client->Context().get(), barrier, &refused).ok());
  EXPECT_EQ(refused.status().code(), kInvalid);
  // A world of one is served, and so is everything else.
  v1::HostCollectiveResponse alone = HostCollective(*client, "alone", 0, 1, 0, "wxyz");
  EXPECT_EQ(alone.status().code(), kOk) << alone.status().message();
  EXPECT_EQ(alone.output(), "wxyz");
  ExpectServing(*client);
}

// The design point of issue 20: any session could join another job's all-gather and read its
// inputs. Now each rank of a communicator is the session's that first used it.
TEST_F(NeurondServiceTest, ASessionCannotJoinAnotherSessionsRankOfACommunicator) {
  auto rank0 = Connect();
  auto rank1 = Connect();
  auto intruder = Connect();
  ASSERT_EQ(AcquireCores(*rank0, 0, 2), kOk);
  ASSERT_EQ(AcquireCores(*rank1, 2, 2), kOk);
  // A session holding no core is no rank of anything.
  EXPECT_EQ(HostCollective(*intruder, "job-a", 1, 2, 0, "").status().code(), kInvalid);
  ASSERT_EQ(AcquireCores(*intruder, 4, 2), kOk);
  // The job's ranks meet once (a barrier), which makes ranks 0 and 1 theirs.
  std::thread barrier0(
      [&] { EXPECT_EQ(HostCollective(*rank0, "job-a", 0, 2, 0, "").status().code(), kOk); });
  EXPECT_EQ(HostCollective(*rank1, "job-a", 1, 2, 0, "").status().code(), kOk);
  barrier0.join();
  // Rank 0 waits in an all-gather; the intruder, as rank 1, is refused at once and the
  // rendezvous is untouched: the real rank 1 completes it.
  v1::HostCollectiveResponse gathered0;
  std::thread gather0([&] { gathered0 = HostCollective(*rank0, "job-a", 0, 2, 1, "AAAA"); });
  v1::HostCollectiveResponse stolen = HostCollective(*intruder, "job-a", 1, 2, 1, "XXXX");
  EXPECT_EQ(stolen.status().code(), kInvalid) << stolen.status().message();
  EXPECT_TRUE(stolen.output().empty());
  EXPECT_EQ(HostCollective(*intruder, "job-a", 0, 2, 1, "XXXX").status().code(), kInvalid);
  EXPECT_EQ(HostCollective(*intruder, "job-a", 2, 3, 1, "XXXX").status().code(), kInvalid);
  v1::HostCollectiveResponse gathered1 = HostCollective(*rank1, "job-a", 1, 2, 1, "BBBB");
  gather0.join();
  EXPECT_EQ(gathered0.status().code(), kOk) << gathered0.status().message();
  EXPECT_EQ(gathered0.output(), "AAAABBBB");
  EXPECT_EQ(gathered1.output(), "AAAABBBB");
  // A session may be ranks of other communicators too (one rank per held core in each) ...
  EXPECT_EQ(HostCollective(*rank0, "job-b", 0, 1, 0, "").status().code(), kOk);
  // ... and once the job's sessions end, the names are free for a rerun.
  rank0->BreakAttach();
  rank1->BreakAttach();
  v1::HostCollectiveResponse rerun;
  for (int attempt = 0; attempt < 200; ++attempt) {  // until the daemon has ended them
    rerun = HostCollective(*intruder, "job-a", 0, 1, 0, "");
    if (rerun.status().code() == kOk) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(rerun.status().code(), kOk) << rerun.status().message();
  ExpectServing(*intruder);
}

// F3: before, a session holding no core opened the receive end of another session's channel
// first and took its 4 KiB, tested (and so consumed) its completion notices, and force-closed
// its ends.
TEST_F(NeurondServiceTest, PointToPointEndsAndRequestsBelongToTheirSession) {
  auto sender = Connect();
  auto receiver = Connect();
  auto thief = Connect();
  ASSERT_EQ(AcquireCores(*sender, 0, 2), kOk);    // logical core 0
  ASSERT_EQ(AcquireCores(*receiver, 2, 2), kOk);  // logical core 1
  // Receiving another session's transfer: the receive end of 0 -> 1 needs logical core 1.
  v1::PointToPointResponse stolen_end = Open(*thief, v1::PEER_RECV, 1, 0);
  EXPECT_EQ(stolen_end.status().code(), kInvalid) << stolen_end.status().message();
  ASSERT_EQ(AcquireCores(*thief, 4, 2), kOk);  // logical core 2: still not 1
  EXPECT_EQ(Open(*thief, v1::PEER_RECV, 1, 0).status().code(), kInvalid);
  EXPECT_EQ(Open(*thief, v1::PEER_SEND, 0, 1).status().code(), kInvalid);
  EXPECT_EQ(Open(*thief, v1::PEER_RECV, 2, 9).status().code(), kInvalid);  // no core 9

  v1::AllocateResponse src = Allocate(*sender, 4096);
  v1::AllocateResponse dst = Allocate(*receiver, 4096);
  v1::AllocateResponse loot = Allocate(*thief, 4096);
  ASSERT_EQ(src.status().code(), kOk);
  std::string payload(4096, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 13 + 5);
  ASSERT_EQ(WriteStream(*sender, {Header(src.info().handle(), 0, 4096), Data(payload)}), kOk);

  v1::PointToPointResponse send = Open(*sender, v1::PEER_SEND, 0, 1);
  v1::PointToPointResponse recv = Open(*receiver, v1::PEER_RECV, 1, 0);
  ASSERT_EQ(send.status().code(), kOk);
  ASSERT_EQ(recv.status().code(), kOk);
  // Another session's comms: not to be looked at, posted on or received from.
  EXPECT_EQ(Peer(*thief, v1::PEER_CONNECTED, recv.id()).status().code(), kInvalid);
  EXPECT_EQ(Post(*thief, recv.id(), loot.info().handle(), 4096).status().code(), kInvalid);
  EXPECT_EQ(Post(*thief, send.id(), loot.info().handle(), 4096).status().code(), kInvalid);
  ASSERT_EQ(Peer(*sender, v1::PEER_CONNECTED, send.id()).connected(), true);

  v1::PointToPointResponse sent = Post(*sender, send.id(), src.info().handle(), 4096);
  v1::PointToPointResponse received = Post(*receiver, recv.id(), dst.info().handle(), 4096);
  ASSERT_EQ(sent.status().code(), kOk);
  ASSERT_EQ(received.status().code(), kOk);
  // Stealing the completion notices: refused, and they stay for their owners.
  EXPECT_EQ(Peer(*thief, v1::PEER_TEST, received.id()).status().code(), kInvalid);
  EXPECT_EQ(Peer(*thief, v1::PEER_TEST, sent.id()).status().code(), kInvalid);
  EXPECT_EQ(Peer(*sender, v1::PEER_TEST, received.id()).status().code(), kInvalid);
  v1::PointToPointResponse done = Peer(*receiver, v1::PEER_TEST, received.id());
  EXPECT_EQ(done.status().code(), kOk) << done.status().message();
  EXPECT_TRUE(done.done());
  EXPECT_EQ(done.bytes(), 4096u);
  EXPECT_TRUE(Peer(*sender, v1::PEER_TEST, sent.id()).done());
  std::string bytes;
  ASSERT_EQ(ReadBytes(*receiver, dst.info().handle(), 0, 4096, &bytes), kOk);
  EXPECT_EQ(bytes, payload);

  // Force-closing another's ends: the thief's CLOSE of cores 0 and 1 closes nothing of theirs.
  for (int lnc : {0, 1}) {
    v1::PointToPointRequest close;
    close.set_op(v1::PEER_CLOSE);
    close.set_lnc(lnc);
    close.set_force(true);
    v1::PointToPointResponse closed;
    ASSERT_TRUE(thief->stub().PointToPoint(thief->Context().get(), close, &closed).ok());
  }
  v1::PointToPointResponse again = Post(*sender, send.id(), src.info().handle(), 16);
  EXPECT_EQ(again.status().code(), kOk) << again.status().message();
  v1::PointToPointResponse again_recv = Post(*receiver, recv.id(), dst.info().handle(), 16);
  ASSERT_EQ(again_recv.status().code(), kOk) << again_recv.status().message();
  v1::PointToPointResponse second = Peer(*receiver, v1::PEER_TEST, again_recv.id());
  EXPECT_TRUE(second.done());
  EXPECT_EQ(second.transfer_status().code(), kOk) << second.transfer_status().message();
  ExpectServing(*thief);
}

}  // namespace
}  // namespace trnsim::neurond
