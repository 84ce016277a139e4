#include "simulator/isa/dtype.h"

namespace trnsim::isa {
namespace {

// One row per dtype: every spelling trnsim reads or writes.
struct DtypeNames {
  Dtype dtype;
  std::string_view neff;        // NEFF DMA descriptors
  std::string_view short_name;  // the assembler and docs/isa.md
  std::string_view numpy;       // NumPy / ml_dtypes
  std::string_view npy_descr;   // .npy header; "" where NumPy has no such type
};

constexpr DtypeNames kNames[] = {
    {Dtype::kUint64, "uint64", "uint64", "uint64", "<u8"},
    {Dtype::kInt8, "int8", "int8", "int8", "|i1"},
    {Dtype::kUint8, "uint8", "uint8", "uint8", "|u1"},
    {Dtype::kInt16, "int16", "int16", "int16", "<i2"},
    {Dtype::kUint16, "uint16", "uint16", "uint16", "<u2"},
    {Dtype::kBfloat16, "bfloat16", "bf16", "bfloat16", ""},
    {Dtype::kFloat16, "float16", "fp16", "float16", "<f2"},
    {Dtype::kInt32, "int32", "int32", "int32", "<i4"},
    {Dtype::kUint32, "uint32", "uint32", "uint32", "<u4"},
    {Dtype::kFloat32, "float32", "fp32", "float32", "<f4"},
    // fp32r is fp32 data read by the PE at reduced cost; NumPy stores it as float32.
    {Dtype::kFloat32r, "float32r", "fp32r", "float32r", "<f4"},
    {Dtype::kInt64, "int64", "int64", "int64", "<i8"},
    // trnsim's fp8 e4m3 is IEEE-style (max 240): ml_dtypes' float8_e4m3, not float8_e4m3fn.
    {Dtype::kFloat8E3, "float8e3", "fp8e3", "float8_e3m4", ""},
    {Dtype::kFloat8E4, "float8e4", "fp8e4", "float8_e4m3", ""},
    {Dtype::kFloat8E5, "float8e5", "fp8e5", "float8_e5m2", ""},
};

const DtypeNames* Row(Dtype dtype) {
  for (const DtypeNames& n : kNames) {
    if (n.dtype == dtype) return &n;
  }
  return nullptr;
}

}  // namespace

std::optional<Dtype> DtypeFromNeffName(std::string_view name) {
  for (const DtypeNames& n : kNames) {
    if (n.neff == name) return n.dtype;
  }
  return std::nullopt;
}

std::string_view DtypeNeffName(Dtype dtype) {
  for (const DtypeNames& n : kNames) {
    if (n.dtype == dtype) return n.neff;
  }
  return "";
}

std::optional<Dtype> DtypeFromShortName(std::string_view name) {
  for (const DtypeNames& n : kNames) {
    if (n.short_name == name || n.neff == name) return n.dtype;
  }
  return std::nullopt;
}

std::string_view DtypeShortName(Dtype dtype) {
  for (const DtypeNames& n : kNames) {
    if (n.dtype == dtype) return n.short_name;
  }
  return "unknown";
}

std::string_view DtypeNumpyName(Dtype dtype) {
  const DtypeNames* row = Row(dtype);
  return row == nullptr ? "" : row->numpy;
}

std::optional<Dtype> DtypeFromNumpyName(std::string_view name) {
  for (const DtypeNames& n : kNames) {
    if (n.numpy == name) return n.dtype;
  }
  return std::nullopt;
}

std::optional<std::string_view> DtypeNpyDescr(Dtype dtype) {
  const DtypeNames* row = Row(dtype);
  if (row == nullptr || row->npy_descr.empty()) return std::nullopt;
  return row->npy_descr;
}

std::optional<Dtype> DtypeFromNpyDescr(std::string_view descr) {
  for (const DtypeNames& n : kNames) {
    // fp32r shares "<f4" with fp32, whose row comes first.
    if (!n.npy_descr.empty() && n.npy_descr == descr) return n.dtype;
  }
  return std::nullopt;
}

}  // namespace trnsim::isa
