#include "tests/tools/device_plugin/fake_kubelet.h"

#include <unistd.h>

namespace trnsim::device_plugin::testing {

bool FakeKubelet::Start() {
  const std::string socket = dir_ + "/kubelet.sock";
  unlink(socket.c_str());
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort("unix:" + socket, grpc::InsecureServerCredentials(), &bound);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  return server_ != nullptr && bound != 0;
}

void FakeKubelet::Stop() {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  server_.reset();
  unlink((dir_ + "/kubelet.sock").c_str());
}

grpc::Status FakeKubelet::Register(grpc::ServerContext*, const v1beta1::RegisterRequest* request,
                                   v1beta1::Empty*) {
  std::lock_guard<std::mutex> lock(mutex_);
  registrations_.push_back(*request);
  arrived_.notify_all();
  return grpc::Status::OK;
}

std::vector<v1beta1::RegisterRequest> FakeKubelet::WaitForRegistrations(
    size_t count, std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  arrived_.wait_for(lock, timeout, [&] { return registrations_.size() >= count; });
  return registrations_;
}

std::unique_ptr<v1beta1::DevicePlugin::Stub> FakeKubelet::Dial(const std::string& endpoint) const {
  return v1beta1::DevicePlugin::NewStub(
      grpc::CreateChannel("unix:" + dir_ + "/" + endpoint, grpc::InsecureChannelCredentials()));
}

ListWatcher::ListWatcher(v1beta1::DevicePlugin::Stub& stub) {
  reader_ = stub.ListAndWatch(&context_, v1beta1::Empty());
  thread_ = std::thread([this] {
    v1beta1::ListAndWatchResponse list;
    while (reader_->Read(&list)) {
      std::lock_guard<std::mutex> lock(mutex_);
      lists_.push_back(list);
      arrived_.notify_all();
    }
  });
}

ListWatcher::~ListWatcher() {
  context_.TryCancel();
  thread_.join();
  (void)reader_->Finish();
}

size_t ListWatcher::count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return lists_.size();
}

}  // namespace trnsim::device_plugin::testing
