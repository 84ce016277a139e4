// Collectives driven from the host: the global communicators, nrt_barrier and nrt_all_gather
// (runtime/collectives/host_collectives.h; the ranks meet in the emulated instance's collective
// hub, docs/collectives.md). Collective streams are not needed (nrt_cc_create_stream fails
// with the reason) and no NCCL net plugin is embedded (nrt_get_libnccl_net says so);
// nrt_get_libnccl_net reports its failure through its own out-parameters, as AWS's does.
#include <cstdio>
#include <cstring>
#include <string>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

namespace {

// Why nrt_cc_create_stream fails (docs/decisions.md, "Collective streams").
constexpr char kNoCollectiveStreams[] =
    "trnsim needs no collective stream: host-initiated collectives (nrta_cc_*) run on the "
    "collectives execution-unit queues every logical core has from nrt_init, and AWS does not "
    "publish what a stream would change";

// Rank and world checks, then the core and lifecycle.
trnsim::Status CheckRank(int64_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  if (g_device_count == 0 || g_device_id >= g_device_count) {
    return trnsim::InvalidError("rank " + std::to_string(g_device_id) +
                                " is not within a world of " + std::to_string(g_device_count));
  }
  if (vnc < 0 || vnc > INT32_MAX) {
    return trnsim::InvalidError("logical core " + std::to_string(vnc) + " is not a core index");
  }
  return CheckInitializedVnc(static_cast<int32_t>(vnc));
}

}  // namespace

extern "C" {

NRT_STATUS nrt_build_global_comm(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  trnsim::Status ok = CheckRank(vnc, g_device_id, g_device_count);
  if (!ok.ok()) return Report(__func__, ok);
  return Report(__func__, Rt().collectives().BuildGlobalComm(vnc, g_device_id, g_device_count));
}

// The communicator of host-driven collectives is the same global one in trnsim.
NRT_STATUS nrt_cc_global_comm_init(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  trnsim::Status ok = CheckRank(vnc, g_device_id, g_device_count);
  if (!ok.ok()) return Report(__func__, ok);
  return Report(__func__, Rt().collectives().BuildGlobalComm(static_cast<int>(vnc), g_device_id,
                                                             g_device_count));
}

NRT_STATUS nrt_barrier(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
  trnsim::Status ok = CheckRank(vnc, g_device_id, g_device_count);
  if (!ok.ok()) return Report(__func__, ok);
  return Report(__func__, Rt().collectives().Barrier(vnc, g_device_id, g_device_count));
}

NRT_STATUS nrt_all_gather(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count,
                          uint32_t rank_input_size, void* input, void* output) {
  if (input == nullptr && rank_input_size > 0) return NullArgument(__func__, "input");
  if (output == nullptr && rank_input_size > 0) return NullArgument(__func__, "output");
  trnsim::Status ok = CheckRank(vnc, g_device_id, g_device_count);
  if (!ok.ok()) return Report(__func__, ok);
  auto gathered = Rt().collectives().AllGather(
      vnc, g_device_id, g_device_count,
      std::span<const uint8_t>(static_cast<const uint8_t*>(input), rank_input_size));
  if (!gathered.ok()) return Report(__func__, gathered.status());
  const uint64_t expected = uint64_t{rank_input_size} * g_device_count;
  if (gathered->size() != expected) {
    return Report(__func__, trnsim::FailureError(
                                "the all-gather returned " + std::to_string(gathered->size()) +
                                " bytes, expected " + std::to_string(expected)));
  }
  if (expected > 0) std::memcpy(output, gathered->data(), expected);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_cc_create_stream(uint32_t stream_id) {
  trnsim::Status ready = Rt().CheckInitialized();
  if (!ready.ok()) return Report(__func__, ready);
  return Report(__func__, trnsim::FailureError(kNoCollectiveStreams));
}

// trnsim embeds no NCCL net plugin: NULL, *err = 1 and the reason in err_msg (truncated to
// err_msg_size bytes, NUL included), plus the usual log line.
void* nrt_get_libnccl_net(int* err, char* err_msg, size_t err_msg_size) {
  static constexpr char kReason[] =
      "trnsim embeds no NCCL net plugin: collectives run in the emulated instance's hub";
  Report(__func__, trnsim::FailureError(kReason));
  if (err != nullptr) *err = 1;
  if (err_msg != nullptr && err_msg_size > 0) std::snprintf(err_msg, err_msg_size, "%s", kReason);
  return nullptr;
}

}  // extern "C"
