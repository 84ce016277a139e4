#include "simulator/core/debug_output.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace trnsim::simulator::core {

void DebugOutput::Record(reference::DebugPrint print) {
  const uint64_t bytes = print.data.size();
  // bytes_ <= max_bytes always, so the subtraction cannot wrap.
  if (prints_.size() >= limits_.max_prints || bytes > limits_.max_bytes - bytes_) {
    ++dropped_;
    return;
  }
  bytes_ += bytes;
  prints_.push_back(std::move(print));
}

std::vector<reference::DebugPrint> DebugOutput::Take() {
  std::stable_sort(prints_.begin(), prints_.end(),
                   [](const reference::DebugPrint& a, const reference::DebugPrint& b) {
                     return std::tie(a.time_ps, a.core, a.engine, a.pc) <
                            std::tie(b.time_ps, b.core, b.engine, b.pc);
                   });
  std::vector<reference::DebugPrint> out = std::move(prints_);
  prints_.clear();
  bytes_ = 0;
  return out;
}

}  // namespace trnsim::simulator::core
