// SharedMemoryListener: the daemon's side socket for the shared-memory data plane
// (proto/neurond.proto "Shared-memory data plane", README "Data plane"). gRPC cannot carry a
// file descriptor, so a client on this host registers its memfd region here: a SOCK_SEQPACKET
// unix socket at "<gRPC socket path>.shm", one SharedRegionRequest datagram with the memfd
// attached (SCM_RIGHTS), one SharedRegionResponse datagram back, then the connection closes.
//
// Start(path, like, registrar): removes a stale socket file at `path` (only a socket), binds,
// gives the file the mode and group of `like` (the gRPC socket, so whoever may connect to one
// may connect to the other; the group only when the daemon may set it), listens, and serves on
// one thread. NRT_FAILURE when any of that fails: the daemon then runs without the data plane.
// Each connection is served in turn on that thread, with a 500 ms limit on the request
// (SO_RCVTIMEO), so a client that connects and sends nothing delays others by at most that.
// The request goes to `registrar` with the peer's credentials (SO_PEERCRED); the registrar
// authenticates it (the session key), validates and maps the descriptor
// (driver/remote/shared_region.h) and answers; a datagram that is malformed, too long, carries
// more than one descriptor or none, is refused with NRT_INVALID before the registrar sees it.
// A map_memory request is the other way round: it must carry no descriptor (NRT_INVALID), and
// the registrar's answer may carry one (a memfd of device memory), sent with it.
// Stop(): stops, joins the thread and removes the socket file; idempotent, the destructor
// calls it.
//
// Thread safety: Stop may be called from any thread; the registrar runs on the listener's.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/status_or.h"
#include "driver/remote/fd_passing.h"
#include "proto/neurond.pb.h"

namespace trnsim::neurond {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

class SharedMemoryListener {
 public:
  // The registrar's answer: the response and, for map_memory, the descriptor to send with it.
  struct Answer {
    v1::SharedRegionResponse response;
    driver::remote::UniqueFd fd;
  };
  // `fd` is the request's descriptor (not valid for map_memory).
  using Registrar = std::function<Answer(const v1::SharedRegionRequest& request,
                                         driver::remote::UniqueFd fd, const PeerCredentials& peer)>;

  static StatusOr<std::unique_ptr<SharedMemoryListener>> Start(const std::string& path,
                                                               const std::string& like,
                                                               Registrar registrar);
  ~SharedMemoryListener();

  void Stop();
  const std::string& path() const { return path_; }

 private:
  SharedMemoryListener(std::string path, driver::remote::UniqueFd listen_fd,
                       driver::remote::UniqueFd wake_fd, Registrar registrar);
  void Loop();
  void Serve(int connection);

  const std::string path_;
  const driver::remote::UniqueFd listen_fd_;
  const driver::remote::UniqueFd wake_fd_;  // eventfd; written by Stop
  const Registrar registrar_;
  std::thread thread_;
  std::once_flag stop_once_;
};

}  // namespace trnsim::neurond
