// The hub when memory runs out (issue 20 F1): this binary replaces operator new with a hook that
// makes the n-th allocation of the calling thread throw std::bad_alloc, and makes it fail at
// every allocation a host collective's first rank makes, one n at a time. Whichever allocation
// fails, the call returns a status (no exception escapes the hub), and the next rank of the very
// same collective gets a clean status — before, a rendezvous left half-built by the failure
// (its member list set, its per-rank slots not) crashed that next rank, and with it neurond.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "collective_test_util.h"

namespace {

thread_local long fail_countdown = 0;  // > 0: the allocation that brings it to 0 fails
thread_local bool failed = false;

}  // namespace

void* operator new(std::size_t size) {
  if (fail_countdown > 0 && --fail_countdown == 0) {
    failed = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace trnsim::simulator::collective {
namespace {

using std::chrono::milliseconds;

TEST(CollectiveHubAllocationFailure, NoFailedAllocationLeavesAHalfBuiltRendezvous) {
  const std::vector<uint8_t> first_input{1, 2, 3, 4}, second_input{5, 6, 7, 8};
  const std::vector<uint8_t> both{1, 2, 3, 4, 5, 6, 7, 8};
  // The ranks wait 1 ms for each other: rank 0 calls alone, so it fails (out of memory, or
  // timed out); rank 1 then either completes with what rank 0 had stored or fails cleanly.
  const PortOptions alone{milliseconds(1), nullptr};
  long n = 1;
  for (; n < 10'000; ++n) {
    CollectiveHub hub(testing::Trn2_48xl());
    HostCollectiveCall call;
    call.kind = HostCollectiveKind::kAllGather;
    call.communicator = "allocation-failure";
    call.world_size = 2;
    call.rank = 0;
    call.input = first_input;
    bool escaped = false;
    StatusOr<std::vector<uint8_t>> first = InvalidError("not called");
    failed = false;
    fail_countdown = n;
    try {
      first = hub.HostCollective(call, alone);
    } catch (const std::bad_alloc&) {
      escaped = true;
    }
    fail_countdown = 0;
    const bool hit = failed;
    EXPECT_FALSE(escaped) << "std::bad_alloc escaped the hub at allocation " << n;
    EXPECT_FALSE(first.ok()) << "allocation " << n;
    const StatusCode code = first.status().code();
    EXPECT_TRUE(code == StatusCode::kResource || code == StatusCode::kTimeout)
        << "allocation " << n << ": " << first.status().ToString();
    call.rank = 1;
    call.input = second_input;
    StatusOr<std::vector<uint8_t>> second = hub.HostCollective(call, alone);
    if (second.ok()) {
      EXPECT_EQ(*second, both) << "allocation " << n;
    } else {
      EXPECT_EQ(second.status().code(), StatusCode::kTimeout)
          << "allocation " << n << ": " << second.status().ToString();
    }
    if (!hit) break;  // n is past the call's last allocation: every one has failed once
  }
  EXPECT_GT(n, 5) << "the first rank's call should allocate several times";
  EXPECT_LT(n, 10'000) << "the sweep never got past the call's allocations";
}

}  // namespace
}  // namespace trnsim::simulator::collective
