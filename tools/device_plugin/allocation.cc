#include "tools/device_plugin/allocation.h"

#include <sys/stat.h>

#include <set>

#include "tools/device_plugin/core_list.h"

namespace trnsim::device_plugin {
namespace {

constexpr char kUnixPrefix[] = "unix:";

void AddMount(const std::string& host, const std::string& container, bool read_only,
              v1beta1::ContainerAllocateResponse* response) {
  v1beta1::Mount* mount = response->add_mounts();
  mount->set_host_path(host);
  mount->set_container_path(container);
  mount->set_read_only(read_only);
}

bool IsSocket(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

}  // namespace

StatusOr<v1beta1::ContainerAllocateResponse> AllocateContainer(const Inventory& inventory,
                                                               Resource resource,
                                                               const std::vector<std::string>& ids,
                                                               const AllocationConfig& config) {
  if (ids.empty()) return InvalidError("a container request with no devices_ids");
  std::set<std::string> seen;
  std::vector<int> cores;
  for (const std::string& id : ids) {
    const PluginDevice* device = inventory.Find(resource, id);
    if (device == nullptr) {
      return InvalidError("devices_ids: '" + id + "' is not a " + ResourceName(resource) +
                          " device of this " + inventory.instance_type());
    }
    if (!seen.insert(id).second) return InvalidError("devices_ids: '" + id + "' is listed twice");
    cores.insert(cores.end(), device->logical_cores.begin(), device->logical_cores.end());
  }

  v1beta1::ContainerAllocateResponse response;
  auto& envs = *response.mutable_envs();
  envs["NEURON_RT_VISIBLE_CORES"] = FormatCoreList(cores);
  envs["NEURON_LOGICAL_NC_CONFIG"] = std::to_string(inventory.lnc());
  envs["TRNSIM_DAEMON"] = config.container_daemon_address;
  const std::string& address = config.container_daemon_address;
  if (!config.daemon_socket_host_path.empty() && address.rfind(kUnixPrefix, 0) == 0) {
    const std::string container_path = address.substr(sizeof(kUnixPrefix) - 1);
    AddMount(config.daemon_socket_host_path, container_path, false, &response);
    // The shared-memory side socket exists only while a unix-socket daemon runs; mounting a
    // missing path would fail the container, so it is given when it is there.
    if (IsSocket(config.daemon_socket_host_path + ".shm")) {
      AddMount(config.daemon_socket_host_path + ".shm", container_path + ".shm", false, &response);
    }
  }
  if (!config.token_host_path.empty()) {
    envs["TRNSIM_TOKEN_FILE"] = config.token_container_path;
    AddMount(config.token_host_path, config.token_container_path, true, &response);
  }
  return response;
}

}  // namespace trnsim::device_plugin
