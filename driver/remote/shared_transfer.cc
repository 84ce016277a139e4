#include "driver/remote/shared_transfer.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <optional>

#include "driver/remote/convert.h"

namespace trnsim::driver::remote {
namespace {

constexpr int kSlots = 4;

// One RPC in flight: its context, messages and outcome live here until its callback ran.
struct Slot {
  std::optional<grpc::ClientContext> context;
  v1::SharedTransferRequest request;
  v1::SharedTransferResponse response;
  grpc::Status status;
  bool busy = false;  // sent, callback not yet run
  uint64_t host_offset = 0;
};

}  // namespace

Status SharedTransfer::Write(MemoryHandle handle, uint64_t offset, const void* src, uint64_t size,
                             const SharedCallHooks& hooks) {
  return Run(true, handle, offset, static_cast<uint8_t*>(const_cast<void*>(src)), size, hooks);
}

Status SharedTransfer::Read(MemoryHandle handle, uint64_t offset, void* dst, uint64_t size,
                            const SharedCallHooks& hooks) {
  return Run(false, handle, offset, static_cast<uint8_t*>(dst), size, hooks);
}

Status SharedTransfer::Run(bool write, MemoryHandle handle, uint64_t offset, uint8_t* host,
                           uint64_t size, const SharedCallHooks& hooks) {
  if (ring_) return RunRing(write, handle, offset, host, size, hooks);
  const char* rpc = write ? "WriteShared" : "ReadShared";
  const uint64_t slot_bytes = region_->size() / kSlots;
  if (size <= slot_bytes) {
    // One piece: a blocking call, without the callback's hand-over between gRPC's thread and
    // this one (a zero-byte transfer is one RPC of 0 bytes: the daemon still checks the range).
    grpc::ClientContext context;
    hooks.prepare(&context);
    v1::SharedTransferRequest request;
    request.set_region(region_id_);
    request.set_handle(handle);
    request.set_offset(offset);
    request.set_size(size);
    v1::SharedTransferResponse response;
    if (write && size > 0) std::memcpy(region_->data(), host, size);
    grpc::Status status = write ? stub_->WriteShared(&context, request, &response)
                                : stub_->ReadShared(&context, request, &response);
    if (!status.ok()) return hooks.transport_error(rpc, status);
    TRNSIM_RETURN_IF_ERROR(StatusFromProto(response.status()));
    if (!write && size > 0) std::memcpy(host, region_->data(), size);
    return Status::Ok();
  }
  std::array<Slot, kSlots> slots;
  std::mutex mutex;  // guards every Slot::busy, status and response
  std::condition_variable answered;
  Status result;

  // Waits for the slot's RPC, folds its outcome into `result` and, for a Read that succeeded so
  // far, copies its piece out of the slot.
  auto finish = [&](int s) {
    Slot& slot = slots[s];
    {
      std::unique_lock lock(mutex);
      answered.wait(lock, [&] { return !slot.busy; });
    }
    if (!result.ok()) return;
    if (!slot.status.ok()) {
      result = hooks.transport_error(rpc, slot.status);
    } else {
      result = StatusFromProto(slot.response.status());
    }
    if (result.ok() && !write) {
      std::memcpy(host + slot.host_offset, region_->data() + slot.request.region_offset(),
                  slot.request.size());
    }
  };

  // Piece by piece, slot after slot.
  uint64_t done = 0;
  int s = 0;
  do {
    Slot& slot = slots[s];
    if (slot.context.has_value()) finish(s);
    if (!result.ok()) break;
    const uint64_t piece = std::min(slot_bytes, size - done);
    slot.context.emplace();
    hooks.prepare(&*slot.context);
    slot.request.set_region(region_id_);
    slot.request.set_region_offset(uint64_t(s) * slot_bytes);
    slot.request.set_handle(handle);
    slot.request.set_offset(offset + done);
    slot.request.set_size(piece);
    slot.host_offset = done;
    if (write && piece > 0) {
      std::memcpy(region_->data() + slot.request.region_offset(), host + done, piece);
    }
    slot.busy = true;
    auto callback = [&mutex, &answered, &slot](grpc::Status status) {
      std::lock_guard lock(mutex);
      slot.status = std::move(status);
      slot.busy = false;
      answered.notify_all();
    };
    if (write) {
      stub_->async()->WriteShared(&*slot.context, &slot.request, &slot.response, callback);
    } else {
      stub_->async()->ReadShared(&*slot.context, &slot.request, &slot.response, callback);
    }
    done += piece;
    s = (s + 1) % kSlots;
  } while (done < size);
  // The pieces still in flight, oldest first (a Read copies them out in order).
  for (int i = 0; i < kSlots; ++i, s = (s + 1) % kSlots) {
    if (slots[s].context.has_value()) finish(s);  // after a failure: waits only
  }
  return result;
}

}  // namespace trnsim::driver::remote
