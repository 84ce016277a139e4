// PluginService: kubelet's DevicePlugin service (proto/deviceplugin/v1beta1/api.proto) for one
// resource of the node's emulated instance.
//  - GetDevicePluginOptions: GetPreferredAllocation available, no PreStartContainer.
//  - ListAndWatch: the full list at once (device_list.h), then again at each health change
//    the HealthMonitor publishes, until kubelet cancels the stream or Stop() is called.
//  - GetPreferredAllocation: preferred_allocation.h, per container request.
//  - Allocate: allocation.h, per container request.
//  - PreStartContainer: checks the IDs; there is nothing to reset on an emulated device.
// Every refused request is gRPC INVALID_ARGUMENT with the reason, and one ERROR log line naming
// the resource and the RPC; kubelet then fails the pod's admission, as with any plugin error.
//
// Thread safety: gRPC calls the methods from its threads at once; the service only reads the
// inventory and the monitor's snapshots, both safe for that. `inventory` and `monitor` must
// outlive it.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>

#include "proto/deviceplugin/v1beta1/api.grpc.pb.h"
#include "tools/device_plugin/allocation.h"
#include "tools/device_plugin/health_monitor.h"
#include "tools/device_plugin/inventory.h"
#include "tools/device_plugin/resource.h"

namespace trnsim::device_plugin {

class PluginService final : public v1beta1::DevicePlugin::Service {
 public:
  PluginService(Resource resource, const Inventory& inventory, const HealthMonitor& monitor,
                AllocationConfig allocation);

  // Ends the open ListAndWatch streams (within a fraction of a second).
  void Stop() { stopped_ = true; }

  grpc::Status GetDevicePluginOptions(grpc::ServerContext* context, const v1beta1::Empty* request,
                                      v1beta1::DevicePluginOptions* response) override;
  grpc::Status ListAndWatch(grpc::ServerContext* context, const v1beta1::Empty* request,
                            grpc::ServerWriter<v1beta1::ListAndWatchResponse>* writer) override;
  grpc::Status GetPreferredAllocation(grpc::ServerContext* context,
                                      const v1beta1::PreferredAllocationRequest* request,
                                      v1beta1::PreferredAllocationResponse* response) override;
  grpc::Status Allocate(grpc::ServerContext* context, const v1beta1::AllocateRequest* request,
                        v1beta1::AllocateResponse* response) override;
  grpc::Status PreStartContainer(grpc::ServerContext* context,
                                 const v1beta1::PreStartContainerRequest* request,
                                 v1beta1::PreStartContainerResponse* response) override;

 private:
  // Logs one line and makes the INVALID_ARGUMENT answer.
  grpc::Status Refuse(const char* rpc, const std::string& reason) const;

  const Resource resource_;
  const Inventory& inventory_;
  const HealthMonitor& monitor_;
  const AllocationConfig allocation_;
  std::atomic<bool> stopped_{false};
};

}  // namespace trnsim::device_plugin
