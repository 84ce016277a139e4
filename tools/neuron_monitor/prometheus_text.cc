#include "tools/neuron_monitor/prometheus_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace trnsim::neuron_monitor {
namespace {

// Python's repr(float): the shortest digits that round-trip, fixed notation when the decimal
// exponent is in [-4, 16), else "d.ddde+XX" (at least two exponent digits).
std::string PythonRepr(double value) {
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string text(buffer, end);  // "-1.2345e+03"
  std::string sign;
  if (text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const size_t e = text.find('e');
  std::string digits = text.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::atoi(text.c_str() + e + 1);
  const int point = exponent + 1;  // digits before the decimal point
  const int count = static_cast<int>(digits.size());
  if (point > 16 || point <= -4) {
    std::string mantissa = digits.substr(0, 1);
    if (count > 1) mantissa += "." + digits.substr(1);
    const int magnitude = std::abs(exponent);
    return sign + mantissa + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") +
           std::to_string(magnitude);
  }
  if (point <= 0) return sign + "0." + std::string(-point, '0') + digits;
  if (point < count) return sign + digits.substr(0, point) + "." + digits.substr(point);
  return sign + digits + std::string(point - count, '0') + ".0";
}

std::string Escape(const std::string& text, bool quotes) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string SampleLine(const std::string& name, const PrometheusLabels& labels, double value) {
  std::string line = name;
  if (!labels.empty()) {
    PrometheusLabels sorted = labels;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    line += "{";
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) line += ",";
      line += sorted[i].first + "=\"" + Escape(sorted[i].second, true) + "\"";
    }
    line += "}";
  }
  return line + " " + FormatPrometheusValue(value) + "\n";
}

std::string Header(const std::string& name, const std::string& help, const char* type) {
  return "# HELP " + name + " " + Escape(help, false) + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

PrometheusSample& PrometheusFamily::Child(const PrometheusLabels& labels, double now_unix_s) {
  for (PrometheusSample& sample : samples) {
    if (sample.labels == labels) return sample;
  }
  samples.push_back({labels, 0, now_unix_s});
  return samples.back();
}

std::string FormatPrometheusValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  const std::string repr = PythonRepr(value);
  const size_t dot = repr.find('.');
  // prometheus_client's switch to Go's exponent form for large positive values.
  if (value > 0 && dot != std::string::npos && dot > 6) {
    std::string mantissa = repr.substr(0, 1) + "." + repr.substr(1, dot - 1) + repr.substr(dot + 1);
    while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.')) {
      mantissa.pop_back();
    }
    return mantissa + "e+0" + std::to_string(dot - 1);
  }
  return repr;
}

std::string FormatPrometheusText(const std::vector<PrometheusFamily>& families) {
  std::string out;
  for (const PrometheusFamily& family : families) {
    switch (family.type) {
      case PrometheusType::kGauge:
        out += Header(family.name, family.help, "gauge");
        for (const PrometheusSample& s : family.samples) {
          out += SampleLine(family.name, s.labels, s.value);
        }
        break;
      case PrometheusType::kInfo:
        out += Header(family.name + "_info", family.help, "gauge");
        for (const PrometheusSample& s : family.samples) {
          out += SampleLine(family.name + "_info", s.labels, 1.0);
        }
        break;
      case PrometheusType::kCounter:
        out += Header(family.name + "_total", family.help, "counter");
        for (const PrometheusSample& s : family.samples) {
          out += SampleLine(family.name + "_total", s.labels, s.value);
        }
        if (!family.samples.empty()) {
          out += Header(family.name + "_created", family.help, "gauge");
          for (const PrometheusSample& s : family.samples) {
            out += SampleLine(family.name + "_created", s.labels, s.created_unix_s);
          }
        }
        break;
    }
  }
  return out;
}

}  // namespace trnsim::neuron_monitor
