#include "runtime/debug/debug_streams.h"

#include <mutex>
#include <utility>

#include "common/log.h"

namespace trnsim::runtime::debug {

DebugStreams::DebugStreams(int vnc_count, DebugStreamOptions options)
    : options_(std::move(options)) {
  for (int v = 0; v < vnc_count; ++v) {
    streams_.push_back(std::make_unique<DebugStream>(v, options_.buffer_events));
  }
  if (!options_.output_dir.empty()) dump_ = std::make_unique<DebugDump>(options_.output_dir);
}

DebugStreams::~DebugStreams() = default;  // each DebugStream closes its descriptor

StatusOr<int> DebugStreams::Connect(int vnc) {
  if (vnc < 0 || vnc >= static_cast<int>(streams_.size())) {
    return InvalidError("logical core " + std::to_string(vnc) + " is not one of this process's " +
                        std::to_string(streams_.size()) + " logical cores");
  }
  if (dump_ != nullptr) {
    return InvalidError("logical core " + std::to_string(vnc) +
                        "'s debug stream is consumed by the runtime itself "
                        "(NEURON_RT_DEBUG_OUTPUT_DIR=" +
                        dump_->dir() + "), and a stream takes one client");
  }
  std::unique_lock lock(fds_mutex_);
  TRNSIM_ASSIGN_OR_RETURN(int fd, streams_[static_cast<size_t>(vnc)]->Connect());
  fd_vnc_[fd] = vnc;
  return fd;
}

Status DebugStreams::Close(int fd) {
  std::unique_lock lock(fds_mutex_);
  auto it = fd_vnc_.find(fd);
  if (it == fd_vnc_.end()) {
    return InvalidError("descriptor " + std::to_string(fd) +
                        " is not a connected debug stream (nrt_debug_client_connect)");
  }
  const int vnc = it->second;
  fd_vnc_.erase(it);
  streams_[static_cast<size_t>(vnc)]->Disconnect();  // closes fd while no Connect can reuse it
  return Status::Ok();
}

StatusOr<DebugEvent> DebugStreams::Read(int fd) {
  std::shared_lock lock(fds_mutex_);  // held so Close cannot disconnect the stream meanwhile
  auto it = fd_vnc_.find(fd);
  if (it == fd_vnc_.end()) {
    return InvalidError("descriptor " + std::to_string(fd) +
                        " is not a connected debug stream (nrt_debug_client_connect)");
  }
  std::optional<DebugEvent> event = streams_[static_cast<size_t>(it->second)]->Pop();
  if (!event) {
    return Status(StatusCode::kQueueEmpty, "logical core " + std::to_string(it->second) +
                                               "'s debug stream has no event queued");
  }
  return std::move(*event);
}

void DebugStreams::Deliver(int vnc, std::span<const driver::DebugPrint> prints,
                           std::span<const std::string_view> prefixes, uint64_t device_dropped) {
  if (vnc < 0 || vnc >= static_cast<int>(streams_.size())) return;
  if (device_dropped > 0) {
    TRNSIM_LOG(Warn, Nrt) << "debug stream of logical core " << vnc << ": " << device_dropped
                          << " device prints of one execution were dropped on the device (it "
                             "keeps at most 65536 prints and 64 MiB of data per execution)";
  }
  if (prints.empty()) return;
  if (dump_ != nullptr) {
    size_t failed = 0;
    Status first;
    for (size_t i = 0; i < prints.size(); ++i) {
      Status written = dump_->Write(prefixes[i], vnc, prints[i]);
      if (!written.ok() && failed++ == 0) first = written;
    }
    if (failed > 0) {
      TRNSIM_LOG(Warn, Nrt) << "NEURON_RT_DEBUG_OUTPUT_DIR: " << failed << " of " << prints.size()
                            << " device prints of logical core " << vnc
                            << " not written: " << first.message();
    }
    return;
  }
  DebugStream& stream = *streams_[static_cast<size_t>(vnc)];
  if (stream.fd() < 0) return;  // no client: AWS drops events emitted before connect
  std::vector<DebugEvent> events;
  events.reserve(prints.size());
  size_t unmade = 0;
  for (size_t i = 0; i < prints.size(); ++i) {
    const driver::DebugPrint& p = prints[i];
    StatusOr<DebugEvent> event =
        MakeTensorReadEvent(prefixes[i], static_cast<uint32_t>(vnc), p.dtype, p.shape, p.data);
    if (event.ok()) {
      events.push_back(std::move(*event));
    } else if (unmade++ == 0) {
      TRNSIM_LOG(Warn, Nrt) << "debug stream of logical core " << vnc
                            << ": a device print cannot become an event: "
                            << event.status().message();
    }
  }
  DebugStream::PushResult pushed = stream.Push(std::move(events));
  if (pushed.dropped_full > 0) {
    TRNSIM_LOG(Warn, Nrt) << "debug stream of logical core " << vnc << ": buffer full ("
                          << stream.capacity()
                          << " events, NEURON_RT_DEBUG_STREAM_BUFFER_SIZE): dropped "
                          << pushed.dropped_full << " of " << prints.size()
                          << " events of this execution (" << pushed.dropped_total
                          << " since the client connected)";
  }
}

}  // namespace trnsim::runtime::debug
