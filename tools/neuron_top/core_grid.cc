#include "tools/neuron_top/core_grid.h"

#include <algorithm>
#include <map>
#include <set>

#include "tools/neuron_top/tabs.h"

namespace trnsim::neuron_top {
namespace {

uint64_t Increase(uint64_t now, uint64_t then) { return now >= then ? now - then : 0; }

// Per physical core: percent busy or TFLOPS over the period.
double PhysicalValue(const observe::CoreView& now, const observe::CoreView* then,
                     uint64_t period_ns, bool tflops) {
  if (then == nullptr) return 0.0;
  if (tflops) {
    const uint64_t busy_ps = Increase(now.busy_ps, then->busy_ps);
    return busy_ps == 0 ? 0.0
                        : static_cast<double>(Increase(now.flops, then->flops)) /
                              static_cast<double>(busy_ps);
  }
  if (period_ns == 0) return 0.0;
  const double percent = 100.0 *
                         static_cast<double>(Increase(now.busy_wall_ns, then->busy_wall_ns)) /
                         static_cast<double>(period_ns);
  return std::min(percent, 100.0);
}

}  // namespace

CoreGrid ComputeCoreGrid(const Sample* previous, const Sample& current, uint64_t session_id,
                         bool tflops) {
  const observe::InstanceView& view = current.view;
  CoreGrid grid;
  grid.tflops = tflops;
  const int lnc = std::max(view.lnc, 1);
  const int per_device = view.physical_cores_per_device;
  std::map<int, const observe::CoreView*> before;
  if (previous != nullptr) {
    for (const observe::CoreView& core : previous->view.cores) before[core.physical_core] = &core;
  }
  const uint64_t period_ns =
      previous == nullptr ? 0 : Increase(current.taken_ns, previous->taken_ns);
  std::map<int, double> physical;
  std::set<int> counted_logical;  // instance-wide logical index (physical / lnc)
  for (const observe::CoreView& core : view.cores) {
    if (session_id != kAllProcesses && core.owner_session_id != session_id) continue;
    auto then = before.find(core.physical_core);
    physical[core.physical_core] =
        PhysicalValue(core, then == before.end() ? nullptr : then->second, period_ns, tflops);
    counted_logical.insert(core.physical_core / lnc);
  }
  double sum = 0.0;
  int cells = 0;
  for (const observe::DeviceView& device : view.devices) {
    std::vector<double> row;
    for (size_t local = 0; local < device.logical_core_ids.size(); ++local) {
      const int first = device.index * per_device + static_cast<int>(local) * lnc;
      double value = 0.0;
      for (int p = first; p < first + lnc; ++p) {
        auto found = physical.find(p);
        if (found != physical.end()) value += found->second;
      }
      if (!tflops) value /= lnc;
      row.push_back(value);
      if (session_id == kAllProcesses || counted_logical.count(first / lnc) > 0) {
        sum += value;
        ++cells;
      }
    }
    grid.values.push_back(std::move(row));
  }
  grid.average = cells == 0 ? 0.0 : sum / cells;
  return grid;
}

}  // namespace trnsim::neuron_top
