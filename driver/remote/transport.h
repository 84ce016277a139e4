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

// The largest message the daemon sends and the client accepts: an Execute reply carrying a
// recorded trace (ExecutionOptions.record_trace; one event per instruction, DMA transfer and
// semaphore update, so tens of MiB for a big kernel), far past gRPC's 4 MiB default.
//
// Why one big reply rather than a stream: the trace exists whole only when the execution ends,
// and both ends hold it whole anyway (the chip model fills it in memory; the runtime writes the
// profile file from all of it), so streaming it in pieces would not lower either side's peak
// memory — it would add a second, server-streaming Execute RPC to the protocol for nothing.
// The bound is protobuf's own (a message must stay under 2 GiB); the daemon refuses a reply
// past it with NRT_RESOURCE rather than letting the transport fail. Other messages stay small
// by construction (data moves in kChunkBytes chunks), so the raised limit changes nothing for
// them.
inline constexpr int kMaxExecuteReplyBytes = 0x7fffffff;

}  // namespace trnsim::driver::remote
