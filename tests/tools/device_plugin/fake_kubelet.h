// FakeKubelet: the kubelet side of the Device Plugin API for tests — kubelet's Registration
// service on <dir>/kubelet.sock, recording every RegisterRequest, plus clients of the plugin
// endpoints it learns (as kubelet dials <dir>/<endpoint>). It accepts every registration;
// checking them is the test's job.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "proto/deviceplugin/v1beta1/api.grpc.pb.h"

namespace trnsim::device_plugin::testing {

class FakeKubelet final : public v1beta1::Registration::Service {
 public:
  explicit FakeKubelet(std::string dir) : dir_(std::move(dir)) {}
  ~FakeKubelet() override { Stop(); }

  // Serves kubelet.sock (removing a stale one first). False if it cannot bind.
  bool Start();
  // Stops serving and removes kubelet.sock.
  void Stop();

  // Waits until at least `count` registrations arrived since the start, or `timeout`; returns
  // all of them.
  std::vector<v1beta1::RegisterRequest> WaitForRegistrations(size_t count,
                                                             std::chrono::seconds timeout);

  // A client of the plugin endpoint `endpoint` (a file name in the directory).
  std::unique_ptr<v1beta1::DevicePlugin::Stub> Dial(const std::string& endpoint) const;

  grpc::Status Register(grpc::ServerContext* context, const v1beta1::RegisterRequest* request,
                        v1beta1::Empty* response) override;

 private:
  const std::string dir_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<v1beta1::RegisterRequest> registrations_;
  std::unique_ptr<grpc::Server> server_;
};

// Reads one ListAndWatch stream on a thread of its own, keeping every list it receives.
class ListWatcher {
 public:
  explicit ListWatcher(v1beta1::DevicePlugin::Stub& stub);
  ~ListWatcher();

  // The newest list for which `accept` is true, waiting up to `timeout` for one; false if none.
  template <typename Accept>
  bool WaitFor(Accept accept, std::chrono::seconds timeout, v1beta1::ListAndWatchResponse* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    return arrived_.wait_for(lock, timeout, [&] {
      if (lists_.empty() || !accept(lists_.back())) return false;
      *out = lists_.back();
      return true;
    });
  }
  size_t count();

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<v1beta1::ListAndWatchResponse>> reader_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<v1beta1::ListAndWatchResponse> lists_;
  std::thread thread_;
};

}  // namespace trnsim::device_plugin::testing
