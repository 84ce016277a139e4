// docs/isa.md §7.1 against the opcode table: the documented rows are AllOpcodes(), in order,
// with the same value, mnemonic, engines and cost class, and the summary line's counts are the
// table's. A new or changed opcode fails here until the specification says the same.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "simulator/isa/engine.h"
#include "simulator/isa/opcode.h"

namespace trnsim::isa {
namespace {

struct DocRow {
  unsigned value = 0;
  std::string mnemonic, engines, cost_class;
};

std::string ReadIsaDoc() {
  std::ifstream in(std::string(TRNSIM_SOURCE_DIR) + "/docs/isa.md");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows of the table under "### 7.1 Table", up to the first line that is not a row.
std::vector<DocRow> TableRows(const std::string& doc) {
  std::vector<DocRow> rows;
  const size_t at = doc.find("### 7.1 Table");
  if (at == std::string::npos) return rows;
  std::istringstream lines(doc.substr(at));
  const std::regex row(R"(^\| 0x([0-9A-F]+) \| `([a-z0-9_]+)` \| ([a-z, ]+) \| ([a-z_]+) \|$)");
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      rows.push_back({unsigned(std::stoul(m[1], nullptr, 16)), m[2], m[3], m[4]});
      in_table = true;
    } else if (in_table) {
      break;
    }
  }
  return rows;
}

// The doc's spelling of an opcode's engines: "all", or the engine names in engine order.
std::string EnginesText(EngineMask engines) {
  if (engines == kAllEngines) return "all";
  std::string text;
  for (int e = 0; e < kEngineCount; ++e) {
    if (!(engines & EngineBit(Engine(e)))) continue;
    text += (text.empty() ? "" : ", ") + std::string(EngineName(Engine(e)));
  }
  return text;
}

std::string CostClassText(CostClass c) {
  static const std::map<CostClass, std::string> kNames = {
      {CostClass::kControl, "control"},
      {CostClass::kSync, "sync"},
      {CostClass::kDma, "dma"},
      {CostClass::kPeLoad, "pe_load"},
      {CostClass::kPeMatmul, "pe_matmul"},
      {CostClass::kPeTranspose, "pe_transpose"},
      {CostClass::kStreamUnary, "stream_unary"},
      {CostClass::kStreamBinary, "stream_binary"},
      {CostClass::kReduce, "reduce"},
      {CostClass::kAccumulatorRead, "accumulator_read"},
      {CostClass::kGpSimd, "gpsimd"},
      {CostClass::kSpecial, "special"},
  };
  auto it = kNames.find(c);
  return it == kNames.end() ? "(a cost class isa.md does not name)" : it->second;
}

TEST(OpcodeDocTest, Section71ListsEveryOpcodeAsTheTableDefinesIt) {
  const std::vector<DocRow> rows = TableRows(ReadIsaDoc());
  const auto all = AllOpcodes();
  ASSERT_EQ(rows.size(), all.size()) << "docs/isa.md §7.1 rows vs AllOpcodes()";
  for (size_t i = 0; i < rows.size(); ++i) {
    const OpcodeInfo& info = all[i];
    EXPECT_EQ(rows[i].value, unsigned(info.opcode)) << info.mnemonic;
    EXPECT_EQ(rows[i].mnemonic, info.mnemonic);
    EXPECT_EQ(rows[i].engines, EnginesText(info.engines)) << info.mnemonic;
    EXPECT_EQ(rows[i].cost_class, CostClassText(info.cost_class)) << info.mnemonic;
  }
}

TEST(OpcodeDocTest, SummaryLineCountsTheTable) {
  const std::string doc = ReadIsaDoc();
  const std::regex summary(
      R"((\d+) opcodes: pe (\d+), act (\d+), dve (\d+), pool (\d+), sp (\d+))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(doc, m, summary)) << "docs/isa.md has no opcode summary line";
  std::array<int, kEngineCount> per_engine{};
  for (const OpcodeInfo& info : AllOpcodes())
    for (int e = 0; e < kEngineCount; ++e)
      if (info.engines & EngineBit(Engine(e))) per_engine[size_t(e)]++;
  EXPECT_EQ(std::stoul(m[1]), AllOpcodes().size());
  for (int e = 0; e < kEngineCount; ++e)
    EXPECT_EQ(std::stoi(m[size_t(e) + 2]), per_engine[size_t(e)]) << EngineName(Engine(e));
}

}  // namespace
}  // namespace trnsim::isa
