// The bounds ReadNeff enforces, so that no input can make it allocate without limit, hang or
// recurse deeply. docs/neff.md ("Limits") explains each choice; a NEFF past a limit is
// NRT_INVALID with a message naming the limit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trnsim::neff {

// Tar payload.
inline constexpr size_t kMaxMembers = 65536;   // file entries in the tar
inline constexpr size_t kMaxPathBytes = 1024;  // one member path
// The payload may decompress to at most
//   min(kMaxPayloadBytes, max(kPayloadFloorBytes, kMaxCompressionRatio * NEFF size)).
// Member sizes are checked against this budget from the tar headers, before their data is
// decompressed, so a gzip bomb is refused at its first oversized header.
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{16} << 30;    // 16 GiB
inline constexpr uint64_t kPayloadFloorBytes = uint64_t{64} << 20;  // 64 MiB
inline constexpr uint64_t kMaxCompressionRatio = 256;

// JSON members (neff.json, def.json, engine JSON).
inline constexpr uint64_t kMaxJsonBytes = uint64_t{256} << 20;  // 256 MiB per member
inline constexpr size_t kMaxJsonDepth = 64;                     // nesting of arrays/objects

// Model.
inline constexpr size_t kMaxSubgraphs = 64;                       // sg00 .. sg63
inline constexpr uint64_t kMaxVariableBytes = uint64_t{1} << 40;  // 1 TiB (no HBM is larger)
inline constexpr size_t kMaxQueuesPerSet = 16;                    // "num_queues" (AWS: <= 16)
inline constexpr size_t kMaxApDims = 4;                           // *_steps / *_sizes entries
inline constexpr size_t kMaxFromArr = 16;                         // CCE sources
inline constexpr size_t kMaxShapeRank = 32;                       // neff.json / .npy shapes
// def.json "debug_prefixes": entries (isa::kMaxDebugPrefixes, the largest prefix id + 1) and
// bytes per prefix (the debug stream's prefix[512], NUL included).
inline constexpr size_t kMaxDebugPrefixes = 65536;
inline constexpr size_t kMaxDebugPrefixBytes = 511;

}  // namespace trnsim::neff
