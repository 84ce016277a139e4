// The dict form of trnsim_exec_stats_t (api/include/trnsim/trnsim.h): the same fields and
// units, engines by name (pe, act, dve, pool, sp), only the valid cores and DMA queues.
#include "python/binding/model.h"
#include "simulator/isa/engine.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

static_assert(TRNSIM_ENGINE_COUNT == isa::kEngineCount);  // the ABI's array, isa::Engine order

py::dict EngineDict(const trnsim_engine_stats_t& e) {
  py::dict d;
  d["busy_ps"] = e.busy_ps;
  d["wait_ps"] = e.wait_ps;
  d["instructions"] = e.instructions;
  d["flops"] = e.flops;
  d["utilization"] = e.utilization;
  return d;
}

py::dict CoreDict(const trnsim_core_stats_t& c) {
  py::dict d;
  d["physical_core"] = c.physical_core;
  d["duration_ps"] = c.duration_ps;
  d["instructions"] = c.instructions;
  d["hbm_read_bytes"] = c.hbm_read_bytes;
  d["hbm_write_bytes"] = c.hbm_write_bytes;
  py::dict engines;
  for (int e = 0; e < TRNSIM_ENGINE_COUNT; ++e)
    engines[std::string(isa::EngineName(isa::Engine(e))).c_str()] = EngineDict(c.engines[e]);
  d["engines"] = engines;
  py::list queues;
  const uint32_t count = std::min<uint32_t>(c.dma_queue_count, TRNSIM_MAX_DMA_QUEUES);
  for (uint32_t q = 0; q < count; ++q) {
    py::dict qd;
    qd["transfers"] = c.dma_queues[q].transfers;
    qd["bytes"] = c.dma_queues[q].bytes;
    qd["busy_ps"] = c.dma_queues[q].busy_ps;
    queues.append(qd);
  }
  d["dma_queues"] = queues;
  return d;
}

}  // namespace

py::dict StatsDict(const trnsim_exec_stats_t& s) {
  py::dict d;
  d["execution_count"] = s.execution_count;
  d["duration_ps"] = s.duration_ps;
  d["duration_ns"] = s.duration_ns;
  d["hbm_read_bytes"] = s.hbm_read_bytes;
  d["hbm_write_bytes"] = s.hbm_write_bytes;
  d["dma_bytes"] = s.dma_bytes;
  d["dma_transfers"] = s.dma_transfers;
  d["simulator_events"] = s.simulator_events;
  d["host_ns"] = s.host_ns;
  py::list cores;
  const uint32_t count = std::min<uint32_t>(s.core_count, TRNSIM_MAX_CORES_PER_EXEC);
  for (uint32_t c = 0; c < count; ++c) cores.append(CoreDict(s.cores[c]));
  d["cores"] = cores;
  return d;
}

}  // namespace trnsim::python
