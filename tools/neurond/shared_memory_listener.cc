#include "tools/neurond/shared_memory_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/log.h"
#include "driver/remote/convert.h"

namespace trnsim::neurond {
namespace {

using driver::remote::UniqueFd;

// A SharedRegionRequest is a session key (32 hex digits) and its framing.
constexpr size_t kMaxRequestBytes = 1024;
constexpr int kRequestTimeoutMs = 500;

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

void Send(int connection, const v1::SharedRegionResponse& reply, int fd = -1) {
  // The client may have gone; nothing to do about a failed send.
  (void)driver::remote::SendWithFd(connection, reply.SerializeAsString(), fd);
}

}  // namespace

StatusOr<std::unique_ptr<SharedMemoryListener>> SharedMemoryListener::Start(const std::string& path,
                                                                            const std::string& like,
                                                                            Registrar registrar) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return FailureError("shared-memory socket path '" + path + "' does not fit a unix address");
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  struct stat existing {};
  if (lstat(path.c_str(), &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode)) return FailureError(path + " exists and is not a socket");
    unlink(path.c_str());  // a stale one of an earlier daemon
  }
  UniqueFd listen_fd(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!listen_fd.valid()) return FailureError(Errno("socket"));
  if (bind(listen_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    return FailureError(Errno("bind " + path));
  }
  struct stat main_socket {};
  if (stat(like.c_str(), &main_socket) == 0) {
    chmod(path.c_str(), main_socket.st_mode & 07777);
    (void)!chown(path.c_str(), static_cast<uid_t>(-1), main_socket.st_gid);  // best effort
  }
  if (listen(listen_fd.get(), 64) != 0) {
    unlink(path.c_str());
    return FailureError(Errno("listen " + path));
  }
  UniqueFd wake_fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_fd.valid()) {
    unlink(path.c_str());
    return FailureError(Errno("eventfd"));
  }
  std::unique_ptr<SharedMemoryListener> listener(new SharedMemoryListener(
      path, std::move(listen_fd), std::move(wake_fd), std::move(registrar)));
  listener->thread_ = std::thread([raw = listener.get()] { raw->Loop(); });
  return listener;
}

SharedMemoryListener::SharedMemoryListener(std::string path, UniqueFd listen_fd, UniqueFd wake_fd,
                                           Registrar registrar)
    : path_(std::move(path)),
      listen_fd_(std::move(listen_fd)),
      wake_fd_(std::move(wake_fd)),
      registrar_(std::move(registrar)) {}

SharedMemoryListener::~SharedMemoryListener() { Stop(); }

void SharedMemoryListener::Stop() {
  std::call_once(stop_once_, [this] {
    const uint64_t one = 1;
    (void)!write(wake_fd_.get(), &one, sizeof(one));
    if (thread_.joinable()) thread_.join();
    unlink(path_.c_str());
  });
}

void SharedMemoryListener::Loop() {
  pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}};
  while (true) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      TRNSIM_LOG(Error, Tool) << "neurond: poll on " << path_ << " failed (" << std::strerror(errno)
                              << "); no more shared-memory regions";
      return;
    }
    if (fds[1].revents != 0) return;  // Stop
    if (fds[0].revents == 0) continue;
    UniqueFd connection(accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!connection.valid()) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        TRNSIM_LOG(Warn, Tool) << "neurond: accept on " << path_ << ": " << std::strerror(errno)
                               << "; retrying in 100 ms";
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    Serve(connection.get());
  }
}

void SharedMemoryListener::Serve(int connection) {
  timeval timeout{0, kRequestTimeoutMs * 1000};
  setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  PeerCredentials peer;
  ucred credentials{};
  socklen_t size = sizeof(credentials);
  v1::SharedRegionResponse reply;
  auto refuse = [&](const Status& status) {
    TRNSIM_LOG(Warn, Tool) << "refused a shared-memory region on " << path_ << " (pid " << peer.pid
                           << ", uid " << peer.uid << "): " << status.message();
    driver::remote::ToProto(status, reply.mutable_status());
    Send(connection, reply);
  };
  if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    return refuse(FailureError(Errno("SO_PEERCRED")));
  }
  peer = {credentials.pid, credentials.uid, credentials.gid};
  StatusOr<driver::remote::Datagram> datagram =
      driver::remote::ReceiveWithFd(connection, kMaxRequestBytes);
  if (!datagram.ok()) return refuse(datagram.status());
  v1::SharedRegionRequest request;
  if (!request.ParseFromString(datagram->bytes)) {
    return refuse(InvalidError("the request is not a SharedRegionRequest"));
  }
  if (request.map_memory()) {
    if (datagram->fd.valid()) {
      return refuse(InvalidError("a map_memory request carries a descriptor"));
    }
  } else if (!datagram->fd.valid()) {
    return refuse(InvalidError("no memfd attached"));
  }
  Answer answer = registrar_(request, std::move(datagram->fd), peer);
  Send(connection, answer.response, answer.fd.valid() ? answer.fd.get() : -1);
}

}  // namespace trnsim::neurond
