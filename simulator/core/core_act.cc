// CoreModel, ScalarE activation tables (docs/chip-model.md §2): an activation whose function
// needs a table set other than the loaded one first loads that set, for act_table_load_ps, as
// its own segment on ACT (trace opcode "act_table_load", counted as an ACT instruction). Every
// execution starts with no set.
#include <algorithm>
#include <string>

#include "simulator/core/core_model.h"
#include "simulator/isa/opcode.h"

namespace trnsim::simulator::core {

isa::ActTableSet CoreModel::MissingActTable(const isa::Instruction& inst) const {
  const isa::OpcodeInfo* info = isa::FindOpcode(inst.opcode);
  if (info == nullptr || (info->fields & isa::kFieldFunc) == 0) return isa::ActTableSet::kNone;
  const isa::ActTableSet set = isa::TableSetOf(inst.func);
  return set == act_table_ ? isa::ActTableSet::kNone : set;
}

void CoreModel::LoadActTable(int engine, isa::ActTableSet set, TimePs now, DurationPs waited_ps) {
  EngineState& e = engines_[engine];
  const DurationPs load_ps = chip_.cost.act_table_load_ps;
  act_table_ = set;
  if (trace_)
    trace_->Segment(e.kind, "act_table_load", std::string(isa::ActTableSetName(set)), now, load_ps,
                    waited_ps);
  e.busy.RecordBusy(now, now + load_ps);
  e.stats.instructions++;
  e.free_at_ps = now + load_ps;
  e.last_activity_ps = std::max(e.last_activity_ps, e.free_at_ps);
  last_activity_ps_ = std::max(last_activity_ps_, e.free_at_ps);
  PostTry(engine, e.free_at_ps);
}

}  // namespace trnsim::simulator::core
