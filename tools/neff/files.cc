#include "tools/neff/files.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace trnsim::neff_tool {

StatusOr<std::vector<uint8_t>> ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return InvalidError(path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) return InvalidError(path + ": cannot open for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) return InvalidError(path + ": read error");
  return bytes;
}

Status WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return InvalidError(path + ": cannot open for writing");
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
    if (!f) return InvalidError(path + ": write error");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return InvalidError(path + ": cannot write (" + ec.message() + ")");
  }
  return Status::Ok();
}

Status WriteFile(const std::string& path, const std::string& text) {
  return WriteFile(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

int Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "neff %s: %s\n", command, message.c_str());
  return 1;
}

}  // namespace trnsim::neff_tool
