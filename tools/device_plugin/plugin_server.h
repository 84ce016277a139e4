// PluginServer: one resource's endpoint — a gRPC server of PluginService on the unix socket
// <kubelet dir>/<EndpointName(resource)>. Start() removes a stale socket file of that name
// first (a plugin that died leaves one; kubelet's own plugins do the same); Stop() ends the
// ListAndWatch streams, shuts the server down and removes the socket file.
//
// Errors: Start() is NRT_FAILURE naming the path when the socket cannot be bound.
//
// Thread safety: Start/Stop from one thread; the service runs on gRPC's threads.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "common/status.h"
#include "tools/device_plugin/plugin_service.h"

namespace trnsim::device_plugin {

class PluginServer {
 public:
  PluginServer(std::string kubelet_dir, Resource resource, const Inventory& inventory,
               const HealthMonitor& monitor, AllocationConfig allocation);
  ~PluginServer() { Stop(); }
  PluginServer(const PluginServer&) = delete;
  PluginServer& operator=(const PluginServer&) = delete;

  [[nodiscard]] Status Start();
  void Stop();

  Resource resource() const { return resource_; }
  const std::string& socket_path() const { return socket_path_; }
  bool running() const { return server_ != nullptr; }

 private:
  const Resource resource_;
  const std::string socket_path_;
  const Inventory& inventory_;
  const HealthMonitor& monitor_;
  const AllocationConfig allocation_;
  std::unique_ptr<PluginService> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace trnsim::device_plugin
