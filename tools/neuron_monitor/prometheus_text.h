// Prometheus metric families and their text exposition format 0.0.4, written as the Python
// prometheus_client library writes them (the library AWS's neuron-monitor-prometheus.py serves
// its metrics with), so that a scrape of neuron-monitor reads like a scrape of AWS's exporter:
//  - each family: "# HELP <name> <help>" and "# TYPE <name> <type>", then one line per sample,
//    `name{label="value",...} value`, labels sorted by name, values in Go's float spelling as
//    prometheus_client writes it (FormatPrometheusValue);
//  - a counter named "x" is exposed as "x_total" (type counter) followed by a gauge family
//    "x_created" holding each sample's creation time (Unix seconds);
//  - an info metric named "x" is exposed as the gauge "x_info", value 1;
//  - a family without samples still prints its HELP and TYPE lines.
// Label values escape backslash, double quote and newline; help texts backslash and newline.
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace trnsim::neuron_monitor {

using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

enum class PrometheusType { kGauge, kCounter, kInfo };

struct PrometheusSample {
  PrometheusLabels labels;  // in the order the metric declares them
  double value = 0;
  double created_unix_s = 0;  // counters only: when the sample was first set
};

struct PrometheusFamily {
  std::string name;  // without the _total / _info suffix the exposition adds
  std::string help;
  PrometheusType type = PrometheusType::kGauge;
  std::vector<PrometheusSample> samples;  // in creation order

  // The sample with exactly these labels, created (value 0, created at `now_unix_s`) if absent.
  PrometheusSample& Child(const PrometheusLabels& labels, double now_unix_s);
};

// The exposition of `families`, in order.
std::string FormatPrometheusText(const std::vector<PrometheusFamily>& families);

// `value` as prometheus_client writes it: Python's repr of the float ("0.0", "0.25", "1e-05"),
// except that a positive value with more than six digits before the point switches to an
// exponent the way the library does ("8.033951744e+09", and "1.03079215104e+011": "e+0" then the
// exponent); "+Inf", "-Inf", "NaN".
std::string FormatPrometheusValue(double value);

}  // namespace trnsim::neuron_monitor
