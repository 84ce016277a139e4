// Collectives: the global communicators, nrt_barrier, nrt_all_gather, collective streams and
// the NCCL net-plugin bridge. They arrive with collectives; until then every entry point
// validates its arguments (ranks within the world, buffers) and the lifecycle, then reports
// NotImplemented (docs/api-status.md). nrt_get_libnccl_net reports its failure through its
// own out-parameters, as AWS's does.
#include <cstdio>
#include <string>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NotImplemented;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {

constexpr char kCollectives[] = "collectives (arrive with collectives)";

// Rank and world checks, then the core and lifecycle, then NotImplemented.
NRT_STATUS NotYet(const char* function, int64_t vnc, uint32_t g_device_id,
                  uint32_t g_device_count) {
  if (g_device_count == 0 || g_device_id >= g_device_count) {
    return Report(function, trnsim::InvalidError("rank " + std::to_string(g_device_id) +
                                                 " is not within a world of " +
                                                 std::to_string(g_device_count)));
  }
  trnsim::Status ready = CheckInitializedVnc(vnc);
  if (!ready.ok()) return Report(function, ready);
  return NotImplemented(function, kCollectives);
}

}  // namespace

extern "C" {

NRT_STATUS nrt_build_global_comm(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  return NotYet(__func__, vnc, g_device_id, g_device_count);
}

NRT_STATUS nrt_cc_global_comm_init(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  return NotYet(__func__, vnc, g_device_id, g_device_count);
}

NRT_STATUS nrt_barrier(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  return NotYet(__func__, vnc, g_device_id, g_device_count);
}

NRT_STATUS nrt_all_gather(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count,
                          uint32_t rank_input_size, void* input, void* output) {
  if (input == nullptr && rank_input_size > 0) return NullArgument(__func__, "input");
  if (output == nullptr && rank_input_size > 0) return NullArgument(__func__, "output");
  return NotYet(__func__, vnc, g_device_id, g_device_count);
}

NRT_STATUS nrt_cc_create_stream(uint32_t stream_id) {
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return NotImplemented(__func__, kCollectives);
}

// trnsim embeds no NCCL net plugin: NULL, *err = 1 and the reason in err_msg (truncated to
// err_msg_size bytes, NUL included), plus the usual log line.
void* nrt_get_libnccl_net(int* err, char* err_msg, size_t err_msg_size) {
  static constexpr char kReason[] =
      "trnsim embeds no NCCL net plugin: collectives are not emulated yet";
  NotImplemented(__func__, kCollectives);
  if (err != nullptr) *err = 1;
  if (err_msg != nullptr && err_msg_size > 0) std::snprintf(err_msg, err_msg_size, "%s", kReason);
  return nullptr;
}

}  // extern "C"
