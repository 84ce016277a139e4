#include "runtime/debug/debug_dump.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "runtime/debug/debug_event.h"
#include "runtime/neff/npy.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::runtime::debug {
namespace {

constexpr size_t kMaxDirNameBytes = 200;
constexpr size_t kCutDirNameBytes = 183;  // + '_' + 16 hex digits = 200

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

// The NumPy descr the dump writes a dtype as, and whether its values are widened to float32.
std::string_view NpyDescr(isa::Dtype d, bool* widened) {
  *widened = false;
  switch (d) {
    case isa::Dtype::kInt8:
      return "|i1";
    case isa::Dtype::kUint8:
      return "|u1";
    case isa::Dtype::kInt16:
      return "<i2";
    case isa::Dtype::kUint16:
      return "<u2";
    case isa::Dtype::kInt32:
      return "<i4";
    case isa::Dtype::kUint32:
      return "<u4";
    case isa::Dtype::kInt64:
      return "<i8";
    case isa::Dtype::kUint64:
      return "<u8";
    case isa::Dtype::kFloat16:
      return "<f2";
    case isa::Dtype::kFloat32:
    case isa::Dtype::kFloat32r:
      return "<f4";
    default:
      *widened = true;
      return "<f4";
  }
}

float Widen(isa::Dtype d, const uint8_t* element) {
  switch (d) {
    case isa::Dtype::kBfloat16:
      return numerics::Bf16ToFp32(static_cast<uint16_t>(element[0] | element[1] << 8));
    case isa::Dtype::kFloat8E3:
      return numerics::Fp8E3ToFp32(element[0]);
    case isa::Dtype::kFloat8E4:
      return numerics::Fp8E4ToFp32(element[0]);
    default:
      return numerics::Fp8E5ToFp32(element[0]);
  }
}

Status WriteFile(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return FailureError("cannot write " + path.string());
  return Status::Ok();
}

}  // namespace

std::string PrefixDirName(std::string_view prefix) {
  std::string name;
  for (char c : prefix) {
    const auto b = static_cast<unsigned char>(c);
    name += (c == '/' || b < 0x20 || b == 0x7f) ? '_' : c;
  }
  if (name.empty() || name == "." || name == "..") name = "_" + name;
  if (name.size() > kMaxDirNameBytes) {
    char hash[17];
    std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(Fnv1a(prefix)));
    name = name.substr(0, kCutDirNameBytes) + "_" + hash;
  }
  return name;
}

Status DebugDump::Write(std::string_view prefix, int vnc, const reference::DebugPrint& print) {
  bool widened = false;
  const std::string_view descr = NpyDescr(print.dtype, &widened);
  const size_t esize = static_cast<size_t>(isa::DtypeSize(print.dtype));
  std::vector<uint8_t> values;
  if (widened && esize > 0) {
    const size_t n = print.data.size() / esize;
    values.resize(n * 4);
    for (size_t i = 0; i < n; ++i) {
      const float f = Widen(print.dtype, print.data.data() + i * esize);
      std::memcpy(values.data() + i * 4, &f, 4);
    }
  }
  std::vector<uint8_t> npy =
      neff::MakeNpy(descr, print.shape, widened ? std::span<const uint8_t>(values) : print.data);

  nlohmann::json info = {
      {"prefix", std::string(prefix)},
      {"logical_nc_id", vnc},
      {"pipe", kDebugPipeStdout},
      {"dtype", std::string(DebugDtypeName(print.dtype))},
      {"npy_dtype", widened ? "float32" : std::string(DebugDtypeName(print.dtype))},
      {"shape", print.shape},
      {"data_bytes", print.data.size()}};
  const std::string text =
      info.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";

  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t& next = iterations_[{std::string(prefix), vnc}];
  const std::filesystem::path where = std::filesystem::path(dir_) / PrefixDirName(prefix) /
                                      ("core_" + std::to_string(vnc)) / std::to_string(next);
  ++next;
  std::error_code error;
  std::filesystem::create_directories(where, error);
  if (error) return FailureError("cannot create " + where.string() + ": " + error.message());
  TRNSIM_RETURN_IF_ERROR(WriteFile(where / "tensor.npy", npy));
  return WriteFile(
      where / "info.json",
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace trnsim::runtime::debug
