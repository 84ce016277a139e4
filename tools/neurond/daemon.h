// Daemon: one running neurond — an in-process sim Device for one instance type, the
// NeurondService over it, and the gRPC server listening on one address. main.cc runs one from
// the command line; tests start one in-process.
//
// Start() validates the options (listen address: listen_address.h; lnc 1 or 2, and 2 only
// where the instance's cores pair up; max_sessions >= 1; attach_grace >= 1 ms) and returns
// NRT_INVALID for bad ones, NRT_FAILURE naming the address when it cannot be bound;
// options.tls is checked as ServerCredentials does (credentials.h). TLS works on TCP and unix:
// addresses alike. gRPC messages are capped a little above one chunk (CHUNK_BYTES), so an
// oversized message is refused by gRPC itself (RESOURCE_EXHAUSTED) before it is parsed.
// Shutdown(grace) stops accepting calls, tells Attach streams the daemon is going, lets calls in
// flight finish for up to `grace` (then cancels them), ends every session and returns; it is
// idempotent, and the destructor calls it.
//
// Thread safety: Shutdown may be called from any thread, once Start has returned.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <grpcpp/grpcpp.h>

#include "common/status_or.h"
#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/credentials.h"
#include "tools/neurond/service.h"

namespace trnsim::neurond {

struct DaemonOptions {
  std::string listen;         // listen_address.h
  bool allow_remote = false;  // allow a non-loopback listen address
  const simulator::InstanceSpec* instance = nullptr;
  ServiceOptions service;
  TlsKeyPair tls;  // both empty: plaintext; else TLS (credentials.h)
};

class Daemon {
 public:
  static StatusOr<std::unique_ptr<Daemon>> Start(const DaemonOptions& options);
  ~Daemon();

  // The address clients connect to: the listen address, with the port gRPC picked for port 0.
  const std::string& address() const { return address_; }

  void Shutdown(std::chrono::milliseconds grace);

 private:
  Daemon() = default;

  std::unique_ptr<driver::Device> device_;
  std::unique_ptr<NeurondService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::once_flag shutdown_once_;
};

}  // namespace trnsim::neurond
