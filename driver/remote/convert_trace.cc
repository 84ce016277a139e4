#include "driver/remote/convert_trace.h"

#include <limits>
#include <string>

#include "simulator/isa/access_pattern.h"
#include "simulator/isa/engine.h"

namespace trnsim::driver::remote {
namespace {

namespace core = ::trnsim::simulator::core;

constexpr int kMaxDmaEngines = 64;  // beyond any chip's DMA engines per core (16)

Status Invalid(const std::string& what, const std::string& field, size_t item) {
  return InvalidError("neurond message: " + what + " ExecuteResponse.trace." + field + "[" +
                      std::to_string(item) + "]");
}

void ToProto(const core::TraceSource& in, v1::ExecuteResponse::TraceSource* out) {
  out->set_kind(static_cast<uint32_t>(in.kind));
  out->set_index(in.index);
}

// A source must name an instruction or transfer of the trace (or nothing).
StatusOr<core::TraceSource> SourceFromProto(const v1::ExecuteResponse::TraceSource& in,
                                            const v1::ExecuteResponse::Trace& trace,
                                            const std::string& field, size_t item) {
  core::TraceSource out;
  out.index = in.index();
  switch (in.kind()) {
    case uint32_t(core::TraceSource::Kind::kNone):
      out.kind = core::TraceSource::Kind::kNone;
      return out;
    case uint32_t(core::TraceSource::Kind::kInstruction):
      out.kind = core::TraceSource::Kind::kInstruction;
      if (in.index() >= uint32_t(trace.instructions_size())) break;
      return out;
    case uint32_t(core::TraceSource::Kind::kDma):
      out.kind = core::TraceSource::Kind::kDma;
      if (in.index() >= uint32_t(trace.dmas_size())) break;
      return out;
    default:
      return Invalid("unknown source kind " + std::to_string(in.kind()) + " in", field, item);
  }
  return Invalid("source index " + std::to_string(in.index()) + " out of range in", field, item);
}

StatusOr<isa::Memory> MemoryFromProto(uint32_t value, const std::string& field, size_t item) {
  if (value >= uint32_t(isa::kMemoryCount)) {
    return Invalid("unknown memory kind " + std::to_string(value) + " in", field, item);
  }
  return static_cast<isa::Memory>(value);
}

Status CheckCore(int32_t core, const std::string& field, size_t item) {
  if (core < 0) return Invalid("negative core in", field, item);
  return Status::Ok();
}

Status CheckSyncIndex(uint32_t index, const std::string& field, size_t item) {
  if (index > std::numeric_limits<uint16_t>::max()) {
    return Invalid("semaphore/event index " + std::to_string(index) + " out of range in", field,
                   item);
  }
  return Status::Ok();
}

}  // namespace

void ToProto(const core::ExecutionTrace& in, v1::ExecuteResponse::Trace* out) {
  out->Clear();
  out->mutable_instructions()->Reserve(static_cast<int>(in.instructions.size()));
  for (const core::TraceInstruction& i : in.instructions) {
    v1::ExecuteResponse::TraceInstruction* o = out->add_instructions();
    o->set_core(i.core);
    o->set_engine(static_cast<uint32_t>(i.engine));
    o->set_pc(i.pc);
    o->set_opcode(i.opcode);
    o->set_operands(i.operands);
    o->set_start_ps(i.start_ps);
    o->set_duration_ps(i.duration_ps);
    o->set_wait_ps(i.wait_ps);
    for (const core::TraceWait& w : i.waits) {
      v1::ExecuteResponse::TraceWait* ow = o->add_waits();
      ow->set_event(w.event);
      ow->set_index(w.index);
      ToProto(w.satisfied_by, ow->mutable_satisfied_by());
    }
  }
  out->mutable_dmas()->Reserve(static_cast<int>(in.dmas.size()));
  for (const core::TraceDma& d : in.dmas) {
    v1::ExecuteResponse::TraceDma* o = out->add_dmas();
    o->set_core(d.core);
    o->set_queue(d.queue);
    o->set_bytes(d.bytes);
    o->set_submit_ps(d.submit_ps);
    o->set_start_ps(d.start_ps);
    o->set_end_ps(d.end_ps);
    o->set_source(static_cast<uint32_t>(d.source));
    o->set_destination(static_cast<uint32_t>(d.destination));
    o->set_instruction(d.instruction);
  }
  out->mutable_dma_parts()->Reserve(static_cast<int>(in.dma_parts.size()));
  for (const core::TraceDmaPart& p : in.dma_parts) {
    v1::ExecuteResponse::TraceDmaPart* o = out->add_dma_parts();
    o->set_dma(p.dma);
    o->set_engine(p.engine);
    o->set_bytes(p.bytes);
    o->set_start_ps(p.start_ps);
    o->set_end_ps(p.end_ps);
  }
  out->mutable_sync_updates()->Reserve(static_cast<int>(in.sync_updates.size()));
  for (const core::TraceSyncUpdate& u : in.sync_updates) {
    v1::ExecuteResponse::TraceSyncUpdate* o = out->add_sync_updates();
    o->set_core(u.core);
    o->set_event(u.event);
    o->set_index(u.index);
    o->set_value(u.value);
    o->set_time_ps(u.time_ps);
    ToProto(u.source, o->mutable_source());
  }
  out->set_truncated(in.truncated);
  out->set_dropped_events(in.dropped_events);
}

StatusOr<core::ExecutionTrace> TraceFromProto(const v1::ExecuteResponse::Trace& in) {
  core::ExecutionTrace out;
  out.instructions.reserve(in.instructions_size());
  for (int n = 0; n < in.instructions_size(); ++n) {
    const v1::ExecuteResponse::TraceInstruction& i = in.instructions(n);
    const size_t item = size_t(n);
    TRNSIM_RETURN_IF_ERROR(CheckCore(i.core(), "instructions", item));
    if (i.engine() >= uint32_t(isa::kEngineCount)) {
      return Invalid("unknown engine " + std::to_string(i.engine()) + " in", "instructions", item);
    }
    core::TraceInstruction& o = out.instructions.emplace_back();
    o.core = i.core();
    o.engine = static_cast<isa::Engine>(i.engine());
    o.pc = i.pc();
    o.opcode = i.opcode();
    o.operands = i.operands();
    o.start_ps = i.start_ps();
    o.duration_ps = i.duration_ps();
    o.wait_ps = i.wait_ps();
    for (const v1::ExecuteResponse::TraceWait& w : i.waits()) {
      TRNSIM_RETURN_IF_ERROR(CheckSyncIndex(w.index(), "instructions", item));
      core::TraceWait& ow = o.waits.emplace_back();
      ow.event = w.event();
      ow.index = static_cast<uint16_t>(w.index());
      TRNSIM_ASSIGN_OR_RETURN(ow.satisfied_by,
                              SourceFromProto(w.satisfied_by(), in, "instructions", item));
    }
  }
  out.dmas.reserve(in.dmas_size());
  for (int n = 0; n < in.dmas_size(); ++n) {
    const v1::ExecuteResponse::TraceDma& d = in.dmas(n);
    const size_t item = size_t(n);
    TRNSIM_RETURN_IF_ERROR(CheckCore(d.core(), "dmas", item));
    if (d.queue() < 0) return Invalid("negative queue in", "dmas", item);
    if (d.instruction() >= uint32_t(in.instructions_size())) {
      return Invalid("issuing instruction out of range in", "dmas", item);
    }
    core::TraceDma& o = out.dmas.emplace_back();
    o.core = d.core();
    o.queue = d.queue();
    o.bytes = d.bytes();
    o.submit_ps = d.submit_ps();
    o.start_ps = d.start_ps();
    o.end_ps = d.end_ps();
    TRNSIM_ASSIGN_OR_RETURN(o.source, MemoryFromProto(d.source(), "dmas", item));
    TRNSIM_ASSIGN_OR_RETURN(o.destination, MemoryFromProto(d.destination(), "dmas", item));
    o.instruction = d.instruction();
  }
  out.dma_parts.reserve(in.dma_parts_size());
  for (int n = 0; n < in.dma_parts_size(); ++n) {
    const v1::ExecuteResponse::TraceDmaPart& p = in.dma_parts(n);
    const size_t item = size_t(n);
    if (p.dma() >= uint32_t(in.dmas_size()))
      return Invalid("transfer out of range in", "dma_parts", item);
    if (p.engine() < 0 || p.engine() >= kMaxDmaEngines)
      return Invalid("DMA engine out of range in", "dma_parts", item);
    if (p.end_ps() < p.start_ps()) return Invalid("end before start in", "dma_parts", item);
    out.dma_parts.push_back({p.dma(), p.engine(), p.bytes(), p.start_ps(), p.end_ps()});
  }
  out.sync_updates.reserve(in.sync_updates_size());
  for (int n = 0; n < in.sync_updates_size(); ++n) {
    const v1::ExecuteResponse::TraceSyncUpdate& u = in.sync_updates(n);
    const size_t item = size_t(n);
    TRNSIM_RETURN_IF_ERROR(CheckCore(u.core(), "sync_updates", item));
    TRNSIM_RETURN_IF_ERROR(CheckSyncIndex(u.index(), "sync_updates", item));
    core::TraceSyncUpdate& o = out.sync_updates.emplace_back();
    o.core = u.core();
    o.event = u.event();
    o.index = static_cast<uint16_t>(u.index());
    o.value = u.value();
    o.time_ps = u.time_ps();
    TRNSIM_ASSIGN_OR_RETURN(o.source, SourceFromProto(u.source(), in, "sync_updates", item));
  }
  out.truncated = in.truncated();
  out.dropped_events = in.dropped_events();
  return out;
}

}  // namespace trnsim::driver::remote
