#include "simulator/isa/access_pattern.h"

#include <array>
#include <limits>

namespace trnsim::isa {
namespace {

constexpr std::array<std::string_view, kMemoryCount> kNames = {"none", "sbuf", "psum", "hbm",
                                                               "iota"};

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return std::numeric_limits<uint64_t>::max();
  }
  return a * b;
}

AccessPattern Make(Memory memory, int start, int rows, int64_t offset, Dtype dtype,
                   std::initializer_list<std::pair<uint16_t, int32_t>> dims) {
  AccessPattern ap;
  ap.memory = memory;
  ap.dtype = dtype;
  ap.start_partition = static_cast<uint16_t>(start);
  ap.num_partitions = static_cast<uint16_t>(rows);
  ap.offset = offset;
  for (const auto& [size, stride] : dims) {
    if (ap.num_dims == kMaxFreeDims) break;
    ap.sizes[ap.num_dims] = size;
    ap.strides[ap.num_dims] = stride;
    ++ap.num_dims;
  }
  return ap;
}

}  // namespace

std::string_view MemoryName(Memory memory) {
  auto i = static_cast<size_t>(memory);
  return i < kNames.size() ? kNames[i] : "?";
}

uint64_t AccessPattern::FreeElements() const { return InnerElements(num_dims); }

uint64_t AccessPattern::Elements() const { return SaturatingMul(FreeElements(), num_partitions); }

uint64_t AccessPattern::InnerElements(int n) const {
  uint64_t product = 1;
  int dims = num_dims < kMaxFreeDims ? num_dims : kMaxFreeDims;
  for (int d = dims - n; d < dims; ++d) {
    if (d >= 0) product = SaturatingMul(product, sizes[d]);
  }
  return product;
}

std::optional<ByteRange> StaticByteRange(const AccessPattern& ap) {
  if (ap.memory != Memory::kSbuf && ap.memory != Memory::kPsum && ap.memory != Memory::kHbm) {
    return std::nullopt;
  }
  int elem = DtypeSize(ap.dtype);
  if (elem == 0 || ap.num_dims == 0 || ap.num_dims > kMaxFreeDims || ap.num_partitions == 0) {
    return std::nullopt;
  }
  // Lowest and highest element index; 128-bit so no input can overflow.
  __int128 lo = 0, hi = 0;
  auto extend = [&](uint16_t size, int32_t stride) {
    if (size == 0) return false;
    __int128 span = static_cast<__int128>(size - 1) * stride;
    (span < 0 ? lo : hi) += span;
    return true;
  };
  for (int d = 0; d < ap.num_dims; ++d) {
    if (!extend(ap.sizes[d], ap.strides[d])) return std::nullopt;
  }
  if (ap.memory == Memory::kHbm) extend(ap.num_partitions, ap.partition_stride);
  __int128 byte_lo = static_cast<__int128>(ap.offset) + lo * elem;
  __int128 byte_hi = static_cast<__int128>(ap.offset) + (hi + 1) * elem;
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  if (byte_lo < -kMax || byte_hi > kMax) return std::nullopt;
  return ByteRange{static_cast<int64_t>(byte_lo), static_cast<int64_t>(byte_hi)};
}

AccessPattern SbufAp(int start_partition, int num_partitions, int64_t offset_bytes, Dtype dtype,
                     std::initializer_list<std::pair<uint16_t, int32_t>> dims) {
  return Make(Memory::kSbuf, start_partition, num_partitions, offset_bytes, dtype, dims);
}

AccessPattern PsumAp(int start_partition, int num_partitions, int64_t offset_bytes, Dtype dtype,
                     std::initializer_list<std::pair<uint16_t, int32_t>> dims) {
  return Make(Memory::kPsum, start_partition, num_partitions, offset_bytes, dtype, dims);
}

AccessPattern HbmAp(uint32_t var_id, int64_t offset_bytes, Dtype dtype, uint16_t rows,
                    int32_t row_stride, std::initializer_list<std::pair<uint16_t, int32_t>> dims) {
  AccessPattern ap = Make(Memory::kHbm, 0, rows, offset_bytes, dtype, dims);
  ap.var_id = var_id;
  ap.partition_stride = row_stride;
  return ap;
}

AccessPattern PatternAp(int32_t base, uint16_t rows, int32_t row_step,
                        std::initializer_list<std::pair<uint16_t, int32_t>> dims) {
  AccessPattern ap = Make(Memory::kPattern, 0, rows, base, Dtype::kInt32, dims);
  ap.partition_stride = row_step;
  return ap;
}

}  // namespace trnsim::isa
