#include "runtime/model/model_code.h"

#include <vector>

namespace trnsim::runtime::model {
namespace {

uint64_t StreamBytes(const driver::ProgramImage& image) {
  uint64_t total = 0;
  for (const std::vector<uint8_t>& stream : image.streams) total += stream.size();
  return total;
}

uint64_t DescriptorCount(const driver::ProgramImage& image) {
  uint64_t total = 0;
  for (const auto& descriptors : image.descriptors.per_engine) total += descriptors.size();
  return total;
}

}  // namespace

uint64_t CodeBytes(const driver::ProgramImage& image) {
  return StreamBytes(image) + kDmaDescriptorBytes * DescriptorCount(image);
}

StatusOr<std::unique_ptr<DeviceStorage>> PlaceCode(const driver::ProgramImage& image,
                                                   const std::string& subgraph_name,
                                                   const SubgraphTarget& target) {
  uint64_t size = CodeBytes(image);
  if (size == 0) return std::unique_ptr<DeviceStorage>();
  driver::AllocationRequest request;
  request.chip = target.chip;
  request.hbm = target.hbm;
  request.size_bytes = size;
  request.owner_core = target.physical_core;
  request.category = driver::MemoryCategory::kCode;
  request.owner_model_id = target.model_id;
  StatusOr<std::unique_ptr<DeviceStorage>> storage =
      DeviceStorage::Create(target.device, request, target.vnc, target.bytes_used);
  if (!storage.ok()) {
    return Status(storage.status().code(),
                  subgraph_name + " code (" + std::to_string(size) +
                      " bytes: " + std::to_string(StreamBytes(image)) + " of instructions, " +
                      std::to_string(DescriptorCount(image)) +
                      " DMA descriptors) on logical core " + std::to_string(target.vnc) + ": " +
                      storage.status().message());
  }
  // Each stream is written from where it is, then the descriptor region is explicitly zeroed
  // (freed HBM is reused as it was left): no staging copy of the image, which for a big program
  // would be as large as its streams (a round trip per engine on the remote back end).
  uint64_t at = 0;
  for (const std::vector<uint8_t>& stream : image.streams) {
    if (stream.empty()) continue;
    TRNSIM_RETURN_IF_ERROR((*storage)->Write(at, stream.data(), stream.size()));
    at += stream.size();
  }
  if (at < size) {
    const std::vector<uint8_t> zeros(size - at, 0);
    TRNSIM_RETURN_IF_ERROR((*storage)->Write(at, zeros.data(), zeros.size()));
  }
  return storage;
}

}  // namespace trnsim::runtime::model
