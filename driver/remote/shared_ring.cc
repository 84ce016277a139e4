#include "driver/remote/shared_ring.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

namespace trnsim::driver::remote {
namespace {

uint32_t* Word(std::atomic<uint32_t>* word) {
  // std::atomic<uint32_t> is a lock-free uint32_t in place (static_assert in the header).
  return reinterpret_cast<uint32_t*>(word);
}

}  // namespace

void FutexWait(std::atomic<uint32_t>* word, uint32_t seen, int64_t timeout_ns) {
  timespec timeout{};
  timeout.tv_sec = static_cast<time_t>(timeout_ns / 1'000'000'000);
  timeout.tv_nsec = static_cast<long>(timeout_ns % 1'000'000'000);
  // EAGAIN (the word changed), EINTR and ETIMEDOUT all mean "look again".
  syscall(SYS_futex, Word(word), FUTEX_WAIT, seen, &timeout, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, Word(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

void StoreRingStatus(const Status& status, RingResponse* out) {
  out->code = static_cast<uint32_t>(status.code());
  const size_t bytes = std::min(status.message().size(), sizeof(out->message));
  std::memcpy(out->message, status.message().data(), bytes);
  out->message_bytes = static_cast<uint32_t>(bytes);
}

Status LoadRingStatus(const RingResponse& in) {
  const uint32_t code = in.code;
  const size_t bytes = std::min<size_t>(in.message_bytes, sizeof(in.message));
  std::string message(in.message, bytes);
  if (!IsKnownStatusCode(code)) {
    return InvalidError("neurond's ring reply carries unknown status code " + std::to_string(code) +
                        ": " + message);
  }
  if (code == 0) return Status::Ok();
  return Status(static_cast<StatusCode>(code), std::move(message));
}

}  // namespace trnsim::driver::remote
