// FdAcceptor: serves a listening socket neurond did not bind itself (systemd socket
// activation, socket_activation.h). gRPC 1.51 cannot listen on an inherited fd, so a thread
// accepts each connection and hands it to the server with grpc::AddInsecureChannelFromFd; from
// there gRPC owns it as it owns a connection it accepted itself (the server's channel arguments
// — message size limits, keepalive — apply, and a connection that drops ends its calls and
// streams, so a dead client's session is cleaned up as usual).
//
// What that path cannot do: TLS (gRPC adds fd channels in plaintext only; Daemon::Start refuses
// TLS options with an inherited socket), and the peer in logs is "fd:N" rather than the
// client's address.
//
// Start(listen_fd, server): starts the thread; the server must be started (BuildAndStart) and
// outlive the acceptor. NRT_FAILURE if the wake-up eventfd cannot be made.
// Stop(): stops accepting and joins the thread; connections already handed over stay with the
// server. Idempotent; the destructor calls it. The listening fd is neither shut down nor closed:
// systemd holds the same socket and passes it to the next activation.
//
// Errors while accepting: EINTR/ECONNABORTED/EAGAIN are retried; EMFILE/ENFILE/ENOBUFS/ENOMEM
// are logged (WARN) and retried after 100 ms; anything else is logged (ERROR) and ends the
// thread (the daemon keeps serving its open connections).
//
// Thread safety: Stop may be called from any thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "common/status_or.h"

namespace trnsim::neurond {

class FdAcceptor {
 public:
  static StatusOr<std::unique_ptr<FdAcceptor>> Start(int listen_fd, grpc::Server* server);
  ~FdAcceptor();

  void Stop();
  // Connections handed to the server so far.
  uint64_t accepted() const { return accepted_.load(); }

 private:
  FdAcceptor(int listen_fd, int wake_fd, grpc::Server* server);
  void Loop();

  const int listen_fd_;
  const int wake_fd_;  // eventfd; written by Stop
  grpc::Server* const server_;
  std::atomic<uint64_t> accepted_{0};
  std::thread thread_;
  std::once_flag stop_once_;
};

}  // namespace trnsim::neurond
