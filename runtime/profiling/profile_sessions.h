// ProfileSessions: the per-model device profiles of nrt_profile_start / nrt_profile_stop.
//
// Start(model, file) begins capturing every execution of `model` — the executor asks Wants()
// before each run, records a trace if so and hands it to Add() — and truncates `file` at once,
// as AWS's does. Stop(file) writes what was captured to the file (format/profile_writer.h) and
// ends the session. One session per model and one per file at a time. A model unloaded mid-session
// (Forget) stops being captured; Stop still writes what was captured before.
//
// Errors: NRT_INVALID for a second session on the same model or file, a file that cannot be
// created or written, or Stop on a file no session was started with.
// Thread safety: all methods.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "runtime/profiling/format/profile_writer.h"

namespace trnsim::runtime::profiling {

class ProfileSessions {
 public:
  // `model` is an opaque key (the model's address).
  Status Start(const void* model, const std::string& filename, ProfileHeader header);
  Status Stop(const std::string& filename);

  bool Wants(const void* model) const;
  // Keeps `execution` for the model's session, if it has one.
  void Add(const void* model, ProfiledExecution execution);
  void Forget(const void* model);

 private:
  struct Session {
    const void* model = nullptr;  // null once the model was unloaded
    std::string filename;
    ProfileHeader header;
    std::vector<ProfiledExecution> executions;
  };

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace trnsim::runtime::profiling
