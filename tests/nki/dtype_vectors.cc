// nki_dtype_vectors OUT_DIR: dumps trnsim's own element conversions for tests/nki/test_dtypes.py,
// which checks python/trnsim_nki/dtypes.py against them bit for bit. Writes three .npy files
// (uint32, C order) into OUT_DIR:
//   encode.npy   [N, 6]: an fp32 input's bits, then its bf16, fp16, fp8e3, fp8e4, fp8e5 bits
//                as numerics::ConvertFromFp32 stores them (the bulk path of DMA casts and engine
//                writes, round to nearest even). The inputs: every bf16 pattern widened, alone
//                and with low bits that make ties and near-ties; the midpoint between every two
//                adjacent finite values of fp16 and each fp8 (and between max and the overflow
//                threshold) with its fp32 neighbours; fp32 specials (zeros, subnormals, inf,
//                quiet and signalling NaNs with assorted payloads); 2^18 random patterns.
//   decode16.npy [65536, 3]: a pattern, its bf16 and its fp16 value as fp32 bits.
//   decode8.npy  [256, 4]: a pattern, its fp8e3, fp8e4 and fp8e5 value as fp32 bits.
// Exit status 0 on success, 1 (with one line on stderr) on a usage or write error.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "runtime/neff/npy.h"
#include "simulator/isa/dtype.h"
#include "simulator/numerics/float_formats.h"

namespace {

using trnsim::isa::Dtype;
using trnsim::numerics::ConvertFromFp32;
using trnsim::numerics::ConvertToFp32;
using trnsim::numerics::DecodeFloat;
using trnsim::numerics::FloatFormat;

constexpr Dtype kNarrow[] = {Dtype::kBfloat16, Dtype::kFloat16, Dtype::kFloat8E3, Dtype::kFloat8E4,
                             Dtype::kFloat8E5};

// Midpoints between adjacent finite values of `format` (and between its max and 2^(emax+1),
// where rounding overflows), with the fp32 values just below and above each, both signs.
void AddMidpoints(FloatFormat format, std::vector<uint32_t>& inputs) {
  const uint32_t inf = ((1u << format.exp_bits) - 1) << format.man_bits;
  for (uint32_t p = 0; p < inf; ++p) {
    const double lo = DecodeFloat(format, p);
    const double hi = p + 1 < inf ? DecodeFloat(format, p + 1)
                                  : 2.0 * DecodeFloat(format, inf - (1u << format.man_bits));
    const float mid = static_cast<float>((lo + hi) / 2);  // exact: fp32 has more fraction bits
    for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      inputs.push_back(std::bit_cast<uint32_t>(v));
      inputs.push_back(std::bit_cast<uint32_t>(-v));
    }
  }
}

std::vector<uint32_t> Inputs() {
  std::vector<uint32_t> inputs;
  for (uint32_t p = 0; p < 0x10000; ++p) {
    for (uint32_t low : {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      inputs.push_back(p << 16 | low);
    }
  }
  for (FloatFormat f : {trnsim::numerics::kFp16Format, trnsim::numerics::kFp8E3Format,
                        trnsim::numerics::kFp8E4Format, trnsim::numerics::kFp8E5Format}) {
    AddMidpoints(f, inputs);
  }
  const uint32_t specials[] = {
      0x00000000, 0x00000001, 0x00000002, 0x00007fff, 0x00008000, 0x00008001,
      0x003fffff, 0x00400000, 0x007fffff, 0x00800000, 0x7f7fffff, 0x7f800000,
      0x7f800001, 0x7f801fff, 0x7f802000, 0x7f810000, 0x7f900000, 0x7fa00000,
      0x7fbfffff, 0x7fc00000, 0x7fc00001, 0x7fe00000, 0x7ff00000, 0x7fffffff,
  };
  for (uint32_t s : specials) {
    inputs.push_back(s);
    inputs.push_back(s | 0x80000000u);
  }
  uint64_t state = 17;  // splitmix64
  for (int i = 0; i < (1 << 18); ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    inputs.push_back(static_cast<uint32_t>((z ^ (z >> 31)) >> 32));
  }
  return inputs;
}

template <typename T>
std::vector<uint32_t> Encoded(const std::vector<float>& values, Dtype dtype) {
  std::vector<T> out(values.size());
  ConvertFromFp32(values.data(), dtype, out.data(), values.size());
  return std::vector<uint32_t>(out.begin(), out.end());
}

template <typename T>
std::vector<uint32_t> Decoded(uint32_t count, Dtype dtype) {
  std::vector<T> patterns(count);
  for (uint32_t p = 0; p < count; ++p) patterns[p] = static_cast<T>(p);
  std::vector<float> values(count);
  ConvertToFp32(dtype, patterns.data(), values.data(), count);
  std::vector<uint32_t> bits(count);
  for (uint32_t p = 0; p < count; ++p) bits[p] = std::bit_cast<uint32_t>(values[p]);
  return bits;
}

// Row-major [rows, columns.size()] of the given columns.
std::vector<uint32_t> Table(const std::vector<std::vector<uint32_t>>& columns) {
  const size_t rows = columns[0].size();
  std::vector<uint32_t> table;
  table.reserve(rows * columns.size());
  for (size_t r = 0; r < rows; ++r) {
    for (const auto& column : columns) table.push_back(column[r]);
  }
  return table;
}

bool Write(const std::string& path, const std::vector<uint32_t>& table, uint64_t columns) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(table.data());
  const std::vector<uint8_t> npy =
      trnsim::neff::MakeNpy("<u4", {table.size() / columns, columns},
                            std::span<const uint8_t>(bytes, table.size() * sizeof(uint32_t)));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(npy.data()), static_cast<std::streamsize>(npy.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "nki_dtype_vectors: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nki_dtype_vectors OUT_DIR\n");
    return 1;
  }
  const std::string dir = argv[1];
  const std::vector<uint32_t> inputs = Inputs();
  std::vector<float> values(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) values[i] = std::bit_cast<float>(inputs[i]);
  std::vector<std::vector<uint32_t>> encode = {inputs};
  for (Dtype dtype : kNarrow) {
    encode.push_back(trnsim::isa::DtypeSize(dtype) == 2 ? Encoded<uint16_t>(values, dtype)
                                                        : Encoded<uint8_t>(values, dtype));
  }
  std::vector<uint32_t> p16(0x10000), p8(0x100);
  for (uint32_t p = 0; p < 0x10000; ++p) p16[p] = p;
  for (uint32_t p = 0; p < 0x100; ++p) p8[p] = p;
  const bool ok = Write(dir + "/encode.npy", Table(encode), encode.size()) &&
                  Write(dir + "/decode16.npy",
                        Table({p16, Decoded<uint16_t>(0x10000, Dtype::kBfloat16),
                               Decoded<uint16_t>(0x10000, Dtype::kFloat16)}),
                        3) &&
                  Write(dir + "/decode8.npy",
                        Table({p8, Decoded<uint8_t>(0x100, Dtype::kFloat8E3),
                               Decoded<uint8_t>(0x100, Dtype::kFloat8E4),
                               Decoded<uint8_t>(0x100, Dtype::kFloat8E5)}),
                        4);
  return ok ? 0 : 1;
}
