// Semantic checks (validate.h) on typed NEFFs — WriteNeff refuses what ReadNeff would — and on
// contradictory NEFFs read from bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"
#include "runtime/neff/validate.h"
#include "tests/runtime/neff/neff_test_util.h"

namespace trnsim::neff {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the builders

std::string WriteError(const Neff& n) {
  StatusOr<std::vector<uint8_t>> bytes = WriteNeff(n);
  EXPECT_FALSE(bytes.ok());
  if (bytes.ok()) return "";
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalid);
  return bytes.status().message();
}

Variable& Var(Neff& n, size_t i) { return n.subgraphs[0].variables[i]; }
DmaDescriptor& Desc(Neff& n, size_t i) { return n.subgraphs[0].engines[0].dma[i]; }

TEST(NeffValidation, ValidNeffsPass) {
  EXPECT_TRUE(ValidateNeff(MinimalNeff()).ok());
  Status rich = ValidateNeff(RichNeff());
  EXPECT_TRUE(rich.ok()) << rich.ToString();
}

TEST(NeffValidation, SubgraphsAgainstLncSize) {
  Neff n = MinimalNeff();
  n.header.lnc_size = 2;
  EXPECT_THAT(WriteError(n), HasSubstr("lnc_size (offset 552) is 2, which needs exactly 2"));
  n = RichNeff();
  n.header.lnc_size = 1;  // two subgraphs at LNC=1 are allowed (one per TPB)
  EXPECT_TRUE(ValidateNeff(n).ok());
  n.subgraphs[1].name = "sg02";
  EXPECT_THAT(WriteError(n), HasSubstr("subgraph 1 is named \"sg02\"; expected sg01"));
  n = Neff{};
  EXPECT_THAT(WriteError(n), HasSubstr("no subgraph"));
  n.subgraphs.resize(65);
  for (size_t i = 0; i < 65; ++i)
    n.subgraphs[i].name = "sg" + std::string(i < 10 ? "0" : "") + std::to_string(i);
  EXPECT_THAT(WriteError(n), HasSubstr("65 subgraphs; at most 64"));
}

TEST(NeffValidation, LncSizeAgainstSubgraphsFromBytes) {
  Header h;
  h.lnc_size = 2;
  std::vector<uint8_t> bytes = WrapPayload(Gzip(Tar(ToTar(MinimalMembers()))), h);
  EXPECT_THAT(ReadNeff(bytes).status().message(), HasSubstr("lnc_size (offset 552) is 2"));
}

TEST(NeffValidation, VariableNamesAndIds) {
  Neff n = MinimalNeff();
  Var(n, 1).var_id = 0;
  EXPECT_THAT(WriteError(n), HasSubstr("sg00/def.json: var.out.var_id: 0 is used by another"));
  n = MinimalNeff();
  n.subgraphs[0].variables.push_back(Var(n, 0));
  n.subgraphs[0].variables.back().var_id = 5;
  EXPECT_THAT(WriteError(n), HasSubstr("var.in: the name is used twice"));
  n = MinimalNeff();
  Var(n, 0).name = "";
  EXPECT_THAT(WriteError(n), HasSubstr("empty name"));
  auto members = MinimalMembers();
  members["sg00/def.json"] = R"({"sp": "SP.json", "sp_instr": "SP.bin",
      "dma_queue": {"q0": {"type": "data"}},
      "var": {"in": {"type": "input", "var_id": 0, "size": 16},
              "out": {"type": "output", "var_id": 0, "size": 16}}})";
  EXPECT_THAT(ReadNeff(NeffFromMembers(members)).status().message(),
              HasSubstr("sg00/def.json: var.out.var_id: 0 is used by another variable"));
}

TEST(NeffValidation, VariableFields) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { Var(n, 5).size = (uint64_t{1} << 40) + 1; }),
              HasSubstr("var.tmp.size: 1099511627777 bytes is more than"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 2).alignment = 48; }),
              HasSubstr("var.sb.alignment: 48 is not 0 or a power of two"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 2).fabric_path = "side"; }),
              HasSubstr("var.sb.fabric_path: \"side\""));
  EXPECT_THAT(err([](Neff& n) { Var(n, 5).file_name = "w.npy"; }),
              HasSubstr("var.tmp.file_name: only a \"file\" variable has one"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 5).backing_variable_off = 8; }),
              HasSubstr("var.tmp.backing_variable_off: only a \"virtual\""));
  EXPECT_THAT(err([](Neff& n) { Var(n, 5).referenced_var_id = 1; }),
              HasSubstr("var.tmp.referenced_var_id: only a \"pointer\""));
  EXPECT_THAT(err([](Neff& n) { Var(n, 5).list = {1}; }), HasSubstr("var.tmp.list: only a"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 3).file_name = ""; }),
              HasSubstr("var.w: missing required field 'file_name'"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 3).file_name = "../w.npy"; }),
              HasSubstr("var.w.file_name: \"../w.npy\" is not a plain relative path"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 6).backing_variable_off = uint64_t{1} << 62; }),
              HasSubstr("var.virt.backing_variable_off"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 7).referenced_var_id.reset(); }),
              HasSubstr("var.ptr: missing required field 'referenced_var_id'"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 7).referenced_var_id = 99; }),
              HasSubstr("var.ptr.referenced_var_id: no variable has var_id 99"));
  EXPECT_THAT(err([](Neff& n) { Var(n, 7).size = 4; }),
              HasSubstr("var.ptr.size: a pointer needs 8 bytes"));
  EXPECT_THAT(err([](Neff& n) {
                Var(n, 8).list = {4, 77};
              }),
              HasSubstr("var.dge.list[1]: no variable has var_id 77"));
}

TEST(NeffValidation, ConstantsMustMatchTheirVariable) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { Var(n, 4).size = 9; }),
              AllOf(HasSubstr("var.raw.file_name"),
                    HasSubstr("sg00/consts/raw.bin: 8 bytes, but variable \"raw\" is 9 bytes")));
  EXPECT_THAT(err([](Neff& n) { Var(n, 3).size = 12; }),
              HasSubstr("sg00/w.npy: 16 bytes of array data, but variable \"w\" is 12"));
  EXPECT_THAT(err([](Neff& n) {
                n.subgraphs[0].files["w.npy"] = {1, 2, 3};
              }),
              HasSubstr("sg00/w.npy: .npy: missing the"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].files.erase("consts/raw.bin"); }),
              HasSubstr("missing constant file sg00/consts/raw.bin"));
  // From bytes, with the .npy's own header wrong.
  auto members = MinimalMembers();
  members["sg00/def.json"] = R"({"dma_queue": {}, "var": {
      "in": {"type": "input", "var_id": 0, "size": 16},
      "out": {"type": "output", "var_id": 1, "size": 16},
      "c": {"type": "file", "var_id": 2, "size": 8, "file_name": "c.npy"}}})";
  members.erase("sg00/SP.json");
  members.erase("sg00/SP.bin");
  std::vector<uint8_t> npy = MakeNpy("<f4", {2}, std::vector<uint8_t>(8));
  npy[20] = 'X';  // inside the dict
  members["sg00/c.npy"] = std::string(npy.begin(), npy.end());
  EXPECT_THAT(ReadNeff(NeffFromMembers(members)).status().message(),
              AllOf(HasSubstr("sg00/def.json: var.c.file_name"), HasSubstr(".npy header")));
}

TEST(NeffValidation, QueueSets) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[0].type = "sideways"; }),
              HasSubstr("sg00/def.json: dma_queue.qin.type: \"sideways\""));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[0].num_queues = 17; }),
              HasSubstr("dma_queue.qin.num_queues: 17 is not in 1..16"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[0].num_queues = 0; }),
              HasSubstr("num_queues: 0"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[0].semaphore = -1; }),
              HasSubstr("dma_queue.qin.semaphore: -1 is negative"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[0].fabric_path = ""; }),
              HasSubstr("dma_queue.qin.fabric_path"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].queue_sets[1].name = "qin"; }),
              HasSubstr("dma_queue.qin: the name is used twice"));
}

TEST(NeffValidation, DescriptorReferences) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).queue = "nope"; }),
              HasSubstr("sg00/SP.json: dma[0].queue: no queue set \"nope\" in sg00/def.json"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 1).instance_name = "nope"; }),
              HasSubstr("dma[1].instance_name: \"nope\" is neither a queue instance"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 1).instance_name = ""; }),
              HasSubstr("dma[1]: needs 'queue' or 'instance_name'"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 1).id = 0; }), HasSubstr("dma[1].id: 0 is used by"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->var = "ghost"; }),
              HasSubstr("dma[0].desc.from: no variable \"ghost\""));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).to.var = "ghost"; }),
              HasSubstr("dma[0].desc.to: no variable \"ghost\""));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 5).from_arr[2].var = "ghost"; }),
              HasSubstr("dma[5].desc.from_arr[2].from: no variable"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from.reset(); }),
              HasSubstr("dma[0].desc: needs 'from'"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 5).from = Desc(n, 5).from_arr[0]; }),
              HasSubstr("dma[5].desc: has both 'from' and 'from_arr'"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).event = -2; }), HasSubstr("dma[0].event: negative"));
  EXPECT_THAT(err([](Neff& n) {
                Desc(n, 0).remote_semaphores = {1, -1};
              }),
              HasSubstr("dma[0].remote_semaphores[1]: negative"));
}

TEST(NeffValidation, DescriptorOpFields) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { Desc(n, 3).constant_dtype = isa::Dtype::kBfloat16; }),
              HasSubstr("dma[3].desc.constant_dtype: \"bfloat16\" (expected float32, int32"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 2).scale = std::nan(""); }),
              HasSubstr("dma[2].desc.scale: not a finite number"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 3).constant = INFINITY; }),
              HasSubstr("dma[3].desc.constant: not a finite number"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 4).transpose_shape[2] = 0; }),
              HasSubstr("dma[4].desc.transpose_shape[2]"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 4).transpose_element_size = 3; }),
              HasSubstr("dma[4].desc.transpose_element_size: 3"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->dtype = isa::Dtype::kUnknown; }),
              HasSubstr("dma[0].desc.from_dtype: no dtype"));
}

TEST(NeffValidation, AccessPatternsStayInsideTheirVariable) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  // input0 is 64 bytes; descriptor 0 reads all of it as 4 x 4 float32.
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->offset = 4; }),
              HasSubstr("dma[0].desc.from: the access pattern on the 64-byte variable "
                        "\"input0\" reaches byte 68, past its end"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->offset = 65; }),
              HasSubstr("starts at offset 65, past its end"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->sizes[1] = 5; }), HasSubstr("reaches byte 80"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 2).to.offset = 8; }),  // steps -4 from byte 8
              HasSubstr("reaches 4 bytes before its start"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->steps.pop_back(); }),
              HasSubstr("dma[0].desc.from_steps/from_sizes: 1 steps but 2 sizes"));
  EXPECT_THAT(err([](Neff& n) { Desc(n, 0).from->sizes[0] = 6; }),
              HasSubstr("dma[0].desc.from_sizes[0]: 6 bytes is not a whole number of 4-byte "
                        "float32 elements"));
  EXPECT_THAT(err([](Neff& n) {
                Desc(n, 0).from->steps = {1, INT64_MAX, INT64_MAX};
                Desc(n, 0).from->sizes = {4, UINT64_MAX, UINT64_MAX};
              }),
              HasSubstr("overflows computing its extent"));
  EXPECT_THAT(err([](Neff& n) {
                Desc(n, 0).from->steps = {4, INT64_MIN};
                Desc(n, 0).from->sizes = {16, UINT64_MAX};
              }),
              HasSubstr("before its start"));
  // A zero count moves nothing, wherever the steps point.
  Neff n = RichNeff();
  Desc(n, 0).from->steps = {4, INT64_MAX};
  Desc(n, 0).from->sizes = {16, 0};
  EXPECT_TRUE(ValidateNeff(n).ok());
  // No steps/sizes: the rest of the variable from the offset.
  Desc(n, 2).from->offset = 16;  // w is 16 bytes: an empty rest is fine
  EXPECT_TRUE(ValidateNeff(n).ok());
}

TEST(NeffValidation, CheckAccessBoundsEdges) {
  DmaAccess a{"v", 0, {1}, {8}, isa::Dtype::kUint8};
  EXPECT_TRUE(CheckAccessBounds(a, 8, "w").ok());
  EXPECT_FALSE(CheckAccessBounds(a, 7, "w").ok());
  a = DmaAccess{"v", 7, {0, 0}, {1, 1000000}, isa::Dtype::kUint8};  // one byte, re-read
  EXPECT_TRUE(CheckAccessBounds(a, 8, "w").ok());
  a = DmaAccess{"v", 0, {8, 1, 1, 1, 1}, {8, 1, 1, 1, 1}, isa::Dtype::kUint64};
  EXPECT_THAT(CheckAccessBounds(a, 64, "w").message(), HasSubstr("more than 4 entries"));
}

TEST(NeffValidation, EnginesAndPaths) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[1].engine = isa::Engine::kSp; }),
              HasSubstr("engine 'sp' appears twice"));
  EXPECT_THAT(err([](Neff& n) {
                n.subgraphs[0].engines[1].json_file.clear();
                n.subgraphs[0].engines[1].instr_file.clear();
                n.subgraphs[0].engines[1].instructions.clear();
              }),
              HasSubstr("engine 'pe' names neither 'pe' nor 'pe_instr'"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[0].json_file.clear(); }),
              HasSubstr("engine 'sp' has descriptors or tables but no engine JSON"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[0].instr_file.clear(); }),
              HasSubstr("engine 'sp' has instructions but no 'sp_instr' file"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[1].json_file = "../PE.json"; }),
              HasSubstr("sg00/def.json: pe: \"../PE.json\" is not a plain relative path"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[1].instr_file = "w.npy"; }),
              HasSubstr("sg00/w.npy is used for two purposes"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].engines[1].instr_file = "def.json"; }),
              HasSubstr("sg00/def.json is used for two purposes"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[0].files["w.npy/x"] = {1}; }),
              HasSubstr("\"w.npy\" is a file but also the directory of \"w.npy/x\""));
  EXPECT_THAT(err([](Neff& n) { n.top_files["neff.json"] = {1}; }),
              HasSubstr("top-level file \"neff.json\""));
  EXPECT_THAT(err([](Neff& n) { n.top_files["sg00/x"] = {1}; }),
              HasSubstr("inside a subgraph directory"));
  EXPECT_THAT(err([](Neff& n) { n.top_files["./x"] = {1}; }),
              HasSubstr("not a plain relative path"));
  EXPECT_THAT(err([](Neff& n) { n.top_files["extra"] = {1}; }),
              HasSubstr("\"extra\" is also the directory of \"extra/notes.txt\""));
  EXPECT_THAT(err([](Neff& n) { n.header.name = std::string(300, 'x'); }),
              HasSubstr("NEFF header: name is 300 bytes"));
  // From bytes: an engine reference that is not a plain path.
  auto members = MinimalMembers();
  members["sg00/def.json"] = R"({"sp": "./SP.json", "dma_queue": {"q0": {"type": "data"}},
      "var": {"in": {"type": "input", "var_id": 0, "size": 16},
              "out": {"type": "output", "var_id": 1, "size": 16}}})";
  EXPECT_THAT(ReadNeff(NeffFromMembers(members)).status().message(),
              HasSubstr("sg00/def.json: sp: \"./SP.json\" is not a plain relative path"));
}

TEST(NeffValidation, TensorsAgainstInputAndOutputVariables) {
  auto err = [](auto mutate) {
    Neff n = RichNeff();
    mutate(n);
    return WriteError(n);
  };
  EXPECT_THAT(err([](Neff& n) { n.tensors[0].size = 60; }),
              HasSubstr("neff.json: input \"input0\": 60 bytes, but its variable in sg00"));
  EXPECT_THAT(err([](Neff& n) {
                n.tensors[0].shape = {4, 5};
              }),
              HasSubstr("neff.json: input \"input0\": dtype float32 and its shape make 80 bytes, "
                        "but the variable has 64"));
  EXPECT_THAT(err([](Neff& n) {
                n.tensors[0].shape = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
              }),
              HasSubstr("make over 2^64 bytes"));
  EXPECT_THAT(err([](Neff& n) { n.tensors[1].name = "ghost"; }),
              HasSubstr("neff.json: output \"ghost\" has no output variable"));
  EXPECT_THAT(err([](Neff& n) { n.tensors[1].usage = TensorUsage::kInput; }),
              HasSubstr("input \"output0\" has no input variable"));
  EXPECT_THAT(err([](Neff& n) { n.tensors.pop_back(); }),
              HasSubstr("var.output0: output variable that is not a declared tensor"));
  EXPECT_THAT(err([](Neff& n) { std::swap(n.tensors[0], n.tensors[1]); }),
              HasSubstr("inputs must come before outputs"));
  EXPECT_THAT(err([](Neff& n) { n.tensors.push_back(n.tensors[1]); }),
              HasSubstr("output \"output0\": declared twice"));
  EXPECT_THAT(err([](Neff& n) { n.tensors[0].name = ""; }), HasSubstr("tensor 0 has no name"));
  EXPECT_THAT(err([](Neff& n) { n.subgraphs[1].variables[0].size = 128; }),
              HasSubstr("sg01/def.json: var.input0: input of 128 bytes, but in sg00 it is an "
                        "input of 64 bytes"));
  // Unknown dtype: the size is not checked against the shape.
  Neff n = RichNeff();
  n.tensors[0].dtype = isa::Dtype::kUnknown;
  n.tensors[0].shape = {3};
  EXPECT_TRUE(ValidateNeff(n).ok());
}

TEST(NeffValidation, NeffJsonTensorsFromBytes) {
  auto members = MinimalMembers();
  members["neff.json"] = R"({"nodes": [{"op": "null", "name": "in", "attrs": {"dtype": "float32",
      "shape": [8]}}, {"op": "null", "name": "out"}], "arg_nodes": [0], "heads": [[1, 0, 0]]})";
  EXPECT_THAT(ReadNeff(NeffFromMembers(members)).status().message(),
              HasSubstr("neff.json: input \"in\": dtype float32 and its shape make 32 bytes, but "
                        "the variable has 16"));
  members["neff.json"] = R"({"nodes": [{"op": "null", "name": "in"}], "arg_nodes": [0],
      "heads": []})";
  EXPECT_THAT(ReadNeff(NeffFromMembers(members)).status().message(),
              HasSubstr("var.out: output variable that is not a declared tensor"));
}

}  // namespace
}  // namespace trnsim::neff

namespace trnsim::neff {
namespace {

// def.json "debug_prefixes": the debug_print prefix table (docs/neff.md).
TEST(NeffValidation, DebugPrefixes) {
  Neff n = MinimalNeff();
  n.subgraphs[0].debug_prefixes = {"layer 1", "", "ünïcode \"quoted\"", std::string(511, 'x')};
  StatusOr<std::vector<uint8_t>> bytes = WriteNeff(n);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  StatusOr<Neff> back = ReadNeff(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->subgraphs[0].debug_prefixes, n.subgraphs[0].debug_prefixes);

  n.subgraphs[0].debug_prefixes = {"ok", std::string(512, 'x')};
  EXPECT_THAT(WriteError(n), HasSubstr("sg00/def.json: debug_prefixes[1]: 512 bytes, more than "
                                       "511"));
  n.subgraphs[0].debug_prefixes = {std::string("a\0b", 3)};
  EXPECT_THAT(WriteError(n), HasSubstr("debug_prefixes[0]: a NUL character at byte 1"));
  n.subgraphs[0].debug_prefixes.assign(65537, "p");
  EXPECT_THAT(WriteError(n), HasSubstr("debug_prefixes: 65537 prefixes, more than 65536"));

  // From bytes: the JSON types, and the same value rules.
  auto read_error = [](const std::string& prefixes) {
    auto members = MinimalMembers();
    std::string def = members["sg00/def.json"];
    def.insert(def.find('{') + 1, "\"debug_prefixes\": " + prefixes + ", ");
    members["sg00/def.json"] = def;
    StatusOr<Neff> r = ReadNeff(NeffFromMembers(members));
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(read_error(R"(["a", "b"])"), "ok");
  EXPECT_THAT(read_error(R"("a")"), HasSubstr("sg00/def.json: debug_prefixes"));
  EXPECT_THAT(read_error(R"(["a", 3])"), HasSubstr("debug_prefixes[1]"));
  EXPECT_THAT(read_error(R"(["a\u0000"])"), HasSubstr("a NUL character at byte 1"));
  EXPECT_THAT(read_error("[\"" + std::string(600, 'y') + "\"]"), HasSubstr("600 bytes"));
}

}  // namespace
}  // namespace trnsim::neff
