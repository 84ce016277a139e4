// neuron-monitor's built-in Prometheus endpoint: a small HTTP/1.1 server (Boost.Beast over
// Asio, one thread of its own) that answers
//   GET /metrics (a query string is ignored) -> 200, the last published text, Content-Type
//                                               "text/plain; version=0.0.4; charset=utf-8"
//   HEAD /metrics                            -> the same headers, no body
//   any other path                           -> 404
//   any other method on /metrics             -> 405 with "Allow: GET, HEAD"
// Connections are kept alive as the client asks; one idle or stalled for 30 s is closed. A
// request that does not parse, or whose headers exceed 8 KiB or body 64 KiB, gets 400 and the
// connection is closed. Nothing a client sends can end the process or the server.
//
// Errors: Start fails with NRT_FAILURE naming the address and the reason when the address does
// not resolve or cannot be bound (in use, not local, no permission), one line.
//
// Thread safety: Publish may be called from any thread while the server runs; the destructor
// stops the server thread and closes its connections.
#pragma once

#include <memory>
#include <string>

#include "common/status_or.h"

namespace trnsim::neuron_monitor {

class MetricsServer {
 public:
  // Listens on `address` (a numeric IPv4/IPv6 address or a host name; the first address it
  // resolves to) and `port` (0: one the system picks) and starts serving. Until the first
  // Publish, /metrics answers an empty body.
  static StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& address, int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The bound address and port, "0.0.0.0:8000" or "[::1]:8000".
  std::string endpoint() const;

  // Replaces the exposition text /metrics answers.
  void Publish(std::string exposition);

  struct Impl;

 private:
  explicit MetricsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trnsim::neuron_monitor
