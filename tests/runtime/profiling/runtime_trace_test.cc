// nrt_trace_*'s memory events and file (runtime/profiling/runtime_trace.h).
#include "runtime/profiling/runtime_trace.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trnsim::runtime::profiling {
namespace {

TEST(RuntimeTraceTest, MemoryEventsPairAllocationsWithTheirFrees) {
  RuntimeTrace trace;
  int a = 0, b = 0, before = 0;
  trace.RecordAllocation(&a, "ignored", "device", 0, 1);  // not running
  trace.Begin(/*trace_mem=*/true);
  EXPECT_TRUE(trace.running());
  EXPECT_TRUE(trace.traces_memory());
  trace.RecordAllocation(&a, "a", "device", 1, 4096);
  trace.RecordAllocation(&b, "b", "host", -1, 64);
  trace.RecordFree(&before, "old", "device", 0, 8);  // allocated before the trace: not recorded
  trace.RecordFree(&a, "a", "device", 1, 4096);
  trace.RecordAllocation(&a, "a2", "device", 1, 16);  // the address reused: a new id
  std::vector<MemoryEvent> events = trace.End();
  EXPECT_FALSE(trace.running());
  ASSERT_EQ(events.size(), 4u);
  EXPECT_TRUE(events[0].allocate);
  EXPECT_EQ(events[0].tensor_id, 1u);
  EXPECT_EQ(events[1].tensor_id, 2u);
  EXPECT_EQ(events[1].placement, "host");
  EXPECT_FALSE(events[2].allocate);
  EXPECT_EQ(events[2].tensor_id, 1u);  // the free of "a"
  EXPECT_EQ(events[3].tensor_id, 3u);
  EXPECT_LE(events[0].timestamp_ns, events[3].timestamp_ns);

  nlohmann::json doc = nlohmann::json::parse(FormatRuntimeTrace({}, true, events));
  EXPECT_EQ(doc["data_version"], 2);
  EXPECT_TRUE(doc["events"].empty());
  EXPECT_EQ(doc["trace_mem"], true);
  ASSERT_EQ(doc["memory_events"].size(), 4u);
  EXPECT_EQ(doc["memory_events"][2]["op"], "free");
  EXPECT_EQ(doc["memory_events"][0]["nc_idx"], 1);
  EXPECT_EQ(doc["memory_events"][1]["nc_idx"], -1);
  EXPECT_EQ(doc["memory_events"][0]["size_bytes"], 4096);
}

TEST(RuntimeTraceTest, WithoutTraceMemNothingIsRecorded) {
  RuntimeTrace trace;
  trace.Begin(/*trace_mem=*/false);
  int a = 0;
  trace.RecordAllocation(&a, "a", "device", 0, 64);
  EXPECT_TRUE(trace.End().empty());
  SysTraceEvent event;
  event.type = SysTraceType::kNrtExecute;
  event.phase = SysTracePhase::kStart;
  nlohmann::json doc = nlohmann::json::parse(FormatRuntimeTrace({&event, 1}, false, {}));
  EXPECT_EQ(doc["events"].size(), 1u);
  EXPECT_EQ(doc["events"][0]["event_type"], "nrt_execute");
  EXPECT_EQ(doc["trace_mem"], false);
  EXPECT_TRUE(doc["memory_events"].empty());
}

}  // namespace
}  // namespace trnsim::runtime::profiling
