// neurond with TLS (--tls-cert/--tls-key; server authentication only) and the remote back end
// trusting it (DeviceOptions::tls_ca_file, i.e. TRNSIM_TLS_CA): an in-process daemon on
// 127.0.0.1:0 with the committed self-signed test pair (tests/data/tls) serves a client that
// trusts it, byte for byte; a plaintext client, a client trusting another certificate, a client
// expecting another name and a TLS client of a plaintext daemon are each refused with
// NRT_FAILURE naming the address, well within the RPC deadline; unusable PEM files are refused
// naming the file before anything listens or connects.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "driver/device.h"
#include "driver/remote/remote_device.h"
#include "simulator/spec/instance_spec.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/neurond/credentials.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

constexpr char kToken[] = "tls-test-token";
// Far below the RPC deadline the clients use (kDeadline): a refusal must come from the
// handshake failing, not from the deadline running out.
constexpr auto kQuick = std::chrono::seconds(5);
constexpr auto kDeadline = std::chrono::seconds(20);

std::string DataPath(const char* name) { return std::string(TRNSIM_TLS_TEST_DATA) + "/" + name; }

std::string ReadAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

TlsKeyPair TestPair() {
  return TlsKeyPair{ReadAll(DataPath("server.crt")), ReadAll(DataPath("server.key"))};
}

const simulator::InstanceSpec* Instance() { return *simulator::FindInstanceSpec("trn2.3xlarge"); }

StatusOr<std::unique_ptr<Daemon>> StartDaemon(const std::string& listen, TlsKeyPair tls) {
  DaemonOptions options;
  options.listen = listen;
  options.instance = Instance();
  options.service.token = kToken;
  options.tls = std::move(tls);
  return Daemon::Start(options);
}

struct Opened {
  StatusOr<std::unique_ptr<driver::Device>> device;
  Clock::duration took;
};

Opened Open(const std::string& address, const std::string& ca_file,
            const std::string& server_name = "", const std::string& token = kToken) {
  driver::DeviceOptions options;
  options.backend = "remote";
  options.instance = Instance();
  options.address = address;
  options.token = token;
  options.tls_ca_file = ca_file;
  options.tls_server_name = server_name;
  driver::remote::RemoteOptions remote;
  remote.rpc_deadline = kDeadline;
  const auto start = Clock::now();
  StatusOr<std::unique_ptr<driver::Device>> device =
      driver::remote::OpenRemoteDevice(options, remote);
  return Opened{std::move(device), Clock::now() - start};
}

// Cores, a 3 MiB tensor (three Write and Read chunks) written and read back byte for byte.
void ExpectRoundTrip(driver::Device& device) {
  ASSERT_TRUE(device.AcquireCores(0, 1).ok());
  driver::AllocationRequest request;
  request.size_bytes = 3 << 20;
  StatusOr<driver::AllocationInfo> info = device.Allocate(request);
  ASSERT_TRUE(info.ok()) << info.status().message();
  std::vector<uint8_t> written(request.size_bytes);
  for (size_t i = 0; i < written.size(); ++i) written[i] = static_cast<uint8_t>(i * 131 + 7);
  ASSERT_TRUE(device.Write(info->handle, 0, written.data(), written.size()).ok());
  std::vector<uint8_t> read(written.size(), 0);
  Status status = device.Read(info->handle, 0, read.data(), read.size());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(read, written);
  EXPECT_TRUE(device.Free(info->handle).ok());
  device.ReleaseCores(0, 1);
}

void ExpectRefused(const Opened& opened, const std::string& address) {
  ASSERT_FALSE(opened.device.ok());
  EXPECT_EQ(opened.device.status().code(), StatusCode::kFailure)
      << opened.device.status().message();
  EXPECT_THAT(opened.device.status().message(), HasSubstr(address));
  EXPECT_LT(opened.took, kQuick) << opened.device.status().message();
}

class NeurondTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto daemon = StartDaemon("127.0.0.1:0", TestPair());
    ASSERT_TRUE(daemon.ok()) << daemon.status().message();
    daemon_ = std::move(*daemon);
  }

  std::unique_ptr<Daemon> daemon_;
};

TEST_F(NeurondTlsTest, ServesAClientThatTrustsItsCertificate) {
  Opened opened = Open(daemon_->address(), DataPath("server.crt"));
  ASSERT_TRUE(opened.device.ok()) << opened.device.status().message();
  ExpectRoundTrip(**opened.device);
}

TEST_F(NeurondTlsTest, ServerNameOverrideMatchesTheCertificate) {
  // The certificate names localhost (and 127.0.0.1); the daemon is reached at 127.0.0.1.
  Opened opened = Open(daemon_->address(), DataPath("server.crt"), "localhost");
  ASSERT_TRUE(opened.device.ok()) << opened.device.status().message();
  ExpectRoundTrip(**opened.device);
  // Through the name too: localhost:PORT.
  const std::string port = daemon_->address().substr(daemon_->address().rfind(':'));
  Opened by_name = Open("localhost" + port, DataPath("server.crt"));
  ASSERT_TRUE(by_name.device.ok()) << by_name.device.status().message();
  ExpectRoundTrip(**by_name.device);
}

TEST_F(NeurondTlsTest, TheTokenIsStillRequired) {
  Opened opened = Open(daemon_->address(), DataPath("server.crt"), "", "wrong-token");
  ASSERT_FALSE(opened.device.ok());
  EXPECT_EQ(opened.device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(opened.device.status().message(), HasSubstr("UNAUTHENTICATED"));
}

TEST_F(NeurondTlsTest, PlaintextClientIsRefusedQuickly) {
  Opened opened = Open(daemon_->address(), "");
  ExpectRefused(opened, daemon_->address());
  EXPECT_THAT(opened.device.status().message(), HasSubstr("plaintext"));
}

TEST_F(NeurondTlsTest, ClientTrustingAnotherCertificateIsRefusedQuickly) {
  Opened opened = Open(daemon_->address(), DataPath("other.crt"));
  ExpectRefused(opened, daemon_->address());
  EXPECT_THAT(opened.device.status().message(), HasSubstr(DataPath("other.crt")));
}

TEST_F(NeurondTlsTest, ClientExpectingAnotherNameIsRefusedQuickly) {
  Opened opened = Open(daemon_->address(), DataPath("server.crt"), "neurond.example");
  ExpectRefused(opened, daemon_->address());
}

TEST_F(NeurondTlsTest, UnusableCaFileIsRefusedNamingItBeforeConnecting) {
  TempDir dir;
  const std::string missing = (dir.path() / "missing.pem").string();
  const std::string not_pem = (dir.path() / "not.pem").string();
  std::ofstream(not_pem) << "this is not a certificate\n";
  for (const std::string& ca : {missing, not_pem, DataPath("server.key")}) {
    Opened opened = Open(daemon_->address(), ca);
    ASSERT_FALSE(opened.device.ok()) << ca;
    EXPECT_EQ(opened.device.status().code(), StatusCode::kFailure);
    EXPECT_THAT(opened.device.status().message(), HasSubstr(ca));
    EXPECT_THAT(opened.device.status().message(), HasSubstr(daemon_->address()));
  }
}

TEST_F(NeurondTlsTest, ServerNameWithoutCaFileIsRefused) {
  Opened opened = Open(daemon_->address(), "", "localhost");
  ASSERT_FALSE(opened.device.ok());
  EXPECT_EQ(opened.device.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(opened.device.status().message(), HasSubstr("plaintext"));
}

TEST(NeurondTlsPlaintextDaemonTest, TlsClientIsRefusedQuickly) {
  auto daemon = StartDaemon("127.0.0.1:0", TlsKeyPair{});
  ASSERT_TRUE(daemon.ok()) << daemon.status().message();
  Opened opened = Open((*daemon)->address(), DataPath("server.crt"));
  ExpectRefused(opened, (*daemon)->address());
}

TEST(NeurondTlsUnixSocketTest, TlsWorksOnAUnixSocket) {
  TempDir dir;
  const std::string address = "unix:" + (dir.path() / "neurond.sock").string();
  auto daemon = StartDaemon(address, TestPair());
  ASSERT_TRUE(daemon.ok()) << daemon.status().message();
  // gRPC's authority for a unix: address is "localhost", which the certificate names.
  Opened opened = Open(address, DataPath("server.crt"));
  ASSERT_TRUE(opened.device.ok()) << opened.device.status().message();
  ExpectRoundTrip(**opened.device);
  ExpectRefused(Open(address, ""), address);
}

TEST(NeurondTlsCredentialsTest, ReadsTheTestPair) {
  StatusOr<TlsKeyPair> pair = ReadTlsKeyPair(DataPath("server.crt"), DataPath("server.key"));
  ASSERT_TRUE(pair.ok()) << pair.status().message();
  EXPECT_THAT(pair->certificate_chain_pem, HasSubstr("BEGIN CERTIFICATE"));
  EXPECT_THAT(pair->private_key_pem, HasSubstr("PRIVATE KEY"));
}

TEST(NeurondTlsCredentialsTest, RefusesUnusableFilesNamingThem) {
  TempDir dir;
  const std::string missing = (dir.path() / "missing.pem").string();
  const std::string empty = (dir.path() / "empty.pem").string();
  std::ofstream(empty).flush();
  const std::string cert = DataPath("server.crt"), key = DataPath("server.key");
  struct Case {
    std::string cert, key, named;
  };
  const std::vector<Case> cases = {
      {cert, missing, missing},  // no key file
      {missing, key, missing},   // no certificate file
      {cert, empty, empty},
      {key, key, key},                              // a key where the certificate belongs
      {cert, cert, cert},                           // a certificate where the key belongs
      {DataPath("other.crt"), key, "not the key"},  // a key of another certificate
  };
  for (const Case& c : cases) {
    StatusOr<TlsKeyPair> pair = ReadTlsKeyPair(c.cert, c.key);
    ASSERT_FALSE(pair.ok()) << c.cert << " " << c.key;
    EXPECT_EQ(pair.status().code(), StatusCode::kFailure);
    EXPECT_THAT(pair.status().message(), HasSubstr(c.named));
    EXPECT_EQ(pair.status().message().find('\n'), std::string::npos);
  }
}

TEST(NeurondTlsCredentialsTest, DaemonRefusesHalfAPairOrAGarbledOne) {
  TlsKeyPair pair = TestPair();
  StatusOr<std::unique_ptr<Daemon>> daemon =
      StartDaemon("127.0.0.1:0", TlsKeyPair{pair.certificate_chain_pem, ""});
  ASSERT_FALSE(daemon.ok());
  EXPECT_EQ(daemon.status().code(), StatusCode::kInvalid);
  daemon = StartDaemon("127.0.0.1:0", TlsKeyPair{"garbage", pair.private_key_pem});
  ASSERT_FALSE(daemon.ok());
  EXPECT_EQ(daemon.status().code(), StatusCode::kFailure);
  EXPECT_THAT(daemon.status().message(), HasSubstr("certificate"));
}

}  // namespace
}  // namespace trnsim::neurond
