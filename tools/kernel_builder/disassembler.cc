// Disassemble(): a Neff as .s text (the inverse of Assemble for NEFFs trnsim makes).
#include <algorithm>

#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"
#include "tools/kernel_builder/asm_text.h"
#include "tools/kernel_builder/assembler.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb {
namespace {

using asmtext::Hex;
using asmtext::IntListText;

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// The dtype a builder-made .npy constant was written with (build.cc's NpyDescr, inverted).
isa::Dtype DtypeOfNpy(const std::string& descr) {
  if (std::optional<isa::Dtype> native = isa::DtypeFromNpyDescr(descr)) return *native;
  if (descr == "|V2") return isa::Dtype::kBfloat16;
  if (descr == "|V1") return isa::Dtype::kFloat8E4;
  return isa::Dtype::kUint8;
}

std::string VariableLine(const neff::Neff& n, const neff::Subgraph& sg, const neff::Variable& v) {
  std::string tail = " id=" + std::to_string(v.var_id);
  if (v.alignment != 0) tail += " align=" + std::to_string(v.alignment);
  if (v.fabric_path != "main")
    return "# warning: variable " + v.name + " on fabric " + v.fabric_path +
           " is not expressible\n";
  switch (v.type) {
    case neff::VariableType::kInput:
    case neff::VariableType::kOutput: {
      const char* d = v.type == neff::VariableType::kInput ? ".input " : ".output ";
      for (const neff::TensorDecl& t : n.tensors) {
        if (t.name == v.name && t.dtype != isa::Dtype::kUnknown && !t.shape.empty()) {
          return d + v.name + " " + std::string(isa::DtypeShortName(t.dtype)) + " " +
                 asmtext::ShapeText(t.shape) + tail + "\n";
        }
      }
      return "# warning: no dtype/shape declared for " + v.name + "; bytes as uint8\n" + d +
             v.name + " uint8 [" + std::to_string(v.size) + "]" + tail + "\n";
    }
    case neff::VariableType::kFile: {
      StatusOr<std::span<const uint8_t>> data = neff::ConstantData(sg, v);
      if (!data.ok())
        return "# warning: constant " + v.name + ": " + data.status().message() + "\n";
      isa::Dtype dtype = isa::Dtype::kUint8;
      std::vector<uint32_t> shape = {static_cast<uint32_t>(v.size)};
      if (neff::IsNpyFileName(v.file_name)) {
        auto npy = neff::ParseNpy(sg.files.at(v.file_name), v.file_name);
        if (npy.ok()) {
          dtype = DtypeOfNpy(npy->descr);
          shape.assign(npy->shape.begin(), npy->shape.end());
          if (shape.empty()) shape = {1};
        }
      }
      std::string file = v.file_name == v.name + ".bin" ? "" : " file_name=" + v.file_name;
      return ".const " + v.name + " " + std::string(isa::DtypeShortName(dtype)) + " " +
             asmtext::ShapeText(shape) + " hex=" + Hex(*data) + file + tail + "\n";
    }
    case neff::VariableType::kTmpBuf:
      return ".scratch " + v.name + " " + std::to_string(v.size) + tail + "\n";
    default:
      return "# warning: variable " + v.name + " of type " +
             std::string(neff::VariableTypeName(v.type)) + " is not expressible in .s\n";
  }
}

std::string QueueSetLine(const neff::QueueSet& q) {
  std::string s = ".queue_set " + q.name + " type=" + q.type;
  if (q.num_queues != 1) s += " num_queues=" + std::to_string(q.num_queues);
  if (!q.owner.empty()) s += " owner=" + q.owner;
  if (q.semaphore) s += " semaphore=" + std::to_string(*q.semaphore);
  if (!q.semaphore_set.empty()) s += " semaphore_set=" + IntListText(q.semaphore_set);
  if (!q.queue_instances.empty()) {
    s += " instances=";
    for (size_t i = 0; i < q.queue_instances.size(); ++i)
      s += (i ? "," : "") + q.queue_instances[i];
  }
  if (q.pinned) s += " pinned";
  if (q.fabric_path != "main") s += " fabric=" + q.fabric_path;
  return s + "\n";
}

std::string AccessText(const char* side, const neff::DmaAccess& a) {
  std::string p = std::string(" ") + side;
  std::string s = p + "=" + a.var;
  if (a.offset) s += p + "_off=" + std::to_string(a.offset);
  if (!a.steps.empty()) s += p + "_steps=" + IntListText(a.steps);
  if (!a.sizes.empty()) {
    std::vector<int64_t> sizes(a.sizes.begin(), a.sizes.end());
    s += p + "_sizes=" + IntListText(sizes);
  }
  if (a.dtype != isa::Dtype::kUint8) s += p + "_dtype=" + std::string(isa::DtypeNeffName(a.dtype));
  return s;
}

std::string DescriptorLine(const neff::DmaDescriptor& d) {
  if (!d.from_arr.empty())
    return "# warning: CCE descriptor " + std::to_string(d.id) + " (from_arr) is not expressible\n";
  std::string s = ".dma id=" + std::to_string(d.id);
  if (!d.queue.empty()) s += " queue=" + d.queue;
  if (!d.instance_name.empty()) s += " instance=" + d.instance_name;
  if (!d.function_start.empty()) s += " function_start=" + d.function_start;
  if (d.section_start_desc) s += " section_start";
  if (d.event) s += " event=" + std::to_string(*d.event);
  if (d.semaphore) s += " semaphore=" + std::to_string(*d.semaphore);
  if (!d.remote_semaphores.empty()) s += " remote_semaphores=" + IntListText(d.remote_semaphores);
  if (d.op != neff::DmaOp::kCopy) s += " op=" + std::string(neff::DmaOpName(d.op));
  if (d.num_tiling_dimensions) s += " tiling=" + std::to_string(d.num_tiling_dimensions);
  if (d.scale != 1.0) s += " scale=" + asmtext::DoubleText(d.scale);
  if (d.scale_dtype != isa::Dtype::kFloat32)
    s += " scale_dtype=" + std::string(isa::DtypeNeffName(d.scale_dtype));
  if (d.constant != 0.0) s += " constant=" + asmtext::DoubleText(d.constant);
  if (d.constant_dtype != isa::Dtype::kFloat32)
    s += " constant_dtype=" + std::string(isa::DtypeNeffName(d.constant_dtype));
  if (d.transpose_shape != std::array<uint32_t, 4>{}) {
    std::vector<int64_t> v(d.transpose_shape.begin(), d.transpose_shape.end());
    s += " transpose_shape=" + IntListText(v);
  }
  if (d.transpose_element_size)
    s += " transpose_element_size=" + std::to_string(d.transpose_element_size);
  if (d.from) s += AccessText("from", *d.from);
  return s + AccessText("to", d.to) + "\n";
}

std::string HeaderLines(const neff::Header& h) {
  std::string s = ".kernel " + h.name + "\n.lnc " + std::to_string(h.lnc_size) + "\n.uuid " +
                  Hex(h.uuid) + "\n.build_version " + Quote(h.neff_build_version) + "\n";
  neff::Header def;
  std::string extra;
  if (h.pkg_version != def.pkg_version) extra += " pkg_version=" + std::to_string(h.pkg_version);
  if (h.neff_version_major != def.neff_version_major ||
      h.neff_version_minor != def.neff_version_minor) {
    extra += " neff_version=" + std::to_string(h.neff_version_major) + "." +
             std::to_string(h.neff_version_minor);
  }
  if (h.num_tpb != def.num_tpb) extra += " num_tpb=" + std::to_string(h.num_tpb);
  if (h.requested_tpb_count != def.requested_tpb_count)
    extra += " requested_tpb_count=" + std::to_string(h.requested_tpb_count);
  if (h.feature_bits != def.feature_bits)
    extra += " feature_bits=" + std::to_string(h.feature_bits);
  if (h.tpb_per_node != def.tpb_per_node) extra += " tpb_per_node=" + Hex(h.tpb_per_node);
  if (!extra.empty()) s += ".header" + extra + "\n";
  return s;
}

}  // namespace

StatusOr<std::string> Disassemble(const neff::Neff& n, const DisassembleOptions& options) {
  const simulator::ChipSpec* chip = ChipSpecByName(options.chip);
  if (chip == nullptr) return InvalidError("unknown chip '" + options.chip + "'");
  isa::IsaLimits limits = isa::LimitsFor(*chip);
  std::string out = "# " + n.header.name + ": disassembled by `neff disasm` (docs/toolchain.md)\n";
  out += HeaderLines(n.header);
  if (!n.top_files.empty()) out += "# warning: top-level payload files are not expressible\n";
  // Variables that every subgraph declares alike are printed once, before the subgraphs.
  const auto& first = n.subgraphs.front().variables;
  bool common = std::all_of(n.subgraphs.begin(), n.subgraphs.end(),
                            [&](const neff::Subgraph& sg) { return sg.variables == first; });
  if (common) {
    for (const neff::Variable& v : first) out += VariableLine(n, n.subgraphs.front(), v);
  }
  for (const neff::Subgraph& sg : n.subgraphs) {
    out += "\n.subgraph " + sg.name;
    if (!sg.def_name.empty()) out += " name=" + Quote(sg.def_name);
    if (!sg.def_version.empty()) out += " version=" + Quote(sg.def_version);
    out += "\n";
    if (!common) {
      for (const neff::Variable& v : sg.variables) out += VariableLine(n, sg, v);
    }
    for (const neff::QueueSet& q : sg.queue_sets) out += QueueSetLine(q);
    for (size_t i = 0; i < sg.debug_prefixes.size(); ++i) {
      out += ".debug_prefix " + std::to_string(i) + " " +
             asmtext::QuoteEscaped(sg.debug_prefixes[i]) + "\n";
    }
    for (const neff::EngineProgram& e : sg.engines) {
      auto engine = static_cast<isa::Engine>(e.engine);
      std::string stem(isa::EngineFileStem(e.engine));
      out += "\n.engine " + std::string(isa::EngineName(engine));
      if (e.json_file.empty())
        out += " json=-";
      else if (e.json_file != stem + ".json")
        out += " json=" + e.json_file;
      if (!e.instr_file.empty() && e.instr_file != stem + ".bin") out += " instr=" + e.instr_file;
      out += "\n";
      if (!e.activation_function_sets.empty()) {
        out += ".act_tables ";
        for (size_t i = 0; i < e.activation_function_sets.size(); ++i) {
          out += (i ? "," : "") + e.activation_function_sets[i];
        }
        out += "\n";
      }
      for (const neff::DveTable& t : e.dve_tables) {
        out += ".dve_table control=" + t.control_table + " datapath=" + t.datapath_table +
               " opcode=" + t.opcode_table + "\n";
      }
      for (const neff::DmaDescriptor& d : e.dma) out += DescriptorLine(d);
      if (e.instructions.empty()) continue;
      StatusOr<isa::Program> program = isa::DecodeStream(e.instructions, limits);
      if (!program.ok()) {
        out +=
            "# warning: " + sg.name + "/" + e.instr_file + ": " + program.status().message() + "\n";
        continue;
      }
      for (const isa::Instruction& inst : program->instructions) {
        out += isa::FormatInstruction(inst) + "\n";
      }
    }
  }
  return out;
}

}  // namespace trnsim::kb
