#include "simulator/core/core_model.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <utility>

#include "simulator/core/functional.h"
#include "simulator/cost/cost_model.h"
#include "simulator/dma/descriptor.h"

namespace trnsim::simulator::core {

using isa::Instruction;
using isa::Opcode;

namespace {

bool IsSyncOrUpdate(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kSemUpdate:
    case Opcode::kEventSet:
    case Opcode::kEventClear:
      return true;
    default:
      return inst.num_updates > 0;
  }
}

}  // namespace

CoreModel::CoreModel(Scheduler& scheduler, const ChipSpec& chip, DmaFabric& fabric, int fabric_core,
                     const CoreRun& run, const Programs& programs, EventPriority base_priority)
    : scheduler_(scheduler),
      chip_(chip),
      fabric_(fabric),
      fabric_core_(fabric_core),
      run_(run),
      base_priority_(base_priority),
      pe_(chip.cost) {
  for (int e = 0; e < isa::kEngineCount; ++e) {
    engines_[e].kind = isa::Engine(e);
    engines_[e].program = programs[e];
    engines_[e].ended = engines_[e].program == nullptr;
  }
}

void CoreModel::set_trace(ExecutionTrace* trace) {
  trace_ = trace ? std::make_unique<TraceRecorder>(trace, run_.core) : nullptr;
}

void CoreModel::Start() {
  reference::CoreState& s = *run_.state;
  for (auto& r : s.regs) r.fill(0);
  s.acc.fill(0.0f);
  s.stationary = reference::Stationary{};
  s.sem.fill(0);
  s.event.fill(0);
  s.issued.fill(0);
  pair_barriers_.fill(0);
  pe_.Reset();
  for (RawHazard& h : hazards_) h.Clear();
  act_table_ = isa::ActTableSet::kNone;  // every execution starts without a table loaded
  if (router_) router_->Reset();
  last_stream_ = s.rounding_stream;
  for (int e = 0; e < isa::kEngineCount; ++e)
    if (!engines_[e].ended) PostTry(e, scheduler_.Now());
}

void CoreModel::EnableEffectWorker() {
  // The thread itself starts with the first deferred effect: an execution with none costs none.
  router_ = std::make_unique<EffectRouter>(run_.state->limits);
}

void CoreModel::DrainEffects() {
  if (!router_) return;
  if (worker_) worker_->Drain();
  // Instructions that touch no data left rounding_stream to the worker; the serial run's value
  // is the last issued instruction's.
  run_.state->rounding_stream = last_stream_;
}

EffectRoute CoreModel::BeginEffect(isa::Engine kind, const Instruction& inst, uint64_t& stream) {
  reference::CoreState& s = *run_.state;
  // BeginInstruction, split: `issued` is the scheduler thread's, rounding_stream the worker's
  // until the next drain.
  stream = reference::RoundingStream(s.rounding_seed, kind, s.issued[int(kind)]++);
  last_stream_ = stream;
  const EffectRoute route = router_->Route(kind, inst, *run_.hbm);
  if (route == EffectRoute::kDrainCore || route == EffectRoute::kDrainPair) DrainEffects();
  if (route == EffectRoute::kDrainPair && peer_ != nullptr) peer_->DrainEffects();
  return route;
}

bool CoreModel::done() const {
  for (const EngineState& e : engines_)
    if (!e.ended || e.outstanding != 0) return false;
  return true;
}

void CoreModel::PostTry(int engine, TimePs at_ps) {
  EngineState& e = engines_[engine];
  if (e.try_pending) return;
  e.try_pending = true;
  scheduler_.Schedule(
      at_ps, [this, engine] { Try(engine); }, PriorityOf(engine));
}

void CoreModel::Fail(Status status) {
  if (status_.ok()) status_ = std::move(status);
  scheduler_.RequestStop();
}

std::string CoreModel::Where(const EngineState& e, size_t pc) const {
  std::string engine(isa::EngineName(e.kind));
  for (char& ch : engine) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  std::string where =
      "core " + std::to_string(run_.core) + " " + engine + " instruction " + std::to_string(pc);
  if (e.program && pc < e.program->size())
    where += " (" + std::string(isa::Mnemonic(e.program->opcode(pc))) + ")";
  return where;
}

int CoreModel::FirstUnmetWait(const EngineState& e, const Instruction& inst) const {
  const reference::CoreState& s = *run_.state;
  for (int i = 0; i < inst.num_waits; ++i) {
    const isa::SyncWait& w = inst.waits[size_t(i)];
    const bool holds = w.kind == isa::WaitKind::kSemaphore
                           ? isa::Compare(w.cmp, s.sem[w.index % 256], w.value)
                           : isa::Compare<uint32_t>(w.cmp, s.event[w.index % 256], w.value);
    if (!holds) return i;
  }
  const bool opcode_waits = (inst.opcode == Opcode::kSemWait &&
                             !isa::Compare(inst.cmp, s.sem[inst.index % 256], inst.imm[0])) ||
                            (inst.opcode == Opcode::kEventWait && s.event[inst.index % 256] != 1) ||
                            (inst.opcode == Opcode::kCoreBarrier && e.pair_waiting) ||
                            (inst.opcode == Opcode::kBarrier && e.outstanding != 0);
  return opcode_waits ? kOpcodeWait : kAllWaitsHold;
}

std::string CoreModel::UnmetWait(const EngineState& e, const Instruction& inst) const {
  const reference::CoreState& s = *run_.state;
  auto sem = [&](uint32_t index, isa::CmpOp cmp, uint32_t value) {
    return "S[" + std::to_string(index) + "] " + std::string(isa::CmpOpSymbol(cmp)) + " " +
           std::to_string(value) + " (S[" + std::to_string(index) +
           "] = " + std::to_string(s.sem[index % 256]) + ")";
  };
  const int unmet = FirstUnmetWait(e, inst);
  if (unmet == kAllWaitsHold) return {};
  if (unmet != kOpcodeWait) {
    const isa::SyncWait& w = inst.waits[size_t(unmet)];
    if (w.kind == isa::WaitKind::kSemaphore) return sem(w.index, w.cmp, w.value);
    return "E[" + std::to_string(w.index) + "] " + std::string(isa::CmpOpSymbol(w.cmp)) + " " +
           std::to_string(w.value);
  }
  if (inst.opcode == Opcode::kSemWait) return sem(inst.index, inst.cmp, inst.imm[0]);
  if (inst.opcode == Opcode::kEventWait) return "E[" + std::to_string(inst.index) + "] == 1";
  if (inst.opcode == Opcode::kCoreBarrier)
    return "S[" + std::to_string(e.pair_sem) + "] >= " + std::to_string(e.pair_target) +
           " (core_barrier: the peer core's barrier; S[" + std::to_string(e.pair_sem) +
           "] = " + std::to_string(s.sem[e.pair_sem]) + ")";
  return std::to_string(e.outstanding) + " earlier instruction(s) or transfer(s) to complete";
}

void CoreModel::ApplySync(isa::UpdateOp op, uint32_t index, uint32_t value) {
  reference::ApplySyncUpdate(*run_.state, op, index, value);
  if (trace_) TraceSync(op == isa::UpdateOp::kEventSet || op == isa::UpdateOp::kEventClear, index);
}

void CoreModel::TraceSync(bool event, uint32_t index) {
  const reference::CoreState& s = *run_.state;
  const uint32_t value = event ? uint32_t(s.event[index % 256]) : uint32_t(s.sem[index % 256]);
  trace_->SyncUpdate(event, index, value, scheduler_.Now(), sync_source_);
}

void CoreModel::ApplyUpdates(const Instruction& inst, isa::UpdateWhen when) {
  bool any = false;
  for (const isa::SyncUpdate& u : inst.Updates()) {
    if (u.when != when) continue;
    ApplySync(u.op, u.index, u.value);
    any = true;
  }
  if (any) WakeBlocked();
}

void CoreModel::WakeBlocked() {
  for (int e = 0; e < isa::kEngineCount; ++e)
    if (engines_[e].blocked) PostTry(e, scheduler_.Now());
}

const Instruction& CoreModel::Current(EngineState& e) {
  if (e.current_pc != e.pc) {
    e.program->Unpack(e.pc, e.current);
    e.current_pc = e.pc;
  }
  return e.current;
}

void CoreModel::Complete(int engine, size_t pc, uint32_t traced) {
  EngineState& e = engines_[engine];
  --e.outstanding;
  const TimePs now = scheduler_.Now();
  e.last_activity_ps = std::max(e.last_activity_ps, now);
  last_activity_ps_ = std::max(last_activity_ps_, now);
  if (trace_) sync_source_ = {TraceSource::Kind::kInstruction, traced};
  if (e.program->num_updates(pc) > 0) {
    Instruction inst;
    e.program->Unpack(pc, inst);
    ApplyUpdates(inst, isa::UpdateWhen::kComplete);
  }
  // A barrier may be waiting for exactly this.
  if (e.blocked) PostTry(engine, now);
}

Status CoreModel::IssueDma(int engine, const Instruction& inst, uint32_t traced) {
  size_t next = 0;
  bool ended = false;
  TRNSIM_RETURN_IF_ERROR(ApplyEffect(isa::Engine(engine), inst, engines_[engine].pc, *run_.state,
                                     *run_.hbm, next, ended));
  const isa::AccessPattern& dst = inst.ap[0];
  const isa::AccessPattern& src = inst.ap[1];
  const size_t pc = engines_[engine].pc;
  DmaRequest r =
      NewDmaRequest(inst, int(inst.index % uint32_t(fabric_.queues_per_core())),
                    SplitCopy(dst, src, fabric_.engines_per_core(), PartitionsPerDmaEngine()));
  if (src.memory == isa::Memory::kHbm)
    hbm_read_bytes_ += src.Elements() * uint64_t(isa::DtypeSize(src.dtype));
  if (dst.memory == isa::Memory::kHbm) hbm_write_bytes_ += r.split.bytes;
  uint32_t dma = 0;
  if (trace_)
    dma = trace_->DmaSubmitted(r.queue, r.split.bytes, src.memory, dst.memory, traced,
                               scheduler_.Now());
  r.on_land = [this, engine, pc, traced, dma](const DmaLanding& landing) {
    if (trace_) trace_->DmaLanded(dma, scheduler_.Now(), landing);
    Complete(engine, pc, traced);
  };
  ++engines_[engine].outstanding;
  fabric_.Submit(std::move(r));
  return Status::Ok();
}

int CoreModel::PartitionsPerDmaEngine() const {
  return std::max(1, chip_.partitions / std::max(1, fabric_.engines_per_core()));
}

DmaRequest CoreModel::NewDmaRequest(const Instruction& inst, int queue, DmaSplit split) const {
  const CostSpec& c = chip_.cost;
  DmaRequest r;
  r.core = fabric_core_;
  r.queue = queue;
  r.split = std::move(split);
  r.dispatch_interval_ps = c.dma_engine_dispatch_ps;
  if (inst.opcode == Opcode::kDmaCopy && inst.has_flag(isa::kFlagSwdge)) {
    // GpSimd writes the engines' descriptors one engine after another after its start-up; each
    // engine is dispatched once its descriptors are written (docs/chip-model.md §3.2).
    r.dispatch_interval_ps = c.dma_swdge_descriptor_ps;
    r.dispatch_delay_ps =
        Clock::FromHz(c.pool_clock_hz).CyclesToPs(uint64_t(std::max(0, c.gpsimd_start_cycles))) +
        c.dma_swdge_descriptor_ps;
  }
  return r;
}

Status CoreModel::IssueDebugPrint(int engine, const Instruction& inst) {
  EngineState& e = engines_[engine];
  TRNSIM_ASSIGN_OR_RETURN(reference::DebugPrint print,
                          reference::CaptureDebugPrint(e.kind, inst, e.pc, *run_.state, *run_.hbm));
  if (inst.ap[isa::kSrc].memory == isa::Memory::kHbm) hbm_read_bytes_ += print.data.size();
  print.core = run_index_;
  print.time_ps = scheduler_.Now();
  if (debug_ != nullptr) debug_->Record(std::move(print));
  return Status::Ok();
}

Status CoreModel::IssueTrigger(int engine, const Instruction& inst, uint32_t traced) {
  const isa::Engine kind = isa::Engine(engine);
  const uint32_t count = std::max<uint32_t>(1, inst.count);
  std::vector<const dma::Descriptor*> descs;
  for (uint32_t k = 0; k < count; ++k) {
    const int64_t id = int64_t(inst.index) + k;
    const dma::Descriptor* d = run_.descriptors ? run_.descriptors->Find(kind, id) : nullptr;
    if (d == nullptr)
      return InvalidError("execution error: dma_trigger descriptor " + std::to_string(id) +
                          " is not in " + std::string(isa::EngineName(kind)) + ".json");
    descs.push_back(d);
  }
  // The instruction's @complete updates fire when the last of its descriptors has landed.
  auto remaining = std::make_shared<uint32_t>(count);
  const size_t pc = engines_[engine].pc;
  ++engines_[engine].outstanding;
  for (const dma::Descriptor* d : descs) {
    TRNSIM_RETURN_IF_ERROR(dma::Execute(*d, *run_.state, *run_.hbm));
    const dma::TransferShape shape = dma::ShapeOf(*d);
    hbm_read_bytes_ += shape.hbm_read_bytes;
    hbm_write_bytes_ += shape.hbm_write_bytes;
    DmaRequest r =
        NewDmaRequest(inst, d->queue % fabric_.queues_per_core(),
                      SplitDescriptor(*d, chip_.sbuf_bytes_per_partition,
                                      fabric_.engines_per_core(), PartitionsPerDmaEngine()));
    uint32_t dma = 0;
    if (trace_) {
      const isa::Memory src = d->sources.empty() || d->sources[0].var_id == dma::kSbufVarId
                                  ? isa::Memory::kSbuf
                                  : isa::Memory::kHbm;
      const isa::Memory dst =
          d->dest.var_id == dma::kSbufVarId ? isa::Memory::kSbuf : isa::Memory::kHbm;
      dma = trace_->DmaSubmitted(r.queue, r.split.bytes, src, dst, traced, scheduler_.Now());
    }
    r.on_land = [this, engine, pc, d, remaining, traced, dma](const DmaLanding& landing) {
      if (trace_) {
        trace_->DmaLanded(dma, scheduler_.Now(), landing);
        sync_source_ = {TraceSource::Kind::kDma, dma};
      }
      if (d->semaphore) ApplySync(isa::UpdateOp::kSemAdd, *d->semaphore, d->semaphore_increment);
      if (d->event) ApplySync(isa::UpdateOp::kEventSet, *d->event, 0);
      if (d->semaphore || d->event) WakeBlocked();
      if (--*remaining == 0) Complete(engine, pc, traced);
    };
    fabric_.Submit(std::move(r));
  }
  return Status::Ok();
}

void CoreModel::Try(int engine) {
  EngineState& e = engines_[engine];
  e.try_pending = false;
  if (e.ended || !status_.ok()) return;
  const TimePs now = scheduler_.Now();
  if (now < e.free_at_ps) {
    PostTry(engine, e.free_at_ps);
    return;
  }
  // A core_barrier that has issued completes once its semaphore count has arrived.
  if (e.pair_waiting && !FinishPairBarrier(engine)) return;
  if (e.pc >= e.program->size()) {
    Fail(InvalidError("execution error: " + Where(e) + ": ran past the end of its stream"));
    return;
  }
  const Instruction& inst = Current(e);
  const bool pe_unit = e.kind == isa::Engine::kPe && PePipeline::Handles(inst);
  if (pe_unit) {
    const TimePs ready = pe_.ReadyAt(inst);
    if (now < ready) {
      PostTry(engine, ready);
      return;
    }
  }
  // Same-engine read-after-write: an input an earlier instruction of this engine is still
  // writing must land first.
  if (const TimePs ready = hazards_[engine].ReadyAt(inst, run_.state->regs[engine]); now < ready) {
    PostTry(engine, ready);
    return;
  }
  if (FirstUnmetWait(e, inst) != kAllWaitsHold) {
    if (!e.blocked) {
      e.blocked = true;
      e.blocked_since_ps = now;
    }
    return;
  }
  DurationPs waited_ps = 0;
  if (e.blocked) {
    waited_ps = now - e.blocked_since_ps;
    e.stats.wait_ps += waited_ps;
    e.blocked = false;
  }
  if (e.kind == isa::Engine::kAct) {
    if (const isa::ActTableSet set = MissingActTable(inst); set != isa::ActTableSet::kNone) {
      LoadActTable(engine, set, now, waited_ps);  // the activation issues once it is in
      return;
    }
  }
  uint32_t traced = 0;
  if (trace_) {
    traced = trace_->Issue(e.kind, uint32_t(e.pc), inst, now, waited_ps);
    sync_source_ = {TraceSource::Kind::kInstruction, traced};
  }
  ApplyUpdates(inst, isa::UpdateWhen::kRead);
  EffectRoute route = EffectRoute::kDrainCore;
  uint64_t stream = 0;
  if (router_)
    route = BeginEffect(e.kind, inst, stream);
  else
    reference::BeginInstruction(*run_.state, e.kind);

  const cost::InstructionCost cost = cost::EstimateCost(inst, e.kind, chip_.cost);
  const Clock clock = cost.clock();
  DurationPs occupancy = cost.OccupancyPs();
  if (inst.num_waits > 0 && cost.dependent_overhead_cycles > 0)
    occupancy += clock.CyclesToPs(cost.dependent_overhead_cycles);
  const DurationPs latency = clock.CyclesToPs(cost.access_latency_cycles);
  if (inst.opcode == Opcode::kDmaCopy && inst.has_flag(isa::kFlagHwdge) &&
      e.kind == isa::Engine::kAct && waited_ps == 0 && e.stats.instructions > 0) {
    // C-3: ACT's DGE block takes a hwdge dma_copy as soon as the sequencer has dispatched the
    // instruction before it, so its ~600 ns run behind that instruction's compute; only the
    // part left over when the sequencer gets here occupies ACT (docs/chip-model.md §3.2).
    const DurationPs hidden = std::min<DurationPs>(now - e.last_issue_ps, occupancy);
    occupancy = std::max(occupancy - hidden,
                         clock.CyclesToPs(uint64_t(std::max(1, chip_.cost.control_cycles))));
  }
  e.last_issue_ps = now;
  // Busy time and profile span: the occupancy, plus ScalarE's pipeline (cost.latency_in_span).
  const DurationPs span = occupancy + (cost.latency_in_span ? latency : 0);

  size_t next = e.pc + 1;
  bool ended = false;
  Status st;
  bool async = false;
  if (inst.opcode == Opcode::kDmaCopy) {
    st = IssueDma(engine, inst, traced);
    async = true;
  } else if (inst.opcode == Opcode::kDmaTrigger) {
    st = IssueTrigger(engine, inst, traced);
    async = true;
  } else if (inst.opcode == Opcode::kCollective) {
    st = IssueCollective(engine, inst, traced);
    async = true;
  } else if (inst.opcode == Opcode::kCoreBarrier) {
    st = IssueCoreBarrier(engine, inst, traced);
    async = true;
    next = e.pc;  // stays on the barrier until FinishPairBarrier
  } else if (inst.opcode == Opcode::kSendRecv) {
    st = IssueSendRecv(engine, inst, traced);
    async = true;
  } else if (inst.opcode == Opcode::kDebugPrint) {
    st = IssueDebugPrint(engine, inst);
  } else if (route == EffectRoute::kDefer) {
    if (!worker_) worker_ = std::make_unique<EffectWorker>(*run_.state, *run_.hbm);
    worker_->Post({e.kind, inst, e.pc, stream});  // proven to succeed and fall through
    ++deferred_effects_;
  } else {
    st = ApplyEffect(e.kind, inst, e.pc, *run_.state, *run_.hbm, next, ended);
  }
  if (!st.ok()) {
    Fail(Status(st.code(), Where(e) + ": " + st.message()));
    return;
  }
  if (router_) router_->Issued(inst);
  if (IsSyncOrUpdate(inst) && !async) WakeBlocked();
  if (trace_) {
    // sem_update / event_set / event_clear change S or E through the effect itself.
    sync_source_ = {TraceSource::Kind::kInstruction, traced};
    if (inst.opcode == Opcode::kSemUpdate) TraceSync(false, inst.index);
    if (inst.opcode == Opcode::kEventSet || inst.opcode == Opcode::kEventClear)
      TraceSync(true, inst.index);
    if (!pe_unit) trace_->SetDuration(traced, span);
  }

  // The PE sequencer hands matmuls and weight loads to the array and the weight-load unit and
  // moves on after issuing; those units time them (pe_pipeline.h).
  DurationPs sequencer_ps = occupancy;
  if (pe_unit) {
    sequencer_ps = IssuePeUnit(engine, inst, cost, traced);
  } else {
    e.busy.RecordBusy(now, now + span);
    e.stats.instructions++;
    e.last_activity_ps = std::max(e.last_activity_ps, now + span);
    last_activity_ps_ = std::max(last_activity_ps_, now + span);
    if (!async) {
      hazards_[engine].Record(inst, run_.state->regs[engine], now, now + occupancy + latency);
      ++e.outstanding;
      const size_t pc = e.pc;
      scheduler_.Schedule(
          now + occupancy + latency, [this, engine, pc, traced] { Complete(engine, pc, traced); },
          PriorityOf(engine));
    }
  }
  if (inst.opcode == Opcode::kMultiplyMoving) {
    const isa::AccessPattern& mv = inst.ap[1];
    const isa::AccessPattern& dst = inst.ap[0];
    e.stats.flops += 2ull * mv.num_partitions * (inst.has_flag(isa::kFlagDoubleRow) ? 2 : 1) *
                     dst.num_partitions * dst.FreeElements();
  }
  e.free_at_ps = now + sequencer_ps;
  e.pc = next;
  if (ended) {
    e.ended = true;
    return;
  }
  PostTry(engine, e.free_at_ps);
}

DurationPs CoreModel::IssuePeUnit(int engine, const Instruction& inst,
                                  const cost::InstructionCost& cost, uint32_t traced) {
  EngineState& e = engines_[engine];
  const TimePs now = scheduler_.Now();
  const PeIssue issue = pe_.Issue(inst, now, cost);
  for (int p = 0; p < issue.passes; ++p) {
    const PePass& pass = issue.pass[size_t(p)];
    e.busy.RecordBusy(pass.start_ps, pass.start_ps + pass.duration_ps);
    if (trace_ && p == 0) trace_->SetDuration(traced, pass.duration_ps);
    if (trace_ && p > 0) trace_->AddPass(traced, pass.start_ps, pass.duration_ps);
  }
  // Statistics count ISA instructions (each executes once: the reference interpreter's steps);
  // the passes are the profile's entries.
  e.stats.instructions++;
  e.last_activity_ps = std::max(e.last_activity_ps, issue.end_ps);
  last_activity_ps_ = std::max(last_activity_ps_, issue.end_ps);
  ++e.outstanding;
  const size_t pc = e.pc;
  scheduler_.Schedule(
      issue.complete_ps, [this, engine, pc, traced] { Complete(engine, pc, traced); },
      PriorityOf(engine));
  return issue.sequencer_ps;
}

std::string CoreModel::StuckReport() const {
  std::string report;
  for (const EngineState& e : engines_) {
    if (e.ended) continue;
    if (!report.empty()) report += "; ";
    report += Where(e);
    if (e.program && e.pc < e.program->size())
      report += " waits for " + UnmetWait(e, e.program->at(e.pc));
  }
  return report;
}

CoreStats CoreModel::Stats(TimePs start_ps) const {
  CoreStats out;
  out.core = run_.core;
  TimePs end = std::max(last_activity_ps_, fabric_.last_landing(fabric_core_));
  out.duration_ps = end > start_ps ? end - start_ps : 0;
  for (int i = 0; i < isa::kEngineCount; ++i) {
    out.engines[i] = engines_[i].stats;
    out.engines[i].busy_ps = engines_[i].busy.busy_ps();
    out.instructions += engines_[i].stats.instructions;
  }
  for (int q = 0; q < fabric_.queues_per_core(); ++q) {
    const DmaQueueCounters& c = fabric_.counters(fabric_core_, q);
    out.queues.push_back({c.transfers, c.bytes, c.busy.busy_ps()});
  }
  out.hbm_read_bytes = hbm_read_bytes_;
  out.hbm_write_bytes = hbm_write_bytes_;
  return out;
}

}  // namespace trnsim::simulator::core
