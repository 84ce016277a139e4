#include "driver/remote/convert_debug.h"

#include <string>
#include <utility>

#include "driver/remote/convert.h"
#include "simulator/core/debug_output.h"
#include "simulator/isa/access_pattern.h"

namespace trnsim::driver::remote {
namespace {

Status Invalid(size_t index, const std::string& what) {
  return InvalidError("neurond message: ExecutionResult.debug_prints[" + std::to_string(index) +
                      "]: " + what);
}

}  // namespace

void ToProto(const std::vector<driver::DebugPrint>& prints, v1::ExecutionResult* out) {
  for (const driver::DebugPrint& p : prints) {
    v1::DebugPrint* m = out->add_debug_prints();
    m->set_prefix_id(p.prefix_id);
    m->set_dtype(ToProto(p.dtype));
    for (uint64_t d : p.shape) m->add_shape(d);
    m->set_data(p.data.data(), p.data.size());
    m->set_engine(static_cast<uint32_t>(p.engine));
    m->set_pc(p.pc);
    m->set_core(p.core);
    m->set_time_ps(p.time_ps);
  }
}

StatusOr<std::vector<driver::DebugPrint>> DebugPrintsFromProto(const v1::ExecutionResult& in,
                                                               size_t core_count) {
  const simulator::core::DebugPrintLimits bound;
  if (static_cast<uint64_t>(in.debug_prints_size()) > bound.max_prints) {
    return InvalidError("neurond message: ExecutionResult carries " +
                        std::to_string(in.debug_prints_size()) + " debug prints, more than " +
                        std::to_string(bound.max_prints) + " per execution");
  }
  std::vector<driver::DebugPrint> out;
  out.reserve(static_cast<size_t>(in.debug_prints_size()));
  uint64_t total_bytes = 0;
  for (int i = 0; i < in.debug_prints_size(); ++i) {
    const v1::DebugPrint& m = in.debug_prints(i);
    const size_t at = static_cast<size_t>(i);
    driver::DebugPrint p;
    StatusOr<isa::Dtype> dtype = DtypeFromProto(m.dtype());
    if (!dtype.ok()) return Invalid(at, dtype.status().message());
    p.dtype = *dtype;
    if (m.shape_size() < 2 || m.shape_size() > 1 + isa::kMaxFreeDims) {
      return Invalid(at, "a shape of " + std::to_string(m.shape_size()) + " dimensions (2 to " +
                             std::to_string(1 + isa::kMaxFreeDims) + ")");
    }
    // Every dimension is >= 1 and the running product stays within the data actually sent,
    // so it cannot overflow.
    uint64_t bytes = static_cast<uint64_t>(isa::DtypeSize(p.dtype));
    for (uint64_t d : m.shape()) {
      if (d == 0 || d > m.data().size() || bytes > m.data().size() / d) {
        return Invalid(
            at, "shape does not match its " + std::to_string(m.data().size()) + " bytes of data");
      }
      bytes *= d;
      p.shape.push_back(d);
    }
    if (bytes != m.data().size()) {
      return Invalid(at, "shape makes " + std::to_string(bytes) + " bytes but " +
                             std::to_string(m.data().size()) + " came");
    }
    total_bytes += bytes;
    if (total_bytes > bound.max_bytes) {
      return Invalid(at, "the prints carry more than " + std::to_string(bound.max_bytes) +
                             " bytes of data per execution");
    }
    if (m.engine() >= static_cast<uint32_t>(isa::kEngineCount)) {
      return Invalid(at, "engine " + std::to_string(m.engine()) + " is not an engine");
    }
    if (m.core() >= core_count) {
      return Invalid(at, "core " + std::to_string(m.core()) + " is not one of the " +
                             std::to_string(core_count) + " cores of the execution");
    }
    p.prefix_id = m.prefix_id();
    p.data.assign(m.data().begin(), m.data().end());
    p.engine = static_cast<isa::Engine>(m.engine());
    p.pc = m.pc();
    p.core = m.core();
    p.time_ps = m.time_ps();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace trnsim::driver::remote
