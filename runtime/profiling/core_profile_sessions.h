// CoreProfileSessions: the per-core profile sessions of nrt_profile_session_* (docs/profiling.md
// §7): a session captures every execution on one logical core, whatever model it runs.
//
// Start(vnc) begins capturing on `vnc` — the executor asks Wants(vnc) before each run, records a
// trace if so and hands it to Add() — and Stop(vnc) ends it, keeping the capture under a new
// session id (1, 2, ... for the runtime's life) until Serialize writes it to a profile file
// (format/profile_writer.h; the file holds the session's executions in order, each naming its
// model) and releases it, or Drop / DropAll releases it unwritten. A capture that cannot be
// written stays kept. Everything kept is discarded with the object (nrt_close).
//
// Errors: NRT_INVALID for a second session on a core, Stop of a core without one, an unknown
// or already released id, an empty file name, a file that cannot be written.
// Thread safety: all methods.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "runtime/profiling/format/profile_writer.h"

namespace trnsim::runtime::profiling {

class CoreProfileSessions {
 public:
  // `device` names the chip and instance written into every session file.
  explicit CoreProfileSessions(ProfileHeader device) : device_(std::move(device)) {}

  Status Start(int vnc);
  StatusOr<uint64_t> Stop(int vnc);
  Status Serialize(uint64_t session_id, const std::string& filename);
  Status Drop(uint64_t session_id);
  // Releases every kept capture of `vnc` (an active session there keeps capturing); returns
  // how many were released.
  size_t DropAll(int vnc);

  bool Wants(int vnc) const;
  // Keeps `execution` in the active session of `vnc`, if there is one.
  void Add(int vnc, ProfiledExecution execution);

 private:
  struct Capture {
    int vnc = 0;
    std::vector<ProfiledExecution> executions;
  };

  const ProfileHeader device_;
  mutable std::mutex mutex_;
  std::map<int, Capture> active_;     // vnc -> running session
  std::map<uint64_t, Capture> kept_;  // session id -> stopped session
  uint64_t next_id_ = 1;
};

}  // namespace trnsim::runtime::profiling
