// neurond and programs that never end (issue 20 F2, F5; README.md, "Security model: Traces and
// runaway programs"): a traced endless loop's trace stops at the daemon's trace limits, marked
// truncated, instead of growing the daemon until the host timeout; a request with no timeout
// (what NEURON_RT_EXEC_TIMEOUT=0 sends) is stopped by the daemon's event budget, and by its
// host-time ceiling when that comes first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/core/trace.h"
#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {
namespace {

constexpr uint32_t kTimeout = 5;  // NRT_TIMEOUT

class NeurondRunawayTest : public NeurondServiceTest {
 protected:
  void SetUp() override {}  // each test starts the daemon with its own limits

  // Connects, takes core 0 and loads the endless program; its handle.
  uint64_t LoadEndless(RawClient& client) {
    EXPECT_EQ(AcquireCores(client, 0, 1), kOk);
    v1::LoadProgramResponse loaded = LoadProgram(client, SerializedProgram(kEndlessProgram));
    EXPECT_EQ(loaded.status().code(), kOk) << loaded.status().message();
    return loaded.program();
  }

  static v1::ExecuteResponse Execute(RawClient& client, uint64_t program, uint64_t timeout_ms,
                                     bool trace) {
    v1::ExecuteRequest request;
    v1::CoreExecution* run = request.add_cores();
    run->set_program(program);
    run->set_physical_core(0);
    request.mutable_options()->set_host_timeout_ms(timeout_ms);
    request.mutable_options()->set_record_trace(trace);
    v1::ExecuteResponse response;
    EXPECT_TRUE(client.stub().Execute(client.Context().get(), request, &response).ok());
    return response;
  }

  static uint64_t Events(const v1::ExecuteResponse::Trace& trace) {
    return uint64_t(trace.instructions_size()) + uint64_t(trace.dmas_size()) +
           uint64_t(trace.dma_parts_size()) + uint64_t(trace.sync_updates_size());
  }
};

// F2 and F5 through the daemon: the endless loop, traced, with no timeout. The daemon's event
// budget ends it (NRT_TIMEOUT naming the budget, not a host timeout), and its trace holds
// exactly the daemon's --max-trace-events, marked truncated, the rest counted.
TEST_F(NeurondRunawayTest, ATracedEndlessLoopStopsAtTheEventBudgetWithItsTraceCapped) {
  ServiceOptions service{.token = kToken};
  service.max_trace_events = 1000;
  service.max_exec_events = 100000;
  StartDaemon(service);
  auto client = Connect();
  const uint64_t program = LoadEndless(*client);
  v1::ExecuteResponse response = Execute(*client, program, /*timeout_ms=*/0, /*trace=*/true);
  EXPECT_EQ(response.status().code(), kTimeout) << response.status().message();
  EXPECT_NE(response.status().message().find("did not finish within 100000 simulator events"),
            std::string::npos)
      << response.status().message();
  ASSERT_TRUE(response.has_trace());
  EXPECT_EQ(Events(response.trace()), 1000u);
  EXPECT_TRUE(response.trace().truncated());
  // 100,000 events are 50,000 branches: each recorded or counted.
  EXPECT_NEAR(double(response.trace().instructions_size() + response.trace().dropped_events()),
              50000.0, 2.0);

  // The byte limit alone: the recorded entries stay under it.
  ServiceOptions by_bytes{.token = kToken};
  by_bytes.max_trace_bytes = 64 << 10;
  by_bytes.max_exec_events = 100000;
  client.reset();
  StartDaemon(by_bytes);
  client = Connect();
  response = Execute(*client, LoadEndless(*client), 0, true);
  EXPECT_EQ(response.status().code(), kTimeout) << response.status().message();
  EXPECT_TRUE(response.trace().truncated());
  EXPECT_GT(response.trace().instructions_size(), 0);
  EXPECT_LE(
      uint64_t(response.trace().instructions_size()) * sizeof(simulator::core::TraceInstruction),
      uint64_t{64} << 10);
  EXPECT_GT(response.trace().dropped_events(), 0u);
  ExpectServing(*client);
}

// F5: the host-time ceiling (--max-exec-ms) applies to a request with no timeout and to one
// asking for more; the event budget is left at its default, far beyond what runs meanwhile.
TEST_F(NeurondRunawayTest, TheHostTimeCeilingBoundsRequestsWithNoOrALongerTimeout) {
  ServiceOptions service{.token = kToken};
  service.max_exec_time = std::chrono::milliseconds(200);
  StartDaemon(service);
  auto client = Connect();
  const uint64_t program = LoadEndless(*client);
  for (uint64_t timeout_ms : {uint64_t{0}, uint64_t{1} << 40}) {
    v1::ExecuteResponse response = Execute(*client, program, timeout_ms, /*trace=*/false);
    EXPECT_EQ(response.status().code(), kTimeout) << response.status().message();
    EXPECT_NE(response.status().message().find("exceeded the 200 ms execution timeout"),
              std::string::npos)
        << timeout_ms << ": " << response.status().message();
  }
}

TEST_F(NeurondRunawayTest, TheDefaultsAreTheDocumentedOnes) {
  const ServiceOptions defaults;
  EXPECT_EQ(defaults.max_trace_events, simulator::core::kDefaultTraceMaxEvents);
  EXPECT_EQ(defaults.max_trace_bytes, simulator::core::kDefaultTraceMaxBytes);
  EXPECT_EQ(defaults.max_exec_events, 0u);  // the chip model's kDefaultMaxEvents
  EXPECT_EQ(defaults.max_exec_time, std::chrono::hours(1));
}

}  // namespace
}  // namespace trnsim::neurond
