// Daemon: one running neurond — an in-process sim Device for one instance type, the
// NeurondService over it, and the gRPC server listening on one address. main.cc runs one from
// the command line; tests start one in-process.
//
// Start() validates the options (listen address: listen_address.h; lnc 1 or 2, and 2 only
// where the instance's cores pair up; max_sessions and
// max_sessions_per_peer >= 1; max_threads >= 2; attach_grace >= 1 ms) and returns
// NRT_INVALID for bad ones, NRT_FAILURE naming the address when it cannot be bound;
// options.tls is checked as ServerCredentials does (credentials.h). TLS works on TCP and unix:
// addresses alike. The server runs at most service.max_threads threads (gRPC's ResourceQuota:
// a call past them is RESOURCE_EXHAUSTED), and service.show_all_processes is set for a unix:
// address. gRPC messages are capped a little above one chunk (CHUNK_BYTES), so an
// oversized message is refused by gRPC itself (RESOURCE_EXHAUSTED) before it is parsed.
//
// With options.inherited (systemd socket activation, socket_activation.h) the daemon binds
// nothing: an FdAcceptor (fd_acceptor.h) serves the inherited socket. Start then refuses
// (NRT_INVALID) TLS options (gRPC serves such connections in plaintext only), a non-loopback TCP
// socket without allow_remote, and a `listen` that is set but is not the socket's address (a
// unit file and /etc/default/neurond that disagree); an empty `listen` is the socket's address.
// Shutdown(grace) stops accepting calls (and connections on an inherited socket, which stays
// open for systemd), tells Attach streams the daemon is going, lets calls in
// flight finish for up to `grace` (then cancels them), ends every session and returns; it is
// idempotent, and the destructor calls it.
//
// Shared-memory data plane: on a unix:PATH address (bound or inherited) Start also opens the
// side socket PATH.shm (shared_memory_listener.h) and Hello offers the data plane; when that
// socket cannot be made (a path too long, a directory the daemon cannot write) one log line
// says so and clients stream. Shutdown closes it first.
//
// Multi-instance jobs (docs/cluster.md): with options.cluster.listen set, Start also serves the
// NeurondCluster service (cluster/cluster_service.h) on that TCP address — a second gRPC server
// with the daemon's token and TLS and cluster/cluster_service.h's message limit — and the
// device's collectives go through a ClusterFabric (cluster/cluster_fabric.h). The address must
// be TCP (HOST:PORT; not loopback only with allow_remote); with TLS the daemon needs
// cluster.peer_ca_file to trust other daemons (NRT_INVALID otherwise). Shutdown stops it first.
//
// Thread safety: Shutdown may be called from any thread, once Start has returned.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/status_or.h"
#include "driver/device.h"
#include "simulator/spec/instance_spec.h"
#include "tools/neurond/cluster/cluster_fabric.h"
#include "tools/neurond/cluster/cluster_service.h"
#include "tools/neurond/credentials.h"
#include "tools/neurond/fd_acceptor.h"
#include "tools/neurond/service.h"
#include "tools/neurond/shared_memory_listener.h"
#include "tools/neurond/socket_activation.h"

namespace trnsim::neurond {

// Multi-instance jobs; an empty listen: the daemon serves single-instance jobs only.
struct ClusterOptions {
  std::string listen;        // --cluster-listen: HOST:PORT other daemons and jobs name
  std::string ultraserver;   // --ultraserver: the UltraServer this node belongs to
  std::string peer_ca_file;  // --peer-ca: PEM roots other daemons' TLS certificates chain to
};

struct DaemonOptions {
  std::string listen;         // listen_address.h
  bool allow_remote = false;  // allow a non-loopback listen address
  const simulator::InstanceSpec* instance = nullptr;
  ServiceOptions service;
  TlsKeyPair tls;                            // both empty: plaintext; else TLS (credentials.h)
  std::optional<InheritedSocket> inherited;  // set: serve this socket instead of binding
  ClusterOptions cluster;
};

class Daemon {
 public:
  static StatusOr<std::unique_ptr<Daemon>> Start(const DaemonOptions& options);
  ~Daemon();

  // The address clients connect to: the listen address, with the port gRPC picked for port 0.
  const std::string& address() const { return address_; }
  // The --cluster-listen address with the port gRPC picked; empty without one.
  const std::string& cluster_address() const { return cluster_address_; }

  void Shutdown(std::chrono::milliseconds grace);

  // Whether clients are offered the shared-memory data plane (the side socket is up).
  bool shared_memory() const { return shared_memory_ != nullptr; }

  // The sim device the daemon serves (tests observe it: driver/sim/sim_device.h's observer).
  driver::Device& device() { return *device_; }

 private:
  Daemon() = default;
  // Serves the cluster service on `listen` and gives the fabric its address.
  Status StartCluster(const std::string& listen,
                      const std::shared_ptr<grpc::ServerCredentials>& credentials);

  std::shared_ptr<cluster::ClusterFabric> cluster_fabric_;  // with a cluster listen address
  std::unique_ptr<cluster::ClusterService> cluster_service_;
  std::unique_ptr<grpc::Server> cluster_server_;
  std::string cluster_address_;
  std::unique_ptr<driver::Device> device_;
  std::unique_ptr<NeurondService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<FdAcceptor> acceptor_;  // with an inherited socket only
  std::unique_ptr<SharedMemoryListener> shared_memory_;  // unix: addresses, when it could bind
  std::string address_;
  std::once_flag shutdown_once_;
};

}  // namespace trnsim::neurond
