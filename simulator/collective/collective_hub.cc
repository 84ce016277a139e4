#include "simulator/collective/collective_hub.h"

#include <algorithm>
#include <compare>
#include <condition_variable>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "simulator/collective/cluster_cost.h"
#include "simulator/collective/collective_compute.h"
#include "simulator/collective/collective_cost.h"

namespace trnsim::simulator::collective {
namespace {

// Failed rendezvous remembered so that late arrivals fail at once; the oldest are forgotten.
constexpr size_t kMaxTombstones = 4096;
// How long a failure waits for its late ranks. Each rank that was missing gets it once; after
// that (or this long) the key is free again, so a job rerun with the same communicator on the
// same daemon starts clean (collective_hub.h).
constexpr std::chrono::seconds kTombstoneLifetime{60};
// How often a waiting rank wakes to look at its cancel flag.
constexpr std::chrono::milliseconds kPollSlice{20};

// What the calls of one rendezvous agree on before they meet (collective_hub.h "Matching").
// Host collectives use host = true and only the communicator and sequence.
struct Key {
  std::string communicator;
  bool host = false;
  uint64_t sequence = 0;
  uint32_t collective_id = 0;
  uint64_t occurrence = 0;
  uint32_t first_member = 0;
  auto operator<=>(const Key&) const = default;
};

// One meeting of a group. Guarded by the hub's mutex, except that the member completing it
// computes the outcomes unlocked while `computing` keeps everyone else off.
struct Rendezvous {
  std::string label;              // "all_reduce id 3 (occurrence 0, execution 2) of ..."
  std::vector<uint32_t> members;  // by position
  std::vector<bool> present;
  size_t arrived = 0;
  std::vector<CollectiveCall> calls;  // device collectives, by position
  std::vector<uint32_t> worlds;
  std::vector<int> chips;
  std::vector<RankEndpoint::Instance> instances;  // device collectives, by position
  std::vector<HostCollectiveCall> host_calls;  // host collectives, by position
  // By position, while the member waits in Arrive (which keeps its options alive): how the
  // member completing the meeting sees that one who came earlier has been cancelled since.
  std::vector<const PortOptions*> options;
  bool computing = false;
  bool finished = false;
  Status failure;                           // ok when the rendezvous succeeded
  std::vector<CollectiveOutcome> outcomes;  // by position, when it succeeded
  std::condition_variable cv;
};

// A failed rendezvous, for the members that had not arrived when it failed.
struct Tombstone {
  Status status;
  std::vector<uint32_t> owed;  // ranks that have not been told yet
  std::chrono::steady_clock::time_point expires;
};

std::string RankList(const std::vector<uint32_t>& ranks) {
  std::string s;
  for (uint32_t r : ranks) {
    if (!s.empty()) s += ", ";
    s += std::to_string(r);
  }
  return s;
}

std::string GroupText(const std::vector<uint32_t>& members) {
  std::string s = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(members[i]);
  }
  return s + "]";
}

// "rank 4, 6: <what they called>; rank 5: <...>", or "" when every position agrees.
std::string Disagreement(const std::vector<uint32_t>& members,
                         const std::vector<std::string>& descriptions) {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
  for (size_t p = 0; p < members.size(); ++p) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == descriptions[p]; });
    if (it == groups.end()) {
      groups.push_back({descriptions[p], {members[p]}});
    } else {
      it->second.push_back(members[p]);
    }
  }
  if (groups.size() <= 1) return "";
  std::string s;
  for (const auto& [description, ranks] : groups) {
    if (!s.empty()) s += "; ";
    s += ranks.size() > 1 ? "ranks " : "rank ";
    s += RankList(ranks) + ": " + description;
  }
  return s;
}

Status Collectives(std::string message) {
  return Status(StatusCode::kExecHwErrCollectives, std::move(message));
}

Status OutOfMemory(const char* what) {
  return ResourceError(std::string("collective hub: out of host memory ") + what);
}

Status CheckWorld(const InstanceSpec& spec, uint32_t rank, uint32_t world_size, bool cluster) {
  if (world_size == 0 || rank >= world_size) {
    return InvalidError("collective from rank " + std::to_string(rank) + " of a world of " +
                        std::to_string(world_size));
  }
  if (cluster) {
    if (world_size > MaxClusterWorldSize(spec)) {
      return InvalidError("collective world of " + std::to_string(world_size) +
                          " ranks is larger than " + std::to_string(kMaxClusterInstances) +
                          " instances of " + spec.type_name + " can hold");
    }
    return Status::Ok();
  }
  if (world_size > MaxWorldSize(spec)) {
    return InvalidError("collective world of " + std::to_string(world_size) +
                        " ranks is larger than " + spec.type_name + " can hold (" +
                        std::to_string(MaxWorldSize(spec)) + ", one rank per physical core)");
  }
  return Status::Ok();
}

}  // namespace

uint32_t MaxWorldSize(const InstanceSpec& spec) {
  return static_cast<uint32_t>(std::max(spec.PhysicalCores(), 1));
}

uint32_t MaxClusterWorldSize(const InstanceSpec& spec) {
  return MaxWorldSize(spec) * kMaxClusterInstances;
}

class CollectiveHub::Impl {
 public:
  class Port;
  explicit Impl(const InstanceSpec& spec) : spec_(spec) {}

  StatusOr<CollectiveOutcome> Run(const RankEndpoint& endpoint, const PortOptions& options,
                                  CollectiveCall call, uint64_t occurrence) {
    try {
      return RunUnguarded(endpoint, options, std::move(call), occurrence);
    } catch (const std::bad_alloc&) {
      return OutOfMemory("for a collective");
    }
  }

  StatusOr<std::vector<uint8_t>> Host(const HostCollectiveCall& call, const PortOptions& options) {
    try {
      return HostUnguarded(call, options);
    } catch (const std::bad_alloc&) {
      return OutOfMemory("for a host collective");
    }
  }

 private:
  using Joined = std::pair<std::shared_ptr<Rendezvous>, size_t>;

  StatusOr<CollectiveOutcome> RunUnguarded(const RankEndpoint& endpoint,
                                           const PortOptions& options, CollectiveCall call,
                                           uint64_t occurrence) {
    TRNSIM_RETURN_IF_ERROR(CheckWorld(spec_, endpoint.rank, endpoint.world_size, endpoint.cluster));
    TRNSIM_ASSIGN_OR_RETURN(std::vector<uint32_t> members,
                            GroupMembers(call.group, endpoint.world_size, endpoint.rank));
    TRNSIM_RETURN_IF_ERROR(ValidateCall(call, static_cast<uint32_t>(members.size())));
    Key key{endpoint.communicator, false,      endpoint.execution_sequence,
            call.collective_id,    occurrence, members.front()};
    const std::string label = std::string(CollectiveKindName(call.kind)) + " id " +
                              std::to_string(call.collective_id) + " (occurrence " +
                              std::to_string(occurrence) + ", execution " +
                              std::to_string(endpoint.execution_sequence) + ") of communicator '" +
                              endpoint.communicator + "'";
    std::unique_lock<std::mutex> lock(mutex_);
    TRNSIM_ASSIGN_OR_RETURN(auto joined, Join(key, label, members, endpoint.rank));
    auto [rv, position] = joined;
    // Nothing below allocates: the rank is stored whole once Join has counted it.
    rv->calls[position] = std::move(call);
    rv->worlds[position] = endpoint.world_size;
    rv->chips[position] = endpoint.chip;
    rv->instances[position] = endpoint.instance;
    return Arrive(lock, key, rv, position, options);
  }

  StatusOr<std::vector<uint8_t>> HostUnguarded(const HostCollectiveCall& call,
                                               const PortOptions& options) {
    TRNSIM_RETURN_IF_ERROR(CheckWorld(spec_, call.rank, call.world_size, call.cluster));
    HostCollectiveCall stored = call;  // copied before joining, moved in after
    std::vector<uint32_t> members(call.world_size);
    for (uint32_t r = 0; r < call.world_size; ++r) members[r] = r;
    Key key{call.communicator, true, call.sequence, 0, 0, 0};
    const std::string label =
        std::string("host ") +
        (call.kind == HostCollectiveKind::kBarrier ? "barrier" : "all_gather") + " #" +
        std::to_string(call.sequence) + " of communicator '" + call.communicator + "'";
    std::unique_lock<std::mutex> lock(mutex_);
    TRNSIM_ASSIGN_OR_RETURN(auto joined, Join(key, label, members, call.rank));
    auto [rv, position] = joined;
    rv->host_calls[position] = std::move(stored);
    TRNSIM_ASSIGN_OR_RETURN(CollectiveOutcome outcome, Arrive(lock, key, rv, position, options));
    return std::move(outcome.output);
  }

  // Under the lock: the rendezvous of `key` with `rank`'s slot, creating it on first arrival.
  // All or nothing: a new rendezvous is built whole before it is put in open_, and the rank is
  // marked present last, so a std::bad_alloc thrown here leaves open_ as it was (the caller's
  // guard turns it into NRT_RESOURCE) and never a half-built entry another rank could trip on.
  StatusOr<Joined> Join(const Key& key, const std::string& label,
                        const std::vector<uint32_t>& members, uint32_t rank) {
    if (auto dead = tombstones_.find(key); dead != tombstones_.end()) {
      Tombstone& t = dead->second;
      auto owed = std::find(t.owed.begin(), t.owed.end(), rank);
      if (owed != t.owed.end() && std::chrono::steady_clock::now() < t.expires) {
        Status status = t.status;
        t.owed.erase(owed);
        if (t.owed.empty()) tombstones_.erase(dead);  // its order entry goes when it ages out
        return status;
      }
      // A rank that was there when it failed, or a failure long past: a new meeting (a rerun).
      tombstones_.erase(dead);
    }
    if (Status gone = Departed(key.communicator, members, rank); !gone.ok()) {
      return Status(gone.code(), label + ": " + gone.message());
    }
    std::shared_ptr<Rendezvous> rv;
    if (auto open = open_.find(key); open != open_.end()) {
      rv = open->second;
    } else {
      auto built = std::make_shared<Rendezvous>();
      built->label = label;
      built->members = members;
      const size_t g = members.size();
      built->present.assign(g, false);
      built->calls.resize(g);
      built->worlds.resize(g);
      built->chips.resize(g);
      built->instances.resize(g);
      built->host_calls.resize(g);
      built->options.resize(g);
      open_.emplace(key, built);  // strong guarantee: on bad_alloc nothing is inserted
      rv = std::move(built);
    }
    if (rv->members != members) {
      Status s = Collectives(rv->label + ": rank " + std::to_string(rank) + " calls with group " +
                             GroupText(members) + " but the ranks already waiting with group " +
                             GroupText(rv->members));
      Finish(key, *rv, s);
      return s;
    }
    const size_t position = std::find(members.begin(), members.end(), rank) - members.begin();
    if (rv->present[position]) {
      Status s = Collectives(rv->label + ": rank " + std::to_string(rank) + " arrived twice");
      Finish(key, *rv, s);
      return s;
    }
    rv->present[position] = true;
    ++rv->arrived;
    return Joined{rv, position};
  }

  // Under the lock, after storing the call: completes the rendezvous when this was the last
  // member, else waits for the others, the timeout or the cancel flag.
  StatusOr<CollectiveOutcome> Arrive(std::unique_lock<std::mutex>& lock, const Key& key,
                                     const std::shared_ptr<Rendezvous>& rv, size_t position,
                                     const PortOptions& options) {
    rv->options[position] = &options;
    if (rv->arrived == rv->members.size()) {
      // A member cancelled while it waited (its process died and neurond ended its session)
      // has left the job: the meeting fails for all rather than complete with its input, even
      // if the member's own wait has not looked at its flag yet (it does every kPollSlice).
      for (size_t p = 0; p < rv->members.size(); ++p) {
        if (p != position && Cancelled(*rv->options[p])) {
          Finish(key, *rv, CancelledError(*rv, rv->members[p]));
          return rv->failure;
        }
      }
      rv->computing = true;
      lock.unlock();
      Status status;
      try {
        status = key.host ? CompleteHost(*rv) : CompleteDevice(*rv);
      } catch (const std::bad_alloc&) {
        rv->outcomes.clear();
        // Short enough for the string's inline buffer: building it cannot throw again, and the
        // rendezvous must end (its waiters ignore their deadline while `computing`).
        status = Status(StatusCode::kResource, "out of memory");
      }
      lock.lock();
      rv->computing = false;
      Finish(key, *rv, std::move(status));
    }
    const std::chrono::milliseconds timeout =
        options.host_timeout.count() > 0 ? options.host_timeout : kDefaultCollectiveTimeout;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const uint32_t rank = rv->members[position];
    while (!rv->finished) {
      const auto now = std::chrono::steady_clock::now();
      if (!rv->computing) {  // everyone arrived and the result is being computed: just wait
        if (Cancelled(options)) {
          Finish(key, *rv, CancelledError(*rv, rank));
          break;
        }
        if (now >= deadline) {
          std::vector<uint32_t> missing;
          for (size_t p = 0; p < rv->members.size(); ++p) {
            if (!rv->present[p]) missing.push_back(rv->members[p]);
          }
          Finish(key, *rv,
                 TimeoutError(rv->label + ": " + (missing.size() > 1 ? "ranks " : "rank ") +
                              RankList(missing) + " of group " + GroupText(rv->members) +
                              " did not arrive within " + std::to_string(timeout.count()) + " ms"));
          break;
        }
      }
      auto wait = std::chrono::duration_cast<std::chrono::steady_clock::duration>(kPollSlice);
      if (!rv->computing) wait = std::min(wait, deadline - now);
      rv->cv.wait_for(lock, wait);
    }
    if (!rv->failure.ok()) return rv->failure;
    return std::move(rv->outcomes[position]);
  }

  static bool Cancelled(const PortOptions& options) {
    return (options.cancel != nullptr && options.cancel->load()) ||
           (options.cancelled && options.cancelled());
  }

  static Status CancelledError(const Rendezvous& rv, uint32_t rank) {
    return Collectives(rv.label + ": rank " + std::to_string(rank) +
                       " was cancelled while waiting for group " + GroupText(rv.members));
  }

  // Under the lock: records the end of the rendezvous, forgets it, remembers a failure and
  // wakes its waiters. Only the first end counts.
  void Finish(const Key& key, Rendezvous& rv, Status status) {
    if (rv.finished) return;
    rv.finished = true;
    if (auto it = open_.find(key); it != open_.end() && it->second.get() == &rv) open_.erase(it);
    if (!status.ok()) Remember(key, rv, status);
    rv.failure = std::move(status);
    rv.cv.notify_all();
  }

  // Under the lock: the tombstone of a failed rendezvous for its ranks that had not arrived.
  // Out of memory, it is not kept (those ranks then wait for their own timeout): the waiters
  // must be woken whatever happens here.
  void Remember(const Key& key, const Rendezvous& rv, const Status& status) {
    try {
      Tombstone t{status, {}, std::chrono::steady_clock::now() + kTombstoneLifetime};
      for (size_t p = 0; p < rv.members.size(); ++p) {
        if (!rv.present[p]) t.owed.push_back(rv.members[p]);
      }
      if (t.owed.empty()) return;
      tombstone_order_.push_back(key);
      if (!tombstones_.insert_or_assign(key, std::move(t)).second) {
        tombstone_order_.pop_back();
      } else if (tombstone_order_.size() > kMaxTombstones) {
        tombstones_.erase(tombstone_order_.front());
        tombstone_order_.pop_front();
      }
    } catch (const std::bad_alloc&) {
      // Not remembered: the late ranks wait out their own timeout instead.
    }
  }

  // Unlocked, with every member present: checks agreement, computes outputs and timing.
  Status CompleteDevice(Rendezvous& rv) {
    const size_t g = rv.members.size();
    std::vector<std::string> descriptions(g);
    for (size_t p = 0; p < g; ++p) descriptions[p] = DescribeCall(rv.calls[p], rv.worlds[p]);
    if (std::string d = Disagreement(rv.members, descriptions); !d.empty()) {
      return Collectives(rv.label + ": the ranks of group " + GroupText(rv.members) +
                         " disagree — " + d);
    }
    std::vector<const CollectiveCall*> calls(g);
    // The instances the members run on (the hub's own first), and each member's place.
    std::vector<ClusterInstance> instances{{&spec_, ""}};
    std::vector<std::string> instance_ids{""};
    std::vector<ClusterPlacement> placements(g);
    TimePs last_arrival = 0;
    for (size_t p = 0; p < g; ++p) {
      calls[p] = &rv.calls[p];
      const RankEndpoint::Instance& where = rv.instances[p];
      size_t index = 0;
      if (!where.id.empty()) {
        index =
            std::find(instance_ids.begin(), instance_ids.end(), where.id) - instance_ids.begin();
        if (index == instance_ids.size()) {
          instance_ids.push_back(where.id);
          instances.push_back({where.spec != nullptr ? where.spec : &spec_, where.ultraserver});
        }
      }
      placements[p] = {static_cast<int>(index), {rv.chips[p], rv.calls[p].physical_core}};
      last_arrival = std::max(last_arrival, rv.calls[p].arrival_ps);
    }
    TRNSIM_ASSIGN_OR_RETURN(
        CollectiveCost cost,
        EstimateClusterCollective(instances, rv.calls[0].kind, rv.calls[0].input.size(), placements,
                                  rv.calls[0].shift));
    std::vector<std::vector<uint8_t>> outputs = ComputeOutputs(calls);
    rv.outcomes.resize(g);
    for (size_t p = 0; p < g; ++p) {
      rv.outcomes[p] = {std::move(outputs[p]), last_arrival + cost.duration_ps};
    }
    return Status();
  }

  Status CompleteHost(Rendezvous& rv) {
    const size_t g = rv.members.size();
    std::vector<std::string> descriptions(g);
    for (size_t p = 0; p < g; ++p) {
      const HostCollectiveCall& c = rv.host_calls[p];
      descriptions[p] = c.kind == HostCollectiveKind::kBarrier
                            ? "barrier"
                            : "all_gather of " + std::to_string(c.input.size()) + " B";
      descriptions[p] += ", world " + std::to_string(c.world_size);
    }
    if (std::string d = Disagreement(rv.members, descriptions); !d.empty()) {
      return Collectives(rv.label + ": the ranks disagree — " + d);
    }
    std::vector<uint8_t> all;
    if (rv.host_calls[0].kind == HostCollectiveKind::kAllGather) {
      for (const HostCollectiveCall& c : rv.host_calls) {
        all.insert(all.end(), c.input.begin(), c.input.end());
      }
    }
    rv.outcomes.assign(g, CollectiveOutcome{all, 0});
    return Status();
  }

  // Under the lock: NRT_EXEC_HW_ERR_COLLECTIVES when a member other than `rank` is a rank whose
  // instance departed less than kTombstoneLifetime ago; ok otherwise.
  Status Departed(const std::string& communicator, const std::vector<uint32_t>& members,
                  uint32_t rank) {
    auto it = departed_.find(communicator);
    if (it == departed_.end()) return Status::Ok();
    const auto now = std::chrono::steady_clock::now();
    std::vector<uint32_t> gone;
    std::string why;
    for (uint32_t m : members) {
      auto d = it->second.find(m);
      if (m == rank || d == it->second.end() || now >= d->second.expires) continue;
      gone.push_back(m);
      why = d->second.reason;
    }
    if (gone.empty()) return Status::Ok();
    return Collectives(std::string(gone.size() > 1 ? "ranks " : "rank ") + RankList(gone) +
                       " left the job: " + why);
  }

 public:
  void NoteRank(const std::string& communicator, uint32_t rank, const std::string& instance_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      auto [it, added] = rank_instances_.try_emplace(communicator);
      if (added) {
        communicator_order_.push_back(communicator);
        if (communicator_order_.size() > kMaxTombstones) {
          rank_instances_.erase(communicator_order_.front());
          departed_.erase(communicator_order_.front());
          communicator_order_.pop_front();
        }
      }
      it->second[rank] = instance_id;
      auto d = departed_.find(communicator);
      if (d != departed_.end() && d->second.erase(rank) > 0) ForgetOwed(communicator, rank);
    } catch (const std::bad_alloc&) {
      // Not noted: a departure of its instance then leaves the others to their timeout.
    }
  }

  // Under the lock: a departed rank noted again is a rerun of it, not its departed
  // predecessor; the failures that predecessor was owed (tombstones of its communicator) are
  // not the new rank's to receive.
  void ForgetOwed(const std::string& communicator, uint32_t rank) {
    for (auto it = tombstones_.lower_bound(Key{communicator});
         it != tombstones_.end() && it->first.communicator == communicator;) {
      std::vector<uint32_t>& owed = it->second.owed;
      owed.erase(std::remove(owed.begin(), owed.end(), rank), owed.end());
      it = owed.empty() ? tombstones_.erase(it) : std::next(it);
    }
  }

  void DepartInstance(const std::string& instance_id, const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto expires = std::chrono::steady_clock::now() + kTombstoneLifetime;
    try {
      for (auto& [communicator, ranks] : rank_instances_) {
        for (auto& [rank, instance] : ranks) {
          if (instance == instance_id) departed_[communicator][rank] = {reason, expires};
        }
      }
      // Open rendezvous still waiting for a rank that is gone end now.
      std::vector<std::pair<Key, std::shared_ptr<Rendezvous>>> failing;
      for (auto& [key, rv] : open_) {
        if (rv->computing) continue;
        std::vector<uint32_t> missing;
        for (size_t p = 0; p < rv->members.size(); ++p) {
          if (!rv->present[p]) missing.push_back(rv->members[p]);
        }
        for (uint32_t m : missing) {
          if (!Departed(key.communicator, {m}, UINT32_MAX).ok()) {
            failing.push_back({key, rv});
            break;
          }
        }
      }
      for (auto& [key, rv] : failing) {
        std::vector<uint32_t> missing;
        for (size_t p = 0; p < rv->members.size(); ++p) {
          if (!rv->present[p]) missing.push_back(rv->members[p]);
        }
        Status gone = Departed(key.communicator, missing, UINT32_MAX);
        Finish(key, *rv, Collectives(rv->label + ": " + gone.message()));
      }
    } catch (const std::bad_alloc&) {
      // Not recorded: the waiting ranks end at their own timeout instead.
    }
  }

 private:
  struct Departure {
    std::string reason;
    std::chrono::steady_clock::time_point expires;
  };

  const InstanceSpec& spec_;
  std::mutex mutex_;
  // Multi-instance jobs: communicator -> rank -> instance id, and ranks whose instance left.
  std::map<std::string, std::map<uint32_t, std::string>> rank_instances_;
  std::deque<std::string> communicator_order_;
  std::map<std::string, std::map<uint32_t, Departure>> departed_;
  std::map<Key, std::shared_ptr<Rendezvous>> open_;
  std::map<Key, Tombstone> tombstones_;
  std::deque<Key> tombstone_order_;
};

// A port: one execution's view of the hub, counting the occurrences of each collective id.
class CollectiveHub::Impl::Port final : public CollectivePort {
 public:
  Port(Impl* hub, RankEndpoint endpoint, PortOptions options)
      : hub_(hub), endpoint_(std::move(endpoint)), options_(options) {}

  StatusOr<CollectiveOutcome> Run(CollectiveCall call) override {
    const uint64_t occurrence = occurrences_[call.collective_id]++;
    return hub_->Run(endpoint_, options_, std::move(call), occurrence);
  }

 private:
  Impl* hub_;
  RankEndpoint endpoint_;
  PortOptions options_;
  std::map<uint32_t, uint64_t> occurrences_;
};

CollectiveHub::CollectiveHub(const InstanceSpec& spec) : impl_(std::make_unique<Impl>(spec)) {}

StatusOr<CollectiveOutcome> CollectiveHub::Run(const RankEndpoint& endpoint,
                                               const PortOptions& options, CollectiveCall call,
                                               uint64_t occurrence) {
  return impl_->Run(endpoint, options, std::move(call), occurrence);
}

void CollectiveHub::NoteRank(const std::string& communicator, uint32_t rank,
                             const std::string& instance_id) {
  impl_->NoteRank(communicator, rank, instance_id);
}

void CollectiveHub::DepartInstance(const std::string& instance_id, const std::string& reason) {
  impl_->DepartInstance(instance_id, reason);
}
CollectiveHub::~CollectiveHub() = default;

std::unique_ptr<CollectivePort> CollectiveHub::Attach(RankEndpoint endpoint, PortOptions options) {
  return std::make_unique<Impl::Port>(impl_.get(), std::move(endpoint), options);
}

StatusOr<std::vector<uint8_t>> CollectiveHub::HostCollective(const HostCollectiveCall& call,
                                                             const PortOptions& options) {
  return impl_->Host(call, options);
}

}  // namespace trnsim::simulator::collective
