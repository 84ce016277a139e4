#include "driver/sim/program_footprint.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "simulator/isa/encoding.h"

namespace trnsim::driver::sim {
namespace {

// The stream header's instruction count: a little-endian u32 after the magic (8 bytes), the
// version (u16), the engine (u8) and a reserved byte (docs/isa.md §5).
constexpr size_t kCountOffset = 12;

// The most a decoded `stream` can hold: its header's instruction count, capped at the records
// its body can hold (the decoder refuses a larger count), packed (isa::PackedProgram).
uint64_t MaxDecodedBytes(const std::vector<uint8_t>& stream) {
  if (stream.size() < isa::kStreamHeaderBytes) return 0;  // refused before any allocation
  uint32_t count = 0;
  for (size_t i = 0; i < 4; ++i) count |= uint32_t{stream[kCountOffset + i]} << (8 * i);
  const uint64_t body = stream.size() - isa::kStreamHeaderBytes;
  const uint64_t records = body / isa::kMinRecordBytes;
  return isa::PackedProgram::MaxHeldBytes(std::min<uint64_t>(count, records), body);
}

// What an endpoint's vectors own beyond the endpoint itself.
uint64_t EndpointHeapBytes(const simulator::dma::Endpoint& endpoint) {
  return endpoint.steps.size() * sizeof(int64_t) + endpoint.sizes.size() * sizeof(uint64_t);
}

}  // namespace

uint64_t LoadedProgramBytes(const ProgramImage& image) {
  uint64_t bytes = kLoadedProgramOverheadBytes;
  for (const std::vector<uint8_t>& stream : image.streams) {
    bytes += MaxDecodedBytes(stream);
  }
  for (const std::vector<simulator::dma::Descriptor>& list : image.descriptors.per_engine) {
    for (const simulator::dma::Descriptor& descriptor : list) {
      bytes += sizeof(descriptor) + EndpointHeapBytes(descriptor.dest);
      for (const simulator::dma::Endpoint& source : descriptor.sources) {
        bytes += sizeof(source) + EndpointHeapBytes(source);
      }
    }
  }
  return bytes;
}

}  // namespace trnsim::driver::sim
