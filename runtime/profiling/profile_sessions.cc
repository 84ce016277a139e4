#include "runtime/profiling/profile_sessions.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

namespace trnsim::runtime::profiling {

Status ProfileSessions::Start(const void* model, const std::string& filename,
                              ProfileHeader header) {
  if (filename.empty()) return InvalidError("the profile file name is empty");
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& s : sessions_) {
    if (s->model == model) {
      return InvalidError("model '" + header.model_name + "' is already being profiled into '" +
                          s->filename + "'");
    }
    if (s->filename == filename) {
      return InvalidError("a profile into '" + filename + "' is already running");
    }
  }
  // Truncate (create) the file now, so a path that cannot be written fails here.
  std::ofstream out(filename, std::ios::binary | std::ios::trunc);
  if (!out) {
    return InvalidError("cannot create the profile '" + filename + "': " + std::strerror(errno));
  }
  auto session = std::make_unique<Session>();
  session->model = model;
  session->filename = filename;
  session->header = std::move(header);
  sessions_.push_back(std::move(session));
  return Status::Ok();
}

Status ProfileSessions::Stop(const std::string& filename) {
  std::unique_ptr<Session> session;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = std::find_if(sessions_.begin(), sessions_.end(),
                           [&](const auto& s) { return s->filename == filename; });
    if (it == sessions_.end()) {
      return InvalidError("no profile was started into '" + filename + "' (nrt_profile_start)");
    }
    session = std::move(*it);
    sessions_.erase(it);
  }
  return WriteProfile(session->filename, session->header, session->executions);
}

bool ProfileSessions::Wants(const void* model) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::any_of(sessions_.begin(), sessions_.end(),
                     [&](const auto& s) { return s->model == model; });
}

void ProfileSessions::Add(const void* model, ProfiledExecution execution) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& s : sessions_) {
    if (s->model == model) {
      s->executions.push_back(std::move(execution));
      return;
    }
  }
}

void ProfileSessions::Forget(const void* model) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& s : sessions_)
    if (s->model == model) s->model = nullptr;
}

}  // namespace trnsim::runtime::profiling
