#include "tools/neurond/daemon.h"

#include "common/log.h"
#include "driver/remote/chunking.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/transport.h"
#include "driver/sim/sim_device.h"
#include "tools/neurond/listen_address.h"

namespace trnsim::neurond {
namespace {

// Room for a chunk's framing and the other fields of a message that carries one.
constexpr int kMaxMessageBytes = static_cast<int>(driver::remote::kChunkBytes) + 64 * 1024;

// The checks of an inherited socket (daemon.h); returns the address the daemon reports.
StatusOr<std::string> CheckInherited(const DaemonOptions& options) {
  const InheritedSocket& socket = *options.inherited;
  if (!options.tls.certificate_chain_pem.empty() || !options.tls.private_key_pem.empty()) {
    return InvalidError(
        "TLS (--tls-cert/--tls-key) cannot be served on the socket systemd passed (" +
        socket.address +
        "): gRPC adds such connections in plaintext only; use a unix socket, or "
        "let neurond listen itself");
  }
  if (!socket.loopback && !options.allow_remote) {
    return InvalidError("the socket systemd passed listens on " + socket.address +
                        ", which is not loopback; pass --allow-remote to serve beyond this host");
  }
  if (!options.listen.empty()) {
    TRNSIM_ASSIGN_OR_RETURN(std::string listen,
                            ParseListenAddress(options.listen, options.allow_remote));
    if (listen != socket.address) {
      return InvalidError("--listen " + listen + " is not the socket systemd passed (" +
                          socket.address +
                          "): make NEUROND_LISTEN and the .socket unit's "
                          "ListenStream= name the same address");
    }
  }
  return socket.address;
}

}  // namespace

StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonOptions& options) {
  if (options.instance == nullptr) return InvalidError("neurond needs an instance type");
  const int lnc = options.service.lnc;
  if (lnc != 0 && lnc != 1 && lnc != 2) {
    return InvalidError("--lnc " + std::to_string(lnc) + ": a logical core is 1 or 2 physical ones");
  }
  if (lnc == 2 && options.instance->chip->physical_cores % 2 != 0) {
    return InvalidError("--lnc 2: the cores of " + options.instance->type_name + " do not pair up");
  }
  if (options.service.max_sessions < 1) {
    return InvalidError("--max-sessions " + std::to_string(options.service.max_sessions) +
                        ": must be at least 1");
  }
  if (options.service.max_sessions_per_peer < 1) {
    return InvalidError("--max-sessions-per-peer " +
                        std::to_string(options.service.max_sessions_per_peer) +
                        ": must be at least 1");
  }
  if (options.service.max_threads < 2) {
    return InvalidError("--max-threads " + std::to_string(options.service.max_threads) +
                        ": must be at least 2 (one polls for calls while one serves)");
  }
  if (options.service.attach_grace.count() < 1) {
    return InvalidError("attach grace " + std::to_string(options.service.attach_grace.count()) +
                        " ms: must be at least 1 ms");
  }
  std::string listen;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (options.inherited) {
    TRNSIM_ASSIGN_OR_RETURN(listen, CheckInherited(options));
  } else {
    TRNSIM_ASSIGN_OR_RETURN(listen, ParseListenAddress(options.listen, options.allow_remote));
    TRNSIM_ASSIGN_OR_RETURN(credentials, ServerCredentials(options.tls));
  }
  const bool tls = !options.tls.certificate_chain_pem.empty();

  std::unique_ptr<Daemon> daemon(new Daemon());
  driver::DeviceOptions device_options;
  device_options.instance = options.instance;
  std::string cluster_listen;
  if (!options.cluster.listen.empty()) {
    if (options.inherited) {
      return InvalidError("--cluster-listen " + options.cluster.listen +
                          ": not with a socket passed by systemd (start neurond directly to join "
                          "multi-instance jobs)");
    }
    if (options.cluster.listen.starts_with("unix:")) {
      return InvalidError("--cluster-listen " + options.cluster.listen +
                          ": other daemons need a TCP address (HOST:PORT)");
    }
    TRNSIM_ASSIGN_OR_RETURN(cluster_listen,
                            ParseListenAddress(options.cluster.listen, options.allow_remote));
    if (!options.cluster.ultraserver.empty() && options.instance->ultraserver_nodes == 0) {
      return InvalidError("--ultraserver " + options.cluster.ultraserver + ": " +
                          options.instance->type_name + " is not an UltraServer node type");
    }
    if (tls && options.cluster.peer_ca_file.empty()) {
      return InvalidError(
          "--cluster-listen with --tls-cert needs --peer-ca: the certificates "
          "other daemons of a job present are checked against it");
    }
    cluster::ClusterIdentity identity;
    identity.ultraserver = options.cluster.ultraserver;
    identity.token = options.service.token;
    identity.tls_ca_file = options.cluster.peer_ca_file;
    daemon->cluster_fabric_ =
        std::make_shared<cluster::ClusterFabric>(*options.instance, std::move(identity));
    device_options.collective_fabric = daemon->cluster_fabric_;
  }
  TRNSIM_ASSIGN_OR_RETURN(daemon->device_, driver::sim::OpenSimDevice(device_options));
  ServiceOptions service = options.service;
  // Same host: other sessions' processes are visible (ServiceOptions::show_all_processes).
  if (listen.starts_with("unix:")) service.show_all_processes = true;
  daemon->service_ = std::make_unique<NeurondService>(daemon->device_.get(), service);
  if (daemon->cluster_fabric_ != nullptr) {
    TRNSIM_RETURN_IF_ERROR(daemon->StartCluster(cluster_listen, credentials));
    daemon->service_->SetCluster(daemon->cluster_fabric_.get());
  }

  grpc::ServerBuilder builder;
  int port = 0;
  if (!options.inherited) builder.AddListeningPort(listen, credentials, &port);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  // Replies may carry a recorded trace (driver/remote/transport.h explains the bound).
  builder.SetMaxSendMessageSize(driver::remote::kMaxExecuteReplyBytes);
  for (const driver::remote::ChannelSetting& setting : driver::remote::TransferChannelSettings()) {
    builder.AddChannelArgument(setting.name, setting.value);
  }
  // Calls past the cap are refused (RESOURCE_EXHAUSTED) instead of each taking a thread.
  grpc::ResourceQuota quota("neurond");
  quota.SetMaxThreads(options.service.max_threads);
  builder.SetResourceQuota(quota);
  builder.RegisterService(daemon->service_.get());
  daemon->server_ = builder.BuildAndStart();
  if (options.inherited) {
    if (daemon->server_ == nullptr) return FailureError("neurond: the gRPC server did not start");
    TRNSIM_ASSIGN_OR_RETURN(daemon->acceptor_,
                            FdAcceptor::Start(options.inherited->fd, daemon->server_.get()));
    daemon->address_ = listen;
  } else {
    if (daemon->server_ == nullptr || (!listen.starts_with("unix:") && port == 0)) {
      return FailureError("neurond cannot listen on " + listen +
                          " (in use, or not an address of this host?)");
    }
    daemon->address_ = listen;
    if (!listen.starts_with("unix:")) {
      daemon->address_ = listen.substr(0, listen.rfind(':') + 1) + std::to_string(port);
    }
  }
  if (daemon->address_.starts_with("unix:")) {
    const std::string socket_path = daemon->address_.substr(5);
    NeurondService* service_ptr = daemon->service_.get();
    StatusOr<std::unique_ptr<SharedMemoryListener>> side = SharedMemoryListener::Start(
        driver::remote::SharedMemorySocketPath(socket_path), socket_path,
        [service_ptr](const v1::SharedRegionRequest& request, driver::remote::UniqueFd fd,
                      const PeerCredentials& peer) {
          return service_ptr->RegisterSharedRegion(request, std::move(fd), peer);
        });
    if (side.ok()) {
      daemon->shared_memory_ = std::move(*side);
      daemon->service_->EnableSharedMemory();
    } else {
      TRNSIM_LOG(Warn, Tool) << "neurond: no shared-memory data plane, clients stream ("
                             << side.status().message() << ")";
    }
  }
  TRNSIM_LOG(Info, Tool) << "neurond serving " << options.instance->type_name << " on "
                         << daemon->address_ << (tls ? " (TLS)" : " (plaintext)")
                         << (options.inherited ? " (socket from systemd)" : "")
                         << (daemon->shared_memory_
                                 ? ", shared memory on " + daemon->shared_memory_->path()
                                 : std::string());
  return daemon;
}

Status Daemon::StartCluster(const std::string& listen,
                            const std::shared_ptr<grpc::ServerCredentials>& credentials) {
  cluster_service_ =
      std::make_unique<cluster::ClusterService>(cluster_fabric_.get(), service_->token());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, credentials, &port);
  builder.SetMaxReceiveMessageSize(cluster::kMaxClusterMessageBytes);
  builder.SetMaxSendMessageSize(cluster::kMaxClusterMessageBytes);
  builder.RegisterService(cluster_service_.get());
  cluster_server_ = builder.BuildAndStart();
  if (cluster_server_ == nullptr || port == 0) {
    return FailureError("neurond cannot listen for other daemons on " + listen +
                        " (in use, or not an address of this host?)");
  }
  cluster_address_ = listen.substr(0, listen.rfind(':') + 1) + std::to_string(port);
  cluster_fabric_->SetAddress(cluster_address_);
  TRNSIM_LOG(Info, Tool) << "neurond: multi-instance jobs on " << cluster_address_ << " (instance "
                         << cluster_fabric_->identity().id << ")";
  return Status::Ok();
}

Daemon::~Daemon() { Shutdown(std::chrono::seconds(5)); }

void Daemon::Shutdown(std::chrono::milliseconds grace) {
  std::call_once(shutdown_once_, [&] {
    if (server_ == nullptr) return;
    TRNSIM_LOG(Info, Tool) << "neurond on " << address_ << " shutting down";
    if (acceptor_ != nullptr) acceptor_->Stop();
    if (shared_memory_ != nullptr) shared_memory_->Stop();
    service_->BeginShutdown();
    if (cluster_server_ != nullptr) {
      cluster_service_->BeginShutdown();
      cluster_server_->Shutdown(std::chrono::system_clock::now() + grace);
    }
    server_->Shutdown(std::chrono::system_clock::now() + grace);
    service_->CloseAllSessions();
    server_->Wait();
  });
}

}  // namespace trnsim::neurond
