// DebugStream: the debug stream of one logical core (docs/debug-stream.md): a bounded FIFO of
// events and, while a client is connected, the eventfd it polls.
//
// Semantics (AWS's ndebug_stream.h, nrt-api-facts §7.13):
//  - At most one client: Connect while connected is NRT_INVALID.
//  - Events pushed while no client is connected are dropped (Push reports them as unconnected).
//  - The FIFO holds at most `capacity` events; an event pushed when it is full is dropped (the
//    newest is lost, the queued ones stay) and counted.
//  - The descriptor is an eventfd (EFD_SEMAPHORE, non-blocking, close-on-exec) whose counter is
//    the number of queued events: poll/epoll/select report it readable exactly while the FIFO
//    holds an event. Pop takes the oldest event and one count off the eventfd. Reading the
//    descriptor directly (AWS: undefined) desynchronises only the readiness, never memory.
//  - Disconnect closes the descriptor and discards what is queued.
//
// Thread safety: every method may be called from any thread (the executor pushes while the
// client pops); one mutex per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "common/status_or.h"
#include "runtime/debug/debug_event.h"

namespace trnsim::runtime::debug {

class DebugStream {
 public:
  DebugStream(int vnc, size_t capacity);
  ~DebugStream();  // closes the descriptor, if connected
  DebugStream(const DebugStream&) = delete;
  DebugStream& operator=(const DebugStream&) = delete;

  // The new client's descriptor. NRT_INVALID when a client is connected; NRT_RESOURCE when no
  // eventfd can be created (the errno text in the message).
  StatusOr<int> Connect();
  // Closes the descriptor and drops the queue; nothing when no client is connected.
  void Disconnect();
  // The connected client's descriptor, or -1.
  int fd() const;

  struct PushResult {
    size_t queued = 0;
    size_t dropped_full = 0;     // the FIFO was full
    bool connected = false;      // false: every event was dropped, no client
    uint64_t dropped_total = 0;  // dropped because full since this client connected
  };
  // Queues `events` in order (see above).
  PushResult Push(std::vector<DebugEvent> events);
  // The oldest queued event, or nullopt when the FIFO is empty (or no client is connected).
  std::optional<DebugEvent> Pop();

  int vnc() const { return vnc_; }
  size_t capacity() const { return capacity_; }

 private:
  void CloseLocked();

  const int vnc_;
  const size_t capacity_;
  mutable std::mutex mutex_;
  int fd_ = -1;
  std::deque<DebugEvent> queue_;
  uint64_t dropped_total_ = 0;
};

}  // namespace trnsim::runtime::debug
