// Model code: the device memory holding one subgraph's program, as AWS's runtime places each
// NEFF's instruction streams and DMA rings in the logical core's HBM (category "model code",
// sysfs "model_code"; neuron-top's "Model Code"). The image of a subgraph is exactly what
// Device::LoadProgram receives (driver::ProgramImage):
//
//   [engine streams, back to back in isa::Engine order][descriptor region, zero-filled]
//
// The descriptor region holds kDmaDescriptorBytes per descriptor of the subgraph's DMA table
// (every engine's). trnsim's chip model executes the translated dma::DescriptorTable, not ring
// bytes, so the region is reserved and zeroed, never read: it makes a model's code cost the HBM
// it costs on the hardware.
//
// Thread safety: pure functions; the storage returned is owned by one Model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/status_or.h"
#include "driver/execution_types.h"
#include "runtime/model/subgraph_memory.h"
#include "runtime/tensor_storage.h"

namespace trnsim::runtime::model {

// A UDMA descriptor is 16 bytes (tools-driver-facts §6.6: a union aligned to 16).
inline constexpr uint64_t kDmaDescriptorBytes = 16;

// Bytes of `image`'s code: every engine stream's bytes + kDmaDescriptorBytes per descriptor.
uint64_t CodeBytes(const driver::ProgramImage& image);

// Allocates CodeBytes(image) bytes of MemoryCategory::kCode on `target`'s HBM stack (owner
// core target.physical_core, tagged target.model_id, charged to target.bytes_used) and writes
// the image laid out as above. Returns nullptr, allocating nothing, when the image has no code
// (0 bytes: no streams, no descriptors). Device OOM is NRT_RESOURCE "<subgraph> code (<n>
// bytes: ...) on logical core <vnc>: <driver message>"; on any failure nothing stays allocated.
StatusOr<std::unique_ptr<DeviceStorage>> PlaceCode(const driver::ProgramImage& image,
                                                   const std::string& subgraph_name,
                                                   const SubgraphTarget& target);

}  // namespace trnsim::runtime::model
