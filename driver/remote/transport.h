// Transport settings both ends of a neurond connection use (the remote back end's channel,
// the daemon's server): HTTP/2 flow control and framing sized for bulk Write/Read streams.
//
// Why: gRPC starts each stream with a 64 KiB flow-control window and 16 KiB frames and grows
// the window only as its bandwidth-delay probe learns the link; a 1 MiB chunk then waits for
// several WINDOW_UPDATE round trips, and a transfer runs at a fraction of what the copies
// allow. A window of a few chunks keeps the stream full from its first message; the memory it
// commits is bounded by the window per open stream.
#pragma once

#include <span>

namespace trnsim::driver::remote {

struct ChannelSetting {
  const char* name;  // a GRPC_ARG_* channel argument
  int value;
};

// The settings, for grpc::ChannelArguments::SetInt and grpc::ServerBuilder::AddChannelArgument.
std::span<const ChannelSetting> TransferChannelSettings();

}  // namespace trnsim::driver::remote
