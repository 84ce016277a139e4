// Init, close, version, status names, instance and core-count queries.
#include <cstring>

#include "api/src/shim.h"
#include "common/version.h"
#include "nrt/nrt_status.h"
#include "nrt/nrt_version.h"
#include "runtime/version.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

extern "C" {

NRT_STATUS nrt_init(nrt_framework_type_t framework, const char* fw_version,
                    const char* fal_version) {
  return Report(__func__, Rt().Init(static_cast<uint32_t>(framework),
                                    fw_version ? fw_version : "", fal_version ? fal_version : ""));
}

void nrt_close(void) { Rt().Close(); }

const char* nrt_get_status_as_str(NRT_STATUS status) {
  return trnsim::StatusCodeName(static_cast<trnsim::StatusCode>(status));
}

NRT_STATUS nrt_get_version(nrt_version_t* ver, size_t size) {
  if (ver == nullptr) return NullArgument(__func__, "ver");
  // Callers pass sizeof(nrt_version_t); the fields up to rt_detail must fit.
  constexpr size_t kMinimumSize = offsetof(nrt_version_t, git_hash);
  if (size < kMinimumSize) {
    return Report(__func__, trnsim::FailureError("size " + std::to_string(size) +
                                                 " is smaller than the " +
                                                 std::to_string(kMinimumSize) +
                                                 " bytes of nrt_version_t it must hold"));
  }
  const auto& v = trnsim::runtime::kNrtVersion;
  nrt_version_t out;
  std::memset(&out, 0, sizeof(out));
  out.rt_major = v.major;
  out.rt_minor = v.minor;
  out.rt_patch = v.patch;
  out.rt_maintenance = v.maintenance;
  std::string detail = "libnrt version " + std::to_string(v.major) + "." +
                       std::to_string(v.minor) + "." + std::to_string(v.patch) + "." +
                       std::to_string(v.maintenance) + " (trnsim " +
                       trnsim::TrnsimVersion() + ")";
  trnsim::api::CopyString(out.rt_detail, detail);
  trnsim::api::CopyString(out.git_hash, trnsim::TrnsimGitHash());
  // As AWS's library does: the git hash only for callers whose struct holds all 41 bytes of it.
  size_t copy = size > offsetof(nrt_version_t, git_hash) + 40 ? size : kMinimumSize;
  std::memcpy(ver, &out, copy < sizeof(out) ? copy : sizeof(out));
  return NRT_SUCCESS;
}

NRT_STATUS nrt_get_instance_info(nrt_instance_info_t* info, size_t instance_info_len) {
  if (info == nullptr) return NullArgument(__func__, "info");
  auto got = Rt().instance().Info();
  if (!got.ok()) return Report(__func__, got.status());
  nrt_instance_info_t out;
  std::memset(&out, 0, sizeof(out));
  out.family = got->family;
  out.size = got->size;
  trnsim::api::CopyString(out.arch_name, got->arch_name);
  trnsim::api::CopyString(out.device_revision, got->device_revision);
  // Older callers pass the 8-byte layout (family, size); copy no more than they hold.
  std::memcpy(info, &out, instance_info_len < sizeof(out) ? instance_info_len : sizeof(out));
  return NRT_SUCCESS;
}

static NRT_STATUS WriteCount(const char* function, trnsim::StatusOr<uint32_t> count,
                             uint32_t* out) {
  if (out == nullptr) return NullArgument(function, "vnc_count");
  if (!count.ok()) return Report(function, count.status());
  *out = *count;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_get_total_vnc_count(uint32_t* vnc_count) {
  return WriteCount(__func__, Rt().instance().TotalVncCount(), vnc_count);
}

NRT_STATUS nrt_get_total_nc_count(uint32_t* vnc_count) {
  return WriteCount(__func__, Rt().instance().TotalVncCount(), vnc_count);
}

NRT_STATUS nrt_get_visible_vnc_count(uint32_t* vnc_count) {
  return WriteCount(__func__, Rt().instance().VisibleVncCount(), vnc_count);
}

NRT_STATUS nrt_get_visible_nc_count(uint32_t* vnc_count) {
  return WriteCount(__func__, Rt().instance().VisibleVncCount(), vnc_count);
}

NRT_STATUS nrt_host_device_id_get(int neuron_dev, uint32_t* host_device_id) {
  if (host_device_id == nullptr) return NullArgument(__func__, "host_device_id");
  auto id = Rt().instance().HostDeviceId(neuron_dev);
  if (!id.ok()) return Report(__func__, id.status());
  *host_device_id = *id;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_host_device_id_rid_map_get(uint32_t* count, uint32_t* host_did_to_rid_map) {
  if (count == nullptr) return NullArgument(__func__, "count");
  if (host_did_to_rid_map == nullptr) return NullArgument(__func__, "host_did_to_rid_map");
  auto map = Rt().instance().RoutingIdMap();
  if (!map.ok()) return Report(__func__, map.status());
  if (*count < map->size()) {
    return Report(__func__, trnsim::InvalidError("the table holds " + std::to_string(*count) +
                                                 " entries; the instance has " +
                                                 std::to_string(map->size()) + " devices"));
  }
  std::copy(map->begin(), map->end(), host_did_to_rid_map);
  *count = static_cast<uint32_t>(map->size());
  return NRT_SUCCESS;
}

}  // extern "C"
