#include "simulator/reference/debug_print.h"

#include <utility>

#include "simulator/reference/interpreter.h"
#include "simulator/reference/operand_bytes.h"

namespace trnsim::reference {

StatusOr<DebugPrint> CaptureDebugPrint(isa::Engine engine, const isa::Instruction& inst, size_t pc,
                                       CoreState& state, HbmView& hbm) {
  if (inst.opcode != isa::Opcode::kDebugPrint) {
    return InvalidError("CaptureDebugPrint takes a debug_print instruction");
  }
  const isa::AccessPattern& src = inst.ap[isa::kSrc];
  TRNSIM_ASSIGN_OR_RETURN(isa::AccessPattern resolved, ResolveOperand(engine, src, state, hbm));
  TRNSIM_ASSIGN_OR_RETURN(std::vector<uint8_t> data, ReadOperandBytes(resolved, state, hbm));
  DebugPrint print;
  print.prefix_id = inst.index;
  print.dtype = src.dtype;
  print.shape.push_back(src.num_partitions);
  for (int d = 0; d < src.num_dims && d < isa::kMaxFreeDims; ++d)
    print.shape.push_back(src.sizes[d]);
  print.data = std::move(data);
  print.engine = engine;
  print.pc = static_cast<uint32_t>(pc);
  return print;
}

}  // namespace trnsim::reference
