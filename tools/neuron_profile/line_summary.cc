#include "tools/neuron_profile/line_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "tools/neuron_profile/interval_union.h"
#include "tools/neuron_profile/source_map.h"

namespace trnsim::neuron_profile {
namespace {

// Row order: kernel lines by (file, line), then the builder's row.
using RowKey = std::tuple<bool, std::string, uint64_t>;  // (!from_kernel, file, line)

RowKey KeyOf(const ProfileDocument& profile, int source) {
  if (source < 0) return {true, "", 0};
  const SourceLocation& s = profile.sources[size_t(source)];
  return {false, s.file, s.line};
}

}  // namespace

std::vector<SourceLineSummary> SummarizeSourceLines(const ProfileDocument& profile,
                                                    const ExecutionRecord& x) {
  bool any = false;
  for (const InstructionEvent& t : x.instructions) any = any || t.source >= 0;
  if (!any) return {};
  std::map<RowKey, SourceLineSummary> rows;
  std::map<RowKey, std::set<std::string>> calls;
  // Instructions are in issue order, so each (core, engine) subset is in start order.
  std::map<std::tuple<RowKey, int, int>, IntervalUnion> busy;  // (row, core, engine)
  for (const InstructionEvent& t : x.instructions) {
    const RowKey key = KeyOf(profile, t.source);
    SourceLineSummary& row = rows[key];
    if (t.source >= 0) {
      const SourceLocation& s = profile.sources[size_t(t.source)];
      row.file = s.file;
      row.line = s.line;
      calls[key].insert(s.api);
    } else {
      row.from_kernel = false;
      calls[key].insert(t.opcode);
    }
    row.instructions[t.engine]++;
    row.wait_ps += t.wait_ps;
    busy[{key, t.core, t.engine}].Add(t.start_ps, t.start_ps + t.duration_ps);
  }
  for (const auto& [k, u] : busy) rows[std::get<0>(k)].busy_ps[std::get<2>(k)] += u.total();
  std::map<RowKey, std::vector<std::pair<uint64_t, uint64_t>>> spans;
  for (const DmaEvent& d : x.dmas) {
    const RowKey key = KeyOf(profile, x.instructions[d.instruction].source);
    SourceLineSummary& row = rows[key];
    row.dma_transfers++;
    row.dma_bytes += d.bytes;
    spans[key].push_back({d.start_ps, d.end_ps});
  }
  for (auto& [key, list] : spans) {
    std::sort(list.begin(), list.end());
    IntervalUnion u;
    for (auto [a, b] : list) u.Add(a, b);
    rows[key].dma_streaming_ps = u.total();
  }
  std::vector<SourceLineSummary> out;
  for (auto& [key, row] : rows) {
    row.calls.assign(calls[key].begin(), calls[key].end());
    out.push_back(std::move(row));
  }
  return out;
}

std::string SourceLinesText(const ProfileDocument& profile,
                            const std::vector<SourceLineSummary>& lines) {
  if (lines.empty()) return "";
  std::vector<std::pair<std::string, std::string>> labels;  // (location, calls)
  size_t location_width = 8, calls_width = 8;
  for (const SourceLineSummary& l : lines) {
    std::string location = l.from_kernel ? ShortLocation({l.file, l.line, ""}) : "(builder)";
    std::string calls;
    for (const std::string& c : l.calls) calls += (calls.empty() ? "" : ",") + c;
    location_width = std::max(location_width, location.size());
    calls_width = std::max(calls_width, calls.size());
    labels.push_back({std::move(location), std::move(calls)});
  }
  std::string out = "  source lines (busy us per engine, summed over cores)\n";
  char cell[128];
  std::string header = "    " + std::string("location") + std::string(location_width - 8 + 2, ' ') +
                       "call" + std::string(calls_width - 4 + 1, ' ');
  for (int e = 0; e < isa::kEngineCount; ++e) {
    std::snprintf(cell, sizeof(cell), " %10s", EngineLabel(profile, e).c_str());
    header += cell;
  }
  header += "  instructions   waited us  DMA transfers      DMA bytes     DMA us\n";
  out += header;
  for (size_t i = 0; i < lines.size(); ++i) {
    const SourceLineSummary& l = lines[i];
    std::string row =
        "    " + labels[i].first + std::string(location_width - labels[i].first.size() + 2, ' ') +
        labels[i].second + std::string(calls_width - labels[i].second.size() + 1, ' ');
    uint64_t count = 0;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      std::snprintf(cell, sizeof(cell), " %10.3f", double(l.busy_ps[e]) / 1e6);
      row += cell;
      count += l.instructions[e];
    }
    std::snprintf(cell, sizeof(cell), "  %12llu %11.3f  %13llu %14llu %10.3f\n",
                  (unsigned long long)count, double(l.wait_ps) / 1e6,
                  (unsigned long long)l.dma_transfers, (unsigned long long)l.dma_bytes,
                  double(l.dma_streaming_ps) / 1e6);
    row += cell;
    out += row;
  }
  return out;
}

}  // namespace trnsim::neuron_profile
