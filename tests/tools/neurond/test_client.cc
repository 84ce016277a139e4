#include "tests/tools/neurond/test_client.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>

namespace trnsim::neurond::testing {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "neurond_test_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

RawClient::RawClient(const std::string& address)
    : channel_(grpc::CreateChannel(address, grpc::InsecureChannelCredentials())),
      stub_(v1::Neurond::NewStub(channel_)) {}

std::unique_ptr<grpc::ClientContext> RawClient::Context(bool with_key) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (with_key) context->AddMetadata(kSessionKeyMetadata, key_);
  return context;
}

grpc::Status RawClient::Hello(const std::string& token, v1::HelloResponse* response,
                              uint32_t version) {
  v1::HelloRequest request;
  request.set_protocol_version(version);
  request.set_client_pid(4242);
  request.set_client_command("neurond_test");
  request.set_runtime_version("test");
  request.set_token(token);
  auto context = Context(false);
  grpc::Status status = stub_->Hello(context.get(), request, response);
  if (status.ok() && response->status().code() == 0) {
    key_ = response->session_key();
    session_id_ = response->session_id();
  }
  return status;
}

bool RawClient::Attach() {
  attach_context_ = std::make_unique<grpc::ClientContext>();
  attach_context_->AddMetadata(kSessionKeyMetadata, key_);
  attach_ = stub_->Attach(attach_context_.get(), v1::AttachRequest());
  v1::SessionEvent event;
  return attach_->Read(&event) && event.kind() == v1::SessionEvent::KIND_ATTACHED;
}

void RawClient::BreakAttach() {
  if (attach_context_ == nullptr) return;
  attach_context_->TryCancel();
  attach_->Finish();
  attach_.reset();
  attach_context_.reset();
}

bool RawClient::NextEvent(v1::SessionEvent* event) {
  return attach_ != nullptr && attach_->Read(event);
}

grpc::Status RawClient::FinishAttach() {
  if (attach_ == nullptr) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "no stream");
  grpc::Status status = attach_->Finish();
  attach_.reset();
  attach_context_.reset();
  return status;
}

}  // namespace trnsim::neurond::testing
