// neurond's small parts: listen addresses, the credentials and peer identities.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>

#include "tools/neurond/credentials.h"
#include "tools/neurond/listen_address.h"
#include "tools/neurond/peer_identity.h"

namespace trnsim::neurond {
namespace {

TEST(ListenAddressTest, LoopbackAndUnixAreAccepted) {
  for (const char* address : {"127.0.0.1:50051", "[::1]:0", "localhost:65535", "unix:/tmp/x"}) {
    StatusOr<std::string> parsed = ParseListenAddress(address, false);
    ASSERT_TRUE(parsed.ok()) << address << ": " << parsed.status().message();
    EXPECT_EQ(*parsed, address);
  }
}

TEST(ListenAddressTest, RemoteNeedsAllowRemote) {
  EXPECT_EQ(ParseListenAddress("0.0.0.0:50051", false).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(ParseListenAddress("10.1.2.3:50051", false).status().code(), StatusCode::kInvalid);
  EXPECT_TRUE(ParseListenAddress("0.0.0.0:50051", true).ok());
}

TEST(ListenAddressTest, MalformedAddressesAreRefused) {
  for (const char* address :
       {"", "unix:", "50051", ":50051", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:5x",
        "127.0.0.1:1234567"}) {
    EXPECT_EQ(ParseListenAddress(address, true).status().code(), StatusCode::kInvalid) << address;
  }
}

TEST(CredentialsTest, TokensEqualOnlyForTheSameBytes) {
  EXPECT_TRUE(TokensEqual("secret", "secret"));
  EXPECT_FALSE(TokensEqual("secret", "secreT"));
  EXPECT_FALSE(TokensEqual("secret", "secret2"));
  EXPECT_FALSE(TokensEqual("secret", "secre"));
  EXPECT_FALSE(TokensEqual("secret", ""));
  EXPECT_FALSE(TokensEqual("", ""));  // no token configured never matches
}

TEST(CredentialsTest, SessionKeysAre128RandomBitsInHex) {
  std::set<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    std::string key = NewSessionKey();
    EXPECT_EQ(key.size(), 32u);
    EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), 100u);
}

// One peer per host address, whatever the port; a passed socket's Unix client by its uid.
TEST(PeerIdentityTest, AddressesLoseTheirPortAndUnixClientsAreTheirUid) {
  EXPECT_EQ(PeerIdentity("ipv4:127.0.0.1:5000"), "ipv4:127.0.0.1");
  EXPECT_EQ(PeerIdentity("ipv4:10.1.2.3:65535"), "ipv4:10.1.2.3");
  EXPECT_EQ(PeerIdentity("ipv6:[::1]:41000"), "ipv6:[::1]");
  EXPECT_EQ(PeerIdentity("ipv6:%5B::1%5D:41000"), "ipv6:%5B::1%5D");
  EXPECT_EQ(PeerIdentity("unix:"), "unix:");
  EXPECT_EQ(PeerIdentity("unix:/tmp/client.sock"), "unix:/tmp/client.sock");
  EXPECT_EQ(PeerIdentity("ipv4:127.0.0.1:"), "ipv4:127.0.0.1:");   // no port: kept whole
  EXPECT_EQ(PeerIdentity("ipv6:[::1"), "ipv6:[::1");
  EXPECT_EQ(PeerIdentity(""), "");
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  EXPECT_EQ(PeerIdentity("fd:" + std::to_string(pair[0])), "uid:" + std::to_string(getuid()));
  close(pair[0]);
  close(pair[1]);
  EXPECT_EQ(PeerIdentity("fd:" + std::to_string(pair[0])), "fd:" + std::to_string(pair[0]));
  EXPECT_EQ(PeerIdentity("fd:x"), "fd:x");
  EXPECT_EQ(PeerIdentity("fd:-1"), "fd:-1");
}

}  // namespace
}  // namespace trnsim::neurond
