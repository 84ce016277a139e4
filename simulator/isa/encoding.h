// The binary instruction-stream format of trnsim (docs/isa.md §5): what a NEFF's
// `<Engine>.bin` holds. Little-endian; a 32-byte stream header (magic "TRNSIMIS", version,
// engine, instruction count, body size, CRC-32) then variable-length records whose sizes are
// explicit, so truncation and corruption are always detected.
//
// Decoding never trusts the bytes: it bounds every length before reading, reserves at most one
// packed entry per minimum-size record actually present (packed_program.h: records are packed
// as they are decoded), never loops past the input, and validates every instruction
// (ValidateProgram) once before returning. Any defect is NRT_INVALID.
//
// Including this header gives the whole ISA API: instructions, limits, validation, text form.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/instruction.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/isa/validate.h"
#include "simulator/isa/validated_program.h"

namespace trnsim::isa {

inline constexpr char kStreamMagic[8] = {'T', 'R', 'N', 'S', 'I', 'M', 'I', 'S'};
inline constexpr uint16_t kStreamFormatVersion = 1;
inline constexpr size_t kStreamHeaderBytes = 32;
inline constexpr size_t kRecordHeaderBytes = 8;
inline constexpr size_t kScalarBlockBytes = 40;
inline constexpr size_t kSyncBytes = 8;
inline constexpr size_t kApBytes = 56;
inline constexpr size_t kMinRecordBytes = kRecordHeaderBytes + kScalarBlockBytes;

// True when `bytes` starts with "TRNSIMIS" — an engine stream in trnsim's encoding (the loader
// uses it to refuse AWS's private encoding with a clear message).
bool HasStreamMagic(std::span<const uint8_t> bytes);

// Validates every instruction (ValidateProgram) and encodes the stream.
StatusOr<std::vector<uint8_t>> EncodeStream(Engine engine,
                                            std::span<const Instruction> instructions,
                                            const IsaLimits& limits);
// Parses and validates a stream: the program, marked as validated against `limits` (what a
// loader keeps, so that execution does not validate it again).
StatusOr<ValidatedProgram> DecodeValidatedStream(std::span<const uint8_t> bytes,
                                                 const IsaLimits& limits);
// The same, as a plain Program (tools, tests).
StatusOr<Program> DecodeStream(std::span<const uint8_t> bytes, const IsaLimits& limits);

// One record, for tools that work below the stream level (no validation; `out` is appended to).
void EncodeInstruction(const Instruction& inst, std::vector<uint8_t>& out);
// Decodes the record at the start of `bytes`; returns its size in bytes through `record_bytes`.
// Structural checks only (sizes, enum ranges, reserved bytes); no ISA validation.
StatusOr<Instruction> DecodeInstruction(std::span<const uint8_t> bytes, size_t* record_bytes);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32) — the stream checksum.
uint32_t Crc32(std::span<const uint8_t> bytes, uint32_t crc = 0);

}  // namespace trnsim::isa
