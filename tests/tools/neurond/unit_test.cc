// neurond's small parts: listen addresses and the credentials.
#include <gtest/gtest.h>

#include <set>

#include "tools/neurond/credentials.h"
#include "tools/neurond/listen_address.h"

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

}  // namespace
}  // namespace trnsim::neurond
