// neurond's --max-session-memory over everything a session makes the daemon hold (issue 20 F4):
// program uploads in flight (LoadProgram streams not finished) and loaded programs count with
// device memory, a load or upload past the limit is NRT_RESOURCE, and every charge comes back on
// unload, on a refused or cancelled stream and at the session's end — read through Status
// (SessionStatus.program_bytes, upload_bytes).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "driver/sim/program_footprint.h"
#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// An upload left open: its header (announcing `total` bytes) and one chunk are sent.
struct OpenUpload {
  std::unique_ptr<grpc::ClientContext> context;
  v1::LoadProgramResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::LoadProgramRequest>> writer;
};

std::unique_ptr<OpenUpload> StartUpload(RawClient& client, uint64_t total) {
  auto upload = std::make_unique<OpenUpload>();
  upload->context = client.Context();
  upload->writer = client.stub().LoadProgram(upload->context.get(), &upload->response);
  v1::LoadProgramRequest header;
  header.mutable_header()->set_image_bytes(total);
  upload->writer->Write(header);
  v1::LoadProgramRequest chunk;
  chunk.set_chunk(std::string(kMiB, 'x'));
  upload->writer->Write(chunk);
  return upload;
}

class SessionMemoryTest : public NeurondServiceTest {
 protected:
  // `client`'s entry in the Status `observer` reads; fails the test when it is not listed.
  static v1::SessionStatus SessionOf(RawClient& observer, const RawClient& client) {
    const v1::StatusResponse status = DaemonStatus(observer);
    for (const v1::SessionStatus& session : status.sessions()) {
      if (session.session_id() == client.session_id()) return session;
    }
    ADD_FAILURE() << "session " << client.session_id() << " is not in Status";
    return v1::SessionStatus();
  }

  // Waits (up to 10 s) until `client`'s upload_bytes is `bytes`: the daemon reads a stream's
  // header on its own thread.
  static bool UploadBytesBecome(RawClient& observer, const RawClient& client, uint64_t bytes) {
    for (int i = 0; i < 500; ++i) {
      if (SessionOf(observer, client).upload_bytes() == bytes) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

TEST_F(SessionMemoryTest, UnfinishedUploadsCountAgainstTheSessionLimit) {
  StartDaemon(ServiceOptions{.token = kToken, .max_session_memory_bytes = 8 * kMiB});
  auto client = Connect();
  auto observer = Connect();
  // Two uploads of 3 MiB each stay open: 6 MiB of the 8 MiB are taken.
  std::unique_ptr<OpenUpload> first = StartUpload(*client, 3 * kMiB);
  ASSERT_TRUE(UploadBytesBecome(*observer, *client, 3 * kMiB));
  std::unique_ptr<OpenUpload> second = StartUpload(*client, 3 * kMiB);
  ASSERT_TRUE(UploadBytesBecome(*observer, *client, 6 * kMiB));
  // A third is refused at its header, and so is device memory past the rest.
  std::unique_ptr<OpenUpload> third = StartUpload(*client, 3 * kMiB);
  third->writer->WritesDone();
  ASSERT_TRUE(third->writer->Finish().ok());
  EXPECT_EQ(third->response.status().code(), kResource) << third->response.status().message();
  EXPECT_EQ(Allocate(*client, 3 * kMiB).status().code(), kResource);
  EXPECT_EQ(SessionOf(*observer, *client).upload_bytes(), 6 * kMiB);
  // Other sessions have their own budget.
  std::unique_ptr<OpenUpload> others = StartUpload(*observer, 3 * kMiB);
  ASSERT_TRUE(UploadBytesBecome(*observer, *observer, 3 * kMiB));
  others->context->TryCancel();
  others->writer->Finish();

  // A stream that ends short and one the client cancels return their charge.
  first->writer->WritesDone();
  ASSERT_TRUE(first->writer->Finish().ok());
  EXPECT_EQ(first->response.status().code(), kInvalid);
  second->context->TryCancel();
  EXPECT_EQ(second->writer->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(UploadBytesBecome(*observer, *client, 0));
  EXPECT_TRUE(UploadBytesBecome(*observer, *observer, 0));
  EXPECT_EQ(SessionOf(*observer, *client).program_bytes(), 0u);
  ExpectServing(*client);

  // A session that ends with an upload open: nothing of it is left, the next one has it all.
  std::unique_ptr<OpenUpload> orphan = StartUpload(*client, 7 * kMiB);
  ASSERT_TRUE(UploadBytesBecome(*observer, *client, 7 * kMiB));
  client->BreakAttach();
  for (int i = 0; i < 500 && DaemonStatus(*observer).sessions_size() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(DaemonStatus(*observer).sessions_size(), 1);
  orphan->context->TryCancel();
  orphan->writer->Finish();
  auto next = Connect();
  std::unique_ptr<OpenUpload> whole = StartUpload(*next, 7 * kMiB);
  EXPECT_TRUE(UploadBytesBecome(*observer, *next, 7 * kMiB));
  whole->context->TryCancel();
  whole->writer->Finish();
}

TEST_F(SessionMemoryTest, LoadedProgramsCountAgainstTheSessionLimit) {
  const driver::ProgramImage image = AssembleImage(kCopyProgram);
  const std::string serialised = driver::remote::SerializeProgramImage(image);
  const uint64_t program = driver::sim::LoadedProgramBytes(image);
  ASSERT_GT(program, serialised.size());
  // Room for three loaded programs and a fourth's upload, not for a fourth program.
  StartDaemon(ServiceOptions{.token = kToken,
                             .max_session_memory_bytes = 3 * program + serialised.size()});
  auto client = Connect();
  auto observer = Connect();
  std::vector<uint64_t> handles;
  for (int i = 0; i < 3; ++i) {
    v1::LoadProgramResponse loaded = LoadProgram(*client, serialised);
    ASSERT_EQ(loaded.status().code(), kOk) << loaded.status().message();
    handles.push_back(loaded.program());
  }
  v1::SessionStatus status = SessionOf(*observer, *client);
  EXPECT_EQ(status.loaded_programs(), 3u);
  EXPECT_EQ(status.program_bytes(), 3 * program);
  EXPECT_EQ(status.upload_bytes(), 0u);
  v1::LoadProgramResponse refused = LoadProgram(*client, serialised);
  EXPECT_EQ(refused.status().code(), kResource) << refused.status().message();
  status = SessionOf(*observer, *client);
  EXPECT_EQ(status.loaded_programs(), 3u);
  EXPECT_EQ(status.program_bytes(), 3 * program);
  EXPECT_EQ(status.upload_bytes(), 0u);

  // An image the Device refuses charges nothing.
  ASSERT_EQ(Unload(*client, handles.back()), kOk);
  handles.pop_back();
  std::string corrupt = serialised;
  corrupt[corrupt.size() - 1] ^= 0x5a;
  EXPECT_NE(LoadProgram(*client, corrupt).status().code(), kOk);
  status = SessionOf(*observer, *client);
  EXPECT_EQ(status.program_bytes(), 2 * program);
  EXPECT_EQ(status.upload_bytes(), 0u);
  // Unloading gives the room back; all unloaded, nothing is charged.
  v1::LoadProgramResponse again = LoadProgram(*client, serialised);
  ASSERT_EQ(again.status().code(), kOk) << again.status().message();
  handles.push_back(again.program());
  for (uint64_t handle : handles) EXPECT_EQ(Unload(*client, handle), kOk);
  status = SessionOf(*observer, *client);
  EXPECT_EQ(status.loaded_programs(), 0u);
  EXPECT_EQ(status.program_bytes(), 0u);
  EXPECT_EQ(status.upload_bytes(), 0u);

  // Programs a session still holds when it ends go with it.
  for (int i = 0; i < 3; ++i) ASSERT_EQ(LoadProgram(*client, serialised).status().code(), kOk);
  client->BreakAttach();
  for (int i = 0; i < 500 && DaemonStatus(*observer).sessions_size() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(DaemonStatus(*observer).sessions_size(), 1);
  ExpectServing(*observer);
}

// Programs and uploads are the daemon's host memory: --max-session-program-memory bounds them
// even when --max-session-memory is 0 (no limit), and device memory does not count towards it.
TEST_F(SessionMemoryTest, ProgramsAreBoundedWithoutASessionMemoryLimit) {
  const driver::ProgramImage image = AssembleImage(kCopyProgram);
  const std::string serialised = driver::remote::SerializeProgramImage(image);
  const uint64_t program = driver::sim::LoadedProgramBytes(image);
  StartDaemon(ServiceOptions{.token = kToken,
                             .max_session_memory_bytes = 0,
                             .max_session_program_bytes = 2 * program + serialised.size()});
  auto client = Connect();
  auto observer = Connect();
  const v1::AllocateResponse allocated = Allocate(*client, 64 * kMiB);
  ASSERT_EQ(allocated.status().code(), kOk) << allocated.status().message();
  for (int i = 0; i < 2; ++i) {
    const v1::LoadProgramResponse loaded = LoadProgram(*client, serialised);
    ASSERT_EQ(loaded.status().code(), kOk) << loaded.status().message();
  }
  const v1::LoadProgramResponse refused = LoadProgram(*client, serialised);
  EXPECT_EQ(refused.status().code(), kResource);
  EXPECT_NE(refused.status().message().find("--max-session-program-memory"), std::string::npos)
      << refused.status().message();
  const v1::SessionStatus status = SessionOf(*observer, *client);
  EXPECT_EQ(status.loaded_programs(), 2u);
  EXPECT_EQ(status.program_bytes(), 2 * program);
  EXPECT_EQ(status.upload_bytes(), 0u);
  // An upload that alone announces more than the limit is refused at its header.
  auto upload = StartUpload(*client, 2 * program + serialised.size() + 1);
  upload->writer->WritesDone();
  EXPECT_TRUE(upload->writer->Finish().ok());
  EXPECT_EQ(upload->response.status().code(), kResource);
  EXPECT_TRUE(UploadBytesBecome(*observer, *client, 0));
  ExpectServing(*observer);
}

}  // namespace
}  // namespace trnsim::neurond
