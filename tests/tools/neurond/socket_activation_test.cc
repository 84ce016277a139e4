// systemd socket activation: LISTEN_PID/LISTEN_FDS as socket_activation.h reads them (sockets
// this test makes stand in for fd 3), and an in-process daemon serving a socket it did not bind
// (FdAcceptor): a remote back end client's session with transfers of several chunks (the
// server's message limits apply to fd channels), the session of a client that goes away ended,
// refusals of TLS, of a non-loopback socket and of a --listen that is not the socket,
// and a second daemon serving the same socket after the first shut down (systemd's
// re-activation).
#include "tools/neurond/socket_activation.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "driver/device.h"
#include "driver/remote/remote_device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

using ::testing::HasSubstr;
using testing::RawClient;
using testing::TempDir;

constexpr char kToken[] = "activation-token";

// A listening unix socket at `path` (systemd's part in neurond.socket).
int ListenUnix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A TCP socket bound to `ip`:0, listening unless `listening` is false; its port in *port.
int BindTcp(const char* ip, bool listening, int* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, ip, &address.sin_addr);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      (listening && listen(fd, 16) != 0) ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(address.sin_port);
  return fd;
}

Environment Activated(pid_t pid, const std::string& fds = "1") {
  return Environment::FromMap({{"LISTEN_PID", std::to_string(pid)}, {"LISTEN_FDS", fds}});
}

TEST(InheritedListenSocketTest, NothingInheritedWithoutListenPidOrForAnotherProcess) {
  auto none = InheritedListenSocket(Environment::FromMap({}), getpid());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // An ancestor's variables: meant for another pid, so ignored even though fd 3 may be open.
  auto other = InheritedListenSocket(Activated(getpid() + 1), getpid());
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST(InheritedListenSocketTest, AUnixSocketIsServedWithItsPath) {
  TempDir dir;
  const std::string path = (dir.path() / "neurond.sock").string();
  int fd = ListenUnix(path);
  ASSERT_GE(fd, 0);
  fcntl(fd, F_SETFD, 0);  // systemd passes it without FD_CLOEXEC
  auto socket = InheritedListenSocket(Activated(getpid()), getpid(), fd);
  ASSERT_TRUE(socket.ok()) << socket.status().message();
  ASSERT_TRUE(socket->has_value());
  EXPECT_EQ((*socket)->fd, fd);
  EXPECT_EQ((*socket)->address, "unix:" + path);
  EXPECT_TRUE((*socket)->loopback);
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  close(fd);
}

TEST(InheritedListenSocketTest, TcpSocketsCarryTheirAddressAndWhetherItIsLoopback) {
  int port = 0;
  int loopback = BindTcp("127.0.0.1", true, &port);
  ASSERT_GE(loopback, 0);
  auto socket = InheritedListenSocket(Activated(getpid()), getpid(), loopback);
  ASSERT_TRUE(socket.ok()) << socket.status().message();
  EXPECT_EQ((*socket)->address, "127.0.0.1:" + std::to_string(port));
  EXPECT_TRUE((*socket)->loopback);
  close(loopback);

  int any = BindTcp("0.0.0.0", true, &port);
  ASSERT_GE(any, 0);
  socket = InheritedListenSocket(Activated(getpid()), getpid(), any);
  ASSERT_TRUE(socket.ok()) << socket.status().message();
  EXPECT_EQ((*socket)->address, "0.0.0.0:" + std::to_string(port));
  EXPECT_FALSE((*socket)->loopback);
  close(any);
}

TEST(InheritedListenSocketTest, MalformedVariablesAndUnusableDescriptorsAreRefused) {
  TempDir dir;
  int fd = ListenUnix((dir.path() / "sock").string());
  ASSERT_GE(fd, 0);
  const pid_t self = getpid();
  struct Case {
    Environment env;
    const char* message;
  };
  std::vector<Case> cases;
  cases.push_back({Environment::FromMap({{"LISTEN_PID", std::to_string(self)}}), "LISTEN_FDS"});
  cases.push_back({Activated(self, "two"), "LISTEN_FDS"});
  cases.push_back({Activated(self, "2"), "exactly one socket"});
  cases.push_back({Activated(self, "0"), "exactly one socket"});
  cases.push_back(
      {Environment::FromMap({{"LISTEN_PID", "12ab"}, {"LISTEN_FDS", "1"}}), "LISTEN_PID"});
  for (const Case& c : cases) {
    auto socket = InheritedListenSocket(c.env, self, fd);
    ASSERT_FALSE(socket.ok()) << c.message;
    EXPECT_EQ(socket.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(socket.status().message(), HasSubstr(c.message));
  }
  close(fd);

  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  auto not_socket = InheritedListenSocket(Activated(self), self, pipe_fds[0]);
  EXPECT_THAT(not_socket.status().message(), HasSubstr("not a socket"));
  close(pipe_fds[0]);
  // pipe_fds[0] is closed now and nothing reuses the number before this call.
  auto closed = InheritedListenSocket(Activated(self), self, pipe_fds[0]);
  EXPECT_THAT(closed.status().message(), HasSubstr("not open"));
  close(pipe_fds[1]);

  int port = 0;
  int bound = BindTcp("127.0.0.1", false, &port);
  ASSERT_GE(bound, 0);
  auto idle = InheritedListenSocket(Activated(self), self, bound);
  EXPECT_THAT(idle.status().message(), HasSubstr("not listening"));
  close(bound);

  int datagram = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto udp = InheritedListenSocket(Activated(self), self, datagram);
  EXPECT_THAT(udp.status().message(), HasSubstr("not a stream socket"));
  close(datagram);
}

const simulator::InstanceSpec* Instance() { return *simulator::FindInstanceSpec("trn2.3xlarge"); }

// A daemon started as neurond.socket starts it: LISTEN_* naming this process, the socket at `fd`.
StatusOr<std::unique_ptr<Daemon>> StartActivated(int fd, const std::string& listen = "") {
  StatusOr<std::optional<InheritedSocket>> socket =
      InheritedListenSocket(Activated(getpid()), getpid(), fd);
  if (!socket.ok()) return socket.status();
  DaemonOptions options;
  options.listen = listen;
  options.instance = Instance();
  options.service.token = kToken;
  options.inherited = *socket;
  return Daemon::Start(options);
}

StatusOr<std::unique_ptr<driver::Device>> Open(const std::string& address) {
  driver::DeviceOptions options;
  options.backend = "remote";
  options.instance = Instance();
  options.address = address;
  options.token = kToken;
  return driver::remote::OpenRemoteDevice(options);
}

// An attached session that asks Status; its own session is not counted.
class Observer {
 public:
  explicit Observer(const std::string& address) : client_(address) {
    v1::HelloResponse hello;
    attached_ = client_.Hello(kToken, &hello).ok() && client_.Attach();
  }
  int OtherSessions() {
    v1::StatusResponse status;
    if (!attached_ ||
        !client_.stub().Status(client_.Context().get(), v1::StatusRequest(), &status).ok()) {
      return -1;
    }
    return status.sessions_size() - 1;
  }

 private:
  RawClient client_;
  bool attached_ = false;
};

TEST(SocketActivatedDaemonTest, ServesClientsOnTheSocketItWasPassed) {
  TempDir dir;
  const std::string path = (dir.path() / "neurond.sock").string();
  int fd = ListenUnix(path);
  ASSERT_GE(fd, 0);
  auto daemon = StartActivated(fd, "unix:" + path);
  ASSERT_TRUE(daemon.ok()) << daemon.status().message();
  EXPECT_EQ((*daemon)->address(), "unix:" + path);
  Observer observer((*daemon)->address());

  {
    auto device = Open((*daemon)->address());
    ASSERT_TRUE(device.ok()) << device.status().message();
    ASSERT_TRUE((*device)->AcquireCores(0, 2).ok());
    // Three chunks and a bit each way: every message is near the daemon's size limit.
    const size_t bytes = 3 * (1 << 20) + 5;
    driver::AllocationRequest request;
    request.size_bytes = bytes;
    auto info = (*device)->Allocate(request);
    ASSERT_TRUE(info.ok()) << info.status().message();
    std::vector<uint8_t> written(bytes), read(bytes);
    for (size_t i = 0; i < bytes; ++i) written[i] = static_cast<uint8_t>(i * 7 + (i >> 16));
    ASSERT_TRUE((*device)->Write(info->handle, 0, written.data(), bytes).ok());
    ASSERT_TRUE((*device)->Read(info->handle, 0, read.data(), bytes).ok());
    EXPECT_EQ(read, written);
    EXPECT_EQ(observer.OtherSessions(), 1);
  }
  // A wrong token is still refused on such a connection.
  RawClient intruder((*daemon)->address());
  v1::HelloResponse hello;
  EXPECT_EQ(intruder.Hello("wrong", &hello).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  (*daemon)->Shutdown(std::chrono::seconds(5));
  close(fd);
}

// The session of a client that goes away without a Goodbye (its Attach stream broken, its
// channel closed) ends; a SIGKILLed client process: neurond_process_test.
TEST(SocketActivatedDaemonTest, AClientThatGoesAwayLeavesNoSession) {
  TempDir dir;
  const std::string path = (dir.path() / "neurond.sock").string();
  int fd = ListenUnix(path);
  ASSERT_GE(fd, 0);
  auto daemon = StartActivated(fd);
  ASSERT_TRUE(daemon.ok()) << daemon.status().message();
  const std::string address = (*daemon)->address();
  Observer observer(address);
  {
    RawClient client(address);
    v1::HelloResponse hello;
    ASSERT_TRUE(client.Hello(kToken, &hello).ok());
    ASSERT_TRUE(client.Attach());
    EXPECT_EQ(observer.OtherSessions(), 1);
  }  // the channel and its connection go; no Goodbye was sent
  int sessions = -1;
  for (int i = 0; i < 250 && sessions != 0; ++i) {
    sessions = observer.OtherSessions();
    if (sessions != 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(sessions, 0);
  (*daemon)->Shutdown(std::chrono::seconds(5));
  close(fd);
}

TEST(SocketActivatedDaemonTest, RefusesTlsARemoteSocketAndAnotherListenAddress) {
  TempDir dir;
  const std::string path = (dir.path() / "neurond.sock").string();
  int fd = ListenUnix(path);
  ASSERT_GE(fd, 0);
  auto other = StartActivated(fd, "unix:" + (dir.path() / "other.sock").string());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(other.status().message(), HasSubstr("unix:" + path));

  auto socket = InheritedListenSocket(Activated(getpid()), getpid(), fd);
  ASSERT_TRUE(socket.ok());
  DaemonOptions options;
  options.instance = Instance();
  options.inherited = *socket;
  options.tls.certificate_chain_pem = "-----BEGIN CERTIFICATE-----";
  options.tls.private_key_pem = "-----BEGIN PRIVATE KEY-----";
  auto tls = Daemon::Start(options);
  ASSERT_FALSE(tls.ok());
  EXPECT_THAT(tls.status().message(), HasSubstr("plaintext only"));
  close(fd);

  int port = 0;
  int any = BindTcp("0.0.0.0", true, &port);
  ASSERT_GE(any, 0);
  auto remote = StartActivated(any);
  ASSERT_FALSE(remote.ok());
  EXPECT_THAT(remote.status().message(), HasSubstr("--allow-remote"));
  close(any);
}

// systemd keeps the socket when neurond exits and passes it to the next neurond it starts.
TEST(SocketActivatedDaemonTest, TheSocketOutlivesADaemonForTheNextOne) {
  TempDir dir;
  const std::string path = (dir.path() / "neurond.sock").string();
  int fd = ListenUnix(path);
  ASSERT_GE(fd, 0);
  for (int round = 0; round < 2; ++round) {
    auto daemon = StartActivated(fd);
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    RawClient client((*daemon)->address());
    v1::HelloResponse hello;
    ASSERT_TRUE(client.Hello(kToken, &hello).ok()) << "round " << round;
    EXPECT_EQ(hello.status().code(), 0u);
    (*daemon)->Shutdown(std::chrono::seconds(5));
    int listening = 0;
    socklen_t length = sizeof(listening);
    ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length), 0);
    EXPECT_EQ(listening, 1) << "the daemon closed or shut down the socket it was passed";
  }
  close(fd);
}

}  // namespace
}  // namespace trnsim::neurond
