// LoadedProgramBytes: the host memory SimDevice holds for a program once LoadProgram has
// decoded it (SimDevice::LoadedProgram), estimated from the ProgramImage before decoding, so a
// caller can account for it — neurond charges it to the session that loads the program
// (tools/neurond/README.md, "Memory a session can hold").
//
// The estimate is an upper bound of what decoding keeps, from untrusted bytes: per engine
// stream, isa::PackedProgram::MaxHeldBytes of the instruction count of its header (capped at
// the minimum-size records the body could hold: the decoder refuses a larger count) and of its
// body bytes; plus every DMA descriptor with its endpoints' steps and sizes; plus
// kLoadedProgramOverheadBytes. The bound charges each record's fixed 48 bytes as an entry and
// four immediates, and each operand's 56 bytes as an index word and an unshared table entry, so
// a program costs at most ~1.07× its stream bytes once loaded (it was ~8× with 392-byte
// decoded Instructions).
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>

#include "driver/execution_types.h"

namespace trnsim::driver::sim {

// Bookkeeping of one loaded program beyond its instructions and descriptors: the LoadedProgram
// itself, its map entries and model name.
inline constexpr uint64_t kLoadedProgramOverheadBytes = 4096;

uint64_t LoadedProgramBytes(const ProgramImage& image);

}  // namespace trnsim::driver::sim
