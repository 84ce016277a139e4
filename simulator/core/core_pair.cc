// CoreModel's LNC=2 pair instructions (docs/isa.md §7.9): `core_barrier` and `sendrecv`, between
// this core and its peer (physical core ^ 1) running in the same execution on the same
// scheduler — every cross-core effect is a scheduled event, so the pair stays deterministic.
//
// core_barrier sem=S: at issue the k-th core_barrier of this core naming S schedules +1 on the
// peer's S[S] at issue + the chip's DMA start latency (the remote semaphore write), then the
// engine waits — issuing nothing else — until its own S[S] >= k; then the instruction completes
// (@complete updates) and the engine moves on. Only the issuing engine blocks.
// sendrecv: at issue src is read (this core's SBUF, registers as at issue) and a transfer is
// queued on this core's DMA queue `queue`; when it lands the bytes are written to dst in the
// peer's SBUF, the peer's S[peer_sem] gets +1 and the instruction completes here.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simulator/core/core_model.h"
#include "simulator/reference/operand_bytes.h"

namespace trnsim::simulator::core {

Status CoreModel::NeedPeer(const isa::Instruction& inst) const {
  if (peer_ != nullptr) return Status::Ok();
  return InvalidError("execution error: " + std::string(isa::Mnemonic(inst.opcode)) +
                      " needs the peer core " + std::to_string(run_.core ^ 1) +
                      " of an LNC=2 pair in the same execution, and it is not running (an "
                      "LNC=1 execution has no peer)");
}

void CoreModel::RemoteSemAdd(uint32_t index, uint32_t value, TraceSource source) {
  if (!status_.ok()) return;
  if (trace_) sync_source_ = source;
  ApplySync(isa::UpdateOp::kSemAdd, index, value);
  WakeBlocked();
}

Status CoreModel::IssueCoreBarrier(int engine, const isa::Instruction& inst, uint32_t traced) {
  TRNSIM_RETURN_IF_ERROR(NeedPeer(inst));
  const uint32_t sem = inst.index % uint32_t(pair_barriers_.size());
  EngineState& e = engines_[engine];
  e.pair_waiting = true;
  e.pair_sem = sem;
  e.pair_target = ++pair_barriers_[sem];
  e.pair_traced = traced;
  ++e.outstanding;
  CoreModel* peer = peer_;
  const TraceSource source{TraceSource::Kind::kInstruction, traced};
  scheduler_.Schedule(
      scheduler_.Now() + chip_.cost.dma_start_latency_ps,
      [peer, sem, source] { peer->RemoteSemAdd(sem, 1, source); }, PriorityOf(engine));
  return Status::Ok();
}

bool CoreModel::FinishPairBarrier(int engine) {
  EngineState& e = engines_[engine];
  const TimePs now = scheduler_.Now();
  if (run_.state->sem[e.pair_sem] < e.pair_target) {
    if (!e.blocked) {
      e.blocked = true;
      e.blocked_since_ps = now;
    }
    return false;
  }
  if (e.blocked) {
    e.stats.wait_ps += now - e.blocked_since_ps;
    e.blocked = false;
  }
  e.pair_waiting = false;
  const size_t pc = e.pc;
  ++e.pc;
  Complete(engine, pc, e.pair_traced);
  return true;
}

Status CoreModel::IssueSendRecv(int engine, const isa::Instruction& inst, uint32_t traced) {
  TRNSIM_RETURN_IF_ERROR(NeedPeer(inst));
  const isa::Engine kind = isa::Engine(engine);
  reference::CoreState& state = *run_.state;
  reference::HbmView& hbm = *run_.hbm;
  // Both resolved now (registers as at issue); dst is checked against this core's SBUF, which
  // has the peer's size (one chip, CheckRuns).
  TRNSIM_ASSIGN_OR_RETURN(isa::AccessPattern src,
                          reference::ResolveOperand(kind, inst.ap[1], state, hbm));
  TRNSIM_ASSIGN_OR_RETURN(isa::AccessPattern dst,
                          reference::ResolveOperand(kind, inst.ap[0], state, hbm));
  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> read, reference::ReadOperandBytes(src, state, hbm));
  auto bytes = std::make_shared<std::vector<uint8_t>>(std::move(read));

  DmaRequest r =
      NewDmaRequest(inst, int(inst.count % uint32_t(fabric_.queues_per_core())),
                    SplitCopy(dst, src, fabric_.engines_per_core(), PartitionsPerDmaEngine()));
  uint32_t dma = 0;
  if (trace_)
    dma = trace_->DmaSubmitted(r.queue, r.split.bytes, isa::Memory::kSbuf, isa::Memory::kSbuf,
                               traced, scheduler_.Now());
  const uint32_t peer_sem = inst.index % uint32_t(pair_barriers_.size());
  const size_t pc = engines_[engine].pc;  // names the sendrecv after the engine moves on
  r.on_land = [this, engine, traced, dma, dst, bytes, peer_sem, pc](const DmaLanding& landing) {
    if (!status_.ok()) return;
    if (trace_) trace_->DmaLanded(dma, scheduler_.Now(), landing);
    peer_->DrainEffects();  // the bytes land in the peer's SBUF
    Status st = reference::WriteOperandBytes(dst, *bytes, *peer_->run_.state, *peer_->run_.hbm);
    if (!st.ok()) {
      Fail(Status(st.code(), Where(engines_[engine], pc) + ": " + st.message()));
      return;
    }
    peer_->RemoteSemAdd(peer_sem, 1, {TraceSource::Kind::kDma, dma});
    Complete(engine, pc, traced);
  };
  ++engines_[engine].outstanding;
  fabric_.Submit(std::move(r));
  return Status::Ok();
}

}  // namespace trnsim::simulator::core
