// AsyncRequests: the nrta_* queues (async_requests.h).
#include "runtime/async_requests.h"

#include <memory>

namespace trnsim::runtime {

StatusOr<uint64_t> AsyncRequests::Schedule(int64_t lnc, int64_t xu, int64_t queue,
                                           async::AsyncRequest request) {
  std::shared_ptr<async::ExecutionUnitQueues> queues;
  async::QueueAddress address;
  {
    TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
    TRNSIM_ASSIGN_OR_RETURN(
        address, async::MakeQueueAddress(lnc, xu, queue, int(session->config.visible_vnc_count)));
    queues = session->async_queues;
  }
  return queues->Submit(address, std::move(request));
}

StatusOr<bool> AsyncRequests::IsCompleted(uint64_t sequence_id) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->async_queues->IsCompleted(sequence_id);
}

StatusOr<uint64_t> AsyncRequests::LastCompleted(int64_t lnc, int64_t xu, int64_t queue) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(
      async::QueueAddress address,
      async::MakeQueueAddress(lnc, xu, queue, int(session->config.visible_vnc_count)));
  return session->async_queues->LastCompleted(address);
}

Status AsyncRequests::WatchRequest(uint64_t sequence_id, int fd) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->async_queues->WatchRequest(sequence_id, fd);
}

Status AsyncRequests::WatchQueue(int64_t lnc, int64_t xu, int64_t queue, int fd) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  TRNSIM_ASSIGN_OR_RETURN(
      async::QueueAddress address,
      async::MakeQueueAddress(lnc, xu, queue, int(session->config.visible_vnc_count)));
  return session->async_queues->WatchQueue(address, fd);
}

void AsyncRequests::ShutDown() {
  std::shared_ptr<async::ExecutionUnitQueues> explicit_queues, implicit_queues;
  {
    StatusOr<Lifecycle::Shared> session = lifecycle_.Share();
    if (!session.ok()) return;
    explicit_queues = (*session)->async_queues;
    implicit_queues = (*session)->implicit_queues;
  }
  if (implicit_queues) implicit_queues->Shutdown();
  if (explicit_queues) explicit_queues->Shutdown();
}

}  // namespace trnsim::runtime
