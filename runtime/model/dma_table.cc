// Translation of NEFF DMA descriptors into simulator::dma::Descriptor (contract in dma_table.h).
#include "runtime/model/dma_table.h"

#include <algorithm>
#include <map>
#include <string>

namespace trnsim::runtime::model {
namespace {

namespace dma = simulator::dma;

// A variable as descriptors address it: its var_id (or kSbufVarId) and its declared size.
struct VarRef {
  uint32_t var_id = 0;
  uint64_t size = 0;
};

// The resolved queue of a descriptor: a queue number before the modulo, and its set.
struct QueueRef {
  int queue = 0;
  const neff::QueueSet* set = nullptr;
};

StatusOr<QueueRef> ResolveQueue(const neff::Subgraph& sg, const std::string& name) {
  for (size_t i = 0; i < sg.queue_sets.size(); ++i)
    if (sg.queue_sets[i].name == name) return QueueRef{int(i), &sg.queue_sets[i]};
  for (size_t i = 0; i < sg.queue_sets.size(); ++i) {
    const auto& inst = sg.queue_sets[i].queue_instances;
    auto it = std::find(inst.begin(), inst.end(), name);
    if (it != inst.end()) return QueueRef{int(i + (it - inst.begin())), &sg.queue_sets[i]};
  }
  return InvalidError("queue '" + name + "' is neither a queue set nor a queue instance");
}

StatusOr<dma::Endpoint> Translate(const neff::DmaAccess& access,
                                  const std::map<std::string, VarRef>& vars, const char* side) {
  auto it = vars.find(access.var);
  if (it == vars.end())
    return InvalidError(std::string(side) + " variable '" + access.var + "' is not defined");
  dma::Endpoint e;
  e.var_id = it->second.var_id;
  e.offset = access.offset;
  e.steps = access.steps;
  e.sizes = access.sizes;
  e.dtype = access.dtype;
  const int esz = isa::DtypeSize(access.dtype);
  if (esz == 0) return InvalidError(std::string(side) + " has no dtype");
  if (e.steps.empty() && e.sizes.empty()) {
    const uint64_t size = it->second.size;
    if (e.offset > size || (size - e.offset) % uint64_t(esz) != 0)
      return InvalidError(std::string(side) + ": the bytes [" + std::to_string(e.offset) + ", " +
                          std::to_string(size) + ") of '" + access.var +
                          "' are not a whole number of " +
                          std::string(isa::DtypeNeffName(access.dtype)) + " elements");
    e.sizes = {size - e.offset};
    e.steps = {esz};
  }
  return e;
}

StatusOr<dma::Descriptor> TranslateOne(const neff::DmaDescriptor& in, const neff::Subgraph& sg,
                                       const std::map<std::string, VarRef>& vars,
                                       const simulator::ChipSpec& chip) {
  dma::Descriptor d;
  d.id = in.id;
  const std::string& queue_name = in.instance_name.empty() ? in.queue : in.instance_name;
  TRNSIM_ASSIGN_OR_RETURN(QueueRef q, ResolveQueue(sg, queue_name));
  if (chip.dma_queues_per_engine <= 0) return InvalidError("the chip has no DMA queues");
  d.queue = q.queue % chip.dma_queues_per_engine;
  d.semaphore_increment = q.set->num_queues;
  if (in.semaphore) {
    if (*in.semaphore < 0 || *in.semaphore >= chip.semaphores_per_core)
      return InvalidError("semaphore " + std::to_string(*in.semaphore) + " is not below " +
                          std::to_string(chip.semaphores_per_core));
    d.semaphore = uint32_t(*in.semaphore);
  }
  if (in.event) {
    if (*in.event < 0 || *in.event >= chip.events_per_core)
      return InvalidError("event " + std::to_string(*in.event) + " is not below " +
                          std::to_string(chip.events_per_core));
    d.event = uint32_t(*in.event);
  }
  switch (in.op) {
    case neff::DmaOp::kCopy:
      d.op = dma::Op::kCopy;
      break;
    case neff::DmaOp::kCast:
      d.op = dma::Op::kCast;
      break;
    case neff::DmaOp::kAdd:
      d.op = dma::Op::kAdd;
      break;
    case neff::DmaOp::kFma:
      d.op = dma::Op::kFma;
      break;
    case neff::DmaOp::kMin:
      d.op = dma::Op::kMin;
      break;
    case neff::DmaOp::kMax:
      d.op = dma::Op::kMax;
      break;
    case neff::DmaOp::kTranspose:
      d.op = dma::Op::kTranspose;
      break;
  }
  if (in.from && !in.from_arr.empty()) return InvalidError("both from and from_arr are given");
  if (in.from) {
    TRNSIM_ASSIGN_OR_RETURN(dma::Endpoint e, Translate(*in.from, vars, "source"));
    d.sources.push_back(std::move(e));
  }
  for (size_t k = 0; k < in.from_arr.size(); ++k) {
    const std::string side = "from_arr[" + std::to_string(k) + "]";
    TRNSIM_ASSIGN_OR_RETURN(dma::Endpoint e, Translate(in.from_arr[k], vars, side.c_str()));
    d.sources.push_back(std::move(e));
  }
  if (d.sources.empty()) return InvalidError("it has no source (from or from_arr)");
  if (d.sources.size() > 16) return InvalidError("it has more than 16 sources");
  TRNSIM_ASSIGN_OR_RETURN(d.dest, Translate(in.to, vars, "destination"));
  d.scale = in.scale;
  d.constant = in.constant;
  if (d.op == dma::Op::kTranspose) {
    const auto& shape = in.transpose_shape;
    if (shape[0] == 0 || shape[1] == 0 || shape[2] != 1 || shape[3] != 1)
      return InvalidError("transpose_shape [" + std::to_string(shape[0]) + ", " +
                          std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + ", " +
                          std::to_string(shape[3]) +
                          "] is not supported (rows, cols >= 1; the last two must be 1)");
  }
  d.transpose_rows = in.transpose_shape[0];
  d.transpose_cols = in.transpose_shape[1];
  d.transpose_element_size = in.transpose_element_size;
  return d;
}

}  // namespace

StatusOr<dma::DescriptorTable> BuildDescriptorTable(const neff::Subgraph& sg,
                                                    const simulator::ChipSpec& chip) {
  std::map<std::string, VarRef> vars;
  for (const neff::Variable& v : sg.variables) {
    if (v.type == neff::VariableType::kStateBuffer) {
      vars[v.name] = VarRef{dma::kSbufVarId, v.size};
    } else if (v.var_id < 0 || v.var_id >= int64_t(dma::kSbufVarId)) {
      return InvalidError("subgraph " + sg.name + ": variable '" + v.name + "' has var_id " +
                          std::to_string(v.var_id) + ", which DMA cannot address (0 .. 2^32-2)");
    } else {
      vars[v.name] = VarRef{uint32_t(v.var_id), v.size};
    }
  }
  dma::DescriptorTable table;
  for (const neff::EngineProgram& program : sg.engines) {
    const int engine = int(program.engine);
    if (engine < 0 || engine >= isa::kEngineCount)
      return InvalidError("subgraph " + sg.name + ": " + program.json_file + " has no engine");
    std::vector<dma::Descriptor>& list = table.per_engine[engine];
    for (const neff::DmaDescriptor& in : program.dma) {
      StatusOr<dma::Descriptor> d = TranslateOne(in, sg, vars, chip);
      if (!d.ok())
        return InvalidError(
            "subgraph " + sg.name + ", " + std::string(isa::EngineFileStem(program.engine)) +
            ".json descriptor " + std::to_string(in.id) + ": " + d.status().message());
      list.push_back(std::move(*d));
    }
  }
  for (int e = 0; e < isa::kEngineCount; ++e) {
    std::vector<dma::Descriptor>& list = table.per_engine[e];
    std::stable_sort(
        list.begin(), list.end(),
        [](const dma::Descriptor& a, const dma::Descriptor& b) { return a.id < b.id; });
    for (size_t i = 1; i < list.size(); ++i)
      if (list[i].id == list[i - 1].id)
        return InvalidError(
            "subgraph " + sg.name + ", " + std::string(isa::EngineFileStem(isa::Engine(e))) +
            ".json descriptor " + std::to_string(list[i].id) + ": the id is defined twice");
  }
  return table;
}

}  // namespace trnsim::runtime::model
