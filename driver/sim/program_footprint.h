// LoadedProgramBytes: the host memory SimDevice holds for a program once LoadProgram has
// decoded it (SimDevice::LoadedProgram), estimated from the ProgramImage before decoding, so a
// caller can account for it — neurond charges it to the session that loads the program
// (tools/neurond/README.md, "Memory a session can hold").
//
// The estimate is an upper bound of what decoding allocates, from untrusted bytes: per engine
// stream, the instruction count of its header, capped at one isa::Instruction per minimum-size
// record the body could hold (DecodeStream allocates no more, and refuses a larger count), times
// sizeof(isa::Instruction); plus every DMA descriptor with its endpoints' steps and sizes; plus
// kLoadedProgramOverheadBytes. A decoded instruction is a fixed-size struct (~400 bytes) while a
// record is 48 bytes and up, so a program costs up to ~8× its stream bytes once loaded.
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
