#include "simulator/numerics/float_formats.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

namespace trnsim::numerics {
namespace {

using isa::Dtype;

// The format is a template parameter so the per-element code folds to constants in bulk loops.
template <int E, int M>
float Decode(uint32_t bits) {
  constexpr uint32_t kExpMask = (1u << E) - 1;
  constexpr int kBias = (1 << (E - 1)) - 1;
  const uint32_t sign = ((bits >> (E + M)) & 1u) << 31;
  const uint32_t exp = (bits >> M) & kExpMask;
  const uint32_t frac = bits & ((1u << M) - 1);
  if (exp == kExpMask) return std::bit_cast<float>(sign | 0x7f800000u | (frac << (23 - M)));
  if (exp == 0) {
    // Subnormal (or zero): frac · 2^(1-bias-M), exact in fp32 for every trnsim format.
    const float magnitude = std::ldexp(static_cast<float>(frac), 1 - kBias - M);
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
  }
  return std::bit_cast<float>(sign | ((exp - kBias + 127) << 23) | (frac << (23 - M)));
}

template <int E, int M, bool kStochastic>
uint32_t Encode(float value, uint32_t random) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  constexpr uint32_t kInf = ((1u << E) - 1) << M;
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (bits >> 31) << (E + M);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {
    if (abs == 0x7f800000u) return sign | kInf;
    // NaN: keep the top payload bits, set the quiet bit.
    return sign | kInf | ((abs & 0x7fffffu) >> (23 - M)) | (1u << (M - 1));
  }
  const int e32 = static_cast<int>(abs >> 23);
  const uint64_t sig = e32 != 0 ? ((abs & 0x7fffffu) | 0x800000u) : abs;
  // Unbiased exponent of the value (anything below every format's minimum for fp32 subnormals),
  // then the distance in bits between the source ulp and the target ulp at that magnitude.
  const int e = e32 != 0 ? e32 - 127 : -127;
  const int target_ulp = (e > 1 - kBias ? e : 1 - kBias) - M;
  const int source_ulp = (e32 != 0 ? e32 : 1) - 150;
  int shift = target_ulp - source_ulp;  // >= 23 - M >= 13
  uint64_t q;
  if constexpr (kStochastic) {
    // Keep at most 32 discarded bits (the random word's width); the truncation of deeper bits
    // biases the result by under 2^-32 ulp.
    uint64_t s = sig;
    if (shift > 32) {
      s = shift - 32 >= 64 ? 0 : s >> (shift - 32);
      shift = 32;
    }
    const uint64_t mask = (uint64_t{1} << shift) - 1;
    q = (s + (random & mask)) >> shift;
  } else {
    if (shift > 25) return sign;  // below half the smallest subnormal: sig < 2^24 <= half ulp
    const uint64_t mask = (uint64_t{1} << shift) - 1;
    const uint64_t half = uint64_t{1} << (shift - 1);
    const uint64_t rem = sig & mask;
    q = sig >> shift;
    if (rem > half || (rem == half && (q & 1))) ++q;
  }
  // Subnormal range: q is the encoding (q == 2^M becomes the smallest normal). Normal range: q
  // carries the implicit bit, so adding (exp-1)<<M gives exp<<M | fraction, carrying into the
  // exponent when rounding overflows the fraction.
  const uint64_t enc = e < 1 - kBias ? q : ((static_cast<uint64_t>(e + kBias - 1) << M) + q);
  return sign | (enc >= kInf ? kInf : static_cast<uint32_t>(enc));
}

// Calls fn(E, M) with the format's widths as compile-time constants.
template <typename Fn>
auto WithFormat(FloatFormat f, Fn fn) {
  using std::integral_constant;
  switch (f.exp_bits * 32 + f.man_bits) {
    case 8 * 32 + 7:
      return fn(integral_constant<int, 8>{}, integral_constant<int, 7>{});
    case 5 * 32 + 10:
      return fn(integral_constant<int, 5>{}, integral_constant<int, 10>{});
    case 3 * 32 + 4:
      return fn(integral_constant<int, 3>{}, integral_constant<int, 4>{});
    case 4 * 32 + 3:
      return fn(integral_constant<int, 4>{}, integral_constant<int, 3>{});
    case 5 * 32 + 2:
      return fn(integral_constant<int, 5>{}, integral_constant<int, 2>{});
  }
  std::fprintf(stderr, "trnsim numerics: unsupported float format e%dm%d\n", f.exp_bits,
               f.man_bits);
  std::abort();
}

// Round to nearest even, saturate, NaN -> 0; exact without depending on the host rounding mode
// (x - floor(x) is exact in fp32).
template <typename T>
T ToInt(float v) {
  if (std::isnan(v)) return 0;
  float r = std::floor(v);
  const float diff = v - r;
  if (diff > 0.5f || (diff == 0.5f && std::fmod(r, 2.0f) != 0.0f)) r += 1.0f;
  const double d = r;
  // double(max) of a 64-bit type rounds up to 2^63 / 2^64, which is then the saturation point.
  if (d >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (d <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  return static_cast<T>(d);
}

template <typename T>
T Load(const void* base, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(base) + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void Store(void* base, size_t i, T v) {
  std::memcpy(static_cast<unsigned char*>(base) + i * sizeof(T), &v, sizeof(T));
}

template <typename T, typename Fn>
void LoadLoop(const void* in, float* out, size_t n, Fn fn) {
  for (size_t i = 0; i < n; ++i) out[i] = fn(Load<T>(in, i));
}
template <typename T, typename Fn>
void StoreLoop(const float* in, void* out, size_t n, Fn fn) {
  for (size_t i = 0; i < n; ++i) Store<T>(out, i, fn(in[i]));
}

template <int E, int M>
void StoreFloat(const float* in, void* out, size_t n, const Rounding& r) {
  using T = std::conditional_t<(E + M + 1 > 8), uint16_t, uint8_t>;
  if (r.mode == Rounding::Mode::kStochastic) {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t random = StochasticBits(r.seed, r.first_index + i);
      Store<T>(out, i, static_cast<T>(Encode<E, M, true>(in[i], random)));
    }
  } else {
    StoreLoop<T>(in, out, n, [](float v) { return static_cast<T>(Encode<E, M, false>(v, 0)); });
  }
}

uint16_t Bf16RneFast(float v) {
  // The classic add-and-truncate: exact RNE for every non-NaN, including overflow to inf. A NaN
  // keeps its top payload bits and gets the quiet bit. Written as a select, not a branch, so
  // bulk loops vectorise.
  const uint32_t b = std::bit_cast<uint32_t>(v);
  const uint32_t nan = (b >> 16) | 0x40u;
  const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

float Bf16Widen(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// Rows this far ahead are prefetched: partition-strided rows defeat the hardware prefetchers,
// and a few in flight hide most of each row's miss.
constexpr size_t kPrefetchRows = 4;

// Calls row(r) for r = 0..rows-1, prefetching the input row kPrefetchRows ahead.
template <typename Row>
void ForRows(const unsigned char* in, size_t in_pitch, size_t rows, Row row) {
  for (size_t r = 0; r < rows && r < kPrefetchRows; ++r) __builtin_prefetch(in + r * in_pitch);
  for (size_t r = 0; r < rows; ++r) {
    if (r + kPrefetchRows < rows) __builtin_prefetch(in + (r + kPrefetchRows) * in_pitch);
    row(r);
  }
}

// Decode tables of the three fp8 formats, built on first use.
const float* Fp8Table(Dtype dtype) {
  static const auto tables = [] {
    struct Tables {
      float e3[256], e4[256], e5[256];
    } t;
    for (uint32_t b = 0; b < 256; ++b) {
      t.e3[b] = Decode<3, 4>(b);
      t.e4[b] = Decode<4, 3>(b);
      t.e5[b] = Decode<5, 2>(b);
    }
    return t;
  }();
  return dtype == Dtype::kFloat8E3 ? tables.e3
                                   : (dtype == Dtype::kFloat8E4 ? tables.e4 : tables.e5);
}

[[noreturn]] void BadDtype(Dtype dtype) {
  std::fprintf(stderr, "trnsim numerics: cannot convert dtype 0x%x\n", static_cast<int>(dtype));
  std::abort();
}

Dtype Canonical(Dtype d) { return d == Dtype::kFloat32r ? Dtype::kFloat32 : d; }

}  // namespace

float DecodeFloat(FloatFormat format, uint32_t bits) {
  return WithFormat(format, [bits](auto e, auto m) { return Decode<e(), m()>(bits); });
}

uint32_t EncodeFloatRne(FloatFormat format, float value) {
  return WithFormat(format, [value](auto e, auto m) { return Encode<e(), m(), false>(value, 0); });
}

uint32_t EncodeFloatStochastic(FloatFormat format, float value, uint32_t random) {
  return WithFormat(
      format, [value, random](auto e, auto m) { return Encode<e(), m(), true>(value, random); });
}

uint32_t StochasticBits(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<uint32_t>(z >> 32);
}

int8_t Fp32ToInt8(float v) { return ToInt<int8_t>(v); }
uint8_t Fp32ToUint8(float v) { return ToInt<uint8_t>(v); }
int16_t Fp32ToInt16(float v) { return ToInt<int16_t>(v); }
uint16_t Fp32ToUint16(float v) { return ToInt<uint16_t>(v); }
int32_t Fp32ToInt32(float v) { return ToInt<int32_t>(v); }
uint32_t Fp32ToUint32(float v) { return ToInt<uint32_t>(v); }
int64_t Fp32ToInt64(float v) { return ToInt<int64_t>(v); }
uint64_t Fp32ToUint64(float v) { return ToInt<uint64_t>(v); }

void ConvertToFp32(Dtype src, const void* in, float* out, size_t n) {
  auto to_float = [](auto x) { return static_cast<float>(x); };
  switch (Canonical(src)) {
    case Dtype::kInt8:
      return LoadLoop<int8_t>(in, out, n, to_float);
    case Dtype::kUint8:
      return LoadLoop<uint8_t>(in, out, n, to_float);
    case Dtype::kInt16:
      return LoadLoop<int16_t>(in, out, n, to_float);
    case Dtype::kUint16:
      return LoadLoop<uint16_t>(in, out, n, to_float);
    case Dtype::kInt32:
      return LoadLoop<int32_t>(in, out, n, to_float);
    case Dtype::kUint32:
      return LoadLoop<uint32_t>(in, out, n, to_float);
    case Dtype::kInt64:
      return LoadLoop<int64_t>(in, out, n, to_float);
    case Dtype::kUint64:
      return LoadLoop<uint64_t>(in, out, n, to_float);
    case Dtype::kFloat32:
      std::memcpy(out, in, n * sizeof(float));
      return;
    case Dtype::kBfloat16:
      return LoadLoop<uint16_t>(in, out, n, Bf16Widen);
    case Dtype::kFloat16:
      return LoadLoop<uint16_t>(in, out, n, Decode<5, 10>);
    case Dtype::kFloat8E3:
    case Dtype::kFloat8E4:
    case Dtype::kFloat8E5: {
      const float* table = Fp8Table(src);
      return LoadLoop<uint8_t>(in, out, n, [table](uint8_t b) { return table[b]; });
    }
    default:
      BadDtype(src);
  }
}

void ConvertFromFp32(const float* in, Dtype dst, void* out, size_t n, const Rounding& r) {
  switch (Canonical(dst)) {
    case Dtype::kInt8:
      return StoreLoop<int8_t>(in, out, n, ToInt<int8_t>);
    case Dtype::kUint8:
      return StoreLoop<uint8_t>(in, out, n, ToInt<uint8_t>);
    case Dtype::kInt16:
      return StoreLoop<int16_t>(in, out, n, ToInt<int16_t>);
    case Dtype::kUint16:
      return StoreLoop<uint16_t>(in, out, n, ToInt<uint16_t>);
    case Dtype::kInt32:
      return StoreLoop<int32_t>(in, out, n, ToInt<int32_t>);
    case Dtype::kUint32:
      return StoreLoop<uint32_t>(in, out, n, ToInt<uint32_t>);
    case Dtype::kInt64:
      return StoreLoop<int64_t>(in, out, n, ToInt<int64_t>);
    case Dtype::kUint64:
      return StoreLoop<uint64_t>(in, out, n, ToInt<uint64_t>);
    case Dtype::kFloat32:
      std::memcpy(out, in, n * sizeof(float));
      return;
    case Dtype::kBfloat16:
      if (r.mode == Rounding::Mode::kStochastic) return StoreFloat<8, 7>(in, out, n, r);
      return StoreLoop<uint16_t>(in, out, n, Bf16RneFast);
    case Dtype::kFloat16:
      return StoreFloat<5, 10>(in, out, n, r);
    case Dtype::kFloat8E3:
      return StoreFloat<3, 4>(in, out, n, r);
    case Dtype::kFloat8E4:
      return StoreFloat<4, 3>(in, out, n, r);
    case Dtype::kFloat8E5:
      return StoreFloat<5, 2>(in, out, n, r);
    default:
      BadDtype(dst);
  }
}

void ConvertToFp32Rows(Dtype src, const void* in, size_t in_pitch, float* out, size_t out_pitch,
                       size_t rows, size_t n) {
  const auto* p = static_cast<const unsigned char*>(in);
  switch (Canonical(src)) {
    case Dtype::kFloat32:
      return ForRows(p, in_pitch, rows, [&](size_t r) {
        std::memcpy(out + r * out_pitch, p + r * in_pitch, n * sizeof(float));
      });
    case Dtype::kBfloat16:
      return ForRows(p, in_pitch, rows, [&](size_t r) {
        LoadLoop<uint16_t>(p + r * in_pitch, out + r * out_pitch, n, Bf16Widen);
      });
    default:
      if (isa::DtypeSize(src) == 0) BadDtype(src);
      return ForRows(p, in_pitch, rows, [&](size_t r) {
        ConvertToFp32(src, p + r * in_pitch, out + r * out_pitch, n);
      });
  }
}

void ConvertFromFp32Rows(const float* in, size_t in_pitch, Dtype dst, void* out, size_t out_pitch,
                         size_t rows, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  switch (Canonical(dst)) {
    case Dtype::kFloat32:
      for (size_t r = 0; r < rows; ++r)
        std::memcpy(p + r * out_pitch, in + r * in_pitch, n * sizeof(float));
      return;
    case Dtype::kBfloat16:
      for (size_t r = 0; r < rows; ++r)
        StoreLoop<uint16_t>(in + r * in_pitch, p + r * out_pitch, n, Bf16RneFast);
      return;
    default:
      if (isa::DtypeSize(dst) == 0) BadDtype(dst);
      for (size_t r = 0; r < rows; ++r)
        ConvertFromFp32(in + r * in_pitch, dst, p + r * out_pitch, n);
  }
}

void ConvertElements(Dtype src, const void* in, Dtype dst, void* out, size_t n,
                     const Rounding& rounding) {
  const int src_size = isa::DtypeSize(src);
  const int dst_size = isa::DtypeSize(dst);
  if (src_size == 0) BadDtype(src);
  if (dst_size == 0) BadDtype(dst);
  if (Canonical(src) == Canonical(dst)) {
    std::memcpy(out, in, n * static_cast<size_t>(src_size));
    return;
  }
  // Chunks through a small fp32 buffer on the stack: two tight loops per chunk.
  constexpr size_t kChunk = 512;
  float buffer[kChunk];
  Rounding r = rounding;
  for (size_t done = 0; done < n; done += kChunk) {
    const size_t len = n - done < kChunk ? n - done : kChunk;
    ConvertToFp32(src, static_cast<const unsigned char*>(in) + done * src_size, buffer, len);
    r.first_index = rounding.first_index + done;
    ConvertFromFp32(buffer, dst, static_cast<unsigned char*>(out) + done * dst_size, len, r);
  }
}

}  // namespace trnsim::numerics
