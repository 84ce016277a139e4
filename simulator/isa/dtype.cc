#include "simulator/isa/dtype.h"

namespace trnsim::isa {
namespace {

struct DtypeNames {
  Dtype dtype;
  std::string_view neff;
  std::string_view short_name;
};

constexpr DtypeNames kNames[] = {
    {Dtype::kUint64, "uint64", "uint64"},      {Dtype::kInt8, "int8", "int8"},
    {Dtype::kUint8, "uint8", "uint8"},         {Dtype::kInt16, "int16", "int16"},
    {Dtype::kUint16, "uint16", "uint16"},      {Dtype::kBfloat16, "bfloat16", "bf16"},
    {Dtype::kFloat16, "float16", "fp16"},      {Dtype::kInt32, "int32", "int32"},
    {Dtype::kUint32, "uint32", "uint32"},      {Dtype::kFloat32, "float32", "fp32"},
    {Dtype::kFloat32r, "float32r", "fp32r"},   {Dtype::kInt64, "int64", "int64"},
    {Dtype::kFloat8E3, "float8e3", "fp8e3"},   {Dtype::kFloat8E4, "float8e4", "fp8e4"},
    {Dtype::kFloat8E5, "float8e5", "fp8e5"},
};

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

}  // namespace trnsim::isa
