#include "tools/neurond/session_table.h"

#include <algorithm>
#include <utility>

#include "tools/neurond/credentials.h"

namespace trnsim::neurond {

SessionTable::SessionTable(driver::Device* device, int max_sessions, int max_sessions_per_peer,
                           SessionLimits session_limits, std::chrono::milliseconds attach_grace)
    : device_(device),
      max_sessions_(max_sessions),
      max_sessions_per_peer_(max_sessions_per_peer),
      session_limits_(session_limits),
      attach_grace_(attach_grace) {}

StatusOr<std::shared_ptr<Session>> SessionTable::Open(
    SessionIdentity identity, std::unique_ptr<driver::faults::FaultPlan> faults) {
  std::lock_guard lock(mutex_);
  if (static_cast<int>(by_key_.size()) >= max_sessions_) {
    return ResourceError("neurond serves at most " + std::to_string(max_sessions_) +
                         " sessions at once (--max-sessions)");
  }
  const auto of_peer = std::count_if(by_key_.begin(), by_key_.end(), [&](const auto& entry) {
    return entry.second->identity().peer == identity.peer;
  });
  if (of_peer >= max_sessions_per_peer_) {
    return ResourceError("peer " + identity.peer + " already holds " + std::to_string(of_peer) +
                         " sessions, the most one peer may hold (--max-sessions-per-peer " +
                         std::to_string(max_sessions_per_peer_) + ")");
  }
  identity.id = next_id_++;
  identity.key = NewSessionKey();
  auto session = std::make_shared<Session>(identity, device_, session_limits_, std::move(faults));
  by_key_[identity.key] = session;
  return session;
}

std::shared_ptr<Session> SessionTable::Find(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = by_key_.find(std::string(key));
  return it == by_key_.end() ? nullptr : it->second;
}

std::shared_ptr<Session> SessionTable::Remove(uint64_t id) {
  std::lock_guard lock(mutex_);
  for (auto it = by_key_.begin(); it != by_key_.end(); ++it) {
    if (it->second->identity().id != id) continue;
    std::shared_ptr<Session> session = it->second;
    by_key_.erase(it);
    return session;
  }
  return nullptr;
}

std::vector<std::shared_ptr<Session>> SessionTable::RemoveAll() {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Session>> all;
  for (auto& [key, session] : by_key_) all.push_back(session);
  by_key_.clear();
  return all;
}

std::vector<std::shared_ptr<Session>> SessionTable::RemoveUnattached() {
  std::vector<std::shared_ptr<Session>> abandoned;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    if (!it->second->attached() && now - it->second->opened_at() >= attach_grace_) {
      abandoned.push_back(it->second);
      it = by_key_.erase(it);
    } else {
      ++it;
    }
  }
  return abandoned;
}

std::vector<std::shared_ptr<Session>> SessionTable::List() const {
  std::vector<std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, session] : by_key_) all.push_back(session);
  }
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a->identity().id < b->identity().id; });
  return all;
}

}  // namespace trnsim::neurond
