// KernelBuilder::Build: streams -> semaphores -> encoded streams -> subgraphs -> Neff.
#include <map>
#include <set>

#include "runtime/neff/layout.h"
#include "runtime/neff/neff_io.h"
#include "runtime/neff/npy.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb {
namespace {

using isa::Instruction;
using isa::Opcode;

// The .npy descr of a dtype (bf16 and fp8 have no NumPy type: raw 'V' items of their width).
std::string NpyDescr(isa::Dtype d) {
  if (std::optional<std::string_view> native = isa::DtypeNpyDescr(d)) return std::string(*native);
  return "|V" + std::to_string(isa::DtypeSize(d));
}

// A deterministic UUID from the kernel name (FNV-1a, two lanes).
std::array<uint8_t, 16> NameUuid(const std::string& name) {
  std::array<uint8_t, 16> out{};
  uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
  for (int lane = 0; lane < 2; ++lane) {
    for (char c : name) h[lane] = (h[lane] ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
    for (int b = 0; b < 8; ++b) out[lane * 8 + b] = static_cast<uint8_t>(h[lane] >> (8 * b));
  }
  return out;
}

std::string DefaultJson(isa::Engine e) {
  return std::string(isa::EngineFileStem(e)) + ".json";
}
std::string DefaultInstr(isa::Engine e) {
  return std::string(isa::EngineFileStem(e)) + ".bin";
}

}  // namespace

StatusOr<neff::Subgraph> KernelBuilder::BuildSubgraph(const Core& core, const BuildOptions& options,
                                                      EnginePositions* positions) const {
  const int k = core.index();
  EngineStreams s;
  std::array<bool, isa::kEngineCount> branchy{};
  std::vector<Dependency> deps = core.dependencies();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const Stream& st = core.stream(static_cast<isa::Engine>(e));
    s[e] = st.instructions();
    branchy[e] = st.has_branches();
  }
  if (options.auto_finish) {
    for (int e = 0; e < isa::kEngineCount; ++e) {
      if (!s[e].empty() && s[e].back().opcode == Opcode::kNotifyEnd) continue;
      // The last dma_copy of each queue this engine used, and its last collective: notify_end
      // waits for them.
      std::map<uint32_t, int> last_copy;
      int last_collective = -1;
      for (size_t i = 0; i < s[e].size(); ++i) {
        if (s[e][i].opcode == Opcode::kDmaCopy) last_copy[s[e][i].index] = static_cast<int>(i);
        // A sendrecv lands in order with the dma_copies of its queue (`count`).
        if (s[e][i].opcode == Opcode::kSendRecv) last_copy[s[e][i].count] = static_cast<int>(i);
        if (s[e][i].opcode == Opcode::kCollective) last_collective = static_cast<int>(i);
      }
      Instruction end;
      end.opcode = Opcode::kNotifyEnd;
      s[e].push_back(end);
      InstRef ref{k, static_cast<isa::Engine>(e), static_cast<int>(s[e].size()) - 1};
      if (branchy[e]) continue;  // loops plumb their own end
      for (const auto& [queue, index] : last_copy) {
        deps.push_back({ref, InstRef{k, ref.engine, index}});
      }
      if (last_collective >= 0) deps.push_back({ref, InstRef{k, ref.engine, last_collective}});
    }
  }
  // The peer core's sendrecvs add to this core's semaphores: never allocate those here.
  std::set<int> reserved = core.reserved_semaphores();
  if (lnc() == 2) {
    const Core& peer = *cores_[static_cast<size_t>(k ^ 1)];
    for (int e = 0; e < isa::kEngineCount; ++e)
      for (const Instruction& inst : peer.stream(static_cast<isa::Engine>(e)).instructions())
        if (inst.opcode == Opcode::kSendRecv) reserved.insert(static_cast<int>(inst.index));
  }
  TRNSIM_RETURN_IF_ERROR(ResolveDependencies(k, deps, reserved, branchy, limits_, &s, positions));

  // HBM operands must name a variable of this subgraph and stay inside it.
  std::map<int64_t, const neff::Variable*> vars;
  for (const VarDecl& v : vars_) {
    if (v.subgraph == -1 || v.subgraph == k) vars[v.var.var_id] = &v.var;
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    for (size_t i = 0; i < s[e].size(); ++i) {
      // A debug_print names an entry of this core's prefix table.
      if (s[e][i].opcode == Opcode::kDebugPrint && s[e][i].index >= core.debug_prefixes().size()) {
        return InvalidError(neff::SubgraphDirName(static_cast<size_t>(k)) + " " +
                            std::string(isa::EngineName(static_cast<isa::Engine>(e))) + "[" +
                            std::to_string(i) + "] (debug_print): prefix " +
                            std::to_string(s[e][i].index) + " is not in the core's " +
                            std::to_string(core.debug_prefixes().size()) + " debug prefixes");
      }
      for (const isa::AccessPattern& ap : s[e][i].ap) {
        if (ap.memory != isa::Memory::kHbm) continue;
        std::string where = neff::SubgraphDirName(static_cast<size_t>(k)) + " " +
                            std::string(isa::EngineName(static_cast<isa::Engine>(e))) + "[" +
                            std::to_string(i) + "] (" + std::string(isa::Mnemonic(s[e][i].opcode)) +
                            "): ";
        auto it = vars.find(ap.var_id);
        if (it == vars.end()) {
          return InvalidError(where + "var" + std::to_string(ap.var_id) +
                              " is not a variable of this subgraph");
        }
        auto range = isa::StaticByteRange(ap);
        if (ap.offset_reg == isa::kNoRegister && range &&
            static_cast<uint64_t>(range->hi) > it->second->size) {
          return InvalidError(where + "reaches byte " + std::to_string(range->hi) + " of var" +
                              std::to_string(ap.var_id) + " '" + it->second->name + "' (" +
                              std::to_string(it->second->size) + " bytes)");
        }
      }
    }
  }

  neff::Subgraph sg;
  sg.name = neff::SubgraphDirName(static_cast<size_t>(k));
  sg.def_name = core.def_name;
  sg.def_version = core.def_version;
  sg.queue_sets = core.queue_sets();
  sg.debug_prefixes = core.debug_prefixes().entries();
  for (const VarDecl& v : vars_) {
    if (v.subgraph != -1 && v.subgraph != k) continue;
    sg.variables.push_back(v.var);
    if (v.var.type == neff::VariableType::kFile) {
      std::vector<uint8_t> bytes =
          neff::IsNpyFileName(v.var.file_name)
              ? neff::MakeNpy(NpyDescr(v.dtype),
                              std::vector<uint64_t>(v.shape.begin(), v.shape.end()), v.file)
              : v.file;
      sg.files[v.var.file_name] = std::move(bytes);
    }
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    auto engine = static_cast<isa::Engine>(e);
    const Stream& st = core.stream(engine);
    if (!options.auto_finish && !st.declared()) continue;
    // Labels: streams with branches get no inserted waits, so positions are final.
    for (const Stream::LabelUse& use : st.label_uses()) {
      int pos = st.label_positions()[use.label];
      if (pos < 0) {
        return InvalidError(sg.name + " " + std::string(isa::EngineName(engine)) + ": label '" +
                            st.label_names()[use.label] + "' is never bound");
      }
      s[e][use.index].target = pos;
    }
    const EngineFiles& f = core.files(engine);
    neff::EngineProgram p;
    p.engine = engine;
    p.json_file = f.json_file == "-" ? "" : f.json_file.empty() ? DefaultJson(engine) : f.json_file;
    p.dma = f.dma;
    p.activation_function_sets = f.activation_function_sets;
    p.dve_tables = f.dve_tables;
    if (!s[e].empty()) {
      p.instr_file = f.instr_file.empty() ? DefaultInstr(engine) : f.instr_file;
      StatusOr<std::vector<uint8_t>> bytes = isa::EncodeStream(engine, s[e], limits_);
      if (!bytes.ok()) {
        return InvalidError(sg.name + " " + std::string(isa::EngineName(engine)) + ": " +
                            bytes.status().message());
      }
      p.instructions = std::move(bytes).value();
    } else if (p.json_file.empty()) {
      return InvalidError(sg.name + " " + std::string(isa::EngineName(engine)) +
                          ": an engine with neither instructions nor an engine JSON");
    }
    sg.engines.push_back(std::move(p));
  }
  return sg;
}

StatusOr<neff::Neff> KernelBuilder::Build(const BuildOptions& options,
                                          StreamPositions* positions) const {
  TRNSIM_RETURN_IF_ERROR(diagnostics_.first());
  neff::Neff n;
  n.header = header_;
  n.header.name = options_.name;
  n.header.lnc_size = static_cast<uint32_t>(lnc());
  if (n.header.uuid == std::array<uint8_t, 16>{}) n.header.uuid = NameUuid(options_.name);
  StreamPositions moved(cores_.size());
  for (size_t k = 0; k < cores_.size(); ++k) {
    TRNSIM_ASSIGN_OR_RETURN(neff::Subgraph sg, BuildSubgraph(*cores_[k], options, &moved[k]));
    n.subgraphs.push_back(std::move(sg));
  }
  for (neff::TensorUsage usage : {neff::TensorUsage::kInput, neff::TensorUsage::kOutput}) {
    neff::VariableType type = usage == neff::TensorUsage::kInput ? neff::VariableType::kInput
                                                                 : neff::VariableType::kOutput;
    for (const VarDecl& v : vars_) {
      if (v.var.type != type) continue;
      bool seen = false;
      for (const neff::TensorDecl& t : n.tensors) seen = seen || t.name == v.var.name;
      if (seen) continue;  // one tensor per name, however many subgraphs declare it
      n.tensors.push_back({v.var.name, usage, v.var.size, v.dtype, v.shape});
    }
  }
  if (positions != nullptr) *positions = std::move(moved);
  return n;
}

StatusOr<std::vector<uint8_t>> KernelBuilder::BuildBytes(const BuildOptions& options) const {
  TRNSIM_ASSIGN_OR_RETURN(neff::Neff n, Build(options));
  return neff::WriteNeff(n);
}

}  // namespace trnsim::kb
