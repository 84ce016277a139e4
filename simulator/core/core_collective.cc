// CoreModel::IssueCollective: a `collective` instruction (docs/isa.md §7.8) on the chip model's
// timeline. At issue the src elements are read (raw bytes, access-pattern order) and handed to
// the CollectivePort with the simulated issue time; Run blocks this host thread until the
// replica group has met — the other ranks are other executions, so this execution's simulated
// time simply stands still meanwhile. The result lands in dst, and the @complete updates apply,
// at max(issue, complete_ps, the engine's previous collective landing): an in-flight operation
// of the engine until then, so a barrier waits for it and the core's duration covers it.
// Nothing here reads a host clock.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simulator/core/core_model.h"
#include "simulator/reference/operand_bytes.h"

namespace trnsim::simulator::core {

namespace cc = ::trnsim::simulator::collective;

Status CoreModel::IssueCollective(int engine, const isa::Instruction& inst, uint32_t traced) {
  if (collectives_ == nullptr)
    return InvalidError(
        "execution error: collective instruction but the model was not loaded as a collective "
        "rank (nrt_load_collectives)");
  if (inst.count >= isa::kCollectiveKindCount)  // validation refuses it; never trust a stream
    return InvalidError("execution error: collective kind " + std::to_string(inst.count) +
                        " is not a collective");
  const isa::Engine kind = isa::Engine(engine);
  reference::CoreState& state = *run_.state;
  reference::HbmView& hbm = *run_.hbm;
  // Both operands are resolved now (registers as at issue, bounds checked), so a dst that cannot
  // be written fails here rather than when the result lands.
  TRNSIM_ASSIGN_OR_RETURN(isa::AccessPattern src,
                          reference::ResolveOperand(kind, inst.ap[1], state, hbm));
  TRNSIM_ASSIGN_OR_RETURN(isa::AccessPattern dst,
                          reference::ResolveOperand(kind, inst.ap[0], state, hbm));
  const TimePs now = scheduler_.Now();
  cc::CollectiveCall call;
  call.kind = cc::CollectiveKind(inst.count);
  call.op = inst.op0;
  call.dtype = src.dtype;
  call.group = {inst.imm[0], inst.imm[1]};
  call.shift = inst.imm_i32(2);
  call.collective_id = inst.index;
  TRNSIM_ASSIGN_OR_RETURN(call.input, reference::ReadOperandBytes(src, state, hbm));
  call.output_bytes = dst.Elements() * uint64_t(isa::DtypeSize(dst.dtype));
  call.physical_core = run_.core;
  call.arrival_ps = now;
  const uint64_t input_bytes = call.input.size();
  const uint64_t output_bytes = call.output_bytes;

  StatusOr<cc::CollectiveOutcome> outcome = collectives_->Run(std::move(call));
  if (!outcome.ok()) return outcome.status();  // the caller prefixes core/engine/instruction
  if (outcome->output.size() != output_bytes)
    return InvalidError("execution error: the collective rendezvous returned " +
                        std::to_string(outcome->output.size()) + " bytes for a dst of " +
                        std::to_string(output_bytes) + " bytes");
  hbm_read_bytes_ += input_bytes;
  hbm_write_bytes_ += output_bytes;

  // Never before the issue, and after the engine's previous collective: one engine's
  // collectives complete in issue order, as a DMA queue's transfers do (docs/isa.md §7.8).
  EngineState& issuer = engines_[engine];
  const TimePs land_ps = std::max({now, outcome->complete_ps, issuer.collective_land_ps});
  issuer.collective_land_ps = land_ps;
  auto output = std::make_shared<std::vector<uint8_t>>(std::move(outcome->output));
  const size_t pc = issuer.pc;  // names the collective, wherever the engine gets to
  ++issuer.outstanding;
  scheduler_.Schedule(
      land_ps,
      [this, engine, traced, dst, output, pc] {
        if (!status_.ok()) return;
        DrainEffects();  // dst may be this core's SBUF/PSUM
        Status st = reference::WriteOperandBytes(dst, *output, *run_.state, *run_.hbm);
        if (!st.ok()) {
          Fail(Status(st.code(), Where(engines_[engine], pc) + ": " + st.message()));
          return;
        }
        Complete(engine, pc, traced);
      },
      PriorityOf(engine));
  return Status::Ok();
}

}  // namespace trnsim::simulator::core
