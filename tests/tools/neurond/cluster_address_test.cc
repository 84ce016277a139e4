// Cluster addresses (tools/neurond/cluster/cluster_address.h): HOST:PORT parsing, whether a
// communicator names this daemon, another one or no multi-instance job, and the id a daemon
// listening on a wildcard address is known by.
#include "tools/neurond/cluster/cluster_address.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <string>

namespace trnsim::neurond::cluster {
namespace {

std::string HostName() {
  char name[HOST_NAME_MAX + 1] = {};
  EXPECT_EQ(gethostname(name, sizeof(name) - 1), 0);
  return name;
}

TEST(ClusterAddress, ParsesHostPortAndBracketedV6) {
  auto a = ParseHostPort("node-1.example:7000");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->host, "node-1.example");
  EXPECT_EQ(a->port, 7000);
  auto b = ParseHostPort("10.0.0.2:1");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->host, "10.0.0.2");
  EXPECT_EQ(b->port, 1);
  auto c = ParseHostPort("[::1]:65535");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->host, "::1");  // without brackets
  EXPECT_EQ(c->port, 65535);
  auto d = ParseHostPort("[fe80::1]:9000");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->host, "fe80::1");
  EXPECT_EQ(d->port, 9000);
}

TEST(ClusterAddress, RefusesWhatIsNotHostPort) {
  for (const char* text : {
           "host:0",        // port 0
           "host:65536",    // beyond 16 bits
           "host:99999",    // five digits, too large
           "host:123456",   // six digits
           "host:80a",      // letters
           "host:-1",       // sign
           "host:",         // no port
           "host",          // no colon
           "",              // nothing
           ":7000",         // empty host
           "[]:7000",       // empty bracketed host
           "::1:7000",      // v6 without brackets
           "fe80::1:7000",  // likewise
           "[::1]",         // no port
           "[::1]7000",     // no colon after the bracket
           "[::1:7000",     // unclosed bracket
           "unix:/x",       // a unix socket
           "host name:80",  // a space
           "host/x:80",     // a slash
       }) {
    EXPECT_FALSE(ParseHostPort(text).has_value()) << "'" << text << "'";
  }
}

TEST(ClusterAddress, CommunicatorsThatAreNoHostPortAreNoClusterJob) {
  for (const char* own : {"127.0.0.1:7000", "0.0.0.0:7000"}) {
    EXPECT_EQ(ClassifyRoot("c", own), RootKind::kNotCluster);
    EXPECT_EQ(ClassifyRoot("unix:/x", own), RootKind::kNotCluster);
    EXPECT_EQ(ClassifyRoot("host:0", own), RootKind::kNotCluster);
    EXPECT_EQ(ClassifyRoot("", own), RootKind::kNotCluster);
  }
}

TEST(ClusterAddress, ThisDaemonByExactTextLoopbackAndHostName) {
  // The exact text, even for a host that IsThisHost would not know.
  EXPECT_EQ(ClassifyRoot("node-7.internal:7000", "node-7.internal:7000"), RootKind::kThisDaemon);
  // The same port on this host, named another way.
  EXPECT_EQ(ClassifyRoot("127.0.0.1:7000", "127.0.0.1:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("localhost:7000", "127.0.0.1:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("127.0.0.1:7000", "localhost:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot(HostName() + ":7000", "127.0.0.1:7000"), RootKind::kThisDaemon);
  // Listening on the wildcard: any name of this host with the port, or the wildcard itself.
  EXPECT_EQ(ClassifyRoot("127.0.0.1:7000", "0.0.0.0:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("localhost:7000", "0.0.0.0:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot(HostName() + ":7000", "0.0.0.0:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("0.0.0.0:7000", "0.0.0.0:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("[::]:7000", "0.0.0.0:7000"), RootKind::kThisDaemon);
  EXPECT_EQ(ClassifyRoot("[::1]:7000", "[::]:7000"), RootKind::kThisDaemon);
}

TEST(ClusterAddress, OtherDaemonOnAnotherPortOrHost) {
  EXPECT_EQ(ClassifyRoot("127.0.0.1:7001", "127.0.0.1:7000"), RootKind::kOtherDaemon);
  EXPECT_EQ(ClassifyRoot("localhost:7001", "0.0.0.0:7000"), RootKind::kOtherDaemon);
  EXPECT_EQ(ClassifyRoot(HostName() + ":7001", "0.0.0.0:7000"), RootKind::kOtherDaemon);
  // Another host (no DNS is asked: a name that is not this host's is another host).
  EXPECT_EQ(ClassifyRoot("node-2.invalid:7000", "127.0.0.1:7000"), RootKind::kOtherDaemon);
  EXPECT_EQ(ClassifyRoot("node-2.invalid:7000", "0.0.0.0:7000"), RootKind::kOtherDaemon);
  EXPECT_EQ(ClassifyRoot("192.0.2.77:7000", "0.0.0.0:7000"), RootKind::kOtherDaemon);
  // A daemon without a parsable address of its own: only the exact text would be it.
  EXPECT_EQ(ClassifyRoot("127.0.0.1:7000", "not-an-address"), RootKind::kOtherDaemon);
}

TEST(ClusterAddress, InstanceIdReplacesAWildcardHostByTheHostName) {
  EXPECT_EQ(ClusterInstanceId("0.0.0.0:7000"), HostName() + ":7000");
  EXPECT_EQ(ClusterInstanceId("[::]:7001"), HostName() + ":7001");
  EXPECT_EQ(ClusterInstanceId("127.0.0.1:7000"), "127.0.0.1:7000");
  EXPECT_EQ(ClusterInstanceId("node-7.internal:7000"), "node-7.internal:7000");
  EXPECT_EQ(ClusterInstanceId("not-an-address"), "not-an-address");
  // The id names this daemon to itself.
  EXPECT_EQ(ClassifyRoot(ClusterInstanceId("0.0.0.0:7000"), "0.0.0.0:7000"), RootKind::kThisDaemon);
}

}  // namespace
}  // namespace trnsim::neurond::cluster
