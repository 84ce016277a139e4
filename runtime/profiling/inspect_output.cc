#include "runtime/profiling/inspect_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "simulator/spec/instance_id.h"

namespace trnsim::runtime::profiling {

std::string InspectInstanceDir(std::string_view output_dir, std::string_view instance_type,
                               int64_t pid) {
  return std::string(output_dir.empty() ? "./output" : output_dir) + "/" +
         simulator::EmulatedInstanceId(instance_type) + "_pid_" + std::to_string(pid);
}

std::string InspectSessionDir(std::string_view output_dir, std::string_view instance_type,
                              int64_t pid, std::time_t now) {
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
  return InspectInstanceDir(output_dir, instance_type, pid) + "/" + stamp;
}

Status WriteInspectFile(const std::string& dir, std::string_view name, std::string_view text) {
  const std::string path = dir + "/" + std::string(name);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return InvalidError("cannot create " + dir + ": " + error.message());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) return InvalidError("cannot write " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace trnsim::runtime::profiling
