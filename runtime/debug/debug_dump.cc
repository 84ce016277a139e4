#include "runtime/debug/debug_dump.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <vector>

#include "runtime/debug/debug_event.h"
#include "runtime/neff/npy.h"
#include "simulator/isa/dtype.h"
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

Status DebugDump::Write(std::string_view prefix, int vnc, const driver::DebugPrint& print) {
  // NumPy has no bfloat16 or fp8: those are widened exactly to float32 (info.json keeps the
  // original dtype).
  const std::optional<std::string_view> native = isa::DtypeNpyDescr(print.dtype);
  const bool widened = !native.has_value();
  const std::string_view descr = native.value_or("<f4");
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
      {"npy_dtype", std::string(isa::DtypeNumpyName(*isa::DtypeFromNpyDescr(descr)))},
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
