// The shared-memory data plane (proto/neurond.proto "Shared-memory data plane"): regions
// registered on the daemon's side socket, WriteShared / ReadShared against an in-process daemon,
// every refusal with its status, the pipelined client transfer (driver/remote/shared_transfer.h)
// and the remote back end's fallback to the streams.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "driver/remote/fd_passing.h"
#include "driver/remote/mapped_memory.h"
#include "driver/remote/remote_device.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/shared_transfer.h"
#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

using driver::remote::SharedRegion;
using driver::remote::UniqueFd;

class SharedMemoryTest : public NeurondServiceTest {
 protected:
  std::string SideSocket() const {
    return driver::remote::SharedMemorySocketPath(daemon_->address().substr(5));
  }

  // Sends `bytes` with `fd` (none when negative) on a new connection to the side socket; the
  // daemon's reply.
  v1::SharedRegionResponse SendRaw(const std::string& bytes, int fd) {
    UniqueFd socket(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string path = SideSocket();
    std::memcpy(address.sun_path, path.data(), path.size());
    EXPECT_EQ(connect(socket.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_TRUE(driver::remote::SendWithFd(socket.get(), bytes, fd).ok());
    StatusOr<driver::remote::Datagram> reply = driver::remote::ReceiveWithFd(socket.get(), 4096);
    v1::SharedRegionResponse response;
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    if (reply.ok()) {
      EXPECT_TRUE(response.ParseFromString(reply->bytes));
    }
    return response;
  }

  static uint32_t WriteBytes(RawClient& client, uint64_t handle, uint64_t offset,
                             const std::string& bytes) {
    return WriteStream(client, {Header(handle, offset, bytes.size()), Data(bytes)});
  }

  v1::SharedRegionResponse Register(const std::string& key, int fd) {
    v1::SharedRegionRequest request;
    request.set_session_key(key);
    return SendRaw(request.SerializeAsString(), fd);
  }

  static v1::SharedTransferResponse Transfer(RawClient& client, bool write, uint64_t region,
                                             uint64_t region_offset, uint64_t handle,
                                             uint64_t offset, uint64_t size) {
    v1::SharedTransferRequest request;
    request.set_region(region);
    request.set_region_offset(region_offset);
    request.set_handle(handle);
    request.set_offset(offset);
    request.set_size(size);
    v1::SharedTransferResponse response;
    grpc::Status status =
        write ? client.stub().WriteShared(client.Context().get(), request, &response)
              : client.stub().ReadShared(client.Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(SharedMemoryTest, OfferedOnAUnixSocketOnly) {
  auto unix_client = std::make_unique<RawClient>(daemon_->address());
  v1::HelloResponse hello;
  ASSERT_TRUE(unix_client->Hello(kToken, &hello).ok());
  EXPECT_TRUE(hello.shared_memory());
  EXPECT_TRUE(std::filesystem::exists(SideSocket()));

  StartDaemon(ServiceOptions{.token = kToken}, "127.0.0.1:0");
  RawClient tcp_client(daemon_->address());
  ASSERT_TRUE(tcp_client.Hello(kToken, &hello).ok());
  EXPECT_FALSE(hello.shared_memory());
  EXPECT_FALSE(daemon_->shared_memory());
}

TEST_F(SharedMemoryTest, RoundTripThroughARegion) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(1 << 20);
  ASSERT_TRUE(region.ok()) << region.status().message();
  StatusOr<uint64_t> id =
      driver::remote::RegisterSharedRegion(**region, SideSocket(), client->key(), 2000);
  ASSERT_TRUE(id.ok()) << id.status().message();
  v1::AllocateResponse allocated = Allocate(*client, 300'000);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t handle = allocated.info().handle();

  const std::string pattern = BytePattern(200'000, 5);
  std::memcpy((*region)->data() + 1000, pattern.data(), pattern.size());
  EXPECT_EQ(Transfer(*client, true, *id, 1000, handle, 77, pattern.size()).status().code(), kOk);
  std::string back;
  ASSERT_EQ(ReadBytes(*client, handle, 77, pattern.size(), &back), kOk);
  EXPECT_EQ(back, pattern);

  std::memset((*region)->data(), 0, (*region)->size());
  EXPECT_EQ(Transfer(*client, false, *id, 500'000, handle, 77, pattern.size()).status().code(),
            kOk);
  EXPECT_EQ(std::string(reinterpret_cast<char*>((*region)->data()) + 500'000, pattern.size()),
            pattern);
  // Zero bytes inside both ranges (at their ends too) are served and move nothing.
  EXPECT_EQ(Transfer(*client, true, *id, 1 << 20, handle, 300'000, 0).status().code(), kOk);
}

TEST_F(SharedMemoryTest, RangesOutsideTheRegionOrTheAllocationAreRefused) {
  auto client = Connect();
  auto other = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(65536);
  ASSERT_TRUE(region.ok());
  StatusOr<uint64_t> id =
      driver::remote::RegisterSharedRegion(**region, SideSocket(), client->key(), 2000);
  ASSERT_TRUE(id.ok()) << id.status().message();
  const uint64_t handle = Allocate(*client, 8192).info().handle();
  // Handles are numbered per session: `other`'s second one is a number `client` has not got.
  ASSERT_EQ(Allocate(*other, 8192).status().code(), kOk);
  const uint64_t other_handle = Allocate(*other, 8192).info().handle();
  ASSERT_NE(other_handle, handle);
  const std::string before = BytePattern(8192, 9);
  ASSERT_EQ(WriteStream(*client, {Header(handle, 0, 8192), Data(before)}), kOk);
  std::memset((*region)->data(), 0xEE, (*region)->size());

  struct Case {
    const char* what;
    uint64_t region, region_offset, offset, size;
    uint32_t code;
  };
  const uint64_t kMax = ~uint64_t{0};
  const Case cases[] = {
      {"past the region's end", *id, 65536 - 100, 0, 101, kInvalid},
      {"region offset past its end", *id, 65537, 0, 0, kInvalid},
      {"region range wrapping 2^64", *id, kMax - 10, 0, 100, kInvalid},
      {"size larger than the region", *id, 0, 0, 65537, kInvalid},
      {"past the allocation's end", *id, 0, 8000, 193, kInvalid},
      {"allocation range wrapping 2^64", *id, 0, kMax - 10, 100, kInvalid},
      {"unknown region", *id + 1, 0, 0, 16, kInvalidHandle},
      {"region 0", 0, 0, 0, 16, kInvalidHandle},
  };
  for (const Case& c : cases) {
    for (bool write : {true, false}) {
      EXPECT_EQ(Transfer(*client, write, c.region, c.region_offset, handle, c.offset, c.size)
                    .status()
                    .code(),
                c.code)
          << c.what << (write ? " (WriteShared)" : " (ReadShared)");
    }
  }
  // Another session can name neither the region nor, through it, this session's memory.
  EXPECT_EQ(Transfer(*other, true, *id, 0, other_handle, 0, 16).status().code(), kInvalidHandle);
  EXPECT_EQ(Transfer(*client, true, *id, 0, other_handle, 0, 16).status().code(), kInvalidHandle);
  // Nothing moved: the device bytes and the region are as they were.
  std::string back;
  ASSERT_EQ(ReadBytes(*client, handle, 0, 8192, &back), kOk);
  EXPECT_EQ(back, before);
  EXPECT_EQ((*region)->data()[0], 0xEE);
  // Without a session key the RPCs are refused like every other.
  v1::SharedTransferRequest request;
  v1::SharedTransferResponse response;
  EXPECT_EQ(
      client->stub().WriteShared(client->Context(false).get(), request, &response).error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
  ExpectServing(*client);
}

TEST_F(SharedMemoryTest, RegistrationRefusesWhatIsNotASealedMemfdOfTheSession) {
  auto client = Connect();
  // A memfd that could shrink under the daemon's mapping (SIGBUS): refused.
  UniqueFd unsealed(memfd_create("unsealed", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(ftruncate(unsealed.get(), 4096), 0);
  v1::SharedRegionResponse reply = Register(client->key(), unsealed.get());
  EXPECT_EQ(reply.status().code(), kInvalid);
  EXPECT_THAT(reply.status().message(), ::testing::HasSubstr("shrinking"));
  // One that cannot be sealed at all, a plain file, a pipe: not a memfd.
  UniqueFd no_sealing(memfd_create("no-sealing", MFD_CLOEXEC));
  ASSERT_EQ(ftruncate(no_sealing.get(), 4096), 0);
  EXPECT_EQ(Register(client->key(), no_sealing.get()).status().code(), kInvalid);
  const std::string file = (dir_.path() / "plain").string();
  std::ofstream(file) << std::string(4096, 'x');
  UniqueFd plain(open(file.c_str(), O_RDWR | O_CLOEXEC));
  EXPECT_EQ(Register(client->key(), plain.get()).status().code(), kInvalid);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  EXPECT_EQ(Register(client->key(), read_end.get()).status().code(), kInvalid);
  // Sealed, but empty, or against writes (the daemon writes Read data into it).
  UniqueFd empty(memfd_create("empty", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(fcntl(empty.get(), F_ADD_SEALS, F_SEAL_SHRINK), 0);
  EXPECT_EQ(Register(client->key(), empty.get()).status().code(), kInvalid);
  UniqueFd read_only(memfd_create("read-only", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  ASSERT_EQ(ftruncate(read_only.get(), 4096), 0);
  ASSERT_EQ(fcntl(read_only.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_WRITE), 0);
  EXPECT_EQ(Register(client->key(), read_only.get()).status().code(), kInvalid);
  // A good region with a wrong key, no key, or no descriptor; garbage instead of a request.
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(4096);
  ASSERT_TRUE(region.ok());
  EXPECT_EQ(Register("0123456789abcdef0123456789abcdef", (*region)->fd()).status().code(),
            kInvalid);
  EXPECT_EQ(Register("", (*region)->fd()).status().code(), kInvalid);
  EXPECT_EQ(Register(client->key(), -1).status().code(), kInvalid);
  EXPECT_EQ(SendRaw("\xff\xff\xff", (*region)->fd()).status().code(), kInvalid);
  EXPECT_EQ(SendRaw(std::string(5000, 'k'), (*region)->fd()).status().code(), kInvalid);
  // The session's limit on regions.
  for (size_t i = 0; i < kMaxSharedRegions; ++i) {
    EXPECT_EQ(Register(client->key(), (*region)->fd()).status().code(), kOk) << i;
  }
  EXPECT_EQ(Register(client->key(), (*region)->fd()).status().code(), kResource);
  ExpectServing(*client);
}

TEST_F(SharedMemoryTest, TwoDescriptorsInOneRequestAreRefused) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(4096);
  ASSERT_TRUE(region.ok());
  UniqueFd socket(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = SideSocket();
  std::memcpy(address.sun_path, path.data(), path.size());
  ASSERT_EQ(connect(socket.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  v1::SharedRegionRequest request;
  request.set_session_key(client->key());
  const std::string bytes = request.SerializeAsString();
  iovec data{const_cast<char*>(bytes.data()), bytes.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {(*region)->fd(), (*region)->fd()};
  std::memcpy(CMSG_DATA(header), fds, sizeof(fds));
  ASSERT_EQ(sendmsg(socket.get(), &message, 0), static_cast<ssize_t>(bytes.size()));
  StatusOr<driver::remote::Datagram> reply = driver::remote::ReceiveWithFd(socket.get(), 4096);
  ASSERT_TRUE(reply.ok());
  v1::SharedRegionResponse response;
  ASSERT_TRUE(response.ParseFromString(reply->bytes));
  EXPECT_EQ(response.status().code(), kInvalid);
}

TEST_F(SharedMemoryTest, ARegisteredRegionCannotBeTruncatedOrUnsealed) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(65536);
  ASSERT_TRUE(region.ok());
  StatusOr<uint64_t> id =
      driver::remote::RegisterSharedRegion(**region, SideSocket(), client->key(), 2000);
  ASSERT_TRUE(id.ok());
  // The client tries to shrink it under the daemon's mapping, and to drop or add seals.
  EXPECT_NE(ftruncate((*region)->fd(), 0), 0);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(fcntl((*region)->fd(), F_ADD_SEALS, F_SEAL_WRITE), 0);  // F_SEAL_SEAL set
  // Punching holes keeps the size: the daemon reads zeros, never faults. Its whole range serves.
  ASSERT_EQ(fallocate((*region)->fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 65536), 0);
  const uint64_t handle = Allocate(*client, 65536).info().handle();
  EXPECT_EQ(Transfer(*client, true, *id, 0, handle, 0, 65536).status().code(), kOk);
  EXPECT_EQ(Transfer(*client, false, *id, 0, handle, 0, 65536).status().code(), kOk);
  ExpectServing(*client);
}

TEST_F(SharedMemoryTest, RegionsEndWithTheirSession) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(4096);
  ASSERT_TRUE(region.ok());
  StatusOr<uint64_t> id =
      driver::remote::RegisterSharedRegion(**region, SideSocket(), client->key(), 2000);
  ASSERT_TRUE(id.ok());
  const std::string key = client->key();
  v1::GoodbyeResponse bye;
  ASSERT_TRUE(client->stub().Goodbye(client->Context().get(), v1::GoodbyeRequest(), &bye).ok());
  v1::SharedTransferRequest request;
  request.set_region(*id);
  v1::SharedTransferResponse response;
  EXPECT_EQ(client->stub().ReadShared(client->Context().get(), request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Register(key, (*region)->fd()).status().code(), kInvalid);
}

// The client's pipelined transfer: pieces of a quarter of a small region, several in flight,
// across a transfer that is not a multiple of them; then a refusal in the middle.
TEST_F(SharedMemoryTest, PipelinedTransferThroughASmallRegion) {
  auto client = Connect();
  StatusOr<std::unique_ptr<SharedRegion>> region = SharedRegion::Create(64 * 1024);
  ASSERT_TRUE(region.ok());
  StatusOr<uint64_t> id =
      driver::remote::RegisterSharedRegion(**region, SideSocket(), client->key(), 2000);
  ASSERT_TRUE(id.ok());
  driver::remote::SharedTransfer transfer(std::move(*region), *id, &client->stub());
  driver::remote::SharedCallHooks hooks;
  const std::string key = client->key();
  hooks.prepare = [&](grpc::ClientContext* context) {
    context->AddMetadata(kSessionKeyMetadata, key);
  };
  hooks.transport_error = [](const char* rpc, const grpc::Status& status) {
    return FailureError(std::string(rpc) + ": " + status.error_message());
  };
  const uint64_t size = 300'005;
  const uint64_t handle = Allocate(*client, size + 10).info().handle();
  const std::string pattern = BytePattern(size, 3);
  auto lock = transfer.TryLock();
  ASSERT_TRUE(lock.owns_lock());
  ASSERT_TRUE(transfer.Write(handle, 10, pattern.data(), size, hooks).ok());
  std::string back;
  ASSERT_EQ(ReadBytes(*client, handle, 10, size, &back), kOk);
  EXPECT_EQ(back, pattern);
  std::string read(size, '\0');
  ASSERT_TRUE(transfer.Read(handle, 10, read.data(), size, hooks).ok());
  EXPECT_EQ(read, pattern);
  // Pieces past the allocation's end are refused; the first refusal is what returns.
  Status refused = transfer.Read(handle, 4096, read.data(), size, hooks);
  EXPECT_EQ(refused.code(), StatusCode::kInvalid);
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("outside"));
}

// The remote back end: shared memory on a unix socket, the streams over TCP or when the side
// socket is gone; the bytes are the same either way.
// map_memory: the whole pages inside a session's allocation as a memfd the client maps; both
// sides see each other's bytes; what is refused, and how.
TEST_F(SharedMemoryTest, DeviceMemoryMappedIntoTheClient) {
  auto client = Connect();
  v1::AllocateResponse allocated = Allocate(*client, 1 << 20);
  ASSERT_EQ(allocated.status().code(), kOk);
  const uint64_t handle = allocated.info().handle();
  const std::string pattern = BytePattern(1 << 20, 9);
  ASSERT_EQ(WriteBytes(*client, handle, 0, pattern), kOk);
  StatusOr<std::unique_ptr<driver::remote::MappedMemory>> mapped =
      driver::remote::MapDeviceMemory(SideSocket(), client->key(), handle, 2000);
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  const driver::remote::MappedMemory& m = **mapped;
  EXPECT_EQ(m.memory_size(), uint64_t{1} << 20);
  ASSERT_GT(m.size(), 0u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(m.data()), m.size()),
            pattern.substr(m.offset(), m.size()));
  m.data()[0] = '#';  // the client's store is the device's byte
  std::string back;
  ASSERT_EQ(ReadBytes(*client, handle, m.offset(), 1, &back), kOk);
  EXPECT_EQ(back, "#");
  ASSERT_EQ(WriteBytes(*client, handle, m.offset() + 1, "@"), kOk);  // and the other way round
  EXPECT_EQ(m.data()[1], '@');

  // Another session's memory, an unknown handle, an unknown key: refused, nothing mapped.
  auto other = Connect();
  EXPECT_EQ(driver::remote::MapDeviceMemory(SideSocket(), other->key(), handle, 2000)
                .status()
                .code(),
            StatusCode::kInvalidHandle);
  EXPECT_EQ(driver::remote::MapDeviceMemory(SideSocket(), client->key(), handle + 1000, 2000)
                .status()
                .code(),
            StatusCode::kInvalidHandle);
  EXPECT_EQ(driver::remote::MapDeviceMemory(SideSocket(), "00112233445566778899aabbccddeeff",
                                            handle, 2000)
                .status()
                .code(),
            StatusCode::kInvalid);
  // A map request carrying a descriptor is malformed.
  UniqueFd memfd(memfd_create("extra", MFD_CLOEXEC));
  v1::SharedRegionRequest request;
  request.set_session_key(client->key());
  request.set_map_memory(true);
  request.set_handle(handle);
  EXPECT_EQ(SendRaw(request.SerializeAsString(), memfd.get()).status().code(), kInvalid);
  // Memory without a whole page inside it has nothing to map.
  v1::AllocateResponse small = Allocate(*client, 100);
  ASSERT_EQ(small.status().code(), kOk);
  EXPECT_EQ(driver::remote::MapDeviceMemory(SideSocket(), client->key(), small.info().handle(),
                                            2000)
                .status()
                .code(),
            StatusCode::kInvalid);
}

TEST_F(SharedMemoryTest, RemoteBackEndUsesSharedMemoryAndFallsBack) {
  auto round_trip = [&](const std::string& address, uint64_t region_bytes) {
    driver::DeviceOptions options;
    options.backend = "remote";
    options.address = address;
    options.token = kToken;
    driver::remote::RemoteOptions remote;
    remote.shared_region_bytes = region_bytes;
    auto device = driver::remote::OpenRemoteDevice(options, remote);
    ASSERT_TRUE(device.ok()) << device.status().message();
    driver::AllocationRequest request;
    request.size_bytes = 1 << 20;
    auto info = (*device)->Allocate(request);
    ASSERT_TRUE(info.ok());
    const std::string pattern = BytePattern(1 << 20, 11);
    ASSERT_TRUE((*device)->Write(info->handle, 0, pattern.data(), pattern.size()).ok());
    std::string back(pattern.size(), '\0');
    ASSERT_TRUE((*device)->Read(info->handle, 0, back.data(), back.size()).ok());
    EXPECT_EQ(back, pattern);
    // A range that starts and ends inside pages: mapped in the middle, through the daemon at
    // the edges (on the shared path), the same bytes either way.
    const std::string middle = BytePattern(300'000, 12);
    ASSERT_TRUE((*device)->Write(info->handle, 1000, middle.data(), middle.size()).ok());
    std::string around(middle.size() + 2, '\0');
    ASSERT_TRUE((*device)->Read(info->handle, 999, around.data(), around.size()).ok());
    EXPECT_EQ(around, pattern.substr(999, 1) + middle + pattern.substr(301'000, 1));
    // A refused range is the same status on both paths, before or after the region.
    EXPECT_EQ((*device)->Read(info->handle, 1, back.data(), back.size()).code(),
              StatusCode::kInvalid);
    EXPECT_TRUE((*device)->Free(info->handle).ok());
  };
  round_trip(daemon_->address(), 64 * 1024);  // 16 pieces of 16 KiB
  round_trip(daemon_->address(), 0);          // streams only
  std::filesystem::remove(SideSocket());      // registration fails: the streams serve
  round_trip(daemon_->address(), 64 * 1024);
  StartDaemon(ServiceOptions{.token = kToken}, "127.0.0.1:0");
  round_trip(daemon_->address(), 64 * 1024);  // TCP: the streams
}

}  // namespace
}  // namespace trnsim::neurond
