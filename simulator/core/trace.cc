#include "simulator/core/trace.h"

#include <algorithm>
#include <utility>

#include "simulator/isa/opcode.h"
#include "simulator/isa/text.h"

namespace trnsim::simulator::core {

namespace {

uint64_t HeapBytes(const std::string& s) {
  // A std::string keeps up to 15 characters inline (libstdc++'s small-string buffer).
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

}  // namespace

uint64_t TraceEntryBytes(const TraceInstruction& instruction) {
  return sizeof(TraceInstruction) + HeapBytes(instruction.opcode) +
         HeapBytes(instruction.operands) + instruction.waits.capacity() * sizeof(TraceWait);
}

bool TraceRecorder::Admit(uint64_t bytes) {
  ExecutionTrace& t = *trace_;
  // recorded_bytes never passes max_bytes, so the subtraction cannot wrap.
  if (!t.truncated &&
      (t.events() >= t.limits.max_events || bytes > t.limits.max_bytes - t.recorded_bytes)) {
    t.truncated = true;
  }
  if (t.truncated) {
    ++t.dropped_events;
    return false;
  }
  t.recorded_bytes += bytes;
  return true;
}

uint32_t TraceRecorder::Issue(isa::Engine engine, uint32_t pc, const isa::Instruction& inst,
                              TimePs now_ps, DurationPs wait_ps) {
  if (trace_->truncated) {  // skip formatting the text of an event that is not recorded
    ++trace_->dropped_events;
    return kNotRecorded;
  }
  TraceInstruction t;
  t.core = core_;
  t.engine = engine;
  t.pc = pc;
  t.opcode = std::string(isa::Mnemonic(inst.opcode));
  // The text form is "[wait ...] <mnemonic> <operands> [then ...]"; drop the mnemonic token.
  std::string text = isa::FormatInstruction(inst);
  for (size_t at = text.find(t.opcode); at != std::string::npos; at = text.find(t.opcode, at + 1)) {
    const size_t end = at + t.opcode.size();
    if ((at == 0 || text[at - 1] == ' ') && (end == text.size() || text[end] == ' ')) {
      text.erase(at, end < text.size() ? t.opcode.size() + 1 : t.opcode.size());
      if (!text.empty() && text.back() == ' ') text.pop_back();
      break;
    }
  }
  t.operands = std::move(text);
  t.start_ps = now_ps;
  t.wait_ps = wait_ps;
  auto wait_on = [&](bool event, uint32_t index) {
    const uint16_t i = uint16_t(index % 256);
    t.waits.push_back({event, i, event ? last_event_[i] : last_semaphore_[i]});
  };
  for (const isa::SyncWait& w : inst.Waits()) wait_on(w.kind != isa::WaitKind::kSemaphore, w.index);
  if (inst.opcode == isa::Opcode::kSemWait) wait_on(false, inst.index);
  if (inst.opcode == isa::Opcode::kEventWait) wait_on(true, inst.index);
  if (!Admit(TraceEntryBytes(t))) return kNotRecorded;
  trace_->instructions.push_back(std::move(t));
  return uint32_t(trace_->instructions.size() - 1);
}

uint32_t TraceRecorder::Segment(isa::Engine engine, std::string opcode, std::string operands,
                                TimePs start_ps, DurationPs duration_ps, DurationPs wait_ps) {
  TraceInstruction t;
  t.core = core_;
  t.engine = engine;
  t.pc = kSegmentPc;
  t.opcode = std::move(opcode);
  t.operands = std::move(operands);
  t.start_ps = start_ps;
  t.duration_ps = duration_ps;
  t.wait_ps = wait_ps;
  if (!Admit(TraceEntryBytes(t))) return kNotRecorded;
  trace_->instructions.push_back(std::move(t));
  return uint32_t(trace_->instructions.size() - 1);
}

void TraceRecorder::SyncUpdate(bool event, uint32_t index, uint32_t value, TimePs now_ps,
                               TraceSource source) {
  if (!Admit(sizeof(TraceSyncUpdate))) return;
  const uint16_t i = uint16_t(index % 256);
  (event ? last_event_ : last_semaphore_)[i] = source;
  trace_->sync_updates.push_back({core_, event, i, value, now_ps, source});
}

uint32_t TraceRecorder::DmaSubmitted(int queue, uint64_t bytes, isa::Memory source,
                                     isa::Memory destination, uint32_t instruction, TimePs now_ps) {
  if (!Admit(sizeof(TraceDma))) return kNotRecorded;
  TraceDma d;
  d.core = core_;
  d.queue = queue;
  d.bytes = bytes;
  d.submit_ps = now_ps;
  d.source = source;
  d.destination = destination;
  d.instruction = instruction;
  trace_->dmas.push_back(d);
  return uint32_t(trace_->dmas.size() - 1);
}

uint32_t TraceRecorder::AddPass(uint32_t instruction, TimePs start_ps, DurationPs duration_ps) {
  if (instruction == kNotRecorded || trace_->truncated) {
    ++trace_->dropped_events;
    return kNotRecorded;
  }
  TraceInstruction pass = trace_->instructions[instruction];
  pass.start_ps = start_ps;
  pass.duration_ps = duration_ps;
  pass.wait_ps = 0;
  pass.waits.clear();
  pass.waits.shrink_to_fit();
  if (!Admit(TraceEntryBytes(pass))) return kNotRecorded;
  trace_->instructions.push_back(std::move(pass));
  return uint32_t(trace_->instructions.size() - 1);
}

void TraceRecorder::DmaLanded(uint32_t dma, TimePs end_ps, const DmaLanding& landing) {
  if (dma == kNotRecorded) {
    trace_->dropped_events += landing.parts.size();
    return;
  }
  trace_->dmas[dma].start_ps = landing.start_ps;
  trace_->dmas[dma].end_ps = end_ps;
  for (const DmaPartRecord& p : landing.parts)
    if (Admit(sizeof(TraceDmaPart)))
      trace_->dma_parts.push_back({dma, p.engine, p.bytes, p.start_ps, p.end_ps});
}

DurationPs TraceEngineBusyPs(const ExecutionTrace& trace, int core, isa::Engine engine) {
  DurationPs busy = 0;
  TimePs accounted_to = 0;
  for (const TraceInstruction& t : trace.instructions) {
    if (t.core != core || t.engine != engine) continue;
    const TimePs end = t.start_ps + t.duration_ps;
    if (end <= accounted_to) continue;
    busy += end - std::max(t.start_ps, accounted_to);
    accounted_to = end;
  }
  return busy;
}

}  // namespace trnsim::simulator::core
