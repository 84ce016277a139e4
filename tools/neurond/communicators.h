// Communicators: which session is which rank of each collective communicator neurond's clients
// meet in — the job's NEURON_RT_ROOT_COMM_ID, and the communicators the runtime derives from it
// for replica groups — so that a session can take part only as ranks that are its own
// (tools/neurond/README.md, "Security model", "Collectives and point-to-point").
//
// A communicator is known from its first binding until its last rank's session ends. Its world
// size is fixed by its first binding. Each rank belongs to the first session that used it (a
// host collective, or an execution carrying a CollectiveMembership) until that session ends;
// the same session using it again is fine. Bind refuses with NRT_INVALID, changing nothing:
//   - a world of 0, a rank outside the world, or a world above `max_world` (the instance's
//     simulator::collective::MaxWorldSize: one rank per physical core; a multi-instance job's
//     communicator passes its own larger bound, cluster_world);
//   - an empty communicator name, or one longer than kMaxNameBytes;
//   - a world other than the communicator's;
//   - a rank another session holds;
//   - a session that holds no core, or that would hold more ranks of the communicator than it
//     holds physical cores (a rank runs on a logical core of its own);
// and with NRT_RESOURCE a session that would take part in more than kMaxPerSession
// communicators at once. So the daemon keeps at most kMaxPerSession names and max_world ranks
// per core per session.
// Release(session) forgets the session's ranks (when it ends); a rerun of the job with the same
// names then starts clean.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "common/status.h"

namespace trnsim::neurond {

class Communicators {
 public:
  static constexpr size_t kMaxNameBytes = 4096;
  static constexpr size_t kMaxPerSession = 256;

  explicit Communicators(uint32_t max_world) : max_world_(max_world) {}

  // Makes `rank` of `communicator` (a world of `world_size`) the session's, or checks it is.
  // `held_cores`: the physical cores the session holds now.
  // `cluster_world`: when not 0, the bound of a multi-instance job's world instead of
  // max_world (docs/cluster.md).
  Status Bind(uint64_t session, size_t held_cores, const std::string& communicator, uint32_t rank,
              uint32_t world_size, uint32_t cluster_world = 0);
  void Release(uint64_t session);
  // Communicators with at least one bound rank.
  size_t size() const;

 private:
  struct Communicator {
    uint32_t world = 0;
    std::map<uint32_t, uint64_t> owners;  // rank -> session
  };
  const uint32_t max_world_;
  mutable std::mutex mutex_;  // guards everything below
  std::map<std::string, Communicator> communicators_;
  // Session -> communicator name -> ranks of it the session holds.
  std::map<uint64_t, std::map<std::string, uint32_t>> by_session_;
};

}  // namespace trnsim::neurond
