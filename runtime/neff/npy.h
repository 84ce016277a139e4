// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the constant format of NEFFs: parsing
// the header to find the array data, and writing one (for tools and tests).
//
// Accepted: a little-endian ('<') or byte-order-free ('|') dtype of kind b, i, u, f, c or V
// with an item size of 1..64 bytes ('>' and the machine-dependent '=' are refused);
// 'fortran_order': False; a shape of at most kMaxShapeRank non-negative dimensions. The data must
// follow the header exactly to the end of the file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace trnsim::neff {

struct NpyArray {
  std::string descr;  // e.g. "<f4", "|u1", "<V2"
  uint32_t item_bytes = 0;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // bytes of magic + version + header
  uint64_t data_bytes = 0;   // product(shape) * item_bytes == file size - data_offset
};

// `what` names the file in errors ("sg00/w.npy").
StatusOr<NpyArray> ParseNpy(std::span<const uint8_t> file, std::string_view what);

// A version 1.0 .npy of `data` (C order); data.size() must equal product(shape) * item size
// of `descr` (the caller's contract).
std::vector<uint8_t> MakeNpy(std::string_view descr, const std::vector<uint64_t>& shape,
                             std::span<const uint8_t> data);

// True when `file_name` ends in ".npy" (the rule that decides how a constant is read).
bool IsNpyFileName(std::string_view file_name);

}  // namespace trnsim::neff
