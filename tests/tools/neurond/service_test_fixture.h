// NeurondServiceTest: an in-process neurond (test token, its own temporary socket) and raw
// gRPC clients for the service tests (service_test.cc: sessions, memory, limits, cleanup;
// service_programs_test.cc: programs, executions, models). DetailsOf reads the NrtStatus a
// refused call carries.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "proto/neurond.grpc.pb.h"
#include "simulator/isa/encoding.h"
#include "tests/tools/neurond/rpc_calls.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {

using testing::RawClient;
using testing::TempDir;

constexpr char kToken[] = "s3cret-token";
constexpr uint32_t kOk = 0, kFailure = 1, kInvalid = 2, kInvalidHandle = 3, kResource = 4;

class NeurondServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartDaemon(ServiceOptions{.token = kToken}); }

  // On `listen`, or (empty) a Unix socket in the test's folder.
  void StartDaemon(ServiceOptions service, const std::string& listen = "") {
    daemon_.reset();
    DaemonOptions options;
    options.listen = listen.empty() ? "unix:" + (dir_.path() / "neurond.sock").string() : listen;
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
    EXPECT_EQ(Free(client, handle), kOk);
  }

  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

inline v1::NrtStatus DetailsOf(const grpc::Status& status) {
  v1::NrtStatus details;
  EXPECT_TRUE(details.ParseFromString(status.error_details()));
  return details;
}

// `size` bytes that differ with `seed` and along the buffer: what a transfer test writes and
// expects back.
inline std::string BytePattern(size_t size, int seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + seed) >> 3);
  return bytes;
}

}  // namespace trnsim::neurond
