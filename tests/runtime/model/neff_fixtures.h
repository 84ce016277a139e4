// Test helpers: neff::Neff values built directly in C++ (no file), and trnsim-encoded or
// foreign instruction streams.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/neff/neff.h"
#include "simulator/isa/encoding.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::runtime::model::testing {

inline neff::Variable Var(std::string name, neff::VariableType type, int64_t var_id,
                          uint64_t size) {
  neff::Variable var;
  var.name = std::move(name);
  var.type = type;
  var.var_id = var_id;
  var.size = size;
  return var;
}

// An empty NEFF for `lnc` cores: one subgraph per physical core, no variables, no streams.
inline neff::Neff EmptyNeff(uint32_t lnc = 1, std::string name = "test-neff") {
  neff::Neff neff;
  neff.header.name = std::move(name);
  neff.header.lnc_size = lnc;
  for (uint32_t k = 0; k < lnc; ++k) {
    neff::Subgraph sg;
    sg.name = "sg0" + std::to_string(k);
    neff.subgraphs.push_back(std::move(sg));
  }
  return neff;
}

inline neff::TensorDecl Decl(std::string name, neff::TensorUsage usage, uint64_t size,
                             isa::Dtype dtype, std::vector<uint32_t> shape) {
  neff::TensorDecl decl;
  decl.name = std::move(name);
  decl.usage = usage;
  decl.size = size;
  decl.dtype = dtype;
  decl.shape = std::move(shape);
  return decl;
}

// A valid two-instruction stream in trnsim's encoding for `engine`: nop, notify_end (every
// stream must end with notify_end). Empty if encoding fails (the test then fails visibly).
inline std::vector<uint8_t> NopStream(isa::Engine engine, const simulator::ChipSpec& chip) {
  isa::Instruction program[2];
  program[0].opcode = isa::Opcode::kNop;
  program[1].opcode = isa::Opcode::kNotifyEnd;
  StatusOr<std::vector<uint8_t>> bytes = isa::EncodeStream(
      engine, std::span<const isa::Instruction>(program, 2), isa::LimitsFor(chip));
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

inline neff::EngineProgram Engine(isa::Engine kind, std::vector<uint8_t> instructions) {
  neff::EngineProgram program;
  program.engine = kind;
  program.json_file = std::string(isa::EngineFileStem(kind)) + ".json";
  program.instr_file = std::string(isa::EngineFileStem(kind)) + ".bin";
  program.instructions = std::move(instructions);
  return program;
}

// A .npy (format 1.0) file holding `data` as a 1-D uint8 array.
inline std::vector<uint8_t> Npy(const std::vector<uint8_t>& data, uint8_t major = 1) {
  std::string dict =
      "{'descr': '|u1', 'fortran_order': False, 'shape': (" + std::to_string(data.size()) + ",), }";
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  uint32_t len = static_cast<uint32_t>(dict.size());
  out.push_back(len & 0xFF);
  out.push_back((len >> 8) & 0xFF);
  if (major != 1) {
    out.push_back((len >> 16) & 0xFF);
    out.push_back((len >> 24) & 0xFF);
  }
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 13);
  return bytes;
}

}  // namespace trnsim::runtime::model::testing
