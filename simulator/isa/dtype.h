// Dtype: the element types of the chip, numbered with the hardware type codes that libnrt's
// nrt_dtype_t uses (nrt-api-facts §4.1), so a Dtype converts to nrt_dtype_t by a cast.
// The NEFF's DMA descriptors spell them as strings ("bfloat16", "float8e4", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trnsim::isa {

enum class Dtype : uint8_t {
  kUnknown = 0x0,
  kUint64 = 0x1,
  kInt8 = 0x2,
  kUint8 = 0x3,
  kInt16 = 0x4,
  kUint16 = 0x5,
  kBfloat16 = 0x6,
  kFloat16 = 0x7,
  kInt32 = 0x8,
  kUint32 = 0x9,
  kFloat32 = 0xA,
  kFloat32r = 0xB,  // fp32 "round" mode of the PE (fp32 operands at reduced cost)
  kInt64 = 0xC,
  kFloat8E3 = 0xD,  // fp8 e3m4
  kFloat8E4 = 0xE,  // fp8 e4m3
  kFloat8E5 = 0xF,  // fp8 e5m2
};

inline constexpr int kDtypeCount = 16;

// Bytes per element; 0 for kUnknown.
constexpr int DtypeSize(Dtype dtype) {
  switch (dtype) {
    case Dtype::kUnknown: return 0;
    case Dtype::kInt8: case Dtype::kUint8:
    case Dtype::kFloat8E3: case Dtype::kFloat8E4: case Dtype::kFloat8E5: return 1;
    case Dtype::kInt16: case Dtype::kUint16: case Dtype::kBfloat16: case Dtype::kFloat16: return 2;
    case Dtype::kInt32: case Dtype::kUint32: case Dtype::kFloat32: case Dtype::kFloat32r: return 4;
    case Dtype::kInt64: case Dtype::kUint64: return 8;
  }
  return 0;
}

constexpr bool IsFloat(Dtype dtype) {
  switch (dtype) {
    case Dtype::kBfloat16: case Dtype::kFloat16: case Dtype::kFloat32: case Dtype::kFloat32r:
    case Dtype::kFloat8E3: case Dtype::kFloat8E4: case Dtype::kFloat8E5: return true;
    default: return false;
  }
}

// The NEFF descriptor spelling ("float8e3", "float8e4", "float8e5", "float16", "float32",
// "float32r", "bfloat16", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
// "int64"); nullopt for anything else.
std::optional<Dtype> DtypeFromNeffName(std::string_view name);
std::string_view DtypeNeffName(Dtype dtype);  // "" for kUnknown

// The assembler/numpy spelling ("bf16", "fp32", "fp8e4", "int8", ...) used by docs/isa.md and
// neff.json ("float32", "bfloat16", ... are accepted too).
std::optional<Dtype> DtypeFromShortName(std::string_view name);
std::string_view DtypeShortName(Dtype dtype);

// The NumPy / ml_dtypes spelling ("float32", "bfloat16", "float8_e4m3", "float8_e5m2",
// "float8_e3m4", ...; "float32r" for fp32r, which NumPy lacks); "" for kUnknown. trnsim's fp8
// e4m3 is IEEE-style (max 240), which ml_dtypes calls float8_e4m3 (not float8_e4m3fn).
std::string_view DtypeNumpyName(Dtype dtype);
std::optional<Dtype> DtypeFromNumpyName(std::string_view name);

// The .npy header descr ("<f4", "|i1", "<u8", ...) of a dtype NumPy has natively; nullopt for
// bfloat16 and the fp8 types, which each writer represents its own documented way. fp32r is
// "<f4"; DtypeFromNpyDescr("<f4") is fp32.
std::optional<std::string_view> DtypeNpyDescr(Dtype dtype);
std::optional<Dtype> DtypeFromNpyDescr(std::string_view descr);

}  // namespace trnsim::isa
