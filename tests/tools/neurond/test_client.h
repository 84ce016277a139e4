// Test helpers for neurond: a daemon started in-process on a Unix socket in a fresh temporary
// folder, and a raw gRPC client (no remote back end) that sends requests exactly as given, so
// tests can send what a correct client never would.
#pragma once

#include <grpcpp/grpcpp.h>

#include <filesystem>
#include <memory>
#include <string>

#include "proto/neurond.grpc.pb.h"
#include "tools/neurond/daemon.h"

namespace trnsim::neurond::testing {

namespace v1 = ::trnsim::neurond::v1;

// A temporary folder removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One session's connection: its own channel, the session key after Hello, and optionally the
// open Attach stream.
class RawClient {
 public:
  explicit RawClient(const std::string& address);
  ~RawClient() { BreakAttach(); }

  // Hello with `token`; on success keeps the key. Returns the gRPC status.
  grpc::Status Hello(const std::string& token, v1::HelloResponse* response,
                     uint32_t version = v1::PROTOCOL_VERSION_CURRENT);
  // Opens the Attach stream and reads the KIND_ATTACHED event; false if that fails.
  bool Attach();
  // Breaks the Attach stream as a dying client would.
  void BreakAttach();
  // Reads the next event of the Attach stream (false when it ended).
  bool NextEvent(v1::SessionEvent* event);
  // After NextEvent returned false: how the stream ended.
  grpc::Status FinishAttach();

  // A context with the session key (unless `with_key` is false) and a 10 s deadline.
  std::unique_ptr<grpc::ClientContext> Context(bool with_key = true) const;
  v1::Neurond::Stub& stub() { return *stub_; }
  const std::string& key() const { return key_; }
  void set_key(std::string key) { key_ = std::move(key); }
  uint64_t session_id() const { return session_id_; }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Neurond::Stub> stub_;
  std::string key_;
  uint64_t session_id_ = 0;
  std::unique_ptr<grpc::ClientContext> attach_context_;
  std::unique_ptr<grpc::ClientReader<v1::SessionEvent>> attach_;
};

}  // namespace trnsim::neurond::testing
