// Registering one resource with kubelet: Registration.Register on <kubelet dir>/kubelet.sock
// (kubelet's KubeletSocket) with version "v1beta1", the resource's endpoint file name, its
// resource name and options (GetPreferredAllocation available, no PreStartContainer).
//
// Errors, one line naming the socket: NRT_FAILURE when kubelet is unreachable or refuses (its
// message, e.g. a resource name another plugin holds), NRT_TIMEOUT past `deadline`.
//
// Thread safety: reentrant.
#pragma once

#include <chrono>
#include <string>

#include "common/status.h"
#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

inline constexpr char kKubeletSocket[] = "kubelet.sock";  // kubelet's pluginapi.KubeletSocket
inline constexpr char kApiVersion[] = "v1beta1";          // kubelet's pluginapi.Version

[[nodiscard]] Status RegisterWithKubelet(const std::string& kubelet_dir, Resource resource,
                                         std::chrono::milliseconds deadline);

}  // namespace trnsim::device_plugin
