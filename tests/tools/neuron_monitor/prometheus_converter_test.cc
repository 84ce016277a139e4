// tools/neuron_monitor's Prometheus side on synthetic reports: the exact exposition of a small
// report (names, help texts, types, sorted labels, prometheus_client's value spelling, counters'
// _created family, info metrics), counters adding each period's counts (a group not collected
// this time is not counted again), runtime metrics
// cleared when no runtime is reported and dropped for a runtime that ended, malformed groups
// skipped with a message, and the value spelling itself.
#include "tools/neuron_monitor/prometheus_converter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "tools/neuron_monitor/prometheus_text.h"

namespace trnsim::neuron_monitor {
namespace {

using nlohmann::ordered_json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

constexpr double kNow = 1700000000.5;  // spelled 1.7000000005e+09

ordered_json Runtime(const std::string& tag, int completed, int failed) {
  return ordered_json::parse(R"({"pid": 42, "address": "", "neuron_runtime_tag": ")" + tag +
                             R"(", "error": "", "report": {
    "neuroncore_counters": {"period": 1.0, "error": "",
      "neuroncores_in_use": {"1": {"neuroncore_utilization": 25.0, "flops": 0, "v3d": {}}}},
    "execution_stats": {"period": 1.0, "error": "",
      "error_summary": {"generic": )" +
                             std::to_string(failed) + R"(, "numerical": 0},
      "execution_summary": {"completed": )" +
                             std::to_string(completed) + R"(, "completed_with_err": )" +
                             std::to_string(failed) + R"(},
      "latency_stats": {"total_latency": {"p0": 0.5, "p100": 2e-05}, "device_latency": null}},
    "memory_used": {"period": 1.0, "error": "", "loaded_models": [],
      "neuron_runtime_used_bytes": {"host": 0, "neuron_device": 12345678, "usage_breakdown": {
        "host": {"application_memory": 0, "constants": 0, "dma_buffers": 0, "tensors": 0},
        "neuroncore_memory_usage": {"1": {"constants": 1, "model_code": 2,
          "model_shared_scratchpad": 3, "runtime_memory": 4, "tensors": 12345668}}}}},
    "neuron_runtime_vcpu_usage": {"period": 1.0, "error": "",
      "vcpu_usage": {"user": 12.5, "system": 0}}}})");
}

ordered_json Report(ordered_json runtimes) {
  ordered_json report = ordered_json::parse(R"({"neuron_runtime_data": [], "system_data": {
    "neuron_hw_counters": {"period": 1, "error": "", "neuron_devices": [{"neuron_device_index": 0,
      "mem_ecc_corrected": 0, "mem_ecc_uncorrected": 0, "sram_ecc_uncorrected": 0,
      "sram_ecc_corrected": 2}]},
    "vcpu_usage": {"period": 1, "error": "", "context_switch_count": 9,
      "average_usage": {"user": 10, "nice": 5, "system": 60, "idle": 0, "io_wait": 30, "irq": 20,
                        "soft_irq": 0},
      "usage_data": {"0": {}, "1": {}}},
    "memory_info": {"period": 1, "error": "", "memory_total_bytes": 16777216000,
      "memory_used_bytes": 1048576, "swap_total_bytes": 0, "swap_used_bytes": 0}},
   "instance_info": {"instance_name": "", "instance_id": "i-0abc", "instance_type": "trn2.3xlarge",
     "instance_availability_zone": "", "instance_availability_zone_id": "", "instance_region": "",
     "ami_id": "", "subnet_id": "", "error": ""},
   "neuron_hardware_info": {"neuron_device_type": "trainium2", "neuron_device_count": 1,
     "neuroncore_per_device_count": 4, "error": ""}})");
  report["neuron_runtime_data"] = std::move(runtimes);
  return report;
}

// The instance labels in sorted order, split where other labels sort in.
const std::string kA =
    R"(availability_zone="",instance_id="i-0abc",instance_name="",instance_type="trn2.3xlarge")";
const std::string kI = kA + R"(,region="",subnet_id="")";
const std::string kR = R"(region="",runtime_tag="42")";
const std::string kS = R"(subnet_id="")";

std::string Help(const std::string& name, const std::string& help, const std::string& type) {
  return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

TEST(PrometheusConverterTest, ExactExpositionOfOneReport) {
  PrometheusConverter converter;
  EXPECT_THAT(converter.Apply(Report(ordered_json::array({Runtime("42", 3, 1)})), kNow), IsEmpty());
  const std::string ecc = "{availability_zone=\"\",event_type=";
  std::string want =
      Help("neuroncore_utilization_ratio", "NeuronCore utilization ratio", "gauge") +
      "neuroncore_utilization_ratio{" + kA + ",neuroncore=\"1\"," + kR + "," + kS + "} 0.25\n" +
      Help("execution_errors_total", "Execution errors total", "counter") +
      "execution_errors_total{" + kA.substr(0, 21) + "error_type=\"generic\"," + kA.substr(21) +
      "," + kR + "," + kS + "} 1.0\n" + "execution_errors_total{" + kA.substr(0, 21) +
      "error_type=\"numerical\"," + kA.substr(21) + "," + kR + "," + kS + "} 0.0\n" +
      Help("execution_errors_created", "Execution errors total", "gauge") +
      "execution_errors_created{" + kA.substr(0, 21) + "error_type=\"generic\"," + kA.substr(21) +
      "," + kR + "," + kS + "} 1.7000000005e+09\n" + "execution_errors_created{" +
      kA.substr(0, 21) + "error_type=\"numerical\"," + kA.substr(21) + "," + kR + "," + kS +
      "} 1.7000000005e+09\n" + Help("execution_status_total", "Execution status total", "counter") +
      "execution_status_total{" + kA + "," + kR + ",status_type=\"completed\"," + kS + "} 3.0\n" +
      "execution_status_total{" + kA + "," + kR + ",status_type=\"completed_with_err\"," + kS +
      "} 1.0\n" + Help("execution_status_created", "Execution status total", "gauge") +
      "execution_status_created{" + kA + "," + kR + ",status_type=\"completed\"," + kS +
      "} 1.7000000005e+09\n" + "execution_status_created{" + kA + "," + kR +
      ",status_type=\"completed_with_err\"," + kS + "} 1.7000000005e+09\n" +
      Help("execution_latency_seconds", "Execution latency in seconds", "gauge") +
      "execution_latency_seconds{" + kA + ",percentile=\"p0\"," + kR + "," + kS + "} 0.5\n" +
      "execution_latency_seconds{" + kA + ",percentile=\"p100\"," + kR + "," + kS + "} 2e-05\n" +
      Help("neuron_runtime_memory_used_bytes", "Runtime memory used bytes", "gauge") +
      "neuron_runtime_memory_used_bytes{" + kA + ",memory_location=\"host\"," + kR + "," + kS +
      "} 0.0\n" + "neuron_runtime_memory_used_bytes{" + kA + ",memory_location=\"neuron_device\"," +
      kR + "," + kS + "} 1.2345678e+07\n";
  const char* categories[][2] = {{"constants", "1.0"},
                                 {"model_code", "2.0"},
                                 {"model_shared_scratchpad", "3.0"},
                                 {"runtime_memory", "4.0"},
                                 {"tensors", "1.2345668e+07"}};
  for (const auto& [category, value] : categories) {
    const std::string name = std::string("neuroncore_memory_usage_") + category;
    want += Help(name, std::string("NeuronCore memory utilization for ") + category, "gauge") +
            name + "{" + kA + ",memory_location=\"None\",neuroncore=\"1\"," + kR + "," + kS + "} " +
            value + "\n";
  }
  want += Help("neuron_runtime_vcpu_usage_ratio", "Runtime vCPU utilization ratio", "gauge") +
          "neuron_runtime_vcpu_usage_ratio{" + kA + "," + kR + "," + kS +
          ",usage_type=\"user\"} 0.125\n" + "neuron_runtime_vcpu_usage_ratio{" + kA + "," + kR +
          "," + kS + ",usage_type=\"system\"} 0.0\n";
  want += Help("hardware_ecc_events_total", "Hardware ecc events total", "counter");
  const char* events[][2] = {{"mem_ecc_corrected", "0.0"},
                             {"mem_ecc_uncorrected", "0.0"},
                             {"sram_ecc_corrected", "2.0"},
                             {"sram_ecc_uncorrected", "0.0"}};
  for (const auto& [event, value] : events) {
    want += "hardware_ecc_events_total" + ecc + "\"" + event + "\"," + kA.substr(21) +
            ",neuron_device_index=\"0\",region=\"\",subnet_id=\"\"} " + value + "\n";
  }
  want += Help("hardware_ecc_events_created", "Hardware ecc events total", "gauge");
  for (const auto& [event, value] : events) {
    want += "hardware_ecc_events_created" + ecc + "\"" + event + "\"," + kA.substr(21) +
            ",neuron_device_index=\"0\",region=\"\",subnet_id=\"\"} 1.7000000005e+09\n";
  }
  want += Help("system_vcpu_count", "System vCPU count", "gauge") + "system_vcpu_count{" + kI +
          "} 2.0\n" + Help("system_vcpu_usage_ratio", "System CPU utilization ratio", "gauge") +
          "system_vcpu_usage_ratio{" + kI + ",usage_type=\"user\"} 0.15\n" +
          "system_vcpu_usage_ratio{" + kI + ",usage_type=\"system\"} 1.0\n" +
          Help("system_memory_total_bytes", "System memory total_bytes bytes", "gauge") +
          "system_memory_total_bytes{" + kI + "} 1.6777216e+010\n" +
          Help("system_memory_used_bytes", "System memory used_bytes bytes", "gauge") +
          "system_memory_used_bytes{" + kI + "} 1.048576e+06\n" +
          Help("system_swap_total_bytes", "System swap total_bytes bytes", "gauge") +
          "system_swap_total_bytes{" + kI + "} 0.0\n" +
          Help("system_swap_used_bytes", "System swap used_bytes bytes", "gauge") +
          "system_swap_used_bytes{" + kI + "} 0.0\n" +
          Help("instance_info", "EC2 instance information", "gauge") + "instance_info{" + kI +
          "} 1.0\n" + Help("neuron_hardware_info", "Neuron Hardware Information", "gauge") +
          "neuron_hardware_info{" + kA +
          ",neuron_device_count=\"1\",neuroncore_per_device_count=\"4\",region=\"\","
          "subnet_id=\"\"} 1.0\n";
  EXPECT_EQ(FormatPrometheusText(converter.families()), want);
}

TEST(PrometheusConverterTest, CountersAddEachPeriodsCountsAndGaugesTakeTheLastValue) {
  PrometheusConverter converter;
  EXPECT_THAT(converter.Apply(Report(ordered_json::array({Runtime("42", 3, 1)})), kNow), IsEmpty());
  ordered_json second = Runtime("42", 2, 0);
  second["report"]["neuroncore_counters"]["neuroncores_in_use"]["1"]["neuroncore_utilization"] =
      50.0;
  EXPECT_THAT(converter.Apply(Report(ordered_json::array({second})), kNow + 1), IsEmpty());
  const std::string text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, HasSubstr("execution_status_total{" + kA + "," + kR +
                              ",status_type=\"completed\"," + kS + "} 5.0\n"));
  EXPECT_THAT(text, HasSubstr("execution_status_total{" + kA + "," + kR +
                              ",status_type=\"completed_with_err\"," + kS + "} 1.0\n"));
  // Created when first set, not at each update.
  EXPECT_THAT(text, HasSubstr("execution_status_created{" + kA + "," + kR +
                              ",status_type=\"completed\"," + kS + "} 1.7000000005e+09\n"));
  EXPECT_THAT(text, HasSubstr("neuroncore_utilization_ratio{" + kA + ",neuroncore=\"1\"," + kR +
                              "," + kS + "} 0.5\n"));
  EXPECT_THAT(text, Not(HasSubstr("} 0.25\n")));
  // The ECC counters add up too (2 per report).
  EXPECT_THAT(text, HasSubstr("event_type=\"sram_ecc_corrected\"," + kA.substr(21) +
                              ",neuron_device_index=\"0\",region=\"\",subnet_id=\"\"} 4.0\n"));
}

TEST(PrometheusConverterTest, RuntimeMetricsClearedWithoutRuntimesAndForEndedOnes) {
  PrometheusConverter converter;
  EXPECT_THAT(converter.Apply(
                  Report(ordered_json::array({Runtime("42", 3, 1), Runtime("43", 1, 0)})), kNow),
              IsEmpty());
  std::string text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, HasSubstr("runtime_tag=\"43\""));

  // Runtime 43 ended: its samples go, 42's stay.
  EXPECT_THAT(converter.Apply(Report(ordered_json::array({Runtime("42", 1, 0)})), kNow + 1),
              IsEmpty());
  text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, Not(HasSubstr("runtime_tag=\"43\"")));
  EXPECT_THAT(text, HasSubstr("runtime_tag=\"42\""));

  // No runtime: every runtime family keeps its HELP/TYPE lines and loses its samples; the
  // system and info metrics stay.
  EXPECT_THAT(converter.Apply(Report(ordered_json::array()), kNow + 2), IsEmpty());
  text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, Not(HasSubstr("runtime_tag=")));
  EXPECT_THAT(text, HasSubstr(Help("neuroncore_utilization_ratio", "NeuronCore utilization ratio",
                                   "gauge") +
                              Help("execution_errors_total", "Execution errors total", "counter") +
                              Help("execution_status_total", "Execution status total", "counter")));
  EXPECT_THAT(text, HasSubstr("system_memory_total_bytes{" + kI + "} 1.6777216e+010\n"));
  EXPECT_THAT(text, HasSubstr("instance_info{" + kI + "} 1.0\n"));

  // A runtime that comes back counts from zero again.
  EXPECT_THAT(converter.Apply(Report(ordered_json::array({Runtime("42", 2, 0)})), kNow + 3),
              IsEmpty());
  text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, HasSubstr("execution_status_total{" + kA + "," + kR +
                              ",status_type=\"completed\"," + kS + "} 2.0\n"));
}

TEST(PrometheusConverterTest, GroupsNotCollectedThisTimeAreNotCountedAgain) {
  const ordered_json full = Report(ordered_json::array({Runtime("42", 3, 1)}));
  const ordered_json only = CollectedGroups(full, {"neuroncore_counters"}, {"memory_info"});
  std::vector<std::string> runtime_groups, system_groups;
  for (const auto& [name, group] : only["neuron_runtime_data"][0]["report"].items()) {
    runtime_groups.push_back(name);
  }
  for (const auto& [name, group] : only["system_data"].items()) system_groups.push_back(name);
  EXPECT_EQ(runtime_groups, std::vector<std::string>{"neuroncore_counters"});
  EXPECT_EQ(system_groups, std::vector<std::string>{"memory_info"});
  EXPECT_EQ(only["instance_info"], full["instance_info"]);

  PrometheusConverter converter;
  EXPECT_THAT(converter.Apply(CollectedGroups(full, {"execution_stats"}, {}), kNow), IsEmpty());
  EXPECT_THAT(converter.Apply(CollectedGroups(full, {"neuroncore_counters"}, {}), kNow + 1),
              IsEmpty());
  const std::string text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, HasSubstr("execution_status_total{" + kA + "," + kR +
                              ",status_type=\"completed\"," + kS + "} 3.0\n"));
  EXPECT_THAT(text, HasSubstr("neuroncore_utilization_ratio{"));
  EXPECT_THAT(text, Not(HasSubstr("system_memory_total_bytes{")));
}

TEST(PrometheusConverterTest, BadGroupsAreSkippedWithAMessage) {
  PrometheusConverter converter;
  EXPECT_THAT(converter.Apply(ordered_json::array(), kNow), SizeIs(1));
  EXPECT_THAT(converter.Apply(ordered_json::object(), kNow), SizeIs(1));  // no instance_info
  ordered_json runtime = Runtime("42", 3, 1);
  runtime["report"]["neuroncore_counters"]["neuroncores_in_use"]["1"]["neuroncore_utilization"] =
      "high";
  runtime["report"]["execution_stats"]["execution_summary"]["completed"] = -1;
  runtime["report"]["memory_used"]["error"] = "cannot read";
  runtime["report"]["neuron_runtime_vcpu_usage"].erase("vcpu_usage");
  ordered_json failed = Runtime("44", 1, 0);
  failed["error"] = "gone";
  ordered_json report = Report(ordered_json::array({runtime, failed}));
  report["system_data"]["memory_info"]["memory_total_bytes"] = nullptr;
  report["system_data"]["neuron_hw_counters"]["neuron_devices"][0]["neuron_device_index"] = "x";
  const std::vector<std::string> messages = converter.Apply(report, kNow);
  EXPECT_THAT(messages, SizeIs(7));
  const std::string text = FormatPrometheusText(converter.families());
  EXPECT_THAT(text, Not(HasSubstr("runtime_tag=\"44\"")));
  EXPECT_THAT(text, HasSubstr("system_vcpu_count{" + kI + "} 2.0\n"));  // good groups applied
}

TEST(PrometheusTextTest, ValuesAreSpelledAsPrometheusClientSpellsThem) {
  const std::pair<double, const char*> cases[] = {
      {0.0, "0.0"},
      {1.0, "1.0"},
      {0.1, "0.1"},
      {0.0001, "0.0001"},
      {1e-05, "1e-05"},
      {2.5e-07, "2.5e-07"},
      {123456.0, "123456.0"},
      {1234567.0, "1.234567e+06"},
      {1e6, "1e+06"},
      {12345678.9, "1.23456789e+07"},
      {1e15, "1e+015"},
      {1e16, "1e+16"},
      {1.5e17, "1.5e+17"},
      {103079215104.0, "1.03079215104e+011"},
      {-5e6, "-5000000.0"},
      {-0.5, "-0.5"},
      {0.029300000000000003, "0.029300000000000003"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
  };
  for (const auto& [value, want] : cases) {
    EXPECT_EQ(FormatPrometheusValue(value), want) << value;
  }
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  PrometheusFamily family{"x", "a\\b\nc", PrometheusType::kGauge, {}};
  family.Child({{"b", "q\"\\\n"}, {"a", "1"}}, 0).value = 2;
  EXPECT_EQ(FormatPrometheusText({family}),
            "# HELP x a\\\\b\\nc\n# TYPE x gauge\nx{a=\"1\",b=\"q\\\"\\\\\\n\"} 2.0\n");
}

}  // namespace
}  // namespace trnsim::neuron_monitor
