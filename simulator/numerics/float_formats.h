// Element conversions of the chip datapath (docs/numerics.md, docs/isa.md §6.1): every narrow
// float type to fp32 exactly, fp32 to every type with round-to-nearest-even (or stochastic
// rounding), fp32 to integers with RNE and saturation, and bulk span conversions for the DMA cast
// path and engine loads/stores. All functions are pure and thread-safe; none reads the host's
// floating-point rounding mode.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simulator/isa/dtype.h"

namespace trnsim::numerics {

// A narrow binary float format: 1 sign bit, `exp_bits` exponent bits with bias
// 2^(exp_bits-1) - 1, `man_bits` fraction bits. Every trnsim format is IEEE-style: exponent field
// all ones is inf (fraction 0) or NaN (fraction != 0), and the top fraction bit is the quiet bit.
struct FloatFormat {
  int exp_bits;
  int man_bits;
};
inline constexpr FloatFormat kBf16Format{8, 7};
inline constexpr FloatFormat kFp16Format{5, 10};
inline constexpr FloatFormat kFp8E3Format{3, 4};  // max 15.5
inline constexpr FloatFormat kFp8E4Format{4, 3};  // max 240 (IEEE-style, not OCP e4m3fn)
inline constexpr FloatFormat kFp8E5Format{5, 2};  // max 57344

// Encoded bits of `format` -> fp32, exact. NaN keeps its sign and payload (fraction bits shifted
// to the top of the fp32 fraction), so a signalling NaN stays signalling.
float DecodeFloat(FloatFormat format, uint32_t bits);

// fp32 -> encoded bits of `format`, round to nearest, ties to even, subnormals kept, overflow to
// ±inf. NaN gives a quiet NaN with the same sign and the top fraction bits of the payload.
uint32_t EncodeFloatRne(FloatFormat format, float value);

// fp32 -> encoded bits of `format` with stochastic rounding: the fraction bits below the target
// precision are added to the low bits of `random` (as many as are discarded) and the sum is
// truncated, so a value rounds up with probability (discarded part)/ulp. Exact values, inf and
// NaN convert as with RNE; a value rounding up past the largest finite gives ±inf.
uint32_t EncodeFloatStochastic(FloatFormat format, float value, uint32_t random);

// The random bits stochastic rounding uses for element `index` of a stream seeded with `seed`:
// the high 32 bits of splitmix64's output at position index + 1 of the sequence started at
// `seed`. Counter-based, so any element's bits are computable independently and reproducibly.
uint32_t StochasticBits(uint64_t seed, uint64_t index);

// Named shorthands for the chip's formats.
inline float Bf16ToFp32(uint16_t b) { return DecodeFloat(kBf16Format, b); }
inline float Fp16ToFp32(uint16_t b) { return DecodeFloat(kFp16Format, b); }
inline float Fp8E3ToFp32(uint8_t b) { return DecodeFloat(kFp8E3Format, b); }
inline float Fp8E4ToFp32(uint8_t b) { return DecodeFloat(kFp8E4Format, b); }
inline float Fp8E5ToFp32(uint8_t b) { return DecodeFloat(kFp8E5Format, b); }
inline uint16_t Fp32ToBf16(float v) { return uint16_t(EncodeFloatRne(kBf16Format, v)); }
inline uint16_t Fp32ToFp16(float v) { return uint16_t(EncodeFloatRne(kFp16Format, v)); }
inline uint8_t Fp32ToFp8E3(float v) { return uint8_t(EncodeFloatRne(kFp8E3Format, v)); }
inline uint8_t Fp32ToFp8E4(float v) { return uint8_t(EncodeFloatRne(kFp8E4Format, v)); }
inline uint8_t Fp32ToFp8E5(float v) { return uint8_t(EncodeFloatRne(kFp8E5Format, v)); }

// fp32 -> integer: round to nearest, ties to even, then saturate to the type's range; NaN -> 0.
int8_t Fp32ToInt8(float v);
uint8_t Fp32ToUint8(float v);
int16_t Fp32ToInt16(float v);
uint16_t Fp32ToUint16(float v);
int32_t Fp32ToInt32(float v);
uint32_t Fp32ToUint32(float v);
int64_t Fp32ToInt64(float v);
uint64_t Fp32ToUint64(float v);

// How bulk conversions to a float type round. Stochastic rounding of element i of the span uses
// StochasticBits(seed, first_index + i); integer destinations always use RNE.
struct Rounding {
  enum class Mode : uint8_t { kNearestEven, kStochastic };
  Mode mode = Mode::kNearestEven;
  uint64_t seed = 0;
  uint64_t first_index = 0;
};

// Bulk conversions of `count` elements. `in` and `out` must not overlap and need no alignment.
// Integers convert to the nearest fp32 (exact up to 2^24). fp32r reads and writes as fp32.
// `dtype` must not be kUnknown (aborts).
void ConvertToFp32(isa::Dtype src, const void* in, float* out, size_t count);
void ConvertFromFp32(const float* in, isa::Dtype dst, void* out, size_t count,
                     const Rounding& rounding = {});
// The same conversions over `rows` rows of `count` elements each: row r is read from
// in + r * in_pitch_bytes and written to out + r * out_pitch (elements of fp32, bytes of the
// narrow side), for operands whose rows lie far apart (SBUF partitions). One call converts a
// whole tile: the dtype is dispatched once, the common types (fp32, bf16) run vectorisable
// loops, and rows are prefetched ahead. Results are those of the 1-D forms, row by row in
// ascending order (so rows that overlap in `out` end as the 1-D calls would leave them).
// ConvertFromFp32Rows rounds to nearest even.
void ConvertToFp32Rows(isa::Dtype src, const void* in, size_t in_pitch_bytes, float* out,
                       size_t out_pitch, size_t rows, size_t count);
void ConvertFromFp32Rows(const float* in, size_t in_pitch, isa::Dtype dst, void* out,
                         size_t out_pitch_bytes, size_t rows, size_t count);
// src -> fp32 -> dst (docs/isa.md §6.1). The same dtype on both sides (fp32r counting as fp32)
// copies bits unchanged, NaN payloads included; anything else goes through fp32, so a 32/64-bit
// integer wider than 2^24 may lose low bits.
void ConvertElements(isa::Dtype src, const void* in, isa::Dtype dst, void* out, size_t count,
                     const Rounding& rounding = {});

}  // namespace trnsim::numerics
