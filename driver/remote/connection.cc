#include "driver/remote/connection.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <sys/un.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "driver/remote/remote_device.h"
#include "driver/remote/tls.h"
#include "driver/remote/transport.h"

namespace trnsim::driver::remote {
namespace {

constexpr size_t kMaxCommandLineBytes = 4096;

grpc::ChannelArguments TransferChannelArguments() {
  grpc::ChannelArguments args;
  for (const ChannelSetting& setting : TransferChannelSettings()) {
    args.SetInt(setting.name, setting.value);
  }
  return args;
}

}  // namespace

// Defined here, beside the channel it guards, so that a program that only opens channels (neurond
// talking to other daemons) does not need the remote back end.
Status ValidateDaemonAddress(const std::string& address) {
  const std::string quoted = "daemon address '" + address + "'";
  if (address.rfind("unix:", 0) == 0) {
    std::string path = address.substr(5);
    if (path.empty()) return InvalidError(quoted + " names no socket path after 'unix:'");
    if (path.size() >= sizeof(sockaddr_un::sun_path)) {
      return InvalidError(quoted + ": the socket path is " + std::to_string(path.size()) +
                          " bytes, the system allows at most " +
                          std::to_string(sizeof(sockaddr_un::sun_path) - 1));
    }
    return Status::Ok();
  }
  const std::string shape = " is not unix:PATH or HOST:PORT (e.g. 127.0.0.1:7000, [::1]:7000)";
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return InvalidError(quoted + shape);
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  bool bracketed = host.front() == '[';
  if (bracketed != (host.back() == ']') || (bracketed && host.size() < 3) ||
      (!bracketed && host.find(':') != std::string::npos)) {
    return InvalidError(quoted + shape);
  }
  for (char c : host) {
    if (c <= ' ' || c == '/' || c == '@' || c == '?' || c == '#') {
      return InvalidError(quoted + shape);
    }
  }
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      std::stoi(port) == 0 || std::stoi(port) > 65535) {
    return InvalidError(quoted + ": '" + port + "' is not a TCP port (1 to 65535)");
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<grpc::Channel>> OpenDaemonChannel(const DeviceOptions& options) {
  if (options.address.empty()) return InvalidError("no daemon address");
  TRNSIM_RETURN_IF_ERROR(ValidateDaemonAddress(options.address));
  grpc::ChannelArguments arguments = TransferChannelArguments();
  arguments.SetMaxReceiveMessageSize(kMaxExecuteReplyBytes);  // traced Execute replies
  if (options.tls_ca_file.empty()) {
    if (!options.tls_server_name.empty()) {
      return InvalidError("a TLS server name ('" + options.tls_server_name +
                          "') without a TLS CA file: the connection to " + options.address +
                          " would be plaintext");
    }
    return grpc::CreateCustomChannel(options.address, grpc::InsecureChannelCredentials(),
                                     arguments);
  }
  StatusOr<std::string> roots = ReadPemCertificates(options.tls_ca_file, "TLS CA file");
  if (!roots.ok()) {
    return FailureError("neurond at " + options.address + ": " + roots.status().message());
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = *std::move(roots);
  if (!options.tls_server_name.empty()) {
    arguments.SetSslTargetNameOverride(options.tls_server_name);
  }
  return grpc::CreateCustomChannel(options.address, grpc::SslCredentials(ssl), arguments);
}

std::string ClientCommandLine() {
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  if (text.empty()) {
    std::ifstream comm("/proc/self/comm");
    std::getline(comm, text);
  }
  std::replace(text.begin(), text.end(), '\0', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > kMaxCommandLineBytes) text.resize(kMaxCommandLineBytes);
  return text;
}

}  // namespace trnsim::driver::remote
