#include "tools/device_plugin/registration.h"

#include <grpcpp/grpcpp.h>

#include "proto/deviceplugin/v1beta1/api.grpc.pb.h"

namespace trnsim::device_plugin {

Status RegisterWithKubelet(const std::string& kubelet_dir, Resource resource,
                           std::chrono::milliseconds deadline) {
  const std::string socket = kubelet_dir + "/" + kKubeletSocket;
  auto channel = grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
  auto stub = v1beta1::Registration::NewStub(channel);
  v1beta1::RegisterRequest request;
  request.set_version(kApiVersion);
  request.set_endpoint(EndpointName(resource));
  request.set_resource_name(ResourceName(resource));
  request.mutable_options()->set_pre_start_required(false);
  request.mutable_options()->set_get_preferred_allocation_available(true);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  v1beta1::Empty reply;
  const grpc::Status status = stub->Register(&context, request, &reply);
  if (status.ok()) return Status::Ok();
  const std::string what = "registering " + ResourceName(resource) + " with kubelet at " + socket;
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return TimeoutError(what + ": no answer before the deadline");
  }
  return FailureError(what + " failed: " + status.error_message());
}

}  // namespace trnsim::device_plugin
