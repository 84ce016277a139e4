// Tile and HbmTensor: the typed handles a kernel generator works with, and the access patterns
// (isa::AccessPattern, docs/isa.md §4) they turn into.
//
// A Tile is a region of SBUF or PSUM seen as [partitions, cols] elements of one dtype, stored
// contiguously from `offset` in each partition. An HbmTensor is a NEFF variable seen as a
// row-major array: the last dimension of its shape is `cols`, the others are flattened into
// `rows`. Both are plain values; slicing never allocates.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/access_pattern.h"

namespace trnsim::kb {

using Dims = std::initializer_list<std::pair<uint16_t, int32_t>>;  // (size, stride) in elements

struct Tile {
  isa::Memory memory = isa::Memory::kSbuf;
  int start_partition = 0;
  int partitions = 0;
  int64_t offset = 0;  // bytes, in every partition
  isa::Dtype dtype = isa::Dtype::kFloat32;
  int64_t cols = 0;  // elements per partition

  int64_t bytes_per_partition() const { return cols * isa::DtypeSize(dtype); }
  // The whole tile, [partitions, cols] (cols over 65535 is split into two free dims).
  isa::AccessPattern ap() const;
  // The tile's partitions with explicit free dims, starting `first_col` elements in.
  isa::AccessPattern ap(Dims dims, int64_t first_col = 0) const;
  // Columns [first, first + n) of every partition.
  Tile Cols(int64_t first, int64_t n) const;
  // Partitions [first, first + n) (relative to start_partition).
  Tile Rows(int first, int n) const;
  // The same bytes as another dtype (cols rescaled; the byte size must divide evenly).
  Tile As(isa::Dtype dtype) const;
};

struct HbmTensor {
  std::string name;
  uint32_t var_id = 0;
  isa::Dtype dtype = isa::Dtype::kUint8;
  std::vector<uint32_t> shape;  // empty for untyped scratch (then rows = 1, cols = bytes)
  uint64_t bytes = 0;

  int64_t cols() const;
  int64_t rows() const;
  // Rows [row, row + nrows) x columns [col, col + ncols) of the row-major [rows, cols] view:
  // nrows rows of stride cols, then ncols contiguous elements.
  isa::AccessPattern Block(int64_t row, int nrows, int64_t col, int ncols) const;
  // The same block read transposed: ncols rows (stride 1 element), each of nrows elements of
  // stride cols — element (c, r) of the result is element (row + r, col + c) of the tensor.
  // This is how a kernel loads X^T tiles for the PE without an on-chip transpose.
  isa::AccessPattern BlockTransposed(int64_t row, int nrows, int64_t col, int ncols) const;
  // Any pattern: `nrows` rows of `row_stride` elements from element `first`, then free dims.
  isa::AccessPattern ap(int64_t first, uint16_t nrows, int32_t row_stride, Dims dims) const;
  // The whole tensor keeping its shape: rows = shape[0] and one free dim per later dimension,
  // row-major (a 1-D [n] tensor is one row of n) — what debug_print needs to report the shape
  // as declared. NRT_INVALID for more than 5 dimensions, a dimension over 65535, or an
  // untyped (shapeless) tensor.
  StatusOr<isa::AccessPattern> Whole() const;
};

}  // namespace trnsim::kb
