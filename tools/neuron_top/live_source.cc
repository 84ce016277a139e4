#include "tools/neuron_top/live_source.h"

namespace trnsim::neuron_top {

LiveSource::LiveSource(Environment env, std::chrono::milliseconds period)
    : sampler_(std::move(env)), period_(period), thread_([this] { Run(); }) {}

LiveSource::~LiveSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

LiveSource::Latest LiveSource::Get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

bool LiveSource::Stop(std::chrono::milliseconds patience) {
  std::unique_lock<std::mutex> lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
  return wake_.wait_for(lock, patience, [this] { return finished_; });
}

void LiveSource::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    const auto due = std::chrono::steady_clock::now() + period_;
    lock.unlock();
    StatusOr<Sample> sample = sampler_.Take();  // the daemon's RPCs: never under the lock
    lock.lock();
    ++latest_.generation;
    if (sample.ok()) {
      latest_.previous = std::move(latest_.current);
      latest_.current = std::make_shared<const Sample>(std::move(*sample));
      latest_.error.clear();
    } else {
      latest_.error = sample.status().message();
    }
    wake_.wait_until(lock, due, [this] { return stopping_; });
  }
  finished_ = true;
  wake_.notify_all();
}

}  // namespace trnsim::neuron_top
