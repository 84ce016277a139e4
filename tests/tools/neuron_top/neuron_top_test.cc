// tools/neuron_top's pure layer on synthetic InstanceViews: size formats, tabs, the core grid
// (utilisation from busy_wall_ns over the period, clamped, logical = mean of physical; TFLOPS =
// flops / busy_ps; process tabs; no previous sample; counters that go down), the memory tree
// (ND -> NC -> model -> categories, sums, model-less memory on its HBM stack's NC, tab filter),
// the keys (tabs, x, Enter, arrows, f, q) and the rendered screen at several sizes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tools/neuron_top/core_grid.h"
#include "tools/neuron_top/memory_tree.h"
#include "tools/neuron_top/screen.h"
#include "tools/neuron_top/size_format.h"
#include "tools/neuron_top/tabs.h"
#include "tools/neuron_top/ui_state.h"
#include "simulator/spec/instance_id.h"

namespace trnsim::neuron_top {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint64_t kSecondNs = 1'000'000'000;

observe::InstanceView View(const char* type, int lnc) {
  return observe::DescribeInstance(**simulator::FindInstanceSpec(type), lnc);
}

observe::ProcessView Process(uint64_t session, int64_t pid, std::vector<int> cores) {
  observe::ProcessView p;
  p.session_id = session;
  p.pid = pid;
  p.command = "client " + std::to_string(pid);
  p.runtime_version = "0.1.0";
  p.physical_cores = std::move(cores);
  return p;
}

observe::ProcessView Observer(uint64_t session) {
  observe::ProcessView p;
  p.session_id = session;
  p.pid = 99;
  p.command = "neuron-top";
  p.is_observer = true;
  return p;
}

// trn2.3xlarge at LNC 2: one device, 8 physical cores, 4 NCs, 2 cores per HBM stack. Process
// 1001 (session 5) holds cores 0-3 and has model 3 "mlp" on cores 2-3 (NC1); process 1002
// (session 6) holds cores 6-7.
observe::InstanceView TwoClients() {
  observe::InstanceView view = View("trn2.3xlarge", 2);
  view.daemon_address = "unix:/tmp/x.sock";
  view.processes.push_back(Observer(4));
  observe::ProcessView a = Process(5, 1001, {0, 1, 2, 3});
  observe::ModelView mlp;
  mlp.model_id = 3;
  mlp.name = "mlp";
  mlp.device = 0;
  mlp.physical_cores = {2, 3};
  a.models.push_back(mlp);
  a.memory.push_back({0, 1, "tensors", 1000, 3});
  a.memory.push_back({0, 1, "constants", 500, 3});
  a.memory.push_back({0, 1, "model_code", 24, 3});
  a.memory.push_back({0, 0, "runtime_memory", 200, 0});
  view.processes.push_back(a);
  observe::ProcessView b = Process(6, 1002, {6, 7});
  b.memory.push_back({0, 3, "tensors", 4096, 0});
  b.memory.push_back({0, 3, "model_shared_scratchpad", 256 * 1024, 0});
  view.processes.push_back(b);
  for (int c = 0; c < 8; ++c) {
    observe::CoreView core;
    core.physical_core = c;
    core.owner_session_id = c < 4 ? 5 : c >= 6 ? 6 : 0;
    view.cores.push_back(core);
  }
  return view;
}

Sample At(const observe::InstanceView& view, uint64_t taken_ns) {
  Sample s;
  s.view = view;
  s.taken_ns = taken_ns;
  return s;
}

TEST(SizeFormatTest, OneDecimalBinaryUnitsUpToGb) {
  EXPECT_EQ(FormatBytes(0), "0.0B");
  EXPECT_EQ(FormatBytes(1023), "1023.0B");
  EXPECT_EQ(FormatBytes(1536), "1.5KB");
  EXPECT_EQ(FormatBytes(256 * 1024), "256.0KB");
  EXPECT_EQ(FormatBytes(3ull << 20), "3.0MB");
  EXPECT_EQ(FormatBytes(static_cast<uint64_t>(17.5 * (1ull << 30))), "17.5GB");
  EXPECT_EQ(FormatBytes(2048ull << 30), "2048.0GB");
  EXPECT_EQ(FormatPercent(56.814), "56.81%");
  EXPECT_EQ(FormatPercent(0.72, 6), " 0.72%");
  EXPECT_EQ(Fit("abc", 5), "abc  ");
  EXPECT_EQ(Fit("abcdef", 3), "abc");
  EXPECT_EQ(Fit("abc", -1), "");
}

TEST(TabsTest, AllThenRuntimeProcessesBySession) {
  const std::vector<Tab> tabs = TabsOf(TwoClients());
  ASSERT_EQ(tabs.size(), 3u);
  EXPECT_EQ(tabs[0].label, "all");
  EXPECT_EQ(tabs[1].label, "1001");
  EXPECT_EQ(tabs[1].session_id, 5u);
  EXPECT_EQ(tabs[2].label, "1002");
  EXPECT_EQ(TabsOf(View("trn2.48xlarge", 1)).size(), 1u);
}

TEST(CoreGridTest, UtilisationIsWallBusyOverPeriodClampedMeanOfPhysicalCores) {
  observe::InstanceView before = TwoClients(), after = TwoClients();
  for (observe::CoreView& c : before.cores) c.busy_wall_ns = 10 * kSecondNs;
  after.cores = before.cores;
  after.cores[0].busy_wall_ns += kSecondNs / 2;  // NC0: (50 + 100) / 2
  after.cores[1].busy_wall_ns += kSecondNs;
  after.cores[2].busy_wall_ns += 3 * kSecondNs;  // NC1: (100 (clamped) + 0) / 2
  after.cores[7].busy_wall_ns += kSecondNs / 4;  // NC3: (0 + 25) / 2
  const Sample s0 = At(before, 5 * kSecondNs), s1 = At(after, 6 * kSecondNs);
  CoreGrid all = ComputeCoreGrid(&s0, s1, kAllProcesses, false);
  ASSERT_EQ(all.values.size(), 1u);
  EXPECT_THAT(all.values[0], ElementsAre(75.0, 50.0, 0.0, 12.5));
  EXPECT_DOUBLE_EQ(all.average, (75.0 + 50.0 + 12.5) / 4);
  CoreGrid a = ComputeCoreGrid(&s0, s1, 5, false);
  EXPECT_THAT(a.values[0], ElementsAre(75.0, 50.0, 0.0, 0.0));
  EXPECT_DOUBLE_EQ(a.average, 62.5);  // over NC0 and NC1, the cores it holds
  CoreGrid b = ComputeCoreGrid(&s0, s1, 6, false);
  EXPECT_THAT(b.values[0], ElementsAre(0.0, 0.0, 0.0, 12.5));
  EXPECT_DOUBLE_EQ(b.average, 12.5);
  // A two-second period halves it.
  const Sample late = At(after, 7 * kSecondNs);
  EXPECT_THAT(ComputeCoreGrid(&s0, late, kAllProcesses, false).values[0],
              ElementsAre(37.5, 50.0, 0.0, 6.25));
  // No previous sample, or counters that went down (a restarted daemon): nothing.
  EXPECT_THAT(ComputeCoreGrid(nullptr, s1, kAllProcesses, false).values[0],
              ElementsAre(0.0, 0.0, 0.0, 0.0));
  EXPECT_THAT(ComputeCoreGrid(&s1, At(before, 8 * kSecondNs), kAllProcesses, false).values[0],
              ElementsAre(0.0, 0.0, 0.0, 0.0));
}

TEST(CoreGridTest, TflopsIsFlopsPerSimulatedPicosecondSummedOverPhysicalCores) {
  observe::InstanceView before = TwoClients(), after = TwoClients();
  after.cores[0].flops = 2'000'000'000'000;  // 2e12 FLOPs in 1e12 ps (1 simulated second)
  after.cores[0].busy_ps = 1'000'000'000'000;
  after.cores[1].flops = 500'000'000'000;  // 0.5e12 FLOPs in 0.5 s
  after.cores[1].busy_ps = 500'000'000'000;
  after.cores[4].flops = 7;  // FLOPs without busy time: did not run, 0
  const Sample s0 = At(before, 0), s1 = At(after, kSecondNs);
  CoreGrid grid = ComputeCoreGrid(&s0, s1, kAllProcesses, true);
  EXPECT_TRUE(grid.tflops);
  EXPECT_THAT(grid.values[0], ElementsAre(3.0, 0.0, 0.0, 0.0));
  EXPECT_DOUBLE_EQ(grid.average, 0.75);
}

TEST(CoreGridTest, EveryDeviceHasARowOfItsLogicalCores) {
  for (int lnc : {1, 2}) {
    observe::InstanceView view = View("trn2.48xlarge", lnc);
    CoreGrid grid = ComputeCoreGrid(nullptr, At(view, 0), kAllProcesses, false);
    ASSERT_EQ(grid.values.size(), 16u);
    for (const auto& row : grid.values) EXPECT_EQ(row.size(), 8u / lnc);
  }
}

TEST(MemoryTreeTest, DeviceNcModelCategoriesWithSums) {
  const observe::InstanceView view = TwoClients();
  const std::vector<MemoryNode> tree = BuildMemoryTree(view, kAllProcesses);
  ASSERT_EQ(tree.size(), 1u);
  const MemoryNode& nd = tree[0];
  EXPECT_EQ(nd.label, "ND 0");
  EXPECT_EQ(nd.device_bytes, 1000u + 500 + 24 + 200 + 4096 + 256 * 1024);
  // NC0-NC1 (process 1001's cores and memory), NC3 (1002's); NC2 is nobody's.
  ASSERT_EQ(nd.children.size(), 3u);
  const MemoryNode& nc0 = nd.children[0];
  EXPECT_EQ(nc0.label, "NC 0");
  EXPECT_EQ(nc0.device_bytes, 200u);  // model-less runtime memory on HBM stack 0
  ASSERT_EQ(nc0.children.size(), 5u);
  EXPECT_EQ(nc0.children[3].label, "Runtime Memory");
  EXPECT_EQ(nc0.children[3].device_bytes, 200u);
  const MemoryNode& nc1 = nd.children[1];
  EXPECT_EQ(nc1.label, "NC 1");
  ASSERT_EQ(nc1.children.size(), 1u);
  const MemoryNode& model = nc1.children[0];
  EXPECT_EQ(model.label, "mlp");
  EXPECT_EQ(model.model_id, "3");
  EXPECT_EQ(model.device_bytes, 1524u);
  EXPECT_EQ(nc1.device_bytes, 1524u);
  std::vector<std::string> labels;
  std::vector<uint64_t> bytes;
  for (const MemoryNode& c : model.children) {
    labels.push_back(c.label);
    bytes.push_back(c.device_bytes);
  }
  EXPECT_THAT(labels, ElementsAre("Tensors", "Constants", "Model Code", "Runtime Memory",
                                  "Model Scratchpad"));
  EXPECT_THAT(bytes, ElementsAre(1000u, 500u, 24u, 0u, 0u));
  const MemoryNode& nc3 = nd.children[2];
  EXPECT_EQ(nc3.label, "NC 3");
  EXPECT_EQ(nc3.device_bytes, 4096u + 256 * 1024);
  EXPECT_EQ(nc3.children[4].device_bytes, 256u * 1024);
  for (const MemoryNode* node : {&nd, &nc0, &nc1, &model, &nc3}) {
    uint64_t sum = 0;
    for (const MemoryNode& c : node->children) sum += c.device_bytes;
    EXPECT_EQ(node->device_bytes, sum) << node->key;
    EXPECT_EQ(node->host_bytes, 0u);
  }

  // A process tab keeps its own NCs only; the summary agrees with the tree.
  const std::vector<MemoryNode> only_b = BuildMemoryTree(view, 6);
  ASSERT_EQ(only_b.size(), 1u);
  ASSERT_EQ(only_b[0].children.size(), 1u);
  EXPECT_EQ(only_b[0].children[0].label, "NC 3");
  const DeviceMemoryTotals totals = SumDeviceMemory(view, kAllProcesses);
  EXPECT_EQ(totals.total_bytes, nd.device_bytes);
  EXPECT_THAT(totals.category_bytes, ElementsAre(5096u, 500u, 24u, 200u, 256u * 1024));
  EXPECT_EQ(SumDeviceMemory(view, 5).total_bytes, 1724u);
  EXPECT_TRUE(BuildMemoryTree(View("trn2.48xlarge", 2), kAllProcesses).empty());
}

TEST(MemoryTreeTest, ModelsOnTheirOwnDeviceAndSessionsKeptApart) {
  observe::InstanceView view = View("trn2.48xlarge", 1);
  for (uint64_t session : {7, 8}) {
    observe::ProcessView p = Process(session, 2000 + session, {9});
    observe::ModelView m;
    m.model_id = 1;  // both runtimes call their first model 1
    m.name = "net" + std::to_string(session);
    m.device = 1;
    m.physical_cores = {9};
    p.models.push_back(m);
    p.memory.push_back({1, 0, "tensors", 10, 1});
    view.processes.push_back(p);
  }
  const std::vector<MemoryNode> tree = BuildMemoryTree(view, kAllProcesses);
  ASSERT_EQ(tree.size(), 1u);
  EXPECT_EQ(tree[0].label, "ND 1");
  ASSERT_EQ(tree[0].children.size(), 1u);
  EXPECT_EQ(tree[0].children[0].label, "NC 1");
  ASSERT_EQ(tree[0].children[0].children.size(), 2u);
  EXPECT_EQ(tree[0].children[0].children[0].label, "net7");
  EXPECT_EQ(tree[0].children[0].children[1].label, "net8");
  EXPECT_EQ(tree[0].device_bytes, 20u);
}

TEST(UiStateTest, ExpandCollapseAndMoveTheSelection) {
  const observe::InstanceView view = TwoClients();
  const std::vector<MemoryNode> tree = BuildMemoryTree(view, kAllProcesses);
  UiState state;
  EXPECT_EQ(VisibleRows(tree, state.expanded).size(), 1u);  // ND 0, collapsed
  ApplyKey('x', view, &state);
  std::vector<TreeRow> rows = VisibleRows(tree, state.expanded);
  // ND 0, NC 0 + 5 categories, NC 1, mlp + 5 categories, NC 3 + 5 categories.
  EXPECT_EQ(rows.size(), 1u + 6 + 1 + 6 + 6);
  EXPECT_TRUE(rows[0].expanded);
  ApplyKey('x', view, &state);
  EXPECT_EQ(VisibleRows(tree, state.expanded).size(), 1u);

  ApplyKey(kKeyEnter, view, &state);  // the first row, ND 0
  rows = VisibleRows(tree, state.expanded);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].node->label, "NC 1");
  ApplyKey(kKeyDown, view, &state);
  ApplyKey(kKeyDown, view, &state);
  EXPECT_EQ(state.selected_key, "nd0/nc1");
  ApplyKey(kKeyEnter, view, &state);
  rows = VisibleRows(tree, state.expanded);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[3].node->label, "mlp");
  EXPECT_EQ(rows[3].depth, 2);
  ApplyKey(kKeyLeft, view, &state);
  EXPECT_EQ(VisibleRows(tree, state.expanded).size(), 4u);
  for (int i = 0; i < 10; ++i) ApplyKey(kKeyDown, view, &state);
  EXPECT_EQ(state.selected_key, "nd0/nc3");  // stops at the last row
  for (int i = 0; i < 10; ++i) ApplyKey(kKeyUp, view, &state);
  EXPECT_EQ(state.selected_key, "nd0");
  ApplyKey('?', view, &state);
  EXPECT_EQ(state.selected_key, "nd0");
  EXPECT_FALSE(state.quit);
  ApplyKey('q', view, &state);
  EXPECT_TRUE(state.quit);
}

TEST(UiStateTest, TabKeysAndAVanishedProcess) {
  observe::InstanceView view = TwoClients();
  UiState state;
  ApplyKey('2', view, &state);
  EXPECT_EQ(state.tab_session_id, 5u);
  ApplyKey('d', view, &state);
  EXPECT_EQ(state.tab_session_id, 6u);
  ApplyKey('d', view, &state);  // already the last
  EXPECT_EQ(state.tab_session_id, 6u);
  ApplyKey('a', view, &state);
  ApplyKey('a', view, &state);
  ApplyKey('a', view, &state);
  EXPECT_EQ(state.tab_session_id, kAllProcesses);
  ApplyKey('4', view, &state);  // no fourth tab
  EXPECT_EQ(state.tab_session_id, kAllProcesses);
  ApplyKey('3', view, &state);
  EXPECT_EQ(CurrentTab(state, view), 6u);
  view.processes.pop_back();  // process 1002 ended
  EXPECT_EQ(CurrentTab(state, view), kAllProcesses);
  ApplyKey('f', view, &state);
  EXPECT_TRUE(state.tflops);
  ApplyKey('F', view, &state);
  EXPECT_FALSE(state.tflops);
}

// Every line of `screen`.
std::vector<std::string> Lines(const Screen& screen) {
  std::vector<std::string> lines;
  for (const Line& line : screen.lines) lines.push_back(line.Text());
  return lines;
}

bool HasLine(const Screen& screen, const std::string& prefix) {
  for (const std::string& line : Lines(screen)) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

ScreenInput Input(const Sample* previous, const Sample* current, int width, int height) {
  ScreenInput input;
  input.previous = previous;
  input.current = current;
  input.version = "0.1.0";
  input.width = width;
  input.height = height;
  return input;
}

TEST(ScreenTest, TitlePanelsAndTabBar) {
  observe::InstanceView before = TwoClients(), after = TwoClients();
  after.cores[0].busy_wall_ns = kSecondNs;
  after.cores[1].busy_wall_ns = kSecondNs;
  const Sample s0 = At(before, 0), s1 = At(after, kSecondNs);
  UiState state;
  const Screen screen = Render(Input(&s0, &s1, 200, 60), state);
  const std::vector<std::string> lines = Lines(screen);
  ASSERT_EQ(lines.size(), 60u);
  for (const std::string& line : lines) EXPECT_LE(line.size(), 200u);
  EXPECT_THAT(lines[0], HasSubstr("neuron-top 0.1.0 running on " +
                                  simulator::EmulatedInstanceId("trn2.3xlarge") + " (trn2.3xlarge)"));
  EXPECT_EQ(screen.lines[0].spans[0].style, Style::kTitle);
  EXPECT_EQ(lines[1], "NeuronCore v3d Utilization (Avg: 25.00%)");
  EXPECT_THAT(lines[2], HasSubstr("NC0"));
  EXPECT_THAT(lines[2], HasSubstr("NC3"));
  EXPECT_THAT(lines[3], ::testing::StartsWith("ND0"));
  EXPECT_THAT(lines[3], HasSubstr("|||| [100.00%]"));
  EXPECT_THAT(lines[3], HasSubstr("[  0.00%]"));
  EXPECT_TRUE(HasLine(screen, "vCPU Utilization"));
  EXPECT_TRUE(HasLine(screen, "System vCPU Usage"));
  EXPECT_TRUE(HasLine(screen, "Runtime vCPU Usage"));
  EXPECT_TRUE(HasLine(screen, "Host Used Memory    Total: 0.0B"));
  EXPECT_TRUE(HasLine(screen, "Device Used Memory  Total: 261.7KB  Tensors: 5.0KB"));
  EXPECT_TRUE(HasLine(screen, "[+] ND 0"));
  EXPECT_THAT(lines[57], HasSubstr("Neuron Apps >[1]:all< [2]:1001  [3]:1002 "));
  EXPECT_THAT(lines[58], HasSubstr("f: FLOPS on/off"));
  EXPECT_THAT(lines[59], HasSubstr("neurond at unix:/tmp/x.sock"));
  bool green = false;
  for (const Span& span : screen.lines[57].spans) {
    green |= span.style == Style::kSelectedTab && span.text == ">[1]:all<";
  }
  EXPECT_TRUE(green);

  state.tflops = true;
  state.tab_session_id = 6;
  const Screen flops = Render(Input(&s0, &s1, 200, 60), state);
  EXPECT_EQ(Lines(flops)[1], "NeuronCore v3d TFLOPS (Avg: 0.000)");
  EXPECT_THAT(Lines(flops)[57], HasSubstr(">[3]:1002<"));
  EXPECT_TRUE(HasLine(flops, "Device Used Memory  Total: 260.0KB"));
}

TEST(ScreenTest, RuntimeVcpuSumsTheTabsProcessesAndErrorsShow) {
  Sample s = At(TwoClients(), 0);
  s.system_cpu = {0.72, 9.13};
  s.process_cpu[1001] = {10.0, 1.0};
  s.process_cpu[1002] = {5.5, 2.0};
  UiState state;
  ScreenInput input = Input(nullptr, &s, 120, 40);
  input.status = "neurond at unix:/x is unreachable";
  input.status_is_error = true;
  Screen screen = Render(input, state);
  std::vector<std::string> lines = Lines(screen);
  auto line_of = [&](const std::string& prefix) {
    for (const std::string& l : lines) {
      if (l.rfind(prefix, 0) == 0) return l;
    }
    return std::string();
  };
  EXPECT_THAT(line_of("System vCPU Usage"), HasSubstr("[ 0.72%, 9.13%]"));
  EXPECT_THAT(line_of("Runtime vCPU Usage"), HasSubstr("[15.50%, 3.00%]"));
  EXPECT_EQ(lines.back(), "neurond at unix:/x is unreachable");
  EXPECT_EQ(screen.lines.back().spans[0].style, Style::kError);
  state.tab_session_id = 5;
  lines = Lines(Render(input, state));
  EXPECT_THAT(line_of("Runtime vCPU Usage"), HasSubstr("[10.00%, 1.00%]"));
}

TEST(ScreenTest, ExpandedTreeScrollsToTheSelection) {
  const Sample s = At(TwoClients(), 0);
  UiState state;
  ApplyKey('x', s.view, &state);
  for (int i = 0; i < 19; ++i) ApplyKey(kKeyDown, s.view, &state);  // the last row
  const Screen screen = Render(Input(nullptr, &s, 100, 24), state);
  ASSERT_EQ(screen.lines.size(), 24u);
  bool selected_drawn = false;
  for (const Line& line : screen.lines) {
    if (!line.spans.empty() && line.spans[0].style == Style::kSelectedRow) {
      selected_drawn = true;
      EXPECT_THAT(line.Text(), HasSubstr("Model Scratchpad"));
      EXPECT_THAT(line.Text(), HasSubstr("256.0KB"));
    }
  }
  EXPECT_TRUE(selected_drawn);
  EXPECT_FALSE(HasLine(screen, "[-] ND 0"));  // scrolled off
  const Screen tall = Render(Input(nullptr, &s, 100, 60), state);
  EXPECT_TRUE(HasLine(tall, "[-] ND 0"));
  EXPECT_TRUE(HasLine(tall, "  [-] NC 1"));
  EXPECT_TRUE(HasLine(tall, "    [-] mlp"));
  EXPECT_THAT(Lines(tall), ::testing::Contains(HasSubstr("      Tensors")));
}

TEST(ScreenTest, AnySizeFitsIncludingTiny) {
  const Sample s0 = At(TwoClients(), 0), s1 = At(TwoClients(), kSecondNs);
  UiState state;
  ApplyKey('x', s1.view, &state);
  for (int width : {0, 1, 5, 20, 39, 80, 300}) {
    for (int height : {0, 1, 2, 3, 4, 7, 12, 24}) {
      for (const Sample* current : {static_cast<const Sample*>(nullptr), &s1}) {
        const Screen screen = Render(Input(&s0, current, width, height), state);
        EXPECT_EQ(static_cast<int>(screen.lines.size()), height);
        for (const Line& line : screen.lines) {
          EXPECT_LE(static_cast<int>(line.Text().size()), width);
        }
      }
    }
  }
  // No snapshot yet: the title and the status line.
  ScreenInput input = Input(nullptr, nullptr, 80, 10);
  input.status = "taking the first snapshot...";
  const Screen waiting = Render(input, state);
  EXPECT_THAT(Lines(waiting)[0], ::testing::StartsWith("neuron-top 0.1.0 "));
  EXPECT_EQ(Lines(waiting)[9], "taking the first snapshot...");
  EXPECT_THAT(Lines(waiting)[7], HasSubstr(">[1]:all<"));
  EXPECT_THAT(Lines(waiting)[0], Not(HasSubstr("running on")));
}

}  // namespace
}  // namespace trnsim::neuron_top
