#include "simulator/core/dma_fabric.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace trnsim::simulator::core {
namespace {

// Time to move `bytes` at `bytes_per_s`, rounded up to a whole picosecond.
DurationPs BytesToPs(uint64_t bytes, uint64_t bytes_per_s) {
  if (bytes == 0 || bytes_per_s == 0) return 0;
  const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * kPsPerSecond;
  return static_cast<DurationPs>((num + bytes_per_s - 1) / bytes_per_s);
}

}  // namespace

DmaFabric::DmaFabric(Scheduler& scheduler, const ChipSpec& chip, std::vector<int> core_stacks,
                     EventPriority priority)
    : scheduler_(scheduler),
      chip_(chip),
      core_stacks_(std::move(core_stacks)),
      priority_(priority),
      queues_per_core_(std::max(1, chip.dma_queues_per_engine)),
      engines_(std::max(1, chip.cost.dma_engines_per_core)),
      stack_bytes_per_ps_(double(chip.cost.hbm_bytes_per_s_per_chip) /
                          double(std::max(1, chip.hbm_stacks)) / double(kPsPerSecond)),
      rings_(core_stacks_.size() * size_t(engines_) * size_t(queues_per_core_)),
      queue_counters_(core_stacks_.size() * size_t(queues_per_core_)),
      queue_transfers_(core_stacks_.size() * size_t(queues_per_core_)),
      engine_busy_(core_stacks_.size() * size_t(engines_)),
      engine_busy_since_(core_stacks_.size() * size_t(engines_), kTimeNeverPs),
      last_landing_(core_stacks_.size(), 0) {
  for (int s : core_stacks_) stacks_ = std::max(stacks_, s + 1);
}

DurationPs DmaFabric::ServicePs(const DmaEngineShare& share, bool hbm_read) const {
  const CostSpec& c = chip_.cost;
  const uint64_t rate = hbm_read ? c.dma_engine_hbm_read_bytes_per_s : c.dma_engine_bytes_per_s;
  // The payload's elements, then the completion semaphore: one more element of its own.
  return (share.elements + 1) * c.dma_element_overhead_ps + BytesToPs(share.bytes, rate) +
         BytesToPs(c.dma_semaphore_bytes, c.dma_engine_bytes_per_s);
}

void DmaFabric::Submit(DmaRequest request) {
  const CostSpec& c = chip_.cost;
  Advance();
  const TimePs now = scheduler_.Now();
  const uint64_t id = next_transfer_++;
  Transfer& t = transfers_[id];
  const int core = request.core, queue = request.queue;
  // The start latency is trigger to the landing of a transfer without payload (C-4): its last
  // engine's semaphore. Engine 0 is ready that much earlier.
  const DurationPs last_dispatch = uint64_t(engines_ - 1) * request.dispatch_interval_ps;
  const DurationPs empty = ServicePs(DmaEngineShare{}, false);
  const DurationPs first_ready = c.dma_start_latency_ps > last_dispatch + empty
                                     ? c.dma_start_latency_ps - last_dispatch - empty
                                     : 0;
  for (int k = 0; k < engines_; ++k) {
    const DmaEngineShare share = size_t(k) < request.split.engines.size()
                                     ? request.split.engines[size_t(k)]
                                     : DmaEngineShare{};
    Part p;
    p.transfer = id;
    p.core = core;
    p.engine = k;
    p.bytes = share.bytes;
    p.ready_ps =
        now + request.dispatch_delay_ps + uint64_t(k) * request.dispatch_interval_ps + first_ready;
    const DurationPs work = std::max<DurationPs>(1, ServicePs(share, request.split.hbm_read));
    p.remaining = double(work);
    p.stack_weight = double(request.split.hbm_sides) * double(share.bytes) / double(work);
    const size_t ring = RingIndex(core, k, queue);
    rings_[ring].push_back(p);
    active_rings_.insert(ring);
  }
  t.parts_left = engines_;
  t.landing.parts.resize(size_t(engines_));
  const size_t qi = size_t(core) * queues_per_core_ + size_t(queue);
  DmaQueueCounters& qc = queue_counters_[qi];
  qc.transfers++;
  qc.bytes += request.split.bytes;
  if (queue_transfers_[qi].empty()) t.head_since_ps = now;
  queue_transfers_[qi].push_back(id);
  t.request = std::move(request);
  Reschedule();
}

void DmaFabric::Advance() {
  const TimePs now = scheduler_.Now();
  if (now <= advanced_to_ps_) return;
  for (size_t ring : active_rings_) {
    Part& p = rings_[ring].front();
    if (p.share <= 0.0) continue;
    const TimePs from = std::max(advanced_to_ps_, p.ready_ps);
    if (now <= from) continue;
    p.remaining = std::max(0.0, p.remaining - p.share * double(now - from));
  }
  advanced_to_ps_ = now;
}

// Max-min fair shares by progressive filling: every unfrozen part runs at the same level; the
// first capacity to fill freezes the parts that use it.
void DmaFabric::SolveShares(std::vector<Part*>& served) {
  const size_t engines = core_stacks_.size() * size_t(engines_);
  std::vector<size_t> engine_of(served.size());
  std::vector<int> stack_of(served.size());
  for (size_t i = 0; i < served.size(); ++i) served[i]->share = 0.0;
  std::vector<char> frozen(served.size(), 0);
  size_t left = served.size();
  double level = 0.0;
  while (left > 0) {
    std::vector<double> engine_cap(engines, 1.0), engine_w(engines, 0.0);
    std::vector<double> stack_cap(size_t(stacks_), stack_bytes_per_ps_),
        stack_w(size_t(stacks_), 0.0);
    for (size_t i = 0; i < served.size(); ++i) {
      const Part& p = *served[i];
      engine_of[i] = EngineIndex(p.core, p.engine);
      stack_of[i] = core_stacks_[size_t(p.core)];
      const double s = frozen[i] ? p.share : level;
      engine_cap[engine_of[i]] -= s;
      stack_cap[size_t(stack_of[i])] -= p.stack_weight * s;
      if (!frozen[i]) {
        engine_w[engine_of[i]] += 1.0;
        stack_w[size_t(stack_of[i])] += p.stack_weight;
      }
    }
    double step = std::numeric_limits<double>::infinity();
    for (size_t e = 0; e < engines; ++e)
      if (engine_w[e] > 0) step = std::min(step, std::max(0.0, engine_cap[e]) / engine_w[e]);
    for (size_t s = 0; s < size_t(stacks_); ++s)
      if (stack_w[s] > 0) step = std::min(step, std::max(0.0, stack_cap[s]) / stack_w[s]);
    level += step;
    size_t froze = 0;
    for (size_t i = 0; i < served.size(); ++i) {
      if (frozen[i]) continue;
      const size_t e = engine_of[i], s = size_t(stack_of[i]);
      const bool engine_full =
          engine_w[e] > 0 && std::max(0.0, engine_cap[e]) / engine_w[e] <= step;
      const bool stack_full = stack_w[s] > 0 && std::max(0.0, stack_cap[s]) / stack_w[s] <= step;
      if (engine_full || stack_full) {
        served[i]->share = level;
        frozen[i] = 1;
        ++froze;
      }
    }
    left -= froze;
    if (froze == 0) {  // cannot happen: the minimum capacity always freezes its users
      for (size_t i = 0; i < served.size(); ++i)
        if (!frozen[i]) served[i]->share = level;
      break;
    }
  }
}

void DmaFabric::Reschedule() {
  const TimePs now = scheduler_.Now();
  std::vector<Part*> served;
  TimePs next = kTimeNeverPs;
  for (size_t ring : active_rings_) {
    Part& p = rings_[ring].front();
    if (p.ready_ps <= now) {
      if (p.start_ps == kTimeNeverPs) p.start_ps = now;
      served.push_back(&p);
    } else {
      p.share = 0.0;
      p.finish_ps = kTimeNeverPs;
      next = std::min(next, p.ready_ps);
    }
  }
  SolveShares(served);
  std::vector<char> busy(engine_busy_.size(), 0);
  for (Part* p : served) {
    busy[EngineIndex(p->core, p->engine)] = 1;
    if (p->remaining <= 0.0) {
      p->finish_ps = now;
    } else {
      const double ps = std::ceil(p->remaining / p->share);
      p->finish_ps = now + TimePs(std::max(1.0, ps));
    }
    next = std::min(next, p->finish_ps);
  }
  for (size_t e = 0; e < busy.size(); ++e) {
    if (busy[e] && engine_busy_since_[e] == kTimeNeverPs) engine_busy_since_[e] = now;
    if (!busy[e] && engine_busy_since_[e] != kTimeNeverPs) {
      engine_busy_[e].RecordBusy(engine_busy_since_[e], now);
      engine_busy_since_[e] = kTimeNeverPs;
    }
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
  std::vector<uint64_t> finished;  // transfers whose last part finished now
  for (auto it = active_rings_.begin(); it != active_rings_.end();) {
    std::deque<Part>& ring = rings_[*it];
    Part& p = ring.front();
    if (p.ready_ps > now || p.finish_ps > now) {
      ++it;
      continue;
    }
    Transfer& t = transfers_.at(p.transfer);
    t.landing.parts[size_t(p.engine)] = {p.engine, p.bytes, p.start_ps, now};
    if (--t.parts_left == 0) finished.push_back(p.transfer);
    ring.pop_front();
    it = ring.empty() ? active_rings_.erase(it) : std::next(it);
  }
  std::sort(finished.begin(), finished.end());
  std::vector<std::pair<std::function<void(const DmaLanding&)>, DmaLanding>> landed;
  for (uint64_t id : finished) {
    auto node = transfers_.extract(id);
    Transfer& t = node.mapped();
    const int core = t.request.core;
    const size_t qi = size_t(core) * queues_per_core_ + size_t(t.request.queue);
    std::deque<uint64_t>& order = queue_transfers_[qi];
    order.erase(std::find(order.begin(), order.end(), id));
    queue_counters_[qi].busy.RecordBusy(t.head_since_ps, now);
    // The next transfer of the queue becomes its oldest now (if it was submitted earlier).
    if (!order.empty()) {
      Transfer& n = transfers_.at(order.front());
      n.head_since_ps = std::max(n.head_since_ps, now);
    }
    last_landing_[size_t(core)] = std::max(last_landing_[size_t(core)], now);
    TimePs start = kTimeNeverPs;
    for (const DmaPartRecord& r : t.landing.parts) start = std::min(start, r.start_ps);
    t.landing.start_ps = start;
    landed.emplace_back(std::move(t.request.on_land), std::move(t.landing));
  }
  Reschedule();
  for (auto& [f, landing] : landed)
    if (f) f(landing);
}

}  // namespace trnsim::simulator::core
