// Opening a connection to neurond the way the remote back end does, for other clients of the
// daemon (the observation tools, tools/observe) that speak the protocol directly.
//
// OpenDaemonChannel: the gRPC channel to options.address — its shape checked
// (ValidateDaemonAddress), plaintext, or TLS trusting only the PEM roots of
// options.tls_ca_file and expecting options.tls_server_name when set — with the transfer
// settings of transport.h. Errors: NRT_INVALID for a malformed address or a server name
// without a CA file, NRT_FAILURE naming the file and the address for an unusable CA file. The
// channel connects lazily: an unreachable daemon shows at the first call.
//
// ClientCommandLine: this process's command line, arguments separated by spaces (at most
// 4096 bytes), as Hello's client_command.
//
// Thread safety: both functions are reentrant.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "common/status_or.h"
#include "driver/device.h"

namespace trnsim::driver::remote {

StatusOr<std::shared_ptr<grpc::Channel>> OpenDaemonChannel(const DeviceOptions& options);

std::string ClientCommandLine();

}  // namespace trnsim::driver::remote
