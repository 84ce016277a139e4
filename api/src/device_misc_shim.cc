// Device-memory helpers and hardware hooks: nrt_memcpy_to_device, dma-buf export, HBM
// mappings, the attached EFA NIC and custom Pool-engine microcode. nrt_memcpy_to_device works;
// the others return the error AWS's runtime gives where the hardware feature is absent
// (docs/api-status.md).
#include <atomic>
#include <cstring>

#include "api/src/shim.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

extern "C" {

// As AWS's: a plain copy plus a full barrier so the device sees the bytes, no lifecycle check.
NRT_STATUS nrt_memcpy_to_device(void* dest, const void* src, size_t size) {
  if (dest == nullptr) return NullArgument(__func__, "dest");
  if (src == nullptr) return NullArgument(__func__, "src");
  std::memcpy(dest, src, size);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_get_dmabuf_fd(uint64_t va, uint64_t size, int* fd) {
  if (fd == nullptr) return NullArgument(__func__, "fd");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  // AWS's runtime answers NRT_INVALID in simulation and without peer-direct.
  return Report(__func__, trnsim::InvalidError("no dma-buf export: trnsim emulates no EFA "
                                               "peer-direct memory registration"));
}

NRT_STATUS nrt_get_hbm_mmap_va(int device_id, int hbm_idx, void** addr, size_t* size) {
  if (addr == nullptr) return NullArgument(__func__, "addr");
  if (size == nullptr) return NullArgument(__func__, "size");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  // What AWS's runtime answers with NEURON_RT_MAP_HBM off (its default).
  return Report(__func__, trnsim::InvalidError("HBM is not mapped into the process (as AWS's "
                                               "runtime with NEURON_RT_MAP_HBM=0)"));
}

NRT_STATUS nrt_get_attached_efa_bdf(const void* va, char* efa_bdf, size_t* len) {
  if (va == nullptr) return NullArgument(__func__, "va");
  if (efa_bdf == nullptr) return NullArgument(__func__, "efa_bdf");
  if (len == nullptr) return NullArgument(__func__, "len");
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return Report(__func__, trnsim::FailureError("no EFA device is emulated"));
}

// Pre-init only. After nrt_init (or in a forked child) NRT_FAILURE; before it the images are
// validated, but custom Pool microcode is not emulated, so a valid request fails with the reason.
NRT_STATUS nrt_set_pool_eng_ucode(const nrt_ucode_info* ucode_info) {
  trnsim::Status state = Rt().CheckInitialized();
  if (state.ok()) {
    return Report(__func__, trnsim::FailureError("Pool-engine microcode can only be set before "
                                                 "nrt_init"));
  }
  if (state.code() == trnsim::StatusCode::kFailure) return Report(__func__, state);
  if (ucode_info == nullptr) return NullArgument(__func__, "ucode_info");
  if (ucode_info->iram.bin == nullptr || ucode_info->iram.size == 0) {
    return Report(__func__, trnsim::InvalidError("the IRAM image is empty"));
  }
  if (ucode_info->dram.bin == nullptr || ucode_info->dram.size == 0) {
    return Report(__func__, trnsim::InvalidError("the DRAM image is empty"));
  }
  // Not a missing piece but a permanent difference: the image is code for AWS's Pool engine.
  return Report(__func__, trnsim::FailureError(
                              "trnsim does not run custom Pool-engine microcode: the image "
                              "targets AWS's instruction encoding, and the chip model's Pool "
                              "engine runs trnsim's documented ISA (docs/isa.md)"));
}

}  // extern "C"
