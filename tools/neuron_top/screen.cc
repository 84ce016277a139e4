#include "tools/neuron_top/screen.h"

#include <algorithm>
#include <cstdio>

#include "simulator/spec/instance_spec.h"
#include "tools/neuron_top/core_grid.h"
#include "tools/neuron_top/memory_tree.h"
#include "tools/neuron_top/size_format.h"

namespace trnsim::neuron_top {
namespace {

constexpr int kLabelWidth = 20;    // "Runtime vCPU Usage  "
constexpr int kModelIdWidth = 10;  // tree columns
constexpr int kDeviceMemWidth = 15;
constexpr const char* kLegend =
    "q: quit  arrows: move tree selection  enter: expand/collapse tree item  "
    "x: expand/collapse entire tree  a/d: previous/next tab  f: FLOPS on/off  1-9: select tab";

Line Plain(const std::string& text, Style style = Style::kNormal) { return Line{{{text, style}}}; }

// `fraction` (0..1) of `width` as '|', padded with spaces.
std::string Bar(double fraction, int width) {
  if (width <= 0) return "";
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * width + 0.5);
  return std::string(filled, '|') + std::string(width - filled, ' ');
}

std::string Cell(double value, bool tflops) {
  char text[48];
  if (tflops) {
    std::snprintf(text, sizeof(text), "[%7.3f TF]", value);
  } else {
    std::snprintf(text, sizeof(text), "[%s]", FormatPercent(value, 7).c_str());
  }
  return text;
}

std::string CoreVersion(const observe::InstanceView& view) {
  StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec(view.instance_type);
  if (!spec.ok()) return "";
  return (*spec)->chip->neuroncore_version + (view.lnc == 2 ? "d" : "");
}

void CorePanel(const Sample* previous, const Sample& current, uint64_t tab, bool tflops, int width,
               std::vector<Line>* out) {
  const CoreGrid grid = ComputeCoreGrid(previous, current, tab, tflops);
  char avg[64];
  if (tflops) {
    std::snprintf(avg, sizeof(avg), "TFLOPS (Avg: %.3f)", grid.average);
  } else {
    std::snprintf(avg, sizeof(avg), "Utilization (Avg: %s)", FormatPercent(grid.average).c_str());
  }
  out->push_back(Plain("NeuronCore " + CoreVersion(current.view) + " " + avg, Style::kHeader));
  size_t columns = 0;
  double peak = 0.0;
  for (const std::vector<double>& row : grid.values) {
    columns = std::max(columns, row.size());
    for (double v : row) peak = std::max(peak, v);
  }
  if (columns == 0) return;
  constexpr int kRowLabel = 6;  // "ND15  "
  const int cell_width = std::max((width - kRowLabel) / static_cast<int>(columns), 1);
  const int cell_text = static_cast<int>(Cell(0.0, tflops).size());
  const int bar_width = cell_width - cell_text - 3;  // a space before the value, two after
  std::string header(kRowLabel, ' ');
  for (size_t c = 0; c < columns; ++c) header += Fit("NC" + std::to_string(c), cell_width);
  out->push_back(Plain(header));
  for (size_t d = 0; d < grid.values.size(); ++d) {
    std::string line = Fit("ND" + std::to_string(d), kRowLabel);
    for (double value : grid.values[d]) {
      // Percent bars are of 100 %; TFLOPS bars of the busiest cell.
      const double fraction = tflops ? (peak > 0 ? value / peak : 0.0) : value / 100.0;
      std::string cell = bar_width > 0 ? Bar(fraction, bar_width) + " " : "";
      line += Fit(cell + Cell(value, tflops), cell_width);
    }
    out->push_back(Plain(line));
  }
}

void CpuPanel(const Sample& current, uint64_t tab, int width, std::vector<Line>* out) {
  out->push_back(Plain("vCPU Utilization", Style::kHeader));
  CpuShare runtime;
  for (const observe::ProcessView& process : current.view.processes) {
    if (!InTab(process, tab)) continue;
    auto found = current.process_cpu.find(process.pid);
    if (found == current.process_cpu.end()) continue;
    runtime.user_percent += found->second.user_percent;
    runtime.system_percent += found->second.system_percent;
  }
  auto row = [&](const char* label, const CpuShare& share) {
    char value[64];
    std::snprintf(value, sizeof(value), "[%s, %s]", FormatPercent(share.user_percent, 6).c_str(),
                  FormatPercent(share.system_percent).c_str());
    const int bar_width =
        std::min(width - kLabelWidth - static_cast<int>(std::string(value).size()) - 1, 60);
    const double used = (share.user_percent + share.system_percent) / 100.0;
    out->push_back(
        Plain(Fit(label, kLabelWidth) + (bar_width > 0 ? Bar(used, bar_width) + " " : "") + value));
  };
  row("System vCPU Usage", current.system_cpu);
  row("Runtime vCPU Usage", runtime);
}

void MemorySummary(const observe::InstanceView& view, uint64_t tab, std::vector<Line>* out) {
  out->push_back(Plain("Memory Usage Summary", Style::kHeader));
  // trnsim cannot see a client's host memory: the host row is zeros (docs/tools.md).
  out->push_back(Plain(Fit("Host Used Memory", kLabelWidth) + "Total: 0.0B  Tensors: 0.0B  " +
                       "Constants: 0.0B  DMA Buffers: 0.0B  App. Memory: 0.0B"));
  const DeviceMemoryTotals totals = SumDeviceMemory(view, tab);
  std::string device =
      Fit("Device Used Memory", kLabelWidth) + "Total: " + FormatBytes(totals.total_bytes);
  for (int c = 0; c < kCategories; ++c) {
    device += std::string("  ") + kCategoryNames[c] + ": " + FormatBytes(totals.category_bytes[c]);
  }
  out->push_back(Plain(device));
}

Line TreeLine(const TreeRow& row, bool selected, int name_width) {
  const MemoryNode& node = *row.node;
  std::string marker = node.children.empty() ? "" : row.expanded ? "[-] " : "[+] ";
  std::string text = Fit(std::string(2 * row.depth, ' ') + marker + node.label, name_width) +
                     Fit(node.model_id, kModelIdWidth) +
                     Fit(FormatBytes(node.device_bytes), kDeviceMemWidth) +
                     FormatBytes(node.host_bytes);
  return Plain(text, selected ? Style::kSelectedRow : Style::kNormal);
}

std::vector<Line> BottomLines(const ScreenInput& input, const std::vector<Tab>& tabs,
                              uint64_t tab) {
  Line bar{{{"Neuron Apps ", Style::kBar}}};
  for (size_t i = 0; i < tabs.size(); ++i) {
    const bool selected = tabs[i].session_id == tab;
    std::string text = selected ? ">[" : " [";
    text += std::to_string(i + 1) + "]:" + tabs[i].label;
    text += selected ? "<" : " ";
    bar.spans.push_back({std::move(text), selected ? Style::kSelectedTab : Style::kBar});
  }
  std::string status = input.status;
  if (status.empty() && input.current != nullptr) {
    const observe::InstanceView& view = input.current->view;
    status = view.daemon_address.empty()
                 ? "the configured instance (no TRNSIM_DAEMON): no processes can be seen"
                 : "neurond at " + view.daemon_address;
  }
  return {bar, Plain(kLegend, Style::kBar),
          Plain(status, input.status_is_error ? Style::kError : Style::kNormal)};
}

// Cuts every line to `width` characters (spans past it are dropped or shortened).
void Clip(int width, std::vector<Line>* lines) {
  for (Line& line : *lines) {
    int left = width;
    std::vector<Span> kept;
    for (Span& span : line.spans) {
      if (left <= 0) break;
      if (static_cast<int>(span.text.size()) > left) span.text.resize(left);
      left -= static_cast<int>(span.text.size());
      kept.push_back(std::move(span));
    }
    line.spans = std::move(kept);
  }
}

}  // namespace

std::string Line::Text() const {
  std::string text;
  for (const Span& span : spans) text += span.text;
  return text;
}

std::string Screen::Text() const {
  std::string text;
  for (const Line& line : lines) text += line.Text() + "\n";
  return text;
}

Screen Render(const ScreenInput& input, const UiState& state) {
  const int width = std::max(input.width, 0), height = std::max(input.height, 0);
  std::vector<Line> top;
  std::string title = "neuron-top " + input.version;
  std::vector<Tab> tabs = {{kAllProcesses, "all"}};
  uint64_t tab = kAllProcesses;
  std::vector<MemoryNode> tree;
  if (input.current != nullptr) {
    const observe::InstanceView& view = input.current->view;
    title += " running on " + view.instance_id + " (" + view.instance_type + ")";
    tabs = TabsOf(view);
    tab = CurrentTab(state, view);
    CorePanel(input.previous, *input.current, tab, state.tflops, width, &top);
    CpuPanel(*input.current, tab, width, &top);
    MemorySummary(view, tab, &top);
    tree = BuildMemoryTree(view, tab);
  }
  top.insert(top.begin(), Plain(Fit(title, width), Style::kTitle));
  std::vector<TreeRow> rows;
  if (input.current != nullptr) {
    top.push_back(Plain("Memory Usage Details", Style::kHeader));
    const int name_width = std::clamp(width - kModelIdWidth - kDeviceMemWidth - 12, 24, 48);
    top.push_back(Plain(Fit("", name_width) + Fit("Model ID", kModelIdWidth) +
                        Fit("Device Memory", kDeviceMemWidth) + "Host Memory"));
    rows = VisibleRows(tree, state.expanded);
    size_t selected = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].node->key == state.selected_key) selected = i;
    }
    const int room = height - static_cast<int>(top.size()) - 3;
    if (room > 0) {
      const size_t first = selected >= static_cast<size_t>(room) ? selected + 1 - room : 0;
      for (size_t i = first; i < rows.size() && i < first + room; ++i) {
        top.push_back(TreeLine(rows[i], i == selected, name_width));
      }
    }
  }
  std::vector<Line> bottom = BottomLines(input, tabs, tab);
  Screen screen;
  // The title first: a terminal of fewer than four lines gets it and what fits below it.
  const int bottom_rows = height >= 4 ? 3 : std::max(height - 1, 0);
  const int top_rows = std::min(static_cast<int>(top.size()), height - bottom_rows);
  screen.lines.assign(top.begin(), top.begin() + top_rows);
  // Blank lines keep the bars at the bottom of the terminal.
  while (static_cast<int>(screen.lines.size()) < height - bottom_rows) screen.lines.push_back({});
  screen.lines.insert(screen.lines.end(), bottom.begin(), bottom.begin() + bottom_rows);
  Clip(width, &screen.lines);
  return screen;
}

}  // namespace trnsim::neuron_top
