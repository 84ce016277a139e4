#include "runtime/collectives/host_collectives.h"

#include <utility>

namespace trnsim::runtime::collectives {

Status CheckRootCommId(const std::string& root_comm_id, const char* what) {
  if (!root_comm_id.empty()) return Status::Ok();
  return InvalidError(std::string(what) +
                      " needs NEURON_RT_ROOT_COMM_ID (host:port of rank 0, the same for every "
                      "rank of the job), and it is not set");
}

HostCollectives::HostCollectives(driver::Device* device, std::string root_comm_id,
                                 std::chrono::milliseconds timeout)
    : device_(device), root_comm_id_(std::move(root_comm_id)), timeout_(timeout) {}

Status HostCollectives::CheckRank(const Comm* comm, int vnc, uint32_t rank,
                                  uint32_t world_size) {
  if (world_size == 0 || rank >= world_size) {
    return InvalidError("rank " + std::to_string(rank) + " is not within a world of " +
                        std::to_string(world_size));
  }
  if (comm != nullptr && comm->built && (comm->rank != rank || comm->world_size != world_size)) {
    return InvalidError("logical core " + std::to_string(vnc) + " is rank " +
                        std::to_string(comm->rank) + " of " + std::to_string(comm->world_size) +
                        " in its global communicator, not rank " + std::to_string(rank) +
                        " of " + std::to_string(world_size));
  }
  return Status::Ok();
}

Status HostCollectives::BuildGlobalComm(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_RETURN_IF_ERROR(CheckRootCommId(root_comm_id_, "a global communicator"));
  std::lock_guard<std::mutex> lock(mutex_);
  Comm& comm = comms_[vnc];
  TRNSIM_RETURN_IF_ERROR(CheckRank(&comm, vnc, rank, world_size));
  comm.built = true;
  comm.rank = rank;
  comm.world_size = world_size;
  return Status::Ok();
}

StatusOr<uint64_t> HostCollectives::Begin(int vnc, uint32_t rank, uint32_t world_size) {
  TRNSIM_RETURN_IF_ERROR(CheckRootCommId(root_comm_id_, "a host collective"));
  std::lock_guard<std::mutex> lock(mutex_);
  Comm& comm = comms_[vnc];
  TRNSIM_RETURN_IF_ERROR(CheckRank(&comm, vnc, rank, world_size));
  return comm.next_sequence++;
}

Status HostCollectives::CheckGroupLocked(int vnc, std::span<const uint32_t> group,
                                         uint32_t position) {
  auto it = comms_.find(vnc);
  if (it == comms_.end() || !it->second.built) {
    return InvalidError("logical core " + std::to_string(vnc) +
                        " has no global communicator: call nrt_cc_global_comm_init first");
  }
  const Comm& comm = it->second;
  if (group.empty() || position >= group.size()) {
    return InvalidError("position " + std::to_string(position) +
                        " is not within a replica group of " + std::to_string(group.size()));
  }
  if (group[position] != comm.rank) {
    return InvalidError("position " + std::to_string(position) + " of the replica group is rank " +
                        std::to_string(group[position]) + ", but logical core " +
                        std::to_string(vnc) + " is rank " + std::to_string(comm.rank));
  }
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] >= comm.world_size) {
      return InvalidError("replica group member " + std::to_string(group[i]) +
                          " is outside the world of " + std::to_string(comm.world_size));
    }
    for (size_t j = 0; j < i; ++j) {
      if (group[j] == group[i]) {
        return InvalidError("rank " + std::to_string(group[i]) +
                            " appears twice in the replica group");
      }
    }
  }
  return Status::Ok();
}

Status HostCollectives::CheckGroup(int vnc, std::span<const uint32_t> group, uint32_t position) {
  TRNSIM_RETURN_IF_ERROR(CheckRootCommId(root_comm_id_, "a host collective"));
  std::lock_guard<std::mutex> lock(mutex_);
  return CheckGroupLocked(vnc, group, position);
}

StatusOr<std::vector<uint8_t>> HostCollectives::GroupAllGather(int vnc,
                                                               std::span<const uint32_t> group,
                                                               uint32_t position,
                                                               std::span<const uint8_t> input) {
  TRNSIM_RETURN_IF_ERROR(CheckRootCommId(root_comm_id_, "a host collective"));
  std::string members;
  for (uint32_t rank : group) members += (members.empty() ? "" : ",") + std::to_string(rank);
  uint64_t sequence = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    TRNSIM_RETURN_IF_ERROR(CheckGroupLocked(vnc, group, position));
    sequence = comms_[vnc].group_sequences[members]++;
  }
  driver::HostCollectiveCall call;
  call.kind = driver::HostCollectiveKind::kAllGather;
  call.communicator = root_comm_id_ + " group [" + members + "]";
  call.rank = position;
  call.world_size = uint32_t(group.size());
  call.sequence = sequence;
  call.input.assign(input.begin(), input.end());
  driver::HostCollectiveOptions options;
  options.host_timeout = timeout_;
  return device_->HostCollective(call, options);
}

StatusOr<std::vector<uint8_t>> HostCollectives::Run(driver::HostCollectiveKind kind, int vnc,
                                                    uint32_t rank, uint32_t world_size,
                                                    std::span<const uint8_t> input) {
  TRNSIM_ASSIGN_OR_RETURN(uint64_t sequence, Begin(vnc, rank, world_size));
  driver::HostCollectiveCall call;
  call.kind = kind;
  call.communicator = root_comm_id_;
  call.rank = rank;
  call.world_size = world_size;
  call.sequence = sequence;
  call.input.assign(input.begin(), input.end());
  driver::HostCollectiveOptions options;
  options.host_timeout = timeout_;
  return device_->HostCollective(call, options);
}

Status HostCollectives::Barrier(int vnc, uint32_t rank, uint32_t world_size) {
  return Run(driver::HostCollectiveKind::kBarrier, vnc, rank, world_size, {}).status();
}

StatusOr<std::vector<uint8_t>> HostCollectives::AllGather(int vnc, uint32_t rank,
                                                          uint32_t world_size,
                                                          std::span<const uint8_t> input) {
  return Run(driver::HostCollectiveKind::kAllGather, vnc, rank, world_size, input);
}

}  // namespace trnsim::runtime::collectives
