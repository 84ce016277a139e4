#include "tools/device_plugin/plugin_service.h"

#include "common/log.h"
#include "tools/device_plugin/device_list.h"
#include "tools/device_plugin/preferred_allocation.h"

namespace trnsim::device_plugin {
namespace {

// How often an idle ListAndWatch stream checks for kubelet's cancellation and Stop().
constexpr std::chrono::milliseconds kStreamCheck{200};

std::vector<std::string> Ids(const google::protobuf::RepeatedPtrField<std::string>& ids) {
  return {ids.begin(), ids.end()};
}

}  // namespace

PluginService::PluginService(Resource resource, const Inventory& inventory,
                             const HealthMonitor& monitor, AllocationConfig allocation)
    : resource_(resource),
      inventory_(inventory),
      monitor_(monitor),
      allocation_(std::move(allocation)) {}

grpc::Status PluginService::Refuse(const char* rpc, const std::string& reason) const {
  TRNSIM_LOG(Error, Tool) << "trnsim-device-plugin: " << ResourceName(resource_) << " " << rpc
                          << " refused: " << reason;
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, reason);
}

grpc::Status PluginService::GetDevicePluginOptions(grpc::ServerContext*, const v1beta1::Empty*,
                                                   v1beta1::DevicePluginOptions* response) {
  response->set_pre_start_required(false);
  response->set_get_preferred_allocation_available(true);
  return grpc::Status::OK;
}

grpc::Status PluginService::ListAndWatch(
    grpc::ServerContext* context, const v1beta1::Empty*,
    grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) {
  uint64_t sent = 0;
  while (!stopped_ && !context->IsCancelled()) {
    const HealthSnapshot health = monitor_.WaitNewer(sent, kStreamCheck);
    if (health.stopped) break;
    if (health.generation <= sent) continue;
    if (!writer->Write(DeviceList(inventory_, resource_, health))) break;  // kubelet went away
    sent = health.generation;
  }
  return grpc::Status::OK;
}

grpc::Status PluginService::GetPreferredAllocation(
    grpc::ServerContext*, const v1beta1::PreferredAllocationRequest* request,
    v1beta1::PreferredAllocationResponse* response) {
  if (request->container_requests().empty()) {
    return Refuse("GetPreferredAllocation", "no container_requests");
  }
  for (const v1beta1::ContainerPreferredAllocationRequest& container :
       request->container_requests()) {
    StatusOr<std::vector<std::string>> ids =
        PreferAllocation(inventory_, resource_, Ids(container.available_deviceids()),
                         Ids(container.must_include_deviceids()), container.allocation_size());
    if (!ids.ok()) return Refuse("GetPreferredAllocation", ids.status().message());
    v1beta1::ContainerPreferredAllocationResponse* chosen = response->add_container_responses();
    for (const std::string& id : *ids) chosen->add_deviceids(id);
  }
  return grpc::Status::OK;
}

grpc::Status PluginService::Allocate(grpc::ServerContext*, const v1beta1::AllocateRequest* request,
                                     v1beta1::AllocateResponse* response) {
  if (request->container_requests().empty()) return Refuse("Allocate", "no container_requests");
  for (const v1beta1::ContainerAllocateRequest& container : request->container_requests()) {
    StatusOr<v1beta1::ContainerAllocateResponse> answer =
        AllocateContainer(inventory_, resource_, Ids(container.devices_ids()), allocation_);
    if (!answer.ok()) return Refuse("Allocate", answer.status().message());
    *response->add_container_responses() = std::move(*answer);
  }
  return grpc::Status::OK;
}

grpc::Status PluginService::PreStartContainer(grpc::ServerContext*,
                                              const v1beta1::PreStartContainerRequest* request,
                                              v1beta1::PreStartContainerResponse*) {
  for (const std::string& id : request->devices_ids()) {
    if (inventory_.Find(resource_, id) == nullptr) {
      return Refuse("PreStartContainer",
                    "devices_ids: '" + id + "' is not a " + ResourceName(resource_) + " device");
    }
  }
  return grpc::Status::OK;
}

}  // namespace trnsim::device_plugin
