// ContinuousProfiler: continuous device profiling (nrt_profile_continuous_*, docs/profiling.md
// §7). While it runs every execution on every logical core is traced, and the profile of the
// latest one per core is kept — nothing else: a newer execution replaces it, so memory stays
// one trace per core however long the process runs. Save(vnc, dir) writes the kept profile of
// `vnc` as <dir>/profile_nc_<vnc>_exec_<exec_id>.ntff (exec_id: the run's id in the system
// trace, so the file links to its nc_exec_running events and a second save of the same run
// rewrites the same file), creating `dir`; profiling continues. Stop ends it and discards what
// was kept, writing nothing.
//
// Errors: NRT_INVALID for Start while running, Stop or Save while not, Save of a core that has
// run nothing since Start, an empty directory, and a directory or file that cannot be written.
// Thread safety: all methods; running() is one atomic load (the executor asks it every run).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status_or.h"
#include "runtime/profiling/format/profile_writer.h"

namespace trnsim::runtime::profiling {

class ContinuousProfiler {
 public:
  Status Start();
  Status Stop();
  bool running() const { return running_.load(std::memory_order_acquire); }

  // Keeps `execution` (described by `header`) as the latest of `vnc`; ignored when not running.
  void Keep(int vnc, ProfileHeader header, ProfiledExecution execution);
  // Writes the latest profile of `vnc` into `output_dir`; returns the file's path.
  StatusOr<std::string> Save(int vnc, const std::string& output_dir) const;

 private:
  struct Latest {
    ProfileHeader header;
    ProfiledExecution execution;
  };

  std::atomic<bool> running_{false};
  mutable std::mutex mutex_;  // guards latest_ and the transitions of running_
  // vnc -> its latest execution since Start; shared so that Save writes it outside the lock
  // while a newer run replaces it.
  std::map<int, std::shared_ptr<const Latest>> latest_;
};

}  // namespace trnsim::runtime::profiling
