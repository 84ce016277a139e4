// DebugStreams: the process's debug streams (nrt_debug_client_*, docs/debug-stream.md) — one
// DebugStream per logical core the process owns, the descriptor -> core map of connected
// clients, and the built-in consumer (NEURON_RT_DEBUG_OUTPUT_DIR). One per initialised Runtime;
// destroyed (every descriptor closed) by nrt_close.
//
// Delivery: after every execution that made device prints (nrt_execute, each iteration of
// nrt_execute_repeat, implicit async and the nrta_* compute queue all run through the
// executor), the executor hands them over, with their prefixes resolved, in the chip model's
// order. With the built-in consumer on, each is written to the output directory
// (debug_dump.h) before the execution returns, and clients cannot connect. Otherwise each
// becomes a tensor-read event of the core's stream — dropped when no client is connected, or
// when its FIFO is full (then one WARN line per execution names the core and the counts).
// Prints the device itself could not keep (more than simulator::core::DebugPrintLimits per
// execution) get one WARN line too.
//
// logical_nc_id in every event is the process-relative logical core (the vnc given to
// Connect), as the executor's `vnc`.
//
// Errors: NRT_INVALID for a core outside 0..vnc_count-1, a second client, a connect while the
// built-in consumer runs (the message says so), and an unknown descriptor.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/debug_print.h"
#include "runtime/debug/debug_dump.h"
#include "runtime/debug/debug_event.h"
#include "runtime/debug/debug_stream.h"

namespace trnsim::runtime::debug {

struct DebugStreamOptions {
  size_t buffer_events = 65536;  // NEURON_RT_DEBUG_STREAM_BUFFER_SIZE
  std::string output_dir;        // NEURON_RT_DEBUG_OUTPUT_DIR; empty: no built-in consumer
};

class DebugStreams {
 public:
  DebugStreams(int vnc_count, DebugStreamOptions options);
  ~DebugStreams();  // closes every descriptor

  StatusOr<int> Connect(int vnc);
  // Disconnects the client of `fd`; NRT_INVALID (nothing else happens) for an unknown one.
  Status Close(int fd);
  // The oldest event of `fd`'s stream; NRT_QUEUE_EMPTY when none is queued; NRT_INVALID for an
  // unknown descriptor.
  StatusOr<DebugEvent> Read(int fd);

  // The device prints of one execution on `vnc`; prefixes[i] is prints[i]'s prefix.
  // `device_dropped`: prints the device counted but did not keep.
  void Deliver(int vnc, std::span<const driver::DebugPrint> prints,
               std::span<const std::string_view> prefixes, uint64_t device_dropped);

  bool builtin_consumer() const { return dump_ != nullptr; }

 private:
  StatusOr<DebugStream*> StreamOf(int fd) const;

  const DebugStreamOptions options_;
  std::vector<std::unique_ptr<DebugStream>> streams_;  // by vnc
  std::unique_ptr<DebugDump> dump_;                    // the built-in consumer, or null
  mutable std::shared_mutex fds_mutex_;
  std::unordered_map<int, int> fd_vnc_;  // connected descriptor -> vnc
};

}  // namespace trnsim::runtime::debug
