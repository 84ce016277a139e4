#include "driver/remote/connection.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

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
