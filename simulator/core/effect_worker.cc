#include "simulator/core/effect_worker.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "simulator/core/functional.h"

namespace trnsim::simulator::core {

EffectWorker::EffectWorker(reference::CoreState& state, reference::HbmView& hbm)
    : state_(state), hbm_(hbm), thread_([this] { Loop(); }) {}

EffectWorker::~EffectWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_ready_.notify_one();
  thread_.join();
}

void EffectWorker::Post(const Effect& effect) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = posted_.empty() && !applying_;  // otherwise the worker looks again before waiting
    posted_.push_back(effect);
  }
  if (wake) work_ready_.notify_one();
}

void EffectWorker::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return posted_.empty() && !applying_; });
}

void EffectWorker::Loop() {
  std::vector<Effect> batch;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_ready_.wait(lock, [this] { return stop_ || !posted_.empty(); });
    if (posted_.empty()) return;  // stop_ with nothing left to apply
    // Take everything posted so far: one lock hand-off per batch, not per instruction.
    batch.swap(posted_);
    applying_ = true;
    lock.unlock();
    for (const Effect& effect : batch) Apply(effect);
    batch.clear();
    lock.lock();
    applying_ = false;
    if (posted_.empty()) idle_.notify_all();
  }
}

void EffectWorker::Apply(const Effect& effect) {
  state_.rounding_stream = effect.rounding_stream;
  size_t next = effect.pc + 1;
  bool ended = false;
  const Status st = ApplyEffect(effect.engine, effect.inst, effect.pc, state_, hbm_, next, ended);
  if (st.ok() && next == effect.pc + 1 && !ended) return;
  // The router posts only effects it has proven succeed and fall through: this is a bug.
  std::fprintf(stderr,
               "trnsim: internal error: a deferred effect (%s instruction %zu, %s) did not "
               "complete as proven: %s\n",
               std::string(isa::EngineName(effect.engine)).c_str(), effect.pc,
               std::string(isa::Mnemonic(effect.inst.opcode)).c_str(), st.message().c_str());
  std::abort();
}

}  // namespace trnsim::simulator::core
