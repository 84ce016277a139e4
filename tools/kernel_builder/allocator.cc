#include "tools/kernel_builder/allocator.h"

#include <algorithm>
#include <optional>

namespace trnsim::kb {
namespace {

constexpr int64_t kSbufDefaultAlign = 32;
constexpr int64_t kPsumMinAlign = 4;  // facts §2.2: psum_min_align

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

std::string S(int64_t v) { return std::to_string(v); }

}  // namespace

OnChipAllocator::OnChipAllocator(isa::Memory memory, int partitions, int64_t bytes_per_partition,
                                 int64_t bank_bytes)
    : memory_(memory),
      partitions_(partitions),
      bytes_per_partition_(bytes_per_partition),
      bank_bytes_(bank_bytes) {}

std::string OnChipAllocator::MemoryLabel() const {
  return memory_ == isa::Memory::kPsum ? "PSUM" : "SBUF";
}

StatusOr<Tile> OnChipAllocator::Allocate(std::string_view name, isa::Dtype dtype, int partitions,
                                         int64_t cols, int64_t align) {
  const std::string what = MemoryLabel() + " tile '" + std::string(name) + "'";
  int elem = isa::DtypeSize(dtype);
  if (elem == 0) return InvalidError(what + ": no dtype");
  if (partitions < 1 || partitions > partitions_) {
    return InvalidError(what + ": " + S(partitions) + " partitions (this core has " +
                        S(partitions_) + ")");
  }
  if (cols < 1) return InvalidError(what + ": " + S(cols) + " columns");
  bool psum = memory_ == isa::Memory::kPsum;
  int64_t min_align = psum ? kPsumMinAlign : 1;
  if (align == 0) align = psum ? kPsumMinAlign : kSbufDefaultAlign;
  if (align < min_align || (align & (align - 1)) != 0) {
    return InvalidError(what + ": alignment " + S(align) +
                        " is not a power of two >= " + S(min_align));
  }
  int64_t bytes = cols * elem;
  if (bytes > bytes_per_partition_) {
    return ResourceError(what + ": " + S(bytes) + " bytes per partition > the " +
                         S(bytes_per_partition_) + "-byte " + MemoryLabel() + " partition");
  }
  if (psum && bank_bytes_ > 0 && bytes > bank_bytes_) align = std::max(align, bank_bytes_);
  // First fit: try the start of each gap between allocated blocks.
  auto place = [&](int64_t from) {
    int64_t at = AlignUp(from, align);
    if (psum && bank_bytes_ > 0 && bytes <= bank_bytes_ &&
        at / bank_bytes_ != (at + bytes - 1) / bank_bytes_) {
      at = AlignUp(at, bank_bytes_);  // keep a one-bank tile inside one bank
    }
    return at;
  };
  int64_t cursor = 0;
  int64_t largest_gap = 0;
  std::optional<int64_t> found;
  for (auto it = blocks_.begin();; ++it) {
    int64_t gap_end = it == blocks_.end() ? bytes_per_partition_ : it->first;
    largest_gap = std::max(largest_gap, gap_end - cursor);
    int64_t at = place(cursor);
    if (at + bytes <= gap_end) {
      found = at;
      break;
    }
    if (it == blocks_.end()) break;
    cursor = it->first + it->second;
  }
  if (!found) {
    return ResourceError(what + " of " + S(bytes) + " bytes per partition (align " + S(align) +
                         ") does not fit: " + S(in_use_) + " of " + S(bytes_per_partition_) +
                         " bytes in use, largest free gap " + S(largest_gap));
  }
  blocks_.emplace(*found, bytes);
  in_use_ += bytes;
  high_water_ = std::max(high_water_, *found + bytes);
  Tile t;
  t.memory = memory_;
  t.start_partition = 0;
  t.partitions = partitions;
  t.offset = *found;
  t.dtype = dtype;
  t.cols = cols;
  return t;
}

Status OnChipAllocator::Free(const Tile& tile) {
  auto it = blocks_.find(tile.offset);
  if (tile.memory != memory_ || it == blocks_.end()) {
    return InvalidError(MemoryLabel() + ": no allocation starts at byte " + S(tile.offset));
  }
  in_use_ -= it->second;
  blocks_.erase(it);
  return Status::Ok();
}

}  // namespace trnsim::kb
