// The hardware events one run leaves in the system trace (runtime/profiling/device_events.h):
// device timestamps, the sync point of each physical core, AWS's adjustment formula for
// timestamp_ns, one nc_exec_running per physical core at LNC=2, numerical_err, and the filters.
#include "runtime/profiling/device_events.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace trnsim::runtime::profiling {
namespace {

constexpr uint64_t kSyncCpuNs = 1'700'000'000'123'456'789ull;

class DeviceEventsTest : public ::testing::Test {
 protected:
  void Start(SysTraceConfig config = {}) { ASSERT_TRUE(recorder_.Start(config, 4).ok()); }

  // An LNC=2 run on logical core 1: physical cores 2 and 3 start at 5 µs of device time; core 3
  // is the longer one.
  static DeviceRun Lnc2Run() {
    DeviceRun run;
    run.nc_idx = 1;
    run.exec_id = 9;
    run.model_name = "m";
    run.model_id = 4;
    run.cores = {{2, 5'000'000, 1'234'567}, {3, 5'000'000, 2'000'001}};
    run.duration_ps = 2'000'001;
    run.sync_cpu_ns = kSyncCpuNs;
    return run;
  }

  std::vector<SysTraceEvent> Of(SysTraceType type) {
    std::vector<SysTraceEvent> out;
    for (SysTraceEvent& e : events_) {
      if (e.type == type) out.push_back(e);
    }
    return out;
  }

  SysTraceRecorder recorder_;
  std::vector<SysTraceEvent> events_;
};

TEST_F(DeviceEventsTest, OneSpanPerPhysicalCoreInDeviceTimeMovedByItsSyncPoint) {
  Start();
  RecordDeviceEvents(recorder_, Lnc2Run());
  events_ = recorder_.Drain({});
  std::vector<SysTraceEvent> running = Of(SysTraceType::kNcExecRunning);
  std::vector<SysTraceEvent> syncs = Of(SysTraceType::kTimestampSyncPoint);
  ASSERT_EQ(running.size(), 4u);  // start + stop per physical core
  ASSERT_EQ(syncs.size(), 4u);    // a zero-length span per physical core
  // The run ends at 5 µs + 2,000,001 ps rounded up: 7,001 ns on both cores' clocks.
  const uint64_t sync_nc = 5'000 + 2'001;
  std::map<uint32_t, uint64_t> sync_cpu;
  for (const SysTraceEvent& s : syncs) {
    EXPECT_EQ(s.nc_idx, 1u);
    EXPECT_EQ(s.timestamp_ns, kSyncCpuNs);
    EXPECT_EQ(*s.data.cpu_timestamp_ns, kSyncCpuNs);
    EXPECT_EQ(*s.data.nc_timestamp_ns, sync_nc);
    EXPECT_EQ(*s.data.exec_id, 9u);
    sync_cpu[*s.data.device_core_idx] = *s.data.cpu_timestamp_ns;
  }
  EXPECT_EQ(sync_cpu.size(), 2u);                   // cores 2 and 3
  const uint64_t durations_ns[2] = {1'235, 2'001};  // each core's duration, rounded up
  for (size_t core = 0; core < 2; ++core) {
    const SysTraceEvent& start = running[2 * core];
    const SysTraceEvent& stop = running[2 * core + 1];
    EXPECT_EQ(start.phase, SysTracePhase::kStart);
    EXPECT_EQ(stop.phase, SysTracePhase::kStop);
    EXPECT_EQ(start.tracking_id, stop.tracking_id);
    EXPECT_EQ(*start.data.device_core_idx, 2 + core);
    EXPECT_EQ(*start.data.nc_timestamp_ns, 5'000u);  // both cores start together
    EXPECT_EQ(*stop.data.nc_timestamp_ns - *start.data.nc_timestamp_ns, durations_ns[core]);
    EXPECT_EQ(*stop.data.duration_ps, Lnc2Run().cores[core].duration_ps);
    EXPECT_EQ(*start.data.model_id, 4u);
    EXPECT_EQ(start.data.model_name, "m");
    // adjusted = sync_cpu + (event_device - sync_device)
    EXPECT_EQ(start.timestamp_ns, kSyncCpuNs + 5'000 - sync_nc);
    EXPECT_EQ(stop.timestamp_ns, kSyncCpuNs + 5'000 + durations_ns[core] - sync_nc);
  }
  EXPECT_NE(running[0].tracking_id, running[2].tracking_id);
  EXPECT_TRUE(Of(SysTraceType::kNumericalErr).empty());
}

TEST_F(DeviceEventsTest, NumericalErrorIsAZeroLengthEventAtTheRunsDeviceEnd) {
  Start();
  DeviceRun run = Lnc2Run();
  run.numerical_error = DeviceNumericalError{"out", 3, 1};
  run.worker_gid = 5;
  RecordDeviceEvents(recorder_, run);
  events_ = recorder_.Drain({});
  std::vector<SysTraceEvent> errors = Of(SysTraceType::kNumericalErr);
  ASSERT_EQ(errors.size(), 2u);
  for (const SysTraceEvent& e : errors) {
    EXPECT_EQ(e.data.tensor_name, "out");
    EXPECT_EQ(*e.data.nan_count, 3u);
    EXPECT_EQ(*e.data.inf_count, 1u);
    EXPECT_EQ(*e.data.device_core_idx, 2u);
    EXPECT_EQ(*e.data.nc_timestamp_ns, 7'001u);
    EXPECT_EQ(e.timestamp_ns, kSyncCpuNs);  // at the sync point's device time
    EXPECT_EQ(e.data.worker_gid, 5);
  }
}

TEST_F(DeviceEventsTest, FiltersAndTheFormulaHelpers) {
  SysTraceConfig config;
  ASSERT_TRUE(config.SetCaptureEnabledForEventType("timestamp_sync_point", false).ok());
  Start(config);
  RecordDeviceEvents(recorder_, Lnc2Run());
  events_ = recorder_.Drain({});
  EXPECT_EQ(Of(SysTraceType::kNcExecRunning).size(), 4u);
  EXPECT_TRUE(Of(SysTraceType::kTimestampSyncPoint).empty());
  // The device events are still placed by the sync point the filter dropped.
  EXPECT_EQ(Of(SysTraceType::kNcExecRunning)[1].timestamp_ns, kSyncCpuNs + 6'235 - 7'001);

  EXPECT_EQ(DeviceToHostNs(100, 150, 1'000), 950u);
  EXPECT_EQ(DeviceNs(7'000'000), 7'000u);
  DeviceRun empty;  // no cores: nothing recorded
  RecordDeviceEvents(recorder_, empty);
  EXPECT_TRUE(recorder_.Drain({}).empty());
}

}  // namespace
}  // namespace trnsim::runtime::profiling
