#include "tools/neurond/fd_acceptor.h"

#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/log.h"

namespace trnsim::neurond {

StatusOr<std::unique_ptr<FdAcceptor>> FdAcceptor::Start(int listen_fd, grpc::Server* server) {
  if (server == nullptr) return InvalidError("FdAcceptor needs a started server");
  int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    return FailureError(std::string("neurond: eventfd for the accept loop: ") +
                        std::strerror(errno));
  }
  std::unique_ptr<FdAcceptor> acceptor(new FdAcceptor(listen_fd, wake_fd, server));
  acceptor->thread_ = std::thread([raw = acceptor.get()] { raw->Loop(); });
  return acceptor;
}

FdAcceptor::FdAcceptor(int listen_fd, int wake_fd, grpc::Server* server)
    : listen_fd_(listen_fd), wake_fd_(wake_fd), server_(server) {}

FdAcceptor::~FdAcceptor() {
  Stop();
  close(wake_fd_);
}

void FdAcceptor::Stop() {
  std::call_once(stop_once_, [this] {
    const uint64_t one = 1;
    // Cannot fail short of a bad fd: the counter is far from overflowing.
    (void)!write(wake_fd_, &one, sizeof(one));
    if (thread_.joinable()) thread_.join();
  });
}

void FdAcceptor::Loop() {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (true) {
    int ready = poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      TRNSIM_LOG(Error, Tool) << "neurond: poll on the activated socket failed ("
                              << std::strerror(errno) << "); no more connections are accepted";
      return;
    }
    if (fds[1].revents != 0) return;  // Stop
    if (fds[0].revents == 0) continue;
    // Non-blocking, as gRPC keeps the sockets it accepts itself.
    int connection = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (connection < 0) {
      const int error = errno;
      if (error == EINTR || error == EAGAIN || error == EWOULDBLOCK || error == ECONNABORTED) {
        continue;
      }
      if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
        TRNSIM_LOG(Warn, Tool) << "neurond: accept: " << std::strerror(error)
                               << "; retrying in 100 ms";
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      TRNSIM_LOG(Error, Tool) << "neurond: accept on the activated socket failed ("
                              << std::strerror(error) << "); no more connections are accepted";
      return;
    }
    grpc::AddInsecureChannelFromFd(server_, connection);  // the server owns `connection` now
    accepted_.fetch_add(1);
  }
}

}  // namespace trnsim::neurond
