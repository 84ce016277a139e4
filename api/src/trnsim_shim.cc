// trnsim's C extension (<trnsim/trnsim.h>, version node TRNSIM_1): execution statistics and
// the library's version. Same pattern as the nrt shims: check arguments, one runtime call,
// map the Status.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/src/shim.h"
#include "common/version.h"
#include "simulator/isa/engine.h"
#include "trnsim/trnsim.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::driver::CoreStats;
using trnsim::runtime::execution::ExecutionRecord;
using trnsim::runtime::model::Model;

namespace {

// The ABI's engine array is the chip model's, in isa::Engine order.
static_assert(TRNSIM_ENGINE_COUNT == trnsim::isa::kEngineCount);

void FillCore(const CoreStats& in, trnsim_core_stats_t& out) {
  out.physical_core = static_cast<uint32_t>(in.core);
  out.duration_ps = in.duration_ps;
  out.instructions = in.instructions;
  out.hbm_read_bytes = in.hbm_read_bytes;
  out.hbm_write_bytes = in.hbm_write_bytes;
  for (int e = 0; e < TRNSIM_ENGINE_COUNT; ++e) {
    trnsim_engine_stats_t& engine = out.engines[e];
    engine.busy_ps = in.engines[e].busy_ps;
    engine.wait_ps = in.engines[e].wait_ps;
    engine.instructions = in.engines[e].instructions;
    engine.flops = in.engines[e].flops;
    engine.utilization =
        in.duration_ps == 0 ? 0.0 : static_cast<double>(engine.busy_ps) / in.duration_ps;
  }
  size_t queues = std::min<size_t>(in.queues.size(), TRNSIM_MAX_DMA_QUEUES);
  out.dma_queue_count = static_cast<uint32_t>(queues);
  for (size_t q = 0; q < queues; ++q) {
    out.dma_queues[q] = {in.queues[q].transfers, in.queues[q].bytes, in.queues[q].busy_ps};
  }
}

void Fill(const ExecutionRecord& record, trnsim_exec_stats_t& out) {
  uint32_t struct_size = out.struct_size;
  std::memset(&out, 0, sizeof(out));
  out.struct_size = struct_size;
  out.execution_count = record.execution_count;
  out.duration_ps = record.last.duration_ps;
  out.duration_ns = record.last.duration_ps / 1000;
  out.simulator_events = record.last.events;
  out.host_ns = record.host_ns;
  size_t cores = std::min<size_t>(record.last.cores.size(), TRNSIM_MAX_CORES_PER_EXEC);
  out.core_count = static_cast<uint32_t>(cores);
  for (size_t c = 0; c < cores; ++c) {
    const CoreStats& core = record.last.cores[c];
    FillCore(core, out.cores[c]);
    out.hbm_read_bytes += core.hbm_read_bytes;
    out.hbm_write_bytes += core.hbm_write_bytes;
    for (const auto& q : core.queues) {
      out.dma_bytes += q.bytes;
      out.dma_transfers += q.transfers;
    }
  }
}

// NRT_INVALID unless the buffer is NULL with size 0 or non-NULL with a nonzero size.
trnsim::Status CheckBuffer(const char* what, const char* buffer, size_t size) {
  if ((buffer == nullptr) == (size == 0)) return trnsim::Status::Ok();
  return trnsim::InvalidError(std::string(what) + " is " +
                              (buffer == nullptr ? "NULL" : "non-NULL") + " with size " +
                              std::to_string(size));
}

// Copies `text` into `buffer` (if any), truncating and NUL-terminating.
void CopyOut(char* buffer, size_t size, const char* text) {
  if (buffer == nullptr) return;
  size_t n = std::min(std::strlen(text), size - 1);
  std::memcpy(buffer, text, n);
  buffer[n] = '\0';
}

}  // namespace

extern "C" {

NRT_STATUS trnsim_get_execution_stats(nrt_model_t* model, trnsim_exec_stats_t* stats) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (stats == nullptr) return NullArgument(__func__, "stats");
  if (stats->struct_size < sizeof(trnsim_exec_stats_t)) {
    return Report(__func__,
                  trnsim::InvalidError("stats->struct_size " + std::to_string(stats->struct_size) +
                                       " is smaller than sizeof(trnsim_exec_stats_t) = " +
                                       std::to_string(sizeof(trnsim_exec_stats_t)) +
                                       " (set it before the call)"));
  }
  trnsim::StatusOr<ExecutionRecord> record =
      Rt().executions().Last(reinterpret_cast<const Model*>(model));
  if (!record.ok()) return Report(__func__, record.status());
  Fill(*record, *stats);
  return NRT_SUCCESS;
}

NRT_STATUS trnsim_get_version(char* version, size_t version_size, char* git_hash,
                              size_t git_hash_size) {
  if (version == nullptr && git_hash == nullptr) {
    return Report(__func__, trnsim::InvalidError("version and git_hash are both NULL"));
  }
  trnsim::Status checked = CheckBuffer("version", version, version_size);
  if (checked.ok()) checked = CheckBuffer("git_hash", git_hash, git_hash_size);
  if (!checked.ok()) return Report(__func__, checked);
  CopyOut(version, version_size, trnsim::TrnsimVersion());
  CopyOut(git_hash, git_hash_size, trnsim::TrnsimGitHash());
  return NRT_SUCCESS;
}

}  // extern "C"
