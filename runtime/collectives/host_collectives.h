// HostCollectives: the process's part in host-driven collectives — the global communicators of
// nrt_build_global_comm / nrt_cc_global_comm_init, and nrt_barrier / nrt_all_gather over them.
// Each call becomes one driver::Device::HostCollective on the communicator named by
// NEURON_RT_ROOT_COMM_ID, so ranks in this process, in other processes of the same neurond, or
// both, meet in the emulated instance's collective hub (docs/collectives.md).
//
// Sequencing: the n-th barrier/all-gather a logical core makes is matched with the n-th of
// every other rank (one counter per vnc, across both kinds); a rank that skips one leaves the
// others to time out naming it.
// Errors: NRT_INVALID for NEURON_RT_ROOT_COMM_ID unset, a rank outside its world, a world that
// differs from the vnc's global communicator; then the hub's (NRT_TIMEOUT naming missing ranks,
// NRT_EXEC_HW_ERR_COLLECTIVES for a mismatch or a rank that left).
//
// Thread safety: all methods; calls on different vncs run concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status_or.h"
#include "driver/device.h"

namespace trnsim::runtime::collectives {

class HostCollectives {
 public:
  // `device` must outlive this. `timeout`: how long a call waits for the other ranks (zero:
  // the hub's default).
  HostCollectives(driver::Device* device, std::string root_comm_id,
                  std::chrono::milliseconds timeout);

  // Records that `vnc` is rank `rank` of a world of `world_size` (nrt_build_global_comm).
  // Building it again with other figures is NRT_INVALID.
  Status BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size);
  // Blocks until every rank of the world has called Barrier as often.
  Status Barrier(int vnc, uint32_t rank, uint32_t world_size);
  // Every rank's `input` (all the same size), concatenated in rank order.
  StatusOr<std::vector<uint8_t>> AllGather(int vnc, uint32_t rank, uint32_t world_size,
                                           std::span<const uint8_t> input);

  // Replica groups of the global communicator (nrta_cc_*): `group` lists global ranks, `vnc` is
  // at `position` in it. OK when `vnc` has a global communicator (BuildGlobalComm) whose rank
  // is group[position], every member is within its world and none repeats; else NRT_INVALID.
  Status CheckGroup(int vnc, std::span<const uint32_t> group, uint32_t position);
  // Every member's `input` (all the same size), concatenated in group order. The n-th call of
  // `vnc` for a group meets the n-th of every other member for the same group (one counter
  // per vnc and group); groups meet apart, as communicators of their own.
  StatusOr<std::vector<uint8_t>> GroupAllGather(int vnc, std::span<const uint32_t> group,
                                                uint32_t position,
                                                std::span<const uint8_t> input);

 private:
  struct Comm {
    bool built = false;  // by BuildGlobalComm
    uint32_t rank = 0;
    uint32_t world_size = 0;
    uint64_t next_sequence = 0;
    // Per replica group (its member list as text): the next sequence number.
    std::unordered_map<std::string, uint64_t> group_sequences;
  };
  // NRT_INVALID unless `rank` is within a world of `world_size` and, when `comm` is built, they
  // are its figures. mutex_ must be held when `comm` is given.
  static Status CheckRank(const Comm* comm, int vnc, uint32_t rank, uint32_t world_size);
  Status CheckGroupLocked(int vnc, std::span<const uint32_t> group, uint32_t position);
  // Checks the arguments and takes the vnc's next sequence number.
  StatusOr<uint64_t> Begin(int vnc, uint32_t rank, uint32_t world_size);
  StatusOr<std::vector<uint8_t>> Run(driver::HostCollectiveKind kind, int vnc, uint32_t rank,
                                     uint32_t world_size, std::span<const uint8_t> input);

  driver::Device* device_;
  const std::string root_comm_id_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;  // guards comms_
  std::unordered_map<int, Comm> comms_;
};

// NRT_INVALID unless `root_comm_id` is set (the check nrt_load_collectives shares).
Status CheckRootCommId(const std::string& root_comm_id, const char* what);

}  // namespace trnsim::runtime::collectives
