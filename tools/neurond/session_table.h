// SessionTable: the open sessions of one neurond, found by their secret key.
//
// Open() creates a session with a fresh id (1, 2, ...) and a random key, or NRT_RESOURCE when
// max_sessions are open or max_sessions_per_peer are open for the same identity.peer
// (peer_identity.h). Remove() takes a session out of the table (later calls with its key are
// refused) and returns it; nullptr if already gone.
// RemoveUnattached() takes out the sessions that said Hello but have not opened their Attach
// stream within `attach_grace` (a client that died between the two calls, or never meant to
// attach); NeurondService calls it periodically and ends them.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"
#include "tools/neurond/session.h"

namespace trnsim::neurond {

class SessionTable {
 public:
  SessionTable(driver::Device* device, int max_sessions, int max_sessions_per_peer,
               SessionLimits session_limits, std::chrono::milliseconds attach_grace);

  // `identity.id` and `identity.key` are filled in here. `faults`: the session's fault plan
  // (HelloRequest.faults; null: none).
  StatusOr<std::shared_ptr<Session>> Open(
      SessionIdentity identity, std::unique_ptr<driver::faults::FaultPlan> faults = nullptr);
  std::shared_ptr<Session> Find(std::string_view key) const;
  std::shared_ptr<Session> Remove(uint64_t id);
  std::vector<std::shared_ptr<Session>> RemoveAll();
  std::vector<std::shared_ptr<Session>> RemoveUnattached();
  // Open sessions in id order.
  std::vector<std::shared_ptr<Session>> List() const;

 private:
  driver::Device* const device_;
  const int max_sessions_;
  const int max_sessions_per_peer_;
  const SessionLimits session_limits_;
  const std::chrono::milliseconds attach_grace_;

  mutable std::mutex mutex_;  // guards everything below
  std::unordered_map<std::string, std::shared_ptr<Session>> by_key_;
  uint64_t next_id_ = 1;
};

}  // namespace trnsim::neurond
