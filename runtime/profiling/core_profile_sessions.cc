#include "runtime/profiling/core_profile_sessions.h"

#include <algorithm>
#include <utility>

namespace trnsim::runtime::profiling {
namespace {

// The file's "model" name: the models of its executions, in order of first appearance.
std::string ModelNames(const std::vector<ProfiledExecution>& executions) {
  std::vector<std::string> names;
  for (const ProfiledExecution& x : executions) {
    if (std::find(names.begin(), names.end(), x.model_name) == names.end()) {
      names.push_back(x.model_name);
    }
  }
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

Status CoreProfileSessions::Start(int vnc) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (active_.count(vnc) != 0) {
    return InvalidError("a profile session is already active on logical core " +
                        std::to_string(vnc) + " (nrt_profile_session_stop ends it)");
  }
  active_[vnc].vnc = vnc;
  return Status::Ok();
}

StatusOr<uint64_t> CoreProfileSessions::Stop(int vnc) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = active_.find(vnc);
  if (it == active_.end()) {
    return InvalidError("no profile session is active on logical core " + std::to_string(vnc) +
                        " (nrt_profile_session_start)");
  }
  const uint64_t id = next_id_++;
  kept_[id] = std::move(it->second);
  active_.erase(it);
  return id;
}

Status CoreProfileSessions::Serialize(uint64_t session_id, const std::string& filename) {
  if (filename.empty()) return InvalidError("the profile file name is empty");
  Capture capture;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kept_.find(session_id);
    if (it == kept_.end()) {
      return InvalidError("no stopped profile session has id " + std::to_string(session_id) +
                          " (serialised or dropped already, or never stopped)");
    }
    capture = std::move(it->second);
    kept_.erase(it);
  }
  ProfileHeader header = device_;
  header.vnc = capture.vnc;
  header.model_name = ModelNames(capture.executions);
  Status written = WriteProfile(filename, header, capture.executions);
  if (!written.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    kept_[session_id] = std::move(capture);  // nothing is lost: the caller may try elsewhere
  }
  return written;
}

Status CoreProfileSessions::Drop(uint64_t session_id) {
  Capture dropped;  // freed outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kept_.find(session_id);
  if (it == kept_.end()) {
    return InvalidError("no stopped profile session has id " + std::to_string(session_id));
  }
  dropped = std::move(it->second);
  kept_.erase(it);
  return Status::Ok();
}

size_t CoreProfileSessions::DropAll(int vnc) {
  std::vector<Capture> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = kept_.begin(); it != kept_.end();) {
    if (it->second.vnc == vnc) {
      dropped.push_back(std::move(it->second));
      it = kept_.erase(it);
    } else {
      ++it;
    }
  }
  return dropped.size();
}

bool CoreProfileSessions::Wants(int vnc) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_.count(vnc) != 0;
}

void CoreProfileSessions::Add(int vnc, ProfiledExecution execution) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = active_.find(vnc);
  if (it != active_.end()) it->second.executions.push_back(std::move(execution));
}

}  // namespace trnsim::runtime::profiling
