// RingServer: the daemon's side of a shared-memory region's request ring
// (driver/remote/shared_ring.h). One thread per ring sleeps on the ring's `posted` futex and
// serves each request the client posts, in order: it copies the request out of the shared page,
// refuses an unknown op or a size above a data slot (NRT_INVALID), hands the rest to `serve`
// with the slot's data (the session's checks of handle and range live there), and publishes the
// status. An execution (kExecute, when `execute` is set) is copied out of its data slot before
// `execute` parses it; its reply goes into the same slot, its size into the response. A client
// that posts more than kRingSlots requests ahead breaks the ring: it is logged once and served
// no more (its transfers then time out on the client's side).
//
// Thread safety: constructed and destroyed by one thread; `serve` runs on the ring's thread.
// The destructor stops the thread (within a wait slice, kWaitSliceNs) and joins it, so `serve`
// must stay callable until then.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status_or.h"
#include "driver/remote/shared_region.h"
#include "driver/remote/shared_ring.h"

namespace trnsim::neurond {

class RingServer {
 public:
  // Moves `size` bytes between `data` (a data slot) and [offset, +size) of memory `handle`:
  // to the device for kWrite, from it for kRead.
  using Serve = std::function<Status(driver::remote::RingOp op, uint64_t handle, uint64_t offset,
                                     uint64_t size, uint8_t* data)>;
  // Runs the execution whose serialised ExecuteRequest is `request` (a private copy) and
  // serialises its ExecuteResponse into `reply` (a data slot of `reply_room` bytes); returns the
  // reply's bytes. Null: kExecute is refused (NRT_INVALID).
  using Execute = std::function<StatusOr<uint64_t>(const std::string& request, uint8_t* reply,
                                                   uint64_t reply_room)>;

  // How long the thread sleeps at most before it looks at its stop flag again.
  static constexpr int64_t kWaitSliceNs = 50'000'000;

  // `region` is at least kMinRingRegionBytes (the caller checks). `name` goes into log lines.
  RingServer(std::shared_ptr<driver::remote::SharedRegion> region, Serve serve, std::string name,
             Execute execute = nullptr);
  ~RingServer();
  RingServer(const RingServer&) = delete;
  RingServer& operator=(const RingServer&) = delete;

 private:
  void Loop();
  // The request's status and the bytes of its reply in the data slot (0 but for kExecute).
  StatusOr<uint64_t> ServeOne(const driver::remote::RingRequest& request, uint32_t slot);

  const std::shared_ptr<driver::remote::SharedRegion> region_;
  driver::remote::RingControl* const control_;
  const Serve serve_;
  const std::string name_;
  const Execute execute_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: started once every member above is set
};

}  // namespace trnsim::neurond
