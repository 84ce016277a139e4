#include "tools/device_plugin/plugin_server.h"

#include <unistd.h>

#include <chrono>
#include <cstring>

#include "common/log.h"

namespace trnsim::device_plugin {

PluginServer::PluginServer(std::string kubelet_dir, Resource resource, const Inventory& inventory,
                           const HealthMonitor& monitor, AllocationConfig allocation)
    : resource_(resource),
      socket_path_(kubelet_dir + "/" + EndpointName(resource)),
      inventory_(inventory),
      monitor_(monitor),
      allocation_(std::move(allocation)) {}

Status PluginServer::Start() {
  Stop();
  if (unlink(socket_path_.c_str()) != 0 && errno != ENOENT) {
    return FailureError("cannot remove the stale socket " + socket_path_ + ": " +
                        std::strerror(errno));
  }
  service_ = std::make_unique<PluginService>(resource_, inventory_, monitor_, allocation_);
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort("unix:" + socket_path_, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || bound == 0) {
    server_.reset();
    service_.reset();
    return FailureError("cannot serve " + ResourceName(resource_) + " on unix:" + socket_path_ +
                        " (is the directory there and writable?)");
  }
  TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: serving " << ResourceName(resource_) << " on "
                         << socket_path_;
  return Status::Ok();
}

void PluginServer::Stop() {
  if (server_ == nullptr) return;
  service_->Stop();
  // The streams notice Stop() within PluginService's check period; other calls are short.
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server_.reset();
  service_.reset();
  unlink(socket_path_.c_str());
}

}  // namespace trnsim::device_plugin
