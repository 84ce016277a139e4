// Every test program linking neurond_test_client compiles this file (an INTERFACE source of
// the library): after its last test, the program waits — at most kLimit — for gRPC's own
// clean-up to finish before it exits.
//
// Why: gRPC shuts itself down when its last object goes away, and when that happens on one of
// its own threads (a channel's last reference dropped in a callback) the clean-up runs on a
// detached thread that joins gRPC's executor threads. A process that exits meanwhile races
// those threads' exit: under LeakSanitizer an executor thread that did a TLS handshake can be
// caught after the sanitizer stopped tracking it but before OpenSSL's thread-exit handler freed
// its error queue (OpenSSL's 904-byte ERR_STATE), which is then reported as a leak in a test
// that passed (NeurondTlsTest, about one single-test run in 150 on a loaded 2-core machine).
// grpc_is_initialized() reads the library's count under the lock the clean-up holds, so once it
// reports 0 the executor threads have been joined.
#include <grpc/grpc.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

constexpr auto kLimit = std::chrono::seconds(10);
constexpr auto kPoll = std::chrono::milliseconds(5);

class GrpcQuietExit : public ::testing::Environment {
 public:
  void TearDown() override {
    const auto deadline = std::chrono::steady_clock::now() + kLimit;
    while (grpc_is_initialized() != 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        // Not a failure of any test: something still holds gRPC (a leaked channel would be
        // LeakSanitizer's to report). Say so, and exit anyway.
        std::fprintf(stderr, "grpc_quiet_exit: gRPC still initialized after %lld s; exiting\n",
                     static_cast<long long>(kLimit.count()));
        return;
      }
      std::this_thread::sleep_for(kPoll);
    }
  }
};

::testing::Environment* const registered = ::testing::AddGlobalTestEnvironment(new GrpcQuietExit);

}  // namespace
