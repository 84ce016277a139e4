// CollectiveHub: the rendezvous of one emulated instance's collectives. Every rank — an
// execution of a model loaded with nrt_load_collectives, in this process or in any client of
// neurond — reaches the hub through a CollectivePort; host-driven collectives (nrt_barrier,
// nrt_all_gather) reach it through HostCollective. The hub matches the calls of a replica
// group, computes the result exactly (reduction in group-position order, docs/collectives.md
// "Numerics") and its simulated duration from the instance's links (collective_cost.h), and
// hands every rank its part.
//
// Matching: calls meet when they agree on (communicator, execution sequence, collective id,
// occurrence of that id within the execution — counted by the port, so a port serves exactly
// one execution — the group's first member). They must then agree
// on everything else (kind, op, dtype, group, world, byte sizes); if not, every rank of the
// rendezvous fails with NRT_EXEC_HW_ERR_COLLECTIVES naming the ranks that disagree.
// Failure: a rank that does not arrive within the waiting ranks' host timeout fails them with
// NRT_TIMEOUT naming the missing ranks; a rank whose execution is cancelled (its process ended,
// neurond's session cancel flag) while waiting fails the rendezvous for all with
// NRT_EXEC_HW_ERR_COLLECTIVES naming it. A failed rendezvous is remembered for the ranks
// that had not arrived: each of them, arriving later, fails at once with the same status instead
// of waiting — once, and only for 60 s (4096 failures at most). A rank that was present when it
// failed arriving again means a new meeting (the job was rerun with the same communicator): the
// failure is forgotten. A call that cannot fit
// its own group (sizes, dtype, reduction op; collective_compute.h) fails at once with
// NRT_INVALID on its rank only.
// Timing: every member completes at max(arrival_ps over the members) + EstimateCollective's
// duration for the members' placement (endpoint chip, call's physical core).
// Bounds: a waiting rank looks at its cancel flag every 20 ms; the last 4,096 failed
// rendezvous are remembered. A world larger than MaxWorldSize(spec) is NRT_INVALID for the
// calling rank, before anything is allocated for it.
// Allocation failure: a call whose memory runs out (std::bad_alloc anywhere in it) returns
// NRT_RESOURCE and leaves no half-built rendezvous: a rendezvous is built whole before other
// ranks can see it, a rank counts as arrived only once its call is stored, and a completion that
// runs out of memory fails the rendezvous for every rank (NRT_RESOURCE) instead of leaving them
// waiting.
//
// Multi-instance jobs (docs/cluster.md): at a job's root daemon the hub also meets ranks of
// other instances (RankEndpoint::cluster, instance). Their world may then be as large as
// MaxClusterWorldSize; a rendezvous whose members span instances is costed by
// EstimateClusterCollective (cluster_cost.h) with each instance's own spec. NoteRank records
// which instance a rank of a communicator runs on; DepartInstance (its daemon went away) fails
// at once every open rendezvous still waiting for one of its ranks, and — for 60 s, until the
// rank is noted again — every rendezvous that needs one, with NRT_EXEC_HW_ERR_COLLECTIVES
// naming the ranks and the instance.
//
// Thread safety: all methods may be called from any thread; ports block only their caller.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status_or.h"
#include "simulator/collective/collective_fabric.h"
#include "simulator/collective/collective_port.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective {

// Who one execution is in a communicator, and where it runs.
struct RankEndpoint {
  std::string communicator;  // NEURON_RT_ROOT_COMM_ID of the job (ranks with equal ids meet)
  uint32_t rank = 0;         // ctx_device_id of nrt_load_collectives
  uint32_t world_size = 1;   // ctx_device_count
  int chip = 0;              // the chip its cores are on
  // The execution's sequence number on this rank (the model's 1st, 2nd, ... execution); ranks
  // meet on equal numbers, so every rank must run the model the same number of times.
  uint64_t execution_sequence = 0;
  // Multi-instance jobs: the communicator may span instances (its world is bounded by
  // MaxClusterWorldSize), and the rank runs on `instance` — empty id: the hub's own.
  bool cluster = false;
  struct Instance {
    std::string id;                      // the instance's daemon (its cluster address)
    const InstanceSpec* spec = nullptr;  // null: the hub's own instance type
    std::string ultraserver;             // the UltraServer it is a node of, if any
  } instance;
};

struct PortOptions {
  // How long Run waits for the other ranks, in host time. Zero: kDefaultCollectiveTimeout.
  std::chrono::milliseconds host_timeout{0};
  // When set and it becomes true, a waiting Run gives up and fails its rendezvous.
  const std::atomic<bool>* cancel = nullptr;
  // Also looked at with the cancel flag when set: true gives up the same way (a forwarded
  // call whose caller went away).
  std::function<bool()> cancelled;
};
inline constexpr std::chrono::milliseconds kDefaultCollectiveTimeout{600'000};

// The largest world a communicator of `spec` can have: one rank per physical core. A rank runs
// on a logical core of the instance (at least one physical core: LNC 1 gives the most), and the
// ranks of a communicator meet only at their own instance's hub (docs/collectives.md), so a
// larger world could never complete; refusing it keeps a caller from making the hub allocate
// per-rank state for ranks that cannot exist (128 on a trn2.48xlarge).
uint32_t MaxWorldSize(const InstanceSpec& spec);
// Instances one multi-instance job may span (assumption: 64, as many trn2.48xlarge as four
// racks of UltraServers; docs/cluster.md), and the world that allows.
inline constexpr uint32_t kMaxClusterInstances = 64;
uint32_t MaxClusterWorldSize(const InstanceSpec& spec);

// Host-driven collectives: no instruction, no simulated time.
enum class HostCollectiveKind : uint8_t { kBarrier, kAllGather };
struct HostCollectiveCall {
  HostCollectiveKind kind = HostCollectiveKind::kBarrier;
  std::string communicator;
  uint32_t rank = 0;
  uint32_t world_size = 1;
  uint64_t sequence = 0;       // this rank's n-th host collective on the communicator
  std::vector<uint8_t> input;  // all_gather: this rank's bytes (every rank the same size)
  bool cluster = false;        // the world may span instances (RankEndpoint::cluster)
};

class CollectiveHub final : public CollectiveFabric {
 public:
  explicit CollectiveHub(const InstanceSpec& spec);
  ~CollectiveHub() override;
  CollectiveHub(const CollectiveHub&) = delete;
  CollectiveHub& operator=(const CollectiveHub&) = delete;

  // A port for one execution of `endpoint`. It must not outlive the hub.
  std::unique_ptr<CollectivePort> Attach(RankEndpoint endpoint, PortOptions options) override;

  // Blocks until the communicator's whole world has made the same call (same kind, sequence
  // and sizes); all_gather returns the ranks' inputs concatenated in rank order, barrier an
  // empty vector. Failures as for ports.
  StatusOr<std::vector<uint8_t>> HostCollective(const HostCollectiveCall& call,
                                                const PortOptions& options) override;

  // One call of a port whose occurrences are counted elsewhere: the `occurrence`-th call of
  // `call.collective_id` in the endpoint's execution (a call another daemon forwarded).
  StatusOr<CollectiveOutcome> Run(const RankEndpoint& endpoint, const PortOptions& options,
                                  CollectiveCall call, uint64_t occurrence);

  // Multi-instance jobs: `rank` of `communicator` runs on instance `instance_id` (a rerun
  // forgets an earlier departure of it, and the failures its departed predecessor was owed);
  // the instance's daemon went away (`reason`).
  void NoteRank(const std::string& communicator, uint32_t rank, const std::string& instance_id);
  void DepartInstance(const std::string& instance_id, const std::string& reason);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trnsim::simulator::collective
