// The remote back end's client side without a real daemon: address validation, an unreachable
// or silent daemon (a status naming the address, quickly — never a hang), and a scripted fake
// Neurond service in this process for what a daemon can do wrong or stop doing: a refused
// token, another protocol version or instance type, a Read stream that sends too many or too
// few bytes, an RPC that outlives its deadline, and the daemon going away mid-session.
#include "driver/remote/remote_device.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "proto/neurond.grpc.pb.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::driver::remote {
namespace {

using ::testing::HasSubstr;
namespace v1 = ::trnsim::neurond::v1;

constexpr char kKey[] = "0123456789abcdef0123456789abcdef";

// A directory of its own for socket files, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "remote_dev_XXXXXX").string();
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  std::string Socket(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

StatusOr<std::unique_ptr<Device>> Open(const std::string& address, std::string token = "",
                                       std::chrono::milliseconds deadline = std::chrono::seconds(30),
                                       const simulator::InstanceSpec* instance = nullptr) {
  DeviceOptions options;
  options.backend = "remote";
  options.address = address;
  options.token = std::move(token);
  options.instance = instance;
  RemoteOptions remote;
  remote.rpc_deadline = deadline;
  return OpenRemoteDevice(options, remote);
}

TEST(DaemonAddressTest, AcceptsTheDocumentedShapes) {
  for (const char* address : {"unix:/tmp/neurond.sock", "unix:relative.sock", "127.0.0.1:7000",
                              "[::1]:65535", "localhost:1", "build-host.example:7000"}) {
    EXPECT_TRUE(ValidateDaemonAddress(address).ok()) << address;
  }
}

TEST(DaemonAddressTest, RefusesMalformedOnes) {
  for (const char* address : {"", "unix:", "127.0.0.1", "127.0.0.1:", ":7000", "localhost:0",
                              "localhost:65536", "localhost:70000000", "localhost:7x",
                              "::1:7000", "[::1:7000", "[]:7000", "host/x:7000",
                              "dns:///a:7000x"}) {
    Status status = ValidateDaemonAddress(address);
    EXPECT_EQ(status.code(), StatusCode::kInvalid) << address;
    EXPECT_THAT(status.message(), HasSubstr(std::string("'") + address + "'")) << address;
  }
  std::string long_path = "unix:/" + std::string(200, 'p');
  EXPECT_THAT(ValidateDaemonAddress(long_path).message(), HasSubstr("socket path is"));
}

TEST(RemoteDeviceTest, IsRegisteredAsTheRemoteBackEnd) {
  DeviceOptions options;
  options.backend = "remote";
  StatusOr<std::unique_ptr<Device>> device = OpenDevice(options);
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(device.status().message(), HasSubstr("daemon address"));
}

TEST(RemoteDeviceTest, UnreachableUnixSocketFailsQuicklyNamingTheAddress) {
  TempDir dir;
  const std::string address = "unix:" + dir.Socket("nobody-listens.sock");
  // Refused at once: kFailure (a connect deadline waited out would be kTimeout).
  StatusOr<std::unique_ptr<Device>> device = Open(address);
  EXPECT_EQ(device.status().code(), StatusCode::kFailure);
  EXPECT_THAT(device.status().message(), HasSubstr(address));
}

TEST(RemoteDeviceTest, UnreachableTcpPortFailsQuicklyNamingTheAddress) {
  // A port that was free a moment ago: bound, then closed.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  // Refused at once: kFailure (a connect deadline waited out would be kTimeout).
  StatusOr<std::unique_ptr<Device>> device = Open(address);
  EXPECT_EQ(device.status().code(), StatusCode::kFailure);
  EXPECT_THAT(device.status().message(), HasSubstr(address));
}

TEST(RemoteDeviceTest, SilentListenerTimesOutAtTheDeadline) {
  // Something listens but never speaks gRPC (connections wait in the backlog).
  TempDir dir;
  const std::string path = dir.Socket("silent.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  // The outcome says which path it took: the 300 ms deadline (kTimeout), not a refusal.
  StatusOr<std::unique_ptr<Device>> device = Open("unix:" + path, "",
                                                  std::chrono::milliseconds(300));
  close(fd);
  EXPECT_EQ(device.status().code(), StatusCode::kTimeout) << device.status().ToString();
  EXPECT_THAT(device.status().message(), HasSubstr("unix:" + path));
}

// A scripted daemon: enough of the Neurond service to drive the client through its paths.
class FakeNeurond final : public v1::Neurond::Service {
 public:
  std::string token;  // the token it expects (empty: none)
  uint32_t protocol_version = v1::PROTOCOL_VERSION_CURRENT;
  std::string instance_type = "trn2.3xlarge";
  uint64_t extra_read_bytes = 0;   // Read sends this many bytes more than asked
  uint64_t missing_read_bytes = 0;  // ... or this many fewer
  std::atomic<int> goodbyes{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  int64_t hello_pid = 0;
  std::string hello_command;
  std::vector<std::string> keys_seen;  // the session key of every call after Hello
  std::vector<uint64_t> load_chunk_sizes;  // of the last LoadProgram stream
  ProgramImage loaded;                     // the image it carried
  int result_cores = -1;                   // Execute answers this many cores (-1: as asked)
  std::optional<std::chrono::milliseconds> execute_deadline;  // left at arrival; none: unset

  grpc::Status Hello(grpc::ServerContext*, const v1::HelloRequest* request,
                     v1::HelloResponse* response) override {
    if (request->token() != token) {
      v1::NrtStatus details;  // as neurond does
      details.set_code(2);
      details.set_message("the token does not match");
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong token",
                          details.SerializeAsString());
    }
    std::lock_guard lock(mutex);
    hello_pid = request->client_pid();
    hello_command = request->client_command();
    response->set_protocol_version(protocol_version);
    response->set_instance_type(instance_type);
    response->set_session_id(1);
    response->set_session_key(kKey);
    response->set_daemon_version("fake");
    return grpc::Status::OK;
  }

  grpc::Status Attach(grpc::ServerContext* context, const v1::AttachRequest*,
                      grpc::ServerWriter<v1::SessionEvent>* writer) override {
    Record(context);
    v1::SessionEvent event;
    event.set_kind(v1::SessionEvent::KIND_ATTACHED);
    writer->Write(event);
    while (!stop && !context->IsCancelled() && goodbyes == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (stop) {
      event.set_kind(v1::SessionEvent::KIND_SHUTTING_DOWN);
      event.set_message("test says stop");
      writer->Write(event);
    }
    return grpc::Status::OK;
  }

  grpc::Status Goodbye(grpc::ServerContext* context, const v1::GoodbyeRequest*,
                       v1::GoodbyeResponse*) override {
    Record(context);
    ++goodbyes;
    return grpc::Status::OK;
  }

  grpc::Status Describe(grpc::ServerContext* context, const v1::MemoryRef* request,
                        v1::DescribeResponse* response) override {
    Record(context);
    if (request->handle() != 7) {
      response->mutable_status()->set_code(3);  // NRT_INVALID_HANDLE
      response->mutable_status()->set_message("no memory " + std::to_string(request->handle()));
      return grpc::Status::OK;
    }
    v1::AllocationInfo* info = response->mutable_info();
    info->set_handle(7);
    info->set_size_bytes(4096);
    info->set_category(v1::MEMORY_CATEGORY_TENSOR);
    return grpc::Status::OK;
  }

  grpc::Status Fill(grpc::ServerContext* context, const v1::FillRequest*,
                    v1::FillResponse*) override {
    Record(context);
    // Slower than any deadline the tests give, but ends when the client gives up.
    for (int i = 0; i < 1000 && !context->IsCancelled(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return grpc::Status::OK;
  }

  grpc::Status LoadProgram(grpc::ServerContext* context,
                           grpc::ServerReader<v1::LoadProgramRequest>* reader,
                           v1::LoadProgramResponse* response) override {
    Record(context);
    v1::LoadProgramRequest message;
    if (!reader->Read(&message) || !message.has_header()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no header");
    }
    StatusOr<ChunkAssembler> assembler =
        ChunkAssembler::Start(message.header().image_bytes(), kMaxProgramImageBytes);
    if (!assembler.ok()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "too big");
    std::lock_guard lock(mutex);
    load_chunk_sizes.clear();
    while (reader->Read(&message)) {
      load_chunk_sizes.push_back(message.chunk().size());
      if (!assembler->Add(message.chunk()).ok()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad chunk");
      }
    }
    StatusOr<std::string> bytes = std::move(*assembler).Finish();
    StatusOr<ProgramImage> image = bytes.ok() ? ParseProgramImage(*bytes)
                                              : StatusOr<ProgramImage>(bytes.status());
    if (!image.ok()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad image");
    loaded = *image;
    response->set_program(5);
    return grpc::Status::OK;
  }

  grpc::Status Execute(grpc::ServerContext* context, const v1::ExecuteRequest* request,
                       v1::ExecuteResponse* response) override {
    Record(context);
    std::lock_guard lock(mutex);
    execute_deadline.reset();
    if (context->deadline() != std::chrono::system_clock::time_point::max()) {
      execute_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(
          context->deadline() - std::chrono::system_clock::now());
    }
    ExecutionResult result;
    result.duration_ps = 1234;
    result.cores.resize(result_cores < 0 ? request->cores_size() : result_cores);
    ToProto(result, response->mutable_result());
    return grpc::Status::OK;
  }

  grpc::Status Read(grpc::ServerContext* context, const v1::ReadRequest* request,
                    grpc::ServerWriter<v1::ReadResponse>* writer) override {
    Record(context);
    uint64_t total = request->size() + extra_read_bytes - missing_read_bytes;
    for (uint64_t sent = 0; sent < total;) {
      uint64_t n = std::min<uint64_t>(total - sent, 1000);
      v1::ReadResponse chunk;
      chunk.set_data(std::string(n, 'r'));
      if (!writer->Write(chunk)) break;
      sent += n;
    }
    return grpc::Status::OK;
  }

 private:
  void Record(grpc::ServerContext* context) {
    auto it = context->client_metadata().find("trnsim-session-key");
    std::lock_guard lock(mutex);
    keys_seen.push_back(it == context->client_metadata().end()
                            ? std::string()
                            : std::string(it->second.data(), it->second.size()));
  }
};

class FakeDaemonTest : public ::testing::Test {
 protected:
  void Start() {
    address_ = "unix:" + dir_.Socket("fake.sock");
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address_, grpc::InsecureServerCredentials());
    builder.RegisterService(&fake_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override { StopServer(); }
  void StopServer() {
    if (!server_) return;
    fake_.stop = true;
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
    server_.reset();
  }

  TempDir dir_;
  FakeNeurond fake_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

TEST_F(FakeDaemonTest, SaysHelloCarriesTheKeyAndSaysGoodbye) {
  fake_.token = "s3cret";
  Start();
  {
    StatusOr<std::unique_ptr<Device>> device = Open(address_, "s3cret");
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    EXPECT_EQ((*device)->instance_spec().type_name, "trn2.3xlarge");
    EXPECT_EQ((*device)->HostAddress(7, 0), nullptr);
    StatusOr<AllocationInfo> info = (*device)->Describe(7);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_EQ(info->handle, 7u);
    EXPECT_EQ(info->size_bytes, 4096u);
    // The daemon's own status passes through unchanged.
    StatusOr<AllocationInfo> missing = (*device)->Describe(8);
    EXPECT_EQ(missing.status().code(), StatusCode::kInvalidHandle);
    EXPECT_EQ(missing.status().message(), "no memory 8");
  }
  EXPECT_EQ(fake_.goodbyes, 1);
  std::lock_guard lock(fake_.mutex);
  EXPECT_EQ(fake_.hello_pid, getpid());
  EXPECT_THAT(fake_.hello_command, HasSubstr("remote_device_test"));
  ASSERT_GE(fake_.keys_seen.size(), 3u);  // Attach, Describe x2, Goodbye
  for (const std::string& key : fake_.keys_seen) EXPECT_EQ(key, kKey);
}

TEST_F(FakeDaemonTest, RefusedTokenIsInvalidNamingTheAddress) {
  fake_.token = "s3cret";
  Start();
  for (const char* token : {"", "wrong"}) {
    StatusOr<std::unique_ptr<Device>> device = Open(address_, token);
    EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(device.status().message(), HasSubstr(address_));
    EXPECT_THAT(device.status().message(), HasSubstr("UNAUTHENTICATED"));
    EXPECT_THAT(device.status().message(), HasSubstr("the token does not match"));
  }
}

TEST_F(FakeDaemonTest, OtherProtocolVersionIsRefused) {
  fake_.protocol_version = 2;
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_);
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(device.status().message(), HasSubstr("protocol version 2"));
  // The half-opened session is still ended politely.
  EXPECT_EQ(fake_.goodbyes, 1);
}

TEST_F(FakeDaemonTest, InstanceTypeMustMatchTheConfiguredOne) {
  Start();
  StatusOr<std::unique_ptr<Device>> device =
      Open(address_, "", std::chrono::seconds(30),
           *simulator::FindInstanceSpec("trn2.48xlarge"));
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(device.status().message(), HasSubstr("emulates trn2.3xlarge"));
  EXPECT_THAT(device.status().message(), HasSubstr("trn2.48xlarge"));
}

TEST_F(FakeDaemonTest, UnknownInstanceTypeIsRefused) {
  fake_.instance_type = "trn9.huge";
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_);
  EXPECT_EQ(device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(device.status().message(), HasSubstr("'trn9.huge'"));
}

TEST_F(FakeDaemonTest, ReadStreamsThatDoNotAddUpAreRefusedWithoutOverrun) {
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  std::vector<char> buffer(5000 + 64, 'g');  // 64 guard bytes past the 5000 asked for
  fake_.extra_read_bytes = 1;
  Status status = (*device)->Read(7, 0, buffer.data(), 5000);
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_THAT(status.message(), HasSubstr("breaks the protocol"));
  for (size_t i = 5000; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], 'g') << i;

  fake_.extra_read_bytes = 0;
  fake_.missing_read_bytes = 10;
  status = (*device)->Read(7, 0, buffer.data(), 5000);
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_THAT(status.message(), HasSubstr("after 4990 of 5000 bytes"));

  fake_.missing_read_bytes = 0;
  EXPECT_TRUE((*device)->Read(7, 0, buffer.data(), 5000).ok());
  EXPECT_EQ(buffer[4999], 'r');
  EXPECT_EQ((*device)->Read(7, 0, nullptr, 1).code(), StatusCode::kInvalid);
}

TEST_F(FakeDaemonTest, LoadProgramStreamsTheImageInChunks) {
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  ProgramImage image;
  image.streams[0].resize(2 * kChunkBytes + 12345);  // well past one gRPC message
  for (size_t i = 0; i < image.streams[0].size(); ++i) image.streams[0][i] = uint8_t(i * 13);
  image.streams[2] = {1, 2, 3};
  StatusOr<ProgramHandle> program = (*device)->LoadProgram(image);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(*program, 5u);
  std::lock_guard lock(fake_.mutex);
  ASSERT_EQ(fake_.load_chunk_sizes.size(), 3u);
  for (uint64_t size : fake_.load_chunk_sizes) EXPECT_LE(size, kChunkBytes);
  EXPECT_EQ(fake_.loaded.streams[0], image.streams[0]);
  EXPECT_EQ(fake_.loaded.streams[2], image.streams[2]);
}

TEST_F(FakeDaemonTest, ExecuteDeadlineFollowsTheHostTimeout) {
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_, "", std::chrono::seconds(2));
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  std::vector<CoreExecution> cores(2);
  cores[1].physical_core = 1;
  ExecutionRequestOptions options;  // no host timeout: no deadline
  StatusOr<ExecutionResult> result = (*device)->Execute(cores, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->duration_ps, 1234u);
  EXPECT_EQ(result->cores.size(), 2u);
  {
    std::lock_guard lock(fake_.mutex);
    EXPECT_FALSE(fake_.execute_deadline.has_value());
  }
  options.host_timeout = std::chrono::seconds(60);  // 60 s + the 2 s RPC deadline
  ASSERT_TRUE((*device)->Execute(cores, options).ok());
  {
    std::lock_guard lock(fake_.mutex);
    ASSERT_TRUE(fake_.execute_deadline.has_value());
    EXPECT_GT(*fake_.execute_deadline, std::chrono::seconds(60));
    EXPECT_LE(*fake_.execute_deadline, std::chrono::seconds(63));  // gRPC rounds up a little
    fake_.result_cores = 1;  // a daemon answering for the wrong number of cores
  }
  result = (*device)->Execute(cores, options);
  EXPECT_EQ(result.status().code(), StatusCode::kFailure);
  EXPECT_THAT(result.status().message(), HasSubstr("breaks the protocol"));
}

TEST_F(FakeDaemonTest, SlowRpcTimesOutAtItsDeadline) {
  Start();
  StatusOr<std::unique_ptr<Device>> device =
      Open(address_, "", std::chrono::milliseconds(300));
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  Status status = (*device)->Fill(7, 0, 1, 16);  // returns: the 300 ms deadline, not a hang
  EXPECT_EQ(status.code(), StatusCode::kTimeout);
  EXPECT_THAT(status.message(), HasSubstr("Fill"));
  EXPECT_THAT(status.message(), HasSubstr(address_));
}

TEST_F(FakeDaemonTest, DaemonGoneMidSessionFailsTheNextCallWithoutHanging) {
  Start();
  StatusOr<std::unique_ptr<Device>> device = Open(address_);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  ASSERT_TRUE((*device)->Describe(7).ok());
  StopServer();
  // Whether the Attach stream's end is seen first or the call itself fails, it is a status.
  StatusOr<AllocationInfo> info = (*device)->Describe(7);
  EXPECT_EQ(info.status().code(), StatusCode::kFailure);
  EXPECT_THAT(info.status().message(), HasSubstr(address_));
  // Once the stream's end is seen, calls fail at once and say the session ended.
  for (int i = 0; i < 200 && (*device)->Describe(7).status().message().find("has ended") ==
                                 std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Status status = (*device)->Fill(7, 0, 0, 1);
  EXPECT_EQ(status.code(), StatusCode::kFailure);
  EXPECT_THAT(status.message(), HasSubstr("has ended"));
  EXPECT_THAT(status.message(), HasSubstr("test says stop"));
}

}  // namespace
}  // namespace trnsim::driver::remote
