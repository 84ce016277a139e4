// neurond's malformed-RPC suite (issue 20), second half (the first, and what the suite asserts
// after every group, are in malformed_rpc_test.cc): LoadProgram and Write streams out of order,
// duplicated, truncated or without their header; executions, host collectives and
// point-to-point requests with foreign handles, out-of-range cores and sizes; host timeouts past
// the clock.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/tools/neurond/malformed_rpc_fixture.h"

namespace trnsim::neurond {
namespace {

// ---------------------------------------------------------------------------------------------
// Streams: LoadProgram and Write messages out of order, duplicated, truncated, empty or
// oversized are NRT_INVALID; nothing is loaded.

TEST_F(MalformedRpcTest, MalformedLoadProgramStreamsLoadNothing) {
  Tenant bystander = Open(0);
  auto client = Connect();
  const std::string image = SerializedProgram(kCopyProgram);
  ASSERT_GT(image.size(), 8u);
  const size_t third = image.size() / 3;
  const std::string p0 = image.substr(0, third), p1 = image.substr(third, third),
                    p2 = image.substr(2 * third);
  const uint64_t n = image.size();
  struct StreamCase {
    const char* what;
    std::vector<v1::LoadProgramRequest> messages;
  };
  const std::vector<StreamCase> cases = {
      {"no messages", {}},
      {"a chunk before the header", {LoadChunk(image), LoadHeader(n)}},
      {"only chunks", {LoadChunk(p0), LoadChunk(p1), LoadChunk(p2)}},
      {"two headers", {LoadHeader(n), LoadHeader(n), LoadChunk(image)}},
      {"a header after the chunks", {LoadHeader(n), LoadChunk(image), LoadHeader(n)}},
      {"truncated: header only", {LoadHeader(n)}},
      {"truncated: two of three chunks", {LoadHeader(n), LoadChunk(p0), LoadChunk(p1)}},
      {"a chunk duplicated",
       {LoadHeader(n), LoadChunk(p0), LoadChunk(p0), LoadChunk(p1), LoadChunk(p2)}},
      {"the last chunk duplicated",
       {LoadHeader(n), LoadChunk(p0), LoadChunk(p1), LoadChunk(p2), LoadChunk(p2)}},
      {"chunks out of order", {LoadHeader(n), LoadChunk(p2), LoadChunk(p1), LoadChunk(p0)}},
      {"chunks swapped", {LoadHeader(n), LoadChunk(p1), LoadChunk(p0), LoadChunk(p2)}},
      {"an empty chunk", {LoadHeader(n), LoadChunk(p0), LoadChunk(""), LoadChunk(p1 + p2)}},
      {"one byte too many", {LoadHeader(n), LoadChunk(image + "x")}},
      {"a header announcing 0 bytes", {LoadHeader(0)}},
      {"a header announcing 0 bytes, then a chunk", {LoadHeader(0), LoadChunk(image)}},
      {"a header announcing one byte less", {LoadHeader(n - 1), LoadChunk(image)}},
      {"a header announcing 2^64-1 bytes", {LoadHeader(kMax), LoadChunk(image)}},
      {"a header announcing 1 GiB + 1", {LoadHeader((uint64_t{1} << 30) + 1), LoadChunk(image)}},
      {"a chunk above CHUNK_BYTES",
       {LoadHeader(driver::remote::kChunkBytes + 1),
        LoadChunk(std::string(driver::remote::kChunkBytes + 1, 'x'))}},
      {"bytes that are no ProgramImage", {LoadHeader(5), LoadChunk("\xff\xff\xff\xff\xff")}},
      {"an empty ProgramImage", {LoadHeader(2), LoadChunk(std::string("\x0a\x00", 2))}},
  };
  for (const StreamCase& stream : cases) {
    v1::LoadProgramResponse response = LoadStream(*client, stream.messages);
    EXPECT_EQ(response.status().code(), kInvalid)
        << stream.what << ": " << response.status().message();
    EXPECT_EQ(response.program(), 0u) << stream.what;
  }
  {  // A negative physical core in the header.
    v1::LoadProgramRequest header = LoadHeader(n);
    header.mutable_header()->set_physical_core(-1);
    EXPECT_EQ(LoadStream(*client, {header, LoadChunk(image)}).status().code(), kInvalid);
  }
  v1::StatusResponse status = DaemonStatus(*client);
  ASSERT_EQ(status.sessions_size(), 2);
  EXPECT_EQ(status.sessions(1).loaded_programs(), 0u);
  // The same session then loads the image whole, and in one-byte chunks.
  v1::LoadProgramResponse whole = LoadStream(*client, {LoadHeader(n), LoadChunk(image)});
  EXPECT_EQ(whole.status().code(), kOk) << whole.status().message();
  EXPECT_EQ(whole.program(), 1u);
  std::vector<v1::LoadProgramRequest> bytewise = {LoadHeader(n)};
  for (char byte : image) bytewise.push_back(LoadChunk(std::string(1, byte)));
  EXPECT_EQ(LoadStream(*client, bytewise).status().code(), kOk);
  ExpectServesCorrectly(bystander);
}

TEST_F(MalformedRpcTest, MalformedWriteStreamsTouchOnlyTheirRange) {
  Tenant bystander = Open(0);
  auto client = Connect();
  v1::AllocateResponse allocated = Allocate(*client, 1024);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t h = allocated.info().handle();
  const std::string contents = Pattern(7, 1024);
  struct StreamCase {
    const char* what;
    std::vector<v1::WriteRequest> messages;
  };
  // All within [64, 80) when they name a range.
  const std::vector<StreamCase> cases = {
      {"no messages", {}},
      {"data before the header", {Data("12345678"), Header(h, 64, 8)}},
      {"two headers", {Header(h, 64, 8), Header(h, 64, 8), Data("12345678")}},
      {"truncated", {Header(h, 64, 16), Data("12345678")}},
      {"a chunk duplicated",
       {Header(h, 64, 16), Data("12345678"), Data("12345678"), Data("12345678")}},
      {"an empty chunk", {Header(h, 64, 8), Data(""), Data("12345678")}},
      {"one byte too many", {Header(h, 64, 8), Data("123456789")}},
      {"a header of 0 bytes, then data", {Header(h, 64, 0), Data("12345678")}},
      {"a chunk above CHUNK_BYTES",
       {Header(h, 64, 16), Data(std::string(driver::remote::kChunkBytes + 1, 'x'))}},
  };
  for (const StreamCase& stream : cases) {
    ASSERT_EQ(WriteStream(*client, {Header(h, 0, 1024), Data(contents)}), kOk);
    EXPECT_EQ(WriteStream(*client, stream.messages), kInvalid) << stream.what;
    std::string bytes;
    ASSERT_EQ(ReadBytes(*client, h, 0, 1024, &bytes), kOk);
    // Unspecified inside [64, 80) (an interrupted DMA); untouched outside it.
    EXPECT_EQ(bytes.substr(0, 64), contents.substr(0, 64)) << stream.what;
    EXPECT_EQ(bytes.substr(80), contents.substr(80)) << stream.what;
  }
  ExpectServesCorrectly(bystander);
}

// ---------------------------------------------------------------------------------------------
// Execute, HostCollective and PointToPoint fields out of range.

TEST_F(MalformedRpcTest, MalformedExecutions) {
  Tenant bystander = Open(0);
  Tenant client = Open(2);
  RawClient& c = *client.client;
  const v1::ExecuteRequest good =
      CopyExecution(client.program, client.core, client.src, client.dst);
  struct ExecuteCase {
    const char* what;
    std::function<void(v1::ExecuteRequest&)> change;
    uint32_t want;
  };
  const std::vector<ExecuteCase> cases = {
      {"no cores", [](v1::ExecuteRequest& r) { r.clear_cores(); }, kInvalid},
      {"core -1", [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_physical_core(-1); },
       kInvalid},
      {"core 8 of 8", [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_physical_core(8); },
       kInvalid},
      {"core INT_MIN",
       [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_physical_core(INT_MIN); }, kInvalid},
      {"chip -1", [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_chip(-1); }, kInvalid},
      {"chip 1 of 1", [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_chip(1); }, kInvalid},
      {"a core another session holds",
       [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_physical_core(0); }, kFailure},
      {"a core nobody holds",
       [](v1::ExecuteRequest& r) { r.mutable_cores(0)->set_physical_core(5); }, kFailure},
      {"one core twice", [](v1::ExecuteRequest& r) { *r.add_cores() = r.cores(0); }, kInvalid},
      {"a var bound twice",
       [](v1::ExecuteRequest& r) { *r.mutable_cores(0)->add_vars() = r.cores(0).vars(0); },
       kInvalid},
      {"a binding of memory 0 with bytes",
       [](v1::ExecuteRequest& r) {
         v1::VarBinding* var = r.mutable_cores(0)->add_vars();
         var->set_var_id(7);
         var->set_size(8);
       },
       kInvalid},
      {"two rounding seeds for one core",
       [](v1::ExecuteRequest& r) {
         r.mutable_options()->add_rounding_seeds(1);
         r.mutable_options()->add_rounding_seeds(2);
       },
       kInvalid},
      {"host timeout 2^64-1 ms",
       [](v1::ExecuteRequest& r) { r.mutable_options()->set_host_timeout_ms(kMax); }, kInvalid},
      {"host timeout 2^63-1 ms",
       [](v1::ExecuteRequest& r) {
         r.mutable_options()->set_host_timeout_ms(uint64_t(std::numeric_limits<int64_t>::max()));
       },
       kInvalid},
      {"a collective world of 0",
       [](v1::ExecuteRequest& r) {
         r.mutable_options()->mutable_collective()->set_communicator("w");
       },
       kInvalid},
      {"a collective rank outside its world",
       [](v1::ExecuteRequest& r) {
         v1::CollectiveMembership* m = r.mutable_options()->mutable_collective();
         m->set_communicator("w");
         m->set_rank(2);
         m->set_world_size(2);
       },
       kInvalid},
      {"a collective world larger than the instance",
       [](v1::ExecuteRequest& r) {
         v1::CollectiveMembership* m = r.mutable_options()->mutable_collective();
         m->set_communicator("w");
         m->set_world_size(UINT32_MAX);
       },
       kInvalid},
  };
  for (const ExecuteCase& execute : cases) {
    v1::ExecuteRequest request = good;
    execute.change(request);
    EXPECT_EQ(Execute(c, request), execute.want) << execute.what;
  }
  // A variable of 0 bytes names no memory (driver/device.h): the runtime binds a NEFF's empty
  // variables so, and the daemon serves them as the in-process device does.
  {
    v1::ExecuteRequest request = good;
    v1::VarBinding* empty = request.mutable_cores(0)->add_vars();
    empty->set_var_id(7);
    const std::string input = Pattern(41);
    ASSERT_EQ(WriteStream(c, {Header(client.src, 0, 64), Data(input)}), kOk);
    v1::ExecuteResponse response;
    ASSERT_TRUE(c.stub().Execute(c.Context().get(), request, &response).ok());
    EXPECT_EQ(response.status().code(), kOk) << response.status().message();
    std::string output;
    ASSERT_EQ(ReadBytes(c, client.dst, 0, 64, &output), kOk);
    EXPECT_EQ(output, input);
  }
  ExpectServesCorrectly(bystander);
  ExpectServesCorrectly(client);
}

TEST_F(MalformedRpcTest, MalformedHostCollectivesAndPointToPoint) {
  Tenant bystander = Open(0);
  Tenant client = Open(2);
  RawClient& c = *client.client;
  constexpr auto kBarrier = v1::HOST_COLLECTIVE_BARRIER;
  constexpr auto kGather = v1::HOST_COLLECTIVE_ALL_GATHER;
  struct CollectiveCase {
    const char* what;
    v1::HostCollectiveRequest request;
  };
  const std::vector<CollectiveCase> collectives = {
      {"kind 7", Collective(static_cast<v1::HostCollectiveKind>(7), "c", 0, 1, "")},
      {"kind -1", Collective(static_cast<v1::HostCollectiveKind>(-1), "c", 0, 1, "")},
      {"world 0", Collective(kBarrier, "c", 0, 0, "")},
      {"rank = world", Collective(kBarrier, "c", 1, 1, "")},
      {"rank 2^32-1", Collective(kGather, "c", UINT32_MAX, 2, "x")},
      {"world 9 of 8 cores", Collective(kBarrier, "c", 0, 9, "")},
      {"world 2^32-1", Collective(kGather, "c", 0, UINT32_MAX, "x")},
      {"an empty name", Collective(kBarrier, "", 0, 1, "")},
      {"a name of 4097 bytes", Collective(kBarrier, std::string(4097, 'n'), 0, 1, "")},
      {"a barrier with input", Collective(kBarrier, "c", 0, 1, "x")},
      {"timeout 2^64-1 ms", Collective(kBarrier, "c", 0, 2, "", kMax)},
  };
  for (const CollectiveCase& collective : collectives) {
    std::string output = "unchanged";
    EXPECT_EQ(HostCollective(c, collective.request, &output), kInvalid) << collective.what;
    EXPECT_TRUE(output.empty()) << collective.what;
  }
  // Zero-length all-gathers of a world of one are served.
  std::string output = "unchanged";
  EXPECT_EQ(HostCollective(c, Collective(kGather, "alone", 0, 1, ""), &output), kOk);
  EXPECT_EQ(output, "");

  struct PeerCase {
    const char* what;
    int op, side, lnc, peer;
    uint32_t want;
  };
  // trn2.3xlarge at its default LNC of 2: logical cores 0-3; the client holds 1 (cores 2, 3).
  const std::vector<PeerCase> peers = {
      {"op 77", 77, v1::PEER_SEND, 1, 0, kInvalid},
      {"op -1", -1, v1::PEER_SEND, 1, 0, kInvalid},
      {"side 9", v1::PEER_OPEN, 9, 1, 0, kInvalid},
      {"lnc -1", v1::PEER_OPEN, v1::PEER_SEND, -1, 0, kInvalid},
      {"lnc 4 of 4", v1::PEER_OPEN, v1::PEER_SEND, 4, 0, kInvalid},
      {"lnc INT_MIN", v1::PEER_OPEN, v1::PEER_SEND, INT_MIN, 0, kInvalid},
      {"peer -1", v1::PEER_OPEN, v1::PEER_SEND, 1, -1, kInvalid},
      {"peer INT_MAX", v1::PEER_OPEN, v1::PEER_SEND, 1, INT_MAX, kInvalid},
      {"peer itself", v1::PEER_OPEN, v1::PEER_SEND, 1, 1, kInvalid},
      {"a core another session holds", v1::PEER_OPEN, v1::PEER_RECV, 0, 1, kInvalid},
      {"a core nobody holds", v1::PEER_OPEN, v1::PEER_RECV, 3, 1, kInvalid},
  };
  for (const PeerCase& peer : peers) {
    v1::PointToPointRequest request;
    request.set_op(static_cast<v1::PeerOp>(peer.op));
    request.set_side(static_cast<v1::PeerSide>(peer.side));
    request.set_lnc(peer.lnc);
    request.set_peer_lnc(peer.peer);
    EXPECT_EQ(PeerRpc(c, request), peer.want) << peer.what;
  }
  ExpectServesCorrectly(bystander);
  ExpectServesCorrectly(client);
}

// A host collective's timeout far beyond what the host clock can count from now (here 2^63-1
// ms; anything above ~292 years overflowed the deadline's nanoseconds) used to time out at
// once with NRT_TIMEOUT; it is NRT_INVALID, as a timeout out of range always was.
TEST_F(MalformedRpcTest, AHostTimeoutBeyondTheClockIsInvalid) {
  Tenant bystander = Open(0);
  Tenant client = Open(2);
  const uint64_t huge = uint64_t(std::numeric_limits<int64_t>::max());
  for (uint64_t timeout_ms : {huge, uint64_t{1} << 54, driver::remote::kMaxHostTimeoutMs + 1}) {
    SCOPED_TRACE("timeout " + std::to_string(timeout_ms) + " ms");
    v1::HostCollectiveResponse response;
    ASSERT_TRUE(
        client.client->stub()
            .HostCollective(client.client->Context().get(),
                            Collective(v1::HOST_COLLECTIVE_BARRIER, "job", 0, 2, "", timeout_ms),
                            &response)
            .ok());
    EXPECT_EQ(response.status().code(), kInvalid) << response.status().message();
    v1::ExecuteRequest execute = CopyExecution(client.program, client.core, client.src, client.dst);
    execute.mutable_options()->set_host_timeout_ms(timeout_ms);
    EXPECT_EQ(Execute(*client.client, execute), kInvalid);
  }
  // The longest timeout allowed is served (a world of one does not wait).
  std::string output;
  EXPECT_EQ(HostCollective(*client.client,
                           Collective(v1::HOST_COLLECTIVE_ALL_GATHER, "alone", 0, 1, "ab",
                                      driver::remote::kMaxHostTimeoutMs),
                           &output),
            kOk);
  EXPECT_EQ(output, "ab");
  v1::ExecuteRequest execute = CopyExecution(client.program, client.core, client.src, client.dst);
  execute.mutable_options()->set_host_timeout_ms(driver::remote::kMaxHostTimeoutMs);
  EXPECT_EQ(Execute(*client.client, execute), kOk);
  ExpectServesCorrectly(bystander);
}

}  // namespace
}  // namespace trnsim::neurond
