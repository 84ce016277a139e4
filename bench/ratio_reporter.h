// RatioReporter: Google Benchmark's console table, then a table of ratios computed from the
// same run. It collects the mean of one rate counter ("bytes_per_second", "items_per_second")
// for every benchmark named "<family>/<arg>" (repetitions averaged); a suite derives from it
// and prints its ratios in PrintRatios(), reading the means with Mean(family, arg). It also
// keeps every benchmark's items_per_second by full name, read with Items(name), for suites that
// report a latency beside their throughput ratios.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trnsim::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter(OutputOptions options, std::string counter)
      : ConsoleReporter(options), counter_(std::move(counter)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      auto items = run.counters.find("items_per_second");
      if (items != run.counters.end()) items_[run.benchmark_name()] = items->second.value;
      auto it = run.counters.find(counter_);
      if (it == run.counters.end()) continue;
      std::string name = run.benchmark_name();
      size_t slash = name.find('/');
      if (slash == std::string::npos) continue;
      int64_t arg = std::strtoll(name.c_str() + slash + 1, nullptr, 10);
      Sum& sum = sums_[{name.substr(0, slash), arg}];
      sum.total += it->second.value;
      ++sum.count;
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    PrintRatios();
    std::fflush(stdout);
  }

 protected:
  virtual void PrintRatios() = 0;

  // The mean counter value of "<family>/<arg>", or 0 when it did not run (filtered out).
  double Mean(const std::string& family, int64_t arg) const {
    auto it = sums_.find({family, arg});
    return it == sums_.end() || it->second.count == 0 ? 0 : it->second.total / it->second.count;
  }

  // The items_per_second of the benchmark named `name` (e.g. "BM_Execute/0/real_time"), or 0
  // when it did not run.
  double Items(const std::string& name) const {
    auto it = items_.find(name);
    return it == items_.end() ? 0 : it->second;
  }

 private:
  struct Sum {
    double total = 0;
    int count = 0;
  };
  std::string counter_;
  std::map<std::pair<std::string, int64_t>, Sum> sums_;
  std::map<std::string, double> items_;
};

}  // namespace trnsim::bench
