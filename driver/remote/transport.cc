#include "driver/remote/transport.h"

#include <grpc/grpc.h>

#include "driver/remote/chunking.h"

namespace trnsim::driver::remote {
namespace {

constexpr int kWindowBytes = static_cast<int>(8 * kChunkBytes);

constexpr ChannelSetting kSettings[] = {
    // The stream's initial flow-control window (the bandwidth-delay probe still grows it).
    {GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, kWindowBytes},
    // Frames of up to one chunk: fewer frame headers and wakeups per chunk.
    {GRPC_ARG_HTTP2_MAX_FRAME_SIZE, static_cast<int>(kChunkBytes)},
    // Socket reads of up to one chunk, rather than growing from 8 KiB.
    {GRPC_ARG_TCP_READ_CHUNK_SIZE, static_cast<int>(kChunkBytes)},
};

}  // namespace

std::span<const ChannelSetting> TransferChannelSettings() { return kSettings; }

}  // namespace trnsim::driver::remote
