// tools/neuron_monitor's report groups from synthetic InstanceViews (the daemon's counters set
// by hand): utilisation from wall-clock busy time, FLOPs per simulated busy second, execution
// counts per period, latency percentiles of the period's executions, and loaded_models with
// their memory by category.
#include "tools/neuron_monitor/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

const std::set<std::string> kRuntimeGroups = {"neuroncore_counters", "execution_stats",
                                              "memory_used"};

observe::InstanceView View() {
  observe::InstanceView view =
      observe::DescribeInstance(**simulator::FindInstanceSpec("trn2.3xlarge"), 2);
  for (int core = 0; core < view.physical_cores_per_device; ++core) {
    view.cores.push_back({.physical_core = core});
  }
  observe::ProcessView process;
  process.session_id = 7;
  process.pid = 4242;
  process.runtime_version = "2.0";
  process.physical_cores = {2, 3};  // logical core 1
  view.processes.push_back(process);
  return view;
}

observe::ExecutionSample Sample(uint64_t wall_ms, uint64_t simulated_us, bool ok = true) {
  return {.finished_ms = 0,
          .wall_ns = wall_ms * 1000000,
          .simulated_ps = simulated_us * 1000000,
          .ok = ok};
}

ordered_json Collect(ReportBuilder* builder, const observe::InstanceView& view, Clock::time_point t,
                     ordered_json* report) {
  builder->Collect(view, kRuntimeGroups, ".*", {}, t, report);
  return (*report)["neuron_runtime_data"][0]["report"];
}

TEST(ReportTest, UtilisationIsWallClockBusyTimeAndFlopsPerSimulatedBusySecond) {
  ReportBuilder builder;
  ordered_json report;
  observe::InstanceView view = View();
  view.cores[2].busy_wall_ns = 5'000'000'000;  // before the first report: not in any period
  const Clock::time_point t0 = Clock::now();
  ordered_json groups = Collect(&builder, view, t0, &report);
  EXPECT_EQ(groups["neuroncore_counters"]["neuroncores_in_use"]["1"]["neuroncore_utilization"],
            0.0);

  view.cores[2].busy_wall_ns += 1'000'000'000;  // 1 s of 2: 50 %
  view.cores[3].busy_wall_ns += 500'000'000;    // 25 %
  view.cores[2].busy_ps += 2'000'000'000;       // 2 ms simulated ...
  view.cores[2].flops += 4'000'000'000;         // ... for 4 GFLOP: 2 TFLOP/s
  view.cores[3].busy_ps += 1'000'000'000;
  view.cores[3].flops += 1'000'000'000;         // 1 TFLOP/s
  view.cores[0].busy_wall_ns += 2'000'000'000;  // not the process's core
  groups = Collect(&builder, view, t0 + std::chrono::seconds(2), &report);
  const ordered_json& nc = groups["neuroncore_counters"]["neuroncores_in_use"];
  ASSERT_EQ(nc.size(), 1u);
  EXPECT_DOUBLE_EQ(nc["1"]["v3d"]["nc_v3.2"]["neuroncore_utilization"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(nc["1"]["v3d"]["nc_v3.3"]["neuroncore_utilization"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(nc["1"]["neuroncore_utilization"].get<double>(), 37.5);
  EXPECT_DOUBLE_EQ(nc["1"]["flops"].get<double>(), 3e12);
  EXPECT_DOUBLE_EQ(groups["neuroncore_counters"]["period"].get<double>(), 2.0);

  // An idle period: no busy time, no FLOPs; utilisation never above 100 %.
  groups = Collect(&builder, view, t0 + std::chrono::seconds(3), &report);
  EXPECT_EQ(groups["neuroncore_counters"]["neuroncores_in_use"]["1"]["flops"], 0.0);
  EXPECT_EQ(groups["neuroncore_counters"]["neuroncores_in_use"]["1"]["neuroncore_utilization"],
            0.0);
  view.cores[2].busy_wall_ns += 3'000'000'000;
  groups = Collect(&builder, view, t0 + std::chrono::seconds(4), &report);
  EXPECT_EQ(groups["neuroncore_counters"]["neuroncores_in_use"]["1"]["v3d"]["nc_v3.2"]
                  ["neuroncore_utilization"],
            100.0);
}

TEST(ReportTest, ExecutionStatsArePerPeriodWithPercentilesOfThePeriodsExecutions) {
  ReportBuilder builder;
  ordered_json report;
  observe::InstanceView view = View();
  observe::ProcessView& process = view.processes[0];
  process.executions = 2;
  process.failed_executions = 1;
  process.execution_statuses = {{0, 1}, {1, 1}};  // one success, one NRT_FAILURE
  process.recent_executions = {Sample(9, 0, false), Sample(7, 70)};
  const Clock::time_point t0 = Clock::now();
  ordered_json stats = Collect(&builder, view, t0, &report)["execution_stats"];
  // The first report: everything since the process attached.
  EXPECT_EQ(stats["execution_summary"]["completed"], 1);
  EXPECT_EQ(stats["execution_summary"]["completed_with_err"], 1);
  EXPECT_EQ(stats["error_summary"]["generic"], 1);
  EXPECT_DOUBLE_EQ(stats["latency_stats"]["total_latency"]["p100"].get<double>(), 9e-3);
  EXPECT_DOUBLE_EQ(stats["latency_stats"]["device_latency"]["p0"].get<double>(), 70e-6);

  // Five more (one failed), finishing with wall times 5, 1, 4, 2, 3 ms.
  process.executions = 7;
  process.failed_executions = 2;
  process.execution_statuses = {{0, 5}, {1, 2}};
  process.recent_executions.push_back(Sample(5, 50));
  process.recent_executions.push_back(Sample(1, 10));
  process.recent_executions.push_back(Sample(4, 0, false));
  process.recent_executions.push_back(Sample(2, 20));
  process.recent_executions.push_back(Sample(3, 30));
  stats = Collect(&builder, view, t0 + std::chrono::seconds(1), &report)["execution_stats"];
  EXPECT_EQ(stats["execution_summary"]["completed"], 4);
  EXPECT_EQ(stats["execution_summary"]["completed_with_err"], 1);
  EXPECT_EQ(stats["error_summary"]["generic"], 1);
  const ordered_json& total = stats["latency_stats"]["total_latency"];
  const std::vector<std::string> keys = {"p0", "p1", "p25", "p50", "p75", "p99", "p100"};
  std::vector<std::string> got;
  for (const auto& [key, value] : total.items()) got.push_back(key);
  EXPECT_EQ(got, keys);
  // Nearest rank over 1..5 ms.
  const double want_total[] = {1e-3, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 5e-3};
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_DOUBLE_EQ(total[keys[i]].get<double>(), want_total[i]) << keys[i];
  }
  // Device latency: the four that succeeded, 10, 20, 30, 50 us.
  const ordered_json& device = stats["latency_stats"]["device_latency"];
  const double want_device[] = {10e-6, 10e-6, 10e-6, 20e-6, 30e-6, 50e-6, 50e-6};
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_DOUBLE_EQ(device[keys[i]].get<double>(), want_device[i]) << keys[i];
  }

  // Nothing ran: zeros and null latencies.
  stats = Collect(&builder, view, t0 + std::chrono::seconds(2), &report)["execution_stats"];
  EXPECT_EQ(stats["execution_summary"]["completed"], 0);
  EXPECT_EQ(stats["execution_summary"]["completed_with_err"], 0);
  EXPECT_TRUE(stats["latency_stats"]["total_latency"].is_null());
  EXPECT_TRUE(stats["latency_stats"]["device_latency"].is_null());
}

// Injected faults (docs/faults.md) as the daemon reports them: executions by status, and the
// per-device memory-error counters, each report counting the period's increase.
TEST(ReportTest, FaultStatusesAndMemoryErrorsFillTheSummariesAndHwCounters) {
  ReportBuilder builder;
  ordered_json report;
  observe::InstanceView view = View();
  observe::ProcessView& process = view.processes[0];
  process.executions = 9;
  process.failed_executions = 7;
  // 2 ok, 2 HBM UE, 1 NC UE, 1 timeout, 1 NQ overflow, 1 collectives, 1 DMA abort.
  process.execution_statuses = {{0, 2}, {1201, 2}, {1202, 1}, {5, 1}, {1204, 1}, {1200, 1},
                                {1203, 1}};
  view.device_errors = {{0, 2, 1, 1}};
  const Clock::time_point t0 = Clock::now();
  auto collect = [&](Clock::time_point t) {
    builder.Collect(view, kRuntimeGroups, ".*", {"neuron_hw_counters"}, t, &report);
    return report["neuron_runtime_data"][0]["report"]["execution_stats"];
  };
  ordered_json stats = collect(t0);
  EXPECT_EQ(stats["execution_summary"]["completed"], 2);
  EXPECT_EQ(stats["execution_summary"]["timed_out"], 1);
  EXPECT_EQ(stats["execution_summary"]["completed_with_err"], 6);
  EXPECT_EQ(stats["error_summary"]["hardware"], 5);
  EXPECT_EQ(stats["error_summary"]["transient"], 1);
  EXPECT_EQ(stats["error_summary"]["runtime"], 1);
  EXPECT_EQ(stats["error_summary"]["generic"], 0);
  const ordered_json& device0 = report["system_data"]["neuron_hw_counters"]["neuron_devices"][0];
  EXPECT_EQ(device0["neuron_device_index"], 0);
  EXPECT_EQ(device0["mem_ecc_uncorrected"], 3);  // 2 unrepairable + 1 repairable
  EXPECT_EQ(device0["sram_ecc_uncorrected"], 1);
  EXPECT_EQ(device0["mem_ecc_corrected"], 0);

  // One more HBM UE in the next period: only it is counted.
  process.executions = 10;
  process.execution_statuses[1201] = 3;
  view.device_errors = {{0, 3, 1, 1}};
  stats = collect(t0 + std::chrono::seconds(1));
  EXPECT_EQ(stats["error_summary"]["hardware"], 1);
  EXPECT_EQ(stats["execution_summary"]["completed"], 0);
  const ordered_json& again = report["system_data"]["neuron_hw_counters"]["neuron_devices"][0];
  EXPECT_EQ(again["mem_ecc_uncorrected"], 1);
  EXPECT_EQ(again["sram_ecc_uncorrected"], 0);
}

TEST(ReportTest, LatencyPercentilesByNearestRank) {
  EXPECT_TRUE(LatencyPercentiles({}).is_null());
  const ordered_json one = LatencyPercentiles({0.25});
  for (const auto& [key, value] : one.items()) EXPECT_EQ(value, 0.25) << key;
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);
  const ordered_json p = LatencyPercentiles(hundred);
  EXPECT_EQ(p["p0"], 1.0);
  EXPECT_EQ(p["p1"], 1.0);
  EXPECT_EQ(p["p25"], 25.0);
  EXPECT_EQ(p["p50"], 50.0);
  EXPECT_EQ(p["p75"], 75.0);
  EXPECT_EQ(p["p99"], 99.0);
  EXPECT_EQ(p["p100"], 100.0);
}

TEST(ReportTest, LoadedModelsWithTheirMemoryByCategory) {
  ReportBuilder builder;
  ordered_json report;
  observe::InstanceView view = View();
  observe::ProcessView& process = view.processes[0];
  process.models.push_back({.model_id = 3,
                            .name = "mlp",
                            .uuid = "0123456789abcdef0123456789abcdef",
                            .device = 0,
                            .physical_cores = {2, 3},
                            .is_running = true});
  process.models.push_back(
      {.model_id = 5, .name = "idle", .uuid = std::string(32, 'a'), .physical_cores = {2, 3}});
  process.memory = {{.hbm = 0, .category = "constants", .bytes = 100, .model_id = 3},
                    {.hbm = 0, .category = "model_code", .bytes = 20, .model_id = 3},
                    {.hbm = 0, .category = "model_code", .bytes = 5, .model_id = 3},
                    {.hbm = 0, .category = "model_shared_scratchpad", .bytes = 7, .model_id = 3},
                    {.hbm = 0, .category = "tensors", .bytes = 50, .model_id = 0},
                    {.hbm = 0, .category = "runtime_memory", .bytes = 9, .model_id = 5}};
  const ordered_json memory = Collect(&builder, view, Clock::now(), &report)["memory_used"];
  EXPECT_EQ(memory["neuron_runtime_used_bytes"]["neuron_device"], 191);
  const ordered_json& models = memory["loaded_models"];
  ASSERT_EQ(models.size(), 2u);
  const ordered_json want = ordered_json::parse(R"({
    "name": "mlp", "uuid": "0123456789abcdef0123456789abcdef", "model_id": 3, "is_running": true,
    "subgraphs": {"sg_00": {
      "memory_used_bytes": {"host": 0, "neuron_device": 125, "usage_breakdown": {
        "host": {"application_memory": 0, "constants": 0, "dma_buffers": 0, "tensors": 0},
        "neuron_device": {"constants": 100, "model_code": 25, "runtime_memory": 0,
                          "tensors": 0}}},
      "neuroncore_index": 1, "neuron_device_index": 0}}})");
  EXPECT_EQ(models[0], want) << models[0].dump(2);
  EXPECT_EQ(models[1]["model_id"], 5);
  EXPECT_EQ(models[1]["is_running"], false);
  EXPECT_EQ(models[1]["subgraphs"]["sg_00"]["memory_used_bytes"]["neuron_device"], 9);
}

}  // namespace
}  // namespace trnsim::neuron_monitor
