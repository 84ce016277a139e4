#include "simulator/collective/collective_port.h"

#include <string>

namespace trnsim::simulator::collective {

StatusOr<std::vector<uint32_t>> GroupMembers(ReplicaGroupSpec spec, uint32_t world_size,
                                             uint32_t rank) {
  if (world_size == 0) return InvalidError("a world of 0 ranks");
  if (rank >= world_size) {
    return InvalidError("rank " + std::to_string(rank) + " is not within a world of " +
                        std::to_string(world_size));
  }
  const uint64_t size = spec.size == 0 ? world_size : spec.size;
  const uint64_t stride = spec.stride;
  if (stride == 0) return InvalidError("a replica-group stride of 0");
  if (size * stride > world_size || world_size % (size * stride) != 0) {
    return InvalidError("replica groups of " + std::to_string(size) + " ranks with stride " +
                        std::to_string(stride) + " do not tile a world of " +
                        std::to_string(world_size) + " ranks");
  }
  const uint64_t block = size * stride;
  const uint64_t base = (rank / block) * block + rank % stride;
  std::vector<uint32_t> members;
  members.reserve(size);
  for (uint64_t k = 0; k < size; ++k) members.push_back(static_cast<uint32_t>(base + k * stride));
  return members;
}

}  // namespace trnsim::simulator::collective
