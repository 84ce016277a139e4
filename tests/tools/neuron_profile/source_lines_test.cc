// Kernel source lines in neuron-profile's views (source_map.h, line_summary.h): the
// kernel_debug_info.json member is parsed and checked, read from a NEFF the kernel builder
// wrote, attached to the instructions a profile ran (physical core -> subgraph, opcode check,
// other models' executions left alone), summed per line, and shown in every view.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/neuron_profile/line_summary.h"
#include "tools/neuron_profile/source_map.h"
#include "tools/neuron_profile/summary.h"
#include "tools/neuron_profile/trace_views.h"

namespace trnsim::neuron_profile {
namespace {

using Json = nlohmann::json;

const std::vector<std::string> kEngines = {"pe", "act", "dve", "pool", "sp"};
constexpr int kPe = 0, kDve = 2, kSp = 4;

std::string Entry(int core, const char* engine, int index, const char* opcode, const char* api,
                  int line) {
  return Json{{"core", core}, {"engine", engine},   {"index", index}, {"opcode", opcode},
              {"api", api},   {"file", "/k/mm.py"}, {"line", line}}
      .dump();
}

// A matmul kernel's debug info: two dma_copy at line 10, load_stationary + multiply_moving at
// line 12 (one call), a tensor_copy at 14, on `cores` subgraphs.
std::string MatmulInfo(int cores) {
  std::string list;
  for (int c = 0; c < cores; ++c) {
    for (const std::string& e : {Entry(c, "sp", 0, "dma_copy", "nisa.dma_copy", 10),
                                 Entry(c, "sp", 1, "dma_copy", "nisa.dma_copy", 10),
                                 Entry(c, "pe", 0, "load_stationary", "nisa.nc_matmul", 12),
                                 Entry(c, "pe", 1, "multiply_moving", "nisa.nc_matmul", 12),
                                 Entry(c, "dve", 2, "tensor_copy", "nisa.tensor_copy", 14)}) {
      list += (list.empty() ? "" : ",") + e;
    }
  }
  return "{\"kernel\":\"mm\",\"instructions\":[" + list + "]}";
}

InstructionEvent Inst(int core, int engine, uint64_t pc, const char* opcode, uint64_t start_ps,
                 uint64_t duration_ps, uint64_t wait_ps = 0) {
  InstructionEvent t;
  t.core = core;
  t.engine = engine;
  t.pc = pc;
  t.opcode = opcode;
  t.start_ps = start_ps;
  t.duration_ps = duration_ps;
  t.wait_ps = wait_ps;
  return t;
}

// What the matmul kernel ran on physical cores `first` and `first + 1` (an LNC=2 logical core),
// in issue order; DVE has two sem_waits before its tensor_copy (pc 2), and the builder's
// notify_end ends SP.
ExecutionRecord MatmulRun(int first, const std::string& model = "mm") {
  ExecutionRecord x;
  x.model_name = model;
  for (int c = first; c < first + 2; ++c) {
    x.instructions.push_back(Inst(c, kSp, 0, "dma_copy", 0, 600));
    x.instructions.push_back(Inst(c, kSp, 1, "dma_copy", 600, 600));
    x.instructions.push_back(Inst(c, kPe, 0, "load_stationary", 2000, 400, 2000));
    x.instructions.push_back(Inst(c, kPe, 1, "multiply_moving", 2200, 1000));  // overlaps
    x.instructions.push_back(Inst(c, kDve, 0, "sem_wait", 0, 10));
    x.instructions.push_back(Inst(c, kDve, 1, "sem_wait", 10, 10));
    x.instructions.push_back(Inst(c, kDve, 2, "tensor_copy", 3200, 300, 3180));
    x.instructions.push_back(Inst(c, kSp, 2, "notify_end", 1200, 5));
    DmaEvent a, b;
    a.core = b.core = c;
    a.bytes = 1000;
    b.bytes = 3000;
    a.start_ps = 100, a.end_ps = 900;  // the two loads overlap: streaming 100..1500
    b.start_ps = 700, b.end_ps = 1500;
    a.source = b.source = "hbm";
    a.destination = b.destination = "sbuf";
    a.instruction = x.instructions.size() - 8;
    b.instruction = x.instructions.size() - 7;
    x.dmas.push_back(a);
    x.dmas.push_back(b);
  }
  return x;
}

ProfileDocument MatmulProfile(int first_core) {
  ProfileDocument p;
  p.version = 1;
  p.model_name = "mm";
  p.engines = kEngines;
  p.executions.push_back(MatmulRun(first_core));
  return p;
}

TEST(SourceMapTest, ParsesEntriesAndSharesSources) {
  KernelDebugInfo info = ParseKernelDebugInfo("k.neff", MatmulInfo(2), kEngines, 2).value();
  EXPECT_EQ(info.kernel, "mm");
  EXPECT_EQ(info.model_name, "mm");
  EXPECT_EQ(info.entries.size(), 10u);
  ASSERT_EQ(info.sources.size(), 3u);  // (10, dma_copy), (12, nc_matmul), (14, tensor_copy)
  const auto& mm = info.entries.at({1, kPe, 1});
  EXPECT_EQ(mm.opcode, "multiply_moving");
  EXPECT_EQ(info.sources[size_t(mm.source)].line, 12u);
  EXPECT_EQ(info.sources[size_t(mm.source)].api, "nisa.nc_matmul");
  EXPECT_EQ(ShortLocation(info.sources[size_t(mm.source)]), "mm.py:12");
}

TEST(SourceMapTest, RefusesMalformedMembers) {
  const std::string ok = Entry(0, "pe", 0, "load_stationary", "nisa.nc_matmul", 3);
  struct Case {
    std::string text, message;
  } cases[] = {
      {"not json", "not a JSON document"},
      {"[]", "expected an object"},
      {"{\"instructions\":[]}", "kernel: missing"},
      {"{\"kernel\":\"k\"}", "instructions: missing"},
      {"{\"kernel\":\"k\",\"instructions\":{}}", "expected an array"},
      {"{\"kernel\":\"k\",\"instructions\":[1]}", "instructions[0]: expected an object"},
      {"{\"kernel\":\"k\",\"instructions\":[" + Entry(1, "pe", 0, "x", "a", 1) + "]}",
       "instructions[0].core: 1 is out of range"},
      {"{\"kernel\":\"k\",\"instructions\":[" + Entry(0, "gpu", 0, "x", "a", 1) + "]}",
       "\"gpu\" is not an engine"},
      {"{\"kernel\":\"k\",\"instructions\":[" + Entry(0, "pe", -1, "x", "a", 1) + "]}",
       "index: expected an unsigned integer"},
      {"{\"kernel\":\"k\",\"instructions\":[" + ok + "," + ok + "]}",
       "instructions[1]: a second entry for sg0 pe[0]"},
      {"{\"kernel\":\"k\",\"instructions\":[{\"core\":0,\"engine\":\"pe\",\"index\":0,"
       "\"opcode\":\"x\",\"api\":\"a\",\"file\":\"f\",\"line\":99999999999}]}",
       "line: 99999999999 is out of range"},
      {"{\"kernel\":\"k\",\"instructions\":[{\"core\":0,\"engine\":\"pe\",\"index\":0,"
       "\"opcode\":\"x\",\"api\":\"a\",\"file\":7,\"line\":1}]}",
       "file: expected a string"},
  };
  for (const Case& c : cases) {
    StatusOr<KernelDebugInfo> info = ParseKernelDebugInfo("k.neff", c.text, kEngines, 1);
    ASSERT_FALSE(info.ok()) << c.text;
    EXPECT_EQ(info.status().code(), StatusCode::kInvalid);
    EXPECT_NE(info.status().message().find("k.neff kernel_debug_info.json"), std::string::npos);
    EXPECT_NE(info.status().message().find(c.message), std::string::npos)
        << info.status().message();
  }
}

TEST(SourceMapTest, CorruptedMembersNeverCrash) {
  const std::string good = MatmulInfo(2);
  std::mt19937 rng(17);
  for (int round = 0; round < 2000; ++round) {
    std::string text = good;
    const int edits = 1 + int(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = char(rng() % 256);
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, "{}[]\":,0-9e"[rng() % 12]);
          break;
      }
      if (text.empty()) text = "{";
    }
    StatusOr<KernelDebugInfo> info = ParseKernelDebugInfo("k.neff", text, kEngines, 2);
    if (!info.ok()) {
      EXPECT_EQ(info.status().code(), StatusCode::kInvalid) << text;
      continue;
    }
    ProfileDocument p = MatmulProfile(0);  // whatever parsed attaches or refuses, never crashes
    Status st = AttachSources(*info, &p);
    EXPECT_TRUE(st.ok() || st.code() == StatusCode::kInvalid);
  }
}

TEST(SourceMapTest, AttachesByPhysicalCoreModuloSubgraphs) {
  KernelDebugInfo info = ParseKernelDebugInfo("k.neff", MatmulInfo(2), kEngines, 2).value();
  ProfileDocument p = MatmulProfile(/*first_core=*/2);  // logical core 1 of LNC=2: physical 2 and 3
  ASSERT_TRUE(AttachSources(info, &p).ok());
  ASSERT_EQ(p.sources.size(), 3u);
  for (const InstructionEvent& t : p.executions[0].instructions) {
    if (t.opcode == "sem_wait" || t.opcode == "notify_end") {
      EXPECT_EQ(t.source, -1) << t.opcode;
      continue;
    }
    ASSERT_GE(t.source, 0) << t.opcode;
    const uint64_t want = t.engine == kSp ? 10 : t.engine == kPe ? 12 : 14;
    EXPECT_EQ(p.sources[size_t(t.source)].line, want) << t.opcode;
  }
}

TEST(SourceMapTest, LeavesOtherModelsAloneAndRefusesAnotherNeff) {
  KernelDebugInfo info = ParseKernelDebugInfo("k.neff", MatmulInfo(2), kEngines, 2).value();
  ProfileDocument p = MatmulProfile(0);
  p.executions.push_back(MatmulRun(0, "other_model"));
  ASSERT_TRUE(AttachSources(info, &p).ok());
  for (const InstructionEvent& t : p.executions[1].instructions) EXPECT_EQ(t.source, -1);
  EXPECT_GE(p.executions[0].instructions[0].source, 0);

  // A NEFF whose instructions are not the ones that ran: refused, and nothing attached.
  ProfileDocument q = MatmulProfile(0);
  q.executions[0].instructions[3].opcode = "load_stationary";  // pc 1 of PE on core 0
  StatusOr<KernelDebugInfo> same = ParseKernelDebugInfo("k.neff", MatmulInfo(2), kEngines, 2);
  Status st = AttachSources(*same, &q);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("says sg0 pe[1] is multiply_moving, but execution 0 ran "
                              "load_stationary there: the NEFF is not the one profiled"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(q.sources.empty());
  for (const InstructionEvent& t : q.executions[0].instructions) EXPECT_EQ(t.source, -1);
}

TEST(LineSummaryTest, SumsEachLinePerEngineOverCores) {
  ProfileDocument p = MatmulProfile(0);
  ASSERT_TRUE(
      AttachSources(ParseKernelDebugInfo("k", MatmulInfo(2), kEngines, 2).value(), &p).ok());
  std::vector<SourceLineSummary> lines = SummarizeSourceLines(p, p.executions[0]);
  ASSERT_EQ(lines.size(), 4u);  // lines 10, 12, 14, then the builder's row
  EXPECT_EQ(lines[0].line, 10u);
  EXPECT_EQ(lines[0].busy_ps[kSp], 2u * 1200);  // two cores, 2 x 600 each
  EXPECT_EQ(lines[0].instructions[kSp], 4u);
  EXPECT_EQ(lines[0].dma_transfers, 4u);
  EXPECT_EQ(lines[0].dma_bytes, 8000u);
  EXPECT_EQ(lines[0].dma_streaming_ps, 1400u);  // both cores' transfers at the same times
  EXPECT_EQ(lines[1].line, 12u);
  EXPECT_EQ(lines[1].calls, std::vector<std::string>{"nisa.nc_matmul"});
  EXPECT_EQ(lines[1].busy_ps[kPe], 2u * 1200);  // union of [2000, 2400) and [2200, 3200)
  EXPECT_EQ(lines[1].wait_ps, 2u * 2000);
  EXPECT_EQ(lines[1].dma_transfers, 0u);
  EXPECT_EQ(lines[2].busy_ps[kDve], 2u * 300);
  EXPECT_FALSE(lines[3].from_kernel);
  EXPECT_EQ(lines[3].calls, (std::vector<std::string>{"notify_end", "sem_wait"}));
  EXPECT_EQ(lines[3].busy_ps[kDve], 2u * 20);
  EXPECT_EQ(lines[3].busy_ps[kSp], 2u * 5);
  // Without sources there is no per-line summary.
  EXPECT_TRUE(SummarizeSourceLines(p, MatmulRun(0)).empty());
}

TEST(LineSummaryTest, EveryViewNamesTheLines) {
  ProfileDocument plain = MatmulProfile(0);
  ProfileDocument p = MatmulProfile(0);
  ASSERT_TRUE(
      AttachSources(ParseKernelDebugInfo("k", MatmulInfo(2), kEngines, 2).value(), &p).ok());

  Json summary = Json::parse(SummaryJson(p));
  const Json& lines = summary["executions"][0]["source_lines"];
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1]["file"], "/k/mm.py");
  EXPECT_EQ(lines[1]["line"], 12);
  EXPECT_EQ(lines[1]["location"], "mm.py:12");
  EXPECT_EQ(lines[1]["engines"]["pe"]["busy_ps"], 2400);
  EXPECT_EQ(lines[0]["dma"]["bytes"], 8000);
  EXPECT_EQ(lines[3]["from_kernel"], false);
  EXPECT_FALSE(lines[3].contains("file"));
  // The rest of the summary is what it is without sources.
  Json before = Json::parse(SummaryJson(plain));
  EXPECT_FALSE(before["executions"][0].contains("source_lines"));
  summary["executions"][0].erase("source_lines");
  EXPECT_EQ(summary, before);

  const std::string text = SummaryText(p);
  EXPECT_NE(text.find("source lines"), std::string::npos);
  const size_t row = text.find("\n    mm.py:12 ");
  ASSERT_NE(row, std::string::npos) << text;
  EXPECT_NE(text.substr(row, text.find('\n', row + 1) - row).find(" nisa.nc_matmul "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(builder)"), std::string::npos);
  EXPECT_EQ(SummaryText(plain).find("source lines"), std::string::npos);

  Json legacy = Json::parse(LegacyJson(p));
  for (const Json& row : legacy["instruction"]) {
    if (row["opcode"] == "multiply_moving") {
      EXPECT_EQ(row["nki_source_location"], "/k/mm.py:12");
      EXPECT_EQ(row["nki_api"], "nisa.nc_matmul");
    }
    if (row["opcode"] == "notify_end") {
      EXPECT_FALSE(row.contains("nki_source_location"));
    }
  }
  for (const Json& row : legacy["dma"]) EXPECT_EQ(row["nki_source_location"], "/k/mm.py:10");

  Json perfetto = Json::parse(PerfettoJson(p));
  int mapped = 0;
  for (const Json& e : perfetto["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["name"] == "tensor_copy") {
      EXPECT_EQ(e["args"]["nki_source_location"], "/k/mm.py:14");
    }
    if (e["cat"] == "dma") {
      EXPECT_EQ(e["args"]["nki_api"], "nisa.dma_copy");
    }
    mapped += e["args"].contains("nki_source_location") ? 1 : 0;
  }
  EXPECT_EQ(mapped, 2 * (5 + 2));  // per core: 5 kernel instructions, 2 transfers
}

TEST(SourceMapTest, ReadsTheMemberOfANeff) {
  kb::KernelBuilder k({.name = "mm", .chip = "trn2", .lnc = 1});
  kb::HbmTensor x = k.AddInput("x", isa::Dtype::kFloat32, {128, 64}).value();
  kb::Tile t = k.core(0).AllocSbuf("t", isa::Dtype::kFloat32, 128, 64).value();
  k.core(0).sp().DmaCopy(t.ap(), x.Block(0, 128, 0, 64), 0);
  neff::Neff n = k.Build().value();
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir());
  auto write = [&](const std::string& name, const neff::Neff& neff) {
    const std::string path = (dir / name).string();
    std::vector<uint8_t> bytes = neff::WriteNeff(neff).value();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return path;
  };
  // Without the member: no debug info, no error.
  StatusOr<std::optional<KernelDebugInfo>> none =
      ReadKernelDebugInfo(write("plain.neff", n), kEngines);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  const std::string member = "{\"kernel\":\"mm_kernel\",\"instructions\":[" +
                             Entry(0, "sp", 0, "dma_copy", "nisa.dma_copy", 7) + "]}";
  n.top_files["kernel_debug_info.json"] = std::vector<uint8_t>(member.begin(), member.end());
  StatusOr<std::optional<KernelDebugInfo>> info = ReadKernelDebugInfo(write("k.neff", n), kEngines);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_TRUE(info->has_value());
  EXPECT_EQ((*info)->subgraphs, 1);
  EXPECT_EQ((*info)->kernel, "mm_kernel");
  EXPECT_EQ((*info)->model_name, "mm");  // the NEFF's name: what the runtime records
  EXPECT_EQ((*info)->entries.size(), 1u);

  // A core beyond the NEFF's one subgraph.
  const std::string bad = "{\"kernel\":\"mm\",\"instructions\":[" +
                          Entry(1, "sp", 0, "dma_copy", "nisa.dma_copy", 7) + "]}";
  n.top_files["kernel_debug_info.json"] = std::vector<uint8_t>(bad.begin(), bad.end());
  StatusOr<std::optional<KernelDebugInfo>> refused =
      ReadKernelDebugInfo(write("bad.neff", n), kEngines);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("core: 1 is out of range"), std::string::npos);

  const std::string junk = (dir / "junk.neff").string();
  std::ofstream(junk) << "not a neff";
  EXPECT_EQ(ReadKernelDebugInfo(junk, kEngines).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(ReadKernelDebugInfo((dir / "missing.neff").string(), kEngines).status().code(),
            StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::neuron_profile
