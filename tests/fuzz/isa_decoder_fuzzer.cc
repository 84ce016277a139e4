// libFuzzer target for the engine instruction-stream decoder and validator (make fuzz;
// tests/fuzz/README.md): isa::DecodeStream, the code every engine stream of a NEFF goes through
// on load (runtime/model/engine_programs.cc) and neurond on LoadProgram, with
// isa::DecodeInstruction and the Validate* rules below it.
//
// Every input is decoded three ways, none of which may crash, hang, leak or allocate without
// bound:
//  - as given, against Trainium2's and Trainium3's limits;
//  - with its header repaired (magic, body size and CRC-32 recomputed), so mutations reach the
//    records past the checksum; a stream that then decodes must re-encode (EncodeStream) to the
//    same bytes, and disassemble and assemble (FormatProgram / ParseProgram) to the same program;
//  - record by record from byte 32 (DecodeInstruction, structural checks only): a record that
//    decodes re-encodes to the same bytes; when it is also valid on some engine
//    (ValidateForEngine), it round-trips through the text form and, followed by notify_end, as a
//    whole stream of that engine.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "simulator/isa/encoding.h"

namespace isa = trnsim::isa;

namespace {

constexpr size_t kCrcOffset = 20;    // u32 in the stream header (docs/isa.md §5.1)
constexpr size_t kBodyOffset = 16;   // u32
constexpr size_t kMaxRecords = 256;  // records tried one by one per input

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "isa_decoder_fuzzer: %s\n", what.c_str());
  std::abort();
}

const isa::IsaLimits& Trn2() {
  static const isa::IsaLimits limits = isa::LimitsFor(trnsim::simulator::Trainium2Spec());
  return limits;
}
const isa::IsaLimits& Trn3() {
  static const isa::IsaLimits limits = isa::LimitsFor(trnsim::simulator::Trainium3Spec());
  return limits;
}

void Put32(std::vector<uint8_t>& bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

// `bytes` with a header the decoder's framing checks accept: the magic, the body size of what
// follows the header, and the CRC-32 over it all.
std::vector<uint8_t> RepairHeader(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> out(bytes.begin(), bytes.end());
  std::memcpy(out.data(), isa::kStreamMagic, sizeof(isa::kStreamMagic));
  Put32(out, kBodyOffset, static_cast<uint32_t>(out.size() - isa::kStreamHeaderBytes));
  Put32(out, kCrcOffset, 0);
  Put32(out, kCrcOffset, isa::Crc32(out));
  return out;
}

// A stream that decoded is canonical: it re-encodes to the same bytes, and its text form parses
// back to the same program.
void CheckProgramRoundTrips(const isa::Program& program, std::span<const uint8_t> bytes,
                            const isa::IsaLimits& limits) {
  trnsim::StatusOr<std::vector<uint8_t>> encoded =
      isa::EncodeStream(program.engine, program.instructions, limits);
  if (!encoded.ok()) Fail("EncodeStream refused a decoded stream: " + encoded.status().ToString());
  if (!std::equal(encoded->begin(), encoded->end(), bytes.begin(), bytes.end())) {
    Fail("a decoded stream re-encodes to other bytes");
  }
  const std::string text = isa::FormatProgram(program);
  trnsim::StatusOr<isa::Program> parsed = isa::ParseProgram(text);
  if (!parsed.ok())
    Fail("ParseProgram refused FormatProgram's text: " + parsed.status().ToString());
  if (!(*parsed == program)) Fail("the text form changed the program:\n" + text);
}

// One structurally decoded record that some engine accepts: the text form and a one-record
// stream give it back.
void CheckValidInstruction(isa::Engine engine, const isa::Instruction& inst) {
  const std::string line = isa::FormatInstruction(inst);
  trnsim::StatusOr<isa::Instruction> parsed = isa::ParseInstruction(line);
  if (!parsed.ok()) Fail("ParseInstruction refused '" + line + "': " + parsed.status().ToString());
  if (!(*parsed == inst)) Fail("the text form changed the instruction: " + line);
  if (inst.opcode == isa::Opcode::kBranch) return;  // its target need not exist in a 2-stream
  std::vector<isa::Instruction> stream = {inst};
  if (inst.opcode != isa::Opcode::kNotifyEnd)
    stream.push_back(isa::Instruction{isa::Opcode::kNotifyEnd});
  trnsim::StatusOr<std::vector<uint8_t>> bytes = isa::EncodeStream(engine, stream, Trn2());
  if (!bytes.ok()) return;  // stream rules (e.g. notify_end only last) may still refuse it
  trnsim::StatusOr<isa::Program> back = isa::DecodeStream(*bytes, Trn2());
  if (!back.ok()) Fail("DecodeStream refused what EncodeStream wrote: " + back.status().ToString());
  if (back->engine != engine || back->instructions != stream) Fail("stream round trip: " + line);
}

void DecodeRecords(std::span<const uint8_t> body) {
  for (size_t n = 0; n < kMaxRecords && !body.empty(); ++n) {
    size_t used = 0;
    trnsim::StatusOr<isa::Instruction> inst = isa::DecodeInstruction(body, &used);
    if (!inst.ok()) return;
    if (used == 0 || used > body.size()) Fail("DecodeInstruction consumed " + std::to_string(used));
    std::vector<uint8_t> again;
    isa::EncodeInstruction(*inst, again);
    if (!std::equal(again.begin(), again.end(), body.begin(), body.begin() + used)) {
      Fail("a decoded record re-encodes to other bytes: " + isa::FormatInstruction(*inst));
    }
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const isa::Engine engine = static_cast<isa::Engine>(e);
      if (isa::ValidateForEngine(engine, *inst, Trn2()).ok()) {
        CheckValidInstruction(engine, *inst);
        break;
      }
    }
    (void)isa::ValidateForEngine(isa::Engine::kPool, *inst, Trn3());
    body = body.subspan(used);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  trnsim::StatusOr<isa::Program> trn2 = isa::DecodeStream(bytes, Trn2());
  if (trn2.ok()) CheckProgramRoundTrips(*trn2, bytes, Trn2());
  trnsim::StatusOr<isa::Program> trn3 = isa::DecodeStream(bytes, Trn3());
  if (trn3.ok()) CheckProgramRoundTrips(*trn3, bytes, Trn3());
  if (size < isa::kStreamHeaderBytes) return 0;
  const std::vector<uint8_t> repaired = RepairHeader(bytes);
  trnsim::StatusOr<isa::Program> program = isa::DecodeStream(repaired, Trn2());
  if (program.ok()) CheckProgramRoundTrips(*program, repaired, Trn2());
  DecodeRecords(bytes.subspan(isa::kStreamHeaderBytes));
  return 0;
}
