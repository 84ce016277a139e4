// neurond's malformed-RPC suite (issue 20): every RPC of proto/neurond.proto against an
// in-process daemon with what a correct client never sends — no session key (before Hello),
// a forged one, an ended one (after Goodbye); unknown, freed and foreign (another session's)
// handles; negative, huge and wrapping sizes and offsets; zero lengths; LoadProgram and Write
// streams out of order, duplicated, truncated or without their header. Each case asserts the
// exact status the daemon documents (README "Sessions", "Limits and hostile input", proto
// comments), and after each group a bystander session — holding cores, memory and a program —
// must still get a verified round trip and a verified execution.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// 16 fp32 (64 bytes) from var1 to var2, on the SP engine.
constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";

std::string CopyImage() {
  StatusOr<isa::Program> program = isa::ParseProgram(kCopyProgram);
  EXPECT_TRUE(program.ok());
  StatusOr<std::vector<uint8_t>> stream = isa::EncodeStream(
      program->engine, program->instructions, isa::LimitsFor(simulator::Trainium2Spec()));
  EXPECT_TRUE(stream.ok());
  driver::ProgramImage image;
  image.streams[static_cast<size_t>(program->engine)] = *stream;
  return driver::remote::SerializeProgramImage(image);
}

v1::LoadProgramRequest LoadHeader(uint64_t image_bytes) {
  v1::LoadProgramRequest request;
  request.mutable_header()->set_image_bytes(image_bytes);
  return request;
}
v1::LoadProgramRequest LoadChunk(std::string bytes) {
  v1::LoadProgramRequest request;
  request.set_chunk(std::move(bytes));
  return request;
}

// Sends `messages` as one LoadProgram stream; the response (gRPC status OK asserted).
v1::LoadProgramResponse LoadStream(RawClient& client,
                                   const std::vector<v1::LoadProgramRequest>& messages) {
  auto context = client.Context();
  v1::LoadProgramResponse response;
  auto writer = client.stub().LoadProgram(context.get(), &response);
  for (const auto& message : messages) {
    if (!writer->Write(message)) break;  // the daemon answered early
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

uint32_t AcquireCores(RawClient& client, int first, int count) {
  v1::CoreRange range;
  range.set_first_physical_core(first);
  range.set_count(count);
  v1::AcquireCoresResponse response;
  EXPECT_TRUE(client.stub().AcquireCores(client.Context().get(), range, &response).ok());
  return response.status().code();
}

uint32_t ReleaseCores(RawClient& client, int first, int count) {
  v1::CoreRange range;
  range.set_first_physical_core(first);
  range.set_count(count);
  v1::ReleaseCoresResponse response;
  EXPECT_TRUE(client.stub().ReleaseCores(client.Context().get(), range, &response).ok());
  return response.status().code();
}

uint32_t Free(RawClient& client, uint64_t handle) {
  v1::MemoryRef ref;
  ref.set_handle(handle);
  v1::FreeResponse response;
  EXPECT_TRUE(client.stub().Free(client.Context().get(), ref, &response).ok());
  return response.status().code();
}

uint32_t Describe(RawClient& client, uint64_t handle) {
  v1::MemoryRef ref;
  ref.set_handle(handle);
  v1::DescribeResponse response;
  EXPECT_TRUE(client.stub().Describe(client.Context().get(), ref, &response).ok());
  return response.status().code();
}

uint32_t Copy(RawClient& client, uint64_t src, uint64_t src_offset, uint64_t dst,
              uint64_t dst_offset, uint64_t size) {
  v1::CopyRequest request;
  request.set_src_handle(src);
  request.set_src_offset(src_offset);
  request.set_dst_handle(dst);
  request.set_dst_offset(dst_offset);
  request.set_size(size);
  v1::CopyResponse response;
  EXPECT_TRUE(client.stub().Copy(client.Context().get(), request, &response).ok());
  return response.status().code();
}

uint32_t Fill(RawClient& client, uint64_t handle, uint64_t offset, uint64_t size,
              uint32_t value = 0x5a) {
  v1::FillRequest request;
  request.set_handle(handle);
  request.set_offset(offset);
  request.set_size(size);
  request.set_value(value);
  v1::FillResponse response;
  EXPECT_TRUE(client.stub().Fill(client.Context().get(), request, &response).ok());
  return response.status().code();
}

uint32_t Unload(RawClient& client, uint64_t program) {
  v1::ProgramRef ref;
  ref.set_program(program);
  v1::UnloadProgramResponse response;
  EXPECT_TRUE(client.stub().UnloadProgram(client.Context().get(), ref, &response).ok());
  return response.status().code();
}

uint32_t PeerRpc(RawClient& client, const v1::PointToPointRequest& request,
                 v1::PointToPointResponse* out = nullptr) {
  v1::PointToPointResponse response;
  EXPECT_TRUE(client.stub().PointToPoint(client.Context().get(), request, &response).ok());
  if (out != nullptr) *out = response;
  return response.status().code();
}

v1::PointToPointRequest PeerPost(uint64_t comm, uint64_t memory, uint64_t offset, uint64_t length) {
  v1::PointToPointRequest request;
  request.set_op(v1::PEER_POST);
  request.set_id(comm);
  request.set_memory_handle(memory);
  request.set_offset(offset);
  request.set_length(length);
  return request;
}

v1::HostCollectiveRequest Collective(v1::HostCollectiveKind kind, const std::string& name,
                                     uint32_t rank, uint32_t world, const std::string& input,
                                     uint64_t timeout_ms = 5000) {
  v1::HostCollectiveRequest request;
  request.set_kind(kind);
  request.set_communicator(name);
  request.set_rank(rank);
  request.set_world_size(world);
  request.set_input(input);
  request.set_timeout_ms(timeout_ms);
  return request;
}

uint32_t HostCollective(RawClient& client, const v1::HostCollectiveRequest& request,
                        std::string* output = nullptr) {
  v1::HostCollectiveResponse response;
  EXPECT_TRUE(client.stub().HostCollective(client.Context().get(), request, &response).ok());
  if (output != nullptr) *output = response.output();
  return response.status().code();
}

// One core running the copy program with var1 = src and var2 = dst (64 bytes each, offset 0).
v1::ExecuteRequest CopyExecution(uint64_t program, int core, uint64_t src, uint64_t dst) {
  v1::ExecuteRequest request;
  v1::CoreExecution* run = request.add_cores();
  run->set_program(program);
  run->set_physical_core(core);
  for (auto [var, memory] : {std::pair{1u, src}, std::pair{2u, dst}}) {
    v1::VarBinding* binding = run->add_vars();
    binding->set_var_id(var);
    binding->set_memory(memory);
    binding->set_size(64);
  }
  return request;
}

uint32_t Execute(RawClient& client, const v1::ExecuteRequest& request) {
  v1::ExecuteResponse response;
  EXPECT_TRUE(client.stub().Execute(client.Context().get(), request, &response).ok());
  return response.status().code();
}

// 64 bytes that differ with `seed`.
std::string Pattern(int seed, size_t size = 64) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed * 31 + i * 7 + 1);
  return bytes;
}

class MalformedRpcTest : public NeurondServiceTest {
 protected:
  // A session that holds two cores, two 64-byte allocations and the copy program.
  struct Tenant {
    std::unique_ptr<RawClient> client;
    int core = 0;
    uint64_t src = 0, dst = 0, program = 0;
  };

  Tenant Open(int first_core) {
    Tenant tenant;
    tenant.client = Connect();
    tenant.core = first_core;
    EXPECT_EQ(AcquireCores(*tenant.client, first_core, 2), kOk);
    v1::AllocateResponse src = Allocate(*tenant.client, 64);
    v1::AllocateResponse dst = Allocate(*tenant.client, 64);
    EXPECT_EQ(src.status().code(), kOk);
    EXPECT_EQ(dst.status().code(), kOk);
    tenant.src = src.info().handle();
    tenant.dst = dst.info().handle();
    const std::string image = CopyImage();
    v1::LoadProgramResponse loaded =
        LoadStream(*tenant.client, {LoadHeader(image.size()), LoadChunk(image)});
    EXPECT_EQ(loaded.status().code(), kOk) << loaded.status().message();
    tenant.program = loaded.program();
    return tenant;
  }

  // The daemon still serves `tenant` correctly: a round trip of fresh memory, and an execution
  // of its program whose output is its input.
  void ExpectServesCorrectly(Tenant& tenant) {
    SCOPED_TRACE("the bystander session");
    ExpectServing(*tenant.client);
    const std::string input = Pattern(++executions_);
    ASSERT_EQ(WriteStream(*tenant.client, {Header(tenant.src, 0, 64), Data(input)}), kOk);
    ASSERT_EQ(
        Execute(*tenant.client, CopyExecution(tenant.program, tenant.core, tenant.src, tenant.dst)),
        kOk);
    std::string output;
    ASSERT_EQ(ReadBytes(*tenant.client, tenant.dst, 0, 64, &output), kOk);
    EXPECT_EQ(output, input);
  }

  int executions_ = 0;
};

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
         const std::string image = CopyImage();
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
  const std::string image = CopyImage();
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

// ---------------------------------------------------------------------------------------------
// Streams: LoadProgram and Write messages out of order, duplicated, truncated, empty or
// oversized are NRT_INVALID; nothing is loaded.

TEST_F(MalformedRpcTest, MalformedLoadProgramStreamsLoadNothing) {
  Tenant bystander = Open(0);
  auto client = Connect();
  const std::string image = CopyImage();
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
