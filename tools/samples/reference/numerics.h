// Reference numerics for the sample kernels (header-only, no trnsim dependencies): bf16
// rounding, the deterministic input generator, host arrays and their byte form, and the
// tolerance check the chip-model tests use to compare a kernel's outputs with the reference.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace trnsim::samples {

enum class Dtype { kFloat32, kBfloat16 };

inline const char* DtypeName(Dtype d) { return d == Dtype::kFloat32 ? "float32" : "bfloat16"; }
inline int DtypeBytes(Dtype d) { return d == Dtype::kFloat32 ? 4 : 2; }

// fp32 -> bf16 bits, round to nearest even (NaN stays a quiet NaN).
inline uint16_t Bf16Bits(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) {
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  }
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
inline float FromBf16Bits(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}
// The bf16 value nearest to f, as a float.
inline float RoundBf16(float f) { return FromBf16Bits(Bf16Bits(f)); }
inline float RoundTo(Dtype d, float f) { return d == Dtype::kBfloat16 ? RoundBf16(f) : f; }

// splitmix64: the same sequence on every platform and compiler (unlike <random> distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi): 24 random bits, exact in fp32.
  float Uniform(float lo, float hi) {
    float u = static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
  }

 private:
  uint64_t state_;
};

// A host array in row-major order. `data` holds values representable in `dtype`.
struct Array {
  std::string name;
  Dtype dtype = Dtype::kFloat32;
  std::vector<uint32_t> shape;
  std::vector<float> data;

  size_t elements() const {
    size_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
  }
  size_t bytes() const { return elements() * DtypeBytes(dtype); }
};

inline Array MakeArray(std::string name, Dtype dtype, std::vector<uint32_t> shape) {
  Array a{std::move(name), dtype, std::move(shape), {}};
  a.data.assign(a.elements(), 0.0f);
  return a;
}

// Little-endian bytes as the NEFF tensor holds them (fp32, or bf16 bits).
inline std::vector<uint8_t> ToBytes(const Array& a) {
  std::vector<uint8_t> out(a.bytes());
  for (size_t i = 0; i < a.data.size(); ++i) {
    if (a.dtype == Dtype::kFloat32) {
      uint32_t u = std::bit_cast<uint32_t>(a.data[i]);
      for (int b = 0; b < 4; ++b) out[4 * i + b] = static_cast<uint8_t>(u >> (8 * b));
    } else {
      uint16_t u = Bf16Bits(a.data[i]);
      out[2 * i] = static_cast<uint8_t>(u);
      out[2 * i + 1] = static_cast<uint8_t>(u >> 8);
    }
  }
  return out;
}

inline Array FromBytes(std::string name, Dtype dtype, std::vector<uint32_t> shape,
                       const std::vector<uint8_t>& bytes) {
  Array a = MakeArray(std::move(name), dtype, std::move(shape));
  for (size_t i = 0; i < a.data.size() && (i + 1) * DtypeBytes(dtype) <= bytes.size(); ++i) {
    if (dtype == Dtype::kFloat32) {
      uint32_t u = 0;
      for (int b = 0; b < 4; ++b) u |= static_cast<uint32_t>(bytes[4 * i + b]) << (8 * b);
      a.data[i] = std::bit_cast<float>(u);
    } else {
      a.data[i] = FromBf16Bits(static_cast<uint16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
    }
  }
  return a;
}

// |actual - expected| <= atol + rtol * |expected|, element by element.
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};

struct CompareResult {
  bool ok = true;
  size_t mismatches = 0;
  size_t first_mismatch = 0;  // element index, when !ok
  double max_abs_error = 0.0;
};

inline CompareResult Compare(const Array& actual, const Array& expected, Tolerance tol) {
  CompareResult r;
  if (actual.data.size() != expected.data.size()) {
    r.ok = false;
    r.mismatches = expected.data.size();
    return r;
  }
  for (size_t i = 0; i < expected.data.size(); ++i) {
    double a = actual.data[i], e = expected.data[i];
    double err = std::fabs(a - e);
    if (std::isnan(a) || std::isnan(e)) err = std::isnan(a) && std::isnan(e) ? 0.0 : INFINITY;
    if (err > r.max_abs_error) r.max_abs_error = err;
    if (!(err <= tol.atol + tol.rtol * std::fabs(e))) {
      if (r.ok) r.first_mismatch = i;
      r.ok = false;
      ++r.mismatches;
    }
  }
  return r;
}

}  // namespace trnsim::samples
