#include "tests/runtime/neff/neff_test_util.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/neff/hash.h"
#include "runtime/neff/header.h"
#include "runtime/neff/npy.h"

namespace trnsim::neff::testing {
namespace {

DmaAccess Access(std::string var, uint64_t offset, std::vector<int64_t> steps,
                 std::vector<uint64_t> sizes, isa::Dtype dtype) {
  return DmaAccess{std::move(var), offset, std::move(steps), std::move(sizes), dtype};
}

Subgraph RichSubgraph(const std::string& name) {
  Subgraph sg;
  sg.name = name;
  sg.def_name = "graph_" + name;
  sg.def_version = "1.2";
  sg.queue_sets = {
      QueueSet{"qin", "in", 2, "sp", false, {"qin_a", "qin_b"}, {1, 2}, 3, "main"},
      QueueSet{"qout", "out", 1, "act", true, {}, {}, std::nullopt, "alt"},
      QueueSet{"qdata", "data", 16, "", false, {}, {7}, 0, "main"},
  };
  auto var = [](std::string n, VariableType t, int64_t id, uint64_t size) {
    Variable v;
    v.name = std::move(n);
    v.type = t;
    v.var_id = id;
    v.size = size;
    return v;
  };
  sg.variables.push_back(var("input0", VariableType::kInput, 1, 64));
  sg.variables.push_back(var("output0", VariableType::kOutput, 2, 32));
  Variable sb = var("sb", VariableType::kStateBuffer, 3, 256);
  sb.alignment = 64;
  sg.variables.push_back(sb);
  Variable w = var("w", VariableType::kFile, 4, 16);
  w.file_name = "w.npy";
  sg.variables.push_back(w);
  Variable raw = var("raw", VariableType::kFile, 5, 8);
  raw.file_name = "consts/raw.bin";
  sg.variables.push_back(raw);
  Variable tmp = var("tmp", VariableType::kTmpBuf, 6, 128);
  tmp.fabric_path = "alt";
  sg.variables.push_back(tmp);
  Variable virt = var("virt", VariableType::kVirtual, 7, 64);
  virt.backing_variable_off = 4096;
  sg.variables.push_back(virt);
  Variable ptr = var("ptr", VariableType::kPointer, 8, 8);
  ptr.referenced_var_id = 6;
  sg.variables.push_back(ptr);
  Variable dge = var("dge", VariableType::kDgeTable, -9, 16);
  dge.list = {4, 5};
  sg.variables.push_back(dge);

  float weights[4] = {1.0f, -2.5f, 3.25f, 0.0f};
  std::vector<uint8_t> wdata(16);
  std::memcpy(wdata.data(), weights, 16);
  sg.files["w.npy"] = MakeNpy("<f4", {4}, wdata);
  sg.files["consts/raw.bin"] = {1, 2, 3, 4, 5, 6, 7, 8};
  sg.files["tables/gelu_and_others.bin"] = {9, 9, 9};

  // SP: every descriptor field, one descriptor per op.
  EngineProgram sp;
  sp.engine = isa::Engine::kSp;
  sp.json_file = "SP.json";
  sp.instr_file = "SP.bin";
  sp.instructions = {0xde, 0xad, 0xbe, 0xef};
  DmaDescriptor copy;
  copy.id = 0;
  copy.queue = "qin";
  copy.function_start = "main";
  copy.section_start_desc = true;
  copy.event = 5;
  copy.semaphore = 6;
  copy.remote_semaphores = {1, 2};
  copy.from = Access("input0", 0, {4, 16}, {16, 4}, isa::Dtype::kFloat32);
  copy.to = Access("sb", 64, {1, 32, 64}, {16, 2, 3}, isa::Dtype::kUint8);
  copy.num_tiling_dimensions = 2;
  sp.dma.push_back(copy);
  DmaDescriptor cast;
  cast.id = 1;
  cast.instance_name = "qin_b";
  cast.op = DmaOp::kCast;
  cast.from = Access("sb", 0, {4}, {64}, isa::Dtype::kFloat32);
  cast.to = Access("output0", 0, {2}, {32}, isa::Dtype::kBfloat16);
  sp.dma.push_back(cast);
  DmaDescriptor fma;
  fma.id = 2;
  fma.queue = "qdata";
  fma.op = DmaOp::kFma;
  fma.from = Access("w", 0, {}, {}, isa::Dtype::kFloat32);
  fma.to = Access("tmp", 0, {-4}, {16}, isa::Dtype::kFloat32);
  fma.to.offset = 12;  // walks backwards from byte 12
  fma.scale_dtype = isa::Dtype::kFloat32;
  fma.scale = 0.1;
  sp.dma.push_back(fma);
  DmaDescriptor min;
  min.id = 3;
  min.queue = "qdata";
  min.op = DmaOp::kMin;
  min.from = Access("raw", 0, {1}, {8}, isa::Dtype::kInt8);
  min.to = Access("virt", 8, {1}, {8}, isa::Dtype::kInt8);
  min.constant_dtype = isa::Dtype::kInt32;
  min.constant = -7;
  sp.dma.push_back(min);
  DmaDescriptor transpose;
  transpose.id = 4;
  transpose.queue = "qout";
  transpose.op = DmaOp::kTranspose;
  transpose.from = Access("sb", 0, {2, 8}, {8, 4}, isa::Dtype::kBfloat16);
  transpose.to = Access("tmp", 0, {2, 8}, {8, 4}, isa::Dtype::kBfloat16);
  transpose.transpose_shape = {4, 4, 1, 1};
  transpose.transpose_element_size = 2;
  sp.dma.push_back(transpose);
  DmaDescriptor cce;
  cce.id = 5;
  cce.queue = "qdata";
  cce.op = DmaOp::kAdd;
  cce.from_arr = {Access("tmp", 0, {4}, {32}, isa::Dtype::kFloat32),
                  Access("tmp", 32, {4}, {32}, isa::Dtype::kFloat32),
                  Access("ptr", 0, {}, {}, isa::Dtype::kUint64)};
  cce.to = Access("sb", 128, {4, 0}, {32, 3}, isa::Dtype::kFloat32);  // step 0: same bytes
  sp.dma.push_back(cce);
  DmaDescriptor max;
  max.id = 6;
  max.queue = "qdata";
  max.op = DmaOp::kMax;
  max.from = Access("dge", 0, {8, 0, 0, 0}, {8, 2, 1, 1}, isa::Dtype::kUint64);
  max.to = Access("dge", 0, {8, 0, 0, 0}, {8, 2, 1, 1}, isa::Dtype::kUint64);
  max.constant_dtype = isa::Dtype::kUint32;
  max.constant = 4294967295.0;
  sp.dma.push_back(max);
  sg.engines.push_back(sp);

  EngineProgram pe;
  pe.engine = isa::Engine::kPe;
  pe.json_file = "PE.json";
  pe.instr_file = "PE.bin";
  pe.instructions = {1, 2, 3};
  sg.engines.push_back(pe);
  EngineProgram act;
  act.engine = isa::Engine::kAct;
  act.json_file = "Activation.json";
  act.instr_file = "Activation.bin";
  act.activation_function_sets = {"gelu_and_others", "reciprocal_and_small"};
  sg.engines.push_back(act);
  EngineProgram dve;
  dve.engine = isa::Engine::kDve;
  dve.json_file = "DVE.json";
  dve.dve_tables = {DveTable{}, DveTable{"c.bin", "d.bin", "o.bin"}};
  sg.engines.push_back(dve);
  EngineProgram pool;
  pool.engine = isa::Engine::kPool;
  pool.instr_file = "bin/Pool.bin";
  pool.instructions = {7};
  sg.engines.push_back(pool);
  return sg;
}

void Put(std::vector<uint8_t>* block, size_t off, std::string_view s) {
  std::memcpy(block->data() + off, s.data(), s.size());
}

void PutOctal(std::vector<uint8_t>* block, size_t off, size_t width, uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(v));
  Put(block, off, buf);
}

}  // namespace

Neff MinimalNeff() {
  Neff n;
  Subgraph sg;
  sg.name = "sg00";
  QueueSet q;
  q.name = "q0";
  q.type = "data";
  sg.queue_sets.push_back(q);
  Variable in, out;
  in.name = "in";
  in.type = VariableType::kInput;
  in.var_id = 0;
  in.size = 16;
  out.name = "out";
  out.type = VariableType::kOutput;
  out.var_id = 1;
  out.size = 16;
  sg.variables = {in, out};
  EngineProgram sp;
  sp.engine = isa::Engine::kSp;
  sp.json_file = "SP.json";
  sp.instr_file = "SP.bin";
  sp.instructions = {0x01, 0x02};
  DmaDescriptor d;
  d.queue = "q0";
  d.from = DmaAccess{"in", 0, {}, {}, isa::Dtype::kUint8};
  d.to = DmaAccess{"out", 0, {}, {}, isa::Dtype::kUint8};
  sp.dma.push_back(d);
  sg.engines.push_back(sp);
  n.subgraphs.push_back(sg);
  n.tensors = {TensorDecl{"in", TensorUsage::kInput, 16, isa::Dtype::kFloat32, {4}},
               TensorDecl{"out", TensorUsage::kOutput, 16, isa::Dtype::kFloat32, {4}}};
  return n;
}

Neff RichNeff() {
  Neff n;
  n.header.pkg_version = 2;
  n.header.neff_version_major = 2;
  n.header.neff_version_minor = 1;
  n.header.neff_build_version = "trnsim-test 1.0";
  n.header.num_tpb = 2;
  for (size_t i = 0; i < n.header.uuid.size(); ++i) n.header.uuid[i] = static_cast<uint8_t>(i * 7);
  n.header.name = "rich";
  n.header.requested_tpb_count = 2;
  n.header.tpb_per_node[0] = 1;
  n.header.tpb_per_node[1] = 1;
  n.header.feature_bits = 0x5;
  n.header.lnc_size = 2;
  n.subgraphs.push_back(RichSubgraph("sg00"));
  n.subgraphs.push_back(RichSubgraph("sg01"));
  n.subgraphs[1].def_version = "";    // absent in sg01
  n.subgraphs[1].engines.pop_back();  // no Pool in sg01
  n.tensors = {TensorDecl{"input0", TensorUsage::kInput, 64, isa::Dtype::kFloat32, {4, 4}},
               TensorDecl{"output0", TensorUsage::kOutput, 32, isa::Dtype::kBfloat16, {4, 4}}};
  n.top_files["info.json"] = Bytes("{\"compiler\": \"test\"}");
  n.top_files["extra/notes.txt"] = Bytes("notes");
  return n;
}

std::vector<uint8_t> Tar(const std::vector<TarMember>& members) {
  std::vector<uint8_t> out;
  for (const TarMember& m : members) {
    if (m.path.size() > 100) std::abort();
    std::vector<uint8_t> block(512, 0);
    Put(&block, 0, m.path);
    PutOctal(&block, 100, 8, m.type == '5' ? 0755 : 0644);
    PutOctal(&block, 108, 8, 0);
    PutOctal(&block, 116, 8, 0);
    PutOctal(&block, 124, 12,
             m.size_override >= 0 ? static_cast<uint64_t>(m.size_override) : m.data.size());
    PutOctal(&block, 136, 12, 0);
    block[156] = static_cast<uint8_t>(m.type);
    Put(&block, 157, m.link);
    Put(&block, 257,
        std::string_view("ustar\0"
                         "00",
                         8));
    Put(&block, 148, "        ");
    unsigned sum = 0;
    for (uint8_t b : block) sum += b;
    char chk[8];
    std::snprintf(chk, sizeof(chk), "%06o", sum);
    Put(&block, 148, std::string_view(chk, 7));  // six digits and a NUL; the space stays
    out.insert(out.end(), block.begin(), block.end());
    out.insert(out.end(), m.data.begin(), m.data.end());
    out.resize((out.size() + 511) / 512 * 512, 0);
  }
  out.resize(out.size() + 1024, 0);
  return out;
}

std::vector<uint8_t> Gzip(const std::vector<uint8_t>& bytes) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&z, bytes.size()) + 64);
  z.next_in = const_cast<uint8_t*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::map<std::string, std::string> MinimalMembers() {
  return {
      {"neff.json",
       R"({"nodes": [{"op": "null", "name": "in", "inputs": [],
                      "attrs": {"dtype": "float32", "shape": [4]}},
                     {"op": "null", "name": "out", "inputs": [],
                      "attrs": {"dtype": "float32", "shape": [4]}}],
           "arg_nodes": [0], "heads": [[1, 0, 0]]})"},
      {"sg00/def.json",
       R"({"sp": "SP.json", "sp_instr": "SP.bin",
           "dma_queue": {"q0": {"type": "data"}},
           "var": {"in": {"type": "input", "var_id": 0, "size": 16},
                   "out": {"type": "output", "var_id": 1, "size": 16}}})"},
      {"sg00/SP.json",
       R"({"dma": [{"id": 0, "queue": "q0", "desc": {"from": "in", "to": "out"}}]})"},
      {"sg00/SP.bin", std::string("\x01\x02", 2)},
  };
}

std::vector<TarMember> ToTar(const std::map<std::string, std::string>& members) {
  std::vector<TarMember> out;
  for (const auto& [path, data] : members) out.push_back(TarMember{path, data});
  return out;
}

std::vector<uint8_t> WrapPayload(const std::vector<uint8_t>& payload, Header header) {
  header.data_size = payload.size();
  auto hash = ComputePayloadHash(header.pkg_version, payload);
  if (hash.ok()) header.hash = *hash;
  auto head = EncodeHeader(header);
  std::vector<uint8_t> out(head.size() + payload.size());
  std::memcpy(out.data(), head.data(), head.size());
  if (!payload.empty()) std::memcpy(out.data() + head.size(), payload.data(), payload.size());
  return out;
}

std::vector<uint8_t> NeffFromMembers(const std::map<std::string, std::string>& members) {
  return WrapPayload(Gzip(Tar(ToTar(members))));
}

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace trnsim::neff::testing
