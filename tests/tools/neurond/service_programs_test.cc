// neurond's service against a raw gRPC client, programs and executions: LoadProgram streams,
// programs running only on cores the session holds with its own handles, the model tags of
// the Status RPC, and an execution cancelled when its session ends.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

std::string CopyProgramImage() { return SerializedProgram(kCopyProgram); }

// Sends `pieces` after a header announcing `total` bytes; the response.
v1::LoadProgramResponse LoadProgram(RawClient& client, uint64_t total,
                                    const std::vector<std::string>& pieces) {
  std::vector<v1::LoadProgramRequest> messages = {LoadHeader(total)};
  for (const std::string& piece : pieces) messages.push_back(LoadChunk(piece));
  return LoadStream(client, messages);
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
  // Memory unknown to a binding is NRT_INVALID, as the Device contract (driver/device.h) says.
  EXPECT_EQ(ExecuteCopy(*bob, bobs.program(), 2, src, dst).status().code(), kInvalid);
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
      LoadModelProgram(*client, SerializedProgram(kEndlessProgram), 7, "endless", uuid);
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
    if (memory.model_id() == 7) {
      EXPECT_EQ(memory.category(), v1::MEMORY_CATEGORY_CONSTANT);
    }
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
  const std::string image = SerializedProgram(kEndlessProgram);
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

  victim->BreakAttach();
  execution.join();
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
