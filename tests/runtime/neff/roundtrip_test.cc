// ReadNeff(WriteNeff(n)) == n, the hand-written minimal NEFF, plain-tar payloads, derived
// tensors, ConstantData, and NEFFs in the spellings other writers use.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/neff/header.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"
#include "tests/runtime/neff/neff_test_util.h"

namespace trnsim::neff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the builders

// Compares part by part first, so that a failure says where.
void ExpectSameNeff(const Neff& actual, const Neff& expected) {
  EXPECT_TRUE(actual.header == expected.header);
  EXPECT_EQ(actual.tensors, expected.tensors);
  EXPECT_EQ(actual.top_files, expected.top_files);
  ASSERT_EQ(actual.subgraphs.size(), expected.subgraphs.size());
  for (size_t i = 0; i < actual.subgraphs.size(); ++i) {
    const Subgraph& a = actual.subgraphs[i];
    const Subgraph& e = expected.subgraphs[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(a.name, e.name);
    EXPECT_EQ(a.def_name, e.def_name);
    EXPECT_EQ(a.def_version, e.def_version);
    EXPECT_EQ(a.queue_sets, e.queue_sets);
    EXPECT_EQ(a.variables, e.variables);
    EXPECT_EQ(a.files, e.files);
    ASSERT_EQ(a.engines.size(), e.engines.size());
    for (size_t k = 0; k < a.engines.size(); ++k) {
      EXPECT_EQ(a.engines[k].json_file, e.engines[k].json_file);
      EXPECT_EQ(a.engines[k].dma, e.engines[k].dma);
      EXPECT_TRUE(a.engines[k] == e.engines[k]) << e.engines[k].json_file;
    }
  }
  EXPECT_TRUE(actual == expected);
}

// Writes `n`, reads it back (hash validated), and compares with `n` plus the filled-in header.
void ExpectRoundTrip(const Neff& n) {
  StatusOr<std::vector<uint8_t>> bytes = WriteNeff(n);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<Neff> back = ReadNeff(*bytes, ReadOptions{.validate_hash = true});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  Neff expected = n;
  expected.header.data_size = bytes->size() - kHeaderSize;
  expected.header.hash = back->header.hash;
  ExpectSameNeff(*back, expected);
  // Writing is deterministic.
  StatusOr<std::vector<uint8_t>> again = WriteNeff(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);
}

TEST(NeffRoundTrip, Minimal) { ExpectRoundTrip(MinimalNeff()); }

TEST(NeffRoundTrip, RichNeffWithEveryField) { ExpectRoundTrip(RichNeff()); }

TEST(NeffRoundTrip, Sha256Package) {
  Neff n = RichNeff();
  n.header.pkg_version = 1;
  ExpectRoundTrip(n);
}

TEST(NeffRoundTrip, EmptySubgraphsAndNoTensors) {
  Neff n;
  n.subgraphs.resize(3);
  for (size_t i = 0; i < 3; ++i) n.subgraphs[i].name = "sg0" + std::to_string(i);
  ExpectRoundTrip(n);
}

TEST(NeffRoundTrip, LongAndUnicodePaths) {
  Neff n = MinimalNeff();
  std::string dir(150, 'd');
  n.subgraphs[0].files[dir + "/f\xc3\xa9.bin"] = {1};
  n.top_files[dir + "/\xe2\x82\xac.txt"] = {2};
  n.subgraphs[0].variables[0].name = "in:0/\xc3\xbc";
  n.tensors[0].name = "in:0/\xc3\xbc";
  n.subgraphs[0].engines[0].dma[0].from->var = "in:0/\xc3\xbc";
  ExpectRoundTrip(n);
}

TEST(NeffRoundTrip, HeaderStringsAtTheirLimits) {
  Neff n = MinimalNeff();
  n.header.neff_build_version = std::string(127, 'b');
  n.header.name = std::string(255, 'n');
  n.header.lnc_size = 0;  // pre-LNC NEFFs: read as 1
  ExpectRoundTrip(n);
}

TEST(NeffRoundTrip, HandWrittenMembersReadAsMinimalNeff) {
  StatusOr<Neff> n = ReadNeff(NeffFromMembers(MinimalMembers()));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  Neff expected = MinimalNeff();
  expected.header.data_size = n->header.data_size;
  expected.header.hash = n->header.hash;
  ExpectSameNeff(*n, expected);
}

TEST(NeffRoundTrip, PlainTarPayload) {
  std::vector<uint8_t> plain = WrapPayload(Tar(ToTar(MinimalMembers())));
  StatusOr<Neff> n = ReadNeff(plain, ReadOptions{.validate_hash = true});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->tensors, MinimalNeff().tensors);
  EXPECT_EQ(n->subgraphs, MinimalNeff().subgraphs);
}

TEST(NeffRoundTrip, DotSlashPathsAndDirectoryEntries) {
  std::vector<TarMember> members = {{"./", "", '5'}, {"./sg00/", "", '5'}};
  for (const TarMember& m : ToTar(MinimalMembers())) {
    members.push_back(TarMember{"./" + m.path, m.data});
  }
  StatusOr<Neff> n = ReadNeff(WrapPayload(Gzip(Tar(members))));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->subgraphs, MinimalNeff().subgraphs);
}

TEST(NeffRoundTrip, TensorsDerivedFromVariablesWithoutNeffJson) {
  auto members = MinimalMembers();
  members.erase("neff.json");
  StatusOr<Neff> n = ReadNeff(NeffFromMembers(members));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_THAT(n->tensors,
              ElementsAre(TensorDecl{"in", TensorUsage::kInput, 16, isa::Dtype::kUnknown, {16}},
                          TensorDecl{"out", TensorUsage::kOutput, 16, isa::Dtype::kUnknown, {16}}));
  ExpectRoundTrip(*n);  // the writer then records them in neff.json
}

TEST(NeffRoundTrip, DerivedTensorsPutInputsFirstInDefJsonOrder) {
  auto members = MinimalMembers();
  members.erase("neff.json");
  members["sg00/def.json"] = R"({"sp": "SP.json", "dma_queue": {"q0": {"type": "data"}},
      "var": {"out": {"type": "output", "var_id": 1, "size": 16},
              "zeta": {"type": "input", "var_id": 7, "size": 4},
              "in": {"type": "input", "var_id": 0, "size": 16}}})";
  members.erase("sg00/SP.bin");
  StatusOr<Neff> n = ReadNeff(NeffFromMembers(members));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ASSERT_EQ(n->tensors.size(), 3u);
  EXPECT_EQ(n->tensors[0].name, "zeta");
  EXPECT_EQ(n->tensors[1].name, "in");
  EXPECT_EQ(n->tensors[2].name, "out");
}

TEST(NeffRoundTrip, NeffJsonSpellings) {
  auto members = MinimalMembers();
  members["sg00/def.json"] = R"({"sp": "SP.json", "dma_queue": {"q0": {"type": "data"}},
      "var": {"in": {"type": "input", "var_id": 0, "size": 16},
              "p": {"type": "input", "var_id": 2, "size": 2},
              "out": {"type": "output", "var_id": 1, "size": 16}}})";
  members.erase("sg00/SP.bin");
  // AWS-style attrs: strings for numbers, a parameter among the arg nodes, a string shape,
  // ml_dtypes names, and an output node that has inputs.
  members["neff.json"] = R"json({"nodes": [
      {"op": "null", "name": "w", "inputs": [], "attrs": {"is_param": "1", "dtype": "float32"}},
      {"op": "null", "name": "in", "inputs": [],
       "attrs": {"is_param": "0", "id": "1", "dtype": "bfloat16", "shape": "[2, 4]",
                 "may_alias": "0", "must_alias": "0"}},
      {"op": "null", "name": "p", "attrs": {"dtype": "float8_e4m3fn", "shape": "(2,)"}},
      {"op": "__kelf", "name": "sg_coreV10", "inputs": [[1, 0, 0]],
       "attrs": {"kelf": "kelf-0.json", "num_inputs": "2", "num_outputs": "1"}},
      {"op": "null", "name": "out", "inputs": [[3, 0, 0]],
       "attrs": {"dtype": "fp32", "shape": [2, 2]}}],
    "arg_nodes": [0, 1, 2], "heads": [4], "node_row_ptr": [0, 1, 2, 3, 4, 5],
    "attrs": {}})json";
  StatusOr<Neff> n = ReadNeff(NeffFromMembers(members));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_THAT(
      n->tensors,
      ElementsAre(TensorDecl{"in", TensorUsage::kInput, 16, isa::Dtype::kBfloat16, {2, 4}},
                  TensorDecl{"p", TensorUsage::kInput, 2, isa::Dtype::kFloat8E4, {2}},
                  TensorDecl{"out", TensorUsage::kOutput, 16, isa::Dtype::kFloat32, {2, 2}}));
}

TEST(NeffRoundTrip, IoVariablesInBothSubgraphsOfAnLnc2Neff) {
  Neff n = RichNeff();
  Variable extra;
  extra.name = "extra_out";
  extra.type = VariableType::kOutput;
  extra.var_id = 100;
  extra.size = 4;
  n.subgraphs[1].variables.push_back(extra);
  n.tensors.push_back(TensorDecl{"extra_out", TensorUsage::kOutput, 4, isa::Dtype::kInt32, {1}});
  ExpectRoundTrip(n);
}

TEST(ConstantData, NpyGivesTheArrayDataRawGivesEverything) {
  Neff n = RichNeff();
  const Subgraph& sg = n.subgraphs[0];
  const Variable& w = sg.variables[3];
  const Variable& raw = sg.variables[4];
  StatusOr<std::span<const uint8_t>> wd = ConstantData(sg, w);
  ASSERT_TRUE(wd.ok()) << wd.status().ToString();
  ASSERT_EQ(wd->size(), 16u);
  float first;
  std::memcpy(&first, wd->data(), 4);
  EXPECT_EQ(first, 1.0f);
  EXPECT_EQ(wd->data(), sg.files.at("w.npy").data() + 128);  // after the 128-byte header
  StatusOr<std::span<const uint8_t>> rd = ConstantData(sg, raw);
  ASSERT_TRUE(rd.ok());
  EXPECT_THAT(*rd, ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(ConstantData(sg, sg.variables[0]).status().code(), StatusCode::kInvalid);
  Subgraph missing = sg;
  missing.files.erase("w.npy");
  EXPECT_THAT(ConstantData(missing, w).status().message(), HasSubstr("sg00/w.npy"));
}

}  // namespace
}  // namespace trnsim::neff
