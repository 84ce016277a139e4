// neurond's malformed-RPC suite (issue 20), first half: every RPC of proto/neurond.proto against
// an in-process daemon with what a correct client never sends — no session key (before Hello),
// a forged one, an ended one (after Goodbye); unknown, freed and foreign (another session's)
// handles; negative, huge and wrapping sizes and offsets; zero lengths; cores, chips and HBM
// stacks out of range. Each case asserts the exact status the daemon documents (README
// "Sessions", "Limits and hostile input", proto comments), and after each group a bystander
// session — holding cores, memory and a program — must still get a verified round trip and a
// verified execution (malformed_rpc_fixture.h). Streams, executions, collectives and timeouts:
// malformed_stream_test.cc.
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
// Sessions: every RPC but Hello needs the key of a live session.

// One call of an RPC with a harmless request, in `context`; its gRPC status.
struct RpcCall {
  const char* rpc;
  std::function<grpc::Status(v1::Neurond::Stub&, grpc::ClientContext*)> call;
};

std::vector<RpcCall> EveryRpcButHello() {
  using Stub = v1::Neurond::Stub;
  using Context = grpc::ClientContext;
  return {
      {"Attach",
       [](Stub& stub, Context* context) {
         auto stream = stub.Attach(context, v1::AttachRequest());
         v1::SessionEvent event;
         while (stream->Read(&event)) {
         }
         return stream->Finish();
       }},
      {"Goodbye",
       [](Stub& stub, Context* context) {
         v1::GoodbyeResponse response;
         return stub.Goodbye(context, v1::GoodbyeRequest(), &response);
       }},
      {"AcquireCores",
       [](Stub& stub, Context* context) {
         v1::CoreRange range;
         range.set_count(1);
         v1::AcquireCoresResponse response;
         return stub.AcquireCores(context, range, &response);
       }},
      {"ReleaseCores",
       [](Stub& stub, Context* context) {
         v1::CoreRange range;
         range.set_count(1);
         v1::ReleaseCoresResponse response;
         return stub.ReleaseCores(context, range, &response);
       }},
      {"Allocate",
       [](Stub& stub, Context* context) {
         v1::AllocationRequest request;
         request.set_size_bytes(64);
         request.set_alignment_bytes(64);
         request.set_category(v1::MEMORY_CATEGORY_TENSOR);
         v1::AllocateResponse response;
         return stub.Allocate(context, request, &response);
       }},
      {"Free",
       [](Stub& stub, Context* context) {
         v1::MemoryRef ref;
         ref.set_handle(1);
         v1::FreeResponse response;
         return stub.Free(context, ref, &response);
       }},
      {"Describe",
       [](Stub& stub, Context* context) {
         v1::MemoryRef ref;
         ref.set_handle(1);
         v1::DescribeResponse response;
         return stub.Describe(context, ref, &response);
       }},
      {"Write",
       [](Stub& stub, Context* context) {
         v1::WriteResponse response;
         auto writer = stub.Write(context, &response);
         v1::WriteRequest header;
         header.mutable_header()->set_handle(1);
         header.mutable_header()->set_size(4);
         v1::WriteRequest data;
         data.set_data("abcd");
         if (writer->Write(header)) writer->Write(data);
         writer->WritesDone();
         return writer->Finish();
       }},
      {"Read",
       [](Stub& stub, Context* context) {
         v1::ReadRequest request;
         request.set_handle(1);
         request.set_size(4);
         auto reader = stub.Read(context, request);
         v1::ReadResponse response;
         while (reader->Read(&response)) {
         }
         return reader->Finish();
       }},
      {"WriteShared",
       [](Stub& stub, Context* context) {
         v1::SharedTransferRequest request;
         request.set_region(1);
         request.set_handle(1);
         request.set_size(4);
         v1::SharedTransferResponse response;
         return stub.WriteShared(context, request, &response);
       }},
      {"ReadShared",
       [](Stub& stub, Context* context) {
         v1::SharedTransferRequest request;
         request.set_region(1);
         request.set_handle(1);
         request.set_size(4);
         v1::SharedTransferResponse response;
         return stub.ReadShared(context, request, &response);
       }},
      {"Copy",
       [](Stub& stub, Context* context) {
         v1::CopyRequest request;
         request.set_src_handle(1);
         request.set_dst_handle(1);
         v1::CopyResponse response;
         return stub.Copy(context, request, &response);
       }},
      {"Fill",
       [](Stub& stub, Context* context) {
         v1::FillRequest request;
         request.set_handle(1);
         request.set_size(4);
         v1::FillResponse response;
         return stub.Fill(context, request, &response);
       }},
      {"GetHbmUsage",
       [](Stub& stub, Context* context) {
         v1::GetHbmUsageResponse response;
         return stub.GetHbmUsage(context, v1::HbmRef(), &response);
       }},
      {"LoadProgram",
       [](Stub& stub, Context* context) {
         const std::string image = SerializedProgram(kCopyProgram);
         v1::LoadProgramResponse response;
         auto writer = stub.LoadProgram(context, &response);
         if (writer->Write(LoadHeader(image.size()))) writer->Write(LoadChunk(image));
         writer->WritesDone();
         return writer->Finish();
       }},
      {"UnloadProgram",
       [](Stub& stub, Context* context) {
         v1::ProgramRef ref;
         ref.set_program(1);
         v1::UnloadProgramResponse response;
         return stub.UnloadProgram(context, ref, &response);
       }},
      {"Execute",
       [](Stub& stub, Context* context) {
         v1::ExecuteResponse response;
         return stub.Execute(context, CopyExecution(1, 0, 1, 2), &response);
       }},
      {"HostCollective",
       [](Stub& stub, Context* context) {
         v1::HostCollectiveResponse response;
         return stub.HostCollective(
             context, Collective(v1::HOST_COLLECTIVE_BARRIER, "job", 0, 1, ""), &response);
       }},
      {"PointToPoint",
       [](Stub& stub, Context* context) {
         v1::PointToPointRequest request;
         request.set_op(v1::PEER_TEST);
         request.set_id(1);
         v1::PointToPointResponse response;
         return stub.PointToPoint(context, request, &response);
       }},
      {"Status",
       [](Stub& stub, Context* context) {
         v1::StatusResponse response;
         return stub.Status(context, v1::StatusRequest(), &response);
       }},
  };
}

TEST_F(MalformedRpcTest, EveryRpcNeedsTheKeyOfALiveSession) {
  Tenant bystander = Open(0);
  RawClient stranger(daemon_->address());  // never said Hello
  RawClient forger(daemon_->address());
  forger.set_key(std::string(32, 'f'));
  // A session that held memory, cores and a program, then said Goodbye.
  Tenant leaver = Open(2);
  v1::GoodbyeResponse bye;
  ASSERT_TRUE(leaver.client->stub()
                  .Goodbye(leaver.client->Context().get(), v1::GoodbyeRequest(), &bye)
                  .ok());
  ASSERT_EQ(bye.status().code(), kOk);
  // A session whose Attach stream broke (its client died).
  Tenant dead = Open(4);
  dead.client->BreakAttach();
  for (int i = 0; i < 250 && DaemonStatus(*bystander.client).sessions_size() > 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(DaemonStatus(*bystander.client).sessions_size(), 1);

  struct Caller {
    const char* who;
    RawClient* client;
    bool with_key;
  };
  const std::vector<Caller> callers = {
      {"before Hello, no key", &stranger, false},
      {"before Hello, an empty key", &stranger, true},
      {"a forged key", &forger, true},
      {"after Goodbye", leaver.client.get(), true},
      {"after the Attach stream broke", dead.client.get(), true},
  };
  for (const Caller& caller : callers) {
    for (const RpcCall& rpc : EveryRpcButHello()) {
      SCOPED_TRACE(std::string(rpc.rpc) + ", " + caller.who);
      grpc::Status status =
          rpc.call(caller.client->stub(), caller.client->Context(caller.with_key).get());
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
      EXPECT_EQ(DetailsOf(status).code(), kInvalid);
    }
  }
  // Nothing of theirs is left, and none of it was touched by the refused calls.
  v1::StatusResponse status = DaemonStatus(*bystander.client);
  ASSERT_EQ(status.sessions_size(), 1);
  uint64_t bystander_bytes = 0;
  for (const auto& memory : status.sessions(0).memory()) bystander_bytes += memory.bytes();
  EXPECT_EQ(HbmUsed(status), bystander_bytes);
  EXPECT_GE(bystander_bytes, 128u);
  for (const auto& core : status.cores()) {
    EXPECT_EQ(core.owner_session_id(),
              core.physical_core() < 2 ? bystander.client->session_id() : 0u);
  }
  // Hello again after Goodbye opens a new session with another id and key.
  const std::string old_key = leaver.client->key();
  const uint64_t old_id = leaver.client->session_id();
  v1::HelloResponse hello;
  ASSERT_TRUE(leaver.client->Hello(kToken, &hello).ok());
  EXPECT_EQ(hello.status().code(), kOk);
  EXPECT_NE(hello.session_id(), old_id);
  EXPECT_NE(hello.session_key(), old_key);
  ExpectServesCorrectly(bystander);
}

// ---------------------------------------------------------------------------------------------
// Handles: unknown, freed and foreign ones are NRT_INVALID_HANDLE everywhere a handle is named
// (a binding of Execute: NRT_INVALID, the Device contract), and touch nothing.

TEST_F(MalformedRpcTest, UnknownFreedAndForeignHandlesAreRefusedEverywhere) {
  Tenant alice = Open(0);  // memory 1, 2; program 1
  // Alice's memory 4 and program 2 have numbers Mallory never had as such (her memory 3 is
  // freed, her program is 1).
  ASSERT_EQ(Allocate(*alice.client, 64).status().code(), kOk);
  v1::AllocateResponse secret = Allocate(*alice.client, 1024);
  ASSERT_EQ(secret.status().code(), kOk);
  const uint64_t alices_memory = secret.info().handle();
  ASSERT_EQ(alices_memory, 4u);
  const std::string alices_bytes = Pattern(99, 1024);
  ASSERT_EQ(WriteStream(*alice.client, {Header(alices_memory, 0, 1024), Data(alices_bytes)}), kOk);
  const std::string image = SerializedProgram(kCopyProgram);
  v1::LoadProgramResponse second =
      LoadStream(*alice.client, {LoadHeader(image.size()), LoadChunk(image)});
  ASSERT_EQ(second.status().code(), kOk);
  const uint64_t alices_program = second.program();
  ASSERT_EQ(alices_program, 2u);

  Tenant mallory = Open(2);  // memory 1, 2; program 1
  v1::AllocateResponse freed = Allocate(*mallory.client, 64);
  ASSERT_EQ(freed.status().code(), kOk);
  ASSERT_EQ(freed.info().handle(), 3u);
  ASSERT_EQ(Free(*mallory.client, freed.info().handle()), kOk);
  // A send end of Mallory's own, so POST reaches the memory check.
  v1::PointToPointRequest open;
  open.set_op(v1::PEER_OPEN);
  open.set_side(v1::PEER_SEND);
  open.set_lnc(1);
  open.set_peer_lnc(0);
  v1::PointToPointResponse opened;
  ASSERT_EQ(PeerRpc(*mallory.client, open, &opened), kOk);

  RawClient& m = *mallory.client;
  const std::vector<std::pair<const char*, uint64_t>> handles = {
      {"0", 0},
      {"freed", freed.info().handle()},
      {"another session's memory", alices_memory},
      {"another session's program", alices_program},
      {"unknown", 999},
      {"2^64-1", kMax},
  };
  for (const auto& [what, h] : handles) {
    SCOPED_TRACE(std::string("handle ") + what + " = " + std::to_string(h));
    // A program handle that is Mallory's memory handle too (2: her dst) only counts as memory.
    const bool program_known = h == mallory.program;
    const bool memory_known = h == mallory.src || h == mallory.dst;
    std::string bytes;
    if (!memory_known) {
      EXPECT_EQ(Free(m, h), kInvalidHandle);
      EXPECT_EQ(Describe(m, h), kInvalidHandle);
      EXPECT_EQ(ReadBytes(m, h, 0, 4, &bytes), kInvalidHandle);
      EXPECT_TRUE(bytes.empty());
      EXPECT_EQ(WriteStream(m, {Header(h, 0, 4), Data("evil")}), kInvalidHandle);
      EXPECT_EQ(Copy(m, h, 0, mallory.dst, 0, 4), kInvalidHandle);
      EXPECT_EQ(Copy(m, mallory.src, 0, h, 0, 4), kInvalidHandle);
      EXPECT_EQ(Fill(m, h, 0, 4), kInvalidHandle);
      EXPECT_EQ(PeerRpc(m, PeerPost(opened.id(), h, 0, 4)), kInvalidHandle);
      // A binding of memory the session does not have: NRT_INVALID (driver/device.h).
      EXPECT_EQ(Execute(m, CopyExecution(mallory.program, mallory.core, h, mallory.dst)), kInvalid);
      EXPECT_EQ(Execute(m, CopyExecution(mallory.program, mallory.core, mallory.src, h)), kInvalid);
    }
    if (!program_known) {
      EXPECT_EQ(Unload(m, h), kInvalidHandle);
      EXPECT_EQ(Execute(m, CopyExecution(h, mallory.core, mallory.src, mallory.dst)),
                h == 0 ? kInvalid : kInvalidHandle);  // 0 is never a handle: malformed
    }
  }
  // Comm and request ids nobody opened: NRT_INVALID_HANDLE (point_to_point.h).
  for (v1::PeerOp op : {v1::PEER_CONNECTED, v1::PEER_POST, v1::PEER_TEST}) {
    v1::PointToPointRequest request = PeerPost(opened.id() + 1000, mallory.src, 0, 4);
    request.set_op(op);
    EXPECT_EQ(PeerRpc(m, request), kInvalidHandle) << "op " << op;
  }
  v1::PointToPointRequest close;
  close.set_op(v1::PEER_CLOSE);
  close.set_lnc(1);
  close.set_force(true);
  EXPECT_EQ(PeerRpc(m, close), kOk);

  // Alice's memory and programs are as she left them.
  std::string bytes;
  ASSERT_EQ(ReadBytes(*alice.client, alices_memory, 0, 1024, &bytes), kOk);
  EXPECT_EQ(bytes, alices_bytes);
  v1::StatusResponse status = DaemonStatus(*alice.client);
  ASSERT_EQ(status.sessions_size(), 2);
  EXPECT_EQ(status.sessions(0).loaded_programs(), 2u);
  EXPECT_EQ(status.sessions(0).executions(), 0u);
  ExpectServesCorrectly(alice);
  ExpectServesCorrectly(mallory);
}

// ---------------------------------------------------------------------------------------------
// Ranges: offsets and sizes are checked against the allocation without wrapping; zero lengths
// inside it (or at its end) are served and move nothing.

struct RangeCase {
  uint64_t offset;
  uint64_t size;
  uint32_t want;
};

const std::vector<RangeCase>& RangeCases() {
  static const std::vector<RangeCase> cases = {
      {0, 0, kOk},                                       // zero length
      {1024, 0, kOk},                                    // zero length at the end
      {1008, 16, kOk},                                   // the last bytes
      {1025, 0, kInvalid},                               // past the end
      {0, 1025, kInvalid},                               // longer than the allocation
      {1000, 100, kInvalid},                             // across the end
      {8, kMax, kInvalid},                               // offset + size wraps
      {kMax, 1, kInvalid},                               // likewise
      {kMax - 2, 16, kInvalid},                          // likewise
      {uint64_t{1} << 63, uint64_t{1} << 63, kInvalid},  // wraps to exactly 0
      {uint64_t(-8), 8, kInvalid},                       // "negative" offset
      {0, uint64_t(-1024), kInvalid},                    // "negative" size
      {kMax, kMax, kInvalid},
  };
  return cases;
}

TEST_F(MalformedRpcTest, RangesAreCheckedWithoutWrapping) {
  Tenant bystander = Open(0);
  Tenant client = Open(2);
  RawClient& c = *client.client;
  v1::AllocateResponse a = Allocate(c, 1024);
  v1::AllocateResponse b = Allocate(c, 1024);
  ASSERT_EQ(a.status().code(), kOk);
  ASSERT_EQ(b.status().code(), kOk);
  ASSERT_EQ(a.info().size_bytes(), 1024u);
  const uint64_t mem = a.info().handle(), other = b.info().handle();
  const std::string contents = Pattern(5, 1024);
  v1::PointToPointRequest open;
  open.set_op(v1::PEER_OPEN);
  open.set_side(v1::PEER_SEND);
  open.set_lnc(1);
  open.set_peer_lnc(0);
  v1::PointToPointResponse opened;
  ASSERT_EQ(PeerRpc(c, open, &opened), kOk);

  for (const RangeCase& range : RangeCases()) {
    SCOPED_TRACE("offset " + std::to_string(range.offset) + ", size " + std::to_string(range.size));
    ASSERT_EQ(WriteStream(c, {Header(mem, 0, 1024), Data(contents)}), kOk);
    ASSERT_EQ(WriteStream(c, {Header(other, 0, 1024), Data(contents)}), kOk);
    std::string bytes;
    EXPECT_EQ(ReadBytes(c, mem, range.offset, range.size, &bytes), range.want);
    if (range.want == kOk) {
      EXPECT_EQ(bytes, contents.substr(range.offset, range.size));
    } else {
      EXPECT_TRUE(bytes.empty());
    }
    // A Write of the range: its data, or (refused at its header) a chunk of 8 bytes.
    const std::string data = range.want == kOk ? std::string(range.size, 'w') : "wwwwwwww";
    std::vector<v1::WriteRequest> write = {Header(mem, range.offset, range.size)};
    if (!data.empty()) write.push_back(Data(data));
    EXPECT_EQ(WriteStream(c, write), range.want);
    EXPECT_EQ(Copy(c, mem, range.offset, other, 0, range.size), range.want);
    EXPECT_EQ(Copy(c, other, 0, mem, range.offset, range.size), range.want);
    EXPECT_EQ(Fill(c, mem, range.offset, range.size), range.want);
    if (range.want != kOk) {
      EXPECT_EQ(PeerRpc(c, PeerPost(opened.id(), mem, range.offset, range.size)), kInvalid);
      v1::ExecuteRequest execute = CopyExecution(client.program, client.core, mem, other);
      execute.mutable_cores(0)->mutable_vars(0)->set_offset(range.offset);
      execute.mutable_cores(0)->mutable_vars(0)->set_size(range.size);
      EXPECT_EQ(Execute(c, execute), kInvalid);
      // A refused range changed nothing anywhere.
      ASSERT_EQ(ReadBytes(c, mem, 0, 1024, &bytes), kOk);
      EXPECT_EQ(bytes, contents);
      ASSERT_EQ(ReadBytes(c, other, 0, 1024, &bytes), kOk);
      EXPECT_EQ(bytes, contents);
    } else {
      // The served calls: the Write, the copies there and back, then the Fill (last).
      std::string want = contents;
      want.replace(range.offset, range.size, std::string(range.size, '\x5a'));
      ASSERT_EQ(ReadBytes(c, mem, 0, 1024, &bytes), kOk);
      EXPECT_EQ(bytes, want);
    }
  }
  v1::PointToPointRequest close;
  close.set_op(v1::PEER_CLOSE);
  close.set_lnc(1);
  close.set_force(true);
  EXPECT_EQ(PeerRpc(c, close), kOk);
  ExpectServesCorrectly(bystander);
  ExpectServesCorrectly(client);
}

// Allocation sizes, alignments and places; cores; HBM stacks: negative, zero, huge.
TEST_F(MalformedRpcTest, SizesCoresAndStacksOutOfRange) {
  Tenant bystander = Open(0);
  auto client = Connect();
  RawClient& c = *client;
  ASSERT_EQ(Allocate(c, 4096).status().code(), kOk);  // offset 0 of stack 0 is taken
  struct AllocationCase {
    const char* what;
    int chip, hbm, owner_core, category;
    uint64_t size, alignment;
    uint32_t want;
  };
  const std::vector<AllocationCase> allocations = {
      {"size 0", 0, 0, 0, 1, 0, 64, kInvalid},
      {"size 2^60", 0, 0, 0, 1, uint64_t{1} << 60, 64, kResource},
      {"size 2^64-1", 0, 0, 0, 1, kMax, 64, kResource},
      {"alignment 0", 0, 0, 0, 1, 64, 0, kInvalid},
      {"alignment 3", 0, 0, 0, 1, 64, 3, kInvalid},
      {"alignment 2^64-1", 0, 0, 0, 1, 64, kMax, kInvalid},
      {"alignment 2^63, offset 0 taken", 0, 0, 0, 1, 64, uint64_t{1} << 63, kResource},
      {"chip -1", -1, 0, 0, 1, 64, 64, kInvalid},
      {"chip 1 of 1", 1, 0, 0, 1, 64, 64, kInvalid},
      {"chip INT_MAX", INT_MAX, 0, 0, 1, 64, 64, kInvalid},
      {"hbm -1", 0, -1, 0, 1, 64, 64, kInvalid},
      {"hbm 4 of 4", 0, 4, 0, 1, 64, 64, kInvalid},
      {"owner core -1", 0, 0, -1, 1, 64, 64, kInvalid},
      {"owner core 8 of 8", 0, 0, 8, 1, 64, 64, kInvalid},
      {"owner core INT_MIN", 0, 0, INT_MIN, 1, 64, 64, kInvalid},
      {"category 0", 0, 0, 0, 0, 64, 64, kInvalid},
      {"category -1", 0, 0, 0, -1, 64, 64, kInvalid},
      {"category 6", 0, 0, 0, 6, 64, 64, kInvalid},
  };
  for (const AllocationCase& a : allocations) {
    v1::AllocationRequest request;
    request.set_chip(a.chip);
    request.set_hbm(a.hbm);
    request.set_owner_core(a.owner_core);
    request.set_category(static_cast<v1::MemoryCategory>(a.category));
    request.set_size_bytes(a.size);
    request.set_alignment_bytes(a.alignment);
    v1::AllocateResponse response;
    ASSERT_TRUE(c.stub().Allocate(c.Context().get(), request, &response).ok());
    EXPECT_EQ(response.status().code(), a.want) << a.what << ": " << response.status().message();
    EXPECT_EQ(response.info().handle(), 0u) << a.what;
  }

  struct CoreCase {
    int first, count;
    uint32_t acquire, release;
  };
  const std::vector<CoreCase> cores = {
      {-1, 1, kInvalid, kInvalid},
      {0, 0, kInvalid, kInvalid},
      {0, -1, kInvalid, kInvalid},
      {7, 2, kInvalid, kInvalid},
      {8, 1, kInvalid, kInvalid},
      {1, INT_MAX, kInvalid, kInvalid},
      {INT_MAX, 1, kInvalid, kInvalid},
      {INT_MAX, INT_MAX, kInvalid, kInvalid},
      {INT_MIN, 2, kInvalid, kInvalid},
      {INT_MIN, INT_MAX, kInvalid, kInvalid},
      {-1, INT_MIN, kInvalid, kInvalid},
      // The bystander's cores: held by someone else (NRT_FAILURE); releasing them releases
      // nothing, as the caller holds none of them.
      {0, 2, kFailure, kOk},
  };
  for (const CoreCase& range : cores) {
    SCOPED_TRACE("cores " + std::to_string(range.first) + " +" + std::to_string(range.count));
    EXPECT_EQ(AcquireCores(c, range.first, range.count), range.acquire);
    EXPECT_EQ(ReleaseCores(c, range.first, range.count), range.release);
  }
  v1::StatusResponse status = DaemonStatus(c);
  for (const auto& core : status.cores()) {
    EXPECT_EQ(core.owner_session_id(),
              core.physical_core() < 2 ? bystander.client->session_id() : 0u);
  }

  for (auto [chip, hbm] : {std::pair{-1, 0}, std::pair{0, -1}, std::pair{1, 0}, std::pair{0, 4},
                           std::pair{INT_MIN, INT_MIN}, std::pair{INT_MAX, INT_MAX}}) {
    v1::HbmRef ref;
    ref.set_chip(chip);
    ref.set_hbm(hbm);
    v1::GetHbmUsageResponse usage;
    ASSERT_TRUE(c.stub().GetHbmUsage(c.Context().get(), ref, &usage).ok());
    EXPECT_EQ(usage.status().code(), kInvalid) << "chip " << chip << " hbm " << hbm;
  }
  v1::HbmRef ref;
  v1::GetHbmUsageResponse usage;
  ASSERT_TRUE(c.stub().GetHbmUsage(c.Context().get(), ref, &usage).ok());
  EXPECT_EQ(usage.status().code(), kOk);
  EXPECT_GE(usage.usage().used_bytes(), 4096u + 128u);
  ExpectServesCorrectly(bystander);
}

}  // namespace
}  // namespace trnsim::neurond
