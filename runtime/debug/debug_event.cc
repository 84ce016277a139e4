#include "runtime/debug/debug_event.h"

#include <cstring>
#include <string>

namespace trnsim::runtime::debug {
namespace {

void PutU32(uint8_t* at, uint32_t v) {
  for (int b = 0; b < 4; ++b) at[b] = static_cast<uint8_t>(v >> (8 * b));
}
void PutU64(uint8_t* at, uint64_t v) {
  for (int b = 0; b < 8; ++b) at[b] = static_cast<uint8_t>(v >> (8 * b));
}

}  // namespace

std::string_view DebugDtypeName(isa::Dtype dtype) { return isa::DtypeNumpyName(dtype); }

StatusOr<DebugEvent> MakeTensorReadEvent(std::string_view prefix, uint32_t logical_nc_id,
                                         isa::Dtype dtype, std::span<const uint64_t> shape,
                                         std::span<const uint8_t> data) {
  if (prefix.size() >= kPrefixBytes) {
    return InvalidError("debug prefix of " + std::to_string(prefix.size()) +
                        " bytes does not fit the event's " + std::to_string(kPrefixBytes));
  }
  const std::string_view name = DebugDtypeName(dtype);
  if (name.empty()) return InvalidError("debug event of an unknown dtype");
  if (shape.empty() || shape.size() > kMaxShapeDims) {
    return InvalidError("debug event shape of " + std::to_string(shape.size()) +
                        " dimensions (1 to " + std::to_string(kMaxShapeDims) + ")");
  }
  // The running product never passes data.size() + 1 before it is compared, so it cannot wrap.
  uint64_t bytes = static_cast<uint64_t>(isa::DtypeSize(dtype));
  for (uint64_t d : shape) {
    bytes = d == 0 ? 0 : (bytes > data.size() / d ? data.size() + 1 : bytes * d);
  }
  if (bytes != data.size()) {
    return InvalidError("debug event data of " + std::to_string(data.size()) +
                        " bytes does not match its shape");
  }
  DebugEvent event;
  event.payload_bytes = kTensorDataOffset + data.size();
  event.payload.reset(static_cast<uint8_t*>(std::calloc(1, event.payload_bytes)));
  if (event.payload == nullptr) {
    return Status(
        StatusCode::kFailHostMemAlloc,
        "cannot allocate " + std::to_string(event.payload_bytes) + " bytes for a debug event");
  }
  uint8_t* p = event.payload.get();
  std::memcpy(p + kPrefixOffset, prefix.data(), prefix.size());
  PutU32(p + kLogicalNcIdOffset, logical_nc_id);
  PutU32(p + kPipeOffset, kDebugPipeStdout);
  std::memcpy(p + kDtypeOffset, name.data(), name.size());
  for (size_t i = 0; i < shape.size(); ++i) PutU64(p + kShapeOffset + 8 * i, shape[i]);
  PutU64(p + kDataSizeOffset, data.size());
  if (!data.empty()) std::memcpy(p + kTensorDataOffset, data.data(), data.size());
  return event;
}

}  // namespace trnsim::runtime::debug
