// LiveSource: neuron-top's refresh thread. It takes a sample (sampler.h) at once and then every
// `period`, keeping the last two good samples and the last error, so that the key loop never
// waits on the daemon. A failed sample (e.g. the daemon went away) keeps the previous good ones
// on screen and sets the error; the thread keeps retrying every period, and the next good
// sample clears the error.
//
// Stop() asks the thread to end and waits up to `patience` for it; a sample in flight on an
// unresponsive daemon can take longer (its RPC deadline), so Stop() then returns false and the
// caller must end the process without destroying this object (std::_Exit), leaving the thread
// behind.
//
// Thread safety: Latest() and Stop() may be called from any one thread while the refresh thread
// runs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tools/neuron_top/sample.h"
#include "tools/neuron_top/sampler.h"

namespace trnsim::neuron_top {

class LiveSource {
 public:
  struct Latest {
    uint64_t generation = 0;  // increases with every sample or error
    std::shared_ptr<const Sample> previous, current;
    std::string error;  // the last attempt's error; empty when it succeeded
  };

  LiveSource(Environment env, std::chrono::milliseconds period);
  ~LiveSource();  // Stop(), then joins the thread
  LiveSource(const LiveSource&) = delete;
  LiveSource& operator=(const LiveSource&) = delete;

  Latest Get() const;
  bool Stop(std::chrono::milliseconds patience);

 private:
  void Run();

  Sampler sampler_;
  const std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Latest latest_;
  bool stopping_ = false;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace trnsim::neuron_top
