#include "tools/neurond/communicators.h"

#include <iterator>
#include <utility>

namespace trnsim::neurond {

Status Communicators::Bind(uint64_t session, size_t held_cores, const std::string& communicator,
                           uint32_t rank, uint32_t world_size, uint32_t cluster_world) {
  const uint32_t max_world = cluster_world != 0 ? cluster_world : max_world_;
  if (world_size == 0 || rank >= world_size) {
    return InvalidError("rank " + std::to_string(rank) + " is not within a world of " +
                        std::to_string(world_size));
  }
  if (world_size > max_world) {
    return InvalidError("a collective world of " + std::to_string(world_size) + " ranks is more " +
                        (cluster_world != 0 ? "than a job of this instance type can hold ("
                                            : "than this instance can hold (") +
                        std::to_string(max_world) + ", one rank per physical core)");
  }
  if (communicator.empty()) return InvalidError("the communicator has no name");
  if (communicator.size() > kMaxNameBytes) {
    return InvalidError("the communicator's name is " + std::to_string(communicator.size()) +
                        " bytes, more than " + std::to_string(kMaxNameBytes));
  }
  const std::string quoted = "communicator '" + communicator + "'";
  std::lock_guard lock(mutex_);
  auto known = communicators_.find(communicator);
  if (known != communicators_.end()) {
    const Communicator& c = known->second;
    if (c.world != world_size) {
      return InvalidError(quoted + " is a world of " + std::to_string(c.world) + ", not " +
                          std::to_string(world_size));
    }
    if (auto owner = c.owners.find(rank); owner != c.owners.end()) {
      if (owner->second == session) return Status::Ok();
      return InvalidError("rank " + std::to_string(rank) + " of " + quoted +
                          " belongs to another session (" + std::to_string(owner->second) + ")");
    }
  }
  auto mine = by_session_.find(session);
  uint32_t ranks_here = 0;
  if (mine != by_session_.end()) {
    if (auto it = mine->second.find(communicator); it != mine->second.end()) {
      ranks_here = it->second;
    }
  }
  if (held_cores == 0) {
    return InvalidError("a session holding no core cannot be a rank of " + quoted);
  }
  if (ranks_here >= held_cores) {
    return InvalidError("the session is already " + std::to_string(ranks_here) + " ranks of " +
                        quoted + " and holds " + std::to_string(held_cores) +
                        " physical cores (one rank per core)");
  }
  if (ranks_here == 0 && mine != by_session_.end() && mine->second.size() >= kMaxPerSession) {
    return ResourceError("the session takes part in " + std::to_string(kMaxPerSession) +
                         " communicators already, the most one session may");
  }
  // Both maps change, or (std::bad_alloc) neither does; an empty entry of by_session_ left
  // behind is harmless (Release erases it).
  std::map<std::string, uint32_t>& per_session = by_session_[session];
  auto [count, fresh_count] = per_session.try_emplace(communicator, 0);
  try {
    auto [entry, fresh] = communicators_.try_emplace(communicator);
    if (fresh) entry->second.world = world_size;
    try {
      entry->second.owners.emplace(rank, session);
    } catch (...) {
      if (fresh) communicators_.erase(entry);
      throw;
    }
  } catch (...) {
    if (fresh_count) per_session.erase(count);
    throw;
  }
  ++count->second;
  return Status::Ok();
}

void Communicators::Release(uint64_t session) {
  std::lock_guard lock(mutex_);
  auto mine = by_session_.find(session);
  if (mine == by_session_.end()) return;
  for (const auto& [name, ranks] : mine->second) {
    auto it = communicators_.find(name);
    if (it == communicators_.end()) continue;
    std::map<uint32_t, uint64_t>& owners = it->second.owners;
    for (auto owner = owners.begin(); owner != owners.end();) {
      owner = owner->second == session ? owners.erase(owner) : std::next(owner);
    }
    if (owners.empty()) communicators_.erase(it);
  }
  by_session_.erase(mine);
}

size_t Communicators::size() const {
  std::lock_guard lock(mutex_);
  return communicators_.size();
}

}  // namespace trnsim::neurond
