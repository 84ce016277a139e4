#include "common/token_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace trnsim {
namespace {

Status CannotRead(const std::string& path, int error) {
  std::string message = "cannot read the token file " + path;
  if (error != 0) message += std::string(": ") + std::strerror(error);
  if (error == EACCES) {
    message += " (is this user in the file's group? The package's token is root:neuron 0640)";
  }
  return InvalidError(message);
}

}  // namespace

StatusOr<std::string> ReadTokenFile(const std::string& path) {
  // A directory opens as a stream on Linux, and whether reading it then fails (EISDIR) or looks
  // like an empty file depends on the C++ library, so it is told apart before reading.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return InvalidError("cannot read the token file " + path +
                        ": it is a directory, not a file (give the file inside it)");
  }
  errno = 0;
  std::ifstream file(path);
  if (!file) return CannotRead(path, errno);
  std::string token;
  errno = 0;
  std::getline(file, token);
  if (file.bad()) return CannotRead(path, errno);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ' || token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return InvalidError("the token file " + path + " is empty");
  return token;
}

}  // namespace trnsim
