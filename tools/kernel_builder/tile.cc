#include "tools/kernel_builder/tile.h"

#include <cstdint>

namespace trnsim::kb {
namespace {

isa::AccessPattern OnChip(const Tile& t, int64_t first_col, Dims dims) {
  isa::AccessPattern ap =
      t.memory == isa::Memory::kPsum
          ? isa::PsumAp(t.start_partition, t.partitions, t.offset, t.dtype, dims)
          : isa::SbufAp(t.start_partition, t.partitions, t.offset, t.dtype, dims);
  ap.offset += first_col * isa::DtypeSize(t.dtype);
  return ap;
}

}  // namespace

isa::AccessPattern Tile::ap() const {
  if (cols <= 0xFFFF) return OnChip(*this, 0, {{static_cast<uint16_t>(cols), 1}});
  // Split a long row into [outer x inner, inner x 1] with the largest inner size that divides it;
  // the validator reports a row that cannot be split.
  for (int64_t inner = 0xFFFF; inner > 1; --inner) {
    if (cols % inner == 0 && cols / inner <= 0xFFFF && inner <= 0x7FFF) {
      return OnChip(*this, 0,
                    {{static_cast<uint16_t>(cols / inner), static_cast<int32_t>(inner)},
                     {static_cast<uint16_t>(inner), 1}});
    }
  }
  return OnChip(*this, 0, {{0, 1}});
}

isa::AccessPattern Tile::ap(Dims dims, int64_t first_col) const {
  return OnChip(*this, first_col, dims);
}

Tile Tile::Cols(int64_t first, int64_t n) const {
  Tile t = *this;
  t.offset += first * isa::DtypeSize(dtype);
  t.cols = n;
  return t;
}

Tile Tile::Rows(int first, int n) const {
  Tile t = *this;
  t.start_partition += first;
  t.partitions = n;
  return t;
}

Tile Tile::As(isa::Dtype d) const {
  Tile t = *this;
  t.dtype = d;
  int size = isa::DtypeSize(d);
  t.cols = size > 0 ? bytes_per_partition() / size : 0;
  return t;
}

int64_t HbmTensor::cols() const {
  if (shape.empty()) return static_cast<int64_t>(bytes);
  return shape.back();
}

int64_t HbmTensor::rows() const {
  if (shape.empty()) return 1;
  int64_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

isa::AccessPattern HbmTensor::Block(int64_t row, int nrows, int64_t col, int ncols) const {
  return ap(row * cols() + col, static_cast<uint16_t>(nrows), static_cast<int32_t>(cols()),
            {{static_cast<uint16_t>(ncols), 1}});
}

isa::AccessPattern HbmTensor::BlockTransposed(int64_t row, int nrows, int64_t col,
                                              int ncols) const {
  return ap(row * cols() + col, static_cast<uint16_t>(ncols), 1,
            {{static_cast<uint16_t>(nrows), static_cast<int32_t>(cols())}});
}

isa::AccessPattern HbmTensor::ap(int64_t first, uint16_t nrows, int32_t row_stride,
                                 Dims dims) const {
  return isa::HbmAp(var_id, first * isa::DtypeSize(dtype), dtype, nrows, row_stride, dims);
}

StatusOr<isa::AccessPattern> HbmTensor::Whole() const {
  if (shape.empty()) return InvalidError("tensor '" + name + "' has no shape");
  std::vector<uint32_t> dims = shape;
  if (dims.size() == 1) dims.insert(dims.begin(), 1);
  if (dims.size() > 1 + static_cast<size_t>(isa::kMaxFreeDims)) {
    return InvalidError("tensor '" + name + "' has " + std::to_string(shape.size()) +
                        " dimensions; an access pattern has at most " +
                        std::to_string(1 + isa::kMaxFreeDims));
  }
  for (uint32_t d : dims) {
    if (d == 0 || d > 0xFFFF) {
      return InvalidError("tensor '" + name + "': dimension " + std::to_string(d) +
                          " is not 1..65535");
    }
  }
  isa::AccessPattern out = isa::HbmAp(var_id, 0, dtype, static_cast<uint16_t>(dims[0]), 0, {});
  int64_t stride = 1;
  for (size_t d = dims.size() - 1; d >= 1; --d) {
    out.sizes[d - 1] = static_cast<uint16_t>(dims[d]);
    out.strides[d - 1] = static_cast<int32_t>(stride);
    stride *= dims[d];
    if (stride > INT32_MAX) {
      return InvalidError("tensor '" + name + "' is too large for one access pattern's strides");
    }
  }
  out.num_dims = static_cast<uint8_t>(dims.size() - 1);
  out.partition_stride = static_cast<int32_t>(stride);
  return out;
}

}  // namespace trnsim::kb
