// The data directives of the .s format: variables, header fields, queue sets, descriptors and
// engine tables (docs/toolchain.md lists every key).
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/neff/npy.h"
#include "tools/kernel_builder/asm_internal.h"
#include "tools/kernel_builder/asm_text.h"

namespace trnsim::kb::internal {
namespace {

using asmtext::ParseInt;
using asmtext::ParseUint;
using asmtext::SplitKey;

StatusOr<std::vector<uint8_t>> ReadFileData(const AsmState& s, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(s.options.base_dir) / p;
  std::ifstream f(p, std::ios::binary);
  if (!f) return s.Error("cannot read " + p.string());
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!neff::IsNpyFileName(path)) return bytes;
  StatusOr<neff::NpyArray> npy = neff::ParseNpy(bytes, path);
  if (!npy.ok()) return s.Error(npy.status().message());
  return std::vector<uint8_t>(bytes.begin() + static_cast<int64_t>(npy->data_offset), bytes.end());
}

}  // namespace

Status DirectiveVariable(AsmState& s, const Tokens& t) {
  const std::string& d = t[0];
  bool scratch = d == ".scratch";
  size_t positional = scratch ? 3 : 4;  // .scratch NAME BYTES | .input NAME DTYPE [SHAPE]
  if (t.size() < positional) {
    return s.Error(scratch ? ".scratch takes NAME BYTES" : d + " takes NAME DTYPE [SHAPE]");
  }
  VarOptions opt;
  opt.subgraph = s.subgraph;
  std::optional<std::vector<uint8_t>> data;
  for (size_t i = positional; i < t.size(); ++i) {
    auto [key, value] = SplitKey(t[i]);
    if (key == "id") {
      auto v = ParseInt(value);
      if (!v) return s.Error("id=" + value + ": not a number");
      opt.var_id = *v;
    } else if (key == "align") {
      auto v = ParseUint(value);
      if (!v) return s.Error("align=" + value + ": not a number");
      opt.alignment = *v;
    } else if (d == ".const" && key == "file_name" && !value.empty()) {
      opt.file_name = value;
    } else if (d == ".const" && key == "hex") {
      data = asmtext::ParseHex(value);
      if (!data) return s.Error("hex=: not an even number of hex digits");
    } else if (d == ".const" && key == "file") {
      TRNSIM_ASSIGN_OR_RETURN(data, ReadFileData(s, value));
    } else {
      return s.Error(d + ": unknown key '" + t[i] + "'");
    }
  }
  StatusOr<HbmTensor> made = InvalidError("?");
  if (scratch) {
    auto bytes = ParseUint(t[2]);
    if (!bytes) return s.Error(".scratch " + t[1] + ": size '" + t[2] + "' is not a number");
    made = s.builder.AddScratch(t[1], *bytes, opt);
  } else {
    auto dtype = isa::DtypeFromShortName(t[2]);
    if (!dtype) return s.Error(d + " " + t[1] + ": unknown dtype '" + t[2] + "'");
    auto shape = asmtext::ParseShape(t[3]);
    if (!shape) return s.Error(d + " " + t[1] + ": shape '" + t[3] + "' is not like [128, 512]");
    if (d == ".input") {
      made = s.builder.AddInput(t[1], *dtype, *shape, opt);
    } else if (d == ".output") {
      made = s.builder.AddOutput(t[1], *dtype, *shape, opt);
    } else {
      if (!data) return s.Error(".const " + t[1] + ": needs hex=DATA or file=PATH");
      made = s.builder.AddConstant(t[1], *dtype, *shape, std::move(*data), opt);
    }
  }
  if (!made.ok()) return s.Error(made.status().message());
  return Status::Ok();
}

Status DirectiveHeader(AsmState& s, const Tokens& t) {
  neff::Header& h = s.builder.header();
  for (size_t i = 1; i < t.size(); ++i) {
    auto [key, value] = SplitKey(t[i]);
    auto n = ParseUint(value);
    if (key == "neff_version") {
      size_t dot = value.find('.');
      auto major = ParseUint(value.substr(0, dot));
      auto minor =
          dot == std::string::npos ? std::optional<uint64_t>(0) : ParseUint(value.substr(dot + 1));
      if (!major || !minor) return s.Error(".header neff_version=" + value + ": not MAJOR.MINOR");
      h.neff_version_major = *major;
      h.neff_version_minor = *minor;
    } else if (key == "tpb_per_node") {
      auto bytes = asmtext::ParseHex(value);
      if (!bytes || bytes->size() > h.tpb_per_node.size())
        return s.Error(".header tpb_per_node: up to 128 hex digits");
      h.tpb_per_node = {};
      std::copy(bytes->begin(), bytes->end(), h.tpb_per_node.begin());
    } else if (!n) {
      return s.Error(".header: expected key=NUMBER, got '" + t[i] + "'");
    } else if (key == "pkg_version") {
      h.pkg_version = *n;
    } else if (key == "num_tpb" && *n <= UINT32_MAX) {
      h.num_tpb = static_cast<uint32_t>(*n);
    } else if (key == "requested_tpb_count" && *n <= UINT32_MAX) {
      h.requested_tpb_count = static_cast<uint32_t>(*n);
    } else if (key == "feature_bits") {
      h.feature_bits = *n;
    } else {
      return s.Error(".header: unknown key '" + t[i] + "'");
    }
  }
  return Status::Ok();
}

Status DirectiveQueueSet(AsmState& s, const Tokens& t) {
  if (t.size() < 2) return s.Error(".queue_set takes NAME type=TYPE ...");
  neff::QueueSet q;
  q.name = t[1];
  for (size_t i = 2; i < t.size(); ++i) {
    auto [key, value] = SplitKey(t[i]);
    auto n = ParseInt(value);
    auto list = asmtext::ParseIntList(value);
    if (key == "type") {
      q.type = value;
    } else if (key == "num_queues" && n && *n >= 0 && *n <= UINT32_MAX) {
      q.num_queues = static_cast<uint32_t>(*n);
    } else if (key == "owner") {
      q.owner = value;
    } else if (key == "semaphore" && n) {
      q.semaphore = *n;
    } else if (key == "semaphore_set" && list) {
      q.semaphore_set = *list;
    } else if (key == "instances" && !value.empty()) {
      size_t start = 0;
      while (true) {
        size_t comma = value.find(',', start);
        q.queue_instances.push_back(value.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (key == "pinned" && value.empty()) {
      q.pinned = true;
    } else if (key == "fabric" && !value.empty()) {
      q.fabric_path = value;
    } else {
      return s.Error(".queue_set: unknown or malformed key '" + t[i] + "'");
    }
  }
  if (q.type.empty()) return s.Error(".queue_set " + q.name + ": type= is required");
  Status added = s.core().AddQueueSet(q);
  return added.ok() ? added : s.Error(added.message());
}

namespace {

// from_* / to_* keys of a descriptor side.
bool AccessKey(const std::string& key, const std::string& value, neff::DmaAccess* a) {
  if (key.empty()) {
    a->var = value;
    return !value.empty();
  }
  if (key == "_off") {
    auto v = ParseUint(value);
    if (v) a->offset = *v;
    return v.has_value();
  }
  if (key == "_steps") {
    auto v = asmtext::ParseIntList(value);
    if (v) a->steps = *v;
    return v.has_value();
  }
  if (key == "_sizes") {
    auto v = asmtext::ParseIntList(value);
    if (!v) return false;
    a->sizes.clear();
    for (int64_t x : *v) {
      if (x < 0) return false;
      a->sizes.push_back(static_cast<uint64_t>(x));
    }
    return true;
  }
  if (key == "_dtype") {
    auto d = isa::DtypeFromNeffName(value);
    if (d) a->dtype = *d;
    return d.has_value();
  }
  return false;
}

}  // namespace

Status DirectiveDma(AsmState& s, const Tokens& t) {
  if (!s.engine) return s.Error(".dma outside an .engine section");
  neff::DmaDescriptor d;
  neff::DmaAccess from;
  bool has_id = false, has_from = false;
  for (size_t i = 1; i < t.size(); ++i) {
    auto [key, value] = SplitKey(t[i]);
    auto n = ParseInt(value);
    auto f = asmtext::ParseDouble(value);
    bool ok = true;
    if (key == "id" && n) {
      d.id = *n;
      has_id = true;
    } else if (key == "queue") {
      d.queue = value;
    } else if (key == "instance") {
      d.instance_name = value;
    } else if (key == "function_start") {
      d.function_start = value;
    } else if (key == "section_start" && value.empty()) {
      d.section_start_desc = true;
    } else if (key == "event" && n) {
      d.event = *n;
    } else if (key == "semaphore" && n) {
      d.semaphore = *n;
    } else if (key == "remote_semaphores") {
      auto list = asmtext::ParseIntList(value);
      ok = list.has_value();
      if (ok) d.remote_semaphores = *list;
    } else if (key == "op") {
      auto op = neff::DmaOpFromName(value);
      ok = op.has_value();
      if (ok) d.op = *op;
    } else if (key == "tiling" && n && *n >= 0) {
      d.num_tiling_dimensions = static_cast<uint32_t>(*n);
    } else if (key == "scale" && f) {
      d.scale = *f;
    } else if (key == "constant" && f) {
      d.constant = *f;
    } else if (key == "scale_dtype" || key == "constant_dtype") {
      auto dt = isa::DtypeFromNeffName(value);
      ok = dt.has_value();
      if (ok) (key == "scale_dtype" ? d.scale_dtype : d.constant_dtype) = *dt;
    } else if (key == "transpose_shape") {
      auto list = asmtext::ParseIntList(value);
      ok = list && list->size() == 4;
      for (size_t j = 0; ok && j < 4; ++j) d.transpose_shape[j] = static_cast<uint32_t>((*list)[j]);
    } else if (key == "transpose_element_size" && n && *n >= 0) {
      d.transpose_element_size = static_cast<uint32_t>(*n);
    } else if (key.rfind("from", 0) == 0) {
      ok = AccessKey(key.substr(4), value, &from);
      has_from = true;
    } else if (key.rfind("to", 0) == 0) {
      ok = AccessKey(key.substr(2), value, &d.to);
    } else {
      ok = false;
    }
    if (!ok) return s.Error(".dma: unknown or malformed key '" + t[i] + "'");
  }
  if (!has_id) return s.Error(".dma: id= is required");
  if (has_from) d.from = from;
  Status added = s.core().AddDescriptor(*s.engine, d);
  return added.ok() ? added : s.Error(added.message());
}

Status DirectiveTables(AsmState& s, const Tokens& t) {
  if (!s.engine) return s.Error(t[0] + " outside an .engine section");
  EngineFiles& f = s.core().files(*s.engine);
  if (t[0] == ".act_tables") {
    if (t.size() != 2) return s.Error(".act_tables takes NAME,NAME,...");
    size_t start = 0;
    while (true) {
      size_t comma = t[1].find(',', start);
      f.activation_function_sets.push_back(t[1].substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return Status::Ok();
  }
  neff::DveTable table;
  for (size_t i = 1; i < t.size(); ++i) {
    auto [key, value] = SplitKey(t[i]);
    if (key == "control")
      table.control_table = value;
    else if (key == "datapath")
      table.datapath_table = value;
    else if (key == "opcode")
      table.opcode_table = value;
    else
      return s.Error(".dve_table: unknown key '" + t[i] + "'");
  }
  f.dve_tables.push_back(table);
  return Status::Ok();
}

}  // namespace trnsim::kb::internal
