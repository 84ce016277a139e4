#include "simulator/core/dma_fabric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace trnsim::simulator::core {

DmaFabric::DmaFabric(Scheduler& scheduler, const ChipSpec& chip, std::vector<int> core_stacks,
                     EventPriority priority)
    : scheduler_(scheduler),
      chip_(chip),
      core_stacks_(std::move(core_stacks)),
      priority_(priority),
      queues_per_core_(chip.dma_queues_per_engine),
      core_capacity_(double(chip.cost.dma_engines_per_core) *
                     double(chip.cost.dma_engine_bytes_per_s)),
      stack_capacity_(double(chip.cost.hbm_bytes_per_s_per_chip) / double(chip.hbm_stacks)),
      queues_(core_stacks_.size() * size_t(queues_per_core_)),
      last_landing_(core_stacks_.size(), 0) {}

void DmaFabric::Submit(DmaRequest request) {
  const CostSpec& c = chip_.cost;
  Advance();
  Transfer t;
  const uint64_t engines = uint64_t(std::max(1, c.dma_engines_per_core));
  const uint64_t descriptors = std::max<uint64_t>(1, request.descriptors);
  t.ready_ps = scheduler_.Now() + c.dma_start_latency_ps +
               ((descriptors + engines - 1) / engines) * c.dma_descriptor_overhead_ps;
  const uint64_t bytes = request.bytes;
  const uint64_t chunk =
      request.chunk_bytes == 0 ? std::max<uint64_t>(bytes, 1) : request.chunk_bytes;
  const uint64_t chunks = bytes == 0 ? 0 : (bytes + chunk - 1) / chunk;
  t.dma_weight =
      bytes == 0 ? 1.0 : double(bytes + chunks * c.dma_chunk_overhead_bytes) / double(bytes);
  t.remaining = double(bytes);
  Queue& q = queues_[Index(request.core, request.queue)];
  if (q.transfers.empty()) q.head_since_ps = scheduler_.Now();
  q.counters.transfers++;
  q.counters.bytes += bytes;
  t.request = std::move(request);
  q.transfers.push_back(std::move(t));
  ++in_flight_;
  Reschedule();
}

void DmaFabric::Advance() {
  const TimePs now = scheduler_.Now();
  if (now <= advanced_to_ps_) return;
  for (Queue& q : queues_) {
    if (q.transfers.empty()) continue;
    Transfer& t = q.transfers.front();
    if (t.rate <= 0.0) continue;
    const TimePs from = std::max(advanced_to_ps_, t.ready_ps);
    if (now <= from) continue;
    t.remaining = std::max(0.0, t.remaining - t.rate * (double(now - from) / double(kPsPerSecond)));
  }
  advanced_to_ps_ = now;
}

// Max-min fair payload rates by progressive filling: every unfrozen transfer runs at the same
// level; the first capacity to fill freezes the transfers that use it.
void DmaFabric::SolveRates(std::vector<Transfer*>& streaming) {
  const size_t cores = core_stacks_.size();
  int stacks = 0;
  for (int s : core_stacks_) stacks = std::max(stacks, s + 1);
  std::vector<char> frozen(streaming.size(), 0);
  for (Transfer* t : streaming) t->rate = 0.0;
  size_t left = streaming.size();
  double level = 0.0;
  while (left > 0) {
    // Capacity left and unfrozen weight, per core and per stack.
    std::vector<double> core_cap(cores, core_capacity_), core_w(cores, 0.0);
    std::vector<double> stack_cap(size_t(stacks), stack_capacity_), stack_w(size_t(stacks), 0.0);
    for (size_t i = 0; i < streaming.size(); ++i) {
      const Transfer& t = *streaming[i];
      const int c = t.request.core, s = core_stacks_[size_t(c)];
      const double r = frozen[i] ? t.rate : level;
      core_cap[size_t(c)] -= t.dma_weight * r;
      stack_cap[size_t(s)] -= t.request.hbm_sides * r;
      if (!frozen[i]) {
        core_w[size_t(c)] += t.dma_weight;
        stack_w[size_t(s)] += t.request.hbm_sides;
      }
    }
    double step = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < cores; ++c)
      if (core_w[c] > 0) step = std::min(step, std::max(0.0, core_cap[c]) / core_w[c]);
    for (size_t s = 0; s < size_t(stacks); ++s)
      if (stack_w[s] > 0) step = std::min(step, std::max(0.0, stack_cap[s]) / stack_w[s]);
    level += step;
    // Freeze the transfers on every capacity that is now full.
    size_t froze = 0;
    for (size_t i = 0; i < streaming.size(); ++i) {
      if (frozen[i]) continue;
      const Transfer& t = *streaming[i];
      const int c = t.request.core, s = core_stacks_[size_t(c)];
      const bool core_full =
          core_w[size_t(c)] > 0 && std::max(0.0, core_cap[size_t(c)]) / core_w[size_t(c)] <= step;
      const bool stack_full = stack_w[size_t(s)] > 0 &&
                              std::max(0.0, stack_cap[size_t(s)]) / stack_w[size_t(s)] <= step;
      if (core_full || stack_full) {
        streaming[i]->rate = level;
        frozen[i] = 1;
        ++froze;
      }
    }
    left -= froze;
    if (froze == 0) {  // cannot happen: the minimum capacity always freezes its users
      for (size_t i = 0; i < streaming.size(); ++i)
        if (!frozen[i]) streaming[i]->rate = level;
      break;
    }
  }
}

void DmaFabric::Reschedule() {
  const TimePs now = scheduler_.Now();
  std::vector<Transfer*> streaming;
  TimePs next = kTimeNeverPs;
  for (Queue& q : queues_) {
    if (q.transfers.empty()) continue;
    Transfer& t = q.transfers.front();
    if (t.ready_ps <= now) {
      streaming.push_back(&t);
    } else {
      t.rate = 0.0;
      t.finish_ps = kTimeNeverPs;
      next = std::min(next, t.ready_ps);
    }
  }
  SolveRates(streaming);
  for (Transfer* t : streaming) {
    if (t->remaining <= 0.0) {
      t->finish_ps = now;
    } else {
      const double ps = std::ceil(t->remaining / t->rate * double(kPsPerSecond));
      t->finish_ps = now + TimePs(std::max(1.0, ps));
    }
    next = std::min(next, t->finish_ps);
  }
  if (next_event_.valid()) scheduler_.Cancel(next_event_);
  next_event_ = {};
  if (next != kTimeNeverPs)
    next_event_ = scheduler_.Schedule(
        next, [this] { OnEvent(); }, priority_);
}

void DmaFabric::OnEvent() {
  next_event_ = {};
  Advance();
  const TimePs now = scheduler_.Now();
  std::vector<std::pair<std::function<void(TimePs)>, TimePs>> landed;
  for (size_t qi = 0; qi < queues_.size(); ++qi) {
    Queue& q = queues_[qi];
    if (q.transfers.empty()) continue;
    Transfer& t = q.transfers.front();
    if (t.ready_ps > now || t.finish_ps > now) continue;
    q.counters.busy.RecordBusy(q.head_since_ps, now);
    const int core = t.request.core;
    last_landing_[size_t(core)] = std::max(last_landing_[size_t(core)], now);
    landed.emplace_back(std::move(t.request.on_land), std::max(q.head_since_ps, t.ready_ps));
    q.transfers.pop_front();
    q.head_since_ps = now;
    --in_flight_;
  }
  Reschedule();
  for (auto& [f, started_ps] : landed)
    if (f) f(started_ps);
}

}  // namespace trnsim::simulator::core
