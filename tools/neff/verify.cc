// neff verify: every check trnsim can make of a NEFF, one line per problem on stdout:
//   the header; data_size against the bytes present; the payload hash (always, unlike the
//   runtime's default); the container (neff::ReadNeff: JSON members, variables, descriptors,
//   tensors); every engine stream — in trnsim's encoding, decoding and validating for the chip,
//   encoded for the engine whose file holds it — and the stream's references into the NEFF:
//   HBM operands name a variable of the subgraph and stay inside it, dma_trigger names
//   descriptors of the engine's JSON, debug_print names a prefix of the subgraph's
//   def.json "debug_prefixes".
// When the container cannot be read, the streams found in the tar are still decoded.
// Exit status 0 (and "ok: ..." on stdout) when there is no problem, else 1.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/neff/archive.h"
#include "runtime/neff/hash.h"
#include "runtime/neff/header.h"
#include "runtime/neff/layout.h"
#include "runtime/neff/limits.h"
#include "runtime/neff/neff_io.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/neff/commands.h"
#include "tools/neff/files.h"

namespace trnsim::neff_tool {
namespace {

struct Problems {
  std::vector<std::string> lines;
  void Add(const std::string& where, const std::string& what) {
    lines.push_back(where + ": " + what);
  }
};

// Decodes one stream; adds its problems; returns the instruction count (0 on failure).
size_t CheckStream(const std::string& where, std::span<const uint8_t> bytes,
                   const isa::IsaLimits& limits, const neff::Subgraph* sg,
                   const neff::EngineProgram* engine, Problems* p) {
  if (!isa::HasStreamMagic(bytes)) {
    p->Add(where,
           "not in trnsim's instruction encoding (no TRNSIMIS magic); trnsim cannot execute it");
    return 0;
  }
  StatusOr<isa::Program> program = isa::DecodeStream(bytes, limits);
  if (!program.ok()) {
    p->Add(where, program.status().message());
    return 0;
  }
  if (engine == nullptr || sg == nullptr) return program->instructions.size();
  if (static_cast<int>(program->engine) != static_cast<int>(engine->engine)) {
    p->Add(where, "encoded for engine '" + std::string(isa::EngineName(program->engine)) + "'");
  }
  std::map<int64_t, uint64_t> sizes;  // var_id -> bytes
  for (const neff::Variable& v : sg->variables) sizes[v.var_id] = v.size;
  std::set<int64_t> descriptors;
  for (const neff::DmaDescriptor& d : engine->dma) descriptors.insert(d.id);
  for (size_t i = 0; i < program->instructions.size(); ++i) {
    const isa::Instruction& inst = program->instructions[i];
    std::string at = where + ": instruction " + std::to_string(i) + " (" +
                     std::string(isa::Mnemonic(inst.opcode)) + ")";
    for (const isa::AccessPattern& ap : inst.ap) {
      if (ap.memory != isa::Memory::kHbm) continue;
      auto it = sizes.find(ap.var_id);
      if (it == sizes.end()) {
        p->Add(at, "var" + std::to_string(ap.var_id) + " is not a variable of " + sg->name);
        continue;
      }
      auto range = isa::StaticByteRange(ap);
      if (range && ap.offset_reg == isa::kNoRegister &&
          static_cast<uint64_t>(range->hi) > it->second) {
        p->Add(at, "reaches byte " + std::to_string(range->hi) + " of var" +
                       std::to_string(ap.var_id) + " (" + std::to_string(it->second) + " bytes)");
      }
    }
    if (inst.opcode == isa::Opcode::kDebugPrint && inst.index >= sg->debug_prefixes.size()) {
      p->Add(at, "prefix " + std::to_string(inst.index) + " is not in " + sg->name +
                     "/def.json debug_prefixes (" + std::to_string(sg->debug_prefixes.size()) +
                     " entries)");
    }
    if (inst.opcode == isa::Opcode::kDmaTrigger) {
      for (uint32_t d = 0; d < inst.count; ++d) {
        if (descriptors.count(static_cast<int64_t>(inst.index) + d) == 0) {
          p->Add(at, "descriptor " + std::to_string(inst.index + d) + " is not in " +
                         engine->json_file);
        }
      }
    }
  }
  return program->instructions.size();
}

}  // namespace

int RunVerify(const VerifyArgs& args) {
  const simulator::ChipSpec* chip = kb::ChipSpecByName(args.chip);
  if (chip == nullptr) return Fail("verify", "unknown chip '" + args.chip + "'");
  isa::IsaLimits limits = isa::LimitsFor(*chip);
  StatusOr<std::vector<uint8_t>> bytes = ReadFile(args.neff);
  if (!bytes.ok()) return Fail("verify", bytes.status().message());
  const std::string& file = args.neff;
  Problems p;
  StatusOr<neff::Header> header = neff::DecodeHeader(*bytes);
  if (!header.ok()) {
    p.Add(file, header.status().message());
  } else {
    std::span<const uint8_t> payload = std::span<const uint8_t>(*bytes).subspan(neff::kHeaderSize);
    if (header->data_size != payload.size()) {
      p.Add(file, "header data_size is " + std::to_string(header->data_size) + " but " +
                      std::to_string(payload.size()) + " payload bytes follow the header");
    }
    Status hash = neff::VerifyPayloadHash(header->pkg_version, header->hash, payload);
    if (!hash.ok()) p.Add(file, hash.message());
    StatusOr<neff::Neff> n = neff::ReadNeff(*bytes);
    size_t streams = 0, instructions = 0;
    if (n.ok()) {
      for (const neff::Subgraph& sg : n->subgraphs) {
        for (const neff::EngineProgram& e : sg.engines) {
          if (e.instructions.empty()) continue;
          ++streams;
          instructions += CheckStream(file + ": " + sg.name + "/" + e.instr_file, e.instructions,
                                      limits, &sg, &e, &p);
        }
      }
      if (p.lines.empty()) {
        std::printf("ok: %s: NEFF \"%s\", %zu subgraphs, %zu streams, %zu instructions\n",
                    file.c_str(), n->header.name.c_str(), n->subgraphs.size(), streams,
                    instructions);
        return 0;
      }
    } else {
      p.Add(file, n.status().message());
      // The streams in the tar can still be checked on their own.
      StatusOr<std::vector<neff::ArchiveMember>> members =
          neff::ReadArchive(payload, neff::kMaxPayloadBytes);
      for (const neff::ArchiveMember& m :
           members.ok() ? *members : std::vector<neff::ArchiveMember>{}) {
        bool canonical = false;
        size_t slash = m.path.find('/');
        if (slash == std::string::npos ||
            !neff::SubgraphIndexOf(m.path.substr(0, slash), &canonical))
          continue;
        if (m.path.size() < 4 || m.path.substr(m.path.size() - 4) != ".bin") continue;
        CheckStream(file + ": " + m.path, m.data, limits, nullptr, nullptr, &p);
      }
    }
  }
  for (const std::string& line : p.lines) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  return 1;
}

}  // namespace trnsim::neff_tool
